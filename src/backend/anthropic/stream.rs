//! Anthropic Messages stream events (`message_start` … `message_stop`) → stream events.
//!
//! Content blocks are keyed by their `index`; a `tool_use` block's input arrives as
//! `input_json_delta` fragments that are joined until `content_block_stop`. Unknown event and
//! delta types are skipped, as the API's versioning policy asks of clients.

use super::super::decode::DecodeError;
use super::super::event::{FinishReason, StreamEvent};
use super::super::sse::SseEvent;
use crate::model::{ToolCall, Usage};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug)]
enum Block {
    Text,
    Thinking,
    ToolUse {
        call: usize,
        id: Option<String>,
        name: String,
        json: String,
        /// The `input` of `content_block_start`: the arguments when no delta follows.
        start_input: Option<Value>,
    },
    Other,
}

#[derive(Debug, Default)]
pub struct StreamDecoder {
    blocks: BTreeMap<u64, Block>,
    calls: usize,
    usage: Usage,
    done: bool,
}

impl StreamDecoder {
    pub fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(());
        }
        let value: Value =
            serde_json::from_str(data).map_err(|e| DecodeError::malformed(e, data))?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                let message = value.get("message").unwrap_or(&Value::Null);
                out.push(StreamEvent::Started {
                    id: string(message, "id"),
                    model: string(message, "model"),
                });
                if let Some(usage) = message.get("usage") {
                    self.add_usage(usage, out);
                }
            }
            "content_block_start" => self.on_block_start(index_of(&value, data)?, &value, out),
            "content_block_delta" => {
                self.on_block_delta(index_of(&value, data)?, &value, data, out)?;
            }
            "content_block_stop" => {
                let index = index_of(&value, data)?;
                if let Some(block) = self.blocks.remove(&index) {
                    close(block, out);
                }
            }
            "message_delta" => {
                if let Some(usage) = value.get("usage") {
                    self.add_usage(usage, out);
                }
                let delta = value.get("delta").unwrap_or(&Value::Null);
                if let Some(reason) = delta.get("stop_reason").and_then(Value::as_str) {
                    self.close_blocks(out);
                    out.push(StreamEvent::Finished {
                        reason: FinishReason::from_anthropic(reason),
                    });
                }
            }
            "message_stop" => {
                self.close_blocks(out);
                self.done = true;
            }
            "error" => {
                return Err(DecodeError::Server {
                    message: error_message(value.get("error").unwrap_or(&value)),
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// Block `index` opens (the caller has read `index`, as for every block event).
    fn on_block_start(&mut self, index: u64, value: &Value, out: &mut Vec<StreamEvent>) {
        let block = value.get("content_block").unwrap_or(&Value::Null);
        let block = match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = block.get("text").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push(StreamEvent::TextDelta { text: text.into() });
                }
                Block::Text
            }
            Some("thinking") => Block::Thinking,
            Some("tool_use") => {
                let call = self.calls;
                self.calls += 1;
                let id = string(block, "id");
                let name = string(block, "name").unwrap_or_default();
                out.push(StreamEvent::ToolCallStarted {
                    index: call,
                    id: id.clone(),
                    name: name.clone(),
                });
                Block::ToolUse {
                    call,
                    id,
                    name,
                    json: String::new(),
                    start_input: block.get("input").cloned(),
                }
            }
            _ => Block::Other,
        };
        if let Some(previous) = self.blocks.insert(index, block) {
            close(previous, out);
        }
    }

    fn on_block_delta(
        &mut self,
        index: u64,
        value: &Value,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), DecodeError> {
        let delta = value.get("delta").unwrap_or(&Value::Null);
        let text = |key: &str| {
            delta
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                let text = text("text");
                if !text.is_empty() {
                    out.push(StreamEvent::TextDelta { text });
                }
            }
            Some("thinking_delta") => {
                let text = text("thinking");
                if !text.is_empty() {
                    out.push(StreamEvent::ReasoningDelta { text });
                }
            }
            Some("input_json_delta") => match self.blocks.get_mut(&index) {
                Some(Block::ToolUse { call, json, .. }) => {
                    let fragment = text("partial_json");
                    json.push_str(&fragment);
                    if !fragment.is_empty() {
                        out.push(StreamEvent::ToolCallDelta {
                            index: *call,
                            arguments: fragment,
                        });
                    }
                }
                _ => {
                    return Err(DecodeError::malformed(
                        "input_json_delta outside a tool_use block",
                        data,
                    ));
                }
            },
            _ => {}
        }
        Ok(())
    }

    fn close_blocks(&mut self, out: &mut Vec<StreamEvent>) {
        for (_, block) in std::mem::take(&mut self.blocks) {
            close(block, out);
        }
    }

    fn add_usage(&mut self, usage: &Value, out: &mut Vec<StreamEvent>) {
        let tokens = |key: &str| usage.get(key).and_then(Value::as_u64);
        // Cached input is still input the model read.
        let input: Option<u64> = [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ]
        .iter()
        .filter_map(|k| tokens(k))
        .reduce(|a, b| a.saturating_add(b));
        self.usage.tokens_in = input.or(self.usage.tokens_in);
        self.usage.tokens_out = tokens("output_tokens").or(self.usage.tokens_out);
        if !self.usage.is_empty() {
            out.push(StreamEvent::Usage { usage: self.usage });
        }
    }

    pub fn finish(&mut self, _out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        Err(DecodeError::Truncated {
            expected: "message_stop",
        })
    }

    pub fn is_done(&self) -> bool {
        self.done
    }
}

fn close(block: Block, out: &mut Vec<StreamEvent>) {
    if let Block::ToolUse {
        call,
        id,
        name,
        json,
        start_input,
    } = block
    {
        let arguments = if json.is_empty() {
            start_input.map_or_else(|| "{}".to_string(), |input| input.to_string())
        } else {
            json
        };
        out.push(StreamEvent::ToolCallDone {
            index: call,
            call: ToolCall {
                id,
                name,
                arguments,
            },
        });
    }
}

/// A non-streamed `message` object → the events a stream of it would have given.
pub fn decode_whole(value: &Value) -> Result<Vec<StreamEvent>, DecodeError> {
    if value.get("type").and_then(Value::as_str) == Some("error") {
        return Err(DecodeError::Server {
            message: error_message(value.get("error").unwrap_or(value)),
        });
    }
    let content = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| DecodeError::malformed("no content", &value.to_string()))?;
    let mut out = vec![StreamEvent::Started {
        id: string(value, "id"),
        model: string(value, "model"),
    }];
    let mut calls = 0;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    out.push(StreamEvent::TextDelta { text: text.into() });
                }
            }
            Some("thinking") => {
                if let Some(text) = block.get("thinking").and_then(Value::as_str) {
                    out.push(StreamEvent::ReasoningDelta { text: text.into() });
                }
            }
            Some("tool_use") => {
                let call = ToolCall {
                    id: string(block, "id"),
                    name: string(block, "name").unwrap_or_default(),
                    arguments: block.get("input").map_or("{}".into(), Value::to_string),
                };
                out.push(StreamEvent::ToolCallDone { index: calls, call });
                calls += 1;
            }
            _ => {}
        }
    }
    let mut decoder = StreamDecoder::default();
    if let Some(usage) = value.get("usage") {
        decoder.add_usage(usage, &mut out);
    }
    if let Some(reason) = value.get("stop_reason").and_then(Value::as_str) {
        out.push(StreamEvent::Finished {
            reason: FinishReason::from_anthropic(reason),
        });
    }
    Ok(out)
}

fn index_of(value: &Value, data: &str) -> Result<u64, DecodeError> {
    value
        .get("index")
        .and_then(Value::as_u64)
        .ok_or_else(|| DecodeError::malformed("content block event without index", data))
}

fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// `{"type": "overloaded_error", "message": "Overloaded"}` → `overloaded_error: Overloaded`.
pub fn error_message(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str);
    match (error.get("type").and_then(Value::as_str), message) {
        (Some(kind), Some(message)) => format!("{kind}: {message}"),
        (None, Some(message)) => message.to_string(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(events: &[(&str, &str)]) -> Result<Vec<StreamEvent>, DecodeError> {
        let mut decoder = StreamDecoder::default();
        let mut out = Vec::new();
        for (event, data) in events {
            let event = SseEvent {
                event: (*event).to_string(),
                data: (*data).to_string(),
                id: None,
            };
            decoder.on_event(&event, &mut out)?;
        }
        decoder.finish(&mut out)?;
        Ok(out)
    }

    const TOOL_STREAM: &[(&str, &str)] = &[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        ("ping", r#"{"type": "ping"}"#),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking."}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"l"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"s\"}"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"submit","input":{}}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];

    #[test]
    fn text_then_tool_use_with_joined_input() {
        let events = decode(TOOL_STREAM).unwrap();
        let mut completion = crate::backend::Completion::default();
        for event in &events {
            completion.apply(event);
        }
        assert_eq!(completion.text, "Checking.");
        assert_eq!(completion.id.as_deref(), Some("msg_1"));
        assert_eq!(completion.tool_calls.len(), 2);
        assert_eq!(completion.tool_calls[0].arguments, r#"{"command": "ls"}"#);
        assert_eq!(completion.tool_calls[0].id.as_deref(), Some("toolu_1"));
        assert_eq!(completion.tool_calls[1].arguments, "{}");
        assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
        let usage = completion.usage.unwrap();
        assert_eq!((usage.tokens_in, usage.tokens_out), (Some(30), Some(40)));
    }

    #[test]
    fn an_error_event_and_a_cut_stream() {
        let error = decode(&[(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )]);
        assert_eq!(
            error,
            Err(DecodeError::Server {
                message: "overloaded_error: Overloaded".into()
            })
        );
        assert_eq!(
            decode(&TOOL_STREAM[..8]),
            Err(DecodeError::Truncated {
                expected: "message_stop"
            })
        );
    }

    #[test]
    fn json_delta_outside_a_tool_block_is_malformed() {
        let result = decode(&[(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}"#,
        )]);
        assert!(matches!(result, Err(DecodeError::Malformed { .. })));
    }

    #[test]
    fn a_whole_message() {
        let value: Value = serde_json::from_str(
            r#"{"id":"m","type":"message","model":"c","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}}"#,
        )
        .unwrap();
        let events = decode_whole(&value).unwrap();
        assert!(events.contains(&StreamEvent::ToolCallDone {
            index: 0,
            call: ToolCall {
                id: Some("t".into()),
                name: "f".into(),
                arguments: r#"{"a":1}"#.into()
            }
        }));
    }
}
