//! The help screen: every key, generated from the keymap, the current screen's keys first.

use crate::tui::keymap::{Key, Keymap};
use crate::tui::layer::Layer;

#[derive(Debug, Clone, PartialEq)]
pub enum HelpLine {
    Section(Layer),
    Binding { keys: String, help: &'static str },
    Blank,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HelpState {
    /// The layer the user was in when asking for help: listed first.
    pub first: Layer,
    pub lines: Vec<HelpLine>,
    pub scroll: usize,
}

impl HelpState {
    pub fn new(keymap: &Keymap, first: Layer) -> HelpState {
        HelpState {
            first,
            lines: lines(keymap, first),
            scroll: 0,
        }
    }
}

/// The help text for `keymap`, starting with `first` and the keys that work everywhere.
pub fn lines(keymap: &Keymap, first: Layer) -> Vec<HelpLine> {
    let mut order = vec![first];
    if first != Layer::Global {
        order.push(Layer::Global);
    }
    let rest: Vec<Layer> = Layer::ALL
        .into_iter()
        .filter(|l| !order.contains(l))
        .collect();
    order.extend(rest);
    let mut out = Vec::new();
    for layer in order {
        let bindings = keymap.bindings(layer);
        if bindings.iter().all(|b| b.keys.is_empty()) {
            continue;
        }
        if !out.is_empty() {
            out.push(HelpLine::Blank);
        }
        out.push(HelpLine::Section(layer));
        for binding in bindings.iter().filter(|b| !b.keys.is_empty()) {
            let keys: Vec<String> = binding.keys.iter().map(Key::to_string).collect();
            out.push(HelpLine::Binding {
                keys: keys.join(", "),
                help: binding.action.help(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;

    #[test]
    fn every_bound_action_is_listed_with_its_keys() {
        let keymap = Keymap::defaults();
        let lines = lines(&keymap, Layer::Trajectory);
        assert_eq!(lines[0], HelpLine::Section(Layer::Trajectory));
        assert!(lines.contains(&HelpLine::Binding {
            keys: "e".into(),
            help: Action::NextError.help()
        }));
        let sections = lines
            .iter()
            .filter(|l| matches!(l, HelpLine::Section(_)))
            .count();
        assert_eq!(sections, Layer::ALL.len());
    }
}
