//! A step's observation as the raw summary keeps it: a message's content left as its raw
//! JSON string while the step has one, decoded only when a second one is added to it, when
//! it is not a string, or when its raw bytes cannot answer. What a summary asks of it: the
//! return code `return_code` reads at its top, and whether its head reads like an error
//! ([`error_head`]).
//!
//! Why the return code can be read raw: in a string without `\uXXXX` escapes, the tag
//! `<returncode>` (no character a JSON writer escapes, and `<` is never an escape's second
//! byte) occurs raw exactly where it occurs decoded; the number after it is read raw when
//! no backslash lies between the tags (the closing tag's `/` may be written `\/`). A text
//! that may start with `{` after blanks (the JSON form of the 2.x tool-calling config) is
//! decoded.

use super::decode;
use crate::formats::error_head::raw_reads_as_error;
use crate::formats::json::content_text;
use crate::formats::mini_swe_agent::return_code;
use crate::formats::raw_json::{Span, unescape_short};
use crate::model::observation_reads_as_error;
use memchr::memmem;
use serde_json::Value;

/// One message's content as an observation: its raw JSON string, or its text.
pub(super) enum Piece {
    /// The span of a JSON string, quotes included.
    Raw(Span),
    Text(String),
}

impl Piece {
    /// The content at `span` (absent: empty), as `content_text` reads it.
    pub(super) fn of(bytes: &[u8], span: Option<&Span>) -> Option<Piece> {
        Some(match span {
            None => Piece::Text(String::new()),
            Some(s) if bytes[s.start] == b'"' => Piece::Raw(s.clone()),
            Some(s) => Piece::Text(content_text(&decode::<Value>(bytes, s)?)),
        })
    }

    fn is_empty(&self) -> bool {
        match self {
            Piece::Raw(s) => s.len() == 2,
            Piece::Text(text) => text.is_empty(),
        }
    }

    fn text(self, bytes: &[u8]) -> Option<String> {
        match self {
            Piece::Raw(s) => string(bytes, &s),
            Piece::Text(text) => Some(text),
        }
    }

    /// The return code `return_code` reads in the text; `None` when it does not decode.
    pub(super) fn return_code(&self, bytes: &[u8]) -> Option<Option<i64>> {
        match self {
            Piece::Raw(s) => match raw_return_code(inside(bytes, s)) {
                Some(code) => Some(code),
                None => Some(return_code(&string(bytes, s)?)),
            },
            Piece::Text(text) => Some(return_code(text)),
        }
    }
}

/// `piece` added to the step's `observation` (`None`: empty so far) as `add_observation`
/// adds it: after a newline when the observation is not empty.
pub(super) fn add(bytes: &[u8], observation: &mut Option<Piece>, piece: Piece) -> Option<()> {
    *observation = match observation.take() {
        None if piece.is_empty() => None,
        None => Some(piece),
        Some(before) => {
            let mut text = before.text(bytes)?;
            text.push('\n');
            text.push_str(&piece.text(bytes)?);
            Some(Piece::Text(text))
        }
    };
    Some(())
}

/// Whether the observation reads like an error, as `Step::is_error` reads it.
pub(super) fn reads_as_error(bytes: &[u8], observation: Option<&Piece>) -> Option<bool> {
    Some(match observation {
        None => false,
        Some(Piece::Raw(s)) => match raw_reads_as_error(inside(bytes, s)) {
            Some(error) => error,
            None => observation_reads_as_error(&string(bytes, s)?),
        },
        Some(Piece::Text(text)) => observation_reads_as_error(text),
    })
}

/// `return_code` on the raw inside of a JSON string; `None` when the text must be decoded
/// to tell (see the module doc).
fn raw_return_code(raw: &[u8]) -> Option<Option<i64>> {
    const OPEN: &[u8] = b"<returncode>";
    const CLOSE: &[u8] = b"</returncode>";
    match raw.first() {
        None => return Some(None),
        // Blanks, an escape or a non-ASCII character first: the text may start with `{`
        // once trimmed.
        Some(&b) if b <= b' ' || b == b'\\' || b == b'{' || !b.is_ascii() => return None,
        Some(_) => {}
    }
    // A `\u` escape matters only before the tags' end (it could spell a tag there).
    let has_u = |upto: usize| memmem::find(&raw[..upto], b"\\u").is_some();
    let Some(open) = memmem::find(raw, OPEN) else {
        return (!has_u(raw.len())).then_some(None);
    };
    let from = open + OPEN.len();
    match memmem::find(&raw[from..], CLOSE) {
        Some(len) => {
            let number = &raw[from..from + len];
            if number.contains(&b'\\') || has_u(open) {
                return None;
            }
            Some(std::str::from_utf8(number).ok()?.trim().parse().ok())
        }
        None if has_u(raw.len()) || memmem::find(&raw[from..], b"<\\/returncode>").is_some() => {
            None
        }
        None => Some(None),
    }
}

/// The raw inside of the JSON string at `span`.
fn inside<'b>(bytes: &'b [u8], span: &Span) -> &'b [u8] {
    &bytes[span.start + 1..span.end - 1]
}

/// The text of the JSON string at `span`.
fn string(bytes: &[u8], span: &Span) -> Option<String> {
    unescape_short(inside(bytes, span)).or_else(|| decode(bytes, span))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the raw reading against `return_code` on the decoded text.
    fn check(text: &str) -> Option<i64> {
        let quoted = serde_json::to_string(text).unwrap();
        let raw = &quoted.as_bytes()[1..quoted.len() - 1];
        let want = return_code(text);
        if let Some(got) = raw_return_code(raw) {
            assert_eq!(got, want, "{text:?}");
        }
        want
    }

    #[test]
    fn the_raw_return_code_is_the_decoded_ones() {
        for text in [
            "",
            "<returncode>0</returncode>\n<output>\nok\n</output>",
            "<returncode> 2 </returncode>",
            "<returncode>-1</returncode>",
            "<returncode>x</returncode>",
            "<returncode>1",
            "no code at all",
            "output\n<returncode>3</returncode> later in the text",
            "<returncode>1\n</returncode>",
            "é <returncode>4</returncode>",
        ] {
            check(text);
        }
        assert_eq!(check("<returncode>0</returncode>"), Some(0));
        assert_eq!(check("<returncode> 2 </returncode>"), Some(2));
    }

    #[test]
    fn what_the_raw_bytes_cannot_tell_is_left_to_decoding() {
        // The JSON form, blanks before it, a `\u` escape, an escaped `/` in the closing tag,
        // an escape inside the number's tags.
        for raw in [
            &br#"{\"returncode\": 1}"#[..],
            br#"  {\"returncode\": 1}"#,
            br#"\n{\"returncode\": 1}"#,
            br"<returncode>\u0031</returncode>",
            br"<returncode>1<\/returncode>",
            br"<returncode>\t1</returncode>",
        ] {
            assert_eq!(
                raw_return_code(raw),
                None,
                "{}",
                String::from_utf8_lossy(raw)
            );
        }
        assert_eq!(
            raw_return_code(b"<returncode>7</returncode>"),
            Some(Some(7))
        );
        assert_eq!(raw_return_code(b"<returncode>7"), Some(None));
    }
}
