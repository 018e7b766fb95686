//! The rule picker: which built-in rule packs the run's tally uses, chosen in the app instead
//! of by restarting with `--rules NAME` / `--only-rules NAME`. `default` stands for the
//! default rules together with the user's own `rules.toml`, as at start-up.

mod update;
mod view;

use super::{Opener, Panel, Scrolled};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::state::list::ListCursor;
use crate::metrics::pack::{DEFAULT_PACK, PACKS, PackInfo};
use crate::metrics::{Matcher, RuleOptions};
use std::path::PathBuf;

/// One pack in the picker.
#[derive(Debug, Clone)]
pub struct PackChoice {
    pub info: PackInfo,
    /// The rules' origin (`default rules`, `pack:NAME`): how a running tally tells that the
    /// pack is in use.
    pub origin: String,
    pub on: bool,
}

#[derive(Debug, Clone)]
pub struct RulePicker {
    pub packs: Vec<PackChoice>,
    pub cursor: ListCursor,
}

impl RulePicker {
    /// Every built-in pack, ticked where the tally's `rules` come from it.
    pub fn new(rules: &Matcher) -> RulePicker {
        let packs = PACKS
            .iter()
            .map(|pack| {
                let origin = pack.origin();
                let on = rules.rules().iter().any(|r| r.origin.file == origin);
                PackChoice {
                    info: pack.info(),
                    origin,
                    on,
                }
            })
            .collect();
        RulePicker {
            packs,
            cursor: ListCursor::default(),
        }
    }

    /// The rule options of the ticked packs: the defaults (and the user's rule file) plus
    /// the other ticked packs, or only those packs when `default` is not ticked. `None`
    /// when nothing is ticked.
    pub fn options(&self) -> Option<RuleOptions> {
        let ticked: Vec<&str> = self
            .packs
            .iter()
            .filter(|p| p.on)
            .map(|p| p.info.name.as_str())
            .collect();
        if ticked.is_empty() {
            return None;
        }
        let others: Vec<PathBuf> = ticked
            .iter()
            .filter(|n| **n != DEFAULT_PACK)
            .map(PathBuf::from)
            .collect();
        Some(if ticked.contains(&DEFAULT_PACK) {
            RuleOptions {
                extra: others,
                only: Vec::new(),
                user_file: crate::metrics::user_rules_path(),
            }
        } else {
            RuleOptions {
                extra: Vec::new(),
                only: others,
                user_file: None,
            }
        })
    }
}

impl Panel for RulePicker {
    const NAME: &'static str = "rules";
    const TITLE: &'static str = "Rule packs (which built-in packs the failure-mode tally uses)";
    const HINTS: &'static [(Action, &'static str)] = &[
        (Action::Toggle, "tick"),
        (Action::Confirm, "count again"),
        (Action::Back, "close"),
    ];
    const KEYS: &'static str = include_str!("rule_picker/keys.toml");
    const OPENER: Option<Opener> = Some(Opener {
        name: "pick_rules",
        help: "choose the rule packs the failure-mode tally uses",
    });

    fn open(state: &mut State, _fx: &mut Vec<Effect>) {
        update::open(state);
    }

    fn action(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
        update::action(state, action, fx);
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, self, frame, area);
    }

    fn scrolled(&mut self, _failures: usize, _width: usize) -> Scrolled<'_> {
        Scrolled::Rows {
            cursor: &mut self.cursor,
            len: self.packs.len(),
        }
    }
}
