//! Colouring a text line by line once its language is known: syntect for code, theme roles
//! for diffs, tracebacks and error lines.

use crate::present::DiffRowKind;
use crate::present::language::{Language, number_prefix};
use crate::present::syntax::{syntax_of, syntaxes};
use crate::tui::theme::{Paint, Theme};
use ratatui::style::{Color, Style};
use ratatui::text::Span;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::ThemeSet;

/// Syntect's bundled themes, loaded once on first use (in a task, never on the UI thread).
fn themes() -> &'static ThemeSet {
    static THEMES: OnceLock<ThemeSet> = OnceLock::new();
    THEMES.get_or_init(ThemeSet::load_defaults)
}

/// Colours one text line by line, carrying syntect's state from line to line.
pub struct Highlighter<'t> {
    lang: Language,
    theme: &'t Theme,
    syntect: Option<HighlightLines<'static>>,
    observation: bool,
}

impl<'t> Highlighter<'t> {
    /// `syntax` turns syntect on (off for the quick preview); `observation` marks error
    /// lines in plain text.
    pub fn new(lang: Language, theme: &'t Theme, syntax_on: bool, observation: bool) -> Self {
        let syntect = match (&lang, syntax_on) {
            (Language::Code { .. }, true) => {
                let themes = &themes().themes;
                let syntect_theme = themes
                    .get(&theme.syntax)
                    .or_else(|| themes.get("base16-ocean.dark"));
                syntax_of(&lang)
                    .zip(syntect_theme)
                    .map(|(s, t)| HighlightLines::new(s, t))
            }
            _ => None,
        };
        Highlighter {
            lang,
            theme,
            syntect,
            observation,
        }
    }

    pub fn line(&mut self, line: &str) -> Vec<Span<'static>> {
        let text = self.theme.style(Paint::Text);
        match &self.lang {
            Language::Diff => vec![Span::styled(line.to_string(), diff_style(line, self.theme))],
            Language::Traceback => vec![Span::styled(
                line.to_string(),
                traceback_style(line, self.theme),
            )],
            Language::Plain if self.observation && is_error_line(line) => {
                vec![Span::styled(
                    line.to_string(),
                    self.theme.style(Paint::TracebackError),
                )]
            }
            Language::Plain => vec![Span::styled(line.to_string(), text)],
            Language::Code { numbered, .. } => {
                let (prefix, code) = if *numbered {
                    line.split_at(number_prefix(line))
                } else {
                    ("", line)
                };
                let mut spans = Vec::new();
                if !prefix.is_empty() {
                    spans.push(Span::styled(
                        prefix.to_string(),
                        self.theme.style(Paint::StepIndex),
                    ));
                } else if *numbered {
                    return vec![Span::styled(line.to_string(), self.theme.style(Paint::Dim))];
                }
                spans.extend(self.code(code, text));
                spans
            }
        }
    }

    fn code(&mut self, code: &str, text: Style) -> Vec<Span<'static>> {
        let Some(syntect) = self.syntect.as_mut() else {
            return vec![Span::styled(code.to_string(), text)];
        };
        let with_newline = format!("{code}\n");
        match syntect.highlight_line(&with_newline, syntaxes()) {
            Ok(pieces) => pieces
                .into_iter()
                .filter_map(|(style, piece)| {
                    let piece = piece.strip_suffix('\n').unwrap_or(piece);
                    let fg = style.foreground;
                    (!piece.is_empty()).then(|| {
                        Span::styled(piece.to_string(), text.fg(Color::Rgb(fg.r, fg.g, fg.b)))
                    })
                })
                .collect(),
            Err(_) => vec![Span::styled(code.to_string(), text)],
        }
    }
}

pub fn diff_style(line: &str, theme: &Theme) -> Style {
    let role = match DiffRowKind::of_patch_line(line) {
        DiffRowKind::Header => Paint::DiffHeader,
        DiffRowKind::Added => Paint::DiffAdded,
        DiffRowKind::Removed => Paint::DiffRemoved,
        DiffRowKind::Hunk => Paint::DiffHunk,
        _ => Paint::DiffContext,
    };
    theme.style(role)
}

fn traceback_style(line: &str, theme: &Theme) -> Style {
    let trimmed = line.trim_start();
    if trimmed.starts_with("File \"") {
        theme.style(Paint::TracebackFrame)
    } else if line.starts_with("Traceback (") || is_exception_line(line) || is_error_line(line) {
        theme.style(Paint::TracebackError)
    } else {
        theme.style(Paint::Text)
    }
}

/// `ValueError: …`, `django.core.exceptions.FieldError: …`, `KeyboardInterrupt`.
fn is_exception_line(line: &str) -> bool {
    let name: &str = line.split([':', ' ']).next().unwrap_or("");
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        && ["Error", "Exception", "Interrupt", "Exit", "Warning"]
            .iter()
            .any(|s| last.ends_with(s))
}

const ERROR_LINE_MARKERS: &[&str] = &[
    "Traceback (most recent call last)",
    "Error:",
    "error:",
    "ERROR",
    "FAILED",
    "fatal:",
    "command not found",
    "No such file or directory",
    "syntax error",
];

fn is_error_line(line: &str) -> bool {
    ERROR_LINE_MARKERS.iter().any(|m| line.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_lines() {
        assert!(is_exception_line("ValueError: bad"));
        assert!(is_exception_line("django.core.exceptions.FieldError: x"));
        assert!(is_exception_line("KeyboardInterrupt"));
        assert!(!is_exception_line("  File \"x\", line 2"));
        assert!(!is_exception_line("Everything is fine: no Error"));
    }

    #[test]
    fn syntect_colours_python() {
        let theme = Theme::dark();
        let mut h = Highlighter::new(Language::code("py"), &theme, true, false);
        let spans = h.line("def f(x): return 1");
        assert!(spans.len() > 3, "{spans:?}");
        assert_eq!(
            spans.iter().map(|s| s.content.as_ref()).collect::<String>(),
            "def f(x): return 1"
        );
        assert!(
            spans
                .iter()
                .any(|s| matches!(s.style.fg, Some(Color::Rgb(..))))
        );
    }
}
