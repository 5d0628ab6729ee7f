//! Debian's `prometheus-node-exporter`, run over a sysfs tree: the anchor the bench measures
//! the probe against, and the reference the probe's `/metrics` values are checked against.

use std::{
    io::BufRead,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::Duration,
};

const NODE_EXPORTER: &str = "/usr/bin/prometheus-node-exporter";

/// A node_exporter of its own on a free loopback port (never a system instance), killed when
/// dropped.
pub struct NodeExporter {
    child: Child,
    addr: String,
}

impl NodeExporter {
    /// The binary: `LAB_NODE_EXPORTER`, else Debian's path.
    pub fn binary() -> PathBuf {
        std::env::var_os("LAB_NODE_EXPORTER")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(NODE_EXPORTER))
    }

    /// Its version, from the first line of `--version` ("node_exporter, version 1.5.0 …").
    pub fn version() -> String {
        let binary = Self::binary();
        let out = Command::new(&binary)
            .arg("--version")
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run {} ({e}); `./lab test` and `./lab bench probe` install it",
                    binary.display()
                )
            });
        // Kingpin prints the version on stderr in older releases, on stdout in newer ones.
        let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
        text.split_whitespace()
            .skip_while(|word| *word != "version")
            .nth(1)
            .unwrap_or("(unknown version)")
            .to_string()
    }

    /// Starts it reading `sysfs` with only the collectors `collectors` enables (e.g.
    /// `--collector.infiniband`); its address comes from its "Listening on" log line.
    pub fn start(sysfs: &Path, collectors: &[&str]) -> NodeExporter {
        let binary = Self::binary();
        let mut child = Command::new(&binary)
            .arg(format!("--path.sysfs={}", sysfs.display()))
            .arg("--collector.disable-defaults")
            .args(collectors)
            .arg("--web.listen-address=127.0.0.1:0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {} ({e}); `./lab test` installs it",
                    binary.display()
                )
            });
        let log = child.stderr.take().expect("stderr is piped");
        let (address, listening) = std::sync::mpsc::channel();
        // Reads the log to its end, so node_exporter never blocks on a full pipe; errors are
        // passed on.
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(log).lines() {
                let Ok(line) = line else { return };
                if line.contains("msg=\"Listening on\"") {
                    let addr = line
                        .split_whitespace()
                        .find_map(|field| field.strip_prefix("address="))
                        .map(str::to_string);
                    let _ = address.send(addr);
                } else if line.contains("level=error") {
                    eprintln!("node_exporter: {line}");
                }
            }
        });
        let addr = match listening.recv_timeout(Duration::from_secs(10)) {
            Ok(Some(addr)) => addr,
            Ok(None) => panic!("node_exporter logged no address to listen on"),
            Err(_) => panic!("node_exporter did not listen within 10 s"),
        };
        NodeExporter { child, addr }
    }

    /// `host:port`.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One scrape of `/metrics`, as text.
    pub fn metrics(&self) -> String {
        let addr: SocketAddr = self.addr.parse().expect("node_exporter's address");
        let answer = crate::loopback::get(addr, "/metrics", &[])
            .unwrap_or_else(|e| panic!("a scrape of node_exporter failed: {e}"));
        assert_eq!(answer.status, 200, "{}", answer.text());
        answer.text()
    }
}

impl Drop for NodeExporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
