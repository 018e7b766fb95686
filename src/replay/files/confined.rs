//! trajscope's own editor tools write files themselves, outside any sandbox: [`Confined`]
//! keeps every path they touch inside the scratch copy, resolving `..` and symlinks (a
//! dangling one included) as the kernel would, and refuses the rest. The first refusal of a
//! tool call is kept so that the executor can answer with one clear observation.

use super::{Entry, Files, Kind, LocalFiles};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed before a path counts as a loop (the kernel's limit).
const MAX_HOPS: usize = 40;

/// Local files, only under `root`.
pub struct Confined {
    root: PathBuf,
    refused: RefCell<Option<String>>,
}

impl Confined {
    /// Confined to `root` (made canonical, so that a root reached through a symlink works).
    pub fn new(root: &Path) -> Confined {
        Confined {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            refused: RefCell::new(None),
        }
    }

    /// `path` if it stays under the root once resolved; `follow_last` false leaves a final
    /// symlink unresolved (for `kind`, which looks at the link itself).
    fn check(&self, path: &str, follow_last: bool) -> io::Result<()> {
        let absolute = if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            self.root.join(path)
        };
        let real = if follow_last {
            real_path(&absolute)
        } else {
            match (absolute.parent(), absolute.file_name()) {
                (Some(parent), Some(name)) => real_path(parent).map(|p| p.join(name)),
                _ => real_path(&absolute),
            }
        };
        match real {
            Ok(real) if real.starts_with(&self.root) => Ok(()),
            _ => {
                self.refused
                    .borrow_mut()
                    .get_or_insert_with(|| path.to_string());
                Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{path}: outside the workspace"),
                ))
            }
        }
    }
}

impl Files for Confined {
    fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        self.check(path, true)?;
        LocalFiles.read(path)
    }

    fn write(&self, path: &str, data: &[u8]) -> io::Result<()> {
        self.check(path, true)?;
        LocalFiles.write(path, data)
    }

    fn kind(&self, path: &str) -> io::Result<Kind> {
        self.check(path, false)?;
        LocalFiles.kind(path)
    }

    fn walk(&self, dir: &str, max_depth: Option<usize>) -> io::Result<Vec<Entry>> {
        self.check(dir, true)?;
        LocalFiles.walk(dir, max_depth)
    }

    fn realpath(&self, path: &str) -> io::Result<String> {
        self.check(path, true)?;
        LocalFiles.realpath(path)
    }

    fn take_refusal(&self) -> Option<String> {
        self.refused.borrow_mut().take()
    }
}

/// `path` (absolute) with every symlink and `..` resolved in order, as the kernel walks it;
/// the part that does not exist yet is resolved by name.
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    let mut pending: VecDeque<OsString> = parts(path);
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(io::Error::other("too many levels of symbolic links"));
                }
                let target = std::fs::read_link(&next)?;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                let mut rest = parts(&target);
                rest.extend(pending);
                pending = rest;
            }
            _ => out = next,
        }
    }
    Ok(out)
}

fn parts(path: &Path) -> VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some("..".into()),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, String) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("ws");
        std::fs::create_dir(&root).unwrap();
        let r = root.to_string_lossy().into_owned();
        (dir, root, r)
    }

    #[test]
    fn paths_inside_work_and_outside_are_refused() {
        let (dir, root, r) = setup();
        let files = Confined::new(&root);
        files.write(&format!("{r}/a.txt"), b"a").unwrap();
        assert_eq!(files.read(&format!("{r}/a.txt")).unwrap(), b"a");
        let outside = dir.path().join("outside.txt");
        let err = files.write(&outside.to_string_lossy(), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert!(!outside.exists());
        assert_eq!(
            files.take_refusal().as_deref(),
            Some(outside.to_string_lossy().as_ref())
        );
        // Only the first refusal of a call is kept, and taking it clears it.
        assert_eq!(files.take_refusal(), None);
        let dotdot = format!("{r}/../outside.txt");
        assert!(files.write(&dotdot, b"x").is_err());
        assert!(!outside.exists());
    }

    #[test]
    fn symlinks_out_of_the_workspace_are_refused_even_dangling_ones() {
        let (dir, root, r) = setup();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "s").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let dangling = dir.path().join("made-through-link");
        std::os::unix::fs::symlink(&dangling, root.join("dangling")).unwrap();
        let files = Confined::new(&root);
        assert!(files.read(&format!("{r}/link")).is_err());
        assert!(files.read(&format!("{r}/up/secret")).is_err());
        assert!(files.write(&format!("{r}/dangling"), b"x").is_err());
        assert!(!dangling.exists());
        // The link itself is in the workspace: its kind may be asked.
        assert_eq!(files.kind(&format!("{r}/link")).unwrap(), Kind::Symlink);
        // A link that stays inside is fine.
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("src", root.join("alias")).unwrap();
        files.write(&format!("{r}/alias/x.py"), b"x").unwrap();
        assert!(root.join("src/x.py").exists());
    }

    #[test]
    fn real_path_resolves_dotdot_after_a_symlink_as_the_kernel_does() {
        let (dir, root, _) = setup();
        std::fs::create_dir_all(dir.path().join("deep/er")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("deep/er"), root.join("l")).unwrap();
        let real = real_path(&root.join("l/../x")).unwrap();
        assert_eq!(real, dir.path().canonicalize().unwrap().join("deep/x"));
    }
}
