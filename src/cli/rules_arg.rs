//! `--rules FILE|PACK` and `--only-rules FILE|PACK`: the rules a command counts, tags or
//! alerts with, read and compiled the same way by `stats`, `watch` and `export` (and the
//! TUI's own flags of the same names).

use std::path::PathBuf;
use trajscope::metrics::{Matcher, RuleError, RuleOptions, RuleSet, user_rules_path};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct RulesArg {
    /// Add the rules of FILE, or of a built-in pack (`trajscope rules --list`), to the
    /// defaults and the user's rules (a rule of the same name replaces one).
    #[arg(long, value_name = "FILE|PACK")]
    pub rules: Vec<PathBuf>,
    /// Use the rules of FILE or PACK instead of the defaults and the user's rule file.
    #[arg(long, value_name = "FILE|PACK")]
    pub only_rules: Vec<PathBuf>,
}

impl RulesArg {
    /// The rules compiled, and the problems found reading or compiling them; each problem
    /// is also said on stderr, since the other rules still run.
    pub fn compile(&self) -> (Matcher, Vec<RuleError>) {
        let set = RuleSet::load(&RuleOptions {
            extra: self.rules.clone(),
            only: self.only_rules.clone(),
            user_file: user_rules_path(),
        });
        let (matcher, compile_errors) = Matcher::new(set.rules);
        let mut errors = set.errors;
        errors.extend(compile_errors);
        for err in &errors {
            eprintln!("trajscope: warning: {err} (the other rules still run)");
        }
        (matcher, errors)
    }
}
