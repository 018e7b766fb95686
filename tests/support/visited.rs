//! What the step-visit tests compare a visit with: the whole read's steps as a visit hands
//! them over, its header, summary and tally; and what a long generated log's whole read must
//! show before it is compared ([`LongLog`]), which the `tests/stream_*.rs` of each
//! JSON Lines format share.
//!
//! Include with `#[path = "support/visited.rs"] mod visited;`.

#![allow(dead_code)]

use std::path::Path;
use trajscope::model::{Format, Step, StepKind, Trajectory};

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
pub fn whole_read(path: &Path) -> Trajectory {
    match trajscope::formats::load_file(path).unwrap() {
        trajscope::formats::Loaded::Trajectories(mut ts) => {
            assert_eq!(ts.len(), 1, "{}", path.display());
            ts.remove(0)
        }
        trajscope::formats::Loaded::Results(_) => panic!("{} is not a trajectory", path.display()),
    }
}

/// The steps a visit of `path` at `threshold` hands over, in order, and the header it gives;
/// fails when `path` is not read record by record.
pub fn visit(path: &Path, threshold: usize) -> (Vec<Step>, Trajectory) {
    let mut visited = Vec::new();
    let header = trajscope::formats::visit_bounded(path, threshold, &mut |step| {
        visited.push(step);
        Ok(())
    })
    .unwrap()
    .unwrap_or_else(|| panic!("{}: not read record by record", path.display()));
    (visited, header)
}

/// The thresholds the record-by-record tests read at: records slimmed hard, a little, and
/// as a real big file is.
pub const THRESHOLDS: [usize; 3] = [8, 64, trajscope::formats::SLIM_ABOVE];

/// Reads `path` record by record at each of `thresholds`, and asserts that the visited steps
/// (in order), the header (everything but steps and pool), the listing's summary and the
/// `stats` tally under the default rules equal those of `full`, the whole read of the same
/// file.
pub fn assert_visit_equals_whole(path: &Path, full: &Trajectory, thresholds: &[usize]) {
    use trajscope::formats::bounded_summaries;
    use trajscope::metrics::{Matcher, RuleSet, TrajectoryTally, tally_visited};
    use trajscope::model::TrajectorySummary;

    let shown = path.display().to_string();
    let want = as_visited(&full.steps);
    for &threshold in thresholds {
        let (visited, header) = visit(path, threshold);
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

/// What the whole read of a long log generated from a sample (its turns repeated with fresh
/// ids) must show for its visit to test a release: it is of `format`, has enough steps to be
/// let go while reading, and where the generator puts them, its user turns and a result
/// logged long after its call.
pub struct LongLog<'a> {
    pub format: Format,
    /// The whole read has more steps than this.
    pub more_steps_than: usize,
    /// The user steps the whole read has, where the log has user turns.
    pub user_turns: Option<usize>,
    /// A result logged many steps after its call: the first step with a call whose id is
    /// `(.0)(id)` holds `.1` in its observation.
    pub late_result: Option<(IsLateCall, &'a str)>,
}

/// Whether a call id is one of those whose results the generator logs late.
pub type IsLateCall = fn(&str) -> bool;

impl LongLog<'_> {
    /// A long log of `format` with more steps than `more_steps_than`, nothing else said.
    pub fn of(format: Format, more_steps_than: usize) -> Self {
        LongLog {
            format,
            more_steps_than,
            user_turns: None,
            late_result: None,
        }
    }
}

/// Reads the long log at `path` whole, asserts what `long` says of it, then that its visit at
/// each of [`THRESHOLDS`] equals it ([`assert_visit_equals_whole`]); returns the whole read.
pub fn assert_long_log_visit_equals_whole(path: &Path, long: &LongLog) -> Trajectory {
    let full = whole_read(path);
    assert_eq!(full.format, long.format, "{}", path.display());
    assert!(
        full.steps.len() > long.more_steps_than,
        "{}: {} steps, too few to be let go while reading",
        path.display(),
        full.steps.len()
    );
    if let Some(turns) = long.user_turns {
        let users = full
            .steps
            .iter()
            .filter(|s| s.kind == StepKind::User)
            .count();
        assert_eq!(users, turns, "{}: user turns", path.display());
    }
    if let Some((is_late, says)) = long.late_result {
        let late = full
            .steps
            .iter()
            .find(|s| {
                s.tool_calls
                    .iter()
                    .any(|c| c.id.as_deref().is_some_and(is_late))
            })
            .unwrap_or_else(|| panic!("{}: no late call", path.display()));
        assert!(late.observation.contains(says), "{late:?}");
    }
    assert_visit_equals_whole(path, &full, &THRESHOLDS);
    full
}
