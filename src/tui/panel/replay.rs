//! The replay panel: re-running the agent from a step of the open trajectory against a live
//! model. The form (backend, mode, samples, limits, workspace, the context and its edit), the
//! confirmation before a continued run executes anything, and the output as it streams in:
//! one block per sample or live step, beside the recorded answer of the step.

pub mod update;
mod view;

use super::Panel;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::backend::{AD_HOC, AdHoc, BackendConfig, BackendsFile, display_url};
use crate::model::Trajectory;
use crate::replay::input::StepInput;
use std::path::PathBuf;
use std::sync::Arc;

/// What the panel starts from: the backends the app can replay with (the configured ones and
/// the one given on the command line, `trajscope PATH --base-url URL --model NAME`) and the
/// workspace given with `--workspace`.
#[derive(Debug, Clone, Default)]
pub struct ReplaySetup {
    pub ad_hoc: AdHoc,
    pub workspace: Option<PathBuf>,
    /// `backends.toml`, or why it could not be read.
    pub file: Option<Result<BackendsFile, String>>,
    /// The confirmation's defaults for a continued run (`[replay]` in config.toml).
    pub sandbox: SandboxDefaults,
}

/// `[replay]` in config.toml: `sandbox = true`, `network = false`, `binds = ["/opt/x"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxDefaults {
    pub sandbox: bool,
    pub network: bool,
    pub binds: Vec<PathBuf>,
}

impl Default for SandboxDefaults {
    fn default() -> SandboxDefaults {
        SandboxDefaults {
            sandbox: true,
            network: false,
            binds: Vec::new(),
        }
    }
}

impl SandboxDefaults {
    /// From the `[replay]` table; a wrong entry is reported in `problems` and left default.
    pub fn parse(table: &toml::Table, origin: &str, problems: &mut Vec<String>) -> SandboxDefaults {
        let mut out = SandboxDefaults::default();
        for (key, value) in table {
            match (key.as_str(), value) {
                ("sandbox", toml::Value::Boolean(b)) => out.sandbox = *b,
                ("network", toml::Value::Boolean(b)) => out.network = *b,
                ("binds", toml::Value::Array(items)) => {
                    out.binds = items
                        .iter()
                        .filter_map(|i| i.as_str().map(PathBuf::from))
                        .collect();
                }
                _ => problems.push(format!(
                    "{origin}: [replay] {key}: expected sandbox = true|false, network = true|false or binds = [\"PATH\", …]"
                )),
            }
        }
        out
    }
}

impl ReplaySetup {
    /// Reads the user's `backends.toml` (no file: no configured backends).
    pub fn load(ad_hoc: AdHoc) -> ReplaySetup {
        ReplaySetup {
            ad_hoc,
            workspace: None,
            file: Some(BackendsFile::load_default().map_err(|e| e.to_string())),
            sandbox: SandboxDefaults::default(),
        }
    }

    /// The choices in the panel, the default first: (name, one line describing it).
    pub fn choices(&self) -> Vec<(String, String)> {
        let describe = |c: &BackendConfig| format!("{} @ {}", c.model, display_url(&c.base_url));
        let mut out = Vec::new();
        if let Ok(Some(config)) = self.ad_hoc.config() {
            out.push((AD_HOC.to_string(), describe(&config)));
        }
        if let Some(Ok(file)) = &self.file {
            let default = file.default_backend().map(|(n, _)| n.to_string());
            let mut named: Vec<(String, String)> = file
                .backends
                .iter()
                .map(|(name, c)| (name.clone(), describe(c)))
                .collect();
            named.sort_by_key(|(name, _)| Some(name) != default.as_ref());
            out.extend(named);
        }
        out
    }

    /// Why there is nothing to choose from, when there is not.
    pub fn problem(&self) -> Option<String> {
        if let Err(e) = self.ad_hoc.config() {
            return Some(e.to_string());
        }
        if let Some(Err(e)) = &self.file {
            return Some(e.clone());
        }
        self.choices().is_empty().then(|| {
            let path = BackendsFile::default_path()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "backends.toml".into());
            format!(
                "no backend configured: add a [backends.NAME] table to {path}, or start trajscope with --base-url URL --model NAME"
            )
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Ask the model again for step k's answer, N times; nothing runs.
    Resample,
    /// Replay steps 1..k-1 in a scratch copy, then let the model act from step k.
    Continue,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Resample => "resample",
            Mode::Continue => "continue",
        }
    }
}

/// The rows of the form, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormField {
    Backend,
    Mode,
    Samples,
    MaxSteps,
    Workspace,
    Sandbox,
    Network,
    Context,
    Answer,
}

impl FormField {
    pub const ALL: [FormField; 9] = [
        FormField::Backend,
        FormField::Mode,
        FormField::Samples,
        FormField::MaxSteps,
        FormField::Workspace,
        FormField::Sandbox,
        FormField::Network,
        FormField::Context,
        FormField::Answer,
    ];

    pub fn label(self) -> &'static str {
        match self {
            FormField::Backend => "backend",
            FormField::Mode => "mode",
            FormField::Samples => "samples",
            FormField::MaxSteps => "max steps",
            FormField::Workspace => "workspace",
            FormField::Sandbox => "sandbox",
            FormField::Network => "network",
            FormField::Context => "context",
            FormField::Answer => "answer",
        }
    }

    /// Whether the field means anything in `mode`.
    pub fn applies(self, mode: Mode) -> bool {
        match self {
            FormField::Samples => mode == Mode::Resample,
            FormField::MaxSteps
            | FormField::Workspace
            | FormField::Sandbox
            | FormField::Network
            | FormField::Answer => mode == Mode::Continue,
            _ => true,
        }
    }
}

/// Where the panel is.
#[derive(Debug, Clone)]
pub enum Phase {
    /// Choosing what to run.
    Form,
    /// Continue: asking before anything runs in the workspace.
    Confirm,
    /// The job runs; `Effect::Stop(JobKey::Replay)` stops it (the runtime holds the job's
    /// cancel flag, the state only this id of its reports).
    Running { job: u64, cancelling: bool },
    /// The job ended (the forks, if any, are written).
    Done,
}

/// One sample's answer, or one live step, as it streams in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputBlock {
    pub title: String,
    /// Streamed answer text.
    pub text: String,
    /// What followed: the parsed action, a line of observation, the outcome.
    pub notes: Vec<String>,
    pub failed: bool,
}

#[derive(Debug, Clone)]
pub struct ReplayPanel {
    pub trajectory: Arc<Trajectory>,
    /// 1-based step re-run from.
    pub step: usize,
    /// The context sent at the step (after any edit), or why there is none.
    pub input: Result<StepInput, String>,
    pub edited: bool,
    /// The recorded answer of the step, for comparison (`None` past the end).
    pub recorded: Option<String>,
    /// (name, description) of each backend offered.
    pub backends: Vec<(String, String)>,
    pub backend: usize,
    pub mode: Mode,
    pub samples: usize,
    pub max_steps: usize,
    pub workspace: String,
    /// Continue: run the commands under bubblewrap (config `[replay] sandbox`, default on).
    pub sandbox: bool,
    /// Continue: let them reach the network (config `[replay] network`, default off).
    pub network: bool,
    /// Continue: more read-only paths in the sandbox (config `[replay] binds`).
    pub binds: Vec<PathBuf>,
    /// Continue: step k's answer as the user rewrote it (`a`), run instead of the model's.
    pub edited_answer: Option<crate::model::Message>,
    /// The editor open for the answer (not the context): where its text goes back.
    pub editing_answer: bool,
    pub field: FormField,
    pub phase: Phase,
    /// Lines above the blocks: the environment, the replayed prefix.
    pub log: Vec<String>,
    pub blocks: Vec<OutputBlock>,
    /// The forks written, in order.
    pub forks: Vec<PathBuf>,
    /// Why the job failed or could not start (shown in the panel, in the error colour).
    pub error: Option<String>,
    /// The last line: how it ended.
    pub outcome: Option<String>,
    /// Rows of the live column scrolled back from its newest (0: it follows what streams in).
    pub scroll: usize,
}

pub const MAX_SAMPLES: usize = 16;
pub const MAX_STEPS: usize = 200;

impl ReplayPanel {
    pub fn backend_name(&self) -> Option<&str> {
        self.backends.get(self.backend).map(|(n, _)| n.as_str())
    }

    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Running { .. })
    }

    /// Source lines of the live column (before wrapping): a bound for scrolling back.
    pub fn live_lines(&self) -> usize {
        self.log.len()
            + self
                .blocks
                .iter()
                .map(|b| 1 + b.text.lines().count() + b.notes.len())
                .sum::<usize>()
    }

    /// The fields shown in the current mode, in order.
    pub fn fields(&self) -> Vec<FormField> {
        FormField::ALL
            .into_iter()
            .filter(|f| f.applies(self.mode))
            .collect()
    }
}

impl Panel for ReplayPanel {
    const NAME: &'static str = "replay";
    const TITLE: &'static str = "Replay panel (re-run from a step against a live model)";
    // The panel lists its own keys.
    const HINTS: &'static [(Action, &'static str)] = &[];
    const KEYS: &'static str = include_str!("replay/keys.toml");

    fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
        update::action(state, action, fx);
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, self, frame, area);
    }

    /// Driven by keys: a stray click must not drop a running job's panel.
    fn takes_clicks(&self) -> bool {
        false
    }
}
