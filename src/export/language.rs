//! Which language a block of an export is in, for the code fence's tag and the highlighter:
//! a guess from the step's tool and the text itself, never a parse of the whole text.

use crate::model::Step;

/// A language an export tags or highlights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Bash,
    Python,
    Diff,
    Json,
    /// By a file's extension (`rust`, `javascript`, …): the tag as GitHub knows it.
    Other(&'static str),
    Text,
}

impl Language {
    /// The fence tag GitHub understands (`bash`, `python`, `diff`, `json`, `text`).
    pub fn tag(self) -> &'static str {
        match self {
            Language::Bash => "bash",
            Language::Python => "python",
            Language::Diff => "diff",
            Language::Json => "json",
            Language::Other(tag) => tag,
            Language::Text => "text",
        }
    }

    /// The language of a file, by its extension.
    pub fn of_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Language::Python,
            "sh" | "bash" => Language::Bash,
            "json" => Language::Json,
            "diff" | "patch" => Language::Diff,
            "rs" => Language::Other("rust"),
            "js" | "mjs" | "cjs" => Language::Other("javascript"),
            "ts" | "tsx" => Language::Other("typescript"),
            "go" => Language::Other("go"),
            "java" => Language::Other("java"),
            "c" | "h" => Language::Other("c"),
            "cc" | "cpp" | "hpp" | "cxx" => Language::Other("cpp"),
            "rb" => Language::Other("ruby"),
            "yml" | "yaml" => Language::Other("yaml"),
            "toml" => Language::Other("toml"),
            "html" | "htm" => Language::Other("html"),
            "css" => Language::Other("css"),
            "md" | "rst" | "txt" => Language::Text,
            _ => return None,
        })
    }
}

/// SWE-agent's own editing commands, whose body is the edited file's text.
const FILE_EDIT_COMMANDS: &[&str] = &["edit", "create", "insert", "append"];

/// Tools whose argument is program text rather than a command line.
const CODE_TOOLS: &[&str] = &["python", "python3", "ipython", "execute_ipython_cell"];

/// The language of a step's action. `edited` is the file the step edits, when known: a
/// SWE-agent `edit` carries that file's text.
pub fn of_action(step: &Step, edited: Option<&str>) -> Language {
    let action = step.action.trim_start();
    if looks_like_diff(action) {
        return Language::Diff;
    }
    if looks_like_json(action) {
        return Language::Json;
    }
    let tool = step.tool.as_deref().unwrap_or("");
    if FILE_EDIT_COMMANDS.contains(&tool)
        && let Some(language) = edited.and_then(Language::of_path)
    {
        return language;
    }
    if CODE_TOOLS.contains(&tool) && !action.starts_with("python") && !action.starts_with(tool) {
        return Language::Python;
    }
    // `Name {"arg": …}`: a tool call rendered generically reads best untagged.
    if !step.tool_calls.is_empty()
        && action
            .split_once(' ')
            .is_some_and(|(_, rest)| rest.starts_with('{'))
    {
        return Language::Text;
    }
    Language::Bash
}

/// The language of an observation: diffs and JSON are worth colouring, the rest is text.
pub fn of_output(text: &str) -> Language {
    let text = text.trim_start();
    if looks_like_diff(text) {
        Language::Diff
    } else if looks_like_json(text) {
        Language::Json
    } else {
        Language::Text
    }
}

/// A unified diff: starts with its headers or a hunk.
fn looks_like_diff(text: &str) -> bool {
    if text.starts_with("diff --git ") || text.starts_with("@@ -") {
        return true;
    }
    let mut lines = text.lines();
    matches!(
        (lines.next(), lines.next()),
        (Some(a), Some(b)) if a.starts_with("--- ") && b.starts_with("+++ ")
    )
}

/// JSON: an object or array that parses. Big texts are judged by their ends only, since
/// parsing a 5 MB observation to pick a colour is not worth it.
fn looks_like_json(text: &str) -> bool {
    let text = text.trim();
    let (Some(first), Some(last)) = (text.chars().next(), text.chars().last()) else {
        return false;
    };
    let shaped = matches!((first, last), ('{', '}') | ('[', ']'));
    if !shaped {
        return false;
    }
    if text.len() > 256 * 1024 {
        return true;
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    fn step(tool: Option<&str>, action: &str) -> Step {
        Step {
            tool: tool.map(String::from),
            action: action.into(),
            ..Step::default()
        }
    }

    #[test]
    fn actions_by_tool_and_shape() {
        assert_eq!(
            of_action(&step(Some("bash"), "ls -la"), None),
            Language::Bash
        );
        assert_eq!(
            of_action(&step(Some("python"), "python reproduce.py"), None),
            Language::Bash
        );
        assert_eq!(
            of_action(&step(Some("python"), "import os\nprint(os.getcwd())"), None),
            Language::Python
        );
        assert_eq!(
            of_action(
                &step(Some("edit"), "edit 3:4\n    return x\nend_of_edit"),
                Some("a/b.py")
            ),
            Language::Python
        );
        assert_eq!(
            of_action(
                &step(Some("edit"), "edit 3:4\nx\nend_of_edit"),
                Some("README")
            ),
            Language::Bash
        );
        assert_eq!(
            of_action(&step(None, "diff --git a/x b/x\n--- a/x\n+++ b/x"), None),
            Language::Diff
        );
        assert_eq!(
            of_action(&step(None, "{\"command\": \"ls\"}"), None),
            Language::Json
        );
        let mut call = step(Some("Read"), "Read {\"file_path\": \"/x\"}");
        call.tool_calls
            .push(ToolCall::new("Read", "{\"file_path\": \"/x\"}"));
        assert_eq!(of_action(&call, None), Language::Text);
    }

    #[test]
    fn outputs_are_text_unless_diff_or_json() {
        assert_eq!(of_output("--- a/x\n+++ b/x\n@@ -1 +1 @@"), Language::Diff);
        assert_eq!(of_output("[1, 2, {\"a\": null}]"), Language::Json);
        assert_eq!(of_output("{not json}"), Language::Text);
        assert_eq!(
            of_output("Traceback (most recent call last):"),
            Language::Text
        );
        assert_eq!(of_output(""), Language::Text);
    }

    #[test]
    fn paths_by_extension() {
        assert_eq!(Language::of_path("src/x.rs"), Some(Language::Other("rust")));
        assert_eq!(Language::of_path("setup.PY"), Some(Language::Python));
        assert_eq!(Language::of_path("Makefile"), None);
        assert_eq!(Language::Other("go").tag(), "go");
    }
}
