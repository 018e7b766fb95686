//! The rule picker's window: one row per built-in pack, ticked where the tally uses it, with
//! its rule count, version and source; the selected pack's description below the list.

use crate::metrics::pack::DEFAULT_PACK;
use crate::text::one_line;
use crate::tui::action::Action;
use crate::tui::layer::Layer;
use crate::tui::state::State;
use crate::tui::panel::rule_picker::RulePicker;
use crate::tui::theme::Paint;
use crate::tui::view::popup;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

pub fn render(state: &State, picker: &RulePicker, frame: &mut Frame, area: Rect) {
    let theme = &state.theme;
    let key = |action| state.keymap.key_name(Layer::RulePicker, action);
    let (header, list) = popup::window(state, frame, area, "Rule packs the tally uses");
    frame.render_widget(
        Paragraph::new(format!(
            "{} ticks · {} counts the run again · {} closes",
            key(Action::Toggle),
            key(Action::Confirm),
            key(Action::Back)
        ))
        .style(theme.style(Paint::Dim)),
        header,
    );
    let width = usize::from(list.width);
    let mut lines: Vec<Line> = Vec::new();
    for (i, pack) in picker.packs.iter().enumerate() {
        let selected = i == picker.cursor.selected;
        let base = if selected {
            theme.style(Paint::Text).patch(theme.style(Paint::Selected))
        } else {
            theme.style(Paint::Text)
        };
        let tick = if pack.on { "[x]" } else { "[ ]" };
        let info = &pack.info;
        let version = if info.version.is_empty() {
            String::new()
        } else {
            format!(" · {}", info.version)
        };
        let text = format!("{tick} {}  {} rules{version}", info.name, info.rules);
        lines.push(Line::from(Span::styled(one_line(&text, width), base)));
    }
    if let Some(pack) = picker.packs.get(picker.cursor.selected) {
        lines.push(Line::raw(""));
        let mut texts = vec![pack.info.description.clone(), pack.info.source.clone()];
        if pack.info.name == DEFAULT_PACK {
            texts.push("Ticked, your own rules.toml counts with it, as at start-up.".into());
        }
        for text in texts.into_iter().filter(|t| !t.is_empty()) {
            lines.push(Line::styled(text, theme.style(Paint::Dim)));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), list);
}
