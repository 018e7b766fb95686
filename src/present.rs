//! How a step, a diff and a step's badges are shown, as rows that know their kind but not
//! their style: the one source that the TUI document builder, the CLI text and the
//! Markdown/HTML exports style, so that what one output shows the others show too.
//!
//! Uses `model`, `metrics` and `diff`; knows nothing of terminals, colours, HTML or async.

mod badges;
mod diff_rows;
pub mod facts;
pub mod language;
pub mod model_input;
pub mod sections;
pub mod syntax;

pub use badges::{LABEL_PREFIX, StepBadges};
pub use diff_rows::{DiffRow, DiffRowKind, for_each_row};
