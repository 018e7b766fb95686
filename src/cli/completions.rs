//! `trajscope completions SHELL` and `trajscope man [--dir DIR]`: shell completions and
//! man pages generated from the clap definition, so they never drift from the CLI. Hidden
//! from the main help: packagers and the install notes in docs/export.md call them.

use anyhow::{Context as _, Result};
use clap::CommandFactory as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct CompletionArgs {
    /// bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write trajscope.1 and one page per subcommand (trajscope-show.1, …) into DIR
    /// instead of printing trajscope.1.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn completions(args: CompletionArgs) -> Result<ExitCode> {
    let mut command = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "trajscope", &mut out);
    write_stdout(&out)
}

pub fn man(args: ManArgs) -> Result<ExitCode> {
    let command = super::Cli::command();
    match args.dir {
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("{}: cannot create", dir.display()))?;
            clap_mangen::generate_to(command, &dir)
                .with_context(|| format!("{}: cannot write the man pages", dir.display()))?;
            eprintln!("trajscope: wrote man pages to {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(command).render(&mut out)?;
            write_stdout(&out)
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(ExitCode::SUCCESS)
}
