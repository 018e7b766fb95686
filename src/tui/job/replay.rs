//! The replay panel's job: one resample (N samples) or one continued run through
//! `replay::session`, its progress turned into `ReplayMsg`s, and each fork as the run table
//! shows it. The runtime runs it on the blocking pool (the prefix replay and the executor
//! block); the harness runs it inline.

use crate::backend::{AD_HOC, AdHoc, Backend, CancellationToken, Sampling, select};
use crate::formats::{Loaded, load_file};
use crate::model::TrajectorySummary;
use crate::replay::StepOutcome;
use crate::replay::agent::LoopLimits;
use crate::replay::driver::LiveEvent;
use crate::replay::sandbox::{Bubblewrap, Policy, UNPROTECTED};
use crate::replay::session::{
    ContinueOptions, Environment, Isolation, ReplayPoint, SessionEvent, continue_run, resample_one,
};
use crate::tui::effect::ReplayRequest;
use crate::tui::msg::{Msg, ReplayMsg};
use crate::tui::panel::replay::Mode;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the job looks whether it was told to stop.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Runs `request` to its end from a blocking thread: on the runtime the thread belongs to
/// (the app's), else on a runtime of its own (the harness has none). The prefix replay and
/// the executor block, so the whole run holds a thread of the blocking pool.
///
/// `stop` is the job's flag in the runtime's job table (`Effect::Stop`): a watcher thread
/// turns it into the cancellation the session takes, so it stops even while the executor
/// blocks, and still reports how it ended.
pub fn run_blocking(
    request: ReplayRequest,
    send: &(dyn Fn(Msg) -> bool + Sync),
    stop: &AtomicBool,
) {
    let cancel = CancellationToken::new();
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    cancel.cancel();
                    return;
                }
                std::thread::sleep(STOP_POLL);
            }
        });
        let mut forward = |msg| {
            send(msg);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime.block_on(run(request, &cancel, &mut forward)),
            Err(_) => match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime.block_on(run(request, &cancel, &mut forward)),
                Err(err) => {
                    send(Msg::Notice(crate::tui::state::Notice::error(
                        err.to_string(),
                    )));
                }
            },
        }
        finished.store(true, Ordering::Relaxed);
    });
}

/// Runs `request` to its end, sending what happens through `send`; `cancel` stops it.
pub async fn run(request: ReplayRequest, cancel: &CancellationToken, send: &mut dyn FnMut(Msg)) {
    let job = request.job;
    let mut say = |m: ReplayMsg| send(Msg::Replay(m));
    let backend = match backend(&request) {
        Ok(b) => b,
        Err(error) => {
            say(ReplayMsg::Finished {
                job,
                outcome: "nothing was sent".into(),
                error: Some(error),
            });
            return;
        }
    };
    let (outcome, error) = match request.mode {
        Mode::Resample => resample(&request, cancel, &backend, &mut say).await,
        Mode::Continue => continue_live(&request, cancel, &backend, &mut say).await,
    };
    say(ReplayMsg::Finished {
        job,
        outcome,
        error,
    });
}

/// The backend the panel named, as `trajscope replay --backend NAME` would build it.
fn backend(request: &ReplayRequest) -> Result<Backend, String> {
    let setup = &request.backends;
    let file = || Ok(setup.file.clone().and_then(Result::ok).unwrap_or_default());
    let chosen = if request.backend == AD_HOC {
        select(&setup.ad_hoc, &[], file, &Sampling::default())
    } else {
        let names = [request.backend.clone()];
        select(&AdHoc::default(), &names, file, &Sampling::default())
    };
    chosen
        .map_err(|e| e.to_string())?
        .into_iter()
        .next()
        .ok_or_else(|| "no backend".to_string())
}

async fn resample(
    request: &ReplayRequest,
    cancel: &CancellationToken,
    backend: &Backend,
    say: &mut dyn FnMut(ReplayMsg),
) -> (String, Option<String>) {
    let job = request.job;
    let n = request.samples.max(1);
    let mut done = 0;
    let mut failed = None;
    for i in 1..=n {
        say(ReplayMsg::Block {
            job,
            title: format!(
                "sample {i}/{n} · {} ({})",
                backend.name(),
                backend.config().model
            ),
        });
        let mut on = |e: SessionEvent<'_>| match e {
            SessionEvent::Live(LiveEvent::Delta(text)) => say(ReplayMsg::Text {
                job,
                text: text.to_string(),
            }),
            SessionEvent::Fork(path) => forks(job, path, say),
            _ => {}
        };
        let sample = match resample_one(point(request, backend), i, None, cancel, &mut on).await {
            Ok(sample) => sample,
            Err(e) => return (format!("{done} of {n} samples"), Some(e.to_string())),
        };
        done += 1;
        if let Some(e) = &sample.error {
            failed = Some(e.clone());
            say(ReplayMsg::Note {
                job,
                line: format!("{}: {e}", sample.status),
                failed: true,
            });
        }
        let same = match sample.same {
            Some(true) => " · same as recorded",
            Some(false) => " · differs from recorded",
            None => "",
        };
        let action = sample.action.lines().next().unwrap_or("");
        // A failed or cancelled answer is partial: its "action" would only be noise.
        if sample.error.is_none() {
            say(ReplayMsg::Note {
                job,
                line: if action.is_empty() {
                    format!("action: (none){same}")
                } else {
                    format!("action: {action}{same}")
                },
                failed: false,
            });
        }
        if let Some(rate) = sample.stats.and_then(|s| s.tokens_per_s()) {
            say(ReplayMsg::Note {
                job,
                line: format!(
                    "{} chars · {rate:.1} tok/s",
                    sample.completion.text.chars().count()
                ),
                failed: false,
            });
        }
        forks(job, &sample.fork, say);
        if cancel.is_cancelled() {
            return (format!("cancelled after {done} of {n} samples"), None);
        }
    }
    let outcome = match &failed {
        None => format!("{n} of {n} samples answered · forks written"),
        Some(_) => format!("{done} of {n} samples ended · forks written (a failed one says why)"),
    };
    (outcome, failed)
}

async fn continue_live(
    request: &ReplayRequest,
    cancel: &CancellationToken,
    backend: &Backend,
    say: &mut dyn FnMut(ReplayMsg),
) -> (String, Option<String>) {
    let job = request.job;
    let first = request.step;
    let isolation = if request.sandbox {
        let policy = Policy {
            network: request.network,
            binds: request.binds.clone(),
        };
        match Bubblewrap::find(&policy) {
            Ok(bwrap) => Isolation::Bubblewrap { bwrap, policy },
            Err(e) => return ("nothing ran".into(), Some(e.to_string())),
        }
    } else {
        say(ReplayMsg::Log {
            job,
            line: format!("warning: {UNPROTECTED}"),
        });
        Isolation::Unprotected
    };
    let options = ContinueOptions {
        environment: Environment::Workspace(request.workspace.clone()),
        isolation,
        edited_answer: request.edited_answer.clone(),
        recorded_root: None,
        limits: LoopLimits {
            max_steps: request.max_steps,
            ..LoopLimits::default()
        },
    };
    let mut on = |e: SessionEvent<'_>| match e {
        SessionEvent::Fork(path) => forks(job, path, say),
        SessionEvent::Environment(environment) => say(ReplayMsg::Log {
            job,
            line: format!("in {environment}"),
        }),
        SessionEvent::PrefixStep(s) => {
            let outcome = s.outcome.label();
            say(ReplayMsg::Log {
                job,
                line: format!("replayed step {:>3}  {outcome:<8} {}", s.step, s.action),
            });
        }
        SessionEvent::PrefixDone(prefix) => {
            if first > 1 {
                let same = prefix.count(|o| *o == StepOutcome::Same);
                say(ReplayMsg::Log {
                    job,
                    line: format!(
                        "{same} of {} replayed steps gave the recorded observation; first divergence: {}",
                        prefix.steps.len(),
                        prefix
                            .first_divergence
                            .map_or("none".into(), |s| format!("step {s}"))
                    ),
                });
            }
        }
        SessionEvent::Live(LiveEvent::Asking { step }) => say(ReplayMsg::Block {
            job,
            title: format!(
                "step {} (live {step}) · {} ({})",
                first + step - 1,
                backend.name(),
                backend.config().model
            ),
        }),
        SessionEvent::Live(LiveEvent::Delta(text)) => say(ReplayMsg::Text {
            job,
            text: text.to_string(),
        }),
        SessionEvent::Live(LiveEvent::Step(step)) => {
            if !step.action.is_empty() {
                say(ReplayMsg::Note {
                    job,
                    line: format!("$ {}", step.action.lines().next().unwrap_or("")),
                    failed: false,
                });
            }
            let observation = step.observation.trim();
            if !observation.is_empty() {
                let lines = observation.lines().count();
                // The first line that says something: not a wrapper tag such as
                // mini-swe-agent's `<returncode>0</returncode>`.
                let first_line = observation
                    .lines()
                    .find(|l| {
                        let l = l.trim();
                        let tag = l.starts_with('<') && l.ends_with('>');
                        !l.is_empty() && !tag
                    })
                    .or_else(|| observation.lines().next())
                    .unwrap_or("");
                say(ReplayMsg::Note {
                    job,
                    line: if lines > 1 {
                        format!("→ {first_line} (+{} lines)", lines - 1)
                    } else {
                        format!("→ {first_line}")
                    },
                    failed: step.failed,
                });
            }
        }
    };
    let done = continue_run(point(request, backend), 1, &options, cancel, &mut on).await;
    match done {
        Ok(run) => {
            forks(job, &run.fork, say);
            let o = &run.outcome;
            let failed = matches!(o.status, "BackendError" | "EnvironmentError");
            (
                format!(
                    "{} after {} live step{} — {}",
                    o.status,
                    o.steps,
                    if o.steps == 1 { "" } else { "s" },
                    o.detail
                ),
                failed.then(|| o.detail.clone()),
            )
        }
        Err(e) => ("nothing ran".into(), Some(e.to_string())),
    }
}

fn point<'a>(request: &'a ReplayRequest, backend: &'a Backend) -> ReplayPoint<'a> {
    ReplayPoint {
        trajectory: &request.trajectory,
        step: request.step,
        input: &request.input,
        backend,
    }
}

/// The fork at `path` as a run-table row.
fn forks(job: u64, path: &Path, say: &mut dyn FnMut(ReplayMsg)) {
    if let Ok(Loaded::Trajectories(ts)) = load_file(path) {
        let forks = ts.iter().map(TrajectorySummary::of).collect();
        say(ReplayMsg::Forks { job, forks });
    }
}
