//! A long droid stream read in bounded memory, its steps let go as they finish: the
//! sample's events after its `system` line repeated with fresh message and tool ids (some
//! results long, so that low thresholds leave them in the file; some results logged a whole
//! cycle of steps after their calls; some runs ending in an `error`). The visited steps,
//! the header, the listing's summary and the `stats` tally equal the whole read's. (Every
//! sample and corpus droid stream is compared the same way by tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;

use serde_json::Value;
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
fn a_long_droid_stream_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let events = long_logs::long_droid(60);
    let path = dir.path().join("droid-long.jsonl");
    let text: Vec<String> = events.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = whole(&path);
    assert_eq!(full.format, Format::Droid);
    assert!(full.steps.len() > 300, "{} steps", full.steps.len());
    // The late results found their calls in the whole read.
    let late_step = full
        .steps
        .iter()
        .find(|s| {
            s.tool_calls
                .iter()
                .any(|c| c.id.as_deref().is_some_and(|id| id.ends_with("_2")))
        })
        .unwrap();
    assert!(late_step.observation.contains("exit code"), "{late_step:?}");
    assert!(
        full.steps
            .iter()
            .any(|s| s.observation.contains("rate limited in run 3"))
    );
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
        assert_eq!(header.task, full.task);
        assert_eq!(header.instance_id, full.instance_id);
        assert_eq!(header.model, full.model);
        assert_eq!(header.exit_status, full.exit_status);
        let summaries = bounded_summaries(&path, threshold).unwrap().unwrap();
        assert_eq!(summaries, vec![TrajectorySummary::of(&full)]);
    }
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (tally, summary) = tally_visited(&path, &matcher).unwrap().unwrap();
    assert_eq!(tally, TrajectoryTally::of(&matcher, &full));
    assert_eq!(summary, TrajectorySummary::of(&full));
}
