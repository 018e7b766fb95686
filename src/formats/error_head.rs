//! Whether an observation reads like an error ([`Step::is_error`]), decided on the raw bytes
//! of its JSON string, so that a listing never decodes an observation: they are most of a
//! `.traj`'s step bytes (7.9 of CodeR's 8.5 MB), and decoding them was a third of `ls`.
//!
//! Why it is exact: the error markers and Gemini's `Error: (none)` hold no character a JSON
//! writer escapes, so each decoded occurrence is the same bytes in the raw string, starting
//! where a character (not the second byte of a two-byte escape such as `\f`) starts, and the
//! other way round. In a string without `\uXXXX` escapes every escape is two raw bytes for
//! one decoded byte, so where the first 16 KiB of decoded text end in the raw bytes is
//! counted escape by escape. A string with a `\u` escape is decoded instead (by the caller).
//!
//! Shared by the raw summaries of SWE-agent (`swe_agent/summary.rs`) and mini-swe-agent
//! (`mini_swe_agent/summary.rs`).
//!
//! [`Step::is_error`]: crate::model::Step::is_error

use crate::model::{ERROR_HEAD, NOT_AN_ERROR, error_marker_finder};
use aho_corasick::Input;

/// `Some(whether the text reads like an error)` for the raw inside of a JSON string
/// (between its quotes, still escaped); `None` when it holds a `\u` escape within reach of
/// the head (or the marker automaton cannot be built): decode it then.
pub(crate) fn raw_reads_as_error(raw: &[u8]) -> Option<bool> {
    // Only the escapes before the head's end matter; with two-byte escapes alone the head
    // ends by twice its length in raw bytes (and an escape cut there is seen whole).
    let near = &raw[..raw.len().min(2 * ERROR_HEAD + 2)];
    if memchr::memmem::find(near, b"\\u").is_some() {
        return None;
    }
    let markers = error_marker_finder()?;
    let head = &raw[..head_end(raw)];
    let mut from = 0;
    while let Some(m) = markers.find(Input::new(head).span(from..head.len())) {
        from = m.start() + 1;
        if odd_backslashes_before(head, m.start()) {
            // The marker's first letter is an escape's second byte (`\fatal: `).
            continue;
        }
        if !head[m.start()..].starts_with(NOT_AN_ERROR.as_bytes()) {
            return Some(true);
        }
    }
    Some(false)
}

/// The raw offset where the first [`ERROR_HEAD`] bytes of the decoded text end (the whole
/// string when it is shorter), for a string whose escapes are all two bytes long. A marker
/// ends within the decoded head exactly when its raw occurrence ends by this offset: it is
/// ASCII, so it ends on a character boundary, and `Step::is_error` cuts its head at the last
/// boundary at or before [`ERROR_HEAD`].
fn head_end(raw: &[u8]) -> usize {
    // A string decodes to at most as many bytes as it is written in: one no longer than the
    // head is all head (most observations; their escapes need not be counted).
    if raw.len() <= ERROR_HEAD {
        return raw.len();
    }
    let (mut at, mut decoded) = (0, 0);
    loop {
        let plain = memchr::memchr(b'\\', &raw[at..]).unwrap_or(raw.len() - at);
        if decoded + plain >= ERROR_HEAD {
            return at + (ERROR_HEAD - decoded);
        }
        if at + plain == raw.len() {
            return raw.len();
        }
        // The escape at `at + plain`: one decoded byte, which must fit in the head too.
        decoded += plain;
        at += plain;
        if decoded == ERROR_HEAD {
            return at;
        }
        decoded += 1;
        at = (at + 2).min(raw.len());
    }
}

/// Whether an odd number of backslashes end at `raw[at - 1]`: `raw[at]` is then the second
/// byte of an escape.
fn odd_backslashes_before(raw: &[u8], at: usize) -> bool {
    raw[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation_reads_as_error;

    /// The raw inside of `text` as a JSON writer writes it.
    fn raw(text: &str) -> Vec<u8> {
        let quoted = serde_json::to_string(text).unwrap();
        quoted.as_bytes()[1..quoted.len() - 1].to_vec()
    }

    /// Checks the raw decision against the decoded text's, and returns it.
    fn check(text: &str) -> bool {
        let raw = raw(text);
        let decoded = observation_reads_as_error(text);
        assert_eq!(
            raw_reads_as_error(&raw),
            Some(decoded),
            "{:?}",
            &text[text.len().saturating_sub(80)..]
        );
        decoded
    }

    #[test]
    fn decides_as_the_decoded_text_does() {
        for text in [
            "",
            "all good",
            "Error: (none)",
            "Error: (none)\nError: (none)",
            "Error: (none) then fatal: bad",
            "Error: (none)Error: real",
            "\u{c}atal: not one",
            "x\u{c}fatal: one",
            "\\fatal: one (a backslash, then the marker)",
            "\\\u{c}atal: none",
            "ERROR: x",
            "a \"quoted\" error: x",
            "é Traceback (most recent call last)",
            "SyntaxError",
            "bash: x: command not found",
            "tab\tException:",
        ] {
            check(text);
        }
    }

    #[test]
    fn the_head_edge_is_the_decoded_texts() {
        // Markers just inside and just outside the decoded head, behind escapes of each
        // width and multi-byte characters that the cut may split.
        let mut seen = [0; 2];
        for filler in ["a", "\n", "\"", "\\", "é", "€", "😀", "a\n"] {
            for marker in ["error: ", "Error: (none)", "fatal: "] {
                for shift in 0..12 {
                    let mut text = String::new();
                    while text.len() + marker.len() + shift < ERROR_HEAD + 4 {
                        text.push_str(filler);
                    }
                    let mut cut = ERROR_HEAD.saturating_sub(marker.len() + 6) + shift;
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    text.truncate(cut);
                    text.push_str(marker);
                    text.push_str("tail");
                    seen[usize::from(check(&text))] += 1;
                    seen[usize::from(check(&format!("Error: (none){text}")))] += 1;
                }
            }
        }
        // Both sides of the edge were met.
        assert!(seen[0] > 20 && seen[1] > 20, "{seen:?}");
    }

    #[test]
    fn a_u_escape_is_left_to_decoding() {
        assert_eq!(raw_reads_as_error(br"caf\u00e9 error: x"), None);
        assert_eq!(raw_reads_as_error(br"no escape error: x"), Some(true));
    }

    #[test]
    fn head_end_counts_two_byte_escapes() {
        let text = "\n".repeat(ERROR_HEAD + 10);
        assert_eq!(head_end(&raw(&text)), 2 * ERROR_HEAD);
        let text = "a".repeat(ERROR_HEAD - 1) + "\n\n";
        assert_eq!(head_end(&raw(&text)), ERROR_HEAD + 1);
        assert_eq!(head_end(b"short\\n"), 7);
    }
}
