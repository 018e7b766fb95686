//! A whole trajectory: one agent's attempt at one task.

use super::header::derefs_to_header;
use super::{Format, JoinTarget, LazySteps, Message, Step, TrajectoryHeader, Usage};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where a fork came from: the trajectory and step it was re-run from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForkOrigin {
    pub parent: PathBuf,
    /// 1-based step of the parent the fork re-ran from.
    pub step: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Sampling settings and limits, as sent.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub settings: serde_json::Value,
}

/// One agent's attempt at one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Its file, task, model and outcome. Written with the file under `source`, as
    /// `show --json` always has.
    #[serde(flatten, with = "source_key")]
    pub header: TrajectoryHeader,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The task as given to the agent (the issue text), when it can be found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub steps: Vec<Step>,
    /// The conversation as logged. Step contexts index into this pool.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// The final patch the agent submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    /// Things the loader noticed but could read around (a step without observation, an
    /// unknown record type): shown, never fatal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<ForkOrigin>,
    /// For a sub-agent's own log (Claude Code's `<session>/subagents/agent-*.jsonl`): the
    /// trajectory that spawned it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<PathBuf>,
    /// What the sub-agents this trajectory spawned spent, summed over their own logs. Never
    /// part of [`Trajectory::total_usage`], so that a run's totals count each log once.
    #[serde(default, skip_serializing_if = "Usage::is_empty")]
    pub subagent_usage: Usage,
    /// Set when the file was too big to hold whole: `steps` and `messages` are then empty
    /// and each step is read back from the file when shown ([`Trajectory::load_step`]).
    #[serde(skip)]
    pub lazy: Option<LazySteps>,
}

impl Trajectory {
    /// An empty trajectory of `format` read from `source`, named after the file.
    pub fn new(source: impl Into<PathBuf>, format: Format) -> Trajectory {
        Trajectory {
            header: TrajectoryHeader::new(source, format),
            agent: None,
            task: None,
            steps: Vec::new(),
            messages: Vec::new(),
            submission: None,
            usage: Usage::default(),
            warnings: Vec::new(),
            fork: None,
            parent: None,
            subagent_usage: Usage::default(),
            lazy: None,
        }
    }

    /// The step numbered `index` (1-based), when it is held (see [`Trajectory::load_step`]).
    pub fn step(&self, index: usize) -> Option<&Step> {
        let at = index.checked_sub(1).and_then(|i| self.steps.get(i));
        // A step read back alone (`load_step`) is numbered but not at its position; steps
        // not numbered yet are found by position, as always.
        at.filter(|s| s.index == index)
            .or_else(|| self.steps.iter().find(|s| s.index == index))
            .or(at.filter(|s| s.index == 0))
    }

    /// How many steps it has, held or not.
    pub fn step_count(&self) -> usize {
        self.lazy.as_ref().map_or(self.steps.len(), |l| l.len())
    }

    /// Step `index` (1-based) of a trajectory opened lazily, read back from its file: this
    /// trajectory's header with that one step and the messages of its context. Trajectories
    /// held whole answer with a copy holding that step alone, the same shape.
    pub fn load_step(&self, index: usize) -> Result<Trajectory, String> {
        let (step, messages) = match &self.lazy {
            Some(lazy) => {
                let loaded = lazy.load(index)?;
                (loaded.step, loaded.messages)
            }
            None => {
                let step = self
                    .step(index)
                    .ok_or_else(|| format!("{}: no step {index}", self.path.display()))?;
                (step.clone(), self.messages.clone())
            }
        };
        let mut one = Trajectory {
            steps: Vec::new(),
            messages: Vec::new(),
            ..self.without_steps()
        };
        one.steps.push(step);
        one.messages = messages;
        Ok(one)
    }

    /// Calls `visit` with each step in order until it returns `false`: the held steps, or
    /// those of a lazy trajectory read back one at a time (never more than one in memory).
    /// Reading a step back can fail (the file changed): the walk stops with that error.
    pub fn visit_steps(&self, mut visit: impl FnMut(&Step) -> bool) -> Result<(), String> {
        let Some(lazy) = &self.lazy else {
            for step in &self.steps {
                if !visit(step) {
                    break;
                }
            }
            return Ok(());
        };
        lazy.visit(&mut |loaded| visit(&loaded.step))
    }

    /// Everything but the steps and the message pool.
    fn without_steps(&self) -> Trajectory {
        Trajectory {
            header: self.header.clone(),
            agent: self.agent.clone(),
            task: self.task.clone(),
            steps: Vec::new(),
            messages: Vec::new(),
            submission: self.submission.clone(),
            usage: self.usage,
            warnings: self.warnings.clone(),
            fork: self.fork.clone(),
            parent: self.parent.clone(),
            subagent_usage: self.subagent_usage,
            lazy: self.lazy.clone(),
        }
    }

    /// Number of lines in the submitted patch (0 when nothing was submitted).
    pub fn patch_lines(&self) -> usize {
        self.submission.as_deref().map_or(0, count_patch_lines)
    }

    /// Steps whose observation reads like an error.
    pub fn error_steps(&self) -> usize {
        self.steps.iter().filter(|s| s.is_error()).count()
    }

    /// Token and cost totals: the trajectory's own when the log gives them, else the sum of
    /// its steps.
    pub fn total_usage(&self) -> Usage {
        let mut from_steps = Usage::default();
        for step in &self.steps {
            from_steps.add(&step.usage);
        }
        self.usage.or(from_steps)
    }

    /// Distinct agents in step order (CodeR's Manager, Reproducer, …); empty for one agent.
    pub fn agents(&self) -> Vec<&str> {
        let mut seen: Vec<&str> = Vec::new();
        for agent in self.steps.iter().filter_map(|s| s.agent.as_deref()) {
            if !seen.contains(&agent) {
                seen.push(agent);
            }
        }
        if seen.len() > 1 { seen } else { Vec::new() }
    }

    /// Renumbers steps 1..=n in order; loaders call this once at the end.
    pub fn number_steps(&mut self) {
        for (i, step) in self.steps.iter_mut().enumerate() {
            step.index = i + 1;
        }
    }

    /// Adds `message` to the pool and returns its index for a step context.
    pub fn push_message(&mut self, message: Message) -> u32 {
        self.messages.push(message);
        u32::try_from(self.messages.len() - 1).unwrap_or(u32::MAX)
    }
}

derefs_to_header!(Trajectory);

impl JoinTarget for Trajectory {
    fn take_patch(&mut self, patch: &str) {
        if self.submission.is_none() {
            self.submission = Some(patch.to_string());
        }
    }
}

/// The header as a trajectory is written: its file under `source`, and no `resolved` key
/// when the verdict is unknown.
mod source_key {
    use super::TrajectoryHeader;
    use serde::de::Error as _;
    use serde::ser::{Error as _, SerializeMap};
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_json::{Map, Value};

    pub fn serialize<S: Serializer>(header: &TrajectoryHeader, out: S) -> Result<S::Ok, S::Error> {
        let Value::Object(fields) = serde_json::to_value(header).map_err(S::Error::custom)? else {
            return Err(S::Error::custom("a trajectory header is not an object"));
        };
        let mut map = out.serialize_map(Some(fields.len()))?;
        for (key, value) in &fields {
            match (key.as_str(), value) {
                ("path", _) => map.serialize_entry("source", value)?,
                ("resolved", Value::Null) => {}
                _ => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<TrajectoryHeader, D::Error> {
        let mut fields = Map::deserialize(input)?;
        if let Some(path) = fields.remove("source") {
            fields.insert("path".into(), path);
        }
        TrajectoryHeader::deserialize(Value::Object(fields)).map_err(D::Error::custom)
    }
}

/// Non-blank lines of a patch.
pub fn count_patch_lines(patch: &str) -> usize {
    patch.lines().filter(|l| !l.trim().is_empty()).count()
}

/// The files a unified diff touches, in order, without `a/`/`b/` prefixes: from `diff --git`
/// headers, else from `---`/`+++` header pairs (the new name; the old one for a deletion).
/// Only header lines count, so a hunk's `+++` content line is not taken for a file.
pub fn patch_files(patch: &str) -> Vec<String> {
    let strip = |path: &str| {
        let path = path.split('\t').next().unwrap_or(path).trim();
        path.strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(path)
            .to_string()
    };
    let mut files: Vec<String> = Vec::new();
    let mut push = |file: String| {
        if !file.is_empty() && file != "/dev/null" && !files.contains(&file) {
            files.push(file);
        }
    };
    let mut git_headers = false;
    let mut previous: Option<&str> = None;
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("diff --git ") {
            git_headers = true;
            if let Some((_, new)) = rest.rsplit_once(" b/") {
                push(new.to_string());
            }
        } else if !git_headers
            && let Some(new) = line.strip_prefix("+++ ")
            && let Some(old) = previous.and_then(|p| p.strip_prefix("--- "))
        {
            let new = strip(new);
            push(if new == "/dev/null" { strip(old) } else { new });
        }
        previous = Some(line);
    }
    files
}

/// The instance id a file name implies: `django__django-11133.traj` → `django__django-11133`.
pub fn instance_id_from_path(path: &std::path::Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for suffix in [
        ".traj.json",
        ".traj",
        ".aider.chat.history.md",
        ".jsonl",
        ".json",
        ".eval",
        ".yaml",
        ".yml",
        ".md",
        ".txt",
    ] {
        if let Some(stem) = name.strip_suffix(suffix) {
            return stem.to_string();
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn instance_ids_from_file_names() {
        assert_eq!(
            instance_id_from_path(Path::new("a/django__django-11133.traj")),
            "django__django-11133"
        );
        assert_eq!(
            instance_id_from_path(Path::new("x/psf__requests-1142.traj.json")),
            "psf__requests-1142"
        );
        assert_eq!(instance_id_from_path(Path::new("session")), "session");
    }

    #[test]
    fn steps_are_one_based() {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        t.steps.push(Step::default());
        t.steps.push(Step::default());
        t.number_steps();
        assert_eq!(t.step(1).map(|s| s.index), Some(1));
        assert_eq!(t.step(2).map(|s| s.index), Some(2));
        assert!(t.step(0).is_none());
        assert!(t.step(3).is_none());
    }

    #[test]
    fn patch_files_come_from_headers_only() {
        let git = "diff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n--- a/src/x.py\n+++ b/src/x.py\n@@ -1,2 +1,2 @@\n--- not a header\n+++ b/not/a/file.py\ndiff --git a/old.py b/new.py\nrename from old.py\n";
        assert_eq!(patch_files(git), vec!["src/x.py", "new.py"]);
        let plain = "--- a/lib.c\t2024-01-01\n+++ b/lib.c\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n--- gone.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n";
        assert_eq!(patch_files(plain), vec!["lib.c", "gone.c"]);
        assert!(patch_files("").is_empty());
    }

    #[test]
    fn a_trajectory_is_written_with_its_file_under_source() {
        let mut t = Trajectory::new("run/x.traj", Format::SweAgent);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["source"], "run/x.traj");
        assert!(json.get("path").is_none(), "{json}");
        assert!(
            json.get("resolved").is_none(),
            "an unknown verdict is left out"
        );
        t.resolved = Some(true);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["resolved"], true);
        let back: Trajectory = serde_json::from_value(json).unwrap();
        assert_eq!(back.path, Path::new("run/x.traj"));
        assert_eq!(back.resolved, Some(true));
        // A row of a listing writes the same header flat, with the file under `path`.
        let row = serde_json::to_value(crate::model::TrajectorySummary::of(&back)).unwrap();
        assert_eq!(row["path"], "run/x.traj");
        assert_eq!(row["verdict_source"], "run/x.traj", "its own verdict");
    }

    #[test]
    fn patch_lines_ignore_blank_lines() {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        assert_eq!(t.patch_lines(), 0);
        t.submission = Some("\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".into());
        assert_eq!(t.patch_lines(), 6);
    }
}
