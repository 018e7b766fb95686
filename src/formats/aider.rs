//! Aider `.aider.chat.history.md`: a Markdown transcript that Aider appends to, one
//! `# aider chat started at …` session after another. Each session is a trajectory.
//!
//! Aider writes three kinds of lines: `#### ` lines are what the user typed, `> ` lines are
//! Aider's own output (banner, "Applied edit to …", commits, lint and test errors, token
//! counts), and everything else is the model's reply, verbatim. Both prefixed kinds end with
//! two spaces (a Markdown line break); a multi-line output carries `> ` on its first line
//! only and ends at the first line that ends with two spaces. That is what tells a reply's
//! own `> quote` or `#### heading` apart from Aider's lines; files whose trailing spaces
//! were stripped by an editor are read by prefix alone.
//!
//! A step is one reply: its prose is the thought, its edit blocks and shell commands the
//! action ([`reply`]), the output that follows it the observation. The log does not hold
//! what the model saw (system prompt, repo map, file contents), so contexts are
//! reconstructed from the session's messages. This module owns that reading and nothing else.

mod blocks;
mod history;
mod llm_history;
mod reply;
mod session;

use super::LoadError;
use super::text_logs::Out;
use crate::model::{Step, StepContext, Trajectory, Usage};
pub use history::History;
use regex::Regex;
use reply::{EditFormat, parse_reply};
use std::path::Path;
use std::sync::LazyLock;

const SESSION_HEADER: &str = "# aider chat started at";

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let text = String::from_utf8_lossy(bytes);
    let mut history = History::new(path, false);
    for line in text.split('\n') {
        history.line(line);
    }
    history.finish();
    let mut trajectories: Vec<Trajectory> = history
        .take()
        .filter_map(|out| match out {
            Out::Trajectory(t) => Some(*t),
            Out::Step(_) => None,
        })
        .collect();
    if trajectories.is_empty() {
        return Err(no_session(path));
    }
    if let Some(file) = llm_history::beside(path) {
        match std::fs::read(&file) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                if llm_history::join(&mut trajectories, &text) > 0 {
                    for t in &mut trajectories {
                        let detail = t.format_detail.take();
                        t.format_detail = Some(match detail {
                            Some(d) => format!("{d}, with LLM history"),
                            None => "with LLM history".to_string(),
                        });
                    }
                }
            }
            Err(err) => {
                if let Some(first) = trajectories.first_mut() {
                    first
                        .warnings
                        .push(format!("{}: cannot be read: {err}", file.display()));
                }
            }
        }
    }
    Ok(trajectories)
}

/// The error for a history without a session.
pub fn no_session(path: &Path) -> LoadError {
    LoadError::invalid(
        path,
        "no `# aider chat started at` session in this Aider chat history",
    )
}

/// Whether an LLM history (`.aider.llm.history`) sits beside `path`: its steps then take
/// their exact contexts from it, matched across the whole file.
pub fn has_llm_history(path: &Path) -> bool {
    llm_history::beside(path).is_some()
}

/// An Emacs mode line (`-*- mode: fundamental -*-`) that some histories start with.
fn is_mode_line(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("-*-") && line.ends_with("-*-")
}

/// What names the history: the file's stem, or for `.aider.chat.history.md` (no stem) the
/// folder of the project it was written in.
fn file_stem(path: &Path) -> String {
    let stem = crate::model::instance_id_from_path(path);
    if !stem.is_empty() {
        return stem;
    }
    path.parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "aider".into())
}

/// Slash commands whose text Aider sends to the model; the others (`/add`, `/run`, …) act
/// locally.
const CHAT_COMMANDS: &[&str] = &["/ask", "/code", "/architect", "/help", "/context", "/ok"];

fn is_local_command(text: &str) -> bool {
    let Some(word) = text.split_whitespace().next() else {
        return false;
    };
    word.starts_with('/') && !CHAT_COMMANDS.contains(&word)
}

fn clears_history(text: &str) -> bool {
    matches!(text.split_whitespace().next(), Some("/clear" | "/reset"))
}

fn step_from_reply(text: &str, edit_format: EditFormat, context: StepContext) -> (Step, usize) {
    let reply = parse_reply(text, edit_format);
    let step = Step {
        thought: reply.prose,
        tool: reply.calls.first().map(|c| c.name.clone()),
        action: reply.action,
        tool_calls: reply.calls,
        response: text.to_string(),
        context: Some(context),
        ..Step::default()
    };
    (step, reply.unterminated)
}

/// Adds one block of Aider output to a step: token counts go to its usage, the rest to its
/// observation.
fn add_output(step: &mut Step, text: &str) {
    let mut kept: Vec<&str> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("Tokens: ") {
            let mut counted = line.to_string();
            if let Some(next) = lines.next_if(|l| l.starts_with("Cost: ")) {
                counted.push(' ');
                counted.push_str(next);
            }
            step.usage.add(&usage(&counted));
        } else {
            kept.push(line);
        }
    }
    let kept = kept.join("\n");
    let kept = kept.trim_matches('\n');
    if kept.trim().is_empty() {
        return;
    }
    if !step.observation.is_empty() {
        step.observation.push('\n');
    }
    step.observation.push_str(kept);
    if kept.contains("did not conform to the edit format") || kept.contains("failed to match") {
        step.failed = true;
    }
}

static SENT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([0-9][0-9.,]*)(k?) sent").ok());
static RECEIVED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([0-9][0-9.,]*)(k?) received").ok());
static COST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\$([0-9][0-9.,]*) (?:message|request)").ok());

/// `Tokens: 15,221 sent, 902 received. Cost: $0.09 request, $0.09 session.` (and the
/// `1.6k sent` short forms of later versions, read as 1600).
fn usage(line: &str) -> Usage {
    let number = |re: &Option<Regex>| -> Option<f64> {
        let caps = re.as_ref()?.captures(line)?;
        let digits = caps.get(1)?.as_str().replace(',', "");
        let value: f64 = digits.trim_end_matches('.').parse().ok()?;
        Some(if caps.get(2).is_some_and(|k| k.as_str() == "k") {
            value * 1000.0
        } else {
            value
        })
    };
    Usage {
        cost: number(&COST),
        tokens_in: number(&SENT).map(|n| n.round() as u64),
        tokens_out: number(&RECEIVED).map(|n| n.round() as u64),
        api_calls: Some(1),
        ..Usage::default()
    }
}

/// What Aider prints when a session starts: its version, the model and the edit format.
#[derive(Default)]
struct Banner {
    version: Option<String>,
    model: Option<String>,
    edit_format: Option<String>,
}

impl Banner {
    /// Reads one block of Aider's output from before the session's first reply.
    fn read_block(&mut self, text: &str) {
        for line in text.lines() {
            if self.version.is_none()
                && let Some(v) = line.strip_prefix("Aider v")
            {
                self.version = Some(v.trim().to_string());
            }
            if self.model.is_none() {
                let described = ["Models: ", "Main model: ", "Model: "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p));
                if let Some(described) = described {
                    self.read_model_line(described);
                }
            }
        }
    }

    /// `claude-3-5-sonnet-20240620 with ♾️ diff edit format, weak model …`
    fn read_model_line(&mut self, described: &str) {
        let (model, rest) = described.split_once(" with ").unwrap_or((described, ""));
        let model = model
            .trim()
            .trim_end_matches(|c: char| !c.is_ascii() || c.is_whitespace());
        if !model.is_empty() {
            self.model = Some(model.to_string());
        }
        if let Some((format, _)) = rest.split_once(" edit format") {
            let format = format.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
            let word = |c: char| c.is_ascii_alphanumeric() || c == '-';
            if !format.is_empty() && format.chars().all(word) {
                self.edit_format = Some(format.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests;
