//! Golden outputs from real SWE-agent runs in the shared corpus (the 0.x marshmallow
//! demonstration, CodeR's SWE-bench Lite run, the 1.0 function-calling demonstration), with
//! their repository root replaced by the test's.

use super::*;
use crate::replay::files::LocalFiles;

fn root() -> (tempfile::TempDir, String) {
    let (dir, root) = crate::replay::tools::temp_root();
    (dir, root)
}

fn w(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

const REPRODUCE: &str = "from marshmallow.fields import TimeDelta\nfrom datetime import timedelta\n\ntd_field = TimeDelta(precision=\"milliseconds\")\n\nobj = dict()\nobj[\"td_field\"] = timedelta(milliseconds=345)\n\nprint(td_field.serialize(\"td_field\", obj))\n";

/// Steps 4 and 5 of the 0.x marshmallow demonstration: `create reproduce.py`, `edit 1:1`.
#[test]
fn v0_create_then_edit_like_the_demonstration() {
    let (_d, r) = root();
    let mut ed = Windowed::new(Generation::V0, Vec::new());
    let out = ed.create(&LocalFiles, &r, &w(&["reproduce.py"]));
    assert_eq!(
        out,
        format!("[File: {r}/reproduce.py (1 lines total)]\n1:\n")
    );
    let out = ed.edit_lines(&LocalFiles, "1:1", REPRODUCE);
    let expected = format!(
        "[File: {r}/reproduce.py (9 lines total)]\n1:from marshmallow.fields import TimeDelta\n2:from datetime import timedelta\n3:\n4:td_field = TimeDelta(precision=\"milliseconds\")\n5:\n6:obj = dict()\n7:obj[\"td_field\"] = timedelta(milliseconds=345)\n8:\n9:print(td_field.serialize(\"td_field\", obj))\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"
    );
    assert_eq!(out, expected);
    assert_eq!(
        std::fs::read_to_string(format!("{r}/reproduce.py")).unwrap(),
        REPRODUCE
    );
    let out = ed.create(&LocalFiles, &r, &w(&["reproduce.py"]));
    assert!(out.starts_with("Error: File 'reproduce.py' already exists.\n[File: "));
}

/// A file shaped like marshmallow's fields.py around line 1475 (1997 lines).
fn fields_py() -> String {
    let mut lines: Vec<String> = (1..=1997).map(|i| format!("v{i} = {i}")).collect();
    lines[1468] = "class TimeDelta:".into();
    lines[1469] = "    def _serialize(self, value):".into();
    for (i, line) in lines.iter_mut().enumerate().take(1474).skip(1470) {
        *line = format!("        a{i} = {i}");
    }
    lines[1474] = "        return int(value)".into();
    lines[1475] = "".into();
    lines[1476] = "    def _deserialize(self, value):".into();
    lines[1477] = "        try:".into();
    lines[1478] = "            value = int(value)".into();
    lines[1479] = "        except ValueError:".into();
    lines[1480] = "            raise".into();
    lines.join("\n") + "\n"
}

/// Steps 9–11 of the 0.x marshmallow demonstration: `open … 1474`, a rejected `edit
/// 1475:1475` (unindented line) and the accepted one. Window positions and messages as
/// recorded.
#[test]
fn v0_open_and_lint_rejected_edit_like_the_demonstration() {
    let (_d, r) = root();
    std::fs::create_dir_all(format!("{r}/src")).unwrap();
    let path = format!("{r}/src/fields.py");
    std::fs::write(&path, fields_py()).unwrap();
    let mut ed = Windowed::new(Generation::V0, Vec::new());
    let out = ed.open(&LocalFiles, &r, &w(&["src/fields.py", "1474"]));
    assert!(out.starts_with(&format!(
        "[File: {path} (1997 lines total)]\n(1458 more lines above)\n1459:v1459 = 1459\n"
    )));
    assert!(out.ends_with("1558:v1558 = 1558\n(439 more lines below)\n"));

    let out = ed.edit_lines(
        &LocalFiles,
        "1475:1475",
        "x = round(value)  # round to nearest int\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand."
    );
    assert_eq!(
        &lines[1..4],
        &["", "ERRORS:", "- E999 IndentationError: unexpected indent"]
    );
    assert_eq!(
        lines[5],
        "This is how your edit would have looked if applied"
    );
    assert_eq!(
        lines[6],
        "-------------------------------------------------"
    );
    assert_eq!(lines[7], format!("[File: {path} (1997 lines total)]"));
    assert_eq!(lines[8], "(1468 more lines above)");
    assert_eq!(lines[9], "1469:class TimeDelta:");
    assert_eq!(lines[15], "1475:x = round(value)  # round to nearest int");
    assert_eq!(lines[19], "1479:            value = int(value)");
    assert_eq!(lines[20], "(518 more lines below)");
    assert_eq!(
        lines[24],
        "-------------------------------------------------"
    );
    assert_eq!(lines[25], format!("[File: {path} (1997 lines total)]"));
    assert_eq!(lines[26], "(1469 more lines above)");
    assert_eq!(lines[27], "1470:    def _serialize(self, value):");
    assert_eq!(lines[37], "1480:        except ValueError:");
    assert_eq!(lines[38], "(517 more lines below)");
    assert!(out.ends_with("DO NOT re-run the same failed edit command. Running it again will lead to the same error.\n"));
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        fields_py(),
        "the edit was undone"
    );

    let out = ed.edit_lines(
        &LocalFiles,
        "1475:1475",
        "        return int(round(value))\n",
    );
    assert!(
        out.starts_with(&format!(
            "[File: {path} (1997 lines total)]\n(1424 more lines above)\n1425:v1425 = 1425\n"
        )),
        "{}",
        &out[..200]
    );
    assert!(out.ends_with("(473 more lines below)\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"));
}

/// CodeR's `open test_project/settings.py 57` on a 3-line file, `goto`, scrolling.
#[test]
fn v0_warnings_goto_and_scrolling() {
    let (_d, r) = root();
    std::fs::write(format!("{r}/settings.py"), "A = 1\nB = 2\nC = 3\n").unwrap();
    let mut ed = Windowed::new(Generation::V0, Vec::new());
    let out = ed.open(&LocalFiles, &r, &w(&["settings.py", "57"]));
    assert_eq!(
        out,
        format!(
            "Warning: <line_number> (57) is greater than the number of lines in the file (3)\nWarning: Setting <line_number> to 3\n[File: {r}/settings.py (3 lines total)]\n1:A = 1\n2:B = 2\n3:C = 3\n"
        )
    );
    assert_eq!(
        ed.goto(&LocalFiles, &w(&["9"])),
        "Error: <line> must be less than or equal to 3\n"
    );
    assert_eq!(
        ed.goto(&LocalFiles, &w(&["x"])),
        "Usage: goto <line>\nError: <line> must be a number\n"
    );
    let big: String = (1..=401).map(|i| format!("l{i}\n")).collect();
    std::fs::write(format!("{r}/ccode.py"), big).unwrap();
    ed.open(&LocalFiles, &r, &w(&["ccode.py"]));
    // CodeR sympy__sympy-11400: `goto 184` shows lines 169.. with 168 above.
    let out = ed.goto(&LocalFiles, &w(&["184"]));
    assert!(out.starts_with(&format!(
        "[File: {r}/ccode.py (401 lines total)]\n(168 more lines above)\n169:l169\n"
    )));
    let out = ed.scroll(&LocalFiles, true);
    assert!(out.contains("(266 more lines above)\n267:l267\n"), "{out}");
    assert!(out.ends_with("366:l366\n(35 more lines below)\n"));
    let out = ed.scroll(&LocalFiles, true);
    assert!(out.contains("(301 more lines above)\n302:l302\n") && out.ends_with("401:l401\n"));
    assert_eq!(
        ed.open(&LocalFiles, &r, &w(&["operators.py"])),
        "File operators.py not found\n"
    );
    let fresh = &mut Windowed::new(Generation::V0, Vec::new());
    assert_eq!(
        fresh.scroll(&LocalFiles, true),
        "No file open. Use the open command first.\n"
    );
    assert_eq!(
        fresh.edit_lines(&LocalFiles, "1:1", "x\n"),
        "No file open. Use the `open` command first.\n"
    );
}

/// The 1.0 function-calling demonstration: `open "setup.py"`, `create reproduce.py`,
/// `insert '…'` (appends after the created empty line).
#[test]
fn v1_open_create_insert_like_the_demonstration() {
    let (_d, r) = root();
    let setup: String = (1..=94).map(|i| format!("s{i}\n")).collect();
    std::fs::write(format!("{r}/setup.py"), setup).unwrap();
    let mut ed = Windowed::new(Generation::V1, Vec::new());
    let out = ed.open(&LocalFiles, &r, &w(&["setup.py"]));
    assert!(out.starts_with("[File: setup.py (94 lines total)]\n1:s1\n"));
    assert!(out.ends_with("94:s94\n"));
    assert_eq!(
        ed.create(&LocalFiles, &r, &w(&["reproduce.py"])),
        "[File: reproduce.py (1 lines total)]\n1:\n"
    );
    let body = REPRODUCE.trim_end();
    let out = ed.insert(&LocalFiles, body, None);
    assert_eq!(
        out,
        format!(
            "[File: {r}/reproduce.py (10 lines total)]\n1:\n2:from marshmallow.fields import TimeDelta\n3:from datetime import timedelta\n4:\n5:td_field = TimeDelta(precision=\"milliseconds\")\n6:\n7:obj = dict()\n8:obj[\"td_field\"] = timedelta(milliseconds=345)\n9:\n10:print(td_field.serialize(\"td_field\", obj))\n"
        )
    );
}

/// `function_calling_simple.traj`: `edit 'def division(…) -> float' '…:'` in a 10-line file.
#[test]
fn v1_edit_replace_messages() {
    let (_d, r) = root();
    let text = "#!/usr/bin/env python3\n\n\ndef division(a: float, b: float) -> float\n    return a/b\n\n\nif __name__ == \"__main__\":\n    print(division(123, 15))\n\n";
    std::fs::create_dir_all(format!("{r}/tests")).unwrap();
    std::fs::write(format!("{r}/tests/missing_colon.py"), text).unwrap();
    let mut ed = Windowed::new(Generation::V1, Vec::new());
    ed.open(&LocalFiles, &r, &w(&["tests/missing_colon.py"]));
    let out = ed.edit_replace(
        &LocalFiles,
        "def division(a: float, b: float) -> float",
        "def division(a: float, b: float) -> float:",
        false,
    );
    assert_eq!(
        out,
        format!(
            "Text replaced. Please review the changes and make sure they are correct:\n\n1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break existing functionality\n\nEdit the file again if necessary.\n[File: {r}/tests/missing_colon.py (10 lines total)]\n1:#!/usr/bin/env python3\n2:\n3:\n4:def division(a: float, b: float) -> float:\n5:    return a/b\n6:\n7:\n8:if __name__ == \"__main__\":\n9:    print(division(123, 15))\n10:\n"
        )
    );
    let out = ed.edit_replace(&LocalFiles, "nothing here", "x", false);
    assert!(out.starts_with("Your edit was not applied (file not modified): Text 'nothing here' not found in displayed lines (or anywhere in the file)."));
    let out = ed.edit_replace(&LocalFiles, "return a/b", "return a/b\n  oops", false);
    assert!(
        out.starts_with("Your proposed edit has introduced new syntax error(s)."),
        "{out}"
    );
    assert!(out.contains("ERRORS:\n\n- E999 IndentationError"), "{out}");
    assert!(
        std::fs::read_to_string(format!("{r}/tests/missing_colon.py"))
            .unwrap()
            .contains("-> float:\n    return a/b\n\n")
    );
    assert_eq!(py_repr("it's \"x\"\n"), "'it\\'s \"x\"\\n'");
    assert_eq!(py_repr("it's"), "\"it's\"");
}
