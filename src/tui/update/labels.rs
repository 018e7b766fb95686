//! Labelling steps by hand: `L` asks for a label, `U` removes the step's labels. Each change
//! is counted in the tally at once and saved to the run's label file by a job.

use super::prompt;
use crate::tui::effect::Effect;
use crate::tui::state::prompt::PromptKind;
use crate::tui::state::{Notice, State};

/// Opens the label prompt for the selected step, unless labels cannot be saved for it.
pub fn ask(state: &mut State) {
    let Some(t) = state.open_trajectory() else {
        return;
    };
    if t.step_index().is_none() {
        return;
    }
    if let Some(problem) = state.metrics.label_problem(&t.source.path) {
        state.notice = Some(Notice::error(problem));
        return;
    }
    prompt::open(state, PromptKind::Label);
}

/// Adds `text` as a label of the selected step.
pub fn add(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let Some(t) = state.open_trajectory() else {
        return;
    };
    let (Some(mut trajectory), Some(step)) = (t.trajectory.clone(), t.step_index()) else {
        return;
    };
    if trajectory.lazy.is_some() {
        // The label keeps a hash of its step: read that one step back (at a key press).
        match trajectory.load_step(step) {
            Ok(one) => trajectory = std::sync::Arc::new(one),
            Err(message) => {
                state.notice = Some(Notice::error(message));
                return;
            }
        }
    }
    let path = t.source.path.clone();
    let m = &mut state.metrics;
    let index = match m.set_for(&path) {
        Some(i) => i,
        None => {
            // Opened as a file outside the folders the run was read from: label next to it.
            let root = crate::metrics::LabelSet::root_for(&path);
            m.labels.push(crate::metrics::LabelSet::empty(root));
            m.labels.len() - 1
        }
    };
    let set = &mut m.labels[index];
    match set.add(&trajectory, step, text) {
        Ok(true) => {
            let label = text.trim().to_string();
            state.notice = Some(Notice::info(format!("step {step} labelled “{label}”")));
            saved(state, index, fx);
        }
        Ok(false) => {
            state.notice = Some(Notice::info(format!("step {step} already has that label")));
        }
        Err(err) => state.notice = Some(Notice::error(err.to_string())),
    }
}

/// Removes every label of the selected step.
pub fn remove(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(t) = state.open_trajectory() else {
        return;
    };
    let (Some(trajectory), Some(step)) = (t.trajectory.clone(), t.step_index()) else {
        return;
    };
    let source = t.source.clone();
    let names: Vec<String> = state
        .metrics
        .labels_at(&source, step)
        .into_iter()
        .map(String::from)
        .collect();
    if names.is_empty() {
        state.notice = Some(Notice::info(format!("step {step} has no label")));
        return;
    }
    if let Some(problem) = state.metrics.label_problem(&source.path) {
        state.notice = Some(Notice::error(problem));
        return;
    }
    let Some(index) = state.metrics.set_for(&source.path) else {
        return;
    };
    for name in &names {
        state.metrics.labels[index].remove(&trajectory, step, name);
    }
    state.notice = Some(Notice::info(format!(
        "removed from step {step}: {}",
        names.join(", ")
    )));
    saved(state, index, fx);
}

/// Counts the changed labels and asks for set `index` to be written.
fn saved(state: &mut State, index: usize, fx: &mut Vec<Effect>) {
    let m = &mut state.metrics;
    m.label_edits += 1;
    m.relabel();
    fx.push(Effect::SaveLabels {
        set: m.labels[index].clone(),
        edit: m.label_edits,
    });
}
