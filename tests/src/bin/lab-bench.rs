//! `./lab bench`: the lab's performance figures, measured in real headless Chromium against
//! the real probe serving the release site.
//!
//! - site routes (`lab_tests::bench::site`): for a text route (`/verbs`) and each view route
//!   (`/qp`, `/roce`, `/dcqcn`, `/flows`, `/live`), median of fresh-profile loads: the gzip
//!   bytes of everything the page downloads until it is idle, the time to first contentful
//!   paint, the time until it is ready for input (the marks `lab-first-route` and, on a view
//!   route, `lab-view-ready`) and the cumulative layout shift; and the same bytes and paint
//!   for the anchor, a plain static HTML page of the `/verbs` text with the site's CSS and
//!   no scripts, served by the same probe in the same run;
//! - search: the work of one keystroke in the search box, from the input event to the
//!   rendered results (the app's `lab-search` performance measure), over typed queries;
//! - packet flows: the work of each animation frame while a flow plays (the app's
//!   `lab-flows-frame` measure), over whole scenarios played at normal speed;
//! - capture decode: frames/s and MB/s over a generated capture of a million RoCE v2
//!   frames, natively and on the /roce page (see `lab_tests::bench::decode`);
//! - DCQCN: simulated events per second natively and in the page's worker, the fluid
//!   model's solve time for 16 flows over 100 ms, and the work of one slider drag;
//! - netsim: the fabric simulator's events per second beside the DCQCN packet model's on
//!   the same scenarios, natively and in its worker, and a 1,024-GPU ring all-reduce.
//!
//! A missed target is printed (`MISSES TARGET`); the exit status is non-zero only when a
//! figure could not be measured. `lab-bench SECTION…` runs only the named sections (see
//! `SECTIONS`).

use std::process::ExitCode;

use lab_tests::site::Site;

/// Sections by name; `./lab bench dcqcn` runs one, no name runs them all.
const SECTIONS: &[&str] = &["site", "decode", "dcqcn", "netsim", "probe"];

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
    if wants("site") || wants("decode") || wants("dcqcn") || wants("netsim") {
        let site = Site::start();
        if wants("site") && !lab_tests::bench::site::run(&site).await {
            return ExitCode::FAILURE;
        }
        if wants("decode") && !lab_tests::bench::decode::run(&site).await {
            return ExitCode::FAILURE;
        }
        if wants("dcqcn") {
            lab_tests::bench::dcqcn::report(&site).await;
        }
        if wants("netsim") {
            lab_tests::bench::netsim::report(&site).await;
        }
    }
    if wants("probe") {
        lab_tests::bench::probe::run().await;
    }
    ExitCode::SUCCESS
}
