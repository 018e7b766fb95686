//! Syntect's syntax definitions, loaded once, and the one lookup from a [`Language`] to a
//! syntax: the TUI colours with it through its theme, the HTML export through CSS classes.

use super::language::Language;
use std::sync::OnceLock;
use syntect::parsing::{SyntaxReference, SyntaxSet};

/// The bundled syntaxes: an immutable lookup table, loaded on first use (in a task, never on
/// the UI thread).
pub fn syntaxes() -> &'static SyntaxSet {
    static SYNTAXES: OnceLock<SyntaxSet> = OnceLock::new();
    SYNTAXES.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The syntax of code in `language`: by file extension, else by the language's name.
/// `None` for plain text, diffs and tracebacks, which are coloured by their lines.
pub fn syntax_of(language: &Language) -> Option<&'static SyntaxReference> {
    let Language::Code { extension, .. } = language else {
        return None;
    };
    let syntaxes = syntaxes();
    syntaxes
        .find_syntax_by_extension(extension)
        .or_else(|| syntaxes.find_syntax_by_token(extension))
        .or_else(|| syntaxes.find_syntax_by_token(language.tag()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_has_a_syntax_and_text_has_none() {
        assert_eq!(
            syntax_of(&Language::code("py")).map(|s| s.name.as_str()),
            Some("Python")
        );
        assert_eq!(
            syntax_of(&Language::code("sh")).map(|s| s.name.as_str()),
            Some("Bourne Again Shell (bash)")
        );
        assert!(syntax_of(&Language::Plain).is_none());
        assert!(syntax_of(&Language::Diff).is_none());
    }
}
