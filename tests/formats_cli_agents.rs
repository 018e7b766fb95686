//! The interactive agents' readers (Gemini CLI, Copilot CLI, Cursor, Kimi CLI, OpenCode,
//! Droid, Hugging Face traces, OpenTelemetry GenAI spans) on real files: every file of the
//! shared corpus's `other-cli-agents/` (skipped when it is absent) and the project's own
//! samples. The expected figures were read off the files by hand.
//!
//! The corpus files are agent-sessions' `stage0` fixtures: small, hand-trimmed samples of real
//! sessions ("[trimmed for fixture]" marks what was cut), so they test the schema, not sizes.
//! The Kimi fixture holds only what the user typed (its model requests all failed and were
//! retried until cancelled), and the OpenCode fixture a single user message without parts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/samples.rs"]
mod samples;

use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, discover, load_file};
use trajscope::model::{Format, Trajectory};

const FIXTURES: &str =
    "other-cli-agents/jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents";

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut ts)) => {
            assert_eq!(ts.len(), 1, "{}", path.display());
            ts.remove(0)
        }
        Ok(Loaded::Results(_)) => panic!("{}: read as eval results", path.display()),
        Err(err) => panic!("{err}"),
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn user_turns(t: &Trajectory) -> Vec<&str> {
    t.steps
        .iter()
        .filter(|s| s.kind == trajscope::model::StepKind::User)
        .map(|s| s.user.as_str())
        .collect()
}

#[test]
fn every_corpus_file_loads_with_steps_in_its_format() {
    let Some(root) = corpus::corpus("other-cli-agents") else {
        return;
    };
    let mut paths = Vec::new();
    files(&root, &mut paths);
    assert!(paths.len() >= 6, "{paths:?}");
    for path in &paths {
        let text = path.to_string_lossy();
        let format = [
            ("/gemini/", Format::GeminiCli),
            ("/kimi/", Format::KimiCli),
            ("/copilot/", Format::CopilotCli),
            ("/opencode/", Format::OpenCode),
            ("/cursor/", Format::Cursor),
        ]
        .into_iter()
        .find(|(dir, _)| text.contains(dir))
        .map(|(_, f)| f)
        .unwrap_or_else(|| panic!("{text}: which agent?"));
        let t = load(path);
        assert_eq!(t.format, format, "{text}");
        assert!(!t.steps.is_empty(), "{text}: no steps");
        for step in &t.steps {
            if let Some(context) = &step.context {
                assert!(
                    context
                        .ids(&t.messages)
                        .all(|i| (i as usize) < t.messages.len())
                );
            }
        }
    }
    // The folder walk finds each of them once: the OpenCode session folder is one candidate.
    let (found, failures) = discover(&[root]);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(found.len(), paths.len());
}

#[test]
fn the_gemini_fixtures_read_calls_results_and_tokens() {
    let Some(dir) = corpus::corpus(&format!("{FIXTURES}/gemini")) else {
        return;
    };
    let t = load(&dir.join("small.json"));
    assert_eq!(
        t.instance_id, "small",
        "the file is not named after its session"
    );
    assert_eq!(user_turns(&t), ["Hello"]);
    assert_eq!(t.steps[1].thought, "Short reasoning placeholder.\n\nHi!");
    assert_eq!(t.model.as_deref(), Some("gemini-3-flash-preview"));
    let t = load(&dir.join("jsonl_v040.jsonl"));
    assert_eq!(
        t.instance_id, "jsonl_v040",
        "the file is not named after the session"
    );
    assert_eq!(user_turns(&t), ["Say hello and list files."]);
    assert_eq!(t.steps.len(), 3);
    let call = &t.steps[1];
    assert_eq!(call.action, "ls -F");
    assert_eq!(
        call.observation,
        "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    );
    assert_eq!(t.steps[2].response, "Hello! I listed the files.");
    let total = t.total_usage();
    assert_eq!(
        (total.tokens_in, total.tokens_out, total.api_calls),
        (Some(11855 + 12069), Some(81 + 147), Some(2))
    );
}

#[test]
fn the_copilot_fixture_reads_the_turn_its_call_and_the_error() {
    let Some(dir) = corpus::corpus(&format!("{FIXTURES}/copilot")) else {
        return;
    };
    let t = load(&dir.join("small.jsonl"));
    assert_eq!(
        t.instance_id, "small",
        "the file is not named after its session"
    );
    assert_eq!(t.model.as_deref(), Some("gpt-5-mini"));
    assert_eq!(t.exit_status.as_deref(), Some("routine"));
    // The trimmed tail repeats a user turn, a reasoning and a message with placeholder text.
    assert_eq!(user_turns(&t), ["List the files", "[trimmed for fixture]"]);
    let s = &t.steps[1];
    assert_eq!(s.thought, "Listing the files.");
    assert_eq!(s.action, "ls");
    assert_eq!(s.observation, "a.txt\nb.txt\n");
    assert_eq!(s.usage.tokens_out, Some(12));
    assert_eq!(t.steps[2].response, "Done");
    // The session error came before any model step: a warning, not a step.
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("[query error] Example model error")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn the_kimi_opencode_and_cursor_fixtures_keep_what_the_user_said() {
    let Some(dir) = corpus::corpus(FIXTURES) else {
        return;
    };
    let t = load(&dir.join("kimi/small.jsonl"));
    assert_eq!(user_turns(&t), ["hi", "stop", "hi"]);
    // Both turns began a model step whose requests all failed until the user cancelled.
    let cancelled: Vec<&str> = t
        .steps
        .iter()
        .filter(|s| s.kind.is_agent())
        .map(|s| s.observation.as_str())
        .collect();
    assert_eq!(
        cancelled,
        ["[cancelled by the user before the model answered]"; 2]
    );
    assert!(
        t.steps
            .iter()
            .filter(|s| s.kind.is_agent())
            .all(|s| s.failed)
    );
    assert_eq!(t.model.as_deref(), Some("kimi-k2.7-code"));
    assert_eq!(t.format_detail.as_deref(), Some("protocol 1.4"));
    assert!(
        t.warnings
            .iter()
            .any(|w| w.contains("11 model request(s) were retries")),
        "{:?}",
        t.warnings
    );
    let t = load(&dir.join("opencode/storage_v2/message/s_stage0_small/msg_0001.json"));
    assert_eq!(t.instance_id, "s_stage0_small");
    assert_eq!(user_turns(&t), ["Hello"]);
    assert_eq!(t.model.as_deref(), Some("gpt-4o-mini"));
    let t = load(&dir.join("cursor/small.jsonl"));
    assert_eq!(user_turns(&t), ["List the files.", "Run ls."]);
    assert_eq!(t.steps.len(), 4);
    assert_eq!(t.steps[3].action, "ls");
    assert_eq!(t.exit_status.as_deref(), Some("success"));
}

/// Each sample tells the chat sample's story in its agent's shape: the task and a follow-up
/// as user turns, the SyntaxError, the missing module, and passing tests.
#[test]
fn every_sample_tells_the_story_with_its_user_turns() {
    let dir = samples::dir();
    let mut checked = Vec::new();
    for format in [
        Format::GeminiCli,
        Format::CopilotCli,
        Format::Cursor,
        Format::KimiCli,
        Format::OpenCode,
        Format::Droid,
        Format::HfTrace,
        Format::OtelGenai,
    ] {
        let (found, _) = discover(&[dir.join(format.name())]);
        assert_eq!(found.len(), 1, "{}: {found:?}", format.name());
        let t = load(&found[0].path);
        assert_eq!(t.format, format);
        let turns = user_turns(&t);
        assert!(
            turns[0].contains("7 / 2"),
            "{}: the task is the first turn: {turns:?}",
            format.name()
        );
        if format != Format::Droid {
            assert!(
                turns.iter().any(|u| u.contains("whole test suite")),
                "{}: {turns:?}",
                format.name()
            );
        }
        assert!(t.task.as_deref().is_some_and(|task| task.contains("7 / 2")));
        let saw = |needle: &str| t.steps.iter().any(|s| s.observation.contains(needle));
        assert!(saw("SyntaxError"), "{}", format.name());
        assert!(saw("No such file or directory"), "{}", format.name());
        assert!(saw("OK"), "{}", format.name());
        assert!(
            t.steps.iter().any(|s| s.is_error()),
            "{}: the failing steps are marked",
            format.name()
        );
        assert!(t.warnings.is_empty(), "{}: {:?}", format.name(), t.warnings);
        checked.push(format);
    }
    assert_eq!(checked.len(), 8);
}
