//! `trajscope rules`: the built-in rule packs. `--list` (the default) shows each pack's name,
//! version, rules and source; `--show PACK` prints a pack's TOML, to read or to copy and edit.

use super::output::Out;
use anyhow::{Result, bail};
use std::process::ExitCode;
use trajscope::metrics::pack::{self, PACKS, PackInfo};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// List the built-in rule packs with their version and source (the default).
    #[arg(long)]
    pub list: bool,
    /// Print the TOML of a built-in pack.
    #[arg(long, value_name = "PACK", conflicts_with = "list")]
    pub show: Option<String>,
    /// With --list: print a JSON array, one object per pack.
    #[arg(long, conflicts_with = "show")]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let mut out = Out::new();
    if let Some(name) = &args.show {
        let Some(found) = pack::find(name) else {
            bail!(
                "no built-in rule pack `{name}` (packs: {})",
                pack::names().join(", ")
            );
        };
        out.text(found.text)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let infos: Vec<PackInfo> = PACKS.iter().map(|p| p.info()).collect();
    if args.json {
        out.line(format_args!("{}", serde_json::to_string_pretty(&infos)?))?;
    } else {
        for info in &infos {
            let classifiers = match info.classifiers.as_slice() {
                [] => String::new(),
                names => format!(", classifier {}", names.join(", ")),
            };
            out.line(format_args!(
                "{}  version {}  ({} rules{classifiers})",
                info.name, info.version, info.rules
            ))?;
            out.line(format_args!("    {}", info.description))?;
            out.line(format_args!("    source: {}", info.source))?;
        }
        out.line(format_args!(
            "\nUse a pack wherever a rule file goes: --rules PACK adds it to the defaults, --only-rules PACK counts it alone."
        ))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
