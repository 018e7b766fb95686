//! trajscope: read, count, diff, watch and replay the trajectories LLM agents leave behind.
//!
//! The layers, each using only those above it: [`model`] (pure data), [`formats`] (bytes →
//! model), [`metrics`] (rules, tallies, run statistics), [`diff`] (step-by-step diffs),
//! [`export`] (Markdown and HTML pages), [`backend`] (model backends), [`replay`]
//! (re-running an agent from a step), [`table`] (runs as Parquet tables, rules as SQL for
//! DuckDB and Spark), [`watch`] (following growing logs), [`tui`] (the terminal app).
//! [`text`] makes log text safe to display, for every layer that shows it. The binary's
//! command line lives in `cli`.

pub mod backend;
pub mod diff;
pub mod export;
pub mod formats;
pub mod metrics;
pub mod model;
pub mod replay;
pub mod table;
pub mod text;
pub mod tui;
pub mod watch;
