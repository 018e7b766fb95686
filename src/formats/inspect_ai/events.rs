//! A sample's events: which `model` events are the solver's (scorers grade with model calls
//! of their own, inside `scorer` spans or, before spans, `scorer` steps), what each sent and
//! got back, and how long each tool ran.

use super::message::Pool;
use super::refs::Refs;
use super::steps::ModelCall;
use crate::formats::json::{Text, f64_field, lenient, list_or_empty, u64_field};
use crate::model::{Trajectory, Usage};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};

/// One event, its input messages left as their JSON text (they are interned by text).
#[derive(Debug, Deserialize, Default)]
#[serde(default)]
struct RawEvent<'a> {
    event: Text,
    timestamp: Option<Text>,
    span_id: Option<Text>,
    id: Option<Text>,
    parent_id: Option<Text>,
    #[serde(rename = "type")]
    kind: Option<Text>,
    action: Option<Text>,
    #[serde(borrow, deserialize_with = "list_or_empty")]
    input: Vec<&'a RawValue>,
    /// `[start, end)` ranges into the sample's `message_pool`.
    #[serde(deserialize_with = "lenient")]
    input_refs: Option<Vec<(usize, usize)>>,
    output: Value,
    #[serde(deserialize_with = "lenient")]
    working_time: Option<f64>,
}

/// Walks a sample's events, keeping the solver's model calls and the tools' run times.
#[derive(Default)]
pub struct EventReader {
    pub calls: Vec<ModelCall>,
    pub durations: HashMap<String, f64>,
    pub model_events: u64,
    pub malformed: usize,
    /// Spans opened by scorers (and their children): their model calls grade, not act.
    scorer_spans: HashSet<String>,
    /// Depth of `step` events of type `scorer` (logs before spans, < 0.3.90).
    scorer_steps: usize,
    /// `message_pool` index → trajectory pool index, filled as model events need them.
    pool_ids: HashMap<usize, u32>,
}

impl EventReader {
    /// Reads one event (its JSON text); one that is not an event object is counted as
    /// malformed.
    pub fn read(
        &mut self,
        t: &mut Trajectory,
        refs: &Refs,
        pool: &mut Pool,
        message_pool: &[&RawValue],
        event: &RawValue,
    ) {
        let Ok(event) = serde_json::from_str::<RawEvent>(event.get()) else {
            self.malformed += 1;
            return;
        };
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
        message_pool: &[&RawValue],
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
                        .or_insert_with(|| pool.intern(t, refs, message_pool[i]))
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
            .and_then(|m| serde_json::value::to_raw_value(m).ok())
            .map(|m| pool.intern(t, refs, &m));
        ModelCall {
            input,
            output,
            usage: call_usage(event.output.get("usage").unwrap_or(&Value::Null)),
            timestamp: event.timestamp.as_ref().map(|t| t.0.clone()),
        }
    }
}

/// A model event's `usage`.
pub fn call_usage(usage: &Value) -> Usage {
    Usage {
        cost: f64_field(usage, "total_cost"),
        tokens_in: u64_field(usage, "input_tokens"),
        tokens_out: u64_field(usage, "output_tokens"),
        tokens_cached: u64_field(usage, "input_tokens_cache_read"),
        tokens_reasoning: u64_field(usage, "reasoning_tokens"),
        api_calls: None,
    }
}
