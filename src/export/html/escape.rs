//! Log text into HTML: cleaned of terminal escapes and control characters, then `&`, `<`,
//! `>`, `"` and `'` as entities, so a piece of log is text in an element or an attribute
//! and nothing else. Streaming: slices between special characters go straight out.

use crate::export::clean::clean;
use std::io::{self, Write};

/// Writes `text` cleaned and escaped, for element content or a quoted attribute value.
pub fn text(w: &mut dyn Write, text: &str) -> io::Result<()> {
    clean(text, |piece| escape_clean(w, piece))
}

/// `text` cleaned and escaped, as a string (short pieces: titles, names).
pub fn to_string(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 8);
    let _ = self::text(&mut out, text);
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes text that is already clean.
fn escape_clean(w: &mut dyn Write, piece: &str) -> io::Result<()> {
    let bytes = piece.as_bytes();
    let mut start = 0;
    for (i, b) in bytes.iter().enumerate() {
        let entity = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        w.write_all(&bytes[start..i])?;
        w.write_all(entity.as_bytes())?;
        start = i + 1;
    }
    w.write_all(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_become_entities() {
        assert_eq!(
            to_string("</script><img src=x onerror='alert(1)'>"),
            "&lt;/script&gt;&lt;img src=x onerror=&#39;alert(1)&#39;&gt;"
        );
        assert_eq!(
            to_string("<!-- a --> ]]> \"q\" & b"),
            "&lt;!-- a --&gt; ]]&gt; &quot;q&quot; &amp; b"
        );
        assert_eq!(to_string("a\0\x1b[31mb"), "a\u{2400}b");
        assert_eq!(to_string("plain"), "plain");
    }
}
