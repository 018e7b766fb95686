//! One file being followed: read what is new, parse what is complete, report what changed.

use super::identity::TrajectoryPrint;
use super::style::{WriteStyle, write_style};
use crate::formats::{self, Kind, LoadError};
use crate::model::{ResultsSource, Trajectory};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// What the last refresh found.
#[derive(Debug, Clone, PartialEq)]
pub enum FileStatus {
    /// Nothing readable yet (the file is empty or was just created).
    Waiting,
    /// Parsed; what is shown is the file's content.
    Current,
    /// The file is being rewritten (a truncated document): the last good version is kept and
    /// the next change is tried again.
    MidWrite(String),
    /// The content is not a readable log; the last good version (if any) is kept.
    Failed(String),
    /// The file is gone.
    Removed,
}

/// How one trajectory of the file changed. Indices are positions in the file (0-based, as
/// `Trajectory::source_index`); steps are 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrajectoryChange {
    Added {
        index: usize,
    },
    /// Steps from `first_changed` on are new or were completed (e.g. a Claude Code response
    /// whose content blocks arrive on several lines); earlier steps are unchanged. When
    /// `first_changed` is past the last step, only the trajectory's own fields changed (its
    /// exit status was written, say).
    Grew {
        index: usize,
        first_changed: usize,
        /// How many steps the trajectory had before.
        previous_steps: usize,
    },
    /// Something before the end changed: the trajectory was written anew.
    Replaced {
        index: usize,
    },
    Removed {
        index: usize,
    },
}

/// The outcome of one refresh.
#[derive(Debug, Clone, PartialEq)]
pub struct FileUpdate {
    pub path: PathBuf,
    pub changes: Vec<TrajectoryChange>,
    pub status: FileStatus,
}

/// A followed file and the last good parse of it.
#[derive(Debug)]
pub struct FollowedFile {
    path: PathBuf,
    style: Option<WriteStyle>,
    /// Appended files: every byte read so far. Only the part up to the last newline is parsed.
    buffer: Vec<u8>,
    /// Appended JSON Lines logs: read past the last read only, and held slim, not as bytes.
    appended: Option<formats::AppendedLog>,
    /// Device and inode: a different file under the same name (rotation) is read from scratch.
    identity: Option<(u64, u64)>,
    trajectories: Vec<Trajectory>,
    /// What tells a step seen before from a new one; kept when `trajectories` is released.
    prints: Vec<TrajectoryPrint>,
    results: Option<ResultsSource>,
    status: FileStatus,
    /// Size and modification time (ns) of a file the app had read when the watch began:
    /// it is not read here until they change.
    known: Option<(u64, u128)>,
}

impl FollowedFile {
    pub fn new(path: impl Into<PathBuf>) -> FollowedFile {
        FollowedFile {
            path: path.into(),
            style: None,
            buffer: Vec::new(),
            appended: None,
            identity: None,
            trajectories: Vec::new(),
            prints: Vec::new(),
            results: None,
            status: FileStatus::Waiting,
            known: None,
        }
    }

    /// A file as it was when the watch began (`stamp`: its size and modification time in ns,
    /// as [`crate::formats::file_stamp`] gives them), which the app read itself: it is read
    /// once it changes, and until then costs a `stat` and holds nothing.
    pub fn known(path: impl Into<PathBuf>, stamp: (u64, u128)) -> FollowedFile {
        FollowedFile {
            status: FileStatus::Current,
            known: Some(stamp),
            ..FollowedFile::new(path)
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trajectories as last parsed successfully.
    pub fn trajectories(&self) -> &[Trajectory] {
        &self.trajectories
    }

    /// Drops the trajectories last read, keeping only what tells new steps from old ones:
    /// a headless watch, once it has printed an update, needs nothing more of them.
    pub fn release(&mut self) {
        self.trajectories = Vec::new();
    }

    /// How many trajectories the file held at the last good read (held or released).
    pub fn trajectory_count(&self) -> usize {
        self.prints.len()
    }

    /// Eval results, when the file turned out to be a results file.
    pub fn results(&self) -> Option<&ResultsSource> {
        self.results.as_ref()
    }

    pub fn status(&self) -> &FileStatus {
        &self.status
    }

    pub fn style(&self) -> Option<WriteStyle> {
        self.style
    }

    /// Reads the file again (only its new bytes when it is appended to) and reports changes.
    pub fn refresh(&mut self) -> FileUpdate {
        let parsed = match self.read() {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return self.update(Vec::new()),
            Err(status) => {
                let changes = if status == FileStatus::Removed {
                    let gone = (0..self.prints.len())
                        .map(|index| TrajectoryChange::Removed { index })
                        .collect();
                    *self = FollowedFile::new(self.path.clone());
                    gone
                } else {
                    Vec::new()
                };
                self.status = status;
                return self.update(changes);
            }
        };
        let changes = match parsed {
            Parsed::Trajectories(mut new) => {
                // An appended log's steps are told apart by their slim form, which names
                // where each long string is: steps already read back and dropped need not be
                // read again to be recognised.
                let prints: Vec<TrajectoryPrint> = match &mut self.appended {
                    Some(log) => log.slim_mut().iter_mut().map(TrajectoryPrint::of).collect(),
                    None => new.iter_mut().map(TrajectoryPrint::of).collect(),
                };
                let changes = diff(&self.prints, &prints);
                self.trajectories = new;
                self.prints = prints;
                changes
            }
            Parsed::Results(results) => {
                self.results = Some(results);
                Vec::new()
            }
        };
        self.status = FileStatus::Current;
        self.update(changes)
    }

    fn update(&self, changes: Vec<TrajectoryChange>) -> FileUpdate {
        FileUpdate {
            path: self.path.clone(),
            changes,
            status: self.status.clone(),
        }
    }

    /// `Ok(None)`: nothing new to parse. `Err(status)`: the status to show instead.
    fn read(&mut self) -> Result<Option<Parsed>, FileStatus> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(meta) => meta,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(FileStatus::Removed);
            }
            Err(err) => {
                return Err(FileStatus::Failed(format!(
                    "{}: {err}",
                    self.path.display()
                )));
            }
        };
        // Unchanged since the app read it: nothing to read. Changed once: read from now on.
        if self.known.is_some() && formats::metadata_stamp(&meta) == self.known {
            return Ok(None);
        }
        self.known = None;
        let identity = identity(&meta);
        let rotated = self.identity.is_some_and(|old| Some(old) != identity);
        let read = self
            .appended
            .as_ref()
            .map_or(self.buffer.len() as u64, formats::AppendedLog::read_len);
        let truncated = meta.len() < read;
        if rotated || truncated {
            self.buffer.clear();
            self.appended = None;
            self.style = None;
        }
        self.identity = identity;

        if let Some(parsed) = self.read_appended_lines()? {
            return Ok(parsed);
        }

        if self.style == Some(WriteStyle::Appended) {
            let before = self.buffer.len();
            self.append_new_bytes()
                .map_err(|err| FileStatus::Failed(LoadError::io(&self.path, err).to_string()))?;
            let complete = |b: &[u8]| memchr::memrchr(b'\n', b).map_or(0, |i| i + 1);
            if complete(&self.buffer) == complete(&self.buffer[..before]) {
                return Ok(None);
            }
            let end = complete(&self.buffer);
            let buffer = std::mem::take(&mut self.buffer);
            let parsed = self.parse_bytes(&buffer[..end], false);
            self.buffer = buffer;
            return parsed.map(Some);
        }

        formats::check_fits(&self.path, meta.len())
            .map_err(|err| FileStatus::Failed(err.to_string()))?;
        let bytes = std::fs::read(&self.path)
            .map_err(|err| FileStatus::Failed(LoadError::io(&self.path, err).to_string()))?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(if self.prints.is_empty() {
                FileStatus::Waiting
            } else {
                FileStatus::MidWrite("the file is empty (being rewritten?)".into())
            });
        }
        self.parse_bytes(&bytes, true).map(Some)
    }

    /// An appended JSON Lines log: only the new bytes are read. `Ok(None)`: not such a log
    /// (or not known yet to be one), read it the usual way.
    fn read_appended_lines(&mut self) -> Result<Option<Option<Parsed>>, FileStatus> {
        if self.style.is_none() && starts_as_json_lines(&self.path) {
            // The first read: slimmed as it is read, kept if it turns out to be appended.
            let mut log = formats::AppendedLog::new(&self.path);
            let mut read = Vec::new();
            if log.refresh(&mut read).is_ok()
                && log.is_json_lines()
                && let Some(format) = read.first().map(|t| t.format)
                && write_style(format, b"{}\n{}") == WriteStyle::Appended
            {
                self.style = Some(WriteStyle::Appended);
                self.appended = Some(log);
                return Ok(Some(Some(Parsed::Trajectories(read))));
            }
            return Ok(None);
        }
        let Some(log) = &mut self.appended else {
            return Ok(None);
        };
        let mut held = std::mem::take(&mut self.trajectories);
        let refreshed = log.refresh(&mut held);
        match refreshed {
            Ok(true) => Ok(Some(Some(Parsed::Trajectories(held)))),
            Ok(false) => {
                self.trajectories = held;
                Ok(Some(None))
            }
            Err(err) => {
                self.trajectories = held;
                Err(self.parse_failure(&err))
            }
        }
    }

    fn append_new_bytes(&mut self) -> std::io::Result<()> {
        let mut file = std::fs::File::open(&self.path)?;
        file.seek(SeekFrom::Start(self.buffer.len() as u64))?;
        file.read_to_end(&mut self.buffer)?;
        Ok(())
    }

    /// Parses `bytes`; for whole-file reads also decides the write style, and for appended
    /// files keeps them so that later reads only fetch the new bytes.
    fn parse_bytes(&mut self, bytes: &[u8], whole_file: bool) -> Result<Parsed, FileStatus> {
        let kind = formats::detect(&self.path, bytes).map_err(|err| self.parse_failure(&err))?;
        match kind {
            Kind::Results(kind) => formats::parse_results(kind, &self.path, bytes)
                .map(Parsed::Results)
                .map_err(|err| self.parse_failure(&err)),
            Kind::Trajectories(format) => {
                if whole_file {
                    self.style = Some(write_style(format, bytes));
                    if self.style == Some(WriteStyle::Appended) {
                        if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
                            // JSON Lines: from now on read past the last read only.
                            let mut log = formats::AppendedLog::new(&self.path);
                            let mut read = Vec::new();
                            match log.refresh(&mut read) {
                                Ok(true) => {
                                    self.appended = Some(log);
                                    return Ok(Parsed::Trajectories(read));
                                }
                                // No whole line yet: the next refresh reads on from here.
                                Ok(false) => {
                                    self.appended = Some(log);
                                    return Err(FileStatus::Waiting);
                                }
                                Err(_) => {}
                            }
                        }
                        self.buffer = bytes.to_vec();
                        let end = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
                        return formats::parse(format, &self.path, &bytes[..end])
                            .map(Parsed::Trajectories)
                            .map_err(|err| self.parse_failure(&err));
                    }
                }
                formats::parse(format, &self.path, bytes)
                    .map(Parsed::Trajectories)
                    .map_err(|err| self.parse_failure(&err))
            }
        }
    }

    fn parse_failure(&self, err: &LoadError) -> FileStatus {
        let message = err.to_string();
        if message.contains("truncated") || matches!(err, LoadError::Empty { .. }) {
            FileStatus::MidWrite(message)
        } else {
            FileStatus::Failed(message)
        }
    }
}

enum Parsed {
    Trajectories(Vec<Trajectory>),
    Results(ResultsSource),
}

/// Whether the file's first 64 KiB hold a whole JSON line and more: a log that may be
/// appended to. A longer first line is left to the whole read.
fn starts_as_json_lines(path: &Path) -> bool {
    let mut head = Vec::with_capacity(64 * 1024);
    std::fs::File::open(path)
        .and_then(|f| f.take(64 * 1024).read_to_end(&mut head))
        .is_ok()
        && formats::is_json_lines(&head)
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// What changed between two parses of one file, step by step by their fingerprints (see
/// [`super::identity`]), so that a step is new once, whatever else moved in the file.
fn diff(old: &[TrajectoryPrint], new: &[TrajectoryPrint]) -> Vec<TrajectoryChange> {
    let mut changes = Vec::new();
    for (index, now) in new.iter().enumerate() {
        match old.get(index) {
            None => changes.push(TrajectoryChange::Added { index }),
            Some(before) if before == now => {}
            Some(before) => {
                let same_prefix = before.common_steps(now);
                // The last shown step may complete (more content blocks of one response);
                // anything earlier changing means the file was written anew.
                let grew = now.steps.len() >= before.steps.len()
                    && same_prefix + 1 >= before.steps.len()
                    && before.instance_id == now.instance_id;
                changes.push(if grew {
                    TrajectoryChange::Grew {
                        index,
                        first_changed: same_prefix + 1,
                        previous_steps: before.steps.len(),
                    }
                } else {
                    TrajectoryChange::Replaced { index }
                });
            }
        }
    }
    for index in new.len()..old.len() {
        changes.push(TrajectoryChange::Removed { index });
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mini(steps: usize, exit: Option<&str>) -> Vec<u8> {
        let mut messages = vec![
            json!({"role": "system", "content": "sys"}),
            json!({"role": "user", "content": "fix it"}),
        ];
        for i in 0..steps {
            messages.push(json!({"role": "assistant", "content": format!("THOUGHT: {i}\n\n```bash\necho {i}\n```")}));
            messages.push(json!({"role": "user", "content": format!("<returncode>0</returncode>\n<output>\n{i}\n</output>")}));
        }
        let info = match exit {
            Some(status) => json!({"exit_status": status}),
            None => json!({}),
        };
        serde_json::to_vec_pretty(
            &json!({"info": info, "messages": messages, "trajectory_format": "mini-swe-agent-1"}),
        )
        .unwrap()
    }

    #[test]
    fn a_rewritten_file_never_shows_a_torn_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.traj.json");
        let mut file = FollowedFile::new(&path);

        std::fs::write(&path, b"").unwrap();
        assert_eq!(file.refresh().status, FileStatus::Waiting);

        let two = mini(2, None);
        std::fs::write(&path, &two[..two.len() / 2]).unwrap();
        let update = file.refresh();
        assert!(
            matches!(update.status, FileStatus::MidWrite(_)),
            "{update:?}"
        );
        assert!(file.trajectories().is_empty());

        std::fs::write(&path, &two).unwrap();
        let update = file.refresh();
        assert_eq!(update.changes, vec![TrajectoryChange::Added { index: 0 }]);
        assert_eq!(file.trajectories()[0].steps.len(), 2);

        let three = mini(3, None);
        std::fs::write(&path, &three[..three.len() - 40]).unwrap();
        let update = file.refresh();
        assert!(matches!(update.status, FileStatus::MidWrite(_)));
        assert_eq!(
            file.trajectories()[0].steps.len(),
            2,
            "steps already shown are kept"
        );

        std::fs::write(&path, &three).unwrap();
        let update = file.refresh();
        assert_eq!(
            update.changes,
            vec![TrajectoryChange::Grew {
                index: 0,
                first_changed: 3,
                previous_steps: 2
            }]
        );
        assert_eq!(update.status, FileStatus::Current);

        let done = mini(3, Some("Submitted"));
        std::fs::write(&path, &done).unwrap();
        let update = file.refresh();
        assert_eq!(
            update.changes,
            vec![TrajectoryChange::Grew {
                index: 0,
                first_changed: 4,
                previous_steps: 3
            }]
        );

        let fresh = formats::load_file(&path).unwrap();
        match fresh {
            formats::Loaded::Trajectories(ts) => assert_eq!(ts, file.trajectories()),
            formats::Loaded::Results(_) => panic!("not results"),
        }

        std::fs::remove_file(&path).unwrap();
        let update = file.refresh();
        assert_eq!(update.status, FileStatus::Removed);
        assert_eq!(update.changes, vec![TrajectoryChange::Removed { index: 0 }]);
        assert!(file.trajectories().is_empty());
    }

    #[test]
    fn a_rewrite_that_changes_history_is_a_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.traj.json");
        std::fs::write(&path, mini(3, None)).unwrap();
        let mut file = FollowedFile::new(&path);
        file.refresh();
        std::fs::write(&path, mini(1, None)).unwrap();
        assert_eq!(
            file.refresh().changes,
            vec![TrajectoryChange::Replaced { index: 0 }]
        );
    }

    #[test]
    fn unchanged_file_reports_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.traj.json");
        std::fs::write(&path, mini(2, None)).unwrap();
        let mut file = FollowedFile::new(&path);
        assert_eq!(file.refresh().changes.len(), 1);
        let again = file.refresh();
        assert!(again.changes.is_empty());
        assert_eq!(again.status, FileStatus::Current);
    }
}
