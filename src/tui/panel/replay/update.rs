//! The replay panel: `r` on a step opens it; the form is filled with keys; a continued run
//! asks before anything runs; the job's reports fill the output; Esc cancels a running job
//! at once; the forks join the run table, and `c` compares the last one with its original.

use crate::model::TrajectorySummary;
use crate::replay::edit::answer::{answer_text, apply_answer_edit, recorded_answer};
use crate::replay::edit::{apply_edit, edit_text};
use crate::replay::input::context_at;
use crate::tui::action::Action;
use crate::tui::effect::{Effect, JobKey, ReplayRequest};
use crate::tui::msg::ReplayMsg;
use crate::tui::state::prompt::{Prompt, PromptKind};
use crate::tui::panel::replay::{
    FormField, MAX_SAMPLES, MAX_STEPS, Mode, OutputBlock, Phase, ReplayPanel,
};
use crate::tui::state::{Notice, Overlay, State};
use crate::tui::update::compare;

/// `r` in a trajectory: the panel for the selected step.
pub fn open(state: &mut State) {
    let Some(t) = state.open_trajectory() else {
        return;
    };
    let (Some(trajectory), Some(step)) = (t.trajectory.clone(), t.step_index()) else {
        state.notice = Some(Notice::info("the trajectory is still loading"));
        return;
    };
    if let Some(lazy) = &trajectory.lazy {
        state.notice = Some(Notice::info(format!(
            "replay needs the whole trajectory in memory, and this one ({}) was opened lazily: raise lazy_above_mb in config.toml to read it whole",
            crate::tui::units::bytes(lazy.file_size())
        )));
        return;
    }
    let input = match context_at(&trajectory, step) {
        Some(input) if !input.messages.is_empty() => Ok(input),
        _ => Err(format!(
            "step {step} has no context and the log holds no task to rebuild one from"
        )),
    };
    let recorded = trajectory.step(step).map(|s| {
        let action = s.action.trim();
        if s.response.trim().is_empty() {
            format!("{}\n\n{action}", s.thought.trim())
                .trim()
                .to_string()
        } else if action.is_empty() || s.response.contains(action) {
            s.response.clone()
        } else {
            // A tool-call answer: the text says little ("Now let me run it."); the call is
            // what the live answers are compared with.
            format!("{}\n\n▸ {action}", s.response.trim())
        }
    });
    let panel = ReplayPanel {
        trajectory,
        step,
        input,
        edited: false,
        recorded,
        backends: state.replay_setup.choices(),
        backend: 0,
        mode: Mode::Resample,
        samples: 1,
        max_steps: 20,
        workspace: state
            .replay_setup
            .workspace
            .as_ref()
            .map(|w| w.display().to_string())
            .unwrap_or_default(),
        sandbox: state.replay_setup.sandbox.sandbox,
        network: state.replay_setup.sandbox.network,
        binds: state.replay_setup.sandbox.binds.clone(),
        edited_answer: None,
        editing_answer: false,
        field: FormField::Backend,
        phase: Phase::Form,
        log: Vec::new(),
        blocks: Vec::new(),
        forks: Vec::new(),
        error: None,
        outcome: None,
        scroll: 0,
    };
    state.overlay = Some(panel.into());
}

fn panel(state: &mut State) -> Option<&mut ReplayPanel> {
    match &mut state.overlay {
        Some(Overlay::Replay(panel)) => Some(panel),
        _ => None,
    }
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let problem = state.replay_setup.problem();
    let Some(p) = panel(state) else {
        return;
    };
    match (&p.phase, action) {
        (_, Action::ScrollPageUp) => p.scroll = (p.scroll + SCROLL_ROWS).min(p.live_lines()),
        (_, Action::ScrollPageDown) => p.scroll = p.scroll.saturating_sub(SCROLL_ROWS),
        (Phase::Running { .. }, Action::Back | Action::Cancel) => {
            fx.push(Effect::Stop(JobKey::Replay));
            if let Phase::Running { cancelling, .. } = &mut p.phase {
                *cancelling = true;
            }
        }
        (Phase::Running { .. }, _) => {}
        (Phase::Confirm, Action::Yes) => start(state, fx),
        (Phase::Confirm, Action::No | Action::Back | Action::Cancel) => p.phase = Phase::Form,
        (Phase::Confirm, _) => {}
        (Phase::Form | Phase::Done, Action::Back) => state.overlay = None,
        (Phase::Done, Action::Compare) => compare_last(state, fx),
        (Phase::Done, Action::Start | Action::Confirm) => {
            p.phase = Phase::Form;
        }
        (Phase::Done, _) => {}
        (Phase::Form, Action::Down | Action::Up) => {
            let fields = p.fields();
            let at = fields.iter().position(|&f| f == p.field).unwrap_or(0);
            let next = if action == Action::Down {
                (at + 1) % fields.len()
            } else {
                (at + fields.len() - 1) % fields.len()
            };
            p.field = fields[next];
        }
        (Phase::Form, Action::Increase | Action::Decrease) => {
            change(p, action == Action::Increase);
        }
        (Phase::Form, Action::EditContext) => edit(state, fx),
        (Phase::Form, Action::EditAnswer) => edit_answer(state, fx),
        (Phase::Form, Action::Confirm) => match p.field {
            FormField::Workspace => {
                let initial = p.workspace.clone();
                state.prompt = Some(Prompt::new(PromptKind::Workspace, &initial));
            }
            FormField::Context => edit(state, fx),
            FormField::Answer => edit_answer(state, fx),
            _ => ask(state, problem, fx),
        },
        (Phase::Form, Action::Start) => ask(state, problem, fx),
        (Phase::Form, _) => {}
    }
}

/// Rows a page key scrolls the live column by.
const SCROLL_ROWS: usize = 10;

/// Left/right on a field: the previous/next value.
fn change(p: &mut ReplayPanel, up: bool) {
    let step = |n: usize, max: usize| {
        if up {
            (n + 1).min(max)
        } else {
            n.saturating_sub(1).max(1)
        }
    };
    match p.field {
        FormField::Backend if !p.backends.is_empty() => {
            let len = p.backends.len();
            p.backend = if up {
                (p.backend + 1) % len
            } else {
                (p.backend + len - 1) % len
            };
        }
        FormField::Mode => {
            p.mode = match p.mode {
                Mode::Resample => Mode::Continue,
                Mode::Continue => Mode::Resample,
            };
        }
        FormField::Samples => p.samples = step(p.samples, MAX_SAMPLES),
        FormField::MaxSteps => p.max_steps = step(p.max_steps, MAX_STEPS),
        FormField::Sandbox => p.sandbox = !p.sandbox,
        FormField::Network => p.network = !p.network,
        _ => {}
    }
}

/// The workspace prompt was confirmed.
pub fn set_workspace(state: &mut State, text: &str) {
    if let Some(p) = panel(state) {
        p.workspace = text.trim().to_string();
    }
}

/// `e` (or Enter on the context row): the context in `$EDITOR`, as JSON messages.
fn edit(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(p) = panel(state) else {
        return;
    };
    match &p.input {
        Ok(input) => fx.push(Effect::EditContext {
            text: edit_text(input),
            name: format!("context-step-{}.json", p.step),
        }),
        Err(e) => p.error = Some(e.clone()),
    }
}

/// `a` (or Enter on the answer row): step k's answer in `$EDITOR`, from the recorded one (or
/// the last edit); a continued run executes it instead of asking the model.
fn edit_answer(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(p) = panel(state) else {
        return;
    };
    let answer = p
        .edited_answer
        .clone()
        .unwrap_or_else(|| recorded_answer(&p.trajectory, p.step));
    p.editing_answer = true;
    let suffix = if answer.tool_calls.is_empty() {
        "md"
    } else {
        "json"
    };
    fx.push(Effect::EditContext {
        text: answer_text(&answer),
        name: format!("answer-step-{}.{suffix}", p.step),
    });
}

/// Start, or for a continued run ask first: nothing may run in the workspace unconfirmed.
fn ask(state: &mut State, problem: Option<String>, fx: &mut Vec<Effect>) {
    let Some(p) = panel(state) else {
        return;
    };
    p.error = None;
    if let Err(e) = &p.input {
        p.error = Some(e.clone());
        return;
    }
    if p.backends.is_empty() {
        p.error = Some(problem.unwrap_or_else(|| "no backend configured".into()));
        return;
    }
    match p.mode {
        Mode::Resample => start(state, fx),
        Mode::Continue if p.workspace.trim().is_empty() => {
            p.error = Some(
                "continue runs the agent's commands: give the workspace (the repository at its starting state; Enter on the workspace row)".into(),
            );
        }
        Mode::Continue => p.phase = Phase::Confirm,
    }
}

fn start(state: &mut State, fx: &mut Vec<Effect>) {
    let job = state.next_id();
    let backends = state.replay_setup.clone();
    let Some(p) = panel(state) else {
        return;
    };
    let (Ok(input), Some(backend)) = (&p.input, p.backend_name()) else {
        return;
    };
    fx.push(Effect::Replay(Box::new(ReplayRequest {
        job,
        trajectory: p.trajectory.clone(),
        step: p.step,
        input: input.clone(),
        backend: backend.to_string(),
        backends,
        mode: p.mode,
        samples: p.samples,
        max_steps: p.max_steps,
        workspace: p.workspace.clone().into(),
        sandbox: p.sandbox,
        network: p.network,
        binds: p.binds.clone(),
        edited_answer: p.edited_answer.clone(),
    })));
    p.phase = Phase::Running {
        job,
        cancelling: false,
    };
    p.log.clear();
    p.blocks.clear();
    p.error = None;
    p.outcome = None;
}

/// `c` when done: the last fork against its original, at the first divergence.
fn compare_last(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(p) = panel(state) else {
        return;
    };
    let Some(fork) = p.forks.last().cloned() else {
        p.error = Some("no fork was written".into());
        return;
    };
    let instance = p.trajectory.instance_id.clone();
    state.overlay = None;
    compare::open_fork(state, fork, &instance, fx);
}

pub fn message(state: &mut State, msg: ReplayMsg) {
    if let ReplayMsg::Edited(result) = msg {
        edited(state, result);
        return;
    }
    if let ReplayMsg::Forks { forks, .. } = &msg {
        add_fork_rows(state, forks);
    }
    let Some(p) = panel(state) else {
        return;
    };
    let Phase::Running { job, .. } = p.phase else {
        return;
    };
    if msg.job() != Some(job) {
        return;
    }
    match msg {
        ReplayMsg::Log { line, .. } => p.log.push(line),
        ReplayMsg::Block { title, .. } => p.blocks.push(OutputBlock {
            title,
            ..OutputBlock::default()
        }),
        ReplayMsg::Text { text, .. } => {
            if let Some(block) = p.blocks.last_mut() {
                block.text.push_str(&text);
            }
        }
        ReplayMsg::Note { line, failed, .. } => {
            if let Some(block) = p.blocks.last_mut() {
                block.notes.push(line);
                block.failed |= failed;
            } else {
                p.log.push(line);
            }
        }
        ReplayMsg::Forks { forks, .. } => {
            for f in forks {
                if !p.forks.contains(&f.path) {
                    p.forks.push(f.header.path);
                }
            }
        }
        ReplayMsg::Finished { outcome, error, .. } => {
            p.outcome = Some(outcome);
            p.error = error;
            p.phase = Phase::Done;
        }
        ReplayMsg::Edited(_) => {}
    }
}

fn edited(state: &mut State, result: Result<String, String>) {
    let Some(p) = panel(state) else {
        return;
    };
    let answer = std::mem::take(&mut p.editing_answer);
    let text = match result {
        Ok(text) => text,
        Err(e) => {
            p.error = Some(e);
            return;
        }
    };
    if answer {
        let original = recorded_answer(&p.trajectory, p.step);
        match apply_answer_edit(&original, &text) {
            Ok(message) => {
                p.edited_answer = Some(message);
                p.error = None;
            }
            Err(e) => p.error = Some(e.to_string()),
        }
        return;
    }
    let Ok(input) = &p.input else {
        return;
    };
    match apply_edit(input, &text) {
        Ok(new) => {
            p.edited = new.messages != input.messages || p.edited;
            p.input = Ok(new);
            p.error = None;
        }
        Err(e) => p.error = Some(e.to_string()),
    }
}

/// Forks join the run table (the live watch may bring the same file: one row per file).
fn add_fork_rows(state: &mut State, forks: &[TrajectorySummary]) {
    let mut fresh = Vec::new();
    for fork in forks {
        match state
            .run
            .rows
            .iter()
            .position(|r| r.path == fork.path && r.source_index == fork.source_index)
        {
            Some(row) => state.run.rows[row] = fork.clone(),
            None => fresh.push(fork.clone()),
        }
    }
    state.run.add_rows(fresh);
}

#[cfg(test)]
mod tests {
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
}
