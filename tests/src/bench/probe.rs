//! The probe's performance figures (issue 7, "Performance"), measured against an anchor in the
//! same run: Debian's `prometheus-node-exporter` reading the same copy of the recorded fixture.
//!
//! The two run in turn, [`ROUNDS`] times (probe, node_exporter, probe, node_exporter), each
//! for a [`WINDOW`] after a warm-up:
//!
//! - the release `native-probe serve` reads the copy every 100 ms, with 10 WebSocket clients
//!   connected and reading; its readings are the distinct samples the clients receive;
//! - node_exporter, with only its `infiniband` and `netclass` collectors (netclass from
//!   sysfs, not netlink) and its default web settings, is scraped every 100 ms by one client
//!   that asks as Prometheus does (see [`Asking`]; `GET /metrics` on a kept-alive connection,
//!   the whole body read); its readings are the completed scrapes.
//!
//! For each: CPU time per reading, from its threads' `/proc/PID/task/TID/schedstat`
//! (nanoseconds) with `/proc/PID/stat` as a cross-check (see [`CpuMeter`]); its resident set
//! (`/proc/PID/status`: `VmRSS` at the end, `VmHWM` the peak). The targets are ratios: node_exporter
//! should spend at least 3× the probe's CPU per reading, and hold at least 3× its memory.
//!
//! Latency: after the last probe window, a counter file of the copy is rewritten in place (as
//! the kernel changes a counter) at a random phase of the sampling interval, and the time until
//! each client receives the first `sample` carrying the new value is recorded.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
    process::Command,
    time::{Duration, Instant},
};

use engine::probe::{Envelope, ProbeMessage};
use futures_util::StreamExt;
use tokio::{
    io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
    sync::mpsc,
};
use tokio_tungstenite::{
    client_async,
    tungstenite::{client::IntoClientRequest, Message},
};

use super::{median, verdict};
use crate::{
    node_exporter::NodeExporter,
    probe::{release_binary, FixtureSite, Probe},
};

pub const INTERVAL_MS: u64 = 100;
pub const CLIENTS: usize = 10;
/// Both ratios' target: node_exporter's CPU per reading, and its memory, over the probe's.
pub const RATIO_TARGET: f64 = 3.0;
/// The latency target: one interval (the change may land just after a reading) plus 20 ms.
pub const LATENCY_SLACK_MS: f64 = 20.0;
/// Runs of each, alternated so that a slow spell of a shared host falls on both.
pub const ROUNDS: usize = 2;
const WARM_UP: Duration = Duration::from_secs(3);
/// Each run's measured window: 150 readings, so one reading more or less moves the figure 1 %.
const WINDOW: Duration = Duration::from_secs(15);
/// How often the threads' CPU counts are read during a window (see [`CpuMeter`]).
const CPU_POLL: Duration = Duration::from_millis(100);
const CHANGES: usize = 30;
/// The counter the bench changes: mlx5_0 port 1's `port_xmit_data`.
const DEVICE: &str = "mlx5_0";
const PORT: u32 = 1;
const COUNTER: &str = "port_xmit_data";
/// The fixture's interface and device, which node_exporter must report to show it read the copy.
const FIXTURE_INTERFACE: &str = "ens1f0np0";

/// One run's measured window.
pub struct Run {
    pub cpu: CpuUse,
    pub wall: Duration,
    /// Readings the probe took (distinct samples its clients received), or scrapes completed.
    pub readings: usize,
    pub rss_kb: u64,
    pub peak_kb: u64,
}

impl Run {
    pub fn cpu_ms_per_reading(&self) -> f64 {
        self.cpu.seconds() * 1000.0 / self.readings as f64
    }
}

/// The probe's run, with how many samples each client received (the fewest and the most).
pub struct ProbeRun {
    pub run: Run,
    pub per_client: (usize, usize),
}

/// node_exporter's run, with the size of its last response.
pub struct ExporterRun {
    pub run: Run,
    pub body_bytes: usize,
}

/// What the probe bench measured.
pub struct Figures {
    pub exporter_version: String,
    pub probe: Vec<ProbeRun>,
    pub exporter: Vec<ExporterRun>,
    pub latencies_ms: Vec<f64>,
}

/// CPU per reading over every run of one side: all their CPU over all their readings.
fn cpu_ms_per_reading<'a>(runs: impl Iterator<Item = &'a Run>) -> f64 {
    let (seconds, readings) = runs.fold((0.0, 0), |(s, n), run| {
        (s + run.cpu.seconds(), n + run.readings)
    });
    seconds * 1000.0 / readings as f64
}

fn peak_kb<'a>(runs: impl Iterator<Item = &'a Run>) -> u64 {
    runs.map(|run| run.peak_kb).max().unwrap_or(0)
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

    pub fn probe_cpu_ms(&self) -> f64 {
        cpu_ms_per_reading(self.probe.iter().map(|p| &p.run))
    }

    pub fn exporter_cpu_ms(&self) -> f64 {
        cpu_ms_per_reading(self.exporter.iter().map(|e| &e.run))
    }

    pub fn probe_peak_kb(&self) -> u64 {
        peak_kb(self.probe.iter().map(|p| &p.run))
    }

    pub fn exporter_peak_kb(&self) -> u64 {
        peak_kb(self.exporter.iter().map(|e| &e.run))
    }

    /// node_exporter's CPU per scrape over the probe's per reading.
    pub fn cpu_ratio(&self) -> f64 {
        self.exporter_cpu_ms() / self.probe_cpu_ms()
    }

    /// node_exporter's peak resident set over the probe's.
    pub fn memory_ratio(&self) -> f64 {
        self.exporter_peak_kb() as f64 / self.probe_peak_kb() as f64
    }

    pub fn meets_targets(&self) -> bool {
        self.cpu_ratio() >= RATIO_TARGET
            && self.memory_ratio() >= RATIO_TARGET
            && !self.latencies_ms.is_empty()
            && self.max_latency_ms() <= Self::latency_target_ms()
    }
}

/// The counter file the bench changes, in the copy of the fixture.
fn counter_file(scratch: &FixtureSite) -> PathBuf {
    scratch.sysfs().join(format!(
        "class/infiniband/{DEVICE}/ports/{PORT}/counters/{COUNTER}"
    ))
}

/// Rewrites the counter file in place, as the kernel changes a counter: the same inode, no
/// rename and no directory entry event.
fn set_counter(scratch: &FixtureSite, value: u64) {
    crate::probe::set_counter(&counter_file(scratch), value);
}

fn start_probe(scratch: &FixtureSite) -> Probe {
    let interval = INTERVAL_MS.to_string();
    Probe::spawn(scratch.serve(
        &release_binary(),
        "127.0.0.1:0",
        &["--interval-ms", &interval],
    ))
}

/// The bench's own node_exporter on a free loopback port (never a system instance), reading
/// the copy with its `infiniband` and `netclass` collectors.
fn start_node_exporter(scratch: &FixtureSite) -> NodeExporter {
    NodeExporter::start(
        &scratch.sysfs(),
        &[
            "--collector.infiniband",
            "--collector.netclass",
            // netclass reads sysfs unless told to use netlink, which would see this host's
            // interfaces instead of the copy's; said explicitly, since the default may change.
            "--no-collector.netclass.netlink",
        ],
    )
}

/// The CPU time of a process over a window, two ways:
///
/// - summed over its threads from `/proc/PID/task/TID/schedstat` (nanoseconds on a CPU). A
///   thread that ends takes its count with it (tokio's idle blocking threads end, a Go
///   runtime may end one), so the counts are read every [`CPU_POLL`] and each thread's last
///   count is kept: a thread that ends loses at most what it did since the last read;
/// - in all from `/proc/PID/stat` (user + system, ended threads included, in clock ticks of
///   10 ms: over 15 s, too coarse to judge a few milliseconds per second by alone).
struct CpuMeter {
    pid: u32,
    /// Nanoseconds by thread id at the start of the window.
    start: BTreeMap<u64, u64>,
    /// Nanoseconds by thread id at the latest read.
    latest: BTreeMap<u64, u64>,
    start_ticks: u64,
}

/// What a [`CpuMeter`] measured.
pub struct CpuUse {
    /// From the threads' schedstat; `None` when the kernel has none.
    pub schedstat_s: Option<f64>,
    /// From `/proc/PID/stat`.
    pub stat_s: f64,
    /// Threads seen during the window, and those of them that ended before its end.
    pub threads: usize,
    pub ended: usize,
}

impl CpuUse {
    /// The figure to judge by: the threads' sum when every thread lived to the end; when one
    /// ended, that sum may have missed its last moments, so the larger of the two, to never
    /// under-count; `/proc/PID/stat` alone when there is no schedstat.
    pub fn seconds(&self) -> f64 {
        match self.schedstat_s {
            Some(exact) if self.ended == 0 => exact,
            Some(exact) => exact.max(self.stat_s),
            None => self.stat_s,
        }
    }
}

impl CpuMeter {
    fn start(pid: u32) -> CpuMeter {
        let start = thread_cpu_ns(pid);
        CpuMeter {
            pid,
            latest: start.clone(),
            start,
            start_ticks: cpu_ticks(pid),
        }
    }

    fn poll(&mut self) {
        self.latest.extend(thread_cpu_ns(self.pid));
    }

    fn finish(mut self, ticks_per_second: f64) -> CpuUse {
        let live = thread_cpu_ns(self.pid);
        let stat_s = (cpu_ticks(self.pid) - self.start_ticks) as f64 / ticks_per_second;
        let ended = self
            .latest
            .keys()
            .filter(|tid| !live.contains_key(tid))
            .count();
        self.latest.extend(live);
        // A thread born during the window did all its work in it, so it counts from zero.
        let ns: u64 = self
            .latest
            .iter()
            .map(|(tid, ns)| ns.saturating_sub(self.start.get(tid).copied().unwrap_or(0)))
            .sum();
        CpuUse {
            schedstat_s: (!self.latest.is_empty()).then_some(ns as f64 / 1e9),
            stat_s,
            threads: self.latest.len(),
            ended,
        }
    }
}

/// Nanoseconds on a CPU so far, by thread id, of a process's live threads.
fn thread_cpu_ns(pid: u32) -> BTreeMap<u64, u64> {
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
    threads
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

/// The measured window of one run: the process's CPU over it, and the events (samples or
/// scrapes, each stamped when it arrived) that arrived within it.
async fn measure_window<T>(
    pid: u32,
    events: &mut mpsc::UnboundedReceiver<T>,
    arrived: impl Fn(&T) -> Instant,
) -> (CpuUse, Duration, Vec<T>) {
    let ticks_per_second = clock_ticks_per_second();
    while events.try_recv().is_ok() {}
    let mut meter = CpuMeter::start(pid);
    let start = Instant::now();
    let end = tokio::time::sleep(WINDOW);
    tokio::pin!(end);
    let mut poll = tokio::time::interval(CPU_POLL);
    let mut kept = Vec::new();
    loop {
        tokio::select! {
            _ = &mut end => break,
            _ = poll.tick() => meter.poll(),
            event = events.recv() => match event {
                Some(event) => kept.push(event),
                None => panic!("the readers stopped during the measured window"),
            },
        }
    }
    let cpu = meter.finish(ticks_per_second);
    let (wall, end) = (start.elapsed(), Instant::now());
    while let Ok(event) = events.try_recv() {
        kept.push(event);
    }
    kept.retain(|event| (start..end).contains(&arrived(event)));
    (cpu, wall, kept)
}

/// What a client saw in one sample: its number, the reading's timestamp, the bench counter's
/// value, and when the sample arrived.
struct Seen {
    client: usize,
    timestamp_ms: u64,
    value: Option<u64>,
    at: Instant,
}

/// One client: connects with a localhost Origin and reads every message until the probe stops,
/// reporting each sample.
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
            let seen_one = Seen {
                client: id,
                timestamp_ms: sample.timestamp_ms,
                value,
                at,
            };
            if seen.send(seen_one).is_err() {
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

/// One probe run: 10 clients reading, the measured window, then (when asked) the latency of
/// [`CHANGES`] counter changes.
async fn probe_run(scratch: &FixtureSite, latencies_ms: Option<&mut Vec<f64>>) -> ProbeRun {
    let probe = start_probe(scratch);
    let pid = probe.pid();
    let (sender, mut seen) = mpsc::unbounded_channel();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|id| tokio::spawn(client(probe.addr().to_string(), id, sender.clone())))
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

    let (cpu, wall, samples) = measure_window(pid, &mut seen, |s: &Seen| s.at).await;
    let (rss_kb, peak_kb) = memory_kb(pid);
    let readings: BTreeSet<u64> = samples.iter().map(|s| s.timestamp_ms).collect();
    let mut per_client = [0usize; CLIENTS];
    for sample in &samples {
        per_client[sample.client] += 1;
    }
    let per_client = (
        per_client.iter().copied().min().unwrap_or(0),
        per_client.iter().copied().max().unwrap_or(0),
    );

    if let Some(latencies_ms) = latencies_ms {
        measure_latency(scratch, pid, &mut seen, latencies_ms).await;
    }
    for client in clients {
        client.abort();
    }
    drop(probe);
    ProbeRun {
        run: Run {
            cpu,
            wall,
            readings: readings.len(),
            rss_kb,
            peak_kb,
        },
        per_client,
    }
}

/// Changes the counter at a random phase of the interval; each client's first sample with
/// the new value ends that client's measurement.
async fn measure_latency(
    scratch: &FixtureSite,
    pid: u32,
    seen: &mut mpsc::UnboundedReceiver<Seen>,
    latencies_ms: &mut Vec<f64>,
) {
    let mut phases = Phases(0x9e37_79b9_7f4a_7c15 ^ u64::from(pid));
    let mut value = 1_000_000_000_000u64;
    for _ in 0..CHANGES {
        let pause = INTERVAL_MS as f64 * (1.0 + 2.0 * phases.next_fraction());
        tokio::time::sleep(Duration::from_secs_f64(pause / 1000.0)).await;
        while seen.try_recv().is_ok() {}
        value += 1_000_000;
        set_counter(scratch, value);
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
}

/// One completed scrape: when its body was read in full, and its size.
struct Scrape {
    at: Instant,
    bytes: usize,
}

/// How a scrape asks for the metrics.
#[derive(Clone, Copy)]
enum Asking {
    /// As Prometheus 2.42 (Debian's) asks, with its `Accept` and `Accept-Encoding: gzip`
    /// (`scrape/scrape.go`): the anchor is node_exporter as a fleet runs it, with its default
    /// web settings.
    AsPrometheus,
    /// Plain text, uncompressed: only to check what it read.
    PlainText,
}

/// `GET /metrics` on a kept-alive HTTP/1.1 connection; the whole body, as sent.
async fn get_metrics(
    connection: &mut BufReader<TcpStream>,
    addr: &str,
    asking: Asking,
) -> std::io::Result<Vec<u8>> {
    let headers = match asking {
        Asking::AsPrometheus => concat!(
            "User-Agent: Prometheus/2.42.0\r\n",
            "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n",
            "Accept-Encoding: gzip\r\n",
            "X-Prometheus-Scrape-Timeout-Seconds: 10\r\n",
        ),
        Asking::PlainText => "User-Agent: lab-bench\r\nAccept: text/plain\r\n",
    };
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\n{headers}\r\n");
    connection.get_mut().write_all(request.as_bytes()).await?;
    read_response(connection).await
}

fn invalid(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what)
}

/// Reads one HTTP/1.1 response, which must be a 200, and returns its body (framed by
/// `Content-Length` or chunked, as Go's server sends a body it did not buffer whole).
async fn read_response(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Vec<u8>> {
    async fn line(reader: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<String> {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        Ok(line.trim_end_matches(['\r', '\n']).to_string())
    }
    let status = line(reader).await?;
    if status.split_whitespace().nth(1) != Some("200") {
        return Err(invalid(format!("the response is {status:?}, not a 200")));
    }
    let (mut length, mut chunked) = (None, false);
    loop {
        let header = line(reader).await?;
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(invalid(format!("a header without a colon: {header:?}")));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                length = Some(value.parse::<usize>().map_err(|e| invalid(e.to_string()))?)
            }
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let size = line(reader).await?;
            let size = size.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size, 16).map_err(|e| invalid(e.to_string()))?;
            if size == 0 {
                // Trailers, if any, end with an empty line.
                while !line(reader).await?.is_empty() {}
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).await?;
            if !line(reader).await?.is_empty() {
                return Err(invalid("a chunk longer than its size".into()));
            }
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        reader.read_exact(&mut body).await?;
    } else {
        return Err(invalid(
            "a kept-alive response needs a length or chunks".into(),
        ));
    }
    Ok(body)
}

/// Whether a scrape shows node_exporter reading the copy: the fixture's interface from
/// netclass (this host has no such interface) and the fixture's device's counters from
/// infiniband, both collectors successful.
fn reads_the_copy(body: &str) -> Result<(), String> {
    let wanted = [
        format!("node_network_mtu_bytes{{device=\"{FIXTURE_INTERFACE}\"}}"),
        format!("node_infiniband_port_data_transmitted_bytes_total{{device=\"{DEVICE}\",port=\"{PORT}\"}}"),
        "node_scrape_collector_success{collector=\"netclass\"} 1".to_string(),
        "node_scrape_collector_success{collector=\"infiniband\"} 1".to_string(),
    ];
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|w| !body.lines().any(|line| line.starts_with(w.as_str())))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "node_exporter's metrics lack {}",
            missing.join(", ")
        ))
    }
}

/// One scraper: `GET /metrics` every interval until the bench stops it.
async fn scraper(addr: String, scrapes: mpsc::UnboundedSender<Scrape>) {
    let stream = TcpStream::connect(&addr)
        .await
        .expect("node_exporter listens");
    let mut connection = BufReader::new(stream);
    let mut every = tokio::time::interval(Duration::from_millis(INTERVAL_MS));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let body = get_metrics(&mut connection, &addr, Asking::AsPrometheus)
            .await
            .unwrap_or_else(|e| panic!("a scrape of node_exporter failed: {e}"));
        let scrape = Scrape {
            at: Instant::now(),
            bytes: body.len(),
        };
        if scrapes.send(scrape).is_err() {
            return;
        }
    }
}

/// One node_exporter run: checked to read the copy, then scraped through a warm-up and the
/// measured window.
async fn exporter_run(scratch: &FixtureSite) -> ExporterRun {
    let exporter = start_node_exporter(scratch);
    let pid = exporter.pid();
    let stream = TcpStream::connect(exporter.addr())
        .await
        .expect("node_exporter listens");
    let first = get_metrics(
        &mut BufReader::new(stream),
        exporter.addr(),
        Asking::PlainText,
    )
    .await
    .unwrap_or_else(|e| panic!("the first scrape of node_exporter failed: {e}"));
    if let Err(missing) = reads_the_copy(&String::from_utf8_lossy(&first)) {
        panic!("{missing}: it does not read the copied fixture");
    }

    let (sender, mut scrapes) = mpsc::unbounded_channel();
    let scraping = tokio::spawn(scraper(exporter.addr().to_string(), sender));
    tokio::time::sleep(WARM_UP).await;
    let (cpu, wall, scraped) = measure_window(pid, &mut scrapes, |s: &Scrape| s.at).await;
    let (rss_kb, peak_kb) = memory_kb(pid);
    scraping.abort();
    drop(exporter);
    ExporterRun {
        body_bytes: scraped.last().map(|s| s.bytes).unwrap_or(0),
        run: Run {
            cpu,
            wall,
            readings: scraped.len(),
            rss_kb,
            peak_kb,
        },
    }
}

/// Runs the probe bench and returns its figures.
pub async fn measure() -> Figures {
    let exporter_version = NodeExporter::version();
    let scratch = FixtureSite::copied("probe-bench");
    let mut figures = Figures {
        exporter_version,
        probe: Vec::new(),
        exporter: Vec::new(),
        latencies_ms: Vec::new(),
    };
    for round in 0..ROUNDS {
        let last = round + 1 == ROUNDS;
        let latencies_ms = last.then_some(&mut figures.latencies_ms);
        figures.probe.push(probe_run(&scratch, latencies_ms).await);
        figures.exporter.push(exporter_run(&scratch).await);
    }
    figures
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1000.0
}

/// "CPU 52.1 ms (/proc/PID/stat: 50 ms; 2 of 9 threads ended)": the figure judged by, and its
/// cross-check.
fn cpu_line(cpu: &CpuUse) -> String {
    let ended = if cpu.ended > 0 {
        format!("; {} of {} threads ended", cpu.ended, cpu.threads)
    } else {
        String::new()
    };
    format!(
        "CPU {:.1} ms (/proc/PID/stat: {:.0} ms{ended})",
        cpu.seconds() * 1000.0,
        cpu.stat_s * 1000.0
    )
}

/// Measures and prints the probe's figures; false when a target is missed.
pub async fn run() -> bool {
    let figures = measure().await;
    println!(
        "Probe against node_exporter {} (both reading a copy of the fixture every {INTERVAL_MS} ms, in turn, {ROUNDS} rounds of {} s each):",
        figures.exporter_version,
        WINDOW.as_secs()
    );
    for (round, (probe, exporter)) in figures.probe.iter().zip(&figures.exporter).enumerate() {
        let round = round + 1;
        let (fewest, most) = probe.per_client;
        println!(
            "  probe, run {round}: {} readings in {:.1} s ({CLIENTS} WebSocket clients received {fewest}–{most} samples each), {}: {:.3} ms per reading; resident {:.1} MB at the end, {:.1} MB at the peak",
            probe.run.readings,
            probe.run.wall.as_secs_f64(),
            cpu_line(&probe.run.cpu),
            probe.run.cpu_ms_per_reading(),
            mb(probe.run.rss_kb),
            mb(probe.run.peak_kb),
        );
        println!(
            "  node_exporter, run {round}: {} scrapes of {:.1} KB gzip in {:.1} s (one client), {}: {:.3} ms per scrape; resident {:.1} MB at the end, {:.1} MB at the peak",
            exporter.run.readings,
            exporter.body_bytes as f64 / 1000.0,
            exporter.run.wall.as_secs_f64(),
            cpu_line(&exporter.run.cpu),
            exporter.run.cpu_ms_per_reading(),
            mb(exporter.run.rss_kb),
            mb(exporter.run.peak_kb),
        );
    }
    println!(
        "  CPU per reading: probe {:.3} ms, node_exporter {:.3} ms per scrape: {:.1}× less (target ≥ {RATIO_TARGET:.0}×: {})",
        figures.probe_cpu_ms(),
        figures.exporter_cpu_ms(),
        figures.cpu_ratio(),
        verdict(figures.cpu_ratio() >= RATIO_TARGET)
    );
    println!(
        "  memory at the peak: probe {:.1} MB, node_exporter {:.1} MB: {:.1}× less (target ≥ {RATIO_TARGET:.0}×: {})",
        mb(figures.probe_peak_kb()),
        mb(figures.exporter_peak_kb()),
        figures.memory_ratio(),
        verdict(figures.memory_ratio() >= RATIO_TARGET)
    );
    println!(
        "  change on disk (rewritten in place) → sample on the socket: median {:.1} ms, max {:.1} ms over {CHANGES} changes × {CLIENTS} clients (target ≤ {:.0} ms: {})",
        figures.median_latency_ms(),
        figures.max_latency_ms(),
        Figures::latency_target_ms(),
        verdict(figures.max_latency_ms() <= Figures::latency_target_ms())
    );
    figures.meets_targets()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_chunked_and_sized_bodies_and_keeps_the_connection() {
        let mut two: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
            5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n\
            HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
        assert_eq!(read_response(&mut two).await.unwrap(), b"hello, world");
        assert_eq!(read_response(&mut two).await.unwrap(), b"abc");
        assert!(two.is_empty());
    }

    #[tokio::test]
    async fn refuses_a_response_that_is_not_a_200() {
        let mut response: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n";
        assert!(read_response(&mut response).await.is_err());
    }

    #[test]
    fn a_thread_that_ended_never_lowers_the_cpu_figure() {
        let cpu = |schedstat_s, stat_s, ended| CpuUse {
            schedstat_s,
            stat_s,
            threads: 3,
            ended,
        };
        assert_eq!(cpu(Some(0.05), 0.04, 0).seconds(), 0.05);
        assert_eq!(cpu(Some(0.05), 0.07, 1).seconds(), 0.07);
        assert_eq!(cpu(Some(0.05), 0.04, 1).seconds(), 0.05);
        assert_eq!(cpu(None, 0.04, 0).seconds(), 0.04);
    }
}
