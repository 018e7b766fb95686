//! SWE-agent's windowed file viewer and its commands: `open`, `goto`, `scroll_up`,
//! `scroll_down`, `create`, and the edits in [`edit`] (`edit start:end` … `end_of_edit` in
//! 0.x; `edit search replace` and `insert` in 1.x).
//!
//! The state is the agents' own: the open file and the window position (0.x's centre line,
//! 1.x's first line), 100 lines wide. Messages are the originals' word for word; each command
//! returns the text the original printed. Paths are the machine's; mapping happens outside.

mod edit;

use super::resolve;
use super::window::{v0, v1};
use crate::replay::files::Files;

/// Which SWE-agent implemented the commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// 0.x: bash functions (`config/commands/defaults.sh`, `edit_linting.sh`).
    V0,
    /// 1.x: Python tools (`tools/windowed`, `tools/windowed_edit_replace`).
    V1,
}

/// How 1.x's `edit` words a successful replacement; it changed between releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceMessage {
    /// `Text replaced. … correct:` and a numbered checklist (current).
    Checklist,
    /// `Text replaced. … correct` / `(correct indentation, …)` (1.0).
    Plain,
    /// `Replaced N occurrences. …` even for one (1.0 development versions).
    Counted,
}

pub struct Windowed {
    generation: Generation,
    replace_message: ReplaceMessage,
    window: i64,
    overlap: i64,
    /// The open file, resolved.
    file: Option<String>,
    /// 0.x: `CURRENT_LINE`, the window's centre (1-based); 1.x: `first_line` (0-based).
    line: i64,
    /// Where the linter runs (a container launcher, or empty).
    launcher: Vec<String>,
}

impl Windowed {
    pub fn new(generation: Generation, launcher: Vec<String>) -> Windowed {
        Windowed {
            generation,
            replace_message: ReplaceMessage::Checklist,
            window: 100,
            overlap: match generation {
                Generation::V0 => 2,
                Generation::V1 => 0,
            },
            file: None,
            line: 0,
            launcher,
        }
    }

    pub fn with_replace_message(mut self, message: ReplaceMessage) -> Windowed {
        self.replace_message = message;
        self
    }

    /// The window height, and the scroll overlap when the configuration names one.
    pub fn with_window(mut self, window: i64, overlap: Option<i64>) -> Windowed {
        self.window = window.max(1);
        if let Some(o) = overlap {
            self.overlap = o;
        }
        self
    }

    pub fn open_file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    fn text(files: &dyn Files, path: &str) -> String {
        String::from_utf8_lossy(&files.read(path).unwrap_or_default()).into_owned()
    }

    /// The window at the current position, headed by `display` as the file's name.
    fn print(&self, files: &dyn Files, display: &str) -> String {
        let path = self.file.as_deref().unwrap_or(display);
        let text = Self::text(files, path);
        match self.generation {
            Generation::V0 => v0::print(display, &text, self.line, self.window),
            Generation::V1 => v1::print(display, &text, self.line, self.window),
        }
    }

    fn no_file(&self) -> String {
        "No file open. Use the open command first.\n".into()
    }

    pub fn open(&mut self, files: &dyn Files, cwd: &str, args: &[String]) -> String {
        match self.generation {
            Generation::V0 => self.open_v0(files, cwd, args),
            Generation::V1 => self.open_v1(files, cwd, args),
        }
    }

    fn open_v0(&mut self, files: &dyn Files, cwd: &str, args: &[String]) -> String {
        const USAGE: &str = "Usage: open <file> [<line_number>]\n";
        let Some(arg) = args.first().filter(|a| !a.is_empty()) else {
            return "Usage: open <file>\n".into();
        };
        let path = resolve(cwd, arg);
        let mut out = String::new();
        let total = v0::total_lines(&Self::text(files, &path));
        let centre = match args.get(1).filter(|a| !a.is_empty()) {
            // `[[ $2 =~ ^[0-9]+$ ]]`: digits only, no sign.
            Some(n) if !n.chars().all(|c| c.is_ascii_digit()) => {
                return format!("{USAGE}Error: <line_number> must be a number\n");
            }
            Some(n) => {
                let n = n.parse::<i64>().unwrap_or(i64::MAX);
                if n > total {
                    out.push_str(&format!(
                        "Warning: <line_number> ({n}) is greater than the number of lines in the file ({total})\nWarning: Setting <line_number> to {total}\n"
                    ));
                    total
                } else if n < 1 {
                    out.push_str(&format!(
                        "Warning: <line_number> ({n}) is less than 1\nWarning: Setting <line_number> to 1\n"
                    ));
                    1
                } else {
                    v0::centre_for(n, self.window)
                }
            }
            None => self.window / 2,
        };
        if files.is_dir(&path) {
            return format!(
                "{out}Error: {arg} is a directory. You can only open files. Use cd or ls to navigate directories.\n"
            );
        }
        if !files.exists(&path) {
            return format!("{out}File {arg} not found\n");
        }
        let real = files.realpath(&path).unwrap_or(path);
        self.file = Some(real.clone());
        self.line = v0::constrain(centre, self.window, total);
        out + &self.print(files, &real)
    }

    fn open_v1(&mut self, files: &dyn Files, cwd: &str, args: &[String]) -> String {
        let Some(arg) = args.first() else {
            return match self.file.clone() {
                Some(f) => self.print(files, &f),
                None => "Usage: open \"<file>\"\n".into(),
            };
        };
        let path = resolve(cwd, arg);
        if files.is_dir(&path) {
            return format!(
                "Error: {arg} is a directory. You can only open files. Use cd or ls to navigate directories.\n"
            );
        }
        if !files.exists(&path) {
            return format!("Error: File {arg} not found\n");
        }
        self.file = Some(files.realpath(&path).unwrap_or(path.clone()));
        let n = v1::n_lines(&Self::text(files, &path));
        let mut out = String::new();
        let line = match args.get(1) {
            None => 1,
            Some(s) => match s.parse::<i64>() {
                Err(_) => {
                    return "Usage: open \"<file>\" [<line_number>]\nError: <line_number> must be a number\n".into();
                }
                Ok(l) if l > n => {
                    out.push_str(&format!(
                        "Warning: <line_number> ({l}) is greater than the number of lines in the file ({n})\nWarning: Setting <line_number> to {n}\n"
                    ));
                    n
                }
                Ok(l) if l < 1 => {
                    out.push_str(&format!(
                        "Warning: <line_number> ({l}) is less than 1\nWarning: Setting <line_number> to 1\n"
                    ));
                    1
                }
                Ok(l) => l,
            },
        };
        self.line = v1::top_for(line - 1, self.window, n);
        out + &self.print(files, arg)
    }

    pub fn goto(&mut self, files: &dyn Files, args: &[String]) -> String {
        if args.len() > 1 {
            return "goto allows only one line number at a time.\n".into();
        }
        let Some(file) = self.file.clone() else {
            return self.no_file();
        };
        let Some(arg) = args.first().filter(|a| !a.is_empty()) else {
            return "Usage: goto <line>\n".into();
        };
        let Ok(line) = arg.parse::<i64>() else {
            return "Usage: goto <line>\nError: <line> must be a number\n".into();
        };
        let text = Self::text(files, &file);
        match self.generation {
            Generation::V0 => {
                let total = v0::total_lines(&text);
                if line > total {
                    return format!("Error: <line> must be less than or equal to {total}\n");
                }
                self.line = v0::constrain(v0::centre_for(line, self.window), self.window, total);
            }
            Generation::V1 => {
                let n = v1::n_lines(&text);
                if line > n {
                    return format!("Error: <line> must be less than or equal to {n}\n");
                }
                self.line = v1::top_for(line - 1, self.window, n);
            }
        }
        self.print(files, &file)
    }

    pub fn scroll(&mut self, files: &dyn Files, down: bool) -> String {
        let Some(file) = self.file.clone() else {
            return self.no_file();
        };
        let text = Self::text(files, &file);
        let step = self.window - self.overlap;
        let step = if down { step } else { -step };
        match self.generation {
            Generation::V0 => {
                self.line = v0::constrain(self.line + step, self.window, v0::total_lines(&text));
            }
            Generation::V1 => {
                self.line =
                    v1::clamp_first((self.line + step) as f64, self.window, v1::n_lines(&text));
            }
        }
        self.print(files, &file)
    }

    pub fn create(&mut self, files: &dyn Files, cwd: &str, args: &[String]) -> String {
        let Some(arg) = args.first().filter(|a| !a.is_empty()) else {
            return "Usage: create <filename>\n".into();
        };
        let path = resolve(cwd, arg);
        if files.exists(&path) {
            return match self.generation {
                Generation::V0 => format!(
                    "Error: File '{arg}' already exists.\n{}",
                    self.open_v0(files, cwd, std::slice::from_ref(arg))
                ),
                Generation::V1 => format!("Warning: File '{arg}' already exists.\n"),
            };
        }
        if let Err(e) = files.write(&path, b"\n") {
            return format!("{arg}: {e}\n");
        }
        match self.generation {
            Generation::V0 => self.open_v0(files, cwd, std::slice::from_ref(arg)),
            Generation::V1 => {
                self.file = Some(files.realpath(&path).unwrap_or(path));
                self.line = 0;
                self.print(files, arg)
            }
        }
    }
}

/// Python's `repr()` of a string, as the 1.x messages print `{search!r}`.
pub fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests;
