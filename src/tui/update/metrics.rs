//! The tally filling in as files are read, eval results joined into it as they arrive, and
//! the label files read and written.

use crate::metrics::{LabelSet, TrajectoryTally};
use crate::tui::state::{Notice, State};
use std::path::PathBuf;

/// The trajectories of one file were tallied by the loading job.
pub fn tallied(state: &mut State, mut tallies: Vec<TrajectoryTally>) {
    state.run.results.apply(&mut tallies);
    let rules = state.metrics.rules().rules();
    for t in &tallies {
        let mut names: Vec<String> = Vec::new();
        for hit in &t.hits {
            if let Some(rule) = rules.get(hit.rule)
                && !names.contains(&rule.name)
            {
                names.push(rule.name.clone());
            }
        }
        state
            .run
            .rule_hits
            .insert((t.path.clone(), t.source_index), names);
    }
    if state.run.applied.uses_rules() {
        state.run.refresh();
    }
    for t in tallies {
        state.metrics.tally.insert(t);
    }
    // Labels on trajectories tallied only now count with their outcome.
    if !state.metrics.labels.is_empty() {
        state.metrics.relabel();
    }
    state.metrics.generation += 1;
}

/// Joins eval results that arrived since the last time into the tally (after any message).
pub fn join_results(state: &mut State) {
    let sources = state.run.results.sources.len();
    let m = &mut state.metrics;
    if sources == m.results_joined {
        return;
    }
    m.results_joined = sources;
    state.run.results.apply(m.tally.trajectories_mut());
    m.generation += 1;
}

pub fn labels_loaded(state: &mut State, sets: Vec<(PathBuf, Result<LabelSet, String>)>) {
    let m = &mut state.metrics;
    m.labels_loaded = true;
    let mut problems = Vec::new();
    for (root, result) in sets {
        match result {
            Ok(set) => m.labels.push(set),
            Err(message) => {
                problems.push(message.clone());
                m.label_errors.push((root, message));
            }
        }
    }
    m.relabel();
    if !problems.is_empty() {
        state.notice = Some(Notice::error(format!(
            "labels not read: {}",
            problems.join("; ")
        )));
    }
}

pub fn labels_saved(state: &mut State, root: PathBuf, edit: u64, result: Result<LabelSet, String>) {
    match result {
        // A save that includes the latest edit brings in what other sessions saved too.
        Ok(saved) if edit == state.metrics.label_edits => {
            let m = &mut state.metrics;
            match m.labels.iter_mut().find(|s| s.root() == root) {
                Some(set) => *set = saved,
                None => m.labels.push(saved),
            }
            m.relabel();
        }
        Ok(_) => {}
        Err(message) => {
            state.notice = Some(Notice::error(format!("labels not saved: {message}")));
        }
    }
}
