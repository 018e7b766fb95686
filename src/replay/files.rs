//! The file operations the native editor tools need, on this machine (the scratch copy) or
//! inside a container the user started (`--exec-prefix`), where each operation is one
//! `docker exec`-style call of a standard tool (`cat`, `find`, `realpath`).
//!
//! Paths are absolute, as the machine (or container) sees them: path mapping happens before.
//! On this machine the tools get [`Confined`] files: nothing outside the scratch copy.

mod confined;

pub use confined::Confined;

use std::io::{self, Write};
use std::process::{Command, Stdio};

/// What a path is, without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One path found by [`Files::walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub kind: Kind,
}

pub trait Files {
    fn read(&self, path: &str) -> io::Result<Vec<u8>>;
    fn write(&self, path: &str, data: &[u8]) -> io::Result<()>;
    /// `Err(NotFound)` when nothing is there.
    fn kind(&self, path: &str) -> io::Result<Kind>;
    /// Everything below `dir` (not `dir` itself), not following symlinks, sorted by path.
    fn walk(&self, dir: &str, max_depth: Option<usize>) -> io::Result<Vec<Entry>>;
    fn realpath(&self, path: &str) -> io::Result<String>;

    /// The first path refused since the last call, when these files refuse some
    /// ([`Confined`]).
    fn take_refusal(&self) -> Option<String> {
        None
    }

    fn exists(&self, path: &str) -> bool {
        self.kind(path).is_ok()
    }

    /// The kind, following a symlink.
    fn is_dir(&self, path: &str) -> bool {
        match self.kind(path) {
            Ok(Kind::Dir) => true,
            Ok(Kind::Symlink) => self
                .realpath(path)
                .is_ok_and(|p| p != path && self.is_dir(&p)),
            _ => false,
        }
    }
}

/// Files on this machine.
pub struct LocalFiles;

impl Files for LocalFiles {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn write(&self, path: &str, data: &[u8]) -> io::Result<()> {
        std::fs::write(path, data)
    }

    fn kind(&self, path: &str) -> io::Result<Kind> {
        let t = std::fs::symlink_metadata(path)?.file_type();
        Ok(if t.is_symlink() {
            Kind::Symlink
        } else if t.is_dir() {
            Kind::Dir
        } else if t.is_file() {
            Kind::File
        } else {
            Kind::Other
        })
    }

    fn walk(&self, dir: &str, max_depth: Option<usize>) -> io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        let mut stack = vec![(dir.trim_end_matches('/').to_string(), 1usize)];
        while let Some((d, depth)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(if d.is_empty() { "/" } else { &d }) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = format!("{d}/{}", entry.file_name().to_string_lossy());
                let kind = self.kind(&path).unwrap_or(Kind::Other);
                if kind == Kind::Dir && max_depth.is_none_or(|m| depth < m) {
                    stack.push((path.clone(), depth + 1));
                }
                out.push(Entry { path, kind });
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn realpath(&self, path: &str) -> io::Result<String> {
        Ok(std::fs::canonicalize(path)?.to_string_lossy().into_owned())
    }
}

/// Files inside a container, reached through a launcher such as `docker exec -i NAME`.
pub struct ContainerFiles {
    launcher: Vec<String>,
}

impl ContainerFiles {
    pub fn new(launcher: Vec<String>) -> ContainerFiles {
        ContainerFiles { launcher }
    }

    fn call(&self, args: &[&str], input: Option<&[u8]>) -> io::Result<Vec<u8>> {
        let (program, rest) = self
            .launcher
            .split_first()
            .ok_or_else(|| io::Error::other("empty --exec-prefix"))?;
        let mut cmd = Command::new(program);
        cmd.args(rest)
            .args(args)
            .stdin(if input.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        if let (Some(data), Some(mut stdin)) = (input, child.stdin.take()) {
            stdin.write_all(data)?;
        }
        let out = child.wait_with_output()?;
        if out.status.success() {
            return Ok(out.stdout);
        }
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        let kind = if err.contains("No such file") {
            io::ErrorKind::NotFound
        } else {
            io::ErrorKind::Other
        };
        Err(io::Error::new(kind, err))
    }
}

impl Files for ContainerFiles {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        self.call(&["cat", "--", path], None)
    }

    fn write(&self, path: &str, data: &[u8]) -> io::Result<()> {
        self.call(&["sh", "-c", "cat > \"$1\"", "sh", path], Some(data))
            .map(|_| ())
    }

    fn kind(&self, path: &str) -> io::Result<Kind> {
        let script = "if [ -L \"$1\" ]; then echo l; elif [ -d \"$1\" ]; then echo d; \
                      elif [ -f \"$1\" ]; then echo f; elif [ -e \"$1\" ]; then echo o; else echo n; fi";
        let out = self.call(&["sh", "-c", script, "sh", path], None)?;
        match String::from_utf8_lossy(&out).trim() {
            "l" => Ok(Kind::Symlink),
            "d" => Ok(Kind::Dir),
            "f" => Ok(Kind::File),
            "o" => Ok(Kind::Other),
            _ => Err(io::Error::new(io::ErrorKind::NotFound, path.to_string())),
        }
    }

    fn walk(&self, dir: &str, max_depth: Option<usize>) -> io::Result<Vec<Entry>> {
        let depth = max_depth.map(|d| d.to_string());
        let mut args = vec!["find", dir, "-mindepth", "1"];
        if let Some(d) = depth.as_deref() {
            args.extend(["-maxdepth", d]);
        }
        args.extend(["-printf", "%y %p\\0"]);
        let out = self.call(&args, None)?;
        let mut entries: Vec<Entry> = String::from_utf8_lossy(&out)
            .split('\0')
            .filter_map(|rec| {
                let (t, path) = rec.split_once(' ')?;
                let kind = match t {
                    "d" => Kind::Dir,
                    "f" => Kind::File,
                    "l" => Kind::Symlink,
                    _ => Kind::Other,
                };
                Some(Entry {
                    path: path.to_string(),
                    kind,
                })
            })
            .collect();
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    fn realpath(&self, path: &str) -> io::Result<String> {
        let out = self.call(&["realpath", "--", path], None)?;
        Ok(String::from_utf8_lossy(&out).trim_end().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_walk_kind_and_depth() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let r = root.to_string_lossy();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/c.txt"), "c").unwrap();
        std::fs::write(root.join("top.txt"), "t").unwrap();
        std::os::unix::fs::symlink("a", root.join("link")).unwrap();
        let fs = LocalFiles;
        let all: Vec<String> = fs
            .walk(&r, None)
            .unwrap()
            .into_iter()
            .map(|e| e.path)
            .collect();
        assert_eq!(
            all,
            ["a", "a/b", "a/b/c.txt", "link", "top.txt"].map(|p| format!("{r}/{p}"))
        );
        let shallow = fs.walk(&r, Some(1)).unwrap();
        assert_eq!(shallow.len(), 3);
        assert_eq!(fs.kind(&format!("{r}/link")).unwrap(), Kind::Symlink);
        assert!(fs.is_dir(&format!("{r}/link")));
        assert!(!fs.is_dir(&format!("{r}/top.txt")));
        assert_eq!(
            fs.kind(&format!("{r}/missing")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }

    /// The container implementation, with `env` as a launcher that adds nothing: the same
    /// commands a `docker exec` would run, on this machine.
    #[test]
    fn container_files_through_a_launcher() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let r = root.to_string_lossy().into_owned();
        let fs = ContainerFiles::new(vec!["env".into()]);
        let file = format!("{r}/x y.txt");
        fs.write(&file, b"hello\n").unwrap();
        assert_eq!(fs.read(&file).unwrap(), b"hello\n");
        assert_eq!(fs.kind(&file).unwrap(), Kind::File);
        assert_eq!(fs.kind(&r).unwrap(), Kind::Dir);
        assert_eq!(
            fs.kind(&format!("{r}/nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        assert_eq!(
            fs.read(&format!("{r}/nope")).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        std::fs::create_dir(root.join("sub")).unwrap();
        let walked = fs.walk(&r, None).unwrap();
        assert_eq!(
            walked,
            vec![
                Entry {
                    path: format!("{r}/sub"),
                    kind: Kind::Dir
                },
                Entry {
                    path: file.clone(),
                    kind: Kind::File
                },
            ]
        );
        assert_eq!(fs.realpath(&format!("{r}/sub/..")).unwrap(), r);
    }
}
