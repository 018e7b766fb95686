//! OpenCode sessions in its JSON file storage (`~/.local/share/opencode/storage/`, and the
//! `storage_v2/` layout of later releases), read as sst/opencode 0.x–1.x writes them: a
//! session is a folder, `message/<sessionID>/<messageID>.json` holds one message each
//! (`{id, sessionID, role, time: {created, completed}, …}`; an assistant message adds
//! `modelID`, `providerID`, `cost`, `tokens`, `error`), and each message's parts are files
//! of their own under `part/<messageID>/<partID>.json` (`text`, `reasoning`, `tool` with
//! `callID`, `tool` and a `state` holding `input`, `output` / `error` and `status`,
//! `step-start` / `step-finish`, `file`, `patch`, `snapshot`).
//!
//! Any one message file stands for its session: the reader reads its folder's other
//! messages and their parts (read-only), orders them by creation time, and makes a user
//! turn of each user message and a model step of each assistant message. A folder walk
//! lists a session once ([`collapse_folder`]), and never lists part files on their own.

use super::LoadError;
use super::discover::Candidate;
use super::json::{TopKeys, f64_field, str_field, to_text, u64_field};
use super::tool_steps::{CallOutput, call_action};
use super::turns::{Session, iso_from_millis};
use crate::model::{Format, ToolCall, Trajectory, Usage};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Whether a JSON document's keys are an OpenCode message's.
pub fn is_message_document(keys: &TopKeys) -> bool {
    keys.has("id")
        && keys.has("sessionID")
        && keys.has("role")
        && keys.has("time")
        && !keys.has("messageID")
}

/// Whether a JSON document's keys are an OpenCode message part's.
pub fn is_part_document(keys: &TopKeys) -> bool {
    keys.has("id") && keys.has("sessionID") && keys.has("messageID") && keys.has("type")
}

/// Message files above this size are not what OpenCode writes: not sniffed in a folder walk.
const MESSAGE_MAX: u64 = 1 << 20;

/// In a folder walk, keeps one candidate per OpenCode session folder (its first message
/// file) and none for a folder of message parts, which their message's session reads.
/// `found[first..]` are the candidates the walk added while in `dir` (its subfolders too).
pub fn collapse_folder(dir: &Path, found: &mut Vec<Candidate>, first: usize) {
    let own = |c: &Candidate| c.path.parent() == Some(dir);
    let Some(head) = found[first..]
        .iter()
        .filter(|c| own(c))
        .min_by(|a, b| a.path.cmp(&b.path))
    else {
        return;
    };
    if head.size > MESSAGE_MAX
        || found[first..]
            .iter()
            .filter(|c| own(c))
            .any(|c| c.path.extension().is_none_or(|e| e != "json"))
    {
        return;
    }
    let head = head.path.clone();
    let Some(value) = std::fs::read(&head)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    else {
        return;
    };
    // OpenCode names the folders: `message/<sessionID>/`, `part/<messageID>/`. A folder of
    // other logs that happens to start with such a file is left alone.
    let folder = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    let named =
        |key: &str| str_field(&value, key).is_some() && str_field(&value, key) == folder.as_deref();
    let keep_head = if value.get("messageID").is_some() && named("messageID") {
        false
    } else if value.get("role").is_some() && named("sessionID") {
        true
    } else {
        return;
    };
    let mut i = 0;
    found.retain(|c| {
        let keep = i < first || !own(c) || (keep_head && c.path == head);
        i += 1;
        keep
    });
}

/// One message and its parts.
struct Record {
    message: Value,
    parts: Vec<Value>,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    // A part file stands for the session of its message.
    if value.get("messageID").is_some() {
        return parse_from_part(path, &value);
    }
    let Some(session_id) = str_field(&value, "sessionID").map(String::from) else {
        return Err(LoadError::invalid(
            path,
            "an OpenCode message without a sessionID",
        ));
    };
    let mut session = Session::new(Trajectory::new(path, Format::OpenCode));
    let folder = path.parent().map(Path::to_path_buf);
    let root = folder
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    let mut messages = vec![value];
    if let Some(folder) = &folder {
        for sibling in json_files(folder) {
            if sibling.file_name() == path.file_name() {
                continue;
            }
            match read_json(&sibling) {
                Ok(v) if str_field(&v, "sessionID") == Some(session_id.as_str()) => {
                    messages.push(v)
                }
                Ok(_) => {}
                Err(warning) => session.steps.warn(warning),
            }
        }
    }
    messages.sort_by(|a, b| {
        let created = |m: &Value| m.get("time").and_then(|t| u64_field(t, "created"));
        created(a)
            .cmp(&created(b))
            .then_with(|| str_field(a, "id").cmp(&str_field(b, "id")))
    });
    let records: Vec<Record> = messages
        .into_iter()
        .map(|message| {
            let parts = match (&root, str_field(&message, "id")) {
                (Some(root), Some(id)) => read_parts(&root.join("part").join(id), &mut session),
                _ => Vec::new(),
            };
            Record { message, parts }
        })
        .collect();
    session.steps.trajectory.instance_id = session_id;
    for record in &records {
        read_record(&mut session, record);
    }
    Ok(vec![session.finish()])
}

fn parse_from_part(path: &Path, part: &Value) -> Result<Vec<Trajectory>, LoadError> {
    let (Some(session), Some(message)) =
        (str_field(part, "sessionID"), str_field(part, "messageID"))
    else {
        return Err(LoadError::invalid(
            path,
            "an OpenCode part without its session and message",
        ));
    };
    let root = path.parent().and_then(Path::parent).and_then(Path::parent);
    let message_path = root.map(|r| {
        r.join("message")
            .join(session)
            .join(format!("{message}.json"))
    });
    match message_path {
        Some(message_path) if message_path.is_file() => {
            let bytes =
                std::fs::read(&message_path).map_err(|err| LoadError::io(&message_path, err))?;
            parse(&message_path, &bytes)
        }
        _ => Err(LoadError::invalid(
            path,
            format!("an OpenCode message part whose message ({message}) is not in this storage"),
        )),
    }
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn read_json(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|err| format!("{}: {err}", path.display()))?;
    serde_json::from_slice(&bytes)
        .map_err(|err| format!("{}: not JSON ({err}); skipped", path.display()))
}

fn read_parts(dir: &Path, session: &mut Session) -> Vec<Value> {
    let mut parts = Vec::new();
    for file in json_files(dir) {
        match read_json(&file) {
            Ok(part) => parts.push(part),
            Err(warning) => session.steps.warn(warning),
        }
    }
    parts.sort_by(|a, b| str_field(a, "id").cmp(&str_field(b, "id")));
    parts
}

fn created(message: &Value) -> Option<String> {
    let ms = message
        .get("time")
        .and_then(|t| t.get("created"))
        .and_then(Value::as_i64)?;
    iso_from_millis(ms)
}

fn read_record(session: &mut Session, record: &Record) {
    let m = &record.message;
    let time = created(m);
    match str_field(m, "role").unwrap_or("") {
        "user" => {
            let texts: Vec<String> = record
                .parts
                .iter()
                .filter(|p| str_field(p, "type") == Some("text"))
                .filter(|p| p.get("synthetic").and_then(Value::as_bool) != Some(true))
                .filter_map(|p| str_field(p, "text").map(String::from))
                .collect();
            let mut text = texts.join("\n");
            // Without parts (trimmed storage), the message's own summary is all there is.
            if text.is_empty() {
                let summary = m.get("summary");
                text = summary
                    .and_then(|s| str_field(s, "body").or_else(|| str_field(s, "title")))
                    .unwrap_or("")
                    .to_string();
            }
            if let Some(model) = m.get("model").and_then(|x| str_field(x, "modelID")) {
                session.steps.trajectory.model = Some(model.to_string());
            }
            session.user(&text, time);
        }
        "assistant" => assistant(session, record, time),
        other => session
            .steps
            .warn(format!("message with role {other:?} skipped")),
    }
}

fn assistant(session: &mut Session, record: &Record, time: Option<String>) {
    let m = &record.message;
    let b = &mut session.steps;
    let step = b.start_step(None, str_field(m, "id"), time);
    if let Some(model) = str_field(m, "modelID") {
        b.trajectory.model = Some(model.to_string());
    }
    for part in &record.parts {
        match str_field(part, "type").unwrap_or("") {
            "text" => b.add_text(step, str_field(part, "text").unwrap_or("")),
            "reasoning" => b.add_thought(step, str_field(part, "text").unwrap_or("")),
            "tool" => {
                let state = part.get("state").unwrap_or(&Value::Null);
                let name = str_field(part, "tool").unwrap_or("tool").to_string();
                let arguments = state.get("input").map(Value::to_string).unwrap_or_default();
                let call = ToolCall {
                    id: str_field(part, "callID").map(String::from),
                    name,
                    arguments,
                };
                let action = call_action(&call);
                if !b.add_call(step, call, action, true) {
                    continue;
                }
                let status = str_field(state, "status").unwrap_or("");
                let text = match (state.get("output"), state.get("error")) {
                    (Some(out), _) if !out.is_null() => to_text(out),
                    (_, Some(err)) if !err.is_null() => to_text(err),
                    _ => continue,
                };
                let timing = state.get("time");
                let duration_s = timing.and_then(|t| {
                    let start = t.get("start")?.as_f64()?;
                    let end = t.get("end")?.as_f64()?;
                    (end >= start).then(|| (end - start) / 1000.0)
                });
                let at = (step, b.trajectory.steps[step].tool_calls.len() - 1);
                b.add_result(
                    at,
                    CallOutput {
                        text,
                        failed: status == "error",
                        duration_s,
                        ..CallOutput::default()
                    },
                );
            }
            _ => {}
        }
    }
    // Saturating: the counts come from the file, and absurd ones must not overflow (found by
    // fuzzing: a `reasoning` of 10^44).
    let tokens = m.get("tokens");
    let input = tokens.map(|t| {
        let cache = t.get("cache");
        u64_field(t, "input")
            .unwrap_or(0)
            .saturating_add(cache.and_then(|c| u64_field(c, "read")).unwrap_or(0))
            .saturating_add(cache.and_then(|c| u64_field(c, "write")).unwrap_or(0))
    });
    let output = tokens.map(|t| {
        u64_field(t, "output")
            .unwrap_or(0)
            .saturating_add(u64_field(t, "reasoning").unwrap_or(0))
    });
    b.merge_usage(
        step,
        Usage {
            cost: f64_field(m, "cost"),
            tokens_in: input,
            tokens_out: output,
            api_calls: Some(1),
            tokens_cached: None,
            tokens_reasoning: None,
        },
    );
    if let Some(error) = m.get("error").filter(|e| !e.is_null()) {
        let name = str_field(error, "name").unwrap_or("error");
        let message = error
            .get("data")
            .and_then(|d| str_field(d, "message"))
            .unwrap_or("");
        session.step_error(step, format!("[{name}] {message}"));
    }
}

#[cfg(test)]
mod tests;
