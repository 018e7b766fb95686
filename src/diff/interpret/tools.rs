//! Editing tools called with JSON arguments: `str_replace_editor` (SWE-agent, OpenHands),
//! Claude Code `Edit`/`MultiEdit`/`Write`, `edit` with search/replace (SWE-agent 1.0,
//! Aider), OpenHands line edits, Llama-style `edit_file`, `write_file`, `create`, `insert`.

use super::apply_patch;
use crate::diff::edit::{Attempt, Edit, EditOp, Uninterpreted, text_lines};
use crate::diff::patch::{DiffLine, Hunk, LineKind};
use serde_json::Value;

/// A string argument under any of `names`.
pub(super) fn arg(args: &Value, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| match args.get(*n)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(x) => Some(x.to_string()),
        _ => None,
    })
}

fn int_arg(args: &Value, names: &[&str]) -> Option<i64> {
    names.iter().find_map(|n| match args.get(*n)? {
        Value::Number(x) => x.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

const PATH: &[&str] = &["path", "file_path", "filename", "file", "target_file"];
const OLD: &[&str] = &["old_str", "old_string", "old_text", "old", "search"];
const NEW: &[&str] = &["new_str", "new_string", "new_text", "new", "replace"];
const CONTENT: &[&str] = &["file_text", "content", "contents", "text", "new_str"];

/// The edits of one tool call, or nothing when the tool does not edit files.
pub fn interpret_call(name: &str, arguments: &str) -> Vec<Attempt> {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            if name == "apply_patch" {
                return apply_patch::interpret(arguments);
            }
            return if is_edit_tool(name) {
                vec![Err(Uninterpreted::new(
                    name,
                    None,
                    "the arguments are not a JSON object",
                ))]
            } else {
                Vec::new()
            };
        }
    };
    match name {
        "str_replace_editor" | "file_editor" | "str_replace_based_edit_tool" | "text_editor" => {
            str_replace_editor(&args)
        }
        "edit_file" if args.get("command").is_some() => str_replace_editor(&args),
        "Edit" | "MultiEdit" | "Write" => claude_code(name, &args),
        "apply_patch" => match arg(&args, &["input", "patch"]) {
            Some(patch) => apply_patch::interpret(&patch),
            None => vec![Err(Uninterpreted::new(
                "apply_patch",
                None,
                "no patch text",
            ))],
        },
        "edit" if args.get("search").is_some() || args.get("replace").is_some() => {
            search_replace(&args)
        }
        "edit" => line_edit(&args),
        "edit_file" | "replace_in_file" | "str_replace" => search_replace(&args),
        "write_file" | "create_file" | "write_to_file" => {
            match (arg(&args, PATH), arg(&args, CONTENT)) {
                (Some(path), Some(text)) => {
                    vec![Ok(Edit::new(Some(path), EditOp::Write { text }, name))]
                }
                (path, _) => vec![Err(Uninterpreted::new(
                    name,
                    path,
                    "missing path or content",
                ))],
            }
        }
        "create" => match arg(&args, PATH) {
            Some(path) => vec![Ok(Edit::new(Some(path), EditOp::CreateEmpty, "create"))],
            None => vec![Err(Uninterpreted::new("create", None, "missing file name"))],
        },
        "insert" => match arg(&args, &["text"]) {
            Some(text) => {
                let after = int_arg(&args, &["line", "line_number"]).map(|n| n.max(0) as usize);
                vec![Ok(Edit::new(
                    None,
                    EditOp::InsertLines {
                        after,
                        lines: text_lines(&text),
                    },
                    "insert",
                ))]
            }
            None => vec![Err(Uninterpreted::new("insert", None, "missing text"))],
        },
        _ => Vec::new(),
    }
}

/// Tool names that surely edit, so unreadable arguments earn a "could not interpret" mark.
fn is_edit_tool(name: &str) -> bool {
    matches!(
        name,
        "str_replace_editor"
            | "Edit"
            | "MultiEdit"
            | "Write"
            | "edit_file"
            | "edit"
            | "write_file"
            | "create"
            | "insert"
    )
}

fn str_replace_editor(args: &Value) -> Vec<Attempt> {
    let command = arg(args, &["command"]).unwrap_or_default();
    let path = arg(args, PATH);
    let label = format!("str_replace_editor {command}");
    let missing = |what: &str| {
        vec![Err(Uninterpreted::new(
            label.clone(),
            path.clone(),
            format!("missing {what}"),
        ))]
    };
    if path.is_none() && command != "view" {
        return missing("path");
    }
    let op = match command.as_str() {
        "view" | "" => return Vec::new(),
        "create" => match arg(args, &["file_text", "content"]) {
            Some(text) => EditOp::Create { text },
            None => return missing("file_text"),
        },
        "str_replace" => match (arg(args, OLD), arg(args, NEW)) {
            (Some(old), new) => EditOp::ReplaceText {
                old,
                new: new.unwrap_or_default(),
                all: false,
            },
            (None, _) => return missing("old_str"),
        },
        "insert" => match (
            int_arg(args, &["insert_line"]),
            arg(args, &["new_str", "text"]),
        ) {
            (Some(n), Some(text)) if n >= 0 => EditOp::InsertLines {
                after: Some(n as usize),
                lines: text_lines(&text),
            },
            (Some(_), Some(_)) => return missing("a valid insert_line"),
            (None, _) => return missing("insert_line"),
            (_, None) => return missing("new_str"),
        },
        "undo_edit" => EditOp::Undo,
        other => {
            return vec![Err(Uninterpreted::new(
                label,
                path,
                format!("unknown command `{other}`"),
            ))];
        }
    };
    vec![Ok(Edit::new(path, op, label))]
}

fn claude_code(name: &str, args: &Value) -> Vec<Attempt> {
    let path = arg(args, PATH);
    if path.is_none() {
        return vec![Err(Uninterpreted::new(name, None, "missing file_path"))];
    }
    if let Some(hunks) = args.get("structuredPatch").and_then(structured_patch) {
        return vec![Ok(Edit::new(path, EditOp::Hunks(hunks), name))];
    }
    let replace_all = args
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match name {
        "Write" => match arg(args, &["content"]) {
            Some(text) => vec![Ok(Edit::new(path, EditOp::Write { text }, name))],
            None => vec![Err(Uninterpreted::new(name, path, "missing content"))],
        },
        "Edit" => match (arg(args, &["old_string"]), arg(args, &["new_string"])) {
            (Some(old), Some(new)) => vec![Ok(Edit::new(
                path,
                EditOp::ReplaceText {
                    old,
                    new,
                    all: replace_all,
                },
                name,
            ))],
            _ => vec![Err(Uninterpreted::new(
                name,
                path,
                "missing old_string or new_string",
            ))],
        },
        _ => match args.get("edits").and_then(Value::as_array) {
            Some(edits) if !edits.is_empty() => edits
                .iter()
                .enumerate()
                .map(
                    |(k, e)| match (arg(e, &["old_string"]), arg(e, &["new_string"])) {
                        (Some(old), Some(new)) => {
                            let all = e
                                .get("replace_all")
                                .and_then(Value::as_bool)
                                .unwrap_or(false);
                            Ok(Edit::new(
                                path.clone(),
                                EditOp::ReplaceText { old, new, all },
                                format!("MultiEdit {}/{}", k + 1, edits.len()),
                            ))
                        }
                        _ => Err(Uninterpreted::new(
                            format!("MultiEdit {}", k + 1),
                            path.clone(),
                            "missing old_string or new_string",
                        )),
                    },
                )
                .collect(),
            _ => vec![Err(Uninterpreted::new(name, path, "missing edits"))],
        },
    }
}

/// Claude Code's `structuredPatch`: `[{oldStart, oldLines, newStart, newLines, lines}]`.
pub fn structured_patch(value: &Value) -> Option<Vec<Hunk>> {
    let hunks = value.as_array()?;
    hunks
        .iter()
        .map(|h| {
            let num = |k: &str| h.get(k).and_then(Value::as_u64).map(|n| n as usize);
            let mut old_no = num("oldStart")?;
            let mut new_no = num("newStart")?;
            let mut hunk = Hunk {
                old_start: Some(old_no),
                old_len: num("oldLines")?,
                new_start: Some(new_no),
                new_len: num("newLines")?,
                section: String::new(),
                lines: Vec::new(),
            };
            for line in h.get("lines")?.as_array()? {
                let line = line.as_str()?;
                let (kind, text) = match line.chars().next() {
                    Some('+') => (LineKind::Added, &line[1..]),
                    Some('-') => (LineKind::Removed, &line[1..]),
                    Some(' ') => (LineKind::Context, &line[1..]),
                    Some('\\') => continue,
                    _ => (LineKind::Context, line),
                };
                let mut l = DiffLine::new(kind, text);
                if kind != LineKind::Added {
                    l.old_line = Some(old_no);
                    old_no += 1;
                }
                if kind != LineKind::Removed {
                    l.new_line = Some(new_no);
                    new_no += 1;
                }
                hunk.lines.push(l);
            }
            Some(hunk)
        })
        .collect()
}

/// `edit` with `search`/`replace` (SWE-agent 1.0 on the open file, Aider with a path) and
/// Llama-style `edit_file(path, old_str, new_str)` (no `old_str`: the whole file).
fn search_replace(args: &Value) -> Vec<Attempt> {
    let path = arg(args, PATH);
    let all = args
        .get("replace-all")
        .or(args.get("replace_all"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let label = if args.get("search").is_some() {
        "edit (search/replace)"
    } else {
        "edit_file"
    };
    match (arg(args, OLD), arg(args, NEW)) {
        (Some(old), Some(new)) => vec![Ok(Edit::new(
            path,
            EditOp::ReplaceText { old, new, all },
            label,
        ))],
        (None, Some(text)) if path.is_some() && args.get("search").is_none() => {
            vec![Ok(Edit::new(path, EditOp::Write { text }, label))]
        }
        _ => vec![Err(Uninterpreted::new(
            label,
            path,
            "missing the text to search or to replace",
        ))],
    }
}

/// OpenHands `edit` with `content`, `start`, `end` (1-based, `end: -1` = to the end).
fn line_edit(args: &Value) -> Vec<Attempt> {
    let path = arg(args, PATH);
    let Some(content) = arg(args, &["content"]) else {
        return vec![Err(Uninterpreted::new("edit", path, "missing content"))];
    };
    let (start, end) = (
        int_arg(args, &["start"]).unwrap_or(1),
        int_arg(args, &["end"]).unwrap_or(-1),
    );
    let op = if start <= 1 && end == -1 {
        EditOp::Write { text: content }
    } else if start >= 1 && end >= start {
        EditOp::ReplaceLines {
            start: start as usize,
            end: end as usize,
            lines: text_lines(&content),
        }
    } else {
        return vec![Err(Uninterpreted::new(
            "edit",
            path,
            format!("bad line range {start}:{end}"),
        ))];
    };
    vec![Ok(Edit::new(path, op, "edit"))]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(a: &Attempt) -> &EditOp {
        &a.as_ref().unwrap().op
    }

    #[test]
    fn str_replace_editor_from_the_swe_agent_demo() {
        let a = interpret_call(
            "str_replace_editor",
            r#"{"command":"str_replace","path":"/swe-agent-test-repo/src/testpkg/missing_colon.py","old_str":"def division(a: float, b: float) -> float","new_str":"def division(a: float, b: float) -> float:"}"#,
        );
        assert_eq!(a.len(), 1);
        assert_eq!(
            a[0].as_ref().unwrap().path.as_deref(),
            Some("/swe-agent-test-repo/src/testpkg/missing_colon.py")
        );
        assert!(
            matches!(op(&a[0]), EditOp::ReplaceText { old, new, all: false } if old.ends_with("-> float") && new.ends_with(':'))
        );
        assert!(
            interpret_call("str_replace_editor", r#"{"command":"view","path":"/x"}"#).is_empty()
        );
        let a = interpret_call(
            "str_replace_editor",
            r#"{"command":"insert","path":"/x","insert_line":3,"new_str":"a\nb"}"#,
        );
        assert_eq!(
            op(&a[0]),
            &EditOp::InsertLines {
                after: Some(3),
                lines: vec!["a".into(), "b".into()]
            }
        );
    }

    #[test]
    fn malformed_calls_are_marked() {
        let a = interpret_call(
            "str_replace_editor",
            r#"{"command":"str_replace","path":"/x","new_str":"b"}"#,
        );
        assert!(a[0].as_ref().unwrap_err().reason.contains("old_str"));
        let a = interpret_call(
            "str_replace_editor",
            r#"{"command":"insert","path":"/x","new_str":"b"}"#,
        );
        assert!(a[0].is_err());
        let a = interpret_call("Edit", "{not json");
        assert!(a[0].is_err());
        assert!(interpret_call("bash", "{not json").is_empty());
        let a = interpret_call("edit", r#"{"path":"/x","content":"a","start":5,"end":2}"#);
        assert!(a[0].as_ref().unwrap_err().reason.contains("5:2"));
    }

    #[test]
    fn claude_code_edit_write_multiedit() {
        // From simonw/claude-code-transcripts tests/sample_session.json.
        let a = interpret_call(
            "Edit",
            r#"{"file_path":"/project/tests/test_math.py","old_string":"assert subtract(10, 5) == None","new_string":"assert subtract(10, 5) == 5","replace_all":true}"#,
        );
        assert!(matches!(op(&a[0]), EditOp::ReplaceText { all: true, .. }));
        let a = interpret_call(
            "Write",
            r#"{"file_path":"/project/math_utils.py","content":"def add(a: int, b: int) -> int:\n    return a + b\n"}"#,
        );
        assert!(matches!(op(&a[0]), EditOp::Write { text } if text.starts_with("def add")));
        // From daaain/claude-code-log edge_cases.jsonl (trimmed).
        let a = interpret_call(
            "MultiEdit",
            r#"{"file_path":"/tmp/complex_example.py","edits":[{"old_string":"","new_string":"import json\n"},{"old_string":"json","new_string":"sys"}]}"#,
        );
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].as_ref().unwrap().label, "MultiEdit 2/2");
    }

    #[test]
    fn structured_patch_is_preferred() {
        let a = interpret_call(
            "Edit",
            r#"{"file_path":"/p/a.py","old_string":"x","new_string":"y","structuredPatch":[{"oldStart":3,"oldLines":2,"newStart":3,"newLines":2,"lines":[" keep","-x","+y"]}]}"#,
        );
        let EditOp::Hunks(h) = op(&a[0]) else {
            panic!()
        };
        assert_eq!(h[0].lines[1].old_line, Some(4));
        assert_eq!(h[0].lines[2].new_line, Some(4));
    }

    #[test]
    fn search_replace_and_edit_file() {
        let a = interpret_call(
            "edit",
            r#"{"search":"def division(a: float, b: float) -> float","replace":"def division(a: float, b: float) -> float:","replace-all":false}"#,
        );
        assert_eq!(a[0].as_ref().unwrap().path, None);
        let a = interpret_call("edit_file", r#"{"path":"/w/a.py","new_str":"x = 1\n"}"#);
        assert!(matches!(op(&a[0]), EditOp::Write { .. }));
        let a = interpret_call("edit", r#"{"path":"a.py","search":"a","replace":"b"}"#);
        assert_eq!(a[0].as_ref().unwrap().path.as_deref(), Some("a.py"));
    }
}
