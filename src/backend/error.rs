//! Why a completion failed, said so a user can act on it: which backend, what happened, the
//! server's own words, how many attempts were made. Never the key: server text is scrubbed of it
//! before it gets here (see [`super::secret::ApiKey::scrub`]).

use super::decode::DecodeError;
use super::kind::BackendKind;
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// Which wait ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// Opening the connection (`timeouts.connect_s`).
    Connect,
    /// Waiting for the response headers or the next bytes (`timeouts.read_s`).
    Read,
    /// The whole completion (`timeouts.total_s`).
    Total,
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connecting (timeouts.connect_s)",
            TimeoutPhase::Read => "waiting for the server (timeouts.read_s)",
            TimeoutPhase::Total => "the whole completion (timeouts.total_s)",
        })
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The server answered with an error status (after retrying those worth retrying).
    Status {
        status: u16,
        message: String,
        /// The server asked to wait longer than the time left (`Retry-After`), in seconds.
        retry_after_s: Option<f64>,
    },
    /// No connection (refused, DNS, TLS).
    Connect { message: String },
    Timeout {
        phase: TimeoutPhase,
        after: Duration,
    },
    /// The connection broke, or the body ended before the protocol's end marker.
    Interrupted { message: String },
    /// The body could not be decoded, or carried an error event.
    Decode(DecodeError),
    /// Cancelled by the user.
    Cancelled,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Status {
                status,
                message,
                retry_after_s,
            } => {
                let reason = reqwest::StatusCode::from_u16(*status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default();
                write!(f, "HTTP {status}{reason}")?;
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                if let Some(wait) = retry_after_s {
                    write!(
                        f,
                        " (the server asks to retry after {wait:.0} s, beyond timeouts.total_s)"
                    )?;
                }
                Ok(())
            }
            Failure::Connect { message } => write!(f, "cannot connect: {message}"),
            Failure::Timeout { phase, after } => {
                write!(f, "timed out {phase} after {:.1} s", after.as_secs_f64())
            }
            Failure::Interrupted { message } => write!(f, "the stream broke off: {message}"),
            Failure::Decode(error) => write!(f, "{error}"),
            Failure::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// A completion failed.
#[derive(Debug, Clone, PartialEq, Error)]
pub struct BackendError {
    /// The backend's name (from the config, or `ad-hoc`).
    pub backend: String,
    pub kind: BackendKind,
    /// The endpoint, password removed.
    pub url: String,
    pub failure: Failure,
    /// Requests sent, retries included.
    pub attempts: u32,
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "backend `{}` ({} at {}): {}",
            self.backend, self.kind, self.url, self.failure
        )?;
        // A server asking to be retried later gets an answer to "did we retry?" even after a
        // single request.
        let asked_to_retry = matches!(
            self.failure,
            Failure::Status {
                retry_after_s: Some(_),
                ..
            }
        );
        match self.attempts {
            0 => {}
            1 if asked_to_retry => write!(f, " [after 1 attempt]")?,
            1 => {}
            n => write!(f, " [after {n} attempts]")?,
        }
        Ok(())
    }
}

impl BackendError {
    pub fn is_cancelled(&self) -> bool {
        self.failure == Failure::Cancelled
    }

    /// The HTTP status, when the server sent an error status.
    pub fn status(&self) -> Option<u16> {
        match self.failure {
            Failure::Status { status, .. } => Some(status),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_who_what_and_how_often() {
        let error = BackendError {
            backend: "local".into(),
            kind: BackendKind::OpenAi,
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            failure: Failure::Status {
                status: 429,
                message: "slow down".into(),
                retry_after_s: None,
            },
            attempts: 5,
        };
        assert_eq!(
            error.to_string(),
            "backend `local` (openai at http://127.0.0.1:1/v1/chat/completions): HTTP 429 Too Many Requests: slow down [after 5 attempts]"
        );
        assert_eq!(error.status(), Some(429));
        let timeout = Failure::Timeout {
            phase: TimeoutPhase::Read,
            after: Duration::from_millis(1500),
        };
        assert_eq!(
            timeout.to_string(),
            "timed out waiting for the server (timeouts.read_s) after 1.5 s"
        );
    }
}
