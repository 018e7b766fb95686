//! A session's steps let go as they finish, for the bounded read of a big log
//! (`formats::stream`): the builder releases model steps (see `tool_steps::release`), and
//! each user turn goes out just before the first model step that came after it, so the
//! visit sees the steps in the order [`Session::finish`] gives them.

use super::{Session, fail};
use crate::model::Step;

impl Session {
    /// Lets model steps go as they finish; the message pool is not kept (a listing or a
    /// tally reads no context).
    pub fn release_steps(&mut self) {
        self.steps.release_steps(false);
        self.releasing = true;
    }

    /// The steps finished since the last call, user turns among them, in file order. An
    /// error reported for a step is the latest step's, which is never let go before a
    /// later one starts, so it is already applied here.
    pub fn take_released(&mut self) -> Vec<Step> {
        if !self.releasing {
            return Vec::new();
        }
        let model = self.steps.take_released();
        let mut out = Vec::with_capacity(model.len());
        for mut step in model {
            // Released steps carry their absolute 1-based model index.
            let index = step.index.saturating_sub(1);
            let users = self.users.iter().take_while(|(b, _)| *b <= index).count();
            out.extend(self.users.drain(..users).map(|(_, user)| user));
            let errors = std::mem::take(&mut self.errors);
            for (at, text) in errors {
                if at == index {
                    fail(&mut step, &text);
                } else {
                    self.errors.push((at, text));
                }
            }
            out.push(step);
        }
        out
    }
}
