//! The replay panel driven by keys and job messages, as a user drives it.

use crate::tui::update::testing::{deliver, press, run, send, trajectory};
use crate::backend::AdHoc;
use crate::model::{Role, Trajectory};
use crate::tui::effect::{Effect, JobKey, ReplayRequest};
use crate::tui::msg::{Msg, ReplayMsg};
use crate::tui::state::compare::CompareWith;
use crate::tui::panel::replay::{Mode, Phase, ReplayPanel};
use crate::tui::state::{Overlay, Screen, State};

/// The run with `a` open on 6 generated steps (with a task, so every step has a
/// context) and an ad-hoc backend configured.
fn opened() -> State {
    opened_with(trajectory("run/a.traj", 6, 2))
}

/// The run with `t` (given a task) open as `a`, and an ad-hoc backend configured.
fn opened_with(mut t: Trajectory) -> State {
    let mut state = run();
    state.replay_setup.ad_hoc = AdHoc {
        base_url: Some("http://127.0.0.1:9".into()),
        model: Some("m".into()),
        ..AdHoc::default()
    };
    let effects = press(&mut state, "<CR>");
    t.task = Some("fix the division".into());
    deliver(&mut state, &effects, t);
    state
}

fn panel(state: &State) -> &ReplayPanel {
    match &state.overlay {
        Some(Overlay::Replay(p)) => p,
        other => panic!("no replay panel: {other:?}"),
    }
}

fn requests(effects: &[Effect]) -> Vec<&ReplayRequest> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Replay(r) => Some(r.as_ref()),
            _ => None,
        })
        .collect()
}

#[test]
fn r_on_a_step_opens_the_panel_for_that_step() {
    let mut state = opened();
    press(&mut state, "jjr");
    let p = panel(&state);
    assert_eq!(p.step, 3);
    let input = p.input.as_ref().unwrap();
    // Rebuilt: the task, then steps 1 and 2 as answer and observation.
    assert_eq!(input.messages[0].content, "fix the division");
    assert_eq!(input.messages.len(), 5);
    assert_eq!(
        p.recorded.as_deref(),
        Some("thinking about step 3\n\npython arg3")
    );
    assert_eq!(p.backends[0].0, "ad-hoc");
    press(&mut state, "<Esc>");
    assert!(state.overlay.is_none(), "esc closes the form");
    assert_eq!(state.screen, Screen::Trajectory);
}

#[test]
fn a_tool_call_answer_shows_its_call_beside_its_text() {
    let mut t = trajectory("run/a.traj", 3, 0);
    // As SWE-agent 1.1 logs a tool call: the answer's text, the call apart.
    t.steps[1].response = "Now let me run it.".into();
    t.steps[1].action = "python3 reproduce.py".into();
    let mut state = opened_with(t);
    press(&mut state, "jr");
    assert_eq!(
        panel(&state).recorded.as_deref(),
        Some("Now let me run it.\n\n▸ python3 reproduce.py")
    );
}

#[test]
fn resample_streams_into_its_block_and_esc_cancels_at_once() {
    let mut state = opened();
    press(&mut state, "r<Tab><Tab>l");
    let effects = press(&mut state, "s");
    let request = requests(&effects)[0].clone();
    assert_eq!(
        (request.step, request.mode, request.samples),
        (1, Mode::Resample, 2)
    );
    assert_eq!(request.backend, "ad-hoc");
    let job = request.job;
    for msg in [
        ReplayMsg::Block {
            job,
            title: "sample 1/2".into(),
        },
        ReplayMsg::Text {
            job,
            text: "I will ".into(),
        },
        ReplayMsg::Text {
            job: job + 100,
            text: "(another job's)".into(),
        },
        ReplayMsg::Text {
            job,
            text: "run the tests".into(),
        },
    ] {
        send(&mut state, Msg::Replay(msg));
    }
    assert_eq!(panel(&state).blocks[0].text, "I will run the tests");
    let effects = press(&mut state, "<Esc>");
    assert!(
        effects
            .iter()
            .any(|e| matches!(e, Effect::Stop(JobKey::Replay))),
        "the replay job is stopped, its reports still taken: {effects:?}"
    );
    assert!(matches!(
        panel(&state).phase,
        Phase::Running {
            cancelling: true,
            ..
        }
    ));
    send(
        &mut state,
        Msg::Replay(ReplayMsg::Finished {
            job,
            outcome: "cancelled after 1 of 2 samples".into(),
            error: None,
        }),
    );
    assert!(matches!(panel(&state).phase, Phase::Done));
    press(&mut state, "<Esc>");
    assert!(state.overlay.is_none());
}

#[test]
fn the_live_column_scrolls_back_and_returns_to_the_newest() {
    let mut state = opened();
    press(&mut state, "r");
    let effects = press(&mut state, "s");
    let job = requests(&effects)[0].job;
    let text: String = (1..=80).map(|i| format!("row-{i:03}\n")).collect();
    send(
        &mut state,
        Msg::Replay(ReplayMsg::Block {
            job,
            title: "sample 1/1".into(),
        }),
    );
    send(&mut state, Msg::Replay(ReplayMsg::Text { job, text }));
    let mut h = crate::tui::harness::Harness::with_state(state);
    let screen = h.text();
    assert!(screen.contains("row-080"), "follows the newest: {screen}");
    assert!(!screen.contains("row-040"), "{screen}");
    h.keys("KKK").unwrap();
    let screen = h.text();
    assert!(
        screen.contains("row-040") && !screen.contains("row-080"),
        "{screen}"
    );
    assert!(
        screen.contains("newer rows"),
        "says what is below: {screen}"
    );
    h.keys("JJJ").unwrap();
    let screen = h.text();
    assert!(
        screen.contains("row-080") && !screen.contains("newer rows"),
        "{screen}"
    );
}

#[test]
fn continue_runs_nothing_before_the_workspace_is_confirmed() {
    let mut state = opened();
    press(&mut state, "jjjr");
    press(&mut state, "jl");
    assert_eq!(panel(&state).mode, Mode::Continue);
    assert!(requests(&press(&mut state, "s")).is_empty());
    assert!(panel(&state).error.as_ref().unwrap().contains("workspace"));
    // Mode → max steps → workspace; Enter types it.
    assert!(requests(&press(&mut state, "jj<CR>/tmp/repo<CR>")).is_empty());
    assert_eq!(panel(&state).workspace, "/tmp/repo");
    assert!(requests(&press(&mut state, "s")).is_empty());
    assert!(matches!(panel(&state).phase, Phase::Confirm));
    assert!(requests(&press(&mut state, "n")).is_empty(), "n goes back");
    assert!(matches!(panel(&state).phase, Phase::Form));
    press(&mut state, "s");
    let effects = press(&mut state, "y");
    let request = requests(&effects)[0];
    assert_eq!(request.mode, Mode::Continue);
    assert_eq!(request.step, 4);
    assert_eq!(request.workspace, std::path::PathBuf::from("/tmp/repo"));
}

#[test]
fn the_sandbox_choices_and_an_edited_answer_reach_the_request() {
    let mut state = opened();
    state.replay_setup.sandbox.binds = vec!["/opt/tools".into()];
    press(&mut state, "jr");
    assert!(panel(&state).sandbox && !panel(&state).network);
    // mode → continue; the workspace; then the sandbox row off and on, the network on.
    press(&mut state, "jl");
    press(&mut state, "jj<CR>/tmp/repo<CR>");
    press(&mut state, "jhljl");
    assert!(panel(&state).sandbox, "toggled twice");
    assert!(panel(&state).network);
    let effects = press(&mut state, "a");
    let Some(text) = effects.iter().find_map(|e| match e {
        Effect::EditContext { text, name } if name.starts_with("answer-step-") => Some(text),
        _ => None,
    }) else {
        panic!("{effects:?}")
    };
    assert!(!text.is_empty());
    let mine = "THOUGHT: by hand\n\n```bash\necho mine\n```".to_string();
    send(&mut state, Msg::Replay(ReplayMsg::Edited(Ok(mine.clone()))));
    assert_eq!(
        panel(&state)
            .edited_answer
            .as_ref()
            .map(|m| m.content.as_str()),
        Some(mine.as_str())
    );
    // The context was not touched by the answer's edit.
    assert!(!panel(&state).edited);
    press(&mut state, "s");
    let effects = press(&mut state, "y");
    let request = requests(&effects)[0];
    assert!(request.sandbox && request.network);
    assert_eq!(request.binds, vec![std::path::PathBuf::from("/opt/tools")]);
    assert_eq!(
        request.edited_answer.as_ref().map(|m| m.content.as_str()),
        Some(mine.as_str())
    );
}

#[test]
fn without_a_backend_the_panel_says_so() {
    let mut state = opened();
    state.replay_setup.ad_hoc = AdHoc::default();
    press(&mut state, "r");
    assert!(requests(&press(&mut state, "s")).is_empty());
    let error = panel(&state).error.clone().unwrap();
    assert!(error.contains("no backend configured"), "{error}");
}

#[test]
fn the_edited_context_is_what_is_sent() {
    let mut state = opened();
    press(&mut state, "jr");
    let effects = press(&mut state, "e");
    let Some(text) = effects.iter().find_map(|e| match e {
        Effect::EditContext { text, .. } => Some(text),
        _ => None,
    }) else {
        panic!("{effects:?}")
    };
    let changed = text.replace("fix the division", "fix the division, carefully");
    send(&mut state, Msg::Replay(ReplayMsg::Edited(Ok(changed))));
    assert!(panel(&state).edited);
    send(
        &mut state,
        Msg::Replay(ReplayMsg::Edited(Ok("not json".into()))),
    );
    assert!(
        panel(&state)
            .error
            .as_ref()
            .unwrap()
            .contains("not a JSON list")
    );
    let effects = press(&mut state, "s");
    let request = requests(&effects)[0];
    assert_eq!(request.input.messages[0].role, Role::User);
    assert_eq!(
        request.input.messages[0].content,
        "fix the division, carefully"
    );
    let note = request.input.note.as_deref().unwrap();
    assert!(note.starts_with("edited by the user; rebuilt"), "{note}");
}

#[test]
fn a_written_fork_joins_the_run_and_opens_in_compare() {
    let mut state = opened();
    press(&mut state, "jr");
    let effects = press(&mut state, "s");
    let job = requests(&effects)[0].job;
    let mut fork = crate::tui::update::testing::summary("a", 2, 0.0, None);
    fork.path = "run/a.fork-k2-1.trajscope.json".into();
    fork.fork_of = Some(crate::model::ForkLink {
        parent: "run/a.traj".into(),
        step: 2,
    });
    let forks = vec![fork];
    send(&mut state, Msg::Replay(ReplayMsg::Forks { job, forks }));
    let rows: Vec<String> = state
        .run
        .visible
        .iter()
        .map(|&i| state.run.rows[i].path.display().to_string())
        .collect();
    assert_eq!(
        rows,
        [
            "run/a.traj",
            "run/a.fork-k2-1.trajscope.json",
            "run/b.traj",
            "run/c.traj"
        ]
    );
    let compares = |effects: &[Effect]| {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::LoadCompare { .. }))
            .count()
    };
    assert_eq!(
        compares(&press(&mut state, "c")),
        0,
        "no compare while running"
    );
    send(
        &mut state,
        Msg::Replay(ReplayMsg::Finished {
            job,
            outcome: "1 of 1 samples answered".into(),
            error: None,
        }),
    );
    let effects = press(&mut state, "c");
    let Some((a, b)) = effects.iter().find_map(|e| match e {
        Effect::LoadCompare { a, b, .. } => Some((a, b)),
        _ => None,
    }) else {
        panic!("{effects:?}")
    };
    assert_eq!(
        a.path,
        std::path::PathBuf::from("run/a.fork-k2-1.trajscope.json")
    );
    assert_eq!(*b, CompareWith::ForkParent);
    assert_eq!(state.screen, Screen::Compare);
    assert!(state.overlay.is_none());
    press(&mut state, "q");
    assert_eq!(
        state.screen,
        Screen::Trajectory,
        "back where the replay began"
    );
}
