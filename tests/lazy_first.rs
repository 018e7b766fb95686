//! A big JSON Lines log opened in two goes: its first steps at once, from the start of the
//! file, then the whole index. The first steps must be the whole index's steps (the step
//! still being written at the end of the part read is left out), and the app must get them
//! before the index is done: on a file big enough, the first message the loader sends is
//! the first steps, then its progress, then every step.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/big_session.rs"]
mod big_session;
#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use trajscope::formats::{SLIM_ABOVE, discover, open_bounded, open_first, open_lazy};
use trajscope::model::Trajectory;
use trajscope::tui::effect::Effect;
use trajscope::tui::msg::Msg;
use trajscope::tui::state::trajectory::TrajectoryRef;

/// Places to cut each file at, at most (each open reads the file's start again).
const CUTS: usize = 60;

/// `path` opened whole in bounded memory (or, for SWE-agent, through its own scan), when
/// that gives one lazy trajectory.
fn whole(path: &Path) -> Option<Trajectory> {
    if let Some(mut all) = open_bounded(path, SLIM_ABOVE).ok()? {
        return (all.len() == 1).then(|| all.remove(0));
    }
    open_lazy(path, &mut |_| {}).ok()?
}

/// Cut at each line end and in the middle of each line (or some of them, evenly spread),
/// the first steps opened are those of the whole read: as many rows as steps, each step read back the same, and the
/// whole file (when every step is asked for) gives every step. Returns how many opens were compared, and how many of
/// them read only part of the file.
fn check(path: &Path) -> (usize, usize) {
    let Some(whole) = whole(path) else {
        return (0, 0);
    };
    let size = std::fs::metadata(path).unwrap().len();
    let count = whole.step_count();
    let (mut compared, mut parts) = (0, 0);
    let text = std::fs::read(path).unwrap();
    let ends: Vec<u64> = cuts(&text);
    let step = ends.len().div_ceil(CUTS).max(1);
    let mut asks: Vec<(usize, u64)> = ends.iter().step_by(step).map(|&at| (1, at)).collect();
    asks.push((count + 1, 1));
    for (want, start) in asks {
        let mut rows = 0;
        let Some(first) = open_first(path, want, start, &mut |_| rows += 1).unwrap() else {
            continue;
        };
        let shown = path.display();
        let lazy = first.lazy.as_ref().expect("opened lazily");
        assert_eq!(rows, first.step_count(), "{shown}: a row per step");
        assert!(
            first.step_count() >= want.min(count),
            "{shown}: {want} steps asked, {} given",
            first.step_count()
        );
        if lazy.is_complete() {
            assert_eq!(first.step_count(), count, "{shown}: read whole, every step");
        } else {
            assert!(first.step_count() < count, "{shown}: a part holds fewer");
            assert!(want <= count && size > 1);
            parts += 1;
        }
        for i in 1..=first.step_count() {
            assert_eq!(
                first.load_step(i).unwrap().steps,
                whole.load_step(i).unwrap().steps,
                "{shown}: step {i} of the first {} (asked {want})",
                first.step_count()
            );
        }
        compared += 1;
    }
    (compared, parts)
}

/// Where to cut `text`: just past each line end, and halfway to the next one.
fn cuts(text: &[u8]) -> Vec<u64> {
    let mut cuts = Vec::new();
    let mut last = 0;
    for (i, _) in text.iter().enumerate().filter(|&(_, &b)| b == b'\n') {
        cuts.push((last + i as u64).div_ceil(2).max(1));
        cuts.push(i as u64 + 1);
        last = i as u64 + 1;
    }
    cuts
}

fn check_tree(root: &Path) -> (usize, usize) {
    let (files, _) = discover(&[root.to_path_buf()]);
    files
        .iter()
        .map(|f| check(&f.path))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[test]
fn the_first_steps_are_the_whole_index_steps() {
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories");
    let (_, parts) = check(&big_session::sample());
    assert!(parts >= 5, "the Claude Code sample opens in parts: {parts}");
    let (mut compared, mut parts) = check_tree(&samples);
    for sub in [
        "claude-code",
        "openhands",
        "codex-cli",
        "other-cli-agents",
        "swe-agent",
    ] {
        if let Some(root) = corpus::corpus(sub) {
            let (c, p) = check_tree(&root);
            eprintln!("{sub}: {c} opens compared, {p} of part of a file");
            (compared, parts) = (compared + c, parts + p);
        }
    }
    assert!(
        compared > 20 && parts > 10,
        "{compared} opens, {parts} of parts"
    );
}

#[test]
fn step_one_of_a_big_session_comes_before_its_index_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    big_session::write(&path, 24 << 20);
    let sent = Mutex::new(Vec::new());
    let send = |msg: Msg| {
        sent.lock().unwrap().push(msg);
        true
    };
    let effect = Effect::LoadTrajectory {
        id: 7,
        source: TrajectoryRef {
            path: path.clone(),
            index: None,
        },
        lazy_above: 1 << 20,
    };
    trajscope::tui::job::run(effect, &send, &AtomicBool::new(false), None);
    let sent = sent.into_inner().unwrap();
    let Some(Msg::TrajectoryStarted {
        id: 7,
        loaded: first,
    }) = sent.first()
    else {
        panic!("the first message is the first steps: {:?}", sent.first());
    };
    let Some(Msg::TrajectoryLoaded {
        id: 7,
        result: Ok(all),
    }) = sent.last()
    else {
        panic!("the last message is every step: {:?}", sent.last());
    };
    let progress: Vec<(u64, u64)> = sent
        .iter()
        .filter_map(|m| match m {
            Msg::TrajectoryIndexing { id: 7, read, total } => Some((*read, *total)),
            _ => None,
        })
        .collect();
    assert_eq!(sent.len(), progress.len() + 2, "nothing else is sent");
    assert!(progress.len() > 10, "progress as the index reads");
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0), "{progress:?}");
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(
        progress
            .iter()
            .all(|&(read, total)| read <= total && total == size)
    );

    let (first, all) = (&first.trajectory, &all.trajectory);
    assert!(!first.lazy.as_ref().unwrap().is_complete());
    assert!(all.lazy.as_ref().unwrap().is_complete());
    assert!(
        first.step_count() * 4 < all.step_count(),
        "{} steps first, {} in all",
        first.step_count(),
        all.step_count()
    );
    assert_eq!(
        first.load_step(1).unwrap().steps,
        all.load_step(1).unwrap().steps
    );
    assert_eq!(
        trajscope::present::facts::step_total(first),
        format!("{}+", first.step_count())
    );
}

#[test]
fn a_cancelled_index_sends_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    big_session::write(&path, 8 << 20);
    let sent = Mutex::new(Vec::new());
    let cancel = AtomicBool::new(false);
    let send = |msg: Msg| {
        // The app moves on as soon as the first steps are shown.
        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        sent.lock().unwrap().push(msg);
        true
    };
    let effect = Effect::LoadTrajectory {
        id: 1,
        source: TrajectoryRef { path, index: None },
        lazy_above: 0,
    };
    trajscope::tui::job::run(effect, &send, &cancel, None);
    let sent = sent.into_inner().unwrap();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(matches!(sent[0], Msg::TrajectoryStarted { .. }));
}

#[test]
fn a_step_past_the_first_ones_is_selected_once_the_index_has_it() {
    // Opened at step 3000 (a search hit, a finder's pick) of a session whose first part
    // holds fewer: the first steps show, the wish is kept, and the whole index fulfils it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    big_session::write(&path, 12 << 20);
    let config = trajscope::tui::config::Config::parse(
        "[options]\nlazy_above_mb = 1\n",
        Path::new("t.toml"),
        None,
    );
    let roots = vec![path];
    let opening = trajscope::tui::job::opening(&roots, config.options.lazy_above);
    let size = trajscope::tui::state::Size {
        width: 100,
        height: 30,
    };
    let mut state = trajscope::tui::state::State::with_opening(roots, config, size, opening);
    let effects = trajscope::tui::update::start(&mut state);
    let load = effects
        .into_iter()
        .find(|e| matches!(e, Effect::LoadTrajectory { .. }))
        .expect("a big file alone is opened at once");
    state.trajectory.as_mut().unwrap().pending_step = Some(3000);
    let sent = Mutex::new(Vec::new());
    let send = |msg: Msg| {
        sent.lock().unwrap().push(msg);
        true
    };
    trajscope::tui::job::run(load, &send, &AtomicBool::new(false), None);
    let mut sent = sent.into_inner().unwrap().into_iter();
    trajscope::tui::update::update(&mut state, sent.next().unwrap());
    let t = state.trajectory.as_ref().unwrap();
    assert!(
        t.indexing.is_some() && t.steps.len() < 3000,
        "{}",
        t.steps.len()
    );
    assert_eq!(t.step_index(), Some(1));
    assert_eq!(t.pending_step, Some(3000), "kept for the index");
    let first_id = t.id;
    for msg in sent {
        trajscope::tui::update::update(&mut state, msg);
    }
    let t = state.trajectory.as_ref().unwrap();
    assert!(t.indexing.is_none() && t.steps.len() > 3000);
    assert_eq!(t.step_index(), Some(3000));
    assert_ne!(
        t.id, first_id,
        "pages built from the first steps are not reused"
    );
}
