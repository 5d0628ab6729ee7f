//! Shared harness for rdma-lab's integration and real-browser tests, and the bench.
//!
//! A test starts the real `native-probe serve` on an ephemeral port over the built `dist/`
//! and drives Debian's Chromium through chromedriver. Both must be built first; `./lab test`
//! does that before running `cargo test`.

pub mod bench;
pub mod browser;
pub mod capture_gen;
pub mod cli;
pub mod loopback;
pub mod node_exporter;
pub mod probe;
pub mod prometheus;
pub mod site;
pub mod static_server;
pub mod sysfs_tree;
pub mod topics;

use std::path::PathBuf;

/// The repository root, where `dist/` and `target/` live.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits inside the repository")
        .to_path_buf()
}

/// Where browser tests leave their PNG screenshots for a person to look at.
pub fn screenshot_dir() -> PathBuf {
    repo_root().join("target").join("screenshots")
}

/// Whether the browser tests should write their screenshots (`LAB_SCREENSHOTS=1`); a failed
/// test writes one of the page it failed on whatever this says.
pub fn screenshots_wanted() -> bool {
    std::env::var_os("LAB_SCREENSHOTS").is_some_and(|v| v == "1")
}

/// Writes `png` as `target/screenshots/NAME.png` and says where.
pub fn save_screenshot(name: &str, png: &[u8]) -> PathBuf {
    let dir = screenshot_dir();
    std::fs::create_dir_all(&dir).expect("screenshot folder can be created");
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).expect("screenshot can be written");
    path
}
