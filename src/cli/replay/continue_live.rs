//! `trajscope replay --continue`: per backend and run, a fresh scratch copy (or the user's
//! container), the recorded steps 1..k-1 replayed there with each observation checked, then
//! the live agent loop from step k (`trajscope::replay::session::continue_run`); an outcome
//! table across runs.

use super::report::{
    Live, Runs, context_label, excerpt, file_name, first_divergence, matcher, reload, rules_fired,
};
use super::{confirm, edit};
use anyhow::{Result, bail};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;
use trajscope::backend::Backend;
use trajscope::replay::StepOutcome;
use trajscope::replay::agent::LoopLimits;
use trajscope::replay::driver::LiveEvent;
use trajscope::replay::session::{
    ContinueOptions, Environment, Isolation, SessionEvent, continue_run,
};

pub async fn run(live: Live<'_>) -> Result<ExitCode> {
    let args = live.args;
    let environment = match (&args.exec_prefix, &args.workspace) {
        (Some(prefix), _) => Environment::Container(prefix.clone()),
        (None, Some(path)) => Environment::Workspace(path.clone()),
        (None, None) => bail!(
            "--continue runs the agent's actions: give --workspace PATH (the repository at its starting state) or --exec-prefix 'docker exec -i NAME'"
        ),
    };
    let isolation = match &environment {
        Environment::Workspace(_) => confirm::isolation(args)?,
        // The container is the sandbox.
        Environment::Container(_) => Isolation::Unprotected,
    };
    let edited_answer = if args.edit_answer {
        Some(edit::edit_answer(live.t, args.step)?)
    } else {
        None
    };
    let lines = confirm::summary(
        args,
        live.t,
        &environment,
        &isolation,
        live.backends,
        edited_answer.as_ref(),
    );
    confirm::ask(args, &lines)?;
    let n = args.resample.unwrap_or(1).max(1);
    let options = ContinueOptions {
        environment,
        isolation,
        edited_answer,
        recorded_root: args.recorded_root.clone(),
        limits: LoopLimits {
            max_steps: args.max_steps,
            max_cost: args.max_cost,
            max_wall: Some(Duration::from_secs(args.max_time)),
            ..LoopLimits::default()
        },
    };
    let rules = matcher();
    let human = !args.json;
    if human {
        println!("{}", context_label(args.step, live.input));
    }
    let mut runs = Runs::new(&[
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
    let first = args.step;
    'all: for backend in live.backends {
        for i in 1..=n {
            let mut show = |event: SessionEvent<'_>| {
                if human {
                    print_event(event, backend, i, n, first);
                }
            };
            let at = live.at(backend);
            let done = continue_run(at, i, &options, live.cancel, &mut show).await?;
            let outcome = &done.outcome;
            let failed = matches!(
                outcome.status,
                "BackendError" | "EnvironmentError" | "Cancelled"
            );
            let fork = reload(&done.fork);
            let fired = fork
                .as_ref()
                .map(|f| rules_fired(&rules, f, args.step))
                .unwrap_or_default();
            let divergence = fork.as_ref().and_then(|f| first_divergence(live.t, f));
            if human {
                println!("\nExit: {} — {}", outcome.status, outcome.detail);
                if let Some(native) = &done.native {
                    println!("Native copy: {}", native.display());
                }
            }
            let cost = outcome.usage.cost;
            let row = vec![
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
                file_name(&done.fork),
            ];
            let run = json!({
                "backend": backend.name(),
                "model": backend.config().model,
                "run": i,
                "prefix": done.prefix,
                "outcome": outcome,
                "rules_fired": fired,
                "first_divergence": divergence,
                "fork_path": done.fork,
                "native_path": done.native,
            });
            runs.add(row, run, done.fork, failed);
            if live.cancel.is_cancelled() {
                break 'all;
            }
        }
    }
    runs.finish(&live, "continue", || json!({}))
}

fn print_event(event: SessionEvent<'_>, backend: &Backend, i: usize, n: usize, first: usize) {
    match event {
        SessionEvent::Fork(_) => {}
        SessionEvent::Environment(environment) => {
            println!(
                "\n══ {} ({}) · run {i}/{n} · {environment} ══",
                backend.name(),
                backend.config().model,
            );
            if first > 1 {
                println!("Replaying steps 1..{}:", first - 1);
            }
        }
        SessionEvent::PrefixStep(s) => {
            let outcome = s.outcome.label();
            println!("  step {:>3}  {:<8} {}", s.step, outcome, s.action);
            if let StepOutcome::Differs { diff } = &s.outcome {
                println!("{}", excerpt(diff, 12));
            }
        }
        SessionEvent::PrefixDone(prefix) => {
            if first > 1 {
                let same = prefix.count(|o| *o == StepOutcome::Same);
                println!(
                    "  {same} of {} replayed steps gave the recorded observation; first divergence: {}",
                    prefix.steps.len(),
                    prefix
                        .first_divergence
                        .map_or("none".into(), |s| format!("step {s}"))
                );
            }
        }
        SessionEvent::Live(LiveEvent::Asking { step }) => {
            println!("\n── step {} (live {step}) ──", first + step - 1);
        }
        SessionEvent::Live(LiveEvent::Delta(text)) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
        SessionEvent::Live(LiveEvent::Step(step)) => {
            println!();
            if step.edited {
                println!("  (your edited answer, run instead of the model's)");
            }
            if !step.action.is_empty() {
                println!("  $ {}", step.action.lines().next().unwrap_or(""));
            }
            println!("{}", excerpt(&step.observation, 8));
        }
    }
}
