//! `o`: the text in `$VISUAL` / `$EDITOR` (else `vi`), from a temporary copy. The user's files
//! are never what the editor opens, so nothing they gave us can be changed this way.

use crate::tui::state::Notice;
use std::io::Write;
use std::process::Command;

/// Writes `text` to a temporary file called `name`, runs the editor on it and waits.
pub fn open(text: &str, name: &str) -> Notice {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => return Notice::error(format!("could not make a temporary file: {err}")),
    };
    let path = dir.path().join(name);
    let written = std::fs::File::create(&path).and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(err) = written {
        return Notice::error(format!("could not write {}: {err}", path.display()));
    }
    // Through the shell, so that EDITOR="code -w" works as it does in git.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("trajscope")
        .arg(&path)
        .status();
    match status {
        Ok(s) if s.success() => Notice::info(format!("closed {editor}")),
        Ok(s) => Notice::error(format!("{editor} exited with {s}")),
        Err(err) => Notice::error(format!("could not run {editor}: {err}")),
    }
}
