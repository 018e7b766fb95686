//! The one-line text input at the bottom: a search, a filter, a run-wide search.

/// What the typed text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `/` in a trajectory.
    Search,
    /// `/` in the run table; applies as you type.
    Filter,
    /// Search every trajectory of the run.
    Grep,
    /// A label for the selected step.
    Label,
    /// The replay panel's workspace path.
    Workspace,
    /// A run to add to the runs side by side.
    AddRun,
}

impl PromptKind {
    pub fn label(self) -> &'static str {
        match self {
            PromptKind::Search => "/",
            PromptKind::Filter => "filter: ",
            PromptKind::Grep => "search all trajectories: ",
            PromptKind::Label => "label this step: ",
            PromptKind::Workspace => "workspace (the repository at its starting state): ",
            PromptKind::AddRun => "add a run (a folder or file): ",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: String,
    /// Byte offset of the cursor in `input`.
    pub cursor: usize,
    /// The value before editing, restored on cancel (the filter applies as you type).
    pub previous: String,
}

impl Prompt {
    pub fn new(kind: PromptKind, initial: &str) -> Prompt {
        Prompt {
            kind,
            input: initial.to_string(),
            cursor: initial.len(),
            previous: initial.to_string(),
        }
    }

    pub fn insert(&mut self, c: char) {
        self.input.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    pub fn insert_str(&mut self, text: &str) {
        for c in text.chars().filter(|c| !c.is_control()) {
            self.insert(c);
        }
    }

    pub fn delete_backward(&mut self) {
        if let Some(c) = self.input[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.input.remove(self.cursor);
        }
    }

    pub fn left(&mut self) {
        if let Some(c) = self.input[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    pub fn right(&mut self) {
        if let Some(c) = self.input[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    pub fn clear(&mut self) {
        self.input.clear();
        self.cursor = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editing_with_a_cursor() {
        let mut p = Prompt::new(PromptKind::Search, "eror");
        p.left();
        p.left();
        p.insert('r');
        assert_eq!(p.input, "error");
        p.right();
        p.right();
        p.right();
        p.delete_backward();
        assert_eq!(p.input, "erro");
        p.insert_str("r\n✓");
        assert_eq!(p.input, "error✓");
        p.delete_backward();
        assert_eq!(p.input, "error");
        p.clear();
        p.delete_backward();
        assert_eq!(p.input, "");
    }
}
