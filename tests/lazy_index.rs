//! The lazy open's index of a long log of each format whose reader lets steps go as they
//! finish while keeping the message pool (Codex, Kimi CLI, Copilot CLI, droid, Hugging Face
//! traces, chat logs as JSON Lines and as a list, mini-swe-agent in both modes, Cursor,
//! Gemini CLI documents and JSON Lines): built record by record, each step packed
//! as its reader lets it go, it gives the whole read's steps, contexts and message pool at
//! every slimming threshold. `show --step N [--context]` of such a file opened lazily
//! prints what it prints of the file read whole. The start of such a file opens with the
//! steps its reader has let go, each the whole read's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/long_logs.rs"]
mod long_logs;

use serde_json::Value;
use std::path::Path;
use trajscope::formats::{
    Detail, Loaded, SLIM_ABOVE, load_file, open_bounded, open_first, open_lazy, read_bounded,
};
use trajscope::model::{Format, Step, Trajectory};

fn whole(path: &Path) -> Trajectory {
    match load_file(path).unwrap() {
        Loaded::Trajectories(mut ts) => {
            assert_eq!(ts.len(), 1);
            ts.remove(0)
        }
        Loaded::Results(_) => panic!("not a trajectory"),
    }
}

/// Everything of a trajectory but its steps and pool, as JSON.
fn header(t: &Trajectory) -> Value {
    let mut copy = t.clone();
    copy.steps.clear();
    copy.messages.clear();
    copy.lazy = None;
    serde_json::to_value(copy).unwrap()
}

fn check(path: &Path, format: Format) {
    let shown = path.display();
    let full = whole(path);
    assert_eq!(full.format, format, "{shown}");
    assert!(
        full.steps.len() > 200,
        "{shown}: {} steps, too few to be let go while reading",
        full.steps.len()
    );
    assert!(
        full.steps.iter().any(|s| s.context.is_some()),
        "{shown}: steps with contexts"
    );
    for threshold in [8, 64, SLIM_ABOVE] {
        // Every step and the pool, read back from the packed index.
        let held = read_bounded(path, threshold, Detail::Full)
            .unwrap()
            .expect("read in bounded memory");
        assert_eq!(held.len(), 1, "{shown}");
        let held = &held[0];
        assert_eq!(held.steps.len(), full.steps.len(), "{shown} at {threshold}");
        for (got, want) in held.steps.iter().zip(&full.steps) {
            assert_eq!(got, want, "{shown} at {threshold}: step {}", want.index);
        }
        assert!(
            held.messages == full.messages,
            "{shown} at {threshold}: the message pool"
        );
        assert_eq!(header(held), header(&full), "{shown} at {threshold}");
        // One step at a time, as the app shows it: its context's messages read back.
        let lazy = open_bounded(path, threshold).unwrap().unwrap().remove(0);
        assert_eq!(lazy.step_count(), full.steps.len());
        for (i, want) in full.steps.iter().enumerate().step_by(7) {
            let one = lazy.load_step(i + 1).unwrap();
            assert_eq!(
                &one.steps[0],
                want,
                "{shown} at {threshold}: step {}",
                i + 1
            );
            let context = want.context_messages(&full.messages);
            assert!(!context.is_empty() || want.context.is_none());
            assert_eq!(
                one.steps[0].context_messages(&one.messages),
                context,
                "{shown} at {threshold}: step {}'s context",
                i + 1
            );
        }
    }
}

/// A later record may still change a step read before it (a token count, a cancellation, a
/// tool answer by id), so a part of the file gives only the steps its reader has let go:
/// each is the whole read's, context included, wherever the part ends. The file's first
/// steps then come long before its whole index.
fn check_first(path: &Path) {
    let shown = path.display();
    let full = whole(path);
    let size = std::fs::metadata(path).unwrap().len();
    let mut partial = 0;
    for start in [4096, size / 10, size / 3, size / 2 + 17] {
        let first = open_first(path, 1, start, &mut |_| {}).unwrap().unwrap();
        let lazy = first.lazy.as_ref().unwrap();
        let count = first.step_count();
        assert!(count <= full.steps.len(), "{shown} from {start}");
        if !lazy.is_complete() {
            partial += 1;
            assert!(count < full.steps.len(), "{shown} from {start}");
        }
        for i in 1..=count {
            let one = first.load_step(i).unwrap();
            let want = &full.steps[i - 1];
            assert_eq!(&one.steps[0], want, "{shown} from {start}: step {i}");
            assert_eq!(
                one.steps[0].context_messages(&one.messages),
                want.context_messages(&full.messages),
                "{shown} from {start}: step {i}'s context"
            );
        }
    }
    assert!(partial >= 2, "{shown}: opened from a part at most once");
}

fn lines(name: &str, records: &[Value], format: Format) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    long_logs::write_lines(&path, records);
    check(&path, format);
    check_first(&path);
}

#[test]
fn a_long_codex_rollout_indexed_record_by_record_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_logs::long_codex(&path, 40);
    check(&path, Format::Codex);
    check_first(&path);
}

#[test]
fn a_long_kimi_wire_log_indexed_record_by_record_equals_the_whole_read() {
    lines(
        "kimi-long.jsonl",
        &long_logs::long_wire(60),
        Format::KimiCli,
    );
}

#[test]
fn a_long_copilot_session_indexed_record_by_record_equals_the_whole_read() {
    lines(
        "events.jsonl",
        &long_logs::long_copilot(60),
        Format::CopilotCli,
    );
}

#[test]
fn a_long_droid_stream_indexed_record_by_record_equals_the_whole_read() {
    lines(
        "droid-long.jsonl",
        &long_logs::long_droid(60),
        Format::Droid,
    );
}

#[test]
fn a_long_hf_trace_indexed_record_by_record_equals_the_whole_read() {
    lines(
        "trace-long.jsonl",
        &long_logs::long_trace(60),
        Format::HfTrace,
    );
}

#[test]
fn a_long_chat_log_indexed_record_by_record_equals_the_whole_read() {
    let messages = long_logs::long_chat(80);
    lines("chat-long.jsonl", &messages, Format::ChatMessages);
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("chat-long.json");
    std::fs::write(&list, serde_json::to_string_pretty(&messages).unwrap()).unwrap();
    check(&list, Format::ChatMessages);
    check_first(&list);
}

/// Only the step a later record may still change (the last one read) waits for the rest of
/// the file: the start of a mini-swe-agent trajectory gives its first steps as the whole
/// index has them.
fn check_part(path: &Path) {
    let shown = path.display();
    let full = whole(path);
    let first = open_first(path, 3, 4096, &mut |_| {}).unwrap().unwrap();
    assert!(
        !first.lazy.as_ref().unwrap().is_complete(),
        "{shown}: its start opened"
    );
    assert!(
        (3..full.steps.len()).contains(&first.step_count()),
        "{shown}"
    );
    for i in 1..=first.step_count() {
        let one = first.load_step(i).unwrap();
        assert_eq!(one.steps[0], full.steps[i - 1], "{shown}: step {i}");
    }
}

#[test]
fn a_long_mini_swe_agent_trajectory_indexed_record_by_record_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.traj.json");
    long_logs::long_mini(&path, 30);
    check(&path, Format::MiniSweAgent);
    check_part(&path);
    let text = dir.path().join("text.traj.json");
    long_logs::long_mini_text(&text, 30);
    check(&text, Format::MiniSweAgent);
    check_part(&text);
    // The index holds long texts as the places they sit in the file, the thought and the
    // answer made of a long answer too: the rows show them cut.
    let mut rows = Vec::new();
    open_lazy(&text, &mut |step| rows.push(step))
        .unwrap()
        .unwrap();
    let cut = |text: fn(&Step) -> &str| {
        rows.iter()
            .filter(|s| text(s).contains("more bytes in the file"))
            .count()
    };
    assert!(
        cut(|s| &s.observation) > 10,
        "long observations left in the file"
    );
    assert!(cut(|s| &s.thought) > 10, "long thoughts left in the file");
    assert!(cut(|s| &s.response) > 10, "long answers left in the file");
    // A bare message list.
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&text).unwrap()).unwrap();
    let list = dir.path().join("list.traj.json");
    std::fs::write(
        &list,
        serde_json::to_string_pretty(&doc["messages"]).unwrap(),
    )
    .unwrap();
    check(&list, Format::MiniSweAgent);
}

#[test]
fn a_long_cursor_transcript_indexed_record_by_record_equals_the_whole_read() {
    lines(
        "0b9e-long.jsonl",
        &long_logs::long_cursor(60),
        Format::Cursor,
    );
}

#[test]
fn a_long_gemini_cli_session_indexed_record_by_record_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    // The session's fields first, as gemini-cli writes them (a part that has not reached
    // `sessionId` does not say it is a Gemini session).
    let mut fields = long_logs::gemini_sample();
    fields.as_object_mut().unwrap().remove("messages");
    let fields = fields.to_string();
    let messages = serde_json::to_string_pretty(&long_logs::long_gemini(60)).unwrap();
    let path = dir.path().join("session-long.json");
    let text = format!(
        "{},\n\"messages\": {messages}\n}}\n",
        &fields[..fields.len() - 1]
    );
    std::fs::write(&path, text).unwrap();
    check(&path, Format::GeminiCli);
    check_first(&path);
    // The JSON Lines variant, each model message re-written with its results, some of them
    // 40 messages later.
    let jsonl = dir.path().join("session-long.jsonl");
    let delay = |n: usize| if n % 7 == 3 { 40 } else { 0 };
    std::fs::write(
        &jsonl,
        long_logs::gemini_jsonl(&long_logs::long_gemini(60), delay),
    )
    .unwrap();
    check(&jsonl, Format::GeminiCli);
    check_first(&jsonl);
}

/// `show --step N [--context]` of `path` opened lazily (every file is big at
/// `TRAJSCOPE_LAZY_ABOVE_MB=0`) prints the step and its context as the whole read does.
fn show_agrees(path: &Path, step: usize) {
    let dir = path.parent().unwrap();
    let show = |lazy_above: &str, context: bool| {
        let mut command = cli::isolated(dir);
        command
            .env(trajscope::formats::LAZY_ENV, lazy_above)
            .args(["show", "--step", &step.to_string()])
            .args(context.then_some("--context"))
            .arg(path);
        cli::stdout_of(&mut command)
    };
    let shown = path.display();
    let (lazy, whole) = (show("0", true), show("100000", true));
    assert!(
        lazy.contains(&format!("Context at step {step}")),
        "{shown}: {lazy}"
    );
    assert_eq!(lazy, whole, "{shown}");
    let (lazy, whole) = (show("0", false), show("100000", false));
    assert!(lazy.contains(&format!("Step {step}/")), "{shown}: {lazy}");
    assert_eq!(lazy, whole, "{shown}");
}

/// A big rollout is opened from its start (its first steps as the whole index has them).
#[test]
fn show_of_a_big_rollout_reads_its_start_and_prints_the_whole_reads_context() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_logs::long_codex(&path, 40);
    show_agrees(&path, 150);
}

/// The same of a mini-swe-agent trajectory (opened from its start), a Cursor transcript
/// and a Gemini CLI session (whose whole index is built first).
#[test]
fn show_of_big_mini_cursor_and_gemini_files_prints_what_the_whole_read_prints() {
    let dir = tempfile::tempdir().unwrap();
    let mini = dir.path().join("text.traj.json");
    long_logs::long_mini_text(&mini, 30);
    show_agrees(&mini, 150);
    let cursor = dir.path().join("0b9e-long.jsonl");
    long_logs::write_lines(&cursor, &long_logs::long_cursor(60));
    show_agrees(&cursor, 150);
    let gemini = dir.path().join("session-long.jsonl");
    let delay = |n: usize| if n % 7 == 3 { 40 } else { 0 };
    std::fs::write(
        &gemini,
        long_logs::gemini_jsonl(&long_logs::long_gemini(60), delay),
    )
    .unwrap();
    show_agrees(&gemini, 150);
}
