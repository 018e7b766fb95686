//! How a step's change of model input reads ([`ContextDiff`]): the message counts line and,
//! per changed message, its kind and position. `trajscope show --diff --step` and the TUI's
//! diff tab write the same words.

use crate::diff::{ContextChange, ContextDiff, MessageChange};

/// `8 → 10 messages: 8 kept, 2 added, 0 removed, 0 rewritten`.
pub fn message_counts(ctx: &ContextDiff) -> String {
    format!(
        "{} → {} messages: {} kept, {} added, {} removed, {} rewritten",
        ctx.previous_len,
        ctx.len,
        ctx.kept,
        ctx.count(ContextChange::Added),
        ctx.count(ContextChange::Removed),
        ctx.count(ContextChange::Rewritten)
    )
}

/// `added`, `removed`, `rewritten`.
pub fn change_word(change: ContextChange) -> &'static str {
    match change {
        ContextChange::Added => "added",
        ContextChange::Removed => "removed",
        ContextChange::Rewritten => "rewritten",
    }
}

/// Where the message sits: `[3→4]` when it moved, `[4]` when it did not or exists on one
/// side only.
pub fn position(change: &MessageChange) -> String {
    match (change.before, change.after) {
        (Some(b), Some(a)) if a != b => format!("[{b}→{a}]"),
        (_, Some(a)) => format!("[{a}]"),
        (Some(b), None) => format!("[{b}]"),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn change(before: Option<usize>, after: Option<usize>) -> MessageChange {
        MessageChange {
            change: ContextChange::Rewritten,
            role: Role::User,
            before,
            after,
            summary: String::new(),
            diff: None,
            chars_delta: 0,
        }
    }

    #[test]
    fn positions_say_where_a_message_moved() {
        assert_eq!(position(&change(Some(3), Some(4))), "[3→4]");
        assert_eq!(position(&change(Some(4), Some(4))), "[4]");
        assert_eq!(position(&change(Some(2), None)), "[2]");
        assert_eq!(position(&change(None, None)), "");
        assert_eq!(change_word(ContextChange::Removed), "removed");
    }
}
