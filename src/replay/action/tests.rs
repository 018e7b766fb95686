//! Real answers from the shared corpus (quoted), parsed as their agents parse them.

use super::*;
use crate::replay::tools::Generation;

fn dialect(agent: Agent) -> Dialect {
    Dialect::new(agent)
}

fn one(dialect: &Dialect, answer: &Message) -> EnvAction {
    let mut calls = parse_answer(dialect, answer).unwrap();
    assert_eq!(calls.len(), 1, "{calls:?}");
    calls.remove(0).action
}

/// SWE-agent 0.x marshmallow demonstration, step 1's response.
#[test]
fn swe_agent_thought_and_fenced_command() {
    let mut d = dialect(Agent::SweAgent);
    d.generation = Generation::V0;
    d.tool_calls = false;
    let answer = Message::assistant(
        "Let's first start by reproducing the results of the issue. The issue includes some example code for reproduction, which we can use. We'll create a new file called `reproduce.py` and paste the example code into it.\n```\ncreate reproduce.py\n```",
    );
    assert_eq!(
        one(&d, &answer),
        EnvAction::tool("create", json!({"argv": ["reproduce.py"]}))
    );
    let err = parse_answer(&d, &Message::assistant("I think we are done here.")).unwrap_err();
    assert!(
        err.message
            .starts_with("Your output was not formatted correctly.")
    );
    assert!(
        err.message
            .contains("DISCUSSION\nDiscuss here with yourself")
    );
}

/// `function_calling_simple.traj`: one `find_file` call; two calls are refused.
#[test]
fn swe_agent_function_calls() {
    let mut d = dialect(Agent::SweAgent);
    d.tool_calls = true;
    let mut answer = Message::assistant("");
    answer.tool_calls = vec![ToolCall {
        id: Some("call_PbWErNIge3YTrli3fiVvmIid".into()),
        name: "find_file".into(),
        arguments: r#"{"file_name":"missing_colon.py"}"#.into(),
    }];
    let calls = parse_answer(&d, &answer).unwrap();
    assert_eq!(
        calls[0].id.as_deref(),
        Some("call_PbWErNIge3YTrli3fiVvmIid")
    );
    assert_eq!(
        calls[0].action,
        EnvAction::tool("find_file", json!({"argv": ["missing_colon.py"]}))
    );
    answer.tool_calls.push(ToolCall::new("submit", "{}"));
    let err = parse_answer(&d, &answer).unwrap_err();
    assert!(
        err.message
            .starts_with("Your last output included multiple tool calls!")
    );
    let err = parse_answer(&d, &Message::assistant("```\nls\n```")).unwrap_err();
    assert!(
        err.message
            .starts_with("Your last output did not use any tool calls!")
    );
    let mut submit = Message::assistant("");
    submit.tool_calls = vec![ToolCall::new("submit", "{}")];
    assert_eq!(one(&d, &submit), EnvAction::Submit);
}

/// mini-swe-agent's own test trajectory (`mswea_bash_command` blocks) and its format error.
#[test]
fn mini_swe_agent_text_mode() {
    let mut d = dialect(Agent::MiniSweAgent);
    d.action_regex = r"(?s)```mswea_bash_command\s*\n(.*?)\n```".into();
    d.format_error_template =
        "Please always provide EXACTLY ONE action in triple backticks, found {{actions|length}} actions.".into();
    let answer = Message::assistant(
        "Here be some dummy command:\n\n```mswea_bash_command\necho 'hello world'\n```",
    );
    assert_eq!(
        one(&d, &answer),
        EnvAction::Shell {
            command: "echo 'hello world'".into()
        }
    );
    let two = Message::assistant("```mswea_bash_command\nls\n```\n```mswea_bash_command\npwd\n```");
    let err = parse_answer(&d, &two).unwrap_err();
    assert_eq!(
        err.message,
        "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."
    );
    // A plain ```bash block is not an action for this configuration.
    let err = parse_answer(&d, &Message::assistant("```bash\nls\n```")).unwrap_err();
    assert!(err.message.contains("found 0 actions"));
    let d = dialect(Agent::MiniSweAgent);
    let err = parse_answer(&d, &Message::assistant("THOUGHT: done")).unwrap_err();
    assert!(err.message.starts_with("Please always provide EXACTLY ONE action in triple backticks, found 0 actions.\n\nPlease format your action"));
    let submit = Message::assistant(
        "THOUGHT: submit.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached\n```",
    );
    assert_eq!(
        one(&d, &submit),
        EnvAction::Shell {
            command:
                "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
                    .into()
        }
    );
}

/// mini-swe-agent 2.x tool-call mode (gpt-5-mini run): `bash` calls.
#[test]
fn mini_swe_agent_tool_calls() {
    let mut d = dialect(Agent::MiniSweAgent);
    d.tool_calls = true;
    let mut answer = Message::assistant("");
    answer.tool_calls = vec![ToolCall {
        id: Some("call_BJX4cs6lkBlxXVZSsLSa9prd".into()),
        name: "bash".into(),
        arguments: "{\"command\":\"ls -la\"}".into(),
    }];
    assert_eq!(
        one(&d, &answer),
        EnvAction::Shell {
            command: "ls -la".into()
        }
    );
    let err = parse_answer(&d, &Message::assistant("I will look around.")).unwrap_err();
    assert!(err.message.contains("No tool calls found"));
}

/// The Llama agent's pythonic calls, in order, with a broken one rejected.
#[test]
fn llama_pythonic_calls() {
    let d = dialect(Agent::Llama);
    let text = "<thinking>List, then view.</thinking>\n\n[view_file(path=\"/workspace/tinycalc/tinycalc/stats.py\"), list_files(path=\"/workspace/tinycalc\"), view_file(path=\"/workspace/tinycalc/README.md\")]";
    let calls = parse_answer(&d, &Message::assistant(text)).unwrap();
    let names: Vec<String> = calls
        .iter()
        .map(|c| match &c.action {
            EnvAction::Tool { name, args } => format!("{name}:{}", args["path"].as_str().unwrap()),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        names,
        [
            "view_file:/workspace/tinycalc/tinycalc/stats.py",
            "list_files:/workspace/tinycalc",
            "view_file:/workspace/tinycalc/README.md"
        ]
    );
    let finish = parse_answer(&d, &Message::assistant("[finish()]")).unwrap();
    assert_eq!(finish[0].action, EnvAction::tool("finish", json!({})));
    assert!(
        parse_answer(&d, &Message::assistant("Let me think about it."))
            .unwrap()
            .is_empty()
    );
    let broken = parse_answer(
        &d,
        &Message::assistant("[edit_file(path=\"/w/a.py\", new_str=\"unterminated)]"),
    )
    .unwrap();
    assert!(
        matches!(&broken[0].action, EnvAction::Reject { message } if message.starts_with("ERROR - Could not parse tool call"))
    );
}

/// Claude Code, OpenHands and Codex tool names.
#[test]
fn other_agents_tool_calls() {
    let cc = dialect(Agent::ClaudeCode);
    let mut answer = Message::assistant("Running the tests.");
    answer.tool_calls = vec![
        ToolCall::new(
            "Bash",
            r#"{"command":"python -m pytest tests/","description":"Run pytest"}"#,
        ),
        ToolCall::new("Read", r#"{"file_path":"/project/math_utils.py"}"#),
    ];
    let calls = parse_answer(&cc, &answer).unwrap();
    assert_eq!(
        calls[0].action,
        EnvAction::Shell {
            command: "python -m pytest tests/".into()
        }
    );
    assert!(matches!(&calls[1].action, EnvAction::Tool { name, .. } if name == "Read"));
    assert_eq!(
        one(&cc, &Message::assistant("All done: the tests pass.")),
        EnvAction::Submit
    );

    let oh = dialect(Agent::OpenHands);
    let mut answer = Message::assistant("");
    answer.tool_calls = vec![ToolCall::new(
        "execute_bash",
        r#"{"command":"ls -l /workspace/ponylang__ponyc__0.1"}"#,
    )];
    assert_eq!(
        one(&oh, &answer),
        EnvAction::Shell {
            command: "ls -l /workspace/ponylang__ponyc__0.1".into()
        }
    );
    answer.tool_calls = vec![ToolCall::new("finish", "{}")];
    assert_eq!(one(&oh, &answer), EnvAction::Submit);
    assert!(
        parse_answer(&oh, &Message::assistant("What next?"))
            .unwrap_err()
            .message
            .starts_with("Please continue working on the task")
    );

    let codex = dialect(Agent::Generic);
    let mut answer = Message::assistant("");
    answer.tool_calls = vec![ToolCall::new(
        "shell",
        r#"{"command":["bash","-lc","sed -n '1,40p' calc.py"]}"#,
    )];
    assert_eq!(
        one(&codex, &answer),
        EnvAction::Shell {
            command: "sed -n '1,40p' calc.py".into()
        }
    );
}
