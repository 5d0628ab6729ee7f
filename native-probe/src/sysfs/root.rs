//! A directory the probe may read, and nothing outside it.
//!
//! Real sysfs is full of symlinks (`class/net/eth0` → `../../devices/…/net/eth0`), so every
//! path is canonicalized and then checked to still lie under the canonical root: a link
//! that points out of a recorded tree is refused rather than followed. Files are only ever
//! opened for reading.

use std::{
    fmt,
    fs::File,
    io,
    os::{fd::AsFd, unix::fs::FileExt},
    path::{Path, PathBuf},
};

use rustix::fs::{Mode, OFlags};

/// sysfs attributes are at most one page; anything longer is not a sysfs attribute.
const MAX_ATTRIBUTE_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
}

/// Why one path could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io { path: PathBuf, source: io::Error },
    OutsideRoot { path: PathBuf, resolved: PathBuf },
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
        let path = self.resolve(relative)?;
        // Canonical, so no link is left to follow.
        open_read_only(rustix::fs::CWD, &path)
            .and_then(|file| read_attribute(&file, &mut Vec::new()))
            .map_err(|source| ReadError::Io { path, source })
    }

    /// The bytes of a binary attribute (a PCI device's `config`), at most `limit` of them.
    pub fn read_bytes(&self, relative: &Path, limit: usize) -> Result<Vec<u8>, ReadError> {
        let path = self.resolve(relative)?;
        let read = |file: File| {
            let mut bytes = vec![0; limit];
            let mut filled = 0;
            // sysfs binary attributes may hand over less than asked; read until the end.
            while filled < limit {
                match file.read_at(&mut bytes[filled..], filled as u64) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    Err(error) => return Err(error),
                }
            }
            bytes.truncate(filled);
            Ok(bytes)
        };
        open_read_only(rustix::fs::CWD, &path)
            .and_then(read)
            .map_err(|source| ReadError::Io { path, source })
    }

    /// The entry names of a directory, sorted so output is stable.
    pub fn list(&self, relative: &Path) -> Result<Vec<String>, ReadError> {
        let path = self.resolve(relative)?;
        open_read_only(rustix::fs::CWD, &path)
            .and_then(|dir| entries(&dir))
            .map_err(|source| ReadError::Io { path, source })
    }
}

/// The entry names of an open directory, sorted. Listed through the descriptor itself, so
/// they are the entries of the very directory that files are then opened from. sysfs names
/// are ASCII: a name that is not UTF-8 cannot be a known attribute and is left out.
pub(super) fn entries(dir: &File) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        if let Ok(name) = entry?.file_name().to_str() {
            if name != "." && name != ".." {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Opens `name` in `dir` for reading only, never through a symbolic link, and without
/// waiting for a writer should a recorded tree hold a FIFO.
pub(super) fn open_read_only(dir: impl AsFd, name: &Path) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    Ok(File::from(rustix::fs::openat(
        dir,
        name,
        flags,
        Mode::empty(),
    )?))
}

/// An attribute's text, without its trailing newline (or the NULs some drivers pad with),
/// from one `pread` at offset 0: sysfs formats the attribute afresh for a read at offset 0
/// and hands all of it over at once, and a regular file (a recorded tree) returns all it
/// has. `buffer` is reused from call to call.
pub(super) fn read_attribute(file: &File, buffer: &mut Vec<u8>) -> io::Result<String> {
    buffer.resize(MAX_ATTRIBUTE_BYTES + 1, 0);
    let read = loop {
        match file.read_at(buffer, 0) {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            read => break read?,
        }
    };
    let invalid = |why: &str| io::Error::new(io::ErrorKind::InvalidData, why.to_string());
    if read > MAX_ATTRIBUTE_BYTES {
        return Err(invalid(&format!(
            "longer than {MAX_ATTRIBUTE_BYTES} bytes, which no sysfs attribute is"
        )));
    }
    let text = std::str::from_utf8(&buffer[..read]).map_err(|_| invalid("not UTF-8 text"))?;
    Ok(text.trim_end_matches(['\n', '\0']).to_string())
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
    fn a_fifo_or_an_overlong_file_is_refused_without_waiting() {
        let tree = tempfile::tempdir().unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            tree.path().join("fifo"),
            rustix::fs::FileType::Fifo,
            Mode::RUSR | Mode::WUSR,
            0,
        )
        .unwrap();
        std::fs::write(
            tree.path().join("long"),
            vec![b'7'; MAX_ATTRIBUTE_BYTES + 1],
        )
        .unwrap();
        let root = Root::open(tree.path()).unwrap();
        assert!(matches!(
            root.read(Path::new("fifo")),
            Err(ReadError::Io { .. })
        ));
        let long = root.read(Path::new("long")).unwrap_err().to_string();
        assert!(long.contains("longer than"), "{long}");
    }
}
