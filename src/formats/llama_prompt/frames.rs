//! A prompt log's bytes cut into framed messages as they come: a message is cut once the
//! next `<|start_header_id|>` (or the end of the file) is in, so the bounded read holds one
//! message's bytes and the chunk being read, never the file. Each marker is searched for
//! once, from where the previous search stopped. Pieces are cut at ASCII markers, so reading
//! each as UTF-8 (bad bytes replaced) gives the text the whole file read that way gives.

use super::{BEGIN, END_OF_MESSAGE, END_OF_TURN, HEADER_END, HEADER_START};
use memchr::memmem;
use std::borrow::Cow;

/// One framed message, as written.
#[derive(Debug, PartialEq)]
pub(super) struct Framed {
    pub role: String,
    pub content: String,
    pub terminated: bool,
}

/// The framing of one log: fed the unread bytes, it cuts what it can and says how much it
/// used ([`Framing::advance`]).
#[derive(Default)]
pub(super) struct Framing {
    /// The first header was found (the text before it counted).
    started: bool,
    /// A header without its `<|end_header_id|>` ended the log.
    cut_off: bool,
    /// Bytes of the unread text already searched in vain for the next header.
    scanned: usize,
    stray: usize,
    begins: usize,
    pub done: Vec<Framed>,
}

fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

impl Framing {
    /// Cuts the messages `buf` (the unread text, all of it when `at_end`) holds; returns
    /// the bytes used. What is left starts with a header, or is the text before the first.
    pub fn advance(&mut self, buf: &[u8], at_end: bool) -> usize {
        let header_start = memmem::Finder::new(HEADER_START);
        let header_end = memmem::Finder::new(HEADER_END);
        let mut pos = 0;
        loop {
            let rest = &buf[pos..];
            if self.cut_off {
                return buf.len();
            }
            if !self.started {
                let from = self.scanned.saturating_sub(HEADER_START.len() - 1);
                let Some(found) = header_start.find(&rest[from..]).map(|i| from + i) else {
                    if at_end {
                        self.stray += text(rest).trim().len();
                        return buf.len();
                    }
                    self.scanned = rest.len();
                    return pos;
                };
                let before = text(&rest[..found]);
                self.begins += before.matches(BEGIN).count();
                self.stray += before.replace(BEGIN, "").trim().len();
                self.started = true;
                self.scanned = 0;
                pos += found;
                continue;
            }
            // `rest` starts with a header, or is empty: all of it was cut.
            if rest.is_empty() {
                return pos;
            }
            let role_start = HEADER_START.len();
            let Some(role_len) = header_end.find(&rest[role_start..]) else {
                if at_end {
                    self.cut_off = true;
                    return buf.len();
                }
                return pos;
            };
            let body_start = role_start + role_len + HEADER_END.len();
            let from = self.scanned.max(body_start);
            let from = from.saturating_sub(HEADER_START.len() - 1).max(body_start);
            let next = match header_start.find(&rest[from..]) {
                Some(i) => from + i,
                None if at_end => rest.len(),
                None => {
                    self.scanned = rest.len();
                    return pos;
                }
            };
            let role = text(&rest[role_start..role_start + role_len])
                .trim()
                .to_string();
            let region = text(&rest[body_start..next]);
            self.message(role, &region);
            self.scanned = 0;
            pos += next;
        }
    }

    fn message(&mut self, role: String, region: &str) {
        let (content, terminated, after) = match [END_OF_TURN, END_OF_MESSAGE]
            .iter()
            .filter_map(|end| region.find(end).map(|i| (i, end.len())))
            .min()
        {
            Some((i, len)) => (&region[..i], true, &region[i + len..]),
            None => (region, false, ""),
        };
        self.stray += after.replace(BEGIN, "").trim().len();
        self.begins += after.matches(BEGIN).count();
        let content = content
            .strip_prefix("\n\n")
            .unwrap_or_else(|| content.trim_start_matches('\n'));
        self.done.push(Framed {
            role,
            content: content.to_string(),
            terminated,
        });
    }

    /// What the framing says of the log as a whole, once it has ended.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.cut_off {
            warnings.push("the last message header is cut off (no `<|end_header_id|>`)".into());
        }
        if self.stray > 0 {
            warnings.push(format!(
                "{} characters of text outside any message were skipped",
                self.stray
            ));
        }
        if self.begins > 1 {
            warnings.push(format!(
                "`<|begin_of_text|>` appears {} times; the messages are read as one conversation",
                self.begins
            ));
        }
        warnings
    }
}

/// [`Framing`] over a file read in chunks: the unread bytes kept between chunks.
#[derive(Default)]
pub(super) struct Frames {
    pub framing: Framing,
    buf: Vec<u8>,
    pos: usize,
}

impl Frames {
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(chunk);
        self.pos = self.framing.advance(&self.buf, false);
    }

    pub fn finish(&mut self) {
        let used = self.framing.advance(&self.buf[self.pos..], true);
        self.pos += used;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>\
        <|start_header_id|>user<|end_header_id|>\n\nFix it, caf\u{e9}.<|eot_id|>stray<|begin_of_text|>\
        <|start_header_id|>assistant<|end_header_id|>\n\n[view_file(path=\"a\")]<|eom_id|>\
        <|start_header_id|>ipython<|end_header_id|>\n\nResult: ERROR - no<|eot_id|>\
        <|start_header_id|>assistant<|end_header_id|>\n\n";

    #[test]
    fn messages_cut_from_chunks_of_any_size_are_those_of_the_whole_text() {
        let mut whole = Framing::default();
        whole.advance(LOG.as_bytes(), true);
        assert_eq!(whole.done.len(), 5);
        assert_eq!(whole.done[1].content, "Fix it, caf\u{e9}.");
        assert!(whole.done[2].terminated && !whole.done[4].terminated);
        for size in [1, 2, 3, 7, 19, 64] {
            let mut frames = Frames::default();
            for chunk in LOG.as_bytes().chunks(size) {
                frames.feed(chunk);
            }
            frames.finish();
            assert_eq!(frames.framing.done, whole.done, "chunks of {size}");
            assert_eq!(
                frames.framing.warnings(),
                whole.warnings(),
                "chunks of {size}"
            );
        }
        // A header cut off at the end, in pieces too.
        let cut = format!("{LOG}<|start_header_id|>assi");
        let mut frames = Frames::default();
        for chunk in cut.as_bytes().chunks(5) {
            frames.feed(chunk);
        }
        frames.finish();
        assert_eq!(frames.framing.done.len(), 5);
        assert!(frames.framing.warnings()[0].contains("cut off"));
    }
}
