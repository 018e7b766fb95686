//! Reconstruction flows on small trajectories built from real log excerpts.

use super::*;
use crate::diff::patch::FileChange;
use crate::model::{Format, ToolCall};

fn traj(steps: Vec<Step>) -> Trajectory {
    let mut t = Trajectory::new("t.traj", Format::SweAgent);
    t.steps = steps;
    t.number_steps();
    t
}

fn text_step(action: &str, observation: &str) -> Step {
    Step {
        action: action.into(),
        observation: observation.into(),
        ..Step::default()
    }
}

fn call_step(name: &str, args: serde_json::Value, observation: &str) -> Step {
    Step {
        tool_calls: vec![ToolCall::new(name, args.to_string())],
        observation: observation.into(),
        ..Step::default()
    }
}

fn added(d: &FileDiff) -> Vec<&str> {
    d.hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == LineKind::Added)
        .filter_map(|l| l.text.as_deref())
        .collect()
}

#[test]
fn windowed_edits_on_an_opened_file() {
    let t = traj(vec![
        text_step(
            "open src/a.py 3",
            "[File: /repo__x/src/a.py (5 lines total)]\n1:import os\n2:\n3:def f():\n4:    return 1\n5:",
        ),
        text_step(
            "edit 4:4\n    return 2\nend_of_edit",
            "[File: /repo__x/src/a.py (5 lines total)]\n1:import os\n2:\n3:def f():\n4:    return 2\n5:\nFile updated.",
        ),
    ]);
    let r = Reconstruction::of(&t);
    let e = &r.step_edits(2)[0];
    assert_eq!(e.status, EditStatus::Applied);
    assert_eq!(e.path.as_deref(), Some("src/a.py"));
    let d = e.diff.as_ref().unwrap();
    assert_eq!(d.hunks[0].header(), "@@ -1,5 +1,5 @@");
    assert_eq!(added(d), vec!["    return 2"]);
    let files = r.files_at(2);
    assert_eq!(files[0].lines.len(), 5);
    assert!(files[0].lines.iter().all(Option::is_some));
    let c = r.cumulative_at(2);
    assert_eq!(added(c[0].diff.as_ref().unwrap()), vec!["    return 2"]);
    // Before the edit, the file is only viewed.
    assert!(r.cumulative_at(1).is_empty());
    assert!(!r.files_at(1)[0].edited);
}

#[test]
fn malformed_and_refused_edits_are_marked_not_applied() {
    let t = traj(vec![
        text_step(
            "open a.py",
            "[File: /r__r/a.py (2 lines total)]\n1:x = 1\n2:y = 2",
        ),
        text_step(
            "edit 2\ny = 3\nend_of_edit",
            "Usage: edit <start_line>:<end_line>",
        ),
        text_step(
            "edit 5:x\ny = 3\nend_of_edit",
            "Usage: edit <start_line>:<end_line>",
        ),
        text_step(
            "edit 2:2\ny = (\nend_of_edit",
            "Your proposed edit has introduced new syntax error(s).\nThis is how your edit would have looked if applied\n[File: /r__r/a.py (2 lines total)]\n1:x = 1\n2:y = (\nThis is the original code before your edit\n[File: /r__r/a.py (2 lines total)]\n1:x = 1\n2:y = 2\nYour changes have NOT been applied.",
        ),
    ]);
    let r = Reconstruction::of(&t);
    for k in [2, 3] {
        let e = &r.step_edits(k)[0];
        assert!(matches!(e.status, EditStatus::Uninterpreted(_)), "{e:?}");
        assert!(e.diff.is_none());
    }
    let e = &r.step_edits(4)[0];
    assert!(matches!(e.status, EditStatus::Rejected(_)));
    assert_eq!(added(e.diff.as_ref().unwrap()), vec!["y = ("]);
    assert!(r.cumulative_at(4).is_empty(), "nothing was applied");
    let f = &r.files_at(4)[0];
    assert_eq!(f.lines[1].as_deref(), Some("y = 2"));
    assert!(f.doubt.is_none());
}

#[test]
fn str_replace_on_unseen_text_is_placed_by_the_snippet() {
    // OpenHands multi_swe_bench output.jsonl, ponyc parser.c (trimmed snippet).
    let args = serde_json::json!({
        "command": "str_replace",
        "path": "/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c",
        "old_str": "PRINT_INLINE();\n  AST_NODE(TK_LET);\n  TOKEN(\"variable name\", TK_ID);\n  AST_NODE(TK_NONE);  // Type\n  DONE();",
        "new_str": "PRINT_INLINE();\n  AST_NODE(TK_LET);\n  TOKEN(\"variable name\", TK_ID);\n  AST_NODE(TK_NONE);  // Type\n  SET_FLAG(AST_FLAG_IN_PARENS);\n  DONE();",
    });
    let obs = "The file /workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c has been edited. Here's the result of running `cat -n` on a snippet of /workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c:\n   689\t\n   690\t// ID\n   691\tDEF(idseqsingle);\n   692\t  PRINT_INLINE();\n   693\t  AST_NODE(TK_LET);\n   694\t  TOKEN(\"variable name\", TK_ID);\n   695\t  AST_NODE(TK_NONE);  // Type\n   696\t  SET_FLAG(AST_FLAG_IN_PARENS);\n   697\t  DONE();\n   698\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.";
    let t = traj(vec![call_step("str_replace_editor", args, obs)]);
    let r = Reconstruction::of(&t);
    let e = &r.step_edits(1)[0];
    assert_eq!(e.status, EditStatus::Applied, "{e:?}");
    assert_eq!(e.path.as_deref(), Some("src/libponyc/ast/parser.c"));
    let d = e.diff.as_ref().unwrap();
    let plus: Vec<_> = d.hunks[0]
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Added)
        .collect();
    assert_eq!(plus.len(), 1);
    assert_eq!(
        plus[0].text.as_deref(),
        Some("  SET_FLAG(AST_FLAG_IN_PARENS);")
    );
    assert_eq!(plus[0].new_line, Some(696));
    assert_eq!(d.removed(), 0);
}

#[test]
fn refused_str_replace_leaves_the_tree_alone() {
    let args = serde_json::json!({"command": "str_replace", "path": "/w/a.c", "old_str": "x", "new_str": "y"});
    let t = traj(vec![call_step(
        "str_replace_editor",
        args,
        "ERROR:\nNo replacement was performed, old_str `x` did not appear verbatim in /w/a.c.",
    )]);
    let r = Reconstruction::of(&t);
    assert!(matches!(r.step_edits(1)[0].status, EditStatus::Rejected(_)));
    assert!(r.files_at(1).is_empty());
}

#[test]
fn claude_code_write_then_edit_then_undo_like_revert() {
    // simonw/claude-code-transcripts sample_session.json.
    let t = traj(vec![
        call_step(
            "Write",
            serde_json::json!({"file_path": "/project/math_utils.py", "content": "def add(a: int, b: int) -> int:\n    \"\"\"Add two numbers together.\"\"\"\n    return a + b\n"}),
            "File written successfully",
        ),
        call_step(
            "Edit",
            serde_json::json!({"file_path": "/project/math_utils.py", "old_string": "    return a + b\n", "new_string": "    return a + b\n\n\ndef subtract(a: int, b: int) -> int:\n    \"\"\"Subtract b from a.\"\"\"\n    return a - b\n"}),
            "File edited successfully",
        ),
    ]);
    let r = Reconstruction::of(&t);
    let d = r.step_edits(2)[0].diff.as_ref().unwrap();
    assert_eq!(d.added(), 5);
    assert_eq!(d.removed(), 0);
    assert_eq!(
        d.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap()
            .new_line,
        Some(4)
    );
    let c = &r.cumulative_at(2)[0];
    assert_eq!(c.path, "/project/math_utils.py");
    let d = c.diff.as_ref().unwrap();
    assert_eq!(d.change, FileChange::Modified);
    assert_eq!(d.added(), 8);
    assert!(d.note.as_deref().unwrap().contains("never seen"));
}

#[test]
fn codex_apply_patch_on_a_file_read_before() {
    let t = traj(vec![
        call_step(
            "shell",
            serde_json::json!({"command": ["bash", "-lc", "cat src/app.py"]}),
            "def greet():\n    print(\"Hi\")",
        ),
        call_step(
            "apply_patch",
            serde_json::json!({"input": "*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello, world!\")\n*** End Patch"}),
            "Success. Updated the following files:\nM src/app.py",
        ),
    ]);
    let r = Reconstruction::of(&t);
    let e = &r.step_edits(2)[0];
    assert_eq!(e.status, EditStatus::Applied, "{e:?}");
    let d = e.diff.as_ref().unwrap();
    assert_eq!(added(d), vec!["    print(\"Hello, world!\")"]);
    assert_eq!(
        d.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Removed)
            .unwrap()
            .old_line,
        Some(2)
    );
}

#[test]
fn sed_over_a_partly_seen_file_is_in_doubt() {
    let t = traj(vec![
        text_step(
            "nl -ba a.py | sed -n '1,2p'",
            "<returncode>0</returncode>\n<output>\n     1\tx = 1\n     2\ty = 1\n</output>",
        ),
        text_step(
            "sed -i 's/= 1/= 2/' a.py",
            "<returncode>0</returncode>\n<output>\n</output>",
        ),
        text_step(
            "sed -i '1s/x/z/' a.py",
            "<returncode>0</returncode>\n<output>\n</output>",
        ),
    ]);
    let r = Reconstruction::of(&t);
    let e = &r.step_edits(2)[0];
    assert!(matches!(e.status, EditStatus::Doubtful(_)), "{e:?}");
    assert_eq!(e.diff.as_ref().unwrap().added(), 2);
    assert_eq!(r.step_edits(3)[0].status, EditStatus::Applied);
}

#[test]
fn heredoc_script_that_rewrites_a_file_loses_track_honestly() {
    let t = traj(vec![
        text_step("cat a.py", "x = 1\ny = 2"),
        text_step(
            "cat <<'PY' > /tmp/fix.py && python3 /tmp/fix.py\nfrom pathlib import Path\np = Path('a.py')\np.write_text(p.read_text().replace('1', '3'))\nPY",
            "<returncode>0</returncode>\n<output>\n</output>",
        ),
    ]);
    let r = Reconstruction::of(&t);
    let edits = r.step_edits(2);
    assert_eq!(edits.len(), 2);
    assert_eq!(edits[0].path.as_deref(), Some("/tmp/fix.py"));
    assert!(matches!(edits[1].status, EditStatus::Opaque(_)));
    let c = r.cumulative_at(2);
    let a = c.iter().find(|c| c.path == "a.py").unwrap();
    assert!(a.diff.is_none());
    assert!(a.note.as_deref().unwrap().starts_with("unknown"));
}

#[test]
fn garbage_never_panics() {
    let weird = [
        "edit 99999999999999999999:1\nx\nend_of_edit",
        "edit 3:2\nend_of_edit",
        "create",
        "str_replace_editor",
        "sed -i",
        "sed -i 's/(/x/' a.py",
        "cat > <<EOF",
        "rm",
        "mv a",
        "*** Begin Patch\n*** Update File: a\n@@\n-\n*** End Patch",
        "edit_file(path=",
        "\u{0}\u{1}",
    ];
    let mut steps: Vec<Step> = weird
        .iter()
        .map(|a| text_step(a, "[File: /x__y/a (3 lines total)]\n1:a\n2:\n3:c"))
        .collect();
    steps.push(call_step(
        "str_replace_editor",
        serde_json::json!({"command": "insert", "path": "/a", "insert_line": 99, "new_str": "x"}),
        "",
    ));
    steps.push(call_step(
        "Edit",
        serde_json::json!({"file_path": "/a", "old_string": "", "new_string": "x"}),
        "",
    ));
    steps.push(call_step(
        "edit",
        serde_json::json!({"path": "/a", "content": "x", "start": 9, "end": 1}),
        "",
    ));
    let t = traj(steps);
    let r = Reconstruction::of(&t);
    for k in 1..=r.steps() {
        let _ = r.files_at(k);
        let _ = r.cumulative_at(k);
    }
}
