//! The small members a listing or a tally decodes by the thousand (roles, agents, actions,
//! `is_demo`), read without serde when they take their common form: a string whose escapes
//! are all two bytes long (`\n`, `\"`, …), `true`, `false`, `null`. Anything else (a `\uXXXX`
//! escape, a raw control character, another type) goes to serde, which decodes it or refuses
//! it as the whole read does. Setting up serde (through a JSON value, for [`Text`]) for each of
//! a CodeR run's 60,000 such members cost more than decoding them.

use crate::formats::json::Text;
use crate::formats::raw_json;

/// A member type with a form read by hand; `None` when serde must read it.
pub(super) trait Plain: Sized {
    fn plain(raw: &[u8]) -> Option<Self>;
}

impl Plain for Text {
    fn plain(raw: &[u8]) -> Option<Self> {
        plain_string(raw).map(Text)
    }
}

impl Plain for Option<Text> {
    fn plain(raw: &[u8]) -> Option<Self> {
        if raw == b"null" {
            return Some(None);
        }
        plain_string(raw).map(|s| Some(Text(s)))
    }
}

impl Plain for Option<String> {
    fn plain(raw: &[u8]) -> Option<Self> {
        if raw == b"null" {
            return Some(None);
        }
        plain_string(raw).map(Some)
    }
}

impl Plain for Option<bool> {
    fn plain(raw: &[u8]) -> Option<Self> {
        match raw {
            b"true" => Some(Some(true)),
            b"false" => Some(Some(false)),
            b"null" => Some(None),
            _ => None,
        }
    }
}

/// The text of the JSON string `raw` (its quotes included, as the raw walk spans it) when
/// all its escapes are two bytes long and it holds no raw control character.
fn plain_string(raw: &[u8]) -> Option<String> {
    let inside = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if raw_json::has_control(inside) {
        return None;
    }
    let mut out = Vec::with_capacity(inside.len());
    let mut at = 0;
    while let Some(slash) = memchr::memchr(b'\\', &inside[at..]).map(|k| at + k) {
        out.extend_from_slice(&inside[at..slash]);
        out.push(match inside.get(slash + 1)? {
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
        at = slash + 2;
    }
    out.extend_from_slice(&inside[at..]);
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// Where the hand read gives a value, it is serde's.
    fn agrees<T: Plain + DeserializeOwned + PartialEq + Debug>(raw: &str) -> bool {
        let Some(plain) = T::plain(raw.as_bytes()) else {
            return false;
        };
        assert_eq!(Some(plain), serde_json::from_str::<T>(raw).ok(), "{raw}");
        true
    }

    #[test]
    fn reads_what_serde_reads_or_leaves_it_to_serde() {
        let strings = [
            r#""assistant""#,
            r#""""#,
            r#""edit 3:4\n    x = \"a\\b\"\nend_of_edit""#,
            r#""tab\tand\/slash\b\f\r""#,
            r#""é ok""#,
            "\"a\\\\\"",
        ];
        for raw in strings {
            assert!(agrees::<Text>(raw), "{raw}");
            assert!(agrees::<Option<Text>>(raw), "{raw}");
            assert!(agrees::<Option<String>>(raw), "{raw}");
        }
        // Left to serde: `\u` escapes, raw control characters, bad escapes, other types.
        for raw in [r#""caf\u00e9""#, "\"a\u{1}b\"", r#""bad \x""#, "12", "[]"] {
            assert!(!agrees::<Text>(raw), "{raw}");
            assert!(!agrees::<Option<String>>(raw), "{raw}");
        }
        assert!(agrees::<Option<Text>>("null"));
        assert!(agrees::<Option<String>>("null"));
        for raw in ["true", "false", "null"] {
            assert!(agrees::<Option<bool>>(raw), "{raw}");
        }
        assert!(!agrees::<Option<bool>>("1"));
    }
}
