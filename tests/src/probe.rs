//! The real `native-probe serve` as the tests and the bench run it: spawned on the address a
//! test chooses, ready once it prints the URL it serves on, its stderr kept for the message
//! of a failure, stopped when dropped. native-probe's own integration tests use it too, with
//! the binary cargo built for them.

use std::{
    io::{BufRead, BufReader, Read},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, ChildStdout, Command, ExitStatus, Stdio},
    sync::{
        atomic::{AtomicBool, Ordering},
        mpsc, Arc, Mutex,
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use rustix::process::{kill_process, Pid, Signal};
use tempfile::TempDir;

/// What `serve` prints first, before the URL.
const URL_LINE: &str = "Serving rdma-lab at ";
/// How long a probe may take to print its URL.
const START: Duration = Duration::from_secs(20);
/// How long a stopped probe may take to exit before it is killed.
const STOP: Duration = Duration::from_secs(2);
/// The one page of [`FixtureSite`]'s site.
pub const INDEX: &str = "<!DOCTYPE html><title>lab</title>";

/// The release probe the browser tests and the bench run: `LAB_PROBE`, or the one `./lab`
/// copies to `target/release/native-probe`.
pub fn release_binary() -> PathBuf {
    std::env::var_os("LAB_PROBE")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("target/release/native-probe"))
}

/// A child's stderr, read to its end on a thread (so the child never blocks on a full pipe)
/// and kept for the message of a failing test.
pub struct KeptStderr {
    said: Arc<Mutex<Vec<u8>>>,
    /// The thread reading it, which ends with the child.
    reader: Option<JoinHandle<()>>,
}

impl KeptStderr {
    /// Takes `child`'s piped stderr and starts reading it.
    pub fn of(child: &mut Child) -> KeptStderr {
        let said = Arc::new(Mutex::new(Vec::new()));
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let kept = Arc::clone(&said);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk) {
                kept.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        KeptStderr {
            said,
            reader: Some(reader),
        }
    }

    /// What it has said so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.said.lock().unwrap()).into_owned()
    }

    /// What it has said so far, taken, so that it is not shown twice.
    pub fn take(&self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut *self.said.lock().unwrap())).into_owned()
    }

    /// Waits for the last of it: only once the child has exited, or it would wait for ever.
    pub fn finish(&mut self) {
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// `child`'s exit status, if it exits within `limit`.
pub fn exited_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What becomes of the probe's standard output once it has printed its URL.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AfterUrl {
    /// Read on, for [`Probe::rest_of_stdout`]; the probe never blocks on a full pipe.
    Read,
    /// Closed, as `native-probe serve | head -1` leaves once it has the URL.
    Close,
}

/// A running `native-probe serve`; stopped when dropped.
pub struct Probe {
    child: Child,
    base_url: String,
    addr: SocketAddr,
    /// What stdout said after the URL line, chunk by chunk; closed at its end.
    stdout: mpsc::Receiver<Vec<u8>>,
    stderr: KeptStderr,
}

impl Probe {
    /// Runs `command`, a `native-probe serve` with a `--listen` address, and waits until the
    /// probe prints the URL it serves on (the first line of its stdout).
    pub fn spawn(command: Command) -> Probe {
        Probe::spawn_and(command, AfterUrl::Read)
    }

    /// [`Probe::spawn`], then closes the probe's stdout, as `native-probe serve | head -1`
    /// does once it has the URL.
    pub fn spawn_then_close_stdout(command: Command) -> Probe {
        Probe::spawn_and(command, AfterUrl::Close)
    }

    fn spawn_and(mut command: Command, after: AfterUrl) -> Probe {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
        let stderr = KeptStderr::of(&mut child);
        let (first_line, first) = mpsc::channel();
        let (rest, stdout) = mpsc::channel();
        let pipe = child.stdout.take().expect("stdout is piped");
        std::thread::spawn(move || read_stdout(pipe, after, first_line, rest));

        let mut probe = Probe {
            child,
            base_url: String::new(),
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            stdout,
            stderr,
        };
        let line = match first.recv_timeout(START) {
            Ok(line) => line,
            Err(mpsc::RecvTimeoutError::Timeout) => probe.fail(&format!(
                "did not print its URL within {} s",
                START.as_secs()
            )),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = probe.exited_within(STOP);
                probe.fail(&format!(
                    "closed its stdout without a URL (exit: {status:?})"
                ))
            }
        };
        let Some((base_url, bound)) = parse_url_line(&line) else {
            probe.fail(&format!("printed {line:?} first, not its URL"))
        };
        probe.base_url = base_url;
        // A probe on every address is reached on loopback.
        probe.addr = if bound.ip().is_unspecified() {
            SocketAddr::from(([127, 0, 0, 1], bound.port()))
        } else {
            bound
        };
        probe
    }

    fn fail(&mut self, what: &str) -> ! {
        self.stderr_complete();
        // Taken, so that `drop` does not print it again.
        panic!(
            "native-probe serve {what}; its stderr:\n{}",
            self.stderr.take()
        )
    }

    /// Once the probe has exited, waits for the last of its stderr.
    fn stderr_complete(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            self.stderr.finish();
        }
    }

    /// The URL it printed, without the trailing `/`: `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// `path` on the probe's URL.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Where to connect: the bound address, on 127.0.0.1 when it listens on every address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `signal` to the probe, which must still be running.
    pub fn signal(&mut self, signal: Signal) {
        assert!(
            matches!(self.child.try_wait(), Ok(None)),
            "the probe has already exited"
        );
        kill_process(Pid::from_child(&self.child), signal)
            .unwrap_or_else(|e| panic!("cannot send {signal:?} to the probe: {e}"));
    }

    /// Its exit status, if it exits within `limit`.
    pub fn exited_within(&mut self, limit: Duration) -> Option<ExitStatus> {
        exited_within(&mut self.child, limit)
    }

    /// What stdout said after the URL line, to its end: for a probe that has exited (or is
    /// about to, within [`START`]).
    pub fn rest_of_stdout(&mut self) -> String {
        let deadline = Instant::now() + START;
        let mut rest = Vec::new();
        loop {
            match self
                .stdout
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(chunk) => rest.extend(chunk),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    self.fail("kept its stdout open (is it still running?)")
                }
            }
        }
        String::from_utf8_lossy(&rest).into_owned()
    }

    /// What it has written to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.text()
    }
}

impl Drop for Probe {
    /// Stops it as Ctrl-C would, so a demo leaves no temporary copy behind, and kills it if
    /// it has not stopped within [`STOP`]. A failing test is shown what the probe said.
    fn drop(&mut self) {
        // Never a signal to a process already reaped: its id may be another's by now.
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let pid = Pid::from_child(&self.child);
            // CONT after INT: a test may have paused it (`kill -STOP`) to play a hung machine.
            let asked = kill_process(pid, Signal::INT).is_ok();
            let _ = kill_process(pid, Signal::CONT);
            if !(asked && self.exited_within(STOP).is_some()) {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
        if std::thread::panicking() {
            self.stderr_complete();
            let said = self.stderr();
            if !said.is_empty() {
                eprintln!("native-probe serve's stderr:\n{said}");
            }
        }
    }
}

/// Sends the first line of `pipe` to `first_line`, then, as `after` says, the rest chunk
/// by chunk to `rest` or nothing (closing the pipe).
fn read_stdout(
    pipe: ChildStdout,
    after: AfterUrl,
    first_line: mpsc::Sender<String>,
    rest: mpsc::Sender<Vec<u8>>,
) {
    let mut pipe = BufReader::new(pipe);
    let mut line = String::new();
    if !matches!(pipe.read_line(&mut line), Ok(1..)) {
        return;
    }
    let _ = first_line.send(line);
    if after == AfterUrl::Close {
        return;
    }
    loop {
        let chunk = match pipe.fill_buf() {
            Ok([]) | Err(_) => return,
            Ok(chunk) => chunk.to_vec(),
        };
        pipe.consume(chunk.len());
        if rest.send(chunk).is_err() {
            return;
        }
    }
}

/// `Serving rdma-lab at http://ADDR/ (…)` → (`http://ADDR`, ADDR).
fn parse_url_line(line: &str) -> Option<(String, SocketAddr)> {
    let url = line
        .strip_prefix(URL_LINE)?
        .split_whitespace()
        .next()?
        .trim_end_matches('/');
    let addr = url.strip_prefix("http://")?.parse().ok()?;
    Some((url.to_string(), addr))
}

/// A scratch folder for a probe with no real site or NIC: a one-page site ([`INDEX`]) and
/// the recorded fixture (`native-probe/tests/fixtures`), in place (read only) or as a
/// private copy a test may change. Removed when dropped.
pub struct FixtureSite {
    dir: TempDir,
    fixture: PathBuf,
}

impl FixtureSite {
    /// A site over the fixture in place.
    pub fn in_place(name: &str) -> FixtureSite {
        let dir = scratch_dir(name);
        FixtureSite {
            dir,
            fixture: fixture_dir(),
        }
    }

    /// A site over a private copy of the fixture (its symlinks kept).
    pub fn copied(name: &str) -> FixtureSite {
        let dir = scratch_dir(name);
        let fixture = dir.path().join("fixture");
        copy_tree(&fixture_dir(), &fixture).expect("the fixture copies to a temporary folder");
        FixtureSite { dir, fixture }
    }

    /// A site over a tree with every port counter file the mlx4 and mlx5 drivers expose
    /// ([`crate::sysfs_tree`]), with an empty debugfs and procfs.
    pub fn every_driver_counter(name: &str) -> FixtureSite {
        let dir = scratch_dir(name);
        let fixture = dir.path().join("drivers");
        crate::sysfs_tree::every_driver_counter(&fixture.join("sysfs"))
            .expect("the driver tree writes to a temporary folder");
        for empty in ["debugfs", "procfs"] {
            std::fs::create_dir_all(fixture.join(empty)).expect("a temporary folder");
        }
        FixtureSite { dir, fixture }
    }

    /// The scratch folder, for a test's own files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The site folder (`--ui`).
    pub fn site(&self) -> PathBuf {
        self.dir.path().join("site")
    }

    /// The sysfs tree the probe reads (`--sysfs-root`).
    pub fn sysfs(&self) -> PathBuf {
        self.fixture.join("sysfs")
    }

    /// The procfs tree of the recorded host (`--procfs-root`, for the doctor's checks).
    pub fn procfs(&self) -> PathBuf {
        self.fixture.join("procfs")
    }

    /// The debugfs tree the probe reads (`--debugfs-root`).
    pub fn debugfs(&self) -> PathBuf {
        self.fixture.join("debugfs")
    }

    /// `binary serve --listen LISTEN` over the site and the fixture, then `extra`.
    pub fn serve(&self, binary: &Path, listen: &str, extra: &[&str]) -> Command {
        let mut command = Command::new(binary);
        command
            .args(["serve", "--listen", listen, "--ui"])
            .arg(self.site())
            .arg("--sysfs-root")
            .arg(self.sysfs())
            .arg("--debugfs-root")
            .arg(self.debugfs())
            .args(extra);
        command
    }
}

fn fixture_dir() -> PathBuf {
    crate::repo_root().join("native-probe/tests/fixtures")
}

/// A fresh folder with `site/index.html`, named for the test; removed when dropped.
fn scratch_dir(name: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("rdma-lab-{name}-"))
        .tempdir()
        .expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("site")).expect("a temporary site folder");
    std::fs::write(dir.path().join("site/index.html"), INDEX).expect("a temporary index.html");
    dir
}

/// Sets the counter in `file` to `value` the way a running probe may see it change: in place
/// (the probe holds the file open and reads it with `pread`, so a rename would go unseen), and
/// without truncating first. `fs::write` empties the file before it writes, and a probe that
/// reads in that moment sees no value and shows a gap, which made tests fail now and then.
/// Counters only grow, so the new text covers the old; a smaller value is cut to length after.
pub fn set_counter(file: &Path, value: u64) {
    use std::os::unix::fs::FileExt;
    let text = format!("{value}\n");
    let written = std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .and_then(|f| {
            f.write_all_at(text.as_bytes(), 0)
                .and_then(|()| f.set_len(text.len() as u64))
        });
    written.unwrap_or_else(|e| panic!("cannot set the counter {}: {e}", file.display()));
}

/// Adds `by` to the counter in `file` (see [`set_counter`]) and returns the new value.
pub fn add_to_counter(file: &Path, by: u64) -> u64 {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("cannot read the counter {}: {e}", file.display()));
    let now: u64 = text
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{}: {text:?} is not a counter", file.display()));
    set_counter(file, now + by);
    now + by
}

/// Traffic on a recorded tree: the counters in `files` grow by a different amount every
/// 100 ms, so every new sample has new rates, until this is dropped.
pub struct Traffic {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Traffic {
    pub fn start(files: Vec<PathBuf>) -> Traffic {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut step = 1u64;
            while !stopping.load(Ordering::Relaxed) {
                for file in &files {
                    add_to_counter(file, step * 1_000);
                }
                step = step % 17 + 1;
                // The pause is the scenario: counters that climb over time, as traffic
                // makes them.
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        Traffic {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Traffic {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Copies a tree, keeping its symlinks as links (the fixture's are relative).
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for the probe: `sh -c SCRIPT`.
    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_probe_that_exits_without_a_url_fails_with_its_stderr() {
        let failed = std::panic::catch_unwind(|| {
            Probe::spawn(shell("echo 'error: --listen: no such address' >&2; exit 2"));
        });
        let message = *failed
            .expect_err("no URL, no probe")
            .downcast::<String>()
            .unwrap();
        assert!(message.contains("without a URL"), "{message}");
        assert!(
            message.contains("error: --listen: no such address"),
            "{message}"
        );
    }

    #[test]
    fn reads_the_url_keeps_the_rest_of_stdout_and_stops_on_drop() {
        // The trap comes before the URL line: the test signals as soon as it reads that
        // line, and a SIGINT before the trap exists would end sh silently or not at all.
        let mut probe = Probe::spawn(shell(
            "trap 'echo stopped; exit 0' INT; \
             echo 'Serving rdma-lab at http://0.0.0.0:4321/ (press Ctrl-C to stop)'; \
             while :; do sleep 0.05; done",
        ));
        assert_eq!(probe.base_url(), "http://0.0.0.0:4321");
        assert_eq!(probe.url("/ws"), "http://0.0.0.0:4321/ws");
        assert_eq!(probe.addr(), SocketAddr::from(([127, 0, 0, 1], 4321)));
        assert_eq!(probe.exited_within(Duration::from_millis(100)), None);
        probe.signal(Signal::INT);
        assert!(probe
            .exited_within(STOP)
            .expect("it stops on SIGINT")
            .success());
        assert_eq!(probe.rest_of_stdout(), "stopped\n");

        let pid = {
            let probe = Probe::spawn(shell(
                "echo 'Serving rdma-lab at http://127.0.0.1:9/'; exec sleep 30",
            ));
            probe.pid()
        };
        // Dropped: gone, not left running (a zombie would still have its /proc entry).
        assert!(!Path::new(&format!("/proc/{pid}")).exists());
    }

    #[test]
    fn reads_the_url_line_on_loopback_every_address_and_ipv6() {
        let (url, addr) =
            parse_url_line("Serving rdma-lab at http://127.0.0.1:8080/ (press Ctrl-C to stop)\n")
                .unwrap();
        assert_eq!(url, "http://127.0.0.1:8080");
        assert_eq!(addr, SocketAddr::from(([127, 0, 0, 1], 8080)));
        let (url, addr) = parse_url_line("Serving rdma-lab at http://[::1]:9/\n").unwrap();
        assert_eq!(url, "http://[::1]:9");
        assert!(addr.is_ipv6());
        assert_eq!(addr.port(), 9);
        assert!(parse_url_line("Serving rdma-lab at http://0.0.0.0:1/")
            .unwrap()
            .1
            .ip()
            .is_unspecified());
        assert_eq!(parse_url_line("warning: something\n"), None);
        assert_eq!(parse_url_line("Serving rdma-lab at ftp://x/\n"), None);
    }
}
