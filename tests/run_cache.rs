//! Reopening a run reuses cached summaries; a changed file is read again, a removed one
//! dropped, a new one added.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use std::path::Path;
use trajscope::formats::{RunCache, load_run_summaries};

fn write_traj(path: &Path, steps: usize, exit: &str) {
    let trajectory: Vec<_> = (0..steps)
        .map(|i| json!({"action": format!("ls {i}"), "observation": "ok", "response": "", "thought": ""}))
        .collect();
    let doc = json!({"environment": "swe_main", "trajectory": trajectory, "history": [], "info": {"exit_status": exit}});
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

#[test]
fn cached_summaries_follow_the_files() {
    let run = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let roots = vec![run.path().to_path_buf()];
    write_traj(&run.path().join("a.traj"), 2, "submitted");
    write_traj(&run.path().join("b.traj"), 3, "exit_cost");

    let mut cache = RunCache::open(cache_dir.path(), &roots);
    let (first, _, _) = load_run_summaries(&roots, &mut cache, &|_| {});
    cache.save().unwrap();
    assert_eq!(first.len(), 2);

    let mut cache = RunCache::open(cache_dir.path(), &roots);
    assert_eq!(cache.len(), 2);

    // Change b (different size), remove a, add c.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write_traj(&run.path().join("b.traj"), 5, "submitted");
    std::fs::remove_file(run.path().join("a.traj")).unwrap();
    write_traj(&run.path().join("c.traj"), 1, "submitted");
    let (second, _, _) = load_run_summaries(&roots, &mut cache, &|_| {});
    cache.save().unwrap();
    let mut rows: Vec<(String, usize)> = second
        .iter()
        .map(|s| (s.instance_id.clone(), s.steps))
        .collect();
    rows.sort();
    assert_eq!(rows, vec![("b".into(), 5), ("c".into(), 1)]);
    assert_eq!(
        RunCache::open(cache_dir.path(), &roots).len(),
        2,
        "a was dropped"
    );
}
