//! Where each span of an OTLP JSON export sits in the file: the byte range of every object
//! in a `resourceSpans[].scopeSpans[].spans[]` array, found by following the text's
//! structure byte by byte, never parsing it. Sans-IO: fed the file's bytes in chunks, in
//! order. What it owns is the path to a span and the span's bounds; what a span holds is
//! read later, from those bounds ([`super::index`]).
//!
//! In JSON Lines each line is a value of its own: every line end starts afresh, so a torn or
//! bad line cannot shift the places of the next ones (the record reader skips that line, as
//! the whole read does).

use std::collections::VecDeque;

/// A span's JSON object in the file: its first byte (`{`) and its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub start: u64,
    pub len: u64,
}

/// The containers on the way to a span, told apart by where they open and under which key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The top-level object (an export request).
    Top,
    /// `resourceSpans` of the top-level object.
    Resources,
    Resource,
    /// `scopeSpans` of a resource.
    Scopes,
    Scope,
    /// `spans` of a scope.
    Spans,
    Span,
    Other,
}

/// Keys longer than this are none of those followed.
const KEY_BYTES: usize = 16;

/// The scanner's state between chunks.
pub struct Places {
    lines: bool,
    /// The file offset of the next byte, and its line (1-based).
    base: u64,
    line: usize,
    stack: Vec<Role>,
    in_string: bool,
    escaped: bool,
    /// The open string is kept (a key of an object whose keys matter), its first bytes.
    keeping: bool,
    string: Vec<u8>,
    /// The last string kept (a key when a `:` follows), `None` when it was too long.
    key: Option<Vec<u8>>,
    /// The last byte outside strings that was not whitespace.
    previous: u8,
    /// The open span's first byte and line.
    open: Option<(u64, usize)>,
    /// Spans found, with the line each starts on, not taken yet.
    found: VecDeque<(usize, Place)>,
}

impl Places {
    /// A scanner for JSON Lines (`lines`) or one document.
    pub fn new(lines: bool) -> Places {
        Places {
            lines,
            base: 0,
            line: 1,
            stack: Vec::new(),
            in_string: false,
            escaped: false,
            keeping: false,
            string: Vec::new(),
            key: None,
            previous: 0,
            open: None,
            found: VecDeque::new(),
        }
    }

    /// The line the next byte fed is on.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The spans found and not taken yet, with the line each starts on.
    pub fn found(&mut self) -> &mut VecDeque<(usize, Place)> {
        &mut self.found
    }

    /// Scans the next bytes of the file.
    pub fn feed(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string {
                i = self.in_literal(chunk, i);
                continue;
            }
            let b = chunk[i];
            let at = self.base + i as u64;
            match b {
                b'\n' => self.end_line(),
                b'"' => {
                    self.in_string = true;
                    self.escaped = false;
                    self.keeping = matches!(
                        self.stack.last(),
                        Some(Role::Top | Role::Resource | Role::Scope)
                    );
                    self.string.clear();
                }
                b'{' | b'[' => {
                    let role = self.role(b == b'{');
                    if role == Role::Span {
                        self.open = Some((at, self.line));
                    }
                    self.stack.push(role);
                }
                b'}' | b']' => {
                    if self.stack.pop() == Some(Role::Span)
                        && let Some((start, line)) = self.open.take()
                    {
                        let len = at + 1 - start;
                        self.found.push_back((line, Place { start, len }));
                    }
                }
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                self.previous = b;
            }
            i += 1;
        }
        self.base += chunk.len() as u64;
    }

    /// What a container opening here is (an object when `object`).
    fn role(&self, object: bool) -> Role {
        let after_key = |name: &[u8]| self.previous == b':' && self.key.as_deref() == Some(name);
        match (self.stack.last(), object) {
            (None, true) => Role::Top,
            (Some(Role::Top), false) if after_key(b"resourceSpans") => Role::Resources,
            (Some(Role::Resources), true) => Role::Resource,
            (Some(Role::Resource), false) if after_key(b"scopeSpans") => Role::Scopes,
            (Some(Role::Scopes), true) => Role::Scope,
            (Some(Role::Scope), false) if after_key(b"spans") => Role::Spans,
            (Some(Role::Spans), true) => Role::Span,
            _ => Role::Other,
        }
    }

    /// Reads string bytes from `chunk[i..]`; returns where to go on.
    fn in_literal(&mut self, chunk: &[u8], i: usize) -> usize {
        if self.lines && chunk[i] == b'\n' {
            // A raw line end inside a string: the line is not JSON, and the next starts afresh.
            self.end_line();
            return i + 1;
        }
        if self.escaped {
            self.escaped = false;
            // An escaped key is none of those followed: spoil it.
            self.keep(&[b'\\', chunk[i]]);
            return i + 1;
        }
        let rest = &chunk[i..];
        let stop = if self.lines {
            memchr::memchr3(b'"', b'\\', b'\n', rest)
        } else {
            memchr::memchr2(b'"', b'\\', rest)
        };
        let Some(j) = stop else {
            self.keep(rest);
            return chunk.len();
        };
        self.keep(&rest[..j]);
        match rest[j] {
            b'\\' => {
                self.escaped = true;
                i + j + 1
            }
            b'"' => {
                self.in_string = false;
                if self.keeping {
                    self.key = (self.string.len() <= KEY_BYTES).then(|| self.string.clone());
                }
                self.previous = b'"';
                i + j + 1
            }
            // A line end: handled on the next call.
            _ => i + j,
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        if self.keeping && self.string.len() <= KEY_BYTES {
            let room = KEY_BYTES + 1 - self.string.len();
            self.string
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// A line end outside a string; in JSON Lines, the next line starts afresh.
    fn end_line(&mut self) {
        self.line += 1;
        if self.lines {
            self.stack.clear();
            self.in_string = false;
            self.escaped = false;
            self.key = None;
            self.previous = 0;
            self.open = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str, lines: bool, chunk: usize) -> Vec<(usize, String)> {
        let mut places = Places::new(lines);
        for piece in text.as_bytes().chunks(chunk) {
            places.feed(piece);
        }
        places
            .found()
            .drain(..)
            .map(|(line, p)| {
                let start = usize::try_from(p.start).unwrap();
                let end = start + usize::try_from(p.len).unwrap();
                (line, text[start..end].to_string())
            })
            .collect()
    }

    #[test]
    fn spans_are_found_on_their_path_only() {
        let text = concat!(
            "{\"resourceSpans\": [{\"resource\": {\"spans\": [{\"x\": 1}]},\n",
            " \"scopeSpans\": [{\"scope\": {}, \"links\": [{}], \"spans\": [{\"traceId\": \"a\\\"}\", \"k\": [{}]},\n",
            "  3, {\"traceId\": \"b\"}]}]}],\n",
            " \"other\": {\"scopeSpans\": [{\"spans\": [{\"no\": 1}]}]}}\n",
        );
        for chunk in [1, 2, 7, 1000] {
            assert_eq!(
                scan(text, false, chunk),
                vec![
                    (2, "{\"traceId\": \"a\\\"}\", \"k\": [{}]}".to_string()),
                    (3, "{\"traceId\": \"b\"}".to_string()),
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn each_line_starts_afresh() {
        let good = r#"{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"t"}]}]}]}"#;
        let text = format!(
            "{good}\n{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{{\"a\":\"torn\n{good}\n"
        );
        for chunk in [1, 3, 1000] {
            let found = scan(&text, true, chunk);
            let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
            assert_eq!(lines, vec![1, 3], "chunks of {chunk}");
            assert!(found.iter().all(|(_, s)| s == r#"{"traceId":"t"}"#));
        }
    }

    #[test]
    fn escaped_or_long_keys_are_not_followed() {
        let text = r#"{"resource\u0053pans":[{"scopeSpans":[{"spans":[{}]}]}], "resourceSpansAndMore":[{"scopeSpans":[{"spans":[{}]}]}]}"#;
        assert!(scan(text, false, 5).is_empty());
    }
}
