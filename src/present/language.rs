//! Which language a step's text is in, for colouring and for a code fence's tag: one guess
//! from the step's tool, the file a command shows or edits, and the text itself (a diff,
//! JSON, a Python traceback), never a parse of a whole big text. The TUI colours by it, the
//! exports tag and highlight by it.

use crate::model::Step;
use crate::text::{self, sanitise};

/// What kind of text a block holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Language {
    Plain,
    Diff,
    /// A Python traceback: coloured by its frames in the TUI, plain text in an export.
    Traceback,
    /// Code of a file type, by extension (`sh`, `py`, `json`, `rs`, …). `numbered` when the
    /// lines carry `cat -n`/`open`-style line numbers.
    Code {
        extension: String,
        numbered: bool,
    },
}

/// Texts bigger than this are not parsed to decide whether they are JSON: colouring is not
/// worth parsing a 5 MB observation.
const MAX_JSON_CHECK: usize = 256 * 1024;

/// File extensions we recognise in commands (`cat x.py`, `open src/y.rs`).
const CODE_EXTENSIONS: &[&str] = &[
    "py", "rs", "js", "ts", "go", "java", "c", "h", "cpp", "hpp", "cc", "rb", "php", "json",
    "toml", "yaml", "yml", "sh", "cfg", "ini", "html", "css", "sql", "md", "rst", "txt",
];

/// Commands whose output is (part of) the file named in their arguments.
const VIEWING_COMMANDS: &[&str] = &[
    "cat", "open", "head", "tail", "nl", "less", "more", "view", "goto", "sed",
];

/// Tools whose argument is Python source rather than a command line.
const PYTHON_TOOLS: &[&str] = &[
    "python",
    "python3",
    "ipython",
    "execute_ipython_cell",
    "python_interpreter",
];

/// SWE-agent's own editing commands, whose body is the edited file's text.
const FILE_EDIT_COMMANDS: &[&str] = &["edit", "create", "insert", "append"];

impl Language {
    pub fn code(extension: &str) -> Language {
        Language::Code {
            extension: extension.to_ascii_lowercase(),
            numbered: false,
        }
    }

    /// The language of a file by its extension; plain text when it has none.
    pub fn of_path(path: &str) -> Language {
        let name = path.rsplit('/').next().unwrap_or(path);
        match name.rsplit_once('.') {
            Some((stem, extension)) if !stem.is_empty() && !extension.is_empty() => {
                match extension.to_ascii_lowercase().as_str() {
                    "diff" | "patch" => Language::Diff,
                    _ => Language::code(extension),
                }
            }
            _ => Language::Plain,
        }
    }

    /// A short label for section titles: `shell`, `python`, `diff`, `python traceback`.
    pub fn label(&self) -> String {
        match self {
            Language::Plain => String::new(),
            Language::Diff => "diff".into(),
            Language::Traceback => "python traceback".into(),
            Language::Code { extension, .. } => match extension.as_str() {
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

    /// The code fence tag GitHub understands (`bash`, `python`, `diff`, `json`, `text`).
    /// Numbered lines are not the language as written, so they are `text`.
    pub fn tag(&self) -> &str {
        match self {
            Language::Plain | Language::Traceback => "text",
            Language::Diff => "diff",
            Language::Code { numbered: true, .. } => "text",
            Language::Code { extension, .. } => match extension.as_str() {
                "sh" | "bash" => "bash",
                "py" | "pyi" => "python",
                "rs" => "rust",
                "js" | "mjs" | "cjs" => "javascript",
                "ts" | "tsx" => "typescript",
                "c" | "h" => "c",
                "cc" | "cpp" | "hpp" | "cxx" => "cpp",
                "rb" => "ruby",
                "yml" | "yaml" => "yaml",
                "htm" | "html" => "html",
                "md" | "rst" | "txt" => "text",
                other => other,
            },
        }
    }
}

/// The language of `step`'s action, whose shown text is `text`. `edited` is the file the
/// step edits, when known: a SWE-agent `edit` carries that file's text.
pub fn of_action(step: &Step, text: &str, edited: Option<&str>) -> Language {
    let trimmed = text.trim_start();
    if looks_like_diff(trimmed) {
        return Language::Diff;
    }
    if looks_like_json(trimmed) {
        return Language::code("json");
    }
    let tool = step.tool.as_deref().unwrap_or("");
    if FILE_EDIT_COMMANDS.contains(&tool)
        && let Some(language) = edited.map(Language::of_path)
        && language != Language::Plain
    {
        return language;
    }
    // `python x.py` run by a python tool is a command line, not Python.
    if PYTHON_TOOLS.contains(&tool) && !trimmed.starts_with("python") && !trimmed.starts_with(tool)
    {
        return Language::code("py");
    }
    // `Name {"arg": …}`: a tool call rendered generically reads best uncoloured.
    if !step.tool_calls.is_empty()
        && trimmed
            .split_once(' ')
            .is_some_and(|(_, rest)| rest.starts_with('{'))
    {
        return Language::Plain;
    }
    if trimmed.is_empty() {
        Language::Plain
    } else {
        Language::code("sh")
    }
}

/// The language of `step`'s observation, judged from its first 4 KB as shown.
pub fn of_step_observation(step: &Step) -> Language {
    of_observation(step, &sanitise(text::head(&step.observation, 4096)))
}

/// The language of `step`'s observation, judged from `head`, its first few KB as shown.
pub fn of_observation(step: &Step, head: &str) -> Language {
    if head.contains("Traceback (most recent call last)") {
        return Language::Traceback;
    }
    if looks_like_diff(head.trim_start()) {
        return Language::Diff;
    }
    if looks_like_json(&step.observation) {
        return Language::code("json");
    }
    if let Some(extension) = shown_file_extension(&step.action, head) {
        let numbered = head
            .lines()
            .take(12)
            .filter(|l| number_prefix(l) > 0)
            .count()
            >= 2;
        return Language::Code {
            extension,
            numbered,
        };
    }
    Language::Plain
}

/// A unified diff: it starts with its headers or a hunk.
pub fn looks_like_diff(text: &str) -> bool {
    if text.starts_with("diff --git") || text.starts_with("@@ -") {
        return true;
    }
    let mut lines = text.lines();
    let headed = matches!(
        (lines.next(), lines.next()),
        (Some(a), Some(b)) if a.starts_with("--- ") && b.starts_with("+++ ")
    );
    headed || (text.starts_with("--- ") && text.contains("\n+++ ") && text.contains("\n@@"))
}

/// JSON: an object or array that parses, and small enough to be worth parsing.
fn looks_like_json(text: &str) -> bool {
    let text = text.trim();
    let shaped = (text.starts_with('{') && text.ends_with('}'))
        || (text.starts_with('[') && text.ends_with(']'));
    shaped
        && text.len() <= MAX_JSON_CHECK
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
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
pub fn number_prefix(line: &str) -> usize {
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

#[cfg(test)]
mod tests;
