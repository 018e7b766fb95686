//! Builders for update tests: a state with a run loaded from memory, a generated trajectory,
//! keys typed through the real keymap. No files, no tasks: effects are returned, not run.

use super::update;
use crate::model::{Format, Step, Trajectory, TrajectorySummary};
use crate::tui::config::Config;
use crate::tui::effect::Effect;
use crate::tui::keymap::parse_keys;
use crate::tui::msg::{FileOutcome, Msg};
use crate::tui::state::trajectory::LoadedTrajectory;
use crate::tui::state::{Size, State};
use std::path::PathBuf;

pub fn summary(id: &str, steps: usize, cost: f64, resolved: Option<bool>) -> TrajectorySummary {
    let mut s = TrajectorySummary::of(&Trajectory::new(format!("run/{id}.traj"), Format::SweAgent));
    s.steps = steps;
    s.exit_status = Some("submitted".into());
    s.resolved = resolved;
    s.usage.cost = Some(cost);
    s.patch_lines = 3;
    s.error_steps = 1;
    s
}

/// An empty app, 100x30, opened on the folder `run`.
pub fn empty() -> State {
    State::new(
        vec![PathBuf::from("run")],
        Config::default(),
        Size {
            width: 100,
            height: 30,
        },
    )
}

/// A run of three trajectories, as if their files had loaded: `a` (resolved, 12 steps),
/// `b` (unresolved, 40 steps), `c` (unknown, 7 steps).
pub fn run() -> State {
    let mut state = empty();
    send(
        &mut state,
        Msg::RunDiscovered {
            files: 3,
            bytes: 300,
            failures: Vec::new(),
        },
    );
    for row in [
        summary("b", 40, 1.5, Some(false)),
        summary("a", 12, 0.25, Some(true)),
        summary("c", 7, 0.5, None),
    ] {
        send(
            &mut state,
            Msg::RunFile {
                bytes: 100,
                outcome: FileOutcome::Trajectories(vec![row]),
            },
        );
    }
    send(&mut state, Msg::RunLoaded);
    state
}

/// `n` steps: tools cycle bash, edit, python; every fifth step (5, 10, …) fails with a
/// SyntaxError; every observation has `lines` lines.
pub fn trajectory(path: &str, n: usize, lines: usize) -> Trajectory {
    let mut t = Trajectory::new(path, Format::SweAgent);
    for i in 1..=n {
        let tool = ["bash", "edit", "python"][(i - 1) % 3];
        let mut observation: Vec<String> = (1..=lines).map(|l| format!("output {i}.{l}")).collect();
        if i % 5 == 0 {
            observation[lines / 2] = "SyntaxError: invalid syntax".into();
        }
        t.steps.push(Step {
            thought: format!("thinking about step {i}"),
            action: format!("{tool} arg{i}"),
            tool: Some(tool.into()),
            observation: observation.join("\n"),
            ..Step::default()
        });
    }
    t.submission = Some("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n".into());
    t.number_steps();
    t
}

pub fn send(state: &mut State, msg: Msg) -> Vec<Effect> {
    update(state, msg)
}

/// Types `keys` through the real keymap and returns every effect they asked for.
pub fn press(state: &mut State, keys: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for key in parse_keys(keys).unwrap_or_else(|e| panic!("{keys}: {e}")) {
        effects.extend(update(state, Msg::Key(key)));
    }
    effects
}

/// Delivers `trajectory` as the answer to the last `LoadTrajectory` in `effects`.
pub fn deliver(state: &mut State, effects: &[Effect], trajectory: Trajectory) -> Vec<Effect> {
    let id = effects
        .iter()
        .rev()
        .find_map(|e| match e {
            Effect::LoadTrajectory { id, .. } => Some(*id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no LoadTrajectory in {effects:?}"));
    send(
        state,
        Msg::TrajectoryLoaded {
            id,
            result: Ok(Box::new(LoadedTrajectory::new(trajectory))),
        },
    )
}

/// The run, with the first row (`a`) opened on a generated trajectory of `n` steps.
pub fn opened(n: usize, lines: usize) -> (State, Vec<Effect>) {
    let mut state = run();
    let effects = press(&mut state, "<CR>");
    let effects = deliver(&mut state, &effects, trajectory("run/a.traj", n, lines));
    (state, effects)
}

pub fn documents_requested(effects: &[Effect]) -> Vec<crate::tui::document::DocKey> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::BuildDocument(request) => Some(request.key),
            _ => None,
        })
        .collect()
}

/// The notice's text; a test that reads it expects one.
pub fn notice(state: &State) -> &str {
    &state.notice.as_ref().expect("a notice").text
}
