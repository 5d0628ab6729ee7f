//! `./lab bench`: RoCE v2 capture decode throughput: `native-probe decode` beside
//! tshark, and the packet list natively and in the browser.
//!
//! `native-probe decode` and Debian's tshark (installed when missing) read one generated
//! capture of [`CLI_FRAMES`] frames (the mix of [`crate::capture_gen`], one frame in
//! [`BAD_ICRC_EVERY`] with a corrupted ICRC) as their users run them: the one-line
//! summary (`decode FILE` against `tshark -r FILE`) and JSON (`decode FILE --json`
//! against `tshark -r FILE -T json`), output to /dev/null, best of a few runs each. The
//! probe checks every ICRC; its output is checked once (a line per frame, the corrupted
//! frames and only they flagged).
//!
//! The packet list natively and in the browser decode the same generated capture through
//! the same code:
//! `engine::capture::listing::CaptureDecoder`, which reads each pcap record in place,
//! summarizes the frame (ICRC checked) and, at the end, classifies retransmissions. The
//! capture page runs it a slice at a time between animation frames; here it runs in one
//! go. The browser figure is the app's `lab-capture-decode` measure, from the moment the
//! file is chosen (so reading the file is included) to the complete packet list.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use engine::capture::listing::{decode_capture, packet_row, IcrcStatus};
use engine::capture::pcap::CapturedFrame;

use super::verdict;
use crate::{browser::Browser, capture_gen, site::Site};

/// Frames in the benchmark capture.
pub const FRAMES: usize = 1_000_000;
pub const NATIVE_TARGET_FPS: f64 = 5e6;
/// The browser may be this many times slower than native.
pub const BROWSER_RATIO_TARGET: f64 = 3.0;
const NATIVE_RUNS: usize = 5;
/// Frames put through the full field-by-field dissector, for comparison.
const DISSECTED: usize = 100_000;
/// Frames of the capture `native-probe decode` and tshark read.
pub const CLI_FRAMES: usize = 200_000;
/// One frame in this many has its ICRC corrupted.
pub const BAD_ICRC_EVERY: usize = 1_000;
/// How many times faster than tshark `native-probe decode` should be, in both modes.
pub const CLI_RATIO_TARGET: f64 = 10.0;
const CLI_RUNS: usize = 3;

/// Native decode of `file` (a capture of `frames` frames): the best of a few runs, in
/// frames per second.
pub fn native(file: &[u8], frames: usize) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..NATIVE_RUNS {
        let start = Instant::now();
        let d = decode_capture(file);
        let secs = start.elapsed().as_secs_f64();
        assert_eq!(d.summaries.len(), frames, "every frame decodes");
        assert!(
            d.summaries.iter().all(|s| s.icrc == IcrcStatus::Valid),
            "every generated ICRC verifies"
        );
        best = best.min(secs);
    }
    frames as f64 / best
}

/// The full dissector (every field named, as `native-probe decode --json` prints and the
/// detail pane shows) over the first frames, in frames per second.
fn dissected(frames: &[CapturedFrame]) -> f64 {
    let start = Instant::now();
    let n = frames
        .iter()
        .take(DISSECTED)
        .enumerate()
        .filter(|(i, f)| packet_row(i + 1, f).icrc == IcrcStatus::Valid)
        .count();
    n as f64 / start.elapsed().as_secs_f64()
}

fn probe_binary() -> PathBuf {
    std::env::var_os("LAB_PROBE")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("target/release/native-probe"))
}

/// tshark's version line, installing Debian's package first when it is missing; `None`
/// when it cannot be had.
fn tshark_version() -> Option<String> {
    let version = || {
        let out = Command::new("tshark").arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        out.status
            .success()
            .then(|| text.lines().next().unwrap_or("tshark").to_string())
    };
    if let Some(v) = version() {
        return Some(v);
    }
    println!("  installing tshark (apt-get install tshark)");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let _ = apt(&["update", "-qq"]);
    if !apt(&["install", "-y", "-qq", "--no-install-recommends", "tshark"]) {
        eprintln!("lab-bench: error: tshark is missing and apt-get could not install it");
        return None;
    }
    version()
}

/// The best wall time of `runs` runs of `program args`, its output thrown away.
fn best_time(program: &Path, args: &[&OsStr], runs: usize) -> Option<f64> {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        let status = Command::new(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?;
        let secs = start.elapsed().as_secs_f64();
        if !status.success() {
            eprintln!("lab-bench: error: {} {args:?}: {status}", program.display());
            return None;
        }
        best = best.min(secs);
    }
    Some(best)
}

/// The probe's summary of `file` has a line per frame and flags exactly `bad` ICRCs.
fn probe_output_checks_out(file: &Path, frames: usize, bad: usize) -> bool {
    let out = Command::new(probe_binary())
        .arg("decode")
        .arg(file)
        .output()
        .expect("native-probe decode runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines = text.lines().count();
    let flagged = text.lines().filter(|l| l.contains(" ICRC BAD ")).count();
    let ok = text.lines().filter(|l| l.contains(" ICRC ok ")).count();
    if lines != frames || flagged != bad || ok != frames - bad {
        eprintln!(
            "lab-bench: error: native-probe decode printed {lines} lines, {flagged} bad ICRCs and {ok} good ones; expected {frames}, {bad} and {}",
            frames - bad
        );
        return false;
    }
    true
}

/// `native-probe decode` beside tshark on one capture; false when a figure is missing.
pub fn cli_vs_tshark() -> bool {
    let Some(tshark) = tshark_version() else {
        return false;
    };
    let mut frames = capture_gen::roce_frames(CLI_FRAMES);
    let bad = capture_gen::with_bad_icrcs(&mut frames, BAD_ICRC_EVERY);
    let bytes = engine::capture::pcap::write_pcap(&frames).expect("pcap writes");
    drop(frames);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("decode.pcap");
    std::fs::write(&file, &bytes).expect("the capture is written");
    println!(
        "native-probe decode beside {tshark}: {CLI_FRAMES} RoCE v2 frames ({:.1} MB pcap, IPv4 and IPv6, {bad} bad ICRCs), output to /dev/null, best of {CLI_RUNS}",
        bytes.len() as f64 / 1e6
    );
    let checked = probe_output_checks_out(&file, CLI_FRAMES, bad);
    let probe = probe_binary();
    let tshark_bin = PathBuf::from("tshark");
    let f = file.as_os_str();
    let decode = OsStr::new("decode");
    let (r, t, json) = (OsStr::new("-r"), OsStr::new("-T"), OsStr::new("json"));
    let mut measured = checked;
    for (mode, ours, theirs) in [
        ("summary", vec![decode, f], vec![r, f]),
        (
            "JSON",
            vec![decode, f, OsStr::new("--json")],
            vec![r, f, t, json],
        ),
    ] {
        let (Some(a), Some(b)) = (
            best_time(&probe, &ours, CLI_RUNS),
            best_time(&tshark_bin, &theirs, CLI_RUNS),
        ) else {
            measured = false;
            continue;
        };
        let ratio = b / a;
        println!(
            "  {mode}: native-probe {a:.3} s ({:.2} M frames/s, ICRC checked), tshark {b:.3} s: {ratio:.1}× tshark (target ≥ {CLI_RATIO_TARGET:.0}×: {})",
            CLI_FRAMES as f64 / a / 1e6,
            verdict(ratio >= CLI_RATIO_TARGET)
        );
    }
    measured
}

/// Opens `path` on the capture page by its file input and waits for the packet list;
/// returns the app's decode measure in milliseconds, the frame count it shows, the
/// milliseconds the page spent decoding (without the turns it gave the event loop), and
/// the milliseconds until the first part of the file was in memory.
pub async fn open_in_page(browser: &Browser, site: &Site, path: &str) -> (f64, u64, f64, f64) {
    browser.goto(&site.url("/roce")).await;
    browser.wait_for_text("main h1", "RoCE v2 packets").await;
    browser
        .eval("performance.clearMeasures(); return null")
        .await;
    browser
        .find("#cap-file")
        .await
        .send_keys(path)
        .await
        .expect("the file input takes a path");
    let found = browser
        .wait_until_for(
            "const m = performance.getEntriesByName('lab-capture-decode'); const l = document.querySelector('.capture-list'); \
             const r = performance.getEntriesByName('lab-capture-read'); \
             return m.length && l ? [m[m.length - 1].duration, Number(l.dataset.frames), Number(l.dataset.decodeMs), r.length ? r[r.length - 1].duration : 0] : null",
            "the capture to decode",
            Duration::from_secs(300),
        )
        .await;
    serde_json::from_value(found).expect("a duration, a count and two durations")
}

/// Frames of the ibdump-style capture: the InfiniBand sample's packets, repeated.
pub const ERF_FRAMES: usize = 100_000;

/// An ibdump-style capture (ERF records of native InfiniBand packets, mostly 256-byte
/// MADs): the native packet list's rate, and `native-probe decode` beside tshark. No
/// target: the figures say what reading ibdump's files costs next to RoCE's fast path.
fn erf_capture() -> bool {
    let sample = match engine::capture::ib_sample::frames() {
        Ok(frames) => frames,
        Err(e) => {
            eprintln!("lab-bench: error: the InfiniBand sample: {e}");
            return false;
        }
    };
    let frames: Vec<CapturedFrame> = sample.iter().cycle().take(ERF_FRAMES).cloned().collect();
    let bytes = engine::capture::pcap::write_pcap(&frames).expect("pcap writes");
    let fps = frames.len() as f64 / {
        let start = Instant::now();
        let d = decode_capture(&bytes);
        assert_eq!(d.summaries.len(), ERF_FRAMES, "every frame decodes");
        start.elapsed().as_secs_f64()
    };
    println!(
        "ibdump-style capture: {ERF_FRAMES} InfiniBand packets in ERF records (SMP, SA, CM and PerfMgt MADs, RC SEND and ACK; {:.1} MB pcap)",
        bytes.len() as f64 / 1e6
    );
    println!(
        "  native packet list (ICRC and VCRC checked, every MAD dissected): {:.2} M frames/s",
        fps / 1e6
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("erf.pcap");
    std::fs::write(&file, &bytes).expect("the capture is written");
    let f = file.as_os_str();
    let (Some(a), Some(b)) = (
        best_time(&probe_binary(), &[OsStr::new("decode"), f], 1),
        best_time(Path::new("tshark"), &[OsStr::new("-r"), f], 1),
    ) else {
        return false;
    };
    println!(
        "  summary: native-probe {a:.3} s ({:.2} M frames/s), tshark {b:.3} s: {:.1}× tshark",
        ERF_FRAMES as f64 / a / 1e6,
        b / a
    );
    true
}

/// Prints the decode figures; false when a measurement failed.
pub async fn run(site: &Site) -> bool {
    if !cli_vs_tshark() || !erf_capture() {
        return false;
    }
    let start = Instant::now();
    let frames = capture_gen::roce_frames(FRAMES);
    let file = engine::capture::pcap::write_pcap(&frames).expect("pcap writes");
    let mb = file.len() as f64 / 1e6;
    println!(
        "Capture decode: {FRAMES} RoCE v2 frames (WRITE FIRST/MIDDLE/LAST, SEND, ACK, READ, CNP; IPv4 and IPv6), {mb:.1} MB pcap, generated in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let fps = native(&file, FRAMES);
    let secs = FRAMES as f64 / fps;
    println!(
        "  native: {:.2} M frames/s, {:.0} MB/s with ICRC checking (best of {NATIVE_RUNS}; target ≥ {:.0} M frames/s: {})",
        fps / 1e6,
        mb / secs,
        NATIVE_TARGET_FPS / 1e6,
        verdict(fps >= NATIVE_TARGET_FPS)
    );
    println!(
        "  native, full field-by-field dissection (detail pane, decode --json): {:.2} M frames/s",
        dissected(&frames) / 1e6
    );
    drop(frames);

    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("bench-1m.pcap");
    std::fs::write(&path, &file).expect("the capture is written");
    drop(file);
    let browser = Browser::start().await;
    let (ms, shown, busy_ms, read_ms) =
        open_in_page(&browser, site, &path.display().to_string()).await;
    browser.close().await;
    if shown != FRAMES as u64 {
        eprintln!("lab-bench: error: the page listed {shown} frames of {FRAMES}");
        return false;
    }
    let browser_fps = FRAMES as f64 / (ms / 1e3);
    // Like for like with the native figure, which decodes bytes already in memory: the
    // target is judged on the page's decoding work; the whole wait, file reading included,
    // is printed beside it.
    let decode_fps = FRAMES as f64 / (busy_ms / 1e3);
    let ratio = fps / decode_fps;
    println!(
        "  browser, decoding: {:.2} M frames/s, {:.0} MB/s ({:.2} s of decoding in slices between turns of the event loop); native is {ratio:.1}× faster (target ≤ {BROWSER_RATIO_TARGET:.0}×: {})",
        decode_fps / 1e6,
        mb / (busy_ms / 1e3),
        busy_ms / 1e3,
        verdict(ratio <= BROWSER_RATIO_TARGET)
    );
    println!(
        "  browser, choosing the file to the complete list: {:.2} M frames/s, {:.0} MB/s ({:.2} s), native decoding {:.1}× faster",
        browser_fps / 1e6,
        mb / (ms / 1e3),
        ms / 1e3,
        fps / browser_fps
    );
    println!(
        "  browser, where the {:.2} s went: {:.2} s until the first 32 MB were read (the rest is read while decoding), {:.2} s decoding, {:.2} s waiting for the file and in turns of the event loop (painting the progress bar) and drawing the list",
        ms / 1e3,
        read_ms / 1e3,
        busy_ms / 1e3,
        (ms - read_ms - busy_ms).max(0.0) / 1e3
    );
    true
}

#[cfg(test)]
mod tests {
    use engine::capture::dissect;
    use engine::capture::listing::{decode_capture, summary_from, IcrcStatus};
    use engine::capture::pcap::write_pcap;

    /// The bench's capture, small: the fast path reads every frame as the dissector does,
    /// and flags exactly the corrupted ICRCs.
    #[test]
    fn the_bench_capture_decodes_as_the_dissector_says() {
        let mut frames = crate::capture_gen::roce_frames(2_000);
        let bad = crate::capture_gen::with_bad_icrcs(&mut frames, 100);
        assert_eq!(bad, 20);
        let file = write_pcap(&frames).expect("pcap writes");
        let d = decode_capture(&file);
        assert_eq!(d.summaries.len(), frames.len());
        for (f, s) in frames.iter().zip(&d.summaries) {
            assert_eq!(*s, summary_from(&dissect(&f.data, f.link_type), &f.data));
        }
        let invalid: Vec<usize> = (0..frames.len())
            .filter(|&i| d.summaries[i].icrc == IcrcStatus::Invalid)
            .collect();
        assert_eq!(invalid, (99..2_000).step_by(100).collect::<Vec<_>>());
    }
}
