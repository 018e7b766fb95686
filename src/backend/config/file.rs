//! The backends file: `backends.toml` in trajscope's config directory, one `[backends.NAME]`
//! table per backend. Parse errors give line and column but never quote the file, so a key
//! pasted into it by mistake does not end up in a terminal or a log.

use super::BackendConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Something is wrong with the configuration of a backend.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: {message}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error(
        "{}: backend `{backend}` has a `{field}` field: keys are never read from files; put the key in an environment variable and name it with api_key_env = \"VAR\"",
        path.display()
    )]
    KeyInFile {
        path: PathBuf,
        backend: String,
        field: String,
    },
    #[error("backend `{backend}`: {message}")]
    Invalid { backend: String, message: String },
    #[error("no backend named `{name}` ({})", known_list(.known))]
    Unknown { name: String, known: Vec<String> },
    #[error(
        "backend `{backend}`: the environment variable {var} (api_key_env) is not set or empty"
    )]
    MissingKey { backend: String, var: String },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "no backends are configured".to_string()
    } else {
        format!("configured: {}", known.join(", "))
    }
}

/// Field names that suggest someone put a secret in the file.
const SECRET_FIELDS: &[&str] = &[
    "api_key",
    "apikey",
    "api-key",
    "key",
    "token",
    "secret",
    "password",
    "authorization",
];

/// All configured backends.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendsFile {
    /// The backend used when none is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default)]
    pub backends: BTreeMap<String, BackendConfig>,
}

impl BackendsFile {
    /// `<config dir>/trajscope/backends.toml` (`~/.config/trajscope/backends.toml` on Linux).
    pub fn default_path() -> Option<PathBuf> {
        dirs::config_dir().map(|dir| dir.join("trajscope").join("backends.toml"))
    }

    /// Reads the file at the default path; no file means no backends, not an error.
    pub fn load_default() -> Result<BackendsFile, ConfigError> {
        match BackendsFile::default_path() {
            Some(path) if path.exists() => BackendsFile::load(&path),
            _ => Ok(BackendsFile::default()),
        }
    }

    pub fn load(path: &Path) -> Result<BackendsFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        BackendsFile::parse(&text, path)
    }

    /// Parses `text` (read from `path`, used in messages) and validates every backend.
    pub fn parse(text: &str, path: &Path) -> Result<BackendsFile, ConfigError> {
        let parse_error = |e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map_or((0, 0), |span| line_column(text, span.start));
            ConfigError::Parse {
                path: path.to_path_buf(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        };
        // A first pass as plain tables, to refuse secrets by field name before anything else.
        let table: toml::Table = toml::from_str(text).map_err(parse_error)?;
        if let Some(toml::Value::Table(backends)) = table.get("backends") {
            for (name, backend) in backends {
                let Some(backend) = backend.as_table() else {
                    continue;
                };
                if let Some(field) = backend
                    .keys()
                    .find(|k| SECRET_FIELDS.contains(&k.to_ascii_lowercase().as_str()))
                {
                    return Err(ConfigError::KeyInFile {
                        path: path.to_path_buf(),
                        backend: name.clone(),
                        field: field.clone(),
                    });
                }
            }
        }
        let file: BackendsFile = toml::from_str(text).map_err(parse_error)?;
        for (name, backend) in &file.backends {
            backend.validate().map_err(|message| ConfigError::Invalid {
                backend: name.clone(),
                message,
            })?;
        }
        if let Some(default) = &file.default {
            file.get(default)?;
        }
        Ok(file)
    }

    /// The backend called `name`.
    pub fn get(&self, name: &str) -> Result<&BackendConfig, ConfigError> {
        self.backends.get(name).ok_or_else(|| ConfigError::Unknown {
            name: name.to_string(),
            known: self.backends.keys().cloned().collect(),
        })
    }

    /// The backend to use when the user names none: `default`, or the only one.
    pub fn default_backend(&self) -> Option<(&str, &BackendConfig)> {
        match &self.default {
            Some(name) => self.backends.get_key_value(name.as_str()),
            None if self.backends.len() == 1 => self.backends.iter().next(),
            None => None,
        }
        .map(|(name, config)| (name.as_str(), config))
    }
}

/// 1-based line and column of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendKind;

    const EXAMPLE: &str = r#"
default = "local"

[backends.local]
base_url = "http://127.0.0.1:8080"
model = "smollm2"
sampling = { temperature = 0.0, seed = 42, max_tokens = 256 }

[backends.claude]
kind = "anthropic"
base_url = "https://api.anthropic.com"
model = "claude-sonnet-4-5"
api_key_env = "ANTHROPIC_API_KEY"
timeouts = { read_s = 60 }
retry = { max_retries = 2 }
extra_body = { top_k = 5 }
"#;

    #[test]
    fn a_file_with_two_backends() {
        let file = BackendsFile::parse(EXAMPLE, Path::new("backends.toml")).unwrap();
        let (name, local) = file.default_backend().unwrap();
        assert_eq!(name, "local");
        assert_eq!(local.kind, BackendKind::OpenAi);
        assert_eq!(local.sampling.seed, Some(42));
        assert_eq!(
            local.timeouts.read_s, 180.0,
            "defaults fill what is not given"
        );
        let claude = file.get("claude").unwrap();
        assert_eq!(claude.kind, BackendKind::Anthropic);
        assert_eq!(claude.timeouts.read_s, 60.0);
        assert_eq!(claude.timeouts.connect_s, 10.0);
        assert_eq!(claude.retry.max_retries, 2);
        assert_eq!(claude.extra_body["top_k"], 5);
        let err = file.get("gpt").unwrap_err().to_string();
        assert_eq!(err, "no backend named `gpt` (configured: claude, local)");
    }

    #[test]
    fn a_key_in_the_file_is_refused_without_being_quoted() {
        let text =
            "[backends.x]\nbase_url = \"http://h\"\nmodel = \"m\"\napi_key = \"sk-live-123456\"\n";
        let err = BackendsFile::parse(text, Path::new("b.toml")).unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(matches!(err, ConfigError::KeyInFile { .. }));
        assert!(shown.contains("api_key_env"));
        assert!(!shown.contains("sk-live-123456"));
    }

    #[test]
    fn parse_errors_have_positions_but_no_quotes() {
        let text =
            "[backends.x]\nbase_url = \"http://h\"\nmodel = \"m\"\nsecrt = \"sk-live-123456\"\n";
        let err = BackendsFile::parse(text, Path::new("b.toml")).unwrap_err();
        let shown = err.to_string();
        assert!(shown.starts_with("b.toml:"), "{shown}");
        assert!(shown.contains("secrt"), "{shown}");
        assert!(!shown.contains("sk-live"), "{shown}");

        let broken = "[backends.x]\nmodel = \"sk-live-123456\nbase_url = 1\n";
        let shown = BackendsFile::parse(broken, Path::new("b.toml"))
            .unwrap_err()
            .to_string();
        assert!(shown.starts_with("b.toml:2:"), "{shown}");
        assert!(!shown.contains("sk-live"), "{shown}");
    }

    #[test]
    fn invalid_backends_and_defaults_are_named() {
        let text = "[backends.x]\nbase_url = \"nope\"\nmodel = \"m\"\n";
        let err = BackendsFile::parse(text, Path::new("b.toml")).unwrap_err();
        assert!(err.to_string().starts_with("backend `x`: base_url `nope`"));
        let text = "default = \"y\"\n[backends.x]\nbase_url = \"http://h\"\nmodel = \"m\"\n";
        let err = BackendsFile::parse(text, Path::new("b.toml")).unwrap_err();
        assert!(matches!(err, ConfigError::Unknown { .. }));
    }
}
