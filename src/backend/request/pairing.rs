//! Tool calls and their results, paired the way both APIs insist on: every call has an id, every
//! tool result names the call it answers and follows it, every call of a message that is not the
//! last one has a result. Logs often miss some of this (no ids, observations stored as tool
//! messages without calls); what is filled in is listed.

use crate::model::{Message, Role};
use std::collections::VecDeque;

/// The text sent as the result of a call the log has no result for.
pub const MISSING_RESULT: &str = "(no result was recorded for this call)";

/// `messages` with ids filled in and tool results paired; plus a note per change.
pub fn pair_tool_calls(messages: &[Message]) -> (Vec<Message>, Vec<String>) {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len());
    let mut notes = Vec::new();
    // Calls of the latest assistant message still waiting for their result.
    let mut pending: VecDeque<(String, String)> = VecDeque::new();
    for (i, message) in messages.iter().enumerate() {
        let number = i + 1;
        if message.role == Role::Tool {
            let mut message = message.clone();
            let answered = match &message.tool_call_id {
                Some(id) => pending.iter().position(|(p, _)| p == id),
                None if !pending.is_empty() => Some(0),
                None => None,
            };
            match answered.and_then(|at| pending.remove(at)) {
                Some((id, name)) => {
                    if message.tool_call_id.is_none() {
                        message.tool_call_id = Some(id);
                    }
                    if message.name.is_none() {
                        message.name = Some(name);
                    }
                }
                None => {
                    notes.push(format!(
                        "message {number}: a tool result that answers no call was sent as a user message"
                    ));
                    message.role = Role::User;
                    message.tool_call_id = None;
                }
            }
            out.push(message);
            continue;
        }
        answer_missing(&mut pending, &mut out, &mut notes, number);
        let mut message = message.clone();
        if message.role == Role::Assistant {
            for (j, call) in message.tool_calls.iter_mut().enumerate() {
                let id = call
                    .id
                    .get_or_insert_with(|| format!("call_{number}_{}", j + 1));
                pending.push_back((id.clone(), call.name.clone()));
            }
        }
        out.push(message);
    }
    // Calls of the last message are what the model just asked for: they have no results yet.
    let last_is_assistant = out.last().is_some_and(|m| m.role == Role::Assistant);
    if !last_is_assistant {
        answer_missing(&mut pending, &mut out, &mut notes, messages.len() + 1);
    }
    (out, notes)
}

fn answer_missing(
    pending: &mut VecDeque<(String, String)>,
    out: &mut Vec<Message>,
    notes: &mut Vec<String>,
    before: usize,
) {
    for (id, name) in pending.drain(..) {
        notes.push(format!(
            "before message {before}: call `{name}` ({id}) had no recorded result; sent {MISSING_RESULT:?}"
        ));
        let mut result = Message::tool(MISSING_RESULT);
        result.tool_call_id = Some(id);
        result.name = Some(name);
        out.push(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    fn assistant_calling(names: &[&str]) -> Message {
        let mut m = Message::assistant("");
        m.tool_calls = names.iter().map(|n| ToolCall::new(*n, "{}")).collect();
        m
    }

    #[test]
    fn ids_are_invented_and_results_paired_in_order() {
        let messages = vec![
            Message::system("s"),
            Message::user("u"),
            assistant_calling(&["read", "ls"]),
            Message::tool("file text"),
            Message::tool("a b c"),
        ];
        let (out, notes) = pair_tool_calls(&messages);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(out[2].tool_calls[0].id.as_deref(), Some("call_3_1"));
        assert_eq!(out[3].tool_call_id.as_deref(), Some("call_3_1"));
        assert_eq!(out[4].tool_call_id.as_deref(), Some("call_3_2"));
        assert_eq!(out[4].name.as_deref(), Some("ls"));
    }

    #[test]
    fn recorded_ids_match_out_of_order() {
        let mut call = assistant_calling(&["a", "b"]);
        call.tool_calls[0].id = Some("x".into());
        call.tool_calls[1].id = Some("y".into());
        let mut second = Message::tool("B");
        second.tool_call_id = Some("y".into());
        let mut first = Message::tool("A");
        first.tool_call_id = Some("x".into());
        let (out, notes) = pair_tool_calls(&[Message::user("u"), call, second, first]);
        assert!(notes.is_empty());
        assert_eq!(out.len(), 4);
    }

    #[test]
    fn orphans_become_user_messages_and_missing_results_are_filled() {
        let messages = vec![
            Message::user("u"),
            Message::tool("an observation logged as a tool message"),
            assistant_calling(&["bash"]),
            Message::user("the observation, logged as user text"),
            assistant_calling(&["submit"]),
        ];
        let (out, notes) = pair_tool_calls(&messages);
        assert_eq!(out[1].role, Role::User);
        assert_eq!(out[3].role, Role::Tool);
        assert_eq!(out[3].content, MISSING_RESULT);
        assert_eq!(out[3].tool_call_id.as_deref(), Some("call_3_1"));
        assert_eq!(
            out.len(),
            6,
            "the final call stays unanswered: it is the model's answer"
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("message 2:"));
        assert!(notes[1].starts_with("before message 4:"));
    }
}
