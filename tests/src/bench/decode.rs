//! `./lab bench`: RoCE v2 capture decode throughput, natively and in the browser.
//!
//! Both decode the same generated capture ([`crate::capture_gen`]) through the same code:
//! `engine::capture::listing::CaptureDecoder`, which reads each pcap record in place,
//! summarizes the frame (ICRC checked) and, at the end, classifies retransmissions. The
//! capture page runs it a slice at a time between animation frames; here it runs in one
//! go. The browser figure is the app's `lab-capture-decode` measure, from the moment the
//! file is chosen (so reading the file is included) to the complete packet list.

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

/// Prints the decode figures; false when a measurement failed.
pub async fn run(site: &Site) -> bool {
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

    let dir = std::env::temp_dir().join(format!("lab-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let path = dir.join("bench-1m.pcap");
    std::fs::write(&path, &file).expect("the capture is written");
    drop(file);
    let browser = Browser::start().await;
    let (ms, shown, busy_ms, read_ms) =
        open_in_page(&browser, site, &path.display().to_string()).await;
    browser.close().await;
    let _ = std::fs::remove_dir_all(&dir);
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
    /// The native half alone, on a smaller capture: `cargo test --release -p lab-tests
    /// --lib native_decode -- --nocapture` prints its rate.
    #[test]
    fn native_decode() {
        let n = 200_000;
        let file = super::capture_gen::roce_pcap(n);
        let fps = super::native(&file, n);
        println!(
            "{:.2} M frames/s, {:.1} MB",
            fps / 1e6,
            file.len() as f64 / 1e6
        );
    }
}
