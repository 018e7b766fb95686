//! Colouring code in actions and observations: which language a text is (from the tool,
//! the command's file argument, or the text itself), then spans per line: syntect for code,
//! theme roles for diffs, tracebacks and error lines.

use crate::model::Step;
use crate::tui::theme::{Role, Theme};
use ratatui::style::{Color, Style};
use ratatui::text::Span;
use std::sync::OnceLock;
use syntect::easy::HighlightLines;
use syntect::highlighting::ThemeSet;
use syntect::parsing::{SyntaxReference, SyntaxSet};

/// What kind of text a field holds, for colouring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lang {
    Plain,
    Diff,
    Traceback,
    /// Code with a syntect syntax, found by file extension (`sh`, `py`, `json`, …).
    /// `numbered` when lines carry `cat -n`/`open`-style line numbers.
    Code {
        extension: String,
        numbered: bool,
    },
}

impl Lang {
    fn code(extension: &str) -> Lang {
        Lang::Code {
            extension: extension.to_string(),
            numbered: false,
        }
    }

    /// A short label for section titles: `bash`, `python`, `diff`, `python traceback`.
    pub fn label(&self) -> String {
        match self {
            Lang::Plain => String::new(),
            Lang::Diff => "diff".into(),
            Lang::Traceback => "python traceback".into(),
            Lang::Code { extension, .. } => match extension.as_str() {
                "sh" => "shell".into(),
                "py" => "python".into(),
                "rs" => "rust".into(),
                "js" => "javascript".into(),
                "ts" => "typescript".into(),
                "md" => "markdown".into(),
                "yml" => "yaml".into(),
                other => other.to_string(),
            },
        }
    }
}

/// File extensions we recognise in commands (`cat x.py`, `open src/y.rs`).
const CODE_EXTENSIONS: &[&str] = &[
    "py", "rs", "js", "ts", "go", "java", "c", "h", "cpp", "hpp", "cc", "rb", "php", "json",
    "toml", "yaml", "yml", "sh", "cfg", "ini", "html", "css", "sql", "md", "rst", "txt",
];

/// Commands whose output is (part of) the file named in their arguments.
const VIEWING_COMMANDS: &[&str] = &[
    "cat", "open", "head", "tail", "nl", "less", "more", "view", "goto", "sed",
];

/// Tools whose action is Python source rather than a command line.
const PYTHON_TOOLS: &[&str] = &["execute_ipython_cell", "ipython", "python_interpreter"];

pub fn action_lang(step: &Step, text: &str) -> Lang {
    let trimmed = text.trim_start();
    if looks_like_diff(text) {
        return Lang::Diff;
    }
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok()
    {
        return Lang::code("json");
    }
    if step
        .tool
        .as_deref()
        .is_some_and(|t| PYTHON_TOOLS.contains(&t))
    {
        return Lang::code("py");
    }
    if trimmed.is_empty() {
        Lang::Plain
    } else {
        Lang::code("sh")
    }
}

/// The language of `step`'s observation, judged from `head`, its first few KB sanitised.
pub fn observation_lang(step: &Step, head: &str) -> Lang {
    if head.contains("Traceback (most recent call last)") {
        return Lang::Traceback;
    }
    if looks_like_diff(head) {
        return Lang::Diff;
    }
    let full = step.observation.trim_start();
    if (full.starts_with('{') || full.starts_with('['))
        && full.len() < 256 * 1024
        && serde_json::from_str::<serde::de::IgnoredAny>(full).is_ok()
    {
        return Lang::code("json");
    }
    if let Some(extension) = shown_file_extension(&step.action, head) {
        let numbered = head
            .lines()
            .take(12)
            .filter(|l| number_prefix(l) > 0)
            .count()
            >= 2;
        return Lang::Code {
            extension,
            numbered,
        };
    }
    Lang::Plain
}

fn looks_like_diff(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("diff --git")
        || (t.starts_with("--- ") && text.contains("\n+++ ") && text.contains("\n@@"))
}

/// The extension of a file the observation shows: SWE-agent's `[File: x.py (…)]` header,
/// `str_replace_editor view`'s "running `cat -n` on x.py", or a viewing command's argument.
fn shown_file_extension(action: &str, head: &str) -> Option<String> {
    let from_header = head
        .strip_prefix("[File: ")
        .and_then(|rest| rest.split_whitespace().next())
        .or_else(|| {
            let at = head.find("`cat -n` on ")?;
            head[at + 12..].split([':', '\n', ' ']).next()
        });
    let from_command = || {
        let mut words = action.split_whitespace();
        let command = words.next()?.rsplit('/').next()?;
        let views_a_file = VIEWING_COMMANDS.contains(&command)
            || (command == "str_replace_editor" && action.contains(" view "));
        if !views_a_file {
            return None;
        }
        action.split_whitespace().rev().find_map(extension_of)
    };
    from_header.and_then(extension_of).or_else(from_command)
}

fn extension_of(word: &str) -> Option<String> {
    let word = word.trim_matches(|c: char| c == '\'' || c == '"' || c == '`' || c == ':');
    let (_, extension) = word.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    CODE_EXTENSIONS
        .contains(&extension.as_str())
        .then_some(extension)
}

/// Byte length of a line-number prefix (`46:` or `    46  `), or 0.
fn number_prefix(line: &str) -> usize {
    let bytes = line.as_bytes();
    let spaces = bytes.iter().take_while(|&&b| b == b' ').count();
    let digits = bytes[spaces..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return 0;
    }
    let after = spaces + digits;
    match bytes.get(after) {
        Some(b':') => after + 1,
        Some(b' ') if bytes.get(after + 1) == Some(&b' ') => after + 2,
        None => after,
        _ => 0,
    }
}

struct Assets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

/// Syntect's bundled syntaxes and themes: immutable lookup tables, loaded once on first use
/// (in a task, never on the UI thread).
fn assets() -> &'static Assets {
    static ASSETS: OnceLock<Assets> = OnceLock::new();
    ASSETS.get_or_init(|| Assets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    })
}

fn syntax(extension: &str) -> Option<&'static SyntaxReference> {
    let syntaxes = &assets().syntaxes;
    syntaxes
        .find_syntax_by_extension(extension)
        .or_else(|| syntaxes.find_syntax_by_token(extension))
}

/// Colours one text line by line, carrying syntect's state from line to line.
pub struct Highlighter<'t> {
    lang: Lang,
    theme: &'t Theme,
    syntect: Option<HighlightLines<'static>>,
    observation: bool,
}

impl<'t> Highlighter<'t> {
    /// `syntax` turns syntect on (off for the quick preview); `observation` marks error
    /// lines in plain text.
    pub fn new(lang: Lang, theme: &'t Theme, syntax_on: bool, observation: bool) -> Self {
        let syntect = match (&lang, syntax_on) {
            (Lang::Code { extension, .. }, true) => {
                let assets = assets();
                let syntect_theme = assets
                    .themes
                    .themes
                    .get(&theme.syntax)
                    .or_else(|| assets.themes.themes.get("base16-ocean.dark"));
                syntax(extension)
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
        let text = self.theme.style(Role::Text);
        match &self.lang {
            Lang::Diff => vec![Span::styled(line.to_string(), diff_style(line, self.theme))],
            Lang::Traceback => vec![Span::styled(
                line.to_string(),
                traceback_style(line, self.theme),
            )],
            Lang::Plain if self.observation && is_error_line(line) => {
                vec![Span::styled(
                    line.to_string(),
                    self.theme.style(Role::TracebackError),
                )]
            }
            Lang::Plain => vec![Span::styled(line.to_string(), text)],
            Lang::Code { numbered, .. } => {
                let (prefix, code) = if *numbered {
                    line.split_at(number_prefix(line))
                } else {
                    ("", line)
                };
                let mut spans = Vec::new();
                if !prefix.is_empty() {
                    spans.push(Span::styled(
                        prefix.to_string(),
                        self.theme.style(Role::StepIndex),
                    ));
                } else if *numbered {
                    return vec![Span::styled(line.to_string(), self.theme.style(Role::Dim))];
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
        match syntect.highlight_line(&with_newline, &assets().syntaxes) {
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
    let role = if line.starts_with("+++ ")
        || line.starts_with("--- ")
        || line.starts_with("diff ")
        || line.starts_with("index ")
    {
        Role::DiffHeader
    } else if line.starts_with('+') {
        Role::DiffAdded
    } else if line.starts_with('-') {
        Role::DiffRemoved
    } else if line.starts_with("@@") {
        Role::DiffHunk
    } else {
        Role::DiffContext
    };
    theme.style(role)
}

fn traceback_style(line: &str, theme: &Theme) -> Style {
    let trimmed = line.trim_start();
    if trimmed.starts_with("File \"") {
        theme.style(Role::TracebackFrame)
    } else if line.starts_with("Traceback (") || is_exception_line(line) || is_error_line(line) {
        theme.style(Role::TracebackError)
    } else {
        theme.style(Role::Text)
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

    fn step(tool: &str, action: &str) -> Step {
        Step {
            tool: Some(tool.into()),
            action: action.into(),
            ..Step::default()
        }
    }

    #[test]
    fn languages_of_actions() {
        assert_eq!(
            action_lang(&step("bash", "ls -la"), "ls -la").label(),
            "shell"
        );
        let json = r#"{"command": "view", "path": "/x.py"}"#;
        assert_eq!(
            action_lang(&step("str_replace_editor", json), json).label(),
            "json"
        );
        assert_eq!(
            action_lang(&step("execute_ipython_cell", "x=1"), "x=1").label(),
            "python"
        );
        let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b";
        assert_eq!(action_lang(&step("submit", diff), diff), Lang::Diff);
    }

    fn observed(tool: &str, action: &str, observation: &str) -> Lang {
        let step = Step {
            observation: observation.into(),
            ..step(tool, action)
        };
        observation_lang(&step, observation)
    }

    #[test]
    fn languages_of_observations() {
        let tb = "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: no";
        assert_eq!(observed("python", "python x.py", tb), Lang::Traceback);
        let open = "[File: /repo/src/app.py (120 lines total)]\n1:import os\n2:import sys\n";
        assert_eq!(
            observed("open", "open src/app.py", open),
            Lang::Code {
                extension: "py".into(),
                numbered: true
            }
        );
        let cat = "     1  fn main() {\n     2  }\n";
        assert_eq!(
            observed("cat", "cat -n src/main.rs", cat),
            Lang::Code {
                extension: "rs".into(),
                numbered: true
            }
        );
        assert_eq!(observed("ls", "ls", "a.py\nb.py"), Lang::Plain);
        assert_eq!(observed("x", "x", "{\"a\": 1}").label(), "json");
    }

    #[test]
    fn line_number_prefixes() {
        assert_eq!(number_prefix("46:    def f():"), 3);
        assert_eq!(number_prefix("     1  import os"), 8);
        assert_eq!(number_prefix("1 2 3"), 0);
        assert_eq!(number_prefix("import os"), 0);
    }

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
        let mut h = Highlighter::new(Lang::code("py"), &theme, true, false);
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
