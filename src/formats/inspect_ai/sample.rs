//! One Inspect sample (one epoch of one dataset item) → one trajectory.
//!
//! Reads the sample's messages, attachments, scores, usage and error; its events are read
//! by `events.rs` and the steps built by `steps.rs`.

use super::events::{EventReader, call_usage};
use super::header::Header;
use super::message::{Pool, content};
use super::refs::Refs;
use super::score::verdict;
use super::steps::{self, Sources};
use crate::formats::json::{lenient, list_or_empty, map_or_empty, str_field, to_text};
use crate::model::{Format, Trajectory, Usage};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::path::Path;

/// One sample, its long lists (messages, events, the message pool) left as the JSON text
/// of each item: a 100 MB sample parsed to a tree took three times its size, and the pool
/// keys messages by their text anyway. `M` is `&RawValue` where the text is held
/// (borrowed from it), `Box<RawValue>` where it is parsed as it is decompressed.
#[derive(Debug, Deserialize)]
#[serde(default, bound(deserialize = "M: Deserialize<'de>"))]
pub struct RawSample<M> {
    id: Value,
    #[serde(deserialize_with = "lenient")]
    pub epoch: Option<u64>,
    input: Value,
    #[serde(deserialize_with = "list_or_empty")]
    messages: Vec<M>,
    output: Value,
    scores: Value,
    /// One score, in logs before 0.3.20.
    score: Value,
    #[serde(deserialize_with = "list_or_empty")]
    events: Vec<M>,
    /// `{events, content}` in logs before 0.3.46 (`content` holds the `tc://` texts).
    transcript: Option<M>,
    #[serde(deserialize_with = "map_or_empty")]
    attachments: HashMap<String, String>,
    /// Deduplicated messages that model events point into with `input_refs` (0.3.13x+).
    #[serde(deserialize_with = "list_or_empty")]
    message_pool: Vec<M>,
    model_usage: Value,
    error: Value,
    limit: Value,
}

// By hand: derived, it would ask for `M: Default`, which `&RawValue` is not.
impl<M> Default for RawSample<M> {
    fn default() -> Self {
        RawSample {
            id: Value::Null,
            epoch: None,
            input: Value::Null,
            messages: Vec::new(),
            output: Value::Null,
            scores: Value::Null,
            score: Value::Null,
            events: Vec::new(),
            transcript: None,
            attachments: HashMap::new(),
            message_pool: Vec::new(),
            model_usage: Value::Null,
            error: Value::Null,
            limit: Value::Null,
        }
    }
}

impl<M> RawSample<M> {
    /// The instance id of the `ordinal`-th sample: its id, else the log's own name
    /// (`fallback`) and the sample's number.
    pub fn instance_id(&self, fallback: &str, ordinal: usize) -> String {
        match to_text(&self.id) {
            id if id.is_empty() => format!("{fallback}#{}", ordinal + 1),
            id => id,
        }
    }
}

/// The transcript of logs before 0.3.46, read only when it is an object.
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct RawTranscript<'a> {
    #[serde(borrow, deserialize_with = "list_or_empty")]
    events: Vec<&'a RawValue>,
    #[serde(deserialize_with = "map_or_empty")]
    content: HashMap<String, String>,
}

/// The trajectory of `sample`, the `ordinal`-th of its log. Its instance id is the sample
/// id; the caller adds the epoch when the log holds several.
pub fn trajectory<M: Borrow<RawValue>>(
    path: &Path,
    header: &Header,
    detail: &str,
    sample: RawSample<M>,
    ordinal: usize,
) -> Trajectory {
    let mut t = Trajectory::new(path, Format::InspectAi);
    t.source_index = Some(ordinal);
    t.format_detail = Some(detail.to_string());
    t.model = header.model();
    t.agent = header.agent();
    t.instance_id = sample.instance_id(&t.instance_id, ordinal);

    let RawSample {
        input,
        messages,
        output,
        scores,
        score,
        events,
        transcript,
        mut attachments,
        message_pool,
        model_usage,
        error,
        limit,
        ..
    } = sample;
    let old: RawTranscript = transcript
        .as_ref()
        .map(|raw| raw.borrow().get())
        .filter(|text| text.starts_with('{'))
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_default();
    attachments.extend(old.content);
    let events: Vec<&RawValue> = if events.is_empty() {
        old.events
    } else {
        events.iter().map(Borrow::borrow).collect()
    };
    let message_pool: Vec<&RawValue> = message_pool.iter().map(Borrow::borrow).collect();
    let refs = Refs::new(attachments);
    let mut pool = Pool::default();

    t.task = Some(task_text(&input, &refs)).filter(|task| !task.trim().is_empty());
    t.resolved = verdict(&scores, &score);

    let mut reader = EventReader::default();
    for event in events {
        reader.read(&mut t, &refs, &mut pool, &message_pool, event);
    }

    let mut conversation: Vec<u32> = messages
        .iter()
        .map(|m| pool.intern(&mut t, &refs, m.borrow()))
        .collect();
    if conversation.is_empty() {
        // No messages kept (a sample cut short): the last call's input and output are the
        // conversation as far as it went.
        if let Some(last) = reader.calls.last() {
            conversation = last.input.iter().copied().chain(last.output).collect();
        }
    }
    let loose = steps::build(
        &mut t,
        &conversation,
        &Sources {
            calls: &reader.calls,
            durations: &reader.durations,
            failed: &pool.failed,
        },
    );

    t.usage = usage(&model_usage);
    if reader.model_events > 0 {
        t.usage.api_calls = Some(reader.model_events);
    }
    let ended = !output.is_null() || !scores.is_null() || !score.is_null();
    t.exit_status = exit_status(&mut t.warnings, &error, &limit, ended);
    if loose.answers > 0 {
        t.warnings.push(format!(
            "{} step(s) have no model event in the log; their context is rebuilt from the messages",
            loose.answers
        ));
    }
    if loose.results > 0 {
        t.warnings.push(format!(
            "{} tool result(s) answer no call in the messages; shown as steps of their own",
            loose.results
        ));
    }
    if reader.malformed > 0 {
        t.warnings.push(format!(
            "{} event(s) are not objects; skipped",
            reader.malformed
        ));
    }
    if refs.missing() > 0 {
        t.warnings.push(format!(
            "{} attachment reference(s) point at attachments the sample lacks; shown as references",
            refs.missing()
        ));
    }
    t
}

/// The sample input: a string, or messages whose texts are joined.
fn task_text(input: &Value, refs: &Refs) -> String {
    match input {
        Value::Array(messages) => messages
            .iter()
            .map(|m| content(m.get("content").unwrap_or(m), refs))
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        other => content(other, refs),
    }
}

/// Totals over every model the sample used (`model_usage` is keyed by model), scorers'
/// graders included: what the sample cost.
fn usage(model_usage: &Value) -> Usage {
    let mut total = Usage::default();
    if let Some(models) = model_usage.as_object() {
        for usage in models.values() {
            total.add(&call_usage(usage));
        }
    }
    total
}

/// `error` when the sample failed, `<kind>_limit` when a limit stopped it, `completed` when
/// it has an output or a score, else unknown.
fn exit_status(
    warnings: &mut Vec<String>,
    error: &Value,
    limit: &Value,
    ended: bool,
) -> Option<String> {
    if !error.is_null() {
        let message = str_field(error, "message")
            .map(String::from)
            .unwrap_or_else(|| to_text(error));
        warnings.push(format!(
            "the sample failed: {}",
            message.lines().next().unwrap_or("")
        ));
        return Some("error".into());
    }
    if let Some(kind) = str_field(limit, "type") {
        return Some(format!("{kind}_limit"));
    }
    ended.then(|| "completed".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Exactness, Role};
    use serde_json::json;

    fn header() -> Header {
        serde_json::from_value(json!({"version": 2, "eval": {"model": "openai/gpt-4o-mini"}}))
            .unwrap()
    }

    fn load(sample: Value) -> Trajectory {
        let text = sample.to_string();
        let sample: RawSample<&RawValue> = serde_json::from_str(&text).unwrap();
        let mut t = trajectory(Path::new("log.json"), &header(), "json v2", sample, 0);
        t.number_steps();
        t
    }

    #[test]
    fn tool_using_sample_with_attachments_and_a_grader() {
        let user = json!({"id": "u", "role": "user", "content": "attachment://task"});
        let answer = json!({"id": "a1", "role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "attachment://cmd"}}]});
        let result = json!({"id": "r1", "role": "tool", "tool_call_id": "c1", "function": "bash", "content": "attachment://out"});
        let done = json!({"id": "a2", "role": "assistant", "content": "It is 4."});
        let t = load(json!({
            "id": "q-7", "epoch": 1,
            "input": "attachment://task",
            "messages": [
                {"id": "u", "role": "user", "content": "What is 2+2? Use bash."},
                answer.clone(), {"id": "r1", "role": "tool", "tool_call_id": "c1", "function": "bash", "content": "4"}, done.clone()
            ],
            "events": [
                {"event": "span_begin", "id": "s1", "type": "solver", "name": "generate"},
                {"event": "model", "span_id": "s1", "timestamp": "T1", "input": [user.clone()],
                 "output": {"choices": [{"message": answer}], "usage": {"input_tokens": 20, "output_tokens": 5}}},
                {"event": "tool", "span_id": "s1", "id": "c1", "function": "bash", "working_time": 0.25},
                {"event": "model", "span_id": "s1", "input": [user, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "echo $((2+2))"}}]}, result],
                 "output": {"choices": [{"message": done}], "usage": {"input_tokens": 30, "output_tokens": 4}}},
                {"event": "span_begin", "id": "sc", "type": "scorers", "name": "scorers"},
                {"event": "span_begin", "id": "g", "parent_id": "sc", "type": "scorer", "name": "model_graded_fact"},
                {"event": "model", "span_id": "g", "input": [{"role": "user", "content": "grade it"}],
                 "output": {"choices": [{"message": {"role": "assistant", "content": "GRADE: C"}}]}},
                "not an event"
            ],
            "attachments": {"task": "What is 2+2? Use bash.", "cmd": "echo $((2+2))", "out": "4"},
            "scores": {"model_graded_fact": {"value": "C"}},
            "model_usage": {"openai/gpt-4o-mini": {"input_tokens": 70, "output_tokens": 15, "total_cost": 0.001}}
        }));
        assert_eq!(t.instance_id, "q-7");
        assert_eq!(t.task.as_deref(), Some("What is 2+2? Use bash."));
        assert_eq!(t.model.as_deref(), Some("openai/gpt-4o-mini"));
        assert_eq!(t.resolved, Some(true));
        assert_eq!(t.exit_status.as_deref(), Some("completed"));
        assert_eq!(t.steps.len(), 2);
        let s1 = &t.steps[0];
        assert_eq!(
            (s1.tool.as_deref(), s1.action.as_str()),
            (Some("bash"), "echo $((2+2))")
        );
        assert_eq!(s1.observation, "4");
        assert_eq!(s1.duration_s, Some(0.25));
        assert_eq!(s1.usage.tokens_in, Some(20));
        assert_eq!(s1.timestamp.as_deref(), Some("T1"));
        let s2 = &t.steps[1];
        assert_eq!(s2.thought, "It is 4.");
        let context = s2.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        let roles: Vec<Role> = s2
            .context_messages(&t.messages)
            .iter()
            .map(|m| m.role)
            .collect();
        assert_eq!(roles, vec![Role::User, Role::Assistant, Role::Tool]);
        assert!(
            s2.context_messages(&t.messages)
                .iter()
                .all(|m| !m.content.contains("attachment://"))
        );
        assert_eq!(t.usage.tokens_in, Some(70));
        assert_eq!(t.usage.cost, Some(0.001));
        assert_eq!(t.usage.api_calls, Some(3));
        assert!(
            t.warnings.iter().any(|w| w.contains("not objects")),
            "{:?}",
            t.warnings
        );
        assert!(
            !t.messages.iter().any(|m| m.content.contains("GRADE")),
            "grader calls are not steps"
        );
    }

    #[test]
    fn deduplicated_inputs_expand_from_the_message_pool() {
        let pool = json!([
            {"id": "m0", "role": "user", "content": "Guess"},
            {"id": "m1", "role": "assistant", "content": "", "tool_calls": [{"id": "h0", "function": "bash", "arguments": {"cmd": "ls"}}]},
            {"id": "m2", "role": "tool", "tool_call_id": "h0", "function": "bash", "content": "bin"}
        ]);
        let answer2 = json!({"id": "m3", "role": "assistant", "content": "done"});
        let mut messages = pool.as_array().unwrap().clone();
        messages.push(answer2.clone());
        let t = load(json!({
            "id": 0, "epoch": 1, "input": "Guess", "messages": messages, "message_pool": pool,
            "events": [
                {"event": "model", "input": [], "input_refs": [[0, 1]], "output": {"choices": [{"message": pool[1]}]}},
                {"event": "model", "input": [], "input_refs": [[0, 3]], "output": {"choices": [{"message": answer2}]}}
            ],
            "scores": {"closeness": {"value": 0.5}}
        }));
        assert_eq!(t.instance_id, "0");
        assert_eq!(t.resolved, None);
        assert_eq!(t.steps.len(), 2);
        let texts: Vec<&str> = t.steps[1]
            .context_messages(&t.messages)
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(texts, vec!["Guess", "", "bin"]);
        assert_eq!(t.messages.len(), 4, "each distinct message pooled once");
    }

    #[test]
    fn old_transcripts_with_tc_references() {
        let t = load(json!({
            "id": 1, "epoch": 1, "input": "Q?",
            "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q?"}, {"role": "assistant", "content": "No"}],
            "transcript": {"events": [
                {"event": "step", "action": "begin", "type": "solver", "name": "generate"},
                {"event": "model", "input": [{"role": "system", "content": "tc://s"}, {"role": "user", "content": "tc://q"}],
                 "output": {"choices": [{"message": {"role": "assistant", "content": "No"}}]}},
                {"event": "step", "action": "begin", "type": "scorer", "name": "match"},
                {"event": "model", "input": [{"role": "user", "content": "tc://q"}], "output": {"choices": [{"message": {"role": "assistant", "content": "No"}}]}},
                {"event": "step", "action": "end", "type": "scorer", "name": "match"}
            ], "content": {"s": "S", "q": "Q?"}},
            "scores": {"match": {"value": "I"}},
            "error": null
        }));
        assert_eq!(t.resolved, Some(false));
        assert_eq!(t.steps.len(), 1);
        let context = t.steps[0].context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        assert_eq!(context.ids(&t.messages).count(), 2);
        assert_eq!(
            t.messages.len(),
            3,
            "event inputs share the sample's messages"
        );
    }

    #[test]
    fn errors_and_limits_end_a_sample() {
        let t = load(
            json!({"id": "e", "messages": [{"role": "user", "content": "x"}], "error": {"message": "RuntimeError: boom\ntraceback"}}),
        );
        assert_eq!(t.exit_status.as_deref(), Some("error"));
        assert!(
            t.warnings
                .iter()
                .any(|w| w == "the sample failed: RuntimeError: boom"),
            "{:?}",
            t.warnings
        );
        let t = load(
            json!({"id": "l", "messages": [{"role": "user", "content": "x"}], "limit": {"type": "message", "limit": 30}}),
        );
        assert_eq!(t.exit_status.as_deref(), Some("message_limit"));
        let t = load(json!({"id": 3, "messages": 7, "events": {"x": 1}, "attachments": [1]}));
        assert!(t.steps.is_empty());
        assert_eq!(t.exit_status, None);
    }
}
