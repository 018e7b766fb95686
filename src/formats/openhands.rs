//! OpenHands: a session's events as a JSON array, and evaluation output (`output.jsonl`, one
//! instance per line, each a trajectory; or one instance object per file).
//!
//! Events are actions (`action`, `args`) and observations (`observation`, `content`,
//! `extras`) linked by `cause`. OpenHands stores no prompts, so every step's context is
//! reconstructed from the events before it. Older evaluation outputs store the history as
//! `[action, observation]` pairs; those are read too. This module picks the shape; the
//! files below it read events (`event`), build steps (`history`), render actions
//! (`action_text`) and read instances (`instance`).

mod action_text;
mod clock;
mod event;
mod history;
mod instance;
mod item;

use super::LoadError;
use super::detect::is_json_lines;
use crate::model::{Format, Trajectory};
use event::RawEvent;
use item::HistoryItem;
use std::path::Path;

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .ok_or_else(|| LoadError::Empty {
            path: path.to_path_buf(),
        })?;
    match bytes[start] {
        b'[' => events_file(path, bytes).map(|t| vec![t]),
        b'{' if is_json_lines(bytes) => instance::lines(path, bytes),
        b'{' => instance::single(path, bytes),
        _ => Err(LoadError::unrecognized(
            path,
            "neither a JSON array of OpenHands events nor evaluation output",
        )),
    }
}

/// A session's events, as `trajectory` files and the event stream export write them.
fn events_file(path: &Path, bytes: &[u8]) -> Result<Trajectory, LoadError> {
    let items: Vec<HistoryItem> =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    let mut events = Events::default();
    for item in items {
        events.push(path, item);
    }
    events.finish(path)
}

/// Items in order, with `[action, observation]` pairs unfolded ([`Unfold`]).
fn flatten(items: Vec<HistoryItem>) -> (Vec<RawEvent>, usize) {
    let mut unfold = Unfold::default();
    let mut events = Vec::new();
    for item in items {
        unfold.push(item, &mut |event| events.push(event));
    }
    (events, unfold.skipped)
}

/// Items of an event list in order, with `[action, observation]` pairs unfolded: the
/// observation of a pair answers its action even when it does not say so (`cause`), so
/// pairs without ids get ids of their own (negative, never clashing with OpenHands' ids).
#[derive(Default)]
struct Unfold {
    /// Items of the list that are not events.
    skipped: usize,
    next_free_id: i64,
}

impl Unfold {
    fn push(&mut self, item: HistoryItem, out: &mut dyn FnMut(RawEvent)) {
        match item {
            HistoryItem::Event(event) => out(*event),
            HistoryItem::Pair(pair) => {
                let [HistoryItem::Event(action), HistoryItem::Event(observation)] =
                    <[HistoryItem; 2]>::try_from(pair)
                        .unwrap_or([HistoryItem::Other, HistoryItem::Other])
                else {
                    self.skipped += 1;
                    return;
                };
                let (mut action, mut observation) = (*action, *observation);
                if action.source.0.is_empty() && action.action().is_some() {
                    action.source.0 = "agent".into();
                }
                if observation.cause.is_none() {
                    let id = *action.id.get_or_insert_with(|| {
                        self.next_free_id -= 1;
                        self.next_free_id
                    });
                    observation.cause = Some(id);
                }
                out(action);
                out(observation);
            }
            HistoryItem::Other => self.skipped += 1,
        }
    }
}

/// A session's events read one item of the list at a time, each built into the trajectory
/// as it comes ([`history::Builder`]), never held: the whole read above, and the bounded
/// read ([`super::stream`]), which hands over each slimmed item and may have the steps let
/// go as they settle ([`Events::releasing`]).
#[derive(Default)]
pub struct Events {
    unfold: Unfold,
    /// Started at the first item (the trajectory needs the file's path).
    builder: Option<history::Builder>,
    events: usize,
    release: bool,
    keep_pool: bool,
}

impl Events {
    /// Events whose steps are let go as they settle ([`Events::take_released`]): without
    /// the message pool, what a listing or a tally of a big event list reads; with it
    /// (`keep_pool`), what the lazy open's index packs step by step.
    pub fn releasing(keep_pool: bool) -> Events {
        Events {
            release: true,
            keep_pool,
            ..Events::default()
        }
    }

    /// Reads one item of the list, the text of which starts on line `line` of `path`.
    pub fn item(&mut self, path: &Path, line: usize, bytes: &[u8]) -> Result<(), LoadError> {
        let item = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(path, &err, line.saturating_sub(1)))?;
        self.push(path, item);
        Ok(())
    }

    fn push(&mut self, path: &Path, item: HistoryItem) {
        let (release, keep_pool) = (self.release, self.keep_pool);
        let builder = self.builder.get_or_insert_with(|| {
            let mut builder = history::Builder::new(Trajectory::new(path, Format::OpenHands));
            if release {
                builder.release_steps(keep_pool);
            }
            builder
        });
        let events = &mut self.events;
        self.unfold.push(item, &mut |event| {
            *events += 1;
            builder.event(&event);
        });
    }

    /// The steps let go since the last call (none unless [`Events::releasing`]).
    pub fn take_released(&mut self) -> Vec<crate::model::Step> {
        self.builder
            .as_mut()
            .map(history::Builder::take_released)
            .unwrap_or_default()
    }

    pub fn finish(self, path: &Path) -> Result<Trajectory, LoadError> {
        let Some(builder) = self.builder.filter(|_| self.events > 0) else {
            return Err(LoadError::invalid(
                path,
                "an OpenHands event list without events",
            ));
        };
        let mut trajectory = builder.finish();
        trajectory.format_detail = Some("events".into());
        if self.unfold.skipped > 0 {
            // First, as when the whole list was read before its steps were built.
            trajectory.warnings.insert(
                0,
                format!(
                    "{} item(s) of the list are not events; skipped",
                    self.unfold.skipped
                ),
            );
        }
        Ok(trajectory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Exactness, Role};
    use serde_json::{Value, json};

    fn load(value: Value) -> Trajectory {
        let bytes = serde_json::to_vec(&value).unwrap();
        let mut ts = parse(Path::new("trajs/session.json"), &bytes).unwrap();
        assert_eq!(ts.len(), 1);
        let mut t = ts.remove(0);
        t.number_steps();
        t
    }

    fn response(id: &str, text: &str, calls: Value, prompt: u64) -> Value {
        json!({"id": id, "model": "claude-x", "choices": [{"message": {"role": "assistant", "content": text, "tool_calls": calls}}],
               "usage": {"prompt_tokens": prompt, "completion_tokens": 5}})
    }

    #[test]
    fn actions_and_observations_linked_by_cause() {
        let call = |id: &str, cmd: &str| json!({"id": id, "type": "function", "function": {"name": "execute_bash", "arguments": format!("{{\"command\": \"{cmd}\"}}")}});
        let r1 = response("r1", "Look first.", json!([call("t1", "ls")]), 100);
        let r2 = response(
            "r2",
            "",
            json!([{"id": "t2", "type": "function", "function": {"name": "finish", "arguments": "{\"message\": \"done\"}"}}]),
            150,
        );
        let t = load(json!([
            {"id": 0, "timestamp": "2025-01-27T22:44:56.9", "source": "user", "action": "message", "args": {"content": "List the files"}},
            {"id": 3, "timestamp": "2025-01-27T22:45:00.0", "source": "agent", "action": "run", "args": {"command": "ls", "thought": "Look first."},
             "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1", "model_response": r1},
             "llm_metrics": {"accumulated_cost": 0.25, "accumulated_token_usage": {"prompt_tokens": 100, "completion_tokens": 5}}},
            {"id": 4, "timestamp": "2025-01-27T22:45:01.5", "source": "agent", "observation": "run", "cause": 3, "content": "a.py",
             "extras": {"metadata": {"exit_code": 0, "suffix": "\n[The command completed with exit code 0.]"}},
             "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1"}},
            {"id": 5, "source": "agent", "action": "finish", "args": {"final_thought": "done", "task_completed": "true", "thought": ""},
             "tool_call_metadata": {"function_name": "finish", "tool_call_id": "t2", "model_response": r2},
             "llm_metrics": {"accumulated_cost": 0.5, "accumulated_token_usage": {"prompt_tokens": 250, "completion_tokens": 10}}},
            {"id": 6, "source": "environment", "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "finished"}}
        ]));
        assert_eq!(t.format_detail.as_deref(), Some("events"));
        assert_eq!(t.task.as_deref(), Some("List the files"));
        assert_eq!(t.model.as_deref(), Some("claude-x"));
        assert_eq!(t.exit_status.as_deref(), Some("finished"));
        assert_eq!(t.steps.len(), 2);
        let run = &t.steps[0];
        assert_eq!(
            (run.tool.as_deref(), run.action.as_str()),
            (Some("execute_bash"), "ls")
        );
        assert_eq!(run.thought, "Look first.");
        // As the model read it, with the line OpenHands appends.
        assert_eq!(
            run.observation,
            "a.py\n[The command completed with exit code 0.]"
        );
        assert_eq!(run.exit_code, Some(0));
        assert_eq!(run.duration_s, Some(1.5));
        assert_eq!(run.usage.tokens_in, Some(100));
        assert_eq!(run.usage.cost, Some(0.25));
        assert_eq!(run.tool_calls[0].id.as_deref(), Some("t1"));
        let finish = &t.steps[1];
        assert_eq!(finish.action, "task_completed: true\ndone");
        assert_eq!(finish.usage.cost, Some(0.25));
        let context = finish.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Reconstructed);
        let chat = finish.context_messages(&t.messages);
        let roles: Vec<Role> = chat.iter().map(|m| m.role).collect();
        assert_eq!(roles, vec![Role::User, Role::Assistant, Role::Tool]);
        assert_eq!(chat[1].tool_calls[0].name, "execute_bash");
        assert_eq!(
            chat[2].content,
            "a.py\n[The command completed with exit code 0.]"
        );
        assert_eq!(chat[2].tool_call_id.as_deref(), Some("t1"));
        assert_eq!(t.total_usage().cost, Some(0.5));
    }

    #[test]
    fn one_response_with_two_calls_is_two_steps_with_one_context() {
        let calls = json!([
            {"id": "a", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"ls\"}"}},
            {"id": "b", "type": "function", "function": {"name": "execute_bash", "arguments": "{\"command\": \"pwd\"}"}}
        ]);
        let r = response("r", "Two at once.", calls, 40);
        let meta = |id: &str| json!({"function_name": "execute_bash", "tool_call_id": id, "model_response": r.clone()});
        let t = load(json!([
            {"id": 1, "source": "user", "action": "message", "args": {"content": "go"}},
            {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls"}, "tool_call_metadata": meta("a")},
            {"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "x"},
            {"id": 4, "source": "agent", "action": "run", "args": {"command": "pwd"}, "tool_call_metadata": meta("b")},
            {"id": 5, "source": "agent", "observation": "run", "cause": 4, "content": "/w"}
        ]));
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[0].context, t.steps[1].context);
        assert_eq!(t.steps[1].tool_calls[0].id.as_deref(), Some("b"));
        assert_eq!(
            t.total_usage().tokens_in,
            Some(40),
            "tokens counted once per response"
        );
        let assistant: Vec<&crate::model::Message> = t
            .messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .collect();
        assert_eq!(assistant.len(), 1);
        assert_eq!(assistant[0].tool_calls.len(), 2);
    }

    #[test]
    fn error_without_cause_is_a_rejected_answer() {
        let t = load(json!([
            {"id": 1, "source": "user", "action": "message", "args": {"content": "go"}},
            {"id": 2, "source": "agent", "observation": "error", "content": "Parameter 'command' is expected to be one of ['view']."},
            {"id": 3, "source": "agent", "action": "message", "args": {"content": "Sorry, done.", "wait_for_response": true}}
        ]));
        assert_eq!(t.steps.len(), 2);
        assert!(t.steps[0].failed);
        assert_eq!(t.steps[0].tool.as_deref(), Some("(error)"));
        assert_eq!(t.steps[1].thought, "Sorry, done.");
        assert_eq!(t.steps[1].tool.as_deref(), Some("message"));
        let chat = t.steps[1].context_messages(&t.messages);
        assert!(
            chat[1]
                .content
                .ends_with("[Error occurred in processing last action]")
        );
        assert_eq!(t.exit_status, None);
    }

    #[test]
    fn condensation_drops_forgotten_events_from_later_contexts() {
        let t = load(json!([
            {"id": 1, "source": "user", "action": "message", "args": {"content": "go"}},
            {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls"}},
            {"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "big output"},
            {"id": 4, "source": "agent", "action": "condensation", "args": {"forgotten_event_ids": [2, 3], "summary": "Listed files.", "summary_offset": 1}},
            {"id": 5, "source": "agent", "action": "run", "args": {"command": "pwd"}}
        ]));
        let chat = t.steps[1].context_messages(&t.messages);
        let texts: Vec<&str> = chat.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, vec!["go", "Listed files."]);
        assert_eq!(t.steps[0].observation, "big output");
    }

    #[test]
    fn old_pair_histories() {
        let t = load(json!([
            [{"action": "run", "args": {"command": "ls", "thought": "look"}}, {"observation": "run", "content": "a.py", "extras": {"exit_code": 0}}],
            [{"source": "agent", "action": "finish", "args": {}}, {"observation": "null", "content": ""}]
        ]));
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[0].observation, "a.py");
        assert_eq!(t.steps[0].exit_code, Some(0));
        assert_eq!(t.exit_status.as_deref(), Some("finished"));
    }

    #[test]
    fn odd_input_is_an_error_or_a_warning_never_a_panic() {
        assert!(parse(Path::new("e.json"), b"[]").is_err());
        assert!(parse(Path::new("e.json"), b"[1, 2]").is_err());
        assert!(parse(Path::new("e.json"), b"[{\"action\": ").is_err());
        assert!(parse(Path::new("e.json"), b"  ").is_err());
        let t = load(
            json!([{"id": 9, "source": "agent", "observation": "run", "cause": 8, "content": "?"}, 5]),
        );
        assert!(t.steps.is_empty());
        assert!(
            t.warnings.iter().any(|w| w.contains("not events")),
            "{:?}",
            t.warnings
        );
        assert!(
            t.warnings.iter().any(|w| w.contains("answer no action")),
            "{:?}",
            t.warnings
        );
    }
}
