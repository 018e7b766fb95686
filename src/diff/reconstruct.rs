//! One pass over a trajectory: each step's edits applied in order to the working tree,
//! with what every observation showed of the files. The result answers, per step, "what
//! did this step change" and "what did the files look like then".

use super::delta::{cumulative, intended, state_diff};
use super::edit::{Edit, EditOp, text_lines};
use super::interpret::{Intent, interpret};
use super::patch::{FileDiff, LineKind};
use super::paths::Paths;
use super::tree::{ApplyError, FileState, Tail, Tree, View};
use super::view::{cat_n_blocks, views_of, windows};
use crate::model::{Step, Trajectory};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// How an edit fared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum EditStatus {
    Applied,
    /// Applied, but it may not have run or may have touched lines never seen.
    Doubtful(String),
    /// The tool said it did not apply the edit; the diff is what was asked.
    Rejected(String),
    /// Understood, but where it lands in the file is unknown; the diff has no positions.
    Unplaced(String),
    /// It contradicts the reconstruction (the text to replace is not there).
    Conflict(String),
    /// Could not interpret: a malformed command or a missing argument. No diff.
    Uninterpreted(String),
    /// A command that may have changed the file in ways trajscope cannot follow.
    Opaque(String),
}

impl EditStatus {
    pub fn is_applied(&self) -> bool {
        matches!(self, EditStatus::Applied | EditStatus::Doubtful(_))
    }
}

/// One edit of a step, with its diff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EditOutcome {
    /// How the action said it: `edit 10:12`, `str_replace_editor str_replace`, `sed -i`.
    pub label: String,
    /// The file, relative to the repository when possible; `None` when unknown.
    pub path: Option<String>,
    #[serde(flatten)]
    pub status: EditStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<FileDiff>,
}

/// A file's state at one step, for the working-tree view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileSnapshot {
    pub path: String,
    pub exists: bool,
    /// The lines as far as known, in order (`None`: a line never seen).
    pub lines: Vec<Option<String>>,
    /// More lines follow that were never seen (how many, when known).
    pub unseen_after: Option<Option<usize>>,
    /// Some lines may be wrong: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doubt: Option<String>,
    /// Lost track of the file: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lost: Option<String>,
    /// The trajectory edited it (not only viewed it) by this step.
    pub edited: bool,
}

/// The cumulative change of one file from the start to a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CumulativeChange {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<FileDiff>,
    /// Why there is no diff, or what to keep in mind reading it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The working tree of a trajectory, step by step.
#[derive(Debug)]
pub struct Reconstruction {
    tree: Tree,
    steps: Vec<Vec<EditOutcome>>,
    snapshots: Vec<BTreeMap<String, Arc<FileState>>>,
    edited_by: Vec<BTreeSet<String>>,
    paths: Paths,
}

impl Reconstruction {
    /// Replays `trajectory`. Linear in its size; cheap enough to run on open and keep.
    pub fn of(trajectory: &Trajectory) -> Reconstruction {
        let paths = Paths::of(trajectory);
        let mut r = Reconstruction {
            tree: Tree::default(),
            steps: Vec::with_capacity(trajectory.steps.len()),
            snapshots: Vec::with_capacity(trajectory.steps.len()),
            edited_by: Vec::with_capacity(trajectory.steps.len()),
            paths,
        };
        let mut open_file: Option<String> = None;
        let mut edited: BTreeSet<String> = BTreeSet::new();
        for step in &trajectory.steps {
            let intent = interpret(step);
            let outcomes = r.apply_step(step, &intent, &mut open_file, &mut edited);
            r.learn_views(step, &intent, &mut open_file);
            r.steps.push(outcomes);
            r.snapshots.push(r.tree.files.clone());
            r.edited_by.push(edited.clone());
        }
        r
    }

    /// The edits of step `step` (1-based); empty for steps that edit nothing.
    pub fn step_edits(&self, step: usize) -> &[EditOutcome] {
        step.checked_sub(1)
            .and_then(|i| self.steps.get(i))
            .map_or(&[], Vec::as_slice)
    }

    /// Steps that edit files (or tried to), 1-based.
    pub fn editing_steps(&self) -> Vec<usize> {
        (1..=self.steps.len())
            .filter(|&k| !self.step_edits(k).is_empty())
            .collect()
    }

    /// The files after step `step` (1-based): every file edited or viewed so far.
    pub fn files_at(&self, step: usize) -> Vec<FileSnapshot> {
        let Some(files) = step.checked_sub(1).and_then(|i| self.snapshots.get(i)) else {
            return Vec::new();
        };
        let edited = &self.edited_by[step - 1];
        files
            .iter()
            .map(|(path, state)| {
                let unseen_after = match state.tail {
                    Tail::End => None,
                    Tail::Unknown { .. } => Some(None),
                    Tail::Base(_) => {
                        Some(self.tree.len_of(path, state).map(|l| l - state.lines.len()))
                    }
                };
                FileSnapshot {
                    path: path.clone(),
                    exists: state.exists,
                    lines: state
                        .lines
                        .iter()
                        .map(|&l| self.tree.text(path, l).map(String::from))
                        .collect(),
                    unseen_after,
                    doubt: state.doubt.clone(),
                    lost: state.lost.clone(),
                    edited: edited.contains(path),
                }
            })
            .collect()
    }

    /// The change of each edited file from the start to the end of step `step`.
    pub fn cumulative_at(&self, step: usize) -> Vec<CumulativeChange> {
        let Some(files) = step.checked_sub(1).and_then(|i| self.snapshots.get(i)) else {
            return Vec::new();
        };
        self.edited_by[step - 1]
            .iter()
            .filter_map(|path| {
                let state = files.get(path)?;
                Some(match cumulative(&self.tree, path, state) {
                    Ok(Some(diff)) => CumulativeChange {
                        path: path.clone(),
                        note: diff.note.clone().or(state.doubt.clone()),
                        diff: Some(diff),
                    },
                    Ok(None) => return None,
                    Err(lost) => CumulativeChange {
                        path: path.clone(),
                        diff: None,
                        note: Some(format!("unknown: {lost}")),
                    },
                })
            })
            .collect()
    }

    /// The cumulative change at the last step.
    pub fn final_changes(&self) -> Vec<CumulativeChange> {
        self.cumulative_at(self.steps.len())
    }

    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    pub fn paths(&self) -> &Paths {
        &self.paths
    }

    /// The known lines (`None`: never seen) of the file that `same_file` matches to `path`
    /// after step `step` (1-based), and whether the trajectory had edited it by then; `None`
    /// when the file was neither seen nor edited by that step. Cheaper than [`files_at`]
    /// for asking about a few files at every step (the gold proximity).
    ///
    /// [`files_at`]: Reconstruction::files_at
    pub fn known_lines(&self, step: usize, path: &str) -> Option<(Vec<Option<&str>>, bool)> {
        let files = self.snapshots.get(step.checked_sub(1)?)?;
        let (name, state) = files
            .iter()
            .find(|(name, _)| super::paths::same_file(name, path))?;
        let lines = state
            .lines
            .iter()
            .map(|&l| self.tree.text(name, l))
            .collect();
        Some((lines, self.edited_by[step - 1].contains(name)))
    }

    pub(crate) fn final_state(&self, path: &str) -> Option<(&Tree, &FileState)> {
        let state = self.snapshots.last()?.get(path)?;
        Some((&self.tree, state))
    }

    fn apply_step(
        &mut self,
        step: &Step,
        intent: &Intent,
        open_file: &mut Option<String>,
        edited: &mut BTreeSet<String>,
    ) -> Vec<EditOutcome> {
        let mut outcomes = Vec::new();
        for attempt in &intent.attempts {
            let edit = match attempt {
                Err(u) => {
                    outcomes.push(EditOutcome {
                        label: u.label.clone(),
                        path: u.path.as_deref().map(|p| self.paths.canonical(p)),
                        status: EditStatus::Uninterpreted(u.reason.clone()),
                        diff: None,
                    });
                    continue;
                }
                Ok(edit) => edit,
            };
            let path = match &edit.path {
                Some(p) => Some(self.paths.canonical(p)),
                None => open_file.clone(),
            };
            let Some(path) = path else {
                let reason = if matches!(edit.op, EditOp::Opaque { .. }) {
                    op_reason(&edit.op)
                } else {
                    "no file is open".into()
                };
                outcomes.push(EditOutcome {
                    label: edit.label.clone(),
                    path: None,
                    status: if matches!(edit.op, EditOp::Opaque { .. }) {
                        EditStatus::Opaque(reason)
                    } else {
                        EditStatus::Uninterpreted(reason)
                    },
                    diff: None,
                });
                continue;
            };
            outcomes.push(self.apply_edit(step, intent, edit, &path, open_file, edited));
        }
        // `cat > fix.py <<EOF … && python fix.py`: the script's text is known by now.
        let scripts = intent
            .command
            .as_deref()
            .map(super::interpret::scripts_run)
            .unwrap_or_default();
        for (interpreter, script) in scripts {
            let path = self.paths.canonical(&script);
            let Some(code) = self.full_text(&path) else {
                continue;
            };
            for attempt in super::interpret::script_writes(&code, &interpreter)
                .into_iter()
                .flatten()
            {
                let target = attempt.path.as_deref().map(|p| self.paths.canonical(p));
                if let Some(target) = target {
                    outcomes
                        .push(self.apply_edit(step, intent, &attempt, &target, open_file, edited));
                }
            }
        }
        outcomes
    }

    /// The whole text of a file, when every line of it is known.
    fn full_text(&self, path: &str) -> Option<String> {
        let state = self.tree.files.get(path)?;
        if !state.exists || state.tail != Tail::End {
            return None;
        }
        let lines: Option<Vec<&str>> = state
            .lines
            .iter()
            .map(|&l| self.tree.text(path, l))
            .collect();
        Some(lines?.join("\n"))
    }

    fn apply_edit(
        &mut self,
        step: &Step,
        intent: &Intent,
        edit: &Edit,
        path: &str,
        open_file: &mut Option<String>,
        edited: &mut BTreeSet<String>,
    ) -> EditOutcome {
        let outcome = |status, diff| EditOutcome {
            label: edit.label.clone(),
            path: Some(path.to_string()),
            status,
            diff,
        };
        if let Some(reason) = &intent.rejected {
            return outcome(
                EditStatus::Rejected(reason.clone()),
                self.intended_diff(path, &edit.op),
            );
        }
        let mut result = self.tree.apply(path, &edit.op);
        if let (Err(ApplyError::Unplaced(_)), EditOp::ReplaceText { old, new, .. }) =
            (&result, &edit.op)
            && self.place_by_snippet(step, path, old, new)
        {
            result = self.tree.apply(path, &edit.op);
        }
        match result {
            Ok(mut state) => {
                // The tree still holds the state before the edit.
                let mut before = self.tree.state(path);
                self.tree.align(path, &mut before, &state);
                // A file written whole before anything was seen of it: most likely new
                // (a script, a test); the cumulative change says what is not known.
                let unseen_before = !self.tree.files.contains_key(path)
                    && self.tree.base(path).and_then(|b| b.exists).is_none()
                    && matches!(edit.op, EditOp::Write { .. });
                if unseen_before {
                    before = FileState::original(false);
                }
                let mut diff = state_diff(&self.tree, path, &before, &state);
                if unseen_before {
                    diff.note = Some("nothing of it was seen before: shown as a new file".into());
                }
                if let Some(reason) = &intent.maybe_not_run {
                    state.doubt.get_or_insert_with(|| reason.clone());
                }
                let status = match (&edit.op, &state.doubt, &intent.maybe_not_run) {
                    (EditOp::Opaque { reason }, _, _) => EditStatus::Opaque(reason.clone()),
                    (_, _, Some(reason)) => EditStatus::Doubtful(reason.clone()),
                    (_, Some(doubt), _) if before.doubt.as_ref() != Some(doubt) => {
                        EditStatus::Doubtful(doubt.clone())
                    }
                    _ => EditStatus::Applied,
                };
                if let EditOp::Rename { to } | EditOp::Copy { to } = &edit.op {
                    edited.insert(self.paths.canonical(to));
                }
                let is_opaque = matches!(status, EditStatus::Opaque(_));
                self.tree.set(path, state);
                edited.insert(path.to_string());
                if matches!(edit.op, EditOp::CreateEmpty) {
                    *open_file = Some(path.to_string());
                }
                outcome(status, (!is_opaque).then_some(diff))
            }
            Err(err) => {
                let diff = self.intended_diff(path, &edit.op);
                let mut lost = FileState::original(true);
                lost.tail = self.tree.unknown_tail();
                lost.lost = Some(format!(
                    "step {} changed it where the log never showed: {err}",
                    step.index
                ));
                self.tree.set(path, lost);
                edited.insert(path.to_string());
                let status = match err {
                    ApplyError::Unplaced(r) => EditStatus::Unplaced(r),
                    ApplyError::Conflict(r) => EditStatus::Conflict(r),
                };
                outcome(status, diff)
            }
        }
    }

    /// What the edit asked for, without positions: for refused or unplaceable edits.
    fn intended_diff(&self, path: &str, op: &EditOp) -> Option<FileDiff> {
        let (old, new) = match op {
            EditOp::ReplaceText { old, new, .. } => (text_lines(old), text_lines(new)),
            EditOp::ReplaceLines { lines, .. } | EditOp::InsertLines { lines, .. } => {
                (Vec::new(), lines.clone())
            }
            EditOp::Write { text } | EditOp::Create { text } | EditOp::Append { text } => {
                (Vec::new(), text_lines(text))
            }
            EditOp::Chunks(chunks) => {
                chunks
                    .iter()
                    .fold((Vec::new(), Vec::new()), |(mut o, mut n), c| {
                        o.extend(c.old.iter().cloned());
                        n.extend(c.new.iter().cloned());
                        (o, n)
                    })
            }
            EditOp::Hunks(hunks) => {
                let mut diff = FileDiff::new(path, super::patch::FileChange::Modified);
                diff.hunks = hunks.clone();
                return Some(diff);
            }
            _ => return None,
        };
        Some(intended(path, &old, &new))
    }

    /// A `str_replace` on text never seen: the tool's snippet of the result shows where
    /// it landed, which tells the lines as they were before.
    fn place_by_snippet(&mut self, step: &Step, path: &str, old: &str, new: &str) -> bool {
        if new.is_empty() {
            return false;
        }
        let snippet = cat_n_blocks(&step.observation, false)
            .into_iter()
            .find(|v| super::paths::same_file(&self.paths.canonical(&v.path), path));
        let Some(snippet) = snippet else { return false };
        let joined = snippet.lines.join("\n");
        let hits: Vec<usize> = joined.match_indices(new).map(|(i, _)| i).collect();
        let [at] = hits.as_slice() else { return false };
        let line_start = joined[..*at].rfind('\n').map_or(0, |p| p + 1);
        let end = at + new.len();
        let line_end = joined[end..].find('\n').map_or(joined.len(), |p| end + p);
        let before = format!(
            "{}{}{}",
            &joined[line_start..*at],
            old,
            &joined[end..line_end]
        );
        let first = snippet.first + joined[..line_start].matches('\n').count();
        let view = View {
            path: path.to_string(),
            first,
            lines: before.split('\n').map(String::from).collect(),
            total: None,
        };
        self.tree
            .learn_view(path, &view, &format!("the snippet of step {}", step.index));
        true
    }

    fn learn_views(&mut self, step: &Step, intent: &Intent, open_file: &mut Option<String>) {
        let mut views = views_of(step, intent.command.as_deref(), intent.whole_view);
        views.extend(tool_views(step));
        for view in &views {
            let path = self.paths.canonical(&view.path);
            self.tree
                .learn_view(&path, view, &format!("step {}", step.index));
        }
        if let Some(last) = windows(&step.observation).last() {
            *open_file = Some(self.paths.canonical(&last.path));
        }
    }
}

fn op_reason(op: &EditOp) -> String {
    match op {
        EditOp::Opaque { reason } => reason.clone(),
        _ => String::new(),
    }
}

/// Views from reading tools without a header: Claude Code `Read`, Llama `view_file`.
fn tool_views(step: &Step) -> Vec<View> {
    let [call] = step.tool_calls.as_slice() else {
        return pythonic_view(step);
    };
    let args = call.arguments_json().unwrap_or_default();
    match call.name.as_str() {
        "Read" => {
            let Some(path) = call.argument("file_path") else {
                return Vec::new();
            };
            let lines: Vec<&str> = step.observation.lines().collect();
            let mut views = Vec::new();
            let mut run: Option<View> = None;
            for line in lines {
                let Some((number, text)) = line.split_once('→').or_else(|| line.split_once('\t'))
                else {
                    continue;
                };
                let Ok(n) = number.trim().parse::<usize>() else {
                    continue;
                };
                match run.as_mut() {
                    Some(v) if v.first + v.lines.len() == n => v.lines.push(text.to_string()),
                    _ => {
                        views.extend(run.take());
                        run = Some(View {
                            path: path.clone(),
                            first: n,
                            lines: vec![text.to_string()],
                            total: None,
                        });
                    }
                }
            }
            views.extend(run);
            views
        }
        "view_file" if !step.failed => match args.get("path").and_then(|p| p.as_str()) {
            Some(path) => vec![whole_file_view(path, &step.observation)],
            None => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn pythonic_view(step: &Step) -> Vec<View> {
    if !step.tool_calls.is_empty()
        || !step.action.contains("view_file(")
        || step.action.contains("edit_file(")
    {
        return Vec::new();
    }
    let calls = super::interpret::pythonic_calls(&step.action, &["view_file"]);
    let [(_, Some(args))] = calls.as_slice() else {
        return Vec::new();
    };
    let args: serde_json::Value = serde_json::from_str(args).unwrap_or_default();
    match args.get("path").and_then(|p| p.as_str()) {
        Some(path) if !step.observation.starts_with("ERROR") => {
            vec![whole_file_view(path, &step.observation)]
        }
        _ => Vec::new(),
    }
}

fn whole_file_view(path: &str, content: &str) -> View {
    let lines = text_lines(content);
    let ends_clean = lines.last().is_some_and(|l| !l.trim().is_empty());
    View {
        path: path.to_string(),
        first: 1,
        total: ends_clean.then_some(lines.len()),
        lines,
    }
}

/// Added and removed line counts of a step's applied edits, for step lists.
pub fn churn(outcomes: &[EditOutcome]) -> (usize, usize) {
    outcomes
        .iter()
        .filter(|o| o.status.is_applied())
        .filter_map(|o| o.diff.as_ref())
        .flat_map(|d| d.hunks.iter().flat_map(|h| h.lines.iter()))
        .fold((0, 0), |(a, r), l| match l.kind {
            LineKind::Added => (a + 1, r),
            LineKind::Removed => (a, r + 1),
            LineKind::Context => (a, r),
        })
}

#[cfg(test)]
mod tests;
