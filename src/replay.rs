//! Replay without a model (being written).

mod files;
mod normalise;
mod paths;
mod shell;
mod template;
mod tools;
mod workspace;
