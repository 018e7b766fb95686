//! Following logs while agents write them.
//!
//! Agents write in two styles ([`WriteStyle`]): SWE-agent and mini-swe-agent rewrite the
//! whole file after every step (not atomically, so a read can see half a document); Claude
//! Code, Codex, OpenHands `output.jsonl`, JSONL chat logs and Aider append (the last line can
//! be half-written). A [`FollowedFile`] reads only what is new for appended files and keeps
//! the last good parse for rewritten ones, so that a torn write never shows and never loses
//! steps already shown. A [`Follower`] tracks a set of files and folders; a [`ChangeFeed`]
//! turns filesystem notifications (or polling, where notifications do not work) into debounced
//! batches of changed paths. This layer reads files; it never writes and never prints.

mod announce;
mod feed;
mod followed;
mod follower;
mod identity;
mod mounts;
mod poll;
mod style;

pub use announce::{Announced, announced};
pub use feed::{ChangeFeed, FeedClosed, FeedMode, WatchError};
pub use followed::{FileStatus, FileUpdate, FollowedFile, TrajectoryChange};
pub use follower::Follower;
pub use identity::TrajectoryPrint;
pub use mounts::is_network_filesystem;
pub use poll::Signature;
pub use style::{WriteStyle, write_style};
