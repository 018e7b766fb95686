//! The slim steps and message pool of a lazily opened file, held packed: each one written as
//! compact JSON into shared chunks of bytes and parsed back when a step is shown or walked.
//!
//! Held as values, a slim step cost its 448-byte struct, a dozen small allocations and a
//! `serde_json::Value` tree for its tool results; a pool message 128 bytes and four more.
//! Packed, each is its text and 12 bytes of index (a 158 MB Claude Code session: about 45 MB
//! of live heap held as values). Parsing one back is cheap next to reading its long strings
//! back from the file, which every shown step does anyway.
//!
//! What is not left to JSON: a step's floats (its cost and duration), kept beside the text
//! so that they come back bit for bit; a message's role and agent, kept beside it because a
//! context needs those of every message of the pool (a prefix of one agent's messages).

use crate::model::{Message, Role, Step, Usage};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Bytes per chunk: under the allocator's threshold for a mapping of its own, so that a
/// chunk can take the place of the freed values it was packed from.
const CHUNK: usize = 4 << 10;

/// Values written one after the other into chunks; one value never spans two chunks (a
/// bigger one gets a chunk of its own).
#[derive(Default)]
struct Packed {
    chunks: Vec<Vec<u8>>,
    /// Per value: its chunk, start and length.
    at: Vec<(u32, u32, u32)>,
}

impl Packed {
    fn push(&mut self, value: &impl Serialize) -> Result<(), String> {
        let text = serde_json::to_vec(value).map_err(|e| e.to_string())?;
        let fits = self
            .chunks
            .last()
            .is_some_and(|c| c.capacity() - c.len() >= text.len());
        if !fits {
            self.chunks.push(Vec::with_capacity(CHUNK.max(text.len())));
        }
        let chunk = self.chunks.len() - 1;
        let bytes = &mut self.chunks[chunk];
        let start = bytes.len();
        bytes.extend_from_slice(&text);
        let narrow = |n: usize| u32::try_from(n).map_err(|_| "a value over 4 GB".to_string());
        self.at
            .push((narrow(chunk)?, narrow(start)?, narrow(text.len())?));
        Ok(())
    }

    fn get<T: DeserializeOwned>(&self, index: usize) -> Option<Result<T, String>> {
        let &(chunk, start, len) = self.at.get(index)?;
        let (start, len) = (start as usize, len as usize);
        let bytes = self.chunks.get(chunk as usize)?.get(start..start + len)?;
        Some(serde_json::from_slice(bytes).map_err(|e| e.to_string()))
    }

    fn len(&self) -> usize {
        self.at.len()
    }
}

/// A step's floats, kept out of its JSON.
struct Exact {
    cost: Option<f64>,
    duration_s: Option<f64>,
}

/// Slim steps, packed.
#[derive(Default)]
pub struct PackedSteps {
    packed: Packed,
    exact: Vec<Exact>,
}

impl PackedSteps {
    /// Packs `step` after those packed so far.
    pub fn push(&mut self, mut step: Step) -> Result<(), String> {
        let exact = Exact {
            cost: step.usage.cost.take(),
            duration_s: step.duration_s.take(),
        };
        self.packed.push(&step)?;
        self.exact.push(exact);
        Ok(())
    }

    /// Leaves out the last step packed.
    pub fn pop(&mut self) {
        self.packed.at.pop();
        self.exact.pop();
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    /// Step `i` (0-based), as it was packed.
    pub fn get(&self, i: usize) -> Option<Result<Step, String>> {
        let exact = self.exact.get(i)?;
        Some(self.packed.get::<Step>(i)?.map(|mut step| {
            step.usage = Usage {
                cost: exact.cost,
                ..step.usage
            };
            step.duration_s = exact.duration_s;
            step
        }))
    }

    /// Every step in order, each parsed back as it is reached.
    pub fn iter(&self) -> impl Iterator<Item = Result<Step, String>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// A message pool, packed, with the role and agent of each message at hand.
#[derive(Default)]
pub struct PackedPool {
    packed: Packed,
    roles: Vec<Role>,
    /// Per message, its agent as an index into `agents` (`u32::MAX`: none).
    agent_of: Vec<u32>,
    agents: Vec<String>,
}

impl PackedPool {
    /// Packs `messages` after those packed so far (a reader's pool, as its messages settle),
    /// letting each go once written.
    pub fn extend(&mut self, messages: Vec<Message>) -> Result<(), String> {
        for message in messages {
            self.push(&message)?;
        }
        Ok(())
    }

    fn push(&mut self, message: &Message) -> Result<(), String> {
        self.roles.push(message.role);
        let agent = match &message.agent {
            None => u32::MAX,
            Some(name) => match self.agents.iter().position(|a| a == name) {
                Some(at) => at as u32,
                None => {
                    self.agents.push(name.clone());
                    (self.agents.len() - 1) as u32
                }
            },
        };
        self.agent_of.push(agent);
        self.packed.push(message)
    }

    /// Frees the spare room of the index once the last message is packed.
    pub fn shrink(&mut self) {
        self.packed.at.shrink_to_fit();
        self.roles.shrink_to_fit();
        self.agent_of.shrink_to_fit();
    }

    /// Message `i`, as it was packed.
    pub fn get(&self, i: usize) -> Option<Result<Message, String>> {
        self.packed.get(i)
    }

    /// Every message in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<Message, String>> + '_ {
        (0..self.packed.len()).filter_map(|i| self.get(i))
    }

    /// The pool with every message empty but for its role and agent: what a context's
    /// message ids are worked out from, and the places its read-back messages go into.
    pub fn placeholders(&self) -> Vec<Message> {
        self.roles
            .iter()
            .zip(&self.agent_of)
            .map(|(&role, &agent)| Message {
                agent: self.agents.get(agent as usize).cloned(),
                ..Message::new(role, String::new())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ToolCall;

    #[test]
    fn steps_and_messages_come_back_as_they_were_packed() {
        let steps: Vec<Step> = (0..3000)
            .map(|i| Step {
                index: i + 1,
                action: format!("ls {i}"),
                observation: "x".repeat(i % 700),
                tool_calls: vec![ToolCall::new("bash", format!("{{\"n\": {i}}}"))],
                usage: Usage {
                    cost: Some(0.1 + 0.2 * i as f64),
                    tokens_in: Some(i as u64),
                    ..Usage::default()
                },
                duration_s: (i % 3 == 0).then_some(1.0 / 3.0 + i as f64),
                ..Step::default()
            })
            .collect();
        let mut packed = PackedSteps::default();
        for step in steps.clone() {
            packed.push(step).unwrap();
        }
        assert_eq!(packed.len(), steps.len());
        let back: Vec<Step> = packed.iter().map(Result::unwrap).collect();
        assert_eq!(back, steps);
        assert!(packed.packed.chunks.len() > 1, "spread over chunks");
        assert!(packed.get(steps.len()).is_none());
        packed.pop();
        assert_eq!(packed.len(), steps.len() - 1);
        assert_eq!(
            packed.iter().last().unwrap().unwrap(),
            steps[steps.len() - 2]
        );

        let messages: Vec<Message> = (0..500)
            .map(|i| Message {
                agent: (i % 4 != 0).then(|| format!("agent{}", i % 3)),
                ..Message::new(
                    if i % 2 == 0 {
                        Role::User
                    } else {
                        Role::Assistant
                    },
                    format!("said {i}"),
                )
            })
            .collect();
        let mut pool = PackedPool::default();
        let (first, rest) = messages.split_at(123);
        pool.extend(first.to_vec()).unwrap();
        pool.extend(rest.to_vec()).unwrap();
        pool.shrink();
        let back: Vec<Message> = pool.iter().map(Result::unwrap).collect();
        assert_eq!(back, messages);
        let heads = pool.placeholders();
        assert_eq!(heads.len(), messages.len());
        assert!(
            heads
                .iter()
                .zip(&messages)
                .all(|(h, m)| h.role == m.role && h.agent == m.agent && h.content.is_empty())
        );
    }
}
