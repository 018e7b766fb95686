//! Codex `event_msg` payloads: what the CLI observed (token counts, command exits, patch
//! results, turn ends). Events that repeat a response item (`agent_message`,
//! `agent_reasoning`) are ignored; unknown events are too, there are dozens.

use super::Rollout;
use super::action::duration_of;
use super::record::{Payload, value};
use crate::formats::json::{content_text, str_field, to_text, u64_field};
use crate::formats::tool_steps::CallOutput;
use crate::model::Usage;
use serde_json::Value;

impl Rollout<'_> {
    pub(super) fn event(&mut self, event: &Payload) {
        match event.kind.get().unwrap_or("") {
            "token_count" => self.token_count(event),
            "exec_command_end" => self.exec_end(event),
            "patch_apply_end" => self.patch_end(event),
            "mcp_tool_call_end" => self.mcp_end(event),
            "user_message" if self.event_task.is_none() => {
                self.event_task = event
                    .message
                    .get()
                    .filter(|m| !m.trim().is_empty())
                    .map(String::from);
            }
            "context_compacted" => self.steps.compaction_step(None, None),
            "turn.completed" | "turn_completed" => {
                let usage = tokens(&value(event.usage));
                if !usage.is_empty() {
                    self.turn_usage.add(&usage);
                }
            }
            "task_complete" => self.end("completed".to_string()),
            "turn_aborted" => {
                let reason = event.reason.get().unwrap_or("unknown");
                self.end(format!("aborted: {reason}"));
            }
            "error" => {
                let error = value(event.error);
                let message = event
                    .message
                    .get()
                    .or_else(|| str_field(&error, "message"))
                    .unwrap_or("");
                let first_line = message.lines().next().unwrap_or("");
                self.end(
                    format!("error: {first_line}")
                        .trim_end_matches([':', ' '])
                        .to_string(),
                );
            }
            _ => {}
        }
    }

    /// How the session's last turn ended, in the log's words.
    fn end(&mut self, status: String) {
        self.steps.trajectory.exit_status = Some(status);
    }

    /// Sent after each model response: the response's tokens (`last_token_usage`) and the
    /// session's running total. It also closes the response's step.
    fn token_count(&mut self, event: &Payload) {
        let info = value(event.info);
        if !info.is_object() {
            return;
        }
        self.steps.close(None);
        let previous = self.last_total;
        let total = info
            .get("total_token_usage")
            .map(tokens)
            .filter(|t| !t.is_empty());
        if let Some(total) = total {
            if previous == Some(total) {
                return; // the same report again (rate-limit updates repeat it)
            }
            self.last_total = Some(total);
            // Running totals only grow; a smaller one belongs to another thread (a fork,
            // a subagent) logged into the same file, so the largest is the session's.
            if self
                .total
                .is_none_or(|most| total.tokens_in >= most.tokens_in)
            {
                self.total = Some(total);
            }
        }
        let usage = match (info.get("last_token_usage"), total) {
            (Some(last), _) => tokens(last),
            // Only a running total: this response is what it grew by (as ccusage counts).
            (None, Some(total)) => growth(total, previous),
            // Early rollouts: `{prompt, completion}` per response.
            (None, None) => Usage {
                tokens_in: u64_field(&info, "prompt"),
                tokens_out: u64_field(&info, "completion"),
                ..Usage::default()
            },
        };
        if usage.tokens_in.is_none() && usage.tokens_out.is_none() {
            return;
        }
        self.summed.add(&usage);
        if let Some(step) = self.steps.last_step(None)
            && self.usage_step != Some(step)
        {
            self.usage_step = Some(step);
            self.steps.merge_usage(step, usage);
        }
    }

    fn exec_end(&mut self, event: &Payload) {
        let Some(call) = event.call_id.get().and_then(|id| self.steps.call_at(id)) else {
            return;
        };
        let outcome = CallOutput {
            exit_code: event.exit_code.i64(),
            duration_s: duration_of(&value(event.duration)),
            ..CallOutput::default()
        };
        self.steps.annotate(call, outcome);
        let text = [
            &event.aggregated_output,
            &event.formatted_output,
            &event.stdout,
        ]
        .into_iter()
        .find_map(|s| s.non_empty());
        self.fallback(event, text.map(String::from));
    }

    /// `apply_patch` results: success, and the per-file changes the diff layer wants.
    fn patch_end(&mut self, event: &Payload) {
        let Some(call) = event.call_id.get().and_then(|id| self.steps.call_at(id)) else {
            return;
        };
        let outcome = CallOutput {
            failed: event.success.0 == Some(false),
            data: Some(value(event.changes)).filter(Value::is_object),
            ..CallOutput::default()
        };
        self.steps.annotate(call, outcome);
        let text = [event.stdout.non_empty(), event.stderr.non_empty()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        self.fallback(event, Some(text));
    }

    fn mcp_end(&mut self, event: &Payload) {
        let Some(call) = event.call_id.get().and_then(|id| self.steps.call_at(id)) else {
            return;
        };
        let result = value(event.result);
        let (text, failed) = match (result.get("Ok"), result.get("Err")) {
            (Some(ok), _) => (
                content_text(ok.get("content").unwrap_or(&Value::Null)),
                ok.get("isError").and_then(Value::as_bool) == Some(true),
            ),
            (None, Some(err)) => (to_text(err), true),
            (None, None) => (String::new(), false),
        };
        let outcome = CallOutput {
            failed,
            duration_s: duration_of(&value(event.duration)),
            ..CallOutput::default()
        };
        self.steps.annotate(call, outcome);
        self.fallback(event, Some(text));
    }

    /// An event's copy of a call's output, used only if the log lacks the output item (the
    /// model saw that one; the event may be formatted differently).
    fn fallback(&mut self, event: &Payload, text: Option<String>) {
        if let (Some(id), Some(text)) = (event.call_id.get(), text)
            && !text.is_empty()
        {
            self.event_outputs.push((id.to_string(), text));
        }
    }
}

/// The tokens of a usage object. OpenAI counts cached input inside `input_tokens` and
/// reasoning inside `output_tokens`, so those are the totals, as the log reports them; the
/// cached and reasoning counts are parts of them (ccusage caps cached at the input).
fn tokens(usage: &Value) -> Usage {
    let tokens_in = u64_field(usage, "input_tokens");
    let cached = u64_field(usage, "cached_input_tokens")
        .or_else(|| u64_field(usage, "cache_read_input_tokens"));
    Usage {
        tokens_in,
        tokens_out: u64_field(usage, "output_tokens"),
        tokens_cached: match (cached, tokens_in) {
            (Some(c), Some(i)) => Some(c.min(i)),
            (c, _) => c,
        },
        tokens_reasoning: u64_field(usage, "reasoning_output_tokens"),
        ..Usage::default()
    }
}

/// What a running total grew by since the previous one (all of it for the first).
fn growth(total: Usage, previous: Option<Usage>) -> Usage {
    let less =
        |now: Option<u64>, before: Option<u64>| now.map(|n| n.saturating_sub(before.unwrap_or(0)));
    let before = previous.unwrap_or_default();
    Usage {
        tokens_in: less(total.tokens_in, before.tokens_in),
        tokens_out: less(total.tokens_out, before.tokens_out),
        tokens_cached: less(total.tokens_cached, before.tokens_cached),
        tokens_reasoning: less(total.tokens_reasoning, before.tokens_reasoning),
        ..Usage::default()
    }
}
