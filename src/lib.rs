//! trajscope: read, count, diff, watch and replay the trajectories LLM agents leave behind.
//!
//! The layers, each using only those above it: [`model`] (pure data), [`formats`] (bytes →
//! model), [`metrics`] (rules, tallies, run statistics), [`diff`] (step-by-step diffs),
//! [`present`] (a step's diff rows, language and badges, for every output to style),
//! [`export`] (Markdown and HTML pages), [`backend`] (model backends), [`replay`]
//! (re-running an agent from a step), [`table`] (runs as Parquet tables, rules as SQL for
//! DuckDB and Spark), [`watch`] (following growing logs), [`tui`] (the terminal app).
//! [`text`] makes log text safe to display, for every layer that shows it. The binary's
//! command line lives in `cli`.

// Only the command line (the binary's `cli`) writes to the terminal: the library returns what
// it has to say. (Tests may print: clippy.toml.)
#![deny(clippy::print_stdout, clippy::print_stderr)]
// Every pedantic lint the library already meets stays met. Those it does not yet meet are
// allowed by name below (most are deliberate: casts in statistics, docs that name formats),
// so that allowing one more is a visible decision, never an accident.
#![warn(clippy::pedantic)]
#![allow(
    clippy::assigning_clones,
    clippy::borrow_as_ptr,
    clippy::case_sensitive_file_extension_comparisons,
    clippy::cast_lossless,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    clippy::cast_sign_loss,
    clippy::default_trait_access,
    clippy::doc_markdown,
    clippy::duration_suboptimal_units,
    clippy::elidable_lifetime_names,
    clippy::explicit_iter_loop,
    clippy::float_cmp,
    clippy::format_collect,
    clippy::format_push_string,
    clippy::if_not_else,
    clippy::ignored_unit_patterns,
    clippy::items_after_statements,
    clippy::manual_let_else,
    clippy::manual_midpoint,
    clippy::manual_string_new,
    clippy::many_single_char_names,
    clippy::map_unwrap_or,
    clippy::match_same_arms,
    clippy::match_wildcard_for_single_variants,
    clippy::missing_errors_doc,
    clippy::must_use_candidate,
    clippy::needless_continue,
    clippy::needless_pass_by_value,
    clippy::needless_raw_string_hashes,
    clippy::option_option,
    clippy::redundant_closure_for_method_calls,
    clippy::ref_option,
    clippy::return_self_not_must_use,
    clippy::semicolon_if_nothing_returned,
    clippy::similar_names,
    clippy::single_char_pattern,
    clippy::single_match_else,
    clippy::struct_excessive_bools,
    clippy::struct_field_names,
    clippy::too_many_lines,
    clippy::unchecked_time_subtraction,
    clippy::unnecessary_wraps,
    clippy::unnested_or_patterns,
    clippy::unreadable_literal,
    clippy::unused_self
)]

pub mod backend;
pub mod calendar;
pub mod diff;
pub mod export;
pub mod formats;
#[doc(hidden)]
pub mod fuzzing;
pub mod metrics;
pub mod model;
pub mod present;
pub mod replay;
pub mod table;
pub mod text;
pub mod tui;
pub mod watch;
