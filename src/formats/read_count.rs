//! What a JSON Lines reader counts to refuse a file none of whose lines it could read: how
//! many records were read, and the warning of the first line that was not. The readers fed
//! one line at a time (the whole read and the bounded read of [`super::stream`] alike) share
//! it, so each says "no readable …" the same way.

use super::LoadError;
use std::path::Path;

#[derive(Debug, Default)]
pub struct ReadCount {
    records: usize,
    /// Why the first unreadable line was skipped, for a file with no readable line.
    first_problem: Option<String>,
}

impl ReadCount {
    /// Counts one line as read, or keeps its warning if it is the first; the line is given
    /// back for the reader to read or to log the warning.
    pub fn line<T>(&mut self, line: Result<T, String>) -> Result<T, String> {
        match &line {
            Ok(_) => self.records += 1,
            Err(warning) => {
                self.first_problem.get_or_insert_with(|| warning.clone());
            }
        }
        line
    }

    /// An error naming `path` when no line was read as a record: "no readable `what`", with
    /// why the first line was not.
    pub fn none_read(self, path: &Path, what: &str) -> Result<(), LoadError> {
        if self.records > 0 {
            return Ok(());
        }
        let why = self
            .first_problem
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        Err(LoadError::invalid(path, format!("no readable {what}{why}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_refused_only_when_no_line_was_read_and_names_the_first_problem() {
        let path = Path::new("/runs/a.jsonl");
        let mut count = ReadCount::default();
        assert!(count.line::<u8>(Err("a.jsonl:1: not JSON".into())).is_err());
        assert!(
            count
                .line::<u8>(Err("a.jsonl:2: not JSON either".into()))
                .is_err()
        );
        let message = count
            .none_read(path, "droid events")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("no readable droid events (a.jsonl:1: not JSON)"),
            "{message}"
        );
        assert!(message.contains("/runs/a.jsonl"), "{message}");

        let mut count = ReadCount::default();
        let _ = count.line::<u8>(Err("a.jsonl:1: not JSON".into()));
        assert_eq!(count.line(Ok(7u8)), Ok(7));
        assert!(count.none_read(path, "droid events").is_ok());
    }
}
