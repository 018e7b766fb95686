//! Running a replay against a live backend: [`resample`] streams one answer to a context;
//! [`run_live`] performs the instructions of an [`AgentLoop`] — requests through the backend,
//! actions through the [`Executor`], steps into the [`ForkWriter`] — until it finishes.
//!
//! Cancelling the token stops a stream at once (the backend closes the connection); a running
//! action finishes first (its own timeout bounds it). Either way the fork on disk holds every
//! completed step and the one in flight, marked failed, and the exit status `Cancelled`.

use super::agent::{AgentLoop, Answer, Event, Exit, Instruction};
use super::executor::Executor;
use super::fork::{ForkError, ForkWriter, LiveStep};
use crate::backend::{
    Backend, BackendError, CancellationToken, Completion, CompletionRequest, StreamEvent, Timing,
    ToolChoice, ToolSpec,
};
use crate::model::{Message, Usage};
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Instant;

/// What the live driver reports as it goes (a request out, streamed text, a finished step).
#[derive(Debug)]
pub enum LiveEvent<'a> {
    /// A request for live step `step` (1-based, counted from the fork point) goes out.
    Asking { step: usize },
    /// Streamed answer text.
    Delta(&'a str),
    /// A step is complete and written.
    Step(&'a LiveStep),
}

/// One request's figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RequestStats {
    pub timing: Timing,
    /// Streamed text pieces (llama.cpp servers send one token per piece).
    pub pieces: usize,
    pub chars: usize,
    /// Output tokens as the server counted them, when it sent usage.
    pub tokens_out: Option<u64>,
}

impl RequestStats {
    fn of(completion: &Completion, pieces: usize) -> RequestStats {
        RequestStats {
            timing: completion.timing,
            pieces,
            chars: completion.text.chars().count(),
            tokens_out: completion.usage.and_then(|u| u.tokens_out),
        }
    }

    /// Output tokens (the server's count, else streamed pieces) per second of streaming after
    /// the first token.
    pub fn tokens_per_s(&self) -> Option<f64> {
        let tokens = self.tokens_out.unwrap_or(self.pieces as u64) as f64;
        let first = self.timing.first_token_s?;
        let span = self.timing.total_s - first;
        (span > 0.0 && tokens > 1.0).then(|| (tokens - 1.0) / span)
    }
}

/// How a live run went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveOutcome {
    pub status: &'static str,
    pub detail: String,
    pub submitted: bool,
    /// Live model calls.
    pub steps: usize,
    pub format_errors: usize,
    pub usage: Usage,
    pub requests: Vec<RequestStats>,
}

/// Streams the answer to `request`, reporting text as it arrives. On failure the error comes
/// with what had arrived.
pub async fn resample(
    backend: &Backend,
    request: &CompletionRequest,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(LiveEvent<'_>),
) -> Result<(Completion, RequestStats), (BackendError, Completion)> {
    let mut stream = match backend.stream(request, cancel).await {
        Ok(s) => s,
        Err(e) => return Err((e, Completion::default())),
    };
    let mut pieces = 0;
    loop {
        match stream.next().await {
            Ok(Some(StreamEvent::TextDelta { text })) => {
                pieces += 1;
                progress(LiveEvent::Delta(&text));
            }
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Err((e, stream.completion().clone())),
        }
    }
    let completion = stream.into_completion();
    let stats = RequestStats::of(&completion, pieces);
    Ok((completion, stats))
}

/// The request for `messages` with the agent's tools.
pub fn request_for(messages: Vec<Message>, tools: &[ToolSpec]) -> CompletionRequest {
    let choice = (!tools.is_empty()).then_some(ToolChoice::Auto);
    CompletionRequest::new(messages).with_tools(tools.to_vec(), choice)
}

/// Runs `agent` to its end. `Err` only when the fork cannot be written; everything else (a
/// failing backend, a broken environment, a cancel) ends the run with a status in the fork.
/// `edited`, when given, is the first answer: written by hand, executed like the model's,
/// and marked `edited` in the fork; the model answers from the next step on.
#[allow(clippy::too_many_arguments)]
pub async fn run_live(
    backend: &Backend,
    mut agent: AgentLoop,
    tools: &[ToolSpec],
    executor: &mut Executor,
    writer: &mut ForkWriter,
    mut edited: Option<Message>,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(LiveEvent<'_>),
) -> Result<LiveOutcome, ForkError> {
    let started = Instant::now();
    let mut usage = Usage::default();
    let mut requests = Vec::new();
    let mut instructions: VecDeque<Instruction> =
        agent.update(Event::Start, started.elapsed()).into();
    let mut edited_step = false;
    while let Some(instruction) = instructions.pop_front() {
        let event = match instruction {
            Instruction::SendRequest(_) if edited.is_some() => {
                progress(LiveEvent::Asking {
                    step: agent.steps() + 1,
                });
                edited_step = true;
                let message = edited.take().unwrap_or_else(|| Message::assistant(""));
                progress(LiveEvent::Delta(&message.content));
                Event::Answered(Answer {
                    message,
                    usage: Usage::default(),
                    duration_s: 0.0,
                })
            }
            Instruction::SendRequest(messages) => {
                progress(LiveEvent::Asking {
                    step: agent.steps() + 1,
                });
                let request = request_for(messages, tools);
                let asked = Instant::now();
                match resample(backend, &request, cancel, progress).await {
                    Ok((completion, stats)) => {
                        requests.push(stats);
                        let mut step_usage = completion.usage.unwrap_or_default();
                        step_usage.api_calls = Some(1);
                        usage.add(&step_usage);
                        Event::Answered(Answer {
                            message: completion.to_message(),
                            usage: step_usage,
                            duration_s: asked.elapsed().as_secs_f64(),
                        })
                    }
                    Err((error, partial)) => {
                        let partial = Some(partial.to_message());
                        if error.is_cancelled() || cancel.is_cancelled() {
                            Event::Cancelled { partial }
                        } else {
                            Event::BackendFailed {
                                error: error.to_string(),
                                partial,
                            }
                        }
                    }
                }
            }
            Instruction::Execute(calls) => {
                if cancel.is_cancelled() {
                    Event::Cancelled { partial: None }
                } else {
                    let mut observations = Vec::new();
                    let mut failure = None;
                    for call in &calls {
                        match executor.execute(&call.action) {
                            Ok(obs) => observations.push(obs),
                            Err(e) => {
                                failure = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    match failure {
                        Some(error) => Event::ExecFailed(error),
                        None => Event::Executed(observations),
                    }
                }
            }
            Instruction::WriteFork(mut step) => {
                step.edited = std::mem::take(&mut edited_step);
                let shown = (*step).clone();
                writer.push_step(*step)?;
                progress(LiveEvent::Step(&shown));
                continue;
            }
            Instruction::Finish(Exit {
                status,
                submission,
                detail,
            }) => {
                let submitted = status == "Submitted";
                writer.record_end(status, &detail);
                writer.finish(status, submission)?;
                return Ok(LiveOutcome {
                    status,
                    detail,
                    submitted,
                    steps: agent.steps(),
                    format_errors: agent.format_errors(),
                    usage,
                    requests,
                });
            }
        };
        instructions.extend(agent.update(event, started.elapsed()));
    }
    // The machine always ends with Finish; an empty queue means it was already done.
    writer.record_end(
        "EnvironmentError",
        "the agent loop stopped without finishing",
    );
    writer.finish("EnvironmentError", None)?;
    Ok(LiveOutcome {
        status: "EnvironmentError",
        detail: "the agent loop stopped without finishing".into(),
        submitted: false,
        steps: agent.steps(),
        format_errors: agent.format_errors(),
        usage,
        requests,
    })
}
