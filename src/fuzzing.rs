//! Entry points for the fuzz targets in `fuzz/`: the parsers of text that comes from a log or
//! from a user's file but that live privately in their modules (the shell, sed and patch
//! readers behind the diffs, the replay's template engine). Not an API: hidden from the docs,
//! and each function only drives the parser and discards what it returns.

use crate::model::{Format, Step, Trajectory};

/// The shell parser that reads an agent's command to see which files it changes.
pub fn shell(script: &str) {
    let _ = crate::diff::shell::parse(script);
}

/// The sed reader: `bytes` split into the script and a file's lines (the first line is the
/// script), then the script run over them, with and without a known end.
pub fn sed(text: &str, extended: bool) {
    let (script, rest) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(script) = crate::diff::sed::parse(&[script], extended) else {
        return;
    };
    let lines: Vec<Option<String>> = rest
        .lines()
        .map(|l| (!l.starts_with('?')).then(|| l.to_string()))
        .collect();
    let _ = crate::diff::sed::run(&script, &lines, true);
    let _ = crate::diff::sed::run(&script, &lines, false);
}

/// The unified-diff reader used for patches in logs and in eval results.
pub fn patch(text: &str) {
    let _ = crate::diff::patch::parse_patch(text);
}

/// A rule file: parsed, compiled, and its rules run over one step whose every field is the
/// same text (so the rules' conditions and windows meet arbitrary input too).
pub fn rule_file(text: &str) {
    use crate::metrics::rule_file::{Entry, parse};
    let (entries, _) = parse(text, "fuzz.toml");
    let rules = entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Rule(rule) => Some(*rule),
            Entry::Disable { .. } => None,
        })
        .collect();
    let (matcher, _) = crate::metrics::Matcher::new(rules);
    let step = Step {
        action: text.to_string(),
        observation: text.to_string(),
        thought: text.to_string(),
        ..Step::default()
    };
    let mut trajectory = Trajectory::new("fuzz.traj", Format::SweAgent);
    trajectory.steps = vec![step.clone(), step];
    let _ = matcher.scan(&trajectory);
}

/// A key binding as written in keymap.toml (`ctrl-x`, `shift-tab`, `g g`).
pub fn keys(text: &str) {
    let _ = crate::tui::keymap::key::parse_keys(text);
}

/// The replay's template engine, rendering `template` with a few variables of each kind.
pub fn template(template: &str) {
    let vars = serde_json::json!({
        "output": {"returncode": 1, "output": "line\nline", "exception_info": ""},
        "n": 3,
        "items": ["a", "b"],
    });
    let _ = crate::replay::template::render(template, &vars);
}
