//! The linter SWE-agent's editing commands run on Python files before accepting an edit:
//! `flake8 --isolated --select=F821,F822,F831,E111,E112,E113,E999,E902`, and the filter that
//! keeps only the errors the edit introduced.
//!
//! Where flake8 is not installed (the scratch copy usually runs on the user's machine), Python
//! itself checks the syntax and reports it as flake8's `E999` would; the name checks (F821
//! undefined name, …) are then not made, and an edit the original rejected for them is
//! accepted. Syntax error wording follows the local Python's version.

use std::process::{Command, Stdio};

const SELECT: &str = "F821,F822,F831,E111,E112,E113,E999,E902";

const SYNTAX_CHECK: &str = r#"import sys
p = sys.argv[1]
try:
    compile(open(p, 'rb').read(), p, 'exec')
except SyntaxError as e:
    print('%s:%d:%d: E999 %s: %s' % (p, e.lineno or 1, e.offset or 1, type(e).__name__, e.msg))
except Exception:
    pass
"#;

/// flake8's output for `path` (`file:line:col: CODE message` lines); empty for a clean file,
/// a file that is not Python, or when no checker can run.
pub fn run(launcher: &[String], path: &str) -> String {
    if !path.ends_with(".py") {
        return String::new();
    }
    let script = format!(
        "if command -v flake8 >/dev/null 2>&1; then flake8 --isolated --select={SELECT} \"$1\" 2>&1; \
         elif command -v python3 >/dev/null 2>&1; then python3 -c \"$0\" \"$1\"; fi"
    );
    let mut cmd = match launcher.split_first() {
        Some((program, rest)) => {
            let mut c = Command::new(program);
            c.args(rest);
            c.arg("sh");
            c
        }
        None => Command::new("sh"),
    };
    cmd.args(["-c", &script, SYNTAX_CHECK, path])
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    match cmd.output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout).into_owned(),
        Err(_) => String::new(),
    }
}

#[derive(Debug, Clone, PartialEq)]
struct LintError {
    file: String,
    line: i64,
    col: i64,
    problem: String,
}

fn parse(output: &str) -> Vec<LintError> {
    output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter_map(|line| {
            let (prefix, problem) = line.split_once(": ")?;
            let mut parts = prefix.rsplitn(3, ':');
            let col = parts.next()?.parse().ok()?;
            let line_no = parts.next()?.parse().ok()?;
            let file = parts.next()?.to_string();
            Some(LintError {
                file,
                line: line_no,
                col,
                problem: problem.to_string(),
            })
        })
        .collect()
}

/// The errors in `after` that the edit of lines `window` (1-based, inclusive) into `n_lines`
/// lines introduced, as `- problem` lines. Errors that existed `before` are dropped after
/// shifting them by the lines the edit added; with `drop_above`, errors above the window are
/// dropped too (SWE-agent 1.x).
pub fn new_errors(
    after: &str,
    before: &str,
    window: (i64, i64),
    n_lines: i64,
    drop_above: bool,
) -> String {
    let added = n_lines - (window.1 - window.0 + 1);
    let previous: Vec<LintError> = parse(before)
        .into_iter()
        .filter(|e| !(window.0 <= e.line && e.line <= window.1))
        .map(|mut e| {
            if e.line > window.1 {
                e.line += added;
            }
            e
        })
        .collect();
    parse(after)
        .into_iter()
        .filter(|e| !previous.contains(e))
        .filter(|e| !drop_above || e.line >= window.0)
        .map(|e| format!("- {}", e.problem))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_errors_are_reported() {
        let before =
            "f.py:3:1: F821 undefined name 'x'\nf.py:20:5: E999 SyntaxError: invalid syntax";
        let after = "f.py:3:1: F821 undefined name 'x'\nf.py:22:5: E999 SyntaxError: invalid syntax\nf.py:10:9: E999 IndentationError: unexpected indent";
        // Lines 10..=10 became 3 lines: the old error at 20 moved to 22.
        assert_eq!(
            new_errors(after, before, (10, 10), 3, false),
            "- E999 IndentationError: unexpected indent"
        );
        assert_eq!(new_errors("", before, (1, 1), 1, false), "");
        assert_eq!(
            new_errors("f.py:2:1: E999 SyntaxError: x", "", (5, 5), 1, true),
            ""
        );
    }

    #[test]
    fn python_reports_syntax_errors_like_flake8() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.py");
        std::fs::write(&bad, "def f():\n    return 1\n  x = 2\n").unwrap();
        let out = run(&[], &bad.to_string_lossy());
        let errors = parse(&out);
        assert_eq!(errors.len(), 1, "{out}");
        assert_eq!(errors[0].line, 3);
        assert!(
            errors[0].problem.starts_with("E999 IndentationError: "),
            "{out}"
        );
        let good = dir.path().join("good.py");
        std::fs::write(&good, "x = 1\n").unwrap();
        assert_eq!(run(&[], &good.to_string_lossy()), "");
        assert_eq!(
            run(&[], &dir.path().join("notes.txt").to_string_lossy()),
            ""
        );
    }
}
