//! Free text a model or a user wrote (a thought, the task) as Markdown prose that renders as
//! they meant it, yet cannot break the document around it.
//!
//! Models write Markdown: paragraphs, lists, inline code and fenced blocks are kept. What
//! could escape is neutralised:
//! - a fenced block inside the text is re-fenced with a fence longer than its content, and
//!   one left open is closed where the text ends, so it cannot swallow what follows;
//! - `<` and `&` outside code spans become entities, so no raw HTML (`<details>`,
//!   `<!--`, `<script>`) starts; a `<` that opens a line is escaped even inside a code span,
//!   since an HTML block starts there before inline code is seen;
//! - an indented code block (a traceback pasted into an issue) is kept verbatim, but only
//!   where CommonMark would read it as code: not after a list item, whose continuation
//!   lines look the same.

use crate::export::clean::cleaned;
use crate::export::markdown::fence::fence_for;
use std::io::{self, Write};

/// Writes `text` as prose followed by a blank line.
pub fn write_prose(w: &mut dyn Write, text: &str) -> io::Result<()> {
    let text = cleaned(text);
    let mut paragraph: Vec<&str> = Vec::new();
    let mut in_list = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let indent = spaces(line);
        if let Some(open) = Opener::parse(line) {
            flush(w, &mut paragraph)?;
            let mut body = Vec::new();
            for inner in lines.by_ref() {
                if open.closed_by(inner) {
                    break;
                }
                body.push(inner);
            }
            write_fenced(w, &open, &body)?;
        } else if line.trim().is_empty() {
            flush(w, &mut paragraph)?;
        } else if paragraph.is_empty() && indent >= 4 && !in_list {
            // Indented code: literal in CommonMark, so written as it is.
            writeln!(w, "{line}")?;
            while let Some(next) = lines.next_if(|l| l.trim().is_empty() || spaces(l) >= 4) {
                writeln!(w, "{next}")?;
            }
            writeln!(w)?;
        } else {
            if paragraph.is_empty() && indent <= 3 {
                in_list = starts_container(&line[indent..]);
            }
            paragraph.push(line);
        }
    }
    flush(w, &mut paragraph)?;
    Ok(())
}

fn spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A list item or a footnote definition: containers whose continuation lines are indented.
fn starts_container(text: &str) -> bool {
    let bullet = matches!(text.as_bytes(), [b'-' | b'*' | b'+', b' ' | b'\t', ..])
        || matches!(text, "-" | "*" | "+");
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let ordered = (1..=9).contains(&digits)
        && matches!(text.as_bytes().get(digits), Some(b'.' | b')'))
        && matches!(text.as_bytes().get(digits + 1), None | Some(b' ' | b'\t'));
    bullet || ordered || text.starts_with("[^")
}

/// An opening code fence: up to three spaces, then three or more backticks or tildes.
struct Opener<'a> {
    indent: usize,
    marker: u8,
    len: usize,
    info: &'a str,
}

impl<'a> Opener<'a> {
    fn parse(line: &'a str) -> Option<Opener<'a>> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return None;
        }
        let rest = &line[indent..];
        let marker = *rest.as_bytes().first()?;
        if marker != b'`' && marker != b'~' {
            return None;
        }
        let len = rest.bytes().take_while(|&b| b == marker).count();
        let info = rest[len..].trim();
        // A backtick "fence" whose info string holds a backtick is inline code, not a fence.
        if len < 3 || (marker == b'`' && info.contains('`')) {
            return None;
        }
        Some(Opener {
            indent,
            marker,
            len,
            info,
        })
    }

    fn closed_by(&self, line: &str) -> bool {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let run = rest.bytes().take_while(|&b| b == self.marker).count();
        indent <= 3 && run >= self.len && rest[run..].trim().is_empty()
    }

    /// The language word of the info string, if it is a plain one.
    fn language(&self) -> &'a str {
        let word = self.info.split_whitespace().next().unwrap_or("");
        let plain = word.len() <= 24
            && word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-_.#".contains(c));
        if plain { word } else { "" }
    }
}

fn write_fenced(w: &mut dyn Write, open: &Opener, body: &[&str]) -> io::Result<()> {
    let longest = body.iter().map(|l| fence_for(l).len()).max().unwrap_or(3);
    let fence = "`".repeat(longest.max(3));
    let indent = " ".repeat(open.indent);
    writeln!(w, "{indent}{fence}{}", open.language())?;
    for line in body {
        writeln!(w, "{line}")?;
    }
    writeln!(w, "{indent}{fence}\n")
}

fn flush(w: &mut dyn Write, paragraph: &mut Vec<&str>) -> io::Result<()> {
    if paragraph.is_empty() {
        return Ok(());
    }
    let text = paragraph.join("\n");
    paragraph.clear();
    let escaped = escape_inline(&text);
    for line in escaped.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent <= 3 && line[indent..].starts_with('<') {
            writeln!(w, "{}&lt;{}", &line[..indent], &line[indent + 1..])?;
        } else {
            writeln!(w, "{line}")?;
        }
    }
    writeln!(w)
}

/// `<` and `&` as entities outside code spans; code spans and backslash escapes verbatim.
fn escape_inline(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => i += 2,
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                i += match closing_run(&bytes[i + run..], run) {
                    Some(end) => run + end + run,
                    None => run,
                };
            }
            b'<' | b'&' => {
                out.push_str(&text[copied..i]);
                out.push_str(if bytes[i] == b'<' { "&lt;" } else { "&amp;" });
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Where a backtick run of exactly `len` starts in `rest`, closing a code span.
fn closing_run(rest: &[u8], len: usize) -> Option<usize> {
    let mut j = 0;
    while j < rest.len() {
        if rest[j] == b'`' {
            let run = rest[j..].iter().take_while(|&&b| b == b'`').count();
            if run == len {
                return Some(j);
            }
            j += run;
        } else {
            j += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prose(text: &str) -> String {
        let mut out = Vec::new();
        let _ = write_prose(&mut out, text);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn markdown_a_model_wrote_is_kept() {
        let text = "Let me look at `foo<T>()`.\n\n- one\n- two\n\n```python\nprint(1)\n```\nDone.";
        assert_eq!(
            prose(text),
            "Let me look at `foo<T>()`.\n\n- one\n- two\n\n```python\nprint(1)\n```\n\nDone.\n\n"
        );
    }

    #[test]
    fn raw_html_is_neutralised_outside_code() {
        assert_eq!(
            prose("a <img src=x onerror=alert(1)> & b"),
            "a &lt;img src=x onerror=alert(1)> &amp; b\n\n"
        );
        assert_eq!(prose("<!-- swallow"), "&lt;!-- swallow\n\n");
        assert_eq!(prose("</details>"), "&lt;/details>\n\n");
        // A code span across lines: the `<` opening the second line would start an HTML
        // block before the span is seen.
        assert_eq!(prose("`a\n<!-- b`"), "`a\n&lt;!-- b`\n\n");
        assert_eq!(prose("\\<b> `x`"), "\\<b> `x`\n\n");
    }

    #[test]
    fn fences_in_the_text_are_closed_and_outgrown() {
        assert_eq!(prose("```\nopen forever"), "```\nopen forever\n```\n\n");
        assert_eq!(
            prose("~~~md\n```\ninner\n```\n~~~"),
            "````md\n```\ninner\n```\n````\n\n"
        );
        assert_eq!(prose("``` `x` ```"), "``` `x` ```\n\n");
        assert_eq!(prose("```js onload=x\n1\n```"), "```js\n1\n```\n\n");
        assert_eq!(prose("```\"><script>\n1\n```"), "```\n1\n```\n\n");
    }

    #[test]
    fn indented_code_is_verbatim_but_list_continuations_are_not() {
        let traceback = "Error:\n\n    File \"<stdin>\", line 1, in <module>\n\n    x\nafter <b>";
        assert_eq!(
            prose(traceback),
            "Error:\n\n    File \"<stdin>\", line 1, in <module>\n\n    x\n\nafter &lt;b>\n\n"
        );
        assert_eq!(
            prose("- item\n\n    more <!-- x"),
            "- item\n\n    more &lt;!-- x\n\n"
        );
        assert_eq!(prose("1. one\n\n    <b>"), "1. one\n\n    &lt;b>\n\n");
    }

    #[test]
    fn an_unmatched_backtick_is_text() {
        assert_eq!(prose("it's a ` and a < b"), "it's a ` and a &lt; b\n\n");
    }
}
