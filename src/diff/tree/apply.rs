//! Applying one [`EditOp`] to a file's state.

use super::{FileState, LineRef, Tail, Tree};
use crate::diff::edit::{ContextChunk, EditOp, text_lines};
use crate::diff::patch::{Hunk, LineKind};
use crate::diff::sed;
use std::sync::Arc;

/// Why an edit could not be applied to the reconstruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// The edit is understood, but where it lands in the file is not known (its text is in
    /// a part of the file the log never showed).
    Unplaced(String),
    /// The edit contradicts the reconstruction (the text to replace is not there, the file
    /// does not exist): the reconstruction or the log is incomplete.
    Conflict(String),
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApplyError::Unplaced(r) | ApplyError::Conflict(r) => f.write_str(r),
        }
    }
}

impl Tree {
    /// Applies `op` to `path`, returning the new state (the tree is not changed except for
    /// what is learnt about the original file and for renames, which also write `to`).
    pub fn apply(&mut self, path: &str, op: &EditOp) -> Result<FileState, ApplyError> {
        let mut state = self.state(path);
        let before = (state.lines.clone(), state.tail, state.exists);
        let must_exist = !matches!(
            op,
            EditOp::Write { .. }
                | EditOp::Append { .. }
                | EditOp::CreateEmpty
                | EditOp::Opaque { .. }
                | EditOp::Undo
                | EditOp::Restore
        ) && !matches!(op, EditOp::ReplaceText { old, .. } if old.is_empty());
        if must_exist && !state.exists {
            return Err(ApplyError::Conflict(format!(
                "{path} does not exist at this point"
            )));
        }
        match op {
            EditOp::ReplaceLines { start, end, lines } => {
                if *start == 0 || end + 1 < *start {
                    return Err(ApplyError::Conflict(format!(
                        "bad line range {start}:{end}"
                    )));
                }
                let have = self.materialize(path, &mut state, *end);
                let from = (*start - 1).min(have);
                let to = (*end).min(have).max(from);
                let new = self.intern_all(lines);
                Arc::make_mut(&mut state.lines).splice(from..to, new);
            }
            EditOp::InsertLines { after, lines } => {
                let at = match after {
                    Some(n) => {
                        let have = self.materialize(path, &mut state, *n);
                        if have < *n {
                            return Err(ApplyError::Conflict(format!(
                                "line {n} is past the end of the file"
                            )));
                        }
                        *n
                    }
                    None => {
                        if !self.materialize_all(path, &mut state) {
                            return Err(ApplyError::Unplaced(
                                "the end of the file is not known".into(),
                            ));
                        }
                        state.lines.len()
                    }
                };
                let new = self.intern_all(lines);
                Arc::make_mut(&mut state.lines).splice(at..at, new);
            }
            EditOp::ReplaceText { old, new, all } => {
                if old.is_empty() {
                    if self.len_of(path, &state).is_some_and(|l| l > 0) && state.exists {
                        return Err(ApplyError::Conflict(
                            "empty text to replace in a non-empty file".into(),
                        ));
                    }
                    self.write(&mut state, new);
                } else {
                    self.replace_text(path, &mut state, old, new, *all)?;
                }
            }
            EditOp::Write { text } => self.write(&mut state, text),
            EditOp::Append { text } => {
                if state.exists && !self.materialize_all(path, &mut state) {
                    return Err(ApplyError::Unplaced(
                        "the end of the file is not known".into(),
                    ));
                }
                if !state.exists {
                    state.lines = Arc::new(Vec::new());
                    state.tail = Tail::End;
                    state.exists = true;
                }
                let new = self.intern_all(&text_lines(text));
                Arc::make_mut(&mut state.lines).extend(new);
            }
            EditOp::CreateEmpty => {
                self.create_new(path, &state)?;
                // SWE-agent's `create` writes one newline: an empty first line that
                // `edit 1:1` replaces and `insert` appends after.
                state.exists = true;
                state.lines = Arc::new(vec![LineRef::Text(self.texts.intern(""))]);
                state.tail = Tail::End;
            }
            EditOp::Create { text } => {
                self.create_new(path, &state)?;
                self.write(&mut state, text);
            }
            EditOp::Delete => {
                state.exists = false;
                state.lines = Arc::new(Vec::new());
                state.tail = Tail::End;
            }
            EditOp::Rename { to } | EditOp::Copy { to } => {
                let mut copy = self.detach(path, &state);
                copy.history.clear();
                self.set(to, copy);
                self.base_mut(to).exists.get_or_insert(false);
                if matches!(op, EditOp::Rename { .. }) {
                    state.exists = false;
                    state.lines = Arc::new(Vec::new());
                    state.tail = Tail::End;
                }
            }
            EditOp::Hunks(hunks) => self.apply_hunks(path, &mut state, hunks)?,
            EditOp::Chunks(chunks) => self.apply_chunks(path, &mut state, chunks)?,
            EditOp::Sed(script) => {
                if !(script.scans_all() && self.materialize_all(path, &mut state)) {
                    self.materialize(path, &mut state, script.max_line());
                }
                let lines: Vec<Option<String>> = state
                    .lines
                    .iter()
                    .map(|&l| self.text(path, l).map(String::from))
                    .collect();
                let result = sed::run(script, &lines, state.tail == Tail::End);
                let unseen_tail =
                    state.tail != Tail::End && (script.scans_all() || result.needs_end);
                if result.touched_unseen || unseen_tail {
                    state.doubt =
                        Some("sed may also have changed lines the log never showed".into());
                }
                let new: Vec<LineRef> = result
                    .lines
                    .into_iter()
                    .map(|line| match line {
                        sed::Line::Kept(i) => state.lines[i],
                        sed::Line::New(text) => LineRef::Text(self.texts.intern(&text)),
                    })
                    .collect();
                state.lines = Arc::new(new);
            }
            EditOp::Restore => {
                let exists = self.bases.get(path).and_then(|b| b.exists).unwrap_or(true);
                let history = std::mem::take(&mut state.history);
                state = FileState::original(exists);
                state.history = history;
            }
            EditOp::Undo => match state.history.pop() {
                Some((lines, tail, exists)) => {
                    state.lines = lines;
                    state.tail = tail;
                    state.exists = exists;
                    return Ok(state);
                }
                None => return Err(ApplyError::Conflict("nothing to undo".into())),
            },
            EditOp::Opaque { reason } => {
                let mut lost = FileState::original(true);
                lost.tail = self.unknown_tail();
                lost.lost = Some(reason.clone());
                lost.history = std::mem::take(&mut state.history);
                state = lost;
            }
        }
        state.history.push(before);
        Ok(state)
    }

    fn intern_all(&mut self, lines: &[String]) -> Vec<LineRef> {
        lines
            .iter()
            .map(|l| LineRef::Text(self.texts.intern(l)))
            .collect()
    }

    /// A create that refuses existing files: a conflict when `path` is known to exist;
    /// else, if the trajectory had not touched it, it did not exist before it.
    fn create_new(&mut self, path: &str, state: &FileState) -> Result<(), ApplyError> {
        if state.exists
            && (self.files.contains_key(path)
                || self.bases.get(path).and_then(|b| b.exists) == Some(true))
        {
            return Err(ApplyError::Conflict(format!("{path} already exists")));
        }
        if !self.files.contains_key(path) {
            self.base_mut(path).exists.get_or_insert(false);
        }
        Ok(())
    }

    fn write(&mut self, state: &mut FileState, text: &str) {
        state.exists = true;
        state.lines = Arc::new(self.intern_all(&text_lines(text)));
        state.tail = Tail::End;
    }

    /// The state with original-line references replaced by their text (or unknown lines),
    /// for a copy under another name.
    fn detach(&mut self, path: &str, state: &FileState) -> FileState {
        let mut copy = state.clone();
        let lines: Vec<LineRef> = state
            .lines
            .iter()
            .map(|&l| match (l, self.text(path, l)) {
                (LineRef::Base(_), Some(t)) => {
                    let t = t.to_string();
                    LineRef::Text(self.texts.intern(&t))
                }
                (LineRef::Base(_), None) => self.fresh_unknown(),
                (other, _) => other,
            })
            .collect();
        copy.lines = Arc::new(lines);
        if copy.tail != Tail::End {
            copy.tail = self.unknown_tail();
        }
        copy
    }

    fn replace_text(
        &mut self,
        path: &str,
        state: &mut FileState,
        old: &str,
        new: &str,
        all: bool,
    ) -> Result<(), ApplyError> {
        // Unseen lines become NUL so that a match can never span them.
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(state.lines.len());
        for &line in state.lines.iter() {
            starts.push(joined.len());
            joined.push_str(self.text(path, line).unwrap_or("\0"));
            joined.push('\n');
        }
        let complete =
            state.tail == Tail::End && !state.lines.iter().any(|&l| self.text(path, l).is_none());
        let matches: Vec<usize> = joined.match_indices(old).map(|(i, _)| i).collect();
        if matches.is_empty() {
            return Err(if complete {
                ApplyError::Conflict(
                    "the text to replace is not in the file as reconstructed".into(),
                )
            } else {
                ApplyError::Unplaced(
                    "the text to replace is in a part of the file the log never showed".into(),
                )
            });
        }
        if matches.len() > 1 && !all {
            state.doubt = Some(format!(
                "the text to replace occurs {} times in what the log showed; the first was used",
                matches.len()
            ));
        }
        if all && !complete {
            state.doubt =
                Some("replace-all may also have changed lines the log never showed".into());
        }
        let chosen = if all { matches } else { vec![matches[0]] };
        // From the last match back, so earlier offsets stay valid.
        for &at in chosen.iter().rev() {
            let first = starts.partition_point(|&s| s <= at) - 1;
            let end_byte = at + old.len();
            let mut last = starts
                .partition_point(|&s| s < end_byte)
                .saturating_sub(1)
                .max(first);
            let line_end = |k: usize| starts.get(k + 1).copied().unwrap_or(joined.len());
            let mut text = format!(
                "{}{}{}",
                &joined[starts[first]..at],
                new,
                &joined[end_byte..line_end(last)]
            );
            // The match ate a line end that the replacement does not give back: the next
            // line joins this one.
            while !text.ends_with('\n') && last + 1 < starts.len() {
                last += 1;
                text.push_str(&joined[starts[last]..line_end(last)]);
            }
            let body = text.strip_suffix('\n').unwrap_or(&text);
            let new_lines: Vec<LineRef> = if text.is_empty() {
                Vec::new()
            } else {
                body.split('\n')
                    .map(|l| LineRef::Text(self.texts.intern(l)))
                    .collect()
            };
            Arc::make_mut(&mut state.lines).splice(first..=last, new_lines);
        }
        Ok(())
    }

    fn apply_hunks(
        &mut self,
        path: &str,
        state: &mut FileState,
        hunks: &[Hunk],
    ) -> Result<(), ApplyError> {
        let mut ordered: Vec<&Hunk> = hunks.iter().collect();
        ordered.sort_by_key(|h| std::cmp::Reverse(h.old_start.unwrap_or(0)));
        for hunk in ordered {
            let Some(start) = hunk.old_start else {
                return Err(ApplyError::Unplaced("a hunk without line numbers".into()));
            };
            let old: Vec<&str> = hunk
                .lines
                .iter()
                .filter(|l| l.kind != LineKind::Added)
                .filter_map(|l| l.text.as_deref())
                .collect();
            let new: Vec<String> = hunk
                .lines
                .iter()
                .filter(|l| l.kind != LineKind::Removed)
                .filter_map(|l| l.text.clone())
                .collect();
            // An empty old side sits after line `start`; otherwise it starts at `start`.
            let from = if old.is_empty() {
                start
            } else {
                start.saturating_sub(1)
            };
            let have = self.materialize(path, state, from + old.len());
            if have < from + old.len() {
                return Err(ApplyError::Conflict(format!(
                    "hunk at line {start} is past the end of the file"
                )));
            }
            self.learn_lines(path, state, from + 1, &old, "a patch");
            let new = self.intern_all(&new);
            Arc::make_mut(&mut state.lines).splice(from..from + old.len(), new);
        }
        Ok(())
    }

    fn apply_chunks(
        &mut self,
        path: &str,
        state: &mut FileState,
        chunks: &[ContextChunk],
    ) -> Result<(), ApplyError> {
        let known = self.materialize_all(path, state);
        let mut cursor = 0;
        for chunk in chunks {
            let texts: Vec<Option<String>> = state
                .lines
                .iter()
                .map(|&l| self.text(path, l).map(String::from))
                .collect();
            if let Some(anchor) = &chunk.anchor {
                match find_seq(&texts, std::slice::from_ref(anchor), cursor, false) {
                    Some(i) => cursor = i + 1,
                    None if known => {
                        return Err(ApplyError::Conflict(format!("anchor `{anchor}` not found")));
                    }
                    None => {
                        return Err(ApplyError::Unplaced(format!(
                            "anchor `{anchor}` is in a part of the file the log never showed"
                        )));
                    }
                }
            }
            let at = if chunk.old.is_empty() {
                Some(texts.len())
            } else {
                find_seq(&texts, &chunk.old, cursor, chunk.at_end)
            };
            let Some(at) = at else {
                return Err(if known && texts.iter().all(Option::is_some) {
                    ApplyError::Conflict(
                        "the patch context is not in the file as reconstructed".into(),
                    )
                } else {
                    ApplyError::Unplaced(
                        "the patch context is in a part of the file the log never showed".into(),
                    )
                });
            };
            let new = self.intern_all(&chunk.new);
            cursor = at + new.len();
            Arc::make_mut(&mut state.lines).splice(at..at + chunk.old.len(), new);
        }
        Ok(())
    }
}

/// Where `pattern` occurs in `lines` from `from` on: exactly, then ignoring trailing and
/// then surrounding whitespace, as Codex's `apply_patch` does.
fn find_seq(
    lines: &[Option<String>],
    pattern: &[String],
    from: usize,
    at_end: bool,
) -> Option<usize> {
    if pattern.len() > lines.len() {
        return None;
    }
    let norms: [fn(&str) -> &str; 3] = [|s| s, str::trim_end, str::trim];
    for norm in norms {
        let matches = |i: usize| {
            pattern
                .iter()
                .zip(&lines[i..])
                .all(|(p, l)| l.as_deref().is_some_and(|l| norm(l) == norm(p)))
        };
        let last = lines.len() - pattern.len();
        if at_end && matches(last) {
            return Some(last);
        }
        if let Some(i) = (from.min(last + 1)..=last).find(|&i| matches(i)) {
            return Some(i);
        }
    }
    None
}
