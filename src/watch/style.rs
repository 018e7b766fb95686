//! How a log grows: appended line by line, or rewritten whole.

use crate::model::Format;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteStyle {
    /// New records are appended; everything up to the last newline is final.
    Appended,
    /// The file is truncated and written again after every step.
    Rewritten,
}

/// The write style of a file of `format` whose content starts with `head`.
pub fn write_style(format: Format, head: &[u8]) -> WriteStyle {
    match format {
        Format::ClaudeCode | Format::Codex | Format::Aider => WriteStyle::Appended,
        // JSON Lines grow by lines; the same formats as one JSON document are rewritten.
        Format::OpenHands | Format::ChatMessages if crate::formats::is_json_lines(head) => {
            WriteStyle::Appended
        }
        // Gemini CLI writes its session JSON whole, and its JSONL variant by appending.
        Format::GeminiCli if crate::formats::is_json_lines(head) => WriteStyle::Appended,
        Format::OtelGenai if crate::formats::is_json_lines(head) => WriteStyle::Appended,
        Format::GeminiCli | Format::OpenCode | Format::OtelGenai => WriteStyle::Rewritten,
        Format::CopilotCli | Format::KimiCli | Format::Cursor | Format::Droid | Format::HfTrace => {
            WriteStyle::Appended
        }
        // One JSON document each (and the JSON-document variants of the formats above).
        Format::OpenHands
        | Format::ChatMessages
        | Format::SweAgent
        | Format::MiniSweAgent
        | Format::InspectAi
        | Format::LlamaPrompt
        | Format::Trajscope => WriteStyle::Rewritten,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_by_format_and_shape() {
        assert_eq!(write_style(Format::SweAgent, b"{"), WriteStyle::Rewritten);
        assert_eq!(
            write_style(Format::ClaudeCode, b"{}\n{}"),
            WriteStyle::Appended
        );
        assert_eq!(
            write_style(
                Format::OpenHands,
                b"{\"instance_id\":1}\n{\"instance_id\":2}\n"
            ),
            WriteStyle::Appended
        );
        assert_eq!(
            write_style(Format::OpenHands, b"[{\"id\": 0}]"),
            WriteStyle::Rewritten
        );
    }
}
