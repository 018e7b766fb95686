//! The compare screen: the two runs in two header lines and where they part, the alignment
//! (one row per aligned pair of steps, `=` the same action, `~` a similar one, `≠` another,
//! `<`/`>` a step only one run took), and the selected pair (or the two final patches) side
//! by side.

use crate::diff::AlignedPair;
use crate::model::Trajectory;
use crate::text::{clip, display_width, one_line};
use crate::tui::document::compare as panes;
use crate::tui::layout;
use crate::tui::state::State;
use crate::tui::state::compare::{CompareView, Compared};
use crate::tui::theme::{Paint, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

pub fn render(state: &State, frame: &mut Frame, area: Rect) {
    let Some(view) = state.compare.view.as_ref() else {
        return;
    };
    let theme = &state.theme;
    let l = layout::compare(area);
    let Some(compared) = view.compared.as_ref() else {
        let text = match &view.error {
            Some(error) => format!(" Could not compare:\n {error}"),
            None => format!(" reading {} and {}…", view.titles[0], view.titles[1]),
        };
        let role = if view.error.is_some() {
            Paint::StepError
        } else {
            Paint::Dim
        };
        frame.render_widget(Paragraph::new(text).style(theme.style(role)), area);
        return;
    };
    header(view, compared, theme, frame, l.header);
    list(view, compared, theme, frame, l.list);
    panes_of(view, compared, theme, frame, &l);
}

/// The status bar's place: `COMPARE pair 4/17`.
pub fn place(state: &State) -> String {
    match state.compare.view.as_ref() {
        Some(v) if !v.pairs().is_empty() => {
            let what = if v.patches { " · final patches" } else { "" };
            format!(
                "COMPARE pair {}/{}{what}",
                v.cursor.selected + 1,
                v.pairs().len()
            )
        }
        _ => "COMPARE".to_string(),
    }
}

fn side_line(name: &str, t: &Trajectory, resolved: Option<bool>, theme: &Theme) -> Line<'static> {
    let meta = theme.style(Paint::SectionMeta);
    let (outcome, role) = match t.resolved.or(resolved) {
        Some(true) => ("✓ resolved", Paint::Resolved),
        Some(false) => ("✗ unresolved", Paint::Unresolved),
        None => ("? not judged", Paint::Unknown),
    };
    let mut facts = vec![t.format.name().to_string()];
    if let Some(model) = &t.model {
        facts.push(model.clone());
    }
    facts.push(format!("{} steps", t.steps.len()));
    if let Some(exit) = &t.exit_status {
        facts.push(format!("exit {exit}"));
    }
    Line::from(vec![
        Span::styled(format!(" {name} "), theme.style(Paint::TabActive)),
        Span::styled(format!(" {} ", t.instance_id), theme.style(Paint::Title)),
        Span::styled(format!("· {} · ", facts.join(" · ")), meta),
        Span::styled(outcome, theme.style(role)),
        Span::styled(format!(" · {}", t.display_source()), meta),
    ])
}

fn header(view: &CompareView, c: &Compared, theme: &Theme, frame: &mut Frame, area: Rect) {
    let r = &c.comparison;
    let summary = match (r.first_divergence, r.first_divergence_b) {
        (None, _) => format!(" The runs take the same {} steps.", r.a_steps),
        (Some(a), Some(b)) => format!(
            " {} pairs, {} the same · first divergence: A step {a}, B step {b}",
            r.pairs.len(),
            r.same_steps
        ),
        (Some(a), None) => format!(" first divergence: A step {a}"),
    };
    let files = if r.same_files {
        " · patches touch the same files"
    } else {
        " · patches touch different files"
    };
    let mut lines = vec![
        side_line("A", &c.a, view.resolved[0], theme),
        side_line("B", &c.b, view.resolved[1], theme),
        Line::from(vec![
            Span::styled(summary, theme.style(Paint::RunSummary)),
            Span::styled(files, theme.style(Paint::SectionMeta)),
        ]),
    ];
    if c.a.instance_id != c.b.instance_id {
        lines[2].spans.push(Span::styled(
            " · different instances",
            theme.style(Paint::FoldMarker),
        ));
    }
    super::draw_rows(frame, area, lines);
}

/// `=`, `~`, `≠`, `<`, `>` and the colour of a pair.
fn mark(pair: &AlignedPair) -> (&'static str, Paint) {
    match (pair.a, pair.b) {
        (Some(_), None) => ("<", Paint::DiffRemoved),
        (None, Some(_)) => (">", Paint::DiffAdded),
        _ if pair.same => ("=", Paint::Dim),
        _ if pair.similarity >= 0.5 => ("~", Paint::FoldMarker),
        _ => ("≠", Paint::StepError),
    }
}

fn cell(t: &Trajectory, step: Option<usize>, width: usize) -> String {
    let text = match step.and_then(|k| t.step(k)) {
        // A replay fork's step written by hand (`--edit-answer`) says so beside the original.
        Some(s) if s.edited => format!("{:>3} ✎ edited: {}", s.index, one_line(s.summary(), 200)),
        Some(s) => format!("{:>3} {}", s.index, one_line(s.summary(), 200)),
        None => String::new(),
    };
    let text = clip(&text, width);
    let pad = width.saturating_sub(display_width(&text));
    format!("{text}{}", " ".repeat(pad))
}

fn list(view: &CompareView, c: &Compared, theme: &Theme, frame: &mut Frame, area: Rect) {
    let pairs = view.pairs();
    let half = usize::from(area.width).saturating_sub(5) / 2;
    let rows = pairs
        .iter()
        .enumerate()
        .skip(view.cursor.offset)
        .take(usize::from(area.height))
        .map(|(i, pair)| {
            let (sign, role) = mark(pair);
            let base = if i == view.cursor.selected {
                theme.style(Paint::Text).patch(theme.style(Paint::Selected))
            } else {
                theme.style(Paint::Text)
            };
            Line::from(vec![
                Span::styled(format!(" {sign} "), base.patch(theme.style(role))),
                Span::styled(cell(&c.a, pair.a, half), base),
                Span::styled(" │", base.patch(theme.style(Paint::SectionMeta))),
                Span::styled(cell(&c.b, pair.b, half), base),
            ])
        });
    super::draw_rows(frame, area, rows);
}

fn panes_of(
    view: &CompareView,
    c: &Compared,
    theme: &Theme,
    frame: &mut Frame,
    l: &layout::CompareLayout,
) {
    let height = usize::from(l.panes[0].height);
    let want = Some(view.scroll.saturating_add(height));
    let pair = view.selected_pair();
    let (a, b) = if view.patches {
        (
            panes::patch_pane(&c.comparison.patch_a, l.panes[0].width, theme, want),
            panes::patch_pane(&c.comparison.patch_b, l.panes[1].width, theme, want),
        )
    } else {
        (
            panes::step_pane(&c.a, pair.and_then(|p| p.a), l.panes[0].width, theme, want),
            panes::step_pane(&c.b, pair.and_then(|p| p.b), l.panes[1].width, theme, want),
        )
    };
    let longest = a.len().max(b.len());
    let scroll = view.scroll.min(longest.saturating_sub(height));
    let title = |name: &str, step: Option<usize>, t: &Trajectory, patch: usize| {
        if view.patches {
            let files = patch;
            format!(
                " {name} final patch · {files} file{}",
                if files == 1 { "" } else { "s" }
            )
        } else {
            match step.and_then(|k| t.step(k)) {
                Some(s) => format!(
                    " {name} step {}/{} · {}",
                    s.index,
                    t.steps.len(),
                    s.tool_name()
                ),
                None => format!(" {name} · no step"),
            }
        }
    };
    let titles = [
        title(
            "A",
            pair.and_then(|p| p.a),
            &c.a,
            c.comparison.patch_a.len(),
        ),
        title(
            "B",
            pair.and_then(|p| p.b),
            &c.b,
            c.comparison.patch_b.len(),
        ),
    ];
    for (text, rect) in titles.iter().zip(l.titles) {
        let text = clip(text, usize::from(rect.width));
        frame.render_widget(
            Paragraph::new(text).style(theme.style(Paint::TabInactive)),
            rect,
        );
    }
    super::draw_rows(frame, l.panes[0], a.iter().skip(scroll));
    super::draw_rows(frame, l.panes[1], b.iter().skip(scroll));
    let bar = theme.style(Paint::SectionMeta);
    let divider = (0..l.divider.height).map(|_| Line::styled("│", bar));
    super::draw_rows(frame, l.divider, divider);
}
