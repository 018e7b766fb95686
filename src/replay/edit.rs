//! Editing the context before it is sent: the messages as a pretty JSON list (what the
//! user sees in `$EDITOR`), and that text read back. Running the editor is the caller's
//! business (the CLI waits for it; the app suspends its terminal). Editing the model's
//! answer instead is [`answer`].

pub mod answer;

use super::input::StepInput;
use crate::model::Message;
use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
pub enum EditError {
    #[error(
        "the edited context is not a JSON list of messages ({{\"role\": …, \"content\": …}}): {0}; nothing was sent"
    )]
    NotMessages(String),
    #[error("the edited context is empty; nothing was sent")]
    Empty,
    #[error(
        "the edited answer is not {{\"content\": …, \"tool_calls\": [{{\"name\": …, \"arguments\": {{…}}}}]}}: {0}; nothing was run"
    )]
    NotAnAnswer(String),
    #[error("the edited answer is empty; nothing was run")]
    EmptyAnswer,
}

/// The text to edit: the context's messages as a JSON list.
pub fn edit_text(input: &StepInput) -> String {
    serde_json::to_string_pretty(&input.messages).unwrap_or_else(|_| "[]".into())
}

/// `input` with its messages replaced by the edited `text`, and a note saying so when
/// anything changed.
pub fn apply_edit(input: &StepInput, text: &str) -> Result<StepInput, EditError> {
    let messages: Vec<Message> =
        serde_json::from_str(text).map_err(|e| EditError::NotMessages(e.to_string()))?;
    if messages.is_empty() {
        return Err(EditError::Empty);
    }
    let changed = messages != input.messages;
    Ok(StepInput {
        messages,
        exactness: input.exactness,
        note: if changed {
            Some(match &input.note {
                Some(n) => format!("edited by the user; {n}"),
                None => "edited by the user".into(),
            })
        } else {
            input.note.clone()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Exactness;

    fn input() -> StepInput {
        StepInput {
            messages: vec![Message::system("be brief"), Message::user("fix it")],
            exactness: Exactness::Exact,
            note: None,
        }
    }

    #[test]
    fn an_unchanged_text_gives_the_same_input() {
        let input = input();
        assert_eq!(apply_edit(&input, &edit_text(&input)), Ok(input));
    }

    #[test]
    fn an_edit_is_noted_and_bad_text_refused() {
        let input = input();
        let text = edit_text(&input).replace("fix it", "fix it now");
        let edited = apply_edit(&input, &text).unwrap();
        assert_eq!(edited.messages[1].content, "fix it now");
        assert_eq!(edited.note.as_deref(), Some("edited by the user"));
        assert_eq!(apply_edit(&input, "[]"), Err(EditError::Empty));
        assert!(matches!(
            apply_edit(&input, "{\"role\": 1}"),
            Err(EditError::NotMessages(_))
        ));
    }
}
