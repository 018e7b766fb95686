//! Commands run more than once (a reproduction script, a test): each later run's output
//! against the run before it, to show at a glance whether a fix changed the outcome.

use super::interpret::interpret;
use super::patch::FileDiff;
use super::unified::diff_texts;
use super::view::command_output;
use crate::model::Trajectory;
use serde::Serialize;
use std::collections::HashMap;

/// A later run of a command, against its previous run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatedRun {
    /// 1-based step of this run.
    pub step: usize,
    /// 1-based step of the previous run of the same command.
    pub previous_step: usize,
    pub command: String,
    /// Steps between them that edited files.
    pub edits_between: usize,
    /// Previous output → this output.
    pub diff: FileDiff,
    pub same_output: bool,
}

/// SWE-agent commands that show files or move around them: re-running them is reading, not
/// testing.
const NAVIGATION: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "search_file",
    "search_dir",
    "find_file",
    "submit",
    "ls",
    "cd",
    "pwd",
];

/// The command as compared: whitespace collapsed, a leading `cd DIR &&` dropped.
pub fn normalise_command(command: &str) -> String {
    let collapsed = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = collapsed.as_str();
    while let Some(after_cd) = rest.strip_prefix("cd ") {
        match after_cd.split_once(" && ") {
            Some((_, tail)) => rest = tail,
            None => break,
        }
    }
    rest.to_string()
}

/// Every repeated run in the trajectory, in step order.
pub fn repeated_commands(trajectory: &Trajectory) -> Vec<RepeatedRun> {
    let mut last_run: HashMap<String, (usize, &str)> = HashMap::new();
    let mut edits_so_far = 0;
    let mut edits_at: Vec<usize> = Vec::with_capacity(trajectory.steps.len());
    let mut out = Vec::new();
    for step in &trajectory.steps {
        let edits = !interpret(step).attempts.is_empty();
        edits_so_far += usize::from(edits);
        edits_at.push(edits_so_far);
        let command = normalise_command(&step.action);
        let first_word = command.split_whitespace().next().unwrap_or("");
        if command.is_empty() || edits || NAVIGATION.contains(&first_word) {
            continue;
        }
        let output = command_output(&step.observation);
        let silent = |text: &str| text.trim().is_empty();
        if let Some((previous_step, previous)) = last_run
            .get(&command)
            .filter(|(_, p)| !(silent(p) && silent(output)))
        {
            let edits_between = edits_so_far - edits_at[*previous_step - 1];
            out.push(RepeatedRun {
                step: step.index,
                previous_step: *previous_step,
                command: command.clone(),
                edits_between,
                diff: diff_texts(&command, previous, output),
                same_output: *previous == output,
            });
        }
        last_run.insert(command, (step.index, output));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Step};

    #[test]
    fn reproduction_script_before_and_after_a_fix() {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        let step = |action: &str, observation: &str| Step {
            action: action.into(),
            observation: observation.into(),
            ..Step::default()
        };
        t.steps.push(step(
            "python reproduce.py",
            "Traceback\nAssertionError: Memoryview content does not match",
        ));
        t.steps.push(step(
            "edit 1:1\nx\nend_of_edit",
            "[File: /r/a.py (1 lines total)]\n1:x",
        ));
        t.steps
            .push(step("cd /testbed &&  python   reproduce.py", "ok"));
        t.steps
            .push(step("open a.py", "[File: /r/a.py (1 lines total)]\n1:x"));
        t.steps
            .push(step("open a.py", "[File: /r/a.py (1 lines total)]\n1:x"));
        t.number_steps();
        let runs = repeated_commands(&t);
        assert_eq!(runs.len(), 1);
        let r = &runs[0];
        assert_eq!((r.step, r.previous_step, r.edits_between), (3, 1, 1));
        assert!(!r.same_output);
        assert_eq!(r.diff.removed(), 2);
        assert_eq!(r.diff.added(), 1);
    }
}
