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

use super::LoadError;
use super::json::{content_text, str_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis};
use crate::model::{Format, Message, ToolCall, Trajectory, Usage};
use attributes::{Attrs, nanos};
use serde_json::Value;
use std::collections::BTreeMap;
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

/// One span, flattened out of its resource and scope.
struct Span {
    trace: String,
    start: u64,
    end: u64,
    name: String,
    attrs: Attrs,
    error: Option<String>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let mut warnings = Vec::new();
    let exports: Vec<Value> = if super::detect::is_json_lines(bytes) {
        let (lines, bad) = super::json::json_lines(path, bytes);
        warnings = bad;
        lines.into_iter().map(|l| l.value).collect()
    } else {
        vec![serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?]
    };
    let mut traces: BTreeMap<String, Vec<Span>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for export in &exports {
        for span in spans(export) {
            if !traces.contains_key(&span.trace) {
                order.push(span.trace.clone());
            }
            traces.entry(span.trace.clone()).or_default().push(span);
        }
    }
    let genai = |spans: &Vec<Span>| {
        spans
            .iter()
            .any(|s| s.attrs.str("gen_ai.operation.name").is_some())
    };
    order.retain(|t| traces.get(t).is_some_and(genai));
    if order.is_empty() {
        return Err(LoadError::invalid(
            path,
            "an OTLP trace export without GenAI spans (no `gen_ai.operation.name`)",
        ));
    }
    let many = order.len() > 1;
    let mut out = Vec::new();
    for (i, trace) in order.iter().enumerate() {
        let Some(mut spans) = traces.remove(trace) else {
            continue;
        };
        spans.sort_by_key(|s| (s.start, s.end));
        let mut t = read_trace(path, trace, &spans);
        if many {
            t.source_index = Some(i);
        }
        let mut all = warnings.clone();
        all.append(&mut t.warnings);
        t.warnings = all;
        out.push(t);
    }
    Ok(out)
}

fn spans(export: &Value) -> Vec<Span> {
    let mut out = Vec::new();
    let list = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for resource in list(export, "resourceSpans") {
        for scope in list(&resource, "scopeSpans") {
            for span in list(&scope, "spans") {
                let status = span.get("status");
                let failed = status
                    .and_then(|s| s.get("code"))
                    .is_some_and(|c| *c == 2 || *c == "STATUS_CODE_ERROR");
                let attrs = Attrs::of(&span);
                let error = attrs.str("error.type").map(String::from).or_else(|| {
                    failed.then(|| {
                        status
                            .and_then(|s| str_field(s, "message"))
                            .unwrap_or("error")
                            .to_string()
                    })
                });
                out.push(Span {
                    trace: str_field(&span, "traceId").unwrap_or("").to_string(),
                    start: nanos(span.get("startTimeUnixNano")),
                    end: nanos(span.get("endTimeUnixNano")),
                    name: str_field(&span, "name").unwrap_or("").to_string(),
                    attrs,
                    error,
                });
            }
        }
    }
    out
}

fn read_trace(path: &Path, trace: &str, spans: &[Span]) -> Trajectory {
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
        match span.attrs.str("gen_ai.operation.name").unwrap_or("") {
            "chat" | "text_completion" | "generate_content" => {
                seen = chat(&mut session, span, time, seen);
            }
            "execute_tool" => tool(&mut session, span, time),
            "invoke_agent" | "create_agent" => {
                if let Some(name) = span.attrs.str("gen_ai.agent.name") {
                    session.steps.trajectory.agent = Some(name.to_string());
                }
            }
            _ => {}
        }
    }
    session.finish()
}

fn chat(session: &mut Session, span: &Span, time: Option<String>, seen: usize) -> usize {
    if let Some(system) = span.attrs.json("gen_ai.system_instructions")
        && seen == 0
    {
        session
            .steps
            .push_message(None, Message::system(parts_text(&system)));
    }
    let input = span.attrs.json("gen_ai.input.messages");
    let input: Vec<Value> = input
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    for message in input.iter().skip(seen) {
        let text = parts_text(message.get("parts").unwrap_or(&Value::Null));
        match str_field(message, "role").unwrap_or("") {
            "user" => session.user(&text, time.clone()),
            "system" => {
                session.steps.push_message(None, Message::system(text));
            }
            // Results of calls no tool span answered, as the next request carries them.
            "tool" => {
                let parts = message.get("parts").and_then(Value::as_array);
                for part in parts.into_iter().flatten() {
                    let b = &mut session.steps;
                    let at = str_field(part, "id").and_then(|id| b.call_at(id));
                    if let Some(at) = at.filter(|&at| !b.has_output(at)) {
                        let text = part.get("response").map(content_text).unwrap_or_default();
                        b.add_result(
                            at,
                            CallOutput {
                                text,
                                ..CallOutput::default()
                            },
                        );
                    }
                }
            }
            _ => {}
        }
    }
    let b = &mut session.steps;
    let step = b.start_step(None, None, time);
    let model = span
        .attrs
        .str("gen_ai.response.model")
        .or_else(|| span.attrs.str("gen_ai.request.model"));
    if let Some(model) = model {
        b.trajectory.model = Some(model.to_string());
    }
    let output = span.attrs.json("gen_ai.output.messages");
    let outputs: Vec<Value> = output
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    for message in &outputs {
        let Some(Value::Array(parts)) = message.get("parts") else {
            continue;
        };
        for part in parts {
            match str_field(part, "type").unwrap_or("") {
                "reasoning" => b.add_thought(
                    step,
                    &part.get("content").map(content_text).unwrap_or_default(),
                ),
                "tool_call" => {
                    let arguments = match part.get("arguments") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    };
                    let call = ToolCall {
                        id: str_field(part, "id").map(String::from),
                        name: str_field(part, "name").unwrap_or("tool").to_string(),
                        arguments,
                    };
                    let action = call_action(&call);
                    b.add_call(step, call, action, true);
                }
                _ => b.add_text(
                    step,
                    &part.get("content").map(content_text).unwrap_or_default(),
                ),
            }
        }
    }
    b.merge_usage(
        step,
        Usage {
            tokens_in: span.attrs.u64("gen_ai.usage.input_tokens"),
            tokens_out: span.attrs.u64("gen_ai.usage.output_tokens"),
            api_calls: Some(1),
            tokens_cached: None,
            tokens_reasoning: None,
            cost: None,
        },
    );
    if let Some(error) = &span.error {
        session.step_error(step, format!("[{}] {error}", span.name));
    }
    input.len() + outputs.len()
}

fn tool(session: &mut Session, span: &Span, time: Option<String>) {
    let b = &mut session.steps;
    let id = span.attrs.str("gen_ai.tool.call.id");
    let name = span
        .attrs
        .str("gen_ai.tool.name")
        .unwrap_or("tool")
        .to_string();
    let result = span
        .attrs
        .raw("gen_ai.tool.call.result")
        .unwrap_or_default();
    let mut text = result;
    if let Some(error) = &span.error {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(error);
    }
    let duration_s = (span.end > span.start).then(|| (span.end - span.start) as f64 / 1e9);
    let outcome = CallOutput {
        text,
        failed: span.error.is_some(),
        duration_s,
        ..CallOutput::default()
    };
    let known = id
        .and_then(|id| b.call_at(id))
        .or_else(|| b.pending_call(None));
    match known {
        Some(at) if !b.has_output(at) => b.add_result(at, outcome),
        _ => {
            // A tool run no chat span recorded asking for: a step of its own.
            let step = b.start_step(None, None, time);
            let arguments = span
                .attrs
                .raw("gen_ai.tool.call.arguments")
                .unwrap_or_default();
            let call = ToolCall {
                id: id.map(String::from),
                name,
                arguments,
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
