//! Raw Llama-3 prompt logs: the exact text a Llama agent sent to a completions endpoint,
//! `<|begin_of_text|><|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>` message after
//! message (roles `system`, `user`, `assistant`, `ipython`/`tool`). Agents such as the
//! open-source Llama 3.3 SWE-bench Lite agent save it as `<instance_id>-prompt.txt`.
//!
//! The file is what the model saw, so the context of step k (the k-th assistant message) is
//! exact: every message before it. Tool calls are read from the assistant text ([`calls`]);
//! the observation is the tool messages that follow. This module owns the message framing;
//! it does not judge whether the agent's tools succeeded beyond the `ERROR` lines it wrote.

mod calls;

use super::LoadError;
use super::action::render_calls;
use super::task::task_from_prompt;
use crate::model::{Exactness, Format, Message, Role, Step, StepContext, Trajectory};
use calls::find_calls;
use memchr::memmem;
use std::path::Path;

const BEGIN: &str = "<|begin_of_text|>";
const HEADER_START: &str = "<|start_header_id|>";
const HEADER_END: &str = "<|end_header_id|>";
const END_OF_TURN: &str = "<|eot_id|>";
const END_OF_MESSAGE: &str = "<|eom_id|>";

/// One framed message, as written.
struct Framed<'a> {
    role: &'a str,
    content: &'a str,
    terminated: bool,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let text = String::from_utf8_lossy(bytes);
    let mut trajectory = Trajectory::new(path, Format::LlamaPrompt);
    if let Some(id) = trajectory.instance_id.strip_suffix("-prompt") {
        trajectory.instance_id = id.to_string();
    }
    let framed = frame(&text, &mut trajectory.warnings);
    if framed.is_empty() {
        return Err(LoadError::invalid(
            path,
            "no `<|start_header_id|>role<|end_header_id|>` message in this Llama prompt log",
        ));
    }
    build(&mut trajectory, &framed);
    Ok(vec![trajectory])
}

/// Splits the text into messages. Linear: each marker is searched for once, from where the
/// previous one ended.
fn frame<'a>(text: &'a str, warnings: &mut Vec<String>) -> Vec<Framed<'a>> {
    let header_start = memmem::Finder::new(HEADER_START);
    let header_end = memmem::Finder::new(HEADER_END);
    let mut framed = Vec::new();
    let mut pos = 0;
    let mut stray = 0usize;
    let mut begins = 0usize;
    while let Some(found) = header_start.find(&text.as_bytes()[pos..]) {
        let before = &text[pos..pos + found];
        begins += before.matches(BEGIN).count();
        stray += before.replace(BEGIN, "").trim().len();
        let role_start = pos + found + HEADER_START.len();
        let Some(role_len) = header_end.find(&text.as_bytes()[role_start..]) else {
            warnings.push("the last message header is cut off (no `<|end_header_id|>`)".into());
            pos = text.len();
            break;
        };
        let role = text[role_start..role_start + role_len].trim();
        let body_start = role_start + role_len + HEADER_END.len();
        let next = header_start
            .find(&text.as_bytes()[body_start..])
            .map_or(text.len(), |i| body_start + i);
        let region = &text[body_start..next];
        let (content, terminated, after) = match [END_OF_TURN, END_OF_MESSAGE]
            .iter()
            .filter_map(|end| region.find(end).map(|i| (i, end.len())))
            .min()
        {
            Some((i, len)) => (&region[..i], true, &region[i + len..]),
            None => (region, false, ""),
        };
        stray += after.replace(BEGIN, "").trim().len();
        begins += after.matches(BEGIN).count();
        let content = content
            .strip_prefix("\n\n")
            .unwrap_or_else(|| content.trim_start_matches('\n'));
        framed.push(Framed {
            role,
            content,
            terminated,
        });
        pos = next;
    }
    if pos < text.len() {
        stray += text[pos..].trim().len();
    }
    if stray > 0 {
        warnings.push(format!(
            "{stray} characters of text outside any message were skipped"
        ));
    }
    if begins > 1 {
        warnings.push(format!(
            "`<|begin_of_text|>` appears {begins} times; the messages are read as one conversation"
        ));
    }
    framed
}

fn role_of(name: &str, warnings: &mut Vec<String>) -> Role {
    Role::parse(name).unwrap_or_else(|| {
        warnings.push(format!("unknown role `{name}` read as a user message"));
        Role::User
    })
}

fn build(t: &mut Trajectory, framed: &[Framed]) {
    let mut current: Option<Step> = None;
    let last = framed.len() - 1;
    for (i, message) in framed.iter().enumerate() {
        let role = role_of(message.role, &mut t.warnings);
        if i == last && !message.terminated && role == Role::Assistant {
            if message.content.trim().is_empty() {
                // The header the agent opened for the next answer: the model's turn to speak.
                break;
            }
            t.warnings
                .push("the last assistant message has no `<|eot_id|>`: it may be cut off".into());
        }
        let mut pooled = Message::new(role, message.content);
        match role {
            Role::Assistant => {
                if let Some(step) = current.take() {
                    t.steps.push(step);
                }
                let step_no = t.steps.len() + 1;
                let found = find_calls(message.content);
                for (text, why) in &found.failures {
                    t.warnings.push(format!(
                        "step {step_no}: could not parse tool call `{}`: {why}",
                        preview(text)
                    ));
                }
                pooled.tool_calls = found.calls.clone();
                let mut action = render_calls(&found.calls);
                if let Some((text, _)) = found.failures.first() {
                    if !action.is_empty() {
                        action.push('\n');
                    }
                    action.push_str(text);
                }
                current = Some(Step {
                    thought: found.prose,
                    tool: found
                        .calls
                        .first()
                        .map(|c| c.name.clone())
                        .or(found.failed_name),
                    action,
                    failed: !found.failures.is_empty(),
                    tool_calls: found.calls,
                    response: message.content.to_string(),
                    // Everything before this answer, exactly as the model received it.
                    context: Some(StepContext::prefix(Exactness::Exact, t.messages.len())),
                    ..Step::default()
                });
            }
            Role::Tool => match current.as_mut() {
                Some(step) => {
                    if !step.observation.is_empty() {
                        step.observation.push('\n');
                    }
                    step.observation.push_str(message.content.trim_end());
                    if reports_error(message.content) {
                        step.failed = true;
                    }
                }
                None => t
                    .warnings
                    .push("a tool message before any assistant message".into()),
            },
            Role::User | Role::System => {
                if let Some(step) = current.take() {
                    t.steps.push(step);
                }
            }
        }
        t.push_message(pooled);
    }
    if let Some(step) = current.take() {
        t.steps.push(step);
    }
    t.task = task(&t.messages);
    if t.steps
        .iter()
        .any(|s| s.tool_calls.iter().any(|c| c.name == "finish") && !s.failed)
    {
        t.exit_status = Some("finished".into());
    }
}

/// The agent's own error lines: `ERROR - File … does not exist`, `Result: ERROR - …`.
fn reports_error(content: &str) -> bool {
    content.lines().take(50).any(|line| {
        let line = line.trim_start();
        line.starts_with("ERROR") || line.starts_with("Result: ERROR")
    })
}

/// The issue text: inside `<problem_statement>` in the first message that has one, else the
/// first user message.
fn task(messages: &[Message]) -> Option<String> {
    let wrapped = messages
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::System))
        .find(|m| m.content.contains("<problem_statement>"))
        .or_else(|| messages.iter().find(|m| m.role == Role::User))?;
    let task = task_from_prompt(&wrapped.content);
    (!task.is_empty()).then_some(task)
}

fn preview(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let short: String = line.chars().take(80).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}

#[cfg(test)]
mod tests;
