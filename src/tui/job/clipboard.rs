//! Copying text: to the system clipboard through the terminal (OSC 52), or to a file when
//! configured so or when the text is too long for terminals to accept.

use crate::tui::config::{CopyTarget, Options};
use crate::tui::state::Notice;
use crate::tui::units;
use crossterm::clipboard::CopyToClipboard;
use std::io::Write;
use std::path::Path;

/// Terminals drop OSC 52 payloads past about 100 KB of base64.
pub const OSC52_LIMIT: usize = 74_000;

/// Copies `text` (described as `what`), writing any escape sequence to `terminal`.
pub fn copy(text: &str, what: &str, options: &Options, terminal: &mut impl Write) -> Notice {
    let size = units::bytes(text.len() as u64);
    if options.copy == CopyTarget::Osc52 && text.len() <= OSC52_LIMIT {
        let sent = crossterm::execute!(terminal, CopyToClipboard::to_clipboard_from(text));
        return match sent {
            Ok(()) => Notice::info(format!("copied {what} ({size}) to the clipboard")),
            Err(err) => Notice::error(format!("could not copy: {err}")),
        };
    }
    let path = options.copy_path();
    let reason = if options.copy == CopyTarget::File {
        ""
    } else {
        " (too long for the clipboard)"
    };
    match write_file(&path, text) {
        Ok(()) => Notice::info(format!(
            "wrote {what} ({size}) to {}{reason}",
            path.display()
        )),
        Err(err) => Notice::error(format!("could not write {}: {err}", path.display())),
    }
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_goes_to_the_terminal() {
        let mut out = Vec::new();
        let notice = copy("ls -la", "action of step 1", &Options::default(), &mut out);
        assert!(!notice.error);
        let written = String::from_utf8(out).unwrap();
        // base64("ls -la") = "bHMgLWxh"
        assert_eq!(written, "\u{1b}]52;c;bHMgLWxh\u{1b}\\");
    }

    #[test]
    fn long_texts_and_the_file_option_write_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let options = Options {
            copy_file: Some(dir.path().join("sub/copied.txt")),
            ..Options::default()
        };
        let long = "x".repeat(OSC52_LIMIT + 1);
        let mut out = Vec::new();
        let notice = copy(&long, "observation", &options, &mut out);
        assert!(out.is_empty());
        assert!(notice.text.contains("too long"), "{}", notice.text);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("sub/copied.txt")).unwrap(),
            long
        );
        let file_options = Options {
            copy: CopyTarget::File,
            ..options
        };
        let notice = copy("short", "task", &file_options, &mut out);
        assert!(notice.text.starts_with("wrote task"), "{}", notice.text);
        assert!(out.is_empty());
    }
}
