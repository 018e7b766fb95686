//! The API key: read from the environment variable a config names, held only in memory, never
//! shown. `Debug` prints a placeholder and there is no `Display` or `Serialize`, so a key cannot
//! reach a message, a log or a fork by accident; [`ApiKey::scrub`] removes it from text that
//! came back from a server.

use super::config::ConfigError;

/// A secret API key.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl ApiKey {
    /// Reads variable `var` through `lookup` (the process environment, or a map in tests) for
    /// backend `backend` (named in the error). Surrounding whitespace, a common copy-paste
    /// accident, is dropped.
    pub fn from_lookup(
        backend: &str,
        var: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ApiKey, ConfigError> {
        match lookup(var) {
            Some(value) if !value.trim().is_empty() => Ok(ApiKey(value.trim().to_string())),
            _ => Err(ConfigError::MissingKey {
                backend: backend.to_string(),
                var: var.to_string(),
            }),
        }
    }

    /// The key itself, for the one place that puts it in a request header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced (a server may echo it in an error).
    pub fn scrub(&self, text: &str) -> String {
        // Very short "keys" (a local server's dummy `x`) would mangle every message.
        if self.0.len() < 8 {
            return text.to_string();
        }
        text.replace(&self.0, "<redacted>")
    }

    /// Of streamed text `held` (what arrived and was not shown yet), the part that can be
    /// shown now, scrubbed; what may be the start of the key stays in `held` until more text
    /// shows whether it is. A key cut across two pieces of the stream is caught this way.
    pub fn release(&self, held: &mut String) -> String {
        if self.0.len() < 8 {
            return std::mem::take(held);
        }
        let scrubbed = self.scrub(held);
        let keep = scrubbed
            .char_indices()
            .map(|(i, _)| i)
            .find(|&i| self.0.starts_with(&scrubbed[i..]))
            .unwrap_or(scrubbed.len());
        *held = scrubbed[keep..].to_string();
        scrubbed[..keep].to_string()
    }

    /// What is still held when the stream ends: a start of the key long enough to matter is
    /// redacted too.
    pub fn flush(&self, held: &mut String) -> String {
        let rest = std::mem::take(held);
        if rest.len() >= 8 {
            "<redacted>".to_string()
        } else {
            rest
        }
    }
}

/// The process environment, as a lookup for [`ApiKey::from_lookup`].
pub fn env_lookup(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_shown_and_scrubbed() {
        let lookup = |var: &str| (var == "K").then(|| " sk-test-0123456789\n".to_string());
        let key = ApiKey::from_lookup("b", "K", &lookup).unwrap();
        assert_eq!(key.expose(), "sk-test-0123456789");
        assert!(!format!("{key:?}").contains("sk-test"));
        assert_eq!(
            key.scrub("Incorrect API key provided: sk-test-0123456789."),
            "Incorrect API key provided: <redacted>."
        );
        // Cut across pieces of a stream, the key is still caught.
        let mut held = String::new();
        let mut shown = String::new();
        for piece in ["Bearer sk-te", "st-01234", "56789 ok", " done"] {
            held.push_str(piece);
            shown.push_str(&key.release(&mut held));
        }
        shown.push_str(&key.flush(&mut held));
        assert_eq!(shown, "Bearer <redacted> ok done");
        // A stream that ends inside the key shows no long part of it.
        let mut held = "see sk-test-0123".to_string();
        let mut shown = key.release(&mut held);
        shown.push_str(&key.flush(&mut held));
        assert_eq!(shown, "see <redacted>");
        let missing = ApiKey::from_lookup("b", "NOPE", &lookup).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "backend `b`: the environment variable NOPE (api_key_env) is not set or empty"
        );
    }
}
