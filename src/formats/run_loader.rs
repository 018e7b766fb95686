//! The one way a whole run is read: its discovered files go through the run cache and a
//! parallel read, with progress reported through a callback and a cancel flag checked before
//! each file. What a file becomes (a full trajectory, a summary, a tally, a TUI message) is
//! the caller's `read`; discovery, order, cache upkeep, progress and cancelling are here.
//!
//! `ls`, `stats`, `formats::load_run` and the TUI (its runtime and its test harness alike)
//! all load through [`read_run_files`]; none of them walks the files itself.

use super::discover::Candidate;
use super::load::Progress;
use super::run_cache::{CacheEntry, RunCache};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// What `read` made of one file, and the cache entry to keep for it (when it was read and
/// the cache keeps entries; `None` when it came from the cache).
pub struct FileRead<T> {
    pub item: T,
    pub fresh: Option<CacheEntry>,
}

/// How the files of a run are handed back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handover {
    /// All at once, at the end: the fastest (no pause between groups of files).
    Whole,
    /// In groups of this many files, in discovery order, as each group is done: a screen
    /// fills in as the run loads, and the same files always arrive in the same order.
    Groups(usize),
}

/// Reads every candidate with `read` (given the cache, to take an unchanged file from it),
/// in parallel, and hands the items to `take` in discovery order. Each file read is
/// reported to `on_progress`. Entries for files read are put in `cache`; when every file
/// was done, entries of files no longer present are dropped (the caller saves the cache).
///
/// Returns `false` when `cancel` was set before the end: files not yet started are then
/// never read, and `take` does not see them.
pub fn read_run_files<T: Send>(
    candidates: &[Candidate],
    cache: &mut RunCache,
    cancel: &AtomicBool,
    handover: Handover,
    read: impl Fn(&Candidate, &RunCache) -> FileRead<T> + Sync,
    on_progress: &(dyn Fn(Progress) + Sync),
    mut take: impl FnMut(Vec<T>),
) -> bool {
    let files_total = candidates.len();
    let bytes_total: u64 = candidates.iter().map(|c| c.size).sum();
    let files_done = AtomicUsize::new(0);
    let bytes_done = AtomicU64::new(0);
    let group = match handover {
        Handover::Whole => candidates.len().max(1),
        Handover::Groups(n) => n.max(1),
    };
    let mut complete = true;
    for chunk in candidates.chunks(group) {
        let shared: &RunCache = cache;
        let done: Vec<Option<(FileRead<T>, &Candidate)>> = chunk
            .par_iter()
            .map(|candidate| {
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                let file = read(candidate, shared);
                on_progress(Progress {
                    files_done: files_done.fetch_add(1, Ordering::Relaxed) + 1,
                    files_total,
                    bytes_done: bytes_done.fetch_add(candidate.size, Ordering::Relaxed)
                        + candidate.size,
                    bytes_total,
                });
                Some((file, candidate))
            })
            .collect();
        let mut items = Vec::with_capacity(done.len());
        for file in done {
            let Some((file, candidate)) = file else {
                complete = false;
                continue;
            };
            if let Some(entry) = file.fresh {
                cache.put(candidate.path.clone(), entry);
            }
            items.push(file.item);
        }
        take(items);
        if !complete || cancel.load(Ordering::Relaxed) {
            complete = false;
            break;
        }
    }
    if complete {
        let present: std::collections::HashSet<&std::path::Path> =
            candidates.iter().map(|c| c.path.as_path()).collect();
        cache.retain(|p| present.contains(p));
    }
    complete
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn candidates(n: usize) -> Vec<Candidate> {
        (0..n)
            .map(|i| Candidate {
                path: PathBuf::from(format!("/nowhere/{i}.json")),
                size: 10,
            })
            .collect()
    }

    #[test]
    fn items_arrive_in_discovery_order_in_groups() {
        let files = candidates(25);
        let mut groups = Vec::new();
        let complete = read_run_files(
            &files,
            &mut RunCache::disabled(),
            &AtomicBool::new(false),
            Handover::Groups(10),
            |c, _| FileRead {
                item: c.path.clone(),
                fresh: None,
            },
            &|_| {},
            |items| groups.push(items),
        );
        assert!(complete);
        assert_eq!(groups.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 5]);
        let order: Vec<PathBuf> = groups.into_iter().flatten().collect();
        assert_eq!(
            order,
            files.iter().map(|c| c.path.clone()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn progress_counts_every_file_and_byte() {
        let files = candidates(7);
        let last = std::sync::Mutex::new(None);
        read_run_files(
            &files,
            &mut RunCache::disabled(),
            &AtomicBool::new(false),
            Handover::Whole,
            |_, _| FileRead {
                item: (),
                fresh: None,
            },
            &|p| {
                let mut last = last.lock().unwrap();
                if last.is_none_or(|l: Progress| l.files_done < p.files_done) {
                    *last = Some(p);
                }
            },
            |_| {},
        );
        let last = last.into_inner().unwrap().unwrap();
        assert_eq!((last.files_done, last.files_total), (7, 7));
        assert_eq!((last.bytes_done, last.bytes_total), (70, 70));
    }

    #[test]
    fn a_cancel_stops_starting_files() {
        let files = candidates(400);
        let cancel = AtomicBool::new(false);
        let started = AtomicUsize::new(0);
        let mut taken = 0;
        let complete = read_run_files(
            &files,
            &mut RunCache::disabled(),
            &cancel,
            Handover::Groups(8),
            |_, _| {
                started.fetch_add(1, Ordering::SeqCst);
                // As when the user leaves the run while it loads.
                cancel.store(true, Ordering::SeqCst);
                FileRead {
                    item: (),
                    fresh: None,
                }
            },
            &|_| {},
            |items| taken += items.len(),
        );
        assert!(!complete);
        let started = started.load(Ordering::SeqCst);
        assert!(
            started <= 8,
            "{started} of 400 files started after cancelling"
        );
        assert_eq!(taken, started, "files in flight are still handed over");
    }
}
