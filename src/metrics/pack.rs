//! Built-in rule packs: rule files under `rules/` embedded in the binary, selected by name
//! wherever a rule file is accepted (`--rules NAME`, `--only-rules NAME`). Each pack starts
//! with a `[pack]` table saying where its rules come from:
//!
//! ```toml
//! [pack]
//! name = "swe-bench-pro-failure-modes"
//! version = "1169deb"                 # the source's version the rules follow
//! source = "https://github.com/nilenso/swe-bench-pro-cost-token-time-analysis analysis/failure_modes.py"
//! description = "…"
//! ```

use super::rule_file::{self, DEFAULT_RULES, DEFAULT_RULES_NAME, Entry};
use serde::Serialize;

/// A rule file built into trajscope.
#[derive(Debug, Clone, Copy)]
pub struct Pack {
    pub name: &'static str,
    pub text: &'static str,
}

/// The name the defaults go by in `trajscope rules --list`.
pub const DEFAULT_PACK: &str = "default";

/// Every built-in pack, the defaults first.
pub const PACKS: &[Pack] = &[
    Pack {
        name: DEFAULT_PACK,
        text: DEFAULT_RULES,
    },
    Pack {
        name: "swe-bench-pro-failure-modes",
        text: include_str!("../../rules/swe-bench-pro-failure-modes.toml"),
    },
    Pack {
        name: "sniffly-claude-code-errors",
        text: include_str!("../../rules/sniffly-claude-code-errors.toml"),
    },
];

/// What `trajscope rules --list` shows of a pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackInfo {
    pub name: String,
    pub version: String,
    pub source: String,
    pub description: String,
    /// Rules shown in tables (hidden ones left out).
    pub rules: usize,
    /// The names of its classifiers.
    pub classifiers: Vec<String>,
}

/// The pack called `name`.
pub fn find(name: &str) -> Option<&'static Pack> {
    PACKS.iter().find(|p| p.name == name)
}

/// The names of the packs, for messages.
pub fn names() -> Vec<&'static str> {
    PACKS.iter().map(|p| p.name).collect()
}

impl Pack {
    /// The name rules of this pack carry as their file (`pack:NAME`; the defaults keep
    /// theirs, `default rules`, so that their origins and caches are unchanged).
    pub fn origin(&self) -> String {
        if self.name == DEFAULT_PACK {
            DEFAULT_RULES_NAME.to_string()
        } else {
            format!("pack:{}", self.name)
        }
    }

    /// The pack's rule entries and problems, as a rule file's.
    pub fn entries(&self) -> (Vec<Entry>, Vec<super::RuleError>) {
        rule_file::parse(self.text, &self.origin())
    }

    pub fn info(&self) -> PackInfo {
        let table: toml::Table = toml::from_str(self.text).unwrap_or_default();
        let meta = table.get("pack").and_then(toml::Value::as_table);
        let field = |key: &str| {
            meta.and_then(|m| m.get(key))
                .and_then(toml::Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (entries, _) = self.entries();
        let rules = entries
            .iter()
            .filter(|e| matches!(e, Entry::Rule(r) if !r.hidden))
            .count();
        let classifiers = table
            .get("classifier")
            .and_then(toml::Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|c| c.get("name").and_then(toml::Value::as_str))
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        if self.name == DEFAULT_PACK {
            return PackInfo {
                name: self.name.into(),
                version: env!("CARGO_PKG_VERSION").into(),
                source: "trajscope (rules/default.toml; docs/metrics.md)".into(),
                description: "trajscope's default failure-mode rules, checked against real SWE-agent and mini-swe-agent runs".into(),
                rules,
                classifiers,
            };
        }
        PackInfo {
            name: self.name.into(),
            version: field("version"),
            source: field("source"),
            description: field("description"),
            rules,
            classifiers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Matcher;

    #[test]
    fn every_pack_parses_compiles_and_says_where_it_comes_from() {
        for pack in PACKS {
            let (entries, errors) = pack.entries();
            assert!(errors.is_empty(), "{}: {errors:#?}", pack.name);
            let rules: Vec<_> = entries
                .into_iter()
                .filter_map(|e| match e {
                    Entry::Rule(r) => Some(*r),
                    Entry::Disable { .. } => None,
                })
                .collect();
            assert!(
                rules.iter().all(|r| !r.description.is_empty()),
                "{}",
                pack.name
            );
            let (_, errors) = Matcher::new(rules);
            assert!(errors.is_empty(), "{}: {errors:#?}", pack.name);
            let info = pack.info();
            assert_eq!(info.name, pack.name);
            assert!(!info.source.is_empty() && !info.version.is_empty() && info.rules > 0);
            if pack.name != DEFAULT_PACK {
                let meta: toml::Table = toml::from_str(pack.text).unwrap();
                assert_eq!(meta["pack"]["name"].as_str(), Some(pack.name));
            }
        }
        assert!(find("swe-bench-pro-failure-modes").is_some());
        assert!(find("nope").is_none());
    }
}
