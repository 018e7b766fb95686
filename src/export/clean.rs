//! Text as a reader should see it: terminal escape sequences dropped, control characters
//! made visible, line ends unified. Every piece of a trajectory goes through here before
//! an export escapes it for its format, so no format has to think about NUL or ESC.
//!
//! Zero-copy: [`clean`] hands out slices of the input between the characters it rewrites,
//! so cleaning a 5 MB observation allocates nothing.

use std::borrow::Cow;

/// Calls `emit` with the cleaned text of `text`, piece by piece, in order.
///
/// - ANSI sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, DCS/SOS/PM/APC strings, and
///   two-byte `ESC x`) are dropped: they colour a terminal, not a page.
/// - `\r\n` and a lone `\r` become `\n` (progress bars that redraw a line become lines).
/// - `\n` and `\t` stay; every other C0 control and DEL show as their Unicode control
///   pictures (`NUL` → `␀`), C1 controls as `�`.
/// - Bidirectional overrides and isolates show as `�`: they could reorder what a reader
///   sees ("Trojan Source").
pub fn clean<E>(text: &str, mut emit: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let special = b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2;
        if !special || b == b'\n' || b == b'\t' {
            i += 1;
            continue;
        }
        let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
        let (replacement, skip): (Option<&str>, usize) = match b {
            0x1b => (None, escape_len(bytes, i)),
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => (None, 1),
            b'\r' => (Some("\n"), 1),
            0x7f => (Some("\u{2421}"), 1),
            0x00..=0x1f => (Some(control_picture(b)), 1),
            _ => {
                let c = text[i..].chars().next().unwrap_or(' ');
                if is_c1(c) || is_bidi_control(c) {
                    (Some("\u{fffd}"), ch_len)
                } else {
                    i += ch_len;
                    continue;
                }
            }
        };
        if start < i {
            emit(&text[start..i])?;
        }
        if let Some(r) = replacement {
            emit(r)?;
        }
        i += skip;
        start = i;
    }
    if start < bytes.len() {
        emit(&text[start..])?;
    }
    Ok(())
}

/// The cleaned text, borrowed when nothing needed cleaning.
pub fn cleaned(text: &str) -> Cow<'_, str> {
    if !needs_cleaning(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let _ = clean(text, |piece| {
        out.push_str(piece);
        Ok::<(), std::convert::Infallible>(())
    });
    Cow::Owned(out)
}

fn needs_cleaning(text: &str) -> bool {
    text.bytes()
        .any(|b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
        || text.chars().any(|c| is_c1(c) || is_bidi_control(c))
}

fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `␀` for NUL, `␁` for SOH, … : U+2400 plus the byte.
fn control_picture(b: u8) -> &'static str {
    const PICTURES: [&str; 32] = [
        "\u{2400}", "\u{2401}", "\u{2402}", "\u{2403}", "\u{2404}", "\u{2405}", "\u{2406}",
        "\u{2407}", "\u{2408}", "\u{2409}", "\u{240a}", "\u{240b}", "\u{240c}", "\u{240d}",
        "\u{240e}", "\u{240f}", "\u{2410}", "\u{2411}", "\u{2412}", "\u{2413}", "\u{2414}",
        "\u{2415}", "\u{2416}", "\u{2417}", "\u{2418}", "\u{2419}", "\u{241a}", "\u{241b}",
        "\u{241c}", "\u{241d}", "\u{241e}", "\u{241f}",
    ];
    PICTURES.get(usize::from(b)).copied().unwrap_or("\u{fffd}")
}

/// Length in bytes of the escape sequence starting at `bytes[at] == ESC`. A sequence cut
/// off by the end of the text runs to the end.
fn escape_len(bytes: &[u8], at: usize) -> usize {
    let rest = &bytes[at..];
    match rest.get(1) {
        None => 1,
        // CSI: parameters and intermediates, then one final byte in 0x40..=0x7e.
        Some(b'[') => rest[2..]
            .iter()
            .position(|b| (0x40..=0x7e).contains(b))
            .map_or(rest.len(), |p| p + 3),
        // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (`ESC \`).
        Some(b']' | b'P' | b'X' | b'^' | b'_') => {
            let mut j = 2;
            while j < rest.len() {
                match rest[j] {
                    0x07 => return j + 1,
                    0x1b if rest.get(j + 1) == Some(&b'\\') => return j + 2,
                    _ => j += 1,
                }
            }
            rest.len()
        }
        // `ESC (`-style charset selections take one more byte; other escapes are two bytes.
        Some(b'(' | b')' | b'*' | b'+') => 3.min(rest.len()),
        Some(&b) if b < 0x80 => 2,
        // ESC before a multi-byte character: drop only the ESC, keep the character whole.
        Some(_) => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_colours_and_titles_are_dropped() {
        assert_eq!(cleaned("\x1b[1;31mFAILED\x1b[0m ok"), "FAILED ok");
        assert_eq!(cleaned("\x1b]0;title\x07after"), "after");
        assert_eq!(cleaned("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
        assert_eq!(cleaned("a\x1b(Bb"), "ab");
        assert_eq!(cleaned("cut off \x1b[31"), "cut off ");
    }

    #[test]
    fn controls_become_visible_and_line_ends_unify() {
        assert_eq!(cleaned("a\0b"), "a\u{2400}b");
        assert_eq!(cleaned("bell\x07"), "bell\u{2407}");
        assert_eq!(cleaned("del\x7f"), "del\u{2421}");
        assert_eq!(cleaned("x\r\ny\rz"), "x\ny\nz");
        assert_eq!(cleaned("tab\there\n"), "tab\there\n");
        assert_eq!(cleaned("c1\u{9b}31m"), "c1\u{fffd}31m");
        assert_eq!(cleaned("rlo\u{202e}txt"), "rlo\u{fffd}txt");
    }

    #[test]
    fn clean_text_is_borrowed_and_unicode_is_kept() {
        let text = "héllo — 世界 ✓ \u{2028}";
        assert!(matches!(cleaned(text), Cow::Borrowed(_)));
        assert_eq!(cleaned(&format!("{text}\0")), format!("{text}\u{2400}"));
        assert_eq!(cleaned("\x1bé"), "é");
    }
}
