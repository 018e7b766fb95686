//! Releasing a builder's steps as they complete, for the bounded read of a big log
//! (`formats::stream`): a listing or a tally visits each finished step once and drops it, so
//! what the builder holds is the few steps still open, never the whole session.
//!
//! A step is finished when no later record can change it: it is not an agent's latest step
//! (model output may still join that one, a person's reply may still answer it), every
//! call that expects a result has one, and [`SETTLE`] steps have started since. A step
//! that stays unfinished (a call never answered, the last step of a sub-agent that ended)
//! is released anyway once [`GIVE_UP`] steps have started since, so that one such step does
//! not hold every step after it: a result logged that much later than its call is lost
//! to this read (the whole read keeps it). Steps keep their file order.
//!
//! The message pool is not kept while releasing unless asked: it is what contexts index
//! into, and a listing or a tally reads no context. Kept, its messages are handed over as
//! they settle ([`StepBuilder::take_settled`]), so that the lazy open packs them as it reads.

use super::{Draft, StepBuilder, compose};
use crate::model::{Message, Step};

/// Steps started after a finished step before it is released.
const SETTLE: usize = 8;
/// Steps started after a step before it is released, finished or not.
const GIVE_UP: usize = 512;

/// What a releasing builder keeps of what it has released.
pub(super) struct Released {
    /// Steps released so far: the absolute index of `trajectory.steps[0]`.
    base: usize,
    /// Released steps not yet taken by the reader.
    ready: Vec<Step>,
    /// Whether the message pool is kept (contexts wanted); else only counted.
    keep_pool: bool,
    /// Messages in the pool, kept or not.
    pool_len: usize,
    /// Kept pool messages already handed over ([`StepBuilder::take_settled`]):
    /// `trajectory.messages` holds the pool from this index on.
    pool_base: usize,
    /// Calls of released steps that never got a result.
    pub(super) unanswered: usize,
}

impl StepBuilder {
    /// Releases steps as they finish (see the module doc): [`StepBuilder::take_released`]
    /// hands them over, numbered; [`StepBuilder::finish`] leaves in the trajectory the
    /// steps not yet released (their reader numbers them after those). The pool is kept
    /// only if `keep_pool`.
    pub fn release_steps(&mut self, keep_pool: bool) {
        self.released = Some(Released {
            base: 0,
            ready: Vec::new(),
            keep_pool,
            pool_len: self.trajectory.messages.len(),
            pool_base: 0,
            unanswered: 0,
        });
    }

    /// The kept pool's messages that nothing later changes (those before the assistant
    /// message of every step not let go, which grows with its step), taken from the front
    /// of the pool: the lazy open packs them as they settle. Indices stay those of the whole
    /// pool.
    pub fn take_settled(&mut self) -> Vec<Message> {
        let Some(released) = &self.released else {
            return Vec::new();
        };
        if !released.keep_pool {
            return Vec::new();
        }
        let base = released.pool_base;
        let held = self
            .drafts
            .iter()
            .filter(|d| d.message != u32::MAX)
            .map(|d| d.message as usize)
            .min()
            .unwrap_or(usize::MAX);
        let end = held.min(base + self.trajectory.messages.len());
        if end <= base {
            return Vec::new();
        }
        let settled: Vec<Message> = self.trajectory.messages.drain(..end - base).collect();
        if let Some(released) = &mut self.released {
            released.pool_base = end;
        }
        settled
    }

    /// Where pool message `index` sits in `trajectory.messages`, if still held.
    pub(super) fn pool_slot(&self, index: usize) -> Option<usize> {
        index.checked_sub(self.released.as_ref().map_or(0, |r| r.pool_base))
    }

    /// The steps released since the last call, in order, with their 1-based index.
    pub fn take_released(&mut self) -> Vec<Step> {
        self.released
            .as_mut()
            .map(|r| std::mem::take(&mut r.ready))
            .unwrap_or_default()
    }

    /// Steps started so far, released ones included.
    pub fn step_total(&self) -> usize {
        self.base() + self.trajectory.steps.len()
    }

    fn base(&self) -> usize {
        self.released.as_ref().map_or(0, |r| r.base)
    }

    /// Where step `index` (absolute) sits in `trajectory.steps`, if not released.
    pub(super) fn slot(&self, index: usize) -> Option<usize> {
        index
            .checked_sub(self.base())
            .filter(|&i| i < self.trajectory.steps.len())
    }

    /// Step `index` (absolute), unless released.
    pub fn step_mut(&mut self, index: usize) -> Option<&mut Step> {
        let slot = self.slot(index)?;
        self.trajectory.steps.get_mut(slot)
    }

    pub(super) fn draft(&self, index: usize) -> Option<&Draft> {
        self.drafts.get(self.slot(index)?)
    }

    pub(super) fn draft_mut(&mut self, index: usize) -> Option<&mut Draft> {
        let slot = self.slot(index)?;
        self.drafts.get_mut(slot)
    }

    /// Adds `message` to the pool (or only counts it) and returns its index.
    pub(super) fn pool_push(&mut self, message: Message) -> u32 {
        match &mut self.released {
            Some(released) if !released.keep_pool => {
                released.pool_len += 1;
                u32::try_from(released.pool_len - 1).unwrap_or(u32::MAX)
            }
            Some(released) => {
                self.trajectory.messages.push(message);
                let index = released.pool_base + self.trajectory.messages.len() - 1;
                u32::try_from(index).unwrap_or(u32::MAX)
            }
            None => self.trajectory.push_message(message),
        }
    }

    pub(super) fn pool_len(&self) -> usize {
        match &self.released {
            Some(released) if !released.keep_pool => released.pool_len,
            Some(released) => released.pool_base + self.trajectory.messages.len(),
            None => self.trajectory.messages.len(),
        }
    }

    /// Releases the finished steps at the front (see the module doc).
    pub(super) fn release_done(&mut self) {
        if self.released.is_none() {
            return;
        }
        let total = self.step_total();
        let mut done = 0;
        for (slot, draft) in self.drafts.iter().enumerate() {
            let index = self.base() + slot;
            let after = total - index - 1;
            let latest = self.last_step.values().any(|&i| i == index);
            let answered = draft
                .calls
                .iter()
                .all(|c| !c.expects_output || c.output.is_some());
            if after >= GIVE_UP || (after >= SETTLE && answered && !latest) {
                done += 1;
            } else {
                break;
            }
        }
        if done == 0 {
            return;
        }
        let base = self.base();
        let steps: Vec<Step> = self.trajectory.steps.drain(..done).collect();
        let drafts: Vec<Draft> = self.drafts.drain(..done).collect();
        let Some(released) = &mut self.released else {
            return;
        };
        for (i, (mut step, draft)) in steps.into_iter().zip(&drafts).enumerate() {
            released.unanswered += compose(&mut step, draft);
            step.index = base + i + 1;
            released.ready.push(step);
        }
        released.base += done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Trajectory};

    /// The pool's settled front leaves the builder as steps are let go; the messages of the
    /// steps still held stay, still growing with their steps, and indices stay the whole
    /// pool's.
    #[test]
    fn settled_messages_leave_the_pool_as_steps_are_let_go() {
        let mut b = StepBuilder::new(Trajectory::new("x.jsonl", Format::Cursor));
        b.release_steps(true);
        let mut settled = Vec::new();
        let mut steps = Vec::new();
        for n in 0..100 {
            b.push_message(None, Message::user(format!("q{n}")));
            let step = b.start_step(None, None, None);
            b.add_text(step, &format!("a{n}"));
            settled.extend(b.take_settled());
            // Model output joining the open step after its front settled.
            b.add_text(step, &format!("more {n}"));
            b.close(None);
            steps.extend(b.take_released());
        }
        assert!(settled.len() > 150, "{} settled", settled.len());
        assert!(
            b.trajectory.messages.len() < 40,
            "the held steps' messages on"
        );
        let t = b.finish();
        let pool: Vec<Message> = settled.into_iter().chain(t.messages).collect();
        assert_eq!(pool.len(), 200);
        for n in 0..100 {
            assert_eq!(pool[2 * n].content, format!("q{n}"));
            assert_eq!(pool[2 * n + 1].content, format!("a{n}\n\nmore {n}"));
        }
        steps.extend(t.steps);
        let last = steps.last().and_then(|s| s.context.as_ref()).unwrap();
        assert_eq!(
            last.ids(&pool).count(),
            199,
            "the last step saw all before it"
        );
    }
}
