//! The slimming pass: JSON or JSON Lines text copied with the middle of every long string
//! literal replaced by a placeholder naming where those bytes sit in the file. A long
//! string keeps its first and last bytes, so a reader that looks at how a text starts
//! (`<environment_context>`, `Exit code:`) or trims its end sees what it would see in the
//! file. What is left is the document's structure and its short strings (ids, roles, names,
//! short arguments): small enough to hand to the format's own whole-file reader, whatever
//! the file's size.
//!
//! Sans-IO: fed in chunks. Newlines outside strings are copied, so line numbers stay those
//! of the file (a JSON string holds no raw newline).

use memchr::memchr2;

/// The character that opens and closes a placeholder: a private-use code point that no log
/// writer emits, so a placeholder is never confused with text.
pub const MARK: char = '\u{10FFFD}';

/// Members whose values are tool-call arguments, which readers parse again (a JSON string)
/// or write out again as JSON text (an object): never slimmed, at any depth, since a
/// placeholder would not parse, or would be read back unescaped inside escaped text. A
/// string that starts like JSON (`{`, `[`: Codex's tool outputs) is kept whole too.
const KEPT_KEYS: &[&[u8]] = &[
    b"arguments",
    b"args",
    b"input",
    b"parameters",
    b"params",
    b"tool_input",
    b"toolInput",
    // The task's sources, which readers cut at markers anywhere in the text.
    b"instruction",
    b"problem_statement",
];

/// Raw bytes of a long literal kept before and after its placeholder (at most).
const HEAD: usize = 160;
const TAIL: usize = 96;

/// The slimmer's state between chunks.
pub struct Slimmer {
    /// Literals of more than this many bytes (quotes included) are slimmed; at least
    /// [`HEAD`] + [`TAIL`] + 2, so that a slimmed literal has a middle.
    threshold: usize,
    pub out: Vec<u8>,
    /// Bytes fed so far: the file offset of the next chunk.
    base: u64,
    in_string: bool,
    /// The previous byte was a backslash inside a string.
    escaped: bool,
    /// Where the open literal starts (its opening quote) in the file.
    start: u64,
    /// The open literal's bytes while it is short enough to be copied; once long, its head.
    literal: Vec<u8>,
    long: bool,
    /// The last bytes of a long literal, and the file offset of the first of them.
    tail: Vec<u8>,
    tail_at: u64,
    /// The escape sequences of the open literal's last bytes, as file offsets (start, end):
    /// the tail is never cut inside one.
    escapes: std::collections::VecDeque<(u64, u64)>,
    /// The open literal may not be slimmed.
    kept: bool,
    /// The content of the last short literal closed, a key if a `:` follows.
    last_short: Vec<u8>,
    /// The last byte outside strings that was not whitespace.
    previous: u8,
    /// The member whose value comes next is one of [`KEPT_KEYS`].
    kept_key: bool,
    /// Containers open outside strings.
    depth: usize,
    /// The depth at which the value of a [`KEPT_KEYS`] member opened: until it closes,
    /// nothing is slimmed.
    kept_from: Option<usize>,
}

impl Slimmer {
    pub fn new(threshold: usize) -> Slimmer {
        Slimmer {
            threshold: threshold.max(HEAD + TAIL + 2),
            out: Vec::new(),
            base: 0,
            in_string: false,
            escaped: false,
            start: 0,
            literal: Vec::new(),
            long: false,
            tail: Vec::new(),
            tail_at: 0,
            escapes: std::collections::VecDeque::new(),
            kept: false,
            last_short: Vec::new(),
            previous: 0,
            kept_key: false,
            depth: 0,
            kept_from: None,
        }
    }

    /// Slims the next `chunk` of the file.
    pub fn feed(&mut self, chunk: &[u8]) {
        let mut i = 0;
        while i < chunk.len() {
            if self.in_string {
                i = self.in_literal(chunk, i);
                continue;
            }
            let b = chunk[i];
            match b {
                b'"' => {
                    self.in_string = true;
                    self.escaped = false;
                    self.start = self.base + i as u64;
                    self.literal.clear();
                    self.literal.push(b'"');
                    self.escapes.clear();
                    self.long = false;
                    self.kept =
                        (self.previous == b':' && self.kept_key) || self.kept_from.is_some();
                }
                b'{' | b'[' => {
                    if self.previous == b':' && self.kept_key && self.kept_from.is_none() {
                        self.kept_from = Some(self.depth);
                    }
                    self.depth += 1;
                    self.out.push(b);
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.kept_from == Some(self.depth) {
                        self.kept_from = None;
                    }
                    self.out.push(b);
                }
                b':' => {
                    self.kept_key = KEPT_KEYS.contains(&self.last_short.as_slice());
                    self.out.push(b);
                }
                _ => self.out.push(b),
            }
            if !b.is_ascii_whitespace() {
                self.previous = b;
            }
            i += 1;
        }
        self.base += chunk.len() as u64;
    }

    /// Reads string bytes from `chunk[i..]`; returns where to go on.
    fn in_literal(&mut self, chunk: &[u8], i: usize) -> usize {
        if self.escaped {
            self.escaped = false;
            let at = self.base + i as u64;
            let end = if chunk[i] == b'u' { at + 5 } else { at + 1 };
            while self
                .escapes
                .front()
                .is_some_and(|&(_, e)| e + (2 * TAIL as u64) < at)
            {
                self.escapes.pop_front();
            }
            self.escapes.push_back((at - 1, end));
            self.keep(chunk, i, i + 1);
            return i + 1;
        }
        let Some(j) = memchr2(b'"', b'\\', &chunk[i..]) else {
            self.keep(chunk, i, chunk.len());
            return chunk.len();
        };
        let at = i + j;
        if chunk[at] == b'\\' {
            self.keep(chunk, i, at + 1);
            self.escaped = true;
            return at + 1;
        }
        self.keep(chunk, i, at);
        self.in_string = false;
        if self.long {
            self.write_slimmed(self.base + at as u64);
            self.last_short.clear();
        } else {
            self.literal.push(b'"');
            self.out.extend_from_slice(&self.literal);
            self.last_short.clear();
            self.last_short
                .extend_from_slice(&self.literal[1..self.literal.len() - 1]);
        }
        self.previous = b'"';
        at + 1
    }

    /// Keeps `chunk[from..to]` of the open literal: all of it while the literal is short,
    /// its last bytes once it is long.
    fn keep(&mut self, chunk: &[u8], from: usize, to: usize) {
        let bytes = &chunk[from..to];
        if !self.long {
            self.literal.extend_from_slice(bytes);
            let looks_like_json = matches!(self.literal.get(1), Some(b'{' | b'['));
            if self.kept || looks_like_json || self.literal.len() <= self.threshold {
                return;
            }
            self.long = true;
            // The head stays in `literal`; the rest starts the tail.
            let head = self.literal.len().min(self.threshold);
            self.tail.clear();
            self.tail.extend_from_slice(&self.literal[head..]);
            self.literal.truncate(head);
        } else {
            let keep = bytes.len().min(2 * TAIL);
            let drop = (self.tail.len() + keep).saturating_sub(2 * TAIL);
            self.tail.drain(..drop.min(self.tail.len()));
            self.tail.extend_from_slice(&bytes[bytes.len() - keep..]);
        }
        let extra = self.tail.len().saturating_sub(2 * TAIL);
        self.tail.drain(..extra);
        self.tail_at = self.base + to as u64 - self.tail.len() as u64;
    }

    /// Writes the long literal that ends (its closing quote) at file offset `end`.
    fn write_slimmed(&mut self, end: u64) {
        let body = &self.literal[1..];
        let head = safe_cut(body, HEAD);
        let mid_start = self.start + 1 + head as u64;
        // The tail starts neither inside an escape sequence (nor between the two halves of a
        // surrogate pair) nor inside a UTF-8 sequence.
        let mut tail_start = end
            .saturating_sub(TAIL as u64)
            .max(mid_start)
            .max(self.tail_at);
        for &(start, stop) in &self.escapes {
            if start < tail_start && tail_start < stop {
                tail_start = stop;
            }
        }
        let at = |offset: u64| {
            let k = usize::try_from(offset.checked_sub(self.tail_at)?).ok()?;
            self.tail.get(k..)
        };
        if let Some([b'\\', b'u', b'd' | b'D', b'c'..=b'f' | b'C'..=b'F', ..]) = at(tail_start) {
            tail_start += 6;
        }
        while let Some([b, ..]) = at(tail_start)
            && (0x80..0xC0).contains(b)
        {
            tail_start += 1;
        }
        let tail_start = tail_start.min(end).max(self.tail_at);
        let placeholder = format!("{MARK}{mid_start}+{}{MARK}", tail_start - mid_start);
        self.out.push(b'"');
        self.out.extend_from_slice(&body[..head]);
        self.out.extend_from_slice(placeholder.as_bytes());
        let from = usize::try_from(tail_start - self.tail_at).unwrap_or(self.tail.len());
        self.out
            .extend_from_slice(&self.tail[from.min(self.tail.len())..]);
        self.out.push(b'"');
    }

    /// The slim text. Input that ended inside a string (a torn last line) ends the same way,
    /// so that the reader reports the line as it would the torn original.
    pub fn finish(mut self) -> Vec<u8> {
        if self.in_string {
            let literal = std::mem::take(&mut self.literal);
            self.out.extend_from_slice(&literal);
        }
        self.out
    }
}

/// The longest prefix of the literal body `body`, at most `max` bytes, that ends neither
/// inside an escape sequence nor inside a UTF-8 character.
fn safe_cut(body: &[u8], max: usize) -> usize {
    let mut i = 0;
    let mut safe = 0;
    while i < body.len().min(max) {
        if body[i] == b'\\' {
            let len = match body.get(i + 1) {
                // A surrogate pair is one character: never cut between its halves.
                Some(b'u')
                    if matches!(
                        body.get(i + 2..i + 4),
                        Some([b'd' | b'D', b'8'..=b'9' | b'a'..=b'b' | b'A'..=b'B'])
                    ) =>
                {
                    12
                }
                Some(b'u') => 6,
                _ => 2,
            };
            if i + len > max {
                break;
            }
            i += len;
        } else {
            i += 1;
        }
        if body.get(i).is_none_or(|b| !(0x80..0xC0).contains(b)) {
            safe = i;
        }
    }
    safe.min(body.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::stream::inflate::Inflater;
    use std::io::Write;

    fn slim(text: &str, threshold: usize, chunk: usize) -> String {
        let mut slimmer = Slimmer::new(threshold);
        for piece in text.as_bytes().chunks(chunk) {
            slimmer.feed(piece);
        }
        String::from_utf8(slimmer.finish()).unwrap()
    }

    /// A long string with every kind of escape, multi-byte characters and surrogate pairs,
    /// so that the head and tail cuts land on each of them somewhere.
    fn long_text(seed: usize) -> String {
        let pieces = [
            "word ",
            "\"q\" ",
            "back\\slash ",
            "\n",
            "\t",
            "é",
            "😀",
            "\u{1}",
            "日本 ",
        ];
        (0..400)
            .map(|i| pieces[(i * 7 + seed) % pieces.len()])
            .collect()
    }

    #[test]
    fn slimmed_documents_parse_and_read_back_to_the_original() {
        let dir = tempfile::tempdir().unwrap();
        for seed in 0..9 {
            let doc = serde_json::json!({
                "id": "a-short-id",
                "arguments": long_text(seed),
                "input": {"content": long_text(seed + 4), "nested": [long_text(seed + 5)]},
                "body": long_text(seed + 1),
                "list": [long_text(seed + 2), "short", "{\"looks\": \"like json\"} ".repeat(40)],
            });
            let text = format!("{doc}\n{}\n", serde_json::json!({"x": long_text(seed + 3)}));
            let path = dir.path().join(format!("{seed}.jsonl"));
            std::fs::File::create(&path)
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            let file = std::fs::File::open(&path).unwrap();
            let inflater = Inflater {
                file: &file,
                preview: false,
                cap: u64::MAX,
            };
            for chunk in [1, 3, 7, 64, 4096] {
                let slimmed = slim(&text, 0, chunk);
                assert_eq!(slimmed.lines().count(), 2, "lines kept");
                let mut lines = slimmed
                    .lines()
                    .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap());
                let mut first = lines.next().unwrap();
                assert_eq!(first["arguments"], doc["arguments"], "arguments kept whole");
                assert_eq!(
                    first["input"], doc["input"],
                    "inputs kept whole at any depth"
                );
                assert_eq!(
                    first["list"][2], doc["list"][2],
                    "JSON-looking text kept whole"
                );
                assert_ne!(first["body"], doc["body"], "long text slimmed");
                let body = first["body"].as_str().unwrap();
                let original = doc["body"].as_str().unwrap();
                let head: String = body.chars().take_while(|&c| c != MARK).collect();
                assert!(original.starts_with(&head) && head.len() > 100, "{head:?}");
                inflater.value(&mut first).unwrap();
                assert_eq!(first, doc, "seed {seed}, chunks of {chunk}");
            }
        }
    }

    #[test]
    fn a_torn_long_literal_stays_torn() {
        let text = format!("{{\"a\": \"{}", "x".repeat(1000));
        let slimmed = slim(&text, 0, 100);
        assert!(
            serde_json::from_str::<serde_json::Value>(&slimmed)
                .unwrap_err()
                .is_eof()
        );
    }
}
