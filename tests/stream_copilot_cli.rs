//! A long Copilot CLI session read in bounded memory, its steps let go as they finish: the
//! sample's turns repeated with fresh call ids (some results long, so that low thresholds
//! leave them in the file, and some logged many steps after their call). The visited steps
//! (user turns in place), the header, the listing's summary and the `stats` tally equal the
//! whole read's. (Every sample and corpus session is compared the same way by
//! tests/visit_tally.rs.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/long_logs.rs"]
mod long_logs;
#[path = "support/visited.rs"]
mod visited;

use serde_json::Value;
use std::path::Path;
use trajscope::formats::{Loaded, SLIM_ABOVE, bounded_summaries, load_file, visit_bounded};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_visited};
use trajscope::model::{Format, StepKind, Trajectory, TrajectorySummary};

fn whole(path: &Path) -> Trajectory {
    match load_file(path).unwrap() {
        Loaded::Trajectories(mut ts) => ts.remove(0),
        Loaded::Results(_) => panic!("not a trajectory"),
    }
}

#[test]
fn a_long_session_visited_equals_the_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let events = long_logs::long_copilot(60);
    let path = dir.path().join("events.jsonl");
    let text: Vec<String> = events.iter().map(Value::to_string).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let full = whole(&path);
    assert_eq!(full.format, Format::CopilotCli);
    assert!(full.steps.len() > 300, "{} steps", full.steps.len());
    let users = full
        .steps
        .iter()
        .filter(|s| s.kind == StepKind::User)
        .count();
    assert_eq!(users, 120, "two user turns a cycle");
    // A late result really lands in its step, many steps after it.
    let late = full
        .steps
        .iter()
        .position(|s| {
            s.tool_calls
                .iter()
                .any(|c| c.id.as_deref() == Some("toolu_ppo5MZ814pBDBpE5VWpP5L_2"))
        })
        .unwrap();
    assert!(full.steps[late].observation.contains("def _product"));
    let want = visited::as_visited(&full.steps);
    for threshold in [8, 64, SLIM_ABOVE] {
        let mut got = Vec::new();
        let header = visit_bounded(&path, threshold, &mut |step| {
            got.push(step);
            Ok(())
        })
        .unwrap()
        .expect("read record by record");
        assert_eq!(got.len(), want.len(), "threshold {threshold}");
        for (got, want) in got.iter().zip(&want) {
            assert_eq!(got, want, "threshold {threshold}, step {}", want.index);
        }
        assert_eq!(header.warnings, full.warnings);
        assert_eq!(header.task, full.task);
        assert_eq!(header.model, full.model);
        assert_eq!(header.instance_id, full.instance_id);
        assert_eq!(header.exit_status, full.exit_status);
        let summaries = bounded_summaries(&path, threshold).unwrap().unwrap();
        assert_eq!(summaries, vec![TrajectorySummary::of(&full)]);
    }
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (tally, summary) = tally_visited(&path, &matcher).unwrap().unwrap();
    assert_eq!(tally, TrajectoryTally::of(&matcher, &full));
    assert_eq!(summary, TrajectorySummary::of(&full));
}
