//! The parts of a step every output shows, in one order with one set of titles: what the
//! user said (or the summary a compaction left), then thought, action and observation. The
//! TUI's step page, `trajscope show` and the Markdown/HTML exports walk these and only
//! style them; each chooses whether a blank part is left out or says so.

use crate::metrics::Field;
use crate::model::{Step, StepKind};

/// Which part of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SectionKind {
    /// A person's message.
    User,
    /// The summary that replaced the context before it.
    Compaction,
    Thought,
    Action,
    Observation,
}

impl SectionKind {
    /// The part's title as a label (`Thought`); headings in capitals use
    /// [`SectionKind::heading`].
    pub fn title(self) -> &'static str {
        match self {
            SectionKind::User => "User",
            SectionKind::Compaction => "Compaction summary",
            SectionKind::Thought => "Thought",
            SectionKind::Action => "Action",
            SectionKind::Observation => "Observation",
        }
    }

    /// The part's title as the terminal outputs head it (`THOUGHT`, `COMPACTED`).
    pub fn heading(self) -> &'static str {
        match self {
            SectionKind::User => "USER",
            SectionKind::Compaction => "COMPACTED",
            SectionKind::Thought => "THOUGHT",
            SectionKind::Action => "ACTION",
            SectionKind::Observation => "OBSERVATION",
        }
    }

    /// What a compaction's heading adds, and what a blank part says when it is shown.
    pub fn detail(self) -> &'static str {
        match self {
            SectionKind::Compaction => "earlier context replaced by this summary",
            _ => "",
        }
    }

    /// What a blank part says where an output shows it anyway.
    pub fn when_blank(self) -> &'static str {
        match self {
            SectionKind::Compaction => "(no summary in the log)",
            SectionKind::Observation => "(no observation)",
            _ => "",
        }
    }

    /// The searchable field the part's text is.
    pub fn field(self) -> Field {
        match self {
            SectionKind::User | SectionKind::Compaction => Field::User,
            SectionKind::Thought => Field::Thought,
            SectionKind::Action => Field::Action,
            SectionKind::Observation => Field::Observation,
        }
    }
}

/// One part of a step and its text, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub kind: SectionKind,
    pub text: &'a str,
}

impl Section<'_> {
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// The parts of `step` in reading order. A person's step always has its message (or
/// summary) part and an agent's step its observation, blank or not, since their absence
/// is worth saying; a blank thought or action is left out.
pub fn sections(step: &Step) -> Vec<Section<'_>> {
    let mut out = Vec::with_capacity(4);
    let agent = step.kind == StepKind::Agent;
    match step.kind {
        StepKind::Agent => {}
        StepKind::Compaction => out.push(Section {
            kind: SectionKind::Compaction,
            text: &step.user,
        }),
        _ => out.push(Section {
            kind: SectionKind::User,
            text: &step.user,
        }),
    }
    for (kind, text) in [
        (SectionKind::Thought, &step.thought),
        (SectionKind::Action, &step.action),
        (SectionKind::Observation, &step.observation),
    ] {
        let section = Section { kind, text };
        if !section.is_blank() || (agent && kind == SectionKind::Observation) {
            out.push(section);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(step: &Step) -> Vec<SectionKind> {
        sections(step).iter().map(|s| s.kind).collect()
    }

    #[test]
    fn an_agent_step_reads_thought_action_observation_and_keeps_a_blank_observation() {
        let mut step = Step {
            thought: "Look first.".into(),
            action: "ls".into(),
            ..Step::default()
        };
        assert_eq!(
            kinds(&step),
            [
                SectionKind::Thought,
                SectionKind::Action,
                SectionKind::Observation
            ]
        );
        step.thought = "  \n".into();
        assert_eq!(
            kinds(&step),
            [SectionKind::Action, SectionKind::Observation]
        );
        assert!(sections(&step)[1].is_blank());
    }

    #[test]
    fn a_persons_step_starts_with_its_message_even_blank() {
        let user = Step {
            kind: StepKind::User,
            ..Step::default()
        };
        assert_eq!(kinds(&user), [SectionKind::User]);
        let compaction = Step {
            kind: StepKind::Compaction,
            user: "Summary.".into(),
            ..Step::default()
        };
        assert_eq!(kinds(&compaction), [SectionKind::Compaction]);
        assert_eq!(sections(&compaction)[0].text, "Summary.");
    }
}
