//! Embeds the git revision the binary is built from (`trajscope --version`, the HTML
//! export's footer) as TRAJSCOPE_GIT_REV. Outside a git checkout of this crate (a tarball,
//! a crate unpacked inside some other repository, no git installed) it is `unknown`, and
//! a packager can set TRAJSCOPE_GIT_REV themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=TRAJSCOPE_GIT_REV");
    let rev = std::env::var("TRAJSCOPE_GIT_REV")
        .ok()
        .filter(|r| !r.trim().is_empty())
        .or_else(git_rev)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=TRAJSCOPE_GIT_REV={rev}");
}

fn git_rev() -> Option<String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let top = git(&manifest, &["rev-parse", "--show-toplevel"])?;
    if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(&manifest).ok()? {
        return None;
    }
    // Rebuild when HEAD moves: HEAD itself (a branch switch) and the branch's ref (a commit).
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&manifest, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&manifest, &["rev-parse", "--git-path", &name]) {
            let path = manifest.join(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    git(&manifest, &["rev-parse", "--short", "HEAD"])
}

/// A git command's trimmed output, or `None` when git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}
