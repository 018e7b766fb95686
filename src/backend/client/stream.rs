//! An answer being streamed: pull events with [`CompletionStream::next`]; what has arrived so
//! far is always in [`CompletionStream::completion`], also after an error, so a fork can record
//! a partial answer. Dropping the stream closes the connection.

use super::super::decode::{DecodeError, StreamDecoder, decode_whole};
use super::super::error::{BackendError, Failure, TimeoutPhase};
use super::super::event::{Completion, StreamEvent};
use super::call::{Call, chain};
use std::collections::VecDeque;
use tokio::time::{sleep_until, timeout};

/// The most of a non-streamed JSON body accepted.
const WHOLE_BODY_LIMIT: usize = 64 << 20;

/// A completion in flight.
pub struct CompletionStream {
    call: Call,
    response: Option<reqwest::Response>,
    /// The server answered with one JSON document instead of an event stream.
    whole: Option<Vec<u8>>,
    decoder: StreamDecoder,
    queue: VecDeque<StreamEvent>,
    /// A failure found while events before it are still queued.
    pending: Option<Failure>,
    completion: Completion,
    finished: bool,
    /// Streamed text and reasoning not shown yet: they may end with the start of the key.
    held_text: String,
    held_reasoning: String,
}

impl std::fmt::Debug for CompletionStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionStream")
            .field("backend", &self.call.backend.name())
            .field("finished", &self.finished)
            .field("completion", &self.completion)
            .finish_non_exhaustive()
    }
}

impl CompletionStream {
    pub(super) async fn open(mut call: Call) -> Result<CompletionStream, BackendError> {
        let response = call.open().await?;
        let kind = call.backend.config().kind;
        let mut stream = CompletionStream {
            call,
            response: None,
            whole: None,
            decoder: StreamDecoder::new(kind),
            queue: VecDeque::new(),
            pending: None,
            completion: Completion::default(),
            finished: false,
            held_text: String::new(),
            held_reasoning: String::new(),
        };
        stream.accept(response);
        Ok(stream)
    }

    fn accept(&mut self, response: reqwest::Response) {
        let is_json = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        self.whole = is_json.then(Vec::new);
        self.decoder = StreamDecoder::new(self.call.backend.config().kind);
        self.queue.clear();
        self.pending = None;
        self.finished = false;
        self.response = Some(response);
    }

    /// The next event; `Ok(None)` once the answer is complete. After an error the stream is
    /// over and [`CompletionStream::completion`] holds what had arrived.
    pub async fn next(&mut self) -> Result<Option<StreamEvent>, BackendError> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                // Everything the server sends is scrubbed of the key, the answer included.
                let Some(event) = self.redact(event) else {
                    continue;
                };
                if event.is_content() && self.completion.timing.first_token_s.is_none() {
                    self.completion.timing.first_token_s =
                        Some(self.call.started.elapsed().as_secs_f64());
                }
                self.completion.apply(&event);
                return Ok(Some(event));
            }
            if let Some(failure) = self.pending.take() {
                self.recover(failure).await?;
                continue;
            }
            if self.finished {
                if let Some(event) = self.flush_held() {
                    self.completion.apply(&event);
                    return Ok(Some(event));
                }
                self.stamp();
                return Ok(None);
            }
            if let Err(failure) = self.read().await {
                self.pending = Some(failure);
            }
        }
    }

    /// `event` without the key; `None` while its text is held back.
    fn redact(&mut self, event: StreamEvent) -> Option<StreamEvent> {
        let backend = &self.call.backend;
        let event = match event {
            StreamEvent::TextDelta { text } => {
                self.held_text.push_str(&text);
                StreamEvent::TextDelta {
                    text: backend.release(&mut self.held_text),
                }
            }
            StreamEvent::ReasoningDelta { text } => {
                self.held_reasoning.push_str(&text);
                StreamEvent::ReasoningDelta {
                    text: backend.release(&mut self.held_reasoning),
                }
            }
            StreamEvent::ToolCallDelta { index, arguments } => StreamEvent::ToolCallDelta {
                index,
                arguments: backend.scrub(&arguments),
            },
            StreamEvent::ToolCallDone { index, mut call } => {
                call.arguments = backend.scrub(&call.arguments);
                call.name = backend.scrub(&call.name);
                StreamEvent::ToolCallDone { index, call }
            }
            other => other,
        };
        match &event {
            StreamEvent::TextDelta { text } | StreamEvent::ReasoningDelta { text }
                if text.is_empty() =>
            {
                None
            }
            _ => Some(event),
        }
    }

    /// The text still held back once the stream is complete.
    fn flush_held(&mut self) -> Option<StreamEvent> {
        let backend = &self.call.backend;
        if !self.held_text.is_empty() {
            let text = backend.flush(&mut self.held_text);
            return Some(StreamEvent::TextDelta { text });
        }
        if !self.held_reasoning.is_empty() {
            let text = backend.flush(&mut self.held_reasoning);
            return Some(StreamEvent::ReasoningDelta { text });
        }
        None
    }

    /// Reads the whole answer.
    pub async fn collect(mut self) -> Result<Completion, BackendError> {
        while self.next().await?.is_some() {}
        Ok(self.completion)
    }

    /// The answer so far (all of it once [`CompletionStream::next`] returned `Ok(None)`).
    pub fn completion(&self) -> &Completion {
        &self.completion
    }

    pub fn into_completion(self) -> Completion {
        self.completion
    }

    /// Sends the request again when the stream failed before any of the answer arrived and
    /// the failure is one that may pass; otherwise ends the stream with the error.
    async fn recover(&mut self, failure: Failure) -> Result<(), BackendError> {
        self.response = None;
        let transient = match &failure {
            Failure::Interrupted { .. } => true,
            Failure::Timeout { phase, .. } => *phase == TimeoutPhase::Read,
            // Anthropic reports overload as an error event in an accepted stream.
            Failure::Decode(DecodeError::Server { message }) => {
                message.contains("overloaded") || message.contains("rate_limit")
            }
            _ => false,
        };
        if !transient || self.completion.has_content() {
            return Err(self.fail(failure));
        }
        if let Err(error) = self.call.pause(failure, None).await {
            return Err(self.end(error));
        }
        match self.call.open().await {
            Ok(response) => {
                self.completion = Completion::default();
                self.held_text.clear();
                self.held_reasoning.clear();
                self.accept(response);
                Ok(())
            }
            Err(error) => Err(self.end(error)),
        }
    }

    /// Reads one chunk of the body into the queue.
    async fn read(&mut self) -> Result<(), Failure> {
        let Some(response) = self.response.as_mut() else {
            self.finished = true;
            return Ok(());
        };
        let read = self.call.backend.config().timeouts.read();
        let chunk = tokio::select! {
            biased;
            () = self.call.cancel.cancelled() => return Err(Failure::Cancelled),
            () = sleep_until(self.call.deadline) => return Err(self.call.total_timeout()),
            result = timeout(read, response.chunk()) => result,
        };
        let chunk = match chunk {
            Err(_) => {
                return Err(Failure::Timeout {
                    phase: TimeoutPhase::Read,
                    after: read,
                });
            }
            Ok(Err(error)) => {
                let message = self.call.backend.scrub(&chain(&error));
                return Err(Failure::Interrupted { message });
            }
            Ok(Ok(chunk)) => chunk,
        };
        let mut out = Vec::new();
        let result = match (chunk, &mut self.whole) {
            (Some(bytes), Some(whole)) => {
                whole.extend_from_slice(&bytes);
                if whole.len() > WHOLE_BODY_LIMIT {
                    Err(Failure::Interrupted {
                        message: format!("a JSON answer larger than {WHOLE_BODY_LIMIT} bytes"),
                    })
                } else {
                    Ok(())
                }
            }
            (Some(bytes), None) => {
                let fed = self.decoder.feed(&bytes, &mut out);
                match fed {
                    Ok(()) if self.decoder.is_done() => self.finish_body(&mut out),
                    other => other.map_err(|e| self.decode_failure(e)),
                }
            }
            (None, Some(whole)) => {
                let kind = self.call.backend.config().kind;
                let decoded = decode_whole(kind, whole);
                self.finished = true;
                self.response = None;
                decoded
                    .map(|events| out.extend(events))
                    .map_err(|e| self.decode_failure(e))
            }
            (None, None) => self.finish_body(&mut out),
        };
        self.queue.extend(out);
        result
    }

    /// The end marker came or the body ended: flush the decoder, drop the connection.
    fn finish_body(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), Failure> {
        self.finished = true;
        self.response = None;
        self.decoder.finish(out).map_err(|e| self.decode_failure(e))
    }

    fn decode_failure(&self, error: DecodeError) -> Failure {
        match error {
            DecodeError::Truncated { expected } => Failure::Interrupted {
                message: format!("the server closed the connection before {expected}"),
            },
            DecodeError::Server { message } => Failure::Decode(DecodeError::Server {
                message: self.call.backend.scrub(&message),
            }),
            DecodeError::Malformed { reason, excerpt } => Failure::Decode(DecodeError::Malformed {
                reason,
                excerpt: self.call.backend.scrub(&excerpt),
            }),
            other => Failure::Decode(other),
        }
    }

    fn fail(&mut self, failure: Failure) -> BackendError {
        let error = self.call.error(failure);
        self.end(error)
    }

    fn end(&mut self, error: BackendError) -> BackendError {
        self.finished = true;
        self.response = None;
        self.queue.clear();
        // What was held back belongs to the partial answer a fork records.
        while let Some(event) = self.flush_held() {
            self.completion.apply(&event);
        }
        self.stamp();
        error
    }

    fn stamp(&mut self) {
        let timing = &mut self.completion.timing;
        timing.attempts = self.call.attempts;
        timing.first_byte_s = self.call.first_byte.map(|d| d.as_secs_f64());
        timing.total_s = self.call.started.elapsed().as_secs_f64();
    }
}
