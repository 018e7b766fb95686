//! The words the outputs use for the same facts: resolved or not, cost and tokens, how an
//! edit fared, what a step's title says. One place, so the HTML page, the Markdown and
//! `trajscope show` never disagree.

use crate::diff::{EditStatus, FileSnapshot};
use crate::model::{Step, Trajectory, TrajectoryHeader};
use crate::text::thousands;

/// The verdict: `yes`, `no` or `unknown`.
pub fn resolved(t: &TrajectoryHeader) -> &'static str {
    match t.resolved {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

/// The verdict where there is room to say why it is unknown.
pub fn resolved_explained(t: &TrajectoryHeader) -> &'static str {
    match t.resolved {
        None => "unknown (no eval results found)",
        Some(_) => resolved(t),
    }
}

/// How many steps `t` has: `89876`, or `350+` while only the first steps of a big file are
/// read ([`crate::model::StepSource::is_complete`]).
pub fn step_total(t: &Trajectory) -> String {
    let count = t.step_count();
    match &t.lazy {
        Some(lazy) if !lazy.is_complete() => format!("{count}+"),
        _ => count.to_string(),
    }
}

/// The format and its dialect: `swe-agent 0.x`.
pub fn format(t: &TrajectoryHeader) -> String {
    match &t.format_detail {
        Some(detail) => format!("{} {detail}", t.format),
        None => t.format.to_string(),
    }
}

/// `$8.1192 · 793,912 tokens in / 6,002 out`, or `None` when the log records no usage.
pub fn usage(t: &Trajectory) -> Option<String> {
    let usage = t.total_usage();
    if usage.is_empty() {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(cost) = usage.cost {
        parts.push(format!("${cost:.4}"));
    }
    match (usage.tokens_in, usage.tokens_out) {
        (None, None) => {}
        (i, o) => parts.push(format!(
            "{} tokens in / {} out",
            i.map_or("-".into(), thousands),
            o.map_or("-".into(), thousands)
        )),
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// What is known of a file at a step: `deleted`, `40 lines, 12 seen, the rest unknown`,
/// `length unknown, 13 lines seen`.
pub fn file_knowledge(f: &FileSnapshot) -> String {
    let seen = f.lines.iter().filter(|l| l.is_some()).count();
    let total = match f.unseen_after {
        None => Some(f.lines.len()),
        Some(Some(n)) => Some(f.lines.len() + n),
        Some(None) => None,
    };
    match (f.exists, total) {
        (false, _) => "deleted".to_string(),
        (true, _) if seen == 0 => "content unknown".to_string(),
        (true, Some(n)) if seen == n => format!("{n} lines, all seen"),
        (true, Some(n)) => format!("{n} lines, {seen} seen, the rest unknown"),
        (true, None) => format!("length unknown, {seen} lines seen"),
    }
}

/// How loudly an edit's status must read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concern {
    /// Applied as shown.
    None,
    /// Applied, but not quite as shown, or not followed.
    Doubt,
    /// Not applied, or not understood: the diff is absent or wrong.
    Failure,
}

/// How an edit fared, and why when it is not plainly applied: the words the TUI's diff tab,
/// `trajscope show --diff` and the exports all use.
pub fn edit_status(s: &EditStatus) -> (&'static str, Option<&str>) {
    match s {
        EditStatus::Applied => ("applied", None),
        EditStatus::Doubtful(r) => ("applied (in doubt)", Some(r)),
        EditStatus::Rejected(r) => (
            "NOT APPLIED: refused by the tool; the diff is what was asked",
            Some(r),
        ),
        EditStatus::Unplaced(r) => (
            "applied where the log never showed: no line numbers",
            Some(r),
        ),
        EditStatus::Conflict(r) => ("CONFLICT with what the log showed of the file", Some(r)),
        EditStatus::Uninterpreted(r) => ("COULD NOT INTERPRET", Some(r)),
        EditStatus::Opaque(r) => ("changed in a way trajscope cannot follow", Some(r)),
    }
}

/// How loudly `s` must read.
pub fn edit_concern(s: &EditStatus) -> Concern {
    match s {
        EditStatus::Applied => Concern::None,
        EditStatus::Doubtful(_) | EditStatus::Unplaced(_) | EditStatus::Opaque(_) => Concern::Doubt,
        EditStatus::Rejected(_) | EditStatus::Conflict(_) | EditStatus::Uninterpreted(_) => {
            Concern::Failure
        }
    }
}

/// The short facts after a step's number: agent, tool, duration, exit code, error.
pub fn step_tags(step: &Step) -> Vec<String> {
    let mut tags = Vec::new();
    if let Some(agent) = &step.agent {
        tags.push(agent.clone());
    }
    if step.kind != crate::model::StepKind::Agent || step.tool.is_some() {
        tags.push(step.tool_name().to_string());
    }
    if let Some(d) = step.duration_s {
        tags.push(format!("{d:.2}s"));
    }
    tags
}

/// `exit code 1`, when the log records a code.
pub fn exit_code(step: &Step) -> Option<String> {
    step.exit_code.map(|c| format!("exit code {c}"))
}

/// Number of lines of a text, as a reader counts them.
pub fn line_count(text: &str) -> usize {
    text.lines().count()
}

/// `1 line`, `3 lines`.
pub fn lines_phrase(n: usize) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{} lines", thousands(n as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Usage};

    #[test]
    fn usage_reads_cost_and_tokens() {
        let mut t = Trajectory::new("x.traj", Format::SweAgent);
        assert_eq!(usage(&t), None);
        t.usage = Usage {
            cost: Some(8.11921),
            tokens_in: Some(793912),
            tokens_out: Some(6002),
            ..Usage::default()
        };
        assert_eq!(
            usage(&t).as_deref(),
            Some("$8.1192 · 793,912 tokens in / 6,002 out")
        );
    }

    #[test]
    fn step_tags_in_order() {
        let step = Step {
            agent: Some("Reproducer".into()),
            tool: Some("bash".into()),
            duration_s: Some(1.5),
            ..Step::default()
        };
        assert_eq!(step_tags(&step), vec!["Reproducer", "bash", "1.50s"]);
        assert_eq!(lines_phrase(1), "1 line");
        assert_eq!(lines_phrase(1200), "1,200 lines");
    }
}
