//! mini-swe-agent messages fed record by record. The reader looks inside long texts (the
//! command in the middle of an answer, the exit code in an observation's markup), so each
//! message is read back whole before it is read. For the lazy open's index (steps let go,
//! the pool kept), what the reader keeps is then slimmed again: every long text of the
//! message found in a step's or a pool message's text is put back as the placeholder it
//! came from, which reads back to those very bytes. A text the reader cut out of a long one
//! (the command, the thought before it) has no placeholder of its own and is kept as read.

use super::readers::Records;
use crate::formats::stream::STRING_CAP;
use crate::formats::stream::inflate::Inflater;
use crate::formats::stream::slim::MARK;
use crate::formats::{LoadError, mini_swe_agent};
use crate::model::{Message, Step, Trajectory};
use serde_json::Value;
use std::fs::File;
use std::path::Path;

/// mini-swe-agent messages, each read back whole before it is read; with `keep_pool`, what
/// the reader keeps slimmed again (see the module doc).
pub(super) struct MiniItems<'a> {
    path: &'a Path,
    file: File,
    messages: mini_swe_agent::Messages,
    keep_pool: bool,
}

/// A long string of a record: the placeholder the slim text has for its middle, and that
/// middle read back.
struct Long {
    placeholder: String,
    text: String,
}

impl<'a> MiniItems<'a> {
    pub(super) fn new(path: &'a Path, keep_pool: bool) -> Option<MiniItems<'a>> {
        Some(MiniItems {
            path,
            file: File::open(path).ok()?,
            messages: if keep_pool {
                mini_swe_agent::Messages::releasing_with_pool(path)
            } else {
                mini_swe_agent::Messages::new(path, true)
            },
            keep_pool,
        })
    }

    /// The record read back whole, and its long strings.
    fn whole(&self, line: usize, bytes: &[u8]) -> Result<(Value, Vec<Long>), LoadError> {
        let mut value: Value = serde_json::from_slice(bytes)
            .map_err(|err| LoadError::json(self.path, &err, line.saturating_sub(1)))?;
        let inflater = Inflater {
            file: &self.file,
            preview: false,
            cap: STRING_CAP,
        };
        let mut longs = Vec::new();
        inflate(&inflater, &mut value, &mut longs).map_err(|err| LoadError::io(self.path, err))?;
        // The longest first: a text holding another is put back whole.
        longs.sort_by_key(|l| std::cmp::Reverse(l.text.len()));
        Ok((value, longs))
    }
}

/// Reads back every placeholder of `value`, noting each long string's middle.
fn inflate(
    inflater: &Inflater<'_>,
    value: &mut Value,
    longs: &mut Vec<Long>,
) -> Result<(), std::io::Error> {
    match value {
        Value::String(slim) => {
            let Some(whole) = inflater.text(slim)? else {
                return Ok(());
            };
            if let Some(long) = middle(slim, &whole) {
                longs.push(long);
            }
            *slim = whole;
        }
        Value::Array(items) => {
            for item in items {
                inflate(inflater, item, longs)?;
            }
        }
        Value::Object(map) => {
            for item in map.values_mut() {
                inflate(inflater, item, longs)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The placeholder of a slimmed string (its head, the placeholder, its tail) and the text it
/// stands for in `whole`, the string read back.
fn middle(slim: &str, whole: &str) -> Option<Long> {
    let open = slim.find(MARK)?;
    let after = open + MARK.len_utf8();
    let close = after + slim[after..].find(MARK)?;
    let end = close + MARK.len_utf8();
    let (head, tail) = (&slim[..open], &slim[end..]);
    if tail.contains(MARK) || whole.len() < head.len() + tail.len() {
        return None;
    }
    let text = whole.strip_prefix(head)?.strip_suffix(tail)?;
    (!text.is_empty()).then(|| Long {
        placeholder: slim[open..end].to_string(),
        text: text.to_string(),
    })
}

/// `text` with each long string it holds put back as its placeholder.
fn slim_again(text: &mut String, longs: &[Long]) {
    for long in longs {
        if text.len() >= long.text.len() && text.contains(&long.text) {
            *text = text.replace(&long.text, &long.placeholder);
        }
    }
}

fn slim_step(step: &mut Step, longs: &[Long]) {
    for text in [
        &mut step.user,
        &mut step.thought,
        &mut step.action,
        &mut step.observation,
        &mut step.response,
    ] {
        slim_again(text, longs);
    }
}

fn slim_message(message: &mut Message, longs: &[Long]) {
    slim_again(&mut message.content, longs);
}

impl MiniItems<'_> {
    /// Feeds `value`, then slims again what it added to the steps and the pool.
    fn feed(
        &mut self,
        longs: &[Long],
        feed: impl FnOnce(&mut mini_swe_agent::Messages) -> Result<(), serde_json::Error>,
        line: usize,
    ) -> Result<(), LoadError> {
        let from = self.messages.pool_len();
        feed(&mut self.messages)
            .map_err(|err| LoadError::invalid(self.path, format!("line {line}: {err}")))?;
        if !self.keep_pool || longs.is_empty() {
            return Ok(());
        }
        let (open, released, pool) = self.messages.fresh_mut(from);
        for step in open.into_iter().chain(released.iter_mut()) {
            slim_step(step, longs);
        }
        for message in pool {
            slim_message(message, longs);
        }
        Ok(())
    }
}

impl Records for MiniItems<'_> {
    fn record(&mut self, line: usize, bytes: &[u8], _: bool) -> Result<(), LoadError> {
        let (value, longs) = self.whole(line, bytes)?;
        self.feed(&longs, |m| m.message_value(value), line)
    }

    fn header(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        let (value, _) = self.whole(1, bytes)?;
        self.messages
            .header_value(value)
            .map_err(|err| LoadError::invalid(self.path, err.to_string()))
    }

    fn finish(self: Box<Self>) -> Result<Vec<Trajectory>, LoadError> {
        self.messages.finish().map(|t| vec![t])
    }

    fn released(&mut self) -> Vec<Step> {
        self.messages.take_released()
    }

    fn settled(&mut self) -> Vec<Message> {
        self.messages.take_pool()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_found_in_what_was_made_of_it_and_put_back() {
        let slim = format!("head {MARK}10+2000{MARK} tail");
        let whole = format!("head {} tail", "x y ".repeat(500));
        let long = middle(&slim, &whole).unwrap();
        assert_eq!(long.placeholder, format!("{MARK}10+2000{MARK}"));
        assert_eq!(long.text, "x y ".repeat(500));
        let mut observation = format!("before\n{whole}\nafter");
        slim_again(&mut observation, &[long]);
        assert_eq!(observation, format!("before\n{slim}\nafter"));
        assert!(middle("no placeholder", "no placeholder").is_none());
        assert!(
            middle(&slim, "other text").is_none(),
            "not what it was read from"
        );
    }
}
