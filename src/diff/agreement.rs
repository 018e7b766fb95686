//! The submitted patch against the reconstruction: per file, do the edits the log shows add
//! up to what was submitted? Agents edit, revert and re-edit; this says where the story the
//! log tells and the patch part ways, and says "unknown" where the log cannot tell.

use super::patch::{FileChange, FileDiff, LineKind, parse_patch};
use super::paths::same_file;
use super::reconstruct::{EditStatus, Reconstruction};
use super::tree::{LineRef, Tail, Tree};
use super::unified::{CONTEXT_LINES, Key, hunks};
use crate::model::Trajectory;
use serde::Serialize;
use std::collections::HashMap;

/// Whether the reconstruction and the submission agree on one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "agreement", content = "detail", rename_all = "snake_case")]
pub enum Agreement {
    Agrees,
    Differs(String),
    /// The log does not show enough to tell.
    Unknown(String),
    /// The submission changes it, but the log shows no edit of it: often files the
    /// environment changed (build output, `tox.ini`), or an edit by a command trajscope
    /// does not read.
    NotInLog,
    /// The trajectory changed it, but the submission leaves it out (often a reproduction
    /// script that submission tooling drops).
    NotSubmitted,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileAgreement {
    pub path: String,
    #[serde(flatten)]
    pub agreement: Agreement,
    /// Where they part: the reconstruction's final file → the submission's result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<FileDiff>,
}

/// The check of a whole submission.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubmissionCheck {
    /// The submission, parsed.
    pub submission: Vec<FileDiff>,
    pub files: Vec<FileAgreement>,
}

impl SubmissionCheck {
    /// (agrees, differs, unknown) over the submitted files the log edits.
    pub fn counts(&self) -> (usize, usize, usize) {
        self.files
            .iter()
            .fold((0, 0, 0), |(a, d, u), f| match f.agreement {
                Agreement::Agrees => (a + 1, d, u),
                Agreement::Differs(_) => (a, d + 1, u),
                Agreement::Unknown(_) => (a, d, u + 1),
                Agreement::NotSubmitted | Agreement::NotInLog => (a, d, u),
            })
    }
}

/// Checks the trajectory's submission against its reconstruction; `None` without one.
pub fn check_submission(
    trajectory: &Trajectory,
    reconstruction: &Reconstruction,
) -> Option<SubmissionCheck> {
    let submission = parse_patch(trajectory.submission.as_deref()?);
    let last = reconstruction.steps();
    let edited: Vec<String> = reconstruction
        .files_at(last)
        .into_iter()
        .filter(|f| f.edited)
        .map(|f| f.path)
        .collect();
    let blind_writer = (1..=last)
        .flat_map(|k| reconstruction.step_edits(k))
        .any(|e| matches!(e.status, EditStatus::Opaque(_)) && e.path.is_none());
    let mut files = Vec::new();
    for file in &submission {
        let tracked = edited.iter().find(|p| same_file(p, &file.path));
        let (agreement, mismatch) =
            match tracked.and_then(|p| reconstruction.final_state(p).map(|s| (p, s))) {
                None if blind_writer => (
                    Agreement::Unknown("changed only by commands trajscope cannot follow".into()),
                    None,
                ),
                None => (Agreement::NotInLog, None),
                Some((path, (tree, state))) => match &state.lost {
                    Some(lost) => (Agreement::Unknown(lost.clone()), None),
                    None => compare(tree, path, state, file),
                },
            };
        files.push(FileAgreement {
            path: file.path.clone(),
            agreement,
            mismatch,
        });
    }
    for change in reconstruction.final_changes() {
        let in_submission = submission.iter().any(|f| same_file(&f.path, &change.path));
        let changed = change.diff.as_ref().is_some_and(|d| !d.is_empty());
        if !in_submission && changed && !change.path.starts_with('/') {
            files.push(FileAgreement {
                path: change.path,
                agreement: Agreement::NotSubmitted,
                mismatch: None,
            });
        }
    }
    Some(SubmissionCheck { submission, files })
}

/// A line of either side of the comparison.
#[derive(Clone, Copy)]
enum Item<'a> {
    Base(u32),
    Text(&'a str),
}

fn compare<'a>(
    tree: &'a Tree,
    path: &str,
    state: &'a super::tree::FileState,
    file: &'a FileDiff,
) -> (Agreement, Option<FileDiff>) {
    let base = tree.base(path);
    let base_exists = base.and_then(|b| b.exists);
    match (file.change, state.exists) {
        (FileChange::Deleted, false) => return (Agreement::Agrees, None),
        (FileChange::Deleted, true) => {
            return (
                Agreement::Differs("submitted as deleted; the log leaves it in place".into()),
                None,
            );
        }
        (_, false) => {
            return (
                Agreement::Differs("the log deletes it; the submission keeps it".into()),
                None,
            );
        }
        (FileChange::Created, _) if base_exists == Some(true) => {
            return (
                Agreement::Differs("submitted as a new file; the log shows it existed".into()),
                None,
            );
        }
        _ => {}
    }
    // Original text the submission shows (context and removed lines) counts as seen.
    let mut from_patch: HashMap<u32, &'a str> = HashMap::new();
    let mut theirs: Vec<Item<'a>> = Vec::new();
    let mut pos: u32 = 1;
    let created = file.change == FileChange::Created;
    for hunk in &file.hunks {
        let start = hunk.old_start.unwrap_or(0) as u32;
        let from = if hunk.old_len == 0 { start + 1 } else { start };
        theirs.extend((pos..from).map(Item::Base));
        for line in &hunk.lines {
            let text = line.text.as_deref().unwrap_or("");
            match (line.kind, line.old_line) {
                (LineKind::Context, Some(n)) => {
                    from_patch.insert(n as u32, text);
                    theirs.push(Item::Base(n as u32));
                }
                (LineKind::Removed, Some(n)) => {
                    from_patch.insert(n as u32, text);
                }
                (LineKind::Added, _) => theirs.push(Item::Text(text)),
                _ => {}
            }
        }
        pos = from.max(pos) + hunk.old_len as u32;
    }
    let mut ours: Vec<Item<'a>> = state
        .lines
        .iter()
        .map(|&l| match (l, tree.text(path, l)) {
            (LineRef::Base(n), _) => Item::Base(n),
            (_, Some(t)) => Item::Text(t),
            (LineRef::Text(_) | LineRef::Unknown(..), None) => Item::Base(u32::MAX),
        })
        .collect();
    let base_len = base.and_then(|b| b.len).map(|l| l as u32);
    let our_tail = match state.tail {
        Tail::Base(n) => Some(n),
        Tail::End => None,
        Tail::Unknown { .. } => {
            return (
                Agreement::Unknown("the end of the file was never seen".into()),
                None,
            );
        }
    };
    if !created {
        // Both sides run on to the same end of the original file.
        let end =
            base_len.unwrap_or_else(|| pos.saturating_sub(1).max(our_tail.map_or(0, |n| n - 1)));
        theirs.extend((pos..=end).map(Item::Base));
        if let Some(n) = our_tail {
            ours.extend((n..=end).map(Item::Base));
        }
    }
    let known = |n: u32| -> Option<&str> {
        base.and_then(|b| b.text(n))
            .map(|id| tree.texts.get(id))
            .or_else(|| from_patch.get(&n).copied())
    };
    let key = |item: &Item<'a>| -> Key<'a> {
        match *item {
            Item::Text(t) => Key::Text(t),
            Item::Base(n) => match known(n) {
                Some(t) => Key::Text(t),
                None => Key::Unseen(u64::from(n)),
            },
        }
    };
    let our_keys: Vec<Key> = ours.iter().map(key).collect();
    let their_keys: Vec<Key> = theirs.iter().map(key).collect();
    if our_keys == their_keys {
        return (Agreement::Agrees, None);
    }
    let mut mismatch = FileDiff::new(path, FileChange::Modified);
    mismatch.hunks = hunks(&our_keys, &their_keys, Some(1), Some(1), CONTEXT_LINES);
    let changed: Vec<_> = mismatch
        .hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .filter(|l| l.kind != LineKind::Context)
        .collect();
    let any_unseen = changed.iter().any(|l| l.text.is_none());
    let agreement = if any_unseen {
        Agreement::Unknown("the submission differs only where the log never showed the file".into())
    } else if let Some(doubt) = &state.doubt {
        Agreement::Unknown(format!(
            "they differ, but the reconstruction is in doubt: {doubt}"
        ))
    } else {
        let first = changed
            .first()
            .and_then(|l| l.old_line.or(l.new_line))
            .unwrap_or(0);
        Agreement::Differs(format!("{} lines differ, from line {first}", changed.len()))
    };
    (agreement, Some(mismatch))
}
