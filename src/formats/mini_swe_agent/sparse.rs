//! A mini-swe-agent file read for a tally only, from its raw bytes: the messages are walked
//! with [`crate::formats::raw_json`], and each observation's text (a tool message's content,
//! or the user message answering a text-mode step) is handed to the caller's `look` on its
//! raw, still escaped bytes, as the SWE-agent sparse read does ([`crate::formats::Wanted`]),
//! and left empty in the step unless the caller asks for it. Tool messages' `extra` (a
//! copy of the output) and their `tool_calls` are crossed, never decoded. Every other
//! message (the answers, the task, format errors, the exit) is decoded and fed to the same
//! [`Messages`] the whole read feeds, which keeps the steps' state: an observation is fed as
//! a stand-in text of the same emptiness, and its text and exit code are set here.
//!
//! What the raw bytes cannot give exactly as the whole read does is decoded: a step with
//! several observations, a content that is not a string, an exit code the bytes do not tell
//! (`<returncode>` written with a `\uXXXX` or `\/` escape, or with an escape around its
//! number, a text that may start with whitespace or `{`, the JSON observation of the 2.x
//! tool-calling config). Odd shapes (a message that is not an object, a repeated member, a
//! `tool_call_id` that is not text, a key written with an escape) send the file to the
//! whole read.

use super::extra::{Info, Picked};
use super::{Messages, MiniObject, RawMessage, add_observation};
use crate::formats::detect::{format_from_first_key, is_json_lines, kind_from_keys};
use crate::formats::json::{Text, TopKeys, content_text};
use crate::formats::raw_json::{self, Span};
use crate::formats::{Kind, LongText, Look, Skipped, Wanted, detect, unescape_short};
use crate::model::{Format, Role, Trajectory};
use memchr::memmem;
use serde_json::Value;
use std::path::Path;

/// What the raw-byte read made of a file.
pub enum MiniSparse<T> {
    /// The trajectory, its observations left empty where the caller skipped them, and what
    /// the caller made of those.
    Read(Box<Trajectory>, Vec<Skipped<T>>),
    /// A mini-swe-agent file this reader does not give exactly: read it the usual way.
    Whole,
    /// Not a mini-swe-agent file, or one it cannot tell: another reader may take it.
    Other,
}

/// Why the top-level object was not taken.
enum Refused {
    Whole,
    Other,
}

/// One observation of a step: a JSON string's span (quotes included), or a decoded text.
enum Part {
    Raw(Span),
    Text(String),
}

/// The trajectory of `bytes` with its observations decoded only where `wanted` says.
pub fn read<T>(path: &Path, bytes: &[u8], wanted: &Wanted<'_, T>) -> MiniSparse<T> {
    let Some(start) = bytes.iter().position(|b| !b.is_ascii_whitespace()) else {
        return MiniSparse::Other;
    };
    let body = &bytes[start..];
    let mut reader = Reader {
        bytes,
        messages: Messages::new(path, true),
        parts: Vec::new(),
        whole: false,
    };
    let header = match body[0] {
        b'{' if !is_json_lines(body) && format_from_first_key(body).is_none() => {
            match reader.object(start) {
                Ok(header) => Some(header),
                Err(Refused::Whole) => return MiniSparse::Whole,
                Err(Refused::Other) => return MiniSparse::Other,
            }
        }
        // A bare message list is told by markers in its first messages' texts: `detect`
        // reads the list only when one occurs at all (other arrays pay one search).
        b'[' if MARKERS.iter().any(|m| memmem::find(body, m).is_some())
            && matches!(
                detect(path, bytes),
                Ok(Kind::Trajectories(Format::MiniSweAgent))
            ) =>
        {
            let end = raw_json::walk_elements(bytes, start, &mut |at| reader.message(at));
            if !end.is_some_and(|end| raw_json::only_whitespace_after(bytes, end)) {
                return MiniSparse::Whole;
            }
            None
        }
        // The SWE-agent reader takes no array.
        b'[' => return MiniSparse::Whole,
        _ => return MiniSparse::Other,
    };
    reader
        .finish(header, wanted)
        .map_or(MiniSparse::Whole, |(t, skipped)| {
            MiniSparse::Read(Box::new(t), skipped)
        })
}

/// What `detect` looks for in a bare list's first messages to call it mini-swe-agent's.
const MARKERS: [&[u8]; 3] = [
    b"COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    b"MINI_SWE_AGENT_FINAL_OUTPUT",
    b"mswea_bash_command",
];

struct Reader<'a> {
    bytes: &'a [u8],
    messages: Messages,
    /// Each observation fed, with its step.
    parts: Vec<(usize, Part)>,
    /// A message the reader does not take was met.
    whole: bool,
}

/// The spans of the members of a message that the whole read reads.
#[derive(Default)]
struct MessageSpans {
    role: Option<Span>,
    content: Option<Span>,
    tool_call_id: Option<Span>,
    tool_calls: Option<Span>,
    extra: Option<Span>,
}

impl Reader<'_> {
    /// The top-level object at `at`: its messages fed, the rest of what the whole read reads
    /// as its header.
    fn object(&mut self, at: usize) -> Result<MiniObject, Refused> {
        let bytes = self.bytes;
        let (mut keys, mut messages) = (Vec::new(), None);
        let (mut info, mut format, mut id) = (None, None, None);
        let end = raw_json::walk_members(bytes, at, &mut |key, at| {
            let key_text = std::str::from_utf8(key)
                .ok()
                .filter(|k| !k.contains('\\'))?;
            keys.push(key_text.to_string());
            let slot = match key {
                b"messages" if messages.is_none() && bytes[at] == b'[' => {
                    // Read as met when a key before says mini-swe-agent (its writer puts
                    // `info` first), else only once the keys say so (a chat log's are not
                    // decoded for nothing).
                    if info.is_some() || format.is_some() {
                        messages = Some(None);
                        return raw_json::walk_elements(bytes, at, &mut |m| self.message(m));
                    }
                    messages = Some(Some(at));
                    return raw_json::value_end(bytes, at);
                }
                b"messages" => return None,
                b"info" => &mut info,
                b"trajectory_format" => &mut format,
                b"instance_id" => &mut id,
                _ => return raw_json::value_end(bytes, at),
            };
            let end = raw_json::value_end(bytes, at)?;
            slot.replace(at..end).is_none().then_some(end)
        });
        let mini = kind_from_keys(&TopKeys(keys)) == Some(Kind::Trajectories(Format::MiniSweAgent));
        match end {
            Some(end) if mini && raw_json::only_whitespace_after(bytes, end) => {}
            _ if self.whole => return Err(Refused::Whole),
            _ => return Err(Refused::Other),
        }
        if let Some(Some(at)) = messages
            && raw_json::walk_elements(bytes, at, &mut |m| self.message(m)).is_none()
        {
            return Err(Refused::Whole);
        }
        let decode = |span: &Option<Span>| match span {
            Some(s) => serde_json::from_slice::<Option<String>>(&bytes[s.clone()]).ok(),
            None => Some(None),
        };
        let info = match &info {
            Some(s) => serde_json::from_slice::<Picked<Info>>(&bytes[s.clone()]).ok(),
            None => Some(Picked::default()),
        };
        match (info, decode(&format), decode(&id)) {
            (Some(info), Some(trajectory_format), Some(instance_id)) => Ok(MiniObject {
                messages: None,
                info,
                trajectory_format,
                instance_id,
            }),
            _ => Err(Refused::Whole),
        }
    }

    /// Feeds the message at `at`; its end, or `None` (and `whole` set) for a shape this
    /// reader does not take.
    fn message(&mut self, at: usize) -> Option<usize> {
        let taken = self.take_message(at);
        self.whole |= taken.is_none();
        taken
    }

    fn take_message(&mut self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut spans = MessageSpans::default();
        let end = raw_json::members(bytes, at, &mut |key, span| {
            let slot = match key {
                b"role" => &mut spans.role,
                b"content" => &mut spans.content,
                b"tool_call_id" => &mut spans.tool_call_id,
                b"tool_calls" => &mut spans.tool_calls,
                b"extra" => &mut spans.extra,
                _ => return !key.contains(&b'\\'),
            };
            slot.replace(span).is_none()
        })?;
        let role: Text = match &spans.role {
            Some(s) => serde_json::from_slice(&bytes[s.clone()]).ok()?,
            None => Text::default(),
        };
        let observes = role.0 != "exit"
            && self
                .messages
                .observes(Role::parse(&role.0).unwrap_or(Role::User));
        if !observes {
            let raw: RawMessage = serde_json::from_slice(&bytes[at..end]).ok()?;
            self.messages.message(raw);
            return Some(end);
        }
        // The members the whole read decodes and this one skips must read: `tool_calls` and
        // `extra` read from any JSON, `tool_call_id` only from text or null.
        if let Some(s) = &spans.tool_call_id {
            serde_json::from_slice::<Option<String>>(&bytes[s.clone()]).ok()?;
        }
        let part = match spans.content {
            Some(s) if bytes[s.start] == b'"' => Part::Raw(s),
            Some(s) => Part::Text(content_text(&serde_json::from_slice(&bytes[s]).ok()?)),
            None => Part::Text(String::new()),
        };
        // A stand-in as empty as the text, which is what the steps' state reads of it.
        let stand_in = match &part {
            Part::Raw(s) if s.len() > 2 => "…".to_string(),
            Part::Raw(_) => String::new(),
            Part::Text(text) => text.clone(),
        };
        let step = self.messages.open_step()?;
        self.messages.message(RawMessage {
            role,
            content: Value::String(stand_in),
            ..RawMessage::default()
        });
        self.parts.push((step, part));
        Some(end)
    }

    /// The trajectory, each observation set as the whole read sets it or left to the caller.
    fn finish<T>(
        self,
        header: Option<MiniObject>,
        wanted: &Wanted<'_, T>,
    ) -> Option<(Trajectory, Vec<Skipped<T>>)> {
        if self.whole {
            return None;
        }
        let bytes = self.bytes;
        let mut messages = self.messages;
        if let Some(header) = header {
            messages.header(header);
        }
        let mut t = messages.finish().ok()?;
        t.number_steps();
        let mut skipped: Vec<Skipped<T>> = (0..t.steps.len())
            .map(|_| Skipped {
                observation: None,
                thought: None,
                response: None,
                same_observation: false,
            })
            .collect();
        // The raw observation of each step left to the caller, for comparing repeats.
        let mut raw_of: Vec<Option<Span>> = vec![None; t.steps.len()];
        let mut parts = self.parts.into_iter().peekable();
        while let Some((i, first)) = parts.next() {
            let mut more = Vec::new();
            while let Some((_, part)) = parts.next_if(|(j, _)| *j == i) {
                more.push(part);
            }
            let step = t.steps.get_mut(i)?;
            match (first, more.is_empty()) {
                // Fed whole already.
                (Part::Text(_), true) => {}
                (Part::Raw(span), true) => {
                    let inside = &bytes[span.start + 1..span.end - 1];
                    let code = raw_exit_code(inside);
                    let look = match code {
                        Some(_) => (wanted.look)(LongText::Observation, inside)?,
                        None => Look::Decode,
                    };
                    step.observation.clear();
                    step.exit_code = None;
                    match look {
                        Look::Decode => add_observation(step, &string(bytes, &span)?),
                        Look::Skip(made) => {
                            step.exit_code = code.flatten();
                            skipped[i].observation = Some(made);
                            raw_of[i] = Some(span);
                        }
                    }
                }
                (first, false) => {
                    step.observation.clear();
                    step.exit_code = None;
                    for part in std::iter::once(first).chain(more) {
                        let text = match part {
                            Part::Raw(span) => string(bytes, &span)?,
                            Part::Text(text) => text,
                        };
                        add_observation(step, &text);
                    }
                }
            }
        }
        if wanted.repeated_observations {
            for i in 1..t.steps.len() {
                if t.steps[i - 1].action.trim() == t.steps[i].action.trim() {
                    let text = |j: usize| match &raw_of[j] {
                        Some(span) => string(bytes, span),
                        None => Some(t.steps[j].observation.clone()),
                    };
                    skipped[i].same_observation = match (&raw_of[i - 1], &raw_of[i]) {
                        (Some(a), Some(b)) if one_way(&bytes[a.clone()], &bytes[b.clone()]) => {
                            bytes[a.clone()] == bytes[b.clone()]
                        }
                        _ => text(i - 1)? == text(i)?,
                    };
                }
            }
        }
        Some((t, skipped))
    }
}

/// The text of the JSON string at `span`, as serde decodes it.
fn string(bytes: &[u8], span: &Span) -> Option<String> {
    let raw = &bytes[span.clone()];
    unescape_short(&raw[1..raw.len() - 1]).or_else(|| serde_json::from_slice(raw).ok())
}

/// Whether two strings' raw bytes are equal exactly when their texts are: neither writes a
/// character as `\uXXXX` nor `/` as `\/` (every other character has one way of being
/// written).
fn one_way(a: &[u8], b: &[u8]) -> bool {
    let plain =
        |raw: &[u8]| memmem::find(raw, b"\\u").is_none() && memmem::find(raw, b"\\/").is_none();
    plain(a) && plain(b)
}

const OPEN: &[u8] = b"<returncode>";
const CLOSE: &[u8] = b"</returncode>";

/// The exit code the whole read finds in the observation whose raw bytes (between the
/// quotes) are `raw` (`super::return_code`), when the raw bytes tell it; `None` when the
/// text must be decoded to tell.
fn raw_exit_code(raw: &[u8]) -> Option<Option<i64>> {
    let Some(&first) = raw.first() else {
        return Some(None);
    };
    // A text that may start with whitespace or `{` once decoded may be the JSON form.
    if !first.is_ascii() || first <= b' ' || matches!(first, b'{' | b'\\') {
        return None;
    }
    // A `\uXXXX` or `\/` may write a character of the markup: the decoded text may hold
    // markup the raw bytes do not show.
    let hidden =
        |part: &[u8]| memmem::find(part, b"\\u").is_some() || memmem::find(part, b"\\/").is_some();
    let none = |raw: &[u8]| if hidden(raw) { None } else { Some(None) };
    let Some(open) = memmem::find(raw, OPEN) else {
        return none(raw);
    };
    let start = open + OPEN.len();
    let Some(close) = memmem::find(&raw[start..], CLOSE).map(|i| start + i) else {
        return none(raw);
    };
    let number = &raw[start..close];
    if hidden(&raw[..close + CLOSE.len()]) || number.contains(&b'\\') {
        return None;
    }
    Some(std::str::from_utf8(number).ok()?.trim().parse().ok())
}

#[cfg(test)]
mod tests;
