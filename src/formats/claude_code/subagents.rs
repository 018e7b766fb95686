//! Claude Code sub-agents kept in logs of their own. Current Claude Code writes each
//! sub-agent a `Task` (or `Agent`) call starts as `<session>/subagents/agent-<id>.jsonl`,
//! with its description in `agent-<id>.meta.json`, beside the session file
//! `<session>.jsonl`. This module links the two ways: a sub-agent's log names the session
//! that spawned it, and the session's `Task` step names the sub-agent's log, whose usage is
//! summed apart from the session's own so that a run's totals count each log once.

use crate::model::{Step, Trajectory, Usage};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Tools whose call starts a sub-agent.
pub(super) const SUBAGENT_TOOLS: &[&str] = &["Task", "Agent"];

/// Whether `path` is a sub-agent's own log: `…/subagents/agent-*.jsonl`.
pub(super) fn is_subagent_log(path: &Path) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("agent-") && n.ends_with(".jsonl"));
    named
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == "subagents")
}

/// The session file that spawned the sub-agent whose log is `path`, when it is on disk.
fn parent_of(path: &Path) -> Option<PathBuf> {
    if !is_subagent_log(path) {
        return None;
    }
    let session_dir = path.parent()?.parent()?;
    let name = session_dir.file_name()?.to_str()?;
    let parent = session_dir.with_file_name(format!("{name}.jsonl"));
    parent.is_file().then_some(parent)
}

/// The agent id a sub-agent log's name carries: `agent-a1b2.jsonl` → `a1b2`.
fn agent_id(path: &Path) -> Option<&str> {
    path.file_name()?
        .to_str()?
        .strip_prefix("agent-")?
        .strip_suffix(".jsonl")
}

/// The sub-agent's type and description from `agent-<id>.meta.json`, when it has one.
fn describe(path: &Path) -> Option<String> {
    let meta = path.with_extension("meta.json");
    let text = std::fs::read_to_string(meta).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let field = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    match (field("agentType"), field("description")) {
        (Some(kind), Some(what)) => Some(format!("{kind}: {what}")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_string()),
        (None, None) => None,
    }
}

/// Links `trajectory` with its parent (for a sub-agent's log) or its sub-agents (for a
/// session). `agent_ids` maps a `Task` call's id to the agent id its result names.
pub(super) fn link(trajectory: &mut Trajectory, agent_ids: &HashMap<String, String>) {
    if is_subagent_log(&trajectory.path) {
        trajectory.parent = parent_of(&trajectory.path);
        let kind = describe(&trajectory.path);
        trajectory.format_detail = Some(match (kind, trajectory.format_detail.take()) {
            (Some(kind), Some(detail)) => format!("{detail}, sub-agent ({kind})"),
            (Some(kind), None) => format!("sub-agent ({kind})"),
            (None, Some(detail)) => format!("{detail}, sub-agent"),
            (None, None) => "sub-agent".to_string(),
        });
        return;
    }
    let Some(dir) = subagents_dir(&trajectory.path) else {
        return;
    };
    let mut logs: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_subagent_log(p))
            .collect(),
        Err(_) => return,
    };
    logs.sort();
    let mut total = Usage::default();
    for log in logs {
        let child = match std::fs::read(&log)
            .ok()
            .and_then(|bytes| super::parse(&log, &bytes).ok())
            .and_then(|mut ts| ts.pop())
        {
            Some(child) => child,
            None => {
                trajectory.warnings.push(format!(
                    "{}: a sub-agent log that could not be read; its usage is not in the total",
                    log.display()
                ));
                continue;
            }
        };
        total.add(&child.total_usage());
        let id = agent_id(&log).unwrap_or_default();
        if let Some(step) = trajectory
            .steps
            .iter_mut()
            .find(|s| started(s, id, child.task.as_deref(), agent_ids))
        {
            step.subagent = Some(log.clone());
        }
    }
    trajectory.subagent_usage = total;
}

/// `<dir>/<session>/subagents` for the session file `<dir>/<session>.jsonl`.
pub(super) fn subagents_dir(session: &Path) -> Option<PathBuf> {
    let stem = session.file_stem()?;
    let dir = session.with_file_name(stem).join("subagents");
    dir.is_dir().then_some(dir)
}

/// Whether `step` started the sub-agent `id` whose prompt was `prompt`: its `Task` call's
/// result names the agent id, or (results of older versions name none) the call's prompt
/// is the sub-agent's first message. A step already linked is not linked twice.
fn started(
    step: &Step,
    id: &str,
    prompt: Option<&str>,
    agent_ids: &HashMap<String, String>,
) -> bool {
    if step.subagent.is_some() {
        return false;
    }
    step.tool_calls
        .iter()
        .filter(|c| SUBAGENT_TOOLS.contains(&c.name.as_str()))
        .any(|call| {
            let by_id = call
                .id
                .as_ref()
                .and_then(|c| agent_ids.get(c))
                .is_some_and(|a| !id.is_empty() && a == id);
            let by_prompt = || {
                let asked = call.argument("prompt");
                asked.is_some() && asked.as_deref().map(str::trim) == prompt.map(str::trim)
            };
            by_id || by_prompt()
        })
}

/// The agent id a `Task` result names: `toolUseResult.agentId`, else an `agentId: <id>`
/// line of its text.
pub(super) fn agent_id_of_result(
    tool_use_result: &serde_json::Value,
    text: &str,
) -> Option<String> {
    if let Some(id) = tool_use_result
        .get("agentId")
        .and_then(serde_json::Value::as_str)
    {
        return Some(id.to_string());
    }
    let at = text.find("agentId: ")?;
    let id: String = text[at + "agentId: ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sub_agent_logs_are_known_by_place_and_name() {
        assert!(is_subagent_log(Path::new("p/s1/subagents/agent-a1.jsonl")));
        assert!(!is_subagent_log(Path::new("p/s1/agent-a1.jsonl")));
        assert!(!is_subagent_log(Path::new("p/s1/subagents/a1.jsonl")));
        assert_eq!(
            agent_id(Path::new("p/s1/subagents/agent-a1.jsonl")),
            Some("a1")
        );
    }

    #[test]
    fn results_name_their_agent() {
        assert_eq!(
            agent_id_of_result(&json!({"agentId": "ab12"}), "").as_deref(),
            Some("ab12")
        );
        assert_eq!(
            agent_id_of_result(&json!(null), "Done.\nagentId: c3d4 (for resuming)").as_deref(),
            Some("c3d4")
        );
        assert_eq!(agent_id_of_result(&json!(null), "Done."), None);
    }
}
