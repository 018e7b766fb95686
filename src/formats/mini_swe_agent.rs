//! mini-swe-agent `.traj.json` (v1 text mode, 1.1+ tool-call mode) and bare message lists.
//!
//! `messages[]` is exactly what the model saw, so every step's context is exact: the
//! messages before it. A step is one model call: an assistant message and the observation
//! that answered it. In tool-call mode, tool messages are observations and a user message
//! (a format error) is a model call whose answer was rejected: a step of its own. In text
//! mode the observation comes back as a user message. The run ends with a `role: "exit"`
//! message (1.1+) or `info.exit_status` (v1).

mod extra;
mod messages;
mod sparse;
mod summary;

pub use messages::Messages;
pub use sparse::{MiniSparse, read as read_sparse};
pub use summary::summary as raw_summary;

use super::LoadError;
use super::json::{Text, as_f64, content_text, f64_field, u64_field};
use crate::model::{Message, Role, Step, StepContext, Trajectory, Usage};
use extra::{Extra, Info, Picked};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

#[derive(Deserialize)]
struct MiniObject {
    #[serde(default)]
    messages: Option<Vec<RawMessage>>,
    #[serde(default)]
    info: Picked<Info>,
    #[serde(default)]
    trajectory_format: Option<String>,
    #[serde(default)]
    instance_id: Option<String>,
}

/// A `.traj.json` object or a bare message list. Chosen by the first byte, not with
/// `#[serde(untagged)]`, which would buffer the whole document before trying each shape.
enum MiniFile {
    Object(MiniObject),
    List(Vec<RawMessage>),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessage {
    role: Text,
    content: Value,
    tool_calls: Value,
    tool_call_id: Option<String>,
    extra: Picked<Extra>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let is_list = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let file = if is_list {
        serde_json::from_slice(bytes).map(MiniFile::List)
    } else {
        serde_json::from_slice(bytes).map(MiniFile::Object)
    }
    .map_err(|err| LoadError::json(path, &err, 0))?;
    let mut reader = Messages::new(path, false);
    match file {
        MiniFile::Object(mut object) => {
            for raw in object.messages.take().unwrap_or_default() {
                reader.message(raw);
            }
            reader.header(object);
        }
        MiniFile::List(messages) => {
            for raw in messages {
                reader.message(raw);
            }
        }
    }
    reader.finish().map(|t| vec![t])
}

fn add_observation(step: &mut Step, text: &str) {
    if step.exit_code.is_none() {
        step.exit_code = return_code(text);
    }
    if !step.observation.is_empty() {
        step.observation.push('\n');
    }
    step.observation.push_str(text);
}

/// `<returncode>1</returncode>` at the top of mini-swe-agent observations, or the
/// `{"returncode": 1, "output": …}` its 2.x tool-calling config writes.
fn return_code(text: &str) -> Option<i64> {
    if text.trim_start().starts_with('{') {
        let value: Value = serde_json::from_str(text.trim()).ok()?;
        return value.get("returncode").and_then(Value::as_i64);
    }
    let start = text.find("<returncode>")? + "<returncode>".len();
    let end = start + text[start..].find("</returncode>")?;
    text[start..end].trim().parse().ok()
}

/// The reply a format error rejected, as 2.x keeps it: `extra.model_response` (the text, in
/// the text-based config) or the whole response in `extra.response` (tool calling). The
/// text, then each tool call it attempted (arguments as sent, unparsable as they may be).
fn rejected_reply(extra: &Extra) -> Option<String> {
    let from_response;
    let message = match &extra.model_response {
        Some(response) => response.pointer("/choices/0/message").unwrap_or(response),
        None => {
            from_response = extra.response_message()?;
            &from_response
        }
    };
    let mut parts = Vec::new();
    let text = match message {
        Value::String(text) => text.clone(),
        other => content_text(other.get("content").unwrap_or(&Value::Null)),
    };
    if !text.trim().is_empty() {
        parts.push(text.trim().to_string());
    }
    let calls = super::swe_agent::tool_calls(message.get("tool_calls").unwrap_or(&Value::Null));
    for call in calls {
        parts.push(format!("(rejected call) {} {}", call.name, call.arguments));
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

fn step_from_answer(raw: &RawMessage, message: &Message, context: StepContext) -> Step {
    let mut step = Step {
        response: message.content.clone(),
        tool_calls: message.tool_calls.clone(),
        context: Some(context),
        timestamp: raw.extra.0.timestamp.as_ref().map(super::json::to_text),
        usage: usage(&raw.extra.0),
        ..Step::default()
    };
    if step.tool_calls.is_empty() {
        let (thought, command) = split_text_answer(&message.content);
        step.thought = thought;
        step.tool = command.as_ref().map(|_| "bash".to_string());
        step.action = command.unwrap_or_default();
    } else {
        step.thought = message.content.trim().to_string();
        step.tool = step.tool_calls.first().map(|c| c.name.clone());
        step.action = step
            .tool_calls
            .iter()
            .map(|c| c.argument("command").unwrap_or_else(|| c.arguments.clone()))
            .collect::<Vec<_>>()
            .join("\n");
    }
    step
}

/// Text mode: "THOUGHT: … ```bash\ncmd\n```". The command is the first fenced block.
fn split_text_answer(content: &str) -> (String, Option<String>) {
    let Some(open) = content.find("```") else {
        return (strip_thought_label(content), None);
    };
    let after_fence = &content[open + 3..];
    let body_start = after_fence.find('\n').map_or(after_fence.len(), |i| i + 1);
    let body = &after_fence[body_start..];
    let Some(close) = body.find("```") else {
        return (strip_thought_label(content), None);
    };
    let command = body[..close].trim_end_matches('\n').to_string();
    (strip_thought_label(&content[..open]), Some(command))
}

fn strip_thought_label(text: &str) -> String {
    let text = text.trim();
    text.strip_prefix("THOUGHT:")
        .unwrap_or(text)
        .trim()
        .to_string()
}

fn usage(extra: &Extra) -> Usage {
    let usage = extra
        .response_usage()
        .or_else(|| extra.model_response.as_ref()?.get("usage"))
        .unwrap_or(&Value::Null);
    Usage {
        cost: extra.cost.as_ref().and_then(as_f64),
        tokens_in: u64_field(usage, "prompt_tokens").or_else(|| u64_field(usage, "input_tokens")),
        tokens_out: u64_field(usage, "completion_tokens")
            .or_else(|| u64_field(usage, "output_tokens")),
        tokens_cached: usage
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64),
        tokens_reasoning: usage
            .pointer("/completion_tokens_details/reasoning_tokens")
            .and_then(Value::as_u64),
        ..Usage::default()
    }
}

fn to_message(raw: &RawMessage) -> Message {
    let role = Role::parse(&raw.role.0).unwrap_or(Role::User);
    let mut message = Message::new(role, content_text(&raw.content));
    message.tool_calls = super::swe_agent::tool_calls(&raw.tool_calls);
    message.tool_call_id = raw.tool_call_id.clone();
    message
}

fn read_info(trajectory: &mut Trajectory, info: &Info) {
    super::swe_agent::read_exit_and_submission(trajectory, &info.exit_and_submission());
    if let Some(stats) = &info.model_stats {
        trajectory.usage.cost = f64_field(stats, "instance_cost");
        trajectory.usage.api_calls = u64_field(stats, "api_calls");
    }
}

fn read_exit(trajectory: &mut Trajectory, raw: &RawMessage) {
    let extra = &raw.extra.0;
    if let Some(status) = extra.exit_status.as_ref().and_then(Value::as_str) {
        trajectory.exit_status = Some(status.to_string());
    }
    let submission = extra
        .submission
        .as_ref()
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| content_text(&raw.content));
    if trajectory.submission.is_none() && !submission.trim().is_empty() {
        trajectory.submission = Some(submission);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(value: Value) -> Trajectory {
        let bytes = serde_json::to_vec(&value).unwrap();
        let mut t = parse(Path::new("d/x__y-1.traj.json"), &bytes)
            .unwrap()
            .remove(0);
        t.number_steps();
        t
    }

    #[test]
    fn tool_call_mode_with_format_errors_and_exit() {
        let t = load(json!({
            "info": {"model_stats": {"instance_cost": 0.1, "api_calls": 3},
                     "config": {"model": {"model_name": "openai/gpt-5-mini"}}},
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "<pr_description>\nConsider the following PR description:\nFix it\n</pr_description>"},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}],
                 "extra": {"cost": 0.01, "timestamp": 1.5, "response": {"usage": {"prompt_tokens": 100, "completion_tokens": 5}}}},
                {"role": "tool", "tool_call_id": "c1", "content": "<returncode>2</returncode>\n<output>\nls: cannot access\n</output>"},
                {"role": "user", "content": "No tool calls found", "extra": {"interrupt_type": "FormatError",
                 "model_response": {"choices": [{"message": {"content": "I will list", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": ls"}}]}}]},
                 "response": {"usage": {"prompt_tokens": 120, "completion_tokens": 9}}}},
                {"role": "exit", "content": "diff --git a/x b/x", "extra": {"exit_status": "Submitted", "submission": "diff --git a/x b/x"}}
            ],
            "trajectory_format": "mini-swe-agent-1.1",
            "instance_id": "x__y-1"
        }));
        assert_eq!(t.format_detail.as_deref(), Some("1.1"));
        assert_eq!(t.model.as_deref(), Some("openai/gpt-5-mini"));
        assert_eq!(t.task.as_deref(), Some("Fix it"));
        assert_eq!(t.steps.len(), 2);
        let s1 = &t.steps[0];
        assert_eq!(s1.action, "ls");
        assert_eq!(s1.tool.as_deref(), Some("bash"));
        assert_eq!(s1.exit_code, Some(2));
        assert_eq!(s1.usage.tokens_in, Some(100));
        let ctx = s1.context_messages(&t.messages);
        assert_eq!(ctx.len(), 2);
        assert_eq!(t.steps[1].tool.as_deref(), Some("(FormatError)"));
        assert_eq!(
            t.steps[1].response,
            "I will list\n(rejected call) bash {\"command\": ls"
        );
        assert_eq!(t.steps[1].usage.tokens_out, Some(9));
        assert_eq!(t.steps[1].context_messages(&t.messages).len(), 4);
        assert_eq!(t.exit_status.as_deref(), Some("Submitted"));
        assert_eq!(t.submission.as_deref(), Some("diff --git a/x b/x"));
        assert_eq!(
            t.total_usage().tokens_in,
            Some(220),
            "the rejected call counts"
        );
        assert_eq!(t.total_usage().cost, Some(0.1));
    }

    #[test]
    fn text_mode_bare_list() {
        let t = load(json!([
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "Please solve this issue: Blah"},
            {"role": "assistant", "content": "THOUGHT: look\n\n```mswea_bash_command\necho 'hello world'\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\nhello world\n</output>"},
            {"role": "assistant", "content": "Done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
            {"role": "user", "content": ""}
        ]));
        assert_eq!(t.format_detail.as_deref(), Some("message list"));
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[0].thought, "look");
        assert_eq!(t.steps[0].action, "echo 'hello world'");
        assert_eq!(t.steps[0].exit_code, Some(0));
        assert!(t.steps[0].observation.contains("hello world"));
        assert_eq!(
            t.steps[1].action,
            "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
        );
    }
}
