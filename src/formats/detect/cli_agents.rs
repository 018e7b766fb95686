//! Detection of the interactive coding-agent CLIs' logs (Gemini CLI, …), each by the shape
//! its writer gives the records, never by file name. Asked before the older formats'
//! checks, and strict: a signature names keys no other format writes together.

use super::super::{
    copilot_cli, cursor, droid, gemini_cli, hf_trace, kimi_cli, opencode, otel_genai,
};
use crate::formats::json::TopKeys;
use crate::model::Format;
use serde_json::Value;

/// A JSON document, from its top-level keys.
pub fn document(keys: &TopKeys) -> Option<Format> {
    let has = |k: &str| keys.has(k);
    if gemini_cli::is_session_document(&has) {
        return Some(Format::GeminiCli);
    }
    if opencode::is_message_document(keys) || opencode::is_part_document(keys) {
        return Some(Format::OpenCode);
    }
    if otel_genai::is_export_document(&has) {
        return Some(Format::OtelGenai);
    }
    None
}

/// JSON Lines, from their first records.
pub fn lines(lines: &[Value]) -> Option<Format> {
    if gemini_cli::is_session_lines(lines) {
        return Some(Format::GeminiCli);
    }
    if copilot_cli::is_event_lines(lines) {
        return Some(Format::CopilotCli);
    }
    if kimi_cli::is_wire_lines(lines) {
        return Some(Format::KimiCli);
    }
    if cursor::is_transcript_lines(lines) {
        return Some(Format::Cursor);
    }
    if droid::is_stream_lines(lines) {
        return Some(Format::Droid);
    }
    if hf_trace::is_trace_lines(lines) {
        return Some(Format::HfTrace);
    }
    if otel_genai::is_export_lines(lines) {
        return Some(Format::OtelGenai);
    }
    None
}
