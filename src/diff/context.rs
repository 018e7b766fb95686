//! What changed in the model's input between two steps: messages added, removed, and
//! rewritten (history processors that elide old outputs, condensation, compaction).

use super::patch::FileDiff;
use super::unified::diff_texts;
use crate::model::{Exactness, Message, Role, Trajectory};
use serde::Serialize;
use similar::{Algorithm, DiffOp, capture_diff_slices};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextChange {
    Added,
    Removed,
    /// The same slot holds a different text: history processing or compaction.
    Rewritten,
}

/// One message that differs between the two inputs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageChange {
    pub change: ContextChange,
    pub role: Role,
    /// 1-based position in the previous step's input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    /// 1-based position in this step's input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    /// The first line of the message (the new one, or the removed one).
    pub summary: String,
    /// For rewritten messages: old text → new text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<FileDiff>,
    /// Size change in characters (new − old).
    pub chars_delta: i64,
}

/// The input of step k against that of step k-1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContextDiff {
    pub step: usize,
    pub exactness: Option<Exactness>,
    pub previous_len: usize,
    pub len: usize,
    /// Messages present in both, unchanged.
    pub kept: usize,
    pub changes: Vec<MessageChange>,
}

impl ContextDiff {
    pub fn count(&self, change: ContextChange) -> usize {
        self.changes.iter().filter(|c| c.change == change).count()
    }
}

fn fingerprint(m: &Message) -> u64 {
    let mut h = DefaultHasher::new();
    m.role.hash(&mut h);
    m.content.hash(&mut h);
    for call in &m.tool_calls {
        call.name.hash(&mut h);
        call.arguments.hash(&mut h);
    }
    h.finish()
}

fn summary(m: &Message) -> String {
    let line = m.content.trim_start().lines().next().unwrap_or("");
    if line.is_empty()
        && let Some(call) = m.tool_calls.first()
    {
        return format!(
            "→ {}({})",
            call.name,
            call.arguments.chars().take(80).collect::<String>()
        );
    }
    line.chars().take(160).collect()
}

/// The change of the model input from step `step - 1` to `step` (1-based; step 1 is
/// compared with an empty input). `None` when the step does not exist or the log does not
/// record its input.
pub fn context_diff(trajectory: &Trajectory, step: usize) -> Option<ContextDiff> {
    let now_step = trajectory.step(step)?;
    let now_ctx = now_step.context.as_ref()?;
    let previous: Vec<&Message> = match step.checked_sub(1).and_then(|k| trajectory.step(k)) {
        Some(prev) => prev.context_messages(&trajectory.messages),
        None => Vec::new(),
    };
    let now = now_step.context_messages(&trajectory.messages);
    let prev_ids: Vec<u64> = previous.iter().map(|m| fingerprint(m)).collect();
    let now_ids: Vec<u64> = now.iter().map(|m| fingerprint(m)).collect();
    let mut diff = ContextDiff {
        step,
        exactness: Some(now_ctx.exactness),
        previous_len: previous.len(),
        len: now.len(),
        kept: 0,
        changes: Vec::new(),
    };
    for op in capture_diff_slices(Algorithm::Myers, &prev_ids, &now_ids) {
        match op {
            DiffOp::Equal { len, .. } => diff.kept += len,
            _ => {
                let (olds, news) = (op.old_range(), op.new_range());
                let pairs = olds.len().min(news.len());
                for k in 0..pairs {
                    let (i, j) = (olds.start + k, news.start + k);
                    let (a, b) = (previous[i], now[j]);
                    if a.role == b.role {
                        diff.changes.push(MessageChange {
                            change: ContextChange::Rewritten,
                            role: b.role,
                            before: Some(i + 1),
                            after: Some(j + 1),
                            summary: summary(b),
                            diff: Some(diff_texts("message", &a.content, &b.content)),
                            chars_delta: b.content.chars().count() as i64
                                - a.content.chars().count() as i64,
                        });
                    } else {
                        diff.changes.push(removed(a, i));
                        diff.changes.push(added(b, j));
                    }
                }
                diff.changes
                    .extend(olds.clone().skip(pairs).map(|i| removed(previous[i], i)));
                diff.changes
                    .extend(news.clone().skip(pairs).map(|j| added(now[j], j)));
            }
        }
    }
    Some(diff)
}

fn removed(m: &Message, i: usize) -> MessageChange {
    MessageChange {
        change: ContextChange::Removed,
        role: m.role,
        before: Some(i + 1),
        after: None,
        summary: summary(m),
        diff: None,
        chars_delta: -(m.content.chars().count() as i64),
    }
}

fn added(m: &Message, j: usize) -> MessageChange {
    MessageChange {
        change: ContextChange::Added,
        role: m.role,
        before: None,
        after: Some(j + 1),
        summary: summary(m),
        diff: None,
        chars_delta: m.content.chars().count() as i64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Step, StepContext};

    #[test]
    fn elided_old_output_is_a_rewrite() {
        let mut t = Trajectory::new("t.traj", Format::SweAgent);
        let sys = t.push_message(Message::system("SYS"));
        let task = t.push_message(Message::user("fix it"));
        let a1 = t.push_message(Message::assistant("ls"));
        let o1 = t.push_message(Message::user("a.py\nb.py\nc.py"));
        let a2 = t.push_message(Message::assistant("cat a.py"));
        let o2 = t.push_message(Message::user("x = 1"));
        let o1_elided = t.push_message(Message::user("Old environment output: (3 lines omitted)"));
        let ctx = |ids: Vec<u32>| Some(StepContext::list(Exactness::Exact, ids));
        t.steps.push(Step {
            context: ctx(vec![sys, task]),
            ..Step::default()
        });
        t.steps.push(Step {
            context: ctx(vec![sys, task, a1, o1]),
            ..Step::default()
        });
        t.steps.push(Step {
            context: ctx(vec![sys, task, a1, o1_elided, a2, o2]),
            ..Step::default()
        });
        t.number_steps();

        let d = context_diff(&t, 2).unwrap();
        assert_eq!((d.kept, d.count(ContextChange::Added)), (2, 2));
        let d = context_diff(&t, 3).unwrap();
        assert_eq!(d.kept, 3);
        assert_eq!(d.count(ContextChange::Rewritten), 1);
        assert_eq!(d.count(ContextChange::Added), 2);
        let r = d
            .changes
            .iter()
            .find(|c| c.change == ContextChange::Rewritten)
            .unwrap();
        assert_eq!((r.before, r.after), (Some(4), Some(4)));
        assert!(r.summary.starts_with("Old environment output"));
        assert!(r.chars_delta != 0);
        let d = context_diff(&t, 1).unwrap();
        assert_eq!(d.count(ContextChange::Added), 2);
        assert!(context_diff(&t, 4).is_none());
    }
}
