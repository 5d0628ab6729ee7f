//! The directories and files the sampler reads every interval, kept open between readings.
//!
//! Opening a file costs several times more than reading it, and [`Root::resolve`] costs a
//! `readlink` per path component; the sampler reads a few hundred counter files ten times a
//! second. So what it reads stays open, and each reading only checks that the path still
//! leads there:
//!
//! - a directory, or a file read on its own, is checked with one `stat` of its path: when the
//!   device, inode, modification or change time differ from what was opened, the path is
//!   resolved again (a file replaced by rename is a new inode; a link pointed elsewhere leads
//!   to another one; a directory or file moved has a new change time, and so has a directory
//!   an entry came to, left or was renamed in). The same directory at the same place inside
//!   the root stays open and is listed afresh; anything else is opened afresh. During a
//!   reading (between [`Kept::begin_reading`] and [`Kept::end_reading`]), the `stat` starts
//!   from the nearest directory above that this reading already checked, through its kept
//!   descriptor: `ports/1/counters` after `ports` costs the lookup of `1/counters`, not of
//!   every component from `/` again, and checks the same thing, since `ports` was just found
//!   to be where its path leads;
//! - an open file is reused only for the directory entry of the same name *and inode*, so a
//!   counter replaced by rename is opened again, one removed is no longer read and one that
//!   reappears is opened again;
//! - a directory is listed afresh unless its times say it has not changed: creating,
//!   removing or renaming an entry sets a directory's modification time, so a directory
//!   unchanged since a listing that came [`SETTLED`] after its last change has the same
//!   entries. (A change within the timestamps' granularity of the listing could leave the
//!   time as it was; hence the margin.) It is listed afresh at least every
//!   [`RELISTED_EVERY`] anyway, for file systems that do not keep those times. Real sysfs
//!   is one: it does not touch a directory's times when entries come and go. So on sysfs
//!   [`Kept::list`], which finds devices, ports and interfaces, lists every time; only
//!   [`Kept::read_each`] trusts a listing there, since a driver's set of counter files is
//!   fixed while its device is there;
//! - a file is read again with `pread` at offset 0, which makes sysfs generate an attribute
//!   anew and shows a regular file's current contents. A file that fails to read is closed,
//!   so the next reading opens it again;
//! - on a recorded tree on a local file system, every directory is watched with inotify
//!   ([`TreeWatch`]). A reading that finds no event since the last one trusts every check
//!   and listing made since the tree last changed, and makes no `stat` at all; the first
//!   reading after an event checks everything as above. Every path is still checked at
//!   least every [`RELISTED_EVERY`], for changes no event tells of (new permissions, a file
//!   system mounted inside the tree, a directory above the root renamed).
//!
//! The rules of [`Root`] hold as before: a path is only opened once resolved inside the root,
//! entries are opened relative to their directory with `O_NOFOLLOW`, an entry that is a link
//! is resolved and checked on every reading (never kept), nothing is opened for writing, and
//! what cannot be read is an error for that path only. Files are opened with `O_NOATIME`
//! where the owner allows it. At most half the process's file descriptor limit is kept
//! open; beyond it, files are opened, read and closed each time.

use std::{
    collections::HashMap,
    ffi::{CString, OsString},
    fmt, io,
    os::fd::{AsFd, BorrowedFd, OwnedFd},
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, SeekFrom, Stat};

use super::{
    root::{attribute_text, ReadError, Root, MAX_ATTRIBUTE_BYTES},
    tree_watch::TreeWatch,
};

/// Bytes asked for per `pread`: a sysfs attribute is at most one page.
const CHUNK: usize = 4096;
/// The most descriptors kept open when the process's limit is unknown or unlimited.
const MOST_KEPT: usize = 8192;
/// How long after a directory's last change a listing of it is trusted while its times stay
/// the same: far more than any timestamp granularity of a local file system.
pub const SETTLED: Duration = Duration::from_secs(1);
/// How often a directory read with [`Kept::read_each`] is listed afresh even so; and, on a
/// watched tree, how often a reading checks every path even though no event came.
pub const RELISTED_EVERY: Duration = Duration::from_secs(1);

/// A [`Root`] whose directories and files stay open from one reading to the next.
pub struct Kept {
    root: Root,
    /// By path relative to the root, as asked for (its bytes: hashing a `Path` splits it
    /// into components every time).
    dirs: HashMap<OsString, KeptDir>,
    files: HashMap<OsString, KeptFile>,
    budget: Budget,
    /// Room (its spare capacity) for `getdents64` records, reused by every listing.
    dirents: Vec<u8>,
    /// Room for a file's bytes, reused by every read.
    bytes: Vec<u8>,
    /// [`SETTLED`], but for the tests.
    settled_after: Duration,
    /// Whether [`Kept::list`] may trust a settled listing: false on sysfs, whose directory
    /// times stay the same when entries come and go.
    listings_follow_times: bool,
    /// The reading going on, if any: a directory whose `checked_in` is this may anchor the
    /// checks of the paths below it.
    reading: Option<u64>,
    readings: u64,
    /// Events from every directory of a recorded tree, where they can be trusted.
    watch: Option<TreeWatch>,
    /// Counts the readings that found the tree changed (or checked everything anyway): a
    /// check or listing made since the last such reading holds while no event comes.
    epoch: u64,
    /// When the last reading that checked every path began.
    checked_all_at: Option<Instant>,
    /// Whether the reading going on may trust what was checked and listed in this epoch.
    trusting: bool,
    /// How many paths were checked with a `stat` (for the tests).
    #[cfg(test)]
    path_checks: std::cell::Cell<usize>,
}

/// A directory kept open: `stat` is what its descriptor was when opened.
struct KeptDir {
    path: PathBuf,
    resolved: PathBuf,
    fd: OwnedFd,
    stat: Stat,
    /// Its entries as last listed, sorted by name, with the files kept open.
    entries: Vec<Entry>,
    /// When it was last listed, and whether that listing came [`SETTLED`] after its last
    /// change.
    listed: Option<Instant>,
    settled: bool,
    /// Whether a reading used it since the last [`Kept::end_reading`].
    used: bool,
    /// The reading in which its path was last found to lead to it.
    checked_in: Option<u64>,
    /// The epoch in which its path was last found to lead to it, and in which it was last
    /// listed.
    valid_in: Option<u64>,
    listed_in: Option<u64>,
}

struct Entry {
    /// Shared with the readings' counter maps (see [`engine::probe::CounterName`]).
    name: Arc<str>,
    c_name: CString,
    inode: u64,
    /// A symbolic link (or of unknown type): resolved and checked each time, never kept.
    link: bool,
    /// `None` when it is a link, failed to open, or there was no room to keep it.
    fd: Option<OwnedFd>,
    /// Whether the listing going on found it.
    listed: bool,
}

/// A file read on its own, kept open.
struct KeptFile {
    path: PathBuf,
    resolved: PathBuf,
    fd: OwnedFd,
    stat: Stat,
    used: bool,
    /// The epoch in which its path was last found to lead to it.
    valid_in: Option<u64>,
}

/// How many descriptors may be kept open, and how many are.
struct Budget {
    open: usize,
    most: usize,
}

impl Budget {
    /// Half the soft limit on open files, so sockets and passing reads always have room.
    fn of_this_process() -> Budget {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        let most = limit
            .and_then(|l| usize::try_from(l / 2).ok())
            .map_or(MOST_KEPT, |half| half.min(MOST_KEPT));
        Budget { open: 0, most }
    }

    /// Counts one more descriptor kept, if there is room for it.
    fn take(&mut self) -> bool {
        let room = self.open < self.most;
        if room {
            self.open += 1;
        }
        room
    }

    fn give_back(&mut self, count: usize) {
        self.open = self.open.saturating_sub(count);
    }
}

impl KeptDir {
    /// The descriptors it holds, itself included.
    fn descriptors(&self) -> usize {
        1 + self.entries.iter().filter(|e| e.fd.is_some()).count()
    }
}

/// Whether `dir` is on a sysfs file system (`SYSFS_MAGIC`, linux/magic.h).
// `f_type`'s integer type differs between architectures; on x86-64 it is already i64.
#[allow(clippy::useless_conversion)]
fn is_sysfs(dir: &Path) -> bool {
    const SYSFS_MAGIC: i64 = 0x6265_6572;
    rustix::fs::statfs(dir).is_ok_and(|fs| i64::from(fs.f_type) == SYSFS_MAGIC)
}

/// Whether a path's `stat` now is the one of what was opened for it.
fn same(now: &Stat, opened: &Stat) -> bool {
    now.st_dev == opened.st_dev
        && now.st_ino == opened.st_ino
        && now.st_mtime == opened.st_mtime
        && now.st_mtime_nsec == opened.st_mtime_nsec
        && now.st_ctime == opened.st_ctime
        && now.st_ctime_nsec == opened.st_ctime_nsec
}

/// When a directory last changed: the later of its modification and change times.
fn changed_at(stat: &Stat) -> Option<SystemTime> {
    let at = |seconds, nanoseconds| {
        let seconds = u64::try_from(seconds).ok()?;
        let nanoseconds = u32::try_from(nanoseconds).ok()?;
        UNIX_EPOCH.checked_add(Duration::new(seconds, nanoseconds))
    };
    let modified = at(stat.st_mtime, stat.st_mtime_nsec)?;
    let changed = at(stat.st_ctime, stat.st_ctime_nsec)?;
    Some(modified.max(changed))
}

impl fmt::Debug for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kept")
            .field("root", &self.root)
            .field("dirs", &self.dirs.len())
            .field("files", &self.files.len())
            .field("open", &self.budget.open)
            .finish()
    }
}

impl Kept {
    pub fn new(root: Root) -> Kept {
        let listings_follow_times = !is_sysfs(root.dir());
        let watch = TreeWatch::of(root.dir());
        Kept {
            root,
            dirs: HashMap::new(),
            files: HashMap::new(),
            budget: Budget::of_this_process(),
            dirents: Vec::with_capacity(8 * 1024),
            bytes: Vec::new(),
            settled_after: SETTLED,
            listings_follow_times,
            reading: None,
            readings: 0,
            watch,
            epoch: 0,
            checked_all_at: None,
            trusting: false,
            #[cfg(test)]
            path_checks: std::cell::Cell::new(0),
        }
    }

    /// Starts a reading: until [`Kept::end_reading`], a directory checked once anchors the
    /// checks of what lies below it. On a watched tree where no event came since the last
    /// reading, what was checked or listed since the last change is trusted without a
    /// `stat`, but every path is checked again at least every [`RELISTED_EVERY`]: a file
    /// system mounted inside the tree, say, would change it without an event.
    pub fn begin_reading(&mut self) {
        self.readings = self.readings.wrapping_add(1);
        self.reading = Some(self.readings);
        let quiet = self.watch.as_mut().is_some_and(TreeWatch::quiet);
        let recently = self
            .checked_all_at
            .is_some_and(|at| at.elapsed() < RELISTED_EVERY);
        self.trusting = quiet && recently;
        if !self.trusting {
            self.epoch = self.epoch.wrapping_add(1);
            self.checked_all_at = Some(Instant::now());
        }
    }

    /// Ends a reading and closes what it did not use, so the directories of a device that
    /// went away do not stay open.
    pub fn end_reading(&mut self) {
        self.reading = None;
        self.trusting = false;
        self.forget_unused();
    }

    /// What [`Kept::stat_path`] finds for a kept item whose path was last found to lead to it
    /// in epoch `valid_in`, with `stat`: that `stat` again, without a system call, when this
    /// reading trusts the checks of that epoch.
    fn check(
        &self,
        relative: &Path,
        full: &Path,
        valid_in: Option<u64>,
        stat: Stat,
    ) -> rustix::io::Result<Stat> {
        if self.trusting && valid_in == Some(self.epoch) {
            Ok(stat)
        } else {
            self.stat_path(relative, full)
        }
    }

    /// The `stat` of `relative` (whose path from `/` is `full`), following links: from the
    /// nearest directory above it that this reading already checked, or from `/`.
    fn stat_path(&self, relative: &Path, full: &Path) -> rustix::io::Result<Stat> {
        #[cfg(test)]
        self.path_checks.set(self.path_checks.get() + 1);
        if let Some(reading) = self.reading {
            for above in relative.ancestors().skip(1) {
                if above.as_os_str().is_empty() {
                    break;
                }
                let Some(dir) = self.dirs.get(above.as_os_str()) else {
                    continue;
                };
                if dir.checked_in == Some(reading) {
                    if let Ok(rest) = relative.strip_prefix(above) {
                        return rustix::fs::statat(&dir.fd, rest, AtFlags::empty());
                    }
                }
                // The nearest kept directory was not checked in this reading (the sampler
                // reads a directory's parent first, so this is rare): start from `/`.
                break;
            }
        }
        rustix::fs::stat(full)
    }

    /// A `Kept` that keeps at most `most` descriptors open and trusts a directory listing
    /// after `settled_after`.
    #[cfg(test)]
    pub fn for_tests(root: Root, most: usize, settled_after: Duration) -> Kept {
        Kept {
            budget: Budget { open: 0, most },
            settled_after,
            ..Kept::new(root)
        }
    }

    /// What [`Root::read`] returns, from the file kept open for `relative` when its path
    /// still leads to it.
    pub fn read(&mut self, relative: &Path) -> Result<String, ReadError> {
        let epoch = self.epoch;
        let now = self
            .files
            .get(relative.as_os_str())
            .map(|kept| self.check(relative, &kept.path, kept.valid_in, kept.stat));
        if let (Some(kept), Some(now)) = (self.files.get_mut(relative.as_os_str()), now) {
            let unchanged = now.is_ok_and(|now| same(&now, &kept.stat));
            if unchanged {
                kept.used = true;
                kept.valid_in = Some(epoch);
                match pread_text(kept.fd.as_fd(), &mut self.bytes, || kept.resolved.clone()) {
                    Ok(text) => return Ok(text.to_string()),
                    Err(error) => {
                        self.forget_file(relative);
                        return Err(error);
                    }
                }
            }
            self.forget_file(relative);
        }
        let resolved = self.root.resolve(relative)?;
        let fd = open_for_reading(|flags| rustix::fs::open(&resolved, flags, Mode::empty()))
            .map_err(|source| io_error(&resolved, source))?;
        let text = pread_text(fd.as_fd(), &mut self.bytes, || resolved.clone())?.to_string();
        if let Ok(stat) = rustix::fs::fstat(&fd) {
            if self.budget.take() {
                self.files.insert(
                    relative.as_os_str().to_os_string(),
                    KeptFile {
                        path: self.root.dir().join(relative),
                        resolved,
                        fd,
                        stat,
                        used: true,
                        valid_in: Some(epoch),
                    },
                );
            }
        }
        Ok(text)
    }

    /// What [`Root::list`] returns: a directory's entry names, sorted; listed afresh on sysfs
    /// and wherever the directory's times do not vouch for the last listing.
    pub fn list(&mut self, relative: &Path) -> Result<Vec<String>, ReadError> {
        let mut names = Vec::new();
        let relist = !self.listings_follow_times;
        self.with_dir(relative, relist, |dir, _| {
            names.extend(dir.entries.iter().map(|e| e.name.to_string()));
        })?;
        Ok(names)
    }

    /// Every entry of a directory with its text (or why it could not be read), sorted by
    /// name.
    pub fn read_each(
        &mut self,
        relative: &Path,
        mut each: impl FnMut(&Arc<str>, Result<&str, ReadError>),
    ) -> Result<(), ReadError> {
        self.with_dir(relative, false, |dir, reads| {
            for entry in &mut dir.entries {
                if entry.link {
                    // A link may lead anywhere: resolved and checked against the root each time.
                    match reads.root.read(&relative.join(&*entry.name)) {
                        Ok(text) => each(&entry.name, Ok(&text)),
                        Err(error) => each(&entry.name, Err(error)),
                    }
                } else {
                    let text = read_entry(&dir.fd, &dir.resolved, entry, reads);
                    each(&entry.name, text);
                }
            }
        })
    }

    /// Closes what no reading used since the last call.
    fn forget_unused(&mut self) {
        let budget = &mut self.budget;
        self.dirs.retain(|_, dir| {
            let keep = std::mem::take(&mut dir.used);
            if !keep {
                budget.give_back(dir.descriptors());
            }
            keep
        });
        self.files.retain(|_, file| {
            let keep = std::mem::take(&mut file.used);
            if !keep {
                budget.give_back(1);
            }
            keep
        });
    }

    /// Descriptors kept open now (for the tests).
    #[cfg(test)]
    pub fn open_descriptors(&self) -> usize {
        self.budget.open
    }

    fn forget_file(&mut self, relative: &Path) {
        if self.files.remove(relative.as_os_str()).is_some() {
            self.budget.give_back(1);
        }
    }

    fn forget_dir(&mut self, relative: &Path) {
        if let Some(dir) = self.dirs.remove(relative.as_os_str()) {
            self.budget.give_back(dir.descriptors());
        }
    }

    /// Runs `work` on the directory kept open for `relative` (opened afresh when its path
    /// leads elsewhere now), its entries listed afresh when `relist` or when they may have
    /// changed.
    fn with_dir(
        &mut self,
        relative: &Path,
        relist: bool,
        work: impl FnOnce(&mut KeptDir, &mut Reads),
    ) -> Result<(), ReadError> {
        let mut unchanged = false;
        let epoch = self.epoch;
        let now = self
            .dirs
            .get(relative.as_os_str())
            .map(|dir| self.check(relative, &dir.path, dir.valid_in, dir.stat));
        if let (Some(dir), Some(now)) = (self.dirs.get_mut(relative.as_os_str()), now) {
            match now {
                Ok(now) if same(&now, &dir.stat) => unchanged = true,
                // The same directory, changed (an entry came, went or was renamed; or it was
                // moved): kept, with its open files, if its path still resolves to where it
                // was; listed afresh.
                Ok(now)
                    if now.st_dev == dir.stat.st_dev
                        && now.st_ino == dir.stat.st_ino
                        && self.root.resolve(relative).is_ok_and(|r| r == dir.resolved) =>
                {
                    dir.stat = now;
                    dir.listed = None;
                    unchanged = true;
                }
                _ => {}
            }
        }
        if !unchanged {
            self.forget_dir(relative);
            let resolved = self.root.resolve(relative)?;
            let fd = rustix::fs::open(
                &resolved,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|source| io_error(&resolved, source))?;
            let stat = rustix::fs::fstat(&fd).map_err(|source| io_error(&resolved, source))?;
            let mut dir = KeptDir {
                path: self.root.dir().join(relative),
                resolved,
                fd,
                stat,
                entries: Vec::new(),
                listed: None,
                settled: false,
                used: true,
                checked_in: None,
                valid_in: None,
                listed_in: None,
            };
            if !self.budget.take() {
                // No room to keep it: use it once, closing it and its files after.
                let mut reads = Reads {
                    root: &self.root,
                    budget: &mut Budget { open: 0, most: 0 },
                    dirents: &mut self.dirents,
                    bytes: &mut self.bytes,
                    settled_after: self.settled_after,
                };
                list(&mut dir, &mut reads)?;
                work(&mut dir, &mut reads);
                return Ok(());
            }
            self.dirs.insert(relative.as_os_str().to_os_string(), dir);
        }
        let Kept {
            root,
            dirs,
            budget,
            dirents,
            bytes,
            settled_after,
            ..
        } = self;
        let Some(dir) = dirs.get_mut(relative.as_os_str()) else {
            return Ok(()); // inserted above
        };
        dir.used = true;
        dir.checked_in = self.reading;
        dir.valid_in = Some(epoch);
        let mut reads = Reads {
            root,
            budget,
            dirents,
            bytes,
            settled_after: *settled_after,
        };
        // Listed since the tree last changed; or a second after the directory did, and
        // recently unless the tree's file system is one known to keep directory times (a
        // watched tree's is).
        let trusted = if self.trusting {
            dir.listed_in == Some(epoch)
        } else {
            dir.settled
                && dir
                    .listed
                    .is_some_and(|at| self.watch.is_some() || at.elapsed() < RELISTED_EVERY)
        };
        if relist || !trusted {
            if let Err(error) = list(dir, &mut reads) {
                self.forget_dir(relative);
                return Err(error);
            }
        }
        // Listed in this epoch, or vouched for by a check made in it.
        dir.listed_in = Some(epoch);
        work(dir, &mut reads);
        Ok(())
    }
}

/// What reading a directory's files uses besides the directory.
struct Reads<'a> {
    root: &'a Root,
    budget: &'a mut Budget,
    dirents: &'a mut Vec<u8>,
    bytes: &'a mut Vec<u8>,
    settled_after: Duration,
}

/// Lists `dir` from its start. An entry keeps its open file while its name, inode and type
/// are unchanged; the others are closed. The entries stay sorted by name.
fn list(dir: &mut KeptDir, reads: &mut Reads) -> Result<(), ReadError> {
    let started = SystemTime::now();
    let dir_error = |source| io_error(&dir.resolved, source);
    rustix::fs::seek(&dir.fd, SeekFrom::Start(0)).map_err(dir_error)?;
    for entry in &mut dir.entries {
        entry.listed = false;
    }
    let mut added = Vec::new();
    let mut listing = RawDir::new(dir.fd.as_fd(), reads.dirents.spare_capacity_mut());
    while let Some(entry) = listing.next() {
        let entry = entry.map_err(dir_error)?;
        // sysfs names are ASCII; a name that is not UTF-8 cannot be a known attribute.
        let Ok(name) = entry.file_name().to_str() else {
            continue;
        };
        if name == "." || name == ".." {
            continue;
        }
        let inode = entry.ino();
        let link = matches!(entry.file_type(), FileType::Symlink | FileType::Unknown);
        match dir.entries.binary_search_by(|e| (*e.name).cmp(name)) {
            Ok(at) => {
                let kept = &mut dir.entries[at];
                kept.listed = true;
                if kept.inode != inode || kept.link != link {
                    // Replaced (by rename, say) since it was opened: not the file kept open.
                    kept.inode = inode;
                    kept.link = link;
                    if kept.fd.take().is_some() {
                        reads.budget.give_back(1);
                    }
                }
            }
            Err(_) => added.push(Entry {
                name: name.into(),
                c_name: entry.file_name().to_owned(),
                inode,
                link,
                fd: None,
                listed: true,
            }),
        }
    }
    // Entries no longer listed close here.
    let closing = dir.entries.iter().filter(|e| !e.listed && e.fd.is_some());
    reads.budget.give_back(closing.count());
    dir.entries.retain(|e| e.listed);
    if !added.is_empty() {
        dir.entries.append(&mut added);
        dir.entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    }
    dir.listed = Some(Instant::now());
    dir.settled = changed_at(&dir.stat)
        .and_then(|changed| changed.checked_add(reads.settled_after))
        .is_some_and(|settled| settled < started);
    Ok(())
}

/// Reads one entry of `dir` (named `resolved` in errors) through its kept descriptor, or
/// opens it relative to the directory, never following a link.
fn read_entry<'b>(
    dir: &OwnedFd,
    resolved: &Path,
    entry: &mut Entry,
    reads: &'b mut Reads,
) -> Result<&'b str, ReadError> {
    let path = || resolved.join(&*entry.name);
    let fd = match entry.fd.take() {
        Some(fd) => fd,
        None => {
            let name = entry.c_name.as_c_str();
            let fd = open_for_reading(|flags| {
                rustix::fs::openat(dir, name, flags | OFlags::NOFOLLOW, Mode::empty())
            })
            .map_err(|source| io_error(&path(), source))?;
            if !reads.budget.take() {
                // No room to keep it: read it and close it.
                return pread_text(fd.as_fd(), reads.bytes, path);
            }
            fd
        }
    };
    // Kept only while it reads: the next reading opens a failing file again.
    match pread_bytes(fd.as_fd(), reads.bytes, path) {
        Ok(length) => {
            entry.fd = Some(fd);
            attribute_text(&reads.bytes[..length], path)
        }
        Err(error) => {
            reads.budget.give_back(1);
            Err(error)
        }
    }
}

/// A file's text from offset 0, without its trailing newline; at most
/// [`MAX_ATTRIBUTE_BYTES`]. `path` names it in errors.
fn pread_text<'b>(
    fd: BorrowedFd<'_>,
    bytes: &'b mut Vec<u8>,
    path: impl Fn() -> PathBuf,
) -> Result<&'b str, ReadError> {
    let length = pread_bytes(fd, bytes, &path)?;
    attribute_text(&bytes[..length], path)
}

/// Reads a file from offset 0 into `bytes` (grown as needed, never shrunk) and returns its
/// length. One `pread` usually suffices (see [`super::root`]): a short read ends the file.
fn pread_bytes(
    fd: BorrowedFd<'_>,
    bytes: &mut Vec<u8>,
    path: impl Fn() -> PathBuf,
) -> Result<usize, ReadError> {
    let mut length = 0;
    loop {
        if bytes.len() < length + CHUNK {
            bytes.resize(length + CHUNK, 0);
        }
        let chunk = &mut bytes[length..length + CHUNK];
        let read = match rustix::io::pread(fd, chunk, length as u64) {
            Ok(read) => read,
            Err(rustix::io::Errno::INTR) => continue,
            Err(source) => return Err(io_error(&path(), source)),
        };
        length += read;
        if length as u64 > MAX_ATTRIBUTE_BYTES {
            return Err(ReadError::TooLong { path: path() });
        }
        if read < CHUNK {
            return Ok(length);
        }
    }
}

/// Opens a file for reading with `open`, without updating its access time where that is
/// allowed (`O_NOATIME` needs the file's owner or `CAP_FOWNER`; anyone else is refused
/// with `EPERM`, and opens it the ordinary way). Reading a counter is no access worth a
/// write to the file's inode.
fn open_for_reading(
    open: impl Fn(OFlags) -> rustix::io::Result<OwnedFd>,
) -> rustix::io::Result<OwnedFd> {
    let flags = OFlags::RDONLY | OFlags::CLOEXEC;
    match open(flags | OFlags::NOATIME) {
        Err(rustix::io::Errno::PERM) => open(flags),
        opened => opened,
    }
}

fn io_error(path: &Path, source: rustix::io::Errno) -> ReadError {
    ReadError::Io {
        path: path.to_path_buf(),
        source: io::Error::from(source),
    }
}

#[cfg(test)]
mod tests {
    use std::{fs, os::unix::fs::symlink};

    use super::*;

    /// Every entry of `dir` read through `kept`, as (name, value or error text).
    fn read_all(kept: &mut Kept, dir: &str) -> Vec<(String, Result<String, String>)> {
        let mut all = Vec::new();
        kept.read_each(Path::new(dir), |name, text| {
            all.push((
                name.to_string(),
                text.map(str::to_string).map_err(|e| e.to_string()),
            ))
        })
        .unwrap();
        all
    }

    fn value(all: &[(String, Result<String, String>)], name: &str) -> Option<String> {
        all.iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, text)| text.clone().ok())
    }

    /// Replaces a file's content at once, as the bench does: written aside, renamed over it.
    fn replace(tree: &Path, relative: &str, text: &str) {
        let aside = tree.join("aside");
        fs::write(&aside, text).unwrap();
        fs::rename(&aside, tree.join(relative)).unwrap();
    }

    fn tree() -> tempfile::TempDir {
        let tree = tempfile::tempdir().unwrap();
        fs::create_dir_all(tree.path().join("dev/counters")).unwrap();
        fs::write(tree.path().join("dev/counters/a"), "1\n").unwrap();
        fs::write(tree.path().join("dev/counters/b"), "2\n").unwrap();
        tree
    }

    /// Both ways a directory is read: listed afresh every time (a listing is trusted only a
    /// second after the directory's last change), and trusted at once while its times stay.
    fn both_ways(tree: &Path) -> [Kept; 2] {
        let root = || Root::open(tree).unwrap();
        [
            Kept::new(root()),
            Kept::for_tests(root(), 64, Duration::ZERO),
        ]
    }

    #[test]
    fn a_counter_replaced_by_rename_is_read_afresh() {
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "a").unwrap(),
                "1"
            );
            let open = kept.open_descriptors();
            for fresh in ["10", "11", "12"] {
                replace(tree.path(), "dev/counters/a", &format!("{fresh}\n"));
                let all = read_all(&mut kept, "dev/counters");
                assert_eq!(value(&all, "a").unwrap(), fresh);
                assert_eq!(value(&all, "b").unwrap(), "2");
                assert_eq!(kept.open_descriptors(), open, "the replaced file is closed");
            }
            replace(tree.path(), "dev/counters/a", "1\n");
        }
    }

    #[test]
    fn a_counter_written_in_place_is_read_through_the_open_file() {
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            read_all(&mut kept, "dev/counters");
            fs::write(tree.path().join("dev/counters/a"), "123456789\n").unwrap();
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "a").unwrap(),
                "123456789"
            );
            // Shorter than before: nothing of the old text is left over.
            fs::write(tree.path().join("dev/counters/a"), "7\n").unwrap();
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "a").unwrap(),
                "7"
            );
            fs::write(tree.path().join("dev/counters/a"), "1\n").unwrap();
        }
    }

    #[test]
    fn a_removed_counter_is_gone_and_one_that_returns_is_read_again() {
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            read_all(&mut kept, "dev/counters");
            fs::remove_file(tree.path().join("dev/counters/b")).unwrap();
            let all = read_all(&mut kept, "dev/counters");
            let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["a"]);
            assert_eq!(kept.open_descriptors(), 2, "the directory and a");

            fs::write(tree.path().join("dev/counters/b"), "3\n").unwrap();
            let all = read_all(&mut kept, "dev/counters");
            assert_eq!(value(&all, "b").unwrap(), "3");
            fs::write(tree.path().join("dev/counters/b"), "2\n").unwrap();
        }
    }

    #[test]
    fn a_kept_counter_swapped_for_a_link_out_of_the_root_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "42\n").unwrap();
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            read_all(&mut kept, "dev/counters");
            let a = tree.path().join("dev/counters/a");
            fs::remove_file(&a).unwrap();
            symlink(outside.path().join("secret"), &a).unwrap();
            let all = read_all(&mut kept, "dev/counters");
            let (_, refused) = all.iter().find(|(n, _)| n == "a").unwrap();
            assert!(
                refused.as_ref().is_err_and(|e| e.contains("outside")),
                "{refused:?}"
            );
            assert_eq!(value(&all, "b").unwrap(), "2");
            fs::remove_file(&a).unwrap();
            fs::write(&a, "1\n").unwrap();
        }
    }

    #[test]
    fn links_inside_are_followed_and_links_outside_refused() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), "42\n").unwrap();
        let tree = tempfile::tempdir().unwrap();
        let counters = tree.path().join("devices/x/counters");
        fs::create_dir_all(&counters).unwrap();
        fs::write(counters.join("b_plain"), "7\n").unwrap();
        fs::write(tree.path().join("devices/x/inside"), "8\n").unwrap();
        symlink("../inside", counters.join("a_link")).unwrap();
        symlink(outside.path().join("secret"), counters.join("c_escape")).unwrap();
        fs::create_dir(counters.join("d_directory")).unwrap();
        symlink("devices/x", tree.path().join("x")).unwrap();

        for mut kept in both_ways(tree.path()) {
            for _ in 0..2 {
                let all = read_all(&mut kept, "x/counters");
                let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
                assert_eq!(names, ["a_link", "b_plain", "c_escape", "d_directory"]);
                assert_eq!(value(&all, "a_link").unwrap(), "8");
                assert_eq!(value(&all, "b_plain").unwrap(), "7");
                assert!(all[2].1.as_ref().is_err_and(|e| e.contains("outside")));
                assert!(all[3].1.is_err(), "a directory is no counter");
            }
            assert!(kept.read(Path::new("x/counters/c_escape")).is_err());
            assert!(kept.read(Path::new("../secret")).is_err());
        }
    }

    /// Two devices, `devices/x` and `devices/y`, whose `counters` hold `names`: 1 in x's, 2 in
    /// y's.
    fn devices_x_and_y(names: &[&str]) -> tempfile::TempDir {
        let tree = tempfile::tempdir().unwrap();
        for (device, value) in [("x", "1\n"), ("y", "2\n")] {
            let counters = tree.path().join("devices").join(device).join("counters");
            fs::create_dir_all(&counters).unwrap();
            for name in names {
                fs::write(counters.join(name), value).unwrap();
            }
        }
        tree
    }

    #[test]
    fn a_directory_whose_link_now_leads_elsewhere_is_read_there() {
        let tree = devices_x_and_y(&["c"]);
        let link = tree.path().join("dev");
        for mut kept in both_ways(tree.path()) {
            symlink("devices/x", &link).unwrap();
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "c").unwrap(),
                "1"
            );
            assert_eq!(kept.read(Path::new("dev/counters/c")).unwrap(), "1");
            fs::remove_file(&link).unwrap();
            symlink("devices/y", &link).unwrap();
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "c").unwrap(),
                "2"
            );
            assert_eq!(kept.read(Path::new("dev/counters/c")).unwrap(), "2");
            fs::remove_file(&link).unwrap();
            assert!(kept
                .read_each(Path::new("dev/counters"), |_, _| {})
                .is_err());
            assert!(kept.read(Path::new("dev/counters/c")).is_err());
            assert!(kept.list(Path::new("dev/counters")).is_err());
        }
    }

    #[test]
    fn within_a_reading_what_lies_below_a_checked_directory_is_checked_from_it() {
        let tree = devices_x_and_y(&["c", "d"]);
        let link = tree.path().join("dev");
        let c = Path::new("dev/counters/c");
        for mut kept in both_ways(tree.path()) {
            symlink("devices/x", &link).unwrap();
            for expected in ["1", "1"] {
                kept.begin_reading();
                assert_eq!(
                    value(&read_all(&mut kept, "dev/counters"), "d").unwrap(),
                    "1"
                );
                assert_eq!(kept.read(c).unwrap(), expected);
                kept.end_reading();
            }
            // The link now leads elsewhere: the directory is found anew, and the file below
            // it is checked from the new one.
            fs::remove_file(&link).unwrap();
            symlink("devices/y", &link).unwrap();
            kept.begin_reading();
            assert_eq!(
                value(&read_all(&mut kept, "dev/counters"), "d").unwrap(),
                "2"
            );
            assert_eq!(kept.read(c).unwrap(), "2");
            kept.end_reading();
            // Replaced by rename below the checked directory, then removed.
            replace(tree.path(), "devices/y/counters/c", "3\n");
            kept.begin_reading();
            read_all(&mut kept, "dev/counters");
            assert_eq!(kept.read(c).unwrap(), "3");
            kept.end_reading();
            fs::remove_file(tree.path().join("devices/y/counters/c")).unwrap();
            kept.begin_reading();
            read_all(&mut kept, "dev/counters");
            assert!(kept.read(c).is_err());
            kept.end_reading();
            fs::write(tree.path().join("devices/y/counters/c"), "2\n").unwrap();
            fs::remove_file(&link).unwrap();
        }
    }

    #[test]
    fn a_file_read_on_its_own_is_read_afresh_after_a_rename_or_removal() {
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            let a = Path::new("dev/counters/a");
            assert_eq!(kept.read(a).unwrap(), "1");
            replace(tree.path(), "dev/counters/a", "5\n");
            assert_eq!(kept.read(a).unwrap(), "5");
            fs::write(tree.path().join(a), "6\n").unwrap();
            assert_eq!(kept.read(a).unwrap(), "6");
            fs::remove_file(tree.path().join(a)).unwrap();
            assert!(kept.read(a).is_err());
            fs::write(tree.path().join(a), "1\n").unwrap();
            assert_eq!(kept.read(a).unwrap(), "1");
        }
    }

    /// One reading of `dir`'s entries and of the file `single`, and how many paths it
    /// checked with a `stat`.
    fn reading(kept: &mut Kept, dir: &str, single: &str) -> (Vec<(String, String)>, usize) {
        kept.begin_reading();
        kept.path_checks.set(0);
        let mut all: Vec<(String, String)> = read_all(kept, dir)
            .into_iter()
            .map(|(name, text)| (name, text.unwrap_or_else(|e| e)))
            .collect();
        all.push((single.to_string(), kept.read(Path::new(single)).unwrap()));
        let checks = kept.path_checks.get();
        kept.end_reading();
        (all, checks)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn on_a_watched_tree_quiet_readings_check_no_path_and_changes_are_seen_at_once() {
        let tree = tree();
        fs::write(tree.path().join("dev/state"), "4: ACTIVE\n").unwrap();
        let mut kept = Kept::new(Root::open(tree.path()).unwrap());
        assert!(
            kept.watch.is_some(),
            "the temporary directory is on a local file system, so the tree is watched"
        );
        let read = |kept: &mut Kept| reading(kept, "dev/counters", "dev/state");
        // The first reading opens what it reads; the next ones would check that it is still
        // there, but nothing changed.
        let (all, _) = read(&mut kept);
        assert_eq!(
            all,
            pairs(&[("a", "1"), ("b", "2"), ("dev/state", "4: ACTIVE")])
        );
        assert_eq!(read(&mut kept).1, 0, "nothing changed: nothing checked");

        // A counter replaced by rename: the next reading checks again, and reads the new one.
        replace(tree.path(), "dev/counters/a", "5\n");
        let (all, checks) = read(&mut kept);
        assert_eq!(all[0], ("a".to_string(), "5".to_string()));
        assert!(checks > 0);
        assert_eq!(read(&mut kept).1, 0);

        // A directory above the kept ones swapped for another.
        fs::create_dir_all(tree.path().join("next/counters")).unwrap();
        fs::write(tree.path().join("next/counters/c"), "7\n").unwrap();
        fs::write(tree.path().join("next/state"), "1: DOWN\n").unwrap();
        fs::rename(tree.path().join("dev"), tree.path().join("old")).unwrap();
        fs::rename(tree.path().join("next"), tree.path().join("dev")).unwrap();
        assert_eq!(
            read(&mut kept).0,
            pairs(&[("c", "7"), ("dev/state", "1: DOWN")])
        );
        assert_eq!(read(&mut kept).1, 0);

        // A directory that came after the tree was first watched is watched too: a change
        // in it is seen at the next reading, not trusted away.
        fs::create_dir_all(tree.path().join("dev3/counters")).unwrap();
        fs::write(tree.path().join("dev3/counters/a"), "1\n").unwrap();
        fs::write(tree.path().join("dev3/state"), "4: ACTIVE\n").unwrap();
        let read3 = |kept: &mut Kept| reading(kept, "dev3/counters", "dev3/state");
        assert_eq!(read3(&mut kept).0[0], ("a".to_string(), "1".to_string()));
        assert_eq!(read3(&mut kept).1, 0);
        // (Written aside within dev3, so that only dev3's directories see it.)
        replace(&tree.path().join("dev3"), "counters/a", "2\n");
        fs::create_dir(tree.path().join("dev3/counters/b")).unwrap();
        let (all, _) = read3(&mut kept);
        assert_eq!(all[0], ("a".to_string(), "2".to_string()));
        assert_eq!(all[1].0, "b", "an entry that came is listed");

        // However quiet, every path is checked again after a while.
        assert_eq!(read3(&mut kept).1, 0);
        std::thread::sleep(RELISTED_EVERY);
        assert!(read3(&mut kept).1 > 0);
    }

    #[test]
    fn only_sysfs_is_listed_afresh_every_time_and_unwatched() {
        let tree = tree();
        assert!(Kept::new(Root::open(tree.path()).unwrap()).listings_follow_times);
        // Every Linux machine this runs on mounts sysfs at /sys.
        if Path::new("/sys/class/net").is_dir() {
            let sysfs = Kept::new(Root::open(Path::new("/sys")).unwrap());
            assert!(!sysfs.listings_follow_times);
            assert!(
                sysfs.watch.is_none(),
                "sysfs tells no changes through inotify"
            );
        }
    }

    #[test]
    fn listings_show_entries_coming_and_going() {
        let tree = tree();
        for mut kept in both_ways(tree.path()) {
            assert_eq!(kept.list(Path::new("dev/counters")).unwrap(), ["a", "b"]);
            fs::write(tree.path().join("dev/counters/0"), "0\n").unwrap();
            assert_eq!(
                kept.list(Path::new("dev/counters")).unwrap(),
                ["0", "a", "b"]
            );
            fs::remove_file(tree.path().join("dev/counters/a")).unwrap();
            assert_eq!(kept.list(Path::new("dev/counters")).unwrap(), ["0", "b"]);
            fs::remove_file(tree.path().join("dev/counters/0")).unwrap();
            fs::write(tree.path().join("dev/counters/a"), "1\n").unwrap();
        }
    }

    #[test]
    fn beyond_the_descriptor_budget_files_are_read_and_closed() {
        let tree = tree();
        for name in ["c", "d", "e"] {
            fs::write(tree.path().join("dev/counters").join(name), "9\n").unwrap();
        }
        let mut kept = Kept::for_tests(Root::open(tree.path()).unwrap(), 3, Duration::ZERO);
        for round in 0..3 {
            let all = read_all(&mut kept, "dev/counters");
            let values: Vec<&str> = all.iter().map(|(_, t)| t.as_deref().unwrap()).collect();
            assert_eq!(values, ["1", "2", "9", "9", "9"], "round {round}");
            assert_eq!(kept.open_descriptors(), 3);
        }
        // A directory with no room to keep it is still read.
        fs::create_dir(tree.path().join("other")).unwrap();
        fs::write(tree.path().join("other/f"), "4\n").unwrap();
        assert_eq!(value(&read_all(&mut kept, "other"), "f").unwrap(), "4");
        assert_eq!(kept.open_descriptors(), 3);
    }

    #[test]
    fn what_no_reading_used_is_closed() {
        let tree = tree();
        fs::create_dir(tree.path().join("other")).unwrap();
        fs::write(tree.path().join("other/f"), "4\n").unwrap();
        let mut kept = Kept::new(Root::open(tree.path()).unwrap());
        read_all(&mut kept, "dev/counters");
        read_all(&mut kept, "other");
        kept.read(Path::new("other/f")).unwrap();
        kept.forget_unused();
        assert_eq!(kept.open_descriptors(), 3 + 2 + 1);
        read_all(&mut kept, "dev/counters");
        kept.forget_unused();
        assert_eq!(kept.open_descriptors(), 3);
        kept.forget_unused();
        assert_eq!(kept.open_descriptors(), 0);
    }
}
