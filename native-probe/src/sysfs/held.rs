//! The files the sampler reads every interval, held open between readings.
//!
//! Opening a sysfs file costs several times more than reading it, so a port's or an
//! interface's files are opened once, and each reading is one `pread` at offset 0 per file
//! (which makes sysfs format the attribute afresh). [`super::Trees`] drops the handles of a
//! device or interface, and opens them again at its next reading, when any of its files
//! fails to open or read (a device being reset), when it leaves the directory listing (a
//! device removed), and every [`REOPEN_EVERY`] in any case, so that a counter file that
//! comes later is found.
//!
//! The rules of [`Root`] hold: a port's or interface's directory is resolved and checked
//! inside the root when it is opened, and everything in it is opened relative to that
//! directory, read only and without following a symbolic link.

use std::{
    collections::BTreeMap,
    fs::File,
    path::Path,
    time::{Duration, Instant},
};

use engine::probe::attribute;

use super::root::{entries, open_read_only, read_attribute, ReadError, Root};

/// How long handles are used before their files are listed and opened again.
pub const REOPEN_EVERY: Duration = Duration::from_secs(5);

/// Handles, and when they were opened.
pub struct Opened<T> {
    at: Instant,
    pub held: T,
}

impl<T> Opened<T> {
    pub fn now(held: T) -> Opened<T> {
        Opened {
            at: Instant::now(),
            held,
        }
    }

    /// Whether these handles are due to be opened afresh.
    pub fn stale(&self, reopen_every: Duration) -> bool {
        self.at.elapsed() >= reopen_every
    }
}

/// A port's or an interface's files: its status (a port's `state`, an interface's
/// `operstate`) and its counter directories (`counters` and `hw_counters`, or
/// `statistics`). `None` stands for a file that could not be opened.
pub struct Held {
    status: Option<File>,
    groups: Vec<Vec<(String, Option<File>)>>,
}

/// What one reading of a component found: the status text and each group's counters
/// (`None` for a file that could not be read or parsed).
pub struct Values {
    pub status: Option<String>,
    pub groups: Vec<BTreeMap<String, Option<u64>>>,
    /// Whether every file opened and read: if not, the handles are to be dropped.
    pub healthy: bool,
}

impl Held {
    /// Opens the port or interface at `dir` (relative to the root): `status` and every entry
    /// of each of `groups` but those named in `skip`. A group that cannot be listed has none.
    pub fn open(
        root: &Root,
        dir: &Path,
        status: &str,
        groups: &[&str],
        skip: &[&str],
    ) -> Result<Held, ReadError> {
        let resolved = root.resolve(dir)?;
        // Canonical, so opening it follows no link.
        let component =
            open_read_only(rustix::fs::CWD, &resolved).map_err(|source| ReadError::Io {
                path: resolved.clone(),
                source,
            })?;
        let groups = groups
            .iter()
            .map(|group| {
                let Ok(dir) = open_read_only(&component, Path::new(group)) else {
                    return Vec::new();
                };
                entries(&dir)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|name| !skip.contains(&name.as_str()))
                    .map(|name| {
                        let file = open_read_only(&dir, Path::new(&name)).ok();
                        (name, file)
                    })
                    .collect()
            })
            .collect();
        Ok(Held {
            status: open_read_only(&component, Path::new(status)).ok(),
            groups,
        })
    }

    /// Reads every file once, through `buffer`; what could not be opened reads as nothing,
    /// with `groups` empty maps.
    pub fn read(held: Option<&Held>, groups: usize, buffer: &mut Vec<u8>) -> Values {
        let Some(held) = held else {
            return Values {
                status: None,
                groups: vec![BTreeMap::new(); groups],
                healthy: false,
            };
        };
        let mut healthy = true;
        let mut text = |file: &Option<File>| {
            let text = file
                .as_ref()
                .and_then(|file| read_attribute(file, buffer).ok());
            healthy &= text.is_some();
            text.filter(|t| !t.is_empty())
        };
        let status = text(&held.status);
        let groups = held
            .groups
            .iter()
            .map(|files| {
                files
                    .iter()
                    .map(|(name, file)| {
                        let value = text(file).and_then(|t| attribute::counter(&t).ok());
                        (name.clone(), value)
                    })
                    .collect()
            })
            .collect();
        Values {
            status,
            groups,
            healthy,
        }
    }
}
