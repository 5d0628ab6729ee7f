//! A directory the probe may read, and nothing outside it.
//!
//! Real sysfs is full of symlinks (`class/net/eth0` → `../../devices/…/net/eth0`), so every
//! path is canonicalized and then checked to still lie under the canonical root: a link
//! that points out of a recorded tree is refused rather than followed. Files are only ever
//! opened for reading.

use std::{
    fmt,
    fs::File,
    io::{self, Read},
    path::{Path, PathBuf},
};

/// sysfs attributes are at most one page; anything longer is not a sysfs attribute.
pub(super) const MAX_ATTRIBUTE_BYTES: u64 = 64 * 1024;

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
    attribute_text(&bytes, || path.clone()).map(str::to_string)
}

/// An attribute's bytes as text, without its trailing newline (or the NULs some drivers
/// pad with); `path` names the file in the error when they are not UTF-8.
pub(super) fn attribute_text(
    bytes: &[u8],
    path: impl FnOnce() -> PathBuf,
) -> Result<&str, ReadError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ReadError::Io {
        path: path(),
        source: io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"),
    })?;
    Ok(text.trim_end_matches(['\n', '\0']))
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
}
