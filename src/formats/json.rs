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
    as_count(value.get(key)?)
}

/// A count as logs write it: a number (a float cut to its whole part) or a numeric string.
pub fn as_count(value: &Value) -> Option<u64> {
    match value {
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

/// One parsed line of a JSONL file: a JSON value, or a record type of the loader's.
pub struct JsonLine<T = Value> {
    /// 1-based line number in the file.
    pub line: usize,
    pub value: T,
}

/// The JSON values of a JSONL file, and a warning per line that is not JSON. A last line cut
/// off mid-write is reported as such: the writer may still be appending.
pub fn json_lines(path: &std::path::Path, bytes: &[u8]) -> (Vec<JsonLine>, Vec<String>) {
    let mut values = Vec::new();
    let mut warnings = Vec::new();
    each_json_line(path, bytes, |line| match line {
        Ok(line) => values.push(line),
        Err(warning) => warnings.push(warning),
    });
    (values, warnings)
}

/// [`json_lines`] one line at a time, in file order, each read as `T`: loaders that need one
/// record in memory at a time, and only some of its fields, read it into a struct that
/// borrows from `bytes`. A line that is JSON but not a `T` is a warning too.
pub fn each_json_line<'a, T: serde::Deserialize<'a>>(
    path: &std::path::Path,
    bytes: &'a [u8],
    mut on_line: impl FnMut(Result<JsonLine<T>, String>),
) {
    for (line_no, line, is_last) in nonblank_lines(bytes) {
        on_line(json_line(path, line_no, line, is_last));
    }
}

/// One line of a JSONL file read as `T`, or the warning saying why it was skipped (naming
/// the file and the line): what [`each_json_line`] does per line, for readers fed one line
/// at a time (the bounded read of [`super::stream`]).
pub fn json_line<'a, T: serde::Deserialize<'a>>(
    path: &std::path::Path,
    line_no: usize,
    line: &'a [u8],
    is_last: bool,
) -> Result<JsonLine<T>, String> {
    match serde_json::from_slice::<T>(line) {
        Ok(value) => Ok(JsonLine {
            line: line_no,
            value,
        }),
        Err(err) if is_last && err.is_eof() => Err(format!(
            "{}:{line_no}: last line is incomplete (still being written?); skipped",
            path.display()
        )),
        Err(err) if err.is_data() => Err(format!(
            "{}:{line_no}: {}; line skipped",
            path.display(),
            strip_position(&err.to_string())
        )),
        Err(err) => Err(format!(
            "{}:{line_no}:{}: not JSON ({}); line skipped",
            path.display(),
            err.column(),
            strip_position(&err.to_string())
        )),
    }
}

/// The lines of a JSONL file that are not blank: (1-based line number, bytes without the
/// line end, whether it is the file's last line, which a writer may still be appending to).
pub fn nonblank_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8], bool)> {
    let mut start = 0;
    let mut line_no = 0;
    std::iter::from_fn(move || {
        while start < bytes.len() {
            line_no += 1;
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let line = &bytes[start..end];
            start = end + 1;
            if !line.iter().all(u8::is_ascii_whitespace) {
                return Some((line_no, line, end >= bytes.len()));
            }
        }
        None
    })
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
    fn typed_lines_of_another_shape_become_warnings() {
        #[derive(serde::Deserialize)]
        struct Rec {
            n: u32,
        }
        let mut seen = Vec::new();
        each_json_line::<Rec>(Path::new("t.jsonl"), b"{\"n\":1}\n[true]\n{\"n\":2}", |l| {
            seen.push(l.map(|l| (l.line, l.value.n)));
        });
        assert_eq!(seen[0], Ok((1, 1)));
        let warning = seen[1].clone().unwrap_err();
        assert!(warning.starts_with("t.jsonl:2: invalid type"), "{warning}");
        assert!(warning.ends_with("; line skipped"), "{warning}");
        assert_eq!(seen[2], Ok((3, 2)));
    }

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

/// Deserialises `T`, or its default when the value has another shape (lenient fields).
/// It decodes through a `Value` first: use it for small fields, never for the big arrays of
/// a file (that doubles the parse); those take [`list_or_empty`].
pub fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned + Default,
{
    let value = <Value as serde::Deserialize>::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).unwrap_or_default())
}

/// A list read item by item when the value is one, empty when it has another shape: a
/// lenient big array, without a detour through `Value`. Items must read from any JSON
/// (`Value`, [`Text`], a struct whose fields all default).
pub fn list_or_empty<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    deserializer.deserialize_any(OrEmpty(std::marker::PhantomData::<Vec<T>>))
}

/// A map of text read entry by entry when the value is one, empty otherwise.
pub fn map_or_empty<'de, D>(
    deserializer: D,
) -> Result<std::collections::HashMap<String, String>, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_any(OrEmpty(
        std::marker::PhantomData::<std::collections::HashMap<String, String>>,
    ))
}

/// Reads a sequence (into a `Vec`) or a map (into a `HashMap` of text); any other shape,
/// or the other container, reads as empty.
struct OrEmpty<C>(std::marker::PhantomData<C>);

macro_rules! empty_for_scalars {
    () => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

impl<'de, T: serde::Deserialize<'de>> Visitor<'de> for OrEmpty<Vec<T>> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(items)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<T>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Vec::new())
    }
    empty_for_scalars!();
}

impl<'de> Visitor<'de> for OrEmpty<std::collections::HashMap<String, String>> {
    type Value = std::collections::HashMap<String, String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = std::collections::HashMap::new();
        while let Some((key, Text(value))) = map.next_entry::<String, Text>()? {
            entries.insert(key, value);
        }
        Ok(entries)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Default::default())
    }
    empty_for_scalars!();
}

#[cfg(test)]
mod or_empty_tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Holder {
        #[serde(default, deserialize_with = "list_or_empty")]
        items: Vec<Value>,
        #[serde(default, deserialize_with = "map_or_empty")]
        texts: std::collections::HashMap<String, String>,
        #[serde(default, deserialize_with = "lenient")]
        small: Option<u64>,
    }

    #[test]
    fn odd_shapes_read_as_empty() {
        let h: Holder =
            serde_json::from_str(r#"{"items": [1, "a"], "texts": {"k": "v", "n": 2}, "small": 3}"#)
                .unwrap();
        assert_eq!(h.items, vec![Value::from(1), Value::from("a")]);
        assert_eq!(h.texts.get("n").map(String::as_str), Some("2"));
        assert_eq!(h.small, Some(3));
        for text in [
            r#"{"items": {"a": [1]}, "texts": [1, 2], "small": "x"}"#,
            r#"{"items": "x", "texts": null, "small": [1]}"#,
            r#"{"items": null, "texts": 5}"#,
        ] {
            let h: Holder = serde_json::from_str(text).unwrap();
            assert!(
                h.items.is_empty() && h.texts.is_empty() && h.small.is_none(),
                "{text}"
            );
        }
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
