//! The terminal app: browse a run, read a trajectory step by step, search, fuzzy-find.
//!
//! The layers, named the same in every directory:
//! - `state/` — everything the app knows, one owner ([`state::State`]);
//! - `update/` — `update(&mut State, Msg) -> Vec<Effect>`, synchronous and pure;
//! - `view/` — `render(&State, &mut Frame)`, reads only;
//! - `effect`, `msg`, `job` — what update asks for, what comes back, the work in between;
//! - `runtime/` — the tokio event loop, tasks and terminal; `harness` runs the same app
//!   headless for tests and benchmarks;
//! - `keymap/`, `theme/`, `config/` — keys, colours and options as data (TOML);
//! - `document/` — the right pane's pages as rows, built off the UI thread and cached.
//!
//! A feature `foo` lives in `state/foo.rs`, `update/foo.rs`, `view/foo.rs`, with keys in
//! `[keymap.foo]` and colours in `[theme.foo]`. Adding a view is adding files, plus one
//! variant in [`state::Screen`] or [`state::Overlay`] and one match arm in `update.rs` and
//! `view.rs`. Nothing here knows how a format is parsed; this layer reads `model` and
//! `formats` and is used only by `cli`.

pub mod action;
pub mod config;
pub mod document;
pub mod effect;
pub mod harness;
pub mod job;
pub mod keymap;
pub mod layer;
pub mod layout;
pub mod msg;
mod runtime;
pub mod search;
pub mod state;
pub mod theme;
pub mod units;
pub mod update;
pub mod view;

pub use runtime::run;
