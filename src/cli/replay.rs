//! `trajscope replay`: resample step k against live backends, or continue the agent live from
//! step k in a scratch copy of its repository; every run is written as a fork next to the
//! original, whose path ends the output. The work itself is in `trajscope::replay`.

mod backends;
mod confirm;
mod continue_live;
mod edit;
mod report;
mod resample;

use super::show::open;
use anyhow::{Context, Result, bail};
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::process::ExitCode;
use trajscope::backend::{BackendKind, CancellationToken, Sampling};
use trajscope::model::Trajectory;
use trajscope::replay::input::{StepInput, context_at};

#[derive(Debug, ClapArgs)]
#[command(after_help = "\
Examples:
  trajscope replay x.traj.json --step 3 --dry-run            the exact request, not sent
  trajscope replay x.traj.json --step 3 --resample 4 --backend local
  trajscope replay x.traj.json --step 3 --continue --workspace ~/src/repo --max-steps 10 \\
      --base-url http://127.0.0.1:8080 --model smollm2       asks first; runs in bubblewrap
  trajscope replay x.traj.json --step 3 --continue --workspace ~/src/repo --edit-answer --yes")]
pub struct Args {
    /// The trajectory (`FILE#N` picks one of a file holding several).
    pub file: PathBuf,
    /// The 1-based step to re-run from (its context is what the model is sent).
    #[arg(long, short = 's')]
    pub step: usize,
    /// Ask N times (per backend). Without --continue: answers only, nothing runs.
    #[arg(long, value_name = "N")]
    pub resample: Option<usize>,
    /// Replay steps 1..K-1 in a scratch copy, then let the model act from step K.
    #[arg(long = "continue")]
    pub continue_live: bool,
    /// Named backends from backends.toml (repeatable); default: the file's default.
    #[arg(long = "backend", value_name = "NAME")]
    pub backends: Vec<String>,
    /// An ad-hoc backend: its base URL (with --model).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    #[arg(long, value_name = "openai|anthropic")]
    pub kind: Option<BackendKind>,
    /// The environment variable holding the ad-hoc backend's key.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Sampling overrides.
    #[arg(long)]
    pub temperature: Option<f64>,
    /// A seed (sample i of a resample gets seed + i - 1).
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u32>,
    /// The repository the agent worked on, at its starting state (--continue).
    #[arg(long, value_name = "PATH")]
    pub workspace: Option<PathBuf>,
    /// Run commands through this prefix in a container you started (`docker exec -i NAME`).
    #[arg(long, value_name = "CMD")]
    pub exec_prefix: Option<String>,
    /// Where the log says the repository was (default: detected from the log).
    #[arg(long, value_name = "PATH")]
    pub recorded_root: Option<String>,
    /// Edit the context (JSON messages) in $EDITOR before sending.
    #[arg(long)]
    pub edit: bool,
    /// Write step K's answer yourself in $EDITOR (from the recorded one); it runs instead of
    /// the model's, then the model continues (--continue).
    #[arg(long)]
    pub edit_answer: bool,
    /// Run without asking first (--continue asks before executing anything).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Run the commands on this machine, unprotected, when no sandbox is wanted or available.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Let the sandboxed commands reach the network (off by default).
    #[arg(long)]
    pub network: bool,
    /// One more path the sandboxed commands may read (repeatable; read-only).
    #[arg(long = "bind", value_name = "PATH")]
    pub binds: Vec<PathBuf>,
    /// Live model calls before the run is stopped (--continue).
    #[arg(long, value_name = "M", default_value_t = 20)]
    pub max_steps: usize,
    /// Dollars before the run is stopped, when the backend reports cost.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Seconds of wall time per live run.
    #[arg(long, value_name = "S", default_value_t = 1800)]
    pub max_time: u64,
    /// Print the exact request that would be sent (and the prefix plan); send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// One JSON object on stdout.
    #[arg(long)]
    pub json: bool,
    /// The trajectory of a file holding several (1-based).
    #[arg(long, value_name = "N")]
    pub trajectory: Option<usize>,
}

impl Args {
    fn sampling(&self) -> Sampling {
        Sampling {
            temperature: self.temperature,
            seed: self.seed,
            max_tokens: self.max_tokens,
            ..Sampling::default()
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let trajectory = open(&args.file, args.trajectory)?;
    let input = step_input(&trajectory, args.step)?;
    let input = if args.edit { edit::edit(input)? } else { input };
    if args.edit_answer && !args.continue_live {
        bail!("--edit-answer runs the answer you write: use it with --continue");
    }
    let backends = backends::resolve(&args)?;
    if args.dry_run {
        return report::dry_run(&args, &trajectory, &input, &backends);
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let cancel = CancellationToken::new();
    runtime.block_on(async {
        let on_signal = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                on_signal.cancel();
            }
        });
        let live = report::Live {
            args: &args,
            t: &trajectory,
            input: &input,
            backends: &backends,
            cancel: &cancel,
        };
        if args.continue_live {
            continue_live::run(live).await
        } else {
            resample::run(live).await
        }
    })
}

fn step_input(t: &Trajectory, step: usize) -> Result<StepInput> {
    match context_at(t, step) {
        Some(input) if !input.messages.is_empty() => Ok(input),
        Some(_) => bail!(
            "{}: step {step} has no context and the log holds no task to rebuild one from",
            t.display_source()
        ),
        None => bail!(
            "{}: no step {step}; steps are numbered 1 to {} (or {} to continue after the end)",
            t.display_source(),
            t.steps.len(),
            t.steps.len() + 1
        ),
    }
}
