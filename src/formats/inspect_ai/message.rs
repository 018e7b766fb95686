//! Inspect chat messages → [`Message`], and the pool that stores each distinct one once.
//!
//! Every model event repeats the conversation so far; the pool keys messages by their raw
//! JSON text (cheap: long texts are attachment references there; a text seen before is not
//! even parsed) and then by their resolved
//! form, so that a sample's contexts share their messages whatever their source (sample
//! messages, event inputs, the `message_pool` of deduplicated logs).

use super::refs::Refs;
use crate::formats::json::{content_text, str_field, to_text};
use crate::model::{Message, Role, ToolCall, Trajectory};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};

/// Interns messages into a trajectory's pool.
#[derive(Default)]
pub struct Pool {
    by_raw: HashMap<String, u32>,
    by_resolved: HashMap<String, u32>,
    /// Tool results that carry an `error`.
    pub failed: HashSet<u32>,
}

impl Pool {
    /// The index in `t.messages` of the message whose JSON text is `raw`, added if new.
    /// Only a text not seen before is parsed: a sample's events repeat its messages.
    pub fn intern(&mut self, t: &mut Trajectory, refs: &Refs, raw: &RawValue) -> u32 {
        if let Some(&index) = self.by_raw.get(raw.get()) {
            return index;
        }
        // The text is JSON already checked by the parser that cut it out.
        let raw_key = raw.get().to_string();
        let raw: Value = serde_json::from_str(&raw_key).unwrap_or_default();
        let raw = &raw;
        let message = to_message(raw, refs);
        let resolved_key = serde_json::to_string(&message).unwrap_or_default();
        let index = match self.by_resolved.get(&resolved_key) {
            Some(&index) => index,
            None => {
                let index = t.push_message(message);
                self.by_resolved.insert(resolved_key, index);
                index
            }
        };
        if raw.get("error").is_some_and(|e| !e.is_null()) {
            self.failed.insert(index);
        }
        self.by_raw.insert(raw_key, index);
        index
    }
}

/// One Inspect `ChatMessage` (system, user, assistant or tool).
pub fn to_message(raw: &Value, refs: &Refs) -> Message {
    let role = str_field(raw, "role")
        .and_then(Role::parse)
        .unwrap_or(Role::User);
    let mut message = Message::new(
        role,
        content(raw.get("content").unwrap_or(&Value::Null), refs),
    );
    message.tool_calls = tool_calls(raw.get("tool_calls").unwrap_or(&Value::Null), refs);
    message.tool_call_id = str_field(raw, "tool_call_id").map(String::from);
    message.name = str_field(raw, "function").map(String::from);
    if let Some(error) = tool_error(raw) {
        if !message.content.is_empty() {
            message.content.push('\n');
        }
        message.content.push_str(&error);
    }
    message
}

/// A tool message's `error` (`{type, message}`), as the model would read it.
pub fn tool_error(raw: &Value) -> Option<String> {
    let error = raw.get("error").filter(|e| !e.is_null())?;
    let kind = str_field(error, "type").unwrap_or("error");
    let text = error.get("message").map(to_text).unwrap_or_default();
    Some(
        format!("[tool error: {kind}] {text}")
            .trim_end()
            .to_string(),
    )
}

/// Message content: a string or a list of parts. Media become placeholders: a context
/// reads right without carrying base64 images.
pub fn content(value: &Value, refs: &Refs) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => refs.text(s),
        Value::Array(parts) => parts
            .iter()
            .map(|p| part(p, refs))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        other => content_text(&refs.value(other)),
    }
}

fn part(part: &Value, refs: &Refs) -> String {
    let text = |key: &str| {
        str_field(part, key)
            .map(|s| refs.text(s))
            .unwrap_or_default()
    };
    match str_field(part, "type").unwrap_or("") {
        "text" => text("text"),
        "reasoning" if part.get("redacted").and_then(Value::as_bool) == Some(true) => {
            "[reasoning redacted]".to_string()
        }
        "reasoning" => text("reasoning"),
        "image" => "[image]".to_string(),
        "audio" => "[audio]".to_string(),
        "video" => "[video]".to_string(),
        "document" => format!("[document {}]", text("filename")).replace(" ]", "]"),
        _ => content_text(&refs.value(part)),
    }
}

/// Inspect tool calls: `{id, function: "name", arguments: {…}}`; arguments become JSON text
/// with their references resolved. The OpenAI shape (`function: {name, arguments}`) is
/// accepted too.
pub fn tool_calls(value: &Value, refs: &Refs) -> Vec<ToolCall> {
    let Some(calls) = value.as_array() else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(|call| {
            let function = call.get("function")?;
            let (name, arguments) = match function {
                Value::String(name) => (name.clone(), call.get("arguments")),
                other => (
                    str_field(other, "name")?.to_string(),
                    other.get("arguments"),
                ),
            };
            let arguments = match arguments {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => refs.text(s),
                Some(other) => refs.value(other).to_string(),
            };
            Some(ToolCall {
                id: str_field(call, "id").map(String::from),
                name,
                arguments,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;
    use serde_json::json;

    fn refs() -> Refs {
        Refs::new(HashMap::from([("h".to_string(), "ls -la".to_string())]))
    }

    #[test]
    fn assistant_with_parts_and_tool_calls() {
        let m = to_message(
            &json!({"role": "assistant", "content": [
                {"type": "reasoning", "reasoning": "think"},
                {"type": "text", "text": "I will list."},
                {"type": "image", "image": "attachment://h"}
            ], "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "attachment://h"}}]}),
            &refs(),
        );
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(m.content, "think\nI will list.\n[image]");
        assert_eq!(m.tool_calls[0].name, "bash");
        assert_eq!(m.tool_calls[0].argument("cmd").as_deref(), Some("ls -la"));
    }

    #[test]
    fn tool_message_with_error() {
        let m = to_message(
            &json!({"role": "tool", "content": "", "tool_call_id": "c1", "function": "bash",
                    "error": {"type": "timeout", "message": "Command timed out"}}),
            &refs(),
        );
        assert_eq!(m.content, "[tool error: timeout] Command timed out");
        assert_eq!(m.tool_call_id.as_deref(), Some("c1"));
        assert_eq!(m.name.as_deref(), Some("bash"));
    }

    #[test]
    fn pool_shares_equal_messages_whatever_their_form() {
        let mut t = Trajectory::new("x.eval", Format::InspectAi);
        let mut pool = Pool::default();
        let r = refs();
        let mut intern = |text: &str| {
            let raw = RawValue::from_string(text.to_string()).unwrap();
            pool.intern(&mut t, &r, &raw)
        };
        let a = intern(r#"{"role": "user", "content": "attachment://h"}"#);
        let b = intern(r#"{"role": "user", "content": "ls -la", "source": "input"}"#);
        let c = intern(r#"{"role": "user", "content": "attachment://h"}"#);
        let d = intern(r#"{"content": "attachment://h", "role": "user"}"#);
        assert_eq!((a, b, c, d), (0, 0, 0, 0));
        assert_eq!(t.messages.len(), 1);
        assert_eq!(t.messages[0].content, "ls -la");
    }
}
