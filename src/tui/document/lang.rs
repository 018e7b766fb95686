//! Which language a step's text is, for colouring: from the tool, the file a command shows,
//! or the text itself (a traceback, a diff, JSON).

use crate::model::Step;

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
    pub(super) fn code(extension: &str) -> Lang {
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
pub(super) fn number_prefix(line: &str) -> usize {
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
mod tests {
    use super::*;
    use crate::model::Step;

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
}
