//! Editing the model's answer at step k (`replay --edit-answer`): the recorded answer as the
//! user edits it, and the edited text read back as the assistant message that is executed
//! instead of asking the model. A text agent's answer is edited as its raw text (thought and
//! fenced action); a tool-calling agent's as JSON: `{"content": …, "tool_calls": [{"name": …,
//! "arguments": {…}}]}`.

use super::EditError;
use crate::model::{Message, Role, ToolCall, Trajectory};
use serde_json::{Value, json};

/// The answer recorded at 1-based `step` (an empty one past the end), as an assistant message.
pub fn recorded_answer(t: &Trajectory, step: usize) -> Message {
    let Some(s) = t.step(step) else {
        return Message::assistant("");
    };
    let content = if !s.response.is_empty() {
        s.response.clone()
    } else if s.tool_calls.is_empty() && !s.action.is_empty() {
        format!("{}\n\n```bash\n{}\n```", s.thought.trim(), s.action.trim())
            .trim_start()
            .to_string()
    } else {
        s.thought.clone()
    };
    let mut message = Message::assistant(content);
    message.tool_calls = s.tool_calls.clone();
    message
}

/// The text the user edits.
pub fn answer_text(answer: &Message) -> String {
    if answer.tool_calls.is_empty() {
        return answer.content.clone();
    }
    let calls: Vec<Value> = answer
        .tool_calls
        .iter()
        .map(|c| {
            let arguments = serde_json::from_str::<Value>(&c.arguments)
                .unwrap_or_else(|_| Value::String(c.arguments.clone()));
            json!({"id": c.id, "name": c.name, "arguments": arguments})
        })
        .collect();
    serde_json::to_string_pretty(&json!({"content": answer.content, "tool_calls": calls}))
        .unwrap_or_default()
}

/// The edited `text` read back in the shape of `original` (raw text, or JSON with tool calls).
pub fn apply_answer_edit(original: &Message, text: &str) -> Result<Message, EditError> {
    if original.tool_calls.is_empty() {
        if text.trim().is_empty() {
            return Err(EditError::EmptyAnswer);
        }
        return Ok(Message::assistant(text.trim_end_matches('\n')));
    }
    let bad = |why: String| EditError::NotAnAnswer(why);
    let value: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    let content = value
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mut message = Message::assistant(content);
    for (i, call) in value
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("tool call {} has no \"name\"", i + 1)))?;
        let arguments = match call.get("arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => "{}".into(),
        };
        message.tool_calls.push(ToolCall {
            id: call.get("id").and_then(Value::as_str).map(String::from),
            name: name.to_string(),
            arguments,
        });
    }
    if message.content.trim().is_empty() && message.tool_calls.is_empty() {
        return Err(EditError::EmptyAnswer);
    }
    debug_assert_eq!(message.role, Role::Assistant);
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_answer_is_edited_as_text() {
        let original = Message::assistant("THOUGHT: look\n\n```bash\nls\n```");
        let text = answer_text(&original).replace("ls", "cat README.md");
        let edited = apply_answer_edit(&original, &text).unwrap();
        assert_eq!(
            edited.content,
            "THOUGHT: look\n\n```bash\ncat README.md\n```"
        );
        assert_eq!(
            apply_answer_edit(&original, "  \n"),
            Err(EditError::EmptyAnswer)
        );
    }

    #[test]
    fn tool_call_arguments_are_edited_as_json() {
        let mut original = Message::assistant("");
        original.tool_calls.push(ToolCall {
            id: Some("c1".into()),
            name: "str_replace_editor".into(),
            arguments: r#"{"command":"view","path":"/testbed/a.py"}"#.into(),
        });
        let text = answer_text(&original).replace("a.py", "b.py");
        let edited = apply_answer_edit(&original, &text).unwrap();
        assert_eq!(edited.tool_calls.len(), 1);
        assert_eq!(edited.tool_calls[0].id.as_deref(), Some("c1"));
        let args: Value = serde_json::from_str(&edited.tool_calls[0].arguments).unwrap();
        assert_eq!(args["path"], "/testbed/b.py");
        assert!(matches!(
            apply_answer_edit(&original, "not json"),
            Err(EditError::NotAnAnswer(_))
        ));
    }
}
