//! `trajscope grep PATTERN PATH...`: every match with its trajectory, step, field and line,
//! like `rg`, but step-aware.

use super::output::Out;
use anyhow::{Result, bail};
use rayon::prelude::*;
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use trajscope::formats::{Loaded, discover, load_file};
use trajscope::metrics::{Case, Field, GrepHit, Query, Search};
use trajscope::model::Trajectory;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to look for: a regular expression, or literal text when it is not a valid one.
    /// Lower case ignores case; a capital makes the pattern exact.
    pub pattern: String,
    /// Trajectory files or folders (searched recursively).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// PATTERN must be a valid regular expression (Rust syntax; ^ and $ match at line
    /// ends): an invalid one is an error instead of literal text.
    #[arg(short = 'e', long)]
    pub regex: bool,
    /// Match case-insensitively, whatever the case of PATTERN.
    #[arg(short = 'i', long, conflicts_with = "case_sensitive")]
    pub ignore_case: bool,
    /// Match case exactly, even a PATTERN in lower case.
    #[arg(short = 's', long)]
    pub case_sensitive: bool,
    /// Where to look: observation, action, thought, response, tool, user, or any.
    #[arg(short = 'f', long, default_value = "any", value_parser = parse_field)]
    pub field: Field,
    /// Print one JSON object per match (JSON lines).
    #[arg(long)]
    pub json: bool,
    /// Print per trajectory the number of matches and of steps with a match.
    #[arg(short = 'c', long, conflicts_with = "json")]
    pub count: bool,
}

pub fn parse_field(name: &str) -> Result<Field, String> {
    Field::from_name(name).ok_or_else(|| {
        format!("unknown field `{name}` (one of observation, action, thought, response, tool, user, any)")
    })
}

/// A trajectory (its steps dropped) and its matches.
type Found = (Trajectory, Vec<GrepHit>);

#[derive(Serialize)]
struct JsonHit<'a> {
    path: &'a Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    instance_id: &'a str,
    step: usize,
    field: Field,
    line: usize,
    start: usize,
    end: usize,
    text: String,
    #[serde(rename = "match")]
    matched: &'a str,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let case = match (args.ignore_case, args.case_sensitive) {
        (true, _) => Case::Ignore,
        (_, true) => Case::Exact,
        _ => Case::Smart,
    };
    let search = match Query::with(&args.pattern, case, args.regex) {
        Ok(query) => Search::new(query, args.field),
        Err(err) => bail!("{err}"),
    };
    let (candidates, failures) = discover(&args.paths);
    let mut failures: Vec<String> = failures.into_iter().map(|f| f.message).collect();
    let found: Vec<Result<Vec<Found>, String>> = candidates
        .par_iter()
        .map(|c| match load_file(&c.path) {
            Ok(Loaded::Trajectories(ts)) => Ok(ts
                .into_iter()
                .map(|mut t| {
                    let hits = search.find(&t);
                    // Only the names are printed: drop the steps early.
                    t.steps = Vec::new();
                    t.messages = Vec::new();
                    (t, hits)
                })
                .filter(|(_, hits)| !hits.is_empty())
                .collect()),
            Ok(Loaded::Results(_)) => Ok(Vec::new()),
            Err(err) => Err(err.to_string()),
        })
        .collect();

    let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = Out::new();
    let mut matched = false;
    for result in found {
        let trajectories = match result {
            Ok(ts) => ts,
            Err(message) => {
                failures.push(message);
                continue;
            }
        };
        for (t, hits) in trajectories {
            matched = true;
            let source = t.display_source();
            if args.count {
                let mut steps: Vec<usize> = hits.iter().map(|h| h.step).collect();
                steps.dedup();
                out.line(format_args!("{source}:{}:{}", hits.len(), steps.len()))?;
                continue;
            }
            for hit in &hits {
                if args.json {
                    let row = JsonHit {
                        path: &t.path,
                        index: t.source_index.map(|i| i + 1),
                        instance_id: &t.instance_id,
                        step: hit.step,
                        field: hit.field,
                        line: hit.line,
                        start: hit.start,
                        end: hit.end,
                        text: hit.snippet(),
                        matched: &hit.matched,
                    };
                    out.line(format_args!("{}", serde_json::to_string(&row)?))?;
                } else if colour {
                    out.line(format_args!(
                        "\x1b[35m{source}\x1b[0m:\x1b[32m{}\x1b[0m:{}:{}:{}\x1b[1;31m{}\x1b[0m{}",
                        hit.step, hit.field, hit.line, hit.before, hit.matched, hit.after
                    ))?;
                } else {
                    out.line(format_args!(
                        "{source}:{}:{}:{}:{}",
                        hit.step,
                        hit.field,
                        hit.line,
                        hit.snippet()
                    ))?;
                }
            }
        }
    }
    out.flush()?;
    for failure in &failures {
        eprintln!("trajscope: {failure}");
    }
    let _ = std::io::stderr().flush();
    Ok(if !failures.is_empty() {
        ExitCode::from(2)
    } else if matched {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
