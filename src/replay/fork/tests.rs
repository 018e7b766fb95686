#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::formats::{Loaded, load_file};
use crate::model::ToolCall;

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json",
    )
}

fn load(path: &Path) -> Trajectory {
    match load_file(path) {
        Ok(Loaded::Trajectories(mut t)) => t.remove(0),
        _ => panic!("{} does not load", path.display()),
    }
}

/// The sample copied into a scratch folder, loaded from there.
fn parent_in(dir: &Path) -> Trajectory {
    let path = dir.join("tinycalc__tinycalc-1.traj.json");
    std::fs::copy(sample(), &path).unwrap();
    load(&path)
}

fn origin(parent: &Trajectory, step: usize) -> ForkOrigin {
    ForkOrigin {
        parent: parent.path.clone(),
        step,
        backend: Some("local".into()),
        model: Some("smollm2".into()),
        settings: serde_json::json!({"api_key_env": "MY_KEY", "temperature": 0.0}),
    }
}

fn live(parent: &Trajectory, step: usize) -> LiveStep {
    let context: Vec<Message> = parent.steps[step - 1]
        .context_messages(&parent.messages)
        .into_iter()
        .cloned()
        .collect();
    let mut step = LiveStep::new(
        context,
        Message::assistant("THOUGHT: look\n\n```bash\nls\n```"),
    );
    step.replies = vec![Message::user(
        "<returncode>0</returncode>\n<output>\nx\n</output>",
    )];
    step.thought = "THOUGHT: look".into();
    step.action = "ls".into();
    step.observation = "<returncode>0</returncode>\n<output>\nx\n</output>".into();
    step
}

#[test]
fn a_fork_is_written_next_to_its_parent_and_loads_as_a_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let before = std::fs::read(&parent.path).unwrap();
    let mut writer = ForkWriter::create(&parent, 3, origin(&parent, 3), "continue").unwrap();
    assert_eq!(
        writer.path(),
        dir.path()
            .join("tinycalc__tinycalc-1.fork-k3-1.trajscope.json")
    );
    // Written at once: the prefix alone is a valid fork.
    let loaded = load(writer.path());
    assert_eq!(loaded.steps.len(), 2);
    assert_eq!(loaded.format, Format::Trajscope);

    let first = live(&parent, 3);
    let mut second = first.clone();
    writer.push_step(first.clone()).unwrap();
    second.context = writer.conversation().into_iter().cloned().collect();
    second.answer = Message::assistant("```bash\necho done\n```");
    writer.push_step(second.clone()).unwrap();
    writer.finish("Submitted", Some("patch".into())).unwrap();

    let fork = load(writer.path());
    assert_eq!(fork.steps.len(), 4);
    assert_eq!(fork.exit_status.as_deref(), Some("Submitted"));
    let origin = fork.fork.as_ref().unwrap();
    assert_eq!(origin.step, 3);
    assert_eq!(origin.parent, parent.path);
    // Each live step's context is exactly what was sent.
    let sent: Vec<Message> = fork.steps[3]
        .context_messages(&fork.messages)
        .into_iter()
        .cloned()
        .collect();
    assert_eq!(sent, second.context);
    assert_eq!(
        fork.steps[2].context_messages(&fork.messages).len(),
        first.context.len()
    );
    // The prefix keeps the parent's contexts.
    assert_eq!(
        fork.steps[1].context_messages(&fork.messages),
        parent.steps[1].context_messages(&parent.messages)
    );
    assert_eq!(std::fs::read(&parent.path).unwrap(), before);
    // No temporary file is left behind.
    let leftovers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().ends_with(".tmp")
        })
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn the_native_copy_loads_as_the_parent_format_and_is_not_counted_twice() {
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let mut writer = ForkWriter::create(&parent, 2, origin(&parent, 2), "continue").unwrap();
    writer.push_step(live(&parent, 2)).unwrap();
    writer.finish("LimitsExceeded", None).unwrap();
    let native = writer.native_path().unwrap().to_path_buf();
    assert!(native.starts_with(dir.path().join(".trajscope-native")));
    assert!(native.to_string_lossy().ends_with(".traj.json"));
    let loaded = load(&native);
    assert_eq!(loaded.format, Format::MiniSweAgent);
    // The conversation: the context at step 2 (system, task, one answer, one observation),
    // the live answer and its observation: three model calls.
    assert_eq!(loaded.steps.len(), 2);
    assert_eq!(loaded.steps[1].action.trim(), "ls");
    assert_eq!(loaded.exit_status.as_deref(), Some("LimitsExceeded"));
    let (found, _) = crate::formats::discover(&[dir.path().to_path_buf()]);
    assert_eq!(found.len(), 2, "the parent and the trajscope fork only");
}

#[test]
fn forks_never_replace_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let taken = dir
        .path()
        .join("tinycalc__tinycalc-1.fork-k2-1.trajscope.json");
    std::fs::write(&taken, "mine").unwrap();
    let a = ForkWriter::create(&parent, 2, origin(&parent, 2), "resample").unwrap();
    let b = ForkWriter::create(&parent, 2, origin(&parent, 2), "resample").unwrap();
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine");
    assert!(
        a.path()
            .ends_with("tinycalc__tinycalc-1.fork-k2-2.trajscope.json")
    );
    assert!(
        b.path()
            .ends_with("tinycalc__tinycalc-1.fork-k2-3.trajscope.json")
    );
}

#[test]
fn the_key_variable_is_named_but_no_key_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let parent = parent_in(dir.path());
    let mut step = live(&parent, 2);
    step.answer.tool_calls = vec![ToolCall::new("bash", r#"{"command":"ls"}"#)];
    let mut writer = ForkWriter::create(&parent, 2, origin(&parent, 2), "resample").unwrap();
    writer.push_step(step).unwrap();
    let text = std::fs::read_to_string(writer.path()).unwrap();
    assert!(text.contains("MY_KEY"));
    assert!(!text.to_lowercase().contains("bearer"));
}

#[test]
fn stems_drop_trajectory_extensions() {
    assert_eq!(stem(Path::new("a/x.traj.json")), "x");
    assert_eq!(stem(Path::new("a/x.traj")), "x");
    assert_eq!(stem(Path::new("x.fork-k2-1.trajscope.json")), "x.fork-k2-1");
    assert_eq!(stem(Path::new("noext")), "noext");
}
