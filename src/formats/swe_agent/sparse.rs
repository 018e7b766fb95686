//! A SWE-agent `.traj` read for a tally only: the steps' long texts (observation, thought,
//! response) are decoded only where the caller, looking at their raw (still escaped) bytes,
//! says it needs them, and left empty elsewhere, with what the caller made of the raw bytes
//! kept beside the step; `history` and the exact contexts are crossed without being decoded
//! or checked. The caller's reading must be exact: `metrics::sparse_tally` counts on the raw
//! bytes what its rules would count on the decoded text.
//!
//! Only what this reader can give exactly as the full read does is read here; anything else
//! gives `None` and the file is read the usual way: history-only files, files whose history
//! messages have a `tool_calls` member (steps take their tool calls from it), duplicate
//! members, odd shapes.

use super::plain::Plain;
use super::{model_name, read_info, tool_of};
use crate::formats::json::Text;
use crate::formats::raw_json::{self, Span};
use crate::formats::{Kind, detect};
use crate::model::{Format, Step, Trajectory};
use serde_json::Value;
use std::path::Path;

/// A step text that may be left undecoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongText {
    Observation,
    Thought,
    Response,
}

/// What the caller makes of a text's raw bytes.
pub enum Look<T> {
    /// Decode the text into the step.
    Decode,
    /// Leave the text empty and keep this beside the step.
    Skip(T),
}

/// What the caller left undecoded of one step's texts, and what it made of them.
pub struct Skipped<T> {
    pub observation: Option<T>,
    pub thought: Option<T>,
    pub response: Option<T>,
    /// The observation is the previous step's, told where the two actions are the same and
    /// the caller wants `repeated_observations` (false elsewhere).
    pub same_observation: bool,
}

/// What to do with a text, given its raw bytes between the quotes; `None` to read the file
/// the usual way.
pub type LookAt<'a, T> = dyn Fn(LongText, &[u8]) -> Option<Look<T>> + Sync + 'a;

/// What the caller needs decoded.
pub struct Wanted<'a, T> {
    pub look: &'a LookAt<'a, T>,
    /// Tell whether two steps in a row with the same action have the same observation (a
    /// sequence rule compares them): from their raw bytes where those decide it.
    pub repeated_observations: bool,
}

#[derive(Default, Clone)]
struct StepSpans {
    action: Option<Span>,
    observation: Option<Span>,
    thought: Option<Span>,
    response: Option<Span>,
    query: bool,
    messages: bool,
}

/// The trajectory of `bytes` with its steps' long texts decoded only where `wanted` says, and
/// per step what the caller made of the others; `None` when the file is not one this reader
/// gives exactly (read it the usual way).
pub fn read<T>(
    path: &Path,
    bytes: &[u8],
    wanted: &Wanted<'_, T>,
) -> Option<(Trajectory, Vec<Skipped<T>>)> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{'
        || !matches!(
            detect(path, bytes),
            Ok(Kind::Trajectories(Format::SweAgent))
        )
    {
        return None;
    }
    let (mut steps, mut history, mut info, mut replay) = (None, None, None, None);
    // The steps are read as the walk meets them (crossed once); the rest kept as spans.
    let end = raw_json::walk_members(bytes, start, &mut |key, at| {
        let slot = match key {
            b"trajectory" => {
                let (end, spans) = step_spans(bytes, at)?;
                return steps.replace(spans).is_none().then_some(end);
            }
            b"history" => {
                let end = history_end(bytes, at)?;
                return history.replace(at..end).is_none().then_some(end);
            }
            b"info" => &mut info,
            b"replay_config" => &mut replay,
            _ if key.contains(&b'\\') => return None,
            _ => return raw_json::value_end(bytes, at),
        };
        let end = raw_json::value_end(bytes, at)?;
        slot.replace(at..end).is_none().then_some(end)
    })?;
    if !raw_json::only_whitespace_after(bytes, end) {
        return None;
    }
    // History must be a list (or absent) for the full read to accept the file.
    if let Some(h) = &history
        && !(bytes[h.start] == b'[' || &bytes[h.clone()] == b"null")
    {
        return None;
    }
    let steps = steps?;
    if steps.is_empty() {
        return None;
    }
    let decode_value = |span: &Option<Span>| -> Option<Value> {
        match span {
            Some(s) => serde_json::from_slice(&bytes[s.clone()]).ok(),
            None => Some(Value::Null),
        }
    };
    let mut t = Trajectory::new(path, Format::SweAgent);
    read_info(&mut t, &decode_value(&info)?);
    t.model = model_name(&decode_value(&replay)?);
    t.format_detail = Some(
        if steps.iter().any(|s| s.query) {
            "1.1+"
        } else if steps.iter().any(|s| s.messages) {
            "1.0"
        } else {
            "0.x"
        }
        .to_string(),
    );
    let (built, skipped) = build_steps(bytes, &steps, wanted)?;
    t.steps = built;
    t.number_steps();
    Some((t, skipped))
}

/// The end of the history at `at`; `None` when one of its messages names `tool_calls` (the
/// steps matched with them take their tool calls from it) or is not an object. Only the
/// messages' own members are looked at: a mention of `tool_calls` in a text or a context
/// (`query`, `messages`) changes no step.
fn history_end(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes[at] != b'[' {
        return raw_json::value_end(bytes, at);
    }
    raw_json::walk_elements(bytes, at, &mut |message| {
        raw_json::members(bytes, message, &mut |key, _| {
            key != b"tool_calls" && !key.contains(&b'\\')
        })
    })
}

/// The end of the list at `at` and the spans of each step's members; `None` when a step is
/// not an object of the shape the full read accepts.
fn step_spans(bytes: &[u8], at: usize) -> Option<(usize, Vec<StepSpans>)> {
    if bytes[at..].starts_with(b"null") {
        let end = raw_json::value_end(bytes, at)?;
        return (end == at + 4).then_some((end, Vec::new()));
    }
    let mut steps = Vec::new();
    let end = raw_json::walk_elements(bytes, at, &mut |element| {
        let mut spans = StepSpans::default();
        let mut query = None;
        let mut messages = None;
        let end = raw_json::members(bytes, element, &mut |key, span| {
            let slot = match key {
                b"action" => &mut spans.action,
                b"observation" => &mut spans.observation,
                b"thought" => &mut spans.thought,
                b"response" => &mut spans.response,
                b"query" => &mut query,
                b"messages" => &mut messages,
                // execution_time is read as any JSON; other members are ignored.
                _ => return !key.contains(&b'\\'),
            };
            slot.replace(span).is_none()
        })?;
        // query and messages are lists of messages or null; only their presence is read.
        let list = |span: &Option<Span>| match span {
            None => Some(false),
            Some(s) if &bytes[s.clone()] == b"null" => Some(false),
            Some(s) if bytes[s.start] == b'[' => Some(true),
            Some(_) => None,
        };
        spans.query = list(&query)?;
        spans.messages = list(&messages)?;
        steps.push(spans);
        Some(end)
    })?;
    Some((end, steps))
}

#[allow(clippy::type_complexity)]
fn build_steps<T>(
    bytes: &[u8],
    spans: &[StepSpans],
    wanted: &Wanted<'_, T>,
) -> Option<(Vec<Step>, Vec<Skipped<T>>)> {
    let mut steps: Vec<Step> = Vec::with_capacity(spans.len());
    let mut skipped: Vec<Skipped<T>> = Vec::with_capacity(spans.len());
    for (i, s) in spans.iter().enumerate() {
        let (thought, thought_skip) = long_text(bytes, &s.thought, LongText::Thought, wanted)?;
        let (response, response_skip) = long_text(bytes, &s.response, LongText::Response, wanted)?;
        let mut step = Step {
            action: text(bytes, &s.action)?,
            thought,
            response,
            ..Step::default()
        };
        let repeated = wanted.repeated_observations
            && i > 0
            && steps[i - 1].action.trim() == step.action.trim();
        let same_observation =
            repeated && same_text(bytes, &spans[i - 1].observation, &s.observation)?;
        let (observation, observation_skip) =
            long_text(bytes, &s.observation, LongText::Observation, wanted)?;
        step.observation = observation;
        step.tool = tool_of(&step);
        steps.push(step);
        skipped.push(Skipped {
            observation: observation_skip,
            thought: thought_skip,
            response: response_skip,
            same_observation,
        });
    }
    Some((steps, skipped))
}

/// A text member decoded as the full read decodes it ([`Text`]: any JSON as text), by hand
/// in its common form ([`Plain`]).
fn text(bytes: &[u8], span: &Option<Span>) -> Option<String> {
    match span {
        None => Some(String::new()),
        Some(s) => Text::plain(&bytes[s.clone()])
            .or_else(|| serde_json::from_slice::<Text>(&bytes[s.clone()]).ok())
            .map(|t| t.0),
    }
}

/// Whether two text members decode to the same text ([`text`]), decided on their raw bytes
/// when both are strings with no `\uXXXX` or `\/` escape: every other character then has
/// one way of being written (a control character, `"` and `\` their short escape, anything
/// else itself), so equal texts are equal bytes. The observations of a repeated action are
/// compared so, and left to the caller's raw count like any other (they were decoded to be
/// compared: 1.5 of the 7.9 MB of observation text of the CodeR run).
fn same_text(bytes: &[u8], a: &Option<Span>, b: &Option<Span>) -> Option<bool> {
    let one_way = |raw: &[u8]| {
        raw.len() >= 2
            && raw[0] == b'"'
            && memchr::memmem::find(raw, b"\\u").is_none()
            && memchr::memmem::find(raw, b"\\/").is_none()
    };
    if let (Some(a), Some(b)) = (a, b) {
        let (a, b) = (&bytes[a.clone()], &bytes[b.clone()]);
        if one_way(a) && one_way(b) {
            return Some(a == b);
        }
    }
    Some(text(bytes, a)? == text(bytes, b)?)
}

/// A long text, decoded when it is not a plain string or when the caller asks; else empty,
/// with what the caller made of its raw bytes.
fn long_text<T>(
    bytes: &[u8],
    span: &Option<Span>,
    which: LongText,
    wanted: &Wanted<'_, T>,
) -> Option<(String, Option<T>)> {
    let Some(s) = span else {
        return Some((String::new(), None));
    };
    let raw = &bytes[s.clone()];
    if raw.len() < 2 || raw[0] != b'"' {
        return Some((text(bytes, span)?, None));
    }
    match (wanted.look)(which, &raw[1..raw.len() - 1])? {
        Look::Decode => Some((text(bytes, span)?, None)),
        Look::Skip(made) => Some((String::new(), Some(made))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the sparse read takes a file of one step with `history`.
    fn takes(history: &str) -> bool {
        let doc = format!(
            r#"{{"trajectory": [{{"action": "ls", "observation": "ok", "thought": "", "response": ""}}], "history": {history}, "info": {{}}}}"#
        );
        let look = |_: LongText, _: &[u8]| Some(Look::<()>::Decode);
        let wanted = Wanted {
            look: &look,
            repeated_observations: false,
        };
        read(Path::new("x.traj"), doc.as_bytes(), &wanted).is_some()
    }

    #[test]
    fn a_history_message_with_tool_calls_sends_the_file_to_the_full_read() {
        assert!(takes("null"));
        assert!(takes("[]"));
        // A mention in a text or deeper down changes no step.
        assert!(takes(
            r#"[{"role": "assistant", "content": "no tool_calls here", "action": "ls"}]"#
        ));
        assert!(takes(
            r#"[{"role": "user", "content": [{"type": "text", "tool_calls": 1}]}]"#
        ));
        // The message's own member, however written, or a message serde refuses.
        assert!(!takes(
            r#"[{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "ls"}}]}]"#
        ));
        assert!(!takes(
            r#"[{"role": "assistant", "tool\u005fcalls": null}]"#
        ));
        assert!(!takes("[1]"));
    }
}
