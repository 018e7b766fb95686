//! Decoding a JSON string's raw bytes (between its quotes, still escaped) by hand when all its
//! escapes are two bytes long (`\n`, `\"`, …): most strings in agents' logs are such, and
//! setting up serde for each (a quoted copy, a value) costs more than decoding them. Anything
//! else is refused with `None` so that the caller hands the string to serde, which decodes it
//! or rejects it exactly as a whole read does.

use memchr::memchr;

/// The text of raw string bytes `inside` (without their quotes) when every escape in them is
/// two bytes long, they hold no raw control character and they decode to UTF-8, as serde
/// decodes them. `None` for anything else: a `\uXXXX`, an unknown escape, a backslash that
/// ends the bytes, a raw control character, bytes that are not UTF-8.
pub(crate) fn unescape_short(inside: &[u8]) -> Option<String> {
    decode(inside, false)
}

/// As [`unescape_short`], and `\uXXXX` escapes too: a character that is not a surrogate, or
/// a pair of them (a 900 KB patch of the CodeR run writes a few characters so). A lone
/// surrogate is `None`, like anything else serde would refuse or decode otherwise.
pub(crate) fn unescape(inside: &[u8]) -> Option<String> {
    decode(inside, true)
}

fn decode(inside: &[u8], unicode: bool) -> Option<String> {
    if super::has_control(inside) {
        return None;
    }
    let mut out = Vec::with_capacity(inside.len());
    let mut from = 0;
    while let Some(at) = memchr(b'\\', inside.get(from..)?).map(|k| from + k) {
        out.extend_from_slice(inside.get(from..at)?);
        from = at + 2;
        out.push(match inside.get(at + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' if unicode => {
                let (c, used) = unicode_escape(inside.get(at..)?)?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                from = at + used;
                continue;
            }
            _ => return None,
        });
    }
    out.extend_from_slice(inside.get(from..)?);
    // Escapes write whole characters and split the raw bytes at ASCII bytes: the text is
    // UTF-8 exactly when every raw run is.
    String::from_utf8(out).ok()
}

/// The character of the `\uXXXX` escape (or surrogate pair) that `escape` starts with, and
/// its length in bytes; `None` for anything serde would not decode to a character.
fn unicode_escape(escape: &[u8]) -> Option<(char, usize)> {
    let first = hex4(escape.get(2..6)?)?;
    match first {
        0xD800..=0xDBFF => {
            if escape.get(6..8)? != b"\\u" {
                return None;
            }
            let second = hex4(escape.get(8..12)?)?;
            if !(0xDC00..=0xDFFF).contains(&second) {
                return None;
            }
            let code = 0x10000 + (((first - 0xD800) << 10) | (second - 0xDC00));
            Some((char::from_u32(code)?, 12))
        }
        0xDC00..=0xDFFF => None,
        _ => Some((char::from_u32(first)?, 6)),
    }
}

/// Four hexadecimal digits, either case, nothing else (not `+`).
fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some((n << 4) | v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde makes of the same bytes between quotes.
    fn serde(inside: &[u8]) -> Option<String> {
        serde_json::from_slice(&[b"\"", inside, b"\""].concat()).ok()
    }

    #[test]
    fn every_two_byte_escape_decodes_as_serde_decodes() {
        let escapes: [(&[u8], char); 8] = [
            (br#"\""#, '"'),
            (br"\\", '\\'),
            (br"\/", '/'),
            (br"\b", '\u{8}'),
            (br"\f", '\u{c}'),
            (br"\n", '\n'),
            (br"\r", '\r'),
            (br"\t", '\t'),
        ];
        for (escape, decoded) in escapes {
            let inside = [b"a", escape, b"b"].concat();
            let text = unescape_short(&inside);
            assert_eq!(text, Some(format!("a{decoded}b")), "{decoded:?}");
            assert_eq!(text, serde(&inside), "{decoded:?}");
        }
        let all = br#"\"\\\/\b\f\n\r\t"#;
        assert_eq!(
            unescape_short(all).as_deref(),
            Some("\"\\/\u{8}\u{c}\n\r\t")
        );
        assert_eq!(unescape_short(b"").as_deref(), Some(""));
        assert_eq!(
            unescape_short("é plain".as_bytes()).as_deref(),
            Some("é plain")
        );
        // `\\n` is a backslash then `n`, not a newline.
        assert_eq!(unescape_short(br"\\n").as_deref(), Some("\\n"));
    }

    #[test]
    fn refuses_what_it_leaves_to_serde() {
        // `\u` escapes (which serde decodes), even well-formed ones.
        assert_eq!(unescape_short(br"caf\u00e9"), None);
        assert_eq!(unescape_short(br"\ud83d\ude00"), None);
        assert_eq!(unescape_short(br"\u12"), None);
        // A trailing backslash, alone or after an escaped one.
        assert_eq!(unescape_short(br"ends in \"), None);
        assert_eq!(unescape_short(br"\\\"), None);
        // Unknown escapes, raw control characters, bytes that are not UTF-8.
        assert_eq!(unescape_short(br"bad \x"), None);
        assert_eq!(unescape_short(b"raw\ttab"), None);
        assert_eq!(unescape_short(b"a\x01b"), None);
        assert_eq!(unescape_short(b"not utf-8 \xff"), None);
    }
}
