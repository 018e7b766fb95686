//! File names as the repository knows them: `/django__django/django/http/response.py`,
//! `/testbed/django/http/response.py` and `django/http/response.py` are one file.

use crate::model::Trajectory;
use regex::Regex;
use std::sync::LazyLock;

static CURRENT_DIR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\(Current directory: (/[^)\s]*)\)").ok());
/// A SWE-bench checkout directory: `django__django`, `ponylang__ponyc__0.1`.
static INSTANCE_DIR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?:/[^/]+)*?/[\w.-]+__[\w.-]+/").ok());

/// The repository roots of one trajectory.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    roots: Vec<String>,
}

impl Paths {
    /// Roots from the trajectory's prompts (`(Current directory: /repo)`) and the usual
    /// checkout places.
    pub fn of(trajectory: &Trajectory) -> Paths {
        let mut roots: Vec<String> = Vec::new();
        if let Some(re) = CURRENT_DIR.as_ref() {
            let texts = trajectory
                .task
                .iter()
                .chain(trajectory.messages.iter().take(8).map(|m| &m.content));
            for text in texts {
                if let Some(caps) = re.captures(text) {
                    let root = caps[1].trim_end_matches('/').to_string();
                    if !root.is_empty() && !roots.contains(&root) {
                        roots.push(root);
                    }
                }
            }
        }
        for usual in ["/testbed", "/repo", "/app"] {
            roots.push(usual.to_string());
        }
        Paths { roots }
    }

    /// The path relative to the repository when it is inside it; cleaned otherwise.
    pub fn canonical(&self, raw: &str) -> String {
        let cleaned = clean(raw.trim().trim_matches(|c| c == '"' || c == '\''));
        if !cleaned.starts_with('/') {
            return cleaned;
        }
        for root in &self.roots {
            if let Some(rest) = cleaned
                .strip_prefix(root.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                return rest.to_string();
            }
        }
        if let Some(m) = INSTANCE_DIR.as_ref().and_then(|re| re.find(&cleaned)) {
            return cleaned[m.end()..].to_string();
        }
        cleaned
    }
}

/// Removes `.` segments, doubled slashes and resolvable `..` segments.
fn clean(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Whether two canonical paths name the same file: equal, or one is the other with a
/// leading directory the other does not name (`/workspace/x/a.py` and `a.py`).
pub fn same_file(a: &str, b: &str) -> bool {
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Message};

    #[test]
    fn roots_from_prompts_and_usual_places() {
        let mut t = Trajectory::new("x.traj", Format::SweAgent);
        t.messages.push(Message::user(
            "(Open file: n/a)\n(Current directory: /django__django)\nbash-$",
        ));
        let p = Paths::of(&t);
        assert_eq!(
            p.canonical("/django__django/django/http/response.py"),
            "django/http/response.py"
        );
        assert_eq!(p.canonical("/testbed/./a//b/../c.py"), "a/c.py");
        assert_eq!(p.canonical("./reproduce.py"), "reproduce.py");
        assert_eq!(
            p.canonical("/workspace/ponylang__ponyc__0.1/src/parser.c"),
            "src/parser.c"
        );
        assert_eq!(p.canonical("/tmp/fix.py"), "/tmp/fix.py");
    }

    #[test]
    fn same_file_by_suffix() {
        assert!(same_file("/workspace/game.py", "game.py"));
        assert!(!same_file("src/a.py", "a/a.py"));
    }
}
