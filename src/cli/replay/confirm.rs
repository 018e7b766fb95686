//! Before `replay --continue` executes anything: the sandbox is found (or refused, or
//! `--no-sandbox` is warned about), and the user sees where commands will run, in what
//! sandbox, how many recorded steps will be re-run and the first commands, then answers
//! y/n. `--yes` skips the question; without a terminal on stdin and without `--yes`, nothing
//! runs.

use super::Args;
use anyhow::{Result, bail};
use std::io::{BufRead, IsTerminal, Write};
use trajscope::backend::Backend;
use trajscope::model::{Message, Trajectory};
use trajscope::replay::sandbox::{Bubblewrap, Policy, UNPROTECTED};
use trajscope::replay::session::{Environment, Isolation};
use trajscope::replay::{Dialect, plan};

/// Commands shown in the question.
const FIRST_COMMANDS: usize = 5;

/// The isolation `args` ask for: bubblewrap unless `--no-sandbox` (which warns on stderr).
pub fn isolation(args: &Args) -> Result<Isolation> {
    if args.no_sandbox {
        eprintln!("warning: {UNPROTECTED}");
        return Ok(Isolation::Unprotected);
    }
    let policy = Policy {
        network: args.network,
        binds: args.binds.clone(),
    };
    let bwrap = Bubblewrap::find(&policy)?;
    Ok(Isolation::Bubblewrap { bwrap, policy })
}

/// What will run, for the question (and for the record with `--yes`).
pub fn summary(
    args: &Args,
    t: &Trajectory,
    environment: &Environment,
    isolation: &Isolation,
    backends: &[Backend],
    edited: Option<&Message>,
) -> Vec<String> {
    let mut lines = vec!["replay --continue will execute commands from this log:".to_string()];
    match environment {
        Environment::Workspace(path) => {
            lines.push(format!(
                "  workspace: a fresh scratch copy of {} per run (the original is only read)",
                path.display()
            ));
            match isolation {
                Isolation::Bubblewrap { bwrap, policy } => {
                    let mut sandbox = bwrap.describe(policy).into_iter();
                    if let Some(first) = sandbox.next() {
                        lines.push(format!("  sandbox: {first}"));
                    }
                    lines.extend(sandbox.map(|l| format!("    {l}")));
                }
                Isolation::Unprotected => {
                    lines.push("  sandbox: NONE (--no-sandbox): commands run as you".into())
                }
            }
        }
        Environment::Container(prefix) => {
            lines.push(format!(
                "  in the container through `{prefix}`: its own isolation; trajscope adds none"
            ));
        }
    }
    let planned = plan(t, &Dialect::of(t), args.step);
    let acting: Vec<_> = planned.iter().filter(|p| p.needs_repository).collect();
    let runs = args.resample.unwrap_or(1).max(1) * backends.len().max(1);
    lines.push(format!(
        "  recorded steps re-run: {} of steps 1..{} ({} per run, {runs} run{})",
        acting.len(),
        args.step.saturating_sub(1),
        acting.len(),
        if runs == 1 { "" } else { "s" }
    ));
    if !acting.is_empty() {
        lines.push("  first commands:".into());
        for p in acting.iter().take(FIRST_COMMANDS) {
            let first = p.action.lines().next().unwrap_or("");
            lines.push(format!("    step {:>3}  {}", p.step, clip(first, 100)));
        }
        if acting.len() > FIRST_COMMANDS {
            lines.push(format!("    … {} more", acting.len() - FIRST_COMMANDS));
        }
    }
    if let Some(answer) = edited {
        let shown = if answer.tool_calls.is_empty() {
            answer.content.clone()
        } else {
            answer
                .tool_calls
                .iter()
                .map(|c| format!("{} {}", c.name, c.arguments))
                .collect::<Vec<_>>()
                .join("; ")
        };
        lines.push(format!(
            "  step {}: your edited answer: {}",
            args.step,
            clip(&shown.replace('\n', " ⏎ "), 100)
        ));
    }
    lines.push(format!(
        "  then up to {} live model step{} per run",
        args.max_steps,
        if args.max_steps == 1 { "" } else { "s" }
    ));
    lines
}

/// Shows `lines` on stderr and asks, unless `--yes`.
pub fn ask(args: &Args, lines: &[String]) -> Result<()> {
    let mut err = std::io::stderr();
    for line in lines {
        writeln!(err, "{line}")?;
    }
    if args.yes {
        return Ok(());
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        bail!(
            "--continue executes the log's commands and asks first, but stdin is not a terminal: pass --yes to run without asking"
        );
    }
    write!(err, "Run it? [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    stdin.lock().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes") {
        Ok(())
    } else {
        bail!("nothing was run")
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    format!("{cut}…")
}
