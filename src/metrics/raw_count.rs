//! Counting on a text's raw JSON bytes (between its quotes, still escaped) what the rules of
//! one field count on the decoded text, in one pass: the literal rules' occurrences, the gate
//! strings of gated regexes (each such regex then runs on the decoded lines holding one), and
//! for observations whether `Step::is_error` would find an error marker in the first 16 KiB.
//! Before this the raw bytes were searched to decide whether to decode, and the decoded text
//! was searched twice more (markers, then rules): most texts are now searched once and
//! never decoded.
//!
//! Why the counts are the decoded text's: a JSON writer writes each character of the strings
//! searched for in one way ([`escape`]) unless it writes it as `\uXXXX` (or `/` as `\/`); a
//! text with such an escape of one of their characters is decoded instead ([`Found::Decode`]).
//! Otherwise every occurrence in the decoded text is an occurrence of the escaped string in
//! the raw bytes that starts where a character's escape starts ([`aligned`]), and the other
//! way round, in the same order, so leftmost non-overlapping counts are the same. Lines are
//! the same too: a decoded newline is a raw `\n` (or a `\u000a`, which a per-line regex cannot
//! match across anyway, since it matches within one line and holds a gate string).

use super::rule::RuleId;
use super::rule_regex::RuleRegex;
use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use std::borrow::Cow;

/// `Step::is_error` looks for markers in the first 16 KiB of the decoded observation.
const HEAD: usize = 16 * 1024;

/// What an occurrence of a searched string means.
#[derive(Debug, Clone, Copy)]
pub(super) enum RawTarget {
    /// A literal rule's pattern: counts for the rule.
    Count(RuleId),
    /// A gate string of the gated regex of that index.
    Gate(usize),
    /// An error marker of `Step::is_error`.
    Marker,
    /// Gemini's `Error: (none)`: the marker `Error: ` at the same place is no error.
    NotAMarker,
    /// A gate string of an `unless` pattern: the text is decoded for it.
    Unless,
}

/// A regex run only on the decoded lines (or text) where one of its gate strings occurs.
#[derive(Debug, Clone)]
pub(super) struct RawGated {
    pub rule: RuleId,
    pub regex: RuleRegex,
    pub per_line: bool,
}

/// One field's strings, compiled for searching raw bytes.
#[derive(Debug, Clone)]
pub(super) struct RawField {
    /// Reports every occurrence of every escaped string, run on candidate lines.
    overlapping: AhoCorasick,
    /// Leftmost-first, to find the candidate lines; `None` when a string spans lines.
    lines: Option<AhoCorasick>,
    targets: Vec<RawTarget>,
    gated: Vec<RawGated>,
    /// Every character of the strings: one written as `\uXXXX` (or `/` as `\/`) makes the
    /// text decoded instead.
    chars: Vec<char>,
}

/// What one text's raw bytes hold for the rules.
#[derive(Debug, Clone, Default)]
pub struct Counted {
    /// Matches per rule (rules with none left out).
    pub counts: Vec<(RuleId, u32)>,
    /// An observation with an error marker in its head (`Step::is_error`).
    pub error: bool,
}

/// The outcome of searching one text's raw bytes.
pub(super) enum Found {
    Counted(Counted),
    /// Decode the text and tally it the exact way.
    Decode,
    /// A line would not decode: the file is read the exact way, which reports it.
    Broken,
}

impl RawField {
    /// Compiles `strings` (each with what an occurrence means); `None` when an automaton
    /// cannot be built.
    pub(super) fn new(strings: Vec<(String, RawTarget)>, gated: Vec<RawGated>) -> Option<Self> {
        let escaped: Vec<String> = strings.iter().map(|(s, _)| escape(s)).collect();
        let mut chars: Vec<char> = strings.iter().flat_map(|(s, _)| s.chars()).collect();
        chars.sort_unstable();
        chars.dedup();
        let spans_lines = strings.iter().any(|(s, _)| s.contains('\n'));
        // A DFA: the overlapping search walks every byte of every candidate line (test logs
        // are dense with `Error` and `error: `), where a DFA's one lookup a byte beats the
        // NFA's; built once per process, on the other core while the run is listed.
        let overlapping = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&escaped)
            .ok()?;
        let lines = if spans_lines {
            None
        } else {
            // A contiguous NFA, not the DFA the builder picks for few strings: its search
            // runs only where the prefilter stops, and the DFA's build cost more than it saves.
            Some(
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::ContiguousNFA))
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&escaped)
                    .ok()?,
            )
        };
        Some(RawField {
            overlapping,
            lines,
            targets: strings.into_iter().map(|(_, t)| t).collect(),
            gated,
            chars,
        })
    }

    /// What the rules find in the text whose raw bytes (between the quotes) are `raw`.
    pub(super) fn count(&self, raw: &[u8]) -> Found {
        if escapes_one_of(raw, &self.chars) {
            return Found::Decode;
        }
        let mut pass = Pass {
            raw,
            field: self,
            last_end: vec![0; self.targets.len()],
            counts: Vec::new(),
            gate_hits: vec![Vec::new(); self.gated.len()],
            gate_seen: vec![false; self.gated.len()],
            markers: Vec::new(),
            not_markers: Vec::new(),
            head: Head::default(),
        };
        match &self.lines {
            Some(finder) => {
                // Every line holding an occurrence holds the start of a leftmost-first match
                // found from its start on (no string spans lines), and each line is searched
                // once: the search goes on from the next line.
                let mut from = 0;
                while from < raw.len() {
                    let Some(m) = finder.find(Input::new(raw).span(from..raw.len())) else {
                        break;
                    };
                    let (start, end) = line_around(raw, from, m.start());
                    if !pass.visit(start, end) {
                        return Found::Decode;
                    }
                    from = end + 2;
                }
            }
            None => {
                if !pass.visit(0, raw.len()) {
                    return Found::Decode;
                }
            }
        }
        pass.finish()
    }
}

/// The state of one text's pass.
struct Pass<'a> {
    raw: &'a [u8],
    field: &'a RawField,
    /// Per string: the end of its last counted occurrence (counts are non-overlapping).
    last_end: Vec<usize>,
    counts: Vec<(RuleId, u32)>,
    gate_hits: Vec<Vec<usize>>,
    gate_seen: Vec<bool>,
    /// Where error markers (and `Error: (none)`) start, within the head.
    markers: Vec<usize>,
    not_markers: Vec<usize>,
    head: Head,
}

/// How far the decoded head reaches, learnt as the pass goes. Occurrences come in the order
/// of their ends, so each text's escapes are counted once, not again for every marker (a
/// long test log past 16 KiB holds thousands of `Error`s).
#[derive(Default)]
struct Head {
    /// `decoded` is the decoded length of `raw[..to]`; `to` is where an escape ends.
    to: usize,
    decoded: usize,
    /// The least raw end known to be past the head.
    past: Option<usize>,
}

impl Head {
    /// Whether the decoded text up to the raw offset `end` (where an escape ends) is within
    /// the head `Step::is_error` searches, from what the earlier calls learnt.
    fn holds(&mut self, raw: &[u8], end: usize) -> bool {
        if end <= HEAD {
            return true;
        }
        if self.past.is_some_and(|past| end >= past) {
            return false;
        }
        let decoded = if end >= self.to {
            self.decoded += decoded_len(&raw[self.to..end]);
            self.to = end;
            self.decoded
        } else {
            decoded_len(&raw[..end])
        };
        let holds = decoded <= HEAD;
        if !holds {
            self.past = Some(self.past.map_or(end, |past| past.min(end)));
        }
        holds
    }
}

impl Pass<'_> {
    /// Every occurrence in `raw[start..end]`; false when an `unless` gate string occurs.
    fn visit(&mut self, start: usize, end: usize) -> bool {
        let input = Input::new(self.raw).span(start..end);
        let Ok(found) = self.field.overlapping.try_find_overlapping_iter(input) else {
            return false;
        };
        for m in found {
            if !aligned(self.raw, m.start()) {
                continue;
            }
            let p = m.pattern().as_usize();
            match self.field.targets[p] {
                RawTarget::Count(id) => {
                    if m.start() >= self.last_end[p] {
                        self.last_end[p] = m.end();
                        match self.counts.iter_mut().find(|(r, _)| *r == id) {
                            Some((_, n)) => *n = n.saturating_add(1),
                            None => self.counts.push((id, 1)),
                        }
                    }
                }
                RawTarget::Gate(g) => {
                    self.gate_seen[g] = true;
                    if self.field.gated[g].per_line {
                        self.gate_hits[g].push(m.start());
                    }
                }
                RawTarget::Marker => {
                    if self.head.holds(self.raw, m.end()) {
                        self.markers.push(m.start());
                    }
                }
                RawTarget::NotAMarker => {
                    if self.head.holds(self.raw, m.end()) {
                        self.not_markers.push(m.start());
                    }
                }
                RawTarget::Unless => return false,
            }
        }
        true
    }

    /// Runs the gated regexes where their gates occurred.
    fn finish(mut self) -> Found {
        let raw = self.raw;
        for (g, gated) in self.field.gated.iter().enumerate() {
            if !self.gate_seen[g] {
                continue;
            }
            let mut n = 0usize;
            if gated.per_line {
                let hits = &mut self.gate_hits[g];
                hits.sort_unstable();
                let mut done_to = 0;
                for &at in hits.iter() {
                    if at < done_to {
                        continue;
                    }
                    let (start, end) = line_around(raw, 0, at);
                    let Some(line) = decode(&raw[start..end]) else {
                        return Found::Broken;
                    };
                    n += gated.regex.count(&line);
                    done_to = end + 2;
                }
            } else {
                let Some(text) = decode(raw) else {
                    return Found::Broken;
                };
                n = gated.regex.count(&text);
            }
            if n > 0 {
                let n = u32::try_from(n).unwrap_or(u32::MAX);
                match self.counts.iter_mut().find(|(r, _)| *r == gated.rule) {
                    Some((_, c)) => *c = c.saturating_add(n),
                    None => self.counts.push((gated.rule, n)),
                }
            }
        }
        let error = self.markers.iter().any(|at| !self.not_markers.contains(at));
        Found::Counted(Counted {
            counts: self.counts,
            error,
        })
    }
}

/// How a JSON writer that escapes only what it must writes `text` (serde and Python alike:
/// `"`, `\`, `\n`, `\t`, … ; other control characters as `\u00XX`, which [`escapes_one_of`]
/// catches).
pub(super) fn escape(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(&quoted)
        .to_string()
}

/// Whether `raw` writes one of `chars` in a form [`escape`] does not give: `\uXXXX` (a
/// surrogate pair counts as any character outside the basic plane) or `\/`.
pub(super) fn escapes_one_of(raw: &[u8], chars: &[char]) -> bool {
    // Most texts have neither: two vectorised searches instead of a stop at every `\n`.
    let slash = chars.contains(&'/');
    if memchr::memmem::find(raw, b"\\u").is_none()
        && !(slash && memchr::memmem::find(raw, b"\\/").is_some())
    {
        return false;
    }
    memchr::memchr_iter(b'\\', raw).any(|at| {
        // An escaped backslash's second half is never a `\u`: worst case it counts as one,
        // which only decodes a text that did not need it.
        match raw.get(at + 1) {
            Some(b'/') => slash,
            Some(b'u') => {
                let hex = raw
                    .get(at + 2..at + 6)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                match hex {
                    Some(0xD800..=0xDFFF) => chars.iter().any(|c| u32::from(*c) > 0xFFFF),
                    Some(code) => char::from_u32(code).is_none_or(|c| chars.contains(&c)),
                    None => true,
                }
            }
            _ => false,
        }
    })
}

/// The number of backslashes in a row that end at `raw[at - 1]`.
fn backslashes_before(raw: &[u8], at: usize) -> usize {
    raw[..at].iter().rev().take_while(|&&b| b == b'\\').count()
}

/// Whether `at` is where a character's escape (or the character itself) starts: not the
/// second byte of a two-byte escape, nor inside a `\uXXXX`. The first backslash of a run
/// always starts an escape, so a backslash starts one when an odd number end at it.
pub(super) fn aligned(raw: &[u8], at: usize) -> bool {
    if backslashes_before(raw, at) % 2 == 1 {
        return false;
    }
    (2..=5.min(at)).all(|k| {
        let slash = at - k;
        !(raw[slash] == b'\\'
            && raw.get(slash + 1) == Some(&b'u')
            && backslashes_before(raw, slash + 1) % 2 == 1)
    })
}

/// The raw line holding `at`: from after the last `\n` escape before it (not before `from`)
/// to the next one (or the end).
fn line_around(raw: &[u8], from: usize, at: usize) -> (usize, usize) {
    // Backwards by `memrchr` (vectorised; `memmem::rfind` is not): each backslash whose
    // `\n` ends by `at` is a candidate.
    let mut start = from;
    let mut search_to = at;
    while search_to >= from + 2 {
        let Some(i) = memchr::memrchr(b'\\', &raw[from..search_to - 1]) else {
            break;
        };
        let slash = from + i;
        if raw[slash + 1] == b'n' && backslashes_before(raw, slash + 1) % 2 == 1 {
            start = slash + 2;
            break;
        }
        search_to = slash + 1;
    }
    let mut end = raw.len();
    let mut search_from = at;
    while let Some(i) = memchr::memmem::find(&raw[search_from..], b"\\n") {
        let slash = search_from + i;
        if backslashes_before(raw, slash + 1) % 2 == 1 {
            end = slash;
            break;
        }
        search_from = slash + 1;
    }
    (start, end)
}

/// [`Head::holds`] from scratch, for the tests to check it against. Escapes only shorten,
/// so a raw offset within the head is.
#[cfg(test)]
fn in_head(raw: &[u8], end: usize) -> bool {
    end <= HEAD || decoded_len(&raw[..end]) <= HEAD
}

/// The length in bytes of the decoding of `raw`, which ends where an escape ends.
fn decoded_len(raw: &[u8]) -> usize {
    let mut saved = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &raw[i..]).map(|k| i + k) {
        if raw.get(at + 1) != Some(&b'u') {
            saved += 1;
            i = at + 2;
            continue;
        }
        let code = |from: usize| {
            raw.get(from..from + 4)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u32::from_str_radix(h, 16).ok())
        };
        match code(at + 2) {
            Some(0xD800..=0xDBFF)
                if raw.get(at + 6..at + 8) == Some(b"\\u")
                    && matches!(code(at + 8), Some(0xDC00..=0xDFFF)) =>
            {
                saved += 12 - 4;
                i = at + 12;
            }
            Some(c) => {
                saved += 6 - char::from_u32(c).map_or(3, char::len_utf8);
                i = at + 6;
            }
            None => {
                saved += 1;
                i = at + 2;
            }
        }
    }
    raw.len().saturating_sub(saved)
}

/// The decoded text of raw string bytes (between the quotes); `None` when they do not decode.
fn decode(raw: &[u8]) -> Option<Cow<'_, str>> {
    if memchr::memchr(b'\\', raw).is_none() {
        return std::str::from_utf8(raw).ok().map(Cow::Borrowed);
    }
    if let Some(text) = unescape_short(raw) {
        return Some(Cow::Owned(text));
    }
    let mut quoted = Vec::with_capacity(raw.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(raw);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted)
        .ok()
        .map(Cow::Owned)
}

/// The decoding of raw string bytes whose escapes are all two bytes long (`\n`, `\"`, …),
/// as serde decodes them, without copying them into a quoted buffer for serde first: most
/// candidate lines are such. `None` for anything else (a `\uXXXX`, a bad escape, a raw
/// control character, bytes that are not UTF-8), which serde then decodes or rejects.
fn unescape_short(raw: &[u8]) -> Option<String> {
    if crate::formats::raw_json::has_control(raw) {
        return None;
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut from = 0;
    while let Some(at) = memchr::memchr(b'\\', &raw[from..]).map(|k| from + k) {
        out.extend_from_slice(&raw[from..at]);
        out.push(match raw.get(at + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            _ => return None,
        });
        from = at + 2;
    }
    out.extend_from_slice(&raw[from..]);
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_forms_and_unicode_escapes() {
        assert_eq!(escape("a\"b\\c\nd"), r#"a\"b\\c\nd"#);
        let chars: Vec<char> = "Error/".chars().collect();
        assert!(
            escapes_one_of(br"x \u0045rror", &chars),
            "E written as \\u0045"
        );
        assert!(
            !escapes_one_of(br"caf\u00e9 \n", &chars),
            "é is in no string"
        );
        assert!(escapes_one_of(br"a\/b", &chars));
        assert!(!escapes_one_of(br"a\/b", &['E']));
        assert!(escapes_one_of(br"\u12", &['E']), "a cut escape decodes");
        assert!(escapes_one_of(br"\ud83d\ude00", &['\u{1F600}']));
        assert!(!escapes_one_of(br"\ud83d\ude00", &['E']));
    }

    #[test]
    fn alignment_and_decoded_lengths() {
        let raw = br#"a\nb\\nc\u00e9d\"e"#;
        // `n` after `\` is an escape's second half; after `\\` it is a character.
        assert!(!aligned(raw, 2));
        assert!(aligned(raw, 6));
        for inside in 9..13 {
            assert!(!aligned(raw, inside), "{inside} is inside \\u00e9");
        }
        assert!(aligned(raw, 14), "d");
        assert!(!aligned(raw, 16), "the quote of \\\"");
        let decoded: String = serde_json::from_slice(&[b"\"", &raw[..], b"\""].concat()).unwrap();
        assert_eq!(decoded_len(raw), decoded.len());
        assert_eq!(decoded_len(br"\ud83d\ude00x"), "😀x".len());
    }

    /// The raw pass gives, for random texts, what the decoded text gives searched the plain
    /// way: counts like `str::matches`, gated regexes per line, markers in the head.
    #[test]
    fn raw_counts_equal_decoded_counts() {
        let literals = ["n", "Error", "a\"b", "x\\y", "nn", "rror: ", "e9"];
        let mut strings: Vec<(String, RawTarget)> = literals
            .iter()
            .enumerate()
            .map(|(i, l)| (l.to_string(), RawTarget::Count(i)))
            .collect();
        strings.push(("Error: ".into(), RawTarget::Marker));
        strings.push(("Error: (none)".into(), RawTarget::NotAMarker));
        strings.push(("Trace".into(), RawTarget::Gate(0)));
        let source = r"(?m)^Trace\w*";
        let regex = regex::Regex::new(source).unwrap();
        let gated = vec![RawGated {
            rule: literals.len(),
            regex: RuleRegex::new(source).unwrap(),
            per_line: true,
        }];
        let field = RawField::new(strings, gated).unwrap();
        let pieces = [
            "n", "\n", "\\", "\"", "Error", ": ", "(none)", "a", "b", "x", "y", "é", "Trace",
            "back", " ", "\t", "\u{1}", "e", "9",
        ];
        let mut seed: u64 = 7;
        for _ in 0..3000 {
            let mut text = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 33) % 40;
            for _ in 0..len {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(pieces[((seed >> 33) as usize) % pieces.len()]);
            }
            // As serde writes it, and as Python does (`é` as `\u00e9`, whose `e9` is no `e9`).
            for raw in [escape(&text), escape(&text).replace('é', "\\u00e9")] {
                let Found::Counted(found) = field.count(raw.as_bytes()) else {
                    panic!("{text:?} was not counted");
                };
                for (i, l) in literals.iter().enumerate() {
                    let want = text.matches(l).count() as u32;
                    let got = found
                        .counts
                        .iter()
                        .find(|(r, _)| *r == i)
                        .map_or(0, |c| c.1);
                    assert_eq!(got, want, "{l:?} in {text:?}");
                }
                let lines: usize = text.split('\n').map(|l| regex.find_iter(l).count()).sum();
                let got = found
                    .counts
                    .iter()
                    .find(|(r, _)| *r == literals.len())
                    .map_or(0, |c| c.1);
                assert_eq!(got as usize, lines, "regex in {text:?}");
                let error = text
                    .match_indices("Error: ")
                    .any(|(at, _)| !text[at..].starts_with("Error: (none)"));
                assert_eq!(found.error, error, "markers in {text:?}");
            }
        }
    }

    #[test]
    fn markers_past_the_head_do_not_count() {
        let field = RawField::new(vec![("Error: ".into(), RawTarget::Marker)], Vec::new()).unwrap();
        let error = |text: &str| match field.count(escape(text).as_bytes()) {
            Found::Counted(c) => c.error,
            _ => panic!("not counted"),
        };
        // Escapes make the raw text longer than the decoded one: the head is decoded bytes.
        let near = format!("{}Error: x", "\n".repeat(HEAD - 7));
        assert!(error(&near));
        let past = format!("{}Error: x", "\n".repeat(HEAD - 6));
        assert!(!error(&past));
    }

    #[test]
    fn head_learnt_as_it_goes_equals_head_from_scratch() {
        // Escapes of every width (`\n`, `\u00e9`, a surrogate pair) around the 16 KiB edge;
        // ends taken in increasing order as the pass does, then one taken out of order.
        let unit = r#"ab\n\u00e9\ud83d\ude00\\\"x"#;
        // 12 decoded bytes a unit: twice the head in all.
        let raw = unit.repeat(2 * HEAD / 12);
        let raw = raw.as_bytes();
        let ends: Vec<usize> = (0..raw.len())
            .step_by(unit.len())
            .flat_map(|at| [at, at + 2, at + 4])
            .filter(|&end| end <= raw.len())
            .collect();
        let mut head = Head::default();
        let mut flips = 0;
        let mut last = true;
        for &end in &ends {
            let holds = head.holds(raw, end);
            assert_eq!(holds, in_head(raw, end), "end {end}");
            flips += usize::from(holds != last);
            last = holds;
        }
        assert_eq!(flips, 1, "the head ends once");
        let early = ends[ends.len() / 8];
        assert_eq!(head.holds(raw, early), in_head(raw, early));
    }

    #[test]
    fn short_escapes_decode_as_serde_decodes() {
        let serde = |raw: &[u8]| {
            let mut quoted = vec![b'"'];
            quoted.extend_from_slice(raw);
            quoted.push(b'"');
            serde_json::from_slice::<String>(&quoted).ok()
        };
        let cases: [&[u8]; 14] = [
            br#"a\nb\tc\"d\\e\/f\bg\fh\ri"#,
            br#"\\n is not a newline"#,
            br#"caf\u00e9 and \n"#,
            br#"\ud83d\ude00\n"#,
            br#"bad \x escape"#,
            br#"ends in \"#,
            br#"\\\"#,
            b"raw\ttab \\n",
            b"raw control \x1f\\n",
            b"not utf-8 \xff\\n",
            "non-ASCII \u{e9}\u{1f600}\\n".as_bytes(),
            br#"\u12"#,
            br#"\"\"\"#,
            br#"x\/y"#,
        ];
        for raw in cases {
            assert_eq!(
                decode(raw).map(|c| c.into_owned()),
                serde(raw),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
        // The fast path itself took the plain ones.
        assert_eq!(unescape_short(br#"a\nb\"c"#).as_deref(), Some("a\nb\"c"));
        assert_eq!(unescape_short(br#"caf\u00e9"#), None);
    }
}
