//! `trajscope replay --resample N` (without --continue): the context at step k sent N times to
//! each backend; each answer shown after the recorded one and written as a one-step fork
//! (the parent's steps 1..k-1, then the new answer, exit status `Resampled`).

use super::Args;
use super::report::{context_label, excerpt, print_paths};
use crate::cli::table::Table;
use anyhow::Result;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;
use trajscope::backend::{Backend, CancellationToken, Sampling};
use trajscope::model::{ForkOrigin, Message, Trajectory, Usage};
use trajscope::replay::driver::{Progress, request_for, resample};
use trajscope::replay::fork::{ForkWriter, LiveStep};
use trajscope::replay::input::{StepInput, tools_used};
use trajscope::replay::{Action, Dialect, parse_answer};

pub async fn run(
    args: &Args,
    t: &Trajectory,
    input: &StepInput,
    backends: &[Backend],
    cancel: &CancellationToken,
) -> Result<ExitCode> {
    let n = args.resample.unwrap_or(1).max(1);
    let dialect = Dialect::of(t);
    let tools = tools_used(t);
    let recorded = t.step(args.step);
    let recorded_action = recorded.map(|s| s.action.trim().to_string());
    if !args.json {
        println!("{}", context_label(args.step, input));
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
    let mut table = Table::new([
        "backend",
        "sample",
        "finish",
        "same action",
        "chars",
        "1st token s",
        "tok/s",
        "fork",
    ]);
    let mut runs = Vec::new();
    let mut forks = Vec::new();
    let mut failed = false;
    'all: for backend in backends {
        for i in 1..=n {
            let sampling = Sampling {
                seed: args.seed.map(|s| s + i as u64 - 1),
                ..Sampling::default()
            };
            let request = request_for(input.messages.clone(), &tools).with_sampling(sampling);
            let prepared = backend.prepare(&request);
            let mut settings = backend.config().settings_json();
            if let Some(object) = settings.as_object_mut() {
                object.insert("mode".into(), json!("resample"));
                object.insert("sample".into(), json!(i));
                object.insert("sampling_override".into(), json!(request.sampling));
                object.insert("context".into(), json!(input.exactness.as_str()));
                object.insert("context_note".into(), json!(input.note));
                object.insert("adaptations".into(), json!(prepared.adaptations));
            }
            let origin = ForkOrigin {
                parent: t.source.clone(),
                step: args.step,
                backend: Some(backend.name().to_string()),
                model: Some(backend.config().model.clone()),
                settings,
            };
            let mut writer = ForkWriter::create(t, args.step, origin, "resample")?;
            if !args.json {
                println!(
                    "\n── sample {i}/{n} · {} ({}) ──",
                    backend.name(),
                    backend.config().model
                );
            }
            let json_mode = args.json;
            let mut show = |p: Progress<'_>| {
                if let (Progress::Delta(text), false) = (p, json_mode) {
                    print!("{text}");
                    let _ = std::io::stdout().flush();
                }
            };
            let result = resample(backend, &request, cancel, &mut show).await;
            let (completion, stats, status, error) = match result {
                Ok((c, s)) => (c, Some(s), "Resampled", None),
                Err((e, partial)) => {
                    failed = true;
                    let status = if e.is_cancelled() {
                        "Cancelled"
                    } else {
                        "BackendError"
                    };
                    (partial, None, status, Some(e.to_string()))
                }
            };
            let answer = completion.to_message();
            let mut step = LiveStep::new(input.messages.clone(), answer.clone());
            let (action, same) = parsed_action(&dialect, &answer, recorded_action.as_deref());
            step.thought = answer
                .content
                .split("```")
                .next()
                .unwrap_or("")
                .trim()
                .into();
            step.action = action.clone();
            step.failed = error.is_some();
            if let Some(e) = &error {
                step.observation = format!("[trajscope: {status}: {e}]");
            }
            step.usage = completion.usage.unwrap_or(Usage::default());
            step.usage.api_calls = Some(1);
            step.duration_s = Some(completion.timing.total_s);
            if completion.has_content() || error.is_none() {
                writer.push_step(step)?;
            }
            writer.finish(status, None)?;
            if !args.json {
                println!();
                if let Some(e) = &error {
                    println!("  error: {e}");
                }
                println!(
                    "  action: {}   same as recorded: {}",
                    if action.is_empty() {
                        "(none)".into()
                    } else {
                        format!("`{}`", first_line(&action))
                    },
                    yes_no(same)
                );
                println!("  fork: {}", writer.path().display());
            }
            let finish = completion
                .finish_reason
                .as_ref()
                .map(|r| r.as_str().to_string())
                .unwrap_or_else(|| status.to_string());
            table.row([
                backend.name().to_string(),
                i.to_string(),
                finish.clone(),
                yes_no(same).to_string(),
                completion.text.chars().count().to_string(),
                stats
                    .and_then(|s| s.timing.first_token_s)
                    .map_or("-".into(), |s| format!("{s:.2}")),
                stats
                    .and_then(|s| s.tokens_per_s())
                    .map_or("-".into(), |s| format!("{s:.1}")),
                writer
                    .path()
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ]);
            runs.push(json!({
                "backend": backend.name(),
                "model": backend.config().model,
                "sample": i,
                "status": status,
                "error": error,
                "finish_reason": finish,
                "text": completion.text,
                "tool_calls": completion.tool_calls,
                "action": action,
                "same_action_as_recorded": same,
                "request": stats,
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
            "mode": "resample",
            "file": t.display_source(),
            "step": args.step,
            "exactness": input.exactness.as_str(),
            "note": input.note,
            "recorded_action": recorded_action,
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

/// The answer's actions as the agent would read them, and whether they are the recorded ones.
fn parsed_action(
    dialect: &Dialect,
    answer: &Message,
    recorded: Option<&str>,
) -> (String, Option<bool>) {
    let action = match parse_answer(dialect, answer) {
        Ok(calls) => calls
            .iter()
            .map(|c| match &c.action {
                Action::Shell { command } => command.clone(),
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
