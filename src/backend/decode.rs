//! Bytes of a response body → [`StreamEvent`]s, for either wire protocol. Sans-IO: the HTTP
//! client feeds chunks as they arrive and the fuzzer feeds arbitrary bytes; neither can make it
//! panic.

use super::event::StreamEvent;
use super::kind::BackendKind;
use super::sse::{SseDecoder, SseError, SseEvent};
use super::{anthropic, openai};
use thiserror::Error;

/// The body could not be read as the protocol says.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    #[error("malformed event ({reason}): {excerpt}")]
    Malformed { reason: String, excerpt: String },
    #[error("the server sent an error in the stream: {message}")]
    Server { message: String },
    #[error("the stream ended before {expected}")]
    Truncated { expected: &'static str },
    #[error(transparent)]
    Sse(#[from] SseError),
}

impl DecodeError {
    pub(crate) fn malformed(reason: impl std::fmt::Display, data: &str) -> DecodeError {
        DecodeError::Malformed {
            reason: reason.to_string(),
            excerpt: excerpt(data),
        }
    }
}

/// The first 200 characters of `data`, for error messages.
pub(crate) fn excerpt(data: &str) -> String {
    const MAX: usize = 200;
    match data.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &data[..cut]),
        None => data.to_string(),
    }
}

/// The protocol decoder, fed one server-sent event at a time.
#[derive(Debug)]
enum Wire {
    OpenAi(openai::StreamDecoder),
    Anthropic(anthropic::StreamDecoder),
}

impl Wire {
    fn on_event(&mut self, e: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        match self {
            Wire::OpenAi(d) => d.on_event(e, out),
            Wire::Anthropic(d) => d.on_event(e, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        match self {
            Wire::OpenAi(d) => d.finish(out),
            Wire::Anthropic(d) => d.finish(out),
        }
    }

    fn is_done(&self) -> bool {
        match self {
            Wire::OpenAi(d) => d.is_done(),
            Wire::Anthropic(d) => d.is_done(),
        }
    }
}

/// Event-stream bytes → stream events, for one response.
#[derive(Debug)]
pub struct StreamDecoder {
    sse: SseDecoder,
    wire: Wire,
    scratch: Vec<SseEvent>,
}

impl StreamDecoder {
    pub fn new(kind: BackendKind) -> StreamDecoder {
        let wire = match kind {
            BackendKind::OpenAi => Wire::OpenAi(openai::StreamDecoder::default()),
            BackendKind::Anthropic => Wire::Anthropic(anthropic::StreamDecoder::default()),
        };
        StreamDecoder {
            sse: SseDecoder::new(),
            wire,
            scratch: Vec::new(),
        }
    }

    /// Feeds the next chunk of the body; events it completes are appended to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        self.sse.feed(bytes, &mut self.scratch)?;
        self.drain(out)
    }

    /// The body ended. Errors when the protocol's end marker (`[DONE]`, `message_stop`) never
    /// came, so a dropped connection is never mistaken for a finished answer.
    pub fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        self.sse.finish(&mut self.scratch);
        self.drain(out)?;
        self.wire.finish(out)
    }

    /// The end marker has been seen: anything after it is ignored.
    pub fn is_done(&self) -> bool {
        self.wire.is_done()
    }

    fn drain(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), DecodeError> {
        for event in self.scratch.drain(..) {
            self.wire.on_event(&event, out)?;
        }
        Ok(())
    }
}

/// A whole non-streamed JSON response (a server that ignored `"stream": true`) → events.
pub fn decode_whole(kind: BackendKind, body: &[u8]) -> Result<Vec<StreamEvent>, DecodeError> {
    let text = String::from_utf8_lossy(body);
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| DecodeError::malformed(e, &text))?;
    match kind {
        BackendKind::OpenAi => openai::decode_whole(&value),
        BackendKind::Anthropic => anthropic::decode_whole(&value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::event::FinishReason;

    #[test]
    fn both_wires_through_one_door() {
        let mut out = Vec::new();
        let mut openai = StreamDecoder::new(BackendKind::OpenAi);
        openai
            .feed(
                b"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
                &mut out,
            )
            .unwrap();
        assert!(openai.is_done());
        openai.finish(&mut out).unwrap();
        assert!(out.contains(&StreamEvent::Finished {
            reason: FinishReason::Stop
        }));

        let mut anthropic = StreamDecoder::new(BackendKind::Anthropic);
        anthropic
            .feed(b"event: ping\ndata: {\"type\":\"ping\"}\n\n", &mut out)
            .unwrap();
        assert_eq!(
            anthropic.finish(&mut out),
            Err(DecodeError::Truncated {
                expected: "message_stop"
            })
        );
    }

    #[test]
    fn excerpts_are_short_and_cut_on_characters() {
        let long = "é".repeat(500);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), 201);
        assert!(cut.ends_with('…'));
    }
}
