//! SWE-agent text commands: the 0.x windowed `edit start:end` … `end_of_edit` and
//! `create FILE` (on the open file), and `str_replace_editor <command> <path> --old_str …`
//! written as a command line.

use super::tools;
use crate::diff::edit::{Attempt, Edit, EditOp, Uninterpreted};
use crate::diff::shell;
use serde_json::{Map, Value};

/// The edits of a SWE-agent text action, or `None` when it is not one of these commands.
pub fn interpret(action: &str) -> Option<Vec<Attempt>> {
    let trimmed = action.trim_start();
    let first = trimmed.lines().next().unwrap_or("");
    let mut words = first.split_whitespace();
    match words.next()? {
        "edit" => {
            let range = words.next();
            // `edit 'search' 'replace'` (1.0 text form) is read from its tool call.
            if range.is_some_and(|r| r.starts_with(['\'', '"'])) {
                return None;
            }
            Some(vec![windowed_edit(trimmed, range)])
        }
        "create" => Some(vec![match words.next() {
            Some(path) => Ok(Edit::new(
                Some(unquote(path)),
                EditOp::CreateEmpty,
                "create",
            )),
            None => Err(Uninterpreted::new("create", None, "missing file name")),
        }]),
        "str_replace_editor" => Some(str_replace_editor_line(trimmed)),
        _ => None,
    }
}

fn unquote(word: &str) -> String {
    word.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// `edit 12:15` + replacement lines + `end_of_edit`.
fn windowed_edit(action: &str, range: Option<&str>) -> Attempt {
    let label = format!("edit {}", range.unwrap_or(""));
    let Some(range) = range else {
        return Err(Uninterpreted::new(
            "edit",
            None,
            "missing the line range start:end",
        ));
    };
    let parsed = range
        .split_once(':')
        .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
    let Some((start, end)) = parsed else {
        return Err(Uninterpreted::new(
            label,
            None,
            format!("`{range}` is not a line range start:end"),
        ));
    };
    if start == 0 || end < start {
        return Err(Uninterpreted::new(
            label,
            None,
            format!("line range {start}:{end} is empty or backwards"),
        ));
    }
    let body: Vec<&str> = action.lines().skip(1).collect();
    let Some(close) = body.iter().rposition(|l| l.trim_end() == "end_of_edit") else {
        return Err(Uninterpreted::new(label, None, "no `end_of_edit` line"));
    };
    let lines = body[..close].iter().map(|l| l.to_string()).collect();
    Ok(Edit::new(
        None,
        EditOp::ReplaceLines { start, end, lines },
        label,
    ))
}

/// `str_replace_editor str_replace /p --old_str 'a' --new_str 'b'` → the tool-call form.
fn str_replace_editor_line(action: &str) -> Vec<Attempt> {
    let pipelines = shell::parse(action);
    let Some(command) = pipelines.first().and_then(|p| p.commands.first()) else {
        return vec![Err(Uninterpreted::new(
            "str_replace_editor",
            None,
            "empty command",
        ))];
    };
    let argv = command.argv();
    let mut args = Map::new();
    let mut positional = argv.iter().skip(1);
    let mut rest: Vec<&str> = Vec::new();
    for (name, value) in [("command", positional.next()), ("path", positional.next())] {
        if let Some(v) = value.filter(|v| !v.starts_with("--")) {
            args.insert(name.into(), Value::String(v.to_string()));
        }
    }
    rest.extend(argv.iter().skip(1 + args.len()).copied());
    let mut i = 0;
    while i < rest.len() {
        if let Some(flag) = rest[i].strip_prefix("--") {
            let value = rest.get(i + 1).map(|s| s.to_string()).unwrap_or_default();
            let value = match flag {
                "insert_line" => value
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or(Value::String(value)),
                _ => Value::String(value),
            };
            args.insert(flag.to_string(), value);
            i += 2;
        } else {
            i += 1;
        }
    }
    tools::interpret_call("str_replace_editor", &Value::Object(args).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windowed_edit_from_coder_run() {
        // coder-swebench-lite django__django-11133, step 3.
        let action = "edit 1:1\nfrom django.http import HttpResponse\n\ndef test_reproduce():\n    pass\nend_of_edit\n";
        let a = interpret(action).unwrap();
        let e = a[0].as_ref().unwrap();
        assert_eq!(e.path, None);
        assert_eq!(e.label, "edit 1:1");
        let EditOp::ReplaceLines { start, end, lines } = &e.op else {
            panic!()
        };
        assert_eq!((*start, *end), (1, 1));
        assert_eq!(
            lines,
            &vec![
                "from django.http import HttpResponse",
                "",
                "def test_reproduce():",
                "    pass"
            ]
        );
    }

    #[test]
    fn malformed_windowed_edits_are_marked() {
        for (action, why) in [
            ("edit\nx\nend_of_edit", "missing"),
            ("edit 12\nx\nend_of_edit", "not a line range"),
            ("edit a:b\nx\nend_of_edit", "not a line range"),
            ("edit 9:3\nx\nend_of_edit", "backwards"),
            ("edit 0:3\nx\nend_of_edit", "backwards"),
            ("edit 3:4\nx\n", "end_of_edit"),
        ] {
            let a = interpret(action).unwrap();
            let err = a[0].as_ref().unwrap_err();
            assert!(err.reason.contains(why), "{action}: {}", err.reason);
        }
    }

    #[test]
    fn create_and_other_commands() {
        let a = interpret("create reproduce.py\n").unwrap();
        assert_eq!(a[0].as_ref().unwrap().path.as_deref(), Some("reproduce.py"));
        assert!(interpret("python reproduce.py").is_none());
        assert!(interpret("edit 'a' 'b'").is_none());
    }

    #[test]
    fn str_replace_editor_as_a_command_line() {
        let a = interpret(
            "str_replace_editor str_replace /testbed/a.py --old_str 'x = 1' --new_str 'x = 2'",
        )
        .unwrap();
        let e = a[0].as_ref().unwrap();
        assert_eq!(e.path.as_deref(), Some("/testbed/a.py"));
        assert_eq!(
            e.op,
            EditOp::ReplaceText {
                old: "x = 1".into(),
                new: "x = 2".into(),
                all: false
            }
        );
        let a = interpret("str_replace_editor insert /testbed/a.py --insert_line 4 --new_str 'y'")
            .unwrap();
        assert_eq!(
            a[0].as_ref().unwrap().op,
            EditOp::InsertLines {
                after: Some(4),
                lines: vec!["y".into()]
            }
        );
        let a = interpret("str_replace_editor str_replace /testbed/a.py --new_str 'x'").unwrap();
        assert!(a[0].is_err());
    }
}
