//! Claude Code `assistant` records: model output, merged into one step per API response.

use super::Session;
use super::action::render;
use super::record::{ApiMessage, ApiUsage, Record, content_blocks, value};
// Their `subagent_type` names a sub-agent's records in stream-json.
use super::subagents::SUBAGENT_TOOLS;
use crate::model::{ToolCall, Usage};
use serde_json::value::RawValue;

impl Session<'_> {
    pub(super) fn assistant(&mut self, at: usize, record: &Record, agent: Option<&str>) {
        let Some(message) = record.message.and_then(ApiMessage::parse) else {
            self.warn_at(at, "an assistant record without a message; skipped");
            return;
        };
        if let Some(model) = message.model.get() {
            self.note_model(model);
        }
        let blocks = content_blocks(message.content);
        let usage = usage(&ApiUsage::parse(message.usage), record.cost_usd.f64());
        if blocks.is_empty() && usage.is_empty() {
            return;
        }
        let id = message.id.non_empty();
        let step = match id.and_then(|id| self.steps.open_step(agent, Some(id))) {
            Some(step) => step,
            None => {
                let timestamp = record.timestamp.get().map(String::from);
                self.steps.start_step(agent, id, timestamp)
            }
        };
        for block in &blocks {
            match block.kind.get().unwrap_or("") {
                "text" => self.steps.add_text(step, block.text.get().unwrap_or("")),
                "thinking" => self
                    .steps
                    .add_thought(step, block.thinking.get().unwrap_or("")),
                "tool_use" | "server_tool_use" => {
                    self.tool_use(step, block.name.get(), block.id.get(), block.input);
                }
                _ => {}
            }
        }
        if !usage.is_empty() {
            self.steps.merge_usage(step, usage);
        }
        if record.is_api_error.is_true()
            && let Some(step) = self.steps.step_mut(step)
        {
            step.failed = true;
        }
    }

    fn tool_use(
        &mut self,
        step: usize,
        name: Option<&str>,
        id: Option<&str>,
        input: Option<&RawValue>,
    ) {
        let name = name.unwrap_or("tool");
        let input = value(input);
        if let Some(id) = id
            && SUBAGENT_TOOLS.contains(&name)
        {
            let subagent = input
                .get("subagent_type")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("subagent");
            self.subagents.insert(id.to_string(), subagent.to_string());
        }
        let arguments = match &input {
            serde_json::Value::Null => "{}".to_string(),
            other => other.to_string(),
        };
        let call = ToolCall {
            id: id.map(String::from),
            name: name.to_string(),
            arguments,
        };
        self.steps.add_call(step, call, render(name, &input), true);
    }

    /// Schema-drift logs write a call as a record of its own: a step with that call.
    pub(super) fn bare_tool_use(&mut self, record: &Record, agent: Option<&str>) {
        let timestamp = record.timestamp.get().map(String::from);
        let step = self.steps.start_step(agent, None, timestamp);
        self.tool_use(step, record.name.get(), record.id.get(), record.input);
    }
}

/// Tokens and cost of one API response. Anthropic counts cached prompt tokens apart from
/// `input_tokens`; "tokens in" is everything the model read, as other formats count it.
pub(super) fn usage(usage: &ApiUsage, cost: Option<f64>) -> Usage {
    let parts = [
        usage.input_tokens.u64(),
        usage.cache_creation_input_tokens.u64(),
        usage.cache_read_input_tokens.u64(),
    ];
    let tokens_in = parts
        .iter()
        .any(Option::is_some)
        .then(|| parts.iter().flatten().sum());
    Usage {
        cost,
        tokens_in,
        tokens_out: usage.output_tokens.u64(),
        tokens_cached: usage.cache_read_input_tokens.u64(),
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::claude_code::record::Block;

    #[test]
    fn cached_prompt_tokens_are_tokens_in() {
        let u: ApiUsage = serde_json::from_str(
            r#"{"input_tokens": 4, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 7}"#,
        )
        .unwrap();
        let usage = usage(&u, Some(0.5));
        assert_eq!(
            (usage.tokens_in, usage.tokens_out, usage.cost),
            (Some(114), Some(7), Some(0.5))
        );
        assert!(super::usage(&ApiUsage::default(), None).is_empty());
    }

    #[test]
    fn blocks_of_every_shape() {
        let raw: Box<RawValue> = serde_json::from_str(
            r#"[{"type":"text","text":"a"},"b",7,{"type":"thinking","thinking":"t"}]"#,
        )
        .unwrap();
        let blocks: Vec<Block> = content_blocks(Some(&raw));
        let kinds: Vec<_> = blocks.iter().map(|b| b.kind.get().unwrap_or("")).collect();
        assert_eq!(kinds, ["text", "text", "thinking"]);
        assert_eq!(blocks[1].text.get(), Some("b"));
        let raw: Box<RawValue> = serde_json::from_str(r#""just text""#).unwrap();
        assert_eq!(content_blocks(Some(&raw))[0].text.get(), Some("just text"));
    }
}
