//! Polling for changes where notifications cannot be trusted (network filesystems, `--poll`).
//!
//! notify's own poll watcher compares whole-second modification times: a rewrite made within
//! the same second as the previous scan went unseen (steps 28-30 of a 30-step run were never
//! reported). Here each file's signature is its size, modification and change times in
//! nanoseconds and its inode, and, for a file modified in the last few seconds (the only
//! ones whose next write can land in the same clock tick as the last), a fingerprint of its
//! content: a same-size rewrite within the same tick still differs there. A file untouched
//! for longer is compared by `stat` alone, so a quiet run of thousands of files costs a
//! `stat` each per interval, not a read.

use notify::RecursiveMode;
use notify::event::{CreateKind, Event, EventKind, ModifyKind, RemoveKind};
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Files modified this recently have their content fingerprinted: generous, since a network
/// filesystem's times come from the server's clock.
const RECENT: Duration = Duration::from_secs(5);
/// Bytes read from each end of a big file for its fingerprint (all of a smaller one).
const ENDS: u64 = 64 << 10;

/// What a poll compares. Two reads of an unchanged file give equal signatures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    pub len: u64,
    pub modified_ns: u128,
    pub changed_ns: i128,
    pub inode: u64,
    /// Content fingerprint; 0 for a file not modified recently (see [`differ`]).
    pub content: u64,
}

impl Signature {
    /// The signature of the file at `path`, `None` when it cannot be read (gone).
    pub fn of(path: &Path) -> Option<Signature> {
        let meta = std::fs::metadata(path).ok()?;
        let modified = meta.modified().ok()?;
        let modified_ns = modified
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let (changed_ns, inode) = unix_times(&meta);
        let recent = match SystemTime::now().duration_since(modified) {
            Ok(age) => age < RECENT,
            // Modified "in the future": a server's clock ahead of ours.
            Err(_) => true,
        };
        let content = if recent && meta.is_file() {
            fingerprint(path, meta.len()).unwrap_or(0)
        } else {
            0
        };
        Some(Signature {
            len: meta.len(),
            modified_ns,
            changed_ns,
            inode,
            content,
        })
    }
}

#[cfg(unix)]
fn unix_times(meta: &std::fs::Metadata) -> (i128, u64) {
    use std::os::unix::fs::MetadataExt;
    (
        i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        meta.ino(),
    )
}

#[cfg(not(unix))]
fn unix_times(_meta: &std::fs::Metadata) -> (i128, u64) {
    (0, 0)
}

/// A hash of the whole file when it is small, of its first and last [`ENDS`] bytes when not
/// (an append changes the end; a rewrite of an agent log changes its end or its size).
fn fingerprint(path: &Path, len: u64) -> std::io::Result<u64> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = DefaultHasher::new();
    let mut buf = Vec::new();
    if len <= 2 * ENDS {
        file.read_to_end(&mut buf)?;
        hasher.write(&buf);
    } else {
        (&mut file).take(ENDS).read_to_end(&mut buf)?;
        file.seek(SeekFrom::Start(len - ENDS))?;
        file.take(ENDS).read_to_end(&mut buf)?;
        hasher.write(&buf);
    }
    Ok(hasher.finish())
}

/// A polling thread; dropping it stops the thread at its next wake-up.
pub struct Poller {
    stop: Arc<AtomicBool>,
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Poller {
    /// Starts polling `targets` every `interval`, sending an event for each path created,
    /// changed or removed. The first pass records what is there without reporting it.
    pub fn spawn(
        targets: Vec<(PathBuf, RecursiveMode)>,
        interval: Duration,
        events: Sender<notify::Result<Event>>,
    ) -> std::io::Result<Poller> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let mut known = snapshot(&targets);
        std::thread::Builder::new()
            .name("trajscope-poll".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    std::thread::sleep(interval);
                    let now = snapshot(&targets);
                    for event in differences(&known, &now) {
                        if events.send(Ok(event)).is_err() {
                            return;
                        }
                    }
                    known = now;
                }
            })?;
        Ok(Poller { stop })
    }
}

/// Every file and folder under the targets, with its signature (folders: `None`).
fn snapshot(targets: &[(PathBuf, RecursiveMode)]) -> HashMap<PathBuf, Option<Signature>> {
    let mut out = HashMap::new();
    for (path, mode) in targets {
        walk(path, *mode == RecursiveMode::Recursive, true, &mut out);
    }
    out
}

fn walk(path: &Path, recursive: bool, top: bool, out: &mut HashMap<PathBuf, Option<Signature>>) {
    // Symlinked folders are not entered (a link back up would loop), as a folder walk does.
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_dir() {
        if !top {
            out.insert(path.to_path_buf(), None);
            if !recursive {
                return;
            }
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        for entry in entries.flatten() {
            walk(&entry.path(), recursive, false, out);
        }
    } else if let Some(signature) = Signature::of(path) {
        out.insert(path.to_path_buf(), Some(signature));
    }
}

/// Whether two signatures of one path say it changed. A fingerprint is only compared when
/// both have one: a file growing old loses its fingerprint without having changed.
fn differ(a: Option<&Signature>, b: Option<&Signature>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            (a.len, a.modified_ns, a.changed_ns, a.inode)
                != (b.len, b.modified_ns, b.changed_ns, b.inode)
                || (a.content != 0 && b.content != 0 && a.content != b.content)
        }
        (a, b) => a.is_some() != b.is_some(),
    }
}

fn differences(
    before: &HashMap<PathBuf, Option<Signature>>,
    now: &HashMap<PathBuf, Option<Signature>>,
) -> Vec<Event> {
    let mut events = Vec::new();
    for (path, signature) in now {
        let kind = match before.get(path) {
            None => EventKind::Create(CreateKind::Any),
            Some(old) if differ(old.as_ref(), signature.as_ref()) => {
                EventKind::Modify(ModifyKind::Any)
            }
            Some(_) => continue,
        };
        events.push(Event::new(kind).add_path(path.clone()));
    }
    for path in before.keys().filter(|p| !now.contains_key(*p)) {
        events.push(Event::new(EventKind::Remove(RemoveKind::Any)).add_path(path.clone()));
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same size, same modification time: only the content tells the two versions apart.
    #[test]
    fn a_same_size_rewrite_in_the_same_second_changes_the_signature() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.traj");
        std::fs::write(&path, b"{\"steps\": 1}").unwrap();
        let when = std::fs::metadata(&path).unwrap().modified().unwrap();
        let before = Signature::of(&path).unwrap();
        std::fs::write(&path, b"{\"steps\": 2}").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(when).unwrap();
        let after = Signature::of(&path).unwrap();
        assert_eq!(
            (before.len, before.modified_ns),
            (after.len, after.modified_ns)
        );
        assert_ne!(before.content, after.content);
        assert!(differ(Some(&before), Some(&after)));
        assert_eq!(
            after,
            Signature::of(&path).unwrap(),
            "unchanged file, same signature"
        );
    }

    #[test]
    fn a_big_file_is_fingerprinted_by_its_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let mut bytes = vec![b'x'; 300 << 10];
        std::fs::write(&path, &bytes).unwrap();
        let a = fingerprint(&path, bytes.len() as u64).unwrap();
        *bytes.last_mut().unwrap() = b'y';
        std::fs::write(&path, &bytes).unwrap();
        assert_ne!(a, fingerprint(&path, bytes.len() as u64).unwrap());
    }
}
