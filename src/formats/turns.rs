//! Sessions of interactive coding-agent CLIs (Gemini, Copilot, Cursor, Kimi, OpenCode, Droid,
//! Hugging Face traces, OpenTelemetry spans): model turns assembled by [`StepBuilder`], plus
//! what a person typed, kept as steps of their own.
//!
//! A user turn is a step of kind [`StepKind::User`] whose text is the step's `user`, as for
//! Claude Code: it is listed among the steps, found by `/`, `grep` and the `user` and `any`
//! rule fields, carries no action
//! (so no rule counts it as a tool call) and no model context (no model was called). A
//! session that holds only what the user said therefore still has steps.

use super::tool_steps::StepBuilder;
use crate::model::{Message, Step, StepKind, Trajectory};

/// A session being read: model steps, and user turns spliced in where they were said.
pub struct Session {
    pub steps: StepBuilder,
    /// (number of model steps before it, the user's step).
    users: Vec<(usize, Step)>,
    /// Errors the log reports for a model step (its index in the builder), shown after the
    /// step's tool results.
    errors: Vec<(usize, String)>,
    /// Model steps handed over so far when steps are released ([`Session::release_steps`]).
    taken: Option<usize>,
}

impl Session {
    pub fn new(trajectory: Trajectory) -> Session {
        Session {
            steps: StepBuilder::new(trajectory),
            users: Vec::new(),
            errors: Vec::new(),
            taken: None,
        }
    }

    /// Lets steps go as they finish, for the bounded read of a big log
    /// ([`StepBuilder::release_steps`]): [`Session::take_released`] hands them over with the
    /// user turns in place, and [`Session::finish`] leaves the rest.
    pub fn release_steps(&mut self, keep_pool: bool) {
        self.steps.release_steps(keep_pool);
        self.taken = Some(0);
    }

    /// The steps let go since the last call, model steps with their errors and the user
    /// turns said before them (and those said right after the last one let go), in order.
    pub fn take_released(&mut self) -> Vec<Step> {
        let Some(mut taken) = self.taken else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for mut step in self.steps.take_released() {
            self.splice_users(taken, &mut out);
            let errors = std::mem::take(&mut self.errors);
            for (at, text) in errors {
                if at == taken {
                    fail(&mut step, &text);
                } else {
                    self.errors.push((at, text));
                }
            }
            out.push(step);
            taken += 1;
        }
        self.splice_users(taken, &mut out);
        self.taken = Some(taken);
        out
    }

    /// Moves to `out` the user turns said before model step `index` (absolute).
    fn splice_users(&mut self, index: usize, out: &mut Vec<Step>) {
        let n = self.users.iter().take_while(|(b, _)| *b <= index).count();
        out.extend(self.users.drain(..n).map(|(_, user)| user));
    }

    /// What the user said: a step, the task when it is the first, and context for the model
    /// steps that follow. Ends the model's current step.
    pub fn user(&mut self, text: &str, timestamp: Option<String>) {
        let text = text.trim_end();
        if text.trim().is_empty() {
            return;
        }
        self.steps.close(None);
        self.steps.push_message(None, Message::user(text));
        let before = self.steps.step_total();
        let trajectory = &mut self.steps.trajectory;
        if trajectory.task.is_none() {
            trajectory.task = Some(text.to_string());
        }
        self.users.push((
            before,
            Step {
                kind: StepKind::User,
                user: text.to_string(),
                timestamp,
                ..Step::default()
            },
        ));
    }

    /// An error the log reports for model step `step` (an API error, a failed turn): the
    /// step is failed and the text follows its observation.
    pub fn step_error(&mut self, step: usize, text: String) {
        self.errors.push((step, text));
    }

    /// The trajectory, with the user turns in place among the model steps (those not let go
    /// yet, when steps are released).
    pub fn finish(self) -> Trajectory {
        let base = self.taken.unwrap_or(0);
        let mut trajectory = self.steps.finish();
        for (step, text) in self.errors {
            if let Some(s) = step
                .checked_sub(base)
                .and_then(|i| trajectory.steps.get_mut(i))
            {
                fail(s, &text);
            }
        }
        let model_steps = std::mem::take(&mut trajectory.steps);
        let mut users = self.users.into_iter().peekable();
        let mut steps = Vec::with_capacity(model_steps.len() + users.len());
        for (i, step) in model_steps.into_iter().enumerate() {
            while let Some((_, user)) = users.next_if(|(before, _)| *before <= base + i) {
                steps.push(user);
            }
            steps.push(step);
        }
        steps.extend(users.map(|(_, user)| user));
        trajectory.steps = steps;
        trajectory
    }
}

/// Marks `step` failed by an error the log reports, its text after the observation.
fn fail(step: &mut Step, text: &str) {
    step.failed = true;
    if !step.observation.is_empty() {
        step.observation.push('\n');
    }
    step.observation.push_str(text);
}

/// Names `trajectory` after its session id when its file is named after the session
/// (`<session>.jsonl`, Gemini's `session-<time>-<first 8 characters>.json`) or by a name
/// every session's file shares (`events.jsonl`, `wire.jsonl`); a file a harness named (eval
/// runs save `<instance_id>.jsonl`) keeps its name, which results join on.
pub fn name_after_session(trajectory: &mut Trajectory, session: &str) {
    let session = session.trim();
    if session.is_empty() {
        return;
    }
    let stem = &trajectory.instance_id;
    let short = session.get(..8).filter(|_| session.len() > 8);
    let generic = matches!(stem.as_str(), "events" | "wire" | "session" | "transcript");
    if stem.contains(session) || generic || short.is_some_and(|s| stem.ends_with(s)) {
        trajectory.instance_id = session.to_string();
    }
}

/// Milliseconds since the epoch (as several CLIs log time) as an ISO 8601 UTC timestamp.
pub fn iso_from_millis(ms: i64) -> Option<String> {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;

    #[test]
    fn user_turns_sit_between_the_model_steps_they_came_between() {
        let mut s = Session::new(Trajectory::new("s.jsonl", Format::ChatMessages));
        s.user("first", None);
        let a = s.steps.start_step(None, None, None);
        s.steps.add_text(a, "answer one");
        s.user("  ", None);
        s.user("second", Some("t2".into()));
        let b = s.steps.start_step(None, None, None);
        s.steps.add_text(b, "answer two");
        s.user("third", None);
        let t = s.finish();
        let kinds: Vec<StepKind> = t.steps.iter().map(|s| s.kind).collect();
        let (u, a) = (StepKind::User, StepKind::Agent);
        assert_eq!(kinds, [u, a, u, a, u]);
        assert_eq!(t.steps[2].user, "second");
        assert_eq!(t.steps[2].timestamp.as_deref(), Some("t2"));
        assert!(t.steps[2].action.is_empty() && t.steps[2].tool.is_none());
        assert_eq!(t.task.as_deref(), Some("first"));
        let ctx = t.steps[3].context_messages(&t.messages);
        assert_eq!(
            ctx.len(),
            3,
            "the first turn, its answer and the second turn"
        );
    }

    #[test]
    fn sessions_name_their_files_unless_a_harness_did() {
        let named = |file: &str, session: &str| {
            let mut t = Trajectory::new(file, Format::GeminiCli);
            name_after_session(&mut t, session);
            t.header.instance_id
        };
        assert_eq!(named("events.jsonl", "c0ffee"), "c0ffee");
        assert_eq!(
            named("session-2026-01-05T08-00-6ce1f3e4.json", "6ce1f3e4-aaaa"),
            "6ce1f3e4-aaaa"
        );
        assert_eq!(named("run-0b9e-12.jsonl", "0b9e-12"), "0b9e-12");
        assert_eq!(
            named("django__django-11133.jsonl", "0b9e-12"),
            "django__django-11133"
        );
    }

    #[test]
    fn millis_become_utc_timestamps() {
        assert_eq!(
            iso_from_millis(1_730_000_001_000).as_deref(),
            Some("2024-10-27T03:33:21.000Z")
        );
        assert_eq!(
            iso_from_millis(0).as_deref(),
            Some("1970-01-01T00:00:00.000Z")
        );
        assert_eq!(iso_from_millis(i64::MAX), None);
    }
}
