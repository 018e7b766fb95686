//! The Llama SWE-bench agent's tools (llama-stack-apps style, pythonic calls such as
//! `[view_file(path="/workspace/django/x.py")]`): `list_files`, `view_file`, `edit_file`,
//! `finish`, with its `ERROR - …` results word for word. `list_files` lists one level, folders
//! with a trailing `/`, sorted, hidden entries left out.

use super::ToolOutput;
use crate::replay::files::{Files, Kind};
use serde_json::{Map, Value};

#[derive(Default)]
pub struct Llama;

/// `(path="…", new_str="…")`, as the agent echoes parameters in its errors.
fn display_params(args: &Map<String, Value>) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{k}=\"{v}\"")
        })
        .collect();
    format!("({})", parts.join(", "))
}

impl Llama {
    pub fn new() -> Llama {
        Llama
    }

    /// Runs `name` for a Llama agent; any name that is not one of its tools is the agent's
    /// "Unknown tool" error, as the original answers it.
    pub fn call(&self, files: &dyn Files, name: &str, args: &Map<String, Value>) -> ToolOutput {
        let path = args.get("path").and_then(Value::as_str).unwrap_or("");
        let need = |param: &str| -> Option<ToolOutput> {
            (!args.contains_key(param)).then(|| {
                ToolOutput::error(format!(
                    "ERROR - {param} not found in tool params: {}",
                    display_params(args)
                ))
            })
        };
        let symlink = || {
            files.kind(path).is_ok_and(|k| k == Kind::Symlink).then(|| {
                ToolOutput::error(format!(
                    "ERROR - File {path} is a symlink. Simlinks not allowed"
                ))
            })
        };
        let missing_file = || {
            (!files.exists(path)).then(|| {
                ToolOutput::error(format!(
                    "ERROR - File {path} does not exist. Please ensure the path is an absolute path and that the file exists."
                ))
            })
        };
        let directory = || {
            files.is_dir(path).then(|| {
                ToolOutput::error(format!(
                    "ERROR - File {path} is a directory. Please ensure the path references a file, not a directory."
                ))
            })
        };
        match name {
            "list_files" => {
                if let Some(e) = need("path").or_else(symlink) {
                    return e;
                }
                if !files.exists(path) {
                    return ToolOutput::error(format!(
                        "ERROR - Directory {path} does not exist. Please ensure the path is an absolute path and that the directory exists."
                    ));
                }
                if !files.is_dir(path) {
                    return ToolOutput::ok(path.rsplit('/').next().unwrap_or(path));
                }
                let mut names: Vec<String> = files
                    .walk(path, Some(1))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|e| {
                        let name = e.path.rsplit('/').next()?.to_string();
                        if name.starts_with('.') {
                            return None;
                        }
                        Some(if e.kind == Kind::Dir {
                            format!("{name}/")
                        } else {
                            name
                        })
                    })
                    .collect();
                names.sort();
                ToolOutput::ok(names.join("\n"))
            }
            "view_file" => {
                if let Some(e) = need("path")
                    .or_else(symlink)
                    .or_else(missing_file)
                    .or_else(directory)
                {
                    return e;
                }
                match files.read(path) {
                    Ok(data) => ToolOutput::ok(String::from_utf8_lossy(&data)),
                    Err(e) => ToolOutput::error(format!("ERROR - Calling tool: view_file {e}")),
                }
            }
            "edit_file" => {
                if let Some(e) = need("path")
                    .or_else(|| need("new_str"))
                    .or_else(symlink)
                    .or_else(missing_file)
                    .or_else(directory)
                {
                    return e;
                }
                let new = args.get("new_str").and_then(Value::as_str).unwrap_or("");
                let content = match args.get("old_str").and_then(Value::as_str) {
                    Some(old) => {
                        let text = String::from_utf8_lossy(&files.read(path).unwrap_or_default())
                            .into_owned();
                        if old.is_empty() {
                            text
                        } else {
                            text.replace(old, new)
                        }
                    }
                    None => new.to_string(),
                };
                match files.write(path, content.as_bytes()) {
                    Ok(()) => ToolOutput::ok("File successfully updated"),
                    Err(e) => ToolOutput::error(format!("ERROR - Calling tool: edit_file {e}")),
                }
            }
            "finish" => ToolOutput::ok("Task marked as finished"),
            other => ToolOutput::error(format!("ERROR - Unknown tool: {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::files::LocalFiles;
    use serde_json::json;

    #[test]
    fn tools_and_their_errors() {
        let (_dir, root) = crate::replay::tools::temp_root();
        std::fs::create_dir_all(format!("{root}/tinycalc")).unwrap();
        std::fs::write(
            format!("{root}/tinycalc/stats.py"),
            "def mean(v):\n    return sum(v) / len(v)\n",
        )
        .unwrap();
        std::fs::write(format!("{root}/tinycalc/__init__.py"), "").unwrap();
        std::fs::write(format!("{root}/.hidden"), "").unwrap();
        let l = Llama::new();
        let args = |v: serde_json::Value| v.as_object().cloned().unwrap();
        assert_eq!(
            l.call(&LocalFiles, "list_files", &args(json!({"path": root})))
                .text,
            "tinycalc/"
        );
        assert_eq!(
            l.call(
                &LocalFiles,
                "list_files",
                &args(json!({"path": format!("{root}/tinycalc")}))
            )
            .text,
            "__init__.py\nstats.py"
        );
        let missing = format!("{root}/tinycalc/statistics.py");
        let out = l.call(&LocalFiles, "view_file", &args(json!({"path": missing})));
        assert!(out.is_error);
        assert_eq!(
            out.text,
            format!(
                "ERROR - File {missing} does not exist. Please ensure the path is an absolute path and that the file exists."
            )
        );
        let stats = format!("{root}/tinycalc/stats.py");
        let out = l.call(&LocalFiles, "edit_file", &args(json!({"path": stats, "old_str": "sum(v) / len(v)", "new_str": "sum(v) / max(len(v), 1)"})));
        assert_eq!(out.text, "File successfully updated");
        assert!(
            std::fs::read_to_string(&stats)
                .unwrap()
                .contains("max(len(v), 1)")
        );
        let out = l.call(&LocalFiles, "edit_file", &args(json!({"path": stats})));
        assert_eq!(
            out.text,
            format!("ERROR - new_str not found in tool params: (path=\"{stats}\")")
        );
        assert_eq!(
            l.call(&LocalFiles, "finish", &Map::new()).text,
            "Task marked as finished"
        );
        assert_eq!(
            l.call(&LocalFiles, "run", &Map::new()).text,
            "ERROR - Unknown tool: run"
        );
    }
}
