//! A configured backend ready to answer: [`Backend::stream`] sends a request and yields its
//! events as they arrive; [`Backend::complete`] waits for the whole answer;
//! [`Backend::prepare`] shows what would be sent without sending it (`--dry-run`).
//!
//! reqwest over rustls on tokio. Owns retries, timeouts and cancellation; request bodies and
//! decoding belong to [`super::request`] and [`super::decode`].

mod call;
mod stream;

pub use stream::CompletionStream;

use super::config::{BackendConfig, ConfigError, display_url};
use super::error::BackendError;
use super::event::Completion;
use super::kind::BackendKind;
use super::request::{self, CompletionRequest};
use super::secret::{ApiKey, env_lookup};
use call::Call;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One backend: its config, its key (when it has one) and a connection pool. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Backend {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    name: String,
    config: BackendConfig,
    key: Option<ApiKey>,
    endpoint: String,
    http: reqwest::Client,
}

/// Exactly what would be sent, for `--dry-run`: the key shown only as the variable it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
    /// Changes the API forced on the context (see [`request::Body::adaptations`]).
    pub adaptations: Vec<String>,
}

impl std::fmt::Display for PreparedRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "POST {}", self.url)?;
        for (name, value) in &self.headers {
            writeln!(f, "{name}: {value}")?;
        }
        writeln!(f)?;
        let body = serde_json::to_string_pretty(&self.body).map_err(|_| std::fmt::Error)?;
        writeln!(f, "{body}")
    }
}

impl Backend {
    /// A backend named `name` (used in messages), its key read from the process environment.
    pub fn new(name: impl Into<String>, config: BackendConfig) -> Result<Backend, ConfigError> {
        Backend::with_lookup(name, config, &env_lookup)
    }

    /// As [`Backend::new`], reading the key variable through `lookup`.
    pub fn with_lookup(
        name: impl Into<String>,
        config: BackendConfig,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Backend, ConfigError> {
        let name = name.into();
        config.validate().map_err(|message| ConfigError::Invalid {
            backend: name.clone(),
            message,
        })?;
        let key = match &config.api_key_env {
            Some(var) => Some(ApiKey::from_lookup(&name, var, lookup)?),
            None => None,
        };
        // reqwest needs a process-wide rustls provider; an error means one is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeouts.connect())
            .user_agent(concat!("trajscope/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError::Invalid {
                backend: name.clone(),
                message: format!("cannot set up the HTTP client: {e}"),
            })?;
        Ok(Backend {
            inner: Arc::new(Inner {
                endpoint: config.endpoint(),
                name,
                config,
                key,
                http,
            }),
        })
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    pub fn config(&self) -> &BackendConfig {
        &self.inner.config
    }

    /// The request that [`Backend::stream`] would send, with the key left out.
    pub fn prepare(&self, request: &CompletionRequest) -> PreparedRequest {
        let body = request::body(&self.inner.config, request);
        let headers = self
            .headers_shown()
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect();
        PreparedRequest {
            url: display_url(&self.inner.endpoint),
            headers,
            body: body.json,
            adaptations: body.adaptations,
        }
    }

    /// Sends `request` and returns once the server has accepted it (retrying 429/5xx and
    /// refused connections as configured); events are then read with
    /// [`CompletionStream::next`]. Cancelling `cancel` stops at once, whatever is in flight.
    pub async fn stream(
        &self,
        request: &CompletionRequest,
        cancel: &CancellationToken,
    ) -> Result<CompletionStream, BackendError> {
        let body = request::body(&self.inner.config, request);
        let call = Call::new(self.clone(), body.json, cancel.clone());
        CompletionStream::open(call).await
    }

    /// The whole answer to `request`.
    pub async fn complete(
        &self,
        request: &CompletionRequest,
        cancel: &CancellationToken,
    ) -> Result<Completion, BackendError> {
        self.stream(request, cancel).await?.collect().await
    }

    /// Headers as `--dry-run` shows them.
    fn headers_shown(&self) -> Vec<(&'static str, String)> {
        let config = &self.inner.config;
        let shown_key = config
            .api_key_env
            .as_ref()
            .map(|var| format!("<the value of ${var}>"));
        self.headers_with(shown_key)
    }

    /// Headers as sent.
    fn headers_sent(&self) -> Vec<(&'static str, String)> {
        self.headers_with(self.inner.key.as_ref().map(|k| k.expose().to_string()))
    }

    fn headers_with(&self, key: Option<String>) -> Vec<(&'static str, String)> {
        let config = &self.inner.config;
        let mut headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "text/event-stream".to_string()),
        ];
        match config.kind {
            BackendKind::OpenAi => {
                if let Some(key) = key {
                    headers.push(("authorization", format!("Bearer {key}")));
                }
            }
            BackendKind::Anthropic => {
                headers.push(("anthropic-version", config.anthropic_version.clone()));
                if let Some(key) = key {
                    headers.push(("x-api-key", key));
                }
            }
        }
        headers
    }

    /// Streamed text that can be shown now (see [`super::secret::ApiKey::release`]).
    fn release(&self, held: &mut String) -> String {
        match &self.inner.key {
            Some(key) => key.release(held),
            None => std::mem::take(held),
        }
    }

    /// The rest of the streamed text at the end of the stream.
    fn flush(&self, held: &mut String) -> String {
        match &self.inner.key {
            Some(key) => key.flush(held),
            None => std::mem::take(held),
        }
    }

    /// Removes the key from text that came from the server or the network stack.
    fn scrub(&self, text: &str) -> String {
        match &self.inner.key {
            Some(key) => key.scrub(text),
            None => text.to_string(),
        }
    }
}
