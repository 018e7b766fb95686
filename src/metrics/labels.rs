//! Hand-made labels on steps ("wrong file localized"), kept in a sidecar file next to the
//! run: `<run folder>/.trajscope-labels.json`. Never inside a trajectory file. The sidecar is
//! written atomically (a temporary file in the same folder, then a rename), and merged with
//! what is on disk at save time, so that two sessions labelling one run lose nothing but
//! each other's removals of the same label.
//!
//! A label is keyed by the trajectory's path relative to the run folder, its index in the
//! file (for files holding several trajectories) and the 1-based step, so it survives
//! reloading and moving the run folder. A hash of the step's action and observation
//! detects a file that changed under its labels.

use crate::model::{Step, Trajectory};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// The sidecar's file name. The leading dot keeps folder scans from taking it for a log.
pub const LABELS_FILE: &str = ".trajscope-labels.json";

/// The longest label, in characters: labels are names of failure modes, not notes.
pub const MAX_LABEL_CHARS: usize = 80;

const VERSION: u32 = 1;

/// One label on one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// The trajectory's path relative to the run folder, with `/` separators.
    pub trajectory: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_index: Option<usize>,
    /// 1-based step.
    pub step: usize,
    pub label: String,
    /// `fnv1a64:<hex>` of the step's action and observation when the label was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_hash: Option<String>,
    /// Unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<u64>,
}

impl Label {
    fn same_place_and_text(&self, other: &Label) -> bool {
        self.trajectory == other.trajectory
            && self.source_index == other.source_index
            && self.step == other.step
            && self.label == other.label
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct LabelFile {
    trajscope_labels: u32,
    #[serde(default)]
    labels: Vec<Label>,
}

/// Why labels could not be read, changed or written.
#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}:{column}: not a trajscope labels file: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{path}: written by a newer trajscope (labels version {version})")]
    NewerVersion { path: PathBuf, version: u32 },
    #[error("{path} is not inside the run folder {root}")]
    NotInRun { path: PathBuf, root: PathBuf },
    #[error("step {step} is not in the trajectory (it has {steps} steps)")]
    NoSuchStep { step: usize, steps: usize },
    #[error("a label must be one line of 1 to {MAX_LABEL_CHARS} characters")]
    BadLabel,
}

/// The labels of one run folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSet {
    root: PathBuf,
    labels: Vec<Label>,
    /// Removed since loading: kept out when merging with the file on disk.
    removed: Vec<Label>,
}

impl LabelSet {
    /// The run folder for what the user opened: the folder itself, or a file's folder.
    pub fn root_for(opened: &Path) -> PathBuf {
        if opened.is_dir() {
            opened.to_path_buf()
        } else {
            match opened.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }
        }
    }

    /// The sidecar file of run folder `root`.
    pub fn path_in(root: &Path) -> PathBuf {
        root.join(LABELS_FILE)
    }

    /// An empty set for `root`, not yet saved.
    pub fn empty(root: impl Into<PathBuf>) -> LabelSet {
        LabelSet {
            root: root.into(),
            labels: Vec::new(),
            removed: Vec::new(),
        }
    }

    /// The labels saved in run folder `root`; an empty set when it has none yet.
    pub fn load(root: &Path) -> Result<LabelSet, LabelError> {
        Ok(LabelSet {
            root: root.to_path_buf(),
            labels: read(&LabelSet::path_in(root))?,
            removed: Vec::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The distinct label texts, sorted: what a label prompt can offer.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.labels.iter().map(|l| l.label.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The key of a trajectory file in this run: its path relative to the root, with `/`.
    pub fn key_of(&self, path: &Path) -> Option<String> {
        // `./run/x.traj` and `run/x.traj` are the same file under root `run`.
        let clean =
            |p: &Path| -> PathBuf { p.components().filter(|c| *c != Component::CurDir).collect() };
        let (path, root) = (clean(path), clean(&self.root));
        let relative = path.strip_prefix(&root).ok()?;
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    /// Labels `step` (1-based) of `trajectory`. Returns false when the step already had
    /// this label.
    pub fn add(
        &mut self,
        trajectory: &Trajectory,
        step: usize,
        label: &str,
    ) -> Result<bool, LabelError> {
        let label = clean_label(label)?;
        let key = self
            .key_of(&trajectory.path)
            .ok_or_else(|| LabelError::NotInRun {
                path: trajectory.path.clone(),
                root: self.root.clone(),
            })?;
        let the_step = trajectory.step(step).ok_or(LabelError::NoSuchStep {
            step,
            steps: trajectory.steps.len(),
        })?;
        let new = Label {
            trajectory: key,
            source_index: trajectory.source_index,
            step,
            label,
            step_hash: Some(step_hash(the_step)),
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .map(|d| d.as_secs()),
        };
        if self.labels.iter().any(|l| l.same_place_and_text(&new)) {
            return Ok(false);
        }
        self.removed.retain(|l| !l.same_place_and_text(&new));
        self.labels.push(new);
        Ok(true)
    }

    /// Removes `label` from `step` of `trajectory`; false when it was not there.
    pub fn remove(&mut self, trajectory: &Trajectory, step: usize, label: &str) -> bool {
        let Some(key) = self.key_of(&trajectory.path) else {
            return false;
        };
        let before = self.labels.len();
        let mut gone = Vec::new();
        self.labels.retain(|l| {
            let hit = l.trajectory == key
                && l.source_index == trajectory.source_index
                && l.step == step
                && l.label == label.trim();
            if hit {
                gone.push(l.clone());
            }
            !hit
        });
        self.removed.extend(gone);
        self.labels.len() < before
    }

    /// The labels of `step` (1-based) of the trajectory at `path`.
    pub fn at_step(&self, path: &Path, source_index: Option<usize>, step: usize) -> Vec<&Label> {
        let Some(key) = self.key_of(path) else {
            return Vec::new();
        };
        self.labels
            .iter()
            .filter(|l| l.trajectory == key && l.source_index == source_index && l.step == step)
            .collect()
    }

    /// The labels of `trajectory` whose step is gone or no longer has the action and
    /// observation it had when labelled: the file changed since.
    pub fn drifted<'a>(&'a self, trajectory: &Trajectory) -> Vec<&'a Label> {
        let Some(key) = self.key_of(&trajectory.path) else {
            return Vec::new();
        };
        self.labels
            .iter()
            .filter(|l| l.trajectory == key && l.source_index == trajectory.source_index)
            .filter(|l| match trajectory.step(l.step) {
                None => true,
                Some(step) => l.step_hash.as_deref().is_some_and(|h| h != step_hash(step)),
            })
            .collect()
    }

    /// Writes the sidecar atomically, merged with labels another session saved meanwhile.
    /// Nothing is written when there is nothing to say and no file yet.
    pub fn save(&mut self) -> Result<(), LabelError> {
        let path = LabelSet::path_in(&self.root);
        let on_disk = read(&path)?;
        for label in on_disk {
            let known = self.labels.iter().any(|l| l.same_place_and_text(&label));
            let removed = self.removed.iter().any(|l| l.same_place_and_text(&label));
            if !known && !removed {
                self.labels.push(label);
            }
        }
        if self.labels.is_empty() && !path.exists() {
            return Ok(());
        }
        self.labels.sort_by(|a, b| {
            (&a.trajectory, a.source_index, a.step, &a.label).cmp(&(
                &b.trajectory,
                b.source_index,
                b.step,
                &b.label,
            ))
        });
        let file = LabelFile {
            trajscope_labels: VERSION,
            labels: self.labels.clone(),
        };
        let io = |source| LabelError::Io {
            path: path.clone(),
            source,
        };
        let mut text = serde_json::to_vec_pretty(&file).map_err(|e| io(e.into()))?;
        text.push(b'\n');
        let mut temp = tempfile::NamedTempFile::new_in(&self.root).map_err(io)?;
        temp.write_all(&text).map_err(io)?;
        temp.as_file().sync_all().map_err(io)?;
        temp.persist(&path).map_err(|e| io(e.error))?;
        self.removed.clear();
        Ok(())
    }
}

fn read(path: &Path) -> Result<Vec<Label>, LabelError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(LabelError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let file: LabelFile = serde_json::from_slice(&bytes).map_err(|err| LabelError::Parse {
        path: path.to_path_buf(),
        line: err.line(),
        column: err.column(),
        message: err.to_string(),
    })?;
    if file.trajscope_labels > VERSION {
        return Err(LabelError::NewerVersion {
            path: path.to_path_buf(),
            version: file.trajscope_labels,
        });
    }
    Ok(file.labels)
}

fn clean_label(label: &str) -> Result<String, LabelError> {
    let label = label.trim();
    if label.is_empty() || label.contains(['\n', '\r']) || label.chars().count() > MAX_LABEL_CHARS {
        return Err(LabelError::BadLabel);
    }
    Ok(label.to_string())
}

/// FNV-1a (64 bit) of a step's action and observation: stable across builds and platforms,
/// unlike `std`'s hasher.
pub fn step_hash(step: &Step) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in step
        .action
        .bytes()
        .chain(std::iter::once(0))
        .chain(step.observation.bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("fnv1a64:{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Format;

    fn trajectory(root: &Path, name: &str) -> Trajectory {
        let mut t = Trajectory::new(root.join("trajs").join(name), Format::SweAgent);
        t.steps = vec![
            Step {
                action: "open a.py".into(),
                observation: "1:import os".into(),
                ..Step::default()
            },
            Step {
                action: "edit 1:1".into(),
                ..Step::default()
            },
        ];
        t.number_steps();
        t
    }

    #[test]
    fn labels_survive_a_save_and_reload_next_to_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let t = trajectory(root, "x.traj");
        let mut set = LabelSet::load(root).unwrap();
        assert!(set.is_empty());
        assert!(set.add(&t, 2, "  wrong file localized ").unwrap());
        assert!(
            !set.add(&t, 2, "wrong file localized").unwrap(),
            "no duplicates"
        );
        assert!(set.add(&t, 1, "gave up").unwrap());
        set.save().unwrap();
        let saved = std::fs::read_to_string(root.join(LABELS_FILE)).unwrap();
        assert!(
            saved.contains("\"trajectory\": \"trajs/x.traj\""),
            "{saved}"
        );
        let again = LabelSet::load(root).unwrap();
        assert_eq!(again.names(), vec!["gave up", "wrong file localized"]);
        let at2 = again.at_step(&t.path, None, 2);
        assert_eq!(at2.len(), 1);
        assert_eq!(at2[0].label, "wrong file localized");
        assert!(again.drifted(&t).is_empty());
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn bad_labels_and_places_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = LabelSet::empty(dir.path());
        let t = trajectory(dir.path(), "x.traj");
        assert!(matches!(set.add(&t, 1, "  "), Err(LabelError::BadLabel)));
        assert!(matches!(
            set.add(&t, 1, "two\nlines"),
            Err(LabelError::BadLabel)
        ));
        assert!(matches!(
            set.add(&t, 1, &"x".repeat(81)),
            Err(LabelError::BadLabel)
        ));
        assert!(matches!(
            set.add(&t, 3, "x"),
            Err(LabelError::NoSuchStep { step: 3, steps: 2 })
        ));
        let elsewhere = trajectory(Path::new("/somewhere/else"), "y.traj");
        assert!(matches!(
            set.add(&elsewhere, 1, "x"),
            Err(LabelError::NotInRun { .. })
        ));
        set.save().unwrap();
        assert!(
            !LabelSet::path_in(dir.path()).exists(),
            "nothing to save, nothing written"
        );
    }

    #[test]
    fn a_changed_step_is_reported_as_drifted() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = LabelSet::empty(dir.path());
        let mut t = trajectory(dir.path(), "x.traj");
        set.add(&t, 1, "a").unwrap();
        set.add(&t, 2, "b").unwrap();
        t.steps[0].observation = "1:import sys".into();
        t.steps.pop();
        let drifted: Vec<&str> = set.drifted(&t).iter().map(|l| l.label.as_str()).collect();
        assert_eq!(drifted, vec!["a", "b"]);
    }

    #[test]
    fn saving_merges_with_another_session() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let t = trajectory(root, "x.traj");
        let mut first = LabelSet::load(root).unwrap();
        let mut second = LabelSet::load(root).unwrap();
        first.add(&t, 1, "from first").unwrap();
        first.add(&t, 2, "to remove").unwrap();
        first.save().unwrap();
        second.add(&t, 2, "from second").unwrap();
        second.save().unwrap();
        let mut third = LabelSet::load(root).unwrap();
        assert_eq!(
            third.names(),
            vec!["from first", "from second", "to remove"]
        );
        assert!(third.remove(&t, 2, "to remove"));
        assert!(!third.remove(&t, 2, "to remove"));
        third.save().unwrap();
        assert_eq!(
            LabelSet::load(root).unwrap().names(),
            vec!["from first", "from second"]
        );
    }

    #[test]
    fn a_corrupt_file_is_an_error_with_its_position_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = LabelSet::path_in(dir.path());
        std::fs::write(&path, "{\"trajscope_labels\": 1,\n \"labels\": [oops]}").unwrap();
        let err = LabelSet::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(".trajscope-labels.json:2:"), "{err}");
        std::fs::write(&path, "{\"trajscope_labels\": 9}").unwrap();
        assert!(matches!(
            LabelSet::load(dir.path()),
            Err(LabelError::NewerVersion { version: 9, .. })
        ));
    }

    #[test]
    fn keys_are_relative_with_slashes() {
        let set = LabelSet::empty("./run");
        assert_eq!(
            set.key_of(Path::new("run/a/b.traj")).as_deref(),
            Some("a/b.traj")
        );
        assert_eq!(set.key_of(Path::new("other/b.traj")), None);
        assert_eq!(
            LabelSet::empty(".").key_of(Path::new("x.traj")).as_deref(),
            Some("x.traj")
        );
        assert_eq!(LabelSet::root_for(Path::new("x.traj")), PathBuf::from("."));
    }

    #[test]
    fn step_hash_is_stable() {
        let step = Step {
            action: "ls".into(),
            observation: "a".into(),
            ..Step::default()
        };
        // Computed independently (Python) over b"ls\0a".
        assert_eq!(step_hash(&step), "fnv1a64:7c8f27add4243f3b");
        assert_ne!(step_hash(&step), step_hash(&Step::default()));
    }
}
