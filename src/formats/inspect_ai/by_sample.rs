//! An Inspect `.json` log read a sample at a time, never whole: what `ls`, `stats`, `show`
//! and `export` do with a big one. A first pass ([`log_scan`]) finds where each sample
//! sits, keeps the header (wherever its keys are: before or after `samples`) and parses each
//! sample as the whole read does, only to learn whether it reads, its id and its epoch (how
//! the trajectories are named depends on all of them); each sample's bytes are dropped
//! once looked at. Then each trajectory is made from its sample's bytes read back from the
//! file, by the whole read's code, handed on and dropped: what is held is the header, one
//! sample and its trajectory. A sample bigger than the memory budget is refused by name
//! (index and id), the others still read.

use super::header::Header;
use super::log_head::member_value;
use super::log_scan::{Item, Scan};
use super::{log_json, name_epoch, sample, several_epochs, skipped};
use crate::formats::detect::{Kind, detect};
use crate::formats::json::to_text;
use crate::formats::{BUDGET_ENV, Detail, LoadError, memory_budget};
use crate::model::{Format, Trajectory, TrajectoryHeader};
use serde_json::value::RawValue;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Bytes read per chunk in the first pass.
const CHUNK: usize = 1 << 20;

/// An Inspect `.json` log whose samples are read from the file one at a time.
pub struct SampleLog {
    path: PathBuf,
    file: File,
    stamp: (u64, Option<SystemTime>),
    header: Header,
    detail: String,
    /// The samples that read, in order: each a trajectory.
    samples: Vec<Place>,
    /// Why the others did not, for the first trajectory's warnings.
    problems: Vec<String>,
    /// Instance ids are named by epoch.
    several: bool,
}

/// Where a sample that reads is, and its epoch.
struct Place {
    ordinal: usize,
    start: u64,
    end: u64,
    epoch: u64,
}

/// What the first pass learns of the samples.
#[derive(Default)]
struct Found {
    places: Vec<Place>,
    ids: Vec<String>,
    problems: Vec<String>,
    /// A sample is not JSON (or not UTF-8): the whole read says what the file holds.
    broken: bool,
}

impl Found {
    fn look(&mut self, item: Item, fallback: &str, budget: u64) {
        let ordinal = self.places.len() + self.problems.len();
        if !item.whole {
            let id = member_value(&item.bytes, "id")
                .map(|id| to_text(&id))
                .filter(|id| !id.is_empty())
                .map_or_else(String::new, |id| format!(" (id {id})"));
            self.problems.push(format!(
                "sample {}{id}: {} bytes, more than the memory budget of {budget} bytes \
                 ({BUDGET_ENV}) lets be read at once; skipped",
                ordinal + 1,
                item.end - item.start
            ));
            return;
        }
        let Some(raw) = std::str::from_utf8(&item.bytes)
            .ok()
            .and_then(|text| serde_json::from_str::<&RawValue>(text).ok())
        else {
            self.broken = true;
            return;
        };
        match log_json::sample(raw) {
            Ok(sample) => {
                self.ids.push(sample.instance_id(fallback, ordinal));
                self.places.push(Place {
                    ordinal,
                    start: item.start,
                    end: item.end,
                    epoch: sample.epoch.unwrap_or(1),
                });
            }
            Err(why) => self.problems.push(skipped(ordinal, &why)),
        }
    }
}

impl SampleLog {
    /// The first pass over `path`. `None` when it is not one JSON object of an Inspect log,
    /// or is broken (a syntax error, invalid UTF-8): the whole read says what it holds.
    pub fn open(path: &Path) -> Result<Option<SampleLog>, LoadError> {
        let io = |err| LoadError::io(path, err);
        let mut file = File::open(path).map_err(io)?;
        let stamp = stamp(&file).map_err(io)?;
        let budget = memory_budget().unwrap_or(u64::MAX);
        let fallback = TrajectoryHeader::new(path, Format::InspectAi).instance_id;
        let mut scan = Scan::new(budget);
        let mut found = Found::default();
        let mut buffer = vec![0; CHUNK];
        loop {
            let n = file.read(&mut buffer).map_err(io)?;
            if n == 0 {
                break;
            }
            scan.feed(&buffer[..n], &mut |item| {
                found.look(item, &fallback, budget)
            });
            if scan.not_object || found.broken {
                return Ok(None);
            }
            if scan.header.len() as u64 > budget {
                return Err(LoadError::invalid(
                    path,
                    format!(
                        "the log's fields besides its samples outgrow the memory budget of \
                         {budget} bytes ({BUDGET_ENV}); it cannot be read here"
                    ),
                ));
            }
        }
        if self::stamp(&file).map_err(io)? != stamp {
            return Err(changed(path));
        }
        let Some(header) = scan.finish() else {
            return Ok(None);
        };
        if std::str::from_utf8(&header).is_err()
            || !matches!(
                detect(path, &header),
                Ok(Kind::Trajectories(Format::InspectAi))
            )
        {
            return Ok(None);
        }
        // An error (`samples` not a list, a field given twice) is the whole read's to word.
        let Ok((header, _)) = log_json::open(path, &header) else {
            return Ok(None);
        };
        let Found {
            places,
            ids,
            problems,
            ..
        } = found;
        if places.is_empty()
            && let Some(first) = problems.first()
        {
            return Err(LoadError::invalid(path, first.clone()));
        }
        let several = several_epochs(
            &header,
            ids.iter()
                .map(String::as_str)
                .zip(places.iter().map(|p| p.epoch)),
        );
        Ok(Some(SampleLog {
            path: path.to_path_buf(),
            file,
            stamp,
            detail: header.detail("json"),
            header,
            samples: places,
            problems,
            several,
        }))
    }

    /// The trajectories the log holds (its samples that read).
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The `k`-th trajectory (0-based), as the whole read gives it.
    pub fn trajectory(&self, k: usize) -> Result<Trajectory, LoadError> {
        let path = &self.path;
        let place = self
            .samples
            .get(k)
            .ok_or_else(|| LoadError::invalid(path, format!("no trajectory {}", k + 1)))?;
        let io = |err| LoadError::io(path, err);
        if stamp(&self.file).map_err(io)? != self.stamp {
            return Err(changed(path));
        }
        let mut bytes = vec![0; (place.end - place.start) as usize];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(place.start)).map_err(io)?;
        file.read_exact(&mut bytes).map_err(io)?;
        let sample = std::str::from_utf8(&bytes)
            .map_err(|err| err.to_string())
            .and_then(|text| serde_json::from_str::<&RawValue>(text).map_err(|e| e.to_string()))
            .and_then(log_json::sample)
            .map_err(|why| LoadError::invalid(path, skipped(place.ordinal, &why)))?;
        let mut t = sample::trajectory(path, &self.header, &self.detail, sample, place.ordinal);
        if self.several {
            name_epoch(&mut t, place.epoch);
        }
        if k == 0 {
            t.warnings.extend(self.problems.iter().cloned());
        }
        t.number_steps();
        Ok(t)
    }

    /// Hands each trajectory to `on_trajectory` in order, holding none.
    pub fn visit(
        &self,
        on_trajectory: &mut dyn FnMut(Trajectory) -> Result<(), LoadError>,
    ) -> Result<(), LoadError> {
        for k in 0..self.len() {
            on_trajectory(self.trajectory(k)?)?;
        }
        Ok(())
    }

    /// Every trajectory, held; at [`Detail::Steps`] without the message pool and the steps'
    /// contexts (what a listing or a tally does not read).
    pub fn read_all(&self, detail: Detail) -> Result<Vec<Trajectory>, LoadError> {
        let mut all = Vec::with_capacity(self.len());
        self.visit(&mut |mut t| {
            if detail == Detail::Steps {
                t.messages = Vec::new();
                for step in &mut t.steps {
                    step.context = None;
                }
            }
            all.push(t);
            Ok(())
        })?;
        Ok(all)
    }
}

fn changed(path: &Path) -> LoadError {
    LoadError::invalid(path, "the file changed while it was read; read it again")
}

fn stamp(file: &File) -> std::io::Result<(u64, Option<SystemTime>)> {
    let meta = file.metadata()?;
    Ok((meta.len(), meta.modified().ok()))
}
