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
    if super::has_control(inside) {
        return None;
    }
    let mut out = Vec::with_capacity(inside.len());
    let mut from = 0;
    while let Some(at) = memchr(b'\\', &inside[from..]).map(|k| from + k) {
        out.extend_from_slice(&inside[from..at]);
        out.push(match inside.get(at + 1)? {
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
    out.extend_from_slice(&inside[from..]);
    String::from_utf8(out).ok()
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
