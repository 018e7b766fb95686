//! The first pass over an Inspect `.json` log read a sample at a time: the document's bytes
//! scanned for their structure alone (no parse, no tree), giving where each item of
//! `samples` sits in the file and the rest of the document, the header (`samples` left an
//! empty list), whichever order its keys come in. Sans-IO: fed in chunks. Each item is
//! handed over with its bytes while they fit the limit; a bigger one with its first bytes
//! only, enough to name it (`log_head::member_value`).

use memchr::memchr2;

/// Bytes of a key kept to compare it with `samples`.
const KEY_BYTES: usize = 16;
/// Bytes kept of an item bigger than the limit: its id comes first in Inspect's samples.
pub(super) const HEAD_KEPT: usize = 64 << 10;

/// An item of `samples`: where it sits in the file, and its bytes (`whole`) or, when it
/// outgrew the limit, its first [`HEAD_KEPT`] bytes.
pub(super) struct Item {
    pub start: u64,
    pub end: u64,
    pub bytes: Vec<u8>,
    pub whole: bool,
}

/// The scan's state between chunks.
pub(super) struct Scan {
    /// Items longer than this are not held.
    limit: u64,
    /// The file offset of the next byte fed.
    offset: u64,
    started: bool,
    /// The document is not one object: not a log read here.
    pub not_object: bool,
    /// Containers open (1 inside the top-level object, 2 inside `samples`).
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The open string is a member of the top-level object (a key, or a value).
    top_string: bool,
    /// The last such string, its first bytes.
    key: Vec<u8>,
    /// The last byte outside strings that was not whitespace.
    previous: u8,
    in_samples: bool,
    /// `samples` lists met (a key given twice leaves the whole read to say what it means).
    lists: usize,
    /// The document as read, but for the items' bytes.
    pub header: Vec<u8>,
    item: Option<Item>,
    closed: bool,
    trailing: bool,
}

impl Scan {
    pub(super) fn new(limit: u64) -> Scan {
        Scan {
            limit,
            offset: 0,
            started: false,
            not_object: false,
            depth: 0,
            in_string: false,
            escaped: false,
            top_string: false,
            key: Vec::new(),
            previous: 0,
            in_samples: false,
            lists: 0,
            header: Vec::new(),
            item: None,
            closed: false,
            trailing: false,
        }
    }

    /// Scans `chunk` (the next bytes of the file), calling `on_item` with each item that ends.
    pub(super) fn feed(&mut self, chunk: &[u8], on_item: &mut dyn FnMut(Item)) {
        let mut i = 0;
        while i < chunk.len() && !self.not_object {
            if self.in_string {
                i += self.string(&chunk[i..], self.offset + i as u64);
                continue;
            }
            let b = chunk[i];
            let at = self.offset + i as u64;
            i += 1;
            self.byte(b, at, on_item);
        }
        self.offset += chunk.len() as u64;
    }

    /// Reads string content from the start of `text` (at file offset `at`), up to and
    /// including its closing quote when it is there; returns the bytes read.
    fn string(&mut self, text: &[u8], at: u64) -> usize {
        if self.escaped {
            self.escaped = false;
            self.put(&text[..1]);
            return 1;
        }
        let Some(n) = memchr2(b'"', b'\\', text) else {
            self.put_string(text);
            return text.len();
        };
        self.put_string(&text[..n]);
        self.put(&text[n..=n]);
        if text[n] == b'\\' {
            self.escaped = true;
        } else {
            self.in_string = false;
            if let Some(item) = &mut self.item {
                item.end = at + n as u64 + 1;
            }
        }
        n + 1
    }

    fn byte(&mut self, b: u8, at: u64, on_item: &mut dyn FnMut(Item)) {
        let space = b.is_ascii_whitespace();
        if !self.started {
            match b {
                _ if space => {}
                b'{' => {
                    self.started = true;
                    self.depth = 1;
                    self.header.push(b);
                }
                _ => self.not_object = true,
            }
            return;
        }
        if self.closed {
            self.trailing |= !space;
            return;
        }
        if self.in_samples && self.depth == 2 {
            match b {
                b',' => {
                    self.end_item(on_item);
                    return;
                }
                b']' => {
                    self.end_item(on_item);
                    self.in_samples = false;
                    self.depth = 1;
                    self.header.push(b);
                    self.previous = b;
                    return;
                }
                _ if space => return,
                _ if self.item.is_none() => {
                    self.item = Some(Item {
                        start: at,
                        end: at,
                        bytes: Vec::new(),
                        whole: true,
                    });
                }
                _ => {}
            }
        }
        self.put(&[b]);
        if space {
            return;
        }
        if let Some(item) = &mut self.item {
            item.end = at + 1;
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.top_string = self.depth == 1;
                if self.top_string {
                    self.key.clear();
                }
            }
            b'[' if self.depth == 1 && self.previous == b':' && self.key == b"samples" => {
                self.in_samples = true;
                self.lists += 1;
                self.depth = 2;
            }
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.closed = self.depth == 0;
            }
            _ => {}
        }
        self.previous = b;
    }

    /// String content: kept where [`Scan::put`] keeps it, and as the key when it is one.
    fn put_string(&mut self, text: &[u8]) {
        if self.top_string && self.key.len() < KEY_BYTES {
            let room = KEY_BYTES - self.key.len();
            self.key.extend_from_slice(&text[..text.len().min(room)]);
        }
        self.put(text);
    }

    /// Bytes of the document: the open item's, the header's outside `samples`, else none
    /// (the commas and spaces between items).
    fn put(&mut self, bytes: &[u8]) {
        let Some(item) = &mut self.item else {
            if !self.in_samples {
                self.header.extend_from_slice(bytes);
            }
            return;
        };
        if item.whole && (item.bytes.len() + bytes.len()) as u64 > self.limit {
            item.whole = false;
            item.bytes.truncate(HEAD_KEPT);
            item.bytes.shrink_to_fit();
        }
        let room = if item.whole {
            bytes.len()
        } else {
            HEAD_KEPT.saturating_sub(item.bytes.len())
        };
        item.bytes
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn end_item(&mut self, on_item: &mut dyn FnMut(Item)) {
        if let Some(mut item) = self.item.take() {
            if item.whole {
                // Spaces before the comma are not the item's.
                item.bytes.truncate((item.end - item.start) as usize);
            }
            on_item(item);
        }
    }

    /// The header, once the whole file was fed; `None` when it is not one object whose
    /// `samples` (if a list) came once: the whole read says what such a file holds.
    pub(super) fn finish(self) -> Option<Vec<u8>> {
        (self.started && self.closed && !self.trailing && self.lists <= 1).then_some(self.header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::inspect_ai::log_head::member_value;
    use serde_json::Value;

    /// Items as (start, end, text or `None` when not whole).
    type Placed = Vec<(u64, u64, Option<String>)>;

    /// The items, and the header.
    fn scan(text: &str, chunk: usize, limit: u64) -> (Placed, Option<String>) {
        let mut scan = Scan::new(limit);
        let mut items = Vec::new();
        for piece in text.as_bytes().chunks(chunk) {
            scan.feed(piece, &mut |item| {
                let text = item.whole.then(|| String::from_utf8(item.bytes).unwrap());
                items.push((item.start, item.end, text));
            });
        }
        let header = scan.finish().map(|h| String::from_utf8(h).unwrap());
        (items, header)
    }

    #[test]
    fn items_are_placed_and_the_rest_kept_whatever_the_order() {
        let text = "{\"eval\": {\"samples\": [1]},\n \"samples\": [\n  {\"id\": \"a,]\\\"\"} ,\n  [2, {\"b\": 3}],\n  7\n ],\n \"plan\": \"x\"\n}\n";
        for chunk in [1, 2, 5, 1000] {
            let (items, header) = scan(text, chunk, u64::MAX);
            let texts: Vec<&str> = items.iter().map(|i| i.2.as_deref().unwrap()).collect();
            assert_eq!(
                texts,
                ["{\"id\": \"a,]\\\"\"}", "[2, {\"b\": 3}]", "7"],
                "chunks of {chunk}"
            );
            for (start, end, item) in &items {
                assert_eq!(
                    &text[*start as usize..*end as usize],
                    item.as_deref().unwrap()
                );
            }
            assert_eq!(
                header.as_deref(),
                Some("{\"eval\": {\"samples\": [1]},\n \"samples\": [],\n \"plan\": \"x\"\n}"),
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn an_item_over_the_limit_keeps_its_place_and_its_head() {
        let big = format!("{{\"id\": 7, \"text\": \"{}\"}}", "x".repeat(100));
        let text = format!("{{\"samples\": [{{\"id\": 1}}, {big}, 3], \"eval\": {{}}}}");
        let (items, header) = scan(&text, 7, 50);
        assert_eq!(items.len(), 3);
        let (start, end, whole) = &items[1];
        assert_eq!(&text[*start as usize..*end as usize], big);
        assert!(whole.is_none());
        assert_eq!(header.as_deref(), Some("{\"samples\": [], \"eval\": {}}"));
        let mut scan = Scan::new(50);
        let mut head = Vec::new();
        scan.feed(text.as_bytes(), &mut |item| {
            if !item.whole {
                head = item.bytes;
            }
        });
        assert_eq!(member_value(&head, "id"), Some(Value::from(7)));
    }

    #[test]
    fn what_is_not_one_object_is_not_read_here() {
        assert_eq!(scan("[1, 2]", 3, 100).1, None);
        assert_eq!(scan("{\"samples\": [1]} {}", 3, 100).1, None);
        assert_eq!(scan("{\"samples\": [1], \"samples\": [2]}", 3, 100).1, None);
        assert_eq!(scan("{\"samples\": [1", 3, 100).1, None);
        assert_eq!(
            scan("{\"samples\": null, \"eval\": 1}", 3, 100)
                .1
                .as_deref(),
            Some("{\"samples\": null, \"eval\": 1}")
        );
    }
}
