//! trajscope: read, count, diff, watch and replay the trajectories LLM agents leave behind.
//!
//! The layers, each using only those above it: [`model`] (pure data), [`formats`] (bytes →
//! model), [`diff`] (step-by-step diffs). The binary's command line lives in `cli`.

pub mod backend;
pub mod diff;
pub mod formats;
pub mod model;
pub mod replay;
pub mod watch;
