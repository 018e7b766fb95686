//! The parts of the app that take keys, by name. Each has a `[keymap.<name>]` section, and
//! usually a `state/<name>.rs`, `update/<name>.rs` and `view/<name>.rs`.

use super::action::Action;

/// Declares [`Layer`] from one row per layer: its variant, keymap section, help heading,
/// and the keys the status bar suggests while it has the keys (most important first). A new
/// layer is one row here, not a table in each of four files.
macro_rules! layers {
    ($($variant:ident => $name:literal, $title:literal, [$($action:ident $label:literal),* $(,)?];)*) => {
        /// Who receives a key. The focused overlay first, then the screen, then `Global`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Layer {
            $($variant,)*
        }

        impl Layer {
            /// Every layer, in the order of the help screen.
            pub const ALL: [Layer; [$($name),*].len()] = [$(Layer::$variant,)*];

            /// The section name in the keymap file.
            pub fn name(self) -> &'static str {
                match self {
                    $(Layer::$variant => $name,)*
                }
            }

            /// The heading of its part of the help screen.
            pub fn title(self) -> &'static str {
                match self {
                    $(Layer::$variant => $title,)*
                }
            }

            /// The keys worth knowing here, with a word each, for the status bar.
            pub fn hints(self) -> &'static [(Action, &'static str)] {
                match self {
                    $(Layer::$variant => &[$((Action::$action, $label)),*],)*
                }
            }
        }
    };
}

layers! {
    Global => "global", "Everywhere", [];
    Run => "run", "Run (the table of trajectories)", [
        Help "help", Quit "quit", Open "open", Filter "filter", SortNext "sort",
        FindTrajectory "find", FailureModes "failure modes", SearchRun "search all",
    ];
    Trajectory => "trajectory", "Trajectory (steps on the left, the selected step on the right)", [
        Help "help", Back "back", Down "step", NextError "error", Search "search",
        ShowContext "context", ShowPatch "patch", ShowDiff "diff", Replay "replay",
        ScrollPageDown "scroll", LabelStep "label", ExportTrajectory "export",
    ];
    Compare => "compare", "Compare (two runs aligned step by step)", [
        Help "help", Back "back", Down "step", NextDivergence "divergence",
        TogglePatches "patches", ScrollPageDown "scroll",
    ];
    Dashboard => "dashboard", "Failure modes (the rule tally of the run)", [
        Help "help", Back "back", Down "move", Open "steps/open", SwitchPane "switch list",
    ];
    Runs => "runs", "Runs side by side (one column per run, one row per instance)", [
        Help "help", Back "back", Down "move", Open "side by side",
        FilterSolvedBy "solved by k", FilterOnly "only by", AddRun "add run",
    ];
    Prompt => "prompt", "Typing a search or filter", [];
    Finder => "finder", "Fuzzy finder", [Confirm "open", Cancel "close"];
    Grep => "grep", "Run-wide search results", [
        Open "open", SearchRun "new search", Back "close",
    ];
    Failures => "failures", "Files that could not be read", [Back "close"];
    Help => "help", "This help", [Back "close"];
    Problems => "problems", "Configuration problems", [Back "close"];
    // The replay panel lists its own keys.
    Replay => "replay", "Replay panel (re-run from a step against a live model)", [];
    RulePicker => "rules", "Rule packs (which built-in packs the failure-mode tally uses)", [
        Toggle "tick", Confirm "count again", Back "close",
    ];
}

impl Layer {
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Layers where unbound printable keys type text.
    pub fn takes_text(self) -> bool {
        matches!(self, Layer::Prompt | Layer::Finder)
    }
}
