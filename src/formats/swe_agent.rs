//! SWE-agent `.traj` files: 0.x, 1.0 and 1.1+, and multi-agent histories such as CodeR's.
//!
//! A `.traj` holds `trajectory[]` (one entry per step: thought, action, observation, raw
//! response), `history[]` (every message in order, demonstrations included, tagged with
//! `agent` in multi-agent runs) and `info` (exit status, submission, model stats). What the
//! model saw at a step is stored exactly in 1.1+ (`query`) and 1.0 (`messages`, which also
//! holds the step's own answer); for 0.x it is rebuilt from `history`.

mod demonstration;
mod lazy;
mod plain;
mod sparse;
mod summary;

use super::Detail;
use super::LoadError;
use super::json::{Text, content_text, f64_field, u64_field};
use super::task::task_from_prompt;
use crate::model::{
    Exactness, Format, Message, Role, Step, StepContext, ToolCall, Trajectory, Usage,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::path::Path;

pub use lazy::open_part as open_lazy_part;
pub use sparse::{LongText, Look, Skipped, Wanted, read as read_sparse};
pub use summary::summary as raw_summary;

/// A message's content left undecoded (summaries and tallies read few of them).
type Lazy<'a> = Option<&'a RawValue>;

// `Option<Vec<_>>` rather than a lenient `Value` detour: these arrays are most of the file,
// and decoding them twice (to `Value`, then to structs) costs more than the whole parse.
// `C` is how message contents are read: decoded (`Value`) or left as raw text (`Lazy`).
#[derive(Deserialize)]
#[serde(bound(deserialize = "C: Deserialize<'de> + Default"))]
struct TrajFile<C> {
    #[serde(default)]
    trajectory: Option<Vec<RawStep<C>>>,
    #[serde(default)]
    history: Option<Vec<RawMessage<C>>>,
    #[serde(default)]
    info: Value,
    #[serde(default)]
    replay_config: Value,
}

struct File {
    trajectory: Vec<RawStep>,
    history: Vec<RawMessage>,
    info: Value,
    replay_config: Value,
}

#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "C: Deserialize<'de> + Default"))]
struct RawStep<C = Value> {
    action: Text,
    observation: Text,
    response: Text,
    thought: Text,
    execution_time: Option<Value>,
    /// 1.1+: the exact model input of this step.
    query: Option<Vec<RawMessage<C>>>,
    /// 1.0: the history after this step, its own answer and observation included.
    messages: Option<Vec<RawMessage<C>>>,
}

impl<C> RawStep<C> {
    /// The step's texts, moved out of the parsed file rather than copied (they are most of
    /// its bytes), and the tool its action names. Agent and tool calls come from `history`.
    fn take_step(&mut self) -> Step {
        let mut step = Step {
            thought: std::mem::take(&mut self.thought.0),
            action: std::mem::take(&mut self.action.0),
            observation: std::mem::take(&mut self.observation.0),
            response: std::mem::take(&mut self.response.0),
            duration_s: self.execution_time.as_ref().and_then(super::json::as_f64),
            ..Step::default()
        };
        step.tool = tool_of(&step);
        step
    }
}

#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "C: Deserialize<'de> + Default"))]
struct RawMessage<C = Value> {
    role: Text,
    content: C,
    agent: Option<String>,
    is_demo: Option<bool>,
    action: Option<Text>,
    thought: Option<Text>,
    tool_calls: Value,
    tool_call_ids: Value,
}

pub fn parse(path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    let raw: TrajFile<Value> =
        serde_json::from_slice(bytes).map_err(|err| LoadError::json(path, &err, 0))?;
    build(
        path,
        File {
            trajectory: raw.trajectory.unwrap_or_default(),
            history: raw.history.unwrap_or_default(),
            info: raw.info,
            replay_config: raw.replay_config,
        },
    )
}

/// Like [`parse`] at `detail`. [`Detail::Steps`] skips decoding what only the messages the
/// model saw need: the contents of `history` (but for the answers steps are matched with)
/// and the exact contexts (`query`, `messages`), most of a big file's bytes. The steps, and
/// all a summary or a tally reads, are the same; the message pool and contexts are empty.
/// Whether a text file's start is a SWE-agent demonstration (YAML).
pub fn is_demonstration(head: &str) -> bool {
    demonstration::looks_like(head)
}

pub fn parse_with(path: &Path, bytes: &[u8], detail: Detail) -> Result<Vec<Trajectory>, LoadError> {
    if let Some(json) = demonstration::to_json(path, bytes)? {
        let mut trajectories = parse(path, &json)?;
        for t in &mut trajectories {
            t.format_detail = Some(match t.format_detail.take() {
                Some(detail) => format!("{detail} demonstration (YAML)"),
                None => "demonstration (YAML)".to_string(),
            });
        }
        return Ok(trajectories);
    }
    if detail == Detail::Full {
        return parse(path, bytes);
    }
    // Errors and history-only files (whose steps are made of message contents) take the
    // full parse, which words the error and has the contents.
    let Ok(raw) = serde_json::from_slice::<TrajFile<Lazy>>(bytes) else {
        return parse(path, bytes);
    };
    if raw.trajectory.as_ref().is_none_or(Vec::is_empty) {
        return parse(path, bytes);
    }
    let history: Vec<RawMessage> = raw
        .history
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            let answer = m.role.0 == "assistant" && m.is_demo != Some(true);
            let content = m.content.filter(|_| answer);
            let content = content
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or_default();
            with_content(m, content)
        })
        .collect();
    // Only whether a step has an exact context tells the format's version apart.
    let present = |list: Option<Vec<RawMessage<Lazy>>>| list.map(|_| Vec::new());
    let trajectory = raw
        .trajectory
        .unwrap_or_default()
        .into_iter()
        .map(|step| RawStep {
            action: step.action,
            observation: step.observation,
            response: step.response,
            thought: step.thought,
            execution_time: step.execution_time,
            query: present(step.query),
            messages: present(step.messages),
        })
        .collect();
    build(
        path,
        File {
            trajectory,
            history,
            info: raw.info,
            replay_config: raw.replay_config,
        },
    )
}

fn with_content<C>(m: RawMessage<C>, content: Value) -> RawMessage {
    RawMessage {
        role: m.role,
        content,
        agent: m.agent,
        is_demo: m.is_demo,
        action: m.action,
        thought: m.thought,
        tool_calls: m.tool_calls,
        tool_call_ids: m.tool_call_ids,
    }
}

fn build(path: &Path, mut file: File) -> Result<Vec<Trajectory>, LoadError> {
    if file.trajectory.is_empty() && file.history.is_empty() {
        return Err(LoadError::invalid(
            path,
            "SWE-agent trajectory with neither `trajectory` nor `history` steps",
        ));
    }
    let mut trajectory = Trajectory::new(path, Format::SweAgent);
    read_info(&mut trajectory, &file.info);
    trajectory.model = model_name(&file.replay_config);

    // The pool starts with the history, so that reconstructed contexts index into it. Its
    // contents move into the pool: below, `trajectory.messages[i]` stands for the content of
    // `history[i]`, so that a big file's history is held once, not twice.
    for message in &mut file.history {
        let content = std::mem::take(&mut message.content);
        trajectory.push_message(to_message_with(message, content));
    }
    let pool = &trajectory.messages;
    trajectory.task = file
        .history
        .iter()
        .zip(pool)
        .find(|(m, _)| m.role.0 == "user" && m.is_demo != Some(true))
        .map(|(_, m)| task_from_prompt(&m.content));

    let answers: Vec<usize> = file
        .history
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role.0 == "assistant" && m.is_demo != Some(true))
        .map(|(i, _)| i)
        .collect();

    let has_exact = file
        .trajectory
        .iter()
        .any(|s| s.query.is_some() || s.messages.is_some());
    trajectory.format_detail = Some(
        if file.trajectory.iter().any(|s| s.query.is_some()) {
            "1.1+"
        } else if has_exact {
            "1.0"
        } else if file.trajectory.is_empty() {
            "history only"
        } else {
            "0.x"
        }
        .to_string(),
    );

    if file.trajectory.is_empty() {
        // Demonstrations such as `function_calling_simple.traj` keep only the history.
        steps_from_history(&mut trajectory, &file.history, &answers);
    } else {
        let mut previous_context: (&[RawMessage], Vec<u32>) = (&[], Vec::new());
        let mut next_answer = 0;
        let mut unmatched = 0;
        for raw in &mut file.trajectory {
            let matched = match_answer(
                &file.history,
                &trajectory.messages,
                &answers,
                next_answer,
                &raw.action.0,
            );
            match matched {
                Some(k) => next_answer = k + 1,
                None => unmatched += 1,
            }
            let answer = matched.map(|k| &file.history[answers[k]]);
            // The step's texts move out of the parsed file rather than being copied: they
            // are most of its bytes.
            let mut step = raw.take_step();
            if let Some(answer) = answer {
                step.agent = answer.agent.clone();
                step.tool_calls = tool_calls(&answer.tool_calls);
                step.tool = tool_of(&step);
            }
            let raw: &RawStep = raw;
            step.context = if let Some(query) = &raw.query {
                Some(intern_context(
                    &mut trajectory,
                    &mut previous_context,
                    query,
                ))
            } else if let Some(messages) = &raw.messages {
                let input = strip_own_answer(messages);
                Some(intern_context(
                    &mut trajectory,
                    &mut previous_context,
                    input,
                ))
            } else {
                let cut = match matched {
                    Some(k) => answers[k],
                    None => answers
                        .get(next_answer)
                        .copied()
                        .unwrap_or(file.history.len()),
                };
                Some(history_context(cut, step.agent.as_deref()))
            };
            trajectory.steps.push(step);
        }
        if unmatched > 0 && !answers.is_empty() && !has_exact {
            trajectory.warnings.push(format!(
                "{unmatched} of {} steps have no matching answer in `history`; their agent and context are approximate",
                trajectory.steps.len()
            ));
        }
    }
    Ok(vec![trajectory])
}

/// The index (into `answers`) of the history answer that produced a step with `action`,
/// looking a few answers ahead: runs retry, and some steps (an autosubmit) have no answer.
/// `pool[i]` holds the content of `history[i]`.
fn match_answer(
    history: &[RawMessage],
    pool: &[Message],
    answers: &[usize],
    from: usize,
    action: &str,
) -> Option<usize> {
    let wanted = action.trim();
    (from..answers.len().min(from + 4)).find(|&k| {
        let message = &history[answers[k]];
        let logged = message.action.as_ref().map(|a| a.0.trim()).unwrap_or("");
        logged == wanted
            || (logged.is_empty()
                && pool
                    .get(answers[k])
                    .is_some_and(|m| m.content.contains(wanted)))
    })
}

/// 1.0 stores the history *after* the step; the model's input ends before its last answer.
fn strip_own_answer(messages: &[RawMessage]) -> &[RawMessage] {
    match messages.iter().rposition(|m| m.role.0 == "assistant") {
        Some(i) => &messages[..i],
        None => messages,
    }
}

/// Adds an exact context to the pool, reusing the previous step's messages where they are
/// unchanged: contexts grow by a message or two per step, so this keeps memory linear.
fn intern_context<'a>(
    trajectory: &mut Trajectory,
    previous: &mut (&'a [RawMessage], Vec<u32>),
    messages: &'a [RawMessage],
) -> StepContext {
    let (old_messages, old_ids) = &*previous;
    let ids: Vec<u32> = messages
        .iter()
        .enumerate()
        .map(|(i, raw)| match (old_messages.get(i), old_ids.get(i)) {
            (Some(old), Some(&id)) if same_message(old, raw) => id,
            _ => trajectory.push_message(to_message(raw)),
        })
        .collect();
    *previous = (messages, ids.clone());
    StepContext::list(Exactness::Exact, ids)
}

fn same_message(a: &RawMessage, b: &RawMessage) -> bool {
    a.role == b.role && a.content == b.content && a.tool_calls == b.tool_calls
}

/// What the model saw before history message `cut`: the messages of the same agent (all of
/// them in single-agent runs). Reconstructed: history processors are not re-applied. The
/// pool starts with the history, so this is a prefix of the pool.
fn history_context(cut: usize, agent: Option<&str>) -> StepContext {
    StepContext::agent_prefix(Exactness::Reconstructed, cut, agent.map(String::from))
}

/// Steps for a file without `trajectory[]`: each non-demo answer and the tool or user
/// messages that follow it. `trajectory.messages[i]` holds the content of `history[i]`.
fn steps_from_history(trajectory: &mut Trajectory, history: &[RawMessage], answers: &[usize]) {
    let pool = &trajectory.messages;
    let content = |i: usize| pool.get(i).map_or("", |m| m.content.as_str());
    let mut steps = Vec::with_capacity(answers.len());
    for (k, &i) in answers.iter().enumerate() {
        let message = &history[i];
        let end = answers.get(k + 1).copied().unwrap_or(history.len());
        let observation = (i + 1..end)
            .filter(|&j| history[j].role.0 != "assistant")
            .map(content)
            .collect::<Vec<_>>()
            .join("\n");
        let mut step = Step {
            thought: message
                .thought
                .as_ref()
                .map(|t| t.0.clone())
                .unwrap_or_default(),
            action: message
                .action
                .as_ref()
                .map(|a| a.0.clone())
                .unwrap_or_default(),
            response: content(i).to_string(),
            observation,
            agent: message.agent.clone(),
            tool_calls: tool_calls(&message.tool_calls),
            context: Some(history_context(i, message.agent.as_deref())),
            ..Step::default()
        };
        step.tool = tool_of(&step);
        steps.push(step);
    }
    trajectory.steps.extend(steps);
}

fn to_message(raw: &RawMessage) -> Message {
    to_message_with(raw, raw.content.clone())
}

/// A message from `raw` with `content` in place of its own (moved out of it).
fn to_message_with(raw: &RawMessage, content: Value) -> Message {
    let role = Role::parse(&raw.role.0).unwrap_or(Role::User);
    let text = match content {
        Value::String(text) => text,
        other => content_text(&other),
    };
    let mut message = Message::new(role, text).with_agent(raw.agent.clone());
    message.tool_calls = tool_calls(&raw.tool_calls);
    message.tool_call_id = match &raw.tool_call_ids {
        Value::Array(ids) => ids.first().and_then(Value::as_str).map(String::from),
        Value::String(s) => Some(s.clone()),
        _ => None,
    };
    message
}

/// OpenAI-style `tool_calls`: `[{id, function: {name, arguments}}]`.
pub(crate) fn tool_calls(value: &Value) -> Vec<ToolCall> {
    let Some(calls) = value.as_array() else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(|call| {
            let function = call.get("function").unwrap_or(call);
            let name = function.get("name")?.as_str()?.to_string();
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            Some(ToolCall {
                id: call.get("id").and_then(Value::as_str).map(String::from),
                name,
                arguments,
            })
        })
        .collect()
}

/// The tool a step used: the called function, else the command's first word (`open`,
/// `edit`, `python`, …), which is how SWE-agent names its commands.
fn tool_of(step: &Step) -> Option<String> {
    if let Some(call) = step.tool_calls.first() {
        return Some(call.name.clone());
    }
    command_name(&step.action)
}

/// The first word of a command line, without a leading path (`/usr/bin/python` → `python`).
pub(crate) fn command_name(action: &str) -> Option<String> {
    let word = action.split_whitespace().next()?;
    let word = word.rsplit('/').next().unwrap_or(word);
    (!word.is_empty()).then(|| word.to_string())
}

fn read_info(trajectory: &mut Trajectory, info: &Value) {
    read_exit_and_submission(trajectory, info);
    if let Some(stats) = info.get("model_stats") {
        trajectory.usage = model_stats(stats);
    }
}

/// `model_stats` is a JSON object, or (in some 0.x files) a Python dict printed as a string.
/// The exit status and the submitted patch of an `info` object, as SWE-agent and
/// mini-swe-agent both write it (an empty submission is none).
pub(super) fn read_exit_and_submission(trajectory: &mut Trajectory, info: &Value) {
    trajectory.exit_status = info
        .get("exit_status")
        .and_then(Value::as_str)
        .map(String::from);
    trajectory.submission = info
        .get("submission")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .map(String::from);
}

fn model_stats(stats: &Value) -> Usage {
    let parsed;
    let stats = match stats {
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(&s.replace('\'', "\"")).unwrap_or_default();
            &parsed
        }
        other => other,
    };
    Usage {
        cost: f64_field(stats, "instance_cost"),
        tokens_in: u64_field(stats, "tokens_sent"),
        tokens_out: u64_field(stats, "tokens_received"),
        api_calls: u64_field(stats, "api_calls"),
        ..Usage::default()
    }
}

/// 1.0 keeps its config in `replay_config` (an object, or the same as a JSON string).
fn model_name(replay_config: &Value) -> Option<String> {
    let parsed;
    let config = match replay_config {
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s).ok()?;
            &parsed
        }
        other => other,
    };
    let model = config.get("agent")?.get("model")?;
    model
        .get("name")
        .or_else(|| model.get("model_name"))
        .and_then(Value::as_str)
        .filter(|name| !name.is_empty() && *name != "replay")
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ContextMessages;
    use serde_json::json;

    fn load(value: Value) -> Trajectory {
        let bytes = serde_json::to_vec(&value).unwrap();
        let mut ts = parse(Path::new("x/inst-1.traj"), &bytes).unwrap();
        assert_eq!(ts.len(), 1);
        let mut t = ts.remove(0);
        t.number_steps();
        t
    }

    #[test]
    fn v0_steps_take_agent_and_context_from_history() {
        let t = load(json!({
            "environment": "swe_main",
            "trajectory": [
                {"action": "ls\n", "observation": "a.py", "response": "r1", "thought": "look", "state": "{}"},
                {"action": "python a.py\n", "observation": "  File \"a.py\"\nSyntaxError: bad", "response": "r2", "thought": "run"}
            ],
            "history": [
                {"role": "system", "content": "SYS", "agent": "Reproducer"},
                {"role": "user", "content": "ISSUE:\nIt breaks\n\nINSTRUCTIONS:\nfix", "agent": "Reproducer"},
                {"role": "assistant", "content": "r1", "action": "ls\n", "thought": "look", "agent": "Reproducer"},
                {"role": "user", "content": "a.py", "agent": "Reproducer"},
                {"role": "assistant", "content": "r2", "action": "python a.py\n", "thought": "run", "agent": "Reproducer"}
            ],
            "info": {"exit_status": "submitted", "submission": "diff", "model_stats": {"instance_cost": 0.5, "tokens_sent": 10, "tokens_received": 2, "api_calls": 2}}
        }));
        assert_eq!(t.instance_id, "inst-1");
        assert_eq!(t.format_detail.as_deref(), Some("0.x"));
        assert_eq!(t.task.as_deref(), Some("It breaks"));
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.steps[1].tool.as_deref(), Some("python"));
        assert!(t.steps[1].is_error());
        assert_eq!(t.steps[0].agent.as_deref(), Some("Reproducer"));
        let ctx = t.steps[1].context.as_ref().unwrap();
        assert_eq!(ctx.exactness, Exactness::Reconstructed);
        let roles: Vec<Role> = t.steps[1]
            .context_messages(&t.messages)
            .iter()
            .map(|m| m.role)
            .collect();
        assert_eq!(
            roles,
            vec![Role::System, Role::User, Role::Assistant, Role::User]
        );
        assert_eq!(t.usage.cost, Some(0.5));
        assert_eq!(t.exit_status.as_deref(), Some("submitted"));
    }

    #[test]
    fn v11_query_is_the_exact_context_and_is_shared() {
        let sys = json!({"role": "system", "content": "SYS"});
        let user = json!({"role": "user", "content": [{"type": "text", "text": "do it"}]});
        let a1 = json!({"role": "assistant", "content": "ls", "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}}]});
        let o1 = json!({"role": "tool", "content": "a.py", "tool_call_ids": ["c1"]});
        let t = load(json!({
            "trajectory": [
                {"action": "ls", "observation": "a.py", "response": "", "thought": "", "query": [sys, user]},
                {"action": "cat a.py", "observation": "x", "response": "", "thought": "", "query": [sys, user, a1, o1]}
            ],
            "history": [],
            "info": {"exit_status": "submitted"}
        }));
        assert_eq!(t.format_detail.as_deref(), Some("1.1+"));
        let c1 = t.steps[0].context.as_ref().unwrap();
        let c2 = t.steps[1].context.as_ref().unwrap();
        assert_eq!(c1.exactness, Exactness::Exact);
        let (ContextMessages::List(ids1), ContextMessages::List(ids2)) =
            (&c1.messages, &c2.messages)
        else {
            panic!("exact contexts are lists");
        };
        assert_eq!(ids2[..2], ids1[..]);
        assert_eq!(t.messages.len(), 4, "shared prefix stored once");
        let ctx = t.steps[1].context_messages(&t.messages);
        assert_eq!(ctx[1].content, "do it");
        assert_eq!(ctx[2].tool_calls[0].name, "bash");
        assert_eq!(ctx[3].tool_call_id.as_deref(), Some("c1"));
    }

    #[test]
    fn v10_messages_drop_the_steps_own_answer() {
        let t = load(json!({
            "trajectory": [{"action": "ls", "observation": "o", "response": "", "thought": "",
                "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
                             {"role": "assistant", "content": "ls"}, {"role": "tool", "content": "o"}]}],
            "history": [],
            "info": {}
        }));
        let ctx = t.steps[0].context_messages(&t.messages);
        assert_eq!(ctx.len(), 2);
        assert_eq!(t.format_detail.as_deref(), Some("1.0"));
    }

    #[test]
    fn model_stats_as_python_dict_string() {
        let usage = model_stats(&json!(
            "{'instance_cost': 0.25, 'tokens_sent': 7, 'tokens_received': 3, 'api_calls': 1}"
        ));
        assert_eq!(usage.cost, Some(0.25));
        assert_eq!(usage.tokens_in, Some(7));
    }

    #[test]
    fn history_only_demonstration() {
        let t = load(json!({"history": [
            {"role": "system", "content": "S", "agent": "main"},
            {"role": "user", "content": "task", "agent": "main"},
            {"role": "assistant", "content": "think", "thought": "think", "action": "ls", "agent": "main",
             "tool_calls": [{"function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}, "id": "1"}]},
            {"role": "tool", "content": "out", "agent": "main"}
        ]}));
        assert_eq!(t.steps.len(), 1);
        assert_eq!(t.steps[0].observation, "out");
        assert_eq!(t.steps[0].tool.as_deref(), Some("bash"));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(parse(Path::new("a.traj"), b"{\"trajectory\": 5}").is_err());
        assert!(parse(Path::new("a.traj"), b"{\"trajectory\": [").is_err());
    }
}
