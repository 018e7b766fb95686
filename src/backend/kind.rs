//! Which wire protocol a backend speaks.

use serde::{Deserialize, Serialize};

/// The two wire protocols trajscope speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BackendKind {
    /// `POST /v1/chat/completions`: OpenAI, vLLM, llama.cpp, Ollama, OpenRouter, LiteLLM…
    #[default]
    #[serde(rename = "openai")]
    OpenAi,
    /// `POST /v1/messages`: the Anthropic Messages API.
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::OpenAi => "openai",
            BackendKind::Anthropic => "anthropic",
        }
    }

    /// The endpoint below the base URL (which may or may not already end in `/v1`).
    pub fn path(self) -> &'static str {
        match self {
            BackendKind::OpenAi => "chat/completions",
            BackendKind::Anthropic => "messages",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BackendKind {
    type Err = String;

    fn from_str(s: &str) -> Result<BackendKind, String> {
        match s.to_ascii_lowercase().as_str() {
            "openai" | "openai-compatible" | "chat-completions" => Ok(BackendKind::OpenAi),
            "anthropic" | "messages" => Ok(BackendKind::Anthropic),
            other => Err(format!(
                "unknown backend kind `{other}` (expected openai or anthropic)"
            )),
        }
    }
}
