//! A directory the probe may read, and nothing outside it.
//!
//! Real sysfs is full of symlinks (`class/net/eth0` → `../../devices/…/net/eth0`), so every
//! path is canonicalized and then checked to still lie under the canonical root: a link
//! that points out of a recorded tree is refused rather than followed. Files are only ever
//! opened for reading.

use std::{
    ffi::CStr,
    fmt,
    fs::File,
    io::{self, Read},
    os::fd::OwnedFd,
    path::{Path, PathBuf},
};

use rustix::fs::{FileType, Mode, OFlags};

/// sysfs attributes are at most one page; anything longer is not a sysfs attribute.
const MAX_ATTRIBUTE_BYTES: u64 = 64 * 1024;

/// One attribute file's text, or why it could not be read.
pub type Attribute = Result<String, ReadError>;

#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

/// Why one path could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io { path: PathBuf, source: io::Error },
    OutsideRoot { path: PathBuf, resolved: PathBuf },
    TooLong { path: PathBuf },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ReadError::OutsideRoot { path, resolved } => write!(
                f,
                "{} resolves to {}, outside the tree the probe may read",
                path.display(),
                resolved.display()
            ),
            ReadError::TooLong { path } => write!(
                f,
                "{} is longer than {MAX_ATTRIBUTE_BYTES} bytes, which no sysfs attribute is",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl Root {
    /// The root at `dir`, which must exist.
    pub fn open(dir: &Path) -> Result<Root, ReadError> {
        let dir = dir.canonicalize().map_err(|source| ReadError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(Root { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The canonical form of `relative` under the root, refused if it leaves the root.
    pub fn resolve(&self, relative: &Path) -> Result<PathBuf, ReadError> {
        let path = self.dir.join(relative);
        let resolved = path.canonicalize().map_err(|source| ReadError::Io {
            path: path.clone(),
            source,
        })?;
        if resolved.starts_with(&self.dir) {
            Ok(resolved)
        } else {
            Err(ReadError::OutsideRoot { path, resolved })
        }
    }

    /// The text of one attribute file, without its trailing newline.
    pub fn read(&self, relative: &Path) -> Result<String, ReadError> {
        read_resolved(self.resolve(relative)?)
    }

    /// Every entry of a directory with its text (or why it could not be read), sorted by name.
    ///
    /// The directory is resolved and opened once, and its files are opened relative to it: a
    /// counters directory holds a few dozen plain files, and the sampler reads them all every
    /// interval. An entry that is a symlink (or of unknown type) is still resolved and checked
    /// against the root on its own; plain files are opened with `O_NOFOLLOW`, so one swapped
    /// for a link meanwhile is refused rather than followed.
    pub fn read_each(&self, relative: &Path) -> Result<Vec<(String, Attribute)>, ReadError> {
        let dir = self.resolve(relative)?;
        let io_error = |source: io::Error| ReadError::Io {
            path: dir.clone(),
            source,
        };
        let fd = rustix::fs::open(
            &dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_error(e.into()))?;
        let mut listing = rustix::fs::Dir::read_from(&fd).map_err(|e| io_error(e.into()))?;
        let mut entries = Vec::new();
        while let Some(entry) = listing.read() {
            let entry = entry.map_err(|e| io_error(e.into()))?;
            // sysfs names are ASCII; a name that is not UTF-8 cannot be a known attribute.
            let Ok(name) = entry.file_name().to_str() else {
                continue;
            };
            if name == "." || name == ".." {
                continue;
            }
            let text = match entry.file_type() {
                FileType::Symlink | FileType::Unknown => self.read(&relative.join(name)),
                _ => read_at(&fd, entry.file_name(), &dir.join(name)),
            };
            entries.push((name.to_string(), text));
        }
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        Ok(entries)
    }

    /// The entry names of a directory, sorted so output is stable.
    pub fn list(&self, relative: &Path) -> Result<Vec<String>, ReadError> {
        let path = self.resolve(relative)?;
        let io_error = |source| ReadError::Io {
            path: path.clone(),
            source,
        };
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&path).map_err(io_error)? {
            let entry = entry.map_err(io_error)?;
            // sysfs names are ASCII; a name that is not UTF-8 cannot be a known attribute.
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }
}

/// The text of a file already resolved inside a root, without its trailing newline.
fn read_resolved(path: PathBuf) -> Result<String, ReadError> {
    let io_error = |source| ReadError::Io {
        path: path.clone(),
        source,
    };
    let file = File::open(&path).map_err(io_error)?;
    read_attribute(file, path)
}

/// The text of `name` in the open directory `dir` (`path` names it in errors), never
/// following a symlink.
fn read_at(dir: &OwnedFd, name: &CStr, path: &Path) -> Result<String, ReadError> {
    let file = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source: source.into(),
    })?;
    read_attribute(File::from(file), path.to_path_buf())
}

/// An attribute file's text, without its trailing newline; at most [`MAX_ATTRIBUTE_BYTES`].
///
/// One `read` usually suffices: sysfs and debugfs hand over a whole attribute at once, and a
/// regular file returns fewer bytes than asked for only at its end, so a short read ends the
/// file without the extra `read` that would return 0 (the sampler reads hundreds of files
/// every interval). A read that fills the buffer goes on to the end.
fn read_attribute(mut file: File, path: PathBuf) -> Result<String, ReadError> {
    const CHUNK: usize = 4096;
    let io_error = |source| ReadError::Io {
        path: path.clone(),
        source,
    };
    let mut bytes = Vec::new();
    let mut chunk = [0u8; CHUNK];
    loop {
        let read = match file.read(&mut chunk) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(io_error(error)),
        };
        bytes.extend_from_slice(&chunk[..read]);
        if bytes.len() as u64 > MAX_ATTRIBUTE_BYTES {
            return Err(ReadError::TooLong { path });
        }
        if read < CHUNK {
            break;
        }
    }
    let mut text = String::from_utf8(bytes)
        .map_err(|_| io_error(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")))?;
    text.truncate(text.trim_end_matches(['\n', '\0']).len());
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_inside_are_followed_and_links_outside_refused() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "42\n").unwrap();
        let tree = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tree.path().join("devices/x")).unwrap();
        std::fs::write(tree.path().join("devices/x/mtu"), "1500\n").unwrap();
        std::os::unix::fs::symlink("devices/x", tree.path().join("inside")).unwrap();
        std::os::unix::fs::symlink(outside.path(), tree.path().join("escape")).unwrap();

        let root = Root::open(tree.path()).unwrap();
        assert_eq!(root.read(Path::new("inside/mtu")).unwrap(), "1500");
        let refused = root.read(Path::new("escape/secret")).unwrap_err();
        assert!(
            matches!(refused, ReadError::OutsideRoot { .. }),
            "{refused}"
        );
        assert!(root.read(Path::new("../secret")).is_err());
        assert!(matches!(
            root.read(Path::new("devices/x/nothing")),
            Err(ReadError::Io { .. })
        ));
    }

    #[test]
    fn reading_a_whole_directory_still_refuses_links_that_leave_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "42\n").unwrap();
        let tree = tempfile::tempdir().unwrap();
        let counters = tree.path().join("devices/x/counters");
        std::fs::create_dir_all(&counters).unwrap();
        std::fs::write(counters.join("b_plain"), "7\n").unwrap();
        std::fs::write(tree.path().join("devices/x/inside"), "8\n").unwrap();
        std::os::unix::fs::symlink("../inside", counters.join("a_link")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), counters.join("c_escape"))
            .unwrap();
        std::os::unix::fs::symlink("devices/x", tree.path().join("x")).unwrap();

        let root = Root::open(tree.path()).unwrap();
        let entries = root.read_each(Path::new("x/counters")).unwrap();
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a_link", "b_plain", "c_escape"]);
        assert_eq!(entries[0].1.as_deref().unwrap(), "8");
        assert_eq!(entries[1].1.as_deref().unwrap(), "7");
        assert!(matches!(entries[2].1, Err(ReadError::OutsideRoot { .. })));
    }
}
