//! Money and tokens spent, per step or per trajectory, when the log records them.

use serde::{Deserialize, Serialize};

/// Cost and token counts. Every field is optional: most logs record only some of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Cost in US dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Tokens sent to the model (prompt / input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    /// Tokens received from the model (completion / output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    /// Number of model calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_calls: Option<u64>,
    /// Of `tokens_in`, those read from the provider's prompt cache, when the log says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_cached: Option<u64>,
    /// Of `tokens_out`, those spent on hidden reasoning, when the log says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_reasoning: Option<u64>,
}

impl Usage {
    /// True when nothing is known.
    pub fn is_empty(&self) -> bool {
        self.cost.is_none()
            && self.tokens_in.is_none()
            && self.tokens_out.is_none()
            && self.api_calls.is_none()
            && self.tokens_cached.is_none()
            && self.tokens_reasoning.is_none()
    }

    /// Adds `other` into `self`; a field stays unknown only if both sides are unknown.
    pub fn add(&mut self, other: &Usage) {
        self.combine(other, |a, b| a + b, |a, b| a + b);
    }

    /// Keeps the larger of each figure: for records that repeat one model call's figures
    /// (a later one may be more complete), where a sum would count the call twice.
    pub fn keep_largest(&mut self, other: &Usage) {
        self.combine(other, f64::max, u64::max);
    }

    /// Each field of `self` and `other` combined by `cost` or `count` when both are known,
    /// else the known one.
    fn combine(&mut self, other: &Usage, cost: fn(f64, f64) -> f64, count: fn(u64, u64) -> u64) {
        fn both<T: Copy>(a: Option<T>, b: Option<T>, f: fn(T, T) -> T) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(f(a, b)),
                (a, b) => a.or(b),
            }
        }
        self.cost = both(self.cost, other.cost, cost);
        for (mine, theirs) in [
            (&mut self.tokens_in, other.tokens_in),
            (&mut self.tokens_out, other.tokens_out),
            (&mut self.api_calls, other.api_calls),
            (&mut self.tokens_cached, other.tokens_cached),
            (&mut self.tokens_reasoning, other.tokens_reasoning),
        ] {
            *mine = both(*mine, theirs, count);
        }
    }

    /// Fills each unknown field of `self` from `other`.
    pub fn or(self, other: Usage) -> Usage {
        Usage {
            cost: self.cost.or(other.cost),
            tokens_in: self.tokens_in.or(other.tokens_in),
            tokens_out: self.tokens_out.or(other.tokens_out),
            api_calls: self.api_calls.or(other.api_calls),
            tokens_cached: self.tokens_cached.or(other.tokens_cached),
            tokens_reasoning: self.tokens_reasoning.or(other.tokens_reasoning),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_keeps_known_fields() {
        let mut a = Usage {
            cost: Some(1.0),
            tokens_in: None,
            ..Usage::default()
        };
        a.add(&Usage {
            cost: Some(0.5),
            tokens_in: Some(10),
            ..Usage::default()
        });
        assert_eq!(a.cost, Some(1.5));
        assert_eq!(a.tokens_in, Some(10));
        assert_eq!(a.tokens_out, None);
        assert!(!a.is_empty());
        assert!(Usage::default().is_empty());
    }
}
