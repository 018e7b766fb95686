//! A run's tallies as one self-contained HTML page: a horizontal bar chart per table (inline
//! SVG, bars stacked by column, e.g. resolved / unresolved / unknown) and the numbers as a
//! table beneath. The metrics CLI fills a [`Report`]; this module knows nothing of rules.

use super::ExportError;
use super::html::{escaped, write_head, write_tail};
use std::fmt::Write as _;
use std::io::Write;

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// The page title: the run's name.
    pub title: String,
    /// Facts shown under the title (`trajectories`, `resolved`, …).
    pub facts: Vec<(String, String)>,
    pub tables: Vec<ReportTable>,
}

/// One chart and its table: rows of counts split into columns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportTable {
    pub title: String,
    /// The columns each bar is split into, in stacking order.
    pub columns: Vec<String>,
    pub bars: Vec<Bar>,
}

/// One row: a label and a count per column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bar {
    pub label: String,
    pub values: Vec<u64>,
}

impl Bar {
    pub fn total(&self) -> u64 {
        self.values.iter().sum()
    }
}

/// Colours of the stacked segments, in column order; they read in both schemes.
const SEGMENTS: [&str; 6] = [
    "#2da44e", "#cf222e", "#8c959f", "#0969da", "#bf8700", "#8250df",
];
const WIDTH: u32 = 760;
const LABEL_WIDTH: u32 = 280;
const COUNT_WIDTH: u32 = 60;
const ROW: u32 = 24;

/// Writes `report` as an HTML page to `w`.
pub fn write_report_html(w: &mut dyn Write, report: &Report) -> Result<(), ExportError> {
    write_head(w, &escaped(&report.title))?;
    write!(
        w,
        "<main class=\"report\">\n<header id=\"top\"><h1>{}</h1>\n<dl class=\"facts\">\n",
        escaped(&report.title)
    )?;
    for (name, value) in &report.facts {
        writeln!(w, "<dt>{}</dt><dd>{}</dd>", escaped(name), escaped(value))?;
    }
    w.write_all(b"</dl>\n</header>\n")?;
    for table in &report.tables {
        write!(
            w,
            "<section class=\"chart\">\n<h2>{}</h2>\n",
            escaped(&table.title)
        )?;
        w.write_all(bar_chart(table).as_bytes())?;
        write_table(w, table)?;
        w.write_all(b"</section>\n")?;
    }
    write_tail(w)?;
    w.flush()?;
    Ok(())
}

/// The table as an inline SVG bar chart, with a legend when bars are split.
pub fn bar_chart(table: &ReportTable) -> String {
    let max = table.bars.iter().map(Bar::total).max().unwrap_or(0).max(1);
    let legend = if table.columns.len() > 1 { ROW } else { 0 };
    let rows = u32::try_from(table.bars.len()).unwrap_or(u32::MAX / ROW);
    let height = legend + rows.saturating_mul(ROW) + 4;
    let span = WIDTH - LABEL_WIDTH - COUNT_WIDTH;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg class=\"bars\" role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\">",
        escaped(&table.title)
    );
    if legend > 0 {
        let mut x = LABEL_WIDTH;
        for (i, column) in table.columns.iter().enumerate() {
            let _ = writeln!(
                svg,
                "<rect x=\"{x}\" y=\"6\" width=\"12\" height=\"12\" fill=\"{}\"/>\
                 <text x=\"{}\" y=\"16\">{}</text>",
                SEGMENTS[i % SEGMENTS.len()],
                x + 16,
                escaped(column)
            );
            x += 24 + 8 * u32::try_from(column.chars().count()).unwrap_or(20);
        }
    }
    for (row, bar) in table.bars.iter().enumerate() {
        let y = legend + u32::try_from(row).unwrap_or(0) * ROW;
        let _ = write!(
            svg,
            "<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            LABEL_WIDTH - 8,
            y + 16,
            escaped(&clip(&bar.label, 36))
        );
        let mut x = f64::from(LABEL_WIDTH);
        for (i, &value) in bar.values.iter().enumerate() {
            let w = value as f64 / max as f64 * f64::from(span);
            if w > 0.0 {
                let _ = write!(
                    svg,
                    "<rect x=\"{x:.1}\" y=\"{}\" width=\"{w:.1}\" height=\"{}\" fill=\"{}\">\
                     <title>{}: {value}</title></rect>",
                    y + 4,
                    ROW - 8,
                    SEGMENTS[i % SEGMENTS.len()],
                    escaped(table.columns.get(i).map_or("", String::as_str))
                );
            }
            x += w;
        }
        let _ = writeln!(
            svg,
            "<text class=\"bar-count\" x=\"{:.1}\" y=\"{}\">{}</text>",
            x + 6.0,
            y + 16,
            bar.total()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn write_table(w: &mut dyn Write, table: &ReportTable) -> std::io::Result<()> {
    w.write_all(b"<table class=\"counts\">\n<thead><tr><th></th>")?;
    let split = table.columns.len() > 1;
    if split {
        for column in &table.columns {
            write!(w, "<th>{}</th>", escaped(column))?;
        }
    }
    w.write_all(b"<th>total</th></tr></thead>\n<tbody>\n")?;
    for bar in &table.bars {
        write!(w, "<tr><td>{}</td>", escaped(&bar.label))?;
        if split {
            for value in &bar.values {
                write!(w, "<td>{value}</td>")?;
            }
        }
        writeln!(w, "<td>{}</td></tr>", bar.total())?;
    }
    w.write_all(b"</tbody>\n</table>\n")
}

pub(super) fn clip(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        Report {
            title: "run <1>".into(),
            facts: vec![("trajectories".into(), "300".into())],
            tables: vec![ReportTable {
                title: "Failure modes".into(),
                columns: vec!["resolved".into(), "unresolved".into()],
                bars: vec![
                    Bar {
                        label: "Syntax error".into(),
                        values: vec![10, 36],
                    },
                    Bar {
                        label: "<script>alert(1)</script>".into(),
                        values: vec![0, 4],
                    },
                ],
            }],
        }
    }

    #[test]
    fn bars_scale_to_the_longest_and_stack() {
        let svg = bar_chart(&report().tables[0]);
        let span = WIDTH - LABEL_WIDTH - COUNT_WIDTH;
        // The longest bar (46) fills the span: its segments are 10/46 and 36/46 of it.
        let first = 10.0 / 46.0 * f64::from(span);
        assert!(svg.contains(&format!("width=\"{first:.1}\"")), "{svg}");
        assert!(svg.contains(&format!("x=\"{:.1}\"", f64::from(LABEL_WIDTH) + first)));
        assert!(svg.contains(">46</text>") && svg.contains(">4</text>"));
        // A zero segment draws nothing.
        assert_eq!(svg.matches("<rect x=").count(), 2 + 3);
    }

    #[test]
    fn report_text_is_escaped() {
        let mut out = Vec::new();
        write_report_html(&mut out, &report()).unwrap();
        let html = String::from_utf8(out).unwrap();
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("<h1>run &lt;1&gt;</h1>"));
        assert!(html.contains("<td>36</td>") && html.contains("<td>46</td>"));
    }
}
