//! Golden outputs from `str_replace_anthropic_demo.yaml` (SWE-agent) and OpenHands'
//! multi-SWE-bench example output, with the repository root replaced by the test's.

use super::*;
use crate::replay::files::LocalFiles;
use serde_json::json;

const MISSING_COLON: &str = "#!/usr/bin/env python3\n\n\ndef division(a: float, b: float) -> float\n    return a/b\n\n\nif __name__ == \"__main__\":\n    print(division(123, 15))\n\n";

fn setup() -> (tempfile::TempDir, String, String) {
    let (dir, root) = crate::replay::tools::temp_root();
    let file = format!("{root}/src/testpkg/missing_colon.py");
    std::fs::create_dir_all(format!("{root}/src/testpkg")).unwrap();
    std::fs::write(&file, MISSING_COLON).unwrap();
    (dir, root, file)
}

fn args(v: serde_json::Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn view_and_str_replace_like_the_anthropic_demo() {
    let (_d, root, file) = setup();
    let mut ed = Editor::new(EditorFlavour::SweAgent);
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": file})),
    );
    assert!(!out.is_error);
    assert_eq!(
        out.text,
        format!(
            "Here's the result of running `cat -n` on {file}:\n     1\t#!/usr/bin/env python3\n     2\t\n     3\t\n     4\tdef division(a: float, b: float) -> float\n     5\t    return a/b\n     6\t\n     7\t\n     8\tif __name__ == \"__main__\":\n     9\t    print(division(123, 15))\n    10\t\n    11\t\n\n"
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "str_replace", "path": file,
            "old_str": "def division(a: float, b: float) -> float",
            "new_str": "def division(a: float, b: float) -> float:"})),
    );
    assert_eq!(
        out.text,
        format!(
            "The file {file} has been edited. Here's the result of running `cat -n` on a snippet of {file}:\n     1\t#!/usr/bin/env python3\n     2\t\n     3\t\n     4\tdef division(a: float, b: float) -> float:\n     5\t    return a/b\n     6\t\n     7\t\n     8\tif __name__ == \"__main__\":\nReview the changes and make sure they are as expected. Edit the file again if necessary.\n"
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "undo_edit", "path": file})),
    );
    assert!(out.text.starts_with(&format!("Last edit to {file} undone successfully. Here's the result of running `cat -n` on {file}:\n")));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), MISSING_COLON);
}

#[test]
fn folder_view_create_insert_and_ranges() {
    let (_d, root, file) = setup();
    std::fs::create_dir_all(format!("{root}/.git")).unwrap();
    std::fs::write(format!("{root}/.git/HEAD"), "x").unwrap();
    let mut ed = Editor::new(EditorFlavour::SweAgent);
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": root})),
    );
    assert_eq!(
        out.text,
        format!(
            "Here's the files and directories up to 2 levels deep in {root}, excluding hidden items:\n{root}\n{root}/src\n{root}/src/testpkg\n\n"
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": file, "view_range": [4, 5]})),
    );
    assert_eq!(
        out.text,
        format!(
            "Here's the result of running `cat -n` on {file}:\n     4\tdef division(a: float, b: float) -> float\n     5\t    return a/b\n\n"
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": file, "view_range": [0, 5]})),
    );
    assert!(out.is_error);
    assert_eq!(
        out.text,
        "Invalid `view_range`: [0, 5]. Its first element `0` should be within the range of lines of the file: [1, 11]\n"
    );
    let new = format!("{root}/reproduce.py");
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "create", "path": new, "file_text": "print(1)\n"})),
    );
    assert_eq!(out.text, format!("File created successfully at: {new}\n"));
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "create", "path": new, "file_text": "x"})),
    );
    assert_eq!(
        out.text,
        format!("File already exists at: {new}. Cannot overwrite files using command `create`.\n")
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "insert", "path": new, "insert_line": 1, "new_str": "print(2)"})),
    );
    assert_eq!(
        out.text,
        format!(
            "The file {new} has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tprint(1)\n     2\tprint(2)\n     3\t\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"
        )
    );
    assert_eq!(
        std::fs::read_to_string(&new).unwrap(),
        "print(1)\nprint(2)\n"
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": "src/x.py"})),
    );
    assert_eq!(
        out.text,
        format!(
            "The path src/x.py is not an absolute path, it should start with `/`. Maybe you meant {root}/src/x.py?\n"
        )
    );
}

/// OpenHands' observation for a `str_replace` whose `old_str` is not in the file.
#[test]
fn openhands_errors_carry_the_error_prefix() {
    let (_d, root, file) = setup();
    let mut ed = Editor::new(EditorFlavour::OpenHands);
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "str_replace", "path": file, "old_str": "DEF(idseqsingle);\n  DONE();", "new_str": "x"})),
    );
    assert!(out.is_error);
    assert_eq!(
        out.text,
        format!(
            "ERROR:\nNo replacement was performed, old_str `DEF(idseqsingle);\n  DONE();` did not appear verbatim in {file}."
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "str_replace", "path": file, "old_str": "\n\n", "new_str": "x"})),
    );
    assert_eq!(
        out.text,
        format!(
            "ERROR:\nNo replacement was performed. Multiple occurrences of old_str `\n\n` in lines []. Please ensure it is unique."
        )
    );
    let missing = format!("{root}/tinycalc/operators.py");
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": missing})),
    );
    assert_eq!(
        out.text,
        format!(
            "ERROR:\nInvalid `path` parameter: {missing}. The path {missing} does not exist. Please provide a valid path."
        )
    );
    let out = ed.call(
        &LocalFiles,
        &root,
        &args(json!({"command": "view", "path": file, "view_range": [1, 2]})),
    );
    assert_eq!(
        out.text,
        format!(
            "Here's the result of running `cat -n` on {file}:\n     1\t#!/usr/bin/env python3\n     2\t\n"
        )
    );
    assert_eq!(expand_tabs("a\tb\n\tc"), "a       b\n        c");
}
