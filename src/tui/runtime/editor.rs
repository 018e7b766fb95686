//! `o`: the text in `$VISUAL` / `$EDITOR` (else `vi`), from a temporary copy. The user's files
//! are never what the editor opens, so nothing they gave us can be changed this way. The
//! replay panel's context edit uses the same, and reads the copy back.

use crate::tui::state::Notice;
use std::io::Write;
use std::process::Command;

/// Writes `text` to a temporary file called `name`, runs the editor on it and waits.
pub fn open(text: &str, name: &str) -> Notice {
    match run(text, name) {
        Ok((editor, _)) => Notice::info(format!("closed {editor}")),
        Err(message) => Notice::error(message),
    }
}

/// As [`open`], and returns the file as the editor left it.
pub fn edit(text: &str, name: &str) -> Result<String, String> {
    run(text, name).map(|(_, edited)| edited)
}

fn run(text: &str, name: &str) -> Result<(String, String), String> {
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".into());
    let dir =
        tempfile::tempdir().map_err(|err| format!("could not make a temporary file: {err}"))?;
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|err| format!("could not write {}: {err}", path.display()))?;
    // Through the shell, so that EDITOR="code -w" works as it does in git.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("trajscope")
        .arg(&path)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => return Err(format!("{editor} exited with {s}")),
        Err(err) => return Err(format!("could not run {editor}: {err}")),
    }
    let edited = std::fs::read_to_string(&path)
        .map_err(|err| format!("could not read {} back: {err}", path.display()))?;
    Ok((editor, edited))
}
