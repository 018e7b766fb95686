//! The parts of Claude Code records the loader reads, borrowed from the file's bytes.
//! Everything else (snapshots, attachments, most of `toolUseResult`) is skipped unparsed:
//! a long session is mostly text the loader only needs to step over.

use crate::formats::raw::{Flag, Num, Str};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// One line of a session file or stream-json output, or one web-session `logline`.
#[derive(Deserialize, Default)]
#[serde(default, expecting = "a Claude Code record (a JSON object)")]
pub(super) struct Record<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub subtype: Str<'a>,
    #[serde(rename = "sessionId", borrow)]
    pub session_id: Str<'a>,
    /// stream-json's spelling.
    #[serde(rename = "session_id", borrow)]
    pub stream_session_id: Str<'a>,
    #[serde(borrow)]
    pub version: Str<'a>,
    #[serde(borrow)]
    pub timestamp: Str<'a>,
    #[serde(rename = "isSidechain")]
    pub is_sidechain: Flag,
    #[serde(rename = "agentId", borrow)]
    pub agent_id: Str<'a>,
    #[serde(borrow)]
    pub parent_tool_use_id: Str<'a>,
    #[serde(rename = "isMeta")]
    pub is_meta: Flag,
    #[serde(rename = "isCompactSummary")]
    pub is_compact_summary: Flag,
    #[serde(rename = "isApiErrorMessage")]
    pub is_api_error: Flag,
    #[serde(rename = "costUSD")]
    pub cost_usd: Num,
    #[serde(borrow)]
    pub message: Option<&'a RawValue>,
    #[serde(rename = "toolUseResult", borrow)]
    pub tool_use_result: Option<&'a RawValue>,
    #[serde(rename = "tool_use_result", borrow)]
    pub stream_tool_use_result: Option<&'a RawValue>,
    #[serde(rename = "sourceToolUseID", borrow)]
    pub source_tool_use_id: Str<'a>,
    /// stream-json `system`/`init` and `result` lines.
    #[serde(borrow)]
    pub model: Str<'a>,
    pub is_error: Flag,
    pub total_cost_usd: Num,
    #[serde(borrow)]
    pub usage: Option<&'a RawValue>,
    /// Schema-drift logs: a call or a result as a record of its own.
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub output: Option<&'a RawValue>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_use_id: Str<'a>,
}

impl Record<'_> {
    pub fn session_id(&self) -> Option<&str> {
        self.session_id
            .non_empty()
            .or_else(|| self.stream_session_id.non_empty())
    }

    pub fn tool_use_result(&self) -> Option<&RawValue> {
        self.tool_use_result.or(self.stream_tool_use_result)
    }
}

/// An API message (`message` of user and assistant records).
#[derive(Deserialize, Default)]
#[serde(default, expecting = "a message object")]
pub(super) struct ApiMessage<'a> {
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub role: Str<'a>,
    #[serde(borrow)]
    pub model: Str<'a>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    #[serde(borrow)]
    pub usage: Option<&'a RawValue>,
}

impl<'a> ApiMessage<'a> {
    /// `None` when `message` is not an object (an error string, a number).
    pub fn parse(raw: &'a RawValue) -> Option<ApiMessage<'a>> {
        serde_json::from_str(raw.get()).ok()
    }

    /// `{}`: what usage-only logs write for user turns.
    pub fn is_empty(&self) -> bool {
        self.id.get().is_none()
            && self.role.get().is_none()
            && self.content.is_none()
            && self.usage.is_none()
    }
}

/// Token counts of one API response.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ApiUsage {
    pub input_tokens: Num,
    pub cache_creation_input_tokens: Num,
    pub cache_read_input_tokens: Num,
    pub output_tokens: Num,
}

impl ApiUsage {
    pub fn parse(raw: Option<&RawValue>) -> ApiUsage {
        raw.and_then(|r| serde_json::from_str(r.get()).ok())
            .unwrap_or_default()
    }
}

/// A content block: text, thinking, tool_use, tool_result, image, ….
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub text: Str<'a>,
    #[serde(borrow)]
    pub thinking: Str<'a>,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub tool_use_id: Str<'a>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    pub is_error: Flag,
}

/// A message's content: a plain string, or a list of blocks (bare strings in the list read
/// as text, anything else in it is skipped).
pub(super) fn content_blocks<'a>(raw: Option<&'a RawValue>) -> Vec<Block<'a>> {
    let Some(raw) = raw else {
        return Vec::new();
    };
    let text_block = |text: Cow<'a, str>| Block {
        kind: Str(Some(Cow::Borrowed("text"))),
        text: Str(Some(text)),
        ..Block::default()
    };
    match raw.get().trim_start().as_bytes().first() {
        Some(b'"') => match serde_json::from_str::<Str<'a>>(raw.get()) {
            Ok(Str(Some(text))) => vec![text_block(text)],
            _ => Vec::new(),
        },
        Some(b'[') => serde_json::from_str::<Vec<&'a RawValue>>(raw.get())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|item| match item.get().trim_start().as_bytes().first() {
                Some(b'{') => serde_json::from_str::<Block<'a>>(item.get()).ok(),
                Some(b'"') => match serde_json::from_str::<Str<'a>>(item.get()) {
                    Ok(Str(Some(text))) => Some(text_block(text)),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
        Some(b'{') => serde_json::from_str::<Block<'a>>(raw.get())
            .ok()
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// A raw value as a `serde_json::Value`, for the few small parts read as trees (tool inputs,
/// tool result content, kept `toolUseResult`s).
pub(super) fn value(raw: Option<&RawValue>) -> serde_json::Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(serde_json::Value::Null)
}
