//! `--edit` and `--edit-answer`: the context as JSON messages, or step k's answer, in
//! `$EDITOR`, read back before anything is sent or run (the formats are
//! `trajscope::replay::edit`, shared with the app).

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::process::Command;
use trajscope::model::{Message, Trajectory};
use trajscope::replay::edit::answer::{answer_text, apply_answer_edit, recorded_answer};
use trajscope::replay::edit::{apply_edit, edit_text};
use trajscope::replay::input::StepInput;

pub fn edit(input: StepInput) -> Result<StepInput> {
    let edited = in_editor("--edit", &edit_text(&input), "trajscope-context-", ".json")?;
    Ok(apply_edit(&input, &edited)?)
}

/// Step `step`'s recorded answer, edited by the user: what runs at step `step`.
pub fn edit_answer(t: &Trajectory, step: usize) -> Result<Message> {
    let original = recorded_answer(t, step);
    let suffix = if original.tool_calls.is_empty() {
        ".md"
    } else {
        ".json"
    };
    let edited = in_editor(
        "--edit-answer",
        &answer_text(&original),
        "trajscope-answer-",
        suffix,
    )?;
    Ok(apply_answer_edit(&original, &edited)?)
}

fn in_editor(flag: &str, text: &str, prefix: &str, suffix: &str) -> Result<String> {
    let editor = std::env::var("VISUAL")
        .ok()
        .or_else(|| std::env::var("EDITOR").ok())
        .filter(|e| !e.trim().is_empty())
        .with_context(|| format!("{flag} needs $EDITOR (or $VISUAL)"))?;
    let mut file = tempfile::Builder::new()
        .prefix(prefix)
        .suffix(suffix)
        .tempfile()
        .context("cannot create a temporary file to edit")?;
    file.write_all(text.as_bytes())?;
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
    Ok(std::fs::read_to_string(file.path())?)
}
