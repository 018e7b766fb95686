//! SWE-agent command lines as actions: the windowed commands (`open f.py 10`, `edit 3:5` …
//! `end_of_edit`, `search_dir term dir`, …) become tool actions with the arguments bash would
//! have passed; `submit` ends the run; anything else is a shell command.

use super::EnvAction;
use serde_json::{Map, Value, json};

/// The commands SWE-agent's windowed tools define (0.x and 1.x).
pub const WINDOWED_COMMANDS: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "insert",
    "search_dir",
    "search_file",
    "find_file",
];

fn words_arg(words: &[&str]) -> Value {
    Value::Array(words.iter().map(|w| Value::String(w.to_string())).collect())
}

/// The action of a SWE-agent text command (`action` as the log records it).
pub fn swe_command(action: &str) -> EnvAction {
    let text = action.trim_matches(|c: char| c == '\n' || c == ' ');
    let first_line = text.lines().next().unwrap_or("");
    let name = first_line.split_whitespace().next().unwrap_or("");
    if text == "submit" {
        return EnvAction::Submit;
    }
    // 0.x `edit start:end` + lines + `end_of_edit`: the body is raw text, not shell words.
    if name == "edit" {
        let range = first_line.split_whitespace().nth(1).unwrap_or("");
        if !range.starts_with(['\'', '"']) {
            let body: Vec<&str> = text.lines().skip(1).collect();
            let end = body
                .iter()
                .rposition(|l| l.trim_end() == "end_of_edit")
                .unwrap_or(body.len());
            let mut replacement = body[..end].join("\n");
            if end > 0 {
                replacement.push('\n');
            }
            return EnvAction::tool(
                "edit",
                json!({"line_range": range, "replacement_text": replacement}),
            );
        }
    }
    if name == "str_replace_editor" {
        return str_replace_editor_line(text);
    }
    if !WINDOWED_COMMANDS.contains(&name) {
        return EnvAction::Shell {
            command: text.to_string(),
        };
    }
    let pipelines = crate::diff::parse_shell(text);
    let single = pipelines.len() == 1 && pipelines[0].commands.len() == 1;
    match pipelines.first().and_then(|p| p.commands.first()) {
        Some(command) if single && command.redirects.is_empty() => {
            let argv = command.argv();
            let args = &argv[1..];
            match name {
                "edit" => {
                    let mut map = Map::new();
                    map.insert("search".into(), json!(args.first().copied().unwrap_or("")));
                    map.insert("replace".into(), json!(args.get(1).copied().unwrap_or("")));
                    if let Some(all) = args.get(2) {
                        map.insert("replace_all".into(), json!(!all.is_empty()));
                    }
                    EnvAction::Tool {
                        name: "edit".into(),
                        args: map,
                    }
                }
                "insert" => {
                    let mut map = Map::new();
                    map.insert("text".into(), json!(args.first().copied().unwrap_or("")));
                    if let Some(line) = args.get(1) {
                        map.insert("line".into(), json!(line));
                    }
                    EnvAction::Tool {
                        name: "insert".into(),
                        args: map,
                    }
                }
                _ => EnvAction::tool(name, json!({ "argv": words_arg(args) })),
            }
        }
        // `open a.py && ls`: the windowed functions inside a larger shell line.
        _ => EnvAction::Shell {
            command: text.to_string(),
        },
    }
}

/// `str_replace_editor view /p --view_range 1 10` → the tool-call arguments.
fn str_replace_editor_line(text: &str) -> EnvAction {
    let pipelines = crate::diff::parse_shell(text);
    let Some(command) = pipelines.first().and_then(|p| p.commands.first()) else {
        return EnvAction::Shell {
            command: text.to_string(),
        };
    };
    let argv = command.argv();
    let mut args = Map::new();
    let mut positional = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        match argv[i].strip_prefix("--") {
            Some("view_range") => {
                let nums: Vec<Value> = argv[i + 1..]
                    .iter()
                    .take(2)
                    .map(|n| n.parse::<i64>().map(Value::from).unwrap_or(json!(n)))
                    .collect();
                i += 1 + nums.len();
                args.insert("view_range".into(), Value::Array(nums));
            }
            Some(flag) => {
                let value = argv.get(i + 1).copied().unwrap_or("");
                let value = match flag {
                    "insert_line" => value
                        .parse::<i64>()
                        .map(Value::from)
                        .unwrap_or(json!(value)),
                    _ => json!(value),
                };
                args.insert(flag.to_string(), value);
                i += 2;
            }
            None => {
                positional.push(argv[i]);
                i += 1;
            }
        }
    }
    for (key, value) in ["command", "path"].iter().zip(positional) {
        args.insert(key.to_string(), json!(value));
    }
    EnvAction::Tool {
        name: "str_replace_editor".into(),
        args,
    }
}

/// SWE-agent 1.x's windowed commands called as functions (`open` with `{"path": …}`), in the
/// same shape as the text commands.
pub fn from_function_call(name: &str, args: &Map<String, Value>) -> EnvAction {
    let s = |k: &str| {
        args.get(k).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let argv = |keys: &[&str]| {
        let words: Vec<String> = keys.iter().filter_map(|k| s(k)).collect();
        json!({ "argv": words })
    };
    match name {
        "open" => EnvAction::tool("open", argv(&["path", "line_number"])),
        "goto" => EnvAction::tool("goto", argv(&["line_number"])),
        "scroll_up" | "scroll_down" => EnvAction::tool(name, json!({"argv": []})),
        "create" => EnvAction::tool("create", argv(&["filename"])),
        "search_dir" => EnvAction::tool("search_dir", argv(&["search_term", "dir"])),
        "search_file" => EnvAction::tool("search_file", argv(&["search_term", "file"])),
        "find_file" => EnvAction::tool("find_file", argv(&["file_name", "dir"])),
        "edit" if args.contains_key("search") => EnvAction::Tool {
            name: "edit".into(),
            args: args.clone(),
        },
        "edit" => EnvAction::tool(
            "edit",
            json!({
                "line_range": format!("{}:{}", s("start_line").unwrap_or_default(), s("end_line").unwrap_or_default()),
                "replacement_text": s("replacement_text").unwrap_or_default(),
            }),
        ),
        _ => EnvAction::Tool {
            name: name.to_string(),
            args: args.clone(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &EnvAction) -> Vec<String> {
        match a {
            EnvAction::Tool { args, .. } => args["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_commands_from_real_logs() {
        assert_eq!(
            argv(&swe_command("open src/marshmallow/fields.py 1474\n")),
            ["src/marshmallow/fields.py", "1474"]
        );
        assert_eq!(
            argv(&swe_command("find_file \"fields.py\" src\n")),
            ["fields.py", "src"]
        );
        assert_eq!(
            argv(&swe_command("search_dir \"class Plot(\"")),
            ["class Plot("]
        );
        assert_eq!(argv(&swe_command("scroll_down")), Vec::<String>::new());
        assert_eq!(swe_command("submit\n"), EnvAction::Submit);
        assert_eq!(
            swe_command("python reproduce.py\n"),
            EnvAction::Shell {
                command: "python reproduce.py".into()
            }
        );
        assert_eq!(
            swe_command("open a.py && ls"),
            EnvAction::Shell {
                command: "open a.py && ls".into()
            }
        );
        let edit = swe_command("edit 1:1\nfrom x import y\n\nprint(y)\nend_of_edit\n");
        assert_eq!(
            edit,
            EnvAction::tool(
                "edit",
                json!({"line_range": "1:1", "replacement_text": "from x import y\n\nprint(y)\n"})
            )
        );
        let replace = swe_command("edit 'return int(a)' '# round\n        return int(round(a))'");
        assert_eq!(
            replace,
            EnvAction::tool(
                "edit",
                json!({"search": "return int(a)", "replace": "# round\n        return int(round(a))"})
            )
        );
    }

    #[test]
    fn str_replace_editor_command_lines() {
        let a = swe_command("str_replace_editor view /testbed/a.py --view_range 3 9");
        assert_eq!(
            a,
            EnvAction::tool(
                "str_replace_editor",
                json!({"command": "view", "path": "/testbed/a.py", "view_range": [3, 9]})
            )
        );
        let a = swe_command(
            "str_replace_editor str_replace /t/a.py --old_str 'x = 1' --new_str 'x = 2'",
        );
        assert_eq!(
            a,
            EnvAction::tool(
                "str_replace_editor",
                json!({"command": "str_replace", "path": "/t/a.py", "old_str": "x = 1", "new_str": "x = 2"})
            )
        );
    }

    #[test]
    fn function_calls_take_the_text_shape() {
        let args = json!({"path": "tests/missing_colon.py"})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(
            argv(&from_function_call("open", &args)),
            ["tests/missing_colon.py"]
        );
        let args = json!({"file_name": "missing_colon.py"})
            .as_object()
            .cloned()
            .unwrap();
        assert_eq!(
            argv(&from_function_call("find_file", &args)),
            ["missing_colon.py"]
        );
    }
}
