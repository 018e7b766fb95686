//! A structured diff ([`FileDiff`]) as the rows of `diff -u` text, each with its kind: the
//! `---`/`+++` labels, hunk headers, context, added and removed lines, and notes (a binary
//! file, an empty one). Runs of lines the log never showed fold into one "not seen" row.
//! The CLI colours these rows with ANSI codes, the TUI with its theme, the exports with a
//! `diff` fence or CSS classes.

use crate::diff::{DiffLine, FileChange, FileDiff, LineKind};

/// What a row of a unified diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffRowKind {
    /// `---`/`+++`, `diff --git`, `index …`.
    Header,
    /// `@@ -a,b +c,d @@`.
    Hunk,
    Context,
    Added,
    Removed,
    /// Lines of this kind the log never showed, folded: `- … 3 lines not seen in the log`.
    Unseen(LineKind),
    /// Not part of the diff proper: a binary file, an empty file, no change.
    Note,
}

impl DiffRowKind {
    /// The kind of a line of a patch as text (a submission).
    pub fn of_patch_line(line: &str) -> DiffRowKind {
        if line.starts_with("+++ ")
            || line.starts_with("--- ")
            || line.starts_with("diff ")
            || line.starts_with("index ")
        {
            DiffRowKind::Header
        } else if line.starts_with("@@") {
            DiffRowKind::Hunk
        } else if line.starts_with('+') {
            DiffRowKind::Added
        } else if line.starts_with('-') {
            DiffRowKind::Removed
        } else if line.starts_with(' ') || line.is_empty() {
            DiffRowKind::Context
        } else {
            DiffRowKind::Note
        }
    }
}

/// One row: its kind and its text as `diff -u` writes it, sign included (`+x = 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffRow<'a> {
    pub kind: DiffRowKind,
    pub text: &'a str,
}

impl<'a> DiffRow<'a> {
    /// The line's text without its one-character sign, for context, added and removed rows
    /// (a styler that colours the sign apart); the whole text for the other rows.
    pub fn body(&self) -> &'a str {
        match self.kind {
            DiffRowKind::Context | DiffRowKind::Added | DiffRowKind::Removed => {
                self.text.get(1..).unwrap_or("")
            }
            _ => self.text,
        }
    }
}

/// Calls `row` with each row of `d`, labelled `old`/`new`, in order; stops at the first
/// error `row` returns (a full page, a cancelled task, a failed write).
pub fn for_each_row<E>(
    d: &FileDiff,
    (old, new): (&str, &str),
    mut row: impl FnMut(DiffRow<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut emit = |kind: DiffRowKind, text: &str| row(DiffRow { kind, text });
    emit(DiffRowKind::Header, &format!("--- {old}"))?;
    emit(DiffRowKind::Header, &format!("+++ {new}"))?;
    if let Some(note) = &d.note {
        emit(DiffRowKind::Note, &format!("({note})"))?;
    }
    let mut text = String::new();
    for hunk in &d.hunks {
        emit(DiffRowKind::Hunk, &hunk.header())?;
        let mut i = 0;
        while i < hunk.lines.len() {
            let line = &hunk.lines[i];
            let Some(shown) = &line.text else {
                let run = hunk.lines[i..]
                    .iter()
                    .take_while(|l| l.text.is_none() && l.kind == line.kind)
                    .count();
                let what = if run == 1 { "line" } else { "lines" };
                emit(
                    DiffRowKind::Unseen(line.kind),
                    &format!("{} … {run} {what} not seen in the log", sign(line)),
                )?;
                i += run;
                continue;
            };
            text.clear();
            text.push(sign(line));
            text.push_str(shown);
            let kind = match line.kind {
                LineKind::Added => DiffRowKind::Added,
                LineKind::Removed => DiffRowKind::Removed,
                LineKind::Context => DiffRowKind::Context,
            };
            emit(kind, &text)?;
            i += 1;
        }
    }
    if d.hunks.is_empty() && d.note.is_none() {
        let what = if d.change == FileChange::Created {
            "(empty file)"
        } else {
            "(no change)"
        };
        emit(DiffRowKind::Note, what)?;
    }
    Ok(())
}

fn sign(line: &DiffLine) -> char {
    match line.kind {
        LineKind::Added => '+',
        LineKind::Removed => '-',
        LineKind::Context => ' ',
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{Hunk, diff_texts};

    fn collect(d: &FileDiff) -> Vec<(DiffRowKind, String)> {
        let mut out = Vec::new();
        let (old, new) = d.labels();
        let _ = for_each_row(d, (&old, &new), |row| {
            out.push((row.kind, row.text.to_string()));
            Ok::<(), ()>(())
        });
        out
    }

    #[test]
    fn a_modified_file_reads_as_diff_u() {
        let d = diff_texts("src/a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n");
        let rows = collect(&d);
        assert_eq!(rows[0], (DiffRowKind::Header, "--- a/src/a.py".into()));
        assert_eq!(rows[1], (DiffRowKind::Header, "+++ b/src/a.py".into()));
        assert_eq!(rows[2].0, DiffRowKind::Hunk);
        assert!(rows.contains(&(DiffRowKind::Removed, "-y = 2".into())));
        assert!(rows.contains(&(DiffRowKind::Added, "+y = 3".into())));
        assert!(rows.contains(&(DiffRowKind::Context, " x = 1".into())));
    }

    #[test]
    fn unseen_lines_fold_into_one_row_of_their_kind() {
        let mut d = FileDiff::new("b.py", FileChange::Modified);
        let unseen = DiffLine {
            kind: LineKind::Removed,
            text: None,
            old_line: None,
            new_line: None,
        };
        d.hunks.push(Hunk {
            old_start: None,
            old_len: 2,
            new_start: None,
            new_len: 1,
            section: String::new(),
            lines: vec![unseen.clone(), unseen, DiffLine::new(LineKind::Added, "z")],
        });
        let rows = collect(&d);
        assert_eq!(
            rows[3],
            (
                DiffRowKind::Unseen(LineKind::Removed),
                "- … 2 lines not seen in the log".into()
            )
        );
        assert_eq!(rows[4], (DiffRowKind::Added, "+z".into()));
    }

    #[test]
    fn empty_and_unchanged_files_say_so() {
        let created = FileDiff::new("new.py", FileChange::Created);
        assert_eq!(
            collect(&created).last(),
            Some(&(DiffRowKind::Note, "(empty file)".into()))
        );
        let same = FileDiff::new("same.py", FileChange::Modified);
        assert_eq!(
            collect(&same).last(),
            Some(&(DiffRowKind::Note, "(no change)".into()))
        );
    }

    #[test]
    fn a_row_body_drops_only_a_line_sign() {
        let added = DiffRow {
            kind: DiffRowKind::Added,
            text: "+x",
        };
        assert_eq!(added.body(), "x");
        let hunk = DiffRow {
            kind: DiffRowKind::Hunk,
            text: "@@ -1 +1 @@",
        };
        assert_eq!(hunk.body(), "@@ -1 +1 @@");
    }

    #[test]
    fn patch_lines_by_their_first_characters() {
        assert_eq!(
            DiffRowKind::of_patch_line("diff --git a/x b/x"),
            DiffRowKind::Header
        );
        assert_eq!(DiffRowKind::of_patch_line("--- a/x"), DiffRowKind::Header);
        assert_eq!(DiffRowKind::of_patch_line("@@ -1 +1 @@"), DiffRowKind::Hunk);
        assert_eq!(DiffRowKind::of_patch_line("+new"), DiffRowKind::Added);
        assert_eq!(DiffRowKind::of_patch_line("-old"), DiffRowKind::Removed);
        assert_eq!(DiffRowKind::of_patch_line(" same"), DiffRowKind::Context);
        assert_eq!(
            DiffRowKind::of_patch_line("\\ No newline at end of file"),
            DiffRowKind::Note
        );
    }
}
