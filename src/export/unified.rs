//! Structured diffs as unified-diff lines, each with its kind, for both export formats:
//! Markdown writes the text in a `diff` fence, HTML colours each line by its kind.

use crate::diff::{DiffLine, FileChange, FileDiff, LineKind};

/// What a line of a unified diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// `---`/`+++`, `diff --git`, `index …`.
    Header,
    /// `@@ -a,b +c,d @@`.
    Hunk,
    Context,
    Added,
    Removed,
    /// Not part of the diff proper: lines the log never showed, a binary file.
    Note,
}

impl Row {
    /// The kind of a line of a patch as text (a submission).
    pub fn of_patch_line(line: &str) -> Row {
        if line.starts_with("+++ ")
            || line.starts_with("--- ")
            || line.starts_with("diff ")
            || line.starts_with("index ")
        {
            Row::Header
        } else if line.starts_with("@@") {
            Row::Hunk
        } else if line.starts_with('+') {
            Row::Added
        } else if line.starts_with('-') {
            Row::Removed
        } else if line.starts_with(' ') || line.is_empty() {
            Row::Context
        } else {
            Row::Note
        }
    }

    /// A short CSS class name.
    pub fn class(self) -> &'static str {
        match self {
            Row::Header => "dh",
            Row::Hunk => "dk",
            Row::Context => "dc",
            Row::Added => "da",
            Row::Removed => "dr",
            Row::Note => "dn",
        }
    }
}

/// Calls `line` with each line of `d` as `diff -u` text (no line end), runs of lines never
/// seen folded into one note.
pub fn for_each_line<E>(
    d: &FileDiff,
    mut line: impl FnMut(Row, &str) -> Result<(), E>,
) -> Result<(), E> {
    let (old, new) = d.labels();
    line(Row::Header, &format!("--- {old}"))?;
    line(Row::Header, &format!("+++ {new}"))?;
    if let Some(note) = &d.note {
        line(Row::Note, &format!("({note})"))?;
    }
    let mut text = String::new();
    for hunk in &d.hunks {
        line(Row::Hunk, &hunk.header())?;
        let mut i = 0;
        while i < hunk.lines.len() {
            let l = &hunk.lines[i];
            let Some(t) = &l.text else {
                let run = hunk.lines[i..]
                    .iter()
                    .take_while(|x| x.text.is_none() && x.kind == l.kind)
                    .count();
                let what = if run == 1 { "line" } else { "lines" };
                line(
                    Row::Note,
                    &format!("{} … {run} {what} not seen in the log", sign(l)),
                )?;
                i += run;
                continue;
            };
            text.clear();
            text.push(sign(l));
            text.push_str(t);
            let row = match l.kind {
                LineKind::Added => Row::Added,
                LineKind::Removed => Row::Removed,
                LineKind::Context => Row::Context,
            };
            line(row, &text)?;
            i += 1;
        }
    }
    if d.hunks.is_empty() && d.note.is_none() {
        let what = if d.change == FileChange::Created {
            "(empty file)"
        } else {
            "(no change)"
        };
        line(Row::Note, what)?;
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

    fn collect(d: &FileDiff) -> Vec<(Row, String)> {
        let mut out = Vec::new();
        let _ = for_each_line(d, |row, text| {
            out.push((row, text.to_string()));
            Ok::<(), ()>(())
        });
        out
    }

    #[test]
    fn a_modified_file_reads_as_diff_u() {
        let d = diff_texts("src/a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n");
        let rows = collect(&d);
        assert_eq!(rows[0], (Row::Header, "--- a/src/a.py".into()));
        assert_eq!(rows[1], (Row::Header, "+++ b/src/a.py".into()));
        assert_eq!(rows[2].0, Row::Hunk);
        assert!(rows.contains(&(Row::Removed, "-y = 2".into())));
        assert!(rows.contains(&(Row::Added, "+y = 3".into())));
        assert!(rows.contains(&(Row::Context, " x = 1".into())));
    }

    #[test]
    fn unseen_lines_fold_into_a_note() {
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
            (Row::Note, "- … 2 lines not seen in the log".into())
        );
        assert_eq!(rows[4], (Row::Added, "+z".into()));
    }

    #[test]
    fn patch_lines_by_their_first_characters() {
        assert_eq!(Row::of_patch_line("diff --git a/x b/x"), Row::Header);
        assert_eq!(Row::of_patch_line("--- a/x"), Row::Header);
        assert_eq!(Row::of_patch_line("@@ -1 +1 @@"), Row::Hunk);
        assert_eq!(Row::of_patch_line("+new"), Row::Added);
        assert_eq!(Row::of_patch_line("-old"), Row::Removed);
        assert_eq!(Row::of_patch_line(" same"), Row::Context);
        assert_eq!(
            Row::of_patch_line("\\ No newline at end of file"),
            Row::Note
        );
    }
}
