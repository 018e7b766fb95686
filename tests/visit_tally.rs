//! The tally `stats` makes of a big file, its steps visited one at a time and dropped
//! (`metrics::visit_tally`), equals the tally of the same steps held whole, under the default
//! rules, every rule pack and rules built on every sequence condition (streaks with and
//! without the same observation, costs, `after`, `not_followed_by`, `in_a_row`). On every
//! sample and corpus file the visit reads (Claude Code, OpenHands, SWE-agent), and on long
//! generated sessions whose readers let steps go while reading. For Claude Code and
//! OpenHands the held steps are the whole read's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/rule_sets.rs"]
mod rule_sets;

use std::path::{Path, PathBuf};
use trajscope::formats::{Detail, Loaded, discover, load_file_with, visit_steps};
use trajscope::metrics::{Matcher, TrajectoryTally, tally_visited};
use trajscope::model::{Format, Step, TrajectorySummary};

const SEQUENCES: &str = r#"
[[rule]]
name = "same_action_twice"
repeat = 2

[[rule]]
name = "same_action_and_output_twice"
repeat = 2
same_observation = true

[[rule]]
name = "dear_steps"
cost_above = 0.0001

[[rule]]
name = "an_error"
field = "observation"
pattern = "rror"

[[rule]]
name = "errors_in_a_row"
matches = "an_error"
in_a_row = 2

[[rule]]
name = "any_after_error"
field = "action"
regex = true
pattern = "."
after = "an_error"
"#;

/// Checks `path` when the visit reads it; returns its step count (0 when it does not).
fn check(path: &Path, matchers: &[(String, Matcher)]) -> usize {
    let shown = path.display();
    let mut steps: Vec<Step> = Vec::new();
    let Some(mut held) = visit_steps(path, &mut |s| steps.push(s)).unwrap() else {
        return 0;
    };
    held.steps = steps;
    if held.format != Format::SweAgent {
        // Claude Code and OpenHands: the visited steps are the whole read's.
        let Loaded::Trajectories(whole) = load_file_with(path, Detail::Steps).unwrap() else {
            panic!("{shown}: not a trajectory");
        };
        assert_eq!(whole.len(), 1, "{shown}");
        held.steps = whole[0].steps.clone();
    }
    for (name, matcher) in matchers {
        let (tally, summary) = tally_visited(path, matcher).unwrap().unwrap();
        let want = TrajectoryTally::of(matcher, &held);
        assert_eq!(tally, want, "{shown}: {name}");
        assert_eq!(summary, TrajectorySummary::of(&held), "{shown}: {name}");
    }
    held.steps.len()
}

fn check_tree(root: &Path) -> usize {
    let matchers = rule_sets::matchers("sequences", SEQUENCES);
    let (files, _) = discover(&[root.to_path_buf()]);
    files.iter().map(|f| check(&f.path, &matchers)).sum()
}

#[test]
fn samples_tallied_step_by_step_equal_the_held_tally() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    assert!(check_tree(&root) > 0);
}

#[test]
fn corpus_tallied_step_by_step_equals_the_held_tally() {
    let Some(root) = corpus::corpus("") else {
        return;
    };
    assert!(check_tree(&root) > 0);
}
