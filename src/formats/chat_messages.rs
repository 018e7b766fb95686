//! Plain OpenAI-style chat messages, the lowest common denominator of agent logs: a JSON
//! array of messages, `{"messages": [...]}`, JSON Lines of messages, or JSON Lines of
//! `{"messages": [...]}` conversations (one trajectory per line).
//!
//! A step is an assistant message: its content is the thought, its `tool_calls` (or legacy
//! `function_call`) the action, and the tool messages answering it the observation. The log
//! holds the messages but not whether the agent trimmed or rewrote its history before a call,
//! so contexts (the messages before each step) are marked reconstructed.

use super::LoadError;
use super::action::render_calls;
use super::detect::is_json_lines;
use super::json::{Text, content_text, json_lines, str_field, u64_field};
use super::task::task_from_prompt;
use crate::model::{
    Exactness, Format, Message, Role, Step, StepContext, ToolCall, Trajectory, Usage,
};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessage {
    role: Text,
    content: Value,
    tool_calls: Value,
    function_call: Value,
    tool_call_id: Option<Text>,
    name: Option<Text>,
    reasoning_content: Option<Text>,
    reasoning: Option<Value>,
    usage: Value,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ChatFile {
    Object {
        messages: Vec<Value>,
        #[serde(default)]
        instance_id: Option<Text>,
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        model: Option<Text>,
    },
    List(Vec<Value>),
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    if is_json_lines(bytes) {
        return parse_lines(path, bytes);
    }
    let file: ChatFile =
        serde_json::from_slice(bytes).map_err(|err| {
            match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Err(syntax) => LoadError::json(path, &syntax, 0),
                Ok(_) => LoadError::invalid(
                    path,
                    format!(
                        "not a list of chat messages ({})",
                        strip_position(&err.to_string())
                    ),
                ),
            }
        })?;
    let mut t = Trajectory::new(path, Format::ChatMessages);
    let messages = match file {
        ChatFile::Object {
            messages,
            instance_id,
            id,
            model,
        } => {
            let id = instance_id
                .map(|t| t.0)
                .or_else(|| id.as_ref().map(super::json::to_text));
            if let Some(id) = id.filter(|id| !id.is_empty()) {
                t.instance_id = id;
            }
            t.model = model.map(|m| m.0).filter(|m| !m.is_empty());
            messages
        }
        ChatFile::List(messages) => messages,
    };
    if messages.is_empty() {
        return Err(LoadError::invalid(path, "a chat log without messages"));
    }
    let messages: Vec<RawMessage> = messages.iter().map(raw_message).collect();
    build(&mut t, &messages);
    if t.messages.is_empty() {
        // Another tool's session file that happens to have a `messages` key (Gemini CLI's
        // `type: "gemini"` records, say): refuse rather than show an empty trajectory.
        return Err(LoadError::invalid(
            path,
            "no message has a chat role (system, user, assistant, tool): not a chat log",
        ));
    }
    Ok(vec![t])
}

fn strip_position(text: &str) -> &str {
    text.rfind(" at line ").map_or(text, |at| &text[..at])
}

/// JSON Lines: one message per line, or one `{"messages": [...]}` conversation per line.
fn parse_lines(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let (lines, warnings) = json_lines(path, bytes);
    let conversations = lines.iter().any(|l| l.value.get("messages").is_some());
    let mut trajectories = Vec::new();
    if conversations {
        for (ordinal, line) in lines.iter().enumerate() {
            let Some(Value::Array(items)) = line.value.get("messages") else {
                continue;
            };
            let messages: Vec<RawMessage> = items.iter().map(raw_message).collect();
            let mut t = Trajectory::new(path, Format::ChatMessages);
            t.source_index = Some(ordinal);
            t.instance_id = str_field(&line.value, "instance_id")
                .or_else(|| str_field(&line.value, "id"))
                .map_or_else(|| format!("{}#{}", t.instance_id, line.line), String::from);
            t.model = str_field(&line.value, "model").map(String::from);
            build(&mut t, &messages);
            trajectories.push(t);
        }
    } else {
        let messages: Vec<RawMessage> = lines.iter().map(|l| raw_message(&l.value)).collect();
        let mut t = Trajectory::new(path, Format::ChatMessages);
        build(&mut t, &messages);
        trajectories.push(t);
    }
    if trajectories.iter().all(|t| t.messages.is_empty()) {
        return Err(LoadError::invalid(path, "JSON Lines without chat messages"));
    }
    if let Some(first) = trajectories.first_mut() {
        first.warnings.extend(warnings);
    }
    Ok(trajectories)
}

/// A message, or an empty one (skipped as of unknown role) when the item is not an object.
fn raw_message(value: &Value) -> RawMessage {
    RawMessage::deserialize(value).unwrap_or_default()
}

fn build(t: &mut Trajectory, messages: &[RawMessage]) {
    let mut unknown_roles = 0;
    for raw in messages {
        let Some(role) = Role::parse(&raw.role.0) else {
            unknown_roles += 1;
            continue;
        };
        let message = to_message(raw, role);
        match role {
            Role::Assistant => {
                let step = step_from(raw, &message, t.messages.len());
                t.steps.push(step);
            }
            Role::Tool => answer(t, &message),
            Role::User if t.task.is_none() => {
                let task = task_from_prompt(&message.content);
                t.task = (!task.is_empty()).then_some(task);
            }
            Role::User | Role::System => {}
        }
        t.push_message(message);
    }
    if unknown_roles > 0 {
        t.warnings.push(format!(
            "{unknown_roles} message(s) with a role other than system, user, assistant or tool skipped"
        ));
    }
}

fn to_message(raw: &RawMessage, role: Role) -> Message {
    let mut message = Message::new(role, content_text(&raw.content));
    message.tool_calls = tool_calls(raw);
    message.tool_call_id = raw.tool_call_id.as_ref().map(|t| t.0.clone());
    message.name = raw.name.as_ref().map(|t| t.0.clone());
    message
}

fn tool_calls(raw: &RawMessage) -> Vec<ToolCall> {
    let mut calls = super::swe_agent::tool_calls(&raw.tool_calls);
    if calls.is_empty()
        && let Some(name) = str_field(&raw.function_call, "name")
    {
        let arguments = match raw.function_call.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        calls.push(ToolCall::new(name, arguments));
    }
    calls
}

/// The step of an assistant message; `before` messages of the pool precede it.
fn step_from(raw: &RawMessage, message: &Message, before: usize) -> Step {
    let reasoning = raw
        .reasoning_content
        .as_ref()
        .map(|t| t.0.clone())
        .or_else(|| raw.reasoning.as_ref().map(content_text))
        .unwrap_or_default();
    let thought = match (reasoning.trim(), message.content.trim()) {
        ("", content) => content.to_string(),
        (reasoning, "") => reasoning.to_string(),
        (reasoning, content) => format!("{reasoning}\n\n{content}"),
    };
    Step {
        thought,
        action: render_calls(&message.tool_calls),
        tool: message.tool_calls.first().map(|c| c.name.clone()),
        tool_calls: message.tool_calls.clone(),
        response: message.content.clone(),
        usage: usage(&raw.usage),
        context: Some(StepContext::prefix(Exactness::Reconstructed, before)),
        ..Step::default()
    }
}

/// A tool message goes to the step whose call it answers (by id), else to the latest step.
fn answer(t: &mut Trajectory, message: &Message) {
    let by_id = message.tool_call_id.as_deref().and_then(|id| {
        t.steps
            .iter()
            .rposition(|s| s.tool_calls.iter().any(|c| c.id.as_deref() == Some(id)))
    });
    let Some(index) = by_id.or_else(|| t.steps.len().checked_sub(1)) else {
        t.warnings
            .push("a tool message before any assistant message".into());
        return;
    };
    let step = &mut t.steps[index];
    if !step.observation.is_empty() {
        step.observation.push('\n');
    }
    step.observation.push_str(&message.content);
}

fn usage(value: &Value) -> Usage {
    Usage {
        cost: None,
        tokens_in: u64_field(value, "prompt_tokens").or_else(|| u64_field(value, "input_tokens")),
        tokens_out: u64_field(value, "completion_tokens")
            .or_else(|| u64_field(value, "output_tokens")),
        ..Usage::default()
    }
}

mod stream;
#[cfg(test)]
mod tests;

pub use stream::Messages;
