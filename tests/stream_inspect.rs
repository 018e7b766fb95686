//! Inspect `.json` logs read a sample at a time (issue 19): each sample cut from the file,
//! read back whole and made its trajectory by the whole read's code, then dropped. On every
//! Inspect `.json` of the samples and the corpus, and on generated logs of many samples whose
//! header keys come in several orders (before `samples`, after it, around it; pretty-printed
//! and on one line), the trajectories (steps, contexts, pools, headers, verdicts, warnings),
//! the listing's summaries and the tallies equal the whole read's, at thresholds 8, 64 and
//! 512, under a memory budget smaller than the generated file but larger than any of its
//! samples: the whole read, or the slim one, would not get through. A sample bigger than the
//! budget is refused by name while the others still read.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/cli.rs"]
mod cli;
#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/rule_sets.rs"]
mod rule_sets;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use trajscope::formats::{
    BUDGET_ENV, Detail, Loaded, SLIM_ABOVE, bounded_summaries, load_bytes, open_bounded,
    open_inspect_log, read_bounded, visit_bounded,
};
use trajscope::metrics::{Matcher, TrajectoryTally, tally_samples};
use trajscope::model::{Format, Trajectory, TrajectorySummary};

const SAMPLE: &str = "sample-trajectories/inspect-ai/2025-03-17T10-00-00+00-00_tinycalc-swe_86KhjPLUTNeBL35abgajcV.json";
/// Smaller than each generated log, larger than any of its samples.
const BUDGET: u64 = 300 << 10;
/// Larger than any sample of the samples' and the corpus's logs.
const ROOMY: &str = "4M";

fn whole(path: &Path) -> Vec<Trajectory> {
    match load_bytes(path, &std::fs::read(path).unwrap()).unwrap() {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => panic!("{}: not trajectories", path.display()),
    }
}

fn first_difference(got: &[Trajectory], want: &[Trajectory]) -> String {
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        if a != b {
            let step = a.steps.iter().zip(&b.steps).position(|(x, y)| x != y);
            return format!(
                "trajectory {i} ({}): ids {} / {}, steps {} / {}, first differing step {step:?}, \
                 pools equal {}, warnings {:?} / {:?}",
                b.instance_id,
                a.instance_id,
                b.instance_id,
                a.steps.len(),
                b.steps.len(),
                a.messages == b.messages,
                a.warnings,
                b.warnings
            );
        }
    }
    format!("{} trajectories for {}", got.len(), want.len())
}

/// Checks the read a sample at a time of `path` against the whole read; returns its
/// trajectory count.
fn check(path: &Path, matchers: &[(String, Matcher)]) -> usize {
    let shown = path.display();
    let full = whole(path);
    assert!(
        full.iter().all(|t| t.format == Format::InspectAi),
        "{shown}"
    );
    for threshold in [8, 64, SLIM_ABOVE] {
        let held = read_bounded(path, threshold, Detail::Full)
            .unwrap_or_else(|e| panic!("{shown}, threshold {threshold}: {e}"))
            .unwrap_or_else(|| panic!("{shown}: not read a sample at a time"));
        assert!(
            held == full,
            "{shown}, threshold {threshold}: {}",
            first_difference(&held, &full)
        );
        let listed = read_bounded(path, threshold, Detail::Steps)
            .unwrap()
            .unwrap();
        assert_eq!(listed.len(), full.len(), "{shown}");
        for (got, want) in listed.iter().zip(&full) {
            assert!(got.messages.is_empty(), "{shown}: no pool at Detail::Steps");
            assert_eq!(got.steps.len(), want.steps.len(), "{shown}");
            for (a, b) in got.steps.iter().zip(&want.steps) {
                assert_eq!(a.context, None);
                let mut b = b.clone();
                b.context = None;
                assert_eq!(a, &b, "{shown}");
            }
        }
        let summaries = bounded_summaries(path, threshold)
            .unwrap_or_else(|| panic!("{shown}: no bounded summaries"))
            .unwrap();
        let want: Vec<TrajectorySummary> = full.iter().map(TrajectorySummary::of).collect();
        assert_eq!(summaries, want, "{shown}, threshold {threshold}");
        // Never the slim read (its reader compares whole texts), nor one trajectory's steps.
        assert!(open_bounded(path, threshold).unwrap().is_none(), "{shown}");
        assert!(
            visit_bounded(path, threshold, &mut |_| Ok(()))
                .unwrap()
                .is_none(),
            "{shown}"
        );
    }
    for (name, matcher) in matchers {
        let tallies = tally_samples(path, matcher)
            .unwrap_or_else(|| panic!("{shown}: not tallied a sample at a time"))
            .unwrap();
        assert_eq!(tallies.len(), full.len(), "{shown}");
        for ((tally, summary), t) in tallies.iter().zip(&full) {
            assert_eq!(tally, &TrajectoryTally::of(matcher, t), "{shown}: {name}");
            assert_eq!(summary, &TrajectorySummary::of(t), "{shown}: {name}");
        }
    }
    let log = open_inspect_log(path).unwrap().unwrap();
    assert_eq!(log.len(), full.len(), "{shown}");
    if let Some(last) = full.last() {
        assert_eq!(&log.trajectory(full.len() - 1).unwrap(), last, "{shown}");
    }
    full.len()
}

/// The sample log's document and its two samples.
fn template() -> (serde_json::Map<String, Value>, Vec<Value>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(SAMPLE);
    let mut doc: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let Some(Value::Array(samples)) = doc.remove("samples") else {
        panic!("the sample log has samples");
    };
    (doc, samples)
}

/// `count` samples of about 20 to 60 KB: the template's two in turn, fresh ids, their turns
/// repeated under fresh message ids, some tool outputs long; one in five fails its score, one
/// in seven is the previous one's second epoch, the fourth has no id, the sixth is not a
/// sample at all.
fn samples(count: usize, templates: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut previous = String::new();
    for i in 0..count {
        if i == 5 {
            out.push(json!("not a sample"));
            continue;
        }
        let mut sample = templates[i % templates.len()].clone();
        let base = sample["id"].as_str().unwrap().to_string();
        let second = i % 7 == 6;
        let id = if second {
            previous.clone()
        } else {
            format!("{base}-{i}")
        };
        previous = id.clone();
        sample["id"] = if i == 3 { Value::Null } else { json!(id) };
        sample["epoch"] = json!(if second { 2 } else { 1 });
        if let Some(scores) = sample["scores"].as_object_mut() {
            for score in scores.values_mut() {
                score["value"] = json!(if i % 5 == 4 { 0.0 } else { 1.0 });
            }
        }
        let messages = sample["messages"].as_array().unwrap().clone();
        let (head, turns) = messages.split_at(2);
        let mut grown: Vec<Value> = head.to_vec();
        for round in 0..(2 + i % 4) {
            for (k, m) in turns.iter().enumerate() {
                let mut m = m.clone();
                m["id"] = json!(format!("m-{i}-{round}-{k}"));
                if m["role"] == "tool" && (round + k) % 3 == 0 {
                    m["content"] = json!(format!(
                        "round {round}\n{}",
                        "FAILED tests/test_evaluator.py::test_case - AssertionError\n"
                            .repeat(60 + 40 * k)
                    ));
                }
                grown.push(m);
            }
        }
        sample["messages"] = json!(grown);
        out.push(sample);
    }
    out
}

/// The log with its top-level keys in `order` (`samples` among them), pretty-printed or on
/// one line.
fn write_log(
    path: &Path,
    doc: &serde_json::Map<String, Value>,
    samples: &[Value],
    order: &[&str],
    pretty: bool,
) {
    let text = |v: &Value| {
        if pretty {
            serde_json::to_string_pretty(v).unwrap()
        } else {
            serde_json::to_string(v).unwrap()
        }
    };
    let members: Vec<String> = order
        .iter()
        .map(|key| {
            let value = match *key {
                "samples" => json!(samples),
                other => doc[other].clone(),
            };
            format!("\"{key}\": {}", text(&value))
        })
        .collect();
    let joined = if pretty {
        format!("{{\n  {}\n}}\n", members.join(",\n  "))
    } else {
        format!("{{{}}}", members.join(", "))
    };
    std::fs::write(path, joined).unwrap();
}

fn set_budget(value: &str) {
    // SAFETY: this binary has this one test, and no other thread reads the environment yet.
    unsafe { std::env::set_var(BUDGET_ENV, value) };
}

#[test]
fn inspect_logs_read_a_sample_at_a_time_equal_the_whole_read() {
    let matchers = rule_sets::matchers("none", "");
    set_budget(ROOMY);
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(SAMPLE);
    assert_eq!(check(&sample, &matchers), 2);
    if let Some(root) = corpus::corpus("inspect-ai") {
        let mut files = 0;
        for entry in walk(&root) {
            if entry.extension().is_some_and(|e| e == "json") {
                check(&entry, &matchers);
                files += 1;
            }
        }
        assert!(files >= 8, "{files} Inspect logs in the corpus");
    }

    set_budget(&BUDGET.to_string());
    let (doc, templates) = template();
    let items = samples(16, &templates);
    let largest = items.iter().map(|s| s.to_string().len()).max().unwrap();
    assert!(largest < BUDGET as usize, "a sample of {largest} bytes");
    let dir = tempfile::tempdir().unwrap();
    let orders: [&[&str]; 3] = [
        &[
            "version",
            "status",
            "eval",
            "plan",
            "results",
            "stats",
            "samples",
            "reductions",
        ],
        &[
            "samples",
            "version",
            "status",
            "eval",
            "plan",
            "results",
            "stats",
            "reductions",
        ],
        &[
            "version",
            "plan",
            "samples",
            "eval",
            "status",
            "results",
            "stats",
            "reductions",
        ],
    ];
    for (n, order) in orders.iter().enumerate() {
        for pretty in [true, false] {
            let path = dir.path().join(format!("log-{n}-{pretty}.json"));
            write_log(&path, &doc, &items, order, pretty);
            let len = std::fs::metadata(&path).unwrap().len();
            assert!(
                len > 2 * BUDGET,
                "the log ({len} bytes) outgrows the budget"
            );
            assert_eq!(check(&path, &matchers), 15, "{}", path.display());
            let full = whole(&path);
            assert_eq!(full[3].instance_id, format!("log-{n}-{pretty}#4_epoch_1"));
            assert_eq!(full[5].instance_id, "tinycalc__tinycalc-1-4_epoch_2");
            assert!(
                full[0]
                    .warnings
                    .iter()
                    .any(|w| w == "sample 6: not a JSON object; skipped"),
                "{:?}",
                full[0].warnings
            );
            assert_eq!(full[4].resolved, Some(false));
            assert_eq!(full[0].model.as_deref(), Some("openai/gpt-4o-mini"));
        }
    }

    // `show` of one sample of a big log reads that sample, not the file (which the budget
    // would refuse whole).
    let path = dir.path().join("log-1-true.json");
    let home = tempfile::tempdir().unwrap();
    let shown = cli::json_of(
        cli::isolated(home.path())
            .env(BUDGET_ENV, BUDGET.to_string())
            .env("TRAJSCOPE_LAZY_ABOVE_MB", "0")
            .args(["show", "--json", "--trajectory", "8"])
            .arg(&path),
    );
    let read_whole = cli::json_of(
        cli::isolated(home.path())
            .env(BUDGET_ENV, "1G")
            .args(["show", "--json", "--trajectory", "8"])
            .arg(&path),
    );
    assert_eq!(shown["instance_id"], "tinycalc__tinycalc-1-8_epoch_1");
    assert!(shown == read_whole, "show --json of one sample differs");

    // A sample bigger than the budget is refused by name; the others still read.
    let mut big = items.clone();
    big[2]["messages"][3]["content"] = json!("x".repeat(BUDGET as usize));
    let path = dir.path().join("one-too-big.json");
    write_log(&path, &doc, &big, orders[0], true);
    let read = read_bounded(&path, SLIM_ABOVE, Detail::Full)
        .unwrap()
        .unwrap();
    assert_eq!(read.len(), 14);
    let refused = read[0]
        .warnings
        .iter()
        .find(|w| w.starts_with("sample 3 (id tinycalc__tinycalc-1-2): "))
        .unwrap_or_else(|| panic!("{:?}", read[0].warnings));
    assert!(
        refused.contains("memory budget") && refused.contains(BUDGET_ENV),
        "{refused}"
    );
    let path = dir.path().join("all-too-big.json");
    write_log(&path, &doc, &big[2..3], orders[1], false);
    let err = read_bounded(&path, SLIM_ABOVE, Detail::Full).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(&format!(
            "{}: sample 1 (id tinycalc__tinycalc-1-2): ",
            path.display()
        )) && message.contains("memory budget"),
        "{message}"
    );
}

/// Every file under `root`, in a stable order.
fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
