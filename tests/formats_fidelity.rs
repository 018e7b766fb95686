//! What the loaders keep of formats they already read (issue 20): a Claude Code human turn
//! is a step that searches find, sub-agent logs link both ways, OpenHands observations keep
//! the suffix the model saw and the resolver's output loads, Codex usage sums as ccusage
//! sums it, SWE-agent's YAML demonstrations and zstd-compressed Inspect logs load, and
//! Aider's LLM history makes contexts exact. Real corpus files where the corpus has them
//! (skipped when absent); otherwise files built here in the shape their writers use.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use trajscope::formats::{Loaded, load_file};
use trajscope::metrics::{Field, Matcher, Query, RuleSet, Search};
use trajscope::model::{Exactness, Format, StepKind, Trajectory};

fn load(path: &Path) -> Vec<Trajectory> {
    match load_file(path) {
        Ok(Loaded::Trajectories(ts)) => ts,
        Ok(Loaded::Results(_)) => panic!("{}: read as eval results", path.display()),
        Err(err) => panic!("{err}"),
    }
}

fn one(path: &Path) -> Trajectory {
    let mut ts = load(path);
    assert_eq!(ts.len(), 1, "{}", path.display());
    ts.remove(0)
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// How many steps the default rule `name` matches in `t`.
fn default_rule_steps(t: &Trajectory, name: &str) -> usize {
    let (matcher, errors) = Matcher::new(RuleSet::defaults().rules);
    assert!(errors.is_empty(), "{errors:?}");
    let id = matcher.id(name).unwrap();
    let matches = matcher.scan(t);
    (1..=t.steps.len())
        .filter(|&s| matches.get(s, id) > 0)
        .count()
}

#[test]
fn a_claude_code_human_turn_is_a_step_that_searches_find() {
    let Some(dir) = corpus::corpus("claude-code/simonw__claude-code-transcripts/tests") else {
        return;
    };
    let t = one(&dir.join("sample_session.json"));
    let turn = "Now edit the file to add a subtract function";
    let step = t
        .steps
        .iter()
        .find(|s| s.user == turn)
        .expect("the mid-session turn is a step");
    assert_eq!(step.kind, StepKind::User);
    assert_eq!(step.tool_name(), "user");
    assert_eq!(step.summary(), turn);
    assert!(step.observation.is_empty(), "not folded into another step");
    for field in [Field::User, Field::Any] {
        let hits = Search::new(Query::new(turn).unwrap(), field).find(&t);
        assert_eq!(hits.len(), 1, "{field}");
        assert_eq!((hits[0].step, hits[0].field), (step.index, Field::User));
    }
    let prompts: Vec<&str> = t
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::User)
        .map(|s| s.user.as_str())
        .collect();
    assert_eq!(
        prompts,
        [
            "Create a simple Python function to add two numbers",
            turn,
            "Run the tests again",
            "Fix the issue and commit",
            "Add a multiply function too"
        ]
    );
    // The continuation summary is a compaction step, not a person speaking.
    let compaction = t
        .steps
        .iter()
        .find(|s| s.kind == StepKind::Compaction)
        .unwrap();
    assert!(
        compaction
            .user
            .starts_with("This is a session continuation summary")
    );
}

#[test]
fn a_session_holding_only_a_prompt_has_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        "{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"u1\",\"message\":{\"role\":\"user\",\"content\":\"Add a goodbye function\"}}\n",
    )
    .unwrap();
    let t = one(&path);
    assert_eq!(t.steps.len(), 1);
    assert_eq!(t.steps[0].kind, StepKind::User);
    assert_eq!(t.steps[0].user, "Add a goodbye function");
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["grep", "goodbye"])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(":1:user:1:Add a goodbye function"), "{text}");
}

#[test]
fn sub_agent_logs_link_both_ways() {
    let dir = samples().join("claude-code/subagents");
    let session = dir.join("84c976dc-06b9-5ddd-93cc-cb08765da703.jsonl");
    let child = dir.join("84c976dc-06b9-5ddd-93cc-cb08765da703/subagents/agent-aajm17k9.jsonl");
    let parent = one(&session);
    let sub = one(&child);

    let task = parent
        .steps
        .iter()
        .find(|s| s.tool.as_deref() == Some("Task"))
        .unwrap();
    assert_eq!(task.subagent.as_deref(), Some(child.as_path()));
    assert_eq!(sub.parent.as_deref(), Some(session.as_path()));
    assert!(
        sub.format_detail
            .as_deref()
            .unwrap()
            .ends_with("sub-agent (Explore: Find where numbers are tokenized)"),
        "{:?}",
        sub.format_detail
    );
    // The sub-agent's sidechain records are its own conversation, not a side agent of it.
    assert!(sub.steps.iter().all(|s| s.agent.is_none()));
    assert!(
        sub.task
            .as_deref()
            .unwrap()
            .starts_with("Find where tinycalc")
    );
    assert_eq!(
        sub.steps
            .iter()
            .filter(|s| s.tool.as_deref() == Some("Grep"))
            .count(),
        2
    );

    // Each keeps its own usage; the session knows its sub-agents' apart.
    assert_eq!(parent.subagent_usage, sub.total_usage());
    assert!(parent.subagent_usage.tokens_out.unwrap() > 0);
    let own: u64 = parent.steps.iter().filter_map(|s| s.usage.tokens_out).sum();
    assert_eq!(parent.total_usage().tokens_out, Some(own));

    // The user's follow-up is a step, and the compaction is marked with its summary.
    let kinds: Vec<StepKind> = parent.steps.iter().map(|s| s.kind).collect();
    use StepKind::*;
    assert_eq!(kinds, [User, Agent, Agent, User, Compaction, Agent]);
    assert!(
        parent.steps[4]
            .user
            .starts_with("This session is being continued")
    );
    let after = parent.steps[5].context_messages(&parent.messages);
    assert!(after[0].compaction, "the summary opens the next context");

    // `ls --json`: the sub-agent's row names its parent; the meta file is no row.
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["ls", "--json", "--no-cache"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.len(), 2, "{rows:#?}");
    let parent_of = |path: &Path| {
        rows.iter()
            .find(|r| r["path"] == path.display().to_string())
            .map(|r| r["parent"].clone())
            .unwrap()
    };
    assert_eq!(parent_of(&session), serde_json::Value::Null);
    assert_eq!(parent_of(&child), session.display().to_string());
    assert!(rows.iter().all(|r| r["error"].is_null()));
}

#[test]
fn openhands_observations_keep_the_suffix_the_model_saw() {
    let instance = serde_json::json!({
        "instance_id": "a__b-1",
        "instruction": "Fix it.",
        "metadata": {"agent_class": "CodeActAgent"},
        "history": [
            {"id": 1, "source": "user", "action": "message", "args": {"content": "Fix it."}},
            {"id": 2, "source": "agent", "action": "run", "args": {"command": "pytest", "thought": ""},
             "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1"}},
            {"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "collecting ...",
             "extras": {"command": "pytest", "metadata": {"exit_code": -1, "prefix": "",
                 "suffix": "\n[The command has no new output after 30 seconds. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, or send keys to interrupt/kill the command.]"}}}
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("output.jsonl");
    std::fs::write(&path, format!("{instance}\n{instance}\n")).unwrap();
    let ts = load(&path);
    let step = &ts[0].steps[0];
    assert!(
        step.observation
            .starts_with("collecting ...\n[The command has no new output after 30 seconds.")
    );
    assert_eq!(default_rule_steps(&ts[0], "timeout"), 1);
}

#[test]
fn the_openhands_resolver_output_loads() {
    let line = serde_json::json!({
        "issue": {"owner": "acme", "repo": "calc", "number": 7, "title": "Division floors",
                  "body": "7 / 2 gives 3", "thread_comments": null, "closing_issues": null},
        "issue_type": "issue",
        "instruction": "Please fix the following issue for the repository in /workspace.\n\n# Title\nDivision floors",
        "base_commit": "abc123",
        "git_patch": "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-a // b\n+a / b\n",
        "history": [
            {"id": 0, "source": "user", "action": "message", "args": {"content": "Fix it"}},
            {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls", "thought": "Look."},
             "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1"}},
            {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "calc.py",
             "extras": {"metadata": {"exit_code": 0, "suffix": "\n[The command completed with exit code 0.]"}}}
        ],
        "metrics": {"accumulated_cost": 0.25, "costs": [{"cost": 0.25}],
                    "accumulated_token_usage": {"prompt_tokens": 900, "completion_tokens": 40}},
        "success": true,
        "comment_success": null,
        "result_explanation": "The patch makes division exact.",
        "error": null
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("output.jsonl");
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let t = one(&path);
    assert_eq!(t.format, Format::OpenHands);
    assert_eq!(t.format_detail.as_deref(), Some("resolver output"));
    assert_eq!(t.instance_id, "acme__calc-7");
    assert_eq!(t.resolved, Some(true));
    assert_eq!(t.exit_status.as_deref(), Some("success"));
    assert_eq!(t.patch_lines(), 6);
    assert_eq!(t.total_usage().cost, Some(0.25));
    assert_eq!(t.steps.len(), 1);
    assert_eq!(
        t.steps[0].observation,
        "calc.py\n[The command completed with exit code 0.]"
    );
    // One object per file is read too.
    let single = dir.path().join("one.json");
    std::fs::write(&single, line.to_string()).unwrap();
    assert_eq!(one(&single).instance_id, "acme__calc-7");
}

#[test]
fn codex_usage_sums_as_ccusage_does() {
    let Some(dir) =
        corpus::corpus("codex-cli/ryoppippi__ccusage/apps/ccusage/test/fixtures/codex/sessions")
    else {
        return;
    };
    let t = one(&dir.join("project-alpha/session-alpha.jsonl"));
    let usage = t.total_usage();
    // ccusage: each token_count's last_token_usage, summed: 1000+2500 in (cached 250+500),
    // 125+300 out (reasoning 75+200).
    assert_eq!(usage.tokens_in, Some(3500));
    assert_eq!(usage.tokens_out, Some(425));
    assert_eq!(usage.tokens_cached, Some(750));
    assert_eq!(usage.tokens_reasoning, Some(275));
    let out = Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(["ls", "--json", "--no-cache"])
        .arg(dir.join("project-alpha/session-alpha.jsonl"))
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["tokens_cached"], 750);
    assert_eq!(rows[0]["tokens_reasoning"], 275);
    assert_eq!(rows[0]["tokens_in"], 3500);
}

#[test]
fn codex_reports_of_running_totals_alone_count_what_they_grew_by() {
    let lines = [
        r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s1","cli_version":"0.60.0"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"one"}]}}"#,
        r#"{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":500}}}}"#,
        r#"{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"two"}]}}"#,
        r#"{"timestamp":"2026-01-01T00:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2000,"cached_input_tokens":300,"output_tokens":800}}}}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-s1.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let t = one(&path);
    let per_step: Vec<(Option<u64>, Option<u64>)> = t
        .steps
        .iter()
        .map(|s| (s.usage.tokens_in, s.usage.tokens_cached))
        .collect();
    assert_eq!(per_step, [(Some(1200), Some(200)), (Some(800), Some(100))]);
    assert_eq!(t.total_usage().tokens_in, Some(2000));
}

#[test]
fn swe_agent_yaml_demonstrations_load() {
    let Some(dir) = corpus::corpus("swe-agent/trajectories/demonstrations") else {
        return;
    };
    let path = dir.join("str_replace_anthropic_demo.yaml");
    let t = one(&path);
    assert_eq!(t.format, Format::SweAgent);
    assert!(
        t.format_detail
            .as_deref()
            .unwrap()
            .ends_with("demonstration (YAML)"),
        "{:?}",
        t.format_detail
    );
    assert_eq!(t.instance_id, "str_replace_anthropic_demo");
    assert!(!t.steps.is_empty());
    assert_eq!(t.steps[0].tool.as_deref(), Some("str_replace_editor"));
    assert!(t.task.as_deref().unwrap().contains("missing_colon.py"));
    // Found by a folder walk, and YAML that is not a demonstration is left alone.
    let run = tempfile::tempdir().unwrap();
    std::fs::copy(&path, run.path().join("demo.yaml")).unwrap();
    std::fs::write(run.path().join("ci.yml"), "jobs:\n  build: {}\n").unwrap();
    let (found, _) = trajscope::formats::discover(&[run.path().to_path_buf()]);
    let names: Vec<String> = found
        .iter()
        .map(|c| c.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["demo.yaml"]);
}

/// The sample `.eval` rewritten with every entry zstd-compressed (zip method 93), as current
/// Inspect writes it.
fn zstd_copy(from: &Path, to: &Path) {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(from).unwrap()).unwrap();
    let mut out = zip::ZipWriter::new(std::fs::File::create(to).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Zstd);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        let name = entry.name().unwrap().to_string();
        out.start_file(name, options).unwrap();
        out.write_all(&bytes).unwrap();
    }
    out.finish().unwrap();
}

#[test]
fn zstd_compressed_inspect_logs_load() {
    let converted = samples().join("inspect-ai/converted");
    let original = std::fs::read_dir(&converted)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "eval"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zstd.eval");
    zstd_copy(&original, &path);
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(
        archive.by_index(0).unwrap().compression(),
        zip::CompressionMethod::Zstd
    );
    let expected = load(&original);
    let read = load(&path);
    assert_eq!(read.len(), expected.len());
    for (a, b) in read.iter().zip(&expected) {
        assert_eq!(a.steps, b.steps);
        assert_eq!(a.total_usage(), b.total_usage());
        assert_eq!(a.instance_id, b.instance_id);
    }
}

#[test]
fn mini_swe_agent_tool_calling_observations_and_format_errors_are_counted() {
    let traj = serde_json::json!({
        "trajectory_format": "mini-swe-agent-1.1",
        "info": {"exit_status": "Submitted", "model_stats": {"api_calls": 3}},
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "Fix it"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"git status\"}"}}],
             "extra": {"response": {"usage": {"prompt_tokens": 1000, "completion_tokens": 40}}}},
            {"role": "tool", "tool_call_id": "c1", "content": "{\"returncode\": 128, \"output\": \"fatal: not a git repository\"}"},
            {"role": "user", "content": "Error parsing tool call arguments: Expecting ',' delimiter. ",
             "extra": {"interrupt_type": "FormatError",
                       "model_response": {"choices": [{"message": {"content": "Let me look", "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"ls"}}]}}]},
                       "response": {"usage": {"prompt_tokens": 1100, "completion_tokens": 30}}}},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}}
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.traj.json");
    std::fs::write(&path, traj.to_string()).unwrap();
    let t = one(&path);
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].exit_code, Some(128));
    assert!(t.steps[1].response.starts_with("Let me look"));
    assert_eq!(t.total_usage().tokens_in, Some(2100));
    assert_eq!(t.total_usage().tokens_out, Some(70));
    assert_eq!(default_rule_steps(&t, "nonzero_exit"), 1);
    assert_eq!(default_rule_steps(&t, "format_error"), 1);
}

#[test]
fn aider_llm_history_makes_contexts_exact() {
    let chat = samples().join("aider/tinycalc__tinycalc-1.aider.chat.history.md");
    let plain = load(&chat);
    let first_reply = plain[0].steps[0].response.clone();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(".aider.chat.history.md");
    std::fs::copy(&chat, &copy).unwrap();
    let reply_lines: String = first_reply
        .lines()
        .map(|l| format!("ASSISTANT {l}\n"))
        .collect();
    std::fs::write(
        dir.path().join(".aider.llm.history"),
        format!(
            "TO LLM 2025-03-18T16:20:03\n-------\nSYSTEM Act as an expert software developer.\nSYSTEM \nSYSTEM Always use best practices.\n-------\nUSER Fix the division.\nLLM RESPONSE 2025-03-18T16:20:09\n{reply_lines}"
        ),
    )
    .unwrap();
    let joined = load(&copy);
    let step = &joined[0].steps[0];
    let context = step.context.as_ref().unwrap();
    assert_eq!(context.exactness, Exactness::Exact);
    let messages = step.context_messages(&joined[0].messages);
    assert_eq!(messages.len(), 2);
    assert_eq!(
        messages[0].content,
        "Act as an expert software developer.\n\nAlways use best practices."
    );
    assert!(
        joined[0]
            .format_detail
            .as_deref()
            .unwrap()
            .ends_with("with LLM history")
    );
    // Steps whose reply the LLM history lacks keep their reconstructed context.
    assert!(joined[0].steps[1..].iter().all(|s| {
        s.context
            .as_ref()
            .is_none_or(|c| c.exactness == Exactness::Reconstructed)
    }));
}
