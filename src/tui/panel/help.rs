//! The help screen: every key, generated from the keymap, the current screen's keys first.

mod update;
mod view;

use super::{Panel, Scrolled};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::keymap::{Key, Keymap};
use crate::tui::layer::Layer;

#[derive(Debug, Clone, PartialEq)]
pub enum HelpLine {
    Section(Layer),
    Binding {
        keys: String,
        help: &'static str,
    },
    /// A heading that is not a layer (the filter terms).
    Heading(&'static str),
    /// A term and what it does, laid out as a binding.
    Term {
        term: &'static str,
        help: &'static str,
    },
    Blank,
}

/// One line on screen: the help wraps, a binding's keys on its first line only.
#[derive(Debug, Clone, PartialEq)]
pub enum HelpRow {
    Heading(String),
    Entry { keys: String, text: String },
    Blank,
}

/// The run filter's terms, for the help screen (docs/tui.md says the same).
const FILTER_TERMS: &[(&str, &str)] = &[
    ("word", "the label or path holds the word"),
    ("resolved:yes|no|unknown", "the verdict"),
    ("exit:TEXT", "the exit status holds TEXT"),
    (
        "format:NAME",
        "the log's format (swe-agent, mini-swe-agent, …)",
    ),
    ("model:TEXT", "the model's name holds TEXT"),
    (
        "steps>N",
        "also <, >=, <=, =; a row without the value never matches",
    ),
    (
        "cost>X tokens>N errors>N",
        "cost in dollars, input plus output tokens, error steps",
    ),
    (
        "rule:NAME",
        "the trajectory matched that rule at least once",
    ),
    (
        "-TERM",
        "negates a term; terms separated by spaces must all hold",
    ),
];

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

    /// The width of the keys column.
    pub fn keys_width(&self) -> usize {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HelpLine::Binding { keys, .. } => Some(keys.chars().count()),
                _ => None,
            })
            .max()
            .unwrap_or(10)
            .min(28)
    }

    /// The lines as shown `width` columns wide: each help text wrapped under itself.
    pub fn rows(&self, width: usize) -> Vec<HelpRow> {
        let keys_width = self.keys_width();
        let room = width.saturating_sub(keys_width + 4).max(16);
        let mut out = Vec::new();
        let entry = |keys: &str, help: &str, out: &mut Vec<HelpRow>| {
            // A key list longer than its column gets a line of its own.
            let long = keys.chars().count() > keys_width;
            if long {
                out.push(HelpRow::Entry {
                    keys: keys.to_string(),
                    text: String::new(),
                });
            }
            for (i, piece) in wrap(help, room).into_iter().enumerate() {
                let keys = if i == 0 && !long { keys } else { "" };
                out.push(HelpRow::Entry {
                    keys: keys.to_string(),
                    text: piece,
                });
            }
        };
        for line in &self.lines {
            match line {
                HelpLine::Section(layer) => out.push(HelpRow::Heading(layer.title().to_string())),
                HelpLine::Heading(text) => out.push(HelpRow::Heading((*text).to_string())),
                HelpLine::Binding { keys, help } => entry(keys, help, &mut out),
                HelpLine::Term { term, help } => entry(term, help, &mut out),
                HelpLine::Blank => out.push(HelpRow::Blank),
            }
        }
        out
    }
}

/// `text` cut at spaces into lines of at most `width` columns (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
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
    out.push(HelpLine::Blank);
    out.push(HelpLine::Heading("Run filter terms"));
    for &(term, help) in FILTER_TERMS {
        out.push(HelpLine::Term { term, help });
    }
    out
}

impl Panel for HelpState {
    const NAME: &'static str = "help";
    const TITLE: &'static str = "This help";
    const HINTS: &'static [(Action, &'static str)] = &[(Action::Back, "close")];
    const KEYS: &'static str = include_str!("help/keys.toml");

    fn action(state: &mut State, action: Action, _fx: &mut Vec<Effect>) {
        update::action(state, action);
    }

    fn render(&self, state: &State, frame: &mut ratatui::Frame, area: ratatui::layout::Rect) {
        view::render(state, self, frame, area);
    }

    fn scrolled(&mut self, _failures: usize, width: usize) -> Scrolled<'_> {
        // The help wraps: its scroll is over the lines as shown.
        let lines = self.rows(width).len();
        Scrolled::Text {
            scroll: &mut self.scroll,
            lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::action::Action;

    #[test]
    fn help_text_wraps_within_the_width() {
        let help = HelpState::new(&Keymap::defaults(), Layer::Run);
        let keys = help.keys_width();
        for width in [40, 76, 120] {
            for row in help.rows(width) {
                if let HelpRow::Entry { keys: k, text } = &row {
                    let used = if k.chars().count() > keys {
                        k.chars().count()
                    } else {
                        keys + 4 + text.chars().count()
                    };
                    assert!(used <= width.max(keys + 4 + 16), "{width}: {row:?}");
                }
            }
        }
        // Nothing is lost: every word of a long help text is on some line.
        let all: String = help
            .rows(40)
            .iter()
            .filter_map(|r| match r {
                HelpRow::Entry { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ");
        assert!(all.contains("fork with its original"), "{all}");
    }

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
