//! Fenced code blocks that no content can close early: the fence is one backtick longer
//! than the longest run of backticks in the (cleaned) content.

use crate::export::clean::clean;
use std::io::{self, Write};

/// The backticks that fence `text`: at least three, longer than any run inside it.
pub fn fence_for(text: &str) -> String {
    let mut longest = 0usize;
    let mut run = 0usize;
    // Runs are counted over the cleaned text: dropping an escape sequence can join two runs.
    let _ = clean(text, |piece| {
        for b in piece.bytes() {
            if b == b'`' {
                run += 1;
                longest = longest.max(run);
            } else {
                run = 0;
            }
        }
        Ok::<(), std::convert::Infallible>(())
    });
    "`".repeat((longest + 1).max(3))
}

/// Writes `text` as a fenced block tagged `tag`, cleaned, streaming.
pub fn write_block(w: &mut dyn Write, tag: &str, text: &str) -> io::Result<()> {
    let fence = fence_for(text);
    writeln!(w, "{fence}{tag}")?;
    let mut last = b'\n';
    clean(text, |piece| {
        if let Some(&b) = piece.as_bytes().last() {
            last = b;
        }
        w.write_all(piece.as_bytes())
    })?;
    if last != b'\n' {
        w.write_all(b"\n")?;
    }
    writeln!(w, "{fence}")
}

/// Writes a block whose lines come one by one (a diff built from structured hunks); the
/// fence is chosen from all the lines first, so they are produced twice.
pub fn write_lines_block(
    w: &mut dyn Write,
    tag: &str,
    mut lines: impl FnMut(&mut dyn FnMut(&str) -> io::Result<()>) -> io::Result<()>,
) -> io::Result<()> {
    let mut longest = 0usize;
    lines(&mut |line| {
        let fence = fence_for(line);
        longest = longest.max(fence.len());
        Ok(())
    })?;
    let fence = "`".repeat(longest.max(3));
    writeln!(w, "{fence}{tag}")?;
    lines(&mut |line| {
        clean(line, |piece| w.write_all(piece.as_bytes()))?;
        w.write_all(b"\n")?;
        Ok(())
    })?;
    writeln!(w, "{fence}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(tag: &str, text: &str) -> String {
        let mut out = Vec::new();
        let _ = write_block(&mut out, tag, text);
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ``` b"), "````");
        assert_eq!(fence_for("````` and ``"), "``````");
        assert_eq!(fence_for("``\x1b[0m`"), "````");
    }

    #[test]
    fn blocks_end_with_a_line_end_and_their_fence() {
        assert_eq!(block("bash", "ls"), "```bash\nls\n```\n");
        assert_eq!(
            block("text", "```\nx\n```\n"),
            "````text\n```\nx\n```\n````\n"
        );
        assert_eq!(block("text", "a\0b\r\n"), "```text\na\u{2400}b\n```\n");
    }
}
