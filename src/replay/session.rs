//! One replay run from start to fork, shared by `trajscope replay` and the app's replay
//! panel: [`resample_one`] asks a backend for step k's answer and writes it as a one-step
//! fork; [`continue_run`] prepares the environment (a scratch copy, or the user's
//! container), replays the recorded steps 1..k-1 there, lets the live agent continue from
//! step k and writes the fork after every step. Both report as they go through
//! [`SessionEvent`]s; neither prints.

use super::agent::{AgentLoop, LoopLimits};
use super::driver::{LiveEvent, LiveOutcome, RequestStats, request_for, resample, run_live};
use super::fork::{ForkError, ForkWriter, LiveStep};
use super::input::{StepInput, tools_used};
use super::sandbox::{Bubblewrap, Policy};
use super::{
    CopyKind, Dialect, EnvAction, ExecError, Executor, Limits, PrefixOptions, PrefixReport,
    Sandbox, StepOutcome, StepReplay, Workspace, WorkspaceError, detect_root, parse_answer,
};
use crate::backend::{Backend, CancellationToken, Completion, Sampling};
use crate::model::{ForkOrigin, Message, Trajectory, Usage};
use serde_json::json;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a run re-runs: step `step` (1-based) of `trajectory`, sending `input` to `backend`.
#[derive(Debug, Clone, Copy)]
pub struct ReplayPoint<'a> {
    pub trajectory: &'a Trajectory,
    pub step: usize,
    pub input: &'a StepInput,
    pub backend: &'a Backend,
}

/// What a run reports as it goes.
#[derive(Debug)]
pub enum SessionEvent<'a> {
    /// The fork file was created (it is rewritten after every step).
    Fork(&'a Path),
    /// Continue: the environment is ready (its description); the prefix replay starts.
    Environment(&'a str),
    /// Continue: one recorded step was replayed.
    PrefixStep(&'a StepReplay),
    /// Continue: the recorded prefix is done; the live model takes over.
    PrefixDone(&'a PrefixReport),
    /// The model is asked, streams, or a live step is written.
    Live(LiveEvent<'a>),
}

#[derive(Debug, Error)]
pub enum SessionError {
    #[error("cannot copy the workspace {}: {source}", path.display())]
    Workspace {
        path: PathBuf,
        source: WorkspaceError,
    },
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Fork(#[from] ForkError),
}

/// Where a continued run executes the agent's actions.
#[derive(Debug, Clone, PartialEq)]
pub enum Environment {
    /// A scratch copy of this repository (at the agent's starting state).
    Workspace(PathBuf),
    /// Commands through this launcher (`docker exec -i NAME`), in a container the user runs.
    Container(String),
}

/// How a scratch copy's commands are contained (a container brings its own).
#[derive(Debug, Clone, PartialEq)]
pub enum Isolation {
    /// Under bubblewrap ([`Bubblewrap::find`] checked that it works here).
    Bubblewrap { bwrap: Bubblewrap, policy: Policy },
    /// On this machine as the user (`--no-sandbox`).
    Unprotected,
}

/// How a continued run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct ContinueOptions {
    pub environment: Environment,
    pub isolation: Isolation,
    /// Step k's answer, written by hand (`--edit-answer`): executed instead of asking the
    /// model, then the model continues.
    pub edited_answer: Option<Message>,
    /// Where the log says the repository was (detected from the log when not given).
    pub recorded_root: Option<String>,
    pub limits: LoopLimits,
}

/// How a continued run went.
#[derive(Debug, Clone)]
pub struct ContinueRun {
    pub environment: String,
    pub prefix: PrefixReport,
    pub outcome: LiveOutcome,
    pub fork: PathBuf,
    pub native: Option<PathBuf>,
}

/// Run `run` (1-based) of continuing from `at`.
pub async fn continue_run(
    at: ReplayPoint<'_>,
    run: usize,
    options: &ContinueOptions,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(SessionEvent<'_>),
) -> Result<ContinueRun, SessionError> {
    let ReplayPoint {
        trajectory: t,
        step,
        input,
        backend,
    } = at;
    let dialect = Dialect::of(t);
    let tools = tools_used(t);
    let root = options
        .recorded_root
        .clone()
        .or_else(|| detect_root(t).map(|g| g.path));
    let sandbox = match &options.environment {
        Environment::Container(prefix) => Sandbox::Container {
            launcher: prefix.split_whitespace().map(String::from).collect(),
        },
        Environment::Workspace(path) => {
            let workspace = Workspace::create(path).map_err(|source| SessionError::Workspace {
                path: path.clone(),
                source,
            })?;
            match &options.isolation {
                Isolation::Bubblewrap { bwrap, policy } => {
                    // A shared clone borrows the objects of the repository it came from.
                    let readable: Vec<PathBuf> = match workspace.kind() {
                        CopyKind::Git { .. } => vec![workspace.source().to_path_buf()],
                        CopyKind::Copy { .. } => Vec::new(),
                    };
                    let launcher = bwrap.launcher(workspace.root(), &readable, policy);
                    Sandbox::Isolated {
                        workspace,
                        launcher,
                    }
                }
                Isolation::Unprotected => Sandbox::Scratch(workspace),
            }
        }
    };
    let mut executor = Executor::new(dialect.clone(), sandbox, root.as_deref(), Limits::default())?;
    let environment = executor.describe();
    on(SessionEvent::Environment(&environment));
    let prefix =
        super::replay_prefix(t, step, &mut executor, PrefixOptions::default(), &mut |s| {
            on(SessionEvent::PrefixStep(s))
        })?;
    on(SessionEvent::PrefixDone(&prefix));
    let same = prefix.count(|o| *o == StepOutcome::Same);
    let differs = prefix.count(|o| matches!(o, StepOutcome::Differs { .. }));
    let limits = options.limits;
    let mut settings = backend.config().settings_json();
    if let Some(object) = settings.as_object_mut() {
        object.insert("mode".into(), json!("continue"));
        object.insert("run".into(), json!(run));
        object.insert("context".into(), json!(input.exactness.as_str()));
        object.insert("context_note".into(), json!(input.note));
        object.insert(
            "limits".into(),
            json!({
                "max_steps": limits.max_steps,
                "max_cost": limits.max_cost,
                "max_wall_s": limits.max_wall.map(|d| d.as_secs()),
                "max_output": limits.max_output,
            }),
        );
        object.insert("environment".into(), json!(environment));
        object.insert(
            "prefix".into(),
            json!({"same": same, "differs": differs, "first_divergence": prefix.first_divergence}),
        );
    }
    let mut writer = ForkWriter::create(t, step, origin(t, step, backend, settings), "continue")?;
    // Until a live step is written, the fork's conversation is what step k was sent: a run
    // that fails at once still leaves the replayed prefix in the agent's own shape.
    writer.start_conversation(input.messages.clone())?;
    on(SessionEvent::Fork(writer.path()));
    if let Some(d) = prefix.first_divergence {
        writer.warn(format!(
            "replaying the recorded prefix diverged at step {d}: the live steps ran in a different state than the original"
        ));
    }
    let agent = AgentLoop::new(dialect, limits, input.messages.clone());
    let outcome = run_live(
        backend,
        agent,
        &tools,
        &mut executor,
        &mut writer,
        options.edited_answer.clone(),
        cancel,
        &mut |p| on(SessionEvent::Live(p)),
    )
    .await?;
    Ok(ContinueRun {
        environment,
        prefix,
        outcome,
        fork: writer.path().to_path_buf(),
        native: writer.native_path().map(Path::to_path_buf),
    })
}

/// How one resampled answer went.
#[derive(Debug, Clone)]
pub struct Sample {
    /// `Resampled`, `Cancelled` or `BackendError` (the fork's exit status).
    pub status: &'static str,
    pub error: Option<String>,
    /// What arrived (partial after a failure).
    pub completion: Completion,
    pub stats: Option<RequestStats>,
    /// The answer's actions as the agent would read them (or the format error).
    pub action: String,
    /// Whether they are the recorded step's action (`None` past the end).
    pub same: Option<bool>,
    pub fork: PathBuf,
    pub native: Option<PathBuf>,
}

/// Asks the backend for the step's answer (sample `sample`, 1-based; a seed becomes
/// `seed + sample - 1`) and writes it as a fork whether it arrived whole or not.
pub async fn resample_one(
    at: ReplayPoint<'_>,
    sample: usize,
    seed: Option<u64>,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(SessionEvent<'_>),
) -> Result<Sample, ForkError> {
    let ReplayPoint {
        trajectory: t,
        step,
        input,
        backend,
    } = at;
    let dialect = Dialect::of(t);
    let tools = tools_used(t);
    let recorded_action = t.step(step).map(|s| s.action.trim().to_string());
    let sampling = Sampling {
        seed: seed.map(|s| s + sample as u64 - 1),
        ..Sampling::default()
    };
    let request = request_for(input.messages.clone(), &tools).with_sampling(sampling);
    let prepared = backend.prepare(&request);
    let mut settings = backend.config().settings_json();
    if let Some(object) = settings.as_object_mut() {
        object.insert("mode".into(), json!("resample"));
        object.insert("sample".into(), json!(sample));
        object.insert("sampling_override".into(), json!(request.sampling));
        object.insert("context".into(), json!(input.exactness.as_str()));
        object.insert("context_note".into(), json!(input.note));
        object.insert("adaptations".into(), json!(prepared.adaptations));
    }
    let mut writer = ForkWriter::create(t, step, origin(t, step, backend, settings), "resample")?;
    writer.start_conversation(input.messages.clone())?;
    on(SessionEvent::Fork(writer.path()));
    let result = resample(backend, &request, cancel, &mut |p| {
        on(SessionEvent::Live(p))
    })
    .await;
    let (completion, stats, status, error) = match result {
        Ok((c, s)) => (c, Some(s), "Resampled", None),
        Err((e, partial)) => {
            let status = if e.is_cancelled() {
                "Cancelled"
            } else {
                "BackendError"
            };
            (partial, None, status, Some(e.to_string()))
        }
    };
    let answer = completion.to_message();
    let mut live = LiveStep::new(input.messages.clone(), answer.clone());
    let (action, same) = match &error {
        // No answer came: there is nothing to parse, and it is not the model's format error.
        Some(_) if !completion.has_content() => (format!("(no answer: {status})"), None),
        _ => parsed_action(&dialect, &answer, recorded_action.as_deref()),
    };
    live.thought = answer
        .content
        .split("```")
        .next()
        .unwrap_or("")
        .trim()
        .into();
    live.action = action.clone();
    live.failed = error.is_some();
    if let Some(e) = &error {
        live.observation = format!("[trajscope: {status}: {e}]");
    }
    live.usage = completion.usage.unwrap_or(Usage::default());
    live.usage.api_calls = Some(1);
    live.duration_s = Some(completion.timing.total_s);
    if completion.has_content() || error.is_none() {
        writer.push_step(live)?;
    }
    if let Some(e) = &error {
        writer.record_end(status, e);
    }
    writer.finish(status, None)?;
    Ok(Sample {
        status,
        error,
        completion,
        stats,
        action,
        same,
        fork: writer.path().to_path_buf(),
        native: writer.native_path().map(Path::to_path_buf),
    })
}

fn origin(
    t: &Trajectory,
    step: usize,
    backend: &Backend,
    settings: serde_json::Value,
) -> ForkOrigin {
    ForkOrigin {
        parent: t.path.clone(),
        step,
        backend: Some(backend.name().to_string()),
        model: Some(backend.config().model.clone()),
        settings,
    }
}

/// The answer's actions as the agent would read them, and whether they are the recorded ones.
pub fn parsed_action(
    dialect: &Dialect,
    answer: &Message,
    recorded: Option<&str>,
) -> (String, Option<bool>) {
    let action = match parse_answer(dialect, answer) {
        Ok(calls) => calls
            .iter()
            .map(|c| match &c.action {
                EnvAction::Shell { command } => command.clone(),
                other => other.summary(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("(format error: {})", e.reason),
    };
    let same = recorded.map(|r| squash(r) == squash(&action));
    (action, same)
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
