//! The raw-byte tally (`metrics::sparse_tally_file`, what `stats --no-cache` runs) gives the
//! same tallies as the exact path (the steps decoded, then scanned) rule by rule, on every
//! file of the corpus and of the samples, under the default rules, every built-in pack and a
//! rule file written to reach each corner: escaped characters in literals, case-insensitive
//! and ungated regexes, `unless`, conditions, classifiers and repeated observations.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/rule_sets.rs"]
mod rule_sets;

use std::path::{Path, PathBuf};
use trajscope::formats::{Detail, Loaded, discover, load_file_with};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, sparse_tally_file};

const CORNERS: &str = r#"
[[rule]]
name = "quoted"
pattern = '"returncode": 1'
field = "any"

[[rule]]
name = "two_lines"
pattern = "Error\nTraceback"

[[rule]]
name = "slash_path"
pattern = "/usr/lib/python3"
field = "observation"

[[rule]]
name = "backslash"
pattern = 'C:\Users'

[[rule]]
name = "nocase"
pattern = "permission denied"
ignore_case = true

[[rule]]
name = "thought_ungated"
pattern = '^\w{2}\b'
regex = true
field = "thought"

[[rule]]
name = "response_gated"
pattern = '(?:find_file|search_dir)\s+\S+'
regex = true
field = "response"

[[rule]]
name = "unicode"
pattern = "✓"
field = "any"

[[rule]]
name = "error_unless_warning"
pattern = "Error"
field = "any"
unless = "DeprecationWarning"

[[rule]]
name = "same_again"
repeat = 2
same_observation = true

[[rule]]
name = "error_in_tests"
pattern = "FAILED"
field = "observation"
when = { field = "action", prefix = "pytest" }

[[classifier]]
name = "kind"
[[classifier.case]]
when = { field = "thought", contains = "reproduce", ignore_case = true }
mode = "reproducing"
[[classifier.case]]
when = { field = "response", empty = true }
mode = "silent"

[[rule]]
name = "reproducing"
classifier = "kind"

[[rule]]
name = "silent"
classifier = "kind"
"#;

fn exact(path: &Path, matcher: &Matcher) -> Vec<TrajectoryTally> {
    match load_file_with(path, Detail::Steps) {
        Ok(Loaded::Trajectories(ts)) => {
            ts.iter().map(|t| TrajectoryTally::of(matcher, t)).collect()
        }
        other => panic!(
            "{}: the raw-byte tally read a file the exact path gives {other:?}",
            path.display()
        ),
    }
}

fn files() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")];
    roots.extend(corpus::corpus(""));
    discover(&roots).0.into_iter().map(|c| c.path).collect()
}

#[test]
fn raw_byte_tally_equals_the_exact_one_rule_by_rule() {
    let files = files();
    for (name, matcher) in rule_sets::matchers("corners", CORNERS) {
        let mut sparse = 0;
        for path in &files {
            let Some(fast) = sparse_tally_file(path, &matcher) else {
                continue;
            };
            sparse += 1;
            let slow = exact(path, &matcher);
            assert_eq!(fast.len(), slow.len(), "{name}: {}", path.display());
            for (f, s) in fast.iter().zip(&slow) {
                // Rule by rule first, so that a difference names the rule.
                for (id, rule) in matcher.rules().iter().enumerate() {
                    let hits = |t: &TrajectoryTally| {
                        t.hits
                            .iter()
                            .filter(|h| h.rule == id)
                            .map(|h| (h.step, h.matches))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(
                        hits(f),
                        hits(s),
                        "{name}: rule {} in {}",
                        rule.name,
                        path.display()
                    );
                }
                assert_eq!(f, s, "{name}: {}", path.display());
            }
        }
        // The samples hold one SWE-agent file that takes the raw path; the corpus, when
        // present, holds a hundred more (without it, as in a clone outside this machine's
        // layout, the samples alone are checked).
        let least = if corpus::corpus("").is_some() { 3 } else { 1 };
        assert!(
            sparse >= least,
            "{name}: only {sparse} files took the raw-byte tally"
        );
        eprintln!(
            "{name}: {sparse} of {} files tallied from raw bytes",
            files.len()
        );
    }
}

#[test]
fn the_swe_agent_corpus_takes_the_raw_byte_path() {
    let Some(root) = corpus::corpus("coder-swebench-lite") else {
        return;
    };
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (files, _) = discover(&[root]);
    let trajectories: Vec<_> = files
        .iter()
        .filter(|c| c.path.extension().is_some_and(|e| e == "traj"))
        .collect();
    let sparse = trajectories
        .iter()
        .filter(|c| sparse_tally_file(&c.path, &matcher).is_some())
        .count();
    assert!(trajectories.len() >= 90, "{}", trajectories.len());
    assert_eq!(
        sparse,
        trajectories.len(),
        "every CodeR .traj file is read from raw bytes"
    );
}

#[test]
fn the_mini_swe_agent_corpus_takes_the_raw_byte_path() {
    let Some(root) = corpus::corpus("mini-swe-agent") else {
        return;
    };
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (files, _) = discover(&[root]);
    let trajectories: Vec<_> = files
        .iter()
        .filter(|c| c.path.to_string_lossy().ends_with(".traj.json"))
        .collect();
    let sparse: Vec<_> = trajectories
        .iter()
        .filter(|c| sparse_tally_file(&c.path, &matcher).is_some())
        .collect();
    assert!(trajectories.len() >= 20, "{}", trajectories.len());
    assert_eq!(
        sparse.len(),
        trajectories.len(),
        "every mini-swe-agent .traj.json file of the corpus is read from raw bytes"
    );
}
