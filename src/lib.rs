//! trajscope: read, count, diff, watch and replay the trajectories LLM agents leave behind.
//!
//! The layers, each using only those above it: [`model`] (pure data), [`formats`] (bytes →
//! model), [`diff`] (step-by-step diffs), [`export`] (Markdown and HTML pages). The binary's
//! command line lives in `cli`.

pub mod backend;
pub mod diff;
pub mod export;
pub mod formats;
pub mod model;
pub mod watch;
