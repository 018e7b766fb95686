//! Diffs between file states: what one edit changed, and the cumulative change from the
//! original file.

use super::patch::{DiffLine, FileChange, FileDiff, Hunk, LineKind};
use super::tree::{FileState, LineRef, Tail, Tree};
use super::unified::{CONTEXT_LINES, Key, hunks};

/// A stand-in for "the rest of the file, never seen" when one side has it and the other not.
const UNSEEN_REST: u64 = u64::MAX;

/// What turned `old` into `new` (two states of `path`).
pub fn state_diff(tree: &Tree, path: &str, old: &FileState, new: &FileState) -> FileDiff {
    let change = match (old.exists, new.exists) {
        (false, true) => FileChange::Created,
        (true, false) => FileChange::Deleted,
        _ => FileChange::Modified,
    };
    let mut diff = FileDiff::new(path, change);
    let old_lines: &[LineRef] = if old.exists { &old.lines } else { &[] };
    let new_lines: &[LineRef] = if new.exists { &new.lines } else { &[] };
    let prefix = old_lines
        .iter()
        .zip(new_lines)
        .take_while(|(a, b)| a == b)
        .count();
    let same_tail = old.tail == new.tail || !old.exists || !new.exists;
    let suffix = if same_tail {
        old_lines[prefix..]
            .iter()
            .rev()
            .zip(new_lines[prefix..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count()
    } else {
        0
    };
    let from = prefix.saturating_sub(CONTEXT_LINES);
    let old_to = (old_lines.len() - suffix + CONTEXT_LINES).min(old_lines.len());
    let new_to = (new_lines.len() - suffix + CONTEXT_LINES).min(new_lines.len());
    let mut old_keys: Vec<Key> = old_lines[from..old_to]
        .iter()
        .map(|&l| tree.key(path, l))
        .collect();
    let mut new_keys: Vec<Key> = new_lines[from..new_to]
        .iter()
        .map(|&l| tree.key(path, l))
        .collect();
    if !same_tail {
        if old.exists && old.tail != Tail::End && old_to == old_lines.len() {
            old_keys.push(Key::Unseen(UNSEEN_REST));
        }
        if new.exists && new.tail != Tail::End && new_to == new_lines.len() {
            new_keys.push(Key::Unseen(UNSEEN_REST));
        }
    }
    diff.hunks = hunks(
        &old_keys,
        &new_keys,
        Some(from + 1),
        Some(from + 1),
        CONTEXT_LINES,
    );
    diff
}

/// The change from the original file to `state`, or why it cannot be known.
pub fn cumulative(tree: &Tree, path: &str, state: &FileState) -> Result<Option<FileDiff>, String> {
    if let Some(lost) = &state.lost {
        return Err(lost.clone());
    }
    let base = tree.base(path);
    let base_exists = base.and_then(|b| b.exists);
    let mut old = tree.original_lines(path, state);
    let mut new: Vec<LineRef> = if state.exists {
        state.lines.to_vec()
    } else {
        Vec::new()
    };
    if let (true, Tail::Base(n), Some(len)) = (state.exists, state.tail, base.and_then(|b| b.len)) {
        new.extend((n..=len as u32).map(LineRef::Base));
    }
    let written_over_unseen = base_exists.is_none()
        && state.tail == Tail::End
        && !new.iter().any(|l| matches!(l, LineRef::Base(_)));
    let change = match (base_exists, state.exists) {
        (Some(false), false) => return Ok(None),
        (Some(false), true) => FileChange::Created,
        (_, false) => FileChange::Deleted,
        _ => FileChange::Modified,
    };
    let mut diff = FileDiff::new(path, change);
    let mut old_keys: Vec<Key> = old.drain(..).map(|l| tree.key(path, l)).collect();
    if written_over_unseen {
        diff.note =
            Some("written whole; what was there before (if anything) was never seen".into());
        old_keys = vec![Key::Unseen(UNSEEN_REST)];
    } else if change == FileChange::Deleted && base.and_then(|b| b.len).is_none() {
        old_keys.push(Key::Unseen(UNSEEN_REST));
    }
    let new_keys: Vec<Key> = new.iter().map(|&l| tree.key(path, l)).collect();
    diff.hunks = hunks(&old_keys, &new_keys, Some(1), Some(1), CONTEXT_LINES);
    if written_over_unseen {
        for hunk in &mut diff.hunks {
            hunk.old_start = None;
            for line in &mut hunk.lines {
                line.old_line = None;
            }
        }
    }
    Ok(Some(diff))
}

/// What an edit that did not land (refused, or not placeable) asked for, without positions.
pub fn intended(path: &str, old: &[String], new: &[String]) -> FileDiff {
    let mut diff = FileDiff::new(path, FileChange::Modified);
    let mut lines: Vec<DiffLine> = old
        .iter()
        .map(|t| DiffLine::new(LineKind::Removed, t.clone()))
        .collect();
    lines.extend(
        new.iter()
            .map(|t| DiffLine::new(LineKind::Added, t.clone())),
    );
    if !lines.is_empty() {
        diff.hunks.push(Hunk {
            old_start: None,
            old_len: old.len(),
            new_start: None,
            new_len: new.len(),
            section: String::new(),
            lines,
        });
    }
    diff
}
