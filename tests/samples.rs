//! The bundled samples (sample-trajectories/), the first thing a newcomer opens: every file is
//! detected as the format it was written in, nothing else in the folder is mistaken for a log,
//! and the trajectories whose loaders exist tell the story the README promises, joined with
//! the eval results stored next to them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/samples.rs"]
mod samples;

use samples::{INSPECT_LOG, relative};
use std::collections::{BTreeMap, BTreeSet};
use trajscope::formats::{Kind, ResultsKind, detect, discover, load_run};
use trajscope::model::Format;

const GEMINI: &str = "gemini-cli/session-2026-01-05T08-00-6ce1f3e4.json";
const COPILOT: &str = "copilot-cli/session-state/65fa6fd1-3d5d-572e-bc4b-25eb62674233/events.jsonl";
const CURSOR: &str = "cursor/agent-transcripts/8399813c-8e99-56b7-b2b4-ae7570985cb1.jsonl";
const KIMI: &str = "kimi-cli/wd_tinycalc_0a1b2c3d4e5f/session_29214e84-27cb-5c6a-a869-2488cde5b6e1/agents/main/wire.jsonl";
const OPENCODE: &str =
    "opencode/storage/message/ses_9Eh8cDJMtXC2bi1GM7sQJeFv9K/msg_0001xXv80vv9.json";

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
            "claude-code/subagents/84c976dc-06b9-5ddd-93cc-cb08765da703.jsonl",
            t(ClaudeCode),
        ),
        (
            "claude-code/subagents/84c976dc-06b9-5ddd-93cc-cb08765da703/subagents/agent-aajm17k9.jsonl",
            t(ClaudeCode),
        ),
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
        (GEMINI, t(GeminiCli)),
        (COPILOT, t(CopilotCli)),
        (CURSOR, t(Cursor)),
        (KIMI, t(KimiCli)),
        // An OpenCode session is a folder: the walk lists it once, under its first message.
        (OPENCODE, t(OpenCode)),
        ("droid/tinycalc__tinycalc-1.jsonl", t(Droid)),
        ("hf-trace/tinycalc__tinycalc-1.jsonl", t(HfTrace)),
        ("otel-genai/tinycalc__tinycalc-1.json", t(OtelGenai)),
    ];
    files
        .iter()
        .map(|(path, kind)| (path.to_string(), *kind))
        .collect()
}

#[test]
fn every_file_is_detected_as_the_format_it_was_written_in() {
    let (found, failures) = discover(&[samples::dir()]);
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
        let bytes = std::fs::read(samples::dir().join(rel)).unwrap();
        let detected = detect(&samples::dir().join(rel), &bytes);
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
        if let Kind::Results(r) = kind
            && !results.contains(r)
        {
            results.push(*r);
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
    let run = load_run(&[samples::dir()], &|_| {});
    let failures: Vec<String> = run.failures.iter().map(|f| f.message.clone()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    // Aider names each session by its start time, not by the file: the instance-keyed run
    // summary next to it cannot reach it, so it is left out here.
    let verdicts: BTreeMap<(String, String), (Option<bool>, Option<String>)> = run
        .trajectories
        .iter()
        .filter(|t| t.format != Format::Aider)
        .map(|t| {
            let key = (relative(&t.path), t.instance_id.clone());
            (key, (t.resolved, t.exit_status.clone()))
        })
        .collect();
    let one = "tinycalc__tinycalc-1";
    let two = "tinycalc__tinycalc-2";
    let inspect = format!("inspect-ai/{INSPECT_LOG}.json");
    let converted = format!("inspect-ai/converted/{INSPECT_LOG}.eval");
    let yes = |exit: Option<&str>| (Some(true), exit.map(String::from));
    let no = |exit: Option<&str>| (Some(false), exit.map(String::from));
    let unknown = |exit: Option<&str>| (None, exit.map(String::from));
    let wanted: BTreeMap<(String, String), _> = [
        (
            "mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
            one,
            yes(Some("Submitted")),
        ),
        (
            "mini-swe-agent-v2/tinycalc__tinycalc-2/tinycalc__tinycalc-2.traj.json",
            two,
            yes(Some("Submitted")),
        ),
        (
            "swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj",
            one,
            yes(Some("submitted")),
        ),
        (
            "swe-agent-coder/trajs/tinycalc__tinycalc-1.traj",
            one,
            no(Some("submitted (exit_cost)")),
        ),
        // A CLI run with no eval next to it.
        (
            "openhands/tinycalc__tinycalc-1.json",
            one,
            unknown(Some("finished")),
        ),
        (
            "openhands/eval-run/output.jsonl",
            one,
            yes(Some("finished")),
        ),
        (
            "openhands/eval-run/output.jsonl",
            two,
            no(Some("max_iterations")),
        ),
        // Inspect keeps its verdicts in the scores; the .eval is the same log.
        (&inspect, one, yes(Some("completed"))),
        (&inspect, two, no(Some("completed"))),
        (&converted, one, yes(Some("completed"))),
        (&converted, two, no(Some("completed"))),
        ("claude-code/tinycalc__tinycalc-1.jsonl", one, yes(None)),
        // A session and the sub-agent it started: named after the session and the agent.
        (
            "claude-code/subagents/84c976dc-06b9-5ddd-93cc-cb08765da703.jsonl",
            "84c976dc-06b9-5ddd-93cc-cb08765da703",
            unknown(None),
        ),
        (
            "claude-code/subagents/84c976dc-06b9-5ddd-93cc-cb08765da703/subagents/agent-aajm17k9.jsonl",
            "agent-aajm17k9",
            unknown(None),
        ),
        (
            "codex/tinycalc__tinycalc-1.jsonl",
            one,
            yes(Some("completed")),
        ),
        (
            "llama/tinycalc__tinycalc-1-prompt.txt",
            one,
            no(Some("finished")),
        ),
        ("chat/tinycalc__tinycalc-1.jsonl", one, unknown(None)),
        // The interactive agents' sessions are named by their session ids.
        (
            GEMINI,
            "6ce1f3e4-baf7-5e1c-91bf-7f934c53dd5a",
            unknown(None),
        ),
        (
            COPILOT,
            "65fa6fd1-3d5d-572e-bc4b-25eb62674233",
            unknown(Some("routine")),
        ),
        (
            CURSOR,
            "8399813c-8e99-56b7-b2b4-ae7570985cb1",
            unknown(Some("success")),
        ),
        (
            KIMI,
            "session_29214e84-27cb-5c6a-a869-2488cde5b6e1",
            unknown(Some("completed")),
        ),
        (OPENCODE, "ses_9Eh8cDJMtXC2bi1GM7sQJeFv9K", unknown(None)),
        (
            "droid/tinycalc__tinycalc-1.jsonl",
            one,
            unknown(Some("completed")),
        ),
        ("hf-trace/tinycalc__tinycalc-1.jsonl", one, unknown(None)),
        (
            "otel-genai/tinycalc__tinycalc-1.json",
            "5f5f310cafd00046ffdc72d22a367c55",
            unknown(None),
        ),
    ]
    .into_iter()
    .map(|(path, id, v)| ((path.to_string(), id.to_string()), v))
    .collect();
    assert_eq!(verdicts, wanted);
    let aider: Vec<_> = run
        .trajectories
        .iter()
        .filter(|t| t.format == Format::Aider)
        .collect();
    assert_eq!(aider.len(), 1);
}

/// The verdicts above, read straight from the results files (not through trajscope).
#[test]
fn the_results_files_say_what_the_joined_verdicts_say() {
    let json = |rel: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(samples::dir().join(rel)).unwrap();
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
