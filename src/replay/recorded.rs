//! What a recorded step did, as actions that can be carried out again: its tool calls, or its
//! text action read the way its agent read it. A step whose answer the agent rejected is its
//! format error, so that replaying it checks the parser too.

use super::action::{self, Call, EnvAction, FormatError};
use super::dialect::{Agent, Dialect};
use crate::model::{Message, Step, Trajectory};
use regex::Regex;
use std::sync::LazyLock;

/// A recorded step, as something to replay.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// The actions it performed, in order.
    Calls(Vec<Call>),
    /// The agent rejected the model's answer with this message.
    FormatError(FormatError),
    /// The step did nothing in the environment (a message to the user, a final answer).
    Nothing,
}

/// The actions of `step`, per `dialect`.
pub fn recorded(dialect: &Dialect, step: &Step) -> Recorded {
    if !step.tool_calls.is_empty() {
        return Recorded::Calls(
            step.tool_calls
                .iter()
                .map(|c| action::from_tool_call(dialect, c))
                .collect(),
        );
    }
    match dialect.agent {
        Agent::SweAgent => {
            if step.action.trim().is_empty() {
                Recorded::Nothing
            } else {
                Recorded::Calls(vec![Call {
                    id: None,
                    action: action::swe_command(&step.action),
                }])
            }
        }
        Agent::MiniSweAgent | Agent::Llama => {
            let text = if step.response.is_empty() {
                step.action.clone()
            } else {
                step.response.clone()
            };
            if text.trim().is_empty() {
                return Recorded::Nothing;
            }
            if step.response.is_empty() && dialect.agent == Agent::MiniSweAgent {
                return Recorded::Calls(vec![Call {
                    id: None,
                    action: EnvAction::Shell {
                        command: step.action.clone(),
                    },
                }]);
            }
            match action::parse_answer(dialect, &Message::assistant(text)) {
                Ok(calls) if calls.is_empty() => Recorded::Nothing,
                Ok(calls) => Recorded::Calls(calls),
                Err(e) => Recorded::FormatError(e),
            }
        }
        _ => Recorded::Nothing,
    }
}

static COMMAND_LINE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([a-z_][a-z0-9_]*)(:$|:\s| |$)").ok());

/// The commands a SWE-agent system prompt documents in its `COMMANDS:` section (YAML-style
/// `name:` entries in 0.x, `name <args> - docstring` lines in forks such as CodeR), so that
/// agent-specific ones (CodeR's `rover_search_class`, `plan`) are recognised as tools rather
/// than run as unknown shell commands.
pub fn documented_commands(t: &Trajectory) -> Vec<String> {
    let Some(re) = COMMAND_LINE.as_ref() else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for m in t.messages.iter().take(50) {
        let Some(at) = m.content.find("COMMANDS:") else {
            continue;
        };
        for line in m.content[at + "COMMANDS:".len()..].lines().skip(1) {
            // The section ends at the next heading or paragraph of prose.
            if line.starts_with(|c: char| c.is_uppercase()) {
                break;
            }
            if let Some(name) = re
                .captures(line)
                .and_then(|c| c.get(1))
                .map(|n| n.as_str().to_string())
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, ToolCall};
    use crate::replay::tools::Generation;
    use serde_json::json;

    #[test]
    fn swe_agent_steps_replay_their_logged_action() {
        let mut d = Dialect::new(Agent::SweAgent);
        d.generation = Generation::V0;
        let step = Step {
            action: "open src/marshmallow/fields.py 1474\n".into(),
            response: "Let's open it.\n```\nopen src/marshmallow/fields.py 1474\n```".into(),
            ..Step::default()
        };
        assert_eq!(
            recorded(&d, &step),
            Recorded::Calls(vec![Call {
                id: None,
                action: EnvAction::tool(
                    "open",
                    json!({"argv": ["src/marshmallow/fields.py", "1474"]})
                )
            }])
        );
        let calls = Step {
            tool_calls: vec![ToolCall::new(
                "bash",
                r#"{"command":"python tests/missing_colon.py"}"#,
            )],
            ..Step::default()
        };
        assert_eq!(
            recorded(&d, &calls),
            Recorded::Calls(vec![Call {
                id: None,
                action: EnvAction::Shell {
                    command: "python tests/missing_colon.py".into()
                }
            }])
        );
        assert_eq!(recorded(&d, &Step::default()), Recorded::Nothing);
    }

    #[test]
    fn mini_swe_agent_steps_reparse_the_response() {
        let d = Dialect::new(Agent::MiniSweAgent);
        let step = Step {
            action: "ls".into(),
            response: "THOUGHT: look\n\n```bash\nls\n```\n\n```bash\npwd\n```".into(),
            ..Step::default()
        };
        match recorded(&d, &step) {
            Recorded::FormatError(e) => assert!(e.message.contains("found 2 actions")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn documented_commands_come_from_the_system_prompt() {
        let mut t = Trajectory::new("x.traj", Format::SweAgent);
        t.messages.push(Message::system(
            "COMMANDS:\nopen:\n  docstring: opens a file\nrover_search_class:\n  docstring: finds a class\nplan:\n  signature: plan\n",
        ));
        assert_eq!(
            documented_commands(&t),
            ["open", "rover_search_class", "plan"]
        );
    }
}
