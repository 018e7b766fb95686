//! A long Codex rollout read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some outputs long, so that low thresholds
//! leave them in the file). The visited steps, the header, the listing's summary and the
//! `stats` tally equal the whole read's. (Every sample and corpus rollout is compared the
//! same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;

use std::path::Path;
use trajscope::formats::{Loaded, SLIM_ABOVE, bounded_summaries, load_file, visit_bounded};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_visited};
use trajscope::model::{Format, Step, Trajectory, TrajectorySummary};

fn whole(path: &Path) -> Trajectory {
    match load_file(path).unwrap() {
        Loaded::Trajectories(mut ts) => ts.remove(0),
        Loaded::Results(_) => panic!("not a trajectory"),
    }
}

#[test]
fn a_long_codex_rollout_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout-long.jsonl");
    long_logs::long_codex(&path, 40);
    let full = whole(&path);
    assert_eq!(full.format, Format::Codex);
    assert!(full.steps.len() > 200, "{} steps", full.steps.len());
    let want: Vec<Step> = full
        .steps
        .iter()
        .map(|s| Step {
            context: None,
            ..s.clone()
        })
        .collect();
    for threshold in [8, 64, SLIM_ABOVE] {
        let mut visited = Vec::new();
        let header = visit_bounded(&path, threshold, &mut |step| {
            visited.push(step);
            Ok(())
        })
        .unwrap()
        .expect("read record by record");
        assert_eq!(visited.len(), want.len(), "threshold {threshold}");
        for (got, want) in visited.iter().zip(&want) {
            assert_eq!(got, want, "threshold {threshold}, step {}", want.index);
        }
        assert_eq!(header.warnings, full.warnings);
        assert_eq!(header.usage, full.usage);
        assert_eq!(header.task, full.task);
        assert_eq!(header.model, full.model);
        let summaries = bounded_summaries(&path, threshold).unwrap().unwrap();
        assert_eq!(summaries, vec![TrajectorySummary::of(&full)]);
    }
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (tally, summary) = tally_visited(&path, &matcher).unwrap().unwrap();
    assert_eq!(tally, TrajectoryTally::of(&matcher, &full));
    assert_eq!(summary, TrajectorySummary::of(&full));
}
