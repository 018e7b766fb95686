//! Putting the long strings back: each placeholder the slimming pass left in a value is
//! replaced by the string it stands for, read from the file (whole, or its first bytes for a
//! preview).

use super::slim::MARK;
use serde_json::Value;
use std::fs::File;
use std::os::unix::fs::FileExt;

/// How much of a literal a preview reads.
const PREVIEW_BYTES: usize = 2048;

/// A literal of the file: where it starts (its opening quote) and how long it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u64,
    len: u64,
}

/// Reads placeholders' strings back from one file.
pub struct Inflater<'a> {
    pub file: &'a File,
    /// Read only the first bytes of each string, marked as cut.
    pub preview: bool,
    /// Bytes a whole string may have; longer ones are read as previews.
    pub cap: u64,
}

impl Inflater<'_> {
    /// `text` with every placeholder replaced; `None` when it holds none.
    pub fn text(&self, text: &str) -> Result<Option<String>, std::io::Error> {
        if !text.contains(MARK) {
            return Ok(None);
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(MARK) {
            out.push_str(&rest[..at]);
            let after = &rest[at + MARK.len_utf8()..];
            match parse_span(after) {
                Some((span, used)) => {
                    self.string(span, &mut out)?;
                    rest = &after[used + MARK.len_utf8()..];
                }
                None => {
                    // Not a whole placeholder (a reader cut it): left as it is.
                    out.push(MARK);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        Ok(Some(out))
    }

    /// Replaces the placeholders in every string of `value`.
    pub fn value(&self, value: &mut Value) -> Result<(), std::io::Error> {
        match value {
            Value::String(s) => {
                if let Some(full) = self.text(s)? {
                    *s = full;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.value(item)?;
                }
            }
            Value::Object(map) => {
                for item in map.values_mut() {
                    self.value(item)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Any serializable value (a step, a message) with its placeholders replaced.
    pub fn inflate<T>(&self, item: &T) -> Result<T, std::io::Error>
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        let mut value = serde_json::to_value(item).map_err(std::io::Error::other)?;
        self.value(&mut value)?;
        serde_json::from_value(value).map_err(std::io::Error::other)
    }

    /// Appends the string the literal at `span` holds.
    fn string(&self, span: Span, out: &mut String) -> Result<(), std::io::Error> {
        let cut = self.preview || span.len > self.cap;
        let len = if cut {
            span.len.min(PREVIEW_BYTES as u64)
        } else {
            span.len
        };
        let len = usize::try_from(len).map_err(std::io::Error::other)?;
        let mut bytes = vec![0; len];
        self.file.read_exact_at(&mut bytes, span.start)?;
        unescape(&bytes, out);
        if cut && len < usize::try_from(span.len).unwrap_or(usize::MAX) {
            out.push_str(&format!(
                " … [{} more bytes in the file, not read here]",
                span.len - len as u64
            ));
        }
        Ok(())
    }
}

/// `123+456` then the closing mark: the span and how many bytes it took before the mark.
fn parse_span(text: &str) -> Option<(Span, usize)> {
    let end = text.find(MARK)?;
    let (start, len) = text[..end].split_once('+')?;
    let span = Span {
        start: start.parse().ok()?,
        len: len.parse().ok()?,
    };
    Some((span, end))
}

/// Decodes a JSON string literal (opening quote included; it may be cut anywhere) into
/// `out`: escapes decoded, invalid UTF-8 replaced, an escape cut short dropped.
fn unescape(literal: &[u8], out: &mut String) {
    let body = literal.strip_prefix(b"\"").unwrap_or(literal);
    let mut bytes = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let Some(j) = memchr::memchr2(b'\\', b'"', &body[i..]) else {
            bytes.extend_from_slice(&body[i..]);
            break;
        };
        bytes.extend_from_slice(&body[i..i + j]);
        i += j;
        if body[i] == b'"' {
            break;
        }
        let Some(&escape) = body.get(i + 1) else {
            break;
        };
        i += 2;
        let simple = match escape {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'b' => Some(0x08),
            b'f' => Some(0x0c),
            b'u' => None,
            other => Some(other),
        };
        if let Some(byte) = simple {
            bytes.push(byte);
            continue;
        }
        let Some(unit) = hex4(body.get(i..i + 4)) else {
            break;
        };
        i += 4;
        let code = if (0xD800..0xDC00).contains(&unit) {
            match (body.get(i..i + 2), hex4(body.get(i + 2..i + 6))) {
                (Some(b"\\u"), Some(low)) if (0xDC00..0xE000).contains(&low) => {
                    i += 6;
                    0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                _ => 0xFFFD,
            }
        } else {
            unit
        };
        let c = char::from_u32(code).unwrap_or('\u{FFFD}');
        let mut buf = [0; 4];
        bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    out.push_str(&String::from_utf8_lossy(&bytes));
}

fn hex4(bytes: Option<&[u8]>) -> Option<u32> {
    let text = std::str::from_utf8(bytes?).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_decode_as_serde_does() {
        for text in ["plain", "a\"q\\b\n\t\u{e9}\u{1F600}/", "", "\u{1}\u{7f}"] {
            let literal = serde_json::to_string(text).unwrap();
            let mut out = String::new();
            unescape(literal.as_bytes(), &mut out);
            assert_eq!(out, text);
        }
        let mut out = String::new();
        unescape(br#""\ud83d\ude00 and \u00e9""#, &mut out);
        assert_eq!(out, "\u{1F600} and \u{e9}");
        let mut cut = String::new();
        unescape(br#""ab\u00"#, &mut cut);
        assert_eq!(cut, "ab", "an escape cut short is dropped");
    }

    #[test]
    fn placeholders_parse_and_damaged_ones_stay() {
        let text = format!("x{MARK}12+34{MARK}y");
        assert_eq!(
            parse_span(&text[1 + MARK.len_utf8()..]),
            Some((Span { start: 12, len: 34 }, 5))
        );
        assert_eq!(parse_span("12+3"), None);
    }
}
