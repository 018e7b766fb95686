//! Codex `response_item` payloads: what went to the model and what came back.

use super::Rollout;
use super::action::{output_outcome, render};
use super::record::{Payload, value};
use crate::formats::json::{content_text, str_field, to_text};
use crate::model::{Message, Role, ToolCall};
use serde_json::Value;

/// Items with nothing for a step or a context.
const IGNORED: &[&str] = &["ghost_snapshot", "agent_message", "compaction", "other"];

/// Text Codex sends as user messages that the user did not type: environment and
/// instruction preambles.
const PREAMBLES: &[&str] = &[
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "# AGENTS.md instructions",
];

impl Rollout<'_> {
    pub(super) fn item(&mut self, line: usize, item: &Payload, ts: Option<String>) {
        let kind = item.kind.get().unwrap_or("");
        match kind {
            "message" => self.message(item, ts),
            "reasoning" => {
                let text = reasoning_text(item);
                if !text.is_empty() {
                    let step = self.model_step(ts);
                    self.steps.add_thought(step, &text);
                }
            }
            "function_call" | "custom_tool_call" | "tool_search_call" | "tool_call" => {
                let function = value(item.function);
                let name = item
                    .name
                    .get()
                    .or_else(|| function.get("name").and_then(Value::as_str))
                    .unwrap_or(match kind {
                        "tool_search_call" => "tool_search",
                        _ => "tool",
                    })
                    .to_string();
                let arguments = match value(item.arguments.or(item.input)) {
                    Value::Null => String::new(),
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                self.call(item, &name, arguments, true, ts);
            }
            "local_shell_call" => {
                let action = value(item.action).to_string();
                self.call(item, "local_shell", action, true, ts);
            }
            // Searches and images come back inside the model's own response.
            "web_search_call" => {
                let action = value(item.action).to_string();
                self.call(item, "web_search", action, false, ts);
            }
            "image_generation_call" => {
                let prompt = item.revised_prompt.get().unwrap_or("");
                let arguments = serde_json::json!({ "prompt": prompt }).to_string();
                self.call(item, "image_generation", arguments, false, ts);
            }
            "function_call_output"
            | "custom_tool_call_output"
            | "tool_search_output"
            | "tool_result" => self.output(line, item),
            k if IGNORED.contains(&k) => {}
            other => self.note_unknown(line, format!("response_item/{other}")),
        }
    }

    /// The step model output joins: the current one, unless input came in since.
    fn model_step(&mut self, ts: Option<String>) -> usize {
        match self.steps.open_step(None, None) {
            Some(step) => step,
            None => self.steps.start_step(None, None, ts),
        }
    }

    fn message(&mut self, item: &Payload, ts: Option<String>) {
        let Some(role) = item.role.get().and_then(Role::parse) else {
            return;
        };
        let message = Message::new(role, content_text(&value(item.content)));
        match message.role {
            Role::Assistant => {
                if !message.content.trim().is_empty() {
                    let step = self.model_step(ts);
                    self.steps.add_text(step, &message.content);
                }
            }
            Role::User if !is_preamble(&message.content) => {
                let t = &mut self.steps.trajectory;
                if t.task.is_none() {
                    t.task = Some(message.content.clone());
                }
                // What the person typed is a step of its own, as in Claude Code sessions:
                // the step list, `/`, `grep` and the `user` rule field all see it.
                self.steps.user_step(None, message.content, ts);
            }
            _ => {
                self.steps.close(None);
                self.steps.push_message(None, message);
            }
        }
    }

    fn call(
        &mut self,
        item: &Payload,
        name: &str,
        arguments: String,
        expects: bool,
        ts: Option<String>,
    ) {
        let step = self.model_step(ts);
        let id = item
            .call_id
            .non_empty()
            .or_else(|| item.id.non_empty())
            .map(String::from);
        let action = render(name, &arguments);
        let call = ToolCall {
            id,
            name: name.to_string(),
            arguments,
        };
        self.steps.add_call(step, call, action, expects);
    }

    fn output(&mut self, line: usize, item: &Payload) {
        self.steps.close(None);
        let raw = value(item.output.or(item.result).or(item.tools));
        let outcome = output_outcome(&raw);
        let id = item.call_id.non_empty();
        let call = match id {
            Some(id) => self.steps.call_at(id),
            None => self.steps.pending_call(None),
        };
        if self.releasing
            && let Some(id) = id
        {
            // An event's copy of this output is no longer needed (and while releasing,
            // copies kept to the end would grow with the file).
            self.event_outputs.retain(|(call, _)| call != id);
        }
        match call {
            Some(call) => self.steps.add_result(call, outcome),
            None => {
                self.unmatched.get_or_insert((line, 0)).1 += 1;
                self.steps.orphan_result(None, id, outcome.text);
            }
        }
    }
}

/// A `message` item as a pool message (`developer` is the system role).
pub(super) fn message_of(item: &Value) -> Option<Message> {
    if str_field(item, "type").is_some_and(|t| t != "message") {
        return None;
    }
    let role = Role::parse(str_field(item, "role")?)?;
    let content = content_text(item.get("content").unwrap_or(&Value::Null));
    Some(Message::new(role, content))
}

/// A reasoning item's summary, or its raw content when there is no summary (open models).
fn reasoning_text(item: &Payload) -> String {
    let texts = |raw| -> String {
        match value(raw) {
            Value::Array(parts) => parts
                .iter()
                .map(|p| p.get("text").map(to_text).unwrap_or_default())
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n"),
            Value::String(s) => s,
            _ => String::new(),
        }
    };
    let summary = texts(item.summary);
    if summary.is_empty() {
        texts(item.content)
    } else {
        summary
    }
}

fn is_preamble(text: &str) -> bool {
    let text = text.trim_start();
    PREAMBLES.iter().any(|p| text.starts_with(p))
}
