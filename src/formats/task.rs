//! Finding the task (the issue text) inside the first user message of an agent's prompt.

/// Markers that SWE-agent, mini-swe-agent and friends put around the issue text.
const WRAPPERS: &[(&str, &[&str])] = &[
    ("<pr_description>", &["</pr_description>"]),
    ("<issue_description>", &["</issue_description>"]),
    ("<issue>", &["</issue>"]),
    ("<problem_statement>", &["</problem_statement>"]),
    (
        "ISSUE:\n",
        &["\n\nINSTRUCTIONS:", "\nINSTRUCTIONS:", "\n\nINSTRUCTIONS"],
    ),
];

/// The issue text inside `prompt`, or the whole prompt when no wrapper is found.
pub fn task_from_prompt(prompt: &str) -> String {
    for (open, closes) in WRAPPERS {
        if let Some(start) = prompt.find(open) {
            let body = &prompt[start + open.len()..];
            let end = closes
                .iter()
                .filter_map(|c| body.find(c))
                .min()
                .unwrap_or(body.len());
            let text = body[..end]
                .trim()
                .trim_start_matches("Consider the following PR description:")
                .trim();
            if !text.is_empty() {
                return text.to_string();
            }
        }
    }
    prompt.trim().to_string()
}

/// A task cut from a prompt whose closing marker the reader could not see (it was in the
/// part of a long prompt left in the file, [`super::stream`]), now read back whole: cut at
/// the marker as [`task_from_prompt`] would have. `None` when it holds no closing marker.
pub fn cut_at_close(task: &str) -> Option<String> {
    let end = WRAPPERS
        .iter()
        .flat_map(|(_, closes)| closes.iter())
        .filter_map(|c| task.find(c))
        .min()?;
    Some(task[..end].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue_text_from_known_wrappers() {
        let swe = "We're solving this:\nISSUE:\nBug in x\nmore\n\nINSTRUCTIONS:\nDo it";
        assert_eq!(task_from_prompt(swe), "Bug in x\nmore");
        let mini = "<pr_description>\nConsider the following PR description:\nFix y\n</pr_description>\n<instructions>";
        assert_eq!(task_from_prompt(mini), "Fix y");
        assert_eq!(task_from_prompt("  just a task "), "just a task");
    }
}
