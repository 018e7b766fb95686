//! OTLP JSON attribute lists (`[{key, value: {stringValue | intValue | …}}]`) as a lookup,
//! and OTLP's nanosecond timestamps (decimal strings in JSON).

use serde_json::Value;
use std::collections::HashMap;

/// A span's attributes by key.
pub struct Attrs(HashMap<String, Value>);

impl Attrs {
    pub fn of(span: &Value) -> Attrs {
        let mut map = HashMap::new();
        if let Some(Value::Array(list)) = span.get("attributes") {
            for kv in list {
                if let (Some(key), Some(value)) =
                    (kv.get("key").and_then(Value::as_str), kv.get("value"))
                {
                    map.insert(key.to_string(), any_value(value));
                }
            }
        }
        Attrs(map)
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        match self.0.get(key)? {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A structured attribute: JSON text (how SDKs record `gen_ai.input.messages`) parsed,
    /// or an OTLP array / key-value list as it is.
    pub fn json(&self, key: &str) -> Option<Value> {
        match self.0.get(key)? {
            Value::String(s) => serde_json::from_str(s).ok(),
            other => Some(other.clone()),
        }
    }

    /// An attribute as text: strings as they are, the rest as JSON.
    pub fn raw(&self, key: &str) -> Option<String> {
        match self.0.get(key)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }
}

/// An OTLP `AnyValue` as plain JSON.
fn any_value(value: &Value) -> Value {
    if let Some(s) = value.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = value.get("intValue") {
        return match i {
            Value::String(s) => s
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| i.clone()),
            other => other.clone(),
        };
    }
    for key in ["doubleValue", "boolValue", "bytesValue"] {
        if let Some(v) = value.get(key) {
            return v.clone();
        }
    }
    if let Some(values) = value
        .get("arrayValue")
        .and_then(|a| a.get("values"))
        .and_then(Value::as_array)
    {
        return Value::Array(values.iter().map(any_value).collect());
    }
    if let Some(values) = value
        .get("kvlistValue")
        .and_then(|a| a.get("values"))
        .and_then(Value::as_array)
    {
        let map = values
            .iter()
            .filter_map(|kv| {
                Some((
                    kv.get("key")?.as_str()?.to_string(),
                    any_value(kv.get("value")?),
                ))
            })
            .collect();
        return Value::Object(map);
    }
    Value::Null
}

/// OTLP nanoseconds: a decimal string in JSON (or a number); 0 when absent.
pub fn nanos(value: Option<&Value>) -> u64 {
    match value {
        Some(Value::String(s)) => s.parse().unwrap_or(0),
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0),
        _ => 0,
    }
}
