//! Re-running the recorded steps 1..k-1 before a live continuation from step k, and checking
//! that the environment answers as it did: each replayed observation is compared with the
//! recorded one after [`normalise`](super::normalise::normalise), and the first divergence is
//! reported with a short diff. Also a dry run that only says how each step would be replayed
//! (for a log whose repository is not at hand).

use super::action::{Call, EnvAction, WINDOWED_COMMANDS};
use super::dialect::{Agent, Dialect};
use super::executor::{ExecError, Executor, Support, support};
use super::normalise::{normalise, short_diff};
use super::recorded::{Recorded, documented_commands, recorded};
use crate::model::Trajectory;
use serde::Serialize;

/// How one recorded step replayed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum StepOutcome {
    /// The replayed observation equals the recorded one (after normalisation).
    Same,
    /// It differs; `diff` is a short unified diff, recorded → replayed, of normalised texts.
    Differs { diff: String },
    /// It could not be replayed, and why.
    NotReplayable { why: String },
    /// The step did nothing in the environment.
    NoAction,
}

impl StepOutcome {
    /// How a replay log names the outcome: `same`, `DIFFERS`, `not replayable: why`.
    pub fn label(&self) -> String {
        match self {
            StepOutcome::Same => "same".to_string(),
            StepOutcome::Differs { .. } => "DIFFERS".to_string(),
            StepOutcome::NotReplayable { why } => format!("not replayable: {why}"),
            StepOutcome::NoAction => "no action".to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepReplay {
    /// 1-based step number.
    pub step: usize,
    /// The action, in one line.
    pub action: String,
    #[serde(flatten)]
    pub outcome: StepOutcome,
    /// The replayed observation, as the agent would log it.
    #[serde(skip)]
    pub replayed: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PrefixReport {
    pub steps: Vec<StepReplay>,
    /// The first step whose observation differs.
    pub first_divergence: Option<usize>,
    /// A replayed action ended the run (the prefix includes a submission).
    pub submitted: bool,
}

impl PrefixReport {
    pub fn count(&self, f: impl Fn(&StepOutcome) -> bool) -> usize {
        self.steps.iter().filter(|s| f(&s.outcome)).count()
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PrefixOptions {
    /// Stop after the first divergence (later steps ran against a different state).
    pub stop_at_divergence: bool,
    /// Lines of diff kept per differing step.
    pub diff_lines: usize,
}

impl Default for PrefixOptions {
    fn default() -> PrefixOptions {
        PrefixOptions {
            stop_at_divergence: false,
            diff_lines: 40,
        }
    }
}

/// Replays steps `1..until` (that is, up to but excluding step `until`) of `t` in `exec`.
/// `progress` sees each step as it completes.
pub fn replay_prefix(
    t: &Trajectory,
    until: usize,
    exec: &mut Executor,
    options: PrefixOptions,
    progress: &mut dyn FnMut(&StepReplay),
) -> Result<PrefixReport, ExecError> {
    let dialect = exec.dialect().clone();
    let custom = custom_commands(t, &dialect);
    let subs = exec.paths().substitutions();
    let mut report = PrefixReport::default();
    for step in t.steps.iter().take(until.saturating_sub(1)) {
        let (action, outcome, replayed) = match recorded(&dialect, step) {
            Recorded::Nothing => (String::new(), StepOutcome::NoAction, String::new()),
            Recorded::FormatError(e) => {
                let outcome = compare(
                    &step.observation,
                    std::slice::from_ref(&e.message),
                    &subs,
                    options,
                );
                (format!("(format error: {})", e.reason), outcome, e.message)
            }
            Recorded::Calls(calls) => {
                let action = summary(&calls);
                match blocked(&dialect, &calls, &custom) {
                    Some(why) => (action, StepOutcome::NotReplayable { why }, String::new()),
                    None => {
                        let mut texts = Vec::new();
                        let mut submission = None;
                        for call in &calls {
                            let obs = exec.execute(&call.action)?;
                            report.submitted |= obs.submitted.is_some();
                            submission = submission.or(obs.submitted);
                            texts.push(obs.text);
                        }
                        // Logs that end with an exit record (mini-swe-agent 2.x) keep the
                        // submission there, not as the last step's observation.
                        let outcome = match (&submission, &t.submission) {
                            (Some(ours), Some(theirs)) if step.observation.trim().is_empty() => {
                                compare(theirs, std::slice::from_ref(ours), &subs, options)
                            }
                            _ => compare(&step.observation, &texts, &subs, options),
                        };
                        (action, outcome, texts.join("\n"))
                    }
                }
            }
        };
        let entry = StepReplay {
            step: step.index,
            action,
            outcome,
            replayed,
        };
        progress(&entry);
        let differs = matches!(entry.outcome, StepOutcome::Differs { .. });
        if differs && report.first_divergence.is_none() {
            report.first_divergence = Some(entry.step);
        }
        report.steps.push(entry);
        if differs && options.stop_at_divergence {
            break;
        }
    }
    Ok(report)
}

fn summary(calls: &[Call]) -> String {
    calls
        .iter()
        .map(|c| c.action.summary())
        .collect::<Vec<_>>()
        .join(" ; ")
}

/// Actions SWE-agent and its forks log that are handled by the agent itself, not by a shell:
/// the `exit_*` markers of a run stopped by a limit, CodeR's hand-offs between its agents.
const AGENT_COMMANDS: &[&str] = &[
    "exit_cost",
    "exit_context",
    "exit_format",
    "exit_api",
    "exit_error",
    "exit_forfeit",
    "plan",
    "succeed",
    "fail",
];

/// SWE-agent commands trajscope does not implement: those the log's system prompt documents
/// beyond the windowed ones, and the agents' own.
fn custom_commands(t: &Trajectory, dialect: &Dialect) -> Vec<String> {
    if dialect.agent != Agent::SweAgent {
        return Vec::new();
    }
    documented_commands(t)
        .into_iter()
        .chain(AGENT_COMMANDS.iter().map(|c| c.to_string()))
        .filter(|c| !WINDOWED_COMMANDS.contains(&c.as_str()) && c != "submit")
        .collect()
}

/// Why these calls cannot be replayed, if they cannot.
fn blocked(dialect: &Dialect, calls: &[Call], custom: &[String]) -> Option<String> {
    for call in calls {
        if let EnvAction::Shell { command } = &call.action {
            let first = command.split_whitespace().next().unwrap_or("");
            if custom.iter().any(|c| c == first) {
                return Some(format!(
                    "`{first}` is a command of this agent that trajscope does not implement"
                ));
            }
        }
        if let Support::Unsupported(why) = support(dialect, &call.action) {
            return Some(why);
        }
    }
    None
}

/// The Llama agent logs `Executing tool call: […]` before each result.
fn strip_llama_header(text: &str) -> String {
    let mut out = String::new();
    for part in text.split("Executing tool call: ") {
        let body = match part.split_once("\nResult: ") {
            Some((_, body)) => body,
            None => part,
        };
        out.push_str(body);
    }
    out
}

fn compare(
    recorded: &str,
    replayed: &[String],
    subs: &[(String, String)],
    options: PrefixOptions,
) -> StepOutcome {
    let recorded = normalise(&strip_llama_header(recorded), subs);
    let parts: Vec<String> = replayed.iter().map(|r| normalise(r, subs)).collect();
    let joined = parts.join("\n");
    if recorded == joined {
        return StepOutcome::Same;
    }
    // Several calls in one step: the log may join their results its own way.
    if parts.len() > 1 {
        let mut rest = recorded.as_str();
        let in_order = parts.iter().all(|p| match rest.find(p.as_str()) {
            Some(at) => {
                rest = &rest[at + p.len()..];
                true
            }
            None => false,
        });
        if in_order {
            return StepOutcome::Same;
        }
    }
    StepOutcome::Differs {
        diff: short_diff(&recorded, &joined, options.diff_lines),
    }
}

/// How a step would be replayed, without running anything.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedStep {
    pub step: usize,
    pub action: String,
    /// `native: TOOL`, `shell: plain tools`, `shell: needs the environment (python …)`,
    /// `not replayable: …`, `format error`, `no action`.
    pub how: String,
    /// Replaying it needs the repository's files (anything but a format error or no action).
    pub needs_repository: bool,
    /// Replaying it faithfully needs the original environment (interpreters, dependencies).
    pub needs_environment: bool,
}

/// Programs whose output depends on the installed environment, not only on the files.
const ENVIRONMENT_PROGRAMS: &[&str] = &[
    "python",
    "python3",
    "python2",
    "pip",
    "pip3",
    "pytest",
    "tox",
    "nosetests",
    "conda",
    "npm",
    "node",
    "npx",
    "yarn",
    "make",
    "cmake",
    "cargo",
    "go",
    "java",
    "javac",
    "mvn",
    "gradle",
    "ruby",
    "bundle",
    "rake",
    "php",
    "composer",
    "gcc",
    "g++",
    "cc",
    "django-admin",
    "curl",
    "wget",
    "tshark",
    "docker",
    "sudo",
    "apt",
    "apt-get",
];

/// The environment-dependent programs a shell command runs.
pub fn environment_programs(command: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for p in crate::diff::parse_shell(command) {
        for c in &p.commands {
            let name = c.name();
            let base = name.trim_end_matches(|ch: char| ch.is_ascii_digit() || ch == '.');
            if (ENVIRONMENT_PROGRAMS.contains(&name) || ENVIRONMENT_PROGRAMS.contains(&base))
                && !found.iter().any(|f| f == name)
            {
                found.push(name.to_string());
            }
        }
    }
    found
}

/// How each of steps `1..until` would be replayed.
pub fn plan(t: &Trajectory, dialect: &Dialect, until: usize) -> Vec<PlannedStep> {
    let custom = custom_commands(t, dialect);
    t.steps
        .iter()
        .take(until.saturating_sub(1))
        .map(|step| {
            let (action, how, repo, env) = match recorded(dialect, step) {
                Recorded::Nothing => (String::new(), "no action".to_string(), false, false),
                Recorded::FormatError(e) => (
                    format!("(format error: {})", e.reason),
                    "format error".to_string(),
                    false,
                    false,
                ),
                Recorded::Calls(calls) => {
                    let action = summary(&calls);
                    match blocked(dialect, &calls, &custom) {
                        Some(why) => (action, format!("not replayable: {why}"), true, true),
                        None => {
                            let programs: Vec<String> = calls
                                .iter()
                                .filter_map(|c| match &c.action {
                                    EnvAction::Shell { command } => {
                                        Some(environment_programs(command))
                                    }
                                    _ => None,
                                })
                                .flatten()
                                .collect();
                            let natives: Vec<String> = calls
                                .iter()
                                .filter_map(|c| match support(dialect, &c.action) {
                                    Support::Native(n) => Some(n),
                                    _ => None,
                                })
                                .collect();
                            let how = if !programs.is_empty() {
                                format!("shell: needs the environment ({})", programs.join(", "))
                            } else if natives.len() == calls.len() {
                                format!("native: {}", natives.join(", "))
                            } else {
                                "shell: plain tools".to_string()
                            };
                            (action, how, true, !programs.is_empty())
                        }
                    }
                }
            };
            PlannedStep {
                step: step.index,
                action,
                how,
                needs_repository: repo,
                needs_environment: env,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_programs_in_command_lines() {
        assert_eq!(
            environment_programs("cd /testbed && python reproduce.py"),
            ["python"]
        );
        assert_eq!(
            environment_programs("python3.9 -m pytest -x tests/ | tail -5"),
            ["python3.9"]
        );
        assert!(environment_programs("grep -rn foo . | head && sed -n 1,5p a.py").is_empty());
        assert_eq!(environment_programs("pip install -e .[dev]"), ["pip"]);
    }

    #[test]
    fn comparing_several_results_and_llama_headers() {
        let opts = PrefixOptions::default();
        assert_eq!(
            compare("a\n\nb", &["a".into(), "b".into()], &[], opts),
            StepOutcome::Same
        );
        assert_eq!(
            compare(
                "Executing tool call: [view_file(path=\"/w/a.py\")]\nResult: x = 1\n",
                &["x = 1\n".into()],
                &[],
                opts
            ),
            StepOutcome::Same
        );
        match compare("3 0 -4", &["3.5 0.3333333333333333 -3.5".into()], &[], opts) {
            StepOutcome::Differs { diff } => {
                assert!(diff.contains("-3 0 -4") && diff.contains("+3.5"))
            }
            other => panic!("{other:?}"),
        }
    }
}
