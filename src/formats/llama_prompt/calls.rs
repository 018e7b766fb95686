//! The tool calls inside one assistant message of a Llama prompt log, in the three shapes
//! Llama agents write them: a pythonic list `[view_file(path="a.py")]` (Llama 3.2/3.3
//! style, possibly inside `<tool>…</tool>` tags), or JSON after `<|python_tag|>` (Llama 3.1).

use super::super::pythonic::{self, PythonCall};
use crate::model::ToolCall;
use serde_json::Value;

/// What an assistant message called, and what it said around the calls.
#[derive(Debug, Default, PartialEq)]
pub struct Calls {
    pub calls: Vec<ToolCall>,
    /// The message without the call text.
    pub prose: String,
    /// Call text that could not be read: (the text, why).
    pub failures: Vec<(String, String)>,
    /// The function named by a call that could not be read, when its name is readable.
    pub failed_name: Option<String>,
}

const PYTHON_TAG: &str = "<|python_tag|>";

pub fn find_calls(content: &str) -> Calls {
    if let Some(at) = content.find(PYTHON_TAG) {
        let mut found = python_tag_calls(&content[at + PYTHON_TAG.len()..]);
        found.prose = content[..at].trim().to_string();
        return found;
    }
    if content.contains("<tool>") {
        return tagged_calls(content);
    }
    let trimmed = content.trim();
    if !trimmed.starts_with('[') && pythonic::looks_like_call(trimmed) {
        let mut found = Calls::default();
        match pythonic::parse_bare_calls(trimmed) {
            Ok(calls) => found.calls = to_tool_calls(calls),
            Err(err) => fail(&mut found, trimmed, &err.to_string()),
        }
        return found;
    }
    listed_calls(content)
}

fn to_tool_calls(calls: Vec<PythonCall>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .map(|c| ToolCall::new(c.name, c.arguments))
        .collect()
}

fn fail(found: &mut Calls, text: &str, why: &str) {
    if found.failed_name.is_none() {
        let name: String = text
            .trim_start_matches(['[', ' ', '\n'])
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        found.failed_name = (!name.is_empty()).then_some(name);
    }
    found.failures.push((text.to_string(), why.to_string()));
}

/// Pythonic lists anywhere in the message: each `[` that opens something shaped like a call.
fn listed_calls(content: &str) -> Calls {
    let mut found = Calls::default();
    let mut prose = String::new();
    let mut copied = 0;
    let mut search = 0;
    while let Some(offset) = content[search..].find('[') {
        let at = search + offset;
        if !pythonic::looks_like_call(&content[at + 1..]) {
            search = at + 1;
            continue;
        }
        match pythonic::parse_call_list(&content[at..]) {
            Ok((calls, used)) => {
                found.calls.extend(to_tool_calls(calls));
                prose.push_str(&content[copied..at]);
                copied = at + used;
                search = at + used;
            }
            Err(err) => {
                // The rest of the message is the broken call: nothing after it can be trusted
                // to be prose or another call.
                fail(&mut found, content[at..].trim_end(), &err.to_string());
                prose.push_str(&content[copied..at]);
                copied = content.len();
                break;
            }
        }
    }
    prose.push_str(&content[copied..]);
    found.prose = prose.trim().to_string();
    found
}

/// `<tool>[view_file(path="a")]</tool>`: the early l2-llama agent's tags. Brackets are
/// optional inside, as that agent accepted calls without them.
fn tagged_calls(content: &str) -> Calls {
    let mut found = Calls::default();
    let mut prose = String::new();
    let mut rest = content;
    while let Some(open) = rest.find("<tool>") {
        prose.push_str(&rest[..open]);
        let inner_start = open + "<tool>".len();
        let Some(close) = rest[inner_start..].find("</tool>") else {
            fail(
                &mut found,
                rest[open..].trim(),
                "`<tool>` without `</tool>`",
            );
            rest = "";
            break;
        };
        let inner = rest[inner_start..inner_start + close].trim();
        let parsed = if inner.starts_with('[') {
            pythonic::parse_call_list(inner).and_then(|(calls, used)| {
                if inner[used..].trim().is_empty() {
                    Ok(calls)
                } else {
                    Err(pythonic::CallError {
                        offset: used,
                        message: "unexpected text after the call list".into(),
                    })
                }
            })
        } else {
            pythonic::parse_bare_calls(inner)
        };
        match parsed {
            Ok(calls) => found.calls.extend(to_tool_calls(calls)),
            Err(err) => fail(&mut found, inner, &err.to_string()),
        }
        rest = &rest[inner_start + close + "</tool>".len()..];
    }
    prose.push_str(rest);
    found.prose = prose.trim().to_string();
    found
}

/// `<|python_tag|>{"name": "view_file", "parameters": {"path": "a"}}`, several separated by
/// `;` or newlines; or a built-in call written the pythonic way (`brave_search.call(…)`).
fn python_tag_calls(text: &str) -> Calls {
    let mut found = Calls::default();
    let text = text.trim();
    if !text.starts_with('{') {
        match pythonic::parse_bare_calls(text) {
            Ok(calls) => found.calls = to_tool_calls(calls),
            Err(err) => fail(&mut found, text, &err.to_string()),
        }
        return found;
    }
    let mut rest = text;
    while !rest.is_empty() {
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                let used = stream.byte_offset();
                match json_call(&value) {
                    Some(call) => found.calls.push(call),
                    None => fail(
                        &mut found,
                        rest[..used].trim(),
                        "a JSON call needs a string `name`",
                    ),
                }
                rest = rest[used..].trim_start_matches(|c: char| c == ';' || c.is_whitespace());
            }
            Some(Err(err)) => {
                let why = format!("not JSON: {err}");
                fail(&mut found, rest, &why);
                break;
            }
            None => break,
        }
    }
    found
}

fn json_call(value: &Value) -> Option<ToolCall> {
    let name = value.get("name")?.as_str()?;
    let arguments = value
        .get("parameters")
        .or_else(|| value.get("arguments"))
        .map_or_else(
            || "{}".to_string(),
            |a| match a {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        );
    Some(ToolCall::new(name, arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pythonic_list_after_prose() {
        let found = find_calls("EXECUTE:\n[view_file(path=\"/workspace/django/a.py\"), finish()]");
        assert_eq!(found.calls.len(), 2);
        assert_eq!(
            found.calls[0].argument("path").as_deref(),
            Some("/workspace/django/a.py")
        );
        assert_eq!(found.prose, "EXECUTE:");
        assert!(found.failures.is_empty());
    }

    #[test]
    fn prose_with_brackets_is_not_a_call() {
        let found = find_calls("The list [a, b] and [see(1)] are fine.");
        assert!(found.calls.is_empty());
        assert!(found.failures.is_empty());
        assert_eq!(found.prose, "The list [a, b] and [see(1)] are fine.");
    }

    #[test]
    fn a_broken_call_is_reported_with_its_name() {
        let found = find_calls("Let me edit.\n[edit_file(path=\"/w/a.py\", new_str=\"x = 1\n");
        assert!(found.calls.is_empty());
        assert_eq!(found.failed_name.as_deref(), Some("edit_file"));
        assert!(
            found.failures[0].1.contains("string"),
            "{:?}",
            found.failures
        );
        assert_eq!(found.prose, "Let me edit.");
    }

    #[test]
    fn tool_tags_and_bare_calls() {
        let found = find_calls("<thinking>look</thinking>\n<tool>list_files(path=\"/w\")</tool>");
        assert_eq!(found.calls.len(), 1);
        assert_eq!(found.calls[0].name, "list_files");
        assert_eq!(found.prose, "<thinking>look</thinking>");
        let found = find_calls("view_file(path=\"a\")");
        assert_eq!(found.calls.len(), 1);
    }

    #[test]
    fn python_tag_json_calls() {
        let found = find_calls(
            "<|python_tag|>{\"name\": \"view_file\", \"parameters\": {\"path\": \"a\"}}; {\"name\": \"finish\", \"parameters\": {}}",
        );
        assert_eq!(found.calls.len(), 2);
        assert_eq!(found.calls[0].arguments, r#"{"path":"a"}"#);
        let found = find_calls("<|python_tag|>{\"name\": \"view_file\", \"parameters\": {\"pa");
        assert!(found.calls.is_empty());
        assert!(found.failures[0].1.contains("not JSON"));
        let found = find_calls("<|python_tag|>brave_search.call(query=\"x\")");
        assert_eq!(found.calls[0].name, "brave_search.call");
    }
}
