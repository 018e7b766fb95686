//! Reading file content out of observations: SWE-agent's numbered `[File: x (N lines
//! total)]` windows, `cat -n` output of `str_replace_editor view` (and its edit snippets),
//! `cat -n`/`nl -ba` pipelines, and plain `cat`, `sed -n 'a,bp'`, `head` of one file.
//! Only output that certainly shows the file (one file, not cut short) counts.

use super::shell::{self, Command};
pub use super::tree::View;
use crate::model::Step;
use std::sync::LazyLock;

use regex::Regex;

static WINDOW_HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\[File: (.+) \((\d+) lines total\)\]\s*$").ok());
static CAT_N_HEADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"Here's the result of running `cat -n` on (?:a snippet of )?(.+?):\s*$").ok()
});
/// The file an edit's confirmation names before "a snippet of the edited file" (Claude
/// Code's Edit, newer str_replace_editor): `The file /p/x.py has been updated.`
static EDITED_FILE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"The file (\S+) has been (?:edited|updated|modified)").ok());
static NUMBERED_TAB: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*(\d+)(?:\t(.*)|→(.*))?$").ok());

/// Markers of output that was cut short.
const CLIPPED: &[&str] = &[
    "<response clipped>",
    "<elided_chars>",
    "<output_head>",
    "[... Observation truncated",
    "Output truncated",
];

/// SWE-agent's `[File: x (N lines total)]` windows. In a rejected 0.x edit only the
/// "original code" window shows the file as it is.
pub fn windows(observation: &str) -> Vec<View> {
    let Some(header) = WINDOW_HEADER.as_ref() else {
        return Vec::new();
    };
    let text = match observation.find("This is how your edit would have looked if applied") {
        Some(start) => {
            match observation[start..].find("This is the original code before your edit") {
                Some(end) => &observation[start + end..],
                None => "",
            }
        }
        None => observation,
    };
    let mut views = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(caps) = header.captures(line) else {
            continue;
        };
        let path = caps[1].to_string();
        let total: usize = caps[2].parse().unwrap_or(0);
        let mut view = View {
            path,
            first: 0,
            lines: Vec::new(),
            total: Some(total),
        };
        while let Some(next) = lines.peek() {
            if next.starts_with('(') && next.ends_with("more lines above)") {
                lines.next();
                continue;
            }
            let Some((number, rest)) = next.split_once(':') else {
                break;
            };
            let Ok(n) = number.parse::<usize>() else {
                break;
            };
            if view.first == 0 {
                view.first = n;
            } else if n != view.first + view.lines.len() {
                break;
            }
            view.lines.push(rest.to_string());
            lines.next();
        }
        if view.first > 0 || total <= 1 {
            view.first = view.first.max(1);
            views.push(view);
        }
    }
    views
}

/// `Here's the result of running `cat -n` on PATH:` blocks (str_replace_editor `view`, its
/// edit snippets, OpenHands). `whole`: the command viewed the whole file, so the block's
/// last number is the file's length.
pub fn cat_n_blocks(observation: &str, whole: bool) -> Vec<View> {
    let Some(header) = CAT_N_HEADER.as_ref() else {
        return Vec::new();
    };
    let mut views = Vec::new();
    let lines: Vec<&str> = observation.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(caps) = header.captures(lines[i]) else {
            i += 1;
            continue;
        };
        let snippet = lines[i].contains("on a snippet of");
        let mut path = caps[1].trim().to_string();
        let (runs, next) = numbered_run(&lines, i + 1);
        let line = i;
        i = next.max(i + 1);
        if path == "the edited file" {
            // The name is earlier on the line (or the line before); without it the block
            // shows a file we cannot name, and naming it "the edited file" would invent one.
            let named = lines[line.saturating_sub(1)..=line]
                .iter()
                .rev()
                .find_map(|l| EDITED_FILE.as_ref()?.captures(l))
                .map(|c| c[1].trim_end_matches('.').to_string());
            match named {
                Some(named) => path = named,
                None => continue,
            }
        }
        let clipped = CLIPPED.iter().any(|m| observation.contains(m));
        for (first, text) in runs {
            let total = (whole && !snippet && !clipped && first == 1).then_some(text.len());
            views.push(View {
                path: path.clone(),
                first,
                lines: text,
                total,
            });
        }
    }
    views
}

/// Consecutive `   12\ttext` lines from `start`: runs of consecutive numbers, and the index
/// after the last numbered line.
fn numbered_run(lines: &[&str], start: usize) -> (Vec<(usize, Vec<String>)>, usize) {
    let Some(re) = NUMBERED_TAB.as_ref() else {
        return (Vec::new(), start);
    };
    let mut runs: Vec<(usize, Vec<String>)> = Vec::new();
    let mut i = start;
    while let Some(caps) = lines.get(i).and_then(|l| re.captures(l)) {
        let Ok(n) = caps[1].parse::<usize>() else {
            break;
        };
        let text = caps
            .get(2)
            .or(caps.get(3))
            .map_or("", |m| m.as_str())
            .to_string();
        match runs.last_mut() {
            Some((first, run)) if *first + run.len() == n => run.push(text),
            _ => runs.push((n, vec![text])),
        }
        i += 1;
    }
    (runs, i)
}

/// The output of a shell command without mini-swe-agent's `<returncode>`/`<output>` wrapper
/// or the `[The command completed with exit code N.]` line OpenHands adds after it.
pub fn command_output(observation: &str) -> &str {
    let observation = match observation.rfind("\n[The command completed with exit code ") {
        Some(at) if observation.trim_end().ends_with(".]") => &observation[..at],
        _ => observation,
    };
    let text = match observation.find("<output>") {
        Some(start) => {
            let body = &observation[start + "<output>".len()..];
            let body = body.strip_prefix('\n').unwrap_or(body);
            match body.rfind("</output>") {
                Some(end) => &body[..end],
                None => body,
            }
        }
        None => observation,
    };
    text.strip_suffix('\n').unwrap_or(text)
}

/// Views from a shell command's output: one `cat -n`/`nl -ba` pipeline, or a lone `cat`,
/// `sed -n 'a,bp'` or `head -n N` of one file.
pub fn shell_views(command: &str, observation: &str, exit_ok: bool) -> Vec<View> {
    let pipelines = shell::parse(command);
    let output = command_output(observation);
    let numbered: Vec<(&Command, bool)> = pipelines
        .iter()
        .filter_map(|p| numbered_source(&p.commands))
        .collect();
    if numbered.len() == 1 {
        let (source, whole) = numbered[0];
        let Some(path) = single_file(source) else {
            return Vec::new();
        };
        let lines: Vec<&str> = output.lines().collect();
        let mut views = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let (runs, next) = numbered_run(&lines, i);
            for (first, text) in runs {
                views.push(View {
                    path: path.to_string(),
                    first,
                    lines: text,
                    total: None,
                });
            }
            i = next.max(i + 1);
        }
        let clipped = CLIPPED.iter().any(|m| observation.contains(m));
        if whole && exit_ok && !clipped && views.len() == 1 && views[0].first == 1 {
            views[0].total = Some(views[0].lines.len());
        }
        return views;
    }
    if pipelines.len() != 1 || pipelines[0].commands.len() != 1 || !exit_ok {
        return Vec::new();
    }
    if CLIPPED.iter().any(|m| observation.contains(m)) {
        return Vec::new();
    }
    let c = &pipelines[0].commands[0];
    if c.redirects.iter().any(|r| r.fd == 1) {
        return Vec::new();
    }
    plain_view(c, output).into_iter().collect()
}

/// `cat F`, `sed -n 'a,bp' F`, `head -n N F`: lines from a known place.
fn plain_view(c: &Command, output: &str) -> Option<View> {
    let argv = c.argv();
    let path = single_file(c)?.to_string();
    let lines: Vec<String> = if output.is_empty() {
        Vec::new()
    } else {
        output.split('\n').map(String::from).collect()
    };
    // A trailing empty line may have been trimmed by the log: the length is only certain
    // when the last line has text.
    let ends_clean = lines.last().is_some_and(|l| !l.trim().is_empty());
    match (c.name(), argv.len()) {
        ("cat", 2) => Some(View {
            path,
            first: 1,
            total: ends_clean.then_some(lines.len()),
            lines,
        }),
        ("sed", 4) if argv[1] == "-n" => {
            let range = argv[2].strip_suffix('p')?;
            let (a, b) = match range.split_once(',') {
                Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
                None => {
                    let n = range.parse::<usize>().ok()?;
                    (n, n)
                }
            };
            if a == 0 || b < a || lines.len() > b - a + 1 {
                return None;
            }
            let short = lines.len() < b - a + 1;
            Some(View {
                path,
                first: a,
                total: (short && ends_clean).then_some(a - 1 + lines.len()),
                lines,
            })
        }
        ("head", 4) if argv[1] == "-n" => {
            let n = argv[2].parse::<usize>().ok()?;
            if lines.len() > n {
                return None;
            }
            Some(View {
                path,
                first: 1,
                total: (lines.len() < n && ends_clean).then_some(lines.len()),
                lines,
            })
        }
        _ => None,
    }
}

/// The first command of a pipeline when it prints numbered lines of one file and the rest
/// only filter lines; with whether the whole file comes out.
fn numbered_source(commands: &[Command]) -> Option<(&Command, bool)> {
    let first = commands.first()?;
    let argv = first.argv();
    let numbered = match first.name() {
        "cat" => argv.get(1) == Some(&"-n") && argv.len() == 3,
        "nl" => {
            argv.len() == 3 && matches!(argv[1], "-ba" | "-b a")
                || argv.len() == 4 && argv[1] == "-b" && argv[2] == "a"
        }
        _ => false,
    };
    if !numbered {
        return None;
    }
    let filters_only = commands[1..].iter().all(|c| {
        let argv = c.argv();
        match c.name() {
            "head" | "tail" => true,
            "sed" => argv.get(1) == Some(&"-n") && argv.len() == 3 && argv[2].ends_with('p'),
            "grep" => !argv
                .iter()
                .skip(1)
                .any(|a| a.starts_with('-') && a.contains(['n', 'o', 'c', 'l', 'A', 'B', 'C'])),
            _ => false,
        }
    });
    filters_only.then_some((first, commands.len() == 1))
}

/// The one file argument of a command (its last word), when it is a plain path.
fn single_file(c: &Command) -> Option<&str> {
    let word = c.words.last()?;
    if word.dynamic || word.text.starts_with('-') || c.words.len() < 2 {
        return None;
    }
    Some(word.text.as_str())
}

/// Every view an observation holds for its step's action.
pub fn views_of(step: &Step, command: Option<&str>, whole_view: bool) -> Vec<View> {
    let mut views = windows(&step.observation);
    views.extend(cat_n_blocks(&step.observation, whole_view));
    if views.is_empty()
        && let Some(command) = command
    {
        let ok = step.exit_code.is_none_or(|c| c == 0) && !step.failed;
        views.extend(shell_views(command, &step.observation, ok));
    }
    views
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swe_agent_window_from_coder_run() {
        let obs = "[File: /django__django/django/http/response.py (558 lines total)]\n(207 more lines above)\n208:    def set_signed_cookie(self, key, value, salt='', **kwargs):\n209:        value = 1\n210:\n(348 more lines below)";
        let v = windows(obs);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].path, "/django__django/django/http/response.py");
        assert_eq!(
            (v[0].first, v[0].lines.len(), v[0].total),
            (208, 3, Some(558))
        );
        assert_eq!(v[0].lines[2], "");
    }

    #[test]
    fn rejected_edit_keeps_only_the_original_window() {
        let obs = "Your proposed edit has introduced new syntax error(s).\nThis is how your edit would have looked if applied\n-------\n[File: /r/a.py (12 lines total)]\n1:bad\n-------\nThis is the original code before your edit\n-------\n[File: /r/a.py (10 lines total)]\n1:good\n2:x\n-------\nYour changes have NOT been applied.";
        let v = windows(obs);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].lines, vec!["good", "x"]);
        assert_eq!(v[0].total, Some(10));
    }

    #[test]
    fn str_replace_editor_view_and_snippet() {
        // From swe-agent's str_replace_anthropic_demo.yaml (empty lines lost their tab).
        let obs = "The file /project/hello.py has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     1→def hello():\n     2→    return 1\n";
        let views = cat_n_blocks(obs, false);
        assert_eq!(views.len(), 1);
        assert_eq!(views[0].path, "/project/hello.py");
        assert_eq!((views[0].first, views[0].total), (1, None));
        let unnamed =
            "Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tx\n";
        assert!(cat_n_blocks(unnamed, false).is_empty(), "no phantom file");
        let obs = "Here's the result of running `cat -n` on /swe-agent-test-repo/src/testpkg/missing_colon.py:\n     1\t#!/usr/bin/env python3\n     2\n     3\n     4\tdef division(a: float, b: float) -> float\n     5\t    return a/b\n(Open file: )";
        let v = cat_n_blocks(obs, true);
        assert_eq!(v.len(), 1);
        assert_eq!(
            v[0].lines,
            vec![
                "#!/usr/bin/env python3",
                "",
                "",
                "def division(a: float, b: float) -> float",
                "    return a/b"
            ]
        );
        assert_eq!(v[0].total, Some(5));
        let snippet = obs.replace("on /swe", "on a snippet of /swe");
        assert_eq!(cat_n_blocks(&snippet, true)[0].total, None);
    }

    #[test]
    fn nl_pipeline_from_mini_swe_agent() {
        let obs = "<returncode>0</returncode>\n<output>\n   240\t    # See x\n   241\t\n   242\t    def close(self):\n</output>";
        let v = shell_views(
            "nl -ba django/http/response.py | sed -n '240,520p'",
            obs,
            true,
        );
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].path.as_str(), v[0].first, v[0].total),
            ("django/http/response.py", 240, None)
        );
        assert_eq!(v[0].lines, vec!["    # See x", "", "    def close(self):"]);
        // Two files listed at once: not attributable.
        assert!(shell_views("nl -ba a.py | head; nl -ba b.py | head", obs, true).is_empty());
    }

    #[test]
    fn plain_cat_and_sed_ranges() {
        let v = shell_views("cat a.py", "x = 1\nprint(x)", true);
        assert_eq!((v[0].first, v[0].total), (1, Some(2)));
        let v = shell_views("sed -n '10,20p' a.py", "a\nb", true);
        assert_eq!((v[0].first, v[0].total), (10, Some(11)));
        assert!(shell_views("cat a.py b.py", "x", true).is_empty());
        assert!(shell_views("cat a.py", "x", false).is_empty());
        assert!(shell_views("cat a.py > b.py", "", true).is_empty());
    }
}
