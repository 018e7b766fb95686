//! A submission's patch lines (`count_patch_lines`: the lines that are not blank) counted on
//! the raw bytes of its JSON string, escape by escape, without decoding it: a submission is
//! a whole patch (a tenth of a mini-swe-agent file, twice: in `info` and in the exit
//! message), and decoding then counting it was a third of the raw summary.

use super::decode;
use crate::formats::raw_json::Span;
use crate::model::count_patch_lines;
use memchr::memchr;

/// `count_patch_lines` of the value at `span` when it is a string (`Some(None)` when it is
/// not); read on its raw bytes ([`raw_patch_lines`]) or decoded.
pub(super) fn string_patch_lines(bytes: &[u8], span: &Span) -> Option<Option<usize>> {
    if bytes[span.start] != b'"' {
        return Some(None);
    }
    let inside = &bytes[span.start + 1..span.end - 1];
    if let Some(lines) = raw_patch_lines(inside) {
        return Some(Some(lines));
    }
    let text: String = decode(bytes, span)?;
    Some(Some(count_patch_lines(&text)))
}

/// `count_patch_lines` (the lines that are not blank) of the text a JSON string's raw inside
/// decodes to, escape by escape: a line break is `\n` or `\u000a`, and a blank line holds
/// only whitespace (spaces, `\t`, `\r`, `\f`, and other whitespace as is or as `\uXXXX`).
/// A line is crossed from backslash to backslash once a character that is not blank is seen.
/// `None` (decode it) for a surrogate escape or a raw control character.
fn raw_patch_lines(inside: &[u8]) -> Option<usize> {
    let (mut lines, mut filled, mut at) = (0, false, 0);
    while at < inside.len() {
        if filled {
            // Jump to the next escape: only `\n` ends the line.
            let Some(k) = memchr(b'\\', &inside[at..]) else {
                break;
            };
            at += k;
        }
        match inside[at] {
            b'\\' => {
                let (c, width) = match *inside.get(at + 1)? {
                    b'n' => ('\n', 2),
                    b't' | b'r' | b'f' => (' ', 2),
                    b'u' => {
                        let hex = inside.get(at + 2..at + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        let hex = std::str::from_utf8(hex).ok()?;
                        // A surrogate (half of a pair, or a lone one serde refuses): decode.
                        (char::from_u32(u32::from_str_radix(hex, 16).ok()?)?, 6)
                    }
                    _ => ('x', 2),
                };
                if c == '\n' {
                    lines += usize::from(filled);
                    filled = false;
                } else if !c.is_whitespace() {
                    filled = true;
                }
                at += width;
            }
            b' ' => at += 1,
            b if b < b' ' => return None,
            b if b.is_ascii() => {
                filled = true;
                at += 1;
            }
            b => {
                let len = match b {
                    0xC0..=0xDF => 2,
                    0xE0..=0xEF => 3,
                    _ => 4,
                };
                let c = std::str::from_utf8(inside.get(at..at + len)?).ok()?;
                filled = !c.chars().all(char::is_whitespace);
                at += len;
            }
        }
    }
    Some(lines + usize::from(filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the raw count against `count_patch_lines` on the decoded text, and returns it.
    fn check(text: &str) -> usize {
        let quoted = serde_json::to_string(text).unwrap();
        let want = count_patch_lines(text);
        let got = raw_patch_lines(&quoted.as_bytes()[1..quoted.len() - 1]);
        assert_eq!(got, Some(want), "{text:?}");
        want
    }

    #[test]
    fn patch_lines_are_counted_on_raw_bytes_as_on_text() {
        for text in [
            "",
            "\n",
            "  \n\t\n\r\n",
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
            "no newline at the end",
            "\"quoted\"\n\\backslash\n/slash\n\u{8}\n\u{c}\n",
            "\u{a0}\n\u{3000} \n é\n\u{2028}\n\u{85}x",
            " \t \r\n+ tail\r\n\n\n",
        ] {
            check(text);
        }
        assert_eq!(check("a\n\n \n\u{a0}\nb\r\n"), 2);
        // The same texts as Python writes them, every non-ASCII character as `\uXXXX`.
        for text in [
            "\u{a0}\n\u{3000} \n é\n\u{2028}\n\u{85}x",
            "x\u{1680}\n\u{2000}\n",
        ] {
            let quoted = serde_json::to_string(text).unwrap();
            let ascii: String = quoted[1..quoted.len() - 1]
                .chars()
                .map(|c| {
                    if c.is_ascii() {
                        c.to_string()
                    } else {
                        format!("\\u{:04x}", c as u32)
                    }
                })
                .collect();
            let want = Some(count_patch_lines(text));
            assert_eq!(raw_patch_lines(ascii.as_bytes()), want, "{text:?}");
        }
    }

    #[test]
    fn a_surrogate_or_a_control_character_is_left_to_decoding() {
        assert_eq!(raw_patch_lines(br"\ud83d\ude00"), None);
        // Where the line is still blank (further on, like the walk, it does not look).
        assert_eq!(raw_patch_lines(b" \x01b"), None);
        assert_eq!(raw_patch_lines(br"a\nb\n"), Some(2));
        // Python's `\uXXXX` escapes: a line break, whitespace, a letter.
        assert_eq!(raw_patch_lines(br"a\u000a\u00a0\u2028\n\u00e9"), Some(2));
        assert_eq!(raw_patch_lines(br"\u000a\u000ab"), Some(1));
    }
}
