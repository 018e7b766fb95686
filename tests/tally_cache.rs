//! Tallies kept in the run cache: a second tally of an unchanged run takes them from the
//! cache, a changed file is read again, a corrupt cache or a cached tally that does not
//! decode is ignored; a cancelled tally stops reading files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use trajscope::formats::RunCache;
use trajscope::metrics::{
    Matcher, RuleOptions, RuleSet, TalliedRun, tally_cache_key, tally_run, tally_run_cached,
};

fn write_traj(path: &Path, missing: usize) {
    let trajectory: Vec<_> = (0..missing + 1)
        .map(|i| {
            let observation = if i < missing {
                "cat: x.py: No such file or directory"
            } else {
                "ok"
            };
            json!({"action": format!("cat x{i}.py"), "observation": observation, "response": "", "thought": ""})
        })
        .collect();
    let doc = json!({"environment": "swe_main", "trajectory": trajectory, "history": [], "info": {"exit_status": "submitted"}});
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

fn matcher() -> Arc<Matcher> {
    let set = RuleSet::load(&RuleOptions::default());
    Arc::new(Matcher::new(set.rules).0)
}

fn tally(roots: &[PathBuf], cache_dir: &Path, matcher: &Arc<Matcher>) -> TalliedRun {
    let mut cache = RunCache::open(cache_dir, roots);
    let never = AtomicBool::new(false);
    let run = tally_run_cached(roots, matcher.clone(), &mut cache, &never, &|_| {}).unwrap();
    cache.save().unwrap();
    run
}

/// Matches of `file_not_found` per instance, sorted.
fn missing(run: &TalliedRun, matcher: &Matcher) -> Vec<(String, u32)> {
    let rule = matcher.id("file_not_found").unwrap();
    let mut rows: Vec<(String, u32)> = run
        .tally
        .trajectories()
        .iter()
        .map(|t| {
            let n = t.hits.iter().filter(|h| h.rule == rule).map(|h| h.matches);
            (t.instance_id.clone(), n.sum())
        })
        .collect();
    rows.sort();
    rows
}

fn cache_file(cache_dir: &Path) -> PathBuf {
    let mut files: Vec<_> = std::fs::read_dir(cache_dir.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    files.remove(0)
}

#[test]
fn tallies_come_from_the_cache_until_a_file_changes() {
    let run = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let roots = vec![run.path().to_path_buf()];
    let a = run.path().join("a.traj");
    write_traj(&a, 2);
    write_traj(&run.path().join("b.traj"), 3);
    let matcher = matcher();

    let fresh = tally_run(&roots, matcher.clone(), &|_| {});
    let first = tally(&roots, cache_dir.path(), &matcher);
    assert_eq!(
        missing(&first, &matcher),
        [("a".into(), 2), ("b".into(), 3)]
    );
    assert_eq!(first.tally.trajectories(), fresh.tally.trajectories());
    let second = tally(&roots, cache_dir.path(), &matcher);
    assert_eq!(second.tally.trajectories(), fresh.tally.trajectories());

    // Proof that the second tally of `a` is the cached one: a marked cache entry shows up.
    let file = cache_file(cache_dir.path());
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let key = tally_cache_key(&matcher);
    let entry = &mut doc["entries"][a.to_str().unwrap()];
    assert_eq!(entry["outcome"]["trajectories"][0]["steps"], 3);
    let mut tallies: Value = serde_json::from_str(entry["extras"][&key].as_str().unwrap()).unwrap();
    tallies[0]["instance_id"] = json!("marked");
    entry["extras"][&key] = json!(tallies.to_string());
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let marked = tally(&roots, cache_dir.path(), &matcher);
    assert_eq!(
        missing(&marked, &matcher),
        [("b".into(), 3), ("marked".into(), 2)]
    );

    // A changed file is read again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write_traj(&a, 5);
    let changed = tally(&roots, cache_dir.path(), &matcher);
    assert_eq!(
        missing(&changed, &matcher),
        [("a".into(), 5), ("b".into(), 3)]
    );

    // Other rules have their own key: nothing of the old tally is reused.
    let only_missing = Arc::new(
        Matcher::new(
            matcher
                .rules()
                .iter()
                .filter(|r| r.name == "file_not_found")
                .cloned()
                .collect(),
        )
        .0,
    );
    assert_ne!(tally_cache_key(&only_missing), key);
    let other = tally(&roots, cache_dir.path(), &only_missing);
    assert_eq!(
        missing(&other, &only_missing),
        [("a".into(), 5), ("b".into(), 3)]
    );
}

#[test]
fn a_corrupt_cache_or_cached_tally_is_ignored() {
    let run = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let roots = vec![run.path().to_path_buf()];
    let a = run.path().join("a.traj");
    write_traj(&a, 2);
    let matcher = matcher();
    let expected = [("a".to_string(), 2)];
    tally(&roots, cache_dir.path(), &matcher);

    // A tally that no longer decodes: the file is read again.
    let file = cache_file(cache_dir.path());
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    doc["entries"][a.to_str().unwrap()]["extras"][tally_cache_key(&matcher)] = json!("garbage");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    assert_eq!(
        missing(&tally(&roots, cache_dir.path(), &matcher), &matcher),
        expected
    );

    // A cache cut short: ignored, then rebuilt.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    assert!(RunCache::open(cache_dir.path(), &roots).is_empty());
    assert_eq!(
        missing(&tally(&roots, cache_dir.path(), &matcher), &matcher),
        expected
    );
    assert_eq!(RunCache::open(cache_dir.path(), &roots).len(), 1, "rebuilt");
}

#[test]
fn a_cancelled_tally_stops_reading() {
    let run = tempfile::tempdir().unwrap();
    let roots = vec![run.path().to_path_buf()];
    let total = 200;
    for i in 0..total {
        write_traj(&run.path().join(format!("t{i:03}.traj")), 1);
    }
    let matcher = matcher();
    let cancel = AtomicBool::new(false);
    let read = AtomicUsize::new(0);
    let mut cache = RunCache::disabled();
    let outcome = tally_run_cached(&roots, matcher, &mut cache, &cancel, &|_| {
        read.fetch_add(1, Ordering::Relaxed);
        cancel.store(true, Ordering::Relaxed);
    });
    assert!(outcome.is_none(), "a cancelled tally gives no result");
    let read = read.load(Ordering::Relaxed);
    // Files already being read when the flag was set finish: one per worker thread.
    assert!(
        read <= rayon::current_num_threads() + 1,
        "{read} of {total} files read after cancelling"
    );
}
