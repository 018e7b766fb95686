//! What the step-visit tests compare a visit with: the whole read's steps as a visit hands
//! them over.
//!
//! Include with `#[path = "support/visited.rs"] mod visited;`.

#![allow(dead_code)]

use trajscope::model::Step;

/// `steps` without their context: a visit hands each step over alone, and a context is an
/// index into the whole read's message pool, which a visit never builds.
pub fn as_visited(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(|s| Step {
            context: None,
            ..s.clone()
        })
        .collect()
}

/// The one trajectory the whole read gives for `path`.
pub fn whole_read(path: &std::path::Path) -> trajscope::model::Trajectory {
    match trajscope::formats::load_file(path).unwrap() {
        trajscope::formats::Loaded::Trajectories(mut ts) => {
            assert_eq!(ts.len(), 1, "{}", path.display());
            ts.remove(0)
        }
        trajscope::formats::Loaded::Results(_) => panic!("{} is not a trajectory", path.display()),
    }
}

/// The thresholds the record-by-record tests read at: records slimmed hard, a little, and
/// as a real big file is.
pub const THRESHOLDS: [usize; 3] = [8, 64, trajscope::formats::SLIM_ABOVE];

/// Reads `path` record by record at each of `thresholds`, and asserts that the visited steps
/// (in order), the header (everything but steps and pool), the listing's summary and the
/// `stats` tally under the default rules equal those of `full`, the whole read of the same
/// file.
pub fn assert_visit_equals_whole(
    path: &std::path::Path,
    full: &trajscope::model::Trajectory,
    thresholds: &[usize],
) {
    use trajscope::formats::{bounded_summaries, visit_bounded};
    use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_visited};
    use trajscope::model::TrajectorySummary;

    let shown = path.display().to_string();
    let want = as_visited(&full.steps);
    for &threshold in thresholds {
        let mut visited = Vec::new();
        let header = visit_bounded(path, threshold, &mut |step| {
            visited.push(step);
            Ok(())
        })
        .unwrap()
        .unwrap_or_else(|| panic!("{shown}: not read record by record"));
        assert_eq!(visited.len(), want.len(), "{shown}, threshold {threshold}");
        for (got, want) in visited.iter().zip(&want) {
            assert_eq!(
                got, want,
                "{shown}, threshold {threshold}, step {}",
                want.index
            );
        }
        let mut held = header.clone();
        held.steps = full.steps.clone();
        held.messages = full.messages.clone();
        assert_eq!(&held, full, "{shown}: header, threshold {threshold}");
        let summaries = bounded_summaries(path, threshold).unwrap().unwrap();
        assert_eq!(summaries, vec![TrajectorySummary::of(full)], "{shown}");
    }
    let matcher = Matcher::new(RuleSet::defaults().rules).0;
    let (tally, summary) = tally_visited(path, &matcher).unwrap().unwrap();
    assert_eq!(tally, TrajectoryTally::of(&matcher, full), "{shown}");
    assert_eq!(summary, TrajectorySummary::of(full), "{shown}");
}
