//! What the model is sent at step k of a recorded trajectory: the context the log stores
//! (exact), or one rebuilt from the steps before k (reconstructed, and labelled so), and the
//! tools a tool-calling agent offered.

use crate::backend::ToolSpec;
use crate::model::{Exactness, Message, Role, Trajectory};
use serde_json::{Map, Value, json};

/// The messages for step `k` and how faithful they are.
#[derive(Debug, Clone, PartialEq)]
pub struct StepInput {
    pub messages: Vec<Message>,
    pub exactness: Exactness,
    /// Why the context is not exact, for people.
    pub note: Option<String>,
}

/// The context at 1-based step `k` (`k` may be one past the last step: continuing after the
/// end). `None` when `k` is out of range.
pub fn context_at(t: &Trajectory, k: usize) -> Option<StepInput> {
    if k == 0 || k > t.steps.len() + 1 {
        return None;
    }
    if let Some(step) = t.step(k)
        && let Some(context) = &step.context
    {
        let messages: Vec<Message> = step
            .context_messages(&t.messages)
            .into_iter()
            .cloned()
            .collect();
        if !messages.is_empty() {
            let note = (context.exactness == Exactness::Reconstructed)
                .then(|| "the log does not store what the model saw; rebuilt by its loader".into());
            return Some(StepInput {
                messages,
                exactness: context.exactness,
                note,
            });
        }
    }
    Some(rebuild(t, k))
}

/// The task, then each earlier step as an answer and the observation that followed.
fn rebuild(t: &Trajectory, k: usize) -> StepInput {
    let mut messages: Vec<Message> = t
        .messages
        .iter()
        .take_while(|m| matches!(m.role, Role::System | Role::User))
        .cloned()
        .collect();
    if messages.is_empty()
        && let Some(task) = &t.task
    {
        messages.push(Message::user(task.clone()));
    }
    for step in t.steps.iter().take(k - 1) {
        let text = if step.response.trim().is_empty() {
            [step.thought.trim(), step.action.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        } else {
            step.response.clone()
        };
        let mut answer = Message::assistant(text);
        answer.tool_calls = step.tool_calls.clone();
        let ids: Vec<Option<String>> = answer.tool_calls.iter().map(|c| c.id.clone()).collect();
        messages.push(answer);
        match ids.first() {
            Some(id) => {
                let mut reply = Message::tool(step.observation.clone());
                reply.tool_call_id = id.clone();
                messages.push(reply);
            }
            None => messages.push(Message::user(step.observation.clone())),
        }
    }
    StepInput {
        messages,
        exactness: Exactness::Reconstructed,
        note: Some(
            "rebuilt from the task and the earlier steps' answers and observations; the agent's own prompt templates are not re-applied".into(),
        ),
    }
}

/// The tools a tool-calling trajectory used, with a schema inferred from the arguments it
/// passed (the log does not keep the agent's tool definitions): every argument seen becomes an
/// optional property of the type it had. Empty for text-mode agents.
pub fn tools_used(t: &Trajectory) -> Vec<ToolSpec> {
    let mut tools: Vec<(String, Map<String, Value>)> = Vec::new();
    let calls = t
        .steps
        .iter()
        .flat_map(|s| s.tool_calls.iter())
        .chain(t.messages.iter().flat_map(|m| m.tool_calls.iter()));
    for call in calls {
        let index = match tools.iter().position(|(n, _)| *n == call.name) {
            Some(i) => i,
            None => {
                tools.push((call.name.clone(), Map::new()));
                tools.len() - 1
            }
        };
        if let Some(Value::Object(args)) = call.arguments_json() {
            for (key, value) in args {
                let kind = match value {
                    Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
                    Value::Number(_) => "number",
                    Value::Bool(_) => "boolean",
                    Value::Array(_) => "array",
                    Value::Object(_) => "object",
                    _ => "string",
                };
                tools[index]
                    .1
                    .entry(key)
                    .or_insert_with(|| json!({ "type": kind }));
            }
        }
    }
    tools
        .into_iter()
        .map(|(name, properties)| ToolSpec {
            name,
            description: Some("(schema inferred by trajscope from the calls in the log)".into()),
            parameters: json!({ "type": "object", "properties": properties }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::model::{Format, Step, ToolCall};

    #[test]
    fn a_log_without_contexts_is_rebuilt_and_labelled() {
        let mut t = Trajectory::new("x.json", Format::ChatMessages);
        t.task = Some("fix it".into());
        t.steps.push(Step {
            index: 1,
            thought: "look".into(),
            action: "ls".into(),
            observation: "a.py".into(),
            ..Step::default()
        });
        t.steps.push(Step {
            index: 2,
            ..Step::default()
        });
        let input = context_at(&t, 2).unwrap();
        assert_eq!(input.exactness, Exactness::Reconstructed);
        let texts: Vec<&str> = input.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, vec!["fix it", "look\n\nls", "a.py"]);
        assert!(context_at(&t, 0).is_none());
        assert!(context_at(&t, 4).is_none());
        assert_eq!(context_at(&t, 3).unwrap().messages.len(), 5);
    }

    #[test]
    fn tool_schemas_come_from_the_arguments_seen() {
        let mut t = Trajectory::new("x.json", Format::ChatMessages);
        t.steps.push(Step {
            tool_calls: vec![
                ToolCall::new("bash", r#"{"command":"ls"}"#),
                ToolCall::new("view", r#"{"path":"a","line":3}"#),
            ],
            ..Step::default()
        });
        let tools = tools_used(&t);
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[1].parameters["properties"]["line"]["type"], "integer");
        assert_eq!(
            tools[0].parameters["properties"]["command"]["type"],
            "string"
        );
    }
}
