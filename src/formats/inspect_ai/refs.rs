//! `attachment://<hash>` (and, in logs before 0.3.46, `tc://<hash>`) references: Inspect
//! stores long strings once per sample and writes the reference wherever they occur.
//!
//! Owns resolving them; callers resolve every string that can hold text before it reaches
//! the model, so that no reference is ever shown or searched instead of its text.

use serde_json::{Map, Value};
use std::cell::Cell;
use std::collections::HashMap;

const PREFIXES: [&str; 2] = ["attachment://", "tc://"];

/// A sample's attachments (hash → text).
#[derive(Debug, Default)]
pub struct Refs {
    attachments: HashMap<String, String>,
    missing: Cell<usize>,
}

impl Refs {
    pub fn new(attachments: HashMap<String, String>) -> Refs {
        Refs {
            attachments,
            missing: Cell::new(0),
        }
    }

    /// The text `s` stands for: the attachment when `s` is a reference, else `s`. A
    /// reference to an attachment the sample lacks stays as it is, and is counted.
    pub fn text(&self, s: &str) -> String {
        match self.target(s) {
            Some(Some(text)) => text.clone(),
            Some(None) => {
                self.missing.set(self.missing.get() + 1);
                s.to_string()
            }
            None => s.to_string(),
        }
    }

    /// `value` with every string reference in it resolved (tool call arguments, tool
    /// results, unknown content parts).
    pub fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect::<Map<String, Value>>(),
            ),
            other => other.clone(),
        }
    }

    /// How many references pointed at attachments the sample does not have.
    pub fn missing(&self) -> usize {
        self.missing.get()
    }

    /// `None`: not a reference; `Some(None)`: a reference to nothing.
    fn target(&self, s: &str) -> Option<Option<&String>> {
        let hash = PREFIXES.iter().find_map(|p| s.strip_prefix(p))?;
        Some(self.attachments.get(hash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refs() -> Refs {
        Refs::new(HashMap::from([(
            "abc".to_string(),
            "the long text".to_string(),
        )]))
    }

    #[test]
    fn whole_string_references_resolve() {
        let r = refs();
        assert_eq!(r.text("attachment://abc"), "the long text");
        assert_eq!(r.text("tc://abc"), "the long text");
        assert_eq!(r.text("see attachment://abc"), "see attachment://abc");
        assert_eq!(r.missing(), 0);
        assert_eq!(r.text("attachment://nope"), "attachment://nope");
        assert_eq!(r.missing(), 1);
    }

    #[test]
    fn nested_values_resolve() {
        let v =
            refs().value(&json!({"cmd": "attachment://abc", "n": 1, "list": ["tc://abc", null]}));
        assert_eq!(
            v,
            json!({"cmd": "the long text", "n": 1, "list": ["the long text", null]})
        );
    }
}
