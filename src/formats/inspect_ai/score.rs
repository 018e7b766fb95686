//! Whether a sample was solved, read from its scores only when they say so clearly.

use serde_json::Value;

/// `Some(true)` / `Some(false)` when every scorer gave a clear verdict and they agree:
/// `"C"`/`"I"` (Inspect's CORRECT/INCORRECT), 1/0, true/false. Partial credit, no answer,
/// other numbers, structured values or disagreement: unknown.
pub fn verdict(scores: &Value, score: &Value) -> Option<bool> {
    let values: Vec<&Value> = match scores {
        Value::Object(map) if !map.is_empty() => {
            map.values().map(|s| s.get("value").unwrap_or(s)).collect()
        }
        // Logs before 0.3.20 keep one `score`.
        _ => vec![score.get("value")?],
    };
    let mut verdicts = values.into_iter().map(clear_verdict);
    let first = verdicts.next()??;
    verdicts.all(|v| v == Some(first)).then_some(first)
}

fn clear_verdict(value: &Value) -> Option<bool> {
    match value {
        Value::String(s) => match s.as_str() {
            "C" => Some(true),
            "I" => Some(false),
            _ => None,
        },
        Value::Bool(b) => Some(*b),
        Value::Number(n) => {
            let x = n.as_f64()?;
            if x == 1.0 {
                Some(true)
            } else if x == 0.0 {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clear_scores() {
        assert_eq!(
            verdict(&json!({"match": {"value": "C"}}), &Value::Null),
            Some(true)
        );
        assert_eq!(
            verdict(
                &json!({"match": {"value": "I", "answer": "No"}}),
                &Value::Null
            ),
            Some(false)
        );
        assert_eq!(
            verdict(
                &json!({"a": {"value": 1}, "b": {"value": true}}),
                &Value::Null
            ),
            Some(true)
        );
        assert_eq!(
            verdict(&json!({"closeness": {"value": 0.0}}), &Value::Null),
            Some(false)
        );
        assert_eq!(verdict(&Value::Null, &json!({"value": "C"})), Some(true));
    }

    #[test]
    fn unclear_scores_are_unknown() {
        assert_eq!(
            verdict(&json!({"match": {"value": "P"}}), &Value::Null),
            None
        );
        assert_eq!(
            verdict(&json!({"match": {"value": 0.5}}), &Value::Null),
            None
        );
        assert_eq!(
            verdict(&json!({"m": {"value": {"accuracy": 1}}}), &Value::Null),
            None
        );
        assert_eq!(
            verdict(
                &json!({"a": {"value": "C"}, "b": {"value": "I"}}),
                &Value::Null
            ),
            None
        );
        assert_eq!(
            verdict(
                &json!({"a": {"value": "C"}, "b": {"value": "N"}}),
                &Value::Null
            ),
            None
        );
        assert_eq!(verdict(&json!({}), &Value::Null), None);
        assert_eq!(verdict(&Value::Null, &Value::Null), None);
    }
}
