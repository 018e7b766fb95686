//! The Aider loader on a real 4 MB transcript (Aider's own development history, 1133
//! sessions): counts checked against the text itself, and facts read off single sessions.

#[path = "support/corpus.rs"]
mod corpus;

use trajscope::formats::{Loaded, load_file};
use trajscope::model::{Exactness, Format, Trajectory};

fn history() -> Option<(String, Vec<Trajectory>)> {
    let path = corpus::corpus("aider/Aider-AI__aider/tests/fixtures/chat-history.md")?;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
    let ts = match load_file(&path) {
        Ok(Loaded::Trajectories(ts)) => ts,
        Ok(Loaded::Results(_)) => panic!("{} read as eval results", path.display()),
        Err(err) => panic!("{err}"),
    };
    Some((text, ts))
}

fn session<'a>(ts: &'a [Trajectory], started: &str) -> &'a Trajectory {
    ts.iter()
        .find(|t| t.instance_id == started)
        .unwrap_or_else(|| panic!("no session started at {started}"))
}

#[test]
fn every_session_and_every_edit_block_is_read() {
    let Some((text, ts)) = history() else { return };
    let headers = text
        .lines()
        .filter(|l| l.starts_with("# aider chat started at"))
        .count();
    // The fixture starts mid-session (cut from a longer history): that fragment comes first.
    assert_eq!(ts.len(), headers + 1);
    assert!(ts[0].warnings[0].contains("start is not in the file"));
    assert!(ts.iter().all(|t| t.format == Format::Aider));
    let indices: Vec<usize> = ts.iter().filter_map(|t| t.source_index).collect();
    assert_eq!(indices, (0..ts.len()).collect::<Vec<_>>());

    // Every SEARCH marker written by the model (Aider echoes failed ones in `> ` lines, which
    // are not edits) is one edit call, whatever the fence or session around it.
    let markers = text.lines().filter(|l| *l == "<<<<<<< SEARCH").count();
    let edits = ts
        .iter()
        .flat_map(|t| &t.steps)
        .flat_map(|s| &s.tool_calls)
        .filter(|c| c.name == "edit")
        .count();
    assert_eq!(edits, markers);

    // Every token count Aider printed belongs to exactly one model call (step).
    let token_lines = text.lines().filter(|l| l.starts_with("> Tokens: ")).count() as u64;
    let calls: u64 = ts
        .iter()
        .flat_map(|t| &t.steps)
        .filter_map(|s| s.usage.api_calls)
        .sum();
    assert_eq!(calls, token_lines);
    let counted_twice = ts
        .iter()
        .flat_map(|t| &t.steps)
        .flat_map(|s| s.observation.lines())
        .any(|l| l.starts_with("Tokens: "));
    assert!(!counted_twice);
}

#[test]
fn a_session_read_as_a_person_would() {
    let Some((_, ts)) = history() else { return };
    let t = session(&ts, "2024-08-05 19:33:32");
    assert_eq!(t.source_index, Some(2));
    assert_eq!(t.model.as_deref(), Some("claude-3-5-sonnet-20240620"));
    assert_eq!(
        t.format_detail.as_deref(),
        Some("0.47.2-dev, diff edit format")
    );
    assert_eq!(
        t.task.as_deref(),
        Some("Use the Spinner instead of the inlined custom spinner")
    );
    assert_eq!(t.steps.len(), 1);
    let step = &t.steps[0];
    assert_eq!(step.tool.as_deref(), Some("edit"));
    assert_eq!(step.tool_calls.len(), 1);
    let edit = &step.tool_calls[0];
    assert_eq!(edit.argument("path").as_deref(), Some("aider/utils.py"));
    assert!(
        edit.argument("search")
            .unwrap()
            .starts_with("def run_install(cmd):\n")
    );
    assert!(
        edit.argument("replace")
            .unwrap()
            .contains("spinner = Spinner(\"Installing...\")")
    );
    assert!(
        step.thought
            .starts_with("Certainly! I'll modify the `run_install` function")
    );
    assert!(!step.thought.contains("<<<<<<<"));
    assert!(
        step.observation
            .starts_with("Applied edit to aider/utils.py\nCommit fd43cd4 feat:")
    );
    assert_eq!(step.usage.tokens_in, Some(5244));
    assert_eq!(step.usage.tokens_out, Some(604));
    assert_eq!(step.usage.cost, Some(0.02));
    let context = step.context.as_ref().unwrap();
    assert_eq!(context.exactness, Exactness::Reconstructed);
    assert_eq!(step.context_messages(&t.messages).len(), 1);
}

#[test]
fn a_whole_format_session_with_an_edit_format_error() {
    let Some((_, ts)) = history() else { return };
    let t = session(&ts, "2024-08-19 16:20:02");
    assert_eq!(t.model.as_deref(), Some("gpt-4o-mini"));
    assert!(
        t.format_detail
            .as_deref()
            .unwrap()
            .ends_with("whole edit format")
    );
    assert_eq!(t.exit_status.as_deref(), Some("interrupted"));
    assert_eq!(t.steps.len(), 2);
    let first = &t.steps[0];
    assert!(first.failed);
    assert!(
        first
            .observation
            .starts_with("The LLM did not conform to the edit format.")
    );
    assert_eq!(
        first.action,
        "pip install pandas\n\npip install --upgrade pandas"
    );
    let second = &t.steps[1];
    assert_eq!(second.tool.as_deref(), Some("write"));
    assert_eq!(
        second.tool_calls[0].argument("path").as_deref(),
        Some("path/to/install_pandas_instructions.txt")
    );
    // The error was sent back to the model: its second reply saw it.
    let seen: Vec<String> = second
        .context_messages(&t.messages)
        .iter()
        .map(|m| m.content.lines().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        seen.last().map(String::as_str),
        Some("The LLM did not conform to the edit format.")
    );
}

#[test]
fn a_failed_api_call_is_a_failed_step() {
    let Some((_, ts)) = history() else { return };
    let t = session(&ts, "2024-08-14 06:05:26");
    assert_eq!(t.model.as_deref(), Some("openai/gpt-4o-2024-08-08"));
    assert_eq!(t.steps.len(), 1);
    let step = &t.steps[0];
    assert!(step.failed);
    assert!(step.thought.is_empty());
    assert!(
        step.observation
            .starts_with("Error during API call: litellm.NotFoundError")
    );
    assert_eq!(step.usage.tokens_in, Some(2431));
    assert_eq!(step.usage.tokens_out, Some(0));
}
