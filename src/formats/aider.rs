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

mod llm_history;
mod reply;

use super::LoadError;
use crate::model::{Exactness, Format, Message, Step, StepContext, Trajectory, Usage};
use regex::Regex;
use reply::{EditFormat, parse_reply};
use std::path::Path;
use std::sync::LazyLock;

const SESSION_HEADER: &str = "# aider chat started at";

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let marked = uses_line_break_marks(text);
    let mut trajectories = Vec::new();
    for (ordinal, session) in sessions(text).into_iter().enumerate() {
        let blocks = blocks(&session.body, marked);
        let mut trajectory = build(path, &session, &blocks);
        trajectory.source_index = Some(ordinal);
        trajectories.push(trajectory);
    }
    if trajectories.is_empty() {
        return Err(LoadError::invalid(
            path,
            "no `# aider chat started at` session in this Aider chat history",
        ));
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

/// One session: its start time (absent for text before the first header) and its lines.
struct Session<'a> {
    started: Option<&'a str>,
    body: Vec<&'a str>,
}

fn sessions(text: &str) -> Vec<Session<'_>> {
    let mut sessions = vec![Session {
        started: None,
        body: Vec::new(),
    }];
    for (n, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if let Some(time) = line.strip_prefix(SESSION_HEADER) {
            sessions.push(Session {
                started: Some(time.trim()),
                body: Vec::new(),
            });
        } else if !(n == 0 && is_mode_line(line))
            && let Some(session) = sessions.last_mut()
        {
            session.body.push(line);
        }
    }
    // Text before the first header is kept only when it holds something: the history may
    // have been cut at the start, as the fixture in Aider's own repository is.
    if sessions[0].body.iter().all(|l| l.trim().is_empty()) {
        sessions.remove(0);
    }
    sessions
}

/// An Emacs mode line (`-*- mode: fundamental -*-`) that some histories start with.
fn is_mode_line(line: &str) -> bool {
    let line = line.trim();
    line.starts_with("-*-") && line.ends_with("-*-")
}

/// Whether Aider's prefixed lines carry their trailing two spaces in this file.
fn uses_line_break_marks(text: &str) -> bool {
    text.lines()
        .take(20_000)
        .filter(|l| l.starts_with("#### ") || l.starts_with("> "))
        .take(50)
        .any(|l| l.trim_end_matches('\r').ends_with("  "))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    User,
    Output,
    Reply,
}

#[derive(Debug)]
struct Block {
    kind: Kind,
    text: String,
}

/// Groups a session's lines into user messages, Aider output and replies.
fn blocks(lines: &[&str], marked: bool) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<(Kind, Vec<&str>)> = None;
    let mut output_continues = false;
    let mut in_fence = false;
    let flush = |current: &mut Option<(Kind, Vec<&str>)>, blocks: &mut Vec<Block>| {
        if let Some((kind, lines)) = current.take() {
            let text = lines.join("\n");
            let text = match kind {
                Kind::Reply => text.trim().to_string(),
                _ => text.trim_end().to_string(),
            };
            if kind != Kind::Reply || !text.is_empty() {
                blocks.push(Block { kind, text });
            }
        }
    };
    for (i, &line) in lines.iter().enumerate() {
        let ends_marked = line.ends_with("  ");
        if output_continues {
            if let Some((_, lines)) = current.as_mut() {
                lines.push(line.trim_end());
            }
            output_continues = marked && !ends_marked;
            continue;
        }
        let user = line.starts_with("####") && if marked { ends_marked } else { !in_fence };
        // After a reply, an unmarked `> ` line is either Aider's multi-line output (whose
        // marked last line follows before any blank line: `Tokens: …` then `Cost: …  `) or
        // the model's own Markdown quote.
        let in_reply = current.as_ref().is_some_and(|(k, _)| *k == Kind::Reply);
        let output = (line.starts_with("> ") || line.trim_end() == ">")
            && if marked {
                ends_marked || !in_reply || output_ends_before_blank(&lines[i + 1..])
            } else {
                !in_fence
            };
        let kind = if user {
            Kind::User
        } else if output {
            Kind::Output
        } else if line.trim().is_empty() {
            match &mut current {
                Some((Kind::Reply, lines)) => lines.push(line),
                _ => flush(&mut current, &mut blocks),
            }
            continue;
        } else {
            Kind::Reply
        };
        let content = match kind {
            Kind::User => {
                let text = line["####".len()..].trim_end();
                let text = text.strip_prefix(' ').unwrap_or(text);
                if text == "<blank>" { "" } else { text }
            }
            Kind::Output => line[1..].strip_prefix(' ').unwrap_or(&line[1..]).trim_end(),
            Kind::Reply => line,
        };
        if current.as_ref().map(|(k, _)| *k) != Some(kind) {
            flush(&mut current, &mut blocks);
            current = Some((kind, Vec::new()));
            in_fence = false;
        }
        if kind == Kind::Reply && is_fence_toggle(line) {
            in_fence = !in_fence;
        }
        if let Some((_, lines)) = current.as_mut() {
            lines.push(content);
        }
        output_continues = kind == Kind::Output && marked && !ends_marked;
    }
    flush(&mut current, &mut blocks);
    blocks
}

/// Whether a line ending in two spaces comes before the next blank line (looking a bounded
/// distance ahead, so that a long quote costs linear time).
fn output_ends_before_blank(rest: &[&str]) -> bool {
    rest.iter()
        .take(64)
        .take_while(|l| !l.trim().is_empty())
        .any(|l| l.ends_with("  "))
}

fn is_fence_toggle(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("```") || line.starts_with("<source") || line.starts_with("</source>")
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

fn build(path: &Path, session: &Session, blocks: &[Block]) -> Trajectory {
    let mut t = Trajectory::new(path, Format::Aider);
    t.agent = Some("aider".into());
    match session.started {
        Some(time) if !time.is_empty() => t.instance_id = time.to_string(),
        Some(_) => {}
        None => {
            t.instance_id = format!("{}#1", file_stem(path));
            t.warnings.push(
            "text before the first `# aider chat started at` line: this session's start is not in the file"
                .into(),
            );
        }
    }
    let banner = Banner::read(blocks);
    t.model = banner.model;
    t.format_detail = match (&banner.version, &banner.edit_format) {
        (Some(v), Some(f)) => Some(format!("{v}, {f} edit format")),
        (Some(v), None) => Some(v.clone()),
        (None, Some(f)) => Some(format!("{f} edit format")),
        (None, None) => None,
    };
    let edit_format = match banner.edit_format.as_deref() {
        Some("whole") => EditFormat::Whole,
        _ => EditFormat::Blocks,
    };

    // The model sees the pool from `from` on (the last /clear): what it was not sent (the
    // `/clear` itself, local commands) waits in `unsent` and joins the pool at the end, so
    // each context is a span, not a list that grows with every step (quadratic memory).
    let mut from = t.messages.len();
    let mut unsent: Vec<Message> = Vec::new();
    // Whether the last thing after a reply was only Aider's output: then that output was
    // reflected back to the model (edit errors, lint errors) before the next reply.
    let mut pending_reflection = false;
    // Output that follows a reply (before the user types again) is that step's observation;
    // output after a user message answers their command (`/run`, `/add`), not a step.
    let mut after_reply = false;
    for block in blocks {
        match block.kind {
            Kind::User => {
                pending_reflection = false;
                after_reply = false;
                let message = Message::user(block.text.clone());
                if clears_history(&block.text) {
                    unsent.push(message);
                    from = t.messages.len();
                } else if is_local_command(&block.text) {
                    unsent.push(message);
                } else {
                    if t.task.is_none() {
                        t.task = Some(block.text.clone());
                    }
                    t.push_message(message);
                }
            }
            Kind::Output => {
                if let Some(step) = t.steps.last_mut().filter(|_| after_reply) {
                    add_output(step, &block.text);
                    pending_reflection = true;
                } else if block.text.lines().any(|l| l.starts_with("Tokens: ")) {
                    // A model call that produced no reply (an API error, ^C while waiting):
                    // a failed step, as it cost tokens and the user saw it fail.
                    let mut step = Step {
                        failed: true,
                        context: Some(StepContext::span(
                            Exactness::Reconstructed,
                            from,
                            t.messages.len(),
                        )),
                        ..Step::default()
                    };
                    add_output(&mut step, &block.text);
                    t.steps.push(step);
                }
            }
            Kind::Reply => {
                if pending_reflection {
                    let observation = t.steps.last().map(|s| s.observation.clone());
                    if let Some(reflected) = observation.filter(|o| !o.trim().is_empty()) {
                        t.push_message(Message::user(reflected));
                    }
                }
                pending_reflection = false;
                after_reply = true;
                let context = StepContext::span(Exactness::Reconstructed, from, t.messages.len());
                t.push_message(Message::assistant(block.text.clone()));
                let step = step_from_reply(&block.text, edit_format, context);
                if step.1 > 0 {
                    t.warnings.push(format!(
                        "step {}: {} edit block(s) cut off before `>>>>>>> REPLACE`",
                        t.steps.len() + 1,
                        step.1
                    ));
                }
                t.steps.push(step.0);
            }
        }
    }
    for message in unsent {
        t.push_message(message);
    }
    if blocks
        .iter()
        .rev()
        .find(|b| b.kind == Kind::Output)
        .is_some_and(|b| b.text.contains("KeyboardInterrupt"))
    {
        t.exit_status = Some("interrupted".into());
    }
    t
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
    fn read(blocks: &[Block]) -> Banner {
        let mut banner = Banner::default();
        let before_first_reply = blocks.iter().take_while(|b| b.kind != Kind::Reply);
        for block in before_first_reply.filter(|b| b.kind == Kind::Output) {
            for line in block.text.lines() {
                if banner.version.is_none()
                    && let Some(v) = line.strip_prefix("Aider v")
                {
                    banner.version = Some(v.trim().to_string());
                }
                if banner.model.is_none() {
                    let described = ["Models: ", "Main model: ", "Model: "]
                        .iter()
                        .find_map(|p| line.strip_prefix(p));
                    if let Some(described) = described {
                        banner.read_model_line(described);
                    }
                }
            }
        }
        banner
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
