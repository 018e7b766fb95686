//! A SWE-agent `.traj` summarised for a listing (`ls`, the run cache) from its raw bytes:
//! the steps are counted and their actions decoded, an observation is searched for the
//! error markers [`Step::is_error`] looks for on its raw bytes ([`error_head`]; decoded only
//! when it spells a character as `\uXXXX`), and of `history` only what matching steps with
//! their answers needs is decoded (roles, the answers' actions, and the content of an answer
//! without an action, the one case the matching reads it); the other messages, the exact
//! contexts (`query`, `messages`), thoughts and responses are crossed by the raw walk
//! ([`raw_json`]) without being decoded. The steps then go through the same `build` as the
//! full read, so the summary is the one [`TrajectorySummary::of`] gives on it, with the
//! error steps counted from the raw decisions (the steps' observations are left empty).
//!
//! Anything this reader cannot give exactly gives `None`, and the file is read the usual way:
//! invalid UTF-8 (repaired there, with a warning), history-only files, duplicate members,
//! steps or messages that are not objects, fields of a type serde would refuse. Like the
//! tally's sparse read, it does not check the inside of the strings it crosses undecoded (a
//! stray control character or an unknown escape in a skipped message or an observation):
//! such a file is listed here and refused by the whole read.
//!
//! [`Step::is_error`]: crate::model::Step::is_error

use super::plain::Plain;
use super::{File, RawMessage, RawStep, build};
use crate::formats::detect::{self, Kind};
use crate::formats::error_head;
use crate::formats::json::Text;
use crate::formats::raw_json::{self, Span};
use crate::model::{Format, TrajectorySummary, observation_reads_as_error};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;

/// The summary of the `.traj` in `bytes`; `None` when it is not one this reader gives
/// exactly (read it the usual way).
pub fn summary(path: &Path, bytes: &[u8]) -> Option<TrajectorySummary> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    // What `detect` says, without its look for JSON Lines when the first key names
    // SWE-agent: the walk below reads the whole document as one value or gives up, and a
    // document that is one value is not JSON Lines.
    let swe_agent = detect::format_from_first_key(&bytes[start..]) == Some(Format::SweAgent)
        || matches!(
            detect::detect(path, bytes),
            Ok(Kind::Trajectories(Format::SweAgent))
        );
    if bytes[start] != b'{' || !swe_agent || !raw_json::is_utf8(bytes) {
        return None;
    }
    // The two lists are read as the walk meets them (crossed once); the rest kept as spans.
    let (mut steps, mut history) = (None, None);
    let (mut info, mut replay) = (None, None);
    let mut error_steps = 0;
    let end = raw_json::walk_members(bytes, start, &mut |key, at| match key {
        b"trajectory" => {
            let (end, items) = list(bytes, at, &mut |at| step(bytes, at, &mut error_steps))?;
            steps.replace(items).is_none().then_some(end)
        }
        b"history" => {
            let (end, items) = list(bytes, at, &mut |at| message(bytes, at))?;
            history.replace(items).is_none().then_some(end)
        }
        b"info" | b"replay_config" => {
            let end = raw_json::value_end(bytes, at)?;
            let slot = if key == b"info" {
                &mut info
            } else {
                &mut replay
            };
            slot.replace(at..end).is_none().then_some(end)
        }
        _ if key.contains(&b'\\') => None,
        _ => raw_json::value_end(bytes, at),
    })?;
    if !raw_json::only_whitespace_after(bytes, end) {
        return None;
    }
    let steps = steps.unwrap_or_default();
    if steps.is_empty() {
        // History-only files make their steps of message contents.
        return None;
    }
    let history = history.unwrap_or_default();
    let value = |span: &Option<Span>| match span {
        Some(s) => decode::<Value>(bytes, s),
        None => Some(Value::Null),
    };
    let file = File {
        trajectory: steps,
        history,
        info: value(&info)?,
        replay_config: value(&replay)?,
    };
    let trajectory = build(path, file).ok()?.into_iter().next()?;
    let mut summary = TrajectorySummary::of(&trajectory);
    // A SWE-agent step is an agent step with no exit code or failure flag: it is an error
    // step exactly when its observation reads like one.
    summary.error_steps = error_steps;
    Some(summary)
}

/// The end of the list member at `at` (null: no items) and its items, each read by `item`
/// from its start (returning its end and the item).
fn list<T>(
    bytes: &[u8],
    at: usize,
    item: &mut dyn FnMut(usize) -> Option<(usize, T)>,
) -> Option<(usize, Vec<T>)> {
    if bytes[at..].starts_with(b"null") {
        let end = raw_json::value_end(bytes, at)?;
        return (end == at + 4).then_some((end, Vec::new()));
    }
    let mut items = Vec::new();
    let end = raw_json::walk_elements(bytes, at, &mut |at| {
        let (end, it) = item(at)?;
        items.push(it);
        Some(end)
    })?;
    Some((end, items))
}

/// One step: its action decoded, whether it has an exact context; its observation's error
/// decision added to `error_steps`; observation, thought and response left empty.
fn step(bytes: &[u8], at: usize, error_steps: &mut usize) -> Option<(usize, RawStep)> {
    let (end, [action, observation, query, messages]) = raw_json::object_members(
        bytes,
        at,
        [b"action", b"observation", b"query", b"messages"],
    )?;
    let step = RawStep {
        action: optional::<Text>(bytes, &action)?.unwrap_or_default(),
        query: presence(bytes, &query)?,
        messages: presence(bytes, &messages)?,
        ..RawStep::default()
    };
    *error_steps += usize::from(observation_is_error(bytes, observation.as_ref())?);
    Some((end, step))
}

/// An exact context: `Some` (empty) when it is a list, `None` when null or absent; only its
/// presence is read (it tells 1.0 and 1.1+ apart, and turns the history matching off).
fn presence(bytes: &[u8], span: &Option<Span>) -> Option<Option<Vec<RawMessage>>> {
    match span {
        None => Some(None),
        Some(s) if &bytes[s.clone()] == b"null" => Some(None),
        Some(s) if bytes[s.start] == b'[' => Some(Some(Vec::new())),
        Some(_) => None,
    }
}

/// One history message with what matching steps to answers reads: the content only of the
/// answers that log no action (`match_answer` looks in the content only then).
fn message(bytes: &[u8], at: usize) -> Option<(usize, RawMessage)> {
    let (end, [role, content, agent, is_demo, action]) = raw_json::object_members(
        bytes,
        at,
        [b"role", b"content", b"agent", b"is_demo", b"action"],
    )?;
    let role = optional::<Text>(bytes, &role)?.unwrap_or_default();
    let is_demo = optional::<Option<bool>>(bytes, &is_demo)?.flatten();
    let action = optional::<Option<Text>>(bytes, &action)?.flatten();
    let answer = role.0 == "assistant" && is_demo != Some(true);
    let content = match &content {
        Some(s) if answer && action.as_ref().is_none_or(|a| a.0.trim().is_empty()) => {
            decode::<Value>(bytes, s)?
        }
        _ => Value::Null,
    };
    let message = RawMessage {
        role,
        content,
        agent: optional::<Option<String>>(bytes, &agent)?.flatten(),
        is_demo,
        action,
        ..RawMessage::default()
    };
    Some((end, message))
}

fn decode<T: DeserializeOwned>(bytes: &[u8], span: &Span) -> Option<T> {
    serde_json::from_slice(&bytes[span.clone()]).ok()
}

/// A member decoded when present (by hand in its common forms, see [`Plain`]); `None` when
/// it does not decode.
fn optional<T: DeserializeOwned + Plain>(bytes: &[u8], span: &Option<Span>) -> Option<Option<T>> {
    match span {
        Some(s) => T::plain(&bytes[s.clone()])
            .or_else(|| decode(bytes, s))
            .map(Some),
        None => Some(None),
    }
}

/// Whether the observation at `span` reads like an error (`Step::is_error`): decided on its
/// raw bytes ([`error_head`]), or on its decoded text when it is not a plain string or
/// spells a character as `\uXXXX` (29 of CodeR's 3,004 observations).
fn observation_is_error(bytes: &[u8], span: Option<&Span>) -> Option<bool> {
    let Some(s) = span else {
        return Some(false);
    };
    let raw = &bytes[s.clone()];
    if raw.len() >= 2
        && raw[0] == b'"'
        && let Some(error) = error_head::raw_reads_as_error(&raw[1..raw.len() - 1])
    {
        return Some(error);
    }
    decode::<Text>(bytes, s).map(|text| observation_reads_as_error(&text.0))
}
