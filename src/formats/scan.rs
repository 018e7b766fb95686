//! One pass over a JSON document that finds where things are without decoding them: the
//! members of the top-level object, and each element of the member arrays a [`Visitor`]
//! follows, as byte spans. Fed in chunks (sans-IO), so a 200 MB log never sits in memory
//! whole; string contents are skipped with `memchr`, which is most of a log's bytes.
//!
//! It checks structure (brackets balance, the top level is an object), not grammar: the
//! values a visitor asks for are decoded by serde, which reports what is wrong with them.

use memchr::memchr;
use std::ops::Range;

/// What the scan found wrong with the document's structure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    #[error("byte {0}: the top level is not a JSON object")]
    NotAnObject(u64),
    #[error("byte {0}: `{1}` closes nothing")]
    Unbalanced(u64, char),
    #[error("byte {0}: more after the end of the JSON document")]
    Trailing(u64),
    #[error("unexpected end of JSON: the file is truncated (still being written?)")]
    Truncated,
}

/// Told what the scan finds, and asked what to keep.
pub trait Visitor {
    /// Whether to report each element of the top-level member `key` (an array) on its own.
    fn follow(&mut self, key: &str) -> bool;
    /// Whether to keep the bytes of element `index` of the followed array `key`.
    fn keep_element(&mut self, key: &str, index: usize) -> bool;
    /// An element of a followed array, with its bytes when [`Visitor::keep_element`] said so.
    fn element(&mut self, key: &str, index: usize, span: Range<u64>, bytes: Option<Vec<u8>>);
    /// A top-level member that is not followed, with its bytes when at most `member_cap`.
    fn member(&mut self, key: &str, span: Range<u64>, bytes: Option<Vec<u8>>);
}

/// A value being read at the level the scan reports on.
#[derive(Debug)]
struct Open {
    start: u64,
    /// Containers end when the depth comes back to this; strings and scalars at this depth.
    depth: usize,
    kind: OpenKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenKind {
    Container,
    String,
    Scalar,
}

/// The scanner's state between chunks.
pub struct Scanner {
    /// Bytes fed so far: the absolute offset of the next chunk.
    base: u64,
    depth: usize,
    in_string: bool,
    /// Backslashes that ended the previous chunk inside a string.
    backslashes: usize,
    /// At depth 1, the next string is a key.
    expecting_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    /// The member whose value is being read, and whether its elements are followed.
    member_key: String,
    following: bool,
    /// The member value (depth 1) or element (depth 2 of a followed array) being read.
    open: Option<Open>,
    element_index: usize,
    /// Bytes of the open value, when kept; `capture_from` is where in the current chunk
    /// they resume.
    capture: Option<Vec<u8>>,
    capture_from: usize,
    member_cap: usize,
    seen_object: bool,
    done: bool,
}

impl Scanner {
    /// A scanner that hands members over with their bytes up to `member_cap` bytes long.
    pub fn new(member_cap: usize) -> Scanner {
        Scanner {
            base: 0,
            depth: 0,
            in_string: false,
            backslashes: 0,
            expecting_key: false,
            reading_key: false,
            key: Vec::new(),
            member_key: String::new(),
            following: false,
            open: None,
            element_index: 0,
            capture: None,
            capture_from: 0,
            member_cap,
            seen_object: false,
            done: false,
        }
    }

    /// Scans the next `chunk` of the document.
    pub fn feed(&mut self, chunk: &[u8], visitor: &mut dyn Visitor) -> Result<(), ScanError> {
        self.capture_from = 0;
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string {
                // Jump from quote to quote: a quote ends the string unless an odd run of
                // backslashes precedes it. (Stopping at every backslash instead is slow on
                // logs, whose strings are dense with `\n` and `\"`.)
                let Some(j) = memchr(b'"', &chunk[i..]) else {
                    if self.reading_key {
                        self.key.extend_from_slice(&chunk[i..]);
                    }
                    let run = trailing_backslashes(&chunk[i..]);
                    self.backslashes = if run == chunk.len() - i {
                        self.backslashes + run
                    } else {
                        run
                    };
                    i = chunk.len();
                    continue;
                };
                let at = i + j;
                if self.reading_key {
                    self.key.extend_from_slice(&chunk[i..at]);
                }
                let mut run = trailing_backslashes(&chunk[i..at]);
                if run == at - i {
                    run += self.backslashes;
                }
                self.backslashes = 0;
                if run % 2 == 1 {
                    if self.reading_key {
                        self.key.push(b'"');
                    }
                } else {
                    self.in_string = false;
                    if self.reading_key {
                        self.reading_key = false;
                        // Reuses the key's buffer: objects have many members.
                        self.member_key.clear();
                        self.member_key
                            .push_str(&String::from_utf8_lossy(&self.key));
                    } else if self
                        .open
                        .as_ref()
                        .is_some_and(|o| o.kind == OpenKind::String && o.depth == self.depth)
                    {
                        self.close(chunk, at, visitor);
                    }
                }
                i = at + 1;
                continue;
            }
            let b = chunk[i];
            let at = self.base + i as u64;
            if self.done {
                if !b.is_ascii_whitespace() {
                    return Err(ScanError::Trailing(at));
                }
                i += 1;
                continue;
            }
            if !self.seen_object {
                match b {
                    b'{' => {
                        self.seen_object = true;
                        self.depth = 1;
                        self.expecting_key = true;
                    }
                    _ if b.is_ascii_whitespace() => {}
                    _ => return Err(ScanError::NotAnObject(at)),
                }
                i += 1;
                continue;
            }
            match b {
                b' ' | b'\n' | b'\r' | b'\t' => {
                    if self.open.is_some() {
                        self.end_scalar(chunk, i, visitor);
                    }
                    // Indentation comes in runs: skip the rest of this one at once.
                    let run = chunk[i + 1..]
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
                        .unwrap_or(chunk.len() - i - 1);
                    i += run;
                }
                b'"' => {
                    if self.depth == 1 && self.expecting_key {
                        self.reading_key = true;
                        self.key.clear();
                    } else {
                        self.begin(chunk, i, OpenKind::String, visitor);
                    }
                    self.in_string = true;
                    self.backslashes = 0;
                }
                b'{' | b'[' => {
                    self.begin(chunk, i, OpenKind::Container, visitor);
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.end_scalar(chunk, i, visitor);
                    if self.depth == 0 {
                        return Err(ScanError::Unbalanced(at, char::from(b)));
                    }
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.done = true;
                    } else if self
                        .open
                        .as_ref()
                        .is_some_and(|o| o.kind == OpenKind::Container && o.depth == self.depth)
                    {
                        self.close(chunk, i, visitor);
                    }
                    if self.depth == 1 {
                        self.following = false;
                    }
                }
                b',' => {
                    self.end_scalar(chunk, i, visitor);
                    if self.depth == 1 {
                        self.expecting_key = true;
                    }
                }
                b':' => {
                    if self.depth == 1 {
                        self.expecting_key = false;
                    }
                }
                _ => self.begin(chunk, i, OpenKind::Scalar, visitor),
            }
            i += 1;
        }
        if let Some(capture) = &mut self.capture {
            capture.extend_from_slice(&chunk[self.capture_from..]);
        }
        self.base += chunk.len() as u64;
        Ok(())
    }

    /// Checks the document ended.
    pub fn finish(&self) -> Result<(), ScanError> {
        if self.done {
            Ok(())
        } else {
            Err(ScanError::Truncated)
        }
    }

    /// A value begins at `chunk[i]`: a member's, or an element's of a followed array.
    fn begin(&mut self, chunk: &[u8], i: usize, kind: OpenKind, visitor: &mut dyn Visitor) {
        if self
            .open
            .as_ref()
            .is_some_and(|o| o.kind == OpenKind::Scalar)
        {
            return; // the rest of a number or literal
        }
        let start = self.base + i as u64;
        let keep = if self.depth == 1 && self.open.is_none() {
            self.following =
                kind == OpenKind::Container && chunk[i] == b'[' && visitor.follow(&self.member_key);
            self.element_index = 0;
            // A followed array is reported element by element; its own bytes are not kept.
            !self.following
        } else if self.depth == 2 && self.following && self.open.is_none() {
            visitor.keep_element(&self.member_key, self.element_index)
        } else {
            return;
        };
        if self.depth == 1 && self.following {
            // The array itself is not an open value: its elements are.
            return;
        }
        self.open = Some(Open {
            start,
            depth: self.depth,
            kind,
        });
        self.capture = keep.then(Vec::new);
        self.capture_from = i;
    }

    fn end_scalar(&mut self, chunk: &[u8], i: usize, visitor: &mut dyn Visitor) {
        if self
            .open
            .as_ref()
            .is_some_and(|o| o.kind == OpenKind::Scalar && o.depth == self.depth)
        {
            // The delimiter is not part of the scalar.
            self.close(chunk, i.wrapping_sub(1), visitor);
        }
    }

    /// The open value ends at `chunk[last]` (inclusive).
    fn close(&mut self, chunk: &[u8], last: usize, visitor: &mut dyn Visitor) {
        let Some(open) = self.open.take() else {
            return;
        };
        let end = self.base.wrapping_add(last as u64).wrapping_add(1);
        let mut bytes = self.capture.take();
        if let Some(bytes) = &mut bytes {
            bytes.extend_from_slice(&chunk[self.capture_from..last.wrapping_add(1)]);
        }
        let span = open.start..end;
        if open.depth == 2 {
            let index = self.element_index;
            self.element_index += 1;
            visitor.element(&self.member_key, index, span, bytes);
        } else {
            let bytes = bytes.filter(|b| b.len() <= self.member_cap);
            visitor.member(&self.member_key, span, bytes);
        }
    }
}

/// How many backslashes end `bytes`.
fn trailing_backslashes(bytes: &[u8]) -> usize {
    bytes.iter().rev().take_while(|&&b| b == b'\\').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Record {
        elements: Vec<(String, usize, Range<u64>, Option<String>)>,
        members: Vec<(String, Range<u64>, Option<String>)>,
    }

    impl Visitor for Record {
        fn follow(&mut self, key: &str) -> bool {
            key == "steps"
        }
        fn keep_element(&mut self, _key: &str, index: usize) -> bool {
            index != 1
        }
        fn element(&mut self, key: &str, index: usize, span: Range<u64>, bytes: Option<Vec<u8>>) {
            let bytes = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
            self.elements.push((key.into(), index, span, bytes));
        }
        fn member(&mut self, key: &str, span: Range<u64>, bytes: Option<Vec<u8>>) {
            let bytes = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
            self.members.push((key.into(), span, bytes));
        }
    }

    const DOC: &str = r#" {"a": 12, "steps": [ {"x": "q\"]}", "y": "\\\\\"\\"}, [1, 2], "s\\", 7 ,{}],
        "info": {"k": [true, null]}, "b": "t}", "n": -1.5e3 } "#;

    fn scan_in_chunks(doc: &str, size: usize) -> Record {
        let mut record = Record::default();
        let mut scanner = Scanner::new(1 << 20);
        for chunk in doc.as_bytes().chunks(size) {
            scanner.feed(chunk, &mut record).unwrap();
        }
        scanner.finish().unwrap();
        record
    }

    #[test]
    fn finds_members_and_followed_elements_whatever_the_chunking() {
        let whole = scan_in_chunks(DOC, DOC.len());
        let texts: Vec<_> = whole.elements.iter().map(|e| e.3.clone()).collect();
        assert_eq!(
            texts,
            vec![
                Some(r#"{"x": "q\"]}", "y": "\\\\\"\\"}"#.to_string()),
                None,
                Some(r#""s\\""#.to_string()),
                Some("7".to_string()),
                Some("{}".to_string()),
            ]
        );
        for (_, _, span, bytes) in &whole.elements {
            let text = &DOC[span.start as usize..span.end as usize];
            if let Some(bytes) = bytes {
                assert_eq!(text, bytes);
            }
        }
        assert_eq!(&DOC[whole.elements[1].2.start as usize..][..6], "[1, 2]");
        let members: Vec<_> = whole
            .members
            .iter()
            .map(|m| (m.0.as_str(), m.2.as_deref().unwrap_or("-")))
            .collect();
        assert_eq!(
            members,
            vec![
                ("a", "12"),
                ("info", r#"{"k": [true, null]}"#),
                ("b", r#""t}""#),
                ("n", "-1.5e3"),
            ]
        );
        for size in 1..12 {
            let chunked = scan_in_chunks(DOC, size);
            assert_eq!(chunked.elements, whole.elements, "chunks of {size}");
            assert_eq!(chunked.members, whole.members, "chunks of {size}");
        }
    }

    /// A small deterministic generator (xorshift): no dependency, same cases every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn value(rng: &mut Rng, depth: u32) -> serde_json::Value {
        use serde_json::Value;
        const PIECES: [&str; 8] = ["a", "\\", "\"", "\n", "]}", "é", " ", "\\\""];
        match rng.below(if depth > 3 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => Value::from(rng.below(1000) as i64 - 500),
            2 => Value::Bool(rng.below(2) == 1),
            3 => Value::String(
                (0..rng.below(12))
                    .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
                    .collect(),
            ),
            4 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth + 1)).collect()),
            _ => Value::Object(
                (0..rng.below(4))
                    .map(|i| (format!("k{i}"), value(rng, depth + 1)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn spans_are_the_values_on_generated_documents_and_damage_never_panics() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..300 {
            let steps: Vec<serde_json::Value> =
                (0..rng.below(5)).map(|_| value(&mut rng, 1)).collect();
            let doc = serde_json::json!({"info": value(&mut rng, 1), "steps": steps});
            let text = if case % 2 == 0 {
                serde_json::to_string(&doc).unwrap()
            } else {
                serde_json::to_string_pretty(&doc).unwrap()
            };
            let chunk = 1 + rng.below(40) as usize;
            let record = scan_in_chunks(&text, chunk);
            assert_eq!(record.elements.len(), steps.len(), "{text}");
            for ((_, _, span, _), want) in record.elements.iter().zip(&steps) {
                let got: serde_json::Value =
                    serde_json::from_str(&text[span.start as usize..span.end as usize]).unwrap();
                assert_eq!(&got, want, "{text}");
            }
            let info = record.members.iter().find(|m| m.0 == "info").unwrap();
            let got: serde_json::Value = serde_json::from_str(info.2.as_deref().unwrap()).unwrap();
            assert_eq!(got, doc["info"]);
            // Cut or damaged: an error or a result, never a panic.
            let mut bytes = text.clone().into_bytes();
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] = b"{}[]\"\\,:"[rng.below(8) as usize];
            bytes.truncate(at + rng.below(3) as usize);
            let mut scanner = Scanner::new(1 << 20);
            let mut record = Record::default();
            if scanner.feed(&bytes, &mut record).is_ok() {
                let _ = scanner.finish();
            }
        }
    }

    #[test]
    fn structure_errors_are_reported() {
        let mut record = Record::default();
        let mut scanner = Scanner::new(10);
        assert_eq!(
            scanner.feed(b"  [1]", &mut record),
            Err(ScanError::NotAnObject(2))
        );
        let mut scanner = Scanner::new(10);
        scanner
            .feed(br#"{"steps": [{"a": "b"}, {"#, &mut record)
            .unwrap();
        assert_eq!(scanner.finish(), Err(ScanError::Truncated));
        let mut scanner = Scanner::new(10);
        assert_eq!(
            scanner.feed(b"{} \n]", &mut record),
            Err(ScanError::Trailing(4))
        );
        let mut scanner = Scanner::new(3);
        let mut record = Record::default();
        scanner.feed(br#"{"long": "abcdef"}"#, &mut record).unwrap();
        assert_eq!(record.members[0].2, None, "over the cap: span only");
    }
}
