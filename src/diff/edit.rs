//! File edits as trajscope understands them: what a step asked to change, independent of the
//! agent's syntax. Interpreters (`interpret/*`) turn actions into [`Edit`]s; the working
//! tree (`tree`) applies them.

use super::patch::Hunk;
use super::sed;
use serde::Serialize;

/// One change to one file, normalised.
#[derive(Debug, Clone, PartialEq)]
pub enum EditOp {
    /// Replace lines `start..=end` (1-based) with `lines`, as SWE-agent's windowed
    /// `edit start:end` does (bash array slicing: a range past the end just appends).
    ReplaceLines {
        start: usize,
        end: usize,
        lines: Vec<String>,
    },
    /// Insert `lines` after line `after` (0 = at the top; `None` = at the end).
    InsertLines {
        after: Option<usize>,
        lines: Vec<String>,
    },
    /// Replace `old` (which must occur once, unless `all`) with `new`.
    ReplaceText {
        old: String,
        new: String,
        all: bool,
    },
    /// Write the whole file (create or overwrite).
    Write {
        text: String,
    },
    Append {
        text: String,
    },
    /// Write a file that must not exist yet (`str_replace_editor create`, which refuses an
    /// existing file): once applied, the file is known to be new.
    Create {
        text: String,
    },
    /// Create a file holding one empty line, that must not exist yet (SWE-agent `create`).
    CreateEmpty,
    Delete,
    Rename {
        to: String,
    },
    Copy {
        to: String,
    },
    /// Numbered unified-diff hunks (`git apply`, Claude Code `structuredPatch`).
    Hunks(Vec<Hunk>),
    /// Hunks located by their context, not by line numbers (Codex `apply_patch`).
    Chunks(Vec<ContextChunk>),
    Sed(sed::Script),
    /// Back to the original content (`git checkout -- f`).
    Restore,
    /// Undo the last edit of the file (`str_replace_editor undo_edit`).
    Undo,
    /// The step may have changed the file in a way trajscope cannot follow (a script that
    /// writes it, `perl -i`, `git checkout`).
    Opaque {
        reason: String,
    },
}

/// A Codex `apply_patch` update chunk: old lines (context and removed) → new lines, found
/// in the file by content, after an optional `@@ anchor` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextChunk {
    pub anchor: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// `*** End of File`: the chunk is at the end of the file.
    pub at_end: bool,
}

/// An edit of one file, as asked by a step.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    /// The path as the action gave it; `None` for SWE-agent commands on the open file.
    pub path: Option<String>,
    pub op: EditOp,
    /// How the action said it, for display: `edit 10:12`, `str_replace`, `sed -i`, `Write`.
    pub label: String,
}

impl Edit {
    pub fn new(path: Option<String>, op: EditOp, label: impl Into<String>) -> Edit {
        Edit {
            path,
            op,
            label: label.into(),
        }
    }
}

/// An action that looks like an edit but that trajscope could not read: a malformed
/// command, a missing argument. Shown as a "could not interpret" mark, never as a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Uninterpreted {
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub reason: String,
}

impl Uninterpreted {
    pub fn new(
        label: impl Into<String>,
        path: Option<String>,
        reason: impl Into<String>,
    ) -> Uninterpreted {
        Uninterpreted {
            label: label.into(),
            path,
            reason: reason.into(),
        }
    }
}

/// What a step's action amounts to as file edits.
pub type Attempt = Result<Edit, Uninterpreted>;

/// Splits file text into lines the way editors count them: a final newline ends the last
/// line rather than starting an empty one.
pub fn text_lines(text: &str) -> Vec<String> {
    text.lines().map(String::from).collect()
}
