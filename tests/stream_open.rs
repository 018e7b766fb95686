//! Every JSON and JSON Lines file of the samples and the corpus read in bounded memory (the
//! slim read behind the lazy open of big files, forced here with a low threshold) gives what
//! the whole read gives: the same trajectories, headers, steps (read back one by one, walked,
//! and read back all at once), message pools and contexts; the steps a tally visits, each
//! let go by its reader as it finishes, and the summaries counted from them. A torn last line is reported with
//! the file and line, as the whole read reports it; a file changed after it was opened is
//! refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/visited.rs"]
mod visited;

use std::io::Write;
use std::path::{Path, PathBuf};
use trajscope::formats::{
    Detail, Loaded, bounded_summaries, discover, load_file, open_bounded, read_bounded,
    visit_bounded,
};
use trajscope::model::{Format, Trajectory, TrajectorySummary};

fn samples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
}

/// The JSON and JSON Lines trajectory files under `root`, each with its whole read.
fn json_files(root: &Path) -> Vec<(PathBuf, Vec<Trajectory>)> {
    let (files, _) = discover(&[root.to_path_buf()]);
    files
        .into_iter()
        .filter(|f| {
            let head = std::fs::read(&f.path).unwrap_or_default();
            matches!(
                head.iter().find(|b| !b.is_ascii_whitespace()),
                Some(b'{' | b'[')
            )
        })
        .filter_map(|f| match load_file(&f.path) {
            Ok(Loaded::Trajectories(ts)) => Some((f.path, ts)),
            _ => None,
        })
        .collect()
}

/// Where two values first differ, for a failure message a person can read.
fn difference(a: &impl serde::Serialize, b: &impl serde::Serialize) -> String {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, at: String) -> Option<String> {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys()) {
                    let (p, q) = (
                        x.get(key).unwrap_or(&Value::Null),
                        y.get(key).unwrap_or(&Value::Null),
                    );
                    if let Some(found) = walk(p, q, format!("{at}.{key}")) {
                        return Some(found);
                    }
                }
                None
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| walk(p, q, format!("{at}[{i}]"))),
            (Value::String(x), Value::String(y)) if x != y => {
                let common = x.chars().zip(y.chars()).take_while(|(c, d)| c == d).count();
                let from = common.saturating_sub(40);
                let cut = |s: &str| s.chars().skip(from).take(120).collect::<String>();
                Some(format!(
                    "{at}: from char {from}: got {:?}, want {:?}",
                    cut(x),
                    cut(y)
                ))
            }
            _ if a != b => Some(format!("{at}: got {a}, want {b}")),
            _ => None,
        }
    }
    let (a, b) = (
        serde_json::to_value(a).unwrap(),
        serde_json::to_value(b).unwrap(),
    );
    walk(&a, &b, String::new()).unwrap_or_default()
}

/// Everything of a trajectory but its steps and pool, as JSON.
fn header(t: &Trajectory) -> serde_json::Value {
    let mut copy = t.clone();
    copy.steps.clear();
    copy.messages.clear();
    copy.lazy = None;
    serde_json::to_value(copy).unwrap()
}

fn check(path: &Path, whole: &[Trajectory], threshold: usize) -> usize {
    let shown = path.display();
    let Some(opened) = open_bounded(path, threshold).unwrap_or_else(|e| panic!("{e}")) else {
        // SWE-agent files open through their own scan (tests/lazy_open.rs); mini-swe-agent
        // and Inspect logs are read whole (their readers look inside long texts).
        let swe = whole.iter().all(|t| {
            matches!(
                t.format,
                Format::SweAgent | Format::MiniSweAgent | Format::InspectAi
            )
        });
        assert!(swe, "{shown}: not read as JSON");
        return 0;
    };
    assert_eq!(opened.len(), whole.len(), "{shown}");
    let mut steps = 0;
    for (lazy, full) in opened.iter().zip(whole) {
        assert!(lazy.steps.is_empty() && lazy.messages.is_empty(), "{shown}");
        let (got, want) = (header(lazy), header(full));
        assert!(got == want, "{shown}: header: {}", difference(&got, &want));
        assert_eq!(lazy.step_count(), full.steps.len(), "{shown}");
        for (i, want) in full.steps.iter().enumerate() {
            let one = lazy.load_step(i + 1).unwrap();
            if &one.steps[0] != want {
                panic!(
                    "{shown}: step {}: {}",
                    i + 1,
                    difference(&one.steps[0], want)
                );
            }
            if let Some(context) = &want.context {
                for id in context.ids(&full.messages) {
                    assert_eq!(
                        one.messages.get(id as usize),
                        full.messages.get(id as usize),
                        "{shown}: step {} context message {id}",
                        i + 1
                    );
                }
            }
        }
        let mut walked = Vec::new();
        lazy.visit_steps(|s| {
            walked.push(s.clone());
            true
        })
        .unwrap();
        assert_eq!(walked, full.steps, "{shown}: walk");
        steps += full.steps.len();
    }
    // A listing's summaries, counted step by step as they are read back.
    let summaries = bounded_summaries(path, threshold).unwrap().unwrap();
    let want: Vec<TrajectorySummary> = whole.iter().map(TrajectorySummary::of).collect();
    assert!(
        summaries == want,
        "{shown}: summaries: {}",
        difference(&summaries, &want)
    );
    // The steps a tally visits: each released by its reader as it finishes, never held.
    let mut visited = Vec::new();
    let header_only = visit_bounded(path, threshold, &mut |step| {
        visited.push(step);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{e}"));
    if let Some(visited_header) = header_only {
        let [full] = whole else {
            panic!("{shown}: one trajectory per visited file");
        };
        let want = visited::as_visited(&full.steps);
        assert!(
            visited == want,
            "{shown}: visited steps: {}",
            difference(&visited, &want)
        );
        assert!(visited_header.steps.is_empty(), "{shown}");
        let (got, want) = (header(&visited_header), header(full));
        assert!(
            got == want,
            "{shown}: visited header: {}",
            difference(&got, &want)
        );
    }
    let held = read_bounded(path, threshold, Detail::Full)
        .unwrap()
        .unwrap();
    for (held, full) in held.iter().zip(whole) {
        let steps = difference(&held.steps, &full.steps);
        assert!(
            held.steps == full.steps,
            "{shown}: read back whole: {steps}"
        );
        let pool = difference(&held.messages, &full.messages);
        assert!(
            held.messages == full.messages,
            "{shown}: pool read back whole: {pool}"
        );
        let (got, want) = (header(held), header(full));
        assert!(got == want, "{shown}: header read back whole");
    }
    steps
}

fn check_tree(root: &Path) {
    let files = json_files(root);
    assert!(!files.is_empty(), "{}: no JSON files", root.display());
    let mut steps = 0;
    for (path, whole) in &files {
        // Low thresholds slim nearly every string: what a 1 GB file's long strings go through.
        for threshold in [8, 64, trajscope::formats::SLIM_ABOVE] {
            steps += check(path, whole, threshold);
        }
    }
    assert!(steps > 0, "{}: no steps compared", root.display());
}

#[test]
fn samples_read_in_bounded_memory_equal_the_whole_read() {
    check_tree(&samples());
}

#[test]
fn corpus_read_in_bounded_memory_equals_the_whole_read() {
    let Some(root) = corpus::corpus("") else {
        return;
    };
    check_tree(&root);
}

#[test]
fn a_torn_last_line_is_reported_as_the_whole_read_reports_it() {
    let source = samples().join("claude-code");
    let (file, _) = json_files(&source)
        .into_iter()
        .find(|(p, _)| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let text = std::fs::read(&file).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let torn = dir.path().join("torn.jsonl");
    // Cut inside the last line's text: a writer stopped mid-write.
    let last = text[..text.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    let cut = last + (text.len() - last) / 2;
    std::fs::write(&torn, &text[..cut]).unwrap();
    let Loaded::Trajectories(whole) = load_file(&torn).unwrap() else {
        panic!("not trajectories");
    };
    let warned = |t: &Trajectory| {
        t.warnings
            .iter()
            .any(|w| w.contains(&format!("torn.jsonl:{}:", memchr_lines(&text[..cut]))))
    };
    assert!(warned(&whole[0]), "{:?}", whole[0].warnings);
    for threshold in [8, 64, 512] {
        let bounded = open_bounded(&torn, threshold).unwrap().unwrap();
        assert_eq!(
            bounded[0].warnings, whole[0].warnings,
            "threshold {threshold}"
        );
        assert_eq!(bounded[0].step_count(), whole[0].steps.len());
    }
}

/// The 1-based number of the last line of `bytes`.
fn memchr_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}

#[test]
fn a_file_changed_after_it_was_opened_is_refused() {
    let source = samples().join("claude-code");
    let (file, _) = json_files(&source)
        .into_iter()
        .find(|(p, _)| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("session.jsonl");
    std::fs::copy(&file, &copy).unwrap();
    let opened = open_bounded(&copy, 8).unwrap().unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&copy)
        .unwrap();
    f.write_all(b"{\"type\":\"summary\"}\n").unwrap();
    drop(f);
    let err = opened[0].load_step(1).unwrap_err();
    assert!(err.contains("changed since it was opened"), "{err}");
}

/// 64 MiB: the size from which a file is read in bounded memory.
const BIG: usize = 64 << 20;

fn run(args: &[&std::ffi::OsStr], budget: &str) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_trajscope"))
        .args(args)
        .env("TRAJSCOPE_MEMORY_BUDGET", budget)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn only_a_value_whose_structure_outgrows_the_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read(samples().join("claude-code/tinycalc__tinycalc-1.jsonl")).unwrap();
    let first = sample.split(|&b| b == b'\n').next().unwrap().to_vec();

    // A session whose last tool result is one 64 MiB string: far above a 16 MiB budget, but
    // only its structure is held, so one step of it shows.
    let mut long = sample.clone();
    let filler = "x".repeat(BIG);
    let mut record: serde_json::Value = serde_json::from_slice(&first).unwrap();
    record["type"] = "user".into();
    record["message"] = serde_json::json!({"role": "user", "content": filler});
    long.extend_from_slice(serde_json::to_string(&record).unwrap().as_bytes());
    long.push(b'\n');
    let long_path = dir.path().join("long.jsonl");
    std::fs::write(&long_path, &long).unwrap();
    let (ok, text) = run(
        &[
            "show".as_ref(),
            long_path.as_os_str(),
            "--step".as_ref(),
            "1".as_ref(),
        ],
        "16M",
    );
    assert!(ok, "{text}");

    // A line that is one huge structure (millions of numbers) cannot be held: refused, named.
    let mut wide = first.clone();
    wide.push(b'\n');
    wide.extend_from_slice(b"{\"type\": \"progress\", \"data\": [");
    while wide.len() < BIG {
        wide.extend_from_slice(b"1,2,3,4,5,6,7,8,9,");
    }
    wide.extend_from_slice(b"0]}\n");
    let wide_path = dir.path().join("wide.jsonl");
    std::fs::write(&wide_path, &wide).unwrap();
    let (ok, text) = run(
        &[
            "show".as_ref(),
            wide_path.as_os_str(),
            "--step".as_ref(),
            "1".as_ref(),
        ],
        "16M",
    );
    assert!(!ok, "{text}");
    assert!(
        text.contains("wide.jsonl") && text.contains("line 2"),
        "{text}"
    );
    assert!(text.contains("memory budget"), "{text}");
}
