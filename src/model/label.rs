//! Row labels: one name per trajectory of a listing, unique within it.
//!
//! A row is named by its instance id. Where rows share one, each gets ` · ` and the shortest
//! run of whole components of its path that no other row's path holds (as editors name tabs
//! of the same file name), `…/` standing for the components left out in front; rows of one
//! file that holds several trajectories add their `#N`. The listing (`ls`), the app's tables
//! and headers, the finder and the exports all use these names.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Component, Path};

/// What a label is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelKey<'a> {
    pub instance_id: &'a str,
    pub path: &'a Path,
    /// 0-based position in a file that holds several trajectories.
    pub index: Option<usize>,
}

/// The labels of `keys`, in order. Keys are assumed distinct (no two with the same path and
/// index); the labels then are too.
pub fn labels(keys: &[LabelKey<'_>]) -> Vec<String> {
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        groups.entry(key.instance_id).or_default().push(i);
    }
    let mut out: Vec<String> = keys.iter().map(|k| k.instance_id.to_string()).collect();
    for members in groups.values().filter(|m| m.len() > 1) {
        let parts = path_parts(keys, members);
        for (&i, part) in members.iter().zip(parts) {
            let label = &mut out[i];
            if let Some(part) = part {
                label.push_str(" · ");
                label.push_str(&part);
            }
            if let Some(index) = keys[i].index {
                label.push_str(&format!(" #{}", index + 1));
            }
        }
    }
    out
}

fn components(path: &Path) -> Vec<&OsStr> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// For each member, the path part of its label: `None` when no other member comes from
/// another file (its `#N` alone tells it apart).
fn path_parts(keys: &[LabelKey<'_>], members: &[usize]) -> Vec<Option<String>> {
    let mut distinct: Vec<&Path> = members.iter().map(|&i| keys[i].path).collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return vec![None; members.len()];
    }
    // How many of the distinct paths hold each run of components.
    let mut holders: HashMap<Vec<&OsStr>, usize> = HashMap::new();
    for path in &distinct {
        let parts = components(path);
        let mut seen: Vec<&[&OsStr]> = Vec::new();
        for start in 0..parts.len() {
            for end in start + 1..=parts.len() {
                let run = &parts[start..end];
                if !seen.contains(&run) {
                    seen.push(run);
                    *holders.entry(run.to_vec()).or_default() += 1;
                }
            }
        }
    }
    let mut by_path: HashMap<&Path, Option<String>> = HashMap::new();
    for path in &distinct {
        by_path.insert(path, Some(part_of(path, &holders)));
    }
    members
        .iter()
        .map(|&i| by_path.get(keys[i].path).cloned().flatten())
        .collect()
}

/// The shortest run of `path`'s components that no other path holds (the one nearest the
/// file name among equals); the whole path when every run is shared.
fn part_of(path: &Path, holders: &HashMap<Vec<&OsStr>, usize>) -> String {
    let parts = components(path);
    for len in 1..=parts.len() {
        for start in (0..=parts.len() - len).rev() {
            let run = &parts[start..start + len];
            if holders.get(run).copied() == Some(1) {
                let joined = join(run);
                return if start > 0 {
                    format!("…/{joined}")
                } else {
                    joined
                };
            }
        }
    }
    path.display().to_string()
}

fn join(run: &[&OsStr]) -> String {
    run.iter()
        .map(|c| c.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::PathBuf;

    fn key<'a>(id: &'a str, path: &'a Path, index: Option<usize>) -> LabelKey<'a> {
        LabelKey {
            instance_id: id,
            path,
            index,
        }
    }

    #[test]
    fn unique_ids_are_left_alone() {
        let (a, b) = (PathBuf::from("run/a.traj"), PathBuf::from("run/b.traj"));
        assert_eq!(
            labels(&[key("a", &a, None), key("b", &b, None)]),
            ["a", "b"]
        );
    }

    #[test]
    fn shared_ids_get_the_component_that_differs() {
        let paths = [
            PathBuf::from("/runs/claude/trajs/django-1.traj"),
            PathBuf::from("/runs/gpt/trajs/django-1.traj"),
            PathBuf::from("logs/a.eval"),
            PathBuf::from("logs/b.eval"),
        ];
        let keys = [
            key("django-1", &paths[0], None),
            key("django-1", &paths[1], None),
            key("1", &paths[2], Some(0)),
            key("1", &paths[3], Some(0)),
        ];
        assert_eq!(
            labels(&keys),
            [
                "django-1 · …/claude",
                "django-1 · …/gpt",
                "1 · …/a.eval #1",
                "1 · …/b.eval #1"
            ]
        );
    }

    #[test]
    fn a_path_inside_another_is_named_whole() {
        let (a, b) = (PathBuf::from("a/x.traj"), PathBuf::from("b/a/x.traj"));
        assert_eq!(
            labels(&[key("x", &a, None), key("x", &b, None)]),
            ["x · a/x.traj", "x · b"]
        );
    }

    #[test]
    fn rows_of_one_file_keep_their_number() {
        let f = PathBuf::from("out/output.jsonl");
        assert_eq!(
            labels(&[key("x", &f, Some(0)), key("x", &f, Some(3))]),
            ["x #1", "x #4"]
        );
    }

    /// A small deterministic generator: no dependency needed for this property.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) as usize) % n
        }
    }

    #[test]
    fn any_set_of_paths_gets_unique_labels_made_of_runs_of_their_own_paths() {
        const NAMES: &[&str] = &["a", "b", "trajs", "x.traj", "run", "a.b"];
        const IDS: &[&str] = &["p", "q", "a"];
        let mut rng = Lcg(7);
        for _ in 0..3000 {
            let n = 1 + rng.next(8);
            let mut seen = HashSet::new();
            let mut rows: Vec<(String, PathBuf, Option<usize>)> = Vec::new();
            for _ in 0..n {
                let depth = 1 + rng.next(4);
                let mut path = PathBuf::from(if rng.next(2) == 0 { "/" } else { "" });
                for _ in 0..depth {
                    path.push(NAMES[rng.next(NAMES.len())]);
                }
                let index = (rng.next(3) == 0).then(|| rng.next(3));
                if seen.insert((path.clone(), index)) {
                    rows.push((IDS[rng.next(IDS.len())].to_string(), path, index));
                }
            }
            let keys: Vec<LabelKey<'_>> = rows.iter().map(|(i, p, x)| key(i, p, *x)).collect();
            let out = labels(&keys);
            let unique: HashSet<&String> = out.iter().collect();
            assert_eq!(unique.len(), out.len(), "{rows:?} → {out:?}");
            for ((id, path, _), label) in rows.iter().zip(&out) {
                let rest = label.strip_prefix(id.as_str()).unwrap();
                let Some(part) = rest.strip_prefix(" · ") else {
                    continue;
                };
                let part = part.split(" #").next().unwrap();
                let trimmed = part.strip_prefix("…/").unwrap_or(part);
                let own: Vec<String> = components(path)
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                let run: Vec<&str> = trimmed.trim_start_matches('/').split('/').collect();
                let is_run = own
                    .windows(run.len())
                    .any(|w| w.iter().map(String::as_str).eq(run.iter().copied()));
                assert!(is_run, "{label} is not a run of {}", path.display());
            }
        }
    }
}
