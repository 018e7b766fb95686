//! `[options]` of the config file: behaviour that is neither a key nor a colour.

use std::path::PathBuf;

/// Where `y` puts what it copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyTarget {
    /// The system clipboard, through the terminal (OSC 52; works over ssh and in tmux with
    /// `set-clipboard on`). Texts too long for the terminal go to `file` instead.
    Osc52,
    /// A file, named in the status bar.
    File,
}

/// The format of `x` / `X` exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A trajectory as an HTML page, a step as Markdown (to paste into an issue).
    Auto,
    Markdown,
    Html,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Observations longer than this many lines are folded until `z` unfolds them.
    pub fold_lines: usize,
    pub copy: CopyTarget,
    /// Where `copy = "file"` (and too-long clipboard texts) go; default
    /// `<cache dir>/trajscope/copied.txt`.
    pub copy_file: Option<PathBuf>,
    /// Capture the mouse (scroll and click). Off lets the terminal select text.
    pub mouse: bool,
    pub export_format: ExportFormat,
    /// Where exports go; default the current directory.
    pub export_dir: Option<PathBuf>,
    /// Trajectory files at least this big (bytes) open lazily where their format allows:
    /// steps are read from the file when shown.
    pub lazy_above: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fold_lines: 60,
            copy: CopyTarget::Osc52,
            copy_file: None,
            mouse: true,
            export_format: ExportFormat::Auto,
            export_dir: None,
            lazy_above: crate::formats::LAZY_ABOVE,
        }
    }
}

impl Options {
    pub fn parse(table: &toml::Table, problems: &mut Vec<String>) -> Options {
        let mut options = Options::default();
        for (key, value) in table {
            let at = format!("options.{key}");
            match key.as_str() {
                "fold_lines" => match value.as_integer().and_then(|n| usize::try_from(n).ok()) {
                    Some(n) if n >= 4 => options.fold_lines = n,
                    _ => problems.push(format!("{at}: expected a number of lines, 4 or more")),
                },
                "copy" => match value.as_str() {
                    Some("osc52") => options.copy = CopyTarget::Osc52,
                    Some("file") => options.copy = CopyTarget::File,
                    _ => problems.push(format!("{at}: expected \"osc52\" or \"file\"")),
                },
                "copy_file" => match value.as_str() {
                    Some(path) => options.copy_file = Some(PathBuf::from(path)),
                    None => problems.push(format!("{at}: expected a path")),
                },
                "mouse" => match value.as_bool() {
                    Some(on) => options.mouse = on,
                    None => problems.push(format!("{at}: expected true or false")),
                },
                "export_format" => match value.as_str() {
                    Some("auto") => options.export_format = ExportFormat::Auto,
                    Some("markdown") => options.export_format = ExportFormat::Markdown,
                    Some("html") => options.export_format = ExportFormat::Html,
                    _ => problems.push(format!("{at}: expected \"auto\", \"markdown\" or \"html\"")),
                },
                "export_dir" => match value.as_str() {
                    Some(path) => options.export_dir = Some(PathBuf::from(path)),
                    None => problems.push(format!("{at}: expected a path")),
                },
                "lazy_above_mb" => match value.as_integer().and_then(|n| u64::try_from(n).ok()) {
                    Some(mb) => options.lazy_above = mb.saturating_mul(1 << 20),
                    None => problems.push(format!("{at}: expected a size in MiB, 0 or more")),
                },
                _ => problems.push(format!(
                    "{at}: unknown option (known: fold_lines, copy, copy_file, mouse, export_format, export_dir, lazy_above_mb)"
                )),
            }
        }
        options
    }

    /// The file that copies go to when they do not go to the clipboard.
    pub fn copy_path(&self) -> PathBuf {
        self.copy_file.clone().unwrap_or_else(|| {
            dirs::cache_dir()
                .unwrap_or_else(std::env::temp_dir)
                .join("trajscope")
                .join("copied.txt")
        })
    }
}
