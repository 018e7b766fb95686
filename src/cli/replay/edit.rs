//! `--edit`: the context as JSON messages in `$EDITOR`, read back before sending.

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::process::Command;
use trajscope::model::Message;
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
    let text = serde_json::to_string_pretty(&input.messages)?;
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
    let edited = std::fs::read_to_string(file.path())?;
    let messages: Vec<Message> = serde_json::from_str(&edited).with_context(|| {
        "the edited context is not a JSON list of messages ({\"role\": …, \"content\": …}); nothing was sent"
    })?;
    if messages.is_empty() {
        bail!("the edited context is empty; nothing was sent");
    }
    let changed = messages != input.messages;
    Ok(StepInput {
        messages,
        exactness: input.exactness,
        note: if changed {
            Some(match input.note {
                Some(n) => format!("edited by the user; {n}"),
                None => "edited by the user".into(),
            })
        } else {
            input.note
        },
    })
}
