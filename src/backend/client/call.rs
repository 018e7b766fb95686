//! One completion call on the wire: sending the request, retrying what is worth retrying, and
//! the clock (time to first byte, the total deadline). A stream that breaks before any content
//! arrived comes back here to be sent again.

use super::super::decode::excerpt;
use super::super::error::{BackendError, Failure, TimeoutPhase};
use super::super::kind::BackendKind;
use super::super::{anthropic, openai, retry};
use super::Backend;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::time::{Duration, Instant, SystemTime};
use tokio::time::{sleep, sleep_until, timeout};
use tokio_util::sync::CancellationToken;

/// The most of an error body read to find the server's message.
const ERROR_BODY_LIMIT: usize = 64 << 10;

pub(crate) struct Call {
    pub(super) backend: Backend,
    body: String,
    pub(super) cancel: CancellationToken,
    pub(super) started: Instant,
    pub(super) deadline: tokio::time::Instant,
    pub(super) attempts: u32,
    /// Retries spent so far, on error statuses and broken streams alike.
    retries: u32,
    pub(super) first_byte: Option<Duration>,
}

/// How one attempt ended.
enum Attempt {
    Accepted(reqwest::Response),
    /// Worth another try after `wait` (the server's, when it said); else fail with `failure`.
    Retry {
        failure: Failure,
        wait: Option<Duration>,
    },
    Fail(Failure),
}

impl Call {
    pub(super) fn new(
        backend: Backend,
        body: serde_json::Value,
        cancel: CancellationToken,
    ) -> Call {
        let total = backend.inner.config.timeouts.total();
        let now = tokio::time::Instant::now();
        Call {
            body: body.to_string(),
            deadline: now
                .checked_add(total)
                .unwrap_or(now + Duration::from_secs(86_400 * 365)),
            backend,
            cancel,
            started: Instant::now(),
            attempts: 0,
            retries: 0,
            first_byte: None,
        }
    }

    pub(super) fn error(&self, failure: Failure) -> BackendError {
        let inner = &self.backend.inner;
        BackendError {
            backend: inner.name.clone(),
            kind: inner.config.kind,
            url: super::display_url(&inner.endpoint),
            failure,
            attempts: self.attempts,
        }
    }

    /// Sends the request until the server accepts it, retrying as configured.
    pub(super) async fn open(&mut self) -> Result<reqwest::Response, BackendError> {
        loop {
            match self.attempt().await {
                Attempt::Accepted(response) => {
                    self.first_byte = Some(self.started.elapsed());
                    return Ok(response);
                }
                Attempt::Fail(failure) => return Err(self.error(failure)),
                Attempt::Retry { failure, wait } => self.pause(failure, wait).await?,
            }
        }
    }

    /// Before sending again after `failure`: gives up when the retries are spent or the wait
    /// would pass the deadline, else sleeps (cancellably).
    pub(super) async fn pause(
        &mut self,
        failure: Failure,
        server_wait: Option<Duration>,
    ) -> Result<(), BackendError> {
        let policy = self.backend.inner.config.retry;
        if self.retries >= policy.max_retries {
            return Err(self.error(failure));
        }
        self.retries += 1;
        let wait = server_wait.unwrap_or_else(|| retry::backoff(&policy, self.retries));
        let left = self
            .deadline
            .saturating_duration_since(tokio::time::Instant::now());
        if wait >= left {
            let failure = match (failure, server_wait) {
                (
                    Failure::Status {
                        status, message, ..
                    },
                    Some(asked),
                ) => Failure::Status {
                    status,
                    message,
                    retry_after_s: Some(asked.as_secs_f64()),
                },
                (failure, _) => failure,
            };
            return Err(self.error(failure));
        }
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(self.error(Failure::Cancelled)),
            () = sleep(wait) => Ok(()),
        }
    }

    async fn attempt(&mut self) -> Attempt {
        self.attempts += 1;
        let inner = &self.backend.inner;
        let read = inner.config.timeouts.read();
        let mut headers = HeaderMap::new();
        for (name, value) in self.backend.headers_sent() {
            let sensitive = matches!(name, "authorization" | "x-api-key");
            let Ok(mut value) = HeaderValue::from_str(&value) else {
                return Attempt::Fail(Failure::Connect {
                    message: format!("the value for header {name} is not valid in HTTP"),
                });
            };
            value.set_sensitive(sensitive);
            headers.insert(HeaderName::from_static(name), value);
        }
        let send = inner
            .http
            .post(&inner.endpoint)
            .headers(headers)
            .body(self.body.clone())
            .send();
        let response = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Attempt::Fail(Failure::Cancelled),
            () = sleep_until(self.deadline) => return Attempt::Fail(self.total_timeout()),
            result = timeout(read, send) => result,
        };
        let response = match response {
            Err(_) => {
                return Attempt::Retry {
                    failure: Failure::Timeout {
                        phase: TimeoutPhase::Read,
                        after: read,
                    },
                    wait: None,
                };
            }
            Ok(Err(error)) => return self.network_failure(&error),
            Ok(Ok(response)) => response,
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Attempt::Accepted(response);
        }
        let wait = retry::retry_after(response.headers(), SystemTime::now());
        let message = self.error_message(response).await;
        let failure = Failure::Status {
            status,
            message,
            retry_after_s: None,
        };
        if retry::is_retryable(status) {
            Attempt::Retry { failure, wait }
        } else {
            Attempt::Fail(failure)
        }
    }

    pub(super) fn total_timeout(&self) -> Failure {
        Failure::Timeout {
            phase: TimeoutPhase::Total,
            after: self.backend.inner.config.timeouts.total(),
        }
    }

    fn network_failure(&self, error: &reqwest::Error) -> Attempt {
        let message = self.backend.scrub(&chain(error));
        if error.is_connect() {
            let failure = if error.is_timeout() {
                Failure::Timeout {
                    phase: TimeoutPhase::Connect,
                    after: self.backend.inner.config.timeouts.connect(),
                }
            } else {
                Failure::Connect { message }
            };
            return Attempt::Retry {
                failure,
                wait: None,
            };
        }
        // The server closed the connection before answering (a restart, an overloaded proxy).
        Attempt::Retry {
            failure: Failure::Interrupted { message },
            wait: None,
        }
    }

    /// The server's explanation of an error status, from its JSON error body when it has one.
    async fn error_message(&self, mut response: reqwest::Response) -> String {
        let read = self.backend.inner.config.timeouts.read();
        let mut body = Vec::new();
        while body.len() < ERROR_BODY_LIMIT {
            let chunk = tokio::select! {
                biased;
                () = self.cancel.cancelled() => break,
                result = timeout(read, response.chunk()) => result,
            };
            match chunk {
                Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&body);
        let kind = self.backend.inner.config.kind;
        self.backend.scrub(&server_message(kind, text.trim()))
    }
}

/// `{"error": {"message": …}}` (OpenAI), `{"type": "error", "error": {…}}` (Anthropic),
/// `{"detail": …}` (FastAPI servers), or the text itself.
fn server_message(kind: BackendKind, text: &str) -> String {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return excerpt(text);
    };
    let message = if let Some(error) = value.get("error") {
        match kind {
            BackendKind::OpenAi => openai::error_message(error),
            BackendKind::Anthropic => anthropic::error_message(error),
        }
    } else if let Some(detail) = value.get("detail").or_else(|| value.get("message")) {
        detail
            .as_str()
            .map_or_else(|| detail.to_string(), str::to_string)
    } else {
        text.to_string()
    };
    excerpt(&message)
}

/// An error and its causes, `outer: inner: innermost`.
pub(super) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages_of_both_apis() {
        assert_eq!(
            server_message(
                BackendKind::OpenAi,
                r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#
            ),
            "requests: Rate limit reached"
        );
        assert_eq!(
            server_message(
                BackendKind::Anthropic,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            "overloaded_error: Overloaded"
        );
        assert_eq!(
            server_message(BackendKind::OpenAi, r#"{"detail":"Not Found"}"#),
            "Not Found"
        );
        assert_eq!(
            server_message(BackendKind::OpenAi, "Internal Server Error"),
            "Internal Server Error"
        );
    }
}
