//! Work over many files at once for a job that reports file by file (grep): in parallel,
//! in order, and stopping when cancelled.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Runs `work(item)` for every item, as many at once as there are cores, handing each
/// result to `done` in the items' order as each group finishes. Stops starting work when
/// cancelled; work already started still finishes and is handed over.
pub fn for_each_file<I: Send, R: Send>(
    items: Vec<I>,
    cancel: &AtomicBool,
    work: impl Fn(I) -> R + Sync,
    mut done: impl FnMut(R),
) {
    let parallel = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() && !cancel.load(Ordering::Relaxed) {
        let group: Vec<I> = items.by_ref().take(parallel).collect();
        let results: Vec<Option<R>> = group
            .into_par_iter()
            .map(|item| (!cancel.load(Ordering::Relaxed)).then(|| work(item)))
            .collect();
        results.into_iter().flatten().for_each(&mut done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_cancelled_run_load_stops_starting_files() {
        let cancel = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicUsize::new(0));
        let total = 500;
        let mut finished = 0;
        for_each_file(
            (0..total).collect(),
            &cancel,
            |_: usize| {
                started.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(2));
            },
            |()| {
                finished += 1;
                // As when the user leaves the run: the runtime sets the task's flag.
                cancel.store(true, Ordering::SeqCst);
            },
        );
        let started = started.load(Ordering::SeqCst);
        let parallel = std::thread::available_parallelism().map_or(2, |n| n.get());
        assert!(
            started <= 2 * parallel,
            "{started} of {total} files started after cancelling"
        );
        assert_eq!(finished, started, "files in flight still finish");
    }
}
