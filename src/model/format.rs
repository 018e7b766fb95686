//! The log formats trajscope reads, as named in the CLI, the TUI and JSON output.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The family of agent log a trajectory was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// SWE-agent `.traj` (0.x, 1.0, 1.1+, and multi-agent forks such as CodeR).
    SweAgent,
    /// mini-swe-agent `.traj.json` (v1, v2) or a bare message list it wrote.
    MiniSweAgent,
    /// OpenHands event arrays and eval `output.jsonl`.
    OpenHands,
    /// Inspect AI `.json` / `.eval` logs (one trajectory per sample).
    InspectAi,
    /// Claude Code session `.jsonl` and `--output-format stream-json`.
    ClaudeCode,
    /// Codex CLI rollout `.jsonl`.
    Codex,
    /// Aider `.aider.chat.history.md`.
    Aider,
    /// Raw Llama-3 prompt logs (`<|start_header_id|>` … `<|eot_id|>`).
    LlamaPrompt,
    /// Plain OpenAI-style chat messages as JSON or JSONL.
    ChatMessages,
    /// Gemini CLI session JSON (`~/.gemini/tmp/*/chats/`) and its JSON Lines variant.
    GeminiCli,
    /// GitHub Copilot CLI `events.jsonl` (`{type, data, id, timestamp, parentId}` events).
    CopilotCli,
    /// Kimi CLI `wire.jsonl` (a `metadata` line with `protocol_version`, then records).
    KimiCli,
    /// Cursor agent transcripts (`{role, message: {content}}` lines).
    Cursor,
    /// OpenCode JSON storage: a session folder of message files, parts beside them.
    OpenCode,
    /// Factory Droid `droid exec --output-format stream-json` output.
    Droid,
    /// Hugging Face agent traces (the Hub's Session Trace Simple Format JSONL).
    HfTrace,
    /// OpenTelemetry GenAI spans in OTLP JSON (one trajectory per trace).
    OtelGenai,
    /// trajscope's own file: forks written by `trajscope replay`.
    Trajscope,
}

impl Format {
    /// Every format, in the order the README lists them.
    pub const ALL: [Format; 18] = [
        Format::SweAgent,
        Format::MiniSweAgent,
        Format::OpenHands,
        Format::InspectAi,
        Format::ClaudeCode,
        Format::Codex,
        Format::Aider,
        Format::LlamaPrompt,
        Format::ChatMessages,
        Format::GeminiCli,
        Format::CopilotCli,
        Format::KimiCli,
        Format::Cursor,
        Format::OpenCode,
        Format::Droid,
        Format::HfTrace,
        Format::OtelGenai,
        Format::Trajscope,
    ];

    /// The short name used on screen and in JSON (`swe-agent`, `mini-swe-agent`, …).
    pub fn name(self) -> &'static str {
        match self {
            Format::SweAgent => "swe-agent",
            Format::MiniSweAgent => "mini-swe-agent",
            Format::OpenHands => "openhands",
            Format::InspectAi => "inspect-ai",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Aider => "aider",
            Format::LlamaPrompt => "llama-prompt",
            Format::ChatMessages => "chat-messages",
            Format::GeminiCli => "gemini-cli",
            Format::CopilotCli => "copilot-cli",
            Format::KimiCli => "kimi-cli",
            Format::Cursor => "cursor",
            Format::OpenCode => "opencode",
            Format::Droid => "droid",
            Format::HfTrace => "hf-trace",
            Format::OtelGenai => "otel-genai",
            Format::Trajscope => "trajscope",
        }
    }

    /// Parses a name as printed by [`Format::name`].
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("nope"), None);
    }
}
