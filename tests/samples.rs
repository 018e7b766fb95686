//! The bundled samples (sample-trajectories/), the first thing a newcomer opens: every file is
//! detected as the format it was written in, nothing else in the folder is mistaken for a log,
//! and the trajectories whose loaders exist tell the story the README promises, joined with
//! the eval results stored next to them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use trajscope::formats::{Kind, Loaded, ResultsKind, detect, discover, load_file, load_run};
use trajscope::model::{Exactness, Format, Trajectory};

const INSPECT_LOG: &str = "2025-03-17T10-00-00+00-00_tinycalc-swe_86KhjPLUTNeBL35abgajcV";

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// Every log and results file in sample-trajectories/, and what it is.
fn expected() -> BTreeMap<String, Kind> {
    use Format::*;
    use ResultsKind::*;
    let t = Kind::Trajectories;
    let r = Kind::Results;
    let files = [
        (
            "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
            t(MiniSweAgent),
        ),
        ("mini-swe-agent/preds.json", r(Predictions)),
        (
            "mini-swe-agent/eval_results/anthropic__claude-haiku-4-5-20251001/tinycalc__tinycalc-1/report.json",
            r(HarnessReport),
        ),
        (
            "mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json",
            t(MiniSweAgent),
        ),
        ("mini-swe-agent-v2/preds.json", r(Predictions)),
        (
            "mini-swe-agent-v2/eval_results/openai__gpt-5-mini/tinycalc__tinycalc-2/report.json",
            r(HarnessReport),
        ),
        (
            "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj",
            t(SweAgent),
        ),
        ("swe-agent/preds.json", r(Predictions)),
        (
            "swe-agent/claude-sonnet-4-20250514.swe-agent.json",
            r(RunSummary),
        ),
        (
            "swe-agent-coder/trajs/tinycalc__tinycalc-1.traj",
            t(SweAgent),
        ),
        ("swe-agent-coder/all_preds.jsonl", r(Predictions)),
        ("swe-agent-coder/results.json", r(SweBenchResults)),
        ("openhands/tinycalc__tinycalc-1.json", t(OpenHands)),
        ("openhands/eval-run/output.jsonl", t(OpenHands)),
        (
            "openhands/eval-run/openai__gpt-4o-2024-08-06.eval-run.json",
            r(RunSummary),
        ),
        (&format!("inspect-ai/{INSPECT_LOG}.json"), t(InspectAi)),
        (
            &format!("inspect-ai/converted/{INSPECT_LOG}.eval"),
            t(InspectAi),
        ),
        ("claude-code/tinycalc__tinycalc-1.jsonl", t(ClaudeCode)),
        (
            "claude-code/claude-sonnet-4-5-20250929.claude-code.json",
            r(RunSummary),
        ),
        ("codex/tinycalc__tinycalc-1.jsonl", t(Codex)),
        ("codex/gpt-5-codex.codex.json", r(RunSummary)),
        ("aider/tinycalc__tinycalc-1.aider.chat.history.md", t(Aider)),
        ("aider/claude-3-7-sonnet-20250219.aider.json", r(RunSummary)),
        ("llama/tinycalc__tinycalc-1-prompt.txt", t(LlamaPrompt)),
        ("llama/llama-3.3-70b-instruct.llama.json", r(RunSummary)),
        ("chat/tinycalc__tinycalc-1.jsonl", t(ChatMessages)),
    ];
    files
        .iter()
        .map(|(path, kind)| (path.to_string(), *kind))
        .collect()
}

fn relative(path: &Path) -> String {
    path.strip_prefix(samples())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

fn load(rel: &str) -> Trajectory {
    match load_file(&samples().join(rel)) {
        Ok(Loaded::Trajectories(mut ts)) => {
            assert_eq!(ts.len(), 1, "{rel}");
            ts.remove(0)
        }
        other => panic!("{rel}: {other:?}"),
    }
}

fn step_with<'a>(t: &'a Trajectory, needle: &str) -> &'a trajscope::model::Step {
    t.steps
        .iter()
        .find(|s| s.observation.contains(needle))
        .unwrap_or_else(|| panic!("{}: no observation with {needle:?}", t.source.display()))
}

#[test]
fn every_file_is_detected_as_the_format_it_was_written_in() {
    let (found, failures) = discover(&[samples()]);
    assert!(failures.is_empty(), "{failures:?}");
    let expected = expected();
    let found: BTreeSet<String> = found.iter().map(|c| relative(&c.path)).collect();
    let listed: BTreeSet<String> = expected.keys().cloned().collect();
    // The sample repository (Python, README, TOML) and the issue texts are not candidates.
    assert_eq!(
        found, listed,
        "the folder walk finds exactly the listed files"
    );
    for (rel, kind) in &expected {
        let bytes = std::fs::read(samples().join(rel)).unwrap();
        let detected = detect(&samples().join(rel), &bytes);
        assert_eq!(detected.ok(), Some(*kind), "{rel}");
    }
}

#[test]
fn every_log_format_has_a_sample() {
    let present: BTreeSet<Format> = expected()
        .values()
        .filter_map(|k| match k {
            Kind::Trajectories(f) => Some(*f),
            Kind::Results(_) => None,
        })
        .collect();
    let mut results: Vec<ResultsKind> = Vec::new();
    for kind in expected().values() {
        if let Kind::Results(r) = kind {
            if !results.contains(r) {
                results.push(*r);
            }
        }
    }
    for format in Format::ALL {
        // trajscope's own format is written by `replay`; a sample fork comes with it.
        if format != Format::Trajscope {
            assert!(present.contains(&format), "no sample for {}", format.name());
        }
    }
    assert_eq!(results.len(), 4, "every kind of results file: {results:?}");
}

#[test]
fn the_folder_loads_and_joins_its_eval_results() {
    let run = load_run(&[samples()], &|_| {});
    // Formats whose loader is still being written report exactly that, and nothing else fails.
    for failure in &run.failures {
        assert!(
            failure.message.contains("not written yet"),
            "{}: {}",
            failure.path.display(),
            failure.message
        );
    }
    let verdicts: BTreeMap<String, (Option<bool>, Option<String>)> = run
        .trajectories
        .iter()
        .filter(|t| matches!(t.format, Format::SweAgent | Format::MiniSweAgent))
        .map(|t| (relative(&t.source), (t.resolved, t.exit_status.clone())))
        .collect();
    let expect = |resolved: bool, exit: &str| (Some(resolved), Some(exit.to_string()));
    let wanted: BTreeMap<String, _> = [
        (
            "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
            expect(true, "Submitted"),
        ),
        (
            "mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json",
            expect(true, "Submitted"),
        ),
        (
            "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj",
            expect(true, "submitted"),
        ),
        (
            "swe-agent-coder/trajs/tinycalc__tinycalc-1.traj",
            expect(false, "submitted (exit_cost)"),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(verdicts, wanted);
}

/// The verdicts above, read straight from the results files (not through trajscope).
#[test]
fn the_results_files_say_what_the_joined_verdicts_say() {
    let json = |rel: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(samples().join(rel)).unwrap();
        // The old harness wrote `"x",\n    ]`: a trailing comma, kept in the CodeR-style sample.
        serde_json::from_str(&text.replace(",\n    ]", "\n    ]")).unwrap()
    };
    let mini = json(
        "mini-swe-agent/eval_results/anthropic__claude-haiku-4-5-20251001/tinycalc__tinycalc-1/report.json",
    );
    assert_eq!(mini["tinycalc__tinycalc-1"]["resolved"], true);
    let mini2 =
        json("mini-swe-agent-v2/eval_results/openai__gpt-5-mini/tinycalc__tinycalc-2/report.json");
    assert_eq!(mini2["tinycalc__tinycalc-2"]["resolved"], true);
    let swe = json("swe-agent/claude-sonnet-4-20250514.swe-agent.json");
    assert_eq!(
        swe["resolved_ids"],
        serde_json::json!(["tinycalc__tinycalc-1"])
    );
    let coder = json("swe-agent-coder/results.json");
    assert_eq!(coder["resolved"], serde_json::json!([]));
    assert_eq!(
        coder["applied"],
        serde_json::json!(["tinycalc__tinycalc-1"])
    );
    // Runs whose loaders are not in yet: one success and one failure in the OpenHands eval,
    // the Llama agent's broken patch unresolved, the CLI agents' fixes resolved.
    let openhands = json("openhands/eval-run/openai__gpt-4o-2024-08-06.eval-run.json");
    assert_eq!(
        openhands["resolved_ids"],
        serde_json::json!(["tinycalc__tinycalc-1"])
    );
    assert_eq!(
        openhands["unresolved_ids"],
        serde_json::json!(["tinycalc__tinycalc-2"])
    );
    let llama = json("llama/llama-3.3-70b-instruct.llama.json");
    assert_eq!(
        llama["unresolved_ids"],
        serde_json::json!(["tinycalc__tinycalc-1"])
    );
    for rel in [
        "claude-code/claude-sonnet-4-5-20250929.claude-code.json",
        "codex/gpt-5-codex.codex.json",
        "aider/claude-3-7-sonnet-20250219.aider.json",
    ] {
        assert_eq!(
            json(rel)["resolved_ids"],
            serde_json::json!(["tinycalc__tinycalc-1"]),
            "{rel}"
        );
    }
}

#[test]
fn the_recorded_mini_swe_agent_run_tells_the_story() {
    let t = load("mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json");
    assert_eq!(t.instance_id, "tinycalc__tinycalc-1");
    assert_eq!(
        t.model.as_deref(),
        Some("anthropic/claude-haiku-4-5-20251001")
    );
    assert_eq!(t.steps.len(), 10);
    assert!(
        t.task
            .as_deref()
            .unwrap()
            .starts_with("Division drops the fractional part")
    );
    // Reproduce, break the file, look for a backup that is not there, fix, test, submit.
    assert!(t.steps[2].observation.contains("3 0 -4"));
    let syntax = step_with(&t, "SyntaxError");
    assert_eq!((syntax.index, syntax.exit_code), (4, Some(1)));
    assert!(syntax.action.starts_with("sed -i"));
    let missing = step_with(&t, "No such file or directory");
    assert_eq!((missing.index, missing.exit_code), (5, Some(2)));
    assert!(step_with(&t, "3.5 0.3333333333333333 -3.5 4.0").index == 8);
    assert_eq!(
        t.steps[8].observation,
        "<returncode>0</returncode>\n<output>\nOK\n</output>"
    );
    assert!(
        t.steps[9]
            .action
            .starts_with("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")
    );
    assert_eq!(t.exit_status.as_deref(), Some("Submitted"));
    let patch = t.submission.as_deref().unwrap();
    assert!(
        patch.contains("-            value = value // right\n+            value = value / right\n")
    );
    assert_eq!(t.patch_lines(), 11);
    // `messages` is the model's input: step k saw the system and task messages and k-1 turns.
    for step in &t.steps {
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        assert_eq!(
            step.context_messages(&t.messages).len(),
            2 * step.index,
            "step {}",
            step.index
        );
    }
}

#[test]
fn the_tool_call_mini_swe_agent_run_has_a_format_error() {
    let t = load("mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json");
    assert_eq!(t.format_detail.as_deref(), Some("1.1"));
    assert_eq!(t.steps.len(), 9);
    assert!(
        step_with(&t, "SyntaxError")
            .action
            .contains("python3 - <<'EOF'")
    );
    assert_eq!(
        step_with(&t, "No such file or directory").exit_code,
        Some(1)
    );
    // A reply without a tool call: no action, and the format error comes back as its observation.
    let rejected = step_with(&t, "No tool calls found");
    assert!(rejected.action.is_empty() && rejected.tool.is_none());
    assert!(
        rejected
            .thought
            .starts_with("I will add the closing parenthesis")
    );
    assert!(
        t.submission
            .as_deref()
            .unwrap()
            .contains("isinstance(token, (int, float))")
    );
}

#[test]
fn the_swe_agent_runs_tell_the_story() {
    let t = load("swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj");
    assert_eq!(t.format_detail.as_deref(), Some("1.1+"));
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-20250514"));
    assert_eq!(t.steps.len(), 12);
    assert_eq!(step_with(&t, "SyntaxError: invalid syntax").index, 6);
    assert_eq!(
        step_with(&t, "does not exist").tool.as_deref(),
        Some("str_replace_editor")
    );
    // The first submit is answered by the review checklist, the second submits the patch.
    assert!(
        t.steps[9]
            .observation
            .starts_with("Thank you for your work on this issue.")
    );
    assert_eq!(t.steps[11].action, "submit");
    assert_eq!(t.steps[11].observation, t.submission.clone().unwrap());
    for step in &t.steps {
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        assert_eq!(step.context_messages(&t.messages).len(), 2 * step.index);
    }

    let coder = load("swe-agent-coder/trajs/tinycalc__tinycalc-1.traj");
    assert_eq!(coder.format_detail.as_deref(), Some("0.x"));
    assert_eq!(coder.agents(), vec!["Manager", "Reproducer", "Programmer"]);
    assert_eq!(
        step_with(&coder, "7 / 2 = 3").agent.as_deref(),
        Some("Reproducer")
    );
    assert_eq!(
        step_with(&coder, "not found").agent.as_deref(),
        Some("Programmer")
    );
    let linted: Vec<usize> = coder
        .steps
        .iter()
        .filter(|s| s.observation.contains("E999 SyntaxError"))
        .map(|s| s.index)
        .collect();
    assert_eq!(linted, vec![9, 10]);
    assert_eq!(coder.steps.last().unwrap().action, "exit_cost");
    assert_eq!(coder.exit_status.as_deref(), Some("submitted (exit_cost)"));
    // The edits were rejected: the autosubmitted patch only adds the reproduction script.
    let patch = coder.submission.as_deref().unwrap();
    assert!(patch.contains("+++ b/reproduce.py") && !patch.contains("evaluator.py"));
    let context = coder.steps[8].context.as_ref().unwrap();
    assert_eq!(context.exactness, Exactness::Reconstructed);
    assert!(
        coder.steps[8]
            .context_messages(&coder.messages)
            .iter()
            .all(|m| m.agent.as_deref() == Some("Programmer"))
    );
}
