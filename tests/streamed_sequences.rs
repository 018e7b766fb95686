//! Sequence rules whose steps lie far apart in a file read in bounded memory: a chat log of
//! thousands of steps where an edit's `not_followed_by` window stays open for 700 steps,
//! `ls` repeats 600 times in a row and errors come in long runs, so that every decision is
//! made long after the steps it reads were let go (the reader holds at most 512). `stats`'
//! tally of the visited steps (`tally_visited`) and the badges of the lazily opened file
//! (`StepBadges::scan_lazily`, what `export` of a big file puts on its steps) equal the
//! whole read's. The badges are also compared on every sample and corpus file that opens
//! lazily, under the default rules, every pack and the rules below.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/rule_sets.rs"]
mod rule_sets;

use serde_json::json;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, discover, load_file, open_revisited};
use trajscope::metrics::{Matcher, TrajectoryTally, tally_visited};
use trajscope::model::Trajectory;
use trajscope::present::StepBadges;

const RULES: &str = r#"
[[rule]]
name = "an_edit"
field = "action"
pattern = "sed -i"

[[rule]]
name = "a_test"
field = "action"
pattern = "pytest"

[[rule]]
name = "a_submit"
field = "action"
pattern = "git diff"

[[rule]]
name = "a_failure"
field = "observation"
pattern = "FAILED"

[[rule]]
name = "untested_far"
matches = "an_edit"
not_followed_by = "a_test"
before = "a_submit"

[[rule]]
name = "never_tested"
matches = "an_edit"
not_followed_by = "a_test"

[[rule]]
name = "listing_loop"
repeat = 400

[[rule]]
name = "same_listing"
repeat = 50
same_observation = true

[[rule]]
name = "failures_in_a_row"
matches = "a_failure"
in_a_row = 150

[[rule]]
name = "failure_after_edit"
matches = "a_failure"
after = "an_edit"
"#;

/// One call and its answer, as a chat log writes them.
fn cycle(out: &mut Vec<serde_json::Value>, n: usize, command: &str, output: &str) {
    let id = format!("call_{n}");
    out.push(json!({
        "role": "assistant",
        "content": format!("step {n}"),
        "tool_calls": [{"id": id, "type": "function",
            "function": {"name": "bash", "arguments": json!({"command": command}).to_string()}}],
    }));
    out.push(json!({"role": "tool", "tool_call_id": id, "content": output}));
}

/// A chat log whose sequence rules span many more steps than the bounded read holds.
fn far_apart(dir: &Path) -> PathBuf {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Fix the division."}),
    ];
    let mut n = 0;
    let mut add = |messages: &mut Vec<_>, command: &str, output: &str| {
        n += 1;
        cycle(messages, n, command, output);
    };
    for round in 0..3 {
        // Edits whose windows stay open 700 steps: the first round's reach a test, the
        // others a submit untested.
        add(&mut messages, "sed -i 's/a/b/' calc.py", "ok");
        add(&mut messages, "sed -i 's/c/d/' calc.py", "FAILED edit");
        for k in 0..700 {
            // The same listing 500 times (its output changing every 100th time), then 200
            // failures in a row.
            let (command, output) = match k {
                0..500 => ("ls", format!("page {}", k / 100)),
                _ => ("python run.py", "FAILED again".to_string()),
            };
            add(&mut messages, command, &output);
        }
        if round == 0 {
            add(&mut messages, "pytest -x", "1 passed");
        }
        add(&mut messages, "git diff", "diff --git a/calc.py b/calc.py");
    }
    // A last edit no submit follows.
    add(&mut messages, "sed -i 's/e/f/' calc.py", "ok");
    let path = dir.join("far.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    for m in messages {
        writeln!(file, "{m}").unwrap();
    }
    path
}

fn whole(path: &Path) -> Vec<Trajectory> {
    match load_file(path) {
        Ok(Loaded::Trajectories(ts)) => ts,
        _ => Vec::new(),
    }
}

/// Compares the lazy badges of `path` with the whole read's under every matcher; false when
/// the file does not open so.
fn badges_equal(path: &Path, matchers: &[(String, Matcher)]) -> bool {
    let Ok(Some(lazy)) = open_revisited(path, 8) else {
        return false;
    };
    let whole = whole(path);
    assert_eq!(whole.len(), 1, "{}", path.display());
    for (name, matcher) in matchers {
        let (got, walked) = StepBadges::scan_lazily(matcher, &lazy, None);
        walked.unwrap();
        let want = StepBadges::scan(matcher, &whole[0], None);
        for step in 1..=whole[0].steps.len() {
            assert_eq!(
                got.at(step),
                want.at(step),
                "{} ({name}): step {step}",
                path.display()
            );
        }
        assert_eq!(got, want, "{} ({name})", path.display());
    }
    true
}

#[test]
fn sequences_decided_long_after_their_steps_were_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let path = far_apart(dir.path());
    let matchers = rule_sets::matchers("far", RULES);
    let full = whole(&path).remove(0);
    assert_eq!(full.steps.len(), 2111);
    for (name, matcher) in &matchers {
        let (tally, _) = tally_visited(&path, matcher).unwrap().unwrap();
        assert_eq!(tally, TrajectoryTally::of(matcher, &full), "{name}");
    }
    // Under the rules above, each sequence rule found steps, the untested edits 700 steps
    // before the submit that decided them.
    let (_, matcher) = matchers.last().unwrap();
    let (tally, _) = tally_visited(&path, matcher).unwrap().unwrap();
    let steps_of = |rule: &str| -> Vec<u32> {
        let id = matcher.id(rule).unwrap();
        tally
            .hits
            .iter()
            .filter(|h| h.rule == id)
            .map(|h| h.step)
            .collect()
    };
    // Steps: edits 1-2, the loop 3-702, pytest 703, submit 704; edits 705-706, loop,
    // submit 1407; edits 1408-1409, loop, submit 2110; a last edit 2111.
    assert_eq!(steps_of("untested_far"), vec![705, 706, 1408, 1409]);
    assert_eq!(steps_of("never_tested"), vec![705, 706, 1408, 1409, 2111]);
    assert_eq!(steps_of("failure_after_edit"), vec![2, 706, 1409]);
    // The 400th to 500th listing of each round.
    assert_eq!(steps_of("listing_loop").len(), 3 * 101);
    assert_eq!(steps_of("listing_loop")[0], 2 + 400);
    // The 50th to 100th of each page of listings, and of the 200 same failures.
    assert_eq!(steps_of("same_listing").len(), 3 * (5 * 51 + 151));
    assert_eq!(steps_of("failures_in_a_row").len(), 3 * 51);
    assert_eq!(steps_of("failures_in_a_row")[0], 2 + 500 + 150);
    assert!(badges_equal(&path, &matchers));
}

#[test]
fn lazy_badges_equal_the_whole_reads_on_samples_and_corpus() {
    let matchers = rule_sets::matchers("far", RULES);
    let mut roots = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")];
    roots.extend(corpus::corpus(""));
    let mut compared = 0;
    for root in roots {
        let (files, _) = discover(&[root]);
        for file in files {
            compared += usize::from(badges_equal(&file.path, &matchers));
        }
    }
    assert!(compared > 0, "no file opened lazily");
}
