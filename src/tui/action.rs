//! What a key can ask for, by name: the vocabulary of the keymap file and the help screen.
//!
//! Owns the names and their one-line descriptions; what each does lives in `update/<layer>`
//! or `panel/<name>/update.rs`. An overlay panel's own opening action is
//! [`Action::OpenPanel`], named by the panel ([`crate::tui::panel::Panel::OPENER`]).

use super::layer::Layer;

macro_rules! actions {
    ($($variant:ident => $name:literal, $help:literal;)*) => {
        /// A named command a key is bound to. Its `name` is what the keymap file says.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $($variant,)*
            /// Opens the panel of this layer: its own action, named by the panel. Last, so
            /// the help screen lists it after a screen's other keys.
            OpenPanel(Layer),
        }

        impl Action {
            /// The actions every layer shares the vocabulary of; the panels' openers follow
            /// in [`Action::all`].
            const NAMED: &'static [Action] = &[$(Action::$variant,)*];

            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                    Action::OpenPanel(layer) => layer.opener().map_or("open_panel", |o| o.name),
                }
            }

            /// One line for the help screen.
            pub fn help(self) -> &'static str {
                match self {
                    $(Action::$variant => $help,)*
                    Action::OpenPanel(layer) => layer.opener().map_or("open this panel", |o| o.help),
                }
            }
        }
    };
}

actions! {
    Quit => "quit", "quit trajscope";
    Back => "back", "close this and go back";
    Help => "help", "show every key";
    FindTrajectory => "find_trajectory", "fuzzy-find a trajectory by instance id or path";
    FindStep => "find_step", "fuzzy-find a step of this trajectory";
    SearchRun => "search_run", "search every trajectory of the run for a string";
    FailureModes => "failure_modes", "show the failure-mode dashboard: rule tallies, resolved vs unresolved";

    Down => "down", "next row";
    Up => "up", "previous row";
    PageDown => "page_down", "one page down";
    PageUp => "page_up", "one page up";
    HalfPageDown => "half_page_down", "half a page down";
    HalfPageUp => "half_page_up", "half a page up";
    Top => "top", "first row";
    Bottom => "bottom", "last row";
    Open => "open", "open the selected item";

    Filter => "filter", "filter the table (terms at the end of this screen)";
    ClearFilter => "clear_filter", "clear the filter";
    SortNext => "sort_next", "sort by the next column";
    SortPrevious => "sort_previous", "sort by the previous column";
    SortReverse => "sort_reverse", "reverse the sort order";

    Search => "search", "search this trajectory (regex, or literal if not a valid regex)";
    NextHit => "next_hit", "next search hit";
    PreviousHit => "previous_hit", "previous search hit";
    ClearSearch => "clear_search", "clear the search";
    NextError => "next_error", "next step with an error";
    PreviousError => "previous_error", "previous step with an error";
    NextSameTool => "next_same_tool", "next step with this step's tool";
    PreviousSameTool => "previous_same_tool", "previous step with this step's tool";
    NextTrajectory => "next_trajectory", "open the next trajectory of the run";
    PreviousTrajectory => "previous_trajectory", "open the previous trajectory of the run";
    FollowSubagent => "follow_subagent", "open this step's sub-agent, or the parent step that started this sub-agent";

    ScrollDown => "scroll_down", "scroll the right pane down";
    ScrollUp => "scroll_up", "scroll the right pane up";
    ScrollPageDown => "scroll_page_down", "scroll the right pane a page down";
    ScrollPageUp => "scroll_page_up", "scroll the right pane a page up";
    ScrollTop => "scroll_top", "scroll the right pane to its start";
    ScrollBottom => "scroll_bottom", "scroll the right pane to its end";
    ShowStep => "show_step", "show the step: thought, action, observation";
    ShowContext => "show_context", "show the model input at this step (exact or reconstructed)";
    ShowPatch => "show_patch", "show the final submitted patch";
    ShowTask => "show_task", "show the task (issue text) and trajectory details";
    ShowDiff => "show_diff", "show what this step changed: file edits, model input, a re-run's output";
    ShowTree => "show_tree", "show the working tree at this step and the submitted patch's check";
    NextPage => "next_page", "next tab of the right pane";
    PreviousPage => "previous_page", "previous tab of the right pane";
    ToggleFold => "toggle_fold", "fold or unfold a long observation";
    CopyAction => "copy_action", "copy the action (or this tab's text) to the clipboard";
    CopyObservation => "copy_observation", "copy the observation to the clipboard";
    OpenInEditor => "open_in_editor", "open this step (or tab) in $EDITOR";
    ToggleFollow => "toggle_follow", "follow the newest step as a live trajectory grows (on by default)";

    Mark => "mark", "mark this trajectory to compare it with another";
    Compare => "compare", "compare the marked trajectory with this one (or this instance in another run, or a fork with its original)";
    NextDivergence => "next_divergence", "next place where the two runs diverge";
    PreviousDivergence => "previous_divergence", "previous place where the two runs diverge";
    TogglePatches => "toggle_patches", "show the two final patches side by side, or the steps";
    LabelStep => "label_step", "label this step (a failure mode in your words, counted like a rule)";
    UnlabelStep => "unlabel_step", "remove this step's labels";
    ExportTrajectory => "export_trajectory", "export this trajectory to a file (HTML page; options.export_format)";
    ExportStep => "export_step", "export this step to a file (Markdown; options.export_format)";
    SwitchPane => "switch_pane", "switch between the rules and the steps behind the selected one";
    Runs => "runs", "compare the opened runs side by side: one column per run, one row per instance";
    AddRun => "add_run", "add a run (a folder or file) to compare side by side";
    FilterSolvedBy => "filter_solved_by", "show the instances solved by exactly k runs (again: the next k, then all)";
    FilterOnly => "filter_only", "show the instances solved only by one run (again: the next run, then all)";

    Replay => "replay", "re-run from this step against a live model: resample its answer, or continue the agent";
    Start => "start", "start the replay (a continued run asks first)";
    Increase => "increase", "the next value of this field";
    Decrease => "decrease", "the previous value of this field";
    EditContext => "edit_context", "edit the context sent at this step in $EDITOR (JSON messages)";
    EditAnswer => "edit_answer", "write this step's answer yourself in $EDITOR: continue runs it instead of asking the model";
    Yes => "yes", "yes: run it";
    No => "no", "no: back to the form";

    Confirm => "confirm", "accept";
    Toggle => "toggle", "tick or untick the selected item";
    Cancel => "cancel", "cancel";
    DeleteBackward => "delete_backward", "delete the character before the cursor";
    ClearInput => "clear_input", "clear the input";
    CursorLeft => "cursor_left", "move the cursor left";
    CursorRight => "cursor_right", "move the cursor right";
}

impl Action {
    /// Every action a key can be bound to, with each panel's opener.
    pub fn all() -> impl Iterator<Item = Action> {
        let openers = Layer::ALL
            .into_iter()
            .filter(|l| l.opener().is_some())
            .map(Action::OpenPanel);
        Action::NAMED.iter().copied().chain(openers)
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::all().find(|a| a.name() == name)
    }
}

/// By name, as the keymap file spells it.
impl<'de> serde::Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Action, D::Error> {
        let name = String::deserialize(deserializer)?;
        Action::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown action `{name}`")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde_and_round_trip() {
        assert!(
            Action::all().any(|a| a.name() == "pick_rules"),
            "the panels' openers are actions too"
        );
        for action in Action::all() {
            assert_eq!(Action::from_name(action.name()), Some(action));
            let parsed: Action =
                serde_json::from_value(serde_json::Value::String(action.name().into())).unwrap();
            assert_eq!(parsed, action);
            assert!(!action.help().is_empty());
        }
    }
}
