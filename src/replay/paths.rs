//! Where the recorded agent believed the repository was (`/testbed`, `/workspace/django`,
//! `/marshmallow-code__marshmallow`), and the two-way mapping between that root and the
//! scratch copy: commands and tool arguments go in with the scratch path, observations come
//! back with the recorded one, so the model sees the world it was shown.
//!
//! Pure. Detection reads the trajectory's text only; it never touches the file system.

use crate::model::Trajectory;
use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

/// The recorded root ↔ the root commands really run in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathMap {
    recorded: String,
    actual: String,
}

impl PathMap {
    /// `recorded` (as the log shows it) is found at `actual` on this machine.
    pub fn new(recorded: impl Into<String>, actual: impl Into<String>) -> PathMap {
        PathMap {
            recorded: trim_slash(recorded.into()),
            actual: trim_slash(actual.into()),
        }
    }

    /// No mapping: commands run where the log says (a container started by the user).
    pub fn identity(root: impl Into<String>) -> PathMap {
        let root = trim_slash(root.into());
        PathMap {
            recorded: root.clone(),
            actual: root,
        }
    }

    pub fn recorded_root(&self) -> &str {
        &self.recorded
    }

    pub fn actual_root(&self) -> &str {
        &self.actual
    }

    pub fn is_identity(&self) -> bool {
        self.recorded == self.actual
    }

    /// A command or argument with the recorded root rewritten to the actual one.
    pub fn to_actual(&self, text: &str) -> String {
        replace_root(text, &self.recorded, &self.actual)
    }

    /// An observation with the actual root rewritten to the recorded one.
    pub fn to_recorded(&self, text: &str) -> String {
        replace_root(text, &self.actual, &self.recorded)
    }

    /// `(actual, recorded)`, as [`super::normalise::normalise`] takes it.
    pub fn substitutions(&self) -> Vec<(String, String)> {
        if self.is_identity() {
            Vec::new()
        } else {
            vec![(self.actual.clone(), self.recorded.clone())]
        }
    }
}

fn trim_slash(mut s: String) -> String {
    while s.len() > 1 && s.ends_with('/') {
        s.pop();
    }
    s
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Replaces `from` where it stands as a whole path prefix: not inside a longer name
/// (`/testbed2`, `/x/testbed`).
fn replace_root(text: &str, from: &str, to: &str) -> String {
    if from == to || from.is_empty() || !text.contains(from) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(from) {
        let prev = rest[..at].chars().next_back().or(before);
        let next = rest[at + from.len()..].chars().next();
        let starts_clean = prev.is_none_or(|c| !is_name_char(c));
        let ends_clean = next.is_none_or(|c| c == '/' || !is_name_char(c));
        out.push_str(&rest[..at]);
        if starts_clean && ends_clean {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        before = from.chars().next_back();
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// The recorded root and what gave it away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootGuess {
    pub path: String,
    pub evidence: &'static str,
}

static MARKERS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\(Current directory: (/[^)\n]*)\)",
            "SWE-agent prompt state",
        ),
        (
            r"<uploaded_files>\s*(/\S+?)/?\s*</uploaded_files>",
            "OpenHands <uploaded_files>",
        ),
        (
            r"<working_directory>\s*(/\S+?)/?\s*</working_directory>",
            "<working_directory> in the prompt",
        ),
        (
            r"(?m)^\s*Working directory: (/\S+)",
            "working directory in the prompt",
        ),
        (
            r"repository in the directory (/[^\s.,]+)",
            "the task says where the repository is",
        ),
        (
            r#""working_dir":\s*"(/[^"]+)""#,
            "SWE-agent state working_dir",
        ),
    ]
    .into_iter()
    .filter_map(|(p, why)| Regex::new(p).ok().map(|r| (r, why)))
    .collect()
});

static ABSOLUTE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?:^|[\s'"=(:\[])(/[A-Za-z0-9_.@+-]+(?:/[A-Za-z0-9_.@+-]+)?)"#).ok()
});

/// Guesses the recorded repository root from the prompts, observations and actions.
pub fn detect_root(t: &Trajectory) -> Option<RootGuess> {
    let mut votes: HashMap<(String, &'static str), usize> = HashMap::new();
    let texts = t
        .messages
        .iter()
        .take(400)
        .map(|m| m.content.as_str())
        .chain(t.steps.iter().take(400).map(|s| s.observation.as_str()))
        .chain(t.task.as_deref());
    for text in texts {
        let scan = &text[..floor_boundary(text, 64 * 1024)];
        for (re, why) in MARKERS.iter() {
            for cap in re.captures_iter(scan) {
                if let Some(path) = cap.get(1).map(|m| m.as_str().trim_end_matches('/'))
                    && path.len() > 1
                    && path != "n/a"
                {
                    *votes.entry((path.to_string(), *why)).or_default() += 1;
                }
            }
        }
    }
    if let Some(((path, why), _)) = votes
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
    {
        return Some(RootGuess {
            path,
            evidence: why,
        });
    }
    prefix_vote(t)
}

/// Absolute paths in the actions and tool arguments, voted by their likely repository part;
/// then, when the actions use relative paths only, the paths in the observations
/// (tracebacks: `File "/testbed/pkg/x.py"`).
fn prefix_vote(t: &Trajectory) -> Option<RootGuess> {
    let re = ABSOLUTE.as_ref()?;
    let vote = |texts: &mut dyn Iterator<Item = &str>| {
        let mut votes: HashMap<String, usize> = HashMap::new();
        for text in texts {
            let scan = &text[..floor_boundary(text, 16 * 1024)];
            for cap in re.captures_iter(scan) {
                if let Some(root) = cap.get(1).and_then(|m| repository_part(m.as_str())) {
                    *votes.entry(root).or_default() += 1;
                }
            }
        }
        votes
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(path, _)| path)
    };
    let mut actions = t.steps.iter().flat_map(|s| {
        std::iter::once(s.action.as_str()).chain(s.tool_calls.iter().map(|c| c.arguments.as_str()))
    });
    if let Some(path) = vote(&mut actions) {
        return Some(RootGuess {
            path,
            evidence: "paths in the actions",
        });
    }
    let mut observations = t.steps.iter().take(400).map(|s| s.observation.as_str());
    vote(&mut observations).map(|path| RootGuess {
        path,
        evidence: "paths in the observations",
    })
}

/// `/testbed/x` → `/testbed`; `/workspace/django/x` → `/workspace/django`; `/django__django/x`
/// → `/django__django`; anything else is not evidence.
fn repository_part(path: &str) -> Option<String> {
    let mut parts = path.trim_start_matches('/').split('/');
    let first = parts.next()?;
    match first {
        "testbed" | "repo" | "app" => Some(format!("/{first}")),
        "workspace" | "project" | "src" => parts.next().map(|second| format!("/{first}/{second}")),
        _ if first.contains("__") => Some(format!("/{first}")),
        _ => None,
    }
}

fn floor_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Message, Step, ToolCall};

    #[test]
    fn roots_map_only_as_whole_path_prefixes() {
        let map = PathMap::new("/testbed", "/tmp/ts/repo/");
        assert_eq!(
            map.to_actual("cd /testbed && cat /testbed/a.py /testbed2/b x/testbed"),
            "cd /tmp/ts/repo && cat /tmp/ts/repo/a.py /testbed2/b x/testbed"
        );
        assert_eq!(
            map.to_recorded("Obtaining file:///tmp/ts/repo\n/tmp/ts/repo/a.py:3"),
            "Obtaining file:///testbed\n/testbed/a.py:3"
        );
        let id = PathMap::identity("/testbed");
        assert!(id.is_identity());
        assert_eq!(id.to_actual("/testbed/x"), "/testbed/x");
        assert!(id.substitutions().is_empty());
    }

    #[test]
    fn swe_agent_prompt_state_names_the_root() {
        let mut t = Trajectory::new("x.traj", Format::SweAgent);
        t.messages.push(Message::user(
            "task\n(Open file: n/a)\n(Current directory: /marshmallow-code__marshmallow)\nbash-$",
        ));
        t.messages.push(Message::user(
            "(Open file: /x)\n(Current directory: /marshmallow-code__marshmallow/src)\nbash-$",
        ));
        t.messages.push(Message::user(
            "(Open file: /x)\n(Current directory: /marshmallow-code__marshmallow)\nbash-$",
        ));
        let guess = detect_root(&t).unwrap();
        assert_eq!(guess.path, "/marshmallow-code__marshmallow");
    }

    #[test]
    fn openhands_and_llama_prompts() {
        let mut t = Trajectory::new("x.json", Format::OpenHands);
        t.messages.push(Message::user(
            "<uploaded_files>\n/workspace/django__django__3.0\n</uploaded_files>\nI've uploaded",
        ));
        assert_eq!(
            detect_root(&t).unwrap().path,
            "/workspace/django__django__3.0"
        );
        let mut t = Trajectory::new("x-prompt.txt", Format::LlamaPrompt);
        t.messages.push(Message::user(
            "<working_directory>\n/workspace/tinycalc\n</working_directory>",
        ));
        assert_eq!(detect_root(&t).unwrap().path, "/workspace/tinycalc");
    }

    #[test]
    fn falls_back_to_paths_in_actions() {
        let mut t = Trajectory::new("x.traj.json", Format::MiniSweAgent);
        t.steps.push(Step {
            action: "cd /testbed && grep -rn foo /testbed/src".into(),
            ..Step::default()
        });
        t.steps.push(Step {
            tool_calls: vec![ToolCall::new("Read", r#"{"file_path":"/tmp/x.py"}"#)],
            ..Step::default()
        });
        let guess = detect_root(&t).unwrap();
        assert_eq!(
            (guess.path.as_str(), guess.evidence),
            ("/testbed", "paths in the actions")
        );
        let empty = Trajectory::new("y.json", Format::ChatMessages);
        assert_eq!(detect_root(&empty), None);
        let mut t = Trajectory::new("z.traj.json", Format::MiniSweAgent);
        t.steps.push(Step {
            action: "python3 -c 'import pkg'".into(),
            observation: "Traceback (most recent call last):\n  File \"/testbed/pkg/x.py\", line 8"
                .into(),
            ..Step::default()
        });
        assert_eq!(
            detect_root(&t).map(|g| g.evidence),
            Some("paths in the observations")
        );
    }
}
