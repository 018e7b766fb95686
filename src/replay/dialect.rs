//! Which agent made a trajectory, and its conventions that replay must follow: how its
//! answers name actions, how it runs commands (a fresh shell each time or one session),
//! how it words observations, timeouts and format errors.
//!
//! Detection reads the trajectory; mini-swe-agent's own templates and environment settings
//! are read from its log file (`info.config`), so that a replayed observation is rendered
//! with the template the recorded run used.

use super::paths::{RootGuess, detect_root};
use super::template;
use super::tools::{Generation, ReplaceMessage};
use crate::model::{Format, Trajectory};
use serde_json::{Value, json};
use std::time::Duration;

/// The agent family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    SweAgent,
    MiniSweAgent,
    OpenHands,
    ClaudeCode,
    Llama,
    /// Tool-calling logs of other agents (Codex, Inspect, plain chat): a `bash`-like tool.
    Generic,
}

/// mini-swe-agent's defaults (`config/extra/swebench.yaml`), used when the log has none.
pub const MINI_OBSERVATION: &str = "<returncode>{{output.returncode}}</returncode>\n{% if output.output | length < 10000 -%}\n<output>\n{{ output.output -}}\n</output>\n{%- else -%}\n<warning>\nThe output of your last command was too long.\nPlease try a different command that produces less output.\nIf you're looking at a file you can try use head, tail or sed to view a smaller number of lines selectively.\nIf you're using grep or find and it produced too much output, you can use a more selective search pattern.\nIf you really need to see something from the full command's output, you can redirect output to a file and then search in that file.\n</warning>\n{%- set elided_chars = output.output | length - 10000 -%}\n<output_head>\n{{ output.output[:5000] }}\n</output_head>\n<elided_chars>\n{{ elided_chars }} characters elided\n</elided_chars>\n<output_tail>\n{{ output.output[-5000:] }}\n</output_tail>\n{%- endif -%}";
pub const MINI_FORMAT_ERROR: &str = "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.\n\nPlease format your action in triple backticks as shown in <response_example>.\n\n<response_example>\nHere are some thoughts about why you want to perform the action.\n\n```bash\n<action>\n```\n</response_example>\n\nIf you have completed your assignment, please consult the first message about how to\nsubmit your solution (you will not be able to continue working on this task after that).";
/// SWE-agent's default review message (`config/anthropic_filemap.yaml`,
/// `SUBMIT_REVIEW_MESSAGES`), used by the `review_on_submit_m` bundle.
pub const SWE_AGENT_REVIEW: &str = "Thank you for your work on this issue. Please carefully follow the steps below to help review your changes.\n\n1. If you made any changes to your code after running the reproduction script, please run the reproduction script again.\n  If the reproduction script is failing, please revisit your changes and make sure they are correct.\n  If you have already removed your reproduction script, please ignore this step.\n2. Remove your reproduction script (if you haven't done so already).\n3. If you have modified any TEST files, please revert them to the state they had before you started fixing the issue.\n  You can do this with `git checkout -- /path/to/test/file.py`. Use below <diff> to find the files you need to revert.\n4. Run the submit command again to confirm.\n\nHere is a list of all of your changes:\n\n<diff>\n{{diff}}\n</diff>\n";
pub const MINI_TIMEOUT: &str = "The last command <command>{{action['action']}}</command> timed out and has been killed.\nThe output of the command was:\n <output>\n{{output}}\n</output>\nPlease try another command and make sure to avoid those requiring interactive input.";

/// An agent's conventions.
#[derive(Debug, Clone, PartialEq)]
pub struct Dialect {
    pub agent: Agent,
    /// SWE-agent's tool generation (0.x bash functions or 1.x Python tools).
    pub generation: Generation,
    /// SWE-agent 1.x: the wording of a successful `edit` (it changed between releases).
    pub replace_message: ReplaceMessage,
    /// The agent acts through function calls rather than text.
    pub tool_calls: bool,
    /// mini-swe-agent text mode: the regex its actions must match exactly once.
    pub action_regex: String,
    pub observation_template: String,
    pub format_error_template: String,
    pub timeout_template: String,
    /// SWE-agent 1.x: its own format error template (`agent.tools.format_error_template`).
    pub swe_format_error: Option<String>,
    /// SWE-agent 1.x `review_on_submit`: the messages the first `submit`s answer with, in turn,
    /// before the one that submits (`{{diff}}` is the patch).
    pub review_messages: Vec<String>,
    /// SWE-agent's window height and scroll overlap (`WINDOW`, `OVERLAP`).
    pub window: i64,
    pub overlap: Option<i64>,
    /// The working directory the agent's configuration names (mini-swe-agent `cwd`).
    pub configured_cwd: Option<String>,
    /// One shell session for the whole run (state persists) instead of `bash -c` per command.
    pub persistent_shell: bool,
    pub timeout: Duration,
    pub env: Vec<(String, String)>,
}

impl Dialect {
    /// The conventions of `agent`, with its defaults.
    pub fn new(agent: Agent) -> Dialect {
        Dialect {
            agent,
            generation: Generation::V1,
            replace_message: ReplaceMessage::Checklist,
            tool_calls: !matches!(agent, Agent::SweAgent | Agent::MiniSweAgent | Agent::Llama),
            action_regex: r"(?s)```bash\s*\n(.*?)\n```".into(),
            observation_template: MINI_OBSERVATION.into(),
            format_error_template: MINI_FORMAT_ERROR.into(),
            timeout_template: MINI_TIMEOUT.into(),
            swe_format_error: None,
            review_messages: Vec::new(),
            window: 100,
            overlap: None,
            configured_cwd: None,
            persistent_shell: !matches!(agent, Agent::MiniSweAgent | Agent::Generic),
            timeout: Duration::from_secs(match agent {
                Agent::MiniSweAgent => 60,
                Agent::ClaudeCode => 120,
                Agent::SweAgent | Agent::OpenHands | Agent::Llama | Agent::Generic => 30,
            }),
            env: super::shell::quiet_env(),
        }
    }

    /// The conventions of the agent that wrote `t`.
    pub fn of(t: &Trajectory) -> Dialect {
        let agent = match t.format {
            Format::SweAgent => Agent::SweAgent,
            Format::MiniSweAgent => Agent::MiniSweAgent,
            Format::OpenHands => Agent::OpenHands,
            Format::ClaudeCode => Agent::ClaudeCode,
            Format::LlamaPrompt => Agent::Llama,
            // The interactive CLIs' tools are called by name with JSON arguments.
            Format::GeminiCli
            | Format::CopilotCli
            | Format::KimiCli
            | Format::Cursor
            | Format::OpenCode
            | Format::Droid
            | Format::HfTrace
            | Format::OtelGenai => Agent::Generic,
            // No replay conventions of their own known: the generic ones.
            Format::InspectAi
            | Format::Codex
            | Format::Aider
            | Format::ChatMessages
            | Format::Trajscope => Agent::Generic,
        };
        let mut d = Dialect::new(agent);
        let any_calls = t.steps.iter().any(|s| !s.tool_calls.is_empty());
        match agent {
            Agent::SweAgent => {
                d.generation = swe_agent_generation(t, any_calls);
                d.replace_message = replace_message(t);
                d.tool_calls = any_calls;
                if let Some(file) = read_json(&t.path) {
                    d.read_swe_agent_config(&file);
                }
            }
            Agent::ClaudeCode | Agent::Generic => d.configured_cwd = logged_cwd(&t.path),
            Agent::MiniSweAgent => {
                d.tool_calls = any_calls;
                if any_calls {
                    d.format_error_template = "{{ error }}".into();
                }
                d.read_mini_config(t);
            }
            Agent::OpenHands | Agent::Llama => {}
        }
        d
    }

    /// Where the recorded agent worked: its configured working directory, else what
    /// [`detect_root`] reads from the log.
    pub fn recorded_root(&self, t: &Trajectory) -> Option<RootGuess> {
        match &self.configured_cwd {
            Some(cwd) => Some(RootGuess {
                path: cwd.clone(),
                evidence: "the agent's configured working directory",
            }),
            None => detect_root(t),
        }
    }

    /// SWE-agent 1.x keeps its configuration in `replay_config` (an object or a JSON string).
    fn read_swe_agent_config(&mut self, file: &Value) {
        let config = match file.get("replay_config") {
            Some(Value::String(s)) => serde_json::from_str::<Value>(s).unwrap_or(Value::Null),
            Some(v) => v.clone(),
            None => return,
        };
        let Some(tools) = config.pointer("/agent/tools") else {
            return;
        };
        if let Some(t) = tools.get("format_error_template").and_then(Value::as_str) {
            self.swe_format_error = Some(t.to_string());
        }
        let env = tools.get("env_variables");
        let int = |k: &str| {
            env.and_then(|e| e.get(k))
                .and_then(|v| v.as_i64().or_else(|| v.as_str()?.parse().ok()))
        };
        if let Some(w) = int("WINDOW") {
            self.window = w;
        }
        self.overlap = int("OVERLAP");
        let reviews = tools
            .pointer("/registry_variables/SUBMIT_REVIEW_MESSAGES")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|m| m.as_str().map(String::from))
                    .collect::<Vec<_>>()
            });
        let bundled = tools
            .get("bundles")
            .and_then(Value::as_array)
            .is_some_and(|b| {
                b.iter().any(|x| {
                    x.get("path")
                        .and_then(Value::as_str)
                        .is_some_and(|p| p.contains("review_on_submit"))
                })
            });
        self.review_messages = match reviews {
            Some(messages) => messages,
            None if bundled => vec![SWE_AGENT_REVIEW.to_string()],
            None => Vec::new(),
        };
    }

    /// mini-swe-agent keeps its templates and environment in `info.config`.
    fn read_mini_config(&mut self, t: &Trajectory) {
        let Some(file) = read_json(&t.path) else {
            return;
        };
        let Some(config) = file.pointer("/info/config") else {
            return;
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(String::from);
        let agent = config.get("agent");
        let model = config.get("model");
        let pick = |key: &str| {
            text(agent.and_then(|a| a.get(key))).or_else(|| text(model.and_then(|m| m.get(key))))
        };
        if let Some(t) =
            pick("action_observation_template").or_else(|| pick("observation_template"))
        {
            self.observation_template = t;
        }
        if let Some(t) = pick("format_error_template") {
            self.format_error_template = t;
        }
        if let Some(t) = pick("timeout_template") {
            self.timeout_template = t;
        }
        if let Some(r) = pick("action_regex") {
            self.action_regex = format!("(?s){r}");
        } else if file.to_string().contains("mswea_bash_command") {
            self.action_regex = r"(?s)```mswea_bash_command\s*\n(.*?)\n```".into();
        }
        let env = config.get("environment");
        self.configured_cwd = env
            .and_then(|e| e.get("cwd"))
            .and_then(Value::as_str)
            .filter(|c| c.starts_with('/'))
            .map(|c| c.trim_end_matches('/').to_string())
            .filter(|c| !c.is_empty());
        if let Some(secs) = env.and_then(|e| e.get("timeout")).and_then(Value::as_u64) {
            self.timeout = Duration::from_secs(secs);
        }
        if let Some(vars) = env.and_then(|e| e.get("env")).and_then(Value::as_object) {
            self.env = vars
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect();
        }
    }

    /// The observation the agent would show for a shell command's result.
    pub fn shell_observation(
        &self,
        command: &str,
        output: &str,
        code: Option<i32>,
        timed_out: bool,
    ) -> String {
        match self.agent {
            Agent::MiniSweAgent => {
                if timed_out {
                    let vars = json!({"action": {"action": command}, "output": output});
                    return template::render(&self.timeout_template, &vars)
                        .unwrap_or_else(|e| e.to_string());
                }
                let vars = json!({"output": {"returncode": code.unwrap_or(-1), "output": output, "exception_info": ""}});
                template::render(&self.observation_template, &vars)
                    .unwrap_or_else(|e| e.to_string())
            }
            Agent::SweAgent if timed_out => match self.generation {
                Generation::V0 => "EXECUTION TIMED OUT".into(),
                Generation::V1 => format!(
                    "The command '{command}' was cancelled because it took more than {} seconds. Please try a different command that completes more quickly. Note: A common source of this error is if the command is interactive or requires user input (it is impossible to receive user input in the current environment, so the command will never complete).",
                    self.timeout.as_secs()
                ),
            },
            Agent::SweAgent => match self.generation {
                Generation::V0 => output.to_string(),
                Generation::V1 => output.trim_end_matches('\n').to_string(),
            },
            Agent::ClaudeCode => {
                let out = output.trim_end_matches('\n');
                if timed_out {
                    format!("Command timed out after {}s\n{out}", self.timeout.as_secs())
                } else {
                    match code {
                        Some(0) | None => out.to_string(),
                        Some(c) => format!("Exit code {c}\n{out}"),
                    }
                }
            }
            _ if timed_out => format!(
                "{output}\n[The command timed out after {} seconds and was killed.]",
                self.timeout.as_secs()
            ),
            _ => output.to_string(),
        }
    }

    /// mini-swe-agent's submission rule: the output's first line is its final-output marker;
    /// what follows is the submission.
    pub fn submission(&self, output: &str) -> Option<String> {
        if self.agent != Agent::MiniSweAgent {
            return None;
        }
        let trimmed = output.trim_start();
        let mut lines = trimmed.split_inclusive('\n');
        let first = lines.next()?.trim();
        matches!(
            first,
            "MINI_SWE_AGENT_FINAL_OUTPUT" | "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
        )
        .then(|| lines.collect())
    }
}

/// 0.x had no function calling and no search/replace `edit`; logs that the loader calls
/// `0.x` (no per-step `query`) may still come from 1.0's development versions.
fn swe_agent_generation(t: &Trajectory, any_calls: bool) -> Generation {
    let v1_action = t.steps.iter().any(|s| {
        let a = s.action.trim_start();
        a.starts_with("edit '")
            || a.starts_with("edit \"")
            || a.starts_with("insert ")
            || a.starts_with("str_replace_editor")
    });
    if t.format_detail.as_deref() == Some("0.x") && !any_calls && !v1_action {
        Generation::V0
    } else {
        Generation::V1
    }
}

/// The `edit` success wording the recorded run shows, when it shows one.
fn replace_message(t: &Trajectory) -> ReplaceMessage {
    for step in t.steps.iter().take(500) {
        let o = step.observation.replace("\r\n", "\n");
        if o.contains(
            "occurrences. Please review the changes and make sure they are correct\n(correct",
        ) {
            return ReplaceMessage::Counted;
        }
        if o.contains(
            "Text replaced. Please review the changes and make sure they are correct\n(correct",
        ) {
            return ReplaceMessage::Plain;
        }
        if o.contains("Text replaced. Please review the changes and make sure they are correct:") {
            return ReplaceMessage::Checklist;
        }
    }
    ReplaceMessage::Checklist
}

/// The `cwd` a session log records (Claude Code on every line, Codex in `session_meta`),
/// read from its first lines.
fn logged_cwd(path: &std::path::Path) -> Option<String> {
    use std::io::{BufRead, BufReader};
    let file = std::fs::File::open(path).ok()?;
    for line in BufReader::new(file).lines().take(200) {
        let line = line.ok()?;
        let Some(at) = line.find("\"cwd\"") else {
            continue;
        };
        let rest = line[at + 5..].trim_start().strip_prefix(':')?.trim_start();
        let value: String = serde_json::Deserializer::from_str(rest)
            .into_iter::<String>()
            .next()
            .and_then(Result::ok)?;
        if value.starts_with('/') {
            return Some(value.trim_end_matches('/').to_string());
        }
    }
    None
}

fn read_json(path: &std::path::Path) -> Option<Value> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mini_swe_agent_default_observation_and_submission() {
        let d = Dialect::new(Agent::MiniSweAgent);
        assert!(!d.persistent_shell && !d.tool_calls);
        assert_eq!(
            d.shell_observation("ls", "a.py\n", Some(0), false),
            "<returncode>0</returncode>\n<output>\na.py\n</output>"
        );
        let long = "x".repeat(12000);
        let obs = d.shell_observation("cat big", &long, Some(0), false);
        assert!(obs.contains("<elided_chars>\n2000 characters elided\n</elided_chars>"));
        let obs = d.shell_observation("sleep 100", "partial", None, true);
        assert!(obs.starts_with(
            "The last command <command>sleep 100</command> timed out and has been killed."
        ));
        assert_eq!(
            d.submission("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a b\n")
                .as_deref(),
            Some("diff --git a b\n")
        );
        assert_eq!(d.submission("hello\n"), None);
    }

    #[test]
    fn other_agents_word_results_their_way() {
        let cc = Dialect::new(Agent::ClaudeCode);
        assert_eq!(
            cc.shell_observation("false", "boom\n", Some(1), false),
            "Exit code 1\nboom"
        );
        let mut swe = Dialect::new(Agent::SweAgent);
        swe.generation = Generation::V0;
        assert_eq!(
            swe.shell_observation("python r.py", "344\n", Some(0), false),
            "344\n"
        );
        assert_eq!(
            swe.shell_observation("sleep 9", "", None, true),
            "EXECUTION TIMED OUT"
        );
        assert!(swe.persistent_shell);
    }
}
