//! What an Inspect log says about the whole eval: the model, the solver, the epochs.
//!
//! Read from a `.json` log's top level or a `.eval` archive's `header.json` (or, for an
//! eval still running, `_journal/start.json`). The samples are read elsewhere.

use crate::formats::json::{Text, lenient, str_field, u64_field};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize, Default)]
#[serde(default)]
pub struct Header {
    #[serde(deserialize_with = "lenient")]
    pub version: Option<u64>,
    /// `started`, `success`, `cancelled`, `error`.
    pub status: Option<Text>,
    pub eval: Value,
    pub plan: Value,
}

impl Header {
    /// The model under evaluation (`openai/gpt-4o-mini`).
    pub fn model(&self) -> Option<String> {
        str_field(&self.eval, "model")
            .filter(|m| !m.is_empty())
            .map(String::from)
    }

    /// The solver that acted: `eval.solver` in newer logs, else the plan's steps in order.
    pub fn agent(&self) -> Option<String> {
        if let Some(solver) = str_field(&self.eval, "solver").filter(|s| !s.is_empty()) {
            return Some(solver.to_string());
        }
        let steps: Vec<&str> = self
            .plan
            .get("steps")?
            .as_array()?
            .iter()
            .filter_map(|s| str_field(s, "solver"))
            .collect();
        (!steps.is_empty()).then(|| steps.join(" → "))
    }

    /// Epochs per sample, when the eval config says.
    pub fn epochs(&self) -> Option<u64> {
        u64_field(self.eval.get("config")?, "epochs")
    }

    /// `json v2`, `eval v3`.
    pub fn detail(&self, container: &str) -> String {
        match self.version {
            Some(v) => format!("{container} v{v}"),
            None => container.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn model_agent_epochs() {
        let h: Header = serde_json::from_value(json!({
            "version": 2, "status": "success",
            "eval": {"model": "openai/gpt-4o-mini", "config": {"epochs": 3}},
            "plan": {"steps": [{"solver": "use_tools"}, {"solver": "generate"}]}
        }))
        .unwrap();
        assert_eq!(h.model().as_deref(), Some("openai/gpt-4o-mini"));
        assert_eq!(h.agent().as_deref(), Some("use_tools → generate"));
        assert_eq!(h.epochs(), Some(3));
        assert_eq!(h.detail("eval"), "eval v2");
    }

    #[test]
    fn odd_headers_read_as_unknown() {
        let h: Header =
            serde_json::from_value(json!({"version": "x", "eval": 5, "plan": []})).unwrap();
        assert_eq!(
            (h.version, h.model(), h.agent(), h.epochs()),
            (None, None, None, None)
        );
        assert_eq!(h.detail("json"), "json");
    }
}
