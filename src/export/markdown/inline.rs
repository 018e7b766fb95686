//! Short pieces of a trajectory inside Markdown lines (a heading, a bullet): as code spans
//! or as escaped text, always on one line, never able to start a block or raw HTML.

use crate::export::clean::cleaned;

/// `text` as a code span: delimiters longer than any backtick run inside, line ends as
/// spaces.
pub fn code(text: &str) -> String {
    let text = one_line(text);
    if text.is_empty() {
        return "` `".into();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let ticks = "`".repeat(longest + 1);
    // A span that starts or ends with a backtick needs a space so the delimiters stay apart;
    // CommonMark strips one space from each end when both are there.
    let pad = text.starts_with('`') || text.ends_with('`') || text.starts_with(' ');
    if pad {
        format!("{ticks} {text} {ticks}")
    } else {
        format!("{ticks}{text}{ticks}")
    }
}

/// `text` as plain inline text: punctuation that Markdown or HTML would read is escaped.
pub fn text(text: &str) -> String {
    let text = one_line(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!' | '&' => true,
            // Intraword underscores never emphasise; escaping them would clutter ids.
            '_' => {
                let before = i.checked_sub(1).and_then(|j| chars.get(j));
                let after = chars.get(i + 1);
                !(before.is_some_and(|c| c.is_alphanumeric() || *c == '_')
                    && after.is_some_and(|c| c.is_alphanumeric() || *c == '_'))
            }
            _ => false,
        };
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn one_line(text: &str) -> String {
    cleaned(text)
        .split(['\n', '\t'])
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_survive_backticks_and_newlines() {
        assert_eq!(code("bash"), "`bash`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("two\nlines"), "`two lines`");
        assert_eq!(code(""), "` `");
    }

    #[test]
    fn text_escapes_markup_but_not_ids() {
        assert_eq!(text("django__django-11133"), "django__django-11133");
        assert_eq!(text("_private"), "\\_private");
        assert_eq!(
            text("<img src=x onerror=alert(1)>"),
            "\\<img src=x onerror=alert(1)\\>"
        );
        assert_eq!(text("a *b* [c](d) # e"), "a \\*b\\* \\[c\\](d) \\# e");
        assert_eq!(text("one\ntwo\0"), "one two\u{2400}");
    }
}
