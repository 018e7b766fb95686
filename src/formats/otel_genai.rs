//! OpenTelemetry GenAI spans in OTLP JSON (`{"resourceSpans": […]}`, one document, or one
//! export request per line as the collector's file exporter writes them), read per the
//! OpenTelemetry GenAI semantic conventions v1.37–1.38 (`gen_ai.operation.name`,
//! `gen_ai.input.messages` / `gen_ai.output.messages` with typed `parts`,
//! `gen_ai.usage.*`, `gen_ai.tool.*`).
//!
//! One trajectory per trace (`traceId`). Spans are taken in start order: a `chat` (or
//! `text_completion`, `generate_content`) span is one model step, its output message's
//! `text`, `reasoning` and `tool_call` parts the step's words, thought and calls, its usage
//! and response model the step's; the user and system messages its input adds to the
//! conversation become user turns and context. An `execute_tool` span answers the call named
//! by `gen_ai.tool.call.id` with `gen_ai.tool.call.result` (a span status of ERROR, or an
//! `error.type`, marks it failed); a tool span no chat span asked for is a step of its own.

mod attributes;
mod index;
mod places;
mod span;
mod traces;

pub use index::TraceIndex;
pub use traces::Traces;

use super::LoadError;
use super::json::{content_text, each_json_line, str_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis};
use crate::model::{Format, Message, Trajectory, Usage};
use serde_json::Value;
use span::{Chat, Op, Part, Pool, Span, Tool};
use std::path::Path;

/// Whether a JSON document's top-level keys are an OTLP trace export's.
pub fn is_export_document(has: &dyn Fn(&str) -> bool) -> bool {
    has("resourceSpans")
}

/// Whether the first records of a JSON Lines file are OTLP trace exports.
pub fn is_export_lines(lines: &[Value]) -> bool {
    lines
        .first()
        .is_some_and(|l| l.get("resourceSpans").is_some())
}

/// The whole read: the file's exports handed to [`Traces`] one at a time, as the bounded
/// read hands them over.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut traces = Traces::default();
    if super::detect::is_json_lines(bytes) {
        each_json_line::<Value>(path, bytes, |line| match line {
            Ok(line) => traces.export(&line.value),
            Err(warning) => traces.warn(warning),
        });
    } else {
        let export: Value =
            serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
        traces.export(&export);
    }
    traces.finish(path)
}

/// The trajectory of one trace, from its spans in start order.
fn read_trace(path: &Path, trace: &str, spans: Vec<Span>, pool: &Pool) -> Trajectory {
    let mut session = Session::new(Trajectory::new(path, Format::OtelGenai));
    session.steps.trajectory.instance_id = if trace.is_empty() {
        "trace".into()
    } else {
        trace.to_string()
    };
    session.steps.trajectory.format_detail = Some("gen_ai semconv 1.37".into());
    // Input messages already in the conversation: a chat span's input repeats the history.
    let mut seen = 0usize;
    for span in spans {
        let time = iso_from_millis(i64::try_from(span.start / 1_000_000).unwrap_or(0));
        match span.op {
            Op::Chat(chat) => {
                seen = read_chat(
                    &mut session,
                    *chat,
                    pool,
                    &span.name,
                    span.error,
                    time,
                    seen,
                );
            }
            Op::Tool(tool) => {
                let duration_s =
                    (span.end > span.start).then(|| (span.end - span.start) as f64 / 1e9);
                read_tool(&mut session, *tool, span.error, duration_s, time);
            }
            Op::Agent(name) => {
                if let Some(name) = name {
                    session.steps.trajectory.agent = Some(name);
                }
            }
        }
    }
    session.finish()
}

fn read_chat(
    session: &mut Session,
    chat: Chat,
    pool: &Pool,
    name: &str,
    error: Option<String>,
    time: Option<String>,
    seen: usize,
) -> usize {
    if let Some(span::Message::System(text)) = chat.system.and_then(|id| pool.get(id))
        && seen == 0
    {
        session
            .steps
            .push_message(None, Message::system(text.clone()));
    }
    for id in chat.input.iter().skip(seen) {
        match pool.get(*id) {
            Some(span::Message::User(text)) => session.user(text, time.clone()),
            Some(span::Message::System(text)) => {
                session
                    .steps
                    .push_message(None, Message::system(text.clone()));
            }
            Some(span::Message::Tool(answers)) => {
                for (id, text) in answers {
                    let b = &mut session.steps;
                    if let Some(at) = b.call_at(id).filter(|&at| !b.has_output(at)) {
                        b.add_result(
                            at,
                            CallOutput {
                                text: text.clone(),
                                ..CallOutput::default()
                            },
                        );
                    }
                }
            }
            None => {}
        }
    }
    let b = &mut session.steps;
    let step = b.start_step(None, None, time);
    if let Some(model) = chat.model {
        b.trajectory.model = Some(model);
    }
    for part in chat.parts {
        match part {
            Part::Thought(text) => b.add_thought(step, &text),
            Part::Call(call) => {
                let action = call_action(&call);
                b.add_call(step, call, action, true);
            }
            Part::Text(text) => b.add_text(step, &text),
        }
    }
    b.merge_usage(
        step,
        Usage {
            tokens_in: chat.tokens_in,
            tokens_out: chat.tokens_out,
            api_calls: Some(1),
            tokens_cached: None,
            tokens_reasoning: None,
            cost: None,
        },
    );
    if let Some(error) = error {
        session.step_error(step, format!("[{name}] {error}"));
    }
    chat.input.len() + chat.outputs
}

fn read_tool(
    session: &mut Session,
    tool: Tool,
    error: Option<String>,
    duration_s: Option<f64>,
    time: Option<String>,
) {
    let b = &mut session.steps;
    let mut text = tool.result;
    if let Some(error) = &error {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(error);
    }
    let outcome = CallOutput {
        text,
        failed: error.is_some(),
        duration_s,
        ..CallOutput::default()
    };
    let known = tool
        .id
        .as_deref()
        .and_then(|id| b.call_at(id))
        .or_else(|| b.pending_call(None));
    match known {
        Some(at) if !b.has_output(at) => b.add_result(at, outcome),
        _ => {
            // A tool run no chat span recorded asking for: a step of its own.
            let step = b.start_step(None, None, time);
            let call = crate::model::ToolCall {
                id: tool.id,
                name: tool.name,
                arguments: tool.arguments,
            };
            let action = call_action(&call);
            b.add_call(step, call, action, true);
            b.add_result((step, 0), outcome);
            b.close(None);
        }
    }
}

/// The text of a message's `parts` (or of instructions, a list of parts): `text` parts'
/// `content`, tool responses as their `response`.
fn parts_text(parts: &Value) -> String {
    let Value::Array(items) = parts else {
        return content_text(parts);
    };
    let texts: Vec<String> = items
        .iter()
        .map(|p| match str_field(p, "type").unwrap_or("") {
            "tool_call_response" => p.get("response").map(content_text).unwrap_or_default(),
            _ => p.get("content").map(content_text).unwrap_or_default(),
        })
        .filter(|t| !t.is_empty())
        .collect();
    texts.join("\n")
}

#[cfg(test)]
mod tests;
