//! The parts of the app that take keys, by name. Each has a `[keymap.<name>]` section. A
//! screen's layer is a row here and its state, update and view are `state/<name>.rs`,
//! `update/<name>.rs` and `view/<name>.rs`; an overlay panel's layer comes from its row in the
//! panel registry (`panel.rs`).

use super::action::Action;
use super::panel::{self, Panel};

/// Declares [`Layer`] from one row per screen layer (its variant, keymap section, help
/// heading, and the keys the status bar suggests while it has the keys, most important first)
/// and one row per overlay panel from the panel registry, which takes the same from the
/// panel's [`Panel`] impl. A new layer is one row, not a table in each of four files.
macro_rules! layers {
    (
        $($variant:ident => $name:literal, $title:literal, [$($action:ident $label:literal),* $(,)?];)*
        @panels $($panel:ident => $module:ident::$ty:ident,)*
    ) => {
        /// Who receives a key. The focused overlay first, then the screen, then `Global`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Layer {
            $($variant,)*
            $($panel,)*
        }

        impl Layer {
            /// Every layer, in the order of the help screen.
            pub const ALL: [Layer; [$(stringify!($variant),)* $(stringify!($panel),)*].len()] =
                [$(Layer::$variant,)* $(Layer::$panel,)*];

            /// The section name in the keymap file.
            pub fn name(self) -> &'static str {
                match self {
                    $(Layer::$variant => $name,)*
                    $(Layer::$panel => <panel::$module::$ty as Panel>::NAME,)*
                }
            }

            /// The heading of its part of the help screen.
            pub fn title(self) -> &'static str {
                match self {
                    $(Layer::$variant => $title,)*
                    $(Layer::$panel => <panel::$module::$ty as Panel>::TITLE,)*
                }
            }

            /// The keys worth knowing here, with a word each, for the status bar.
            pub fn hints(self) -> &'static [(Action, &'static str)] {
                match self {
                    $(Layer::$variant => &[$((Action::$action, $label)),*],)*
                    $(Layer::$panel => <panel::$module::$ty as Panel>::HINTS,)*
                }
            }
        }
    };
}

panel::registry!(layers {
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
});

impl Layer {
    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Layers where unbound printable keys type text.
    pub fn takes_text(self) -> bool {
        self == Layer::Prompt || self.panel_takes_text()
    }
}
