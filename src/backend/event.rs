//! What a streaming completion yields, whichever wire it came over: [`StreamEvent`]s as they
//! arrive, and the [`Completion`] they add up to.
//!
//! Wire-neutral: the OpenAI and Anthropic decoders both produce these; replay, the TUI and the
//! fork writer consume them. No I/O here.

use crate::model::{Message, ToolCall, Usage};
use serde::Serialize;

/// Why the model stopped, in the words both APIs share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end or a stop sequence (OpenAI `stop`, Anthropic `end_turn`/`stop_sequence`).
    Stop,
    /// The token limit (`length`, `max_tokens`).
    Length,
    /// The model called tools (`tool_calls`, `tool_use`).
    ToolCalls,
    /// Withheld by the provider (`content_filter`, `refusal`).
    ContentFilter,
    /// Anything else, as the server said it.
    Other(String),
}

impl FinishReason {
    pub fn from_openai(reason: &str) -> FinishReason {
        match reason {
            "stop" => FinishReason::Stop,
            "length" => FinishReason::Length,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }

    pub fn from_anthropic(reason: &str) -> FinishReason {
        match reason {
            "end_turn" | "stop_sequence" => FinishReason::Stop,
            "max_tokens" => FinishReason::Length,
            "tool_use" => FinishReason::ToolCalls,
            "refusal" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::Length => "length",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(other) => other,
        }
    }
}

/// One piece of a streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// The server named the response and the model that answers (first chunk / `message_start`).
    Started {
        id: Option<String>,
        model: Option<String>,
    },
    /// Visible text.
    TextDelta { text: String },
    /// Reasoning text the server streams apart from the answer (`reasoning_content`, Anthropic
    /// `thinking`): shown, never sent back.
    ReasoningDelta { text: String },
    /// A tool call began; `index` numbers the calls of this answer from 0.
    ToolCallStarted {
        index: usize,
        id: Option<String>,
        name: String,
    },
    /// More argument text for call `index` (a JSON fragment).
    ToolCallDelta { index: usize, arguments: String },
    /// Call `index` is complete: its arguments are joined.
    ToolCallDone { index: usize, call: ToolCall },
    /// Token counts, when the server sends them; later ones supersede earlier ones.
    Usage { usage: Usage },
    /// The model stopped.
    Finished { reason: FinishReason },
}

/// Where the time went, measured by the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timing {
    /// Requests sent, retries included.
    pub attempts: u32,
    /// From the first request to the response headers of the one that succeeded.
    pub first_byte_s: Option<f64>,
    /// From the first request to the first text or tool-call event.
    pub first_token_s: Option<f64>,
    /// From the first request to the end of the stream.
    pub total_s: f64,
}

/// A whole answer: the events of one stream, added up.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Completion {
    pub id: Option<String>,
    /// The model that answered, as the server named it.
    pub model: Option<String>,
    pub text: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// `None` when the stream ended without saying why (a server that cut the answer short).
    pub finish_reason: Option<FinishReason>,
    /// `None` when the server sent no counts.
    pub usage: Option<Usage>,
    pub timing: Timing,
}

impl Completion {
    /// The answer as the assistant message a fork appends to its context.
    pub fn to_message(&self) -> Message {
        let mut message = Message::assistant(self.text.clone());
        message.tool_calls = self.tool_calls.clone();
        message
    }

    /// Adds one event. The decoders report tool calls done in index order, so they are appended.
    pub fn apply(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::Started { id, model } => {
                self.id = self.id.take().or_else(|| id.clone());
                self.model = self.model.take().or_else(|| model.clone());
            }
            StreamEvent::TextDelta { text } => self.text.push_str(text),
            StreamEvent::ReasoningDelta { text } => self.reasoning.push_str(text),
            StreamEvent::ToolCallStarted { .. } | StreamEvent::ToolCallDelta { .. } => {}
            StreamEvent::ToolCallDone { call, .. } => self.tool_calls.push(call.clone()),
            StreamEvent::Usage { usage } => self.usage = Some(*usage),
            StreamEvent::Finished { reason } => self.finish_reason = Some(reason.clone()),
        }
    }

    /// True once any text or tool call arrived: after that a failed stream cannot be retried
    /// without the consumer seeing the answer twice.
    pub fn has_content(&self) -> bool {
        !self.text.is_empty() || !self.reasoning.is_empty() || !self.tool_calls.is_empty()
    }
}

impl StreamEvent {
    /// True for events that carry part of the answer (used for time to first token).
    pub fn is_content(&self) -> bool {
        matches!(
            self,
            StreamEvent::TextDelta { .. }
                | StreamEvent::ReasoningDelta { .. }
                | StreamEvent::ToolCallStarted { .. }
                | StreamEvent::ToolCallDelta { .. }
                | StreamEvent::ToolCallDone { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_add_up_to_a_message() {
        let mut completion = Completion::default();
        for event in [
            StreamEvent::Started {
                id: Some("c1".into()),
                model: Some("m".into()),
            },
            StreamEvent::TextDelta {
                text: "Let me ".into(),
            },
            StreamEvent::TextDelta {
                text: "look.".into(),
            },
            StreamEvent::ToolCallDone {
                index: 0,
                call: ToolCall::new("a", "{\"x\":1}"),
            },
            StreamEvent::ToolCallDone {
                index: 1,
                call: ToolCall::new("b", "{}"),
            },
            StreamEvent::Finished {
                reason: FinishReason::ToolCalls,
            },
        ] {
            completion.apply(&event);
        }
        let message = completion.to_message();
        assert_eq!(message.content, "Let me look.");
        let names: Vec<_> = message.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(completion.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(completion.id.as_deref(), Some("c1"));
    }

    #[test]
    fn finish_reasons_of_both_apis() {
        assert_eq!(FinishReason::from_anthropic("end_turn"), FinishReason::Stop);
        assert_eq!(
            FinishReason::from_anthropic("tool_use"),
            FinishReason::ToolCalls
        );
        assert_eq!(FinishReason::from_openai("length"), FinishReason::Length);
        assert_eq!(
            FinishReason::from_openai("eos").as_str(),
            "eos",
            "unknown reasons are kept verbatim"
        );
    }
}
