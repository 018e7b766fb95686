//! A sample's conversation → steps: each assistant message with the tool results (or the
//! user reply) that answered it, and the model call that produced it.
//!
//! The context of a step is the `input` of the model event whose output is the step's
//! message: exactly what was sent. Only when no such event is logged is the context
//! rebuilt from the conversation, and marked so. Works on pooled messages only.

use crate::model::{Exactness, Message, Role, Step, StepContext, ToolCall, Trajectory, Usage};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One model event of the solver (scorers' model calls are left out).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelCall {
    /// The messages sent, as pool indices.
    pub input: Vec<u32>,
    /// The message returned, as a pool index.
    pub output: Option<u32>,
    pub usage: Usage,
    pub timestamp: Option<String>,
}

/// What the steps need besides the conversation.
pub struct Sources<'a> {
    pub calls: &'a [ModelCall],
    /// Tool call id → seconds the tool ran.
    pub durations: &'a HashMap<String, f64>,
    /// Pool indices of tool results that carry an error.
    pub failed: &'a HashSet<u32>,
}

/// What could not be tied together.
#[derive(Debug, Default, PartialEq)]
pub struct Loose {
    /// Answers without a model event (their context is reconstructed).
    pub answers: usize,
    /// Tool results without their call.
    pub results: usize,
}

/// Adds the steps of `conversation` (pool indices in order) to `t`.
pub fn build(t: &mut Trajectory, conversation: &[u32], sources: &Sources) -> Loose {
    let messages = &t.messages;
    let mut steps: Vec<Step> = Vec::new();
    let mut open = false;
    let mut cursor = 0;
    let mut loose = Loose::default();
    let mut shared: Option<Arc<[u32]>> = None;
    for (i, &index) in conversation.iter().enumerate() {
        let Some(message) = messages.get(index as usize) else {
            continue;
        };
        match message.role {
            Role::Assistant => {
                let found = (cursor..sources.calls.len())
                    .find(|&j| answers(&sources.calls[j], index, message, messages));
                let mut step = answer_step(message);
                match found {
                    Some(j) => {
                        let call = &sources.calls[j];
                        cursor = j + 1;
                        step.context =
                            Some(StepContext::list(Exactness::Exact, call.input.clone()));
                        step.usage = call.usage;
                        step.timestamp = call.timestamp.clone();
                    }
                    None => {
                        loose.answers += usize::from(!sources.calls.is_empty());
                        // The conversation so far, shared by every rebuilt context: a copy
                        // per step cost n²/2 ids (2.3 GB for a 20 MB sample).
                        let shared = shared.get_or_insert_with(|| Arc::from(conversation));
                        step.context = Some(StepContext::shared(
                            Exactness::Reconstructed,
                            shared.clone(),
                            0,
                            i,
                        ));
                    }
                }
                steps.push(step);
                open = true;
            }
            Role::Tool => {
                let failed = sources.failed.contains(&index);
                let duration = message
                    .tool_call_id
                    .as_ref()
                    .and_then(|id| sources.durations.get(id))
                    .copied();
                match steps
                    .last_mut()
                    .filter(|s| open && answers_call(s, message))
                {
                    Some(step) => {
                        add_observation(step, &message.content);
                        step.failed |= failed;
                        if let Some(d) = duration {
                            step.duration_s = Some(step.duration_s.unwrap_or(0.0) + d);
                        }
                    }
                    // A tool result whose call is not in the log: shown on its own.
                    None => {
                        loose.results += 1;
                        steps.push(Step {
                            tool: message.name.clone(),
                            observation: message.content.clone(),
                            failed,
                            duration_s: duration,
                            ..Step::default()
                        });
                        open = false;
                    }
                }
            }
            Role::User => {
                // A reply to an answer without tool calls ("please continue") is what the
                // environment said back; otherwise user messages are context only.
                if let Some(step) = steps.last_mut().filter(|s| open && s.tool_calls.is_empty())
                    && step.observation.is_empty()
                {
                    step.observation = message.content.clone();
                }
            }
            Role::System => {}
        }
    }
    // Moved, not copied, when `t` has no steps yet: a copy held the steps twice at the end.
    if t.steps.is_empty() {
        t.steps = steps;
    } else {
        t.steps.extend(steps);
    }
    loose
}

/// Whether `call` produced the assistant message at pool `index`: the same pooled message,
/// or (when Inspect edited it after the call, e.g. adding `source`) the same text and calls.
fn answers(call: &ModelCall, index: u32, message: &Message, messages: &[Message]) -> bool {
    let Some(output) = call.output else {
        return false;
    };
    output == index
        || messages.get(output as usize).is_some_and(|o| {
            o.content.trim() == message.content.trim()
                && o.tool_calls
                    .iter()
                    .map(|c| (&c.id, &c.name))
                    .eq(message.tool_calls.iter().map(|c| (&c.id, &c.name)))
        })
}

fn answers_call(step: &Step, result: &Message) -> bool {
    match &result.tool_call_id {
        Some(id) => step.tool_calls.iter().any(|c| c.id.as_ref() == Some(id)),
        None => !step.tool_calls.is_empty(),
    }
}

fn add_observation(step: &mut Step, text: &str) {
    if !step.observation.is_empty() {
        step.observation.push('\n');
    }
    step.observation.push_str(text);
}

fn answer_step(message: &Message) -> Step {
    Step {
        thought: message.content.trim().to_string(),
        response: message.content.clone(),
        action: action_text(&message.tool_calls),
        tool: message.tool_calls.first().map(|c| c.name.clone()),
        tool_calls: message.tool_calls.clone(),
        ..Step::default()
    }
}

/// Commands and code as they are; other calls as their JSON arguments. Several calls are
/// prefixed with their tool's name.
fn action_text(calls: &[ToolCall]) -> String {
    let one = |call: &ToolCall| -> String {
        ["cmd", "command", "code"]
            .iter()
            .find_map(|key| call.argument(key))
            .unwrap_or_else(|| call.arguments.clone())
    };
    match calls {
        [] => String::new(),
        [call] => one(call),
        _ => calls
            .iter()
            .map(|c| format!("{}: {}", c.name, one(c)))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ContextMessages, Format, SharedIds};

    fn call(id: &str, name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: Some(id.into()),
            name: name.into(),
            arguments: args.into(),
        }
    }

    fn trajectory(messages: Vec<Message>) -> Trajectory {
        let mut t = Trajectory::new("s.eval", Format::InspectAi);
        t.messages = messages;
        t
    }

    #[test]
    fn steps_take_their_exact_context_from_the_matching_call() {
        let mut answer = Message::assistant("Listing.");
        answer.tool_calls = vec![call("c1", "bash", r#"{"cmd": "ls"}"#)];
        let mut result = Message::tool("a.py");
        result.tool_call_id = Some("c1".into());
        let mut t = trajectory(vec![
            Message::user("task"),
            answer,
            result,
            Message::assistant("Done."),
            Message::user("grade this"),
        ]);
        let calls = vec![
            ModelCall {
                input: vec![0],
                output: Some(1),
                usage: Usage {
                    tokens_in: Some(9),
                    ..Usage::default()
                },
                timestamp: Some("t1".into()),
            },
            ModelCall {
                input: vec![4],
                output: Some(4),
                ..ModelCall::default()
            },
            ModelCall {
                input: vec![0, 1, 2],
                output: Some(3),
                ..ModelCall::default()
            },
        ];
        let durations = HashMap::from([("c1".to_string(), 0.5)]);
        let failed = HashSet::from([2]);
        let loose = build(
            &mut t,
            &[0, 1, 2, 3],
            &Sources {
                calls: &calls,
                durations: &durations,
                failed: &failed,
            },
        );
        assert_eq!(loose, Loose::default());
        assert_eq!(t.steps.len(), 2);
        let s1 = &t.steps[0];
        assert_eq!(
            (
                s1.tool.as_deref(),
                s1.action.as_str(),
                s1.observation.as_str()
            ),
            (Some("bash"), "ls", "a.py")
        );
        assert!(s1.failed);
        assert_eq!(s1.duration_s, Some(0.5));
        assert_eq!(s1.usage.tokens_in, Some(9));
        assert_eq!(
            s1.context,
            Some(StepContext::list(Exactness::Exact, vec![0]))
        );
        let s2 = &t.steps[1];
        assert_eq!(
            s2.context,
            Some(StepContext::list(Exactness::Exact, vec![0, 1, 2]))
        );
    }

    #[test]
    fn answers_without_events_get_a_reconstructed_context() {
        let mut t = trajectory(vec![
            Message::system("sys"),
            Message::user("q"),
            Message::assistant("No"),
            Message::user("Please continue."),
        ]);
        let none = HashMap::new();
        let failed = HashSet::new();
        let loose = build(
            &mut t,
            &[0, 1, 2, 3],
            &Sources {
                calls: &[],
                durations: &none,
                failed: &failed,
            },
        );
        assert_eq!(loose.answers, 0, "no events at all is not a mismatch");
        let step = &t.steps[0];
        assert_eq!(step.thought, "No");
        assert_eq!(step.observation, "Please continue.");
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Reconstructed);
        assert_eq!(context.ids(&t.messages).collect::<Vec<_>>(), [0, 1]);
    }

    #[test]
    fn rebuilt_contexts_share_the_conversation() {
        // Equal messages are pooled once, so the conversation is not a run of the pool: a
        // copy of it per step grew as the square of its length.
        let mut answer = Message::assistant("Listing.");
        answer.tool_calls = vec![call("c1", "bash", r#"{"cmd": "ls"}"#)];
        let mut result = Message::tool("a.py");
        result.tool_call_id = Some("c1".into());
        let mut t = trajectory(vec![Message::user("task"), answer, result]);
        let rounds = 3000;
        let conversation: Vec<u32> = std::iter::once(0)
            .chain((0..rounds).flat_map(|_| [1, 2]))
            .collect();
        let none = HashMap::new();
        let failed = HashSet::new();
        build(
            &mut t,
            &conversation,
            &Sources {
                calls: &[],
                durations: &none,
                failed: &failed,
            },
        );
        assert_eq!(t.steps.len(), rounds);
        let windows: Vec<&SharedIds> = t
            .steps
            .iter()
            .filter_map(|s| match &s.context.as_ref()?.messages {
                ContextMessages::Shared(window) => Some(window),
                _ => None,
            })
            .collect();
        assert_eq!(windows.len(), rounds, "every rebuilt context is a window");
        assert!(windows.iter().all(|w| w.shares_list_with(windows[0])));
        for (n, step) in t.steps.iter().enumerate() {
            let ids: Vec<u32> = step.context.as_ref().unwrap().ids(&t.messages).collect();
            assert_eq!(ids, conversation[..=2 * n], "step {}", n + 1);
        }
    }

    #[test]
    fn tool_results_without_their_call_stand_alone() {
        let mut r1 = Message::tool("timed out");
        r1.tool_call_id = Some("x".into());
        r1.name = Some("bash".into());
        let mut t = trajectory(vec![r1.clone(), r1]);
        let none = HashMap::new();
        let failed = HashSet::from([0, 1]);
        let loose = build(
            &mut t,
            &[0, 1],
            &Sources {
                calls: &[],
                durations: &none,
                failed: &failed,
            },
        );
        assert_eq!(loose.results, 2);
        assert_eq!(t.steps.len(), 2);
        assert!(
            t.steps
                .iter()
                .all(|s| s.failed && s.tool.as_deref() == Some("bash") && s.context.is_none())
        );
    }

    #[test]
    fn several_calls_are_named() {
        let calls = [
            call("1", "bash", r#"{"cmd": "ls"}"#),
            call("2", "web_go", r#"{"url": "u"}"#),
        ];
        assert_eq!(action_text(&calls), "bash: ls\nweb_go: {\"url\": \"u\"}");
    }
}
