//! `--edit`: the context as JSON messages in `$EDITOR`, read back before sending (the format
//! is `trajscope::replay::edit`, shared with the app).

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::process::Command;
use trajscope::replay::edit::{apply_edit, edit_text};
use trajscope::replay::input::StepInput;

pub fn edit(input: StepInput) -> Result<StepInput> {
    let editor = std::env::var("VISUAL")
        .ok()
        .or_else(|| std::env::var("EDITOR").ok())
        .filter(|e| !e.trim().is_empty())
        .context("--edit needs $EDITOR (or $VISUAL)")?;
    let mut file = tempfile::Builder::new()
        .prefix("trajscope-context-")
        .suffix(".json")
        .tempfile()
        .context("cannot create a temporary file for the context")?;
    file.write_all(edit_text(&input).as_bytes())?;
    file.flush()?;
    // Through the shell, so that an editor with arguments (`code --wait`) works.
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status()
        .with_context(|| format!("cannot run the editor `{editor}`"))?;
    if !status.success() {
        bail!("the editor `{editor}` failed ({status}); nothing was sent");
    }
    let edited = std::fs::read_to_string(file.path())?;
    Ok(apply_edit(&input, &edited)?)
}
