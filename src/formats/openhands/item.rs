//! An item of a `history` list: an event, or (older evaluation outputs) an
//! `[action, observation]` pair; anything else is skipped, never fatal.
//!
//! Read straight from the parser, without a detour through `serde_json::Value` or serde's
//! untagged buffering: histories are most of an `output.jsonl`.

use super::event::RawEvent;
use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

#[derive(Debug)]
pub enum HistoryItem {
    Event(Box<RawEvent>),
    Pair(Vec<HistoryItem>),
    Other,
}

impl<'de> Deserialize<'de> for HistoryItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ItemVisitor)
    }
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = HistoryItem;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an OpenHands event or an [action, observation] pair")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HistoryItem, A::Error> {
        RawEvent::deserialize(MapAccessDeserializer::new(map))
            .map(|e| HistoryItem::Event(Box::new(e)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<HistoryItem, A::Error> {
        Vec::<HistoryItem>::deserialize(SeqAccessDeserializer::new(seq)).map(HistoryItem::Pair)
    }

    fn visit_bool<E>(self, _: bool) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }

    fn visit_i64<E>(self, _: i64) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }

    fn visit_u64<E>(self, _: u64) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }

    fn visit_f64<E>(self, _: f64) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }

    fn visit_str<E>(self, _: &str) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }

    fn visit_unit<E>(self) -> Result<HistoryItem, E> {
        Ok(HistoryItem::Other)
    }
}

/// A `history` field: its items when it is a list, none when it is anything else.
pub fn history_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<HistoryItem>, D::Error> {
    match HistoryItem::deserialize(deserializer)? {
        HistoryItem::Pair(items) => Ok(items),
        HistoryItem::Event(_) | HistoryItem::Other => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pairs_and_junk() {
        let items: Vec<HistoryItem> = serde_json::from_str(
            r#"[{"id": 1, "action": "run"}, [{"action": "run"}, {"observation": "run"}], "junk", [1, {"a": null}], null]"#,
        )
        .unwrap();
        assert!(matches!(&items[0], HistoryItem::Event(e) if e.id == Some(1)));
        assert!(
            matches!(&items[1], HistoryItem::Pair(p) if p.len() == 2 && matches!(p[1], HistoryItem::Event(_)))
        );
        assert!(matches!(items[2], HistoryItem::Other));
        assert!(matches!(&items[3], HistoryItem::Pair(p) if matches!(p[0], HistoryItem::Other)));
        assert!(matches!(items[4], HistoryItem::Other));
    }

    #[test]
    fn a_history_that_is_not_a_list_is_empty() {
        #[derive(Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "history_list")]
            history: Vec<HistoryItem>,
        }
        for text in [
            r#"{"history": 5}"#,
            r#"{"history": {"a": [1]}}"#,
            r#"{"history": "x"}"#,
        ] {
            let holder: Holder = serde_json::from_str(text).unwrap();
            assert!(holder.history.is_empty(), "{text}");
        }
        let holder: Holder = serde_json::from_str(r#"{"history": [{"action": "run"}]}"#).unwrap();
        assert_eq!(holder.history.len(), 1);
    }
}
