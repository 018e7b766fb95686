//! One line of `all_preds.jsonl` read by hand: the object's members are walked on the raw
//! bytes ([`raw_json::walk_members`]) and each string decoded by hand ([`unescape`]), not
//! the line parsed into a `serde_json::Value`. A SWE-bench run's predictions are megabytes of
//! patches, decoded on the core beside the run's files: serde's string scan was 18M of the
//! 19M instructions of reading CodeR's 1.5 MB file (docs/scale.md, twelfth round).
//!
//! Exactness: the line is taken only when every part of it is read the way serde reads it:
//! the object's structure by the walk, every string value by [`unescape`] (which accepts
//! only strings serde accepts, and decodes them as serde does), every scalar by serde
//! itself. Anything else (a key with an escape or a control character, a repeated key among
//! the ones read, an object or array as a value, a lone surrogate, a scalar serde refuses,
//! bytes after the object) answers `None`, and the caller reads the line with serde as
//! before.

use crate::formats::raw_json::{self, unescape};
use crate::model::Prediction;
use serde_json::Value;

/// What a line says: `Some(Some(..))` the prediction it holds, `Some(None)` a well-formed
/// object with no string `instance_id` (no prediction, as serde's reading finds), `None`
/// when the line must be read by serde.
pub(super) fn prediction_line(line: &[u8]) -> Option<Option<(String, Prediction)>> {
    let mut id = Field::Absent;
    let mut patch = Field::Absent;
    let mut exit_status = Field::Absent;
    let mut model = Field::Absent;
    let end = raw_json::walk_members(line, 0, &mut |key, at| {
        if key.contains(&b'\\') || raw_json::has_control(key) || std::str::from_utf8(key).is_err() {
            return None;
        }
        let (field, end) = read_value(line, at)?;
        let slot = match key {
            b"instance_id" => &mut id,
            b"model_patch" => &mut patch,
            b"exit_status" => &mut exit_status,
            b"model_name_or_path" => &mut model,
            _ => return Some(end),
        };
        if !matches!(slot, Field::Absent) {
            return None;
        }
        *slot = field;
        Some(end)
    })?;
    if !raw_json::only_whitespace_after(line, end) {
        return None;
    }
    let Field::Text(id) = id else {
        return Some(None);
    };
    Some(Some((
        id,
        Prediction {
            patch: patch.text(),
            exit_status: exit_status.text(),
            model: model.text(),
        },
    )))
}

/// A member's value as `str_field` sees it.
enum Field {
    Absent,
    Text(String),
    /// Any other scalar: `str_field` finds no text there.
    Other,
}

impl Field {
    fn text(self) -> Option<String> {
        match self {
            Field::Text(text) => Some(text),
            Field::Absent | Field::Other => None,
        }
    }
}

/// The value that starts at `at` and where it ends; `None` for what serde must read.
fn read_value(line: &[u8], at: usize) -> Option<(Field, usize)> {
    match *line.get(at)? {
        b'"' => {
            let end = raw_json::string_end(line, at)?;
            let text = unescape(line.get(at + 1..end - 1)?)?;
            Some((Field::Text(text), end))
        }
        b'{' | b'[' => None,
        _ => {
            let end = raw_json::value_end(line, at)?;
            let value: Value = serde_json::from_slice(line.get(at..end)?).ok()?;
            (!value.is_string()).then_some((Field::Other, end))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::json::str_field;

    /// What serde's reading of the line gives, as `prediction_of` reads it.
    fn by_serde(line: &[u8]) -> Option<Option<(String, Prediction)>> {
        let value: Value = serde_json::from_slice(line).ok()?;
        if !value.is_object() {
            return None;
        }
        let Some(id) = str_field(&value, "instance_id") else {
            return Some(None);
        };
        Some(Some((
            id.to_string(),
            Prediction {
                patch: str_field(&value, "model_patch").map(String::from),
                exit_status: str_field(&value, "exit_status").map(String::from),
                model: str_field(&value, "model_name_or_path").map(String::from),
            },
        )))
    }

    #[test]
    fn a_line_read_by_hand_is_the_line_serde_reads() {
        let lines: &[&[u8]] = &[
            br#"{"model_name_or_path": "m", "instance_id": "a__b-1", "model_patch": "diff\n--- a\n+++ b\n\"q\" \\ \/ \t"}"#,
            br#"{"instance_id": "x", "model_patch": null, "exit_status": "submitted", "n": 3, "ok": true}"#,
            br#"  {"instance_id":"x","model_patch":"caf\u00e9"}  "#,
            r#"{"instance_id": "x", "model_patch": "ünï"}"#.as_bytes(),
            br#"{"instance_id": "x", "instance_id": "y"}"#,
            br#"{"instance_id": 7, "model_patch": "p"}"#,
            br#"{"model_patch": "p"}"#,
            br#"{"instance_id": "x", "extra": {"a": [1, 2]}}"#,
            br#"{"instance_id": "x", "n": 1e400}"#,
            br#"{"instance_id": "x", "n": tru}"#,
            br#"{"instance_id": "x", "model_patch": "p"} {"#,
            br#"{"instance_id": "x", "model_patch": "bad \q escape"}"#,
            b"{\"instance_id\": \"x\", \"model_patch\": \"raw \x01 control\"}",
            b"{\"instance_id\": \"x\", \"model_patch\": \"not utf-8 \xff\"}",
            b"{\"instance_id\": \"x\", \"model_patch\": \"cut\r\n",
            br#"{"instance\u005fid": "x"}"#,
            br#"{"instance_id": "x", "model_patch": "\u00E9 \ud83d\ude00 \\u00e9 \u0000"}"#,
            br#"{"instance_id": "x", "model_patch": "lone \ud83d high"}"#,
            br#"{"instance_id": "x", "model_patch": "lone \ude00 low"}"#,
            br#"{"instance_id": "x", "model_patch": "pair \ud83d\u0041"}"#,
            br#"{"instance_id": "x", "model_patch": "hex \u00zz"}"#,
            br#"{"instance_id": "x", "model_patch": "sign \u+0ab"}"#,
            br#"{"instance_id": "x", "model_patch": "short \u00e"}"#,
            br#"{"instance_id": "x",}"#,
            br#"{}"#,
            br#"[1]"#,
            b"{\"instance_id\": \"x\"}\r",
        ];
        for line in lines {
            let shown = String::from_utf8_lossy(line);
            let serde = by_serde(line);
            // A line left to serde (`None`) is read as before, whatever serde says.
            if let Some(hand) = prediction_line(line) {
                assert_eq!(Some(hand), serde, "{shown}");
            }
        }
        // The common lines are read by hand, not left to serde.
        assert!(prediction_line(lines[0]).is_some_and(|p| p.is_some()));
        assert!(prediction_line(lines[1]).is_some_and(|p| p.is_some()));
        assert_eq!(prediction_line(lines[6]), Some(None));
        let escapes = lines.iter().find(|l| l.ends_with(br#"\u0000"}"#)).unwrap();
        let (_, read) = prediction_line(escapes).unwrap().unwrap();
        assert_eq!(read.patch.as_deref(), Some("é 😀 \\u00e9 \0"));
    }

    #[test]
    fn strings_decoded_by_hand_are_serdes() {
        let pieces: &[&[u8]] = &[
            b"a",
            b"diff --git",
            b" ",
            b"\\n",
            b"\\\"",
            b"\\\\",
            b"\\/",
            b"\\t",
            b"\\b",
            b"\\u00e9",
            b"\\u00E9",
            b"\\u2297",
            b"\\ud83d\\ude00",
            b"\\ud83d",
            b"\\ude00",
            b"\\u0000",
            b"\\u001f",
            b"\\uzzzz",
            b"\\q",
            "é✓".as_bytes(),
            b"\x01",
            b"\xff",
            b"\\",
            b"u",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut decoded = 0;
        for _ in 0..4_000 {
            let mut inside = Vec::new();
            for _ in 0..(seed % 12) {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                inside.extend_from_slice(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mut quoted = b"\"".to_vec();
            quoted.extend_from_slice(&inside);
            quoted.push(b'"');
            // Only what the walk hands over: a string that ends at its last quote.
            if raw_json::string_end(&quoted, 0) != Some(quoted.len()) {
                continue;
            }
            let serde = serde_json::from_slice::<String>(&quoted).ok();
            if let Some(hand) = unescape(&inside) {
                decoded += 1;
                assert_eq!(Some(hand), serde, "{}", String::from_utf8_lossy(&inside));
            }
        }
        // Most generated strings are decoded by hand, so the comparison means something.
        assert!(decoded > 500, "{decoded}");
    }
}
