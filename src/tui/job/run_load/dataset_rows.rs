//! A Parquet dataset's rows reach the app while the file is still being read: a shard of
//! 25,000 trajectories takes minutes to decode and tally, and the table should show its
//! first rows at once. Rows go out as [`Msg::RunRows`], the first after 64 rows or a tenth
//! of a second, whichever comes first, then at doubling intervals (up to two seconds), so
//! that a big file costs tens of
//! messages (each re-sorts the table), not thousands; the file's last rows come back with
//! its outcome, so the file counts as read once. Like `stats`, the file is walked a batch of
//! rows at a time and each trajectory is dropped once summarised and tallied. Parquet files
//! are not kept in the run cache (what a row means depends on `--columns`).

use crate::formats::CachedOutcome;
use crate::formats::parquet;
use crate::metrics::{Matcher, TalliedFile, TrajectoryTally};
use crate::model::TrajectorySummary;
use crate::tui::msg::Msg;
use std::path::Path;
use std::time::{Duration, Instant};

/// The first rows are sent once there are this many, or after the first wait; then the
/// wait doubles up to the longest.
const FIRST_ROWS: usize = 64;
const FIRST_WAIT: Duration = Duration::from_millis(100);
const LONGEST_WAIT: Duration = Duration::from_secs(2);

/// Summarises and tallies every row of the Parquet file `path`, sending rows as they are
/// done; what is left when the file ends (or fails) is returned with its outcome.
pub fn stream(path: &Path, rules: &Matcher, send: &(dyn Fn(Msg) -> bool + Sync)) -> TalliedFile {
    let mut rows: Vec<TrajectorySummary> = Vec::new();
    let mut tallies: Vec<TrajectoryTally> = Vec::new();
    let mut since = Instant::now();
    let mut wait = FIRST_WAIT;
    let mut first = true;
    let read = parquet::visit(path, &mut |trajectory| {
        rows.push(TrajectorySummary::of(&trajectory));
        tallies.push(TrajectoryTally::of(rules, &trajectory));
        if since.elapsed() >= wait || (first && rows.len() >= FIRST_ROWS) {
            first = false;
            send(Msg::RunRows {
                rows: std::mem::take(&mut rows),
                tallies: std::mem::take(&mut tallies),
            });
            since = Instant::now();
            wait = (wait * 2).min(LONGEST_WAIT);
        }
    });
    let outcome = match read {
        Ok(_) => CachedOutcome::Trajectories(rows),
        Err(err) => {
            // The rows read before the damage stay listed, as those already sent do.
            if !rows.is_empty() {
                send(Msg::RunRows {
                    rows,
                    tallies: std::mem::take(&mut tallies),
                });
            }
            CachedOutcome::Failed(err.to_string())
        }
    };
    TalliedFile {
        outcome,
        tallies,
        read: true,
        fresh: None,
    }
}
