//! The command line: clap definitions and one file per subcommand. The only place (with
//! `main`) that prints, exits, or uses `anyhow`.

mod completions;
mod diff;
mod export;
mod grep;
mod ls;
mod output;
mod progress;
mod render;
mod replay;
mod results;
mod rules;
mod rules_arg;
mod show;
mod show_diff;
mod show_gold;
mod stats;
mod table;
mod table_cmd;
mod watch;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Read, count, diff, watch and replay the trajectories LLM agents leave behind.
///
/// Give it a trajectory file or a folder of them (an eval run). With no command it opens
/// them; with no path, the sample trajectories that ship with trajscope. Formats are
/// detected by content: SWE-agent, mini-swe-agent, OpenHands, Inspect AI, Claude Code,
/// Codex CLI, Aider, raw Llama-3 prompt logs, plain chat messages, and SWE-bench results.
#[derive(Debug, Parser)]
#[command(name = "trajscope", version = VERSION, about, long_about, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Files or folders to open (default: the bundled sample trajectories).
    paths: Vec<PathBuf>,
    /// Open two or more runs side by side, one path (folder or file) each: one column per
    /// run, one row per instance (R in the app does the same for the paths opened).
    #[arg(long, num_args = 2.., value_name = "RUN", conflicts_with = "paths")]
    runs: Vec<PathBuf>,
    /// A SWE-bench dataset (JSON or JSON lines with `instance_id` and `patch`): the working
    /// tree page (w) compares each step with the instance's gold patch.
    #[arg(long, value_name = "FILE")]
    dataset: Option<PathBuf>,
    /// The app's replay panel (r on a step): an ad-hoc backend's base URL (with --model),
    /// offered besides those of backends.toml.
    #[arg(long, value_name = "URL", requires = "model")]
    base_url: Option<String>,
    /// The ad-hoc backend's model name.
    #[arg(long, value_name = "NAME", requires = "base_url")]
    model: Option<String>,
    /// The environment variable holding the ad-hoc backend's key.
    #[arg(long, value_name = "VAR", requires = "base_url")]
    api_key_env: Option<String>,
    /// The replay panel's workspace for continuing live (the repository at its start).
    #[arg(long, value_name = "PATH")]
    workspace: Option<PathBuf>,
    /// The app's failure-mode rules: add a rule file, or a built-in pack (`trajscope rules
    /// --list`), to the defaults and the user's rules.
    #[arg(long, value_name = "FILE|PACK")]
    rules: Vec<PathBuf>,
    /// The app's failure-mode rules: a rule file or pack instead of the defaults and the
    /// user's rules.
    #[arg(long, value_name = "FILE|PACK")]
    only_rules: Vec<PathBuf>,
    #[command(flatten)]
    results: results::ResultsArg,
    /// Parquet datasets: which column holds what, for a layout other than the published
    /// SWE-agent, OpenHands and SWE-smith ones (`trajectory=messages,resolved=target`; fields:
    /// trajectory, instance_id, model, resolved, exit_status, patch). See docs/parquet.md.
    #[arg(long, global = true, value_name = "FIELD=COLUMN,…")]
    columns: Option<String>,
}

/// The version and the git revision it was built from (`unknown` outside a git checkout).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("TRAJSCOPE_GIT_REV"),
    ")"
);

const EXAMPLES: &str = "\
Examples:
  trajscope runs/my-eval/                 open a run
  trajscope --runs runs/a runs/b runs/c   three runs side by side, one row per instance
  trajscope ls runs/my-eval/ --json       one JSON object per trajectory
  trajscope show x.traj --step 3 --context   what the model saw at step 3
  trajscope show x.traj --diff            what each step changed in the files
  trajscope diff a.traj b.traj            where two runs of one task diverge
  trajscope stats runs/my-eval/           failure modes, split by resolved
  trajscope rules --list                  built-in rule packs (published taxonomies)
  trajscope grep -e '^Traceback' runs/my-eval/   every match, step by step
  trajscope export x.traj -o x.html       one self-contained page to share
  trajscope replay x.traj --step 3 --resample 4 --backend local   ask the model again";

#[derive(Debug, Subcommand)]
enum Command {
    /// List trajectories: format, steps, exit status, resolved, cost, tokens, patch size.
    Ls(ls::Args),
    /// Print a trajectory's steps (thought, action, observation), or one step.
    Show(show::Args),
    /// Find a pattern in the steps of trajectories: trajectory, step, field, line, snippet.
    Grep(grep::Args),
    /// Count failure modes across a run by rules (TOML), split by resolved; compare two runs.
    Stats(stats::Args),
    /// Compare two trajectories of the same task: step alignment, first divergence, patches.
    Diff(diff::Args),
    /// The built-in rule packs (published failure taxonomies): list them, print one.
    Rules(rules::Args),
    /// Follow growing logs and print each new step as it is written.
    Watch(watch::Args),
    /// Export a trajectory (or some steps) as Markdown for an issue or as one HTML page.
    Export(export::Args),
    /// Re-run from a step against a live model: resample its answer, or continue the agent.
    Replay(replay::Args),
    /// Write a run as Parquet tables (steps, trajectories) for DuckDB and Spark.
    Table(table_cmd::Args),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    #[command(hide = true)]
    Completions(completions::CompletionArgs),
    /// Print the man page (or write all of them with --dir).
    #[command(hide = true)]
    Man(completions::ManArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("trajscope: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    if let Some(spec) = &cli.columns {
        trajscope::formats::parquet::use_columns(spec).map_err(anyhow::Error::msg)?;
    }
    match cli.command {
        Some(Command::Ls(args)) => ls::run(args),
        Some(Command::Show(args)) => show::run(args),
        Some(Command::Grep(args)) => grep::run(args),
        Some(Command::Stats(args)) => stats::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Rules(args)) => rules::run(args),
        Some(Command::Watch(args)) => watch::run(args),
        Some(Command::Export(args)) => export::run(args),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::Table(args)) => table_cmd::run(args),
        Some(Command::Completions(args)) => completions::completions(args),
        Some(Command::Man(args)) => completions::man(args),
        None => {
            let compare_runs = !cli.runs.is_empty();
            let paths = if compare_runs {
                cli.runs
            } else if cli.paths.is_empty() {
                vec![sample_trajectories()]
            } else {
                cli.paths
            };
            if let Some(missing) = paths.iter().find(|p| !p.exists()) {
                anyhow::bail!("{}: no such file or folder", missing.display());
            }
            // The app needs a terminal on both ends; in a pipe, the listing is what is useful.
            if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
                let mut config =
                    trajscope::tui::config::Config::load_with_rules(cli.rules, cli.only_rules);
                config.replay.ad_hoc = trajscope::backend::AdHoc {
                    base_url: cli.base_url,
                    model: cli.model,
                    kind: None,
                    api_key_env: cli.api_key_env,
                };
                config.replay.workspace = cli.workspace;
                config.named_results = cli.results.named()?;
                config.compare_runs = compare_runs;
                if let Some(path) = &cli.dataset {
                    config.gold = Some(std::sync::Arc::new(stats::load_dataset(path)?));
                }
                trajscope::tui::run(paths, config)?;
                Ok(ExitCode::SUCCESS)
            } else {
                ls::run(ls::Args {
                    paths,
                    json: false,
                    no_cache: false,
                    results: cli.results,
                    filter: None,
                })
            }
        }
    }
}

/// The bundled samples: `./sample-trajectories` when run from the source tree, else the
/// copy next to the crate's manifest.
pub fn sample_trajectories() -> PathBuf {
    let local = PathBuf::from("sample-trajectories");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-trajectories")
    }
}
