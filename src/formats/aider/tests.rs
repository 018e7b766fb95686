use super::*;
use crate::model::Exactness;

const HISTORY: &str = "\
-*- mode: fundamental -*-

# aider chat started at 2024-08-05 19:33:32

> /usr/bin/aider calc.py  
> Aider v0.47.2-dev  
> Models: claude-3-5-sonnet-20240620 with diff edit format, weak model claude-3-haiku-20240307  
> Added calc.py to the chat.  

#### Fix the division  
#### by zero in calc.py  

I'll guard the division.

> quoting the issue in a reply is fine

calc.py
```python
<<<<<<< SEARCH
def div(a, b):
    return a / b
=======
def div(a, b):
    if b == 0:
        raise ZeroDivisionError(\"b is zero\")
    return a / b
>>>>>>> REPLACE
```

> Tokens: 1,200 sent, 85 received. Cost: $0.0051 message, $0.0051 session.  
> The LLM did not conform to the edit format.  
> ## SearchReplaceNoExactMatch: This SEARCH block failed to match lines in calc.py  

Sorry, here is the right block.

calc.py
```python
<<<<<<< SEARCH
def div(a,b):
=======
def div(a, b):
>>>>>>> REPLACE
```

> Tokens: 1.6k sent, 40 received.
Cost: $0.0030 message, $0.0081 session.  
> Applied edit to calc.py  
> Commit abc1234 fix: Guard division by zero  

#### /run python -m pytest  
> ============ 3 passed ============
more output  

#### /clear  

#### Now add a test  

```bash
python -m pytest tests/
```

> ^C KeyboardInterrupt  

# aider chat started at 2024-08-05 20:00:00

> Aider v0.48.0  
> Model: gpt-4o-mini with whole edit format  
";

fn load(text: &str) -> Vec<Trajectory> {
    parse(Path::new("runs/.aider.chat.history.md"), text.as_bytes()).unwrap()
}

#[test]
fn sessions_are_trajectories_with_banner_facts() {
    let ts = load(HISTORY);
    assert_eq!(ts.len(), 2);
    let t = &ts[0];
    assert_eq!(t.source_index, Some(0));
    assert_eq!(t.instance_id, "2024-08-05 19:33:32");
    assert_eq!(t.model.as_deref(), Some("claude-3-5-sonnet-20240620"));
    assert_eq!(
        t.format_detail.as_deref(),
        Some("0.47.2-dev, diff edit format")
    );
    assert_eq!(
        t.task.as_deref(),
        Some("Fix the division\nby zero in calc.py")
    );
    assert_eq!(t.exit_status.as_deref(), Some("interrupted"));
    assert_eq!(ts[1].model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(ts[1].source_index, Some(1));
    assert!(ts[1].steps.is_empty());
    assert!(ts[1].exit_status.is_none());
}

#[test]
fn a_step_per_reply_with_edits_observation_and_usage() {
    let t = &load(HISTORY)[0];
    assert_eq!(t.steps.len(), 3);
    let first = &t.steps[0];
    assert!(first.thought.starts_with("I'll guard the division."));
    assert!(
        first.thought.contains("> quoting the issue"),
        "{}",
        first.thought
    );
    assert!(!first.thought.contains("SEARCH"));
    assert_eq!(first.tool.as_deref(), Some("edit"));
    assert_eq!(
        first.tool_calls[0].argument("path").as_deref(),
        Some("calc.py")
    );
    assert_eq!(
        first.tool_calls[0].argument("search").as_deref(),
        Some("def div(a, b):\n    return a / b\n")
    );
    assert!(first.failed);
    assert!(first.observation.starts_with("The LLM did not conform"));
    assert!(!first.observation.contains("Tokens:"));
    assert_eq!(first.usage.tokens_in, Some(1200));
    assert_eq!(first.usage.tokens_out, Some(85));
    assert_eq!(first.usage.cost, Some(0.0051));

    let second = &t.steps[1];
    assert!(!second.failed);
    assert_eq!(second.usage.tokens_in, Some(1600));
    assert_eq!(second.usage.cost, Some(0.0030));
    assert_eq!(
        second.observation,
        "Applied edit to calc.py\nCommit abc1234 fix: Guard division by zero"
    );

    let third = &t.steps[2];
    assert_eq!(third.tool.as_deref(), Some("bash"));
    assert_eq!(third.action, "python -m pytest tests/");
    assert_eq!(third.observation, "^C KeyboardInterrupt");
    assert_eq!(t.total_usage().tokens_in, Some(2800));
}

#[test]
fn contexts_are_reconstructed_with_reflections_and_clear() {
    let t = &load(HISTORY)[0];
    let roles = |i: usize| -> Vec<(crate::model::Role, String)> {
        t.steps[i]
            .context_messages(&t.messages)
            .iter()
            .map(|m| (m.role, m.content.lines().next().unwrap_or("").to_string()))
            .collect()
    };
    use crate::model::Role::{Assistant, User};
    let ctx = t.steps[0].context.as_ref().unwrap();
    assert_eq!(ctx.exactness, Exactness::Reconstructed);
    assert_eq!(roles(0), vec![(User, "Fix the division".to_string())]);
    // The edit error was sent back to the model before its second reply.
    assert_eq!(
        roles(1),
        vec![
            (User, "Fix the division".to_string()),
            (Assistant, "I'll guard the division.".to_string()),
            (
                User,
                "The LLM did not conform to the edit format.".to_string()
            ),
        ]
    );
    // `/clear` emptied the history; `/run` never reached the model.
    assert_eq!(roles(2), vec![(User, "Now add a test".to_string())]);
}

#[test]
fn multi_line_output_ends_at_the_marked_line() {
    let t = &load(HISTORY)[0];
    // The `/run` output spans two lines and is not a step's observation.
    assert!(t.steps.iter().all(|s| !s.observation.contains("3 passed")));
    let run = t
        .messages
        .iter()
        .filter(|m| m.content.starts_with("/run"))
        .count();
    assert_eq!(run, 1);
}

#[test]
fn unmarked_files_are_read_by_prefix() {
    // Without the marks a multi-line output cannot be told from a reply, nor a quote in a
    // reply from output: this history has neither.
    let stripped: String = HISTORY
        .lines()
        .filter(|l| {
            !l.starts_with("more output") && !l.starts_with("Cost:") && !l.contains("quoting")
        })
        .map(|l| l.trim_end().to_string() + "\n")
        .collect();
    let ts = load(&stripped);
    assert_eq!(ts.len(), 2);
    assert_eq!(ts[0].steps.len(), 3);
    assert_eq!(ts[0].steps[0].tool_calls.len(), 1);
    assert!(ts[0].steps[0].failed);
    assert_eq!(
        ts[0].task.as_deref(),
        Some("Fix the division\nby zero in calc.py")
    );
}

#[test]
fn text_before_the_first_header_is_a_session_with_a_warning() {
    let text = "#### fix it  \n\nDone, see a.py\n\n# aider chat started at 2024-01-01 00:00:00\n";
    let ts = load(text);
    assert_eq!(ts.len(), 2);
    assert_eq!(ts[0].steps.len(), 1);
    assert_eq!(ts[0].instance_id, "runs#1");
    assert!(ts[0].warnings[0].contains("start is not in the file"));
    assert_eq!(ts[1].instance_id, "2024-01-01 00:00:00");
}

#[test]
fn nothing_aider_like_is_an_error() {
    assert!(parse(Path::new("x.md"), b"").is_err());
    assert!(parse(Path::new("x.md"), b"\n\n  \n").is_err());
    assert!(parse(Path::new("x.md"), &[0xff, 0xfe, b'#']).is_ok());
}

#[test]
fn a_long_session_holds_each_context_as_a_span_not_a_list() {
    // 300 turns with a local command between each, and no /clear: each context grows by
    // two messages. As id lists they would hold 90,000 ids; as spans, two numbers each.
    let mut text = String::from("# aider chat started at 2024-08-05 19:33:32\n\n");
    for n in 0..300 {
        text.push_str(&format!(
            "#### ask {n}  \n\nanswer {n}\n\n> Tokens: 1k sent, 1 received.  \n\n#### /run echo {n}  \n\n> {n}  \n\n"
        ));
    }
    let t = &load(&text)[0];
    assert_eq!(t.steps.len(), 300);
    for (i, step) in t.steps.iter().enumerate() {
        let context = step.context.as_ref().unwrap();
        assert!(
            matches!(context.messages, crate::model::ContextMessages::Span { .. }),
            "step {i}: {context:?}"
        );
        let seen = step.context_messages(&t.messages);
        assert_eq!(seen.len(), 2 * i + 1, "step {i}");
        assert_eq!(seen.last().unwrap().content, format!("ask {i}"));
        assert!(seen.iter().all(|m| !m.content.starts_with("/run")));
    }
    // The local commands stay in the pool, after what the model saw.
    assert_eq!(
        t.messages
            .iter()
            .filter(|m| m.content.starts_with("/run"))
            .count(),
        300
    );
}
