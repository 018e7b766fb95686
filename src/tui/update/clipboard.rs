//! `y`, `Y` and `o`: the text of what is shown, to the clipboard or to `$EDITOR`.

use crate::model::{Step, Trajectory};
use crate::text::sanitise;
use crate::tui::action::Action;
use crate::tui::document::Page;
use crate::tui::effect::Effect;
use crate::tui::state::{Notice, State};
use std::fmt::Write as _;

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let Some(t) = state.trajectory.as_ref() else {
        return;
    };
    let Some(trajectory) = t.trajectory.as_ref() else {
        state.notice = Some(Notice::info("still loading"));
        return;
    };
    // A lazily opened trajectory holds no step: read the one asked for back from its file
    // (one step's bytes, at a key press).
    let loaded = match (&trajectory.lazy, t.step_index()) {
        (Some(_), Some(index)) => match trajectory.load_step(index) {
            Ok(one) => Some(one),
            Err(message) => {
                state.notice = Some(Notice::error(message));
                return;
            }
        },
        _ => None,
    };
    let trajectory = loaded.as_ref().unwrap_or(trajectory);
    let step = match &loaded {
        Some(one) => one.steps.first(),
        None => t.selected_step(),
    };
    let n = step.map_or(0, |s| s.index);
    let (text, what) = match (action, t.page, step) {
        (Action::CopyObservation, _, Some(step)) => (
            sanitise(&step.observation).into_owned(),
            format!("observation of step {n}"),
        ),
        (Action::CopyAction, Page::Step, Some(step)) => (
            sanitise(&step.action).into_owned(),
            format!("action of step {n}"),
        ),
        (Action::OpenInEditor, Page::Step, Some(step)) => {
            (step_text(trajectory, step), format!("step {n}"))
        }
        (_, Page::Context, Some(step)) => (
            context_text(trajectory, step),
            format!("context at step {n}"),
        ),
        (_, Page::Patch, _) => match trajectory.submission.as_deref() {
            Some(patch) => (patch.to_string(), "final patch".to_string()),
            None => {
                state.notice = Some(Notice::info("no patch was submitted"));
                return;
            }
        },
        (_, Page::Task, _) => (
            sanitise(trajectory.task.as_deref().unwrap_or("")).into_owned(),
            "task".to_string(),
        ),
        _ => return,
    };
    let name = format!(
        "{}-{}.txt",
        trajectory.instance_id.replace(['/', '\\'], "_"),
        what.replace(' ', "-")
    );
    if action == Action::OpenInEditor {
        fx.push(Effect::Edit { text, name });
    } else {
        fx.push(Effect::Copy { text, what });
    }
}

/// A step as plain text, as `trajscope show --step N` prints it.
pub fn step_text(trajectory: &Trajectory, step: &Step) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} · step {}/{} · {}",
        trajectory.instance_id,
        step.index,
        trajectory.steps.len(),
        step.tool_name()
    );
    for (title, text) in [
        ("THOUGHT", &step.thought),
        ("ACTION", &step.action),
        ("OBSERVATION", &step.observation),
    ] {
        if !text.trim().is_empty() {
            let _ = write!(out, "\n{title}\n{}\n", sanitise(text).trim_end());
        }
    }
    out
}

/// The model input at a step as plain text, one message after another.
pub fn context_text(trajectory: &Trajectory, step: &Step) -> String {
    let mut out = String::new();
    let exactness = step
        .context
        .as_ref()
        .map_or("not recorded", |c| c.exactness.as_str());
    let _ = writeln!(out, "Context at step {} ({exactness})", step.index);
    for (i, message) in step
        .context_messages(&trajectory.messages)
        .iter()
        .enumerate()
    {
        let _ = write!(
            out,
            "\n── [{}] {}\n{}\n",
            i + 1,
            message.role.as_str(),
            sanitise(&message.content)
        );
        for call in &message.tool_calls {
            let _ = writeln!(out, "→ {}({})", call.name, call.arguments);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{opened, press};
    use crate::tui::effect::Effect;

    fn copied(effects: &[Effect]) -> (String, String) {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::Copy { text, what } => Some((text.clone(), what.clone())),
                _ => None,
            })
            .unwrap_or_else(|| panic!("nothing copied: {effects:?}"))
    }

    #[test]
    fn y_copies_the_action_and_shift_y_the_observation() {
        let (mut state, _) = opened(3, 2);
        let (text, what) = copied(&press(&mut state, "jy"));
        assert_eq!(
            (text.as_str(), what.as_str()),
            ("edit arg2", "action of step 2")
        );
        let (text, _) = copied(&press(&mut state, "Y"));
        assert_eq!(text, "output 2.1\noutput 2.2");
    }

    #[test]
    fn y_on_the_patch_page_copies_the_patch_and_o_opens_the_step() {
        let (mut state, _) = opened(3, 2);
        let (text, what) = copied(&press(&mut state, "py"));
        assert!(text.starts_with("diff --git"));
        assert_eq!(what, "final patch");
        let effects = press(&mut state, "1o");
        let edited = effects.iter().find_map(|e| match e {
            Effect::Edit { text, name } => Some((text, name)),
            _ => None,
        });
        let (text, name) = edited.unwrap_or_else(|| panic!("{effects:?}"));
        assert!(text.contains("ACTION\nbash arg1"), "{text}");
        assert_eq!(name, "a-step-1.txt");
    }
}
