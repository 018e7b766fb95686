//! The rule sets the tally tests compare two ways of counting under: the default rules, every
//! built-in pack, and the defaults with a test's own rules written to reach its corners.
//!
//! Include with `#[path = "support/rule_sets.rs"] mod rule_sets;`.

#![allow(dead_code)]

use trajscope::metrics::{Matcher, RuleSet, pack};

/// `(name, matcher)` for the defaults, each pack, and the defaults plus `extra` (a rule file's
/// text, named `{extra_name}.toml` in messages). A rule that does not compile fails the test.
pub fn matchers(extra_name: &str, extra: &str) -> Vec<(String, Matcher)> {
    let mut sets = vec![("default".to_string(), RuleSet::defaults())];
    for name in pack::names() {
        let set = RuleSet::pack(name).unwrap_or_else(|| panic!("pack {name}"));
        sets.push((format!("pack {name}"), set));
    }
    let mut own = RuleSet::defaults();
    own.add_text(extra, &format!("{extra_name}.toml"));
    sets.push((extra_name.to_string(), own));
    sets.into_iter()
        .map(|(name, set)| {
            assert!(set.errors.is_empty(), "{name}: {:?}", set.errors);
            let (matcher, errors) = Matcher::new(set.rules);
            assert!(errors.is_empty(), "{name}: {errors:?}");
            (name, matcher)
        })
        .collect()
}
