//! Carrying out actions in the replay's environment: shell commands in the agent's shell mode,
//! editor tools natively, submission, with paths mapped between the recorded root and the
//! scratch copy (none in a container the user started).
//!
//! The environment is either a scratch copy ([`Workspace`], removed with the executor) or a
//! running container reached through a launcher (`docker exec -i NAME`): there, commands run
//! for real in the container's files, nothing is copied and no path is mapped.

use super::action::EnvAction;
use super::dialect::{Agent, Dialect};
use super::files::{Confined, ContainerFiles, Files};
use super::paths::PathMap;
use super::shell::{Shell, ShellConfig, ShellError};
use super::tools::{ClaudeCode, Editor, EditorFlavour, Generation, Llama, ToolOutput, Windowed};
use super::workspace::{Workspace, WorkspaceError};
use serde_json::{Map, Value};
use std::time::Duration;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ExecError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Shell(#[from] ShellError),
    #[error("the recorded repository root is unknown; name it (e.g. --recorded-root /testbed)")]
    NoRoot,
}

/// Where actions run.
pub enum Sandbox {
    /// A scratch copy of the user's repository, commands run on this machine as the user
    /// (`--no-sandbox`, and tests of the agents' conventions).
    Scratch(Workspace),
    /// A scratch copy, each command under `launcher` (bubblewrap's words, see
    /// [`super::sandbox::Bubblewrap::launcher`]).
    Isolated {
        workspace: Workspace,
        launcher: Vec<String>,
    },
    /// A container the user started; `launcher` is the command prefix (`docker exec -i NAME`).
    Container { launcher: Vec<String> },
}

/// Bounds on each action.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Per-command timeout; `None` uses the agent's own (mini-swe-agent's config, …).
    pub timeout: Option<Duration>,
    /// Bytes of command output kept.
    pub output_cap: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: None,
            output_cap: 1 << 20,
        }
    }
}

/// How an action can be carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// By trajscope's own implementation of the agent's tool.
    Native(String),
    /// By the shell.
    Shell,
    /// Not at all, and why.
    Unsupported(String),
}

/// What came back from one action.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// As the agent would log it, with the recorded paths.
    pub text: String,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub is_error: bool,
    /// Set when the action ended the run: what was submitted (a patch; may be empty).
    pub submitted: Option<String>,
    pub support: Support,
}

impl Observation {
    fn tool(out: ToolOutput, name: &str) -> Observation {
        Observation {
            text: out.text,
            exit_code: None,
            timed_out: false,
            is_error: out.is_error,
            submitted: None,
            support: Support::Native(name.to_string()),
        }
    }
}

/// How `dialect`'s agent would carry out `action`.
pub fn support(dialect: &Dialect, action: &EnvAction) -> Support {
    match action {
        EnvAction::Shell { command } => {
            if dialect.agent == Agent::SweAgent
                && let Some(word) = compound_windowed(command)
            {
                return Support::Unsupported(format!(
                    "the SWE-agent command `{word}` inside a compound shell line"
                ));
            }
            Support::Shell
        }
        EnvAction::Submit => Support::Native("submit".into()),
        EnvAction::Reject { .. } => Support::Native("format error".into()),
        EnvAction::Tool { name, .. } => {
            let native = match dialect.agent {
                Agent::SweAgent => {
                    super::action::WINDOWED_COMMANDS.contains(&name.as_str())
                        || name == "str_replace_editor"
                }
                Agent::OpenHands => matches!(name.as_str(), "str_replace_editor" | "think"),
                Agent::ClaudeCode => {
                    matches!(
                        name.as_str(),
                        "Read" | "Edit" | "Write" | "Glob" | "Grep" | "TodoWrite"
                    )
                }
                Agent::Llama => true,
                Agent::MiniSweAgent | Agent::Generic => name == "str_replace_editor",
            };
            if native {
                Support::Native(name.clone())
            } else {
                Support::Unsupported(format!("`{name}` is not a tool trajscope implements"))
            }
        }
    }
}

/// A windowed command used as one part of a longer shell line (`cd src && open a.py`).
fn compound_windowed(command: &str) -> Option<String> {
    crate::diff::parse_shell(command)
        .iter()
        .flat_map(|p| p.commands.iter())
        .map(|c| c.name().to_string())
        .find(|n| super::action::WINDOWED_COMMANDS.contains(&n.as_str()))
}

pub struct Executor {
    dialect: Dialect,
    paths: PathMap,
    files: Box<dyn Files>,
    shell: Shell,
    windowed: Windowed,
    editor: Editor,
    claude: ClaudeCode,
    llama: Llama,
    workspace: Option<Workspace>,
    /// Commands run under bubblewrap.
    isolated: bool,
    /// `submit`s answered with a review message so far (SWE-agent `review_on_submit`).
    reviews_given: usize,
}

impl Executor {
    /// An executor for `dialect`'s agent in `sandbox`. `recorded_root` is where the log says
    /// the repository was (mapped onto the scratch copy; the working directory in a container).
    pub fn new(
        dialect: Dialect,
        sandbox: Sandbox,
        recorded_root: Option<&str>,
        limits: Limits,
    ) -> Result<Executor, ExecError> {
        let isolated = matches!(sandbox, Sandbox::Isolated { .. });
        let (paths, launcher, files, workspace): (PathMap, Vec<String>, Box<dyn Files>, _) =
            match sandbox {
                Sandbox::Scratch(ws) => {
                    let paths = scratch_paths(&ws, recorded_root);
                    let files = Box::new(Confined::new(ws.root()));
                    (paths, Vec::new(), files, Some(ws))
                }
                Sandbox::Isolated {
                    workspace,
                    launcher,
                } => {
                    let paths = scratch_paths(&workspace, recorded_root);
                    let files = Box::new(Confined::new(workspace.root()));
                    (paths, launcher, files, Some(workspace))
                }
                Sandbox::Container { launcher } => {
                    let root = recorded_root.ok_or(ExecError::NoRoot)?;
                    let files = Box::new(ContainerFiles::new(launcher.clone()));
                    (PathMap::identity(root), launcher, files, None)
                }
            };
        let mut env = dialect.env.clone();
        if workspace.is_some() {
            // The agents ran in containers without the user's git settings (aliases, colours,
            // `diff.noprefix`), which would change what `git diff` prints.
            env.push(("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()));
            env.push(("GIT_CONFIG_NOSYSTEM".into(), "1".into()));
        }
        let config = ShellConfig {
            launcher: launcher.clone(),
            cwd: paths.actual_root().to_string(),
            env,
            timeout: limits.timeout.unwrap_or(dialect.timeout),
            output_cap: limits.output_cap,
        };
        let shell = if dialect.persistent_shell {
            Shell::session(config)?
        } else {
            Shell::fresh(config)
        };
        let flavour = match dialect.agent {
            Agent::OpenHands => EditorFlavour::OpenHands,
            _ => EditorFlavour::SweAgent,
        };
        let generation = dialect.generation;
        Ok(Executor {
            windowed: Windowed::new(generation, launcher)
                .with_replace_message(dialect.replace_message)
                .with_window(dialect.window, dialect.overlap),
            editor: Editor::new(flavour),
            claude: ClaudeCode::new(),
            llama: Llama::new(),
            dialect,
            paths,
            files,
            shell,
            workspace,
            isolated,
            reviews_given: 0,
        })
    }

    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    pub fn paths(&self) -> &PathMap {
        &self.paths
    }

    /// The scratch copy, when there is one.
    pub fn workspace(&self) -> Option<&Workspace> {
        self.workspace.as_ref()
    }

    /// One line for the user: where commands run.
    pub fn describe(&self) -> String {
        match &self.workspace {
            Some(ws) => format!(
                "scratch copy {} (recorded root {}) · {}",
                ws.describe(),
                self.paths.recorded_root(),
                if self.isolated {
                    "sandbox: bubblewrap"
                } else {
                    "NO SANDBOX"
                }
            ),
            None => format!(
                "inside the container, in {} (no copy, no path mapping)",
                self.paths.actual_root()
            ),
        }
    }

    /// Carries out `action`. `Err` only when the environment itself failed; a failing command
    /// or a refused tool call is an observation.
    pub fn execute(&mut self, action: &EnvAction) -> Result<Observation, ExecError> {
        let support = support(&self.dialect, action);
        if let Support::Unsupported(why) = &support {
            return Ok(Observation {
                text: format!("[trajscope: not replayable: {why}]"),
                exit_code: None,
                timed_out: false,
                is_error: true,
                submitted: None,
                support,
            });
        }
        let mut obs = match action {
            EnvAction::Shell { command } => self.shell(command)?,
            EnvAction::Submit => self.submit()?,
            EnvAction::Reject { message } => Observation {
                text: message.clone(),
                exit_code: None,
                timed_out: false,
                is_error: true,
                submitted: None,
                support,
            },
            EnvAction::Tool { name, args } => {
                let args = self.map_args(args);
                self.files.take_refusal();
                let mut out = self.tool(name, &args);
                if let Some(path) = self.files.take_refusal() {
                    out = ToolOutput::error(format!(
                        "[trajscope: refused: {path} is outside the workspace {}; {name} may only read and write files inside it]",
                        self.paths.actual_root()
                    ));
                }
                let mut obs = Observation::tool(out, name);
                if self.dialect.agent == Agent::Llama && name == "finish" {
                    obs.submitted = Some(String::new());
                }
                obs
            }
        };
        obs.text = self.paths.to_recorded(&obs.text);
        if let Some(s) = obs.submitted.as_mut() {
            *s = self.paths.to_recorded(s);
        }
        Ok(obs)
    }

    fn shell(&mut self, command: &str) -> Result<Observation, ExecError> {
        let actual = self.paths.to_actual(command);
        let out = self.shell.run(&actual)?;
        let output = self.paths.to_recorded(&out.output);
        let submitted = self.dialect.submission(&output);
        let text = if submitted.is_some() {
            // mini-swe-agent ends the run with the submission as the last message.
            submitted.clone().unwrap_or_default()
        } else {
            self.dialect
                .shell_observation(command, &output, out.exit_code, out.timed_out)
        };
        Ok(Observation {
            text,
            exit_code: out.exit_code,
            timed_out: out.timed_out,
            is_error: out.timed_out || out.exit_code.is_some_and(|c| c != 0),
            submitted,
            support: Support::Shell,
        })
    }

    /// SWE-agent's `submit`: everything staged, the diff against HEAD is the submission.
    fn submit(&mut self) -> Result<Observation, ExecError> {
        let root = super::shell::quote(self.paths.actual_root());
        let out = self
            .shell
            .run(&format!("cd {root} && git add -A && git diff --cached"))?;
        let patch = out.output;
        if let Some(review) = self.dialect.review_messages.get(self.reviews_given) {
            self.reviews_given += 1;
            return Ok(Observation {
                text: review.replace("{{diff}}", &patch),
                exit_code: out.exit_code,
                timed_out: out.timed_out,
                is_error: false,
                submitted: None,
                support: Support::Native("submit".into()),
            });
        }
        let text = match (self.dialect.agent, self.dialect.generation) {
            (Agent::SweAgent, Generation::V0) => format!("\n{patch}"),
            _ => patch.clone(),
        };
        Ok(Observation {
            text,
            exit_code: out.exit_code,
            timed_out: out.timed_out,
            is_error: false,
            submitted: Some(patch),
            support: Support::Native("submit".into()),
        })
    }

    /// String arguments with the recorded root rewritten.
    fn map_args(&self, args: &Map<String, Value>) -> Map<String, Value> {
        fn map(v: &Value, paths: &PathMap) -> Value {
            match v {
                Value::String(s) => Value::String(paths.to_actual(s)),
                Value::Array(items) => Value::Array(items.iter().map(|i| map(i, paths)).collect()),
                Value::Object(o) => {
                    Value::Object(o.iter().map(|(k, v)| (k.clone(), map(v, paths))).collect())
                }
                other => other.clone(),
            }
        }
        args.iter()
            .map(|(k, v)| (k.clone(), map(v, &self.paths)))
            .collect()
    }

    fn tool(&mut self, name: &str, args: &Map<String, Value>) -> ToolOutput {
        let files = self.files.as_ref();
        let cwd = self.shell.cwd().to_string();
        let argv: Vec<String> = args
            .get("argv")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let ok = |s: String| ToolOutput::ok(s);
        match (self.dialect.agent, name) {
            (_, "str_replace_editor") => self.editor.call(files, &cwd, args),
            (Agent::SweAgent, "open") => ok(self.windowed.open(files, &cwd, &argv)),
            (Agent::SweAgent, "goto") => ok(self.windowed.goto(files, &argv)),
            (Agent::SweAgent, "scroll_down") => ok(self.windowed.scroll(files, true)),
            (Agent::SweAgent, "scroll_up") => ok(self.windowed.scroll(files, false)),
            (Agent::SweAgent, "create") => ok(self.windowed.create(files, &cwd, &argv)),
            (Agent::SweAgent, "edit") if args.contains_key("line_range") => ok(self
                .windowed
                .edit_lines(files, &text("line_range"), &text("replacement_text"))),
            (Agent::SweAgent, "edit") => {
                let all = args
                    .get("replace_all")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                ok(self
                    .windowed
                    .edit_replace(files, &text("search"), &text("replace"), all))
            }
            (Agent::SweAgent, "insert") => {
                let line = args.get("line").and_then(|v| {
                    v.as_i64()
                        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                });
                ok(self.windowed.insert(files, &text("text"), line))
            }
            (Agent::SweAgent, "search_dir") => ok(super::tools::search_dir(files, &cwd, &argv)),
            (Agent::SweAgent, "search_file") => ok(super::tools::search_file(
                files,
                &cwd,
                self.windowed.open_file(),
                &argv,
            )),
            (Agent::SweAgent, "find_file") => ok(super::tools::find_file(files, &cwd, &argv)),
            (Agent::OpenHands, "think") => ToolOutput::ok("Your thought has been logged."),
            (Agent::ClaudeCode, "TodoWrite") => ToolOutput::ok(
                "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
            ),
            (Agent::ClaudeCode, _) => self
                .claude
                .call(files, &cwd, name, args)
                .unwrap_or_else(|| ToolOutput::error(format!("No such tool available: {name}"))),
            (Agent::Llama, _) => self.llama.call(files, name, args),
            _ => ToolOutput::error(format!("No such tool available: {name}")),
        }
    }
}

fn scratch_paths(ws: &Workspace, recorded_root: Option<&str>) -> PathMap {
    let actual = ws.root().to_string_lossy().into_owned();
    match recorded_root {
        Some(r) => PathMap::new(r, actual),
        None => PathMap::identity(actual),
    }
}

#[cfg(test)]
mod tests;
