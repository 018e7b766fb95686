//! A context → the body of `POST /v1/chat/completions` with `"stream": true`.

use super::super::config::{BackendConfig, Sampling};
use super::super::request::{CompletionRequest, ToolChoice, ToolSpec};
use crate::model::{Message, Role};
use serde_json::{Map, Value, json};

pub(crate) fn body(
    config: &BackendConfig,
    messages: &[Message],
    request: &CompletionRequest,
    sampling: &Sampling,
    adaptations: &mut Vec<String>,
) -> Value {
    let mut wire: Vec<Value> = Vec::with_capacity(messages.len() + 1);
    if config.always_send_system && messages.first().is_none_or(|m| m.role != Role::System) {
        adaptations.push(
            "an empty system message was sent first (always_send_system), so the server's chat template adds no default one"
                .into(),
        );
        wire.push(json!({ "role": "system", "content": "" }));
    }
    wire.extend(messages.iter().map(message));

    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert("messages".into(), Value::Array(wire));
    body.insert("stream".into(), json!(true));
    if config.include_usage {
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    insert_sampling(&mut body, sampling);
    if !request.tools.is_empty() {
        let tools = request.tools.iter().map(tool).collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &request.tool_choice {
        body.insert("tool_choice".into(), tool_choice(choice));
    }
    Value::Object(body)
}

fn message(message: &Message) -> Value {
    let mut wire = Map::new();
    wire.insert("role".into(), json!(message.role.as_str()));
    // Always a string, never null: llama.cpp servers answer HTTP 500 to `"content": null`.
    wire.insert("content".into(), json!(message.content));
    if message.role == Role::Assistant && !message.tool_calls.is_empty() {
        let calls = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": { "name": call.name, "arguments": call.arguments },
                })
            })
            .collect();
        wire.insert("tool_calls".into(), Value::Array(calls));
    }
    if message.role == Role::Tool
        && let Some(id) = &message.tool_call_id
    {
        wire.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(wire)
}

fn insert_sampling(body: &mut Map<String, Value>, sampling: &Sampling) {
    if let Some(t) = sampling.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = sampling.top_p {
        body.insert("top_p".into(), json!(p));
    }
    if let Some(n) = sampling.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    if let Some(seed) = sampling.seed {
        body.insert("seed".into(), json!(seed));
    }
    if let Some(stop) = sampling.stop.as_ref().filter(|s| !s.is_empty()) {
        body.insert("stop".into(), json!(stop));
    }
}

fn tool(spec: &ToolSpec) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(spec.name));
    if let Some(description) = &spec.description {
        function.insert("description".into(), json!(description));
    }
    function.insert("parameters".into(), spec.parameters.clone());
    json!({ "type": "function", "function": function })
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Function(name) => json!({ "type": "function", "function": { "name": name } }),
    }
}
