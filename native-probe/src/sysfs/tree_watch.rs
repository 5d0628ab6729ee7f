//! Whether anything in a recorded tree changed since the last look, told by inotify.
//!
//! [`super::kept::Kept`] checks with a `stat` per path, every reading, that each path it keeps
//! open still leads where it did. On a recorded tree (a regular directory on a local file
//! system), the kernel can say instead whether anything happened: with a watch on every
//! directory of the tree, creating, removing or renaming an entry anywhere in it queues an
//! event. A reading that finds the queue empty may trust the checks and listings made since
//! the last event; one `read` that fails with `EAGAIN` replaces a few dozen `stat`s.
//!
//! Nothing else is watched. Writing a file in place needs no check, as every reading reads
//! every file anew. A change of permissions or times is left to the check of every path
//! that [`super::kept::Kept`] still makes each second: watching for it (`IN_ATTRIB`) would
//! make the kernel look at the parent's watch on every read of every file in the tree.
//!
//! Real sysfs and debugfs queue no such events (their entries come and go with devices, not
//! through the VFS), nor do network file systems for changes made elsewhere; a tree on
//! another kind of file system, or one that spans several, is not watched and stays checked
//! path by path.

use std::{
    fs,
    mem::MaybeUninit,
    os::{fd::OwnedFd, unix::fs::MetadataExt},
    path::Path,
};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};

/// The most directories watched; a bigger tree is checked path by path.
const MOST_WATCHED: usize = 4096;

/// The local file systems whose every change goes through this kernel's VFS (`statfs`'s
/// `f_type`, linux/magic.h): ext2/3/4, XFS, Btrfs, tmpfs and F2FS.
const LOCAL_FILE_SYSTEMS: [i64; 5] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010];

/// What is watched: whatever can make a path lead elsewhere or a listing go stale.
fn watched_events() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DONT_FOLLOW
        | WatchFlags::ONLYDIR
}

/// An inotify watch on every directory of a tree.
pub struct TreeWatch {
    inotify: OwnedFd,
    root: Box<Path>,
    /// False once a walk could not watch every directory: nothing is quiet from then on.
    whole: bool,
    /// Room for the events of one `read`.
    events: Vec<MaybeUninit<u8>>,
}

impl TreeWatch {
    /// Watches every directory under `root`, or `None` where the events could not be trusted
    /// to tell every change (see the module's comment) or the tree is too big to watch.
    pub fn of(root: &Path) -> Option<TreeWatch> {
        if !on_local_file_system(root) {
            return None;
        }
        let inotify = inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()?;
        let mut watch = TreeWatch {
            inotify,
            root: root.into(),
            whole: true,
            events: vec![MaybeUninit::uninit(); 16 * 1024],
        };
        watch.whole = watch.watch_all();
        watch.whole.then_some(watch)
    }

    /// Whether nothing changed in the tree since the last call (or since it was first
    /// watched). Directories that came meanwhile are watched before this returns, so what is
    /// checked or listed after it is covered by the next call.
    pub fn quiet(&mut self) -> bool {
        let mut quiet = true;
        let mut new_directories = false;
        let mut reader = inotify::Reader::new(&self.inotify, &mut self.events);
        loop {
            match reader.next() {
                Ok(event) => {
                    quiet = false;
                    let events = event.events();
                    let directory_came = events.contains(ReadFlags::ISDIR)
                        && events.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO);
                    // Lost events may have been directories that came.
                    if directory_came || events.contains(ReadFlags::QUEUE_OVERFLOW) {
                        new_directories = true;
                    }
                }
                Err(rustix::io::Errno::AGAIN) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => {
                    // Unreadable: nothing can be trusted, and the tree is watched afresh.
                    quiet = false;
                    new_directories = true;
                    break;
                }
            }
        }
        // Adding a watch again to a directory already watched changes nothing, so the whole
        // tree is walked again: simpler than following where each new one lies, and rare.
        if new_directories && self.whole {
            // Too many now, or unreadable: every reading checks every path from here on.
            self.whole = self.watch_all();
        }
        quiet && self.whole
    }

    /// Adds a watch to every directory under the root (links are not followed; a link within
    /// the tree leads to a directory watched where it lies). False when the tree cannot be
    /// watched whole.
    fn watch_all(&self) -> bool {
        let Ok(device) = fs::metadata(&self.root).map(|m| m.dev()) else {
            return false;
        };
        let mut pending = vec![self.root.to_path_buf()];
        let mut watched = 0;
        while let Some(dir) = pending.pop() {
            watched += 1;
            if watched > MOST_WATCHED
                || inotify::add_watch(&self.inotify, &dir, watched_events()).is_err()
            {
                return false;
            }
            let Ok(entries) = fs::read_dir(&dir) else {
                return false;
            };
            for entry in entries {
                let Ok(entry) = entry else { return false };
                let Ok(kind) = entry.file_type() else {
                    return false;
                };
                if kind.is_dir() {
                    // A file system mounted inside the tree is not covered by this one's
                    // events being trusted.
                    match entry.metadata() {
                        Ok(meta) if meta.dev() == device => pending.push(entry.path()),
                        _ => return false,
                    }
                }
            }
        }
        true
    }
}

// `f_type`'s integer type differs between architectures; on x86-64 it is already i64.
#[allow(clippy::useless_conversion)]
fn on_local_file_system(dir: &Path) -> bool {
    rustix::fs::statfs(dir).is_ok_and(|fs| LOCAL_FILE_SYSTEMS.contains(&i64::from(fs.f_type)))
}
