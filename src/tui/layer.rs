//! The parts of the app that take keys, by name. Each has a `[keymap.<name>]` section, and
//! usually a `state/<name>.rs`, `update/<name>.rs` and `view/<name>.rs`.

/// Who receives a key. The focused overlay first, then the screen, then `Global`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    Global,
    Run,
    Trajectory,
    Compare,
    Dashboard,
    Runs,
    Prompt,
    Finder,
    Grep,
    Failures,
    Help,
    Problems,
    Replay,
}

impl Layer {
    pub const ALL: [Layer; 13] = [
        Layer::Global,
        Layer::Run,
        Layer::Trajectory,
        Layer::Compare,
        Layer::Dashboard,
        Layer::Runs,
        Layer::Prompt,
        Layer::Finder,
        Layer::Grep,
        Layer::Failures,
        Layer::Help,
        Layer::Problems,
        Layer::Replay,
    ];

    /// The section name in the keymap file.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Global => "global",
            Layer::Run => "run",
            Layer::Trajectory => "trajectory",
            Layer::Compare => "compare",
            Layer::Dashboard => "dashboard",
            Layer::Runs => "runs",
            Layer::Prompt => "prompt",
            Layer::Finder => "finder",
            Layer::Grep => "grep",
            Layer::Failures => "failures",
            Layer::Help => "help",
            Layer::Problems => "problems",
            Layer::Replay => "replay",
        }
    }

    /// The heading of its part of the help screen.
    pub fn title(self) -> &'static str {
        match self {
            Layer::Global => "Everywhere",
            Layer::Run => "Run (the table of trajectories)",
            Layer::Trajectory => "Trajectory (steps on the left, the selected step on the right)",
            Layer::Compare => "Compare (two runs aligned step by step)",
            Layer::Dashboard => "Failure modes (the rule tally of the run)",
            Layer::Runs => "Runs side by side (one column per run, one row per instance)",
            Layer::Prompt => "Typing a search or filter",
            Layer::Finder => "Fuzzy finder",
            Layer::Grep => "Run-wide search results",
            Layer::Failures => "Files that could not be read",
            Layer::Help => "This help",
            Layer::Problems => "Configuration problems",
            Layer::Replay => "Replay panel (re-run from a step against a live model)",
        }
    }

    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Layers where unbound printable keys type text.
    pub fn takes_text(self) -> bool {
        matches!(self, Layer::Prompt | Layer::Finder)
    }
}
