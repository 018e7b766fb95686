//! The raw-byte read against the whole read, shape by shape: what it takes gives the whole
//! read's trajectory (observations left empty where the caller skips them), and each shape
//! it cannot give exactly is decoded or sent to the whole read.

use super::*;
use serde_json::json;

fn whole(doc: &[u8]) -> Trajectory {
    let mut t = super::super::parse(Path::new("d/x.traj.json"), doc)
        .unwrap()
        .remove(0);
    t.number_steps();
    t.messages.clear();
    t
}

/// The sparse read with every observation decoded, or skipped (and then `()` kept).
fn sparse(doc: &[u8], skip: bool) -> MiniSparse<()> {
    let look = move |which: LongText, _: &[u8]| {
        assert_eq!(which, LongText::Observation);
        Some(if skip { Look::Skip(()) } else { Look::Decode })
    };
    let wanted = Wanted {
        look: &look,
        repeated_observations: true,
    };
    read(Path::new("d/x.traj.json"), doc, &wanted)
}

fn taken(doc: &[u8], skip: bool) -> (Trajectory, Vec<Skipped<()>>) {
    match sparse(doc, skip) {
        MiniSparse::Read(t, skipped) => (*t, skipped),
        MiniSparse::Whole => panic!("sent to the whole read"),
        MiniSparse::Other => panic!("not taken as mini-swe-agent"),
    }
}

fn assistant(command: &str) -> Value {
    json!({"role": "assistant", "content": null,
           "tool_calls": [{"id": "c", "type": "function",
                           "function": {"name": "bash", "arguments": json!({"command": command}).to_string()}}],
           "extra": {"cost": 0.5, "timestamp": 2.5, "actions": [{"command": command}],
                     "response": {"usage": {"prompt_tokens": 10, "completion_tokens": 2},
                                  "choices": [{"message": {"content": null}}]}}})
}

fn tool(content: Value) -> Value {
    json!({"content": content, "extra": {"raw_output": "copy", "returncode": 0}, "tool_call_id": "c", "role": "tool"})
}

fn file(messages: Vec<Value>) -> Vec<u8> {
    let mut all = vec![
        json!({"role": "system", "content": "sys"}),
        json!({"role": "user", "content": "<pr_description>\nConsider the following PR description:\nFix it\n</pr_description>"}),
    ];
    all.extend(messages);
    all.push(json!({"role": "exit", "content": "diff", "extra": {"exit_status": "Submitted", "submission": "diff --git a/x b/x"}}));
    serde_json::to_vec_pretty(&json!({
        "info": {"model_stats": {"instance_cost": 1.5, "api_calls": 3},
                 "config": {"agent": {"t": "x"}, "model": {"model_name": "m"}}, "exit_status": "Submitted"},
        "messages": all,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "x__y-1"
    }))
    .unwrap()
}

/// Decoded, the sparse read is the whole read; skipped, it differs only in the texts left
/// empty, the exit codes kept.
fn agrees(doc: &[u8]) {
    let expected = whole(doc);
    let (decoded, _) = taken(doc, false);
    assert_eq!(decoded, expected, "{}", String::from_utf8_lossy(doc));
    let (t, skipped) = taken(doc, true);
    assert_eq!(t.steps.len(), expected.steps.len());
    for ((step, exact), skip) in t.steps.iter().zip(&expected.steps).zip(&skipped) {
        assert_eq!(step.exit_code, exact.exit_code, "{}", exact.observation);
        if skip.observation.is_some() {
            assert!(step.observation.is_empty());
        } else {
            assert_eq!(step.observation, exact.observation);
        }
        let mut step = step.clone();
        step.observation.clone_from(&exact.observation);
        assert_eq!(&step, exact);
    }
    assert_eq!(t.exit_status, expected.exit_status);
    assert_eq!(t.total_usage(), expected.total_usage());
}

#[test]
fn tool_call_files_are_taken_with_their_exit_codes() {
    let doc = file(vec![
        assistant("ls"),
        tool(json!(
            "<returncode>2</returncode>\n<output>\nls: no \"x\"\n</output>"
        )),
        assistant("ls"),
        tool(json!(
            "<returncode>2</returncode>\n<output>\nls: no \"x\"\n</output>"
        )),
        json!({"role": "user", "content": "Format error", "extra": {"interrupt_type": "FormatError",
               "response": {"choices": [{"message": {"content": "I will"}}]}}}),
        assistant("cat a"),
        tool(json!("")),
        assistant("pytest"),
        tool(json!("no markup at all")),
    ]);
    agrees(&doc);
    let (t, skipped) = taken(&doc, true);
    assert_eq!(t.steps[0].exit_code, Some(2));
    assert!(skipped[0].observation.is_some(), "a plain text is skipped");
    assert!(
        skipped[1].same_observation,
        "the repeat is told from raw bytes"
    );
    assert_eq!(t.steps[2].response, "I will");
    assert_eq!(t.model.as_deref(), Some("m"));
}

#[test]
fn text_mode_lists_are_taken() {
    let doc = serde_json::to_vec(&json!([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Please solve this issue: Blah"},
        {"role": "assistant", "content": "THOUGHT: look\n\n```mswea_bash_command\necho hi\n```"},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\nhi\n</output>"},
        {"role": "user", "content": "a second user message is a rejected call"},
        {"role": "assistant", "content": "```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
        {"role": "user", "content": ""},
        {"role": "user", "content": "an empty observation lets the next one in"}
    ]))
    .unwrap();
    agrees(&doc);
    let (t, skipped) = taken(&doc, true);
    assert_eq!(t.steps.len(), 3);
    assert_eq!(t.steps[0].exit_code, Some(1));
    assert!(skipped[0].observation.is_some());
    assert!(t.steps[1].failed);
}

/// Shapes whose text is decoded (the exact way) rather than left to the raw bytes.
#[test]
fn observations_the_raw_bytes_cannot_tell_are_decoded() {
    for content in [
        json!("{\"returncode\": 3, \"output\": \"x\"}"),
        json!("  <returncode>4</returncode>"),
        json!("\n{\"returncode\": 5}"),
        json!("<returncode>\n6\n</returncode>"),
        json!("\u{a0}<returncode>7</returncode>"),
        json!([{"type": "text", "text": "<returncode>8</returncode>"}]),
        json!(null),
    ] {
        let doc = file(vec![assistant("ls"), tool(content.clone())]);
        agrees(&doc);
        let (_, skipped) = taken(&doc, true);
        assert!(skipped[0].observation.is_none(), "{content} was decoded");
    }
    // `\u003c` writes `<`: the markup is only seen decoded.
    let doc = String::from_utf8(file(vec![
        assistant("ls"),
        tool(json!("x <returncode>9</returncode>")),
    ]))
    .unwrap()
    .replace("x <returncode>", "x \\u003creturncode>");
    agrees(doc.as_bytes());
    let (t, skipped) = taken(doc.as_bytes(), true);
    assert_eq!(t.steps[0].exit_code, Some(9));
    assert!(skipped[0].observation.is_none());
    // Several observations of one step are joined as the whole read joins them.
    let doc = file(vec![
        assistant("ls"),
        tool(json!("<returncode>0</returncode>")),
        tool(json!("<returncode>1</returncode>")),
    ]);
    agrees(&doc);
    let (t, skipped) = taken(&doc, true);
    assert_eq!(
        t.steps[0].observation,
        "<returncode>0</returncode>\n<returncode>1</returncode>"
    );
    assert!(skipped[0].observation.is_none());
}

/// Shapes the whole read reads (or refuses) its own way: the file goes to it.
#[test]
fn odd_shapes_send_the_file_to_the_whole_read() {
    let base = String::from_utf8(file(vec![assistant("ls"), tool(json!("ok"))])).unwrap();
    assert!(matches!(
        sparse(base.as_bytes(), true),
        MiniSparse::Read(..)
    ));
    for (from, to) in [
        // A repeated member of a message (serde refuses it).
        (
            "\"tool_call_id\": \"c\"",
            "\"tool_call_id\": \"c\", \"content\": \"again\"",
        ),
        // A tool_call_id that is not text (serde refuses it).
        ("\"tool_call_id\": \"c\"", "\"tool_call_id\": 7"),
        // A key written with an escape.
        ("\"tool_call_id\": \"c\"", "\"tool\\u005fcall_id\": \"c\""),
        // A message that is not an object.
        (
            "\"role\": \"system\"",
            "\"role\": \"system\"}, [\"user\", \"x\"], {\"a\": 1",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let doc = base.replacen(from, to, 1);
        assert!(
            matches!(sparse(doc.as_bytes(), true), MiniSparse::Whole),
            "{to}"
        );
    }
    // The caller's look says the raw bytes cannot be counted.
    let look = |_: LongText, _: &[u8]| None::<Look<()>>;
    let wanted = Wanted {
        look: &look,
        repeated_observations: false,
    };
    assert!(matches!(
        read(Path::new("x.traj.json"), base.as_bytes(), &wanted),
        MiniSparse::Whole
    ));
}

#[test]
fn other_formats_are_left_to_other_readers() {
    for doc in [
        &br#"{"trajectory": [], "info": {}}"#[..],
        br#"{"messages": [{"role": "user", "content": "hi"}]}"#,
        b"{\"a\": 1}\n{\"b\": 2}\n",
    ] {
        assert!(
            matches!(sparse(doc, true), MiniSparse::Other),
            "{}",
            String::from_utf8_lossy(doc)
        );
    }
    // No other raw-byte reader takes an array.
    let chat = b"[{\"role\": \"user\", \"content\": \"plain chat\"}]";
    assert!(matches!(sparse(chat, true), MiniSparse::Whole));
}

/// The writer puts `info` first; a file with its messages first is read the same.
#[test]
fn messages_before_info_are_read_once_the_keys_tell() {
    let messages = json!([
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        assistant("ls"),
        tool(json!("<returncode>1</returncode>")),
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}}
    ]);
    // Written by hand: `json!` objects sort their keys.
    let doc = format!(
        r#"{{"messages": {messages}, "info": {{"model_stats": {{"instance_cost": 0.5}}}}, "instance_id": "x__y-2"}}"#
    );
    let doc = doc.into_bytes();
    agrees(&doc);
    let (t, _) = taken(&doc, true);
    assert_eq!(t.steps[0].exit_code, Some(1));
    assert_eq!(t.instance_id, "x__y-2");
}

#[test]
fn exit_codes_are_read_from_raw_bytes_only_where_they_tell() {
    for (raw, code) in [
        (&b"<returncode>0</returncode>\\n<output>"[..], Some(Some(0))),
        (b"x\\n<returncode> 12 </returncode>", Some(Some(12))),
        (b"<returncode>a</returncode>", Some(None)),
        (b"no markup", Some(None)),
        (b"<returncode>1", Some(None)),
        (b"", Some(None)),
        (b"\\u003creturncode>1</returncode>", None),
        (b"<returncode>1<\\/returncode>", None),
        (b"no markup \\u00e9", None),
        (b"<returncode>\\n1</returncode>", None),
        (b"\\n<returncode>1</returncode>", None),
        (b" <returncode>1</returncode>", None),
        (b"{\\\"returncode\\\": 1}", None),
    ] {
        assert_eq!(raw_exit_code(raw), code, "{}", String::from_utf8_lossy(raw));
        // Where the raw bytes tell, they tell what the decoded text does.
        if let Some(code) = code {
            let text: String = serde_json::from_slice(&[b"\"", raw, b"\""].concat()).unwrap();
            assert_eq!(super::super::return_code(&text), code);
        }
    }
}
