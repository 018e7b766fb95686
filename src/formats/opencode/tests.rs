use super::*;
use crate::formats::{Kind, detect, discover};

fn write(root: &Path, rel: &str, value: serde_json::Value) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    path
}

/// A storage folder holding one session of two messages, the second with four parts.
fn storage(root: &Path) -> PathBuf {
    use serde_json::json;
    let first = write(
        root,
        "storage/message/ses_1/msg_01.json",
        json!({"id": "msg_01", "sessionID": "ses_1", "role": "user",
               "time": {"created": 1730000001000u64}, "agent": "build",
               "model": {"providerID": "openai", "modelID": "gpt-4o-mini"}}),
    );
    write(
        root,
        "storage/message/ses_1/msg_02.json",
        json!({"id": "msg_02", "sessionID": "ses_1", "role": "assistant",
               "time": {"created": 1730000002000u64, "completed": 1730000005000u64},
               "modelID": "gpt-4o-mini", "providerID": "openai", "cost": 0.002,
               "tokens": {"input": 90, "output": 12, "reasoning": 3, "cache": {"read": 10, "write": 0}}}),
    );
    write(
        root,
        "storage/part/msg_01/prt_01.json",
        json!({"id": "prt_01", "sessionID": "ses_1", "messageID": "msg_01", "type": "text", "text": "Fix 7 / 2"}),
    );
    write(
        root,
        "storage/part/msg_02/prt_01.json",
        json!({"id": "prt_01", "sessionID": "ses_1", "messageID": "msg_02", "type": "reasoning", "text": "Look first."}),
    );
    write(
        root,
        "storage/part/msg_02/prt_02.json",
        json!({"id": "prt_02", "sessionID": "ses_1", "messageID": "msg_02", "type": "tool",
               "callID": "call_1", "tool": "bash",
               "state": {"status": "completed", "input": {"command": "cat calc.py"},
                         "output": "value // right", "time": {"start": 1000, "end": 1500}}}),
    );
    write(
        root,
        "storage/part/msg_02/prt_03.json",
        json!({"id": "prt_03", "sessionID": "ses_1", "messageID": "msg_02", "type": "tool",
               "callID": "call_2", "tool": "read",
               "state": {"status": "error", "input": {"filePath": "ops.py"}, "error": "File not found"}}),
    );
    write(
        root,
        "storage/part/msg_02/prt_04.json",
        json!({"id": "prt_04", "sessionID": "ses_1", "messageID": "msg_02", "type": "step-finish"}),
    );
    first
}

#[test]
fn a_message_file_reads_its_whole_session_with_parts() {
    let dir = tempfile::tempdir().unwrap();
    let first = storage(dir.path());
    let bytes = std::fs::read(&first).unwrap();
    assert_eq!(
        detect(&first, &bytes).ok(),
        Some(Kind::Trajectories(Format::OpenCode))
    );
    let t = parse(&first, &bytes).unwrap().remove(0);
    assert_eq!(t.instance_id, "ses_1");
    assert_eq!(t.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(t.steps.len(), 2);
    assert_eq!(t.steps[0].user, "Fix 7 / 2");
    assert_eq!(
        t.steps[0].timestamp.as_deref(),
        Some("2024-10-27T03:33:21.000Z")
    );
    let s = &t.steps[1];
    assert_eq!(s.thought, "Look first.");
    assert_eq!(s.action, "cat calc.py\nread {\"filePath\":\"ops.py\"}");
    assert_eq!(s.observation, "value // right\nFile not found");
    assert!(s.failed);
    assert_eq!(s.duration_s, Some(0.5));
    assert_eq!(
        (s.usage.tokens_in, s.usage.tokens_out),
        (Some(100), Some(15))
    );
    assert_eq!(s.usage.cost, Some(0.002));
    // A part file opens the same session.
    let part = dir.path().join("storage/part/msg_02/prt_02.json");
    let from_part = parse(&part, &std::fs::read(&part).unwrap())
        .unwrap()
        .remove(0);
    assert_eq!(from_part.steps.len(), 2);
}

#[test]
fn a_folder_walk_lists_each_session_once_and_no_parts() {
    let dir = tempfile::tempdir().unwrap();
    let first = storage(dir.path());
    let (found, failures) = discover(&[dir.path().to_path_buf()]);
    assert!(failures.is_empty());
    let paths: Vec<&Path> = found.iter().map(|c| c.path.as_path()).collect();
    assert_eq!(paths, [first.as_path()]);
}

#[test]
fn absurd_token_counts_saturate_instead_of_overflowing() {
    // The fuzzer's find (fuzz/artifacts/opencode/crash-cc856d5d…): output + reasoning
    // overflowed u64 and panicked in debug builds.
    let message = serde_json::json!({
        "id": "msg_0009", "sessionID": "ses_9", "role": "assistant",
        "time": {"created": 1767600060000_u64, "completed": 1767600063000_u64},
        "tokens": {"input": u64::MAX, "output": 40, "reasoning": u64::MAX,
                   "cache": {"read": u64::MAX, "write": 1}}
    });
    let bytes = serde_json::to_vec(&message).unwrap();
    let ts = parse(Path::new("storage/message/ses_9/msg_0009.json"), &bytes).unwrap();
    let usage = ts[0].total_usage();
    assert_eq!(usage.tokens_in, Some(u64::MAX));
    assert_eq!(usage.tokens_out, Some(u64::MAX));
    // The fuzzer's input itself, byte for byte: a count beyond u64 reads as its maximum.
    let found = r#"{
  "id": "msg_0009Doquq2jQ",
  "sessionID": "ses_9Eh8cDJMtXC2bi1GM7sQJeFv9K",
  "role": "assistant",
  "time": {
    "created": 1767600060000,
    "completed": 1767600063000
  },  "tokens": {
    "input": 200,
    "output": 40,
    "reasoning": 777777777777777777777777777777777777777777770,
    "cache": {
      "read": 9000,
      "write": 0
    }
  }
}
"#;
    let ts = parse(
        Path::new("storage/message/ses_1/msg_01.json"),
        found.as_bytes(),
    )
    .unwrap();
    assert_eq!(ts[0].total_usage().tokens_out, Some(u64::MAX));
}
