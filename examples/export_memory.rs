//! Peak memory of an export apart from loading: loads a trajectory, resets the kernel's
//! peak-RSS mark (Linux `clear_refs`), exports to a file, and reads the peak again.
//!
//!   cargo run --release --example export_memory -- /tmp/huge.traj [markdown|html] [--no-diffs]
//!
//! `scripts/gen-big.py trajectory /tmp/huge.traj --mb 200` makes a big input.

use std::io::BufWriter;
use trajscope::export::{ExportOptions, write_html, write_markdown};
use trajscope::formats::{Loaded, load_file};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .first()
        .ok_or("usage: export_memory FILE [markdown|html] [--no-diffs]")?;
    let html = args.iter().any(|a| a == "html");
    let diffs = !args.iter().any(|a| a == "--no-diffs");
    let Loaded::Trajectories(mut ts) = load_file(std::path::Path::new(path))? else {
        return Err("not a trajectory".into());
    };
    let t = ts.pop().ok_or("no trajectory in the file")?;
    let loaded_peak = kb("VmHWM")?;
    // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux 4.0+).
    std::fs::write("/proc/self/clear_refs", "5")?;
    let before = kb("VmRSS")?;
    let out = tempfile::tempfile()?;
    let mut w = BufWriter::new(out);
    let options = ExportOptions {
        diffs,
        ..ExportOptions::default()
    };
    let start = std::time::Instant::now();
    if html {
        write_html(&mut w, &t, &options)?;
    } else {
        write_markdown(&mut w, &t, &options)?;
    }
    let elapsed = start.elapsed();
    let written = w.get_ref().metadata()?.len();
    let peak = kb("VmHWM")?;
    println!(
        "{} steps; load peak {} MB; after load {} MB; export peak {} MB (+{} MB over the loaded \
         trajectory); wrote {} MB in {:.2} s",
        t.steps.len(),
        loaded_peak / 1024,
        before / 1024,
        peak / 1024,
        peak.saturating_sub(before) / 1024,
        written >> 20,
        elapsed.as_secs_f64()
    );
    Ok(())
}

/// A `/proc/self/status` field in kB.
fn kb(field: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .ok_or("no such field")?;
    Ok(line.split_whitespace().nth(1).ok_or("no value")?.parse()?)
}
