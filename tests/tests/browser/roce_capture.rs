//! A big capture on the RoCE v2 page in real Chromium: a generated pcap of some tens of
//! MB opened by the file input shows a progress bar while it decodes, ends with every
//! frame counted, keeps the page responsive throughout (no long gap between animation
//! frames), and lists only the rows in view, reaching the last frame by scrolling.

use lab_tests::{browser::Browser, capture_gen, site::Site};
use serde_json::Value;

/// About 37 MB of pcap.
const FRAMES: usize = 250_000;
/// The longest the page may go without painting while it reads and decodes.
const MAX_FRAME_GAP_MS: f64 = 250.0;

#[tokio::test]
async fn a_big_capture_decodes_with_progress_and_stays_responsive() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("big.pcap");
    let file = capture_gen::roce_pcap(FRAMES);
    assert!(file.len() > 30_000_000, "{} bytes", file.len());
    std::fs::write(&path, &file).expect("the capture is written");
    drop(file);

    let site = Site::start();
    let browser = Browser::open(&site, "/roce").await;
    // Watch the gaps between animation frames from now on.
    browser
        .eval(
            "window.__gap = { last: performance.now(), max: 0, frames: 0 };
             const tick = t => { const g = window.__gap; if (t - g.last > 100) { (g.long = g.long || []).push([Math.round(g.last), Math.round(t - g.last)]); } g.max = Math.max(g.max, t - g.last); g.last = t; g.frames++; requestAnimationFrame(tick); };
             requestAnimationFrame(tick); return null",
        )
        .await;
    browser
        .find("#cap-file")
        .await
        .send_keys(&path.display().to_string())
        .await
        .expect("file chosen");
    let progress = browser
        .wait_until(
            "const p = document.querySelector('#cap-progress'); return p && Number(p.value) > 0 ? document.querySelector('.capture-progress label').textContent : null",
            "the progress bar to move",
        )
        .await;
    assert!(
        progress
            .as_str()
            .is_some_and(|t| t.contains("Decoding big.pcap")),
        "{progress}"
    );
    let count = browser
        .wait_until(
            "const l = document.querySelector('.capture-list'); return l ? Number(l.dataset.frames) : null",
            "the packet list",
        )
        .await;
    assert_eq!(count, Value::from(FRAMES));
    let caption = browser.find(".capture-list caption").await;
    assert_eq!(
        caption.text().await.expect("caption"),
        format!("{FRAMES} of {FRAMES} frames")
    );
    let gap = browser.eval("return window.__gap").await;
    let marks = browser.eval("return performance.getEntries().filter(e => e.name.startsWith('lab-capture')).map(e => [e.name, Math.round(e.startTime), Math.round(e.duration)])").await;
    println!("long gaps [start, ms]: {} marks: {marks}", gap["long"]);
    let max_gap = gap["max"].as_f64().expect("a gap");
    println!("decoding {FRAMES} frames: longest gap between animation frames {max_gap:.0} ms, {} frames painted", gap["frames"]);
    assert!(
        max_gap < MAX_FRAME_GAP_MS,
        "the page froze for {max_gap:.0} ms"
    );
    let measured = browser
        .eval("const m = performance.getEntriesByName('lab-capture-decode'); return m.length ? m[m.length - 1].duration : null")
        .await;
    assert!(measured.as_f64().is_some_and(|ms| ms > 0.0), "{measured}");

    // Only the rows in view are in the DOM; scrolling to the end draws the last frame.
    let rows = browser
        .eval("return document.querySelectorAll('.capture-row').length")
        .await;
    assert!(
        rows.as_u64().is_some_and(|n| n > 0 && n < 100),
        "{rows} rows drawn"
    );
    browser
        .eval("const w = document.querySelector('.capture-list-wrap'); w.scrollTop = w.scrollHeight; return null")
        .await;
    browser
        .wait_until(
            &format!("return !!document.querySelector('.capture-row[data-frame=\"{FRAMES}\"]')"),
            "the last frame's row after scrolling",
        )
        .await;
    browser
        .assert_no_console_errors("/roce with a big capture")
        .await;
    browser.close().await;
}
