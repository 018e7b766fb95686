//! The rule picker's keys: move, tick packs, apply. Applying compiles the ticked packs and
//! loads the run again under them (through the run cache, so a run already read is counted
//! anew at the speed of the tally), as starting over with `--rules`/`--only-rules` would.

use crate::metrics::{Matcher, RuleSet};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::dashboard::DashboardState;
use crate::tui::state::documents::Documents;
use crate::tui::state::metrics::MetricsState;
use crate::tui::panel::rule_picker::RulePicker;
use crate::tui::update::list;
use crate::tui::state::run::RunState;
use crate::tui::state::search::SearchState;
use crate::tui::state::{Notice, Overlay, Screen, State};
use std::sync::Arc;

/// Opens the picker on the packs the tally uses now.
pub fn open(state: &mut State) {
    state.overlay = Some(RulePicker::new(state.metrics.rules()).into());
}

pub fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let page = list::page_height(state);
    let Some(Overlay::RulePicker(picker)) = &mut state.overlay else {
        return;
    };
    if list::navigate(&mut picker.cursor, action, picker.packs.len(), page) {
        return;
    }
    match action {
        Action::Back => state.overlay = None,
        Action::Toggle => {
            if let Some(pack) = picker.packs.get_mut(picker.cursor.selected) {
                pack.on = !pack.on;
            }
        }
        Action::Confirm => {
            let Some(options) = picker.options() else {
                state.notice = Some(Notice::error("tick at least one rule pack"));
                return;
            };
            let set = RuleSet::load(&options);
            let (matcher, compile_errors) = Matcher::new(set.rules);
            let problems = set.errors.len() + compile_errors.len();
            let names: Vec<String> = picker
                .packs
                .iter()
                .filter(|p| p.on)
                .map(|p| p.info.name.clone())
                .collect();
            state.overlay = None;
            reload(state, Arc::new(matcher), fx);
            let mut text = format!("counting with {}", names.join(" + "));
            if problems > 0 {
                text.push_str(&format!(" ({problems} rule(s) with problems left out)"));
            }
            state.notice = Some(Notice::info(text));
        }
        _ => {}
    }
}

/// The run loaded again under `rules`: the table, the tally, the labels and the live watch
/// start over as at start-up; what was counted or drawn under the old rules is dropped. The
/// files named with `--results` and the sort order stay.
fn reload(state: &mut State, rules: Arc<Matcher>, fx: &mut Vec<Effect>) {
    let named = state
        .run
        .results
        .sources
        .iter()
        .filter(|s| s.explicit)
        .cloned()
        .collect();
    let names = rules.rules().iter().map(|r| r.name.clone()).collect();
    let sort = state.run.sort;
    state.run = RunState::with_results(state.run.roots.clone(), named, names);
    state.run.sort = sort;
    state.metrics = MetricsState::new(rules);
    state.dashboard = DashboardState::default();
    state.documents = Documents::default();
    state.search = SearchState::default();
    state.trajectory = None;
    state.live = Default::default();
    if matches!(state.screen, Screen::Trajectory | Screen::Compare) {
        state.screen = Screen::Run;
    }
    fx.extend(crate::tui::update::start(state));
}

#[cfg(test)]
mod tests {
    use crate::tui::update::testing::{press, run};
    use crate::tui::effect::Effect;
    use crate::tui::state::{Overlay, Screen};

    fn origins(rules: &crate::metrics::Matcher) -> Vec<String> {
        let mut files: Vec<String> = rules
            .rules()
            .iter()
            .map(|r| r.origin.file.clone())
            .collect();
        files.dedup();
        files
    }

    #[test]
    fn ticking_a_pack_counts_the_run_again_with_it() {
        let mut state = run();
        press(&mut state, "p");
        let Some(Overlay::RulePicker(picker)) = &state.overlay else {
            panic!("no picker")
        };
        let ticked: Vec<(&str, bool)> = picker
            .packs
            .iter()
            .map(|p| (p.info.name.as_str(), p.on))
            .collect();
        assert_eq!(
            ticked,
            [
                ("default", true),
                ("swe-bench-pro-failure-modes", false),
                ("sniffly-claude-code-errors", false)
            ]
        );
        // Add the SWE-Bench Pro pack, take the defaults away: only that pack counts.
        press(&mut state, "j<Space>k<Space>");
        let effects = press(&mut state, "<CR>");
        assert!(state.overlay.is_none());
        assert_eq!(
            origins(state.metrics.rules()),
            ["pack:swe-bench-pro-failure-modes"]
        );
        assert!(state.run.rows.is_empty(), "the run is read again");
        assert!(state.metrics.tally.trajectories().is_empty());
        let load = effects.iter().find_map(|e| match e {
            Effect::LoadRun { roots, rules } => Some((roots.clone(), rules.clone())),
            _ => None,
        });
        let (roots, rules) = load.expect("the run is loaded again");
        assert_eq!(roots, state.run.roots);
        assert_eq!(origins(&rules), ["pack:swe-bench-pro-failure-modes"]);
        assert!(
            effects.iter().any(
                |e| matches!(e, Effect::Watch { rules: w, .. } if origins(w) == origins(&rules))
            ),
            "the live watch counts with the same rules"
        );
        assert_eq!(state.screen, Screen::Run);
    }

    #[test]
    fn nothing_ticked_is_refused_and_esc_changes_nothing() {
        let mut state = run();
        let before = state.metrics.rules().rules().len();
        press(&mut state, "p<Space>");
        let effects = press(&mut state, "<CR>");
        assert!(effects.is_empty());
        assert_eq!(
            state.notice.as_ref().map(|n| n.text.as_str()),
            Some("tick at least one rule pack")
        );
        press(&mut state, "<Esc>");
        assert!(state.overlay.is_none());
        assert_eq!(state.metrics.rules().rules().len(), before);
        assert_eq!(state.run.rows.len(), 3, "nothing was reloaded");
    }
}
