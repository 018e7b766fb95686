//! One assistant reply of an Aider chat: its prose, and the actions inside it (SEARCH/REPLACE
//! edits, whole-file writes, shell commands it proposed).
//!
//! Follows what Aider's own block parser accepts: `<<<<<<< SEARCH`, `=======`,
//! `>>>>>>> REPLACE` markers of 5 to 9 characters, the file name on one of the lines just
//! before (usually above a fence), and a block without a name reusing the previous one's.
//! Knows nothing of sessions or the model; `aider.rs` turns this into a step.

use crate::model::ToolCall;
use serde_json::json;

/// What one reply did, ready to become a step.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    /// The reply without its action blocks.
    pub prose: String,
    pub calls: Vec<ToolCall>,
    /// The calls rendered for people, in the order they appear.
    pub action: String,
    /// Edit blocks the reply left open (cut off by ^C or a length limit).
    pub unterminated: usize,
}

/// How the session's model was told to write edits (`diff`, `whole`, …), from its banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditFormat {
    /// SEARCH/REPLACE blocks (`diff`, `diff-fenced`, …) or unknown.
    Blocks,
    /// Whole files: a file name line followed by a fenced block holding the new content.
    Whole,
}

enum Marker {
    Search,
    Divider,
    Replace,
}

fn marker(line: &str) -> Option<Marker> {
    let line = line.trim_end();
    let run = |c: char| {
        let n = line.chars().take_while(|&x| x == c).count();
        (5..=9).contains(&n).then(|| line[n..].trim_start())
    };
    if run('<') == Some("SEARCH") {
        Some(Marker::Search)
    } else if run('=') == Some("") {
        Some(Marker::Divider)
    } else if run('>') == Some("REPLACE") {
        Some(Marker::Replace)
    } else {
        None
    }
}

fn is_fence_close(line: &str) -> bool {
    let line = line.trim();
    (line.len() >= 3 && line.chars().all(|c| c == '`')) || line.starts_with("</source>")
}

fn is_fence(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("```") || line.starts_with("<source") || line.starts_with("</source>")
}

/// The language a fence opener names: ```` ```bash ```` → `bash`.
fn fence_language(line: &str) -> &str {
    let line = line.trim();
    let line = line.trim_start_matches('`');
    let line = line.strip_prefix("<source>").unwrap_or(line);
    line.split_whitespace().next().unwrap_or("")
}

fn is_shell(language: &str) -> bool {
    matches!(
        language.to_ascii_lowercase().as_str(),
        "bash" | "sh" | "shell" | "zsh" | "console" | "cmd" | "powershell"
    )
}

/// A line that names a file, as Aider writes it above an edit: `path/to/x.py`, maybe wrapped
/// in backticks, bold or a trailing colon.
fn file_name(line: &str) -> Option<String> {
    let name = line
        .trim()
        .trim_start_matches('#')
        .trim()
        .trim_matches('*')
        .trim_matches('`')
        .trim_end_matches(':')
        .trim();
    let plausible = !name.is_empty()
        && !name.contains(char::is_whitespace)
        && !is_fence(name)
        && marker(name).is_none()
        && name.len() <= 250;
    plausible.then(|| name.to_string())
}

/// Text of `lines`, each ended by a newline: the content a file region holds.
fn block_text(lines: &[&str]) -> String {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Splits `text` into prose and actions.
pub fn parse_reply(text: &str, edit_format: EditFormat) -> Reply {
    let lines: Vec<&str> = text.lines().collect();
    let mut reply = Reply::default();
    let mut prose: Vec<&str> = Vec::with_capacity(lines.len());
    let mut actions: Vec<String> = Vec::new();
    let mut last_path: Option<String> = None;
    let closers = Closers::new(&lines);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if matches!(marker(line), Some(Marker::Search)) {
            let path = take_file_name(&mut prose).or_else(|| last_path.clone());
            let (end, search, replace, closed) = read_edit(&lines, i + 1);
            let path = path.unwrap_or_default();
            if !closed {
                reply.unterminated += 1;
            }
            actions.push(render_edit(&path, &search, &replace, closed));
            reply.calls.push(ToolCall::new(
                "edit",
                json!({"path": path, "search": search, "replace": replace}).to_string(),
            ));
            last_path = Some(path);
            i = skip_closing_fence(&lines, end);
            continue;
        }
        // Fences met here open a block: the ones they close were skipped with their body.
        if is_fence(line)
            && !line.trim_start().starts_with("</source>")
            && let Some((end, body)) = closers.body(&lines, i)
        {
            let has_edit = closers.has_search(i + 1, end);
            if has_edit {
                // The edits inside are read line by line, with their file names.
                prose.push(line);
                i += 1;
                continue;
            }
            if is_shell(fence_language(line)) {
                let command = body.join("\n");
                if !command.trim().is_empty() {
                    actions.push(command.clone());
                    reply.calls.push(ToolCall::new(
                        "bash",
                        json!({"command": command}).to_string(),
                    ));
                }
                i = end + 1;
                continue;
            }
            let named = prose
                .last()
                .and_then(|l| file_name(l))
                .filter(|name| name.contains(['.', '/']));
            match named {
                Some(path) if edit_format == EditFormat::Whole => {
                    prose.pop();
                    let content = block_text(body);
                    actions.push(format!("write {path}\n{content}"));
                    reply.calls.push(ToolCall::new(
                        "write",
                        json!({"path": path, "content": content}).to_string(),
                    ));
                }
                _ => prose.extend_from_slice(&lines[i..=end]),
            }
            i = end + 1;
            continue;
        }
        prose.push(line);
        i += 1;
    }
    reply.prose = collapse_blank_lines(&prose).trim().to_string();
    reply.action = actions.join("\n\n");
    reply
}

/// The prose with runs of blank lines (left where blocks were taken out) shortened to one.
fn collapse_blank_lines(lines: &[&str]) -> String {
    let mut text = String::new();
    let mut previous_blank = false;
    for line in lines {
        let blank = line.trim().is_empty();
        if blank && previous_blank {
            continue;
        }
        previous_blank = blank;
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Removes the file name (and the fence opener under it) that precede a SEARCH marker from
/// the prose, and returns the name. Looks back at most three lines, as Aider does.
fn take_file_name(prose: &mut Vec<&str>) -> Option<String> {
    let mut looked = 0;
    let mut fence_at = None;
    while looked < 3 && looked < prose.len() {
        let line = prose[prose.len() - 1 - looked];
        if is_fence(line) {
            fence_at.get_or_insert(prose.len() - 1 - looked);
        } else if !line.trim().is_empty() {
            if let Some(name) = file_name(line) {
                prose.truncate(prose.len() - 1 - looked);
                return Some(name);
            }
            break;
        }
        looked += 1;
    }
    if let Some(at) = fence_at {
        prose.truncate(at);
    }
    None
}

/// Reads an edit's SEARCH and REPLACE parts from `start` (the line after the SEARCH marker).
/// Returns the index after the block, both parts, and whether the REPLACE marker was found.
fn read_edit(lines: &[&str], start: usize) -> (usize, String, String, bool) {
    let mut i = start;
    let mut search = Vec::new();
    let mut replace = Vec::new();
    let mut in_replace = false;
    while i < lines.len() {
        let line = lines[i];
        match marker(line) {
            Some(Marker::Divider) if !in_replace => in_replace = true,
            Some(Marker::Replace) if in_replace => {
                return (i + 1, block_text(&search), block_text(&replace), true);
            }
            // A new SEARCH before this one closed: the reply was cut off mid-block.
            Some(Marker::Search) => break,
            _ if in_replace => replace.push(line),
            _ => search.push(line),
        }
        i += 1;
    }
    (i, block_text(&search), block_text(&replace), false)
}

/// After a REPLACE marker, the fence that closes the block is part of the edit, not prose.
fn skip_closing_fence(lines: &[&str], mut i: usize) -> usize {
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    match lines.get(i) {
        Some(line) if is_fence_close(line) => i + 1,
        _ => i,
    }
}

/// For each line, the index of the next line that closes a fence of each kind: one pass,
/// so that a reply full of unclosed fences is still read in linear time.
struct Closers {
    ticks: Vec<usize>,
    source: Vec<usize>,
    /// SEARCH markers before each line, so that "does this fence hold an edit" is O(1).
    searches: Vec<usize>,
}

impl Closers {
    fn new(lines: &[&str]) -> Closers {
        let n = lines.len();
        let mut ticks = vec![n; n + 1];
        let mut source = vec![n; n + 1];
        for j in (0..n).rev() {
            let line = lines[j].trim();
            let all_ticks = line.len() >= 3 && line.chars().all(|c| c == '`');
            ticks[j] = if all_ticks { j } else { ticks[j + 1] };
            source[j] = if line.starts_with("</source>") {
                j
            } else {
                source[j + 1]
            };
        }
        let mut searches = vec![0; n + 1];
        for j in 0..n {
            let here = usize::from(matches!(marker(lines[j]), Some(Marker::Search)));
            searches[j + 1] = searches[j] + here;
        }
        Closers {
            ticks,
            source,
            searches,
        }
    }

    /// Whether lines `from..to` hold a SEARCH marker.
    fn has_search(&self, from: usize, to: usize) -> bool {
        self.searches[to] > self.searches[from]
    }

    /// The body of the fence opened at `open`, and the index of its closing line.
    fn body<'a, 'b>(&self, lines: &'b [&'a str], open: usize) -> Option<(usize, &'b [&'a str])> {
        let opener = lines[open].trim_start();
        let close = if opener.starts_with("<source") {
            self.source[open + 1]
        } else {
            let close = self.ticks[open + 1];
            let ticks = opener.chars().take_while(|&c| c == '`').count();
            if lines.get(close).is_some_and(|l| l.trim().len() < ticks) {
                return None;
            }
            close
        };
        (close < lines.len()).then(|| (close, &lines[open + 1..close]))
    }
}

fn render_edit(path: &str, search: &str, replace: &str, closed: bool) -> String {
    let shown = if path.is_empty() {
        "(no file name)"
    } else {
        path
    };
    let mut text = format!("edit {shown}\n<<<<<<< SEARCH\n{search}=======\n{replace}");
    text.push_str(if closed {
        ">>>>>>> REPLACE"
    } else {
        "(cut off before >>>>>>> REPLACE)"
    });
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_replace_blocks_become_edit_calls() {
        let text = "I'll fix it.\n\naider/utils.py\n```python\n<<<<<<< SEARCH\nold()\n=======\nnew()\n>>>>>>> REPLACE\n```\n\nDone.";
        let reply = parse_reply(text, EditFormat::Blocks);
        assert_eq!(reply.prose, "I'll fix it.\n\nDone.");
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].name, "edit");
        assert_eq!(
            reply.calls[0].argument("path").as_deref(),
            Some("aider/utils.py")
        );
        assert_eq!(
            reply.calls[0].argument("search").as_deref(),
            Some("old()\n")
        );
        assert_eq!(
            reply.calls[0].argument("replace").as_deref(),
            Some("new()\n")
        );
        assert!(
            reply
                .action
                .starts_with("edit aider/utils.py\n<<<<<<< SEARCH\nold()\n")
        );
        assert!(reply.action.ends_with(">>>>>>> REPLACE"));
    }

    #[test]
    fn second_block_in_one_fence_reuses_the_file_name() {
        let text = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n=======\nz\n>>>>>>> REPLACE\n```";
        let reply = parse_reply(text, EditFormat::Blocks);
        assert_eq!(reply.calls.len(), 2);
        assert_eq!(reply.calls[1].argument("path").as_deref(), Some("a.py"));
        assert_eq!(reply.calls[1].argument("search").as_deref(), Some(""));
        assert_eq!(reply.prose, "");
    }

    #[test]
    fn a_cut_off_block_is_counted_not_lost() {
        let text = "b.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef g(";
        let reply = parse_reply(text, EditFormat::Blocks);
        assert_eq!(reply.unterminated, 1);
        assert_eq!(
            reply.calls[0].argument("replace").as_deref(),
            Some("def g(\n")
        );
        assert!(reply.action.contains("cut off"));
    }

    #[test]
    fn shell_blocks_are_commands_and_other_code_is_prose() {
        let text = "Install it:\n\n```bash\npip install pandas\n```\n\nThen:\n```python\nimport pandas\n```";
        let reply = parse_reply(text, EditFormat::Blocks);
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].name, "bash");
        assert_eq!(
            reply.calls[0].argument("command").as_deref(),
            Some("pip install pandas")
        );
        assert_eq!(reply.action, "pip install pandas");
        assert!(reply.prose.contains("import pandas"));
        assert!(!reply.prose.contains("pip install"));
    }

    #[test]
    fn whole_format_writes_files_only_in_whole_sessions() {
        let text = "Here it is:\n\nnotes/todo.txt\n```\nbuy milk\n```";
        let whole = parse_reply(text, EditFormat::Whole);
        assert_eq!(whole.calls.len(), 1);
        assert_eq!(whole.calls[0].name, "write");
        assert_eq!(
            whole.calls[0].argument("path").as_deref(),
            Some("notes/todo.txt")
        );
        assert_eq!(
            whole.calls[0].argument("content").as_deref(),
            Some("buy milk\n")
        );
        assert_eq!(whole.prose, "Here it is:");
        assert!(parse_reply(text, EditFormat::Blocks).calls.is_empty());
    }

    #[test]
    fn source_fences_and_marker_lengths() {
        let text = "x.md\n<source>markdown\n<<<<<<<< SEARCH\n#### heading\n========\n#### title\n>>>>>>>> REPLACE\n</source>";
        let reply = parse_reply(text, EditFormat::Blocks);
        assert_eq!(reply.calls.len(), 1);
        assert_eq!(reply.calls[0].argument("path").as_deref(), Some("x.md"));
        assert_eq!(
            reply.calls[0].argument("replace").as_deref(),
            Some("#### title\n")
        );
        assert_eq!(reply.prose, "");
    }
}
