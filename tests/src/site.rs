//! The real probe serving the built site, on a port the OS picks.

use std::{path::PathBuf, process::Command};

use crate::probe::{release_binary, Probe};

/// A running `native-probe serve` over `dist/`; stopped when dropped.
pub struct Site {
    probe: Probe,
    pub base_url: String,
}

fn dist_dir() -> PathBuf {
    std::env::var_os("LAB_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("dist"))
}

impl Site {
    /// Starts the probe over `dist/` and waits for the URL it prints.
    pub fn start() -> Site {
        Site::start_with(&[])
    }

    /// Starts the probe with extra `serve` options (a fixture tree, a sampling interval…).
    pub fn start_with(options: &[&str]) -> Site {
        let probe = release_binary();
        let dist = dist_dir();
        assert!(
            probe.is_file() && dist.join("index.html").is_file(),
            "the browser tests need the release probe ({}) and the built site ({}); run `./lab test`, which builds both",
            probe.display(),
            dist.display()
        );
        let mut command = Command::new(&probe);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--ui"])
            .arg(&dist)
            .args(options);
        let probe = Probe::spawn(command);
        Site {
            base_url: probe.base_url().to_string(),
            probe,
        }
    }

    /// The probe's demo (`--demo`: a made-up host whose counters move), sampled every 200 ms,
    /// as the live view's tests watch it.
    pub fn live_demo() -> Site {
        Site::start_with(&["--demo", "--interval-ms", "200"])
    }

    pub fn url(&self, path: &str) -> String {
        self.probe.url(path)
    }

    /// The probe's process id, for a test that pauses it (`kill -STOP`) as a hung machine
    /// would be: its sockets stay open and nothing more arrives.
    pub fn pid(&self) -> u32 {
        self.probe.pid()
    }
}
