//! Native implementations of the agents' editor tools, so that a replay does not need the
//! original agent installed in the environment: SWE-agent's windowed commands (0.x and 1.x)
//! and `str_replace_editor`, OpenHands' `str_replace_editor`, Claude Code's
//! Read/Edit/Write/Glob/Grep, and the Llama agent's list_files/view_file/edit_file.
//!
//! Each tool returns the text the original printed, with this machine's paths; the executor
//! maps them back to the recorded ones. Shell commands are not tools: the executor runs them.

mod claude_code;
mod lint;
mod llama;
mod pattern;
mod search;
mod str_replace_editor;
mod window;
mod windowed;

pub use claude_code::ClaudeCode;
pub use llama::Llama;
pub use str_replace_editor::{Editor, EditorFlavour};
pub use windowed::{Generation, ReplaceMessage, Windowed};

/// What a tool printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    /// The tool reported failure (a non-zero exit, `is_error`, an `ERROR` result).
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            is_error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            is_error: true,
        }
    }
}

pub use search::{find_file, search_dir, search_file};

/// `path` made absolute against `cwd`, with `.` and `..` resolved by name.
pub fn resolve(cwd: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", cwd.trim_end_matches('/'))
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

/// A scratch folder for a tool test, and its path with symlinks resolved (as the tools
/// report paths). The folder lives as long as the returned guard.
#[cfg(test)]
pub(crate) fn temp_root() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    (dir, root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_working_directory() {
        assert_eq!(resolve("/r", "a/b.py"), "/r/a/b.py");
        assert_eq!(resolve("/r/x", "../a/./b"), "/r/a/b");
        assert_eq!(resolve("/r", "/abs"), "/abs");
        assert_eq!(resolve("/r", "."), "/r");
        assert_eq!(resolve("/", "a"), "/a");
    }
}
