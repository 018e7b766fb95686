//! `trajscope watch`: follow files or folders headless and print each new step as it arrives,
//! and each alert (a rule marked `alert = true`) as it fires.

use anyhow::Result;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use trajscope::metrics::{AlertLog, Firing, Matcher, has_alerts};
use trajscope::model::{Step, Trajectory};
use trajscope::watch::{
    ChangeFeed, FeedMode, FileStatus, FileUpdate, Follower, TrajectoryChange, announced,
};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or folders to follow (folders: every log in them, new ones included).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// One JSON object per line: {"kind": "step", "path", "step", …}.
    #[arg(long)]
    pub json: bool,
    /// Also print the steps already written when watching starts.
    #[arg(long)]
    pub from_start: bool,
    /// Poll instead of relying on filesystem notifications (network filesystems are
    /// detected and polled anyway).
    #[arg(long)]
    pub poll: bool,
    /// The rules to alert with (alerts are rules with `alert = true`).
    #[command(flatten)]
    pub rules: super::rules_arg::RulesArg,
}

/// The alert rules and what each followed trajectory has reported.
struct Alerts {
    matcher: Option<Matcher>,
    logs: HashMap<(PathBuf, usize), AlertLog>,
}

impl Alerts {
    fn load(args: &Args) -> Alerts {
        let (matcher, _) = args.rules.compile();
        Alerts {
            matcher: has_alerts(&matcher).then_some(matcher),
            logs: HashMap::new(),
        }
    }

    /// New firings in `trajectory`, the `index`th of the file at `path`.
    fn check(
        &mut self,
        path: &std::path::Path,
        index: usize,
        trajectory: &Trajectory,
    ) -> Vec<Firing> {
        let Some(matcher) = &self.matcher else {
            return Vec::new();
        };
        self.logs
            .entry((path.to_path_buf(), index))
            .or_default()
            .new_firings(matcher, trajectory)
    }
}

/// How long a burst of writes is merged before it is read: short, since the goal is a new
/// step on screen within 200 ms of being written.
const QUIET: Duration = Duration::from_millis(25);
const MAX_DELAY: Duration = Duration::from_millis(100);
const RETRY: Duration = Duration::from_millis(150);

pub fn run(args: Args) -> Result<ExitCode> {
    let feed = ChangeFeed::new(&args.paths, args.poll)?;
    if let FeedMode::Poll { interval, reason } = feed.mode() {
        eprintln!(
            "trajscope: polling every {} ms ({reason})",
            interval.as_millis()
        );
    }
    let mut alerts = Alerts::load(&args);
    let mut follower = Follower::new(args.paths.clone());
    for update in follower.scan() {
        report(&follower, &update, &args, &mut alerts, args.from_start)?;
    }
    // What was read is printed: only offsets and step fingerprints are kept from here on.
    follower.release_all();
    eprintln!(
        "trajscope: following {} file(s); Ctrl-C to stop",
        follower.files().count()
    );
    loop {
        let timeout = if follower.has_pending() {
            RETRY
        } else {
            Duration::from_secs(3600)
        };
        let Ok(paths) = feed.next_batch(timeout, QUIET, MAX_DELAY) else {
            eprintln!("trajscope: the file watcher stopped");
            return Ok(ExitCode::FAILURE);
        };
        let updates = if paths.is_empty() {
            follower.retry_pending()
        } else {
            follower.changed(&paths)
        };
        for update in updates {
            report(&follower, &update, &args, &mut alerts, true)?;
        }
        follower.release_all();
    }
}

/// Where a `--json` line points: its kind, the trajectory and the step. Flattened into
/// every line, so step and alert lines name their place with the same keys.
#[derive(Serialize)]
struct LineAt<'a> {
    kind: &'static str,
    path: String,
    /// Which trajectory of the file (1-based), when the file holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    trajectory: Option<usize>,
    instance_id: &'a str,
    step: usize,
}

impl<'a> LineAt<'a> {
    fn of(kind: &'static str, trajectory: &'a Trajectory, step: usize) -> LineAt<'a> {
        LineAt {
            kind,
            path: trajectory.path.display().to_string(),
            trajectory: trajectory.source_index.map(|i| i + 1),
            instance_id: &trajectory.instance_id,
            step,
        }
    }
}

#[derive(Serialize)]
struct StepLine<'a> {
    #[serde(flatten)]
    at: LineAt<'a>,
    /// True when this step was shown before and has been completed since.
    updated: bool,
    tool: Option<&'a str>,
    summary: &'a str,
    error: bool,
    exit_status: Option<&'a str>,
}

#[derive(Serialize)]
struct AlertLine<'a> {
    #[serde(flatten)]
    at: LineAt<'a>,
    rule: &'a str,
    description: &'a str,
}

/// Prints the steps an update brought, then the alerts they fired. Without `--from-start`,
/// what is in the files when watching starts is remembered, not printed.
fn report(
    follower: &Follower,
    update: &FileUpdate,
    args: &Args,
    alerts: &mut Alerts,
    print_steps: bool,
) -> Result<()> {
    match &update.status {
        FileStatus::MidWrite(reason) => {
            eprintln!(
                "trajscope: {} is being written ({reason}); retrying",
                update.path.display()
            );
        }
        FileStatus::Failed(reason) => eprintln!("trajscope: {reason}"),
        FileStatus::Removed => eprintln!("trajscope: {} was removed", update.path.display()),
        FileStatus::Waiting | FileStatus::Current => {}
    }
    let Some(file) = follower.file(&update.path) else {
        return Ok(());
    };
    if print_steps {
        for a in announced(update, file) {
            print_step(a.trajectory, a.step, a.updated, args.json)?;
        }
    }
    for change in &update.changes {
        let Some((index, _, _)) = change.steps_brought() else {
            if let TrajectoryChange::Removed { index } = *change {
                // A file written anew under the same name reports its alerts again.
                alerts.logs.remove(&(update.path.clone(), index));
            }
            continue;
        };
        let Some(trajectory) = file.trajectories().get(index) else {
            continue;
        };
        for firing in alerts.check(&update.path, index, trajectory) {
            if print_steps {
                print_alert(trajectory, &firing, args.json)?;
            }
        }
    }
    Ok(())
}

fn print_alert(trajectory: &Trajectory, firing: &Firing, json: bool) -> Result<()> {
    if json {
        let line = AlertLine {
            at: LineAt::of("alert", trajectory, firing.step),
            rule: &firing.rule,
            description: &firing.description,
        };
        emit(&serde_json::to_string(&line)?)?;
    } else {
        emit(&format!(
            "{} step {:>3} ALERT {}{}",
            trajectory.display_source(),
            firing.step,
            firing.rule,
            if firing.description.is_empty() {
                String::new()
            } else {
                format!(": {}", firing.description)
            }
        ))?;
    }
    Ok(())
}

fn print_step(trajectory: &Trajectory, step: &Step, updated: bool, json: bool) -> Result<()> {
    if json {
        let line = StepLine {
            at: LineAt::of("step", trajectory, step.index),
            updated,
            tool: step.tool.as_deref(),
            summary: step.summary(),
            error: step.is_error(),
            exit_status: trajectory.exit_status.as_deref(),
        };
        emit(&serde_json::to_string(&line)?)?;
    } else {
        // A step printed before comes again when its observation arrives (chat logs write the
        // call and its result as two lines): say so, so it does not read as a second step.
        emit(&format!(
            "{} step {:>3} {:<12} {}{}{}",
            trajectory.display_source(),
            step.index,
            step.tool_name(),
            step.summary(),
            if step.is_error() { "  [error]" } else { "" },
            if updated { "  [updated]" } else { "" }
        ))?;
    }
    Ok(())
}

/// Writes one line and flushes it: `watch` is read through pipes, where a line held in a
/// buffer is a step not seen. A closed pipe ends the watch with an error, not a panic.
fn emit(line: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}
