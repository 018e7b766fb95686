//! What makes a step the same step from one read of a file to the next.
//!
//! A step's context points into its trajectory's message pool by index, and those indices
//! move as the file grows: SWE-agent puts its whole `history` first in the pool and the
//! per-step `query` messages after it, so every new history message shifts every later id.
//! Comparing steps with `==` then saw every earlier step change at every rewrite, and the
//! watch announced them all again (a 30-step run gave 464 new-step events). Here a step is
//! identified by its own fields and by the *contents* of the messages its context names,
//! never by where they sit in the pool. Only 64-bit fingerprints are kept, so a follower can
//! tell what changed without holding the trajectories it reported.

use crate::model::{Message, StepContext, Trajectory};
use serde::Serialize;
use std::hash::{DefaultHasher, Hasher};

/// The fingerprints of one trajectory as read: enough to tell which steps are new.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrajectoryPrint {
    pub instance_id: String,
    /// Everything but the steps and the message pool (exit status, usage, warnings, …).
    pub header: u64,
    /// One per step, in order.
    pub steps: Vec<u64>,
}

impl TrajectoryPrint {
    /// Fingerprints `trajectory`. Takes it mutably only to set its steps, pool and contexts
    /// aside while the rest is hashed (no copy of a step's text is made); it is left as it was.
    pub fn of(trajectory: &mut Trajectory) -> TrajectoryPrint {
        let pool: Vec<u64> = trajectory.messages.iter().map(message_print).collect();
        let steps = trajectory
            .steps
            .iter_mut()
            .map(|step| {
                let context = step.context.take();
                let mut hasher = DefaultHasher::new();
                feed(&mut hasher, &*step);
                if let Some(context) = &context {
                    context_print(&mut hasher, context, &trajectory.messages, &pool);
                }
                step.context = context;
                hasher.finish()
            })
            .collect();
        let held_steps = std::mem::take(&mut trajectory.steps);
        let held_messages = std::mem::take(&mut trajectory.messages);
        let mut hasher = DefaultHasher::new();
        feed(&mut hasher, &*trajectory);
        trajectory.steps = held_steps;
        trajectory.messages = held_messages;
        TrajectoryPrint {
            instance_id: trajectory.instance_id.clone(),
            header: hasher.finish(),
            steps,
        }
    }

    /// How many leading steps `self` and `other` have in common.
    pub fn common_steps(&self, other: &TrajectoryPrint) -> usize {
        self.steps
            .iter()
            .zip(&other.steps)
            .take_while(|(a, b)| a == b)
            .count()
    }
}

fn message_print(message: &Message) -> u64 {
    let mut hasher = DefaultHasher::new();
    feed(&mut hasher, message);
    hasher.finish()
}

/// The context by the messages it names, in order, not by their places in the pool.
fn context_print(
    hasher: &mut impl Hasher,
    context: &StepContext,
    pool: &[Message],
    prints: &[u64],
) {
    hasher.write_u8(context.exactness as u8);
    for id in context.ids(pool) {
        hasher.write_u64(prints.get(id as usize).copied().unwrap_or(u64::MAX));
    }
}

/// Hashes the JSON form of `value`, streamed: nothing is built in memory.
fn feed(hasher: &mut impl Hasher, value: &impl Serialize) {
    struct Sink<'a, H>(&'a mut H);
    impl<H: Hasher> std::io::Write for Sink<'_, H> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.write(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Serialising plain model values into a sink that cannot fail does not fail; were it to,
    // the fingerprint would only be less precise, never wrong about an unchanged value.
    let _ = serde_json::to_writer(Sink(hasher), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Exactness, Format, Step};

    fn step(i: usize, context: Vec<u32>) -> Step {
        Step {
            index: i,
            action: format!("echo {i}"),
            context: Some(StepContext::list(Exactness::Exact, context)),
            ..Step::default()
        }
    }

    fn message(text: &str) -> Message {
        serde_json::from_value(serde_json::json!({"role": "user", "content": text})).unwrap()
    }

    /// The SWE-agent shape: history first in the pool, then each step's own query messages.
    #[test]
    fn a_step_keeps_its_print_when_the_pool_ahead_of_its_context_grows() {
        let mut before = Trajectory::new("a.traj", Format::SweAgent);
        before.messages = vec![message("h1"), message("q1")];
        before.steps = vec![step(1, vec![1])];
        let mut after = Trajectory::new("a.traj", Format::SweAgent);
        after.messages = vec![message("h1"), message("h2"), message("q1"), message("q2")];
        after.steps = vec![step(1, vec![2]), step(2, vec![2, 3])];
        assert_ne!(before.steps[0], after.steps[0], "the ids did move");
        let (a, b) = (
            TrajectoryPrint::of(&mut before),
            TrajectoryPrint::of(&mut after),
        );
        assert_eq!(a.common_steps(&b), 1);
        assert_eq!(b.steps.len(), 2);

        // A context naming other messages is another step.
        after.steps[0].context = Some(StepContext::list(Exactness::Exact, vec![3]));
        let c = TrajectoryPrint::of(&mut after);
        assert_eq!(a.common_steps(&c), 0);
        assert_eq!(
            after.steps[0].context.as_ref().map(|c| c.exactness),
            Some(Exactness::Exact)
        );
    }

    #[test]
    fn the_header_changes_with_the_exit_status() {
        let mut t = Trajectory::new("a.traj", Format::SweAgent);
        t.steps = vec![step(1, vec![])];
        let a = TrajectoryPrint::of(&mut t);
        t.exit_status = Some("submitted".into());
        let b = TrajectoryPrint::of(&mut t);
        assert_ne!(a.header, b.header);
        assert_eq!(a.steps, b.steps);
        assert_eq!(t.steps.len(), 1, "steps put back");
    }
}
