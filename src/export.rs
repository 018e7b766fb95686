//! Sharing a trajectory with people who do not run trajscope: as GitHub-flavoured Markdown
//! to paste into an issue ([`write_markdown`]), or as one self-contained HTML page with no
//! network access and no external assets ([`write_html`]); and a run's tallies as an HTML
//! report with a bar chart ([`write_report_html`], or in text for Markdown: [`text_chart`]).
//!
//! Exports stream to an `io::Write` step by step: memory beyond the loaded trajectory is
//! one step's worth (plus the diff reconstruction when diffs are on), whatever the
//! trajectory's size. Everything taken from a log is cleaned of terminal escapes and control
//! characters ([`clean`]) and escaped for its format; no log text is written raw.
//!
//! Uses `model` and `diff`. Knows nothing of the metrics engine: the rules a step matched
//! come in as [`ExportOptions::badges`], built by [`crate::present::StepBadges`]. No printing, no terminal, no files opened.

mod bars;
mod clean;
mod error;
#[cfg(test)]
mod fixture;
mod html;
mod markdown;
mod options;
mod report;

pub use bars::text_chart;
pub use clean::{clean, cleaned};
pub use error::ExportError;
pub use html::write_html;
pub use markdown::write_markdown;
pub use options::{ExportOptions, StepRange};
pub use report::{Bar, Report, ReportTable, write_report_html};
