//! The working tree as far as the log shows it: for each file the trajectory touched, its
//! current lines as references to lines of the original file (whose text may be unknown) or
//! to text the trajectory wrote. What the file looked like at the start is learnt from every
//! view at any step (an original line's text does not change), so early diffs gain context
//! seen later. Nothing here invents text: an unseen line stays unseen.

mod apply;
mod learn;

use super::unified::Key;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub use apply::ApplyError;
pub use learn::View;

/// Interned line texts: windows show the same lines again and again.
#[derive(Debug, Default)]
pub struct Texts {
    list: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Texts {
    pub fn intern(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.index.get(text) {
            return id;
        }
        let id = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(text.into());
        self.index.insert(text.into(), id);
        id
    }

    pub fn get(&self, id: u32) -> &str {
        self.list.get(id as usize).map_or("", |s| s)
    }
}

/// A line of a file at some step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineRef {
    /// Line n (1-based) of the original file, unchanged.
    Base(u32),
    /// A line the trajectory wrote (or a view showed after trajscope lost track).
    Text(u32),
    /// A line that exists but whose text and origin are unknown: the `k`th line taken
    /// from unknown run `g`, so that two states sharing a run number its lines alike.
    Unknown(u32, u32),
}

/// What follows the explicit lines of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: the file ends there.
    End,
    /// Original lines n, n+1, … to the end of the original file.
    Base(u32),
    /// Lines of unknown number and text: run `run`, of which `taken` were made explicit.
    Unknown { run: u32, taken: u32 },
}

/// One file at one step.
#[derive(Debug, Clone, PartialEq)]
pub struct FileState {
    pub exists: bool,
    pub lines: Arc<Vec<LineRef>>,
    pub tail: Tail,
    /// Some shown lines may be wrong: why (a step whose edit may not have run, a view that
    /// disagreed with the reconstruction).
    pub doubt: Option<String>,
    /// The link to the original file is lost (a script rewrote it): lines are what later
    /// views showed, and no cumulative diff can be made.
    pub lost: Option<String>,
    /// Earlier versions, for `undo_edit`.
    pub history: Vec<(Arc<Vec<LineRef>>, Tail, bool)>,
}

impl FileState {
    /// A file as it was at the start, before anything was seen of it.
    pub fn original(exists: bool) -> FileState {
        FileState {
            exists,
            lines: Arc::new(Vec::new()),
            tail: if exists { Tail::Base(1) } else { Tail::End },
            doubt: None,
            lost: None,
            history: Vec::new(),
        }
    }
}

/// What is known of a file as it was before the trajectory started.
#[derive(Debug, Clone, Default)]
pub struct BaseFile {
    /// `Some(false)`: the trajectory created it.
    pub exists: Option<bool>,
    /// Text ids of original lines, index 0 = line 1.
    pub lines: Vec<Option<u32>>,
    pub len: Option<usize>,
}

impl BaseFile {
    pub fn text(&self, n: u32) -> Option<u32> {
        self.lines
            .get((n as usize).checked_sub(1)?)
            .copied()
            .flatten()
    }

    fn learn(&mut self, n: u32, id: u32) -> Option<u32> {
        let i = (n as usize).checked_sub(1)?;
        if self.lines.len() <= i {
            self.lines.resize(i + 1, None);
        }
        match self.lines[i] {
            Some(old) => Some(old),
            None => {
                self.lines[i] = Some(id);
                None
            }
        }
    }
}

/// The files of one trajectory: their states at the current step and their original
/// content as far as known.
#[derive(Debug, Default)]
pub struct Tree {
    pub texts: Texts,
    pub bases: HashMap<String, BaseFile>,
    pub files: BTreeMap<String, Arc<FileState>>,
    next_unknown: u32,
}

impl Tree {
    /// The current state of `path`; an untouched original when the trajectory has not
    /// touched it yet.
    pub fn state(&self, path: &str) -> FileState {
        match self.files.get(path) {
            Some(s) => (**s).clone(),
            None => {
                let exists = self.bases.get(path).and_then(|b| b.exists).unwrap_or(true);
                FileState::original(exists)
            }
        }
    }

    pub fn set(&mut self, path: &str, state: FileState) {
        self.files.insert(path.to_string(), Arc::new(state));
    }

    pub fn base(&self, path: &str) -> Option<&BaseFile> {
        self.bases.get(path)
    }

    fn base_mut(&mut self, path: &str) -> &mut BaseFile {
        self.bases.entry(path.to_string()).or_default()
    }

    fn fresh_unknown(&mut self) -> LineRef {
        self.next_unknown += 1;
        LineRef::Unknown(self.next_unknown, 0)
    }

    /// A new run of unknown lines.
    pub fn unknown_tail(&mut self) -> Tail {
        self.next_unknown += 1;
        Tail::Unknown {
            run: self.next_unknown,
            taken: 0,
        }
    }

    /// Makes `before` as explicit as `after` where both continue the same tail, so that
    /// diffing them shows only what the edit changed.
    pub fn align(&mut self, path: &str, before: &mut FileState, after: &FileState) {
        let extra = match (before.tail, after.tail) {
            (Tail::Base(a), Tail::Base(b)) if b > a => (b - a) as usize,
            (Tail::Unknown { run: g1, taken: t1 }, Tail::Unknown { run: g2, taken: t2 })
                if g1 == g2 && t2 > t1 =>
            {
                (t2 - t1) as usize
            }
            (Tail::Base(_), Tail::End) if after.exists => {
                self.materialize_all(path, before);
                return;
            }
            _ => return,
        };
        let want = before.lines.len() + extra;
        self.materialize(path, before, want);
    }

    /// The text of a line of `path`, when known.
    pub fn text(&self, path: &str, line: LineRef) -> Option<&str> {
        match line {
            LineRef::Base(n) => self.bases.get(path)?.text(n).map(|id| self.texts.get(id)),
            LineRef::Text(id) => Some(self.texts.get(id)),
            LineRef::Unknown(..) => None,
        }
    }

    /// How the differ compares a line: by text when known, else by identity.
    pub fn key<'a>(&'a self, path: &str, line: LineRef) -> Key<'a> {
        match (self.text(path, line), line) {
            (Some(t), _) => Key::Text(t),
            (None, LineRef::Base(n)) => Key::Unseen(u64::from(n)),
            (None, LineRef::Unknown(g, k)) => {
                Key::Unseen((1 << 62) | (u64::from(g) << 31) | u64::from(k))
            }
            (None, LineRef::Text(id)) => Key::Unseen((1 << 61) | u64::from(id)),
        }
    }

    /// The number of lines of a state, when known.
    pub fn len_of(&self, path: &str, state: &FileState) -> Option<usize> {
        match state.tail {
            Tail::End => Some(state.lines.len()),
            Tail::Base(n) => {
                let base_len = self.bases.get(path)?.len?;
                Some(state.lines.len() + (base_len + 1).saturating_sub(n as usize))
            }
            Tail::Unknown { .. } => None,
        }
    }

    /// Makes at least `upto` lines explicit, taking them from the tail; returns how many
    /// lines are explicit afterwards (fewer when the file is known to be shorter).
    pub fn materialize(&mut self, path: &str, state: &mut FileState, upto: usize) -> usize {
        let have = state.lines.len();
        if have >= upto {
            return have;
        }
        match state.tail {
            Tail::End => have,
            Tail::Base(n) => {
                let base_len = self.bases.get(path).and_then(|b| b.len);
                let available = base_len.map_or(usize::MAX, |l| (l + 1).saturating_sub(n as usize));
                let take = (upto - have).min(available);
                let lines = Arc::make_mut(&mut state.lines);
                lines.extend((0..take).map(|k| LineRef::Base(n + k as u32)));
                state.tail = if take == available {
                    Tail::End
                } else {
                    Tail::Base(n + take as u32)
                };
                have + take
            }
            Tail::Unknown { run, taken } => {
                let extra = (upto - have) as u32;
                Arc::make_mut(&mut state.lines)
                    .extend((taken..taken + extra).map(|k| LineRef::Unknown(run, k)));
                state.tail = Tail::Unknown {
                    run,
                    taken: taken + extra,
                };
                upto
            }
        }
    }

    /// Makes every line explicit when the length is known; false when it is not.
    pub fn materialize_all(&mut self, path: &str, state: &mut FileState) -> bool {
        match self.len_of(path, state) {
            Some(len) => {
                self.materialize(path, state, len);
                state.tail = Tail::End;
                true
            }
            None => false,
        }
    }

    /// The original file as a line sequence, as long as needed to compare with `state`;
    /// `None` when the trajectory made it from nothing.
    pub fn original_lines(&self, path: &str, state: &FileState) -> Vec<LineRef> {
        let base = self.bases.get(path);
        if base.and_then(|b| b.exists) == Some(false) {
            return Vec::new();
        }
        let highest = state
            .lines
            .iter()
            .filter_map(|l| match l {
                LineRef::Base(n) => Some(*n as usize),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let len = match (state.tail, base.and_then(|b| b.len)) {
            (_, Some(len)) => len,
            (Tail::Base(n), None) => (n as usize).saturating_sub(1).max(highest),
            _ => highest,
        };
        (1..=len as u32).map(LineRef::Base).collect()
    }
}
