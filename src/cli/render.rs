//! Structured diffs → coloured (or plain) unified-diff text for the terminal, and the
//! buffered output the diff commands print through.

use std::fmt::Write as _;
use trajscope::diff::{DiffLine, FileChange, FileDiff, LineKind};

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
    let _ = writeln!(out, "{indent}{}", style.bold(&format!("--- {old}")));
    let _ = writeln!(out, "{indent}{}", style.bold(&format!("+++ {new}")));
    if let Some(note) = &d.note {
        let _ = writeln!(out, "{indent}{}", style.dim(&format!("({note})")));
    }
    for hunk in &d.hunks {
        let _ = writeln!(out, "{indent}{}", style.hunk(&hunk.header()));
        let mut i = 0;
        while i < hunk.lines.len() {
            let line = &hunk.lines[i];
            if line.text.is_none() {
                let run = hunk.lines[i..]
                    .iter()
                    .take_while(|l| l.text.is_none() && l.kind == line.kind)
                    .count();
                let what = if run == 1 {
                    "1 line".to_string()
                } else {
                    format!("{run} lines")
                };
                let mark = sign(line);
                let note = format!("{mark} … {what} not seen in the log");
                let _ = writeln!(out, "{indent}{}", style.dim(&note));
                i += run;
                continue;
            }
            let text = format!("{}{}", sign(line), line.text.as_deref().unwrap_or(""));
            let painted = match line.kind {
                LineKind::Added => style.added(&text),
                LineKind::Removed => style.removed(&text),
                LineKind::Context => text,
            };
            let _ = writeln!(out, "{indent}{painted}");
            i += 1;
        }
    }
    if d.hunks.is_empty() && d.note.is_none() {
        let what = if d.change == FileChange::Created {
            "(empty file)"
        } else {
            "(no change)"
        };
        let _ = writeln!(out, "{indent}{}", style.dim(what));
    }
    out
}

fn sign(line: &DiffLine) -> char {
    match line.kind {
        LineKind::Added => '+',
        LineKind::Removed => '-',
        LineKind::Context => ' ',
    }
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
