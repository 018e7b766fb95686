//! Structured diffs → coloured (or plain) unified-diff text for the terminal, and the
//! buffered output the diff commands print through.

use std::fmt::Write as _;
use trajscope::diff::FileDiff;
use trajscope::present::{DiffRowKind, for_each_row};

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    pub fn detect() -> Style {
        use std::io::IsTerminal;
        Style {
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn added(self, t: &str) -> String {
        self.paint("32", t)
    }
    pub fn removed(self, t: &str) -> String {
        self.paint("31", t)
    }
    pub fn hunk(self, t: &str) -> String {
        self.paint("36", t)
    }
    pub fn bold(self, t: &str) -> String {
        self.paint("1", t)
    }
    pub fn dim(self, t: &str) -> String {
        self.paint("2", t)
    }
    pub fn warn(self, t: &str) -> String {
        self.paint("33", t)
    }
}

/// A file diff as `diff -u` text, with runs of unseen lines folded into one note.
pub fn file_diff(d: &FileDiff, style: Style, indent: &str) -> String {
    let (old, new) = d.labels();
    labelled_diff(d, style, indent, &old, &new)
}

/// A diff with its own `---`/`+++` labels (two runs of a command, two messages).
pub fn labelled_diff(d: &FileDiff, style: Style, indent: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    let _ = for_each_row(d, (old, new), |row| {
        let painted = match row.kind {
            DiffRowKind::Header => style.bold(row.text),
            DiffRowKind::Hunk => style.hunk(row.text),
            DiffRowKind::Added => style.added(row.text),
            DiffRowKind::Removed => style.removed(row.text),
            DiffRowKind::Context => row.text.to_string(),
            DiffRowKind::Unseen(_) | DiffRowKind::Note => style.dim(row.text),
        };
        writeln!(out, "{indent}{painted}")
    });
    out
}

/// A title rule: `── title ───…`.
pub fn rule(title: &str, style: Style) -> String {
    let width = 72usize.saturating_sub(title.chars().count() + 4);
    style.bold(&format!("── {title} {}", "─".repeat(width)))
}

/// Lines of a text with a prefix, for observations and actions shown side by side.
pub fn clip(text: &str, max_lines: usize, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .take(max_lines)
        .map(|l| {
            let clean: String = l
                .chars()
                .filter(|c| !c.is_control() || *c == '\t')
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            if clean.chars().count() > width {
                let cut: String = clean.chars().take(width.saturating_sub(1)).collect();
                format!("{cut}…")
            } else {
                clean
            }
        })
        .collect();
    let total = text.lines().count();
    if total > max_lines {
        lines.push(format!("… {} more lines", total - max_lines));
    }
    lines
}

/// `say!(out, "…", args)`: a line into the report buffer.
#[macro_export]
macro_rules! say {
    ($out:expr) => {
        $out.push('\n')
    };
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// `put!(out, "…", args)`: text without a line end into the report buffer.
#[macro_export]
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = write!($out, $($arg)*);
    }};
}

/// Writes the report to stdout; a reader that went away (`| head`) is not an error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
