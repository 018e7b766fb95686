//! Writes styled text into a document's screen rows: wraps at the width, records where each
//! source line of a step field starts, and stops at a row limit (for the quick plain preview).

use super::Document;
use crate::text::display_width;
use crate::tui::search::Field;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

pub struct Writer {
    width: usize,
    /// Starts continuation rows of wrapped code, so a wrapped `+` line is not read as
    /// a new `-` line; empty for prose.
    marker: Option<Span<'static>>,
    max_rows: usize,
    lines: Vec<Line<'static>>,
    anchors: Vec<(Field, Vec<u32>)>,
}

impl Writer {
    pub fn new(width: usize, max_rows: Option<usize>) -> Writer {
        Writer {
            width: width.max(1),
            marker: None,
            max_rows: max_rows.unwrap_or(usize::MAX),
            lines: Vec::new(),
            anchors: Vec::new(),
        }
    }

    /// Marks the continuation rows of what follows with `marker` (code), or not (prose).
    pub fn continuation(&mut self, marker: Option<Span<'static>>) {
        self.marker = marker;
    }

    /// Whether the row limit is reached: builders stop writing.
    pub fn full(&self) -> bool {
        self.lines.len() >= self.max_rows
    }

    pub fn finish(self) -> Document {
        Document {
            lines: self.lines,
            anchors: self.anchors,
        }
    }

    pub fn blank(&mut self) {
        if !self.full() {
            self.lines.push(Line::default());
        }
    }

    /// A section rule: `── TITLE · detail ─────────`.
    pub fn rule(&mut self, title: &str, detail: &str, title_style: Style, detail_style: Style) {
        let mut spans = vec![
            Span::styled("── ", detail_style),
            Span::styled(title.to_string(), title_style),
        ];
        let mut used = 3 + display_width(title);
        if !detail.is_empty() {
            let text = format!(" · {detail}");
            used += display_width(&text);
            spans.push(Span::styled(text, detail_style));
        }
        let rest = self.width.saturating_sub(used + 1);
        if rest > 0 {
            spans.push(Span::styled(format!(" {}", "─".repeat(rest)), detail_style));
        }
        self.spans(spans);
    }

    /// Starts recording source lines of `field`: the next [`Writer::source_line`] is line 0.
    pub fn begin_field(&mut self, field: Field) {
        self.anchors.push((field, Vec::new()));
    }

    /// Records that source line `line` of the current field starts at the next row.
    pub fn source_line(&mut self, line: usize) {
        let row = u32::try_from(self.lines.len()).unwrap_or(u32::MAX);
        if let Some((_, rows)) = self.anchors.last_mut()
            && rows.len() <= line
        {
            rows.resize(line + 1, row);
        }
    }

    /// Plain text in one style, each line wrapped; an empty text is one empty row.
    pub fn text(&mut self, text: &str, style: Style) {
        if text.is_empty() {
            self.blank();
            return;
        }
        for line in text.lines() {
            if self.full() {
                return;
            }
            self.spans(vec![Span::styled(line.to_string(), style)]);
        }
    }

    /// One logical line made of styled spans, wrapped onto as many rows as it needs:
    /// after the last space that leaves the row at least half full, else at the width.
    pub fn spans(&mut self, spans: Vec<Span<'static>>) {
        if self.full() {
            return;
        }
        let total: usize = spans.iter().map(|s| display_width(&s.content)).sum();
        if total <= self.width {
            self.lines.push(Line::from(spans));
            return;
        }
        let chars: Vec<(char, usize, usize)> = spans
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.content
                    .chars()
                    .map(move |c| (c, c.width().unwrap_or(0), i))
            })
            .collect();
        let marker_width = self
            .marker
            .as_ref()
            .map_or(0, |m| display_width(&m.content));
        let mut start = 0;
        while start < chars.len() {
            let continued = start > 0 && marker_width > 0;
            let width = if continued {
                self.width.saturating_sub(marker_width).max(1)
            } else {
                self.width
            };
            let mut used = 0;
            let mut end = start;
            while end < chars.len() && (used + chars[end].1 <= width || end == start) {
                used += chars[end].1;
                end += 1;
            }
            if end < chars.len() {
                let space = chars[start..end].iter().rposition(|&(c, _, _)| c == ' ');
                if let Some(p) = space.filter(|&p| p + 1 >= (end - start) / 2 && p > 0) {
                    end = start + p + 1;
                }
            }
            let mut line = row(&spans, &chars[start..end]);
            if let Some(marker) = self.marker.as_ref().filter(|_| continued) {
                line.spans.insert(0, marker.clone());
            }
            self.lines.push(line);
            if self.full() {
                return;
            }
            start = end;
        }
    }
}

/// A row from a run of characters, regrouped into spans of the style they came from.
fn row(spans: &[Span<'static>], chars: &[(char, usize, usize)]) -> Line<'static> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current = chars.first().map_or(0, |c| c.2);
    for &(c, _, span) in chars {
        if span != current && !text.is_empty() {
            out.push(Span::styled(
                std::mem::take(&mut text),
                spans[current].style,
            ));
        }
        current = span;
        text.push(c);
    }
    if !text.is_empty() {
        out.push(Span::styled(text, spans[current].style));
    }
    Line::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(doc: &Document) -> Vec<String> {
        doc.lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_across_spans_and_keeps_styles() {
        let mut w = Writer::new(5, None);
        let red = Style::new().fg(ratatui::style::Color::Red);
        w.spans(vec![
            Span::raw("abc"),
            Span::styled("defgh", red),
            Span::raw("ij"),
        ]);
        let doc = w.finish();
        assert_eq!(rows(&doc), ["abcde", "fghij"]);
        assert_eq!(doc.lines[0].spans[1].style, red);
        assert_eq!(doc.lines[1].spans[0].content, "fgh");
        assert_eq!(doc.lines[1].spans[0].style, red);
    }

    #[test]
    fn blank_lines_are_kept() {
        let mut w = Writer::new(10, None);
        w.text("a\n\nb", Style::new());
        w.text("", Style::new());
        assert_eq!(rows(&w.finish()), ["a", "", "b", ""]);
    }

    #[test]
    fn prose_wraps_at_spaces_code_without_spaces_at_the_width() {
        let mut w = Writer::new(12, None);
        w.text("it may differ from what", Style::new());
        w.text("abcdefghijklmnop", Style::new());
        assert_eq!(
            rows(&w.finish()),
            ["it may ", "differ from ", "what", "abcdefghijkl", "mnop"]
        );
    }

    #[test]
    fn code_continuation_rows_are_marked() {
        let mut w = Writer::new(8, None);
        w.continuation(Some(Span::raw("↪ ")));
        w.text("+abcdefghijkl", Style::new());
        assert_eq!(rows(&w.finish()), ["+abcdefg", "↪ hijkl"]);
    }

    #[test]
    fn stops_at_the_row_limit() {
        let mut w = Writer::new(3, Some(2));
        w.text("abcdefghij\nmore", Style::new());
        assert!(w.full());
        assert_eq!(rows(&w.finish()), ["abc", "def"]);
    }

    #[test]
    fn anchors_map_source_lines_to_rows() {
        let mut w = Writer::new(4, None);
        w.blank();
        w.begin_field(Field::Observation);
        for (i, line) in ["aaaaaa", "b", "c"].iter().enumerate() {
            w.source_line(i);
            w.text(line, Style::new());
        }
        let doc = w.finish();
        assert_eq!(doc.row_of(Field::Observation, 0), Some(1));
        assert_eq!(doc.row_of(Field::Observation, 1), Some(3));
        assert_eq!(doc.row_of(Field::Observation, 2), Some(4));
        assert_eq!(doc.row_of(Field::Thought, 0), None);
    }

    #[test]
    fn rules_fill_the_width() {
        let mut w = Writer::new(20, None);
        w.rule("ACTION", "bash", Style::new(), Style::new());
        assert_eq!(rows(&w.finish()), ["── ACTION · bash ───"]);
    }
}
