//! OpenAI chat-completion chunks (`data: {...}` … `data: [DONE]`) → stream events.
//!
//! Tool calls arrive in pieces keyed by `index`; OpenAI sends `id` and `name` once, llama.cpp
//! servers repeat them in every chunk, so only `arguments` is ever joined. Only choice 0 is read.

use super::super::decode::DecodeError;
use super::super::event::{FinishReason, StreamEvent};
use super::super::sse::SseEvent;
use crate::model::{ToolCall, Usage};
use serde_json::Value;

#[derive(Debug, Default)]
struct PendingCall {
    id: Option<String>,
    name: String,
    arguments: String,
    announced: bool,
    done: bool,
}

#[derive(Debug, Default)]
pub struct StreamDecoder {
    started: bool,
    calls: Vec<PendingCall>,
    /// `finish_reason` was seen: a body that then ends without `[DONE]` is still complete.
    finished: bool,
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
        if data == "[DONE]" {
            self.close_calls(out);
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| DecodeError::malformed(e, data))?;
        if !chunk.is_object() {
            return Err(DecodeError::malformed("not a JSON object", data));
        }
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(DecodeError::Server {
                message: error_message(error),
            });
        }
        if !self.started {
            self.started = true;
            out.push(StreamEvent::Started {
                id: string(&chunk, "id"),
                model: string(&chunk, "model"),
            });
        }
        if let Some(choices) = chunk.get("choices").and_then(Value::as_array) {
            let first = choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0);
            if let Some(choice) = first {
                self.on_choice(choice, data, out)?;
            }
        }
        if let Some(usage) = chunk.get("usage").and_then(usage_of) {
            out.push(StreamEvent::Usage { usage });
        }
        Ok(())
    }

    fn on_choice(
        &mut self,
        choice: &Value,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), DecodeError> {
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        for key in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                out.push(StreamEvent::ReasoningDelta { text: text.into() });
            }
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            out.push(StreamEvent::TextDelta { text: text.into() });
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.on_call_piece(call, data, out)?;
            }
        } else if let Some(function) = delta.get("function_call").filter(|f| f.is_object()) {
            // The pre-tools `function_call` shape: one call, no id. llama-cpp-python sends it
            // *beside* `tool_calls` with the same fragment, so it counts only when alone.
            let piece = serde_json::json!({ "index": 0, "function": function });
            self.on_call_piece(&piece, data, out)?;
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.close_calls(out);
            self.finished = true;
            out.push(StreamEvent::Finished {
                reason: FinishReason::from_openai(reason),
            });
        }
        Ok(())
    }

    fn on_call_piece(
        &mut self,
        piece: &Value,
        data: &str,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), DecodeError> {
        let id = string(piece, "id").filter(|id| !id.is_empty());
        let index = match piece.get("index").and_then(Value::as_u64) {
            Some(index) => usize::try_from(index)
                .ok()
                .filter(|&i| i <= self.calls.len() + 64)
                .ok_or_else(|| DecodeError::malformed("tool call index out of range", data))?,
            // Servers that omit the index: a new id opens a new call, else the last one continues.
            None => match &id {
                Some(id) => self
                    .calls
                    .iter()
                    .position(|c| c.id.as_deref() == Some(id))
                    .unwrap_or(self.calls.len()),
                None => self.calls.len().saturating_sub(1),
            },
        };
        if index >= self.calls.len() {
            self.calls.resize_with(index + 1, PendingCall::default);
        }
        let call = &mut self.calls[index];
        if call.done {
            return Err(DecodeError::malformed(
                "tool call continued after it ended",
                data,
            ));
        }
        if call.id.is_none() {
            call.id = id;
        }
        let function = piece.get("function").unwrap_or(&Value::Null);
        if call.name.is_empty()
            && let Some(name) = string(function, "name")
        {
            call.name = name;
        }
        let arguments = function
            .get("arguments")
            .and_then(Value::as_str)
            .unwrap_or("");
        call.arguments.push_str(arguments);
        if !call.announced && !call.name.is_empty() {
            call.announced = true;
            out.push(StreamEvent::ToolCallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                out.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: call.arguments.clone(),
                });
            }
        } else if call.announced && !arguments.is_empty() {
            out.push(StreamEvent::ToolCallDelta {
                index,
                arguments: arguments.into(),
            });
        }
        Ok(())
    }

    fn close_calls(&mut self, out: &mut Vec<StreamEvent>) {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.done || (call.name.is_empty() && call.arguments.is_empty()) {
                continue;
            }
            call.done = true;
            out.push(StreamEvent::ToolCallDone {
                index,
                call: ToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            });
        }
    }

    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        if self.done {
            return Ok(());
        }
        if self.finished {
            self.close_calls(out);
            self.done = true;
            return Ok(());
        }
        Err(DecodeError::Truncated {
            expected: "`data: [DONE]`",
        })
    }

    pub fn is_done(&self) -> bool {
        self.done
    }
}

/// A non-streamed `chat.completion` object → the events a stream of it would have given.
pub fn decode_whole(value: &Value) -> Result<Vec<StreamEvent>, DecodeError> {
    let data = value.to_string();
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(DecodeError::Server {
            message: error_message(error),
        });
    }
    let choice = value
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| DecodeError::malformed("no choices", &data))?;
    // A whole message has the same shape as one big delta.
    let mut as_delta = choice.clone();
    if let Some(object) = as_delta.as_object_mut()
        && let Some(message) = object.remove("message")
    {
        object.insert("delta".into(), message);
    }
    let mut chunk = value.clone();
    if let Some(object) = chunk.as_object_mut() {
        object.insert("choices".into(), Value::Array(vec![as_delta]));
    }
    let mut decoder = StreamDecoder::default();
    let mut out = Vec::new();
    let event = SseEvent {
        data: chunk.to_string(),
        ..SseEvent::default()
    };
    decoder.on_event(&event, &mut out)?;
    decoder.close_calls(&mut out);
    Ok(out)
}

fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

fn usage_of(usage: &Value) -> Option<Usage> {
    let tokens = |key: &str| usage.get(key).and_then(Value::as_u64);
    let usage = Usage {
        tokens_in: tokens("prompt_tokens"),
        tokens_out: tokens("completion_tokens"),
        ..Usage::default()
    };
    (!usage.is_empty()).then_some(usage)
}

/// The message of an OpenAI-style `error` value (an object with `message`, or a bare string).
pub fn error_message(error: &Value) -> String {
    match error {
        Value::String(message) => message.clone(),
        Value::Object(fields) => {
            let message = fields.get("message").and_then(Value::as_str);
            let kind = fields
                .get("type")
                .or_else(|| fields.get("code"))
                .and_then(Value::as_str);
            match (kind, message) {
                (Some(kind), Some(message)) => format!("{kind}: {message}"),
                (None, Some(message)) => message.to_string(),
                _ => error.to_string(),
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(lines: &[&str]) -> Result<Vec<StreamEvent>, DecodeError> {
        let mut decoder = StreamDecoder::default();
        let mut out = Vec::new();
        for line in lines {
            let event = SseEvent {
                data: (*line).to_string(),
                ..SseEvent::default()
            };
            decoder.on_event(&event, &mut out)?;
        }
        decoder.finish(&mut out)?;
        Ok(out)
    }

    fn done_calls(events: &[StreamEvent]) -> Vec<ToolCall> {
        events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDone { call, .. } => Some(call.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn llama_cpp_repeats_id_and_name_in_every_chunk() {
        let events = decode(&[
            r#"{"id":"c","model":"smollm2","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"comm"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","model":"smollm2","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":"and\": \"ls\"}"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","model":"smollm2","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ])
        .unwrap();
        let calls = done_calls(&events);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "bash");
        assert_eq!(calls[0].id.as_deref(), Some("call_1"));
        assert_eq!(calls[0].arguments, r#"{"command": "ls"}"#);
        let started = events
            .iter()
            .filter(|e| matches!(e, StreamEvent::ToolCallStarted { .. }))
            .count();
        assert_eq!(
            started, 1,
            "one start for one call, however often the name repeats"
        );
    }

    #[test]
    fn llama_cpp_python_sends_function_call_beside_tool_calls() {
        let events = decode(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":null,"tool_calls":null}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null,"function_call":{"name":"bash","arguments":"{"},"tool_calls":[{"index":0,"id":"call__0_bash","type":"function","function":{"name":"bash","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null,"function_call":{"name":"bash","arguments":"}"},"tool_calls":[{"index":0,"id":"call__0_bash","type":"function","function":{"name":"bash","arguments":"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ])
        .unwrap();
        assert_eq!(
            done_calls(&events),
            [ToolCall {
                id: Some("call__0_bash".into()),
                name: "bash".into(),
                arguments: "{}".into()
            }]
        );
        let legacy = decode(&[
            r#"{"choices":[{"delta":{"function_call":{"name":"f","arguments":"{\"a\""}}}]}"#,
            r#"{"choices":[{"delta":{"function_call":{"arguments":":1}"}},"finish_reason":"function_call"}]}"#,
        ])
        .unwrap();
        assert_eq!(done_calls(&legacy)[0].arguments, r#"{"a":1}"#);
    }

    #[test]
    fn openai_sends_id_and_name_once_and_interleaves_calls() {
        let events = decode(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"read","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"write","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"p\":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}"#,
            "[DONE]",
        ])
        .unwrap();
        let calls = done_calls(&events);
        assert_eq!(
            calls,
            [
                ToolCall {
                    id: Some("a".into()),
                    name: "read".into(),
                    arguments: r#"{"p":1}"#.into()
                },
                ToolCall {
                    id: Some("b".into()),
                    name: "write".into(),
                    arguments: "{}".into()
                }
            ]
        );
        assert!(events.contains(&StreamEvent::Usage {
            usage: Usage {
                tokens_in: Some(12),
                tokens_out: Some(5),
                ..Usage::default()
            }
        }));
    }

    #[test]
    fn text_reasoning_and_a_missing_done_after_finish() {
        let events = decode(&[
            r#"{"choices":[{"delta":{"reasoning_content":"hmm"}}]}"#,
            r#"{"choices":[{"delta":{"content":"Hello"}}]}"#,
            r#"{"choices":[{"delta":{"content":" world"},"finish_reason":"stop"}]}"#,
        ])
        .unwrap();
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "Hello world");
        assert!(events.contains(&StreamEvent::ReasoningDelta { text: "hmm".into() }));
    }

    #[test]
    fn errors_truncation_and_garbage() {
        assert_eq!(
            decode(&[r#"{"error":{"message":"context too long","type":"invalid_request_error"}}"#]),
            Err(DecodeError::Server {
                message: "invalid_request_error: context too long".into()
            })
        );
        assert_eq!(
            decode(&[r#"{"choices":[{"delta":{"content":"Hel"}}]}"#]),
            Err(DecodeError::Truncated {
                expected: "`data: [DONE]`"
            })
        );
        assert!(matches!(
            decode(&["{\"choices\": [tru"]),
            Err(DecodeError::Malformed { .. })
        ));
        assert!(matches!(
            decode(&[r#"{"choices":[{"delta":{"tool_calls":[{"index":99999999999}]}}]}"#]),
            Err(DecodeError::Malformed { .. })
        ));
    }

    #[test]
    fn a_whole_response() {
        let value: Value = serde_json::from_str(
            r#"{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        )
        .unwrap();
        let events = decode_whole(&value).unwrap();
        assert_eq!(done_calls(&events)[0].name, "f");
        assert!(events.contains(&StreamEvent::Finished {
            reason: FinishReason::ToolCalls
        }));
    }
}
