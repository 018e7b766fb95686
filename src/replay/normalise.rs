//! Making a recorded and a replayed observation comparable: what legitimately differs between
//! two runs of the same command (clock times, durations, temporary names, object addresses,
//! process ids, the scratch copy's path, terminal line endings, colours, the prompt footer an
//! agent appends) is replaced by a placeholder; everything else must match.
//!
//! Pure text functions. The rules are deliberately narrow: a rule that also erased real
//! differences would hide the divergences the prefix replay exists to find.

use regex::Regex;
use std::sync::LazyLock;

/// `(pattern, replacement)` rules, applied in order after line endings and colours.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // ISO 8601 date-times and dates with times (logging, `date`, git).
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        // `ls -l` and `git log` style dates: `Sep 10 09:53`, `Sep 10  2025`.
        (
            r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +(\d{2}:\d{2}|\d{4})\b",
            "<date>",
        ),
        (r"\b\d{2}:\d{2}:\d{2}(\.\d+)?\b", "<time>"),
        // Test runners and timers: `Ran 3 tests in 0.012s`, `2 passed in 0.05s`, `real 0m0.01s`.
        (r"\b\d+m\d+(\.\d+)?s\b", "<duration>"),
        (
            r"\b\d+(\.\d+)?( ?(ms|s|sec|secs|seconds|µs|us))\b",
            "<duration>",
        ),
        // Object reprs and tracebacks of native code.
        (r"\b0x[0-9a-fA-F]{4,}\b", "0x<address>"),
        // Python's `tempfile` names and pytest's base temp folders.
        (r"/tmp/tmp[a-z0-9_]{6,}", "/tmp/<tmp>"),
        (r"/tmp/pytest-of-[^/\s]+/pytest-\d+", "/tmp/<pytest>"),
        (r"\b(pid|PID|Pid)([ =:]+)\d+", "$1$2<pid>"),
        // Background job notices: `[1] 12345`.
        (r"(?m)^\[\d+\] \d+$", "[<job>] <pid>"),
    ]
    .into_iter()
    .filter_map(|(pattern, replacement)| Regex::new(pattern).ok().map(|r| (r, replacement)))
    .collect()
});

static ANSI: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07").ok());

/// Claude Code appends reminders to tool results that depend on the session, not the tool.
static REMINDER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)\s*<system-reminder>.*?</system-reminder>\s*").ok());

/// SWE-agent's next-step template appends the prompt state to every observation it logs.
static SWE_AGENT_FOOTER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\n?\(Open file: [^\n]*\)\n\(Current directory: [^\n]*\)\n(bash-\$|\$)\s*$").ok()
});

/// The observation with run-to-run noise replaced. `paths` are `(from, to)` substitutions
/// applied first (the scratch copy's root → the recorded root).
pub fn normalise(text: &str, paths: &[(String, String)]) -> String {
    let mut t = text.replace("\r\n", "\n");
    for (from, to) in paths {
        if !from.is_empty() && from != to {
            t = t.replace(from.as_str(), to);
        }
    }
    if let Some(ansi) = ANSI.as_ref() {
        t = ansi.replace_all(&t, "").into_owned();
    }
    // Backspace-drawn spinners (`-\x08 \x08\\`) are terminal animation, not output.
    t = erase_backspaces(&t);
    if let Some(footer) = SWE_AGENT_FOOTER.as_ref() {
        t = footer.replace(&t, "").into_owned();
    }
    if let Some(reminder) = REMINDER.as_ref() {
        t = reminder.replace_all(&t, "\n").into_owned();
    }
    for (rule, replacement) in RULES.iter() {
        t = rule.replace_all(&t, *replacement).into_owned();
    }
    let lines: Vec<&str> = t.lines().map(str::trim_end).collect();
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    let last = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(first, |i| i + 1);
    lines[first..last].join("\n")
}

fn erase_backspaces(text: &str) -> String {
    if !text.contains('\u{8}') {
        return text.to_string();
    }
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// A short unified diff of two normalised texts (`recorded` → `replayed`), at most
/// `max_lines` lines; empty when they are equal.
pub fn short_diff(recorded: &str, replayed: &str, max_lines: usize) -> String {
    if recorded == replayed {
        return String::new();
    }
    let diff = similar::TextDiff::from_lines(recorded, replayed);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header("recorded", "replayed")
        .to_string();
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > max_lines {
        let hidden = lines.len() - max_lines;
        lines.truncate(max_lines);
        let mut out = lines.join("\n");
        out.push_str(&format!("\n… {hidden} more diff lines"));
        return out;
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_durations_addresses_and_temp_names() {
        let a = "Ran 3 tests in 0.012s\n\nOK\n<Foo object at 0x7f3a2b1c9d00>\n/tmp/tmpab12cd_x/f.py\n2024-05-01T10:00:03.5Z started\npid 4242 done";
        let b = "Ran 3 tests in 0.100s\n\nOK\n<Foo object at 0x7f00aa11bb22>\n/tmp/tmpzz99yy_q/f.py\n2025-11-30 23:59:59 started\npid 17 done";
        assert_eq!(normalise(a, &[]), normalise(b, &[]));
        assert!(normalise(a, &[]).contains("Ran 3 tests in <duration>"));
    }

    #[test]
    fn real_differences_survive() {
        let a = "Ran 3 tests in 0.012s\n\nOK";
        let b = "Ran 4 tests in 0.012s\n\nFAILED (failures=1)";
        assert_ne!(normalise(a, &[]), normalise(b, &[]));
        assert_ne!(normalise("3 0 -4", &[]), normalise("3.5 0.333 -3.5", &[]));
    }

    #[test]
    fn line_endings_trailing_space_colours_and_footer() {
        let recorded = "\u{1b}[32m344\u{1b}[0m  \r\nok\n(Open file: /testbed/a.py)\n(Current directory: /testbed)\nbash-$";
        assert_eq!(normalise(recorded, &[]), "344\nok");
        assert_eq!(normalise("\n\ndiff --git a b\n\n", &[]), "diff --git a b");
        assert_eq!(
            normalise("Installing ... -\u{8} \u{8}\\\u{8} \u{8}done", &[]),
            "Installing ... done"
        );
    }

    #[test]
    fn scratch_root_becomes_recorded_root() {
        let paths = vec![("/tmp/.ts-x1/repo".to_string(), "/testbed".to_string())];
        assert_eq!(
            normalise("[File: /tmp/.ts-x1/repo/a.py (3 lines total)]", &paths),
            "[File: /testbed/a.py (3 lines total)]"
        );
    }

    #[test]
    fn reminders_are_dropped() {
        let t =
            "     1→x = 1\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n";
        assert_eq!(normalise(t, &[]), "     1→x = 1");
    }

    #[test]
    fn short_diff_names_both_sides_and_is_capped() {
        let d = short_diff("a\nb\nc", "a\nB\nc", 20);
        assert!(d.contains("--- recorded") && d.contains("+++ replayed"));
        assert!(d.contains("-b") && d.contains("+B"));
        let long_a: String = (0..100).map(|i| format!("{i}\n")).collect();
        let long_b: String = (0..100).map(|i| format!("x{i}\n")).collect();
        let d = short_diff(&long_a, &long_b, 10);
        assert_eq!(d.lines().count(), 11);
        assert!(d.ends_with("more diff lines"));
        assert_eq!(short_diff("same", "same", 5), "");
    }
}
