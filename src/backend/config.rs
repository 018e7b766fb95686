//! How to reach one backend: kind, base URL, model, the *name* of the environment variable that
//! holds its key, sampling settings, timeouts and retries. Read from TOML ([`BackendsFile`]) or
//! built from command-line flags ([`BackendConfig::new`] and the `with_*` methods).
//!
//! A config never holds a key, only where to find one: it can be printed, logged and written
//! into a fork as it is. Reading the key is [`super::secret`]'s job.

mod file;

pub use file::{BackendsFile, ConfigError};

use super::kind::BackendKind;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Sampling settings. Unset fields are not sent, so the server's defaults apply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampling {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Output token limit. The Anthropic API requires one: 4096 when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sent to OpenAI-compatible servers only: the Anthropic API has no seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<String>>,
}

impl Sampling {
    /// `self`'s settings, falling back to `base` for each one that is unset.
    pub fn or(&self, base: &Sampling) -> Sampling {
        Sampling {
            temperature: self.temperature.or(base.temperature),
            top_p: self.top_p.or(base.top_p),
            max_tokens: self.max_tokens.or(base.max_tokens),
            seed: self.seed.or(base.seed),
            stop: self.stop.clone().or_else(|| base.stop.clone()),
        }
    }
}

/// Time limits, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// Opening the TCP (and TLS) connection.
    #[serde(default = "Timeouts::default_connect")]
    pub connect_s: f64,
    /// The longest silence while waiting for the response headers or the next bytes of the
    /// stream (a long prompt on a slow server may take a while before its first token).
    #[serde(default = "Timeouts::default_read")]
    pub read_s: f64,
    /// The whole completion, retries and their waits included.
    #[serde(default = "Timeouts::default_total")]
    pub total_s: f64,
}

impl Timeouts {
    fn default_connect() -> f64 {
        10.0
    }
    fn default_read() -> f64 {
        180.0
    }
    fn default_total() -> f64 {
        900.0
    }

    pub fn connect(&self) -> Duration {
        seconds(self.connect_s)
    }
    pub fn read(&self) -> Duration {
        seconds(self.read_s)
    }
    pub fn total(&self) -> Duration {
        seconds(self.total_s)
    }
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect_s: Timeouts::default_connect(),
            read_s: Timeouts::default_read(),
            total_s: Timeouts::default_total(),
        }
    }
}

/// When and how long to wait before sending a failed request again (429, 5xx, a refused
/// connection, no response headers in time).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0: never retry).
    #[serde(default = "RetryPolicy::default_max_retries")]
    pub max_retries: u32,
    /// The first wait; each later one doubles, up to `max_backoff_s`. A server's `Retry-After`
    /// takes precedence.
    #[serde(default = "RetryPolicy::default_initial")]
    pub initial_backoff_s: f64,
    #[serde(default = "RetryPolicy::default_max")]
    pub max_backoff_s: f64,
}

impl RetryPolicy {
    fn default_max_retries() -> u32 {
        4
    }
    fn default_initial() -> f64 {
        1.0
    }
    fn default_max() -> f64 {
        60.0
    }
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_retries: RetryPolicy::default_max_retries(),
            initial_backoff_s: RetryPolicy::default_initial(),
            max_backoff_s: RetryPolicy::default_max(),
        }
    }
}

/// One backend, as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendConfig {
    #[serde(default)]
    pub kind: BackendKind,
    /// `http://127.0.0.1:8080`, `https://api.openai.com/v1`, `https://api.anthropic.com`: the
    /// endpoint is this plus `/v1/chat/completions` or `/v1/messages` (no second `/v1` when
    /// the URL already ends in one).
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key; no key is sent when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub sampling: Sampling,
    #[serde(default)]
    pub timeouts: Timeouts,
    #[serde(default)]
    pub retry: RetryPolicy,
    /// OpenAI kind: ask for a final usage chunk (`stream_options.include_usage`).
    #[serde(default = "yes")]
    pub include_usage: bool,
    /// OpenAI kind: when the context does not start with a system message, send an empty one,
    /// so that chat templates that insert a default system prompt when none is given (SmolLM2,
    /// Qwen) show the model what the log shows.
    #[serde(default = "yes")]
    pub always_send_system: bool,
    /// Anthropic kind: the `anthropic-version` header.
    #[serde(default = "default_anthropic_version")]
    pub anthropic_version: String,
    /// Extra top-level fields merged into every request body (provider routing,
    /// `max_completion_tokens`, `top_k` …); they override what trajscope would send.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra_body: serde_json::Map<String, serde_json::Value>,
}

fn yes() -> bool {
    true
}

fn default_anthropic_version() -> String {
    "2023-06-01".to_string()
}

impl BackendConfig {
    /// A backend with default settings: what `--base-url URL --model NAME [--kind K]` means.
    /// Without a kind, a URL on anthropic.com is Anthropic and anything else OpenAI-compatible.
    pub fn new(
        kind: Option<BackendKind>,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> BackendConfig {
        let base_url = base_url.into();
        let kind = kind.unwrap_or_else(|| {
            if base_url.contains("anthropic.com") {
                BackendKind::Anthropic
            } else {
                BackendKind::OpenAi
            }
        });
        BackendConfig {
            kind,
            base_url,
            model: model.into(),
            api_key_env: None,
            sampling: Sampling::default(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            include_usage: true,
            always_send_system: true,
            anthropic_version: default_anthropic_version(),
            extra_body: serde_json::Map::new(),
        }
    }

    pub fn with_api_key_env(mut self, var: impl Into<String>) -> BackendConfig {
        self.api_key_env = Some(var.into());
        self
    }

    pub fn with_sampling(mut self, sampling: Sampling) -> BackendConfig {
        self.sampling = sampling;
        self
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> BackendConfig {
        self.timeouts = timeouts;
        self
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> BackendConfig {
        self.retry = retry;
        self
    }

    /// The full endpoint URL.
    pub fn endpoint(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        let v1 = if base.ends_with("/v1") { "" } else { "/v1" };
        format!("{base}{v1}/{}", self.kind.path())
    }

    /// Checks what can be checked without the network; the message says what to fix.
    pub fn validate(&self) -> Result<(), String> {
        let url = reqwest::Url::parse(&self.endpoint())
            .map_err(|e| format!("base_url `{}` is not a URL: {e}", self.base_url))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!(
                "base_url `{}` must start with http:// or https://",
                self.base_url
            ));
        }
        if self.model.trim().is_empty() {
            return Err("model is empty".into());
        }
        if let Some(var) = &self.api_key_env
            && (var.is_empty() || var.contains(['=', '\0']))
        {
            return Err(format!(
                "api_key_env `{var}` is not an environment variable name"
            ));
        }
        let t = &self.timeouts;
        for (name, value, least) in [
            ("timeouts.connect_s", t.connect_s, f64::MIN_POSITIVE),
            ("timeouts.read_s", t.read_s, f64::MIN_POSITIVE),
            ("timeouts.total_s", t.total_s, f64::MIN_POSITIVE),
            ("retry.initial_backoff_s", self.retry.initial_backoff_s, 0.0),
            ("retry.max_backoff_s", self.retry.max_backoff_s, 0.0),
        ] {
            if !value.is_finite() || value < least {
                let bound = if least > 0.0 { "> 0" } else { "≥ 0" };
                return Err(format!("{name} must be a number of seconds {bound}"));
            }
        }
        Ok(())
    }

    /// What a fork records about how it was produced: everything but secrets (there are none
    /// here) and the password part of a URL.
    pub fn settings_json(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(object) = value.as_object_mut() {
            object.insert(
                "base_url".into(),
                serde_json::Value::String(display_url(&self.base_url)),
            );
        }
        value
    }
}

/// A URL with any password replaced, for messages and files.
pub fn display_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("redacted"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

fn seconds(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_with_and_without_v1() {
        let local = BackendConfig::new(None, "http://127.0.0.1:8080/", "m");
        assert_eq!(
            local.endpoint(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        let openai = BackendConfig::new(None, "https://api.openai.com/v1", "m");
        assert_eq!(
            openai.endpoint(),
            "https://api.openai.com/v1/chat/completions"
        );
        let claude = BackendConfig::new(None, "https://api.anthropic.com", "m");
        assert_eq!(claude.kind, BackendKind::Anthropic);
        assert_eq!(claude.endpoint(), "https://api.anthropic.com/v1/messages");
    }

    #[test]
    fn validation_names_the_problem() {
        let bad = BackendConfig::new(None, "ftp://x", "m").validate();
        assert!(bad.unwrap_err().contains("http://"));
        let bad = BackendConfig::new(None, "http://x", " ").validate();
        assert_eq!(bad.unwrap_err(), "model is empty");
        let mut config = BackendConfig::new(None, "http://x", "m");
        config.timeouts.read_s = -1.0;
        assert!(config.validate().unwrap_err().contains("read_s"));
        assert!(BackendConfig::new(None, "http://x", "m").validate().is_ok());
    }

    #[test]
    fn sampling_falls_back_field_by_field() {
        let base = Sampling {
            temperature: Some(0.7),
            max_tokens: Some(100),
            ..Sampling::default()
        };
        let over = Sampling {
            temperature: Some(0.0),
            seed: Some(1),
            ..Sampling::default()
        };
        let merged = over.or(&base);
        assert_eq!(merged.temperature, Some(0.0));
        assert_eq!(merged.max_tokens, Some(100));
        assert_eq!(merged.seed, Some(1));
    }

    #[test]
    fn settings_hide_url_passwords() {
        let config = BackendConfig::new(None, "http://user:hunter2@host:1", "m");
        let settings = config.settings_json().to_string();
        assert!(!settings.contains("hunter2"));
        assert!(settings.contains("user:redacted@host"));
    }
}
