//! OpenHands evaluation output: one instance per line of `output.jsonl` (or one per file),
//! each with its `history` of events, the task, the patch, metrics and error.
//!
//! Owns what an instance says about the run as a whole; the events go to `history.rs`.

use super::event::Accumulated;
use super::item::{HistoryItem, history_list};
use super::{flatten, history};
use crate::formats::LoadError;
use crate::formats::json::{Text, f64_field, nonblank_lines, str_field};
use crate::formats::task::task_from_prompt;
use crate::model::{Format, Trajectory, Usage, instance_id_from_path};
use rayon::prelude::*;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Instance {
    instance_id: Option<Text>,
    instruction: Option<Text>,
    #[serde(deserialize_with = "history_list")]
    history: Vec<HistoryItem>,
    metadata: Value,
    metrics: Value,
    error: Value,
    test_result: Value,
    /// The benchmark's record of the task (`problem_statement`, `instance_id`, …).
    instance: Value,
    /// The resolver's output (`openhands.resolver`): the GitHub issue it worked on, the
    /// patch, and its own verdict.
    issue: Value,
    git_patch: Option<Text>,
    success: Option<bool>,
    result_explanation: Option<Text>,
    /// Older resolver versions' name for `result_explanation`.
    success_explanation: Option<Text>,
}

/// Every instance of an `output.jsonl`, in file order. A line that is not an instance is
/// skipped with a warning naming it; only a file without any instance is an error. Lines
/// are read in parallel: an evaluation's output is one file of hundreds of instances.
pub fn lines(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let lines: Vec<(usize, &[u8], bool)> = nonblank_lines(bytes).collect();
    let outcomes: Vec<Result<Trajectory, (usize, String, String)>> = lines
        .par_iter()
        .map(|&(line_no, line, is_last)| read_line(path, line_no, line, is_last))
        .collect();

    let mut trajectories = Vec::new();
    let mut warnings = Vec::new();
    let mut first_failure: Option<(usize, String)> = None;
    for outcome in outcomes {
        match outcome {
            Ok(mut t) => {
                let ordinal = trajectories.len();
                t.source_index = Some(ordinal);
                if t.instance_id.is_empty() {
                    t.instance_id = format!("{}#{}", instance_id_from_path(path), ordinal + 1);
                }
                trajectories.push(t);
            }
            Err((line, message, warning)) => {
                warnings.push(warning);
                first_failure.get_or_insert((line, message));
            }
        }
    }
    match (trajectories.first_mut(), first_failure) {
        (Some(first), _) => {
            first.warnings.extend(warnings);
            Ok(trajectories)
        }
        (None, Some((line, message))) => Err(LoadError::InvalidAt {
            path: path.to_path_buf(),
            line,
            message,
        }),
        (None, None) => Err(LoadError::Empty {
            path: path.to_path_buf(),
        }),
    }
}

/// One line's trajectory, or (line, message, warning) saying why there is none. A
/// trajectory without an instance id has an empty one, for the caller to name.
fn read_line(
    path: &Path,
    line_no: usize,
    line: &[u8],
    is_last: bool,
) -> Result<Trajectory, (usize, String, String)> {
    // serde would read a struct from an array of its fields: only objects are instances.
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        let message = "not an OpenHands instance (not a JSON object)".to_string();
        let warning = format!("{}:{line_no}: {message}; line skipped", path.display());
        return Err((line_no, message, warning));
    }
    match serde_json::from_slice::<Instance>(line) {
        Ok(instance) => Ok(trajectory(path, instance, true)),
        Err(err) if is_last && err.is_eof() => {
            let message = "last line is incomplete (still being written?)".to_string();
            let warning = format!("{}:{line_no}: {message}; skipped", path.display());
            Err((line_no, message, warning))
        }
        Err(err) => {
            let message = format!("not an OpenHands instance ({})", reason(&err));
            let warning = format!(
                "{}:{line_no}:{}: {message}; line skipped",
                path.display(),
                err.column()
            );
            Err((line_no, message, warning))
        }
    }
}

/// A file holding one instance object.
pub fn single(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let instance: Instance =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    Ok(vec![trajectory(path, instance, false)])
}

/// The instance's trajectory. In a file of several (`in_lines`), one without an instance id
/// gets an empty id, for the caller to name after its place in the file.
fn trajectory(path: &Path, instance: Instance, in_lines: bool) -> Trajectory {
    let mut t = Trajectory::new(path, Format::OpenHands);
    let resolver = instance.issue.is_object();
    t.format_detail = Some(
        if resolver {
            "resolver output"
        } else {
            "eval output"
        }
        .into(),
    );
    let id = instance
        .instance_id
        .map(|t| t.0)
        .or_else(|| str_field(&instance.instance, "instance_id").map(String::from))
        .or_else(|| issue_id(&instance.issue))
        .filter(|id| !id.is_empty());
    if let Some(id) = id {
        t.instance_id = id;
    } else if in_lines {
        t.instance_id.clear();
    }
    t.model = instance
        .metadata
        .pointer("/llm_config/model")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(String::from);
    t.agent = str_field(&instance.metadata, "agent_class").map(String::from);
    t.task = instance
        .instruction
        .map(|text| task_from_prompt(&text.0))
        .or_else(|| {
            str_field(&instance.instance, "problem_statement").map(|s| s.trim().to_string())
        })
        .or_else(|| issue_text(&instance.issue))
        .filter(|task| !task.is_empty());
    t.submission = str_field(&instance.test_result, "git_patch")
        .or(instance.git_patch.as_ref().map(|p| p.0.as_str()))
        .filter(|p| !p.trim().is_empty())
        .map(String::from);
    t.resolved = instance
        .test_result
        .pointer("/report/resolved")
        .and_then(Value::as_bool)
        // The resolver's own verdict: an LLM's reading of the history, not a test run.
        .or(instance.success);
    if let Some(why) = instance
        .result_explanation
        .or(instance.success_explanation)
        .filter(|w| !w.0.trim().is_empty())
    {
        t.warnings
            .push(format!("resolver's explanation: {}", why.0.trim()));
    }
    t.usage = usage(&instance.metrics);

    let (events, skipped) = flatten(instance.history);
    if events.is_empty() {
        t.warnings
            .push("the instance has no history of events".into());
    }
    if skipped > 0 {
        t.warnings
            .push(format!("{skipped} history item(s) are not events; skipped"));
    }
    history::build(&mut t, events);
    if t.exit_status.is_none()
        && let Some(success) = instance.success
    {
        t.exit_status = Some(if success { "success" } else { "failure" }.into());
    }

    if let Some(error) = error_text(&instance.error) {
        t.exit_status = Some(status_of_error(&error).to_string());
        t.warnings
            .push(format!("OpenHands reported an error: {error}"));
    }
    t
}

/// `owner__repo-number` for a resolver's GitHub issue, as SWE-bench names its instances.
fn issue_id(issue: &Value) -> Option<String> {
    let number = issue.get("number")?.as_u64()?;
    let owner = str_field(issue, "owner")?;
    let repo = str_field(issue, "repo")?;
    Some(format!("{owner}__{repo}-{number}"))
}

/// A resolver's issue as a task: its title, then its body.
fn issue_text(issue: &Value) -> Option<String> {
    let title = str_field(issue, "title").unwrap_or("").trim();
    let body = str_field(issue, "body").unwrap_or("").trim();
    let text = [title, body]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n\n");
    (!text.is_empty()).then_some(text)
}

/// The instance's totals. A cost of 0 with no recorded costs means the price was unknown
/// (a local or proxied model), not that the run was free.
fn usage(metrics: &Value) -> Usage {
    let Some(total) = Accumulated::of(metrics) else {
        return Usage::default();
    };
    let calls = |key: &str| {
        metrics
            .get(key)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    };
    let has_tokens = metrics
        .get("accumulated_token_usage")
        .is_some_and(Value::is_object);
    let priced = calls("costs") > 0 || total.cost > 0.0;
    let api_calls = calls("costs").max(calls("response_latencies"));
    Usage {
        cost: priced.then(|| f64_field(metrics, "accumulated_cost").unwrap_or(total.cost)),
        tokens_in: has_tokens.then_some(total.tokens_in),
        tokens_out: has_tokens.then_some(total.tokens_out),
        api_calls: (api_calls > 0).then_some(api_calls as u64),
        ..Usage::default()
    }
}

/// serde's message without its " at line L column C" tail: the position is printed up front.
fn reason(err: &serde_json::Error) -> String {
    let text = err.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

fn error_text(error: &Value) -> Option<String> {
    match error {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.trim().to_string()),
        other => Some(other.to_string()),
    }
}

/// A short exit status for the errors OpenHands' controller raises by name; `error` else.
fn status_of_error(error: &str) -> &'static str {
    let lower = error.to_lowercase();
    if lower.contains("maximum iteration") {
        "max_iterations"
    } else if lower.contains("maximum budget") || lower.contains("budget exceeded") {
        "max_budget"
    } else if lower.contains("stuck in a loop") || lower.contains("stuckinloop") {
        "stuck_in_loop"
    } else {
        "error"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Exactness;
    use serde_json::json;

    fn line(value: Value) -> String {
        serde_json::to_string(&value).unwrap()
    }

    fn instance(id: &str, error: Value) -> Value {
        json!({
            "instance_id": id,
            "instruction": "<issue_description>\nIt crashes\n</issue_description>\nFix it.",
            "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "openai/m", "api_key": "**********"}},
            "metrics": {"accumulated_cost": 0.0, "accumulated_token_usage": {"prompt_tokens": 100, "completion_tokens": 7},
                        "costs": [], "response_latencies": [{"latency": 1.0}, {"latency": 2.0}]},
            "error": error,
            "test_result": {"git_patch": "diff --git a/x b/x\n+y\n"},
            "history": [
                {"id": 0, "source": "agent", "action": "system", "args": {"content": "You are OpenHands agent."}},
                {"id": 1, "source": "user", "action": "message", "args": {"content": "Fix it."}},
                {"id": 5, "source": "agent", "action": "run", "args": {"command": "make", "thought": "Build."},
                 "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1"}},
                {"id": 6, "source": "agent", "observation": "run", "cause": 5, "content": "ok",
                 "extras": {"metadata": {"exit_code": 0}}}
            ]
        })
    }

    #[test]
    fn each_line_is_a_trajectory() {
        let text = format!(
            "{}\n{}\n",
            line(instance("a__b-1", Value::Null)),
            line(instance(
                "a__b-2",
                json!(
                    "RuntimeError: Agent reached maximum iteration in headless mode. Current iteration: 50"
                )
            ))
        );
        let ts = lines(Path::new("out/output.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(ts.len(), 2);
        let (a, b) = (&ts[0], &ts[1]);
        assert_eq!((a.source_index, b.source_index), (Some(0), Some(1)));
        assert_eq!(a.instance_id, "a__b-1");
        assert_eq!(a.model.as_deref(), Some("openai/m"));
        assert_eq!(a.agent.as_deref(), Some("CodeActAgent"));
        assert_eq!(a.task.as_deref(), Some("It crashes"));
        assert_eq!(a.patch_lines(), 2);
        assert_eq!(
            a.usage.cost, None,
            "a zero cost with no costs recorded is unknown"
        );
        assert_eq!(a.usage.tokens_in, Some(100));
        assert_eq!(a.usage.api_calls, Some(2));
        assert_eq!(a.exit_status, None);
        assert_eq!(b.exit_status.as_deref(), Some("max_iterations"));
        assert!(b.warnings.iter().any(|w| w.contains("maximum iteration")));
        let step = &a.steps[0];
        assert_eq!(step.tool.as_deref(), Some("execute_bash"));
        assert_eq!(step.exit_code, Some(0));
        assert_eq!(
            step.tool_calls[0].argument("command").as_deref(),
            Some("make")
        );
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Reconstructed);
        assert_eq!(step.context_messages(&a.messages).len(), 2);
    }

    #[test]
    fn bad_lines_are_warnings_with_their_line_number() {
        let text = format!(
            "{}\n[1, 2]\n{{\"instance_id\": ",
            line(instance("a", Value::Null))
        );
        let ts = lines(Path::new("o.jsonl"), text.as_bytes()).unwrap();
        assert_eq!(ts.len(), 1);
        let warnings = &ts[0].warnings;
        assert!(warnings[0].starts_with("o.jsonl:2:"), "{warnings:?}");
        assert!(
            warnings[0].contains("not an OpenHands instance"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].starts_with("o.jsonl:3: last line is incomplete"),
            "{warnings:?}"
        );
    }

    #[test]
    fn instances_without_an_id_are_named_after_their_place() {
        let mut nameless = instance("x", Value::Null);
        nameless.as_object_mut().unwrap().remove("instance_id");
        let text = format!("{}\n{}\n", line(instance("a", Value::Null)), line(nameless));
        let ts = lines(Path::new("run/output.jsonl"), text.as_bytes()).unwrap();
        let ids: Vec<&str> = ts.iter().map(|t| t.instance_id.as_str()).collect();
        assert_eq!(ids, ["a", "output#2"]);
    }

    #[test]
    fn a_file_of_bad_lines_is_an_error_naming_the_line() {
        let err = lines(Path::new("o.jsonl"), b"\n\"just a string\"\n").unwrap_err();
        assert!(err.to_string().starts_with("o.jsonl:2:"), "{err}");
    }

    #[test]
    fn an_instance_without_history_still_lists() {
        let ts = single(
            Path::new("i.json"),
            br#"{"instance_id": "x", "test_result": {"git_patch": ""}, "history": 5}"#,
        )
        .unwrap();
        assert_eq!(ts[0].instance_id, "x");
        assert!(ts[0].steps.is_empty());
        assert!(ts[0].submission.is_none());
        assert!(ts[0].warnings[0].contains("no history"));
    }
}
