#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::model::{Role, ToolCall};
use crate::replay::dialect::{Agent, MINI_FORMAT_ERROR};
use crate::replay::executor::Support;

const T0: Duration = Duration::ZERO;

fn context() -> Vec<Message> {
    vec![Message::system("sys"), Message::user("fix the bug")]
}

fn mini(limits: LoopLimits) -> AgentLoop {
    AgentLoop::new(Dialect::new(Agent::MiniSweAgent), limits, context())
}

fn answer(text: &str) -> Event {
    Event::Answered(Answer {
        message: Message::assistant(text),
        usage: Usage::default(),
        duration_s: 0.5,
    })
}

fn costly(text: &str, cost: f64) -> Event {
    Event::Answered(Answer {
        message: Message::assistant(text),
        usage: Usage {
            cost: Some(cost),
            ..Usage::default()
        },
        duration_s: 0.5,
    })
}

fn obs(text: &str) -> Observation {
    Observation {
        text: text.into(),
        exit_code: Some(0),
        timed_out: false,
        is_error: false,
        submitted: None,
        support: Support::Shell,
    }
}

fn sent(instructions: &[Instruction]) -> &[Message] {
    match instructions.last() {
        Some(Instruction::SendRequest(m)) => m,
        other => panic!("expected a request last, got {other:?}"),
    }
}

fn exit(instructions: &[Instruction]) -> &Exit {
    match instructions.last() {
        Some(Instruction::Finish(e)) => e,
        other => panic!("expected the end, got {other:?}"),
    }
}

fn written(instructions: &[Instruction]) -> &LiveStep {
    match instructions.first() {
        Some(Instruction::WriteFork(s)) => s,
        other => panic!("expected a fork write first, got {other:?}"),
    }
}

const GOOD: &str = "THOUGHT: list\n\n```bash\nls\n```";

#[test]
fn start_sends_the_context_unchanged() {
    let mut l = mini(LoopLimits::default());
    let instructions = l.update(Event::Start, T0);
    assert_eq!(instructions, vec![Instruction::SendRequest(context())]);
}

#[test]
fn an_action_is_executed_and_its_observation_goes_back_as_the_agent_words_it() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    let instructions = l.update(answer(GOOD), T0);
    assert_eq!(
        instructions,
        vec![Instruction::Execute(vec![Call {
            id: None,
            action: EnvAction::Shell {
                command: "ls".into()
            }
        }])]
    );
    let instructions = l.update(Event::Executed(vec![obs("<returncode>0</returncode>")]), T0);
    assert_eq!(instructions.len(), 2);
    let step = written(&instructions);
    assert_eq!(step.context, context());
    assert_eq!(step.action, "ls");
    assert_eq!(step.thought, "THOUGHT: list");
    assert_eq!(step.observation, "<returncode>0</returncode>");
    let next = sent(&instructions);
    assert_eq!(next.len(), 4);
    assert_eq!(next[2], Message::assistant(GOOD));
    assert_eq!(next[3], Message::user("<returncode>0</returncode>"));
    assert_eq!(l.steps(), 1);
}

#[test]
fn a_format_error_is_answered_with_the_agents_message_and_the_model_asked_again() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    let instructions = l.update(answer("I think we should look at the code."), T0);
    let step = written(&instructions);
    assert!(step.failed);
    assert!(step.action.starts_with("(format error"));
    let next = sent(&instructions);
    assert_eq!(next.len(), 4);
    assert_eq!(next[3].role, Role::User);
    // mini-swe-agent's own wording, rendered: "found 0 actions".
    let expected_start = MINI_FORMAT_ERROR.split("{{").next().unwrap();
    assert!(next[3].content.starts_with(expected_start));
    assert!(next[3].content.contains("found 0 actions"));
    assert_eq!(l.format_errors(), 1);
    // Two blocks are an error too.
    let instructions = l.update(answer("```bash\nls\n```\n```bash\npwd\n```"), T0);
    assert!(sent(&instructions)[5].content.contains("found 2 actions"));
}

#[test]
fn a_submission_ends_the_run_with_the_patch() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    l.update(answer(GOOD), T0);
    let mut o = obs("diff --git a/x b/x");
    o.submitted = Some("diff --git a/x b/x".into());
    let instructions = l.update(Event::Executed(vec![o]), T0);
    assert!(matches!(instructions[0], Instruction::WriteFork(_)));
    let e = exit(&instructions);
    assert_eq!(e.status, "Submitted");
    assert_eq!(e.submission.as_deref(), Some("diff --git a/x b/x"));
    assert!(l.is_done());
    assert!(
        l.update(answer(GOOD), T0).is_empty(),
        "nothing after the end"
    );
}

#[test]
fn the_step_limit_counts_format_errors_too() {
    let mut l = mini(LoopLimits {
        max_steps: 2,
        ..LoopLimits::default()
    });
    l.update(Event::Start, T0);
    let instructions = l.update(answer("no action"), T0);
    sent(&instructions);
    l.update(answer(GOOD), T0);
    let instructions = l.update(Event::Executed(vec![obs("x")]), T0);
    let e = exit(&instructions);
    assert_eq!(e.status, "LimitsExceeded");
    assert!(matches!(instructions[0], Instruction::WriteFork(_)));
}

#[test]
fn cost_time_and_output_limits_end_the_run() {
    let mut l = mini(LoopLimits {
        max_cost: Some(1.0),
        ..LoopLimits::default()
    });
    l.update(Event::Start, T0);
    l.update(costly("no action", 0.6), T0);
    let instructions = l.update(costly("no action", 0.6), T0);
    assert_eq!(exit(&instructions).status, "CostLimitExceeded");

    let mut l = mini(LoopLimits {
        max_wall: Some(Duration::from_secs(60)),
        ..LoopLimits::default()
    });
    l.update(Event::Start, T0);
    l.update(answer(GOOD), T0);
    let instructions = l.update(Event::Executed(vec![obs("x")]), Duration::from_secs(61));
    assert_eq!(exit(&instructions).status, "TimeLimitExceeded");

    let mut l = mini(LoopLimits {
        max_output: 10,
        ..LoopLimits::default()
    });
    l.update(Event::Start, T0);
    l.update(answer(GOOD), T0);
    let instructions = l.update(Event::Executed(vec![obs("0123456789abc")]), T0);
    assert_eq!(exit(&instructions).status, "OutputLimitExceeded");
}

#[test]
fn a_backend_failure_keeps_the_partial_answer_in_the_fork() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    let instructions = l.update(
        Event::BackendFailed {
            error: "connection dropped".into(),
            partial: Some(Message::assistant("THOUGHT: I wi")),
        },
        T0,
    );
    let step = written(&instructions);
    assert!(step.failed);
    assert_eq!(step.answer.content, "THOUGHT: I wi");
    assert!(step.observation.contains("connection dropped"));
    assert_eq!(exit(&instructions).status, "BackendError");
    // Nothing arrived: nothing to record but the end.
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    let instructions = l.update(
        Event::BackendFailed {
            error: "HTTP 500".into(),
            partial: None,
        },
        T0,
    );
    assert_eq!(instructions.len(), 1);
    assert_eq!(exit(&instructions).status, "BackendError");
}

#[test]
fn cancelling_while_executing_records_the_answer_and_ends() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    l.update(answer(GOOD), T0);
    let instructions = l.update(Event::Cancelled { partial: None }, T0);
    let step = written(&instructions);
    assert_eq!(step.answer.content, GOOD);
    assert_eq!(step.action, "ls");
    assert_eq!(exit(&instructions).status, "Cancelled");
}

#[test]
fn an_environment_failure_ends_the_run() {
    let mut l = mini(LoopLimits::default());
    l.update(Event::Start, T0);
    l.update(answer(GOOD), T0);
    let instructions = l.update(Event::ExecFailed("bash died".into()), T0);
    assert!(written(&instructions).failed);
    assert_eq!(exit(&instructions).status, "EnvironmentError");
}

#[test]
fn tool_call_observations_answer_their_call() {
    let mut l = AgentLoop::new(
        Dialect::new(Agent::Generic),
        LoopLimits::default(),
        context(),
    );
    l.update(Event::Start, T0);
    let mut message = Message::assistant("");
    let mut call = ToolCall::new("bash", r#"{"command":"ls"}"#);
    call.id = Some("call_1".into());
    message.tool_calls = vec![call];
    let instructions = l.update(
        Event::Answered(Answer {
            message,
            usage: Usage::default(),
            duration_s: 0.1,
        }),
        T0,
    );
    assert!(
        matches!(&instructions[0], Instruction::Execute(calls) if calls[0].id.as_deref() == Some("call_1"))
    );
    let instructions = l.update(Event::Executed(vec![obs("a.py")]), T0);
    let reply = sent(&instructions).last().unwrap();
    assert_eq!(reply.role, Role::Tool);
    assert_eq!(reply.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(reply.content, "a.py");
}

#[test]
fn an_unexpected_event_ends_the_run_instead_of_guessing() {
    let mut l = mini(LoopLimits::default());
    let instructions = l.update(Event::Executed(vec![obs("x")]), T0);
    assert_eq!(exit(&instructions).status, "EnvironmentError");
    assert!(exit(&instructions).detail.contains("idle"));
}
