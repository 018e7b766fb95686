//! Text from logs made safe and measurable for display: sanitising, display width, clipping;
//! and counts written with thousands separators.
//!
//! Observations are whatever a program printed: ANSI colours, cursor movement, progress bars
//! redrawn with `\r`, a stray bell. Printed raw they can move the cursor, switch the screen
//! or change its colours. [`sanitise`] turns such text into what a terminal would have shown,
//! as plain characters that each occupy their display width. Used by the terminal app, the
//! CLI and any other renderer (an HTML export); knows nothing of terminals itself.

use std::borrow::Cow;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// `1234567` → `1,234,567`: counts as people read them, on screen and in exports.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Columns between tab stops.
pub const TAB_WIDTH: usize = 8;

/// `text` without escape sequences and control characters, as a terminal would have shown it.
///
/// - ANSI/VT escape sequences (CSI, OSC, DCS and the like, 7- and 8-bit) are removed.
/// - `\r\n` is a newline; a lone `\r` returns to the start of the line and what follows
///   overwrites it (progress bars end up as their last state); backspace moves back one.
/// - Tabs become spaces up to the next multiple of [`TAB_WIDTH`].
/// - Other control characters become their visible Unicode "control picture" (`␀`, `␇`…),
///   and bidirectional overrides, which can reorder what follows them on screen, are dropped.
///
/// Text with nothing to change is returned borrowed.
pub fn sanitise(text: &str) -> Cow<'_, str> {
    if is_clean(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut line = Line::default();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                line.flush_into(&mut out);
                out.push('\n');
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => line.carriage_return(),
            '\u{8}' => line.backspace(),
            '\t' => {
                let spaces = TAB_WIDTH - line.column() % TAB_WIDTH;
                for _ in 0..spaces {
                    line.put(' ');
                }
            }
            '\u{1b}' => skip_escape(&mut chars, &mut line),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\u{80}'..='\u{9f}' => {}
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c if (c as u32) < 0x20 => line.put(control_picture(c)),
            '\u{7f}' => line.put('\u{2421}'),
            c => line.put(c),
        }
    }
    line.flush_into(&mut out);
    Cow::Owned(out)
}

/// Whether `text` holds nothing [`sanitise`] would change: a quick byte scan.
fn is_clean(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (b < 0x20 && b != b'\n') || b == 0x7f {
            return false;
        }
        // C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
        if b == 0xc2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9f).contains(n)) {
            return false;
        }
        // Bidi controls: U+202A..U+202E (E2 80 AA..AE) and U+2066..U+2069 (E2 81 A6..A9).
        if b == 0xe2 {
            match (bytes.get(i + 1), bytes.get(i + 2)) {
                (Some(0x80), Some(n)) if (0xaa..=0xae).contains(n) => return false,
                (Some(0x81), Some(n)) if (0xa6..=0xa9).contains(n) => return false,
                _ => {}
            }
        }
        i += 1;
    }
    true
}

fn control_picture(c: char) -> char {
    char::from_u32(0x2400 + c as u32).unwrap_or('?')
}

/// The line being written, with a cursor, so that `\r` and backspace overwrite as a
/// terminal does. Most lines never move the cursor and stay a plain append.
#[derive(Default)]
struct Line {
    chars: Vec<char>,
    cursor: usize,
}

impl Line {
    fn put(&mut self, c: char) {
        if self.cursor < self.chars.len() {
            self.chars[self.cursor] = c;
        } else {
            self.chars.push(c);
        }
        self.cursor += 1;
    }

    fn carriage_return(&mut self) {
        self.cursor = 0;
    }

    fn backspace(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }

    /// Display column of the cursor, for tab stops.
    fn column(&self) -> usize {
        self.chars[..self.cursor.min(self.chars.len())]
            .iter()
            .map(|c| c.width().unwrap_or(0))
            .sum()
    }

    fn flush_into(&mut self, out: &mut String) {
        out.extend(self.chars.drain(..));
        self.cursor = 0;
    }
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// After ESC: one escape sequence, whatever its kind. A lone ESC shows as `␛`.
fn skip_escape(chars: &mut Chars<'_>, line: &mut Line) {
    match chars.peek().copied() {
        Some('[') => {
            chars.next();
            skip_csi(chars);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            chars.next();
            skip_string(chars);
        }
        // nF sequences: intermediates then a final byte (`ESC ( B` selects a charset).
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            while chars
                .next_if(|c| ('\u{20}'..='\u{2f}').contains(c))
                .is_some()
            {}
            chars.next_if(|c| ('\u{30}'..='\u{7e}').contains(c));
        }
        // Fp, Fe and Fs sequences: one final byte (`ESC 7`, `ESC c`, `ESC M`).
        Some(c) if ('\u{30}'..='\u{7e}').contains(&c) => {
            chars.next();
        }
        _ => line.put('\u{241b}'),
    }
}

/// After CSI: parameter and intermediate bytes, then one final byte.
fn skip_csi(chars: &mut Chars<'_>) {
    while chars
        .next_if(|c| ('\u{20}'..='\u{3f}').contains(c))
        .is_some()
    {}
    chars.next_if(|c| ('\u{40}'..='\u{7e}').contains(c));
}

/// After OSC, DCS and friends: everything up to BEL, ST (`ESC \`), or a newline (a sequence
/// left unterminated must not swallow the rest of the log).
fn skip_string(chars: &mut Chars<'_>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\u{7}' | '\u{9c}' => {
                chars.next();
                return;
            }
            '\u{1b}' => {
                chars.next();
                chars.next_if_eq(&'\\');
                return;
            }
            '\n' => return,
            _ => {
                chars.next();
            }
        }
    }
}

/// Columns `text` occupies on a terminal. Expects sanitised text (no controls, no tabs).
pub fn display_width(text: &str) -> usize {
    text.width()
}

/// `text` cut to at most `width` columns, ending in `…` when something was cut. Stops
/// reading at the cut, so clipping a huge line costs only what is shown.
pub fn clip(text: &str, width: usize) -> Cow<'_, str> {
    let mut used = 0;
    // Byte index where the text must be cut to leave room for the ellipsis.
    let mut cut = None;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if cut.is_none() && used + w > width.saturating_sub(1) {
            cut = Some(i);
        }
        used += w;
        if used > width {
            let Some(cut) = cut.filter(|_| width > 0) else {
                return Cow::Borrowed("");
            };
            return Cow::Owned(format!("{}…", &text[..cut]));
        }
    }
    Cow::Borrowed(text)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The first line of `text`, sanitised and clipped to `width` columns: for one-line summaries
/// in lists and tables.
pub fn one_line(text: &str, width: usize) -> String {
    let first = text.trim_start().lines().next().unwrap_or("");
    // Sanitising only the first line keeps a 10 MB observation from being copied whole.
    let clean = sanitise(first);
    clip(clean.trim_end(), width).into_owned()
}

/// `text` split into pieces of at most `width` columns (hard wrap, as a terminal wraps).
/// Wide characters never straddle a break. An empty line yields one empty piece.
pub fn wrap(text: &str, width: usize) -> Vec<&str> {
    let width = width.max(1);
    if text.len() <= width && text.is_ascii() {
        return vec![text];
    }
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut used = 0;
    for (i, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width && i > start {
            pieces.push(&text[start..i]);
            start = i;
            used = 0;
        }
        used += w;
    }
    pieces.push(&text[start..]);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(793912), "793,912");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(sanitise("plain\ntext ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn colours_and_cursor_movement_are_removed() {
        let raw = "\u{1b}[31mred\u{1b}[0m \u{1b}[2J\u{1b}[Hcleared \u{1b}]0;title\u{7}ok \u{1b}(Bx";
        assert_eq!(sanitise(raw), "red cleared ok x");
    }

    #[test]
    fn osc_terminated_by_st_and_eight_bit_csi() {
        assert_eq!(
            sanitise("a\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\b"),
            "alinkb"
        );
        assert_eq!(sanitise("a\u{9b}1mb"), "ab");
    }

    #[test]
    fn unterminated_osc_stops_at_the_newline() {
        assert_eq!(sanitise("a\u{1b}]0;never ends\nnext line"), "a\nnext line");
    }

    #[test]
    fn carriage_returns_overwrite_like_a_terminal() {
        assert_eq!(sanitise("10%\r50%\r100%\ndone"), "100%\ndone");
        assert_eq!(sanitise("abcdef\rXY"), "XYcdef");
        assert_eq!(sanitise("windows\r\nline"), "windows\nline");
        assert_eq!(sanitise("ab\u{8}c"), "ac");
    }

    #[test]
    fn tabs_expand_to_stops() {
        assert_eq!(sanitise("a\tb"), "a       b");
        assert_eq!(sanitise("     1\timport os"), "     1  import os");
    }

    #[test]
    fn other_controls_become_visible_and_bidi_overrides_vanish() {
        assert_eq!(sanitise("bell\u{7}nul\u{0}"), "bell␇nul␀");
        assert_eq!(sanitise("a\u{202e}b"), "ab");
        assert_eq!(sanitise("lone \u{1b}"), "lone ␛");
    }

    #[test]
    fn clipping_respects_display_width() {
        assert_eq!(clip("hello world", 5), "hell…");
        assert_eq!(clip("hello", 5), "hello");
        assert_eq!(clip("日本語テキスト", 5), "日本…");
        assert_eq!(display_width("日本"), 4);
        assert_eq!(clip("ab", 0), "");
        assert_eq!(head("héllo", 2), "h");
    }

    #[test]
    fn one_line_takes_the_first_line_clean() {
        assert_eq!(
            one_line("\n  \u{1b}[1mls -la\u{1b}[0m\ncat x", 80),
            "ls -la"
        );
    }

    #[test]
    fn wrapping_breaks_at_the_width_without_splitting_wide_chars() {
        assert_eq!(wrap("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap("", 3), vec![""]);
        assert_eq!(wrap("日本語", 3), vec!["日", "本", "語"]);
    }
}
