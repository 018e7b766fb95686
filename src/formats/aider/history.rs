//! A chat history fed one line at a time: whether its prefixed lines carry Aider's line
//! break marks (decided from its first lines, held until then), where each session starts,
//! and each session's lines handed to its blocks and steps. The whole read feeds it every
//! line of the text; the bounded read feeds it lines as the file is read and takes the
//! steps and trajectories out as they finish ([`History::take`]).

use super::blocks::Blocks;
use super::session::Session;
use super::{SESSION_HEADER, is_mode_line};
use crate::formats::text_logs::Out;
use std::path::Path;

/// Lines looked at, and prefixed lines among them, to tell whether the file keeps Aider's
/// trailing two spaces.
const MARK_LINES: usize = 20_000;
const MARK_PREFIXED: usize = 50;

pub struct History<'a> {
    path: &'a Path,
    release: bool,
    /// Lines fed so far.
    lines: usize,
    /// Whether prefixed lines end with two spaces; `None` while the first lines are held.
    marked: Option<bool>,
    held: Vec<String>,
    prefixed: usize,
    session: Session,
    blocks: Blocks,
    /// The session is the text before the first header, blank so far.
    before_first: bool,
    blank: bool,
    ordinal: usize,
    out: Vec<Out>,
}

impl<'a> History<'a> {
    /// A history whose steps are kept in their trajectories, or with `release` let go as
    /// they finish (the message pool only counted).
    pub fn new(path: &'a Path, release: bool) -> History<'a> {
        History {
            path,
            release,
            lines: 0,
            marked: None,
            held: Vec::new(),
            prefixed: 0,
            session: Session::new(path, None, release),
            blocks: Blocks::new(false),
            before_first: true,
            blank: true,
            ordinal: 0,
            out: Vec::new(),
        }
    }

    /// Takes the next line (without its `\n`).
    pub fn line(&mut self, line: &str) {
        let n = self.lines;
        self.lines += 1;
        let line = if n == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if self.marked.is_none() {
            self.held.push(line.to_string());
            if n < MARK_LINES && (line.starts_with("#### ") || line.starts_with("> ")) {
                self.prefixed += 1;
                if line.trim_end_matches('\r').ends_with("  ") {
                    self.decide(true);
                } else if self.prefixed == MARK_PREFIXED {
                    self.decide(false);
                }
            }
            if self.marked.is_none() && n + 1 >= MARK_LINES {
                self.decide(false);
            }
            return;
        }
        self.take_line(n, line);
    }

    fn decide(&mut self, marked: bool) {
        self.marked = Some(marked);
        self.blocks = Blocks::new(marked);
        let held = std::mem::take(&mut self.held);
        let first = self.lines - held.len();
        for (i, line) in held.iter().enumerate() {
            self.take_line(first + i, line);
        }
    }

    /// Line `n` of the file, once the marks are known.
    fn take_line(&mut self, n: usize, raw: &str) {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(time) = line.strip_prefix(SESSION_HEADER) {
            self.end_session();
            self.session = Session::new(self.path, Some(time.trim()), self.release);
            self.before_first = false;
        } else if !(n == 0 && is_mode_line(line)) {
            self.blank &= line.trim().is_empty();
            self.blocks.line(line);
            self.drain();
        }
    }

    /// Hands the finished blocks to the session and takes out the steps it let go.
    fn drain(&mut self) {
        // Most lines finish nothing: skip the draining then (once per line of the file).
        if self.blocks.done.is_empty() {
            return;
        }
        for block in self.blocks.done.drain(..) {
            self.session.block(block);
        }
        self.out
            .extend(self.session.released.drain(..).map(Out::Step));
    }

    fn end_session(&mut self) {
        self.blocks.finish();
        self.drain();
        let marked = self.marked.unwrap_or(false);
        let session = std::mem::replace(
            &mut self.session,
            Session::new(self.path, None, self.release),
        );
        self.blocks = Blocks::new(marked);
        let (released, mut trajectory) = session.finish();
        self.out.extend(released.into_iter().map(Out::Step));
        // Text before the first header is kept only when it holds something: the history
        // may have been cut at the start, as the fixture in Aider's own repository is.
        if !(self.before_first && self.blank) {
            trajectory.source_index = Some(self.ordinal);
            self.ordinal += 1;
            self.out.push(Out::Trajectory(Box::new(trajectory)));
        }
    }

    /// What has finished since the last call, in file order.
    pub fn take(&mut self) -> std::vec::Drain<'_, Out> {
        self.out.drain(..)
    }

    /// The file has ended: the last session closes.
    pub fn finish(&mut self) {
        if self.marked.is_none() {
            self.decide(false);
        }
        self.end_session();
    }
}
