//! A SWE-agent file opened lazily (what the TUI does above `LAZY_ABOVE`) shows the same
//! steps, header and exact contexts as the file read whole, on every SWE-agent file of the
//! samples and of the corpus; a file that changes after it was opened is refused, not
//! misread; a truncated or broken file is named with the step and byte that failed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, discover, load_file, open_lazy};
use trajscope::model::{Format, Step, Trajectory};

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// The SWE-agent files under `root` that have `trajectory[]` steps.
fn swe_agent_files(root: &Path) -> Vec<(PathBuf, Trajectory)> {
    let (files, _) = discover(&[root.to_path_buf()]);
    files
        .into_iter()
        .filter_map(|f| match load_file(&f.path) {
            Ok(Loaded::Trajectories(mut ts))
                if ts.len() == 1
                    && ts[0].format == Format::SweAgent
                    // History-only files (a YAML demonstration among them) have no steps
                    // for a lazy open to index.
                    && !ts[0]
                        .format_detail
                        .as_deref()
                        .is_some_and(|d| d.starts_with("history only")) =>
            {
                Some((f.path, ts.remove(0)))
            }
            _ => None,
        })
        .collect()
}

fn same_texts(a: &Step, b: &Step, what: &str) {
    assert_eq!(a.index, b.index, "{what}");
    assert_eq!(a.thought, b.thought, "{what}: thought");
    assert_eq!(a.action, b.action, "{what}: action");
    assert_eq!(a.observation, b.observation, "{what}: observation");
    assert_eq!(a.response, b.response, "{what}: response");
    assert_eq!(a.duration_s, b.duration_s, "{what}: duration");
    assert_eq!(a.is_error(), b.is_error(), "{what}: error mark");
}

fn check(path: &Path, full: &Trajectory) -> usize {
    let shown = path.display();
    let mut seen = Vec::new();
    let lazy = open_lazy(path, &mut |s| seen.push(s))
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap_or_else(|| panic!("{shown}: not opened lazily"));
    assert!(lazy.steps.is_empty() && lazy.messages.is_empty(), "{shown}");
    assert_eq!(lazy.step_count(), full.steps.len(), "{shown}");
    assert_eq!(seen.len(), full.steps.len(), "{shown}");
    assert_eq!(lazy.exit_status, full.exit_status, "{shown}");
    assert_eq!(lazy.submission, full.submission, "{shown}");
    assert_eq!(lazy.usage, full.usage, "{shown}");
    assert_eq!(lazy.model, full.model, "{shown}");
    assert_eq!(lazy.task, full.task, "{shown}");
    assert_eq!(lazy.format_detail, full.format_detail, "{shown}");
    let mut walked = Vec::new();
    lazy.visit_steps(|s| {
        walked.push(s.clone());
        true
    })
    .unwrap();
    assert_eq!(
        walked.len(),
        full.steps.len(),
        "{shown}: the walk reads every step"
    );
    for (read, whole) in walked.iter().zip(&full.steps) {
        same_texts(
            read,
            whole,
            &format!("{shown} step {}, walked", whole.index),
        );
    }
    for (scanned, whole) in seen.iter().zip(&full.steps) {
        let what = format!("{shown} step {}", whole.index);
        same_texts(scanned, whole, &what);
        if whole.tool_calls.is_empty() {
            assert_eq!(scanned.tool, whole.tool, "{what}: tool");
        }
        // The answer that made the step is kept beside it in 1.0 (its own `messages`) and
        // 1.1+ (the next step's `query`), but for the last 1.1+ step.
        let answered = match full.format_detail.as_deref() {
            Some("1.0") => true,
            Some("1.1+") => whole.index < full.steps.len(),
            _ => false,
        };
        let one = lazy.load_step(whole.index).unwrap();
        assert_eq!(one.step_count(), full.steps.len());
        let read = one.step(whole.index).unwrap();
        same_texts(read, whole, &format!("{what}, read back"));
        if answered {
            for (got, how) in [(scanned, "scanned"), (read, "read back")] {
                assert_eq!(got.tool, whole.tool, "{what}, {how}: tool");
                assert_eq!(got.tool_calls, whole.tool_calls, "{what}, {how}: calls");
                assert_eq!(got.agent, whole.agent, "{what}, {how}: agent");
            }
        }
        let exact = |t: &Trajectory, s: &Step| -> Vec<(String, String)> {
            s.context_messages(&t.messages)
                .iter()
                .map(|m| (m.role.as_str().to_string(), m.content.clone()))
                .collect()
        };
        match whole.context.as_ref().map(|c| c.exactness) {
            Some(trajscope::model::Exactness::Exact) => {
                assert_eq!(exact(&one, read), exact(full, whole), "{what}: context");
            }
            _ => assert!(read.context.is_none(), "{what}: no context is invented"),
        }
    }
    full.steps.len()
}

#[test]
fn samples_open_lazily_as_they_read_whole() {
    let files = swe_agent_files(&samples());
    assert!(files.len() >= 2, "the samples have SWE-agent files");
    let steps: usize = files.iter().map(|(p, t)| check(p, t)).sum();
    assert!(steps > 10);
    assert!(
        files
            .iter()
            .any(|(_, t)| t.format_detail.as_deref() == Some("1.1+")),
        "a sample keeps exact contexts in `query`"
    );
}

#[test]
fn corpus_opens_lazily_as_it_reads_whole() {
    let Some(root) = corpus::corpus("") else {
        return;
    };
    let files = swe_agent_files(&root);
    assert!(files.len() >= 5, "the corpus has SWE-agent files");
    let mut details = std::collections::BTreeSet::new();
    for (path, full) in &files {
        check(path, full);
        details.insert(full.format_detail.clone().unwrap_or_default());
    }
    // 0.x and 1.0 (the samples have 1.1+): reconstructed and exact contexts both compared.
    assert!(details.len() >= 2, "{details:?}");
}

#[test]
fn a_history_only_file_is_left_to_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.traj");
    let history = r#"{"trajectory": [], "history": [{"role": "user", "content": "ISSUE"},
        {"role": "assistant", "content": "ls", "action": "ls"}], "info": {}}"#;
    std::fs::write(&path, history).unwrap();
    assert!(open_lazy(&path, &mut |_| {}).unwrap().is_none());
    assert!(matches!(load_file(&path), Ok(Loaded::Trajectories(ts)) if ts[0].steps.len() == 1));
}

#[test]
fn other_formats_are_left_to_the_whole_read() {
    let (files, _) = discover(&[samples().join("mini-swe-agent")]);
    let file = &files.first().expect("a mini-swe-agent sample").path;
    assert!(open_lazy(file, &mut |_| {}).unwrap().is_none());
}

#[test]
fn a_changed_file_is_refused_and_a_broken_one_named() {
    let dir = tempfile::tempdir().unwrap();
    let (source, _) = swe_agent_files(&samples()).remove(0);
    let bytes = std::fs::read(&source).unwrap();
    let path = dir.path().join("copy.traj");
    std::fs::write(&path, &bytes).unwrap();
    let lazy = open_lazy(&path, &mut |_| {}).unwrap().unwrap();
    assert!(lazy.load_step(1).is_ok());
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"\n\n");
    std::fs::write(&path, &longer).unwrap();
    let err = lazy.load_step(1).unwrap_err();
    assert!(
        err.contains("copy.traj") && err.contains("changed"),
        "{err}"
    );

    // Cut inside the steps: the scan says the file is truncated, naming it.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let cut = text.find("\"observation\"").unwrap() + 20;
    std::fs::write(&path, &bytes[..cut]).unwrap();
    let err = open_lazy(&path, &mut |_| {}).unwrap_err().to_string();
    assert!(
        err.contains("copy.traj") && err.contains("truncated"),
        "{err}"
    );

    // A step that is not valid JSON: named by its number and byte.
    let broken = text.replacen("\"observation\":", "\"observation\": nul, \"x\":", 1);
    std::fs::write(&path, broken.as_bytes()).unwrap();
    let err = open_lazy(&path, &mut |_| {}).unwrap_err().to_string();
    assert!(
        err.contains("copy.traj") && err.contains("step 1 (at byte"),
        "{err}"
    );
}
