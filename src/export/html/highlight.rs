//! Code blocks of the page: syntect colours them with CSS classes (one stylesheet, light and
//! dark), diffs are coloured by line kind, everything else is escaped text.
//!
//! Highlighting is for reading, not a promise: blocks too big or with lines too long for
//! syntect to be quick are written plain.

use super::escape;
use crate::export::clean::cleaned;
use crate::present::DiffRowKind;
use crate::present::language::Language;
use crate::present::syntax::{syntax_of, syntaxes};
use std::io::{self, Write};
use syntect::highlighting::ThemeSet;
use syntect::html::{ClassStyle, css_for_theme_with_class_style, line_tokens_to_classed_spans};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};
use syntect::util::LinesWithEndings;

/// Classes are prefixed so the page's own classes never collide with scope names.
const CLASS_STYLE: ClassStyle = ClassStyle::SpacedPrefixed { prefix: "sy-" };
/// Blocks bigger than this are written plain: highlighting a 5 MB log helps no one.
const MAX_BYTES: usize = 128 * 1024;
/// Lines longer than this make syntect's regexes slow (minified JSON, base64).
const MAX_LINE: usize = 4000;

const LIGHT_THEME: &str = "InspiredGitHub";
const DARK_THEME: &str = "base16-ocean.dark";

/// Writes code blocks with the syntaxes of [`crate::present::syntax`].
pub struct Highlighter {
    syntaxes: &'static SyntaxSet,
}

impl Highlighter {
    pub fn new() -> Highlighter {
        Highlighter {
            syntaxes: syntaxes(),
        }
    }

    /// The stylesheet for highlighted code: each theme under its own `prefers-color-scheme`,
    /// since the light theme's more specific rules would otherwise win in dark mode.
    pub fn stylesheet() -> String {
        let themes = ThemeSet::load_defaults();
        let css = |name: &str| {
            themes
                .themes
                .get(name)
                .and_then(|t| css_for_theme_with_class_style(t, CLASS_STYLE).ok())
                .unwrap_or_default()
        };
        format!(
            "@media (prefers-color-scheme: light) {{\n{}\n}}\n\
             @media (prefers-color-scheme: dark) {{\n{}\n}}\n",
            css(LIGHT_THEME),
            css(DARK_THEME)
        )
    }

    /// Writes `text` as a `<pre>` block in `language`.
    pub fn write_block(
        &self,
        w: &mut dyn Write,
        language: &Language,
        text: &str,
    ) -> io::Result<()> {
        if *language == Language::Diff {
            return write_diff_text(w, text);
        }
        write!(
            w,
            "<pre class=\"code sy-code\" data-lang=\"{}\"><code>",
            language.tag()
        )?;
        let highlighted = language.tag() != "text"
            && text.len() <= MAX_BYTES
            && text.lines().all(|l| l.len() <= MAX_LINE)
            && self.write_highlighted(w, language, text)?;
        if !highlighted {
            escape::text(w, text)?;
        }
        w.write_all(b"</code></pre>\n")
    }

    /// Writes the highlighted text; `false` (having written nothing) when there is no
    /// syntax for `language` or syntect fails on it.
    fn write_highlighted(
        &self,
        w: &mut dyn Write,
        language: &Language,
        text: &str,
    ) -> io::Result<bool> {
        let Some(syntax) = syntax_of(language) else {
            return Ok(false);
        };
        let text = cleaned(text);
        // Built whole before writing, so a syntect error can fall back to plain text
        // without half a block on the page; bounded by MAX_BYTES.
        let mut html = String::with_capacity(text.len() * 2);
        let mut state = ParseState::new(syntax);
        let mut stack = ScopeStack::new();
        let mut open: isize = 0;
        for line in LinesWithEndings::from(&text) {
            let Ok(ops) = state.parse_line(line, self.syntaxes) else {
                return Ok(false);
            };
            let Ok((spans, delta)) =
                line_tokens_to_classed_spans(line, &ops, CLASS_STYLE, &mut stack)
            else {
                return Ok(false);
            };
            html.push_str(&spans);
            open += delta;
        }
        for _ in 0..open.max(0) {
            html.push_str("</span>");
        }
        w.write_all(html.as_bytes())?;
        Ok(true)
    }
}

/// A patch as text, each line coloured by its kind.
pub fn write_diff_text(w: &mut dyn Write, text: &str) -> io::Result<()> {
    w.write_all(b"<pre class=\"diff\"><code>")?;
    for line in text.lines() {
        write_diff_row(w, DiffRowKind::of_patch_line(line), line)?;
    }
    w.write_all(b"</code></pre>\n")
}

/// One line of a diff in a `<span>` of its kind's class. The spans are blocks (so a line's
/// colour spans the width), hence no line end between them.
pub fn write_diff_row(w: &mut dyn Write, kind: DiffRowKind, line: &str) -> io::Result<()> {
    write!(w, "<span class=\"{}\">", class(kind))?;
    escape::text(w, line)?;
    w.write_all(b"</span>")
}

/// A row kind's short CSS class (the page's stylesheet colours them).
fn class(kind: DiffRowKind) -> &'static str {
    match kind {
        DiffRowKind::Header => "dh",
        DiffRowKind::Hunk => "dk",
        DiffRowKind::Context => "dc",
        DiffRowKind::Added => "da",
        DiffRowKind::Removed => "dr",
        DiffRowKind::Unseen(_) | DiffRowKind::Note => "dn",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(language: Language, text: &str) -> String {
        let mut out = Vec::new();
        let _ = Highlighter::new().write_block(&mut out, &language, text);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn code_gets_classes_and_stays_escaped() {
        let html = block(Language::code("py"), "print('<b>')  # </script>\n");
        assert!(html.contains("class=\"sy-"), "{html}");
        assert!(html.contains("&lt;b&gt;"), "{html}");
        assert!(html.contains("&lt;/script&gt;"), "{html}");
        assert!(
            !html.contains("<b>") && !html.contains("</script>"),
            "{html}"
        );
    }

    #[test]
    fn text_and_oversized_blocks_are_plain() {
        let html = block(Language::Plain, "a < b\n");
        assert_eq!(
            html,
            "<pre class=\"code sy-code\" data-lang=\"text\"><code>a &lt; b\n</code></pre>\n"
        );
        let long = format!("echo {}\n", "x".repeat(MAX_LINE + 1));
        assert!(!block(Language::code("sh"), &long).contains("class=\"sy-"));
    }

    #[test]
    fn diffs_colour_by_line_kind() {
        let html = block(
            Language::Diff,
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-<old>\n+new\n",
        );
        assert!(
            html.contains("<span class=\"dr\">-&lt;old&gt;</span>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"da\">+new</span>"), "{html}");
        assert!(
            html.contains("<span class=\"dk\">@@ -1 +1 @@</span>"),
            "{html}"
        );
    }

    #[test]
    fn the_stylesheet_has_both_schemes() {
        let css = Highlighter::stylesheet();
        assert!(css.contains(".sy-code"));
        let light = css.find("@media (prefers-color-scheme: light)").unwrap();
        let dark = css.find("@media (prefers-color-scheme: dark)").unwrap();
        assert!(css[light..dark].contains(".sy-code") && css[dark..].contains(".sy-code"));
    }
}
