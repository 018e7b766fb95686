//! A mini-swe-agent trajectory (a `.traj.json` object or a bare message list) summarised for
//! a listing (`ls`, the run cache) from its raw bytes: what [`Messages`](super::Messages)
//! builds, reduced to what [`TrajectorySummary::of`] reads of it (the steps, their usage, the
//! last one's action, the error steps, the exit, the submission, the model, the warnings).
//!
//! The messages are walked by [`raw_json`] and followed step by step as the whole read
//! follows them. Decoded: roles, an answer's `tool_calls` (whether it has any), the cost and
//! usage in `extra` ([`members`]), `info`'s exit, submission, `model_stats` and model name,
//! the exit messages' status (and submission when none is known yet), and the last answer
//! whole (its action may name a forced exit). Read on their raw bytes: observations (the
//! return code and the error markers, [`observation`]). Crossed without being decoded: the
//! tool messages' `extra` (`raw_output`, a copy of the content), the answers' `response`
//! but for its `usage`, `info.config` but for the model name, the task, the system prompt.
//!
//! Anything this reader cannot give exactly gives `None`, and the file is read the usual way:
//! invalid UTF-8, a file detection would not call mini-swe-agent, messages that are not
//! objects, repeated members, keys with escapes, fields of a type serde would refuse, a file
//! without messages. Like the SWE-agent raw summary it does not check the inside of the
//! strings it crosses undecoded: such a file is listed here and refused by the whole read.

mod members;
mod observation;
mod patch;

use super::{RawMessage, step_from_answer, to_message};
use crate::formats::detect::{Kind, detect, object_kind};
use crate::formats::json::{Text, TopKeys};
use crate::formats::raw_json::{self, Span, unescape_short};
use crate::model::{
    Exactness, Format, Role, Step, StepContext, Trajectory, TrajectorySummary, Usage,
};
use members::Extra;
use observation::Piece;
use serde::de::DeserializeOwned;
use std::path::Path;

/// The summary of the mini-swe-agent trajectory in `bytes`; `None` when it is not one this
/// reader gives exactly (read it the usual way).
pub fn summary(path: &Path, bytes: &[u8]) -> Option<TrajectorySummary> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if !raw_json::is_utf8(bytes) {
        return None;
    }
    let mut walk = Walk::new(bytes);
    let (end, header) = match bytes[start] {
        b'{' => {
            let (end, header) = walk.object(start)?;
            (end, Some(header))
        }
        b'[' => (
            raw_json::walk_elements(bytes, start, &mut |at| walk.message(at))?,
            None,
        ),
        _ => return None,
    };
    if !raw_json::only_whitespace_after(bytes, end) {
        return None;
    }
    let kind = match &header {
        Some(header) => object_kind(&bytes[start..], &header.keys),
        None => detect(path, bytes).ok(),
    };
    if !matches!(kind, Some(Kind::Trajectories(Format::MiniSweAgent))) {
        return None;
    }
    walk.finish(path, header)
}

/// The top-level members a `.traj.json` object is summarised with, besides its messages.
struct Header {
    keys: TopKeys,
    info: Option<Span>,
    trajectory_format: Option<Span>,
    instance_id: Option<Span>,
}

/// The answer whose observations are still coming.
struct Answer {
    usage: Usage,
    exit_code: Option<i64>,
    observation: Option<Piece>,
    /// The message, decoded whole if it turns out to be the last step.
    message: Span,
}

/// A step as the summary keeps it.
struct Done {
    usage: Usage,
    error: bool,
    /// The answer's message; `None` for a rejected model call (no action).
    message: Option<Span>,
}

/// The messages so far, followed as [`Messages`](super::Messages) follows them.
struct Walk<'a> {
    bytes: &'a [u8],
    seen: usize,
    seen_task: bool,
    tool_mode_step: bool,
    step: Option<Answer>,
    steps: Vec<Done>,
    /// Each `exit` message's `content` and `extra`, read after `info` as the whole read does.
    exits: Vec<(Option<Span>, Extra)>,
    warnings: Vec<String>,
}

impl<'a> Walk<'a> {
    fn new(bytes: &'a [u8]) -> Walk<'a> {
        Walk {
            bytes,
            seen: 0,
            seen_task: false,
            tool_mode_step: false,
            step: None,
            steps: Vec::new(),
            exits: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The `.traj.json` object at `start`: its messages followed as they are met, the other
    /// members the summary reads kept as spans, and every key (detection reads them).
    fn object(&mut self, start: usize) -> Option<(usize, Header)> {
        let bytes = self.bytes;
        let mut keys = Vec::new();
        let mut messages = false;
        let mut spans: [Option<Span>; 3] = [None, None, None];
        let end = raw_json::walk_members(bytes, start, &mut |key, at| {
            if key.contains(&b'\\') {
                return None;
            }
            keys.push(std::str::from_utf8(key).ok()?.to_string());
            let slot = match key {
                b"messages" => {
                    if std::mem::replace(&mut messages, true) {
                        return None;
                    }
                    if bytes[at..].starts_with(b"null") {
                        let end = raw_json::value_end(bytes, at)?;
                        return (end == at + 4).then_some(end);
                    }
                    return raw_json::walk_elements(bytes, at, &mut |at| self.message(at));
                }
                b"info" => 0,
                b"trajectory_format" => 1,
                b"instance_id" => 2,
                _ => return raw_json::value_end(bytes, at),
            };
            let end = raw_json::value_end(bytes, at)?;
            spans[slot].replace(at..end).is_none().then_some(end)
        })?;
        let [info, trajectory_format, instance_id] = spans;
        let header = Header {
            keys: TopKeys(keys),
            info,
            trajectory_format,
            instance_id,
        };
        Some((end, header))
    }

    /// One message at `at`, as `Messages::message` reads it; its end.
    fn message(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut spans: [Option<Span>; 4] = Default::default();
        let mut extra = None;
        let end = raw_json::walk_members(bytes, at, &mut |key, at| {
            let slot = match key {
                b"role" => 0,
                b"content" => 1,
                b"tool_calls" => 2,
                b"tool_call_id" => 3,
                b"extra" => {
                    let (end, read) = members::extra(bytes, at)?;
                    return extra.replace(read).is_none().then_some(end);
                }
                _ if key.contains(&b'\\') => return None,
                _ => return raw_json::value_end(bytes, at),
            };
            let end = raw_json::value_end(bytes, at)?;
            spans[slot].replace(at..end).is_none().then_some(end)
        })?;
        let [role, content, tool_calls, tool_call_id] = spans;
        let extra = extra.unwrap_or_default();
        // `tool_call_id` is an `Option<String>`: serde refuses any other type.
        if tool_call_id
            .as_ref()
            .is_some_and(|s| bytes[s.start] != b'"' && &bytes[s.clone()] != b"null")
        {
            return None;
        }
        let role = match &role {
            Some(s) => text(bytes, s)?,
            None => String::new(),
        };
        self.seen += 1;
        if role == "exit" {
            self.exits.push((content, extra));
            return Some(end);
        }
        match Role::parse(&role).unwrap_or(Role::User) {
            Role::Assistant => {
                self.finish_step()?;
                self.tool_mode_step = match &tool_calls {
                    Some(s) => members::has_tool_call(bytes, s)?,
                    None => false,
                };
                self.step = Some(Answer {
                    usage: members::usage(bytes, &extra)?,
                    exit_code: None,
                    observation: None,
                    message: at..end,
                });
            }
            Role::Tool => match self.step.as_mut() {
                Some(answer) => answer.observe(bytes, Piece::of(bytes, content.as_ref())?)?,
                None => self
                    .warnings
                    .push("a tool message before any answer".into()),
            },
            Role::User if !self.seen_task => self.seen_task = true,
            Role::User => {
                let tool_mode = self.tool_mode_step;
                match self.step.as_mut() {
                    Some(answer) if !tool_mode && answer.observation.is_none() => {
                        answer.observe(bytes, Piece::of(bytes, content.as_ref())?)?;
                    }
                    _ => {
                        // A rejected model call: a failed step of its own, an error step.
                        self.finish_step()?;
                        self.tool_mode_step = false;
                        self.steps.push(Done {
                            usage: members::usage(bytes, &extra)?,
                            error: true,
                            message: None,
                        });
                    }
                }
            }
            Role::System => {}
        }
        Some(end)
    }

    /// Closes the open answer: an error step when its return code is not 0 or its
    /// observation reads like an error.
    fn finish_step(&mut self) -> Option<()> {
        if let Some(answer) = self.step.take() {
            let error = answer.exit_code.is_some_and(|c| c != 0)
                || observation::reads_as_error(self.bytes, answer.observation.as_ref())?;
            self.steps.push(Done {
                usage: answer.usage,
                error,
                message: Some(answer.message),
            });
        }
        Some(())
    }

    /// The trajectory `Messages::finish` would give, with steps that hold only what the
    /// summary reads, summarised.
    fn finish(mut self, path: &Path, header: Option<Header>) -> Option<TrajectorySummary> {
        if self.seen == 0 {
            return None;
        }
        self.finish_step()?;
        let bytes = self.bytes;
        let mut trajectory = Trajectory::new(path, Format::MiniSweAgent);
        trajectory.warnings = self.warnings;
        trajectory.steps = self
            .steps
            .iter()
            .map(|done| Step {
                usage: done.usage,
                ..Step::default()
            })
            .collect();
        if let (
            Some(step),
            Some(Done {
                message: Some(span),
                ..
            }),
        ) = (trajectory.steps.last_mut(), self.steps.last())
        {
            let raw: RawMessage = decode(bytes, span)?;
            let context = StepContext::prefix(Exactness::Exact, 0);
            step.action = step_from_answer(&raw, &to_message(&raw), context).action;
        }
        let info = match header {
            Some(header) => {
                let format = optional(bytes, header.trajectory_format.as_ref())?;
                trajectory.format_detail = format
                    .map(|f| f.trim_start_matches("mini-swe-agent-").to_string())
                    .or_else(|| Some("1".into()));
                let id: Option<String> = optional(bytes, header.instance_id.as_ref())?;
                if let Some(id) = id.filter(|id| !id.is_empty()) {
                    trajectory.instance_id = id;
                }
                header.info
            }
            None => {
                trajectory.format_detail = Some("message list".into());
                None
            }
        };
        let mut outcome = members::read_info(bytes, &mut trajectory, info.as_ref())?;
        for (content, extra) in &self.exits {
            let content = content.as_ref();
            members::read_exit(bytes, &mut trajectory, &mut outcome, content, extra)?;
        }
        trajectory.model = outcome.model;
        let mut summary = TrajectorySummary::of(&trajectory);
        // The steps' decisions and the submission's lines, counted on the raw bytes (the
        // trajectory holds neither the observations nor the submission).
        summary.error_steps = self.steps.iter().filter(|done| done.error).count();
        summary.patch_lines = outcome.patch_lines.unwrap_or(0);
        Some(summary)
    }
}

impl Answer {
    /// One observation message's content added, as `add_observation` adds it.
    fn observe(&mut self, bytes: &[u8], piece: Piece) -> Option<()> {
        if self.exit_code.is_none() {
            self.exit_code = piece.return_code(bytes)?;
        }
        observation::add(bytes, &mut self.observation, piece)
    }
}

/// The text of a member read as [`Text`] (a string by hand in its common form).
fn text(bytes: &[u8], span: &Span) -> Option<String> {
    if bytes[span.start] == b'"'
        && let Some(text) = unescape_short(&bytes[span.start + 1..span.end - 1])
    {
        return Some(text);
    }
    decode::<Text>(bytes, span).map(|t| t.0)
}

/// An `Option<String>` member (absent or `null`: `None`); `None` when serde refuses it.
fn optional(bytes: &[u8], span: Option<&Span>) -> Option<Option<String>> {
    match span {
        Some(s) => decode(bytes, s),
        None => Some(None),
    }
}

fn decode<T: DeserializeOwned>(bytes: &[u8], span: &Span) -> Option<T> {
    serde_json::from_slice(&bytes[span.clone()]).ok()
}
