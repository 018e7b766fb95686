//! From a model answer to what the environment must do: OpenAI/Anthropic tool calls, SWE-agent
//! thought + one fenced command, mini-swe-agent's exactly-one ```` ```bash ```` block, Llama
//! pythonic `[func(a=b)]` calls. An answer the agent would reject becomes a [`FormatError`]
//! carrying the message the original agent sends back.
//!
//! Pure: no execution here.

mod fenced;
mod swe_command;

use super::dialect::{Agent, Dialect};
use super::template;
use crate::model::{Message, ToolCall};
use serde_json::{Map, Value, json};

pub use swe_command::{WINDOWED_COMMANDS, swe_command};

/// What the agent asked the environment to do.
#[derive(Debug, Clone, PartialEq)]
pub enum EnvAction {
    /// A bash command, run the way the agent runs commands.
    Shell { command: String },
    /// A tool with arguments: SWE-agent's `open`/`edit`/…, `str_replace_editor`, Claude Code's
    /// `Read`/`Edit`/…, the Llama agent's `view_file`/….
    Tool {
        name: String,
        args: Map<String, Value>,
    },
    /// The agent ends its run (`submit`, `finish`).
    Submit,
    /// The agent answers this call with an error of its own without running anything (a
    /// tool call it could not parse).
    Reject { message: String },
}

impl EnvAction {
    pub fn tool(name: &str, args: Value) -> EnvAction {
        EnvAction::Tool {
            name: name.to_string(),
            args: match args {
                Value::Object(map) => map,
                _ => Map::new(),
            },
        }
    }

    /// One line for reports: the command, or `name(args)`.
    pub fn summary(&self) -> String {
        let line = match self {
            EnvAction::Shell { command } => command.clone(),
            EnvAction::Tool { name, args } => format!("{name} {}", Value::Object(args.clone())),
            EnvAction::Submit => "submit".into(),
            EnvAction::Reject { message } => format!("(rejected) {message}"),
        };
        line.lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect()
    }
}

/// An action and the tool call it answers, when it came from one.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: Option<String>,
    pub action: EnvAction,
}

/// An answer the agent would not accept, with the message it sends back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatError {
    pub message: String,
    /// Why, for people (not sent to the model).
    pub reason: String,
}

const SWE_AGENT_FORMAT: &str = "Your output was not formatted correctly. You must always include one discussion and one command as part of your response. Make sure you do not have multiple discussion/command tags.\nPlease make sure your output precisely matches the following format:\nDISCUSSION\nDiscuss here with yourself about what your planning and what you're going to do in this step.\n\n```\ncommand(s) that you're going to run\n```\n";
const SWE_AGENT_NO_CALL: &str = "Your last output did not use any tool calls!\nPlease make sure your output includes exactly _ONE_ function call!\nYou must invoke the function directly using the function call format.\nYou cannot invoke commands with ```, you have to use the function call format.\nIf you think you have already resolved the issue, please submit your changes by running the `submit` command.\nIf you think you cannot solve the problem, please run `exit_forfeit` (if available) or `submit`.\nElse, please continue with a new tool call!";
const SWE_AGENT_MANY_CALLS: &str = "Your last output included multiple tool calls!\nPlease make sure your output includes a thought and exactly _ONE_ function call.";
const OPENHANDS_NO_CALL: &str = "Please continue working on the task on whatever approach you think is suitable.\nIf you think you have solved the task, please first send your answer to user through message and then finish the interaction.\nIMPORTANT: YOU SHOULD NEVER ASK FOR HUMAN HELP.\n";
const GENERIC_NO_CALL: &str = "Please proceed to the next step using your best judgement. If you believe you have completed the task, please call the `submit()` tool.";
const MINI_NO_TOOL_CALL: &str =
    "No tool calls found in the response. Every response MUST include at least one tool call.";

fn error(message: impl Into<String>, reason: impl Into<String>) -> FormatError {
    FormatError {
        message: message.into(),
        reason: reason.into(),
    }
}

/// What the model's `answer` asks for, per `dialect`; several calls for agents that allow
/// parallel tool calls, none for a Llama answer without calls (the agent simply asks again).
pub fn parse_answer(dialect: &Dialect, answer: &Message) -> Result<Vec<Call>, FormatError> {
    if !answer.tool_calls.is_empty() {
        if dialect.agent == Agent::SweAgent && answer.tool_calls.len() > 1 {
            return Err(swe_agent_error(dialect, "multiple", SWE_AGENT_MANY_CALLS));
        }
        return Ok(answer
            .tool_calls
            .iter()
            .map(|c| from_tool_call(dialect, c))
            .collect());
    }
    let text = answer.content.as_str();
    match dialect.agent {
        Agent::SweAgent if dialect.tool_calls => {
            Err(swe_agent_error(dialect, "missing", SWE_AGENT_NO_CALL))
        }
        Agent::SweAgent => {
            let command = fenced::swe_agent_action(text)
                .ok_or_else(|| swe_agent_error(dialect, "missing", SWE_AGENT_FORMAT))?;
            Ok(vec![Call {
                id: None,
                action: swe_command(&command),
            }])
        }
        Agent::MiniSweAgent if dialect.tool_calls => Err(error(MINI_NO_TOOL_CALL, "no tool call")),
        Agent::MiniSweAgent => {
            let actions = fenced::regex_actions(&dialect.action_regex, text);
            if actions.len() != 1 {
                let vars = json!({"actions": actions});
                let message = template::render(&dialect.format_error_template, &vars)
                    .unwrap_or_else(|e| e.to_string());
                return Err(error(message, format!("{} command blocks", actions.len())));
            }
            Ok(vec![Call {
                id: None,
                action: EnvAction::Shell {
                    command: actions[0].trim().to_string(),
                },
            }])
        }
        Agent::Llama => Ok(llama_calls(text)),
        Agent::ClaudeCode => Ok(vec![Call {
            id: None,
            action: EnvAction::Submit,
        }]),
        Agent::OpenHands => Err(error(OPENHANDS_NO_CALL, "no tool call")),
        Agent::Generic => Err(error(GENERIC_NO_CALL, "no tool call")),
    }
}

/// SWE-agent's format error: the log's own template when it has one, else the default.
fn swe_agent_error(dialect: &Dialect, code: &str, default: &str) -> FormatError {
    let reason = match code {
        "multiple" => "more than one tool call",
        _ if dialect.tool_calls => "no tool call",
        _ => "no command block",
    };
    let message = dialect
        .swe_format_error
        .as_deref()
        .and_then(|t| {
            let vars = json!({"error_code": code, "exception_message": reason});
            template::render(t, &vars).ok()
        })
        .unwrap_or_else(|| default.to_string());
    error(message, reason)
}

/// Pythonic calls of the Llama agent's tools in a text answer, in the order written.
fn llama_calls(text: &str) -> Vec<Call> {
    let names = ["list_files", "view_file", "edit_file", "finish"];
    let mut found: Vec<(usize, Call)> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (name, args) in crate::diff::pythonic_calls(text, &names) {
        // The k-th call of a name stands at that name's k-th call site.
        let k = match seen.iter_mut().find(|(n, _)| *n == name) {
            Some((_, count)) => {
                *count += 1;
                *count - 1
            }
            None => {
                seen.push((name.clone(), 1));
                0
            }
        };
        let at = call_sites(text, &name).nth(k).unwrap_or(usize::MAX);
        let action = match args
            .as_deref()
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
        {
            Some(args) => EnvAction::tool(&name, args),
            None => EnvAction::Reject {
                message: format!(
                    "ERROR - Could not parse tool call: Tool call invalid syntax: {name}(…)"
                ),
            },
        };
        found.push((at, Call { id: None, action }));
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, c)| c).collect()
}

/// Byte offsets of `name(` where it is not the tail of a longer name or a method.
fn call_sites<'a>(text: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let needle = format!("{name}(");
    text.match_indices(&needle)
        .map(|(i, _)| i)
        .filter(move |&i| {
            !text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        })
        .collect::<Vec<_>>()
        .into_iter()
}

/// One tool call as an action, per the agent's tool names.
pub fn from_tool_call(dialect: &Dialect, call: &ToolCall) -> Call {
    let args: Map<String, Value> = match call.arguments_json() {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let command = || {
        args.get("command")
            .or_else(|| args.get("cmd"))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                // Codex's `shell` tool: `["bash", "-lc", "…"]`.
                Value::Array(words) => shell_words(words),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let name = call.name.as_str();
    let action = match name {
        "bash" | "Bash" | "execute_bash" | "shell" | "run" | "run_command" | "execute_command"
        | "terminal" | "exec_command" | "local_shell" => EnvAction::Shell { command: command() },
        "submit" | "finish" | "exit_forfeit" if dialect.agent != Agent::Llama => EnvAction::Submit,
        "finish" => EnvAction::tool("finish", Value::Object(args)),
        _ if dialect.agent == Agent::SweAgent && name != "str_replace_editor" => {
            swe_command::from_function_call(name, &args)
        }
        _ => EnvAction::Tool {
            name: name.to_string(),
            args,
        },
    };
    Call {
        id: call.id.clone(),
        action,
    }
}

/// A command given as a word list: the script of `bash -lc SCRIPT`, else the words joined.
fn shell_words(words: &[Value]) -> String {
    let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
    match words.as_slice() {
        [shell, flag, script]
            if shell.ends_with("sh") && flag.starts_with('-') && flag.contains('c') =>
        {
            script.to_string()
        }
        _ => words
            .iter()
            .map(|w| super::shell::quote(w))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

#[cfg(test)]
mod tests;
