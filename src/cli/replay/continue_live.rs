//! `trajscope replay --continue`: per backend and run, a fresh scratch copy (or the user's
//! container), the recorded steps 1..k-1 replayed there with each observation checked, then
//! the live agent loop from step k; an outcome table across runs.

use super::Args;
use super::report::{
    context_label, excerpt, first_divergence, matcher, print_paths, reload, rules_fired,
};
use crate::cli::table::Table;
use anyhow::{Context, Result, bail};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use trajscope::backend::{Backend, CancellationToken};
use trajscope::model::{ForkOrigin, Trajectory};
use trajscope::replay::agent::{AgentLoop, LoopLimits};
use trajscope::replay::driver::{Progress, run_live};
use trajscope::replay::fork::ForkWriter;
use trajscope::replay::input::{StepInput, tools_used};
use trajscope::replay::{
    Dialect, Executor, Limits, PrefixOptions, Sandbox, StepOutcome, Workspace, detect_root,
    replay_prefix,
};

pub async fn run(
    args: &Args,
    t: &Trajectory,
    input: &StepInput,
    backends: &[Backend],
    cancel: &CancellationToken,
) -> Result<ExitCode> {
    if args.workspace.is_none() && args.exec_prefix.is_none() {
        bail!(
            "--continue runs the agent's actions: give --workspace PATH (the repository at its starting state) or --exec-prefix 'docker exec -i NAME'"
        );
    }
    let n = args.resample.unwrap_or(1).max(1);
    let dialect = Dialect::of(t);
    let tools = tools_used(t);
    let root = args
        .recorded_root
        .clone()
        .or_else(|| detect_root(t).map(|g| g.path));
    let limits = LoopLimits {
        max_steps: args.max_steps,
        max_cost: args.max_cost,
        max_wall: Some(Duration::from_secs(args.max_time)),
        ..LoopLimits::default()
    };
    let rules = matcher();
    let human = !args.json;
    if human {
        println!("{}", context_label(args.step, input));
    }
    let mut table = Table::new([
        "backend",
        "run",
        "exit",
        "submitted",
        "steps",
        "cost",
        "rules fired",
        "first divergence",
        "fork",
    ]);
    let mut runs = Vec::new();
    let mut forks = Vec::new();
    let mut failed = false;
    'all: for backend in backends {
        for i in 1..=n {
            let sandbox = match (&args.exec_prefix, &args.workspace) {
                (Some(prefix), _) => Sandbox::Container {
                    launcher: prefix.split_whitespace().map(String::from).collect(),
                },
                (None, Some(path)) => Sandbox::Scratch(
                    Workspace::create(path)
                        .with_context(|| format!("cannot copy the workspace {}", path.display()))?,
                ),
                (None, None) => unreachable_workspace()?,
            };
            let mut executor =
                Executor::new(dialect.clone(), sandbox, root.as_deref(), Limits::default())?;
            if human {
                println!(
                    "\n══ {} ({}) · run {i}/{n} · {} ══",
                    backend.name(),
                    backend.config().model,
                    executor.describe()
                );
                if args.step > 1 {
                    println!("Replaying steps 1..{}:", args.step - 1);
                }
            }
            let prefix = replay_prefix(
                t,
                args.step,
                &mut executor,
                PrefixOptions::default(),
                &mut |s| {
                    if human {
                        let outcome = match &s.outcome {
                            StepOutcome::Same => "same".to_string(),
                            StepOutcome::Differs { .. } => "DIFFERS".to_string(),
                            StepOutcome::NotReplayable { why } => format!("not replayable: {why}"),
                            StepOutcome::NoAction => "no action".to_string(),
                        };
                        println!("  step {:>3}  {:<8} {}", s.step, outcome, s.action);
                        if let StepOutcome::Differs { diff } = &s.outcome {
                            println!("{}", excerpt(diff, 12));
                        }
                    }
                },
            )?;
            let same = prefix.count(|o| *o == StepOutcome::Same);
            let differs = prefix.count(|o| matches!(o, StepOutcome::Differs { .. }));
            if human && args.step > 1 {
                println!(
                    "  {same} of {} replayed steps gave the recorded observation; first divergence: {}",
                    prefix.steps.len(),
                    prefix
                        .first_divergence
                        .map_or("none".into(), |s| format!("step {s}"))
                );
            }
            let mut settings = backend.config().settings_json();
            if let Some(object) = settings.as_object_mut() {
                object.insert("mode".into(), json!("continue"));
                object.insert("run".into(), json!(i));
                object.insert("context".into(), json!(input.exactness.as_str()));
                object.insert("context_note".into(), json!(input.note));
                object.insert(
                    "limits".into(),
                    json!({
                        "max_steps": limits.max_steps,
                        "max_cost": limits.max_cost,
                        "max_wall_s": args.max_time,
                        "max_output": limits.max_output,
                    }),
                );
                object.insert("environment".into(), json!(executor.describe()));
                object.insert(
                    "prefix".into(),
                    json!({"same": same, "differs": differs, "first_divergence": prefix.first_divergence}),
                );
            }
            let origin = ForkOrigin {
                parent: t.source.clone(),
                step: args.step,
                backend: Some(backend.name().to_string()),
                model: Some(backend.config().model.clone()),
                settings,
            };
            let mut writer = ForkWriter::create(t, args.step, origin, "continue")?;
            if let Some(d) = prefix.first_divergence {
                writer.warn(format!(
                    "replaying the recorded prefix diverged at step {d}: the live steps ran in a different state than the original"
                ));
            }
            let agent = AgentLoop::new(dialect.clone(), limits, input.messages.clone());
            let first = args.step;
            let mut show = |p: Progress<'_>| {
                if !human {
                    return;
                }
                match p {
                    Progress::Asking { step } => {
                        println!("\n── step {} (live {step}) ──", first + step - 1);
                    }
                    Progress::Delta(text) => {
                        print!("{text}");
                        let _ = std::io::stdout().flush();
                    }
                    Progress::Step(step) => {
                        println!();
                        if !step.action.is_empty() {
                            println!("  $ {}", step.action.lines().next().unwrap_or(""));
                        }
                        println!("{}", excerpt(&step.observation, 8));
                    }
                }
            };
            let outcome = run_live(
                backend,
                agent,
                &tools,
                &mut executor,
                &mut writer,
                cancel,
                &mut show,
            )
            .await?;
            failed |= matches!(
                outcome.status,
                "BackendError" | "EnvironmentError" | "Cancelled"
            );
            let fork = reload(writer.path());
            let fired = fork
                .as_ref()
                .map(|f| rules_fired(&rules, f, args.step))
                .unwrap_or_default();
            let divergence = fork.as_ref().and_then(|f| first_divergence(t, f));
            if human {
                println!("\nExit: {} — {}", outcome.status, outcome.detail);
                if let Some(native) = writer.native_path() {
                    println!("Native copy: {}", native.display());
                }
            }
            let cost = outcome.usage.cost;
            table.row([
                backend.name().to_string(),
                i.to_string(),
                outcome.status.to_string(),
                if outcome.submitted { "yes" } else { "no" }.to_string(),
                outcome.steps.to_string(),
                cost.map_or("-".into(), |c| format!("${c:.4}")),
                if fired.is_empty() {
                    "-".into()
                } else {
                    fired.join(",")
                },
                divergence.map_or("none".into(), |d| format!("step {d}")),
                writer
                    .path()
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ]);
            runs.push(json!({
                "backend": backend.name(),
                "model": backend.config().model,
                "run": i,
                "prefix": prefix,
                "outcome": outcome,
                "rules_fired": fired,
                "first_divergence": divergence,
                "fork_path": writer.path(),
                "native_path": writer.native_path(),
            }));
            forks.push(writer.path().to_path_buf());
            if cancel.is_cancelled() {
                break 'all;
            }
        }
    }
    if args.json {
        let out = json!({
            "mode": "continue",
            "file": t.display_source(),
            "step": args.step,
            "exactness": input.exactness.as_str(),
            "note": input.note,
            "runs": runs,
            "forks": forks,
            "fork_path": forks.last(),
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("\n{}", table.text().trim_end());
        print_paths(&forks);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn unreachable_workspace() -> Result<Sandbox> {
    bail!("--continue needs --workspace PATH or --exec-prefix CMD")
}
