//! The set of files and folders being followed.

use super::followed::{FileStatus, FileUpdate, FollowedFile};
use crate::formats::{discover, file_stamp, is_candidate_file};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Follows the files named at start and every candidate log under the folders named, new
/// ones included. Refreshing a file that did not change costs one `stat`.
#[derive(Debug, Default)]
pub struct Follower {
    roots: Vec<PathBuf>,
    files: BTreeMap<PathBuf, FollowedFile>,
}

impl Follower {
    /// Roots are made absolute, as the paths that notifications report are.
    pub fn new(roots: Vec<PathBuf>) -> Follower {
        Follower {
            roots: roots.into_iter().map(absolute).collect(),
            files: BTreeMap::new(),
        }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Follows every candidate under the roots as it is now, without reading it: the app
    /// has read these files itself, and each is read here once it changes. Without this, the
    /// first folder event (a batch run starting an instance in a folder of its own) made
    /// [`Follower::scan`] read every file of the run whole, and keep them all.
    pub fn baseline(&mut self) {
        let (candidates, _failures) = discover(&self.roots);
        for candidate in candidates {
            if let Some(stamp) = file_stamp(&candidate.path) {
                self.files
                    .entry(candidate.path.clone())
                    .or_insert_with(|| FollowedFile::known(candidate.path, stamp));
            }
        }
    }

    /// Finds every candidate under the roots, follows the new ones, and refreshes all of them.
    pub fn scan(&mut self) -> Vec<FileUpdate> {
        let (candidates, _failures) = discover(&self.roots);
        for candidate in candidates {
            self.files
                .entry(candidate.path.clone())
                .or_insert_with(|| FollowedFile::new(candidate.path));
        }
        let paths: Vec<PathBuf> = self.files.keys().cloned().collect();
        self.refresh(&paths)
    }

    /// Handles a batch of changed paths from a [`super::ChangeFeed`]: refreshes followed
    /// files, starts following new candidate files under a root, rescans changed folders.
    pub fn changed(&mut self, paths: &[PathBuf]) -> Vec<FileUpdate> {
        let mut to_refresh = Vec::new();
        let mut rescan = false;
        for path in paths {
            if self.files.contains_key(path) {
                to_refresh.push(path.clone());
            } else if path.is_dir() {
                rescan = true;
            } else if self.covers(path) && is_candidate_file(path) {
                self.files
                    .insert(path.clone(), FollowedFile::new(path.clone()));
                to_refresh.push(path.clone());
            }
        }
        let mut updates = self.refresh(&to_refresh);
        if rescan {
            updates.extend(self.scan());
        }
        updates.retain(|u| !u.changes.is_empty() || u.status != FileStatus::Current);
        updates
    }

    /// Files whose last read caught them mid-write: try them again.
    pub fn retry_pending(&mut self) -> Vec<FileUpdate> {
        let pending: Vec<PathBuf> = self
            .files
            .values()
            .filter(|f| matches!(f.status(), FileStatus::MidWrite(_)))
            .map(|f| f.path().to_path_buf())
            .collect();
        self.refresh(&pending)
    }

    pub fn has_pending(&self) -> bool {
        self.files
            .values()
            .any(|f| matches!(f.status(), FileStatus::MidWrite(_)))
    }

    /// Drops every file's trajectories once they were reported: a headless watch then holds
    /// per file only offsets and step fingerprints, not the run's contents.
    pub fn release_all(&mut self) {
        for file in self.files.values_mut() {
            file.release();
        }
    }

    pub fn files(&self) -> impl Iterator<Item = &FollowedFile> {
        self.files.values()
    }

    pub fn file(&self, path: &Path) -> Option<&FollowedFile> {
        self.files.get(path)
    }

    fn refresh(&mut self, paths: &[PathBuf]) -> Vec<FileUpdate> {
        let mut updates = Vec::new();
        for path in paths {
            if let Some(file) = self.files.get_mut(path) {
                updates.push(file.refresh());
                if file.status() == &FileStatus::Removed {
                    self.files.remove(path);
                }
            }
        }
        updates
    }

    /// Whether `path` is one of the roots or lies under one where a folder walk would find
    /// it: not inside a hidden folder (a fork's native copy, in `.trajscope-native/`, must not
    /// become a second row of the same fork).
    fn covers(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| {
            path.strip_prefix(root).is_ok_and(|rest| {
                rest.parent().is_none_or(|folders| {
                    folders
                        .components()
                        .all(|c| !c.as_os_str().to_string_lossy().starts_with('.'))
                })
            })
        })
    }
}

/// `path` made absolute and free of symlinks when it exists; as given otherwise.
pub(crate) fn absolute(path: PathBuf) -> PathBuf {
    path.canonicalize().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_files_in_hidden_folders_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let mut follower = Follower::new(vec![dir.path().to_path_buf()]);
        let root = &follower.roots()[0].clone();
        let native = root.join(".trajscope-native");
        std::fs::create_dir(&native).unwrap();
        let hidden = native.join("x.fork-k3-1.traj.json");
        let shown = root.join("x.fork-k3-1.trajscope.json");
        for path in [&hidden, &shown] {
            std::fs::write(path, "{}").unwrap();
        }
        follower.changed(&[hidden.clone(), shown.clone()]);
        let followed: Vec<&Path> = follower.files().map(FollowedFile::path).collect();
        assert_eq!(followed, [shown.as_path()]);
    }

    /// A batch run starts each instance in a folder of its own: the folder event must not
    /// make the follower read (and keep) every file of the run, only the new ones.
    #[test]
    fn after_the_baseline_only_new_and_changed_files_are_read() {
        let sample = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/sample-trajectories/mini-swe-agent/tinycalc__tinycalc-1/tinycalc__tinycalc-1.traj.json"
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut follower = Follower::new(vec![dir.path().to_path_buf()]);
        let root = follower.roots()[0].clone();
        let old = root.join("a.traj.json");
        std::fs::write(&old, &sample).unwrap();
        follower.baseline();
        let held = |f: &Follower, path: &Path| f.file(path).map(|f| f.trajectories().len());
        assert_eq!(held(&follower, &old), Some(0), "followed, not read");

        let instance = root.join("b");
        std::fs::create_dir(&instance).unwrap();
        let new = instance.join("b.traj.json");
        std::fs::write(&new, &sample).unwrap();
        let updates = follower.changed(std::slice::from_ref(&instance));
        let read: Vec<&Path> = updates.iter().map(|u| u.path.as_path()).collect();
        assert_eq!(read, [new.as_path()]);
        assert_eq!(held(&follower, &new), Some(1));
        assert_eq!(
            held(&follower, &old),
            Some(0),
            "the folder event read the old file"
        );

        // Once the old file changes, it is read like any other.
        let mut grown = sample.clone();
        grown.push(b'\n');
        std::fs::write(&old, &grown).unwrap();
        let updates = follower.changed(std::slice::from_ref(&old));
        assert_eq!(updates.len(), 1);
        assert!(!updates[0].changes.is_empty());
        assert_eq!(held(&follower, &old), Some(1));
    }
}
