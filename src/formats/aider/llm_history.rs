//! Aider's `--llm-history-file` (`.aider.llm.history`): every request as sent (`TO LLM`,
//! the whole message list: system prompt, repo map, file contents) and every reply
//! (`LLM RESPONSE`), each line prefixed with its role. When it sits beside the chat history,
//! each step whose reply it holds gets the request before that reply as its EXACT context.
//!
//! The writer (aider `io.log_llm_history`, `utils.format_messages`, 0.86) writes a header
//! `TO LLM 2025-01-02T03:04:05` or `LLM RESPONSE …`, then for a request `-------` before
//! each message and `ROLE text` for each of its lines; for a reply `ASSISTANT text` lines.

use crate::model::{Exactness, Message, Role, StepContext, Trajectory};
use std::path::{Path, PathBuf};

/// The file name Aider's docs and our users give it, beside the chat history.
const FILE_NAME: &str = ".aider.llm.history";

/// One request and the reply that answered it.
#[derive(Debug, Default, PartialEq)]
struct Call {
    request: Vec<Message>,
    reply: String,
}

/// The LLM history beside `chat_history`, when there is one.
pub fn beside(chat_history: &Path) -> Option<PathBuf> {
    let file = chat_history.with_file_name(FILE_NAME);
    file.is_file().then_some(file)
}

/// Gives each step of `trajectories` whose reply the history holds its exact request. Steps
/// are matched to replies by text, in order, so calls the chat history does not show
/// (commit messages, summaries) are passed over. Returns how many steps got one.
pub fn join(trajectories: &mut [Trajectory], history: &str) -> usize {
    let calls = calls(history);
    let mut next = 0;
    let mut joined = 0;
    for t in trajectories.iter_mut() {
        for i in 0..t.steps.len() {
            let reply = t.steps[i].response.trim().to_string();
            if reply.is_empty() {
                continue;
            }
            let Some(found) = calls[next..]
                .iter()
                .position(|c| c.reply.trim() == reply)
                .map(|at| next + at)
            else {
                continue;
            };
            next = found + 1;
            let ids = calls[found]
                .request
                .iter()
                .map(|m| t.push_message(m.clone()))
                .collect();
            t.steps[i].context = Some(StepContext::list(Exactness::Exact, ids));
            joined += 1;
        }
    }
    joined
}

/// The calls of a history: each `LLM RESPONSE` with the `TO LLM` before it.
fn calls(history: &str) -> Vec<Call> {
    let mut calls = Vec::new();
    let mut request: Option<Vec<Message>> = None;
    let mut lines = history.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(kind) = header(line) else {
            continue;
        };
        let mut body = Vec::new();
        while let Some(next) = lines.peek() {
            if header(next).is_some() {
                break;
            }
            body.push(*next);
            lines.next();
        }
        match kind {
            Header::Request => request = Some(messages(&body)),
            Header::Response => calls.push(Call {
                request: request.take().unwrap_or_default(),
                reply: body
                    .iter()
                    .map(|l| strip_role(l).1)
                    .collect::<Vec<_>>()
                    .join("\n"),
            }),
        }
    }
    calls
}

enum Header {
    Request,
    Response,
}

/// `TO LLM <time>` or `LLM RESPONSE <time>`: the time is what tells a header from a line
/// of content, which always starts with a role.
fn header(line: &str) -> Option<Header> {
    let (kind, rest) = if let Some(rest) = line.strip_prefix("TO LLM ") {
        (Header::Request, rest)
    } else if let Some(rest) = line.strip_prefix("LLM RESPONSE ") {
        (Header::Response, rest)
    } else {
        return None;
    };
    let time = rest.trim_end();
    let looks_like_time = time.len() >= 19
        && time.as_bytes().get(4) == Some(&b'-')
        && time.as_bytes().get(10) == Some(&b'T')
        && time
            .chars()
            .all(|c| c.is_ascii_digit() || "-T:.+Z".contains(c));
    looks_like_time.then_some(kind)
}

/// A request's messages: one per `-------`-separated chunk, its role from the line prefix.
fn messages(body: &[&str]) -> Vec<Message> {
    let mut messages = Vec::new();
    for chunk in body.split(|l| *l == "-------") {
        let mut role = None;
        let mut text = Vec::new();
        for line in chunk {
            let (prefix, rest) = strip_role(line);
            role = role.or(prefix);
            text.push(rest);
        }
        if let Some(role) = role {
            messages.push(Message::new(role, text.join("\n")));
        }
    }
    messages
}

/// `USER text` → (user, `text`); a line without a role prefix is kept whole.
fn strip_role(line: &str) -> (Option<Role>, &str) {
    for (prefix, role) in [
        ("SYSTEM", Role::System),
        ("USER", Role::User),
        ("ASSISTANT", Role::Assistant),
        ("TOOL", Role::Tool),
    ] {
        if let Some(rest) = line.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with(' '))
        {
            return (Some(role), rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    (None, line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Step};

    const HISTORY: &str = "TO LLM 2025-06-01T10:00:00\n-------\nSYSTEM Act as an expert.\nSYSTEM \nSYSTEM Use SEARCH/REPLACE.\n-------\nUSER add a docstring\nLLM RESPONSE 2025-06-01T10:00:03\nASSISTANT Here it is.\nASSISTANT \nASSISTANT done\nTO LLM 2025-06-01T10:00:04\n-------\nSYSTEM Write a commit message.\nLLM RESPONSE 2025-06-01T10:00:05\nASSISTANT docs: add docstring\n";

    #[test]
    fn requests_pair_with_their_replies() {
        let calls = calls(HISTORY);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].request.len(), 2);
        assert_eq!(calls[0].request[0].role, Role::System);
        assert_eq!(
            calls[0].request[0].content,
            "Act as an expert.\n\nUse SEARCH/REPLACE."
        );
        assert_eq!(calls[0].reply, "Here it is.\n\ndone");
        assert!(header("TO LLM is not a header").is_none());
    }

    #[test]
    fn steps_get_the_request_that_preceded_their_reply() {
        let mut t = Trajectory::new("x.aider.chat.history.md", Format::Aider);
        t.steps.push(Step {
            response: "Here it is.\n\ndone".into(),
            ..Step::default()
        });
        t.steps.push(Step {
            response: "a reply the history lacks".into(),
            ..Step::default()
        });
        let mut ts = vec![t];
        assert_eq!(join(&mut ts, HISTORY), 1);
        let step = &ts[0].steps[0];
        let context = step.context.as_ref().unwrap();
        assert_eq!(context.exactness, Exactness::Exact);
        assert_eq!(step.context_messages(&ts[0].messages).len(), 2);
        assert!(ts[0].steps[1].context.is_none());
    }
}
