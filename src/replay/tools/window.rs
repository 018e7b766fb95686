//! SWE-agent's 100-line file window, as text: `[File: path (N lines total)]`,
//! `(k more lines above)`, `n:line`, `(m more lines below)`.
//!
//! Two generations compute it differently and both are reproduced exactly:
//! - 0.x (bash functions, `CURRENT_LINE` is the window's centre, arithmetic in `jq`):
//!   [`V0`];
//! - 1.x (`WindowedFile` in Python, `first_line` is the window's top): [`V1`].
//!
//! Pure functions of the file's text.

/// 0.x: `awk 'END {print NR}'` lines; `grep -n $` numbering.
pub mod v0 {
    /// `awk 'END {print NR}'`: a last line without newline still counts.
    pub fn total_lines(text: &str) -> i64 {
        let newlines = text.matches('\n').count();
        let partial = usize::from(!text.is_empty() && !text.ends_with('\n'));
        i64::try_from(newlines + partial).unwrap_or(i64::MAX)
    }

    fn lines(text: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') || text.is_empty() {
            lines.pop();
        }
        lines
    }

    /// `_constrain_line`: keep the centre at least half a window from either end.
    pub fn constrain(current: i64, window: i64, total: i64) -> i64 {
        let half = window.div_euclid(2);
        current.min(total - half).max(half)
    }

    /// The centre `open FILE LINE` and `goto LINE` move to: `[LINE + WINDOW/2 - OFFSET, 1] | max`
    /// with `OFFSET = floor(WINDOW/6)`.
    pub fn centre_for(line: i64, window: i64) -> i64 {
        let offset = window.div_euclid(6);
        let centre = line as f64 + window as f64 / 2.0 - offset as f64;
        centre.max(1.0).floor() as i64
    }

    /// `_print`: the window around `current` (already constrained).
    pub fn print(display: &str, text: &str, current: i64, window: i64) -> String {
        let total = total_lines(text);
        let half = window as f64 / 2.0;
        let above = (current as f64 - half).max(0.0).floor() as i64;
        let below = (total as f64 - current as f64 - half).max(0.0).round() as i64;
        let head = (current as f64 + half).max(half).floor() as i64;
        let all = lines(text);
        let end = usize::try_from(head.min(total).max(0)).unwrap_or(0);
        let start = usize::try_from((head - window).max(0))
            .unwrap_or(0)
            .min(end);
        let mut out = format!("[File: {display} ({total} lines total)]\n");
        if above > 0 {
            out.push_str(&format!("({above} more lines above)\n"));
        }
        for (i, line) in all[start..end.min(all.len())].iter().enumerate() {
            out.push_str(&format!("{}:{line}\n", start + i + 1));
        }
        if below > 0 {
            out.push_str(&format!("({below} more lines below)\n"));
        }
        out
    }
}

/// 1.x: `len(text.splitlines())` lines, `text.split("\n")` for the shown lines.
pub mod v1 {
    /// Python's `str.splitlines()` count.
    pub fn n_lines(text: &str) -> i64 {
        let mut count = 0i64;
        let mut chars = text.chars().peekable();
        let mut in_line = false;
        while let Some(c) = chars.next() {
            let is_break = matches!(
                c,
                '\n' | '\r'
                    | '\u{b}'
                    | '\u{c}'
                    | '\u{1c}'
                    | '\u{1d}'
                    | '\u{1e}'
                    | '\u{85}'
                    | '\u{2028}'
                    | '\u{2029}'
            );
            if is_break {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                count += 1;
                in_line = false;
            } else {
                in_line = true;
            }
        }
        count + i64::from(in_line)
    }

    /// The `first_line` setter: `max(0, min(int(value), n_lines - window))`.
    pub fn clamp_first(value: f64, window: i64, n_lines: i64) -> i64 {
        (value.trunc() as i64).min(n_lines - window).max(0)
    }

    /// `goto(line, mode="top")`: the window's top for a 0-based `line`.
    pub fn top_for(line: i64, window: i64, n_lines: i64) -> i64 {
        clamp_first(line as f64 - window as f64 / 6.0, window, n_lines)
    }

    /// `get_window_text(line_numbers, status_line, pre_post_line)` + the print's newline.
    pub fn print(display: &str, text: &str, first: i64, window: i64) -> String {
        let n = n_lines(text);
        let end = (first + window - 1).min(n - 1);
        let parts: Vec<&str> = text.split('\n').collect();
        let from = usize::try_from(first.max(0)).unwrap_or(0).min(parts.len());
        let to = usize::try_from(end + 1)
            .unwrap_or(0)
            .clamp(from, parts.len());
        let mut out = vec![format!("[File: {display} ({n} lines total)]")];
        if first > 0 {
            out.push(format!("({first} more lines above)"));
        }
        for (i, line) in parts[from..to].iter().enumerate() {
            out.push(format!("{}:{line}", from + i + 1));
        }
        if end < n - 1 {
            out.push(format!("({} more lines below)", n - end - 1));
        }
        out.join("\n") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    /// `open src/marshmallow/fields.py 1474` in the 0.x marshmallow demonstration.
    #[test]
    fn v0_open_at_a_line_matches_the_demonstration() {
        let text = numbered(1997);
        let centre = v0::constrain(v0::centre_for(1474, 100), 100, 1997);
        assert_eq!(centre, 1508);
        let out = v0::print("/m/fields.py", &text, centre, 100);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "[File: /m/fields.py (1997 lines total)]");
        assert_eq!(lines[1], "(1458 more lines above)");
        assert_eq!(lines[2], "1459:line 1459");
        assert_eq!(lines[101], "1558:line 1558");
        assert_eq!(lines[102], "(439 more lines below)");
        assert_eq!(lines.len(), 103);
    }

    /// The lint-error windows of a 0.x `edit` (odd widths: `jq` halves are fractions).
    #[test]
    fn v0_odd_windows_round_like_jq() {
        let text = numbered(46);
        let c = v0::constrain(10, 13, 46);
        let out = v0::print("/r.py", &text, c, 13);
        assert!(
            out.starts_with("[File: /r.py (46 lines total)]\n(3 more lines above)\n4:line 4\n")
        );
        assert!(out.ends_with("16:line 16\n(30 more lines below)\n"));
        let text = numbered(45);
        let out = v0::print("/r.py", &text, v0::constrain(10, 12, 45), 12);
        assert!(
            out.starts_with("[File: /r.py (45 lines total)]\n(4 more lines above)\n5:line 5\n")
        );
        assert!(out.ends_with("16:line 16\n(29 more lines below)\n"));
    }

    #[test]
    fn v0_small_and_created_files() {
        let out = v0::print("/t/reproduce.py", "\n", v0::constrain(50, 100, 1), 100);
        assert_eq!(out, "[File: /t/reproduce.py (1 lines total)]\n1:\n");
        let out = v0::print("/t/a", "x\ny", v0::constrain(50, 100, 2), 100);
        assert_eq!(out, "[File: /t/a (2 lines total)]\n1:x\n2:y\n");
        assert_eq!(v0::total_lines(""), 0);
        assert_eq!(
            v0::print("/t/e", "", 50, 100),
            "[File: /t/e (0 lines total)]\n"
        );
    }

    /// `open "src/marshmallow/fields.py" 1474` in the 1.0 function-calling demonstration.
    #[test]
    fn v1_open_at_a_line_matches_the_demonstration() {
        let text = numbered(1997);
        let top = v1::top_for(1473, 100, 1997);
        assert_eq!(top, 1456);
        let out = v1::print("src/marshmallow/fields.py", &text, top, 100);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "[File: src/marshmallow/fields.py (1997 lines total)]"
        );
        assert_eq!(lines[1], "(1456 more lines above)");
        assert_eq!(lines[2], "1457:line 1457");
        assert_eq!(lines[101], "1556:line 1556");
        assert_eq!(lines[102], "(441 more lines below)");
    }

    #[test]
    fn v1_counts_lines_like_python() {
        assert_eq!(v1::n_lines(""), 0);
        assert_eq!(v1::n_lines("\n"), 1);
        assert_eq!(v1::n_lines("a\r\nb"), 2);
        assert_eq!(v1::n_lines("a\n\nb\n"), 3);
        assert_eq!(
            v1::print("reproduce.py", "\n", 0, 100),
            "[File: reproduce.py (1 lines total)]\n1:\n"
        );
        assert_eq!(v1::clamp_first(-3.5, 100, 10), 0);
    }
}
