//! A [`ReportTable`] as a bar chart in plain text, for Markdown reports and terminals where
//! an SVG cannot go: one line per bar, segments stacked by column and drawn with a different
//! block glyph each (so the split reads without colour), the total after the bar, and a
//! legend line when bars are split. The HTML report draws the same table as SVG.

use super::report::{Bar, ReportTable, clip};
use unicode_width::UnicodeWidthStr;

/// The glyph of each column's segment, in stacking order.
const GLYPHS: [char; 4] = ['█', '▓', '▒', '░'];
/// Labels longer than this are clipped so the bars line up in an 80-column terminal.
const LABEL_CHARS: usize = 28;

/// The chart of `table` with the longest bar `width` cells long. Each line ends in a newline;
/// an empty table gives an empty string.
pub fn text_chart(table: &ReportTable, width: usize) -> String {
    if table.bars.is_empty() {
        return String::new();
    }
    let max = table.bars.iter().map(Bar::total).max().unwrap_or(0).max(1);
    let labels: Vec<String> = table
        .bars
        .iter()
        .map(|b| clip(&b.label, LABEL_CHARS))
        .collect();
    let label_width = labels.iter().map(|l| l.width()).max().unwrap_or(0);
    let mut out = String::new();
    if table.columns.len() > 1 {
        let legend: Vec<String> = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, column)| format!("{} {column}", GLYPHS[i % GLYPHS.len()]))
            .collect();
        out.push_str(&" ".repeat(label_width + 1));
        out.push_str(&legend.join("  "));
        out.push('\n');
    }
    for (bar, label) in table.bars.iter().zip(&labels) {
        out.push_str(label);
        out.push_str(&" ".repeat(label_width - label.width() + 1));
        let drawn = segments(&bar.values, max, width);
        for (i, cells) in drawn.iter().enumerate() {
            out.extend(std::iter::repeat_n(GLYPHS[i % GLYPHS.len()], *cells));
        }
        let cells: usize = drawn.iter().sum();
        if cells > 0 {
            out.push(' ');
        }
        out.push_str(&bar.total().to_string());
        out.push('\n');
    }
    out
}

/// Cells per segment: the bar's length is its total scaled to `width` (at least one cell when
/// the total is not zero), and the segments split it by cumulative rounding so they always
/// add up to the bar and a non-zero segment of a drawn bar never vanishes unless the bar is
/// shorter than its number of non-zero segments.
fn segments(values: &[u64], max: u64, width: usize) -> Vec<usize> {
    let total: u64 = values.iter().sum();
    if total == 0 || width == 0 {
        return vec![0; values.len()];
    }
    let length = ((total as f64 / max as f64) * width as f64)
        .round()
        .max(1.0) as usize;
    let mut cells = vec![0; values.len()];
    let mut seen = 0u64;
    let mut drawn = 0usize;
    for (i, &value) in values.iter().enumerate() {
        seen += value;
        let end = ((seen as f64 / total as f64) * length as f64).round() as usize;
        cells[i] = end - drawn;
        drawn = end;
    }
    // Rounding can swallow a small segment; take a cell from the largest one for it.
    for i in 0..values.len() {
        if values[i] > 0
            && cells[i] == 0
            && let Some(big) = (0..cells.len())
                .filter(|&j| cells[j] > 1)
                .max_by_key(|&j| cells[j])
        {
            cells[big] -= 1;
            cells[i] = 1;
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(bars: &[(&str, &[u64])]) -> ReportTable {
        ReportTable {
            title: "t".into(),
            columns: vec!["resolved".into(), "unresolved".into(), "unknown".into()],
            bars: bars
                .iter()
                .map(|(label, values)| Bar {
                    label: (*label).into(),
                    values: values.to_vec(),
                })
                .collect(),
        }
    }

    fn glyphs(line: &str, glyph: char) -> usize {
        line.chars().filter(|&c| c == glyph).count()
    }

    #[test]
    fn the_longest_bar_fills_the_width_and_segments_stack_in_order() {
        let chart = text_chart(
            &table(&[("syntax_error", &[10, 30, 0]), ("timeout", &[0, 5, 5])]),
            40,
        );
        let lines: Vec<&str> = chart.lines().collect();
        assert_eq!(lines.len(), 3, "{chart}");
        assert!(lines[0].contains("█ resolved  ▓ unresolved  ▒ unknown"));
        assert_eq!(glyphs(lines[1], '█'), 10);
        assert_eq!(glyphs(lines[1], '▓'), 30);
        assert!(lines[1].ends_with(" 40"));
        assert!(lines[1].find('█') < lines[1].find('▓'));
        // 10 of 40: a quarter of the width, split evenly.
        assert_eq!(glyphs(lines[2], '▓'), 5);
        assert_eq!(glyphs(lines[2], '▒'), 5);
        assert!(lines[2].ends_with(" 10"));
        // Bars start in the same column whatever the label's length.
        let start = |l: &str| {
            l.char_indices()
                .find(|(_, c)| "█▓▒".contains(*c))
                .map(|x| x.0)
        };
        assert_eq!(start(lines[1]), Some(13));
        assert_eq!(
            lines[2].chars().take_while(|c| !"█▓▒".contains(*c)).count(),
            13
        );
    }

    #[test]
    fn small_counts_stay_visible_and_zero_draws_nothing() {
        let chart = text_chart(
            &table(&[
                ("big", &[1000, 0, 0]),
                ("tiny", &[0, 1, 1]),
                ("none", &[0, 0, 0]),
            ]),
            20,
        );
        let lines: Vec<&str> = chart.lines().collect();
        assert_eq!(glyphs(lines[1], '█'), 20);
        // 2 of 1000 rounds to nothing, but a non-zero count is never an empty bar.
        assert_eq!(glyphs(lines[2], '▓') + glyphs(lines[2], '▒'), 1);
        assert!(lines[2].ends_with(" 2"));
        assert_eq!(lines[3], "none 0");
    }

    #[test]
    fn segments_add_up_to_the_bar() {
        for values in [[1u64, 1, 1], [7, 0, 3], [0, 0, 9], [333, 333, 334]] {
            let cells = segments(&values, 1000, 37);
            let total: u64 = values.iter().sum();
            let length = ((total as f64 / 1000.0) * 37.0).round().max(1.0) as usize;
            assert_eq!(
                cells.iter().sum::<usize>(),
                length,
                "{values:?} -> {cells:?}"
            );
            for (v, c) in values.iter().zip(&cells) {
                if *v == 0 {
                    assert_eq!(*c, 0, "{values:?} -> {cells:?}");
                }
            }
        }
    }

    #[test]
    fn one_column_has_no_legend_and_long_labels_are_clipped() {
        let chart = text_chart(
            &ReportTable {
                title: "t".into(),
                columns: vec!["count".into()],
                bars: vec![Bar {
                    label: "a_rule_name_that_goes_on_and_on_forever".into(),
                    values: vec![3],
                }],
            },
            10,
        );
        assert_eq!(chart.lines().count(), 1);
        assert!(
            chart.starts_with("a_rule_name_that_goes_on_and…"),
            "{chart}"
        );
        assert_eq!(text_chart(&table(&[]), 10), "");
    }
}
