//! Reading a file at `Detail::Steps` (what `ls`, `stats` and the TUI's run table use) gives
//! the same steps, summaries and tallies as the full load, on every file of the corpus: only
//! the message pool, the task and the step contexts may be left out.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/corpus.rs"]
mod corpus;

use trajscope::formats::{Detail, Loaded, discover, load_file, load_file_with};
use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally};
use trajscope::model::{Trajectory, TrajectorySummary};

fn trajectories(loaded: Loaded) -> Vec<Trajectory> {
    match loaded {
        Loaded::Trajectories(ts) => ts,
        Loaded::Results(_) => Vec::new(),
    }
}

#[test]
fn steps_detail_reads_what_summaries_and_tallies_read() {
    let Some(root) = corpus::corpus("") else {
        return;
    };
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (files, _) = discover(&[root]);
    let mut compared = 0;
    let mut skipped_messages = 0;
    for file in &files {
        let full = load_file(&file.path).map(trajectories);
        let steps = load_file_with(&file.path, Detail::Steps).map(trajectories);
        let (full, steps) = match (full, steps) {
            (Ok(full), Ok(steps)) => (full, steps),
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{}", file.path.display());
                continue;
            }
            (a, b) => panic!("{}: {a:?} against {b:?}", file.path.display()),
        };
        assert_eq!(full.len(), steps.len(), "{}", file.path.display());
        for (f, s) in full.iter().zip(&steps) {
            let at = file.path.display();
            assert_eq!(TrajectorySummary::of(f), TrajectorySummary::of(s), "{at}");
            assert_eq!(
                TrajectoryTally::of(&matcher, f),
                TrajectoryTally::of(&matcher, s),
                "{at}"
            );
            assert_eq!(f.steps.len(), s.steps.len(), "{at}");
            for (a, b) in f.steps.iter().zip(&s.steps) {
                let (mut a, mut b) = (a.clone(), b.clone());
                (a.context, b.context) = (None, None);
                assert_eq!(a, b, "{at} step {}", a.index);
            }
            compared += 1;
            skipped_messages += f.messages.len().saturating_sub(s.messages.len());
        }
    }
    assert!(compared > 100, "only {compared} trajectories compared");
    assert!(
        skipped_messages > 0,
        "no message was skipped: Detail::Steps is not exercised"
    );
}
