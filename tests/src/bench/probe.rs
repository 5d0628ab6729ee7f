//! The probe's performance figures (issue 7, "Performance"): the release `native-probe serve`
//! reading a copy of the recorded fixture at 10 Hz with 10 WebSocket clients connected.
//!
//! - CPU: the probe's time on a CPU over a measured window, as a share of one core: the sum
//!   over its threads of `/proc/PID/task/TID/schedstat` (nanoseconds), or its user + system
//!   ticks from `/proc/PID/stat` should a thread end during the window;
//! - memory: its resident set (`/proc/PID/status`: `VmRSS` now, `VmHWM` the peak);
//! - latency: a counter file of the copy is changed at a random phase of the sampling
//!   interval, and the time until each client receives the first `sample` carrying the new
//!   value is recorded.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use engine::probe::{Envelope, ProbeMessage};
use futures_util::StreamExt;
use tokio::{net::TcpStream, sync::mpsc};
use tokio_tungstenite::{
    client_async,
    tungstenite::{client::IntoClientRequest, Message},
};

use super::{median, verdict};

pub const INTERVAL_MS: u64 = 100;
pub const CLIENTS: usize = 10;
pub const CPU_TARGET_PERCENT: f64 = 1.0;
pub const RSS_TARGET_MB: f64 = 20.0;
/// The latency target: one interval (the change may land just after a reading) plus 20 ms.
pub const LATENCY_SLACK_MS: f64 = 20.0;
const WARM_UP: Duration = Duration::from_secs(3);
/// Long enough that a few slow seconds on a shared host move the figure little.
const CPU_WINDOW: Duration = Duration::from_secs(30);
const CHANGES: usize = 30;
/// The counter the bench changes: mlx5_0 port 1's `port_xmit_data`.
const DEVICE: &str = "mlx5_0";
const PORT: u32 = 1;
const COUNTER: &str = "port_xmit_data";

/// What the probe bench measured.
pub struct Figures {
    pub cpu_percent: f64,
    pub rss_mb: f64,
    pub peak_rss_mb: f64,
    pub latencies_ms: Vec<f64>,
}

impl Figures {
    pub fn latency_target_ms() -> f64 {
        INTERVAL_MS as f64 + LATENCY_SLACK_MS
    }

    pub fn max_latency_ms(&self) -> f64 {
        self.latencies_ms.iter().copied().fold(0.0, f64::max)
    }

    pub fn median_latency_ms(&self) -> f64 {
        median(&self.latencies_ms)
    }

    pub fn meets_targets(&self) -> bool {
        self.cpu_percent <= CPU_TARGET_PERCENT
            && self.peak_rss_mb <= RSS_TARGET_MB
            && !self.latencies_ms.is_empty()
            && self.max_latency_ms() <= Self::latency_target_ms()
    }
}

/// A private copy of the fixture and an empty site for `--ui`; removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("rdma-lab-probe-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let fixture = crate::repo_root().join("native-probe/tests/fixtures");
        copy_tree(&fixture, &dir).expect("the fixture copies to a temporary directory");
        std::fs::create_dir_all(dir.join("site")).expect("a temporary site folder");
        std::fs::write(
            dir.join("site/index.html"),
            "<!DOCTYPE html><title>lab</title>",
        )
        .expect("a temporary index.html");
        Scratch { dir }
    }

    fn counter_file(&self) -> PathBuf {
        self.dir.join(format!(
            "sysfs/class/infiniband/{DEVICE}/ports/{PORT}/counters/{COUNTER}"
        ))
    }

    /// Replaces the counter file's content at once (write aside, then rename over it), so the
    /// probe never reads a half-written file.
    fn set_counter(&self, value: u64) {
        let file = self
            .counter_file()
            .canonicalize()
            .expect("the counter file exists");
        let aside = self.dir.join("next-value");
        std::fs::write(&aside, format!("{value}\n")).expect("the scratch folder is writable");
        std::fs::rename(&aside, &file).expect("the counter file is replaceable");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copies a tree, keeping its symlinks as links (the fixture's are relative).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

struct Probe {
    child: Child,
    addr: String,
}

impl Probe {
    fn start(scratch: &Scratch) -> Probe {
        let binary = std::env::var_os("LAB_PROBE")
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::repo_root().join("target/release/native-probe"));
        let mut child = Command::new(&binary)
            .args(["serve", "--listen", "127.0.0.1:0", "--ui"])
            .arg(scratch.dir.join("site"))
            .arg("--sysfs-root")
            .arg(scratch.dir.join("sysfs"))
            .arg("--debugfs-root")
            .arg(scratch.dir.join("debugfs"))
            .args(["--interval-ms", &INTERVAL_MS.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().expect("stdout is piped")),
            &mut line,
        )
        .expect("the probe prints its address");
        let addr = line
            .strip_prefix("Serving rdma-lab at http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("unexpected first line from the probe: {line:?}"))
            .to_string();
        Probe { child, addr }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time of a process so far, two ways: per thread from `/proc/PID/task/TID/schedstat`
/// (nanoseconds on a CPU, exact), and in all from `/proc/PID/stat` (user + system, in clock
/// ticks of 10 ms: at 1 % of a core, one tick is a fifteenth of what 15 s measure, too
/// coarse to judge by alone).
struct CpuTime {
    /// Nanoseconds by thread id.
    threads: BTreeMap<u64, u64>,
    ticks: u64,
}

impl CpuTime {
    fn of(pid: u32) -> CpuTime {
        let mut threads = BTreeMap::new();
        if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
            for task in tasks.flatten() {
                let Ok(tid) = task.file_name().to_string_lossy().parse::<u64>() else {
                    continue;
                };
                let on_cpu_ns = std::fs::read_to_string(task.path().join("schedstat"))
                    .ok()
                    .and_then(|text| text.split_whitespace().next()?.parse().ok());
                if let Some(ns) = on_cpu_ns {
                    threads.insert(tid, ns);
                }
            }
        }
        CpuTime {
            threads,
            ticks: cpu_ticks(pid),
        }
    }

    /// Seconds of CPU used between `self` and `later`: exact when every thread of `self`
    /// is still there (a thread that ended took its count with it), else from the ticks.
    fn seconds_until(&self, later: &CpuTime, ticks_per_second: f64) -> f64 {
        let kept = self
            .threads
            .keys()
            .all(|tid| later.threads.contains_key(tid));
        if kept && !self.threads.is_empty() {
            let ns: u64 = later
                .threads
                .iter()
                .map(|(tid, ns)| ns - self.threads.get(tid).copied().unwrap_or(0).min(*ns))
                .sum();
            ns as f64 / 1e9
        } else {
            (later.ticks - self.ticks) as f64 / ticks_per_second
        }
    }
}

/// User + system CPU time of a process so far (all its threads), in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // Fields after the command name, which is in parentheses and may hold spaces; utime and
    // stime are fields 14 and 15 of the line, so 12 and 13 after the ')'.
    let rest = &stat[stat.rfind(')').expect("a command name") + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields[11].parse().expect("utime");
    let stime: u64 = fields[12].parse().expect("stime");
    utime + stime
}

fn clock_ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(100.0)
}

/// `VmRSS` and `VmHWM` (peak) of a process, in kB.
fn memory_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// What a client saw: its number, the bench counter's value in a sample, and when it arrived.
struct Seen {
    client: usize,
    value: Option<u64>,
    at: Instant,
}

/// One client: connects with a localhost Origin and reads every message until the probe stops,
/// reporting the bench counter of each sample.
async fn client(addr: String, id: usize, seen: mpsc::UnboundedSender<Seen>) {
    let mut request = format!("ws://{addr}/ws")
        .into_client_request()
        .expect("a valid URL");
    request.headers_mut().insert(
        "origin",
        "http://localhost:8080"
            .parse()
            .expect("a valid header value"),
    );
    let stream = TcpStream::connect(&addr).await.expect("the probe listens");
    let (mut ws, _) = client_async(request, stream)
        .await
        .expect("the probe accepts a localhost origin");
    while let Some(Ok(message)) = ws.next().await {
        let Message::Text(text) = message else {
            continue;
        };
        let at = Instant::now();
        let envelope: Envelope = match serde_json::from_str(&text) {
            Ok(envelope) => envelope,
            Err(error) => panic!("client {id}: a message that is not the schema: {error}"),
        };
        if let ProbeMessage::Sample(sample) = envelope.message {
            let value = sample
                .ports
                .iter()
                .find(|p| p.device == DEVICE && p.port == PORT)
                .and_then(|p| p.counters.get(COUNTER))
                .and_then(|c| c.value);
            if seen
                .send(Seen {
                    client: id,
                    value,
                    at,
                })
                .is_err()
            {
                return;
            }
        }
    }
}

/// A small deterministic generator for the change phases (xorshift64).
struct Phases(u64);

impl Phases {
    fn next_fraction(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Runs the probe bench and returns its figures.
pub async fn measure() -> Figures {
    let scratch = Scratch::new();
    let probe = Probe::start(&scratch);
    let pid = probe.pid();
    let (sender, mut seen) = mpsc::unbounded_channel();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|id| tokio::spawn(client(probe.addr.clone(), id, sender.clone())))
        .collect();
    drop(sender);

    // Warm up: every client connected and receiving samples.
    let mut receiving = [false; CLIENTS];
    let deadline = Instant::now() + Duration::from_secs(20);
    while receiving.iter().any(|r| !r) {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(Some(message)) = tokio::time::timeout(left, seen.recv()).await else {
            panic!("not every client received a sample within 20 s");
        };
        receiving[message.client] = true;
    }
    tokio::time::sleep(WARM_UP).await;

    // CPU and memory, while the clients keep reading (what they report is drained, unused).
    let drain = tokio::spawn(async move {
        let window = tokio::time::sleep(CPU_WINDOW);
        tokio::pin!(window);
        loop {
            tokio::select! {
                _ = &mut window => return seen,
                message = seen.recv() => if message.is_none() { return seen },
            }
        }
    });
    let ticks_per_second = clock_ticks_per_second();
    let (start_cpu, start_wall) = (CpuTime::of(pid), Instant::now());
    let mut seen = drain.await.expect("the drain task finishes");
    let (end_cpu, wall) = (CpuTime::of(pid), start_wall.elapsed());
    let cpu_percent =
        start_cpu.seconds_until(&end_cpu, ticks_per_second) / wall.as_secs_f64() * 100.0;

    // Latency: change the counter at a random phase of the interval; each client's first
    // sample with the new value ends that client's measurement.
    let mut phases = Phases(0x9e37_79b9_7f4a_7c15 ^ u64::from(pid));
    let mut value = 1_000_000_000_000u64;
    let mut latencies_ms = Vec::new();
    for _ in 0..CHANGES {
        let pause = INTERVAL_MS as f64 * (1.0 + 2.0 * phases.next_fraction());
        tokio::time::sleep(Duration::from_secs_f64(pause / 1000.0)).await;
        while seen.try_recv().is_ok() {}
        value += 1_000_000;
        scratch.set_counter(value);
        let changed = Instant::now();
        let mut arrived: BTreeMap<usize, f64> = BTreeMap::new();
        let deadline = changed + Duration::from_secs(5);
        while arrived.len() < CLIENTS {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(Some(message)) = tokio::time::timeout(left, seen.recv()).await else {
                panic!(
                    "only {} of {CLIENTS} clients saw a changed counter within 5 s",
                    arrived.len()
                );
            };
            if message.value == Some(value) {
                arrived
                    .entry(message.client)
                    .or_insert_with(|| (message.at - changed).as_secs_f64() * 1000.0);
            }
        }
        latencies_ms.extend(arrived.into_values());
    }

    let (rss_kb, peak_kb) = memory_kb(pid);
    for client in clients {
        client.abort();
    }
    drop(probe);
    Figures {
        cpu_percent,
        rss_mb: rss_kb as f64 / 1000.0,
        peak_rss_mb: peak_kb as f64 / 1000.0,
        latencies_ms,
    }
}

/// Measures and prints the probe's figures; false when a target is missed.
pub async fn run() -> bool {
    let figures = measure().await;
    println!(
        "Probe ({CLIENTS} WebSocket clients, fixture at {INTERVAL_MS} ms, {} s measured):",
        CPU_WINDOW.as_secs()
    );
    println!(
        "  CPU: {:.2} % of one core (target ≤ {CPU_TARGET_PERCENT:.0} %: {})",
        figures.cpu_percent,
        verdict(figures.cpu_percent <= CPU_TARGET_PERCENT)
    );
    println!(
        "  memory: {:.1} MB resident at the end, {:.1} MB at the peak (target ≤ {RSS_TARGET_MB:.0} MB: {})",
        figures.rss_mb,
        figures.peak_rss_mb,
        verdict(figures.peak_rss_mb <= RSS_TARGET_MB)
    );
    println!(
        "  change on disk → sample on the socket: median {:.1} ms, max {:.1} ms over {CHANGES} changes × {CLIENTS} clients (target ≤ {:.0} ms: {})",
        figures.median_latency_ms(),
        figures.max_latency_ms(),
        Figures::latency_target_ms(),
        verdict(figures.max_latency_ms() <= Figures::latency_target_ms())
    );
    figures.meets_targets()
}
