//! The few members of `extra` and `info` a summary reads, found by the raw walk and decoded
//! alone: a step's cost and usage, the exit status, the submission, `model_stats` and the
//! model name. Read as the whole read reads them from JSON values: `get` and `pointer` find
//! nothing in a value that is not an object, and a member present as `null` stops a
//! fallback as it does there. A repeated member gives `None` (a value keeps the last one):
//! such a file is read the usual way.

use super::decode;
use super::patch::string_patch_lines;
use crate::formats::json::{as_count, as_f64, content_text, f64_field, u64_field};
use crate::formats::raw_json::{Span, object_members, value_end, walk_elements, walk_members};
use crate::formats::swe_agent::read_exit_and_submission;
use crate::model::{Trajectory, Usage, count_patch_lines};
use serde_json::{Map, Value};

/// What a summary reads of a message's `extra`, found as the walk crosses it (once).
#[derive(Default)]
pub(super) struct Extra {
    cost: Option<Span>,
    /// `response.usage`, else `model_response.usage` (as `pointer` finds them).
    usage: Option<Span>,
    exit_status: Option<Span>,
    submission: Option<Span>,
}

/// The `extra` at `at` (any JSON value) crossed, with what the summary reads of it; its end.
pub(super) fn extra(bytes: &[u8], at: usize) -> Option<(usize, Extra)> {
    if bytes[at] != b'{' {
        return Some((value_end(bytes, at)?, Extra::default()));
    }
    let mut found: [Option<Span>; 5] = Default::default();
    let mut seen = [false; 2];
    let end = walk_members(bytes, at, &mut |key, at| {
        let slot = match key {
            b"cost" => 0,
            b"exit_status" => 1,
            b"submission" => 2,
            b"response" | b"model_response" => {
                let slot = if key == b"response" { 3 } else { 4 };
                let (end, usage) = usage_member(bytes, at)?;
                // Present twice: a value keeps the last one; read such a file whole.
                if std::mem::replace(&mut seen[slot - 3], true) {
                    return None;
                }
                found[slot] = usage;
                return Some(end);
            }
            _ if key.contains(&b'\\') => return None,
            _ => return value_end(bytes, at),
        };
        let end = value_end(bytes, at)?;
        found[slot].replace(at..end).is_none().then_some(end)
    })?;
    let [cost, exit_status, submission, response, model_response] = found;
    let extra = Extra {
        cost,
        usage: response.or(model_response),
        exit_status,
        submission,
    };
    Some((end, extra))
}

/// The `usage` member of the value at `at` (none when it is not an object); its end.
fn usage_member(bytes: &[u8], at: usize) -> Option<(usize, Option<Span>)> {
    if bytes[at] != b'{' {
        return Some((value_end(bytes, at)?, None));
    }
    let mut usage = None;
    let end = walk_members(bytes, at, &mut |key, at| {
        if key.contains(&b'\\') {
            return None;
        }
        let end = value_end(bytes, at)?;
        (key != b"usage" || usage.replace(at..end).is_none()).then_some(end)
    })?;
    Some((end, usage))
}

/// A step's usage from its message's `extra`, as the whole read's `usage` reads it.
pub(super) fn usage(bytes: &[u8], extra: &Extra) -> Option<Usage> {
    let [
        prompt,
        input,
        completion,
        output,
        prompt_details,
        completion_details,
    ] = match object(bytes, extra.usage.as_ref()) {
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
        cost: match &extra.cost {
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

/// What `info` and the `exit` messages say of how the run ended.
pub(super) struct Outcome {
    pub model: Option<String>,
    /// The submitted patch's line count, once a submission is known (a blank one is not).
    pub patch_lines: Option<usize>,
}

/// `info` read into `trajectory` as the whole read's `read_info` reads it (exit status, cost
/// and API calls); the model it names (`config.model.model_name`) and its submission's
/// patch lines.
pub(super) fn read_info(
    bytes: &[u8],
    trajectory: &mut Trajectory,
    info: Option<&Span>,
) -> Option<Outcome> {
    let mut outcome = Outcome {
        model: None,
        patch_lines: None,
    };
    let Some(info) = object(bytes, info) else {
        return Some(outcome);
    };
    let (_, [exit_status, submission, model_stats, config]) = object_members(
        bytes,
        info.start,
        [b"exit_status", b"submission", b"model_stats", b"config"],
    )?;
    let mut picked = Map::new();
    if let Some(span) = exit_status {
        picked.insert("exit_status".to_string(), decode(bytes, &span)?);
    }
    // The submission is only counted: `read_exit_and_submission` keeps a string that is not
    // blank, and a text is blank exactly when it has no patch line.
    read_exit_and_submission(trajectory, &Value::Object(picked));
    if let Some(span) = submission {
        outcome.patch_lines = string_patch_lines(bytes, &span)?.filter(|&n| n > 0);
    }
    if let Some(span) = model_stats {
        let stats: Value = decode(bytes, &span)?;
        trajectory.usage.cost = f64_field(&stats, "instance_cost");
        trajectory.usage.api_calls = u64_field(&stats, "api_calls");
    }
    let model = member(bytes, config.as_ref(), b"model")?;
    let name = member(bytes, model.as_ref(), b"model_name")?;
    if let Some(span) = name
        && let Value::String(name) = decode(bytes, &span)?
    {
        outcome.model = Some(name);
    }
    Some(outcome)
}

/// An `exit` message read as the whole read's `read_exit` reads it: its status into
/// `trajectory`, and its submission (`extra.submission` when a string, else its content)
/// counted into `outcome` when none is known.
pub(super) fn read_exit(
    bytes: &[u8],
    trajectory: &mut Trajectory,
    outcome: &mut Outcome,
    content: Option<&Span>,
    extra: &Extra,
) -> Option<()> {
    let (status, submission) = (extra.exit_status.clone(), extra.submission.clone());
    if let Some(span) = status
        && let Value::String(status) = decode(bytes, &span)?
    {
        trajectory.exit_status = Some(status);
    }
    if outcome.patch_lines.is_some() {
        return Some(());
    }
    let given = match submission {
        Some(span) => string_patch_lines(bytes, &span)?,
        None => None,
    };
    let lines = match (given, content) {
        (Some(lines), _) => lines,
        (None, None) => 0,
        (None, Some(span)) if bytes[span.start] == b'"' => string_patch_lines(bytes, span)??,
        (None, Some(span)) => count_patch_lines(&content_text(&decode(bytes, span)?)),
    };
    outcome.patch_lines = (lines > 0).then_some(lines);
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

/// Whether the `tool_calls` at `span` hold a call `swe_agent::tool_calls` keeps: an item
/// whose `function` (or the item itself, without one) has a string `name`.
pub(super) fn has_tool_call(bytes: &[u8], span: &Span) -> Option<bool> {
    if bytes[span.start] != b'[' {
        return Some(false);
    }
    let mut found = false;
    walk_elements(bytes, span.start, &mut |at| {
        let end = value_end(bytes, at)?;
        if !found && bytes[at] == b'{' {
            let (_, [function, name]) = object_members(bytes, at, [b"function", b"name"])?;
            let name = match function {
                Some(function) => member(bytes, Some(&function), b"name")?,
                None => name,
            };
            found = name.is_some_and(|s| bytes[s.start] == b'"');
        }
        Some(end)
    })?;
    Some(found)
}
