//! Cutting a document that is one JSON object whose steps sit in an array under a named
//! top-level key (`{"info": {…}, "messages": [ … ], "trajectory_format": …}`): the array's
//! items are records, as a top-level array's are, and everything else is kept as the
//! header (the object with that array left empty), handed over when the object closes,
//! whichever order its keys come in.
//!
//! A document starting with `{` may also be JSON Lines: it is taken for one object when
//! its first line does not hold a whole value (a pretty-printed document). A compact
//! document on one line is read as before (as one line, then whole).

use super::{Cutter, Record, Shape};

/// The top-level keys whose array items are records.
const ITEM_KEYS: &[&[u8]] = &[b"messages", b"resourceSpans"];
/// Bytes of a key kept to compare it with [`ITEM_KEYS`].
const KEY_BYTES: usize = 32;

/// The state of a keyed cut (inside [`Cutter`]).
#[derive(Default)]
pub(super) struct Keyed {
    /// The object as read, but for the items' bytes.
    pub header: Vec<u8>,
    /// Inside the items' array (its containers are at depth 2).
    pub in_items: bool,
    /// Items cut so far.
    pub items: usize,
    /// The last string at depth 1 (a key when a `:` follows), its first bytes.
    key: Vec<u8>,
    /// The string being read belongs to the header (not to an item).
    header_string: bool,
    /// The last byte outside strings that was not whitespace.
    previous: u8,
}

/// Whether `line` (no line end) holds a whole JSON value, not the start of a longer one.
pub(super) fn is_whole_value(line: &[u8]) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in line {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    depth == 0 && !in_string
}

impl Cutter {
    /// A document starting with `{`: its first line decides between JSON Lines and one
    /// object; until it ends, its bytes wait in `pending`.
    pub(super) fn feed_undecided(&mut self, text: &[u8], on_record: &mut dyn FnMut(Record)) {
        let Some(at) = memchr::memchr(b'\n', text) else {
            self.pending.extend_from_slice(text);
            return;
        };
        self.pending.extend_from_slice(&text[..at]);
        let first = std::mem::take(&mut self.pending);
        if is_whole_value(&first) {
            self.shape = Some(Shape::Lines);
            self.feed_lines(&first, on_record);
        } else {
            self.shape = Some(Shape::Keyed);
            self.feed_keyed(&first, on_record);
        }
        self.feed(&text[at..], on_record);
    }

    pub(super) fn feed_keyed(&mut self, text: &[u8], on_record: &mut dyn FnMut(Record)) {
        for &b in text {
            if self.in_string {
                if self.keyed.header_string {
                    self.keyed.header.push(b);
                    if !self.escaped
                        && b != b'"'
                        && self.depth == 1
                        && self.keyed.key.len() < KEY_BYTES
                    {
                        self.keyed.key.push(b);
                    }
                } else {
                    self.pending.push(b);
                }
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            if b == b'\n' {
                self.line += 1;
            }
            if self.keyed.in_items {
                if self.depth == 2 {
                    match b {
                        b',' => {
                            self.end_item(on_record);
                            continue;
                        }
                        b']' => {
                            self.end_item(on_record);
                            self.keyed.in_items = false;
                            self.depth = 1;
                            self.keyed.header.push(b);
                            self.keyed.previous = b;
                            continue;
                        }
                        _ if b.is_ascii_whitespace() && self.pending.is_empty() => continue,
                        _ => {}
                    }
                }
                if self.pending.is_empty() {
                    self.start_line = self.line;
                }
                self.pending.push(b);
                match b {
                    b'"' => {
                        self.in_string = true;
                        self.keyed.header_string = false;
                    }
                    b'{' | b'[' => self.depth += 1,
                    b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
                continue;
            }
            if self.closed {
                if !b.is_ascii_whitespace() {
                    self.trailing.get_or_insert(self.line);
                }
                continue;
            }
            self.keyed.header.push(b);
            match b {
                b'"' => {
                    self.in_string = true;
                    self.keyed.header_string = true;
                    if self.depth == 1 {
                        self.keyed.key.clear();
                    }
                }
                b'[' if self.depth == 1
                    && self.keyed.previous == b':'
                    && ITEM_KEYS.contains(&self.keyed.key.as_slice()) =>
                {
                    self.keyed.in_items = true;
                    self.depth = 2;
                }
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.closed = true;
                    }
                }
                _ => {}
            }
            if !b.is_ascii_whitespace() {
                self.keyed.previous = b;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::cut;

    #[test]
    fn items_under_the_key_are_cut_and_the_rest_kept_whatever_the_order() {
        let text = "{\n \"info\": {\"messages\": [1]},\n \"messages\": [\n  {\"a\": \"]\\\",\"},\n  [2, {\"b\": 3}]\n ],\n \"after\": \"x\"\n}\n";
        for chunk in [1, 3, 7, 1000] {
            let (items, end) = cut(text, chunk);
            assert_eq!(end, Ok(()), "chunks of {chunk}");
            assert_eq!(
                items,
                vec![
                    (4, "{\"a\": \"]\\\",\"}".to_string(), false),
                    (5, "[2, {\"b\": 3}]".to_string(), false),
                    (
                        1,
                        "{\n \"info\": {\"messages\": [1]},\n \"messages\": [],\n \"after\": \"x\"\n}"
                            .to_string(),
                        false
                    ),
                ],
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn a_first_line_holding_a_whole_value_is_json_lines() {
        let (lines, end) = cut("{\"messages\": [1]}\n{\"messages\": [2]}\n", 4);
        assert_eq!(end, Ok(()));
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1], (2, "{\"messages\": [2]}".to_string(), false));
    }

    #[test]
    fn a_torn_object_names_its_line() {
        let (_, end) = cut("{\n\"messages\": [\n{\"a\": 1},\n{\"b\": [2,", 5);
        assert!(end.unwrap_err().contains("x.json:4"));
    }
}
