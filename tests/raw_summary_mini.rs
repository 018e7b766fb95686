//! The raw-byte summary of a mini-swe-agent trajectory (what `ls` and the run cache list) is
//! the summary of the file read whole, on every mini-swe-agent file of the corpus and the
//! samples and on generated files that put its shortcuts on their edges (observations added
//! to one another, return codes, the error window, rejected calls, the exit); files it cannot
//! summarise exactly are left to the usual read (`None`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/summaries.rs"]
mod summaries;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use summaries::{usual, write};
use trajscope::formats::raw_summary;
use trajscope::model::{Format, TrajectorySummary};

/// Checks every file under `root` (see `summaries::agrees_under`).
fn agrees_under(root: &Path) -> usize {
    summaries::agrees_under(
        root,
        &|e: &std::fs::DirEntry| e.path().to_string_lossy().ends_with(".json"),
        Some(Format::MiniSweAgent),
    )
}

#[test]
fn the_corpus_and_the_samples_summarise_as_when_read_whole() {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    assert!(agrees_under(&samples.join("mini-swe-agent")) >= 1);
    assert!(agrees_under(&samples.join("mini-swe-agent-v2")) >= 1);
    if let Some(mini) = corpus::corpus("mini-swe-agent") {
        // Every trajectory there takes the raw path (25 objects and a bare list).
        assert_eq!(agrees_under(&mini), 26);
    }
}

/// Checks the raw summary of `doc`, written compact, pretty and as Python's `\uXXXX`
/// ASCII, against the whole read's; the raw summary.
fn agrees(dir: &Path, name: &str, doc: &Value) -> TrajectorySummary {
    let mut first = None;
    for (form, text) in [
        ("plain", serde_json::to_string(doc).unwrap()),
        ("pretty", serde_json::to_string_pretty(doc).unwrap()),
        ("ascii", to_ascii(&serde_json::to_string(doc).unwrap())),
    ] {
        let (path, bytes) = write(dir, &format!("{name}.traj.json"), &text);
        let raw = raw_summary(&path, &bytes).unwrap_or_else(|| panic!("{name} {form}: not taken"));
        assert_eq!(
            Some(vec![raw.clone()]),
            usual(&path, &bytes),
            "{name} {form}"
        );
        first.get_or_insert(raw);
    }
    first.unwrap()
}

/// `\uXXXX` for every non-ASCII character, as Python writes by default.
fn to_ascii(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn answer(command: &str, usage: Value) -> Value {
    json!({"role": "assistant", "content": "THOUGHT: é", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "bash", "arguments": json!({"command": command}).to_string()}}],
        "extra": {"actions": [{"command": command}], "response": {"choices": [{"message": {"content": "{\"returncode\": 9}"}}], "usage": usage}, "cost": 0.25, "timestamp": 1.5}})
}

fn tool(content: Value) -> Value {
    json!({"role": "tool", "tool_call_id": "c", "content": content, "extra": {"raw_output": "Traceback (most recent call last)"}})
}

fn object(messages: Vec<Value>) -> Value {
    json!({
        "info": {"model_stats": {"instance_cost": 0.5, "api_calls": 4}, "mini_version": "1.1",
                 "config": {"agent": {"system_template": "x error: y"}, "model": {"model_name": "openai/gpt-5-mini", "model_kwargs": {}}},
                 "exit_status": "Submitted", "submission": "diff --git a/x b/x\n+y\n"},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "x__y-1",
    })
}

fn start() -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "Your \"rules\""}),
        json!({"role": "user", "content": "<pr_description>\nConsider the following PR description:\nFix é\n</pr_description>"}),
    ]
}

#[test]
fn tool_call_mode_steps_errors_and_usage_agree() {
    let dir = tempfile::tempdir().unwrap();
    let filler = |n: usize, unit: &str| unit.repeat(n / unit.len());
    let usage = |i: u64| json!({"prompt_tokens": 100 + i, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": i}, "completion_tokens_details": {"reasoning_tokens": 2}});
    let mut messages = start();
    // Observations: return codes read raw, in JSON, behind blanks, absent; markers just inside
    // and outside the 16 KiB window behind escapes; two tool messages for one answer.
    let observations = [
        json!("<returncode>0</returncode>\n<output>\nok\n</output>"),
        json!("<returncode>2</returncode>\n<output>\nls: x\n</output>"),
        json!("{\"returncode\": 1, \"output\": \"\"}"),
        json!("  {\"returncode\": 0, \"output\": \"fine\"}"),
        json!(format!(
            "<returncode>0</returncode>\n{}Traceback (most recent call last)",
            filler(16 * 1024 - 60, "\"\n\\")
        )),
        json!(format!(
            "<returncode>0</returncode>\n{}Traceback (most recent call last)",
            filler(16 * 1024 + 8, "x")
        )),
        json!(format!(
            "<returncode>0</returncode>{}SyntaxError: bad",
            filler(16 * 1024 - 60, "é\t")
        )),
        json!(format!(
            "<returncode>0</returncode>{}SyntaxError: bad",
            filler(16 * 1024, "é\t")
        )),
        json!("no return code, Error: (none)"),
        json!([{"type": "text", "text": "<returncode>0</returncode>"}, {"type": "text", "text": "fatal: not a repo"}]),
        json!(null),
        json!("<returncode>\\u0031</returncode> café"),
    ];
    for (i, observation) in observations.iter().enumerate() {
        messages.push(answer(&format!("cmd {i}"), usage(i as u64)));
        messages.push(tool(observation.clone()));
    }
    // One answer, two observations: the second's marker is in the first 16 KiB of both.
    messages.push(answer("two", usage(20)));
    messages.push(tool(json!("<returncode>0</returncode>")));
    messages.push(tool(json!("command not found")));
    messages.push(answer("two, the first empty", usage(21)));
    messages.push(tool(json!("")));
    messages.push(tool(json!("<returncode>3</returncode>")));
    // A rejected call with its usage under `model_response`, and one with none.
    messages.push(json!({"role": "user", "content": "No tool calls found", "extra": {"interrupt_type": "FormatError",
        "model_response": {"choices": [{"message": {"content": "I will"}}], "usage": {"input_tokens": "7", "output_tokens": 3.0}}}}));
    messages.push(json!({"role": "user", "content": "No tool calls found", "extra": {"interrupt_type": "FormatError"}}));
    messages.push(answer("exit_cost now", json!(null)));
    messages.push(json!({"role": "exit", "content": "diff --git a/z b/z\n", "extra": {"exit_status": "LimitsExceeded", "submission": ""}}));
    let doc = object(messages);
    let raw = agrees(dir.path(), "tools", &doc);
    // The checks above could pass on empty summaries: these could not.
    assert_eq!(raw.steps, observations.len() + 5);
    assert_eq!(raw.forced_exit.as_deref(), Some("exit_cost"));
    assert_eq!(raw.exit_status.as_deref(), Some("LimitsExceeded"));
    assert_eq!(raw.model.as_deref(), Some("openai/gpt-5-mini"));
    assert_eq!(raw.patch_lines, 2);
    assert_eq!(raw.usage.cost, Some(0.5));
    // Codes 2 and 1, the markers inside the window (behind escapes, behind multi-byte
    // characters), the part list's `fatal: `, the two-message steps (a marker, a code), the
    // two rejected calls.
    assert_eq!(raw.error_steps, 9);
}

#[test]
fn tool_call_shapes_and_usage_places_agree() {
    let dir = tempfile::tempdir().unwrap();
    let with = |calls: Value, extra: Value| json!({"role": "assistant", "content": "go\n```bash\nls\n```", "tool_calls": calls, "extra": extra});
    let call =
        json!({"id": "c", "function": {"name": "bash", "arguments": "{\"command\": \"pwd\"}"}});
    let mut messages = start();
    for (calls, extra) in [
        // No call kept (an empty list, a function without a name, a name that is not a
        // string, not a list): a text-mode step, answered by the next user message.
        (
            json!([]),
            json!({"response": "not an object", "model_response": {"usage": {"prompt_tokens": 3}}}),
        ),
        (
            json!([{"function": "bash"}, 7]),
            json!({"response": {"id": "r"}, "model_response": {"usage": {"prompt_tokens": 4}}}),
        ),
        (
            json!([{"function": {"name": 5}}]),
            json!({"response": {"usage": null}, "model_response": {"usage": {"prompt_tokens": 5}}}),
        ),
        (json!({"name": "bash"}), json!("not an object")),
        // A call named at the top of the item, then one under `function`: tool mode.
        (
            json!([{"name": "bash", "arguments": "{}"}]),
            json!({"cost": 1.5e-3, "response": {"usage": {"prompt_tokens": 1.0e3, "completion_tokens": -1}}}),
        ),
        (
            json!([7, call]),
            json!({"cost": null, "response": {"usage": {"prompt_tokens": 12345678901234567890u64, "prompt_tokens_details": {"cached_tokens": "3"}}}}),
        ),
    ] {
        messages.push(with(calls, extra));
        messages.push(json!({"role": "user", "content": "<returncode>1</returncode>"}));
        messages.push(tool(json!(
            "<returncode>0</returncode>\nerror: seen in tool mode only"
        )));
    }
    let raw = agrees(dir.path(), "shapes", &object(messages));
    // Four text steps take the user message (code 1: errors) and then the tool message; the
    // two tool-mode steps leave it to be a rejected call (an error), after which the tool
    // message finds no step (a warning).
    assert_eq!((raw.steps, raw.error_steps, raw.warnings.len()), (8, 6, 2));
}

#[test]
fn text_mode_lists_exits_and_warnings_agree() {
    let dir = tempfile::tempdir().unwrap();
    let text_answer = |command: &str| {
        json!({"role": "assistant", "content": format!("THOUGHT: go\n\n```bash\n{command}\n```"),
        "extra": {"response": {"usage": {"prompt_tokens": 10, "completion_tokens": 1}}, "cost": "0.125"}})
    };
    let observation = |text: &str| json!({"role": "user", "content": text});
    let messages = vec![
        json!({"role": "system", "content": "sys: answer in a mswea_bash_command block"}),
        json!({"role": "tool", "content": "a tool message before any answer"}),
        json!({"role": "user", "content": "Please solve this issue: Blah"}),
        text_answer("ls"),
        // An empty observation leaves the step open to the next user message.
        observation(""),
        observation("<returncode>1</returncode>\n<output>\n</output>"),
        text_answer("cat a"),
        observation("<returncode>0</returncode>\nIndentationError: x"),
        // Answered already: a rejected call of its own.
        observation("Please always provide EXACTLY ONE action"),
        json!({"role": "tool", "content": "after a rejected call: a warning again"}),
        text_answer("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        observation("<returncode>0</returncode>"),
        json!({"role": "exit", "content": "diff --git a/q b/q\n+1\n", "extra": {"exit_status": "Submitted"}}),
    ];
    let mut doc = object(messages.clone());
    doc["info"] =
        json!({"model_stats": {"instance_cost": "0.75"}, "config": {"model": "not an object"}});
    doc.as_object_mut().unwrap().remove("trajectory_format");
    let raw = agrees(dir.path(), "text", &doc);
    assert_eq!((raw.steps, raw.error_steps, raw.warnings.len()), (4, 3, 2));
    assert_eq!(raw.exit_status.as_deref(), Some("Submitted"));
    assert_eq!(raw.format_detail.as_deref(), Some("1"));
    assert_eq!(raw.patch_lines, 2, "the exit's content is the submission");
    // The same messages as a bare list (detected by the `bash` fence's final output).
    let list = Value::Array(messages);
    let raw = agrees(dir.path(), "list", &list);
    assert_eq!(raw.format_detail.as_deref(), Some("message list"));
    assert_eq!(raw.steps, 4);
}

#[test]
fn files_it_cannot_read_exactly_are_left_to_the_usual_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut messages = start();
    messages.push(answer("ls", json!({"prompt_tokens": 1})));
    messages.push(tool(json!("<returncode>0</returncode>")));
    let good = object(messages).to_string();
    let (path, bytes) = write(dir.path(), "good.traj.json", &good);
    assert!(raw_summary(&path, &bytes).is_some());
    let replace = |from: &str, to: &str| {
        assert!(good.contains(from), "{from}");
        good.replacen(from, to, 1)
    };
    let broken = [
        // Repeated members: a message's role, the file's info, a usage count.
        replace(
            "\"role\":\"system\"",
            "\"role\":\"user\",\"role\":\"system\"",
        ),
        replace("{\"info\":", "{\"info\":{},\"info\":"),
        replace(
            "\"prompt_tokens\":1",
            "\"prompt_tokens\":1,\"prompt_tokens\":2",
        ),
        // A message that is not an object, a key with an escape.
        replace("\"messages\":[", "\"messages\":[7,"),
        replace("\"tool_call_id\"", "\"tool_call\\u005fid\""),
        // Types serde refuses: `tool_call_id`, `trajectory_format`, `instance_id`.
        replace("\"tool_call_id\":\"c\"", "\"tool_call_id\":5"),
        replace(
            "\"trajectory_format\":\"mini-swe-agent-1.1\"",
            "\"trajectory_format\":1.1",
        ),
        replace("\"instance_id\":\"x__y-1\"", "\"instance_id\":[]"),
        // No messages.
        replace("\"messages\":[", "\"messages\":null,\"other\":["),
        // Not mini-swe-agent to detection: a chat log's `messages` alone.
        json!({"messages": [{"role": "user", "content": "hi"}]}).to_string(),
        // Brackets that do not match inside a skipped value; something after the document.
        replace("\"model_kwargs\":{}", "\"model_kwargs\":[}"),
        format!("{good} {{}}"),
    ];
    for (i, text) in broken.iter().enumerate() {
        assert_ne!(text, &good, "case {i} changed nothing");
        let (path, bytes) = write(dir.path(), &format!("bad{i}.traj.json"), text);
        assert!(raw_summary(&path, &bytes).is_none(), "case {i}: {text}");
    }
    // Invalid UTF-8 is repaired by the usual read, with a warning.
    let mut bytes = good.clone().into_bytes();
    bytes[good.find("ls").unwrap()] = 0xff;
    let path = dir.path().join("latin.traj.json");
    std::fs::write(&path, &bytes).unwrap();
    assert!(raw_summary(&path, &bytes).is_none());
}
