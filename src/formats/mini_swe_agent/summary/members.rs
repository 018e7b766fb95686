//! The few members of `extra` and `info` a summary reads, found by the raw walk and decoded
//! alone: a step's cost and usage, the exit status, the submission, `model_stats` and the
//! model name. Read as the whole read reads them from JSON values: `get` and `pointer` find
//! nothing in a value that is not an object, and a member present as `null` stops a
//! fallback as it does there. A repeated member gives `None` (a value keeps the last one):
//! such a file is read the usual way.

use super::decode;
use crate::formats::json::{as_count, as_f64, content_text, f64_field, u64_field};
use crate::formats::raw_json::{Span, object_members};
use crate::formats::swe_agent::read_exit_and_submission;
use crate::model::{Trajectory, Usage};
use serde_json::{Map, Value};

/// A step's usage from its message's `extra`, as the whole read's `usage` reads it:
/// `response.usage`, else `model_response.usage`.
pub(super) fn usage(bytes: &[u8], extra: Option<&Span>) -> Option<Usage> {
    let Some(extra) = object(bytes, extra) else {
        return Some(Usage::default());
    };
    let (_, [cost, response, model_response]) = object_members(
        bytes,
        extra.start,
        [b"cost", b"response", b"model_response"],
    )?;
    let usage = match member(bytes, response.as_ref(), b"usage")? {
        Some(usage) => Some(usage),
        None => member(bytes, model_response.as_ref(), b"usage")?,
    };
    let [
        prompt,
        input,
        completion,
        output,
        prompt_details,
        completion_details,
    ] = match object(bytes, usage.as_ref()) {
        Some(usage) => {
            object_members(
                bytes,
                usage.start,
                [
                    b"prompt_tokens",
                    b"input_tokens",
                    b"completion_tokens",
                    b"output_tokens",
                    b"prompt_tokens_details",
                    b"completion_tokens_details",
                ],
            )?
            .1
        }
        None => Default::default(),
    };
    let cached = member(bytes, prompt_details.as_ref(), b"cached_tokens")?;
    let reasoning = member(bytes, completion_details.as_ref(), b"reasoning_tokens")?;
    Some(Usage {
        cost: match &cost {
            Some(s) => as_f64(&decode(bytes, s)?),
            None => None,
        },
        tokens_in: count(bytes, prompt.as_ref(), as_count)?.or(count(
            bytes,
            input.as_ref(),
            as_count,
        )?),
        tokens_out: count(bytes, completion.as_ref(), as_count)?.or(count(
            bytes,
            output.as_ref(),
            as_count,
        )?),
        tokens_cached: count(bytes, cached.as_ref(), Value::as_u64)?,
        tokens_reasoning: count(bytes, reasoning.as_ref(), Value::as_u64)?,
        ..Usage::default()
    })
}

/// `info` read into `trajectory` as the whole read's `read_info` reads it (exit status,
/// submission, cost and API calls); the model it names (`config.model.model_name`).
pub(super) fn read_info(
    bytes: &[u8],
    trajectory: &mut Trajectory,
    info: Option<&Span>,
) -> Option<Option<String>> {
    let Some(info) = object(bytes, info) else {
        return Some(None);
    };
    let (_, [exit_status, submission, model_stats, config]) = object_members(
        bytes,
        info.start,
        [b"exit_status", b"submission", b"model_stats", b"config"],
    )?;
    let mut picked = Map::new();
    for (key, span) in [("exit_status", exit_status), ("submission", submission)] {
        if let Some(span) = span {
            picked.insert(key.to_string(), decode(bytes, &span)?);
        }
    }
    read_exit_and_submission(trajectory, &Value::Object(picked));
    if let Some(span) = model_stats {
        let stats: Value = decode(bytes, &span)?;
        trajectory.usage.cost = f64_field(&stats, "instance_cost");
        trajectory.usage.api_calls = u64_field(&stats, "api_calls");
    }
    let model = member(bytes, config.as_ref(), b"model")?;
    let name = member(bytes, model.as_ref(), b"model_name")?;
    Some(match name {
        Some(span) => match decode(bytes, &span)? {
            Value::String(name) => Some(name),
            _ => None,
        },
        None => None,
    })
}

/// An `exit` message read into `trajectory` as the whole read's `read_exit` reads it: its
/// status, and its submission (`extra.submission`, else its content) when none is known.
pub(super) fn read_exit(
    bytes: &[u8],
    trajectory: &mut Trajectory,
    content: Option<&Span>,
    extra: Option<&Span>,
) -> Option<()> {
    let [status, submission] = match object(bytes, extra) {
        Some(extra) => object_members(bytes, extra.start, [b"exit_status", b"submission"])?.1,
        None => [None, None],
    };
    if let Some(span) = status
        && let Value::String(status) = decode(bytes, &span)?
    {
        trajectory.exit_status = Some(status);
    }
    if trajectory.submission.is_some() {
        return Some(());
    }
    let given = match submission {
        Some(span) => match decode(bytes, &span)? {
            Value::String(text) => Some(text),
            _ => None,
        },
        None => None,
    };
    let submission = match given {
        Some(text) => text,
        None => match content {
            Some(span) => content_text(&decode(bytes, span)?),
            None => String::new(),
        },
    };
    if !submission.trim().is_empty() {
        trajectory.submission = Some(submission);
    }
    Some(())
}

/// `span` when it holds an object.
fn object<'s>(bytes: &[u8], span: Option<&'s Span>) -> Option<&'s Span> {
    span.filter(|s| bytes[s.start] == b'{')
}

/// The member `key` of the value at `span` (`Some(None)` when there is none, or the value
/// is not an object); `None` when the object repeats it.
fn member(bytes: &[u8], span: Option<&Span>, key: &[u8]) -> Option<Option<Span>> {
    match object(bytes, span) {
        Some(s) => object_members(bytes, s.start, [key]).map(|(_, [found])| found),
        None => Some(None),
    }
}

/// A count member read with `read` (`Some(None)` when absent); `None` when it does not
/// decode. Plain digits are read by hand (most of them).
fn count(
    bytes: &[u8],
    span: Option<&Span>,
    read: fn(&Value) -> Option<u64>,
) -> Option<Option<u64>> {
    let Some(span) = span else {
        return Some(None);
    };
    let raw = &bytes[span.clone()];
    let plain = !raw.is_empty()
        && raw.len() <= 19
        && raw.iter().all(u8::is_ascii_digit)
        && (raw.len() == 1 || raw[0] != b'0');
    if plain {
        // Up to 19 digits always fit a u64; serde reads them as that same u64.
        return Some(std::str::from_utf8(raw).ok()?.parse().ok());
    }
    Some(read(&decode(bytes, span)?))
}
