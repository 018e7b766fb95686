//! Exporting from the app: the open trajectory, or one step, written with `crate::export` to
//! a new file. An existing file is never replaced (the name gets `-2`, `-3`, …), so neither
//! the log nor an earlier export can be overwritten; the file appears whole or not at all.

use crate::export::{ExportError, ExportOptions, StepRange, write_html, write_markdown};
use crate::tui::effect::ExportRequest;
use crate::tui::msg::Msg;
use crate::tui::state::Notice;
use crate::tui::units;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes the export and says where it went (or why it could not).
pub fn export(request: &ExportRequest) -> Msg {
    Msg::Notice(match write(request) {
        Ok((path, bytes)) => Notice::info(format!(
            "exported {} to {} ({})",
            what(request),
            path.display(),
            units::bytes(bytes)
        )),
        Err(message) => Notice::error(format!("export failed: {message}")),
    })
}

fn what(request: &ExportRequest) -> String {
    match request.steps {
        StepRange::All => "the trajectory".into(),
        range => range.to_string(),
    }
}

/// `django__django-11099.html`, `django__django-11099-step-12.md`: the instance id made safe
/// for a file name.
pub fn file_name(request: &ExportRequest) -> String {
    let t = &request.trajectory;
    let stem = if t.instance_id.trim().is_empty() {
        t.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trajectory".into())
    } else {
        t.instance_id.clone()
    };
    let mut stem: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    if let StepRange::Span { first, last } = request.steps {
        if first == last {
            stem.push_str(&format!("-step-{first}"));
        } else {
            stem.push_str(&format!("-steps-{first}-{last}"));
        }
    }
    let extension = if request.html { "html" } else { "md" };
    format!("{}.{extension}", stem.trim_start_matches('.'))
}

fn write(request: &ExportRequest) -> Result<(PathBuf, u64), String> {
    let options = ExportOptions {
        steps: request.steps,
        badges: &request.badges,
        title: request.title.as_deref(),
        ..ExportOptions::default()
    };
    let dir = &request.dir.clone().unwrap_or_else(default_dir);
    let mut builder = tempfile::Builder::new();
    builder.prefix(".trajscope-export-");
    // As any file the user creates (the umask applies), not tempfile's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    {
        let mut w = BufWriter::new(temp.as_file_mut());
        // Opened lazily, it is written as `trajscope export` writes a big file: each step
        // read back from the file and dropped once written, without diffs.
        let t = &*request.trajectory;
        let written = if request.html {
            write_html(&mut w, t, &options)
        } else {
            write_markdown(&mut w, t, &options)
        };
        written
            .and_then(|()| w.flush().map_err(ExportError::from))
            .map_err(|e| e.to_string())?;
    }
    let bytes = temp.as_file().metadata().map(|m| m.len()).unwrap_or(0);
    let name = file_name(request);
    for n in 1..1000 {
        let path = dir.join(numbered(&name, n));
        match temp.persist_noclobber(&path) {
            Ok(_) => return Ok((path, bytes)),
            Err(err) if err.error.kind() == std::io::ErrorKind::AlreadyExists => {
                temp = err.file;
            }
            Err(err) => return Err(format!("{}: {}", path.display(), err.error)),
        }
    }
    Err(format!("{}: too many exports of this name", dir.display()))
}

/// `x.html`, then `x-2.html`, `x-3.html`, …
fn numbered(name: &str, n: usize) -> String {
    if n == 1 {
        return name.to_string();
    }
    match name.rsplit_once('.') {
        Some((stem, extension)) => format!("{stem}-{n}.{extension}"),
        None => format!("{name}-{n}"),
    }
}

/// The folder exports go to: the current directory, else the system's temporary folder.
pub fn default_dir() -> PathBuf {
    std::env::current_dir()
        .ok()
        .filter(|d| is_writable(d))
        .unwrap_or_else(std::env::temp_dir)
}

fn is_writable(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| !m.permissions().readonly())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, Step, Trajectory};
    use crate::present::StepBadges;
    use std::sync::Arc;

    fn request(dir: &Path, steps: StepRange, html: bool) -> ExportRequest {
        let mut t = Trajectory::new(dir.join("in.traj"), Format::SweAgent);
        t.instance_id = "org/repo#1".into();
        t.steps = (1..=3)
            .map(|i| Step {
                action: format!("ls {i}"),
                observation: format!("out {i}"),
                ..Step::default()
            })
            .collect();
        t.number_steps();
        let badges = StepBadges::collect(
            1..=3,
            |_| Vec::new(),
            |step| {
                if step == 2 {
                    vec!["wrong file localized"]
                } else {
                    Vec::new()
                }
            },
        );
        ExportRequest {
            trajectory: Arc::new(t),
            steps,
            html,
            badges,
            dir: Some(dir.to_path_buf()),
            title: None,
        }
    }

    #[test]
    fn exports_never_replace_a_file_and_say_where_they_went() {
        let dir = tempfile::tempdir().unwrap();
        let step = request(dir.path(), StepRange::one(2), false);
        assert_eq!(file_name(&step), "org_repo_1-step-2.md");
        let first = dir.path().join("org_repo_1-step-2.md");
        std::fs::write(&first, "mine").unwrap();
        let Msg::Notice(notice) = export(&step) else {
            panic!("no notice")
        };
        assert!(!notice.error, "{notice:?}");
        let second = dir.path().join("org_repo_1-step-2-2.md");
        assert!(
            notice.text.contains(&second.display().to_string()),
            "{notice:?}"
        );
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "mine");
        let text = std::fs::read_to_string(&second).unwrap();
        assert!(text.contains("ls 2") && !text.contains("ls 3"), "{text}");
        assert!(
            text.contains("wrong file localized"),
            "the step's marks are tagged"
        );
        let page = request(dir.path(), StepRange::All, true);
        let Msg::Notice(notice) = export(&page) else {
            panic!("no notice")
        };
        let html = std::fs::read_to_string(dir.path().join("org_repo_1.html")).unwrap();
        assert!(html.contains("ls 3") && notice.text.contains("the trajectory"));
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_an_error_notice() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no/such/dir");
        let Msg::Notice(notice) = export(&request(&missing, StepRange::All, false)) else {
            panic!("no notice")
        };
        assert!(
            notice.error && notice.text.starts_with("export failed"),
            "{notice:?}"
        );
    }
}
