//! A loading indicator on stderr, shown only when loading takes more than a moment and
//! stderr is a terminal (never in pipes or CI logs).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use trajscope::formats::Progress;

pub struct Indicator {
    started: Instant,
    shown: Mutex<bool>,
    enabled: bool,
}

const DELAY: Duration = Duration::from_millis(400);

impl Indicator {
    pub fn new() -> Indicator {
        Indicator {
            started: Instant::now(),
            shown: Mutex::new(false),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn update(&self, progress: Progress) {
        if !self.enabled || self.started.elapsed() < DELAY {
            return;
        }
        if let Ok(mut shown) = self.shown.lock() {
            *shown = true;
            let mb = |b: u64| b as f64 / 1_048_576.0;
            eprint!(
                "\r\x1b[Kloading {}/{} files ({:.0}/{:.0} MB)",
                progress.files_done,
                progress.files_total,
                mb(progress.bytes_done),
                mb(progress.bytes_total)
            );
            let _ = std::io::stderr().flush();
        }
    }

    /// Clears the indicator line, if it was drawn.
    pub fn finish(&self) {
        if self.shown.lock().map(|s| *s).unwrap_or(false) {
            eprint!("\r\x1b[K");
        }
    }
}
