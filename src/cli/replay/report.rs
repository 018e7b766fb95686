//! What `trajscope replay` prints: the dry run, the context label, the outcome table, and the
//! facts about a fork (rules it fired, where it diverges from the original).

use super::Args;
use crate::cli::table::Table;
use anyhow::Result;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trajscope::backend::{Backend, CancellationToken};
use trajscope::diff::compare_runs;
use trajscope::formats::{Loaded, load_file};
use trajscope::metrics::{Matcher, RuleOptions, RuleSet};
use trajscope::model::Trajectory;
use trajscope::replay::driver::request_for;
use trajscope::replay::input::{StepInput, tools_used};
use trajscope::replay::session::ReplayPoint;
use trajscope::replay::{Dialect, plan};

/// One line saying how faithful the context is.
pub fn context_label(step: usize, input: &StepInput) -> String {
    let mut line = format!(
        "Context at step {step}: {} ({} messages)",
        input.exactness.as_str().to_uppercase(),
        input.messages.len()
    );
    if let Some(note) = &input.note {
        line.push_str(&format!(": {note}"));
    }
    line
}

pub fn dry_run(
    args: &Args,
    t: &Trajectory,
    input: &StepInput,
    backends: &[Backend],
) -> Result<ExitCode> {
    let tools = tools_used(t);
    let request = request_for(input.messages.clone(), &tools);
    let planned = args
        .continue_live
        .then(|| plan(t, &Dialect::of(t), args.step));
    if args.json {
        let requests: Vec<Value> = backends
            .iter()
            .map(|b| {
                let p = b.prepare(&request);
                json!({
                    "backend": b.name(),
                    "url": p.url,
                    "headers": p.headers.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
                    "body": p.body,
                    "adaptations": p.adaptations,
                })
            })
            .collect();
        let out = json!({
            "file": t.display_source(),
            "step": args.step,
            "exactness": input.exactness.as_str(),
            "note": input.note,
            "requests": requests,
            "prefix_plan": planned,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", context_label(args.step, input));
    if !tools.is_empty() {
        println!(
            "Tools: {} (schemas inferred from the calls in the log)",
            tools
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(planned) = &planned {
        println!("\nPrefix 1..{} would be replayed so:", args.step - 1);
        for p in planned {
            println!("  step {:>3}  {:<40}  {}", p.step, p.how, p.action);
        }
    }
    for backend in backends {
        let prepared = backend.prepare(&request);
        println!("\n# backend `{}`", backend.name());
        print!("{prepared}");
        for a in &prepared.adaptations {
            println!("# adapted: {a}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Rules of the default rule set that fire on the fork's steps from `from` on.
pub fn rules_fired(matcher: &Matcher, fork: &Trajectory, from: usize) -> Vec<String> {
    let matches = matcher.scan(fork);
    let mut names: Vec<String> = Vec::new();
    for hit in matches.hits() {
        if (hit.step as usize) < from {
            continue;
        }
        if let Some(rule) = matcher.rule(hit.rule)
            && !names.contains(&rule.name)
        {
            names.push(rule.name.clone());
        }
    }
    names
}

pub fn matcher() -> Matcher {
    let set = RuleSet::load(&RuleOptions::default());
    Matcher::new(set.rules).0
}

/// The fork as trajscope's loader reads it back (what `ls`, `stats` and `diff` see).
pub fn reload(path: &Path) -> Option<Trajectory> {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut ts)) if !ts.is_empty() => Some(ts.remove(0)),
        _ => None,
    }
}

/// The first step of the original where the fork takes another action.
pub fn first_divergence(original: &Trajectory, fork: &Trajectory) -> Option<usize> {
    compare_runs(original, fork).first_divergence
}

/// A live replay as `--resample` and `--continue` both start it: the arguments, the log and
/// its step's input, the backends asked in turn, the token that stops them.
pub struct Live<'a> {
    pub args: &'a Args,
    pub t: &'a Trajectory,
    pub input: &'a StepInput,
    pub backends: &'a [Backend],
    pub cancel: &'a CancellationToken,
}

impl<'a> Live<'a> {
    /// Where `backend` takes over: the replayed step of the log.
    pub fn at(&self, backend: &'a Backend) -> ReplayPoint<'a> {
        ReplayPoint {
            trajectory: self.t,
            step: self.args.step,
            input: self.input,
            backend,
        }
    }
}

/// What the live runs of a replay gathered, one per backend and run: the table printed at
/// the end, the JSON object of each, the forks written, and whether any failed.
pub struct Runs {
    table: Table,
    runs: Vec<Value>,
    forks: Vec<PathBuf>,
    failed: bool,
}

impl Runs {
    pub fn new(columns: &[&str]) -> Runs {
        Runs {
            table: Table::new(columns.iter().copied()),
            runs: Vec::new(),
            forks: Vec::new(),
            failed: false,
        }
    }

    /// One run: its table row, its JSON object, the fork it wrote and whether it failed.
    pub fn add(&mut self, row: Vec<String>, run: Value, fork: PathBuf, failed: bool) {
        self.table.row(row);
        self.runs.push(run);
        self.forks.push(fork);
        self.failed |= failed;
    }

    /// Prints the table and the forks (or with `--json`, the summary `mode` makes of the runs'
    /// objects and the forks).
    pub fn finish(
        self,
        live: &Live<'_>,
        mode: &str,
        extra: impl FnOnce() -> Value,
    ) -> anyhow::Result<ExitCode> {
        let Runs {
            table,
            runs,
            forks,
            failed,
        } = self;
        let (t, step, input) = (live.t, live.args.step, live.input);
        let summary = || json_summary(mode, t, step, input, extra(), runs, &forks);
        finish(live.args.json, summary, &table, &forks, failed)
    }
}

/// The fork paths, one per line, as the last lines of the output.
/// How a replay ends: the JSON summary (`--json`), else the table and the forks' paths;
/// failure when any run failed.
fn finish(
    json: bool,
    summary: impl FnOnce() -> Value,
    table: &Table,
    forks: &[PathBuf],
    failed: bool,
) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string_pretty(&summary())?);
    } else {
        println!("\n{}", table.text().trim_end());
        print_paths(forks);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A fork's file name, for the table (its full path is printed below it).
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn print_paths(paths: &[PathBuf]) {
    for p in paths {
        println!("{}", p.display());
    }
}

/// At most `lines` lines of `text`, indented, with a note of what was left out.
pub fn excerpt(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.trim_end().lines().collect();
    let mut out: Vec<String> = all.iter().take(lines).map(|l| format!("    {l}")).collect();
    if all.len() > lines {
        out.push(format!("    … ({} more lines)", all.len() - lines));
    }
    out.join("\n")
}

/// The `--json` object of a replay: what was re-run, each run's `runs` entry, the forks and
/// the last fork as `fork_path`; `extra`'s fields are added after `note`.
fn json_summary(
    mode: &str,
    t: &Trajectory,
    step: usize,
    input: &StepInput,
    extra: Value,
    runs: Vec<Value>,
    forks: &[PathBuf],
) -> Value {
    let mut out = json!({
        "mode": mode,
        "file": t.display_source(),
        "step": step,
        "exactness": input.exactness.as_str(),
        "note": input.note,
    });
    if let (Some(object), Value::Object(extra)) = (out.as_object_mut(), extra) {
        object.extend(extra);
        object.insert("runs".into(), Value::Array(runs));
        object.insert("forks".into(), json!(forks));
        object.insert("fork_path".into(), json!(forks.last()));
    }
    out
}
