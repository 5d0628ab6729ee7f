//! Embeds the recorded sysfs/debugfs fixture in the binary, so `native-probe serve --demo`
//! works wherever the binary is copied. Symlinks are kept as links (sysfs is full of them,
//! and the reader must meet them in the demo too).

use std::{
    env, fs,
    io::{self, Write},
    path::{Path, PathBuf},
};

fn main() -> io::Result<()> {
    let fixture = Path::new("tests/fixtures");
    // Files are watched one by one: cargo walks a watched directory following symlinks, and
    // sysfs's `device` links make loops. A file added to the fixture needs `touch build.rs`.
    println!("cargo:rerun-if-changed=build.rs");
    let mut entries = Vec::new();
    walk(fixture, fixture, &mut entries)?;
    entries.sort();
    let out = PathBuf::from(env::var("OUT_DIR").map_err(io::Error::other)?).join("fixture.rs");
    let mut file = fs::File::create(out)?;
    writeln!(file, "pub static FIXTURE: &[(&str, Entry)] = &[")?;
    for (relative, entry) in entries {
        writeln!(file, "    ({relative:?}, {entry}),")?;
    }
    writeln!(file, "];")?;
    Ok(())
}

fn walk(base: &Path, dir: &Path, entries: &mut Vec<(String, String)>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let relative = path
            .strip_prefix(base)
            .map_err(io::Error::other)?
            .to_string_lossy()
            .into_owned();
        let kind = fs::symlink_metadata(&path)?.file_type();
        if kind.is_symlink() {
            let target = fs::read_link(&path)?.to_string_lossy().into_owned();
            entries.push((relative, format!("Entry::Link({target:?})")));
        } else if kind.is_dir() {
            walk(base, &path, entries)?;
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
            // Relative to the manifest at compile time, not an absolute path of today's
            // checkout: a shared target dir may reuse this output for a clone elsewhere.
            let from_manifest = format!("/{}", path.to_string_lossy());
            entries.push((
                relative,
                format!(
                    "Entry::File(include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), {from_manifest:?})))"
                ),
            ));
        }
    }
    Ok(())
}
