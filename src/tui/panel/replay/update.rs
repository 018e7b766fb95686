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
mod tests;
