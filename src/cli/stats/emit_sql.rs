//! `trajscope stats --emit-sql duckdb|spark [--table DIR]`: the rules as one SQL query on
//! stdout; the rules it refuses, with the reason, on stderr (and atop the query).

use super::super::output::Out;
use anyhow::{Result, anyhow};
use std::path::Path;
use std::process::ExitCode;
use trajscope::metrics::Matcher;
use trajscope::table::sql::{Dialect, Source, emit};

pub fn print(matcher: &Matcher, engine: &str, table: Option<&Path>) -> Result<ExitCode> {
    let dialect = Dialect::from_name(engine).ok_or_else(|| anyhow!("unknown engine `{engine}`"))?;
    let folder = table.map(|t| t.display().to_string());
    let source = match &folder {
        Some(folder) => Source::Folder(folder),
        None => Source::Relations,
    };
    let emitted = emit(matcher, dialect, source).map_err(|e| anyhow!(e))?;
    for refusal in &emitted.refused {
        eprintln!(
            "trajscope: warning: rule `{}` left out of the {dialect} query: {}",
            refusal.rule, refusal.reason
        );
    }
    let mut out = Out::new();
    out.text(&emitted.sql)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
