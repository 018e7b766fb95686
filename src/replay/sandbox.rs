//! The isolation a continued run's commands execute in: bubblewrap (`bwrap`), a maintained
//! tool built for exactly this, rather than anything of our own.
//!
//! Each command (or the one long-lived shell of a session agent) starts under `bwrap` with:
//! the whole filesystem read-only, the scratch copy the only writable place; a private empty
//! `/tmp`, `/run`, `/home`, `/root` and `$HOME`, with the toolchain folders of the home
//! ([`TOOLCHAIN`]) and the user's `--bind` paths read-only on top; a new mount, PID, IPC, UTS,
//! cgroup and network namespace (loopback only, unless the policy allows the network); no
//! capabilities, even for root (with them, root inside could unmount the empty home and see the
//! real one); an empty environment but for `PATH`, `HOME`, the locale and the agent's own
//! variables; `--die-with-parent` and `--new-session`. The PID namespace ends with its first
//! process, so nothing a command leaves in the background outlives it.
//!
//! This module only finds `bwrap`, checks that it works here and builds its words; the shell
//! and the native tools (`files::Confined`) use them. It runs nothing else.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use thiserror::Error;

/// Folders of the home the agents' toolchains run from, made visible read-only. Whole
/// folders that also hold secrets (`~/.cargo` has `credentials.toml`, `~/.local/share` has
/// keyrings) are named by their toolchain parts only.
pub const TOOLCHAIN: &[&str] = &[
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".pyenv",
    ".nvm",
    ".volta",
    ".asdf",
    ".sdkman",
    ".deno",
    ".bun",
    "go",
    "miniconda3",
    "anaconda3",
    "miniforge3",
];

/// Folders hidden behind an empty private directory, whatever the home is.
const HIDDEN: &[&str] = &["/tmp", "/var/tmp", "/run", "/var/run", "/home", "/root"];

#[derive(Debug, Error)]
pub enum SandboxError {
    #[error(
        "--continue runs the log's commands in a bubblewrap sandbox, and `bwrap` is not installed. \
         Install it (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`; \
         Arch: `pacman -S bubblewrap`), or run in a container you started with \
         --exec-prefix 'docker exec -i NAME', or pass --no-sandbox to run them unprotected"
    )]
    NotInstalled,
    #[error(
        "bubblewrap ({program}) does not work here: {stderr}. Allow user namespaces \
         (sysctl kernel.unprivileged_userns_clone=1, or run as root), use --exec-prefix with a \
         container, or pass --no-sandbox to run the commands unprotected"
    )]
    Unusable { program: String, stderr: String },
    #[error("--bind {path}: {why}")]
    Bind { path: String, why: String },
}

/// What the sandbox lets commands reach beyond the scratch copy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Share the host's network (`--network`); otherwise only a private loopback.
    pub network: bool,
    /// More read-only paths (`--bind PATH`), absolute.
    pub binds: Vec<PathBuf>,
}

impl Policy {
    /// Checks the extra binds: absolute, existing paths.
    pub fn check(&self) -> Result<(), SandboxError> {
        for path in &self.binds {
            let shown = path.display().to_string();
            if !path.is_absolute() {
                return Err(SandboxError::Bind {
                    path: shown,
                    why: "give an absolute path".into(),
                });
            }
            if !path.exists() {
                return Err(SandboxError::Bind {
                    path: shown,
                    why: "no such file or folder".into(),
                });
            }
        }
        Ok(())
    }
}

/// A working `bwrap`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bubblewrap {
    program: PathBuf,
}

impl Bubblewrap {
    /// `bwrap` from `PATH`, checked by running `true` in the sandbox the policy describes.
    pub fn find(policy: &Policy) -> Result<Bubblewrap, SandboxError> {
        let program = on_path("bwrap").ok_or(SandboxError::NotInstalled)?;
        let bwrap = Bubblewrap { program };
        policy.check()?;
        bwrap.probe(policy)?;
        Ok(bwrap)
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    fn probe(&self, policy: &Policy) -> Result<(), SandboxError> {
        let words = self.launcher(Path::new("/"), &[], policy);
        let Some((program, args)) = words.split_first() else {
            return Err(SandboxError::NotInstalled);
        };
        let out = Command::new(program)
            .args(args)
            .arg("true")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| SandboxError::Unusable {
                program: self.program.display().to_string(),
                stderr: e.to_string(),
            })?;
        if out.status.success() {
            return Ok(());
        }
        Err(SandboxError::Unusable {
            program: self.program.display().to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }

    /// The words that start a command in the sandbox (the command's own words follow):
    /// `writable` is the scratch copy, `readable` more read-only paths it needs (the folder
    /// a shared git clone borrows its objects from).
    pub fn launcher(&self, writable: &Path, readable: &[PathBuf], policy: &Policy) -> Vec<String> {
        let mut w = Words::default();
        w.push(&self.program.to_string_lossy());
        w.all(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let mut hidden: Vec<PathBuf> = HIDDEN.iter().map(PathBuf::from).collect();
        hidden.extend(
            home.clone()
                .filter(|h| h.is_absolute() && h != Path::new("/")),
        );
        hidden.dedup();
        for dir in &hidden {
            // A symlink (`/var/run` → `/run`) is hidden through its target.
            if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
                let p = dir.to_string_lossy();
                w.all(["--tmpfs", p.as_ref()]);
            }
        }
        let mut ro: Vec<PathBuf> = Vec::new();
        if let Some(home) = &home {
            ro.extend(TOOLCHAIN.iter().map(|t| home.join(t)));
        }
        if policy.network {
            // A resolv.conf managed by systemd-resolved lives under the hidden /run.
            if let Ok(real) = std::fs::canonicalize("/etc/resolv.conf")
                && real.starts_with("/run")
                && let Some(dir) = real.parent()
            {
                ro.push(dir.to_path_buf());
            }
        }
        ro.extend(readable.iter().cloned());
        ro.extend(policy.binds.iter().cloned());
        for path in ro.iter().filter(|p| p.exists()) {
            let p = path.to_string_lossy();
            w.all(["--ro-bind", p.as_ref(), p.as_ref()]);
        }
        if writable != Path::new("/") {
            let p = writable.to_string_lossy();
            w.all(["--bind", p.as_ref(), p.as_ref(), "--chdir", p.as_ref()]);
        }
        w.all(["--unshare-all"]);
        if policy.network {
            w.push("--share-net");
        }
        w.all(["--die-with-parent", "--new-session", "--cap-drop", "ALL"]);
        w.push("--clearenv");
        let mut env: Vec<(String, String)> = vec![(
            "PATH".into(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into()),
        )];
        if let Some(home) = &home {
            env.push(("HOME".into(), home.to_string_lossy().into_owned()));
        }
        for key in [
            "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "LOGNAME", "TZ",
        ] {
            if let Ok(v) = std::env::var(key) {
                env.push((key.into(), v));
            }
        }
        for (k, v) in &env {
            w.all(["--setenv", k.as_str(), v.as_str()]);
        }
        w.push("--");
        w.0
    }

    /// What the sandbox protects, in a few lines for the confirmation and the docs.
    pub fn describe(&self, policy: &Policy) -> Vec<String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let visible: Vec<String> = home
            .iter()
            .flat_map(|h| TOOLCHAIN.iter().map(move |t| h.join(t)))
            .filter(|p| p.exists())
            .chain(policy.binds.iter().cloned())
            .map(|p| p.display().to_string())
            .collect();
        vec![
            format!("bubblewrap ({})", self.program.display()),
            "writable: the scratch copy only".to_string(),
            format!(
                "read-only: the rest of /; hidden (empty): /tmp /var/tmp /run /home /root{}",
                home.filter(|h| !HIDDEN.iter().any(|d| h == Path::new(d)))
                    .map(|h| format!(" {}", h.display()))
                    .unwrap_or_default()
            ),
            format!(
                "read-only from the home: {}",
                if visible.is_empty() {
                    "nothing".to_string()
                } else {
                    visible.join(" ")
                }
            ),
            if policy.network {
                "network: the host's (--network)".to_string()
            } else {
                "network: none (loopback only; --network to allow)".to_string()
            },
            "processes: new PID namespace, all killed when the command ends; no capabilities"
                .to_string(),
            "environment: PATH, HOME, locale and the agent's own variables only".to_string(),
        ]
    }
}

/// What `--no-sandbox` leaves unprotected, for its warning.
pub const UNPROTECTED: &str = "--no-sandbox: the log's commands run as you, on this machine: \
they can read and write every file you can (your home, keys, other repositories), reach the \
network, see your environment (API keys included) and leave processes running. Only \
trajscope's own editor tools stay confined to the scratch copy.";

#[derive(Default)]
struct Words(Vec<String>);

impl Words {
    fn push(&mut self, word: &str) {
        self.0.push(word.to_string());
    }

    fn all<'a>(&mut self, words: impl IntoIterator<Item = &'a str>) {
        self.0.extend(words.into_iter().map(String::from));
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests;
