//! Learning from views: lines a step displayed tell the text of original lines, confirm the
//! reconstruction, or show that something the log did not explain changed the file.

use super::{FileState, LineRef, Tail, Tree};
use std::sync::Arc;

/// Lines of one file as an observation showed them, after the step's action ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The path as the observation or command named it.
    pub path: String,
    /// The 1-based number of `lines[0]`.
    pub first: usize,
    pub lines: Vec<String>,
    /// The file's length, when the view says it (`[File: x (120 lines total)]`, a whole
    /// `cat`).
    pub total: Option<usize>,
}

impl Tree {
    /// Takes in what a view showed of `path` (already canonical).
    pub fn learn_view(&mut self, path: &str, view: &View, source: &str) {
        let mut state = self.state(path);
        if !state.exists {
            state = self.lost_state(
                &state,
                format!("{source} showed a file the reconstruction had not created"),
            );
        }
        if let Some(total) = view.total {
            let empty_as_one = total == 1 && view.lines.iter().all(|l| l.is_empty());
            match self.len_of(path, &state) {
                Some(0) if empty_as_one => {
                    // SWE-agent shows an empty file as one empty line.
                    self.set(path, state);
                    return;
                }
                Some(len) if len != total => {
                    let reason =
                        format!("{source} showed {total} lines where the reconstruction has {len}");
                    state = self.lost_state(&state, reason);
                    self.materialize(path, &mut state, total);
                    state.tail = Tail::End;
                }
                Some(_) => {}
                None => match state.tail {
                    Tail::Base(n) => {
                        let explicit = state.lines.len();
                        if total + 1 >= explicit + n as usize {
                            let base = self.base_mut(path);
                            base.len.get_or_insert(total + n as usize - 1 - explicit);
                        }
                        self.materialize_all(path, &mut state);
                    }
                    Tail::Unknown { .. } => {
                        self.materialize(path, &mut state, total);
                        state.tail = Tail::End;
                    }
                    Tail::End => {}
                },
            }
        }
        let lines: Vec<&str> = view.lines.iter().map(String::as_str).collect();
        self.learn_lines(path, &mut state, view.first, &lines, source);
        self.set(path, state);
    }

    /// Checks or learns lines `first..` of `state` against `lines`.
    pub(super) fn learn_lines(
        &mut self,
        path: &str,
        state: &mut FileState,
        first: usize,
        lines: &[&str],
        source: &str,
    ) {
        if first == 0 || lines.is_empty() {
            return;
        }
        let want = first + lines.len() - 1;
        let have = self.materialize(path, state, want);
        if have < want {
            let reason =
                format!("{source} showed line {want}, past the end of the file as reconstructed");
            *state = self.lost_state(state, reason);
            self.materialize(path, state, want);
        }
        for (k, text) in lines.iter().enumerate() {
            let i = first - 1 + k;
            let Some(&line) = state.lines.get(i) else {
                break;
            };
            let id = self.texts.intern(text);
            let mismatch = match line {
                LineRef::Base(n) => self
                    .base_mut(path)
                    .learn(n, id)
                    .is_some_and(|old| old != id),
                LineRef::Text(old) => old != id,
                LineRef::Unknown(..) => {
                    Arc::make_mut(&mut state.lines)[i] = LineRef::Text(id);
                    false
                }
            };
            if mismatch {
                Arc::make_mut(&mut state.lines)[i] = LineRef::Text(id);
                if state.doubt.is_none() && state.lost.is_none() {
                    state.doubt = Some(format!(
                        "{source} showed line {} differently from the reconstruction",
                        i + 1
                    ));
                }
            }
        }
    }

    /// A state that keeps only what is certain: the file exists; its lines are unknown.
    fn lost_state(&mut self, old: &FileState, reason: String) -> FileState {
        let mut state = FileState::original(true);
        state.tail = self.unknown_tail();
        state.lost = Some(old.lost.clone().unwrap_or(reason));
        state.history = old.history.clone();
        state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::edit::EditOp;

    fn view(first: usize, lines: &[&str], total: Option<usize>) -> View {
        View {
            path: "a.py".into(),
            first,
            lines: lines.iter().map(|s| s.to_string()).collect(),
            total,
        }
    }

    fn texts(tree: &Tree, path: &str) -> Vec<Option<String>> {
        let s = tree.state(path);
        s.lines
            .iter()
            .map(|&l| tree.text(path, l).map(String::from))
            .collect()
    }

    #[test]
    fn windows_teach_original_lines_and_length() {
        let mut tree = Tree::default();
        tree.learn_view("a.py", &view(3, &["c", "d"], Some(5)), "step 1");
        assert_eq!(tree.base("a.py").and_then(|b| b.len), Some(5));
        assert_eq!(
            texts(&tree, "a.py"),
            vec![None, None, Some("c".into()), Some("d".into()), None]
        );
        let s = tree
            .apply(
                "a.py",
                &EditOp::ReplaceLines {
                    start: 3,
                    end: 3,
                    lines: vec!["C".into(), "C2".into()],
                },
            )
            .unwrap();
        tree.set("a.py", s);
        tree.learn_view(
            "a.py",
            &view(2, &["b", "C", "C2", "d", "e"], Some(6)),
            "step 2",
        );
        let s = tree.state("a.py");
        assert!(s.doubt.is_none() && s.lost.is_none());
        assert_eq!(
            tree.base("a.py")
                .unwrap()
                .text(2)
                .map(|id| tree.texts.get(id)),
            Some("b")
        );
        assert_eq!(s.lines[1], LineRef::Base(2));
    }

    #[test]
    fn disagreeing_view_marks_doubt_and_wrong_length_loses_track() {
        let mut tree = Tree::default();
        tree.learn_view("a.py", &view(1, &["x", "y"], Some(2)), "step 1");
        tree.learn_view("a.py", &view(1, &["x", "z"], Some(2)), "step 2");
        let s = tree.state("a.py");
        assert!(s.doubt.as_deref().unwrap().contains("line 2"));
        assert_eq!(
            texts(&tree, "a.py"),
            vec![Some("x".into()), Some("z".into())]
        );
        tree.learn_view("a.py", &view(1, &["x"], Some(3)), "step 3");
        let s = tree.state("a.py");
        assert!(s.lost.as_deref().unwrap().contains("3 lines"));
        assert_eq!(texts(&tree, "a.py"), vec![Some("x".into()), None, None]);
    }

    #[test]
    fn created_empty_file_shown_as_one_empty_line() {
        let mut tree = Tree::default();
        let s = tree.apply("r.py", &EditOp::CreateEmpty).unwrap();
        tree.set("r.py", s);
        tree.learn_view("r.py", &view(1, &[""], Some(1)), "step 1");
        let s = tree.state("r.py");
        assert_eq!(s.lines.len(), 1);
        assert!(s.lost.is_none() && s.doubt.is_none());
    }
}
