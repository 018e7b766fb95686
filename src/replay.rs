//! Replay without a model (being written).

mod action;
mod dialect;
mod executor;
mod files;
mod normalise;
mod paths;
mod shell;
mod template;
mod tools;
mod workspace;
