//! `./lab bench`: the lab's performance figures, measured in real headless Chromium against
//! the real probe serving the release site.
//!
//! - first visit: every byte the browser downloads for `/`, raw and gzip-compressed;
//! - first render: time from navigation start to the first rendered route (the app's
//!   `lab-first-route` performance mark), median of fresh-profile loads;
//! - search: the work of one keystroke in the search box, from the input event to the
//!   rendered results (the app's `lab-search` performance measure), over typed queries;
//! - packet flows: the work of each animation frame while a flow plays (the app's
//!   `lab-flows-frame` measure), over whole scenarios played at normal speed;
//! - capture decode: frames/s and MB/s over a generated capture of a million RoCE v2
//!   frames, natively and on the /roce page (see `lab_tests::bench::decode`);
//! - DCQCN: simulated events per second natively and in the page's worker, the fluid
//!   model's solve time for 16 flows over 100 ms, and the work of one slider drag.
//!
//! `lab-bench SECTION…` runs only the named sections (see `SECTIONS`).

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use flate2::{write::GzEncoder, Compression};
use lab_tests::{
    bench::{median, verdict},
    browser::Browser,
    site::Site,
};
use serde::Deserialize;

const FIRST_VISIT_GZIP_TARGET: usize = 300 * 1000;
const FIRST_RENDER_TARGET_MS: f64 = 300.0;
const LOADS: usize = 7;
const KEYSTROKE_TARGET_MS: f64 = 16.0;
const FRAME_TARGET_MS: f64 = 16.0;
/// Played start to end: the RDMA send, the TCP path and the largest stage (NCCL on a cluster).
const PLAYED_FLOWS: &[&str] = &["post-send", "tcp-socket", "nccl-allreduce"];
/// Typed one character at a time, as a learner would.
const QUERIES: &[&str] = &[
    "DCQCN rate",
    "GID index",
    "PFC headroom",
    "NCCL_IB_TIMEOUT",
    "memlock",
];

#[derive(Debug, Deserialize)]
struct Download {
    name: String,
    #[serde(rename = "transferSize")]
    transfer_size: f64,
}

#[derive(Debug, Deserialize)]
struct Visit {
    first_route_ms: Option<f64>,
    downloads: Vec<Download>,
}

const MEASURE: &str = r#"
    const nav = performance.getEntriesByType('navigation')[0];
    const resources = performance.getEntriesByType('resource');
    const mark = performance.getEntriesByName('lab-first-route')[0];
    return {
        first_route_ms: mark ? mark.startTime : null,
        downloads: [nav, ...resources].map(e => ({ name: e.name, transferSize: e.transferSize })),
    };
"#;

fn gzip_len(bytes: &[u8]) -> usize {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(bytes)
        .expect("writing to memory cannot fail");
    encoder
        .finish()
        .expect("writing to memory cannot fail")
        .len()
}

/// The file in `dist/` a URL of the site was served from.
fn served_file(dist: &Path, url: &str) -> Option<PathBuf> {
    let path = url::Url::parse(url)
        .ok()?
        .path()
        .trim_start_matches('/')
        .to_string();
    let file = if path.is_empty() || !path.contains('.') {
        dist.join("index.html")
    } else {
        dist.join(path)
    };
    file.is_file().then_some(file)
}

async fn fresh_visit(site: &Site) -> Visit {
    let browser = Browser::start().await;
    browser.goto(&site.url("/")).await;
    browser.wait_for_text("main h1", "Overview").await;
    // Let late resources (icons) finish so the byte count is complete.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let visit: Visit =
        serde_json::from_value(browser.eval(MEASURE).await).expect("the page reports its timings");
    browser.close().await;
    visit
}

/// Plays each flow to its end and reads the app's per-frame measures.
async fn flow_frames(site: &Site) -> Vec<f64> {
    let browser = Browser::start().await;
    let mut frames = Vec::new();
    for id in PLAYED_FLOWS {
        browser
            .goto(&site.url(&format!("/flows?scenario={id}")))
            .await;
        browser.find("svg.flow-stage").await;
        browser
            .eval("performance.clearMeasures('lab-flows-frame')")
            .await;
        browser
            .find(".flow-play")
            .await
            .click()
            .await
            .expect("play clicks");
        browser
            .wait_until(
                "return document.querySelector('section.flows').dataset.done === 'true'",
                &format!("{id} to play to its end"),
            )
            .await;
        let durations = browser
            .eval("return performance.getEntriesByName('lab-flows-frame').map(e => e.duration)")
            .await;
        let durations: Vec<f64> = serde_json::from_value(durations).expect("a list of durations");
        frames.extend(durations);
    }
    browser.close().await;
    frames
}

/// Types each query into the search box and reads the app's per-keystroke measures.
async fn search_keystrokes(site: &Site) -> Vec<f64> {
    let browser = Browser::start().await;
    browser.goto(&site.url("/")).await;
    browser.wait_for_text("main h1", "Overview").await;
    let input = browser.find(".search-input").await;
    for query in QUERIES {
        input.clear().await.expect("the search box clears");
        input.send_keys(query).await.expect("typing works");
        browser.find("#search-results").await;
    }
    let durations = browser
        .eval("return performance.getEntriesByName('lab-search').map(e => e.duration)")
        .await;
    browser.close().await;
    serde_json::from_value(durations).expect("a list of durations")
}

/// The site's own figures: first visit, first render, search and packet-flow frames.
async fn site_figures(site: &Site) -> ExitCode {
    let dist = lab_tests::repo_root().join("dist");

    let mut visits = Vec::new();
    for _ in 0..LOADS {
        visits.push(fresh_visit(site).await);
    }

    println!("First visit to / (what a fresh browser downloads):");
    let mut total_raw = 0;
    let mut total_gzip = 0;
    let mut total_transfer = 0.0;
    for download in &visits[0].downloads {
        let Some(file) = served_file(&dist, &download.name) else {
            println!("  {:<48} (not a file of dist/, skipped)", download.name);
            continue;
        };
        let bytes = std::fs::read(&file).expect("a dist file is readable");
        let gzip = gzip_len(&bytes);
        total_raw += bytes.len();
        total_gzip += gzip;
        total_transfer += download.transfer_size;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("  {name:<48} {:>9} B raw {:>9} B gzip", bytes.len(), gzip);
    }
    println!(
        "  total: {:.1} KB raw, {:.1} KB gzip, {:.1} KB as transferred by the probe (target ≤ {} KB gzip: {})",
        total_raw as f64 / 1000.0,
        total_gzip as f64 / 1000.0,
        total_transfer / 1000.0,
        FIRST_VISIT_GZIP_TARGET / 1000,
        verdict(total_gzip <= FIRST_VISIT_GZIP_TARGET)
    );

    let renders: Vec<f64> = visits.iter().filter_map(|v| v.first_route_ms).collect();
    if renders.len() != visits.len() {
        eprintln!("lab-bench: error: some loads never set the lab-first-route mark");
        return ExitCode::FAILURE;
    }
    let runs = renders
        .iter()
        .map(|ms| format!("{ms:.0}"))
        .collect::<Vec<_>>()
        .join(", ");
    let middle = median(&renders);
    // Keystrokes that arrive within one frame share a render, and so one measure.
    let keystrokes = search_keystrokes(site).await;
    let typed: usize = QUERIES.iter().map(|q| q.chars().count()).sum();
    if keystrokes.len() < QUERIES.len() {
        eprintln!(
            "lab-bench: error: {typed} keystrokes typed but only {} measured",
            keystrokes.len()
        );
        return ExitCode::FAILURE;
    }
    let slowest = keystrokes.iter().copied().fold(0.0_f64, f64::max);
    println!(
        "Search: {typed} keystrokes typed, {} renders measured over the whole corpus, median {:.2} ms, slowest {slowest:.2} ms per keystroke (target ≤ {KEYSTROKE_TARGET_MS:.0} ms: {})",
        keystrokes.len(),
        median(&keystrokes),
        verdict(slowest <= KEYSTROKE_TARGET_MS)
    );

    let frames = flow_frames(site).await;
    if frames.is_empty() {
        eprintln!("lab-bench: error: no animation frame of the packet flows was measured");
        return ExitCode::FAILURE;
    }
    let slowest_frame = frames.iter().copied().fold(0.0_f64, f64::max);
    println!(
        "Packet flows: {} animation frames while playing {}, median {:.2} ms, slowest {slowest_frame:.2} ms of work per frame (target ≤ {FRAME_TARGET_MS:.0} ms: {})",
        frames.len(),
        PLAYED_FLOWS.join(", "),
        median(&frames),
        verdict(slowest_frame <= FRAME_TARGET_MS)
    );

    println!(
        "First render: median {middle:.0} ms from navigation start over {LOADS} fresh loads [{runs} ms] (target ≤ {FIRST_RENDER_TARGET_MS:.0} ms: {})",
        verdict(middle <= FIRST_RENDER_TARGET_MS)
    );
    ExitCode::SUCCESS
}

/// Sections by name; `./lab bench dcqcn` runs one, no name runs them all.
const SECTIONS: &[&str] = &["site", "decode", "dcqcn", "probe"];

#[tokio::main]
async fn main() -> ExitCode {
    let asked: Vec<String> = std::env::args().skip(1).collect();
    if let Some(unknown) = asked.iter().find(|a| !SECTIONS.contains(&a.as_str())) {
        eprintln!(
            "lab-bench: error: no section named {unknown:?}; the sections are {}",
            SECTIONS.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let wants = |name: &str| asked.is_empty() || asked.iter().any(|a| a == name);
    // The probe's own figures need neither the site nor a browser.
    if wants("site") || wants("decode") || wants("dcqcn") {
        let site = Site::start();
        if wants("site") && site_figures(&site).await != ExitCode::SUCCESS {
            return ExitCode::FAILURE;
        }
        if wants("decode") && !lab_tests::bench::decode::run(&site).await {
            return ExitCode::FAILURE;
        }
        if wants("dcqcn") {
            lab_tests::bench::dcqcn::report(&site).await;
        }
    }
    if wants("probe") {
        lab_tests::bench::probe::run().await;
    }
    ExitCode::SUCCESS
}
