//! Which backends a replay talks to: named ones from backends.toml, an ad-hoc one from flags,
//! or the file's default.

use super::Args;
use anyhow::{Result, bail};
use trajscope::backend::{Backend, BackendConfig, BackendsFile};

pub fn resolve(args: &Args) -> Result<Vec<Backend>> {
    let mut backends = Vec::new();
    if let Some(url) = &args.base_url {
        let Some(model) = &args.model else {
            bail!("--base-url needs --model NAME");
        };
        let mut config = BackendConfig::new(args.kind, url.clone(), model.clone());
        if let Some(var) = &args.api_key_env {
            config = config.with_api_key_env(var.clone());
        }
        config.sampling = args.sampling().or(&config.sampling);
        backends.push(Backend::new("ad-hoc", config)?);
    } else if args.model.is_some() || args.kind.is_some() || args.api_key_env.is_some() {
        bail!("--model, --kind and --api-key-env describe an ad-hoc backend: give --base-url too");
    }
    if !args.backends.is_empty() || backends.is_empty() {
        let file = BackendsFile::load_default()?;
        if args.backends.is_empty() {
            let Some((name, config)) = file.default_backend() else {
                bail!(
                    "no backend: name one with --backend NAME (configured in {}) or give --base-url URL --model NAME",
                    BackendsFile::default_path()
                        .map(|p| p.display().to_string())
                        .unwrap_or_else(|| "backends.toml".into())
                );
            };
            let mut config = config.clone();
            config.sampling = args.sampling().or(&config.sampling);
            backends.push(Backend::new(name, config)?);
        }
        for name in &args.backends {
            let mut config = file.get(name)?.clone();
            config.sampling = args.sampling().or(&config.sampling);
            backends.push(Backend::new(name.clone(), config)?);
        }
    }
    Ok(backends)
}
