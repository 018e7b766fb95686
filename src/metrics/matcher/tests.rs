use super::*;
use crate::metrics::rule::{Pattern, ToolCondition};
use crate::model::{Format, ToolCall};
use regex::Regex;

fn trajectory(steps: Vec<Step>) -> Trajectory {
    let mut t = Trajectory::new("t.traj", Format::SweAgent);
    t.steps = steps;
    t.number_steps();
    t
}

fn step(action: &str, observation: &str) -> Step {
    Step {
        action: action.into(),
        tool: action.split_whitespace().next().map(String::from),
        observation: observation.into(),
        ..Step::default()
    }
}

fn matcher(rules: Vec<Rule>) -> Matcher {
    let (m, errors) = Matcher::new(rules);
    assert!(errors.is_empty(), "{errors:?}");
    m
}

#[test]
fn literals_count_like_str_matches_per_field() {
    let m = matcher(vec![
        Rule::new("aa", Pattern::literal("aa"), Field::Observation),
        Rule::new("a", Pattern::literal("a"), Field::Observation),
        Rule::new("any_x", Pattern::literal("x"), Field::Any),
        Rule::new("same_text", Pattern::literal("aa"), Field::Observation),
    ]);
    let t = trajectory(vec![step("x", "aaaaa x"), step("ls", "none")]);
    let found = m.scan(&t);
    assert_eq!(found.get(1, 0), "aaaaa x".matches("aa").count() as u32);
    assert_eq!(found.get(1, 1), 5);
    assert_eq!(
        found.get(1, 3),
        2,
        "two rules with the same literal both count"
    );
    // `x` is in the action, the observation and the tool name (the action's first word).
    assert_eq!(found.get(1, 2), 3);
    assert_eq!(found.get(2, 0), 0);
    assert_eq!(found.rules_at(1).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(found.rules_at(2).count(), 0);
}

#[test]
fn overlapping_patterns_on_many_lines_count_like_str_matches() {
    let text =
        "x SyntaxError\nno\nError Error: rror\n\nTraceback (most recent call last):\nErrorError";
    let literals = ["SyntaxError", "Error", "rror", "Error:", "or\nno"];
    let build = |with_newline: bool| {
        let mut rules: Vec<Rule> = literals
            .iter()
            .filter(|l| with_newline || !l.contains('\n'))
            .map(|l| Rule::new(*l, Pattern::literal(*l), Field::Observation))
            .collect();
        rules.push(Rule::new(
            "line_start",
            Pattern::regex(r"^Error\b"),
            Field::Observation,
        ));
        rules.push(Rule::new(
            "traceback",
            Pattern::regex(r"^Traceback \("),
            Field::Observation,
        ));
        matcher(rules)
    };
    for with_newline in [false, true] {
        let m = build(with_newline);
        let found = m.scan(&trajectory(vec![step("x", text)]));
        for (id, rule) in m.rules().iter().enumerate() {
            let want = match &rule.pattern {
                Some(p) if !p.regex => text.matches(p.text.as_str()).count(),
                _ => Regex::new(&format!("(?m){}", rule.pattern.as_ref().unwrap().text))
                    .unwrap()
                    .find_iter(text)
                    .count(),
            };
            assert_eq!(
                found.get(1, id) as usize,
                want,
                "{} (newline pattern: {with_newline})",
                rule.name
            );
        }
    }
}

#[test]
fn regexes_are_line_anchored_and_case_options_work() {
    let m = matcher(vec![
        Rule::new("tb", Pattern::regex(r"^Traceback"), Field::Observation),
        Rule::new(
            "ci",
            Pattern {
                text: "error".into(),
                regex: false,
                ignore_case: true,
            },
            Field::Observation,
        ),
    ]);
    let t = trajectory(vec![step(
        "python x.py",
        "out\nTraceback (most\n  Traceback nested\nValueError: ERROR and Error",
    )]);
    let found = m.scan(&t);
    assert_eq!(found.get(1, 0), 1, "only at a line start");
    assert_eq!(found.get(1, 1), 3);
}

#[test]
fn tool_and_after_tool_call_conditions() {
    let mut tools = Rule::new("edits", Pattern::literal("ok"), Field::Observation);
    tools.tool = Some(ToolCondition::Named(vec!["edit".into()]));
    let mut calls = Rule::new("calls", Pattern::literal("unused"), Field::Observation);
    calls.pattern = None;
    calls.tool = Some(ToolCondition::Any);
    let mut after_call = Rule::new("err", Pattern::literal("Error"), Field::Observation);
    after_call.after_tool_call = true;
    let m = matcher(vec![tools, calls, after_call]);
    let mut parallel = step("", "ok Error");
    parallel.tool_calls = vec![ToolCall::new("edit", "{}"), ToolCall::new("open", "{}")];
    let rejected = Step {
        tool: Some("(FormatError)".into()),
        observation: "Error: no tool call".into(),
        ..Step::default()
    };
    let t = trajectory(vec![
        step("edit 1:2", "ok"),
        step("open x", "ok"),
        parallel,
        rejected,
    ]);
    let found = m.scan(&t);
    assert_eq!(
        (found.get(1, 0), found.get(2, 0), found.get(3, 0)),
        (1, 0, 1)
    );
    assert_eq!(
        (found.get(1, 1), found.get(3, 1), found.get(4, 1)),
        (1, 2, 0)
    );
    assert_eq!((found.get(3, 2), found.get(4, 2)), (1, 0));
}

#[test]
fn unless_drops_the_step() {
    let mut runs = Rule::new("runs", Pattern::regex(r"python -"), Field::Action);
    runs.unless = Some(Pattern::regex(r"write_text\("));
    let mut bad = Rule::new("bad", Pattern::literal("x"), Field::Any);
    bad.unless = Some(Pattern::regex("("));
    let (m, errors) = Matcher::new(vec![runs, bad]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].to_string().contains("invalid regex in `unless`"));
    let t = trajectory(vec![
        step("python - <<EOF\nprint(1)\nEOF", ""),
        step("python - <<EOF\np.write_text(s)\nEOF", ""),
    ]);
    let found = m.scan(&t);
    assert_eq!((found.get(1, 0), found.get(2, 0)), (1, 0));
}

#[test]
fn bad_rules_are_dropped_and_reported_the_rest_run() {
    let mut refers = Rule::new("after_missing", Pattern::literal("x"), Field::Any);
    refers.after = Some("nope".into());
    let mut looped = Rule::new("loop", Pattern::literal("x"), Field::Any);
    looped.repeat = Some(2);
    let mut refers_to_sequence = Rule::new("after_loop", Pattern::literal("x"), Field::Any);
    refers_to_sequence.after = Some("loop".into());
    let (m, errors) = Matcher::new(vec![
        Rule::new("bad", Pattern::regex("(unclosed"), Field::Any),
        Rule::new("empty", Pattern::regex("a*"), Field::Any),
        Rule::new("good", Pattern::literal("x"), Field::Any),
        Rule::new("good", Pattern::literal("y"), Field::Any),
        refers,
        looped,
        refers_to_sequence,
    ]);
    let names: Vec<&str> = m.rules().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, vec!["good", "loop"]);
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors.len(), 5, "{shown:#?}");
    assert!(shown[0].contains("`bad`: invalid regex"), "{}", shown[0]);
    assert!(!shown[0].contains('\n'));
    assert!(shown[1].contains("`empty`") && shown[1].contains("empty string"));
    assert!(shown[2].contains("already defined"));
    assert!(shown[3].contains("`nope`, which is not a defined rule"));
    assert!(shown[4].contains("sequence conditions itself"));
    assert_eq!(m.id("loop"), Some(1));
}
