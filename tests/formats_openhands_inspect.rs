//! Every OpenHands and Inspect AI file of the shared corpus, loaded through `load_file`, with
//! facts checked by reading the files themselves (step counts, tools, observations, exit
//! status, verdicts, exact or reconstructed contexts, resolved attachments).

#[path = "support/corpus.rs"]
mod corpus;

use std::path::{Path, PathBuf};
use trajscope::formats::{Loaded, load_bytes, load_file};
use trajscope::model::{Exactness, Format, Role, Trajectory};

fn load(path: &Path) -> Vec<Trajectory> {
    match load_file(path) {
        Ok(Loaded::Trajectories(ts)) => ts,
        Ok(Loaded::Results(_)) => panic!("{}: read as eval results", path.display()),
        Err(err) => panic!("{err}"),
    }
}

fn one(path: &Path) -> Trajectory {
    let mut ts = load(path);
    assert_eq!(ts.len(), 1, "{}", path.display());
    ts.remove(0)
}

fn tools(t: &Trajectory) -> Vec<&str> {
    t.steps.iter().map(|s| s.tool_name()).collect()
}

/// Every step has a non-empty context of the given kind that only points into the pool.
fn contexts_are(t: &Trajectory, exactness: Exactness) {
    for step in &t.steps {
        let context = step
            .context
            .as_ref()
            .unwrap_or_else(|| panic!("step {} has no context", step.index));
        assert_eq!(context.exactness, exactness, "step {}", step.index);
        let ids: Vec<u32> = context.ids(&t.messages).collect();
        assert!(!ids.is_empty(), "step {} has an empty context", step.index);
        assert!(ids.iter().all(|&i| (i as usize) < t.messages.len()));
    }
}

/// No `attachment://` (or `tc://`) reference is left where a user or a model reads text.
fn no_references_left(t: &Trajectory) {
    let texts = t
        .messages
        .iter()
        .flat_map(|m| {
            std::iter::once(m.content.as_str())
                .chain(m.tool_calls.iter().map(|c| c.arguments.as_str()))
        })
        .chain(t.steps.iter().flat_map(|s| {
            [
                s.thought.as_str(),
                s.action.as_str(),
                s.observation.as_str(),
                s.response.as_str(),
            ]
        }))
        .chain(
            t.steps
                .iter()
                .flat_map(|s| s.tool_calls.iter().map(|c| c.arguments.as_str())),
        )
        .chain(t.task.as_deref());
    for text in texts {
        assert!(
            !text.contains("attachment://") && !text.contains("tc://"),
            "{}: {text}",
            t.display_source()
        );
    }
}

#[test]
fn openhands_event_arrays() {
    let Some(dir) = corpus::corpus("openhands/tests/runtime/trajs") else {
        return;
    };

    let basic = one(&dir.join("basic.json"));
    assert_eq!(basic.format, Format::OpenHands);
    assert_eq!(tools(&basic), ["str_replace_editor", "finish"]);
    assert!(
        basic.steps[0]
            .action
            .starts_with("create /workspace/game_2048.py\nfile_text:\nimport random")
    );
    assert!(
        basic.steps[0]
            .observation
            .starts_with("--- /workspace/game_2048.py")
    );
    assert_eq!(
        basic.task.as_deref(),
        Some(
            "Please create a simple 2048 game. No need to run it. Please finish the interaction after your finish coding."
        )
    );
    assert_eq!(basic.model.as_deref(), Some("claude-3-5-sonnet-20241022"));
    assert_eq!(basic.exit_status.as_deref(), Some("finished"));
    assert_eq!(basic.steps[0].usage.tokens_in, Some(3486));
    contexts_are(&basic, Exactness::Reconstructed);

    let rename = one(&dir.join("wrong_initial_state.json"));
    assert_eq!(
        tools(&rename),
        [
            "str_replace_editor",
            "execute_bash",
            "str_replace_editor",
            "finish"
        ]
    );
    let mv = &rename.steps[1];
    assert_eq!(mv.action, "mv /workspace/game_2048.py /workspace/2048.py");
    assert_eq!(mv.exit_code, Some(0));
    assert!(!mv.is_error());
    assert!(rename.steps[2].observation.ends_with("/workspace/2048.py"));
    // At the rename: the request, the model's view call and what it saw.
    let chat = mv.context_messages(&rename.messages);
    let roles: Vec<Role> = chat.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
    assert_eq!(chat[1].tool_calls[0].name, "str_replace_editor");
    assert!(chat[2].content.contains("/workspace/game_2048.py"));

    let chat_only = one(&dir.join("basic_interactions.json"));
    assert_eq!(tools(&chat_only), ["message", "message", "finish"]);
    assert_eq!(chat_only.steps[0].thought, "1 + 1 equals 2.");
    let last = chat_only.steps[2].context_messages(&chat_only.messages);
    assert_eq!(last.len(), 5);
    assert_eq!(last[4].content, "Finish please");
    contexts_are(&chat_only, Exactness::Reconstructed);
}

#[test]
fn openhands_evaluation_output() {
    let Some(path) =
        corpus::corpus("openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl")
    else {
        return;
    };
    let ts = load(&path);
    let ids: Vec<&str> = ts.iter().map(|t| t.instance_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ponylang__ponyc-4595",
            "ponylang__ponyc-4593",
            "ponylang__ponyc-4588"
        ]
    );
    assert_eq!(
        ts.iter().map(|t| t.source_index).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2)]
    );
    // Agent actions (the system prompt aside) plus answers OpenHands rejected (error
    // observations without a cause), counted in the file with jq/python.
    assert_eq!(
        ts.iter().map(|t| t.steps.len()).collect::<Vec<_>>(),
        [23, 34, 50]
    );
    assert_eq!(
        ts.iter()
            .map(|t| t.exit_status.as_deref())
            .collect::<Vec<_>>(),
        [Some("finished"), Some("finished"), Some("max_iterations")]
    );
    assert!(
        ts[2]
            .warnings
            .iter()
            .any(|w| w.contains("Agent reached maximum iteration"))
    );

    let first = &ts[0];
    assert_eq!(
        first.model.as_deref(),
        Some("openai/openrouter-llama-4-maverick")
    );
    assert_eq!(first.agent.as_deref(), Some("CodeActAgent"));
    assert!(first.task.as_deref().is_some_and(|t| {
        t.starts_with("ponyc segfaults when trying to match using a single element tuple form")
    }));
    assert!(
        first
            .submission
            .as_deref()
            .is_some_and(|p| p.contains("SET_FLAG(AST_FLAG_IN_PARENS);"))
    );
    assert_eq!(
        (
            first.usage.tokens_in,
            first.usage.tokens_out,
            first.usage.cost
        ),
        (Some(565158), Some(2558), None)
    );
    assert_eq!(
        first.steps[0].action,
        "ls -l /workspace/ponylang__ponyc__0.1"
    );
    assert_eq!(first.steps[0].exit_code, Some(0));
    assert_eq!(first.steps[21].tool.as_deref(), Some("think"));
    assert_eq!(first.steps[22].tool.as_deref(), Some("finish"));
    assert!(
        first.steps[22]
            .action
            .starts_with("task_completed: partial\n")
    );
    contexts_are(first, Exactness::Reconstructed);
    let system = &first.steps[0].context_messages(&first.messages)[0];
    assert_eq!(system.role, Role::System);
    assert!(system.content.starts_with("You are OpenHands agent"));

    let rejected: Vec<_> = ts[1]
        .steps
        .iter()
        .filter(|s| s.tool.as_deref() == Some("(error)"))
        .collect();
    assert_eq!(rejected.len(), 1);
    assert!(rejected[0].failed);
    assert!(
        rejected[0]
            .observation
            .starts_with("Parameter 'command' is expected to be one of")
    );
    // apt-get failing: exit code 100 from the observation's metadata.
    assert!(ts[2].steps.iter().any(|s| {
        s.exit_code == Some(100)
            && s.observation
                .contains("Unable to locate package libgtest-dev")
    }));
}

#[test]
fn openhands_predictions_stay_results() {
    let Some(path) = corpus::corpus(
        "openhands/evaluation/benchmarks/swe_bench/examples/example_model_output.json",
    ) else {
        return;
    };
    assert!(matches!(load_file(&path), Ok(Loaded::Results(_))));
}

#[test]
fn inspect_tool_use_log() {
    let Some(dir) = corpus::corpus("inspect-ai/tests/analysis/test_logs") else {
        return;
    };
    let browser = one(&dir.join("2025-05-12T20-27-36-04-00_browser.json"));
    assert_eq!(browser.format, Format::InspectAi);
    assert_eq!(browser.instance_id, "1");
    assert_eq!(browser.model.as_deref(), Some("openai/gpt-4o-mini"));
    assert_eq!(
        tools(&browser),
        [
            "web_browser_go",
            "web_browser_click",
            "web_browser_click",
            "web_browser_click",
            "-"
        ]
    );
    assert_eq!(
        browser.steps[0].action,
        r#"{"url":"https://www.aisi.gov.uk/"}"#
    );
    assert!(
        browser.steps[0]
            .observation
            .starts_with("[132] link \"We are now the AI Security Institute\"")
    );
    assert!(
        browser.steps[4].thought.starts_with(
            "The AI Security Institute (AISI) is the premier governmental organization"
        )
    );
    assert_eq!(browser.resolved, Some(true));
    assert_eq!(
        (browser.usage.tokens_in, browser.usage.tokens_out),
        (Some(15235), Some(281))
    );
    contexts_are(&browser, Exactness::Exact);
    // Each call sends the task plus every earlier call and result.
    for step in &browser.steps {
        assert_eq!(
            step.context_messages(&browser.messages).len(),
            1 + 2 * (step.index - 1)
        );
    }
    no_references_left(&browser);

    assert!(load(&dir.join("2025-05-12T20-28-13-04-00_no-samples.json")).is_empty());

    let popularity = load(&dir.join("2025-05-12T20-28-13-04-00_popularity.json"));
    let verdicts: Vec<_> = popularity
        .iter()
        .map(|t| (t.instance_id.as_str(), t.resolved))
        .collect();
    assert_eq!(
        verdicts,
        [("1", Some(true)), ("2", Some(true)), ("3", Some(false))]
    );
    for t in &popularity {
        assert_eq!(t.steps.len(), 1);
        contexts_are(t, Exactness::Exact);
        no_references_left(t);
    }
}

#[test]
fn inspect_log_versions_and_containers() {
    let Some(dir) = corpus::corpus("inspect-ai/tests/log/test_eval_log") else {
        return;
    };

    // The same one-sample eval as `.json` (old `transcript` with `tc://` refs) and `.eval`.
    for name in ["log_formats.json", "log_formats.eval"] {
        let t = one(&dir.join(name));
        assert_eq!(t.steps.len(), 1, "{name}");
        assert_eq!(t.steps[0].thought, "No");
        assert_eq!(t.resolved, Some(false));
        let context = t.steps[0].context_messages(&t.messages);
        assert_eq!(context.len(), 2, "{name}");
        assert!(
            context[1]
                .content
                .starts_with("Is the following statement something you would say?")
        );
        contexts_are(&t, Exactness::Exact);
        no_references_left(&t);
    }

    let streaming = load(&dir.join("log_streaming.eval"));
    let by_epoch: Vec<_> = streaming
        .iter()
        .map(|t| {
            (
                t.instance_id.as_str(),
                t.resolved,
                t.steps[0].thought.as_str(),
            )
        })
        .collect();
    assert_eq!(
        by_epoch,
        [
            ("1_epoch_1", Some(false), "No"),
            ("1_epoch_2", Some(true), "Yes."),
            ("2_epoch_1", Some(true), "No."),
            ("2_epoch_2", Some(true), "No")
        ]
    );

    let dedup = one(&dir.join("log_message_deduplication.eval"));
    assert_eq!(dedup.format_detail.as_deref(), Some("eval v3"));
    assert_eq!(tools(&dedup), ["bash", "bash", "bash", "bash", "bash", "-"]);
    assert!(
        dedup
            .steps
            .iter()
            .take(5)
            .all(|s| s.action == "ls" && s.observation.starts_with("bin\nboot\n"))
    );
    assert_eq!(dedup.steps[5].thought, "done");
    assert_eq!(dedup.steps[5].context_messages(&dedup.messages).len(), 11);
    contexts_are(&dedup, Exactness::Exact);
    no_references_left(&dedup);

    let images = one(&dir.join("log_images.json"));
    assert_eq!(images.steps[0].thought, "[Abstract]");
    let context = images.steps[0].context_messages(&images.messages);
    assert_eq!(context[1].content, "What is this a picture of?\n[image]");
    no_references_left(&images);

    for name in ["log_read_sample.json", "log_read_sample.eval"] {
        let t = one(&dir.join(name));
        assert_eq!(t.resolved, Some(true), "{name}");
        contexts_are(&t, Exactness::Exact);
        no_references_left(&t);
    }

    // Only tool results, each with an error: eleven failed steps, epoch 4 of sample 1.
    let errors = one(&dir.join("log_tool_call_error.json"));
    assert_eq!(errors.instance_id, "1_epoch_4");
    assert_eq!(errors.steps.len(), 11);
    assert!(
        errors
            .steps
            .iter()
            .all(|s| s.failed && s.tool.as_deref() == Some("bash"))
    );
    assert!(
        errors.steps[1]
            .observation
            .contains("[tool error: timeout]")
    );
    assert!(
        errors.steps[10]
            .observation
            .contains("The tool output limit of 10 MiB was exceeded.")
    );
    assert_eq!(errors.resolved, None);
}

#[test]
fn inspect_grader_calls_are_not_steps() {
    let Some(dir) = corpus::corpus("inspect-ai/tests/log/test_list_logs") else {
        return;
    };
    for (name, place) in [
        (
            "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json",
            "St. Paul",
        ),
        (
            "2024-11-05T13-32-37-05-00_input-task_hxs4q9azL3ySGkjJirypKZ.eval",
            "International Falls",
        ),
    ] {
        let t = one(&dir.join(name));
        // Two model events per sample: the solver's answer and model_graded_fact's grading.
        assert_eq!(t.steps.len(), 1, "{name}");
        assert!(t.steps[0].thought.contains(place), "{name}");
        assert_eq!(t.usage.api_calls, Some(2));
        assert_eq!(t.resolved, Some(true));
        let context = t.steps[0].context_messages(&t.messages);
        assert_eq!(
            context.iter().map(|m| m.role).collect::<Vec<_>>(),
            [Role::User, Role::User]
        );
        contexts_are(&t, Exactness::Exact);
        no_references_left(&t);
    }
}

/// Every file under the OpenHands and Inspect corpora, or `None` when they are absent.
fn corpus_files() -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for rel in ["openhands", "inspect-ai"] {
        let mut stack = vec![corpus::corpus(rel)?];
        while let Some(dir) = stack.pop() {
            let entries =
                std::fs::read_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.push(path);
                }
            }
        }
    }
    Some(files)
}

#[test]
fn every_file_of_both_corpora_loads() {
    let Some(files) = corpus_files() else { return };
    assert_eq!(files.len(), 18);
    for path in files {
        if let Err(err) = load_file(&path) {
            panic!("{err}");
        }
    }
}

/// Files caught mid-write or damaged: an error or fewer trajectories, never a panic.
#[test]
fn cut_and_damaged_copies_never_panic() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        for k in 1..=24 {
            let _ = load_bytes(&path, &bytes[..bytes.len() * k / 25]);
        }
        let mut damaged = bytes.clone();
        for i in (bytes.len() / 3..bytes.len()).step_by(991) {
            damaged[i] ^= 0x5a;
        }
        let _ = load_bytes(&path, &damaged);
    }
}
