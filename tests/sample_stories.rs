//! What each bundled sample tells, read through its loader: the beats of the story (the
//! bug reproduced, an edit that is a syntax error, a file that does not exist, the fix or the
//! failure, the submission) land on the steps where the README says they are, and each
//! format's particulars (exact contexts, merged response lines, scores, errors) come through.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/samples.rs"]
mod samples;

use samples::{INSPECT_LOG, load, load_all, step_with};
use std::collections::BTreeMap;
use trajscope::model::{Exactness, Trajectory};

fn exact_everywhere(t: &Trajectory) -> bool {
    t.steps.iter().all(|s| {
        s.context
            .as_ref()
            .is_some_and(|c| c.exactness == Exactness::Exact)
    })
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

#[test]
fn the_aider_llama_and_chat_runs_tell_the_story() {
    let aider = load("aider/tinycalc__tinycalc-1.aider.chat.history.md");
    assert_eq!(
        aider.model.as_deref(),
        Some("anthropic/claude-3-7-sonnet-20250219")
    );
    // Three model replies: a request for a file that does not exist, the edit the linter
    // flags, and the lint fix; each edit is applied and committed.
    assert_eq!(aider.steps.len(), 3);
    assert!(aider.steps[0].thought.contains("tinycalc/operators.py"));
    let linted = step_with(&aider, "E999 SyntaxError");
    assert_eq!(linted.index, 2);
    assert!(
        linted.action.contains("<<<<<<< SEARCH")
            && linted.action.contains("raise ZeroDivisionError")
    );
    assert!(
        aider.steps[2]
            .observation
            .contains("Applied edit to tinycalc/evaluator.py")
    );

    let llama = load("llama/tinycalc__tinycalc-1-prompt.txt");
    assert_eq!(llama.steps.len(), 6);
    let tools: Vec<&str> = llama.steps.iter().map(|s| s.tool_name()).collect();
    assert_eq!(
        tools,
        [
            "list_files",
            "view_file",
            "edit_file",
            "edit_file",
            "view_file",
            "finish"
        ]
    );
    assert_eq!(step_with(&llama, "SyntaxError").index, 3);
    assert_eq!(step_with(&llama, "does not exist").index, 5);
    // The prompt log is what the model saw: every step's context is exact.
    assert!(
        llama
            .steps
            .iter()
            .all(|s| s.context.as_ref().unwrap().exactness == Exactness::Exact)
    );

    let chat = load("chat/tinycalc__tinycalc-1.jsonl");
    assert_eq!(chat.steps.len(), 6);
    assert_eq!(step_with(&chat, "SyntaxError").index, 3);
    assert_eq!(step_with(&chat, "No such file or directory").index, 4);
    assert!(chat.steps[4].observation.contains("3.5\nOK"));
}

#[test]
fn the_openhands_runs_tell_the_story() {
    let cli = load("openhands/tinycalc__tinycalc-1.json");
    assert_eq!(cli.steps.len(), 9);
    let syntax = step_with(&cli, "SyntaxError: invalid syntax");
    assert_eq!(
        (syntax.index, syntax.tool.as_deref()),
        (5, Some("execute_bash"))
    );
    assert_eq!(step_with(&cli, "does not exist").index, 6);
    assert_eq!(cli.steps[8].tool.as_deref(), Some("finish"));
    // OpenHands logs no prompts: contexts are rebuilt from the events.
    let context = cli.steps[4].context.as_ref().unwrap();
    assert_eq!(context.exactness, Exactness::Reconstructed);

    let eval = load_all("openhands/eval-run/output.jsonl");
    let ids: Vec<&str> = eval.iter().map(|t| t.instance_id.as_str()).collect();
    assert_eq!(ids, ["tinycalc__tinycalc-1", "tinycalc__tinycalc-2"]);
    assert_eq!(eval[0].steps.len(), 5);
    assert!(
        eval[0]
            .submission
            .as_deref()
            .unwrap()
            .contains("+            value = value / right\n")
    );
    // The second instance leaves a parenthesis open, looks for a helper that is not there,
    // and runs out of iterations.
    assert_eq!(eval[1].steps.len(), 8);
    assert!(step_with(&eval[1], "SyntaxError").index < step_with(&eval[1], "does not exist").index);
    assert!(
        eval[1]
            .warnings
            .iter()
            .any(|w| w.contains("maximum iteration"))
    );
}

#[test]
fn the_inspect_log_reads_the_same_as_json_and_as_eval() {
    let json = load_all(&format!("inspect-ai/{INSPECT_LOG}.json"));
    let eval = load_all(&format!("inspect-ai/converted/{INSPECT_LOG}.eval"));
    assert_eq!(json.len(), 2);
    for (a, b) in json.iter().zip(&eval) {
        assert_eq!(a.instance_id, b.instance_id);
        let steps = |t: &Trajectory| -> Vec<(String, String)> {
            t.steps
                .iter()
                .map(|s| (s.action.clone(), s.observation.clone()))
                .collect()
        };
        assert_eq!(steps(a), steps(b));
    }
    let division = &json[0];
    assert_eq!(division.model.as_deref(), Some("openai/gpt-4o-mini"));
    assert_eq!(step_with(division, "SyntaxError").index, 3);
    assert_eq!(step_with(division, "No such file or directory").index, 4);
    assert_eq!(division.steps[5].tool.as_deref(), Some("submit"));
    // Model events hold the full input, long texts as `attachment://` references: resolved.
    assert!(exact_everywhere(division));
    let context = division.steps[2].context_messages(&division.messages);
    assert!(
        context
            .iter()
            .any(|m| m.content.contains("def _product(tokens):"))
    );
    assert!(context.iter().all(|m| !m.content.contains("attachment://")));

    let decimals = &json[1];
    assert_eq!(step_with(decimals, "SyntaxError").index, 3);
    assert_eq!(step_with(decimals, "No such file or directory").index, 4);
    assert_eq!(decimals.resolved, Some(false));
}

#[test]
fn the_claude_code_session_merges_the_lines_of_each_response() {
    let t = load("claude-code/tinycalc__tinycalc-1.jsonl");
    assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    // The prompt, then 17 assistant lines, 8 API responses: one step per response.
    assert_eq!(t.steps.len(), 9);
    assert_eq!(t.steps[0].kind, trajscope::model::StepKind::User);
    assert!(t.steps[0].user.starts_with("Please fix this issue"));
    assert!(t.steps[1].thought.contains("The issue says `/` floors."));
    assert!(
        t.steps[1]
            .thought
            .contains("I'll start by reading the evaluator.")
    );
    let tools: Vec<&str> = t.steps.iter().map(|s| s.tool_name()).collect();
    assert_eq!(
        tools[..8],
        [
            "user", "Read", "Bash", "Edit", "Bash", "Read", "Edit", "Bash"
        ]
    );
    assert_eq!(step_with(&t, "SyntaxError").index, 5);
    assert_eq!(step_with(&t, "File does not exist").index, 6);
    // The Edit's structuredPatch is kept for the diff layer.
    let patch = &t.steps[3].tool_results[0];
    assert_eq!(patch.tool, "Edit");
    let lines = patch.data["structuredPatch"][0]["lines"]
        .as_array()
        .unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l == "-            value = value // right")
    );
    // Usage is repeated on every line of a response and must be counted once per response.
    let mut per_response: BTreeMap<String, u64> = BTreeMap::new();
    let text =
        std::fs::read_to_string(samples::dir().join("claude-code/tinycalc__tinycalc-1.jsonl"))
            .unwrap();
    for line in text.lines() {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        if record["type"] == "assistant" {
            let usage = &record["message"]["usage"];
            let input = [
                "input_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            ]
            .iter()
            .map(|k| usage[*k].as_u64().unwrap())
            .sum();
            per_response.insert(record["message"]["id"].as_str().unwrap().to_string(), input);
        }
    }
    assert_eq!(per_response.len(), 8);
    assert_eq!(t.total_usage().tokens_in, Some(per_response.values().sum()));
}

#[test]
fn the_codex_rollout_tells_the_story() {
    let t = load("codex/tinycalc__tinycalc-1.jsonl");
    // The task the person typed is step 1, then the agent's eight.
    assert_eq!(t.steps.len(), 9);
    assert_eq!(t.steps[0].kind, trajscope::model::StepKind::User);
    assert_eq!(t.task.as_deref(), Some(t.steps[0].user.as_str()));
    let tools: Vec<&str> = t.steps.iter().map(|s| s.tool_name()).collect();
    assert_eq!(
        tools[1..8],
        [
            "shell",
            "shell",
            "apply_patch",
            "shell",
            "shell",
            "apply_patch",
            "shell"
        ]
    );
    let syntax = step_with(&t, "SyntaxError");
    assert_eq!((syntax.index, syntax.exit_code), (5, Some(1)));
    let missing = step_with(&t, "No such file or directory");
    assert_eq!((missing.index, missing.exit_code), (6, Some(2)));
    assert!(t.steps[3].action.contains("*** Begin Patch"));
    assert_eq!(t.exit_status.as_deref(), Some("completed"));
}
