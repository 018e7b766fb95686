//! `str_replace_editor` (Anthropic's text editor tool, as SWE-agent 1.x and OpenHands ship it):
//! `view` (a file with `cat -n` numbering, or a folder two levels deep), `create`,
//! `str_replace`, `insert`, `undo_edit`.
//!
//! The snippet arithmetic and every message are the originals'. The two flavours differ where
//! the agents do: SWE-agent prints (a trailing newline) and reports errors as plain text with
//! a non-zero exit; OpenHands returns the text and prefixes errors with `ERROR:`; their
//! truncation notes differ. A folder listing is sorted (`find` order is the disk's).

use super::ToolOutput;
use crate::replay::files::{Files, Kind};
use serde_json::{Map, Value};
use std::collections::HashMap;

const SNIPPET_LINES: usize = 4;
const MAX_RESPONSE_LEN: usize = 16000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorFlavour {
    SweAgent,
    OpenHands,
}

pub struct Editor {
    flavour: EditorFlavour,
    history: HashMap<String, Vec<String>>,
}

/// A failed command: the message, shown per flavour.
struct Refusal(String);

type Outcome = Result<String, Refusal>;

impl Editor {
    pub fn new(flavour: EditorFlavour) -> Editor {
        Editor {
            flavour,
            history: HashMap::new(),
        }
    }

    /// Runs one call; `args` are the tool call's arguments (paths already mapped).
    pub fn call(&mut self, files: &dyn Files, cwd: &str, args: &Map<String, Value>) -> ToolOutput {
        let result = self.dispatch(files, cwd, args);
        match (self.flavour, result) {
            (EditorFlavour::SweAgent, Ok(text)) => ToolOutput::ok(text + "\n"),
            (EditorFlavour::SweAgent, Err(Refusal(msg))) => ToolOutput::error(msg + "\n"),
            (EditorFlavour::OpenHands, Ok(text)) => ToolOutput::ok(text),
            (EditorFlavour::OpenHands, Err(Refusal(msg))) => {
                ToolOutput::error(format!("ERROR:\n{msg}"))
            }
        }
    }

    fn truncated(&self, text: &str) -> String {
        if text.chars().count() <= MAX_RESPONSE_LEN {
            return text.to_string();
        }
        let head: String = text.chars().take(MAX_RESPONSE_LEN).collect();
        let note = match self.flavour {
            EditorFlavour::SweAgent => {
                "<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>"
            }
            EditorFlavour::OpenHands => {
                "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>"
            }
        };
        head + note
    }

    /// `_make_output`: `cat -n` numbering from `init_line`.
    fn numbered(&self, content: &str, descriptor: &str, init_line: usize) -> String {
        let content = expand_tabs(&self.truncated(content));
        let body: Vec<String> = content
            .split('\n')
            .enumerate()
            .map(|(i, line)| format!("{:6}\t{line}", i + init_line))
            .collect();
        format!(
            "Here's the result of running `cat -n` on {descriptor}:\n{}\n",
            body.join("\n")
        )
    }

    fn dispatch(&mut self, files: &dyn Files, cwd: &str, args: &Map<String, Value>) -> Outcome {
        let text = |k: &str| args.get(k).and_then(Value::as_str).map(String::from);
        let command = text("command").unwrap_or_default();
        let path = text("path").unwrap_or_default();
        self.validate(files, cwd, &command, &path)?;
        match command.as_str() {
            "view" => self.view(files, &path, args.get("view_range")),
            "create" => {
                let body = text("file_text").ok_or_else(|| {
                    Refusal("Parameter `file_text` is required for command: create".into())
                })?;
                files.write(&path, body.as_bytes()).map_err(|e| {
                    Refusal(format!("Ran into {e} while trying to write to {path}"))
                })?;
                self.history.entry(path.clone()).or_default().push(body);
                Ok(format!("File created successfully at: {path}"))
            }
            "str_replace" => {
                let old = text("old_str").ok_or_else(|| {
                    Refusal("Parameter `old_str` is required for command: str_replace".into())
                })?;
                self.str_replace(files, &path, &old, text("new_str").as_deref())
            }
            "insert" => {
                let line = args.get("insert_line").and_then(as_int).ok_or_else(|| {
                    Refusal("Parameter `insert_line` is required for command: insert".into())
                })?;
                let new = text("new_str").ok_or_else(|| {
                    Refusal("Parameter `new_str` is required for command: insert".into())
                })?;
                self.insert(files, &path, line, &new)
            }
            "undo_edit" => {
                let old = self
                    .history
                    .get_mut(&path)
                    .and_then(Vec::pop)
                    .ok_or_else(|| Refusal(format!("No edit history found for {path}.")))?;
                files.write(&path, old.as_bytes()).map_err(|e| {
                    Refusal(format!("Ran into {e} while trying to write to {path}"))
                })?;
                Ok(format!(
                    "Last edit to {path} undone successfully. {}",
                    self.numbered(&old, &path, 1)
                ))
            }
            other => Err(Refusal(format!(
                "Unrecognized command {other}. The allowed commands for the str_replace_editor tool are: \"view\", \"create\", \"str_replace\", \"insert\", \"undo_edit\""
            ))),
        }
    }

    fn validate(
        &self,
        files: &dyn Files,
        cwd: &str,
        command: &str,
        path: &str,
    ) -> Result<(), Refusal> {
        let prefix = match self.flavour {
            EditorFlavour::SweAgent => String::new(),
            EditorFlavour::OpenHands => format!("Invalid `path` parameter: {path}. "),
        };
        if !path.starts_with('/') {
            let suggested = format!("{}/{path}", cwd.trim_end_matches('/'));
            return Err(Refusal(format!(
                "{prefix}The path {path} is not an absolute path, it should start with `/`. Maybe you meant {suggested}?"
            )));
        }
        let exists = files.exists(path);
        if !exists && command != "create" {
            return Err(Refusal(format!(
                "{prefix}The path {path} does not exist. Please provide a valid path."
            )));
        }
        if exists && command == "create" {
            return Err(Refusal(format!(
                "{prefix}File already exists at: {path}. Cannot overwrite files using command `create`."
            )));
        }
        if files.is_dir(path) && command != "view" {
            return Err(Refusal(format!(
                "{prefix}The path {path} is a directory and only the `view` command can be used on directories"
            )));
        }
        Ok(())
    }

    fn view(&self, files: &dyn Files, path: &str, range: Option<&Value>) -> Outcome {
        let range = range.filter(|r| !r.is_null());
        if files.is_dir(path) {
            if range.is_some() {
                return Err(Refusal(
                    "The `view_range` parameter is not allowed when `path` points to a directory."
                        .into(),
                ));
            }
            let mut listing = vec![path.to_string()];
            for e in files.walk(path, Some(2)).unwrap_or_default() {
                let rel = e.path.strip_prefix(path).unwrap_or(&e.path);
                if !rel.split('/').any(|p| p.starts_with('.')) {
                    listing.push(e.path);
                }
            }
            return Ok(format!(
                "Here's the files and directories up to 2 levels deep in {path}, excluding hidden items:\n{}\n",
                listing.join("\n")
            ));
        }
        let content = read_text(files, path)?;
        let Some(range) = range else {
            return Ok(self.numbered(&content, path, 1));
        };
        let bounds: Option<Vec<i64>> = range
            .as_array()
            .map(|a| a.iter().filter_map(as_int).collect())
            .filter(|b: &Vec<i64>| b.len() == 2 && range.as_array().is_some_and(|a| a.len() == 2));
        let Some(bounds) = bounds else {
            return Err(Refusal(
                "Invalid `view_range`. It should be a list of two integers.".into(),
            ));
        };
        let lines: Vec<&str> = content.split('\n').collect();
        let n = i64::try_from(lines.len()).unwrap_or(i64::MAX);
        let (init, mut last) = (bounds[0], bounds[1]);
        let shown = format!("[{init}, {last}]");
        if init < 1 || init > n {
            return Err(Refusal(format!(
                "Invalid `view_range`: {shown}. Its first element `{init}` should be within the range of lines of the file: [1, {n}]"
            )));
        }
        if last > n {
            return Err(Refusal(format!(
                "Invalid `view_range`: {shown}. Its second element `{last}` should be smaller than the number of lines in the file: `{n}`"
            )));
        }
        if last != -1 && last < init {
            return Err(Refusal(format!(
                "Invalid `view_range`: {shown}. Its second element `{last}` should be larger or equal than its first `{init}`"
            )));
        }
        if last == -1 {
            last = n;
        }
        let (a, b) = (to_usize(init - 1), to_usize(last));
        let part = lines[a.min(lines.len())..b.min(lines.len()).max(a.min(lines.len()))].join("\n");
        Ok(self.numbered(&part, path, to_usize(init)))
    }

    fn str_replace(
        &mut self,
        files: &dyn Files,
        path: &str,
        old: &str,
        new: Option<&str>,
    ) -> Outcome {
        let content = expand_tabs(&read_text(files, path)?);
        let old = expand_tabs(old);
        let new = new.map(expand_tabs).unwrap_or_default();
        let occurrences = if old.is_empty() {
            content.chars().count() + 1
        } else {
            content.matches(&old).count()
        };
        if occurrences == 0 {
            return Err(Refusal(format!(
                "No replacement was performed, old_str `{old}` did not appear verbatim in {path}."
            )));
        }
        if occurrences > 1 {
            let lines: Vec<String> = content
                .split('\n')
                .enumerate()
                .filter(|(_, l)| l.contains(old.as_str()))
                .map(|(i, _)| (i + 1).to_string())
                .collect();
            let end = if self.flavour == EditorFlavour::OpenHands {
                "."
            } else {
                ""
            };
            return Err(Refusal(format!(
                "No replacement was performed. Multiple occurrences of old_str `{old}` in lines [{}]. Please ensure it is unique{end}",
                lines.join(", ")
            )));
        }
        let updated = content.replacen(&old, &new, 1);
        files
            .write(path, updated.as_bytes())
            .map_err(|e| Refusal(format!("Ran into {e} while trying to write to {path}")))?;
        self.history
            .entry(path.to_string())
            .or_default()
            .push(content.clone());
        let line = content
            .split(old.as_str())
            .next()
            .unwrap_or("")
            .matches('\n')
            .count();
        let start = line.saturating_sub(SNIPPET_LINES);
        let end = line + SNIPPET_LINES + new.matches('\n').count();
        let parts: Vec<&str> = updated.split('\n').collect();
        let snippet = parts[start.min(parts.len())..(end + 1).min(parts.len())].join("\n");
        Ok(format!(
            "The file {path} has been edited. {}Review the changes and make sure they are as expected. Edit the file again if necessary.",
            self.numbered(&snippet, &format!("a snippet of {path}"), start + 1)
        ))
    }

    fn insert(&mut self, files: &dyn Files, path: &str, line: i64, new: &str) -> Outcome {
        let content = expand_tabs(&read_text(files, path)?);
        let new = expand_tabs(new);
        let lines: Vec<&str> = content.split('\n').collect();
        let n = lines.len();
        if line < 0 || to_usize(line) > n {
            return Err(Refusal(format!(
                "Invalid `insert_line` parameter: {line}. It should be within the range of lines of the file: [0, {n}]"
            )));
        }
        let at = to_usize(line);
        let new_lines: Vec<&str> = new.split('\n').collect();
        let mut updated: Vec<&str> = lines[..at].to_vec();
        updated.extend(&new_lines);
        updated.extend(&lines[at..]);
        let mut snippet: Vec<&str> = lines[at.saturating_sub(SNIPPET_LINES)..at].to_vec();
        snippet.extend(&new_lines);
        snippet.extend(&lines[at..(at + SNIPPET_LINES).min(n)]);
        files
            .write(path, updated.join("\n").as_bytes())
            .map_err(|e| Refusal(format!("Ran into {e} while trying to write to {path}")))?;
        self.history
            .entry(path.to_string())
            .or_default()
            .push(content.clone());
        let first = (line - i64::try_from(SNIPPET_LINES).unwrap_or(4) + 1).max(1);
        Ok(format!(
            "The file {path} has been edited. {}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
            self.numbered(
                &snippet.join("\n"),
                "a snippet of the edited file",
                to_usize(first)
            )
        ))
    }
}

fn read_text(files: &dyn Files, path: &str) -> Result<String, Refusal> {
    if files.kind(path).is_ok_and(|k| k == Kind::Other) {
        return Err(Refusal(format!(
            "Ran into an error while trying to read {path}"
        )));
    }
    files
        .read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| Refusal(format!("Ran into {e} while trying to read {path}")))
}

fn as_int(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

fn to_usize(v: i64) -> usize {
    usize::try_from(v.max(0)).unwrap_or(0)
}

/// Python's `str.expandtabs()` (tab stops every 8 columns, restarting at each newline).
pub fn expand_tabs(s: &str) -> String {
    if !s.contains('\t') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut col = 0;
    for c in s.chars() {
        match c {
            '\t' => {
                let pad = 8 - col % 8;
                out.extend(std::iter::repeat_n(' ', pad));
                col += pad;
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
