//! Following a Claude Code sub-agent link: from the step that started a sub-agent to the
//! sub-agent's own log, and from a sub-agent back to that step of its parent.

use super::opening::open_source;
use crate::tui::effect::Effect;
use crate::tui::state::trajectory::TrajectoryRef;
use crate::tui::state::{Notice, State};
use std::path::Path;

pub fn follow(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(t) = state.trajectory.as_ref() else {
        return;
    };
    let Some(trajectory) = t.trajectory.clone() else {
        return;
    };
    if let Some(child) = t.selected_step().and_then(|s| s.subagent.clone()) {
        open(state, &child, None, fx);
        return;
    }
    match &trajectory.parent {
        Some(parent) => {
            let parent = parent.clone();
            open(state, &parent, Some(&trajectory.path), fx);
        }
        None => {
            state.notice = Some(Notice::info(
                "this step started no sub-agent with a log of its own, and this trajectory is no sub-agent",
            ));
        }
    }
}

/// Opens the log at `path` (its run row, when the run lists it); `from_child` selects the
/// step that started that sub-agent once the parent is read.
fn open(state: &mut State, path: &Path, from_child: Option<&Path>, fx: &mut Vec<Effect>) {
    let row = state.run.rows.iter().position(|r| r.path == path);
    let title = row
        .and_then(|r| state.run.rows.get(r))
        .map(|r| r.instance_id.clone())
        .unwrap_or_else(|| crate::model::instance_id_from_path(path));
    let source = TrajectoryRef {
        path: path.to_path_buf(),
        index: None,
    };
    open_source(state, source, row, title, None, fx);
    if let Some(t) = state.trajectory.as_mut() {
        t.pending_subagent = from_child.map(Path::to_path_buf);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{deliver, press, run};
    use crate::model::{Format, Step, ToolCall, Trajectory};
    use crate::tui::effect::Effect;
    use std::path::PathBuf;

    fn loads(effects: &[Effect]) -> Option<PathBuf> {
        effects.iter().find_map(|e| match e {
            Effect::LoadTrajectory { source, .. } => Some(source.path.clone()),
            _ => None,
        })
    }

    #[test]
    fn the_key_goes_to_the_sub_agent_and_back_to_the_step_that_started_it() {
        let child = PathBuf::from("p/s1/subagents/agent-a1.jsonl");
        let mut parent = Trajectory::new("p/s1.jsonl", Format::ClaudeCode);
        for (i, tool) in ["Bash", "Task", "Edit"].into_iter().enumerate() {
            parent.steps.push(Step {
                index: i + 1,
                action: format!("{tool} x"),
                tool: Some(tool.into()),
                tool_calls: vec![ToolCall::new(tool, "{}")],
                subagent: (tool == "Task").then(|| child.clone()),
                ..Step::default()
            });
        }
        let mut sub = Trajectory::new(&child, Format::ClaudeCode);
        sub.parent = Some(PathBuf::from("p/s1.jsonl"));
        sub.steps.push(Step {
            index: 1,
            action: "Grep add".into(),
            ..Step::default()
        });

        let mut state = run();
        let effects = press(&mut state, "<CR>");
        deliver(&mut state, &effects, parent.clone());
        // On a step that started nothing and in no sub-agent, the key says so.
        assert!(loads(&press(&mut state, "a")).is_none());
        assert!(state.notice.is_some());
        press(&mut state, "j");
        let effects = press(&mut state, "a");
        assert_eq!(loads(&effects), Some(child.clone()));
        deliver(&mut state, &effects, sub);
        let effects = press(&mut state, "a");
        assert_eq!(loads(&effects), Some(PathBuf::from("p/s1.jsonl")));
        deliver(&mut state, &effects, parent);
        let selected = state.trajectory.as_ref().and_then(|t| t.step_index());
        assert_eq!(selected, Some(2), "back on the Task step");
    }
}
