//! What the first bytes of an Inspect `.json` log (or of one of its samples) say without
//! parsing the rest: its top-level keys, and a member's value when it is within them. The
//! sniff that tells whether a file may be such a log ([`may_be_log`]: the slim read is not
//! worth starting on one), and the id of a sample too big to be held.

use crate::formats::raw_json::string_end;
use serde_json::Value;

/// The members of the object `text` starts with (or of its first bytes): each key's text
/// (as written, escapes and all) and where its value starts.
fn members(text: &[u8]) -> Vec<(&[u8], usize)> {
    let mut out = Vec::new();
    let Some(start) = text.iter().position(|b| !b.is_ascii_whitespace()) else {
        return out;
    };
    if text[start] != b'{' {
        return out;
    }
    let mut depth = 0usize;
    let mut last: Option<(usize, usize)> = None;
    let mut i = start;
    while let Some(&b) = text.get(i) {
        match b {
            b'"' => {
                // An unterminated string ends what the first bytes say.
                let Some(end) = string_end(text, i) else {
                    break;
                };
                if depth == 1 {
                    last = Some((i + 1, end - 1));
                }
                i = end;
                continue;
            }
            b':' if depth == 1 => {
                if let Some((from, to)) = last.take() {
                    let value = text[i + 1..]
                        .iter()
                        .position(|b| !b.is_ascii_whitespace())
                        .map_or(text.len(), |p| i + 1 + p);
                    out.push((&text[from..to], value));
                }
            }
            b',' => last = None,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The value of member `key` of the object `text` starts with, when it is within `text`.
pub(super) fn member_value(text: &[u8], key: &str) -> Option<Value> {
    let (_, at) = members(text)
        .into_iter()
        .find(|(k, _)| *k == key.as_bytes())?;
    serde_json::Deserializer::from_slice(&text[at..])
        .into_iter::<Value>()
        .next()?
        .ok()
}

/// Whether a file starting with `head` may be an Inspect log: one object with `eval` or
/// `samples` among its first keys, and none of the keys of the formats that detection
/// prefers (the scan that follows decides; a wrong guess only costs that scan).
pub(super) fn may_be_log(head: &[u8]) -> bool {
    let keys: Vec<&[u8]> = members(head).into_iter().map(|(k, _)| k).collect();
    let has = |names: &[&str]| {
        keys.iter()
            .any(|k| names.iter().any(|n| n.as_bytes() == *k))
    };
    has(&["eval", "samples"])
        && !has(&[
            "messages",
            "trajectory",
            "history",
            "environment",
            "resourceSpans",
        ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sniff_looks_at_the_first_keys() {
        assert!(may_be_log(
            b"{\"version\": 2, \"eval\": {\"x\": 1}, \"samples\": [{\"id\""
        ));
        assert!(may_be_log(
            b"{\n  \"samples\": [{\"id\": 1, \"messages\": ["
        ));
        assert!(!may_be_log(
            b"{\"info\": {}, \"messages\": [], \"eval\": 1}"
        ));
        assert!(!may_be_log(b"[{\"eval\": 1}]"));
        assert!(!may_be_log(b"{\"x\": {\"eval\": 1}}"));
    }

    #[test]
    fn a_member_is_read_from_the_first_bytes_alone() {
        let head = br#"{"id": "a-1", "epoch": 2, "messages": [{"content": "cut he"#;
        assert_eq!(member_value(head, "id"), Some(Value::from("a-1")));
        assert_eq!(member_value(head, "epoch"), Some(Value::from(2)));
        assert_eq!(member_value(head, "messages"), None);
        assert_eq!(member_value(head, "score"), None);
    }
}
