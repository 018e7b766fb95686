//! Which backends a replay talks to: named ones from `backends.toml`, an ad-hoc one given by
//! URL and model, or the file's default. Shared by `trajscope replay` and the app's replay
//! panel, so that both pick the same backend for the same words.

use super::{Backend, BackendConfig, BackendKind, BackendsFile, ConfigError, Sampling};
use thiserror::Error;

/// A backend described by flags alone (`--base-url URL --model NAME`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AdHoc {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub kind: Option<BackendKind>,
    pub api_key_env: Option<String>,
}

impl AdHoc {
    /// The backend's configuration, when a URL is given; an error when only part of it is.
    pub fn config(&self) -> Result<Option<BackendConfig>, SelectError> {
        let Some(url) = &self.base_url else {
            if self.model.is_some() || self.kind.is_some() || self.api_key_env.is_some() {
                return Err(SelectError::AdHocWithoutUrl);
            }
            return Ok(None);
        };
        let Some(model) = &self.model else {
            return Err(SelectError::AdHocWithoutModel);
        };
        let mut config = BackendConfig::new(self.kind, url.clone(), model.clone());
        if let Some(var) = &self.api_key_env {
            config = config.with_api_key_env(var.clone());
        }
        Ok(Some(config))
    }
}

/// The name an ad-hoc backend goes by in forks and tables.
pub const AD_HOC: &str = "ad-hoc";

#[derive(Debug, Error)]
pub enum SelectError {
    #[error("--base-url needs --model NAME")]
    AdHocWithoutModel,
    #[error("--model, --kind and --api-key-env describe an ad-hoc backend: give --base-url too")]
    AdHocWithoutUrl,
    #[error(
        "no backend: name one with --backend NAME (configured in {}) or give --base-url URL --model NAME",
        backends_path()
    )]
    NoBackend,
    #[error(transparent)]
    Config(#[from] ConfigError),
}

fn backends_path() -> String {
    BackendsFile::default_path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "backends.toml".into())
}

/// The backends for a replay: the ad-hoc one if any, then each of `names` from `file`; with
/// neither, the file's default. `sampling` overrides each backend's own settings field by
/// field. `file` is only read when it is needed.
pub fn select(
    ad_hoc: &AdHoc,
    names: &[String],
    file: impl FnOnce() -> Result<BackendsFile, ConfigError>,
    sampling: &Sampling,
) -> Result<Vec<Backend>, SelectError> {
    let mut backends = Vec::new();
    if let Some(mut config) = ad_hoc.config()? {
        config.sampling = sampling.or(&config.sampling);
        backends.push(Backend::new(AD_HOC, config)?);
    }
    if !names.is_empty() || backends.is_empty() {
        let file = file()?;
        if names.is_empty() {
            let Some((name, config)) = file.default_backend() else {
                return Err(SelectError::NoBackend);
            };
            let mut config = config.clone();
            config.sampling = sampling.or(&config.sampling);
            backends.push(Backend::new(name, config)?);
        }
        for name in names {
            let mut config = file.get(name)?.clone();
            config.sampling = sampling.or(&config.sampling);
            backends.push(Backend::new(name.clone(), config)?);
        }
    }
    Ok(backends)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn file() -> Result<BackendsFile, ConfigError> {
        BackendsFile::parse(
            "default = \"b\"\n[backends.a]\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"ma\"\n\
             [backends.b]\nbase_url = \"http://127.0.0.1:2\"\nmodel = \"mb\"\n",
            Path::new("backends.toml"),
        )
    }

    fn names(backends: &[Backend]) -> Vec<&str> {
        backends.iter().map(Backend::name).collect()
    }

    #[test]
    fn the_default_only_when_nothing_is_named() {
        let none = AdHoc::default();
        let s = Sampling::default();
        assert_eq!(names(&select(&none, &[], file, &s).unwrap()), ["b"]);
        let named = ["a".to_string()];
        assert_eq!(names(&select(&none, &named, file, &s).unwrap()), ["a"]);
        let ad_hoc = AdHoc {
            base_url: Some("http://127.0.0.1:3".into()),
            model: Some("m".into()),
            ..AdHoc::default()
        };
        let unread = || -> Result<BackendsFile, ConfigError> { panic!("file read") };
        assert_eq!(names(&select(&ad_hoc, &[], unread, &s).unwrap()), [AD_HOC]);
        assert_eq!(
            names(&select(&ad_hoc, &named, file, &s).unwrap()),
            [AD_HOC, "a"]
        );
    }

    #[test]
    fn missing_pieces_are_named() {
        let s = Sampling::default();
        let empty = || Ok(BackendsFile::default());
        let err = select(&AdHoc::default(), &[], empty, &s).unwrap_err();
        assert!(matches!(err, SelectError::NoBackend), "{err}");
        let half = AdHoc {
            model: Some("m".into()),
            ..AdHoc::default()
        };
        assert!(matches!(
            select(&half, &[], empty, &s).unwrap_err(),
            SelectError::AdHocWithoutUrl
        ));
        let unknown = ["zz".to_string()];
        let err = select(&AdHoc::default(), &unknown, file, &s).unwrap_err();
        assert!(err.to_string().contains("no backend named `zz`"), "{err}");
    }
}
