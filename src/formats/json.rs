//! JSON helpers shared by the loaders: top-level key scans, lenient parsing, content flattening.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// The keys of a top-level JSON object, read without building its values.
pub struct TopKeys(pub Vec<String>);

impl<'de> serde::Deserialize<'de> for TopKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = TopKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopKeys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(key.into_owned());
                }
                Ok(TopKeys(keys))
            }
        }
        deserializer.deserialize_map(KeysVisitor)
    }
}

impl TopKeys {
    pub fn has(&self, key: &str) -> bool {
        self.0.iter().any(|k| k == key)
    }

    /// The first few keys, for "not a trajectory" messages.
    pub fn preview(&self) -> String {
        let mut shown: Vec<&str> = self.0.iter().take(6).map(String::as_str).collect();
        if self.0.len() > 6 {
            shown.push("…");
        }
        shown.join(", ")
    }
}

/// Removes trailing commas before `]` or `}` outside strings: old SWE-bench `results.json`
/// files were written by hand-rolled code that leaves them.
pub fn strip_trailing_commas(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut pending_comma: Option<usize> = None;
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                pending_comma = None;
            }
            b',' => pending_comma = Some(i),
            b']' | b'}' => {
                if let Some(comma) = pending_comma.take() {
                    out.push_str(&text[last..comma]);
                    last = comma + 1;
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {}
            _ => pending_comma = None,
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Text of a chat `content` field: a string, a list of parts (`{"type":"text","text":…}`,
/// Anthropic blocks, Inspect content), or anything else rendered as JSON. Images become
/// `[image]` so that a context reads right without carrying megabytes of base64.
pub fn content_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts.iter().map(part_text).collect();
            texts
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        }
        Value::Object(_) => part_text(value),
        other => other.to_string(),
    }
}

fn part_text(part: &Value) -> String {
    match part {
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
            if kind.contains("image") {
                return "[image]".to_string();
            }
            for key in [
                "text",
                "thinking",
                "reasoning",
                "content",
                "output",
                "refusal",
            ] {
                if let Some(v) = map.get(key) {
                    return content_text(v);
                }
            }
            Value::Object(map.clone()).to_string()
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A string field, or `None`.
pub fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// A number that may be logged as a number or as a numeric string.
pub fn f64_field(value: &Value, key: &str) -> Option<f64> {
    as_f64(value.get(key)?)
}

pub fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn u64_field(value: &Value, key: &str) -> Option<u64> {
    match value.get(key)? {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A value rendered as text: strings as they are, the rest as compact JSON.
pub fn to_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn top_keys_skip_values() {
        let keys: TopKeys =
            serde_json::from_str(r#"{"a": {"x": [1,2,{"y":3}]}, "b": "s", "c": null}"#).unwrap();
        assert_eq!(keys.0, vec!["a", "b", "c"]);
        assert!(keys.has("b"));
        assert!(!keys.has("x"));
    }

    #[test]
    fn trailing_commas_are_removed_outside_strings() {
        let text = "{\"a\": [1, 2,\n ],\n \"s\": \"x,]\", }";
        let fixed = strip_trailing_commas(text);
        let v: Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v, json!({"a": [1, 2], "s": "x,]"}));
    }

    #[test]
    fn content_parts_flatten_to_text() {
        let v = json!([{"type": "text", "text": "hello"}, {"type": "image_url", "image_url": {}}, "tail"]);
        assert_eq!(content_text(&v), "hello\n[image]\ntail");
        assert_eq!(content_text(&json!(null)), "");
        assert_eq!(content_text(&json!("plain")), "plain");
    }

    #[test]
    fn numbers_as_numbers_or_strings() {
        let v = json!({"a": "0.5", "b": 2, "c": "x"});
        assert_eq!(f64_field(&v, "a"), Some(0.5));
        assert_eq!(u64_field(&v, "b"), Some(2));
        assert_eq!(f64_field(&v, "c"), None);
    }
}

/// One parsed line of a JSONL file.
// `line` is read by the JSONL loaders being merged; until then it is unused.
#[allow(dead_code)]
pub struct JsonLine {
    /// 1-based line number in the file.
    pub line: usize,
    pub value: Value,
}

/// The JSON values of a JSONL file, and a warning per line that is not JSON. A last line cut
/// off mid-write is reported as such: the writer may still be appending.
pub fn json_lines(path: &std::path::Path, bytes: &[u8]) -> (Vec<JsonLine>, Vec<String>) {
    let mut values = Vec::new();
    let mut warnings = Vec::new();
    let mut start = 0;
    let mut line_no = 0;
    while start < bytes.len() {
        line_no += 1;
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let is_last = end >= bytes.len();
        start = end + 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(value) => values.push(JsonLine {
                line: line_no,
                value,
            }),
            Err(err) if is_last && err.is_eof() => warnings.push(format!(
                "{}:{line_no}: last line is incomplete (still being written?); skipped",
                path.display()
            )),
            Err(err) => warnings.push(format!(
                "{}:{line_no}:{}: not JSON ({}); line skipped",
                path.display(),
                err.column(),
                strip_position(&err.to_string())
            )),
        }
    }
    (values, warnings)
}

fn strip_position(text: &str) -> &str {
    match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod json_lines_tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn bad_and_torn_lines_become_warnings() {
        let text = b"{\"a\":1}\n\nnot json\n{\"b\":2}\n{\"c\":";
        let (values, warnings) = json_lines(Path::new("s.jsonl"), text);
        assert_eq!(values.len(), 2);
        assert_eq!(values[1].line, 4);
        assert_eq!(warnings.len(), 2);
        assert!(warnings[0].starts_with("s.jsonl:3:"), "{}", warnings[0]);
        assert!(warnings[0].contains("not JSON"), "{}", warnings[0]);
        assert!(
            warnings[1].contains("s.jsonl:5: last line is incomplete"),
            "{}",
            warnings[1]
        );
    }
}

/// A string field that real logs sometimes write as `null`, a number or a structure: read as
/// text whatever it is, so that one odd field does not lose the whole file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Text(pub String);

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Text(match value {
            Value::String(s) => s,
            other => to_text(&other),
        }))
    }
}

#[cfg(test)]
mod text_tests {
    use super::*;

    #[test]
    fn text_accepts_any_json() {
        let v: Vec<Text> = serde_json::from_str(r#"["a", null, 3, {"k": 1}]"#).unwrap();
        assert_eq!(v[0].0, "a");
        assert_eq!(v[1].0, "");
        assert_eq!(v[2].0, "3");
        assert_eq!(v[3].0, r#"{"k":1}"#);
    }
}
