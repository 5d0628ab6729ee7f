//! The real probe serving the built site, on a port the OS picks.

use std::{
    io::{BufRead, BufReader},
    path::PathBuf,
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

/// A running `native-probe serve`; stopped when dropped.
pub struct Site {
    process: Child,
    pub base_url: String,
}

fn probe_binary() -> PathBuf {
    std::env::var_os("LAB_PROBE")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("target/release/native-probe"))
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
        let probe = probe_binary();
        let dist = dist_dir();
        assert!(
            probe.is_file() && dist.join("index.html").is_file(),
            "the browser tests need the release probe ({}) and the built site ({}); run `./lab test`, which builds both",
            probe.display(),
            dist.display()
        );
        let mut process = Command::new(&probe)
            .args(["serve", "--listen", "127.0.0.1:0", "--ui"])
            .arg(&dist)
            .args(options)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", probe.display()));
        let stdout = process.stdout.take().expect("stdout is piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("Serving rdma-lab at ") {
                    let url = rest.split_whitespace().next().unwrap_or_default();
                    let _ = sender.send(url.trim_end_matches('/').to_string());
                }
            }
        });
        let base_url = match receiver.recv_timeout(Duration::from_secs(20)) {
            Ok(url) => url,
            Err(_) => {
                let _ = process.kill();
                panic!("native-probe serve did not print its URL within 20 s");
            }
        };
        Site { process, base_url }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The probe's process id, for a test that pauses it (`kill -STOP`) as a hung machine
    /// would be: its sockets stay open and nothing more arrives.
    pub fn pid(&self) -> u32 {
        self.process.id()
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}
