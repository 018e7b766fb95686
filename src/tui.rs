//! The terminal app: browse a run, read a trajectory step by step, search, fuzzy-find.
//!
//! The layers, named the same in every directory:
//! - `state/` — everything the app knows, one owner ([`state::State`]); no I/O, no handles;
//! - `update/` — `update(&mut State, Msg) -> Vec<Effect>`, synchronous and pure;
//! - `view/` — `render(&State, &mut Frame)`, reads only;
//! - `panel/` — the overlay panels (help, finder, grep, failures, problems, replay, rule
//!   picker), each with its own state, update, view and keys, registered once in `panel.rs`;
//! - `effect`, `msg`, `job/` — what update asks for, what comes back, and the work in
//!   between: [`job::run`] is the one interpreter of effects;
//! - `runtime/` — the tokio event loop, its background jobs and the terminal; `harness` runs
//!   the same app headless (the same `job::run`, run cache included) for tests and benchmarks;
//! - `layer`, `action`, `keymap/` — who takes keys, what keys do, which keys (TOML);
//! - `theme/`, `config/` — colours and options as data (TOML);
//! - `layout` — where each region of each screen goes, shared by `view` and `update` (mouse,
//!   scrolling); `units` — numbers as the screen shows them;
//! - `document/` — the right pane's pages as rows, built off the UI thread and cached;
//! - `search` — the trajectory search behind `/`.
//!
//! An overlay panel `foo` is `panel/foo.rs` (state and its [`panel::Panel`] impl),
//! `panel/foo/update.rs`, `panel/foo/view.rs` and `panel/foo/keys.toml`, registered by one row
//! of `panel.rs` (docs/tui.md, "adding a panel"). A screen `foo` lives in `state/foo.rs`,
//! `update/foo.rs`, `view/foo.rs`, with keys in `[foo]` of `keymap/default.toml`; it registers
//! as a row of `layer.rs` and a variant of [`state::Screen`], and the compiler points at every
//! arm still to write. Colours are roles of the theme, in `[theme]`. Nothing here knows how a
//! format is parsed: this layer uses the library below it (`model`, `formats`, `metrics`,
//! `diff`, `export`, `replay`, `backend`, `watch`, `text`) and is used only by `cli`.

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
pub mod panel;
mod runtime;
pub mod search;
pub mod state;
pub mod theme;
pub mod units;
pub mod update;
pub mod view;

pub use runtime::run;
