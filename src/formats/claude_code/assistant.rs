//! Claude Code `assistant` records: model output, merged into one step per API response.

use super::Session;
use super::action::render;
use crate::formats::json::{f64_field, str_field, u64_field};
use crate::model::{ToolCall, Usage};
use serde_json::Value;

/// Tools that start a subagent; their `subagent_type` names its records in stream-json.
const SUBAGENT_TOOLS: &[&str] = &["Task", "Agent"];

impl Session<'_> {
    pub(super) fn assistant(&mut self, at: usize, value: &Value, agent: Option<&str>) {
        let Some(message) = value.get("message").filter(|m| m.is_object()) else {
            self.warn_at(at, "an assistant record without a message; skipped");
            return;
        };
        if let Some(model) = str_field(message, "model") {
            self.note_model(model);
        }
        let text;
        let blocks: Vec<&Value> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            Some(Value::String(s)) => {
                text = serde_json::json!({"type": "text", "text": s});
                vec![&text]
            }
            _ => Vec::new(),
        };
        let usage = usage(message.get("usage"), f64_field(value, "costUSD"));
        if blocks.is_empty() && usage.is_empty() {
            return;
        }
        let id = str_field(message, "id").filter(|id| !id.is_empty());
        let step = match id.and_then(|id| self.steps.open_step(agent, Some(id))) {
            Some(step) => step,
            None => {
                let timestamp = str_field(value, "timestamp").map(String::from);
                self.steps.start_step(agent, id, timestamp)
            }
        };
        for block in blocks {
            match str_field(block, "type").unwrap_or("") {
                "text" => self
                    .steps
                    .add_text(step, str_field(block, "text").unwrap_or("")),
                "thinking" => self
                    .steps
                    .add_thought(step, str_field(block, "thinking").unwrap_or("")),
                "tool_use" | "server_tool_use" => self.tool_use(step, block),
                _ => {}
            }
        }
        if !usage.is_empty() {
            self.steps.merge_usage(step, usage);
        }
        if value.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true) {
            self.steps.trajectory.steps[step].failed = true;
        }
    }

    fn tool_use(&mut self, step: usize, block: &Value) {
        let name = str_field(block, "name").unwrap_or("tool");
        let input = block.get("input").unwrap_or(&Value::Null);
        let id = str_field(block, "id").map(String::from);
        if let Some(id) = &id
            && SUBAGENT_TOOLS.contains(&name)
        {
            let subagent = str_field(input, "subagent_type").unwrap_or("subagent");
            self.subagents.insert(id.clone(), subagent.to_string());
        }
        let arguments = match input {
            Value::Null => "{}".to_string(),
            other => other.to_string(),
        };
        let call = ToolCall {
            id,
            name: name.to_string(),
            arguments,
        };
        self.steps.add_call(step, call, render(name, input), true);
    }

    /// Schema-drift logs write a call as a record of its own: a step with that call.
    pub(super) fn bare_tool_use(&mut self, value: &Value, agent: Option<&str>) {
        let timestamp = str_field(value, "timestamp").map(String::from);
        let step = self.steps.start_step(agent, None, timestamp);
        self.tool_use(step, value);
    }
}

/// Tokens and cost of one API response. Anthropic counts cached prompt tokens apart from
/// `input_tokens`; "tokens in" is everything the model read, as other formats count it.
pub(super) fn usage(usage: Option<&Value>, cost: Option<f64>) -> Usage {
    let u = usage.unwrap_or(&Value::Null);
    let parts = [
        u64_field(u, "input_tokens"),
        u64_field(u, "cache_creation_input_tokens"),
        u64_field(u, "cache_read_input_tokens"),
    ];
    let tokens_in = parts
        .iter()
        .any(Option::is_some)
        .then(|| parts.iter().flatten().sum());
    Usage {
        cost,
        tokens_in,
        tokens_out: u64_field(u, "output_tokens"),
        api_calls: None,
    }
}
