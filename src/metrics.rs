//! Counting failure modes across a run by plain string search.
//!
//! Rules ([`Rule`]) are declared in TOML ([`rule_file`]): a pattern (literal or regex) in a
//! step field, with optional conditions on the step's tool, on its following a tool call,
//! and on the steps around it. A [`RuleSet`] combines the built-in defaults, the user's file
//! and `--rules` files; a [`Matcher`] compiles it (one Aho-Corasick automaton and one
//! `RegexSet` per field) and scans trajectories; a [`Tally`] keeps per-trajectory hits and
//! sums them per rule, split by resolved / unresolved / unknown, with the steps behind each
//! count. [`Overview`] and [`Comparison`] give the run-level numbers and the two-run test,
//! [`RunsComparison`] the test of two or more runs on their shared instances;
//! [`LabelSet`] keeps hand-made step labels in a sidecar file; [`Query`] and [`each_match`]
//! are the one search (`trajscope grep` through [`Search`], and the TUI's `/`).
//! Rules marked `alert` fire while a trajectory is followed live ([`firings`], [`AlertLog`]).
//!
//! Uses `model` and `formats`; knows nothing of terminals, async or printing.

mod alert;
pub mod classifier;
pub mod cochran;
mod compare;
pub mod condition;
mod exit_kind;
mod field;
mod filter;
mod folded_tally;
mod gate;
mod labels;
mod matcher;
mod overview;
pub mod pack;
mod phase;
mod raw_count;
mod rule;
mod rule_error;
pub mod rule_file;
mod rule_regex;
mod rule_set;
mod run_tally;
mod runs_comparison;
mod search;
mod sequence;
mod sparse_tally;
pub mod stats;
mod step_conditions;
mod step_matches;
mod streamed_hits;
mod tally;
mod visit_tally;

pub use alert::{AlertLog, Firing, firings, has_alerts};
pub use compare::{Comparison, Pairing, RuleDelta, SIGNIFICANCE, SMALL_RUN, Verdict};
pub use exit_kind::ExitKind;
pub use field::{Field, made_tool_call, tool_calls_of};
pub use filter::{FilterError, FilterRow, RunFilter};
pub use folded_tally::FoldedTally;
pub use labels::{LABELS_FILE, Label, LabelError, LabelSet, MAX_LABEL_CHARS, step_hash};
pub use matcher::Matcher;
pub use overview::{Overview, OverviewParts, Spread};
pub use phase::{PHASE_RULES, Phase, Phases};
pub use rule::{Origin, Pattern, Rule, RuleId, ToolCondition};
pub use rule_error::RuleError;
pub use rule_set::{RuleOptions, RuleSet, user_rules_path};
pub use run_tally::{
    Keep, TalliedFile, TalliedRun, cache_key as tally_cache_key, tally_file, tally_from_cache,
    tally_run, tally_run_cached, tally_run_cached_keeping, tally_run_keeping,
};
pub use runs_comparison::{
    InstanceVerdicts, McNemarTest, PairTest, RuleAcross, RuleInRun, RunsComparison, SolveCounts,
};
pub use search::{
    Case, GrepHit, Match, Query, Search, SearchError, each_match, fields_of, shown_text,
};
pub use sparse_tally::sparse_tally_file;
pub use step_matches::{StepHit, StepMatches};
pub use tally::{
    Counts, Hit, Outcome, Row, RowKind, Split, Tally, ToolRow, ToolUse, TrajectoryKey,
    TrajectoryTally,
};
pub use visit_tally::{tally_samples, tally_text_log, tally_traces, tally_visited};
