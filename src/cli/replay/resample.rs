//! `trajscope replay --resample N` (without --continue): the context at step k sent N times to
//! each backend (`trajscope::replay::session::resample_one`); each answer shown after the
//! recorded one and written as a one-step fork (the parent's steps 1..k-1, then the new
//! answer, exit status `Resampled`).

use super::report::{Live, Runs, context_label, excerpt, file_name};
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use trajscope::replay::driver::LiveEvent;
use trajscope::replay::session::{SessionEvent, resample_one};

pub async fn run(live: Live<'_>) -> Result<ExitCode> {
    let args = live.args;
    let n = args.resample.unwrap_or(1).max(1);
    let recorded = live.t.step(args.step);
    let recorded_action = recorded.map(|s| s.action.trim().to_string());
    if !args.json {
        println!("{}", context_label(args.step, live.input));
        match recorded {
            Some(step) => {
                println!("\n── recorded answer (step {}) ──", args.step);
                let text = if step.response.trim().is_empty() {
                    format!("{}\n\n{}", step.thought, step.action)
                } else {
                    step.response.clone()
                };
                println!("{}", excerpt(&text, 30));
            }
            None => println!("\n(step {} is past the end: no recorded answer)", args.step),
        }
    }
    let mut runs = Runs::new(&[
        "backend",
        "sample",
        "finish",
        "same action",
        "chars",
        "1st token s",
        "tok/s",
        "fork",
    ]);
    'all: for backend in live.backends {
        for i in 1..=n {
            if !args.json {
                println!(
                    "\n── sample {i}/{n} · {} ({}) ──",
                    backend.name(),
                    backend.config().model
                );
            }
            let json_mode = args.json;
            let mut show = |e: SessionEvent<'_>| {
                if let (SessionEvent::Live(LiveEvent::Delta(text)), false) = (e, json_mode) {
                    print!("{text}");
                    let _ = std::io::stdout().flush();
                }
            };
            let at = live.at(backend);
            let sample = resample_one(at, i, args.seed, live.cancel, &mut show).await?;
            if !args.json {
                println!();
                if let Some(e) = &sample.error {
                    println!("  error: {e}");
                }
                println!(
                    "  action: {}   same as recorded: {}",
                    if sample.action.is_empty() {
                        "(none)".into()
                    } else {
                        format!("`{}`", first_line(&sample.action))
                    },
                    yes_no(sample.same)
                );
                println!("  fork: {}", sample.fork.display());
            }
            let completion = &sample.completion;
            let finish = completion
                .finish_reason
                .as_ref()
                .map(|r| r.as_str().to_string())
                .unwrap_or_else(|| sample.status.to_string());
            let row = vec![
                backend.name().to_string(),
                i.to_string(),
                finish.clone(),
                yes_no(sample.same).to_string(),
                completion.text.chars().count().to_string(),
                sample
                    .stats
                    .and_then(|s| s.timing.first_token_s)
                    .map_or("-".into(), |s| format!("{s:.2}")),
                sample
                    .stats
                    .and_then(|s| s.tokens_per_s())
                    .map_or("-".into(), |s| format!("{s:.1}")),
                file_name(&sample.fork),
            ];
            let run = json!({
                "backend": backend.name(),
                "model": backend.config().model,
                "sample": i,
                "status": sample.status,
                "error": sample.error,
                "finish_reason": finish,
                "text": completion.text,
                "tool_calls": completion.tool_calls,
                "action": sample.action,
                "same_action_as_recorded": sample.same,
                "request": sample.stats,
                "fork_path": sample.fork,
                "native_path": sample.native,
            });
            let failed = sample.error.is_some();
            runs.add(row, run, sample.fork, failed);
            if live.cancel.is_cancelled() {
                break 'all;
            }
        }
    }
    runs.finish(
        &live,
        "resample",
        || json!({ "recorded_action": recorded_action }),
    )
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "-",
    }
}
