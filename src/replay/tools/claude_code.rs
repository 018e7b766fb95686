//! Claude Code's file tools: `Read`, `Edit`, `Write`, `Glob`, `Grep` (`Bash` is a shell
//! command, run by the executor in a persistent session as Claude Code does).
//!
//! Results follow Claude Code's texts: `cat -n`-style numbering with `→`, `<tool_use_error>`
//! refusals, the rule that a file must be read before it is edited or overwritten. Where the
//! original depends on the machine, this differs: `Glob` and `Grep` sort by path, not by
//! modification time (a fresh copy has no meaningful times), and `Grep` skips hidden files
//! but does not read `.gitignore`. Session reminders (`<system-reminder>`) are not produced.

use super::pattern::path_glob;
use super::{ToolOutput, resolve};
use crate::replay::files::{Files, Kind};
use regex::RegexBuilder;
use serde_json::{Map, Value};
use std::collections::HashSet;

const SNIPPET_LINES: usize = 4;
const MAX_READ_LINES: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;
const MAX_RESULTS: usize = 100;

#[derive(Default)]
pub struct ClaudeCode {
    read: HashSet<String>,
}

fn refuse(msg: &str) -> ToolOutput {
    ToolOutput::error(format!("<tool_use_error>{msg}</tool_use_error>"))
}

fn numbered(lines: &[&str], first: usize) -> String {
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{:>6}→{l}", i + first))
        .collect::<Vec<_>>()
        .join("\n")
}

impl ClaudeCode {
    pub fn new() -> ClaudeCode {
        ClaudeCode::default()
    }

    /// Runs `name` when it is one of Claude Code's file tools.
    pub fn call(
        &mut self,
        files: &dyn Files,
        cwd: &str,
        name: &str,
        args: &Map<String, Value>,
    ) -> Option<ToolOutput> {
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let num = |k: &str| args.get(k).and_then(Value::as_u64).map(|n| n as usize);
        Some(match name {
            "Read" => self.read(files, &text("file_path"), num("offset"), num("limit")),
            "Edit" => self.edit(
                files,
                &text("file_path"),
                &text("old_string"),
                &text("new_string"),
                args.get("replace_all")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ),
            "Write" => self.write(files, &text("file_path"), &text("content")),
            "Glob" => glob(
                files,
                cwd,
                &text("pattern"),
                args.get("path").and_then(Value::as_str),
            ),
            "Grep" => grep(files, cwd, args),
            _ => return None,
        })
    }

    fn read(
        &mut self,
        files: &dyn Files,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> ToolOutput {
        match files.kind(path) {
            Err(_) => return refuse("File does not exist."),
            Ok(Kind::Dir) => {
                return ToolOutput::error("EISDIR: illegal operation on a directory, read");
            }
            Ok(_) => {}
        }
        let Ok(data) = files.read(path) else {
            return refuse("File does not exist.");
        };
        self.read.insert(path.to_string());
        let text = String::from_utf8_lossy(&data);
        if text.is_empty() {
            return ToolOutput::ok(
                "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
            );
        }
        let lines: Vec<String> = text
            .strip_suffix('\n')
            .unwrap_or(&text)
            .split('\n')
            .map(|l| {
                l.strip_suffix('\r')
                    .unwrap_or(l)
                    .chars()
                    .take(MAX_LINE_CHARS)
                    .collect()
            })
            .collect();
        let start = offset.unwrap_or(1).max(1) - 1;
        let end = (start + limit.unwrap_or(MAX_READ_LINES)).min(lines.len());
        if start >= lines.len() {
            return ToolOutput::ok(format!(
                "<system-reminder>Warning: the file exists but is shorter than the provided offset ({}). The file has {} lines.</system-reminder>",
                start + 1,
                lines.len()
            ));
        }
        let shown: Vec<&str> = lines[start..end].iter().map(String::as_str).collect();
        ToolOutput::ok(numbered(&shown, start + 1))
    }

    fn edit(
        &mut self,
        files: &dyn Files,
        path: &str,
        old: &str,
        new: &str,
        all: bool,
    ) -> ToolOutput {
        if old == new {
            return refuse("No changes to make: old_string and new_string are exactly the same.");
        }
        let exists = files.exists(path);
        if old.is_empty() && !exists {
            return match files.write(path, new.as_bytes()) {
                Ok(()) => {
                    self.read.insert(path.to_string());
                    ToolOutput::ok(format!("File created successfully at: {path}"))
                }
                Err(e) => ToolOutput::error(e.to_string()),
            };
        }
        if !exists {
            return refuse("File does not exist.");
        }
        if !self.read.contains(path) {
            return refuse("File has not been read yet. Read it first before writing to it.");
        }
        let content = String::from_utf8_lossy(&files.read(path).unwrap_or_default()).into_owned();
        let matches = if old.is_empty() {
            0
        } else {
            content.matches(old).count()
        };
        if matches == 0 {
            return refuse(&format!(
                "String to replace not found in file.\nString: {old}"
            ));
        }
        if matches > 1 && !all {
            return refuse(&format!(
                "Found {matches} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: {old}"
            ));
        }
        let updated = if all {
            content.replace(old, new)
        } else {
            content.replacen(old, new, 1)
        };
        if let Err(e) = files.write(path, updated.as_bytes()) {
            return ToolOutput::error(e.to_string());
        }
        if all {
            return ToolOutput::ok(format!(
                "The file {path} has been updated. All occurrences of '{old}' were successfully replaced with '{new}'."
            ));
        }
        let before = content
            .split(old)
            .next()
            .unwrap_or("")
            .matches('\n')
            .count();
        let lines: Vec<&str> = updated.split('\n').collect();
        let start = before.saturating_sub(SNIPPET_LINES);
        let end = (before + SNIPPET_LINES + new.split('\n').count()).min(lines.len());
        ToolOutput::ok(format!(
            "The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{}",
            numbered(&lines[start..end.max(start)], start + 1)
        ))
    }

    fn write(&mut self, files: &dyn Files, path: &str, content: &str) -> ToolOutput {
        let exists = files.exists(path);
        if exists && !self.read.contains(path) {
            return refuse("File has not been read yet. Read it first before writing to it.");
        }
        if let Err(e) = files.write(path, content.as_bytes()) {
            return ToolOutput::error(e.to_string());
        }
        self.read.insert(path.to_string());
        if !exists {
            return ToolOutput::ok(format!("File created successfully at: {path}"));
        }
        let lines: Vec<&str> = content.split('\n').collect();
        ToolOutput::ok(format!(
            "The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{}",
            numbered(&lines, 1)
        ))
    }
}

/// The files under `dir` that are not hidden and whose path relative to `dir` passes `keep`.
fn visible_files(files: &dyn Files, dir: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    files
        .walk(dir, None)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.kind == Kind::File)
        .filter(|e| {
            let rel = e
                .path
                .strip_prefix(dir)
                .unwrap_or(&e.path)
                .trim_start_matches('/');
            visible(rel) && keep(rel)
        })
        .map(|e| e.path)
        .collect()
}

fn visible(rel: &str) -> bool {
    !rel.split('/')
        .any(|p| p.starts_with('.') || p == "node_modules")
}

fn glob(files: &dyn Files, cwd: &str, pattern: &str, path: Option<&str>) -> ToolOutput {
    let dir = resolve(cwd, path.unwrap_or("."));
    if !files.is_dir(&dir) {
        return refuse(&format!(
            "Directory does not exist: {}",
            path.unwrap_or(&dir)
        ));
    }
    let found = visible_files(files, &dir, |rel| path_glob(pattern, rel));
    if found.is_empty() {
        return ToolOutput::ok("No files found");
    }
    let mut out = found
        .iter()
        .take(MAX_RESULTS)
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    if found.len() > MAX_RESULTS {
        out.push_str("\n(Results are truncated. Consider using a more specific path or pattern.)");
    }
    ToolOutput::ok(out)
}

fn grep(files: &dyn Files, cwd: &str, args: &Map<String, Value>) -> ToolOutput {
    let text = |k: &str| args.get(k).and_then(Value::as_str);
    let pattern = text("pattern").unwrap_or("");
    let Ok(re) = RegexBuilder::new(pattern)
        .case_insensitive(args.get("-i").and_then(Value::as_bool).unwrap_or(false))
        .multi_line(true)
        .build()
    else {
        return ToolOutput::error(format!("regex parse error: {pattern}"));
    };
    let base = resolve(cwd, text("path").unwrap_or("."));
    let mode = text("output_mode").unwrap_or("files_with_matches");
    let numbers = args.get("-n").and_then(Value::as_bool).unwrap_or(false);
    let candidates: Vec<String> = if files.is_dir(&base) {
        visible_files(files, &base, |rel| {
            text("glob").is_none_or(|g| path_glob(g, rel) || path_glob(&format!("**/{g}"), rel))
        })
    } else {
        vec![base.clone()]
    };
    let mut hits: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    for path in candidates {
        let Ok(data) = files.read(&path) else {
            continue;
        };
        if data.contains(&0) {
            continue;
        }
        let content = String::from_utf8_lossy(&data);
        let lines: Vec<(usize, String)> = content
            .lines()
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        if !lines.is_empty() {
            hits.push((path, lines));
        }
    }
    match mode {
        "content" => {
            if hits.is_empty() {
                return ToolOutput::ok("No matches found");
            }
            let out: Vec<String> = hits
                .iter()
                .flat_map(|(p, ls)| {
                    ls.iter().map(move |(n, l)| {
                        if numbers {
                            format!("{p}:{n}:{l}")
                        } else {
                            format!("{p}:{l}")
                        }
                    })
                })
                .collect();
            ToolOutput::ok(out.join("\n"))
        }
        "count" => {
            if hits.is_empty() {
                return ToolOutput::ok("No matches found");
            }
            let total: usize = hits.iter().map(|(_, l)| l.len()).sum();
            let mut out: Vec<String> = hits
                .iter()
                .map(|(p, l)| format!("{p}:{}", l.len()))
                .collect();
            out.push(String::new());
            out.push(format!(
                "Found {total} total {} across {} {}.",
                if total == 1 {
                    "occurrence"
                } else {
                    "occurrences"
                },
                hits.len(),
                if hits.len() == 1 { "file" } else { "files" }
            ));
            ToolOutput::ok(out.join("\n"))
        }
        _ => {
            if hits.is_empty() {
                return ToolOutput::ok("No files found");
            }
            let n = hits.len();
            let paths: Vec<&str> = hits.iter().map(|(p, _)| p.as_str()).collect();
            ToolOutput::ok(format!(
                "Found {n} {}\n{}",
                if n == 1 { "file" } else { "files" },
                paths.join("\n")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::files::LocalFiles;
    use serde_json::json;

    fn call(cc: &mut ClaudeCode, root: &str, name: &str, v: serde_json::Value) -> ToolOutput {
        cc.call(&LocalFiles, root, name, v.as_object().unwrap())
            .unwrap()
    }

    #[test]
    fn read_edit_write_glob_grep() {
        let (_dir, root) = crate::replay::tools::temp_root();
        let f = format!("{root}/math_utils.py");
        std::fs::write(&f, "def add(a, b):\n    return a + b\n").unwrap();
        let mut cc = ClaudeCode::new();
        // The same edit twice: refused before the file is read, applied after.
        let edit = |cc: &mut ClaudeCode| {
            call(
                cc,
                &root,
                "Edit",
                json!({"file_path": f, "old_string": "a + b", "new_string": "a - b"}),
            )
        };
        let out = edit(&mut cc);
        assert_eq!(
            out.text,
            "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
        );
        let out = call(&mut cc, &root, "Read", json!({"file_path": f}));
        assert_eq!(out.text, "     1→def add(a, b):\n     2→    return a + b");
        let out = edit(&mut cc);
        assert_eq!(
            out.text,
            format!(
                "The file {f} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→def add(a, b):\n     2→    return a - b\n     3→"
            )
        );
        let out = call(
            &mut cc,
            &root,
            "Edit",
            json!({"file_path": f, "old_string": "nope", "new_string": "x"}),
        );
        assert!(out.is_error);
        assert_eq!(
            out.text,
            "<tool_use_error>String to replace not found in file.\nString: nope</tool_use_error>"
        );
        let missing = format!("{root}/tinycalc/operators.py");
        let out = call(&mut cc, &root, "Read", json!({"file_path": missing}));
        assert_eq!(
            out.text,
            "<tool_use_error>File does not exist.</tool_use_error>"
        );
        let g = format!("{root}/tests/test_math.py");
        std::fs::create_dir_all(format!("{root}/tests")).unwrap();
        let out = call(
            &mut cc,
            &root,
            "Write",
            json!({"file_path": g, "content": "from math_utils import add\n"}),
        );
        assert_eq!(out.text, format!("File created successfully at: {g}"));
        let out = call(
            &mut cc,
            &root,
            "Glob",
            json!({"pattern": "**/*.py", "path": root}),
        );
        assert_eq!(out.text, format!("{f}\n{g}"));
        let out = call(
            &mut cc,
            &root,
            "Grep",
            json!({"pattern": "def add", "path": root, "output_mode": "content", "-n": true}),
        );
        assert_eq!(out.text, format!("{f}:1:def add(a, b):"));
        let out = call(&mut cc, &root, "Grep", json!({"pattern": "add"}));
        assert_eq!(out.text, format!("Found 2 files\n{f}\n{g}"));
        let out = call(&mut cc, &root, "Grep", json!({"pattern": "zzz"}));
        assert_eq!(out.text, "No files found");
        assert!(cc.call(&LocalFiles, &root, "Bash", &Map::new()).is_none());
    }
}
