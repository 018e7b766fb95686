//! A session's lines grouped into what the user typed, Aider's output and the model's
//! replies, one line at a time. A line is decided once the [`LOOKAHEAD`] lines after it (or
//! the session's end) are in, which is all the look ahead a quote inside a reply needs: the
//! whole session is never held. Knows nothing of steps (`session.rs` builds them).

use std::collections::VecDeque;

/// Lines looked at past a `> ` line to tell Aider's multi-line output from a quote.
const LOOKAHEAD: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    User,
    Output,
    Reply,
}

#[derive(Debug)]
pub(super) struct Block {
    pub kind: Kind,
    pub text: String,
}

/// Groups lines into blocks as they come; the finished blocks wait in `done`.
pub(super) struct Blocks {
    /// Whether Aider's prefixed lines end with two spaces in this file.
    marked: bool,
    /// Lines not yet decided, the oldest first.
    window: VecDeque<String>,
    /// Lines decided, their buffers kept for the next lines (a history has millions).
    spare: Vec<String>,
    /// The open block: its kind, its text so far and whether it has a line yet.
    current: Option<(Kind, String, bool)>,
    output_continues: bool,
    in_fence: bool,
    pub done: Vec<Block>,
}

impl Blocks {
    pub fn new(marked: bool) -> Blocks {
        Blocks {
            marked,
            window: VecDeque::new(),
            spare: Vec::new(),
            current: None,
            output_continues: false,
            in_fence: false,
            done: Vec::new(),
        }
    }

    /// Takes the session's next line.
    pub fn line(&mut self, line: &str) {
        let mut kept = self.spare.pop().unwrap_or_default();
        kept.clear();
        kept.push_str(line);
        self.window.push_back(kept);
        while self.window.len() > LOOKAHEAD {
            self.decide_next();
        }
    }

    /// The session has ended: every line left is decided and the open block closed.
    pub fn finish(&mut self) {
        while !self.window.is_empty() {
            self.decide_next();
        }
        self.flush();
    }

    fn decide_next(&mut self) {
        let Some(line) = self.window.pop_front() else {
            return;
        };
        self.decide(&line);
        self.spare.push(line);
    }

    fn decide(&mut self, line: &str) {
        let marked = self.marked;
        let ends_marked = line.ends_with("  ");
        if self.output_continues {
            self.push(line.trim_end());
            self.output_continues = marked && !ends_marked;
            return;
        }
        let user = line.starts_with("####") && if marked { ends_marked } else { !self.in_fence };
        // After a reply, an unmarked `> ` line is either Aider's multi-line output (whose
        // marked last line follows before any blank line: `Tokens: …` then `Cost: …  `) or
        // the model's own Markdown quote.
        let in_reply = self
            .current
            .as_ref()
            .is_some_and(|(k, _, _)| *k == Kind::Reply);
        let output = (line.starts_with("> ") || line.trim_end() == ">")
            && if marked {
                ends_marked || !in_reply || self.output_ends_before_blank()
            } else {
                !self.in_fence
            };
        let kind = if user {
            Kind::User
        } else if output {
            Kind::Output
        } else if line.trim().is_empty() {
            if in_reply {
                self.push(line);
            } else {
                self.flush();
            }
            return;
        } else {
            Kind::Reply
        };
        let content = match kind {
            Kind::User => {
                let text = line["####".len()..].trim_end();
                let text = text.strip_prefix(' ').unwrap_or(text);
                if text == "<blank>" { "" } else { text }
            }
            Kind::Output => line[1..].strip_prefix(' ').unwrap_or(&line[1..]).trim_end(),
            Kind::Reply => line,
        };
        if self.current.as_ref().map(|(k, _, _)| *k) != Some(kind) {
            self.flush();
            self.current = Some((kind, String::new(), false));
            self.in_fence = false;
        }
        if kind == Kind::Reply && is_fence_toggle(line) {
            self.in_fence = !self.in_fence;
        }
        self.push(content);
        self.output_continues = kind == Kind::Output && marked && !ends_marked;
    }

    /// Adds a line to the open block (as the lines of a block are joined by newlines).
    fn push(&mut self, content: &str) {
        if let Some((_, text, started)) = self.current.as_mut() {
            if *started {
                text.push('\n');
            }
            text.push_str(content);
            *started = true;
        }
    }

    fn flush(&mut self) {
        if let Some((kind, text, _)) = self.current.take() {
            let text = match kind {
                Kind::Reply => text.trim().to_string(),
                _ => text.trim_end().to_string(),
            };
            if kind != Kind::Reply || !text.is_empty() {
                self.done.push(Block { kind, text });
            }
        }
    }

    /// Whether a line ending in two spaces comes before the next blank line among the lines
    /// after the one being decided (at most [`LOOKAHEAD`] of them, so that a long quote
    /// costs linear time).
    fn output_ends_before_blank(&self) -> bool {
        self.window
            .iter()
            .take(LOOKAHEAD)
            .take_while(|l| !l.trim().is_empty())
            .any(|l| l.ends_with("  "))
    }
}

fn is_fence_toggle(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("```") || line.starts_with("<source") || line.starts_with("</source>")
}
