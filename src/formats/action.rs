//! A step's action as people read it, rendered from its tool calls.
//!
//! `view_file(path="a.py")` on one line; a call whose only argument is a `command` shows the
//! command itself (as a shell step would); long or multi-line string arguments (an edit's
//! `old_str`/`new_str`) follow the call as `--- name` blocks instead of one escaped line.

use crate::model::ToolCall;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// Strings longer than this are shown as blocks under the call.
const INLINE_MAX: usize = 80;

/// Every call, one after the other.
pub fn render_calls(calls: &[ToolCall]) -> String {
    calls.iter().map(render_call).collect::<Vec<_>>().join("\n")
}

pub fn render_call(call: &ToolCall) -> String {
    let Ok(Ordered(arguments)) = serde_json::from_str::<Ordered>(&call.arguments) else {
        let raw = call.arguments.trim();
        return format!("{}({raw})", call.name);
    };
    if let [(key, Value::String(command))] = arguments.as_slice()
        && (key == "command" || key == "cmd")
    {
        return command.clone();
    }
    let mut inline = Vec::new();
    let mut blocks = Vec::new();
    for (key, value) in &arguments {
        match value {
            Value::String(s) if s.contains('\n') || s.len() > INLINE_MAX => blocks.push((key, s)),
            other => inline.push(format!("{key}={other}")),
        }
    }
    let mut text = format!("{}({})", call.name, inline.join(", "));
    for (key, value) in blocks {
        text.push_str("\n--- ");
        text.push_str(key);
        text.push('\n');
        text.push_str(value.strip_suffix('\n').unwrap_or(value));
    }
    text
}

/// A JSON object's entries in the order written: `old_str` before `new_str`, as the model
/// wrote them, not sorted.
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor;
        impl<'de> Visitor<'de> for OrderedVisitor {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, Value>()? {
                    entries.push((key, value));
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(OrderedVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_arguments_inline_long_ones_as_blocks() {
        let call = ToolCall::new(
            "edit_file",
            r#"{"path":"/w/a.py","old_str":"def f():\n    pass\n","new_str":"def f():\n    return 1\n"}"#,
        );
        assert_eq!(
            render_call(&call),
            "edit_file(path=\"/w/a.py\")\n--- old_str\ndef f():\n    pass\n--- new_str\ndef f():\n    return 1"
        );
        assert_eq!(render_call(&ToolCall::new("finish", "{}")), "finish()");
        assert_eq!(
            render_call(&ToolCall::new("f", r#"{"n":3,"ok":true}"#)),
            "f(n=3, ok=true)"
        );
    }

    #[test]
    fn commands_show_as_themselves_and_odd_arguments_raw() {
        assert_eq!(
            render_call(&ToolCall::new("bash", r#"{"command":"ls -la"}"#)),
            "ls -la"
        );
        assert_eq!(
            render_call(&ToolCall::new("shell", "ls; pwd")),
            "shell(ls; pwd)"
        );
        let two = [ToolCall::new("a", "{}"), ToolCall::new("b", "{}")];
        assert_eq!(render_calls(&two), "a()\nb()");
    }
}
