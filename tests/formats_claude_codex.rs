//! The Claude Code and Codex loaders on real files: every such file of the shared corpus
//! (skipped when it is absent) and the project's own stream-json fixture. The expected
//! figures were read off the files by hand.

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, load_file};
use trajscope::model::{Format, Role, Step, StepKind, Trajectory};

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
        } else if path
            .extension()
            .is_some_and(|e| e == "json" || e == "jsonl")
        {
            out.push(path);
        }
    }
}

/// The agent's own steps: a person's messages and compactions are steps of other kinds.
fn agent(t: &Trajectory) -> Vec<&Step> {
    t.steps
        .iter()
        .filter(|s| s.kind == StepKind::Agent)
        .collect()
}

/// What people said, in order.
fn said(t: &Trajectory) -> Vec<&str> {
    t.steps
        .iter()
        .filter(|s| s.kind == StepKind::User)
        .map(|s| s.user.as_str())
        .collect()
}

fn tokens(t: &Trajectory) -> (Option<u64>, Option<u64>) {
    let usage = t.total_usage();
    (usage.tokens_in, usage.tokens_out)
}

#[test]
fn every_corpus_file_loads_in_its_format() {
    for (dir, format) in [
        ("claude-code", Format::ClaudeCode),
        ("codex-cli", Format::Codex),
    ] {
        let Some(root) = corpus::corpus(dir) else {
            return;
        };
        let mut paths = Vec::new();
        files(&root, &mut paths);
        assert!(paths.len() >= 5, "{dir}: {paths:?}");
        for path in paths {
            let t = load(&path);
            assert_eq!(t.format, format, "{}", path.display());
            for step in &t.steps {
                let context = step.context.as_ref().expect("every step has a context");
                assert!(
                    context
                        .ids(&t.messages)
                        .all(|i| (i as usize) < t.messages.len())
                );
            }
        }
    }
}

#[test]
fn claude_code_log_representative_session() {
    let Some(dir) = corpus::corpus("claude-code/daaain__claude-code-log/test/test_data") else {
        return;
    };
    let t = load(&dir.join("representative_messages.jsonl"));
    assert_eq!(t.instance_id, "representative_messages");
    assert_eq!(t.model.as_deref(), Some("claude-3-sonnet-20240229"));
    assert_eq!(
        t.task.as_deref(),
        Some("Hello Claude! Can you help me understand how Python decorators work?")
    );
    let steps = agent(&t);
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[1].tool.as_deref(), Some("Edit"));
    assert_eq!(steps[1].action, "Edit /tmp/decorator_example.py");
    assert_eq!(steps[3].action, "python /tmp/decorator_example.py");
    assert_eq!(
        steps[3].observation,
        "Hello, Alice!\nHello, Alice!\nHello, Alice!"
    );
    // Each of the user's four messages is a step of its own, in its place.
    assert_eq!(t.steps.len(), 9);
    assert_eq!(said(&t).len(), 4);
    assert_eq!(t.steps[2].kind, StepKind::User);
    assert!(t.steps[2].user.starts_with("Great! Can you also show me"));
    assert_eq!(
        steps[0].observation, "",
        "the follow-up is not an observation"
    );
    assert_eq!(tokens(&t), (Some(218), Some(445)));
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);

    let t = load(&dir.join("todowrite_examples.jsonl"));
    assert_eq!(agent(&t).len(), 6);
    assert_eq!(
        said(&t),
        [
            "Can you help me implement a new feature with proper task management?",
            "Can you add a task for security review as well?"
        ]
    );
    let todo_steps: Vec<usize> = t
        .steps
        .iter()
        .filter(|s| s.tool.as_deref() == Some("TodoWrite"))
        .map(|s| s.index)
        .collect();
    assert_eq!(todo_steps, [3, 5, 8]);
    assert!(
        agent(&t)[1]
            .observation
            .starts_with("Todos have been modified successfully")
    );
    assert_eq!(tokens(&t), (Some(883), Some(328)));
}

#[test]
fn claude_code_log_edge_cases_are_warnings() {
    let Some(dir) = corpus::corpus("claude-code/daaain__claude-code-log/test/test_data") else {
        return;
    };
    let t = load(&dir.join("edge_cases.jsonl"));
    let steps = agent(&t);
    assert_eq!(steps.len(), 4);
    assert_eq!(said(&t).len(), 4);
    let failing = steps[1];
    assert_eq!(failing.tool.as_deref(), Some("FailingTool"));
    assert!(failing.failed);
    assert_eq!(
        failing.observation,
        "Error: Tool execution failed with error: Command not found"
    );
    assert_eq!(steps[2].tool.as_deref(), Some("MultiEdit"));
    assert_eq!(tokens(&t), (Some(488), Some(435)));
    let warnings = t.warnings.join("\n");
    assert!(
        warnings.contains("edge_cases.jsonl:10: a user record without `message.content`"),
        "{warnings}"
    );
    assert!(
        warnings.contains("edge_cases.jsonl:11: a user record without a message object"),
        "{warnings}"
    );
    assert!(
        warnings.contains("edge_cases.jsonl:13: invalid type: string \"massive error\", expected a Claude Code record"),
        "{warnings}"
    );
    assert!(
        warnings.contains("1 tool call(s) have no result"),
        "{warnings}"
    );
}

#[test]
fn agent_sessions_claude_fixtures() {
    let Some(dir) = corpus::corpus(
        "claude-code/jazzyalex__agent-sessions/Resources/Fixtures/stage0/agents/claude",
    ) else {
        return;
    };
    let t = load(&dir.join("large.jsonl"));
    assert_eq!(
        t.instance_id, "large",
        "named by the fixture, not the session"
    );
    assert_eq!(t.format_detail.as_deref(), Some("session v2.1.80"));
    assert_eq!(t.task.as_deref(), Some("Start"));
    let steps = agent(&t);
    assert_eq!(steps.len(), 5);
    assert_eq!(steps[0].action, r"printf 'line1\nline2\nline3\n'");
    assert_eq!(
        steps[0].thought,
        "Plan\n1) Do thing\n2) Verify\n\nOk, running."
    );
    assert_eq!(steps[0].observation, "ok");
    assert_eq!(said(&t), ["Start", "Step 1", "Step 2", "Step 3"]);

    let t = load(&dir.join("schema_drift.jsonl"));
    let steps = agent(&t);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].action, "cat README.md");
    assert_eq!(steps[0].observation, "# Title\n\nBody\n");
    // The last prompt has no answer yet: a session can end on the user.
    assert_eq!(t.steps.last().map(|s| s.user.as_str()), Some("List files"));
    assert!(
        t.warnings.is_empty(),
        "bookkeeping records are skipped quietly: {:?}",
        t.warnings
    );

    let t = load(&dir.join("small.jsonl"));
    let steps = agent(&t);
    assert_eq!(steps.len(), 8);
    assert_eq!(steps[0].agent.as_deref(), Some("sidechain"));
    assert_eq!(steps[3].agent, None);
    assert_eq!(steps[3].tool.as_deref(), Some("Bash"));
    assert_eq!(steps[3].observation, "a.txt\nb.txt\n");
    // Two `compact_boundary` records: each marks where the context was replaced.
    let compactions = t.steps.iter().filter(|s| s.kind == StepKind::Compaction);
    assert!(compactions.count() >= 2);
    assert_eq!(t.model.as_deref(), Some("claude-opus-5"));
    assert_eq!(tokens(&t), (Some(10), Some(5)));
}

#[test]
fn ccusage_claude_usage_logs() {
    let Some(dir) = corpus::corpus("claude-code/ryoppippi__ccusage/apps/ccusage/test") else {
        return;
    };
    let t = load(&dir.join("fixtures/claude/projects/project-alpha/session-alpha/chat.jsonl"));
    assert_eq!(t.instance_id, "chat");
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-20250514"));
    let usage = t.total_usage();
    assert!((usage.cost.unwrap_or(0.0) - 1.02).abs() < 1e-9, "{usage:?}");
    assert_eq!(tokens(&t), (Some(745), Some(250)));

    let t = load(&dir.join("test-transcript.jsonl"));
    assert_eq!(t.steps.len(), 2);
    assert_eq!(tokens(&t), (Some(4600), Some(150)));
}

#[test]
fn simonw_web_session() {
    let Some(dir) = corpus::corpus("claude-code/simonw__claude-code-transcripts/tests") else {
        return;
    };
    let t = load(&dir.join("sample_session.json"));
    assert_eq!(t.format_detail.as_deref(), Some("web session"));
    assert_eq!(
        t.task.as_deref(),
        Some("Create a simple Python function to add two numbers")
    );
    let steps = agent(&t);
    assert_eq!(steps.len(), 15);
    assert_eq!(steps[0].action, "Write /project/math_utils.py");
    assert!(
        steps[0]
            .thought
            .starts_with("The user wants a simple addition function.")
    );
    let failed = t
        .step(12)
        .map(|s| (s.failed, s.exit_code, s.action.as_str()));
    assert_eq!(failed, Some((true, Some(1), "python -m pytest tests/ -v")));
    // The user's answer is a step of its own, right after the agent's.
    assert_eq!(t.steps[13].user, "Fix the issue and commit");
    // After the compaction summary the model sees only the summary and the new prompt.
    let context = steps[13].context_messages(&t.messages);
    assert_eq!(context.len(), 2);
    assert!(
        context[0]
            .content
            .starts_with("This is a session continuation summary")
    );
    assert_eq!(context[1].content, "Add a multiply function too");
}

#[test]
fn stream_json_fixture() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude_code_stream.jsonl");
    let t = load(&path);
    assert_eq!(t.format, Format::ClaudeCode);
    assert_eq!(t.format_detail.as_deref(), Some("stream-json"));
    assert_eq!(t.instance_id, "claude_code_stream");
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(t.exit_status.as_deref(), Some("success"));
    assert_eq!(t.steps.len(), 7);
    let actions: Vec<&str> = t.steps.iter().map(|s| s.summary()).collect();
    assert_eq!(
        actions,
        [
            "python -m pytest -q",
            "Read /work/calc/calc/ops.py",
            "Glob **/*.py",
            "Read /work/calc/calc.py",
            "Edit /work/calc/calc.py",
            "python -m pytest -q",
            "Fixed `add` in calc.py: it subtracted instead of adding. All 3 tests pass now.",
        ]
    );
    let errors: Vec<usize> = t
        .steps
        .iter()
        .filter(|s| s.is_error())
        .map(|s| s.index)
        .collect();
    assert_eq!(errors, [1, 2]);
    let edit = &t.steps[4];
    assert!(
        edit.thought.starts_with("add() subtracts"),
        "{}",
        edit.thought
    );
    assert!(
        edit.thought
            .ends_with("`add` subtracts instead of adding. Fixing it.")
    );
    assert_eq!(
        edit.tool_results[0].data["structuredPatch"][0]["lines"][2],
        "+    return a + b"
    );
    assert_eq!(edit.usage.tokens_out, Some(236));
    // The result line's totals agree with the sum of the steps.
    let from_steps: u64 = t.steps.iter().filter_map(|s| s.usage.tokens_in).sum();
    assert_eq!(from_steps, 122_300);
    assert_eq!(tokens(&t), (Some(122_300), Some(709)));
    assert_eq!(t.total_usage().cost, Some(0.071721));
    let last = t.steps[6].context_messages(&t.messages);
    assert_eq!(last.len(), 12);
    assert_eq!(last[11].role, Role::Tool);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

#[test]
fn agent_sessions_codex_fixtures() {
    let Some(dir) = corpus::corpus("codex-cli/jazzyalex__agent-sessions/Resources/Fixtures") else {
        return;
    };
    let t = load(&dir.join("codex_050_legacy.jsonl"));
    assert_eq!(t.instance_id, "codex_050_legacy");
    assert_eq!(t.format_detail.as_deref(), Some("cli 0.50.0"));
    assert_eq!(t.steps.len(), 0);
    assert_eq!(tokens(&t), (Some(1420), Some(910)));

    let t = load(&dir.join("codex_053_rate_limit.jsonl"));
    assert_eq!(t.steps.len(), 0);
    assert_eq!(tokens(&t), (Some(12091), Some(182)));
    assert_eq!(t.exit_status.as_deref(), Some("error: Rate limit exceeded"));

    let t = load(&dir.join("stage0/agents/codex/large.jsonl"));
    assert_eq!(t.model.as_deref(), Some("gpt-5.2"));
    assert_eq!(t.task.as_deref(), Some("Start"));
    // Seven agent steps, and each of the six messages the person typed ("Start", "Step 1"
    // to "Step 5"; the environment preamble is not one) a user step of its own.
    let agent_steps = agent(&t);
    assert_eq!(agent_steps.len(), 7);
    let typed: Vec<&str> = t
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::User)
        .map(|s| s.user.as_str())
        .collect();
    assert_eq!(
        typed,
        ["Start", "Step 1", "Step 2", "Step 3", "Step 4", "Step 5"]
    );
    assert_eq!(t.steps.len(), 13);
    let first = agent_steps[0];
    assert_eq!(first.tool.as_deref(), Some("run_shell_command"));
    assert_eq!(first.thought, "Acknowledged.");
    assert_eq!(first.observation, "line1\nline2\nline3\n");
    assert_eq!(first.exit_code, Some(0));
    assert_eq!(first.usage.tokens_in, Some(12091));
    assert_eq!(tokens(&t), (Some(12091), Some(182)));

    let t = load(&dir.join("stage0/agents/codex/small.jsonl"));
    assert_eq!(t.instance_id, "small");
    assert_eq!(t.format_detail.as_deref(), Some("cli 0.146.0"));
    assert_eq!(t.model.as_deref(), Some("gpt-5.6-luna"));
    assert_eq!(t.task.as_deref(), Some("List the files\n[image]"));
    assert_eq!(agent(&t).len(), 8);
    // Five `compacted` records, each a compaction step where the context was replaced.
    let compactions = t.steps.iter().filter(|s| s.kind == StepKind::Compaction);
    assert_eq!(compactions.count(), 5);
    let first = agent(&t)[0];
    assert_eq!(first.tool.as_deref(), Some("shell"));
    assert_eq!(first.tool_calls.len(), 2);
    assert_eq!(first.observation, "a.txt\nb.txt\n\na.txt\n");
    assert_eq!(agent(&t)[3].response, "Found 2 files.\n[image]");
    // A later, smaller running total (another thread's) does not replace the session's.
    assert_eq!(tokens(&t), (Some(16341), Some(81)));
    // The reconstructed context starts from the session's first user message.
    let context = first.context_messages(&t.messages);
    assert_eq!(context.last().map(|m| m.role), Some(Role::User));
}

#[test]
fn ccusage_codex_usage_log() {
    let Some(dir) = corpus::corpus(
        "codex-cli/ryoppippi__ccusage/apps/ccusage/test/fixtures/codex/sessions/project-alpha",
    ) else {
        return;
    };
    let t = load(&dir.join("session-alpha.jsonl"));
    assert_eq!(t.steps.len(), 0);
    assert_eq!(t.model.as_deref(), Some("gpt-5.2-codex"));
    assert_eq!(tokens(&t), (Some(3500), Some(425)));
}

/// A log caught mid-write, cut anywhere, loads or fails with a message; it never panics.
#[test]
fn corpus_files_cut_anywhere_never_panic() {
    let mut paths =
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude_code_stream.jsonl")];
    for dir in ["claude-code", "codex-cli"] {
        if let Some(root) = corpus::corpus(dir) {
            files(&root, &mut paths);
        }
    }
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let step = (bytes.len() / 40).max(1);
        for cut in (1..bytes.len()).step_by(step) {
            if let Err(err) = trajscope::formats::load_bytes(&path, &bytes[..cut]) {
                let message = err.to_string();
                assert!(
                    message.starts_with(&path.display().to_string()),
                    "{message}"
                );
            }
        }
    }
}
