//! A small on-disk cache of per-file summaries, so that reopening a run is near-instant.
//!
//! Kept in the user's cache folder (never next to the data), one file per set of opened
//! roots, keyed by each file's path, size and modification time: a changed file is read
//! again, a removed one dropped. A cache that cannot be read or parsed is ignored and
//! rebuilt, never trusted. Written atomically (a temporary file in the same folder, renamed).

use crate::model::{ResultsSource, TrajectorySummary};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Bumped whenever what a summary holds changes: an old cache is then ignored.
const VERSION: u32 = 2;

/// What one file turned out to hold, as cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CachedOutcome {
    Trajectories(Vec<TrajectorySummary>),
    Results(ResultsSource),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    pub size: u64,
    pub modified_ns: u128,
    pub outcome: CachedOutcome,
    /// Derived data other layers keep per file (e.g. the metrics tally under a rules hash).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extras: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    /// The program that wrote the cache: summaries made by another build (a loader added or
    /// fixed since) are not trusted.
    #[serde(default)]
    producer: String,
    entries: HashMap<PathBuf, CacheEntry>,
}

/// Identifies this build: the crate version and the executable's size and modification
/// time, so that any rebuild starts a fresh cache.
fn producer() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|exe| file_stamp(&exe))
        .map(|(size, modified)| format!("{size}-{modified}"))
        .unwrap_or_default();
    format!("{}+{exe}", env!("CARGO_PKG_VERSION"))
}

/// The cache for one run.
#[derive(Debug)]
pub struct RunCache {
    file: Option<PathBuf>,
    entries: HashMap<PathBuf, CacheEntry>,
    dirty: bool,
}

/// The size and modification time that key a file's entry.
pub fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    metadata_stamp(&std::fs::metadata(path).ok()?)
}

/// [`file_stamp`] of metadata already at hand.
pub fn metadata_stamp(meta: &std::fs::Metadata) -> Option<(u64, u128)> {
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some((meta.len(), modified.as_nanos()))
}

impl RunCache {
    /// The cache for `roots` under `cache_dir` (usually [`RunCache::default_dir`]); empty
    /// when there is none yet or it cannot be trusted.
    pub fn open(cache_dir: &Path, roots: &[PathBuf]) -> RunCache {
        let file = cache_dir
            .join("runs")
            .join(format!("{:016x}.json", roots_key(roots)));
        let entries = std::fs::read(&file)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<CacheFile>(&bytes).ok())
            .filter(|cache| cache.version == VERSION && cache.producer == producer())
            .map(|cache| cache.entries)
            .unwrap_or_default();
        RunCache {
            file: Some(file),
            entries,
            dirty: false,
        }
    }

    /// A cache that keeps nothing (`--no-cache`).
    pub fn disabled() -> RunCache {
        RunCache {
            file: None,
            entries: HashMap::new(),
            dirty: false,
        }
    }

    /// `$TRAJSCOPE_CACHE_DIR`, else the user's cache folder (`~/.cache/trajscope`).
    pub fn default_dir() -> Option<PathBuf> {
        std::env::var_os("TRAJSCOPE_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| dirs::cache_dir().map(|d| d.join("trajscope")))
    }

    /// The entry for `path` if the file has not changed since it was cached.
    pub fn get(&self, path: &Path, size: u64, modified_ns: u128) -> Option<&CacheEntry> {
        // What a Parquet dataset holds depends on `--columns` as well as on its bytes: read
        // it again each time (its listing reads only the header columns anyway).
        if super::parquet::has_parquet_extension(path) {
            return None;
        }
        self.entries
            .get(path)
            .filter(|e| e.size == size && e.modified_ns == modified_ns)
    }

    pub fn put(&mut self, path: PathBuf, entry: CacheEntry) {
        if self.file.is_some() && !super::parquet::has_parquet_extension(&path) {
            self.entries.insert(path, entry);
            self.dirty = true;
        }
    }

    /// Drops entries of files that are no longer part of the run.
    pub fn retain(&mut self, keep: impl Fn(&Path) -> bool) {
        let before = self.entries.len();
        self.entries.retain(|path, _| keep(path));
        self.dirty |= self.entries.len() != before;
    }

    /// Whether entries are kept (false for [`RunCache::disabled`]): callers skip preparing
    /// entries nobody keeps.
    pub fn is_enabled(&self) -> bool {
        self.file.is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the cache if it changed. Failing to write a cache is not worth failing a run
    /// for: the error is returned for the caller to mention or ignore.
    pub fn save(&mut self) -> std::io::Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if !self.dirty {
            return Ok(());
        }
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let cache = CacheFile {
            version: VERSION,
            producer: producer(),
            entries: std::mem::take(&mut self.entries),
        };
        let written = (|| {
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            // Buffered: unbuffered, serde_json makes a write call per token, and the cache of
            // a 5,000-file run took seconds to write instead of a tenth of one.
            let mut out = std::io::BufWriter::new(tmp.as_file_mut());
            serde_json::to_writer(&mut out, &cache)?;
            std::io::Write::flush(&mut out)?;
            drop(out);
            tmp.persist(file).map_err(|e| e.error)?;
            Ok::<(), std::io::Error>(())
        })();
        self.entries = cache.entries;
        self.dirty = written.is_err();
        written
    }
}

/// A stable key for a set of roots (FNV-1a over their absolute paths, sorted).
fn roots_key(roots: &[PathBuf]) -> u64 {
    let mut names: Vec<String> = roots
        .iter()
        .map(|r| {
            r.canonicalize()
                .unwrap_or_else(|_| r.clone())
                .display()
                .to_string()
        })
        .collect();
    names.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in names.join("\n").bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(size: u64) -> CacheEntry {
        CacheEntry {
            size,
            modified_ns: 7,
            outcome: CachedOutcome::Failed("broken".into()),
            extras: BTreeMap::new(),
        }
    }

    #[test]
    fn round_trip_and_staleness() {
        let cache_dir = tempfile::tempdir().unwrap();
        let roots = vec![PathBuf::from("/some/run")];
        let mut cache = RunCache::open(cache_dir.path(), &roots);
        assert!(cache.is_empty());
        cache.put(PathBuf::from("/some/run/a.traj"), entry(10));
        cache.save().unwrap();

        let cache = RunCache::open(cache_dir.path(), &roots);
        assert!(cache.get(Path::new("/some/run/a.traj"), 10, 7).is_some());
        assert!(
            cache.get(Path::new("/some/run/a.traj"), 11, 7).is_none(),
            "size changed"
        );
        assert!(
            cache.get(Path::new("/some/run/a.traj"), 10, 8).is_none(),
            "mtime changed"
        );
        let other = RunCache::open(cache_dir.path(), &[PathBuf::from("/other")]);
        assert!(other.is_empty(), "keyed by roots");
    }

    /// A cache of one entry saved for the run at `/r`, and the file it was saved to.
    fn saved_cache() -> (tempfile::TempDir, Vec<PathBuf>, PathBuf) {
        let cache_dir = tempfile::tempdir().unwrap();
        let roots = vec![PathBuf::from("/r")];
        let mut cache = RunCache::open(cache_dir.path(), &roots);
        cache.put(PathBuf::from("/r/x"), entry(1));
        cache.save().unwrap();
        let file = std::fs::read_dir(cache_dir.path().join("runs"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        (cache_dir, roots, file)
    }

    #[test]
    fn a_corrupt_cache_is_ignored() {
        let (cache_dir, roots, file) = saved_cache();
        std::fs::write(&file, b"{\"version\": 1, \"entries\": {\"/r/x\": ").unwrap();
        assert!(RunCache::open(cache_dir.path(), &roots).is_empty());
    }

    #[test]
    fn a_cache_written_by_another_build_is_ignored() {
        let (cache_dir, roots, file) = saved_cache();
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        assert_eq!(RunCache::open(cache_dir.path(), &roots).len(), 1);
        doc["producer"] = serde_json::json!("0.0.1+older-build");
        std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
        assert!(RunCache::open(cache_dir.path(), &roots).is_empty());
    }

    #[test]
    fn disabled_cache_keeps_nothing() {
        let mut cache = RunCache::disabled();
        cache.put(PathBuf::from("x"), entry(1));
        assert!(cache.is_empty());
        cache.save().unwrap();
    }
}
