//! The probe the raw-socket tests talk to: the real binary serving a one-page site and the
//! recorded fixture (read only), on an address the test chooses.

use std::{
    io::{BufRead, BufReader},
    net::SocketAddr,
    path::Path,
    process::{Child, Command, Stdio},
};

use tempfile::TempDir;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");
/// The one page of the site the probe serves.
pub const INDEX: &str = "<!DOCTYPE html><title>lab</title>";

/// A running `native-probe serve`; killed when dropped.
pub struct Probe {
    pub child: Child,
    /// Where to connect: the bound port, on 127.0.0.1 when it listens on every address.
    pub addr: SocketAddr,
    _site: TempDir,
}

impl Probe {
    /// `serve --listen LISTEN` over the fixture, with `extra` options.
    pub fn start(listen: &str, extra: &[&str]) -> Probe {
        let site = tempfile::Builder::new()
            .prefix("rdma-lab-probe-test-")
            .tempdir()
            .unwrap();
        std::fs::write(site.path().join("index.html"), INDEX).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut child = Command::new(PROBE)
            .args(["serve", "--listen", listen, "--ui"])
            .arg(site.path())
            .arg("--sysfs-root")
            .arg(fixtures.join("sysfs"))
            .arg("--debugfs-root")
            .arg(fixtures.join("debugfs"))
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let bound: SocketAddr = line
            .strip_prefix("Serving rdma-lab at http://")
            .and_then(|rest| rest.split('/').next())
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        let addr = if bound.ip().is_unspecified() {
            SocketAddr::from(([127, 0, 0, 1], bound.port()))
        } else {
            bound
        };
        Probe {
            child,
            addr,
            _site: site,
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
