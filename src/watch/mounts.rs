//! Is a path on a network filesystem? There, inotify sees only local writes, so we poll.

use std::path::Path;

/// Filesystem types whose changes made on another machine raise no local notification.
const NETWORK_TYPES: &[&str] = &[
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "9p",
    "afs",
    "ceph",
    "glusterfs",
    "lustre",
    "fuse.sshfs",
    "fuse.s3fs",
    "fuse.rclone",
    "fuse.gcsfuse",
    "davfs",
    "fuse.juicefs",
];

/// The filesystem type of the mount holding `path`, on Linux; `None` elsewhere or if unknown.
pub fn filesystem_type(path: &Path) -> Option<String> {
    let path = path.canonicalize().ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mount_type_in(&mounts, &path)
}

fn mount_type_in(mounts: &str, path: &Path) -> Option<String> {
    mounts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let _device = fields.next()?;
            // Mount points escape spaces as \040.
            let point = fields.next()?.replace("\\040", " ");
            let kind = fields.next()?;
            path.starts_with(&point)
                .then(|| (point.len(), kind.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, kind)| kind)
}

/// Whether notifications cannot be trusted for `path`.
pub fn is_network_filesystem(path: &Path) -> bool {
    filesystem_type(path).is_some_and(|kind| NETWORK_TYPES.contains(&kind.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_mount_point_wins() {
        let mounts = "/dev/vda / ext4 rw 0 0\nserver:/x /mnt/runs nfs4 rw 0 0\nfoo /mnt/my\\040dir fuse.sshfs rw 0 0\n";
        assert_eq!(
            mount_type_in(mounts, Path::new("/home/a")).as_deref(),
            Some("ext4")
        );
        assert_eq!(
            mount_type_in(mounts, Path::new("/mnt/runs/r1/x.traj")).as_deref(),
            Some("nfs4")
        );
        assert_eq!(
            mount_type_in(mounts, Path::new("/mnt/my dir/s.jsonl")).as_deref(),
            Some("fuse.sshfs")
        );
    }

    #[test]
    fn local_temp_dir_is_not_network() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!is_network_filesystem(dir.path()));
    }
}
