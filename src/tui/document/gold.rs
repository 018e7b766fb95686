//! The gold section of the working-tree page, with `--dataset`: the trajectory's proximity
//! strip against its instance's gold patch (`·` no gold file edited, `○` a gold file edited,
//! `◐` some gold hunks, `●` every one), this step marked under it, what this step's tree holds,
//! and whether the run reached the gold change and lost it.

use super::Writer;
use super::analysis::Analysis;
use crate::diff::{FinalSource, gold_proximity};
use crate::model::Trajectory;
use crate::tui::theme::{Paint, Theme};
use ratatui::text::Span;

pub fn write(
    w: &mut Writer,
    trajectory: &Trajectory,
    analysis: &Analysis,
    gold: &str,
    step: usize,
    theme: &Theme,
) {
    let p = gold_proximity(trajectory, &analysis.reconstruction, gold);
    let title = theme.style(Paint::SectionTitle);
    let meta = theme.style(Paint::SectionMeta);
    w.rule(
        "GOLD",
        &format!(
            "{} file(s), {} hunk(s) of the dataset's gold patch",
            p.gold_files.len(),
            p.gold_hunks
        ),
        title,
        meta,
    );
    let strip = p.strip();
    w.spans(vec![Span::styled(strip.clone(), theme.style(Paint::Text))]);
    // A caret under this step (strips longer than the page wrap, and so does the caret).
    let caret = format!("{}^ step {step}", " ".repeat(step.saturating_sub(1)));
    w.text(&caret, meta);
    if let Some(here) = p.steps.get(step.saturating_sub(1)) {
        w.text(
            &format!(
                "after this step: {}/{} gold files edited, {}/{} gold hunks in the tree",
                here.files_touched,
                p.gold_files.len(),
                here.hunks_present,
                p.gold_hunks
            ),
            theme.style(Paint::Text),
        );
    }
    let source = match p.final_source {
        FinalSource::Patch => "the submitted patch",
        FinalSource::Tree => "the final tree",
    };
    let (verdict, role) = match p.reached_at {
        Some(k) if p.lost => (
            format!(
                "reached the gold change at step {k} and lost it: {source} holds {}/{} hunks",
                p.final_hunks_present, p.gold_hunks
            ),
            Paint::StepError,
        ),
        Some(k) => (
            format!("reached the gold change at step {k}; {source} keeps it"),
            Paint::Resolved,
        ),
        None => (
            format!(
                "never held every gold hunk; {source} holds {}/{}",
                p.final_hunks_present, p.gold_hunks
            ),
            Paint::Dim,
        ),
    };
    w.text(&verdict, theme.style(role));
    w.blank();
}
