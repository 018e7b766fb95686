//! A JSON Lines log followed as it grows (a running Claude Code or Codex session). Each
//! refresh reads only the bytes past the last read and slims them ([`super::slim`]); the
//! slim text so far (the structure and short strings: a small fraction of the file) is read
//! again by the format's reader, and only the steps and messages that are new or changed are
//! read back in full. Neither the file's bytes nor a second copy of its text are held.

use super::inflate::Inflater;
use super::slim::Slimmer;
use super::{CHUNK, STRING_CAP};
use crate::formats::{Kind, LoadError, detect, is_json_lines, parse};
use crate::model::{Message, Step, Trajectory};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// An appended log and what its last read found.
pub struct AppendedLog {
    path: PathBuf,
    slimmer: Slimmer,
    /// Bytes of the file read so far.
    read: u64,
    /// How much of the slim text the last parse read (up to its last newline).
    parsed_to: usize,
    /// The trajectories of the last parse, slim: what tells a changed step from one already
    /// read back.
    slim: Vec<Trajectory>,
}

impl std::fmt::Debug for AppendedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AppendedLog({}, {} bytes read)",
            self.path.display(),
            self.read
        )
    }
}

impl AppendedLog {
    pub fn new(path: &Path) -> AppendedLog {
        AppendedLog {
            path: path.to_path_buf(),
            slimmer: Slimmer::new(super::SLIM_ABOVE),
            read: 0,
            parsed_to: 0,
            slim: Vec::new(),
        }
    }

    /// Bytes of the file read so far (a file now shorter was truncated: read it anew).
    pub fn read_len(&self) -> u64 {
        self.read
    }

    /// The trajectories of the last read, slim (each long string a placeholder naming where
    /// it is): what tells one read's steps from the next's without reading them back.
    pub fn slim_mut(&mut self) -> &mut [Trajectory] {
        &mut self.slim
    }

    /// Whether what was read so far is JSON Lines.
    pub fn is_json_lines(&self) -> bool {
        is_json_lines(&self.slimmer.out)
    }

    /// Reads what was appended since the last call. `Ok(false)`: no new complete line, and
    /// `held` is left as it was. `Ok(true)`: `held` (the trajectories this returned last
    /// time, or none when the caller dropped them) now holds the file's trajectories, its
    /// unchanged steps and messages moved over rather than read again.
    pub fn refresh(&mut self, held: &mut Vec<Trajectory>) -> Result<bool, LoadError> {
        let path = self.path.clone();
        let io = |err| LoadError::io(&path, err);
        let mut file = File::open(&self.path).map_err(io)?;
        file.seek(SeekFrom::Start(self.read)).map_err(io)?;
        let mut buffer = vec![0; CHUNK];
        loop {
            let n = file.read(&mut buffer).map_err(io)?;
            if n == 0 {
                break;
            }
            self.slimmer.feed(&buffer[..n]);
            self.read += n as u64;
        }
        let slim = &self.slimmer.out;
        let end = memchr::memrchr(b'\n', slim).map_or(0, |i| i + 1);
        if end == self.parsed_to {
            return Ok(false);
        }
        let Kind::Trajectories(format) = detect(&self.path, &slim[..end])? else {
            return Err(LoadError::invalid(
                &self.path,
                "an eval results file, not a trajectory log",
            ));
        };
        let fresh = parse(format, &self.path, &slim[..end])?;
        let file = File::open(&self.path).map_err(io)?;
        let read_back = read_back(&file, &fresh, &self.slim, std::mem::take(held)).map_err(io)?;
        *held = read_back;
        self.slim = fresh;
        self.parsed_to = end;
        Ok(true)
    }
}

/// `fresh` (slim) read back from `file`, taking from `held` (read back from `previous`)
/// each step and message that did not change. One that did not change but is no longer held
/// is read as a preview: the caller dropped it, having no more use for it.
fn read_back(
    file: &File,
    fresh: &[Trajectory],
    previous: &[Trajectory],
    held: Vec<Trajectory>,
) -> std::io::Result<Vec<Trajectory>> {
    let whole = Inflater {
        file,
        preview: false,
        cap: STRING_CAP,
    };
    let preview = Inflater {
        file,
        preview: true,
        cap: STRING_CAP,
    };
    let mut held = held.into_iter();
    let mut out = Vec::with_capacity(fresh.len());
    for (i, slim) in fresh.iter().enumerate() {
        let mut kept = held.next();
        let before = previous.get(i);
        // Cloned slim: small, and the steps and pool are read back below.
        let mut header = slim.clone();
        header.steps = Vec::new();
        header.messages = Vec::new();
        header = whole.inflate(&header)?;
        header.steps = reuse(slim, before, kept.as_mut(), &whole, &preview)?;
        header.messages = reuse(slim, before, kept.as_mut(), &whole, &preview)?;
        out.push(header);
    }
    Ok(out)
}

/// The item lists of a trajectory that are read back one item at a time.
trait Items: Sized {
    fn of(t: &Trajectory) -> &[Self];
    fn of_mut(t: &mut Trajectory) -> &mut Vec<Self>;
}

impl Items for Step {
    fn of(t: &Trajectory) -> &[Self] {
        &t.steps
    }
    fn of_mut(t: &mut Trajectory) -> &mut Vec<Self> {
        &mut t.steps
    }
}

impl Items for Message {
    fn of(t: &Trajectory) -> &[Self] {
        &t.messages
    }
    fn of_mut(t: &mut Trajectory) -> &mut Vec<Self> {
        &mut t.messages
    }
}

/// Read-back items (steps or messages) of `slim`: the one taken from `held` where the slim
/// item is unchanged since `previous`.
fn reuse<T>(
    slim: &Trajectory,
    previous: Option<&Trajectory>,
    held: Option<&mut Trajectory>,
    whole: &Inflater,
    preview: &Inflater,
) -> std::io::Result<Vec<T>>
where
    T: Items + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
{
    let fresh = T::of(slim);
    let previous = previous.map(T::of);
    let held = held.map(|t| std::mem::take(T::of_mut(t)));
    let mut held: Vec<Option<T>> = held.unwrap_or_default().into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(fresh.len());
    for (k, item) in fresh.iter().enumerate() {
        let same = previous.and_then(|p| p.get(k)) == Some(item);
        let kept = if same {
            held.get_mut(k).and_then(Option::take)
        } else {
            None
        };
        out.push(match kept {
            Some(kept) => kept,
            None if same => preview.inflate(item)?,
            None => whole.inflate(item)?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Loaded, load_file};
    use std::io::Write;

    fn whole(path: &Path) -> Vec<Trajectory> {
        match load_file(path).unwrap() {
            Loaded::Trajectories(ts) => ts,
            Loaded::Results(_) => panic!("not trajectories"),
        }
    }

    #[test]
    fn appended_lines_are_read_without_reading_the_earlier_bytes_again() {
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-trajectories/claude-code/tinycalc__tinycalc-1.jsonl");
        let text = std::fs::read(&sample).unwrap();
        let cut = text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(12)
            .unwrap()
            .0
            + 1;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(&path, &text[..cut]).unwrap();

        let mut log = AppendedLog::new(&path);
        let mut held = Vec::new();
        assert!(log.refresh(&mut held).unwrap());
        assert_eq!(held, whole(&path), "the first read is the whole read");
        assert!(!log.refresh(&mut held).unwrap(), "nothing new");
        let before = held[0].steps.len();

        // The bytes already read are blanked (newlines kept): a step read again from them
        // would come back as spaces. Then the rest of the session is appended.
        let blank: Vec<u8> = text[..cut]
            .iter()
            .map(|&b| if b == b'\n' { b'\n' } else { b' ' })
            .collect();
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all(&blank).unwrap();
        file.write_all(&text[cut..]).unwrap();
        drop(file);
        assert!(log.refresh(&mut held).unwrap());
        assert_eq!(log.read_len(), text.len() as u64);

        std::fs::write(&path, &text).unwrap();
        let want = whole(&path);
        let got = &held[0].steps;
        assert_eq!(got.len(), want[0].steps.len());
        assert!(got.len() > before, "the appended steps are there");
        // The last step of the first read may have been completed by the new lines (its
        // tool result): it is read again; every earlier one was moved over, not re-read.
        assert_eq!(got[..before - 1], want[0].steps[..before - 1]);
        assert_eq!(got[before..], want[0].steps[before..]);
    }
}
