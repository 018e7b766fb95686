//! Loaders: the bytes of an agent's log → [`Trajectory`] values, one file per format.
//!
//! Detection is by content ([`detect`]), never by file name alone. Loaders are lenient where
//! real files are messy (a torn last line, a missing field: a warning on the trajectory) and
//! strict where guessing would lie (a file of another kind: an error naming it). Nothing here
//! panics, prints, or writes: files are opened read-only.

mod action;
mod aider;
mod budget;
mod chat_messages;
mod claude_code;
mod codex;
mod copilot_cli;
mod cursor;
mod detect;
mod discover;
mod droid;
mod error;
mod error_head;
mod eval_results;
mod file_bytes;
mod gemini_cli;
mod hf_trace;
mod inspect_ai;
mod json;
mod kimi_cli;
mod lazy;
mod llama_prompt;
mod load;
mod mini_swe_agent;
mod opencode;
mod openhands;
mod otel_genai;
pub mod parquet;
mod pythonic;
mod raw;
pub(crate) mod raw_json;
mod raw_summary;
mod read_count;
mod results_search;
mod revisit;
mod run_cache;
mod run_loader;
mod scan;
mod stream;
mod swe_agent;
mod task;
mod text_logs;
mod tool_steps;
mod trajscope;
mod turns;
mod visit;

pub use budget::{BUDGET_ENV, check_fits, memory_budget};
pub use detect::{Kind, ResultsKind, detect, is_json_lines};
pub use discover::{Candidate, discover, is_candidate_file};
pub use error::LoadError;
pub use eval_results::parse as parse_results;
pub use file_bytes::with_file_bytes;
pub use inspect_ai::{
    SampleLog, may_be_json_log as may_be_inspect_log, open_json_log as open_inspect_log,
    read_json_log as read_inspect_log,
};
pub use lazy::{
    LAZY_ABOVE, LAZY_ENV, bounded_summaries, lazy_above, open_first, open_found_counted, open_lazy,
    open_lazy_counted, open_lazy_quietly, opens_lazily,
};
pub use load::{
    Loaded, Progress, load_bytes, load_bytes_with, load_file, load_file_with, load_run,
    load_run_summaries,
};
pub use mini_swe_agent::{MiniSparse, read_sparse as read_mini_sparse};
pub(crate) use raw_json::unescape_short;
pub use raw_summary::raw_summary;
pub use results_search::{named_results, results_above};
pub use revisit::open_revisited;
pub use run_cache::{CacheEntry, CachedOutcome, RunCache, file_stamp, metadata_stamp};
pub use run_loader::{FileRead, Handover, read_run_files};
pub use stream::LazyOpen;
pub use stream::{
    AppendedLog, SLIM_ABOVE, StepAt, open as open_bounded, read as read_bounded, step_at,
    visit as visit_bounded, visit_traces as visit_traces_bounded,
};
pub use swe_agent::{LongText, Look, Skipped, Wanted, read_sparse};
pub use text_logs::{
    Out as TextLogOut, is_big_text_log, summaries as text_log_summaries, visit as visit_text_log,
};
pub use visit::{StepCount, is_big, trace_at, visit_steps, visit_traces};

use crate::model::{Format, Trajectory};
use std::path::Path;

/// How much of a trajectory a reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// Everything: steps, the messages the model saw, step contexts.
    #[default]
    Full,
    /// The steps and the trajectory's own fields: all that a summary or a tally reads. The
    /// message pool, the task and step contexts may be left empty where skipping them saves
    /// time (SWE-agent `history`, `query`, `messages`).
    Steps,
}

/// Parses `bytes` (read from `path`) as `format`.
pub fn parse(format: Format, path: &Path, bytes: &[u8]) -> Result<Vec<Trajectory>, LoadError> {
    parse_with(format, path, bytes, Detail::Full)
}

/// Parses `bytes` (read from `path`) as `format`, reading what `detail` asks for.
pub fn parse_with(
    format: Format,
    path: &Path,
    bytes: &[u8],
    detail: Detail,
) -> Result<Vec<Trajectory>, LoadError> {
    let mut trajectories = match format {
        Format::SweAgent => swe_agent::parse_with(path, bytes, detail),
        Format::MiniSweAgent => mini_swe_agent::parse(path, bytes),
        Format::OpenHands => openhands::parse(path, bytes),
        Format::InspectAi => inspect_ai::parse(path, bytes),
        Format::ClaudeCode => claude_code::parse(path, bytes),
        Format::Codex => codex::parse(path, bytes),
        Format::Aider => aider::parse(path, bytes),
        Format::LlamaPrompt => llama_prompt::parse(path, bytes),
        Format::ChatMessages => chat_messages::parse(path, bytes),
        Format::GeminiCli => gemini_cli::parse(path, bytes),
        Format::CopilotCli => copilot_cli::parse(path, bytes),
        Format::KimiCli => kimi_cli::parse(path, bytes),
        Format::Cursor => cursor::parse(path, bytes),
        Format::OpenCode => opencode::parse(path, bytes),
        Format::Droid => droid::parse(path, bytes),
        Format::HfTrace => hf_trace::parse(path, bytes),
        Format::OtelGenai => otel_genai::parse(path, bytes),
        Format::Trajscope => trajscope::parse(path, bytes),
    }?;
    for trajectory in &mut trajectories {
        trajectory.number_steps();
    }
    Ok(trajectories)
}
