//! One row of a dataset → one trajectory. The row's messages go to the chat readers that
//! already read the same messages from files: tool-calling conversations (OpenHands) to the
//! chat-messages reader; text-mode ones (SWE-agent's `ai`/`user` turns, an action in a fenced
//! block, the observation in the next user message) and mini-swe-agent's own lists (ending in
//! its `exit` message) to mini-swe-agent's reader of a bare message list. The row's own columns give the instance, model, exit status, patch and
//! verdict; the verdict's source is the Parquet file.

use super::columns::Layout;
use super::value::{label, value_at, verdict};
use crate::formats::{chat_messages, mini_swe_agent};
use crate::model::{Format, Trajectory};
use arrow_array::RecordBatch;
use serde_json::{Map, Value};
use std::path::Path;

/// Row `row` of `batch`, the `index`-th (0-based) of the file at `path`, its columns laid out
/// as `layout`.
#[derive(Clone, Copy)]
pub struct Row<'a> {
    path: &'a Path,
    index: usize,
    layout: &'a Layout,
    batch: &'a RecordBatch,
    row: usize,
}

impl<'a> Row<'a> {
    pub fn new(
        path: &'a Path,
        index: usize,
        layout: &'a Layout,
        batch: &'a RecordBatch,
        row: usize,
    ) -> Self {
        Row {
            path,
            index,
            layout,
            batch,
            row,
        }
    }

    /// The row as a trajectory, its messages read into steps.
    pub fn trajectory(self) -> Trajectory {
        let raw = self
            .batch
            .column_by_name(&self.layout.trajectory)
            .map_or(Value::Null, |a| value_at(a.as_ref(), self.row));
        let mut warnings = Vec::new();
        let messages = messages_of(raw, &mut warnings);
        let mut t = steps_of(self.path, messages, &mut warnings);
        self.fill_header(&mut t);
        t.warnings.extend(warnings);
        t.number_steps();
        t
    }

    /// The row without its messages: what its header columns say (a listing of a big file).
    pub fn header(self) -> Trajectory {
        let mut t = Trajectory::new(self.path, Format::ChatMessages);
        self.fill_header(&mut t);
        t
    }

    fn fill_header(self, t: &mut Trajectory) {
        let layout = self.layout;
        let cell = |column: &Option<String>| {
            column
                .as_deref()
                .and_then(|c| self.batch.column_by_name(c))
                .map_or(Value::Null, |a| value_at(a.as_ref(), self.row))
        };
        t.path = self.path.to_path_buf();
        t.source_index = Some(self.index);
        t.instance_id = label(&cell(&layout.instance_id)).unwrap_or_else(|| {
            format!(
                "{}#{}",
                crate::model::instance_id_from_path(self.path),
                self.index + 1
            )
        });
        t.model = label(&cell(&layout.model)).or(t.model.take());
        t.resolved = verdict(&cell(&layout.resolved));
        t.exit_status = label(&cell(&layout.exit_status)).or(t.exit_status.take());
        t.submission = label(&cell(&layout.patch)).or(t.submission.take());
        t.format_detail = Some(detail(layout, t.format));
    }
}

/// `parquet: trajectory (text turns)`: where the steps came from and which reader made them.
pub fn detail(layout: &Layout, format: Format) -> String {
    let reader = match format {
        Format::MiniSweAgent => "text turns",
        _ => "chat messages",
    };
    format!("parquet: {} ({reader})", layout.trajectory)
}

/// The row's messages: a list cell as it is, a JSON string parsed (a list, or an object
/// holding `messages`).
fn messages_of(raw: Value, warnings: &mut Vec<String>) -> Vec<Value> {
    match raw {
        Value::Array(items) => items,
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(items)) => items,
            Ok(Value::Object(mut object)) => match object.remove("messages") {
                Some(Value::Array(items)) => items,
                _ => {
                    warnings.push("the messages cell is a JSON object without `messages`".into());
                    Vec::new()
                }
            },
            Ok(_) => {
                warnings.push("the messages cell is JSON but not a list of messages".into());
                Vec::new()
            }
            Err(err) => {
                warnings.push(format!("the messages cell is not valid JSON ({err})"));
                Vec::new()
            }
        },
        Value::Null => Vec::new(),
        _ => {
            warnings.push("the messages cell is not a list".into());
            Vec::new()
        }
    }
}

/// The roles datasets use for the chat roles: SWE-agent's `ai`, ShareGPT's `human`/`gpt`.
pub fn chat_role(role: &str) -> &str {
    match role {
        "ai" | "gpt" | "model" => "assistant",
        "human" => "user",
        other => other,
    }
}

/// A message as the chat readers expect it: a chat role, `content` (SWE-agent datasets say
/// `text`, and keep the system prompt in `system_prompt`).
fn normalise(message: Value) -> Value {
    let Value::Object(mut m) = message else {
        return message;
    };
    let role = m
        .get("role")
        .or_else(|| m.get("from"))
        .and_then(Value::as_str)
        .map(|r| chat_role(r).to_string());
    if let Some(role) = role {
        m.insert("role".into(), Value::String(role));
    }
    let empty = |v: Option<&Value>| match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        _ => false,
    };
    if empty(m.get("content")) {
        for key in ["text", "value", "system_prompt"] {
            if !empty(m.get(key))
                && let Some(v) = m.get(key).cloned()
            {
                m.insert("content".into(), v);
                break;
            }
        }
    }
    // Struct columns give every message every field: drop the nulls so that readers see
    // what a message actually has.
    m.retain(|_, v| !v.is_null());
    Value::Object(m)
}

fn uses_tools(message: &Map<String, Value>) -> bool {
    message.get("role").and_then(Value::as_str) == Some("tool")
        || message
            .get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|calls| !calls.is_empty())
}

/// Steps from the messages through the reader of their kind; an empty trajectory with a
/// warning when there are none or the reader refuses them (one bad row never fails a file).
fn steps_of(path: &Path, messages: Vec<Value>, warnings: &mut Vec<String>) -> Trajectory {
    let messages: Vec<Value> = messages.into_iter().map(normalise).collect();
    let tools = messages
        .iter()
        .any(|m| m.as_object().is_some_and(uses_tools));
    // mini-swe-agent's own message lists (SWE-smith, mini-swe-agent datasets) end with its
    // `exit` message: its reader knows their format errors and usage.
    let mini = messages
        .iter()
        .any(|m| m.get("role").and_then(Value::as_str) == Some("exit"));
    let format = if tools && !mini {
        Format::ChatMessages
    } else {
        Format::MiniSweAgent
    };
    if messages.is_empty() {
        warnings.push("the row has no messages".into());
        return Trajectory::new(path, format);
    }
    let bytes = match serde_json::to_vec(&Value::Array(messages)) {
        Ok(bytes) => bytes,
        Err(err) => {
            warnings.push(format!("the row's messages could not be read ({err})"));
            return Trajectory::new(path, format);
        }
    };
    let parsed = if format == Format::ChatMessages {
        chat_messages::parse(path, &bytes)
    } else {
        mini_swe_agent::parse(path, &bytes)
    };
    match parsed.map(|ts| ts.into_iter().next()) {
        Ok(Some(t)) => t,
        Ok(None) => Trajectory::new(path, format),
        Err(err) => {
            let text = err.to_string();
            let reason = text
                .strip_prefix(&format!("{}: ", path.display()))
                .unwrap_or(&text);
            warnings.push(format!("the row's messages could not be read: {reason}"));
            Trajectory::new(path, format)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn swe_agent_rows_are_text_turns_with_observations() {
        let mut warnings = Vec::new();
        let messages = vec![
            json!({"role": "system", "text": null, "system_prompt": "You are SWE-agent"}),
            json!({"role": "user", "text": "Fix the bug", "mask": false}),
            json!({"role": "ai", "text": "Look first.\n```\nls -la\n```", "mask": true}),
            json!({"role": "user", "text": "a.py b.py"}),
            json!({"role": "ai", "text": "Done.\n```\nsubmit\n```"}),
        ];
        let t = steps_of(Path::new("d.parquet"), messages, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(t.format, Format::MiniSweAgent);
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[0].action, "ls -la");
        assert_eq!(t.steps[0].observation, "a.py b.py");
        assert_eq!(t.messages[0].content, "You are SWE-agent");
    }

    #[test]
    fn tool_calling_rows_use_the_chat_reader() {
        let mut warnings = Vec::new();
        let messages = vec![
            json!({"role": "user", "content": "Fix it", "tool_calls": null}),
            json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}}]}),
            json!({"role": "tool", "content": "a.py", "tool_call_id": "c1", "tool_calls": null}),
        ];
        let t = steps_of(Path::new("d.parquet"), messages, &mut warnings);
        assert_eq!(t.format, Format::ChatMessages);
        assert_eq!(t.steps.len(), 1);
        assert_eq!(t.steps[0].tool.as_deref(), Some("execute_bash"));
        assert_eq!(t.steps[0].observation, "a.py");
    }

    #[test]
    fn a_json_string_cell_is_parsed_and_a_bad_one_is_a_warning() {
        let mut warnings = Vec::new();
        let text = json!([{"role": "user", "content": "hi"}]).to_string();
        assert_eq!(messages_of(Value::String(text), &mut warnings).len(), 1);
        assert!(messages_of(Value::String("[{".into()), &mut warnings).is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("not valid JSON"));
    }
}
