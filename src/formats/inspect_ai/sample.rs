//! One Inspect sample (one epoch of one dataset item) → one trajectory.
//!
//! Reads the sample's messages, its events (model calls, tool runs, the spans that tell a
//! solver's model calls from a scorer's), its attachments, scores, usage and error. The
//! steps themselves are `steps.rs`'s job.

use super::header::Header;
use super::message::{Pool, content};
use super::refs::Refs;
use super::score::verdict;
use super::steps::{self, ModelCall, Sources};
use crate::formats::json::{Text, f64_field, lenient, str_field, to_text, u64_field};
use crate::model::{Format, Trajectory, Usage};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct RawSample {
    id: Value,
    #[serde(deserialize_with = "lenient")]
    pub epoch: Option<u64>,
    input: Value,
    #[serde(deserialize_with = "lenient")]
    messages: Vec<Value>,
    output: Value,
    scores: Value,
    /// One score, in logs before 0.3.20.
    score: Value,
    #[serde(deserialize_with = "lenient")]
    events: Vec<Value>,
    /// `{events, content}` in logs before 0.3.46 (`content` holds the `tc://` texts).
    transcript: Value,
    #[serde(deserialize_with = "lenient")]
    attachments: HashMap<String, String>,
    /// Deduplicated messages that model events point into with `input_refs` (0.3.13x+).
    #[serde(deserialize_with = "lenient")]
    message_pool: Vec<Value>,
    model_usage: Value,
    error: Value,
    limit: Value,
}

#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct RawEvent {
    event: Text,
    timestamp: Option<Text>,
    span_id: Option<Text>,
    id: Option<Text>,
    parent_id: Option<Text>,
    #[serde(rename = "type")]
    kind: Option<Text>,
    action: Option<Text>,
    #[serde(deserialize_with = "lenient")]
    input: Vec<Value>,
    /// `[start, end)` ranges into the sample's `message_pool`.
    #[serde(deserialize_with = "lenient")]
    input_refs: Option<Vec<(usize, usize)>>,
    output: Value,
    #[serde(deserialize_with = "lenient")]
    working_time: Option<f64>,
}

/// The trajectory of `sample`, the `ordinal`-th of its log. Its instance id is the sample
/// id; the caller adds the epoch when the log holds several.
pub fn trajectory(
    path: &Path,
    header: &Header,
    detail: &str,
    sample: RawSample,
    ordinal: usize,
) -> Trajectory {
    let mut t = Trajectory::new(path, Format::InspectAi);
    t.source_index = Some(ordinal);
    t.format_detail = Some(detail.to_string());
    t.model = header.model();
    t.agent = header.agent();
    if let Some(id) = Some(to_text(&sample.id)).filter(|id| !id.is_empty()) {
        t.instance_id = id;
    } else {
        t.instance_id = format!("{}#{}", t.instance_id, ordinal + 1);
    }

    let RawSample {
        input,
        messages,
        output,
        scores,
        score,
        mut events,
        transcript,
        mut attachments,
        message_pool,
        model_usage,
        error,
        limit,
        ..
    } = sample;
    if let Value::Object(mut old) = transcript {
        if let Some(Value::Object(content)) = old.remove("content") {
            attachments.extend(content.into_iter().map(|(k, v)| (k, to_text(&v))));
        }
        if events.is_empty()
            && let Some(Value::Array(old_events)) = old.remove("events")
        {
            events = old_events;
        }
    }
    let refs = Refs::new(attachments);
    let mut pool = Pool::default();

    t.task = Some(task_text(&input, &refs)).filter(|task| !task.trim().is_empty());
    t.resolved = verdict(&scores, &score);

    let mut reader = EventReader::default();
    for event in events {
        match serde_json::from_value::<RawEvent>(event) {
            Ok(event) => reader.read(&mut t, &refs, &mut pool, &message_pool, event),
            Err(_) => reader.malformed += 1,
        }
    }

    let mut conversation: Vec<u32> = messages
        .iter()
        .map(|m| pool.intern(&mut t, &refs, m))
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

/// Walks a sample's events, keeping the solver's model calls and the tools' run times.
#[derive(Default)]
struct EventReader {
    calls: Vec<ModelCall>,
    durations: HashMap<String, f64>,
    model_events: u64,
    malformed: usize,
    /// Spans opened by scorers (and their children): their model calls grade, not act.
    scorer_spans: HashSet<String>,
    /// Depth of `step` events of type `scorer` (logs before spans, < 0.3.90).
    scorer_steps: usize,
    /// `message_pool` index → trajectory pool index, filled as model events need them.
    pool_ids: HashMap<usize, u32>,
}

impl EventReader {
    fn read(
        &mut self,
        t: &mut Trajectory,
        refs: &Refs,
        pool: &mut Pool,
        message_pool: &[Value],
        event: RawEvent,
    ) {
        let kind = event.kind.as_ref().map(|k| k.0.as_str()).unwrap_or("");
        match event.event.0.as_str() {
            "span_begin" => {
                let parent_is_scorer = event
                    .parent_id
                    .as_ref()
                    .is_some_and(|p| self.scorer_spans.contains(&p.0));
                if (matches!(kind, "scorer" | "scorers") || parent_is_scorer)
                    && let Some(id) = &event.id
                {
                    self.scorer_spans.insert(id.0.clone());
                }
            }
            "step" if kind == "scorer" => match event.action.as_ref().map(|a| a.0.as_str()) {
                Some("begin") => self.scorer_steps += 1,
                Some("end") => self.scorer_steps = self.scorer_steps.saturating_sub(1),
                _ => {}
            },
            "tool" => {
                if let (Some(id), Some(seconds)) = (&event.id, event.working_time) {
                    *self.durations.entry(id.0.clone()).or_default() += seconds;
                }
            }
            "model" => {
                self.model_events += 1;
                let in_scorer = self.scorer_steps > 0
                    || event
                        .span_id
                        .as_ref()
                        .is_some_and(|s| self.scorer_spans.contains(&s.0));
                if !in_scorer {
                    let call = self.model_call(t, refs, pool, message_pool, &event);
                    self.calls.push(call);
                }
            }
            _ => {}
        }
    }

    fn model_call(
        &mut self,
        t: &mut Trajectory,
        refs: &Refs,
        pool: &mut Pool,
        message_pool: &[Value],
        event: &RawEvent,
    ) -> ModelCall {
        let input = match &event.input_refs {
            Some(ranges) if event.input.is_empty() => ranges
                .iter()
                .flat_map(|&(start, end)| start..end.min(message_pool.len()))
                .map(|i| {
                    *self
                        .pool_ids
                        .entry(i)
                        .or_insert_with(|| pool.intern(t, refs, &message_pool[i]))
                })
                .collect(),
            _ => event
                .input
                .iter()
                .map(|m| pool.intern(t, refs, m))
                .collect(),
        };
        let output = event
            .output
            .pointer("/choices/0/message")
            .filter(|m| m.is_object())
            .map(|m| pool.intern(t, refs, m));
        ModelCall {
            input,
            output,
            usage: call_usage(event.output.get("usage").unwrap_or(&Value::Null)),
            timestamp: event.timestamp.as_ref().map(|t| t.0.clone()),
        }
    }
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

fn call_usage(usage: &Value) -> Usage {
    Usage {
        cost: f64_field(usage, "total_cost"),
        tokens_in: u64_field(usage, "input_tokens"),
        tokens_out: u64_field(usage, "output_tokens"),
        api_calls: None,
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
        let sample: RawSample = serde_json::from_value(sample).unwrap();
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
