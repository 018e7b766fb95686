//! Computing hunks between two line sequences with `similar`, where some lines may be
//! unseen (their text unknown) and compare only by identity.

use super::patch::{DiffLine, FileChange, FileDiff, Hunk, LineKind};
use similar::{Algorithm, DiffOp, capture_diff_slices_deadline, group_diff_ops};
use std::time::{Duration, Instant};

/// Lines of context around each change, as `diff -u`.
pub const CONTEXT_LINES: usize = 3;

/// A line as the differ sees it: its text, or an identity standing for text never seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key<'a> {
    Text(&'a str),
    /// A line whose text the log never showed; equal only to itself.
    Unseen(u64),
}

impl<'a> Key<'a> {
    pub fn text(self) -> Option<&'a str> {
        match self {
            Key::Text(t) => Some(t),
            Key::Unseen(_) => None,
        }
    }
}

/// Hunks turning `old` into `new`. `old_first`/`new_first` are the 1-based numbers of the
/// first line of each side (`None` when the position in the file is not known).
pub fn hunks(
    old: &[Key<'_>],
    new: &[Key<'_>],
    old_first: Option<usize>,
    new_first: Option<usize>,
    context: usize,
) -> Vec<Hunk> {
    // Myers with a deadline: a pathological pair of large files degrades to a coarser but
    // still correct diff instead of stalling a view.
    let deadline = Instant::now() + Duration::from_millis(500);
    let ops = capture_diff_slices_deadline(Algorithm::Myers, old, new, Some(deadline));
    let number = |first: Option<usize>, index: usize| first.map(|f| f + index);
    group_diff_ops(ops, context)
        .into_iter()
        .map(|group| {
            let mut lines = Vec::new();
            for op in &group {
                let (tag_old, tag_new) = (op.old_range(), op.new_range());
                match op {
                    DiffOp::Equal { .. } => {
                        for (i, j) in tag_old.zip(tag_new) {
                            lines.push(DiffLine {
                                kind: LineKind::Context,
                                text: old[i].text().or(new[j].text()).map(String::from),
                                old_line: number(old_first, i),
                                new_line: number(new_first, j),
                            });
                        }
                    }
                    _ => {
                        for i in tag_old {
                            lines.push(DiffLine {
                                kind: LineKind::Removed,
                                text: old[i].text().map(String::from),
                                old_line: number(old_first, i),
                                new_line: None,
                            });
                        }
                        for j in tag_new {
                            lines.push(DiffLine {
                                kind: LineKind::Added,
                                text: new[j].text().map(String::from),
                                old_line: None,
                                new_line: number(new_first, j),
                            });
                        }
                    }
                }
            }
            let (first, last) = (group.first(), group.last());
            let old_range =
                first.map_or(0, |o| o.old_range().start)..last.map_or(0, |o| o.old_range().end);
            let new_range =
                first.map_or(0, |o| o.new_range().start)..last.map_or(0, |o| o.new_range().end);
            Hunk {
                old_start: hunk_start(old_first, &old_range),
                old_len: old_range.len(),
                new_start: hunk_start(new_first, &new_range),
                new_len: new_range.len(),
                section: String::new(),
                lines,
            }
        })
        .collect()
}

/// Unified-diff convention: an empty side starts at the line before it.
fn hunk_start(first: Option<usize>, range: &std::ops::Range<usize>) -> Option<usize> {
    let first = first?;
    Some(if range.is_empty() {
        first + range.start - 1
    } else {
        first + range.start
    })
}

/// The lines of a text, without line ends (a final newline does not make an empty line).
pub fn split_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// A diff of two whole texts of one file, for views that have both sides in hand.
pub fn diff_texts(path: &str, old: &str, new: &str) -> FileDiff {
    let old_keys: Vec<Key> = split_lines(old).into_iter().map(Key::Text).collect();
    let new_keys: Vec<Key> = split_lines(new).into_iter().map(Key::Text).collect();
    let mut diff = FileDiff::new(path, FileChange::Modified);
    diff.hunks = hunks(&old_keys, &new_keys, Some(1), Some(1), CONTEXT_LINES);
    diff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_changed_line_with_context() {
        let d = diff_texts(
            "a.py",
            "1\n2\n3\n4\n5\n6\n7\n8\n",
            "1\n2\n3\n4\nfive\n6\n7\n8\n",
        );
        assert_eq!(d.hunks.len(), 1);
        let h = &d.hunks[0];
        assert_eq!(h.header(), "@@ -2,7 +2,7 @@");
        assert_eq!(h.removed(), 1);
        assert_eq!(h.added(), 1);
        let removed = h
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Removed)
            .unwrap();
        assert_eq!(
            (removed.text.as_deref(), removed.old_line),
            (Some("5"), Some(5))
        );
    }

    #[test]
    fn unseen_lines_compare_by_identity() {
        let old = [Key::Unseen(1), Key::Text("a"), Key::Unseen(3)];
        let new = [Key::Unseen(1), Key::Text("b"), Key::Unseen(3)];
        let hs = hunks(&old, &new, Some(10), Some(10), 1);
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].lines[0].text, None);
        assert_eq!(hs[0].lines[0].old_line, Some(10));
        assert_eq!(hs[0].header(), "@@ -10,3 +10,3 @@");
    }

    #[test]
    fn pure_insertion_into_empty_file() {
        let d = diff_texts("n.py", "", "a\nb\n");
        assert_eq!(d.hunks[0].header(), "@@ -0,0 +1,2 @@");
    }

    #[test]
    fn identical_texts_have_no_hunks() {
        assert!(diff_texts("x", "a\nb", "a\nb").hunks.is_empty());
    }
}
