//! The parts of Codex rollout records the loader reads, borrowed from the file's bytes.
//! Encrypted reasoning, rate limits, sandbox policies and the like are skipped unparsed.

use crate::formats::raw::{Flag, Num, Str};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A rollout line: the `{timestamp, type, payload}` envelope, or (early rollouts) a bare
/// response item, a `record_type` state line, or the session's first `{id, …}` line.
#[derive(Deserialize, Default)]
#[serde(default, expecting = "a Codex rollout record (a JSON object)")]
pub(super) struct Line<'a> {
    #[serde(borrow)]
    pub timestamp: Str<'a>,
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub payload: Option<&'a RawValue>,
    #[serde(borrow)]
    pub record_type: Option<&'a RawValue>,
    #[serde(borrow)]
    pub id: Option<&'a RawValue>,
}

/// What an envelope carries: a response item, an event, session metadata, a turn context
/// or a compaction. One struct for all of them: each reads the fields it knows.
#[derive(Deserialize, Default)]
#[serde(default, expecting = "a payload object")]
pub(super) struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    // Response items.
    #[serde(borrow)]
    pub role: Str<'a>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    #[serde(borrow)]
    pub summary: Option<&'a RawValue>,
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub function: Option<&'a RawValue>,
    #[serde(borrow)]
    pub arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub call_id: Str<'a>,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub output: Option<&'a RawValue>,
    #[serde(borrow)]
    pub result: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tools: Option<&'a RawValue>,
    #[serde(borrow)]
    pub action: Option<&'a RawValue>,
    #[serde(borrow)]
    pub revised_prompt: Str<'a>,
    // Session metadata and turn context.
    #[serde(borrow)]
    pub session_id: Str<'a>,
    #[serde(borrow)]
    pub cli_version: Str<'a>,
    #[serde(borrow)]
    pub model: Str<'a>,
    #[serde(borrow)]
    pub instructions: Str<'a>,
    #[serde(borrow)]
    pub base_instructions: Option<&'a RawValue>,
    // Events.
    #[serde(borrow)]
    pub info: Option<&'a RawValue>,
    /// `turn.completed` events of some versions: the turn's tokens.
    #[serde(borrow)]
    pub usage: Option<&'a RawValue>,
    #[serde(borrow)]
    pub message: Str<'a>,
    #[serde(borrow)]
    pub error: Option<&'a RawValue>,
    #[serde(borrow)]
    pub reason: Str<'a>,
    pub exit_code: Num,
    #[serde(borrow)]
    pub duration: Option<&'a RawValue>,
    #[serde(borrow)]
    pub aggregated_output: Str<'a>,
    #[serde(borrow)]
    pub formatted_output: Str<'a>,
    #[serde(borrow)]
    pub stdout: Str<'a>,
    #[serde(borrow)]
    pub stderr: Str<'a>,
    pub success: Flag,
    #[serde(borrow)]
    pub changes: Option<&'a RawValue>,
    // Compaction.
    #[serde(borrow)]
    pub replacement_history: Option<&'a RawValue>,
}

impl<'a> Payload<'a> {
    pub fn parse(raw: &'a str) -> Option<Payload<'a>> {
        serde_json::from_str(raw).ok()
    }
}

/// A raw value as a `serde_json::Value`, for the small parts read as trees.
pub(super) fn value(raw: Option<&RawValue>) -> serde_json::Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(serde_json::Value::Null)
}
