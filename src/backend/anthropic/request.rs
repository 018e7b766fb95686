//! A context → the body of `POST /v1/messages` with `"stream": true`.
//!
//! The Messages API takes the system prompt apart, has only `user` and `assistant` turns that
//! must alternate, carries tool results as `tool_result` blocks in a user turn, and wants tool
//! input as a JSON object. Consecutive turns of one role are merged into one.

use super::super::config::{BackendConfig, Sampling};
use super::super::request::{CompletionRequest, ToolChoice, ToolSpec};
use crate::model::{Message, Role};
use serde_json::{Map, Value, json};

/// The Messages API requires an output limit.
const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(crate) fn body(
    config: &BackendConfig,
    messages: &[Message],
    request: &CompletionRequest,
    sampling: &Sampling,
    adaptations: &mut Vec<String>,
) -> Value {
    let leading = messages
        .iter()
        .take_while(|m| m.role == Role::System)
        .count();
    let system: Vec<&str> = messages[..leading]
        .iter()
        .map(|m| m.content.as_str())
        .filter(|c| !c.is_empty())
        .collect();

    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (i, message) in messages.iter().enumerate().skip(leading) {
        let (role, blocks) = match message.role {
            Role::System => {
                adaptations.push(format!(
                    "message {}: a system message after the conversation began was sent as user text",
                    i + 1
                ));
                ("user", text_block(&message.content))
            }
            Role::User => ("user", text_block(&message.content)),
            Role::Tool => ("user", vec![tool_result(message)]),
            Role::Assistant => ("assistant", assistant_blocks(message, i + 1, adaptations)),
        };
        match turns.last_mut() {
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let wire: Vec<Value> = turns
        .into_iter()
        .map(|(role, blocks)| json!({ "role": role, "content": content(blocks) }))
        .collect();

    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(wire));
    body.insert(
        "max_tokens".into(),
        json!(sampling.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    body.insert("stream".into(), json!(true));
    if let Some(t) = sampling.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = sampling.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(stop) = sampling.stop.as_ref().filter(|s| !s.is_empty()) {
        body.insert("stop_sequences".into(), json!(stop));
    }
    if sampling.seed.is_some() {
        adaptations.push("the Anthropic API takes no seed: it was not sent".into());
    }
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(tool).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice(choice));
    }
    Value::Object(body)
}

/// A lone text block goes as a plain string, as people write it; anything else as blocks.
fn content(mut blocks: Vec<Value>) -> Value {
    if blocks.len() == 1 && blocks[0]["type"] == "text" {
        return blocks.swap_remove(0)["text"].take();
    }
    if blocks.is_empty() {
        return json!("");
    }
    Value::Array(blocks)
}

/// The API refuses empty text blocks.
fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        return Vec::new();
    }
    vec![json!({ "type": "text", "text": text })]
}

fn tool_result(message: &Message) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": message.tool_call_id,
        "content": message.content,
    })
}

fn assistant_blocks(message: &Message, number: usize, notes: &mut Vec<String>) -> Vec<Value> {
    let mut blocks = text_block(&message.content);
    for call in &message.tool_calls {
        let input = match serde_json::from_str::<Value>(&call.arguments) {
            Ok(object @ Value::Object(_)) => object,
            Ok(Value::Null) | Err(_) if call.arguments.trim().is_empty() => json!({}),
            Ok(other) => {
                notes.push(format!(
                    "message {number}: arguments of `{}` are not a JSON object; sent as {{\"input\": …}}",
                    call.name
                ));
                json!({ "input": other })
            }
            Err(_) => {
                notes.push(format!(
                    "message {number}: arguments of `{}` are not JSON; sent as {{\"input\": \"…\"}}",
                    call.name
                ));
                json!({ "input": call.arguments })
            }
        };
        blocks.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": input,
        }));
    }
    blocks
}

fn tool(spec: &ToolSpec) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(description) = &spec.description {
        tool.insert("description".into(), json!(description));
    }
    tool.insert("input_schema".into(), spec.parameters.clone());
    Value::Object(tool)
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({ "type": "auto" }),
        ToolChoice::None => json!({ "type": "none" }),
        ToolChoice::Required => json!({ "type": "any" }),
        ToolChoice::Function(name) => json!({ "type": "tool", "name": name }),
    }
}
