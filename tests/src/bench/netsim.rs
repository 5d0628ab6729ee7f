//! Fabric simulator figures for `lab-bench` (issue #33): simulated events per second
//! natively, beside the DCQCN packet model on the same single-bottleneck scenarios (each
//! DCQCN scenario becomes the same dumbbell in `engine::netsim`), the same in Chromium in
//! the simulator's worker, each fabric lab case as its page runs it beside the same
//! scenarios natively, and the 1,024-GPU rail-optimized ring all-reduce end to end.

use std::time::Instant;

use engine::dcqcn;
use engine::netsim::{self, Scenario};
use serde_json::Value;

use super::{median, verdict};
use crate::{browser::Browser, site::Site};

/// The scenarios both models run.
const SHARED: [&str; 2] = ["two-flow", "incast-16"];
/// The targets: native netsim at least the DCQCN model's events/s; wasm at least
/// half of native.
const NATIVE_RATIO_TARGET: f64 = 1.0;
const WASM_RATIO_TARGET: f64 = 0.5;

fn shared_scenarios() -> Vec<(dcqcn::Scenario, Scenario)> {
    SHARED
        .iter()
        .map(|name| {
            let d = dcqcn::named_scenario(name).expect("a named DCQCN scenario");
            let n = Scenario::from_dcqcn(&d).expect("a dumbbell");
            (d, n)
        })
        .collect()
}

/// Events per second of (netsim, the DCQCN packet model) over the shared scenarios, from the
/// median of `runs` timings of each model, the two interleaved so drift hits both alike.
pub fn native_rates(runs: usize) -> (f64, f64) {
    let scenarios = shared_scenarios();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        let mut events = 0;
        for (_, n) in &scenarios {
            events += netsim::simulate(n, &netsim::Limits::default())
                .expect("runs")
                .events;
        }
        ours.push(events as f64 / started.elapsed().as_secs_f64());
        let started = Instant::now();
        let mut events = 0;
        for (d, _) in &scenarios {
            events += dcqcn::simulate_packets(d, &dcqcn::Limits::default())
                .expect("runs")
                .events;
        }
        theirs.push(events as f64 / started.elapsed().as_secs_f64());
    }
    (median(&ours), median(&theirs))
}

/// Events per second of each run in the simulator's worker on a page of the site.
async fn wasm_rates(site: &Site, runs: usize) -> Vec<f64> {
    let scenarios: Vec<Scenario> = shared_scenarios().into_iter().map(|(_, n)| n).collect();
    let json = serde_json::to_string(&scenarios).expect("scenarios encode");
    let browser = Browser::start().await;
    browser.goto(&site.url("/")).await;
    let script = format!(
        "const scenarios = {json}; const total = scenarios.length * {runs}; const results = [];\
         const meta = document.querySelector('meta[name=lab-view][data-view=\"fabric-lab\"]');\
         const w = new Worker('view_worker.js', {{ type: 'module' }}); let next = 0;\
         w.postMessage({{ script: new URL(meta.content, document.baseURI).href, entry: 'serve_worker' }});\
         const send = () => {{ w.postMessage(JSON.stringify({{ run: next, scenario: scenarios[next % scenarios.length] }})); next++; }};\
         w.onerror = e => done({{ error: String(e.message || e) }});\
         w.onmessage = m => {{\
           if (m.data === 'ready') {{ send(); return; }}\
           const r = JSON.parse(m.data);\
           if (r.progress) return;\
           if (!r.result.Ok) {{ done({{ error: JSON.stringify(r.result) }}); return; }}\
           results.push({{ events: r.result.Ok.events, ms: r.solve_ms }});\
           if (results.length === total) {{ w.terminate(); done({{ results }}); }} else send();\
         }};"
    );
    let answer = browser.eval_async(&script).await;
    browser.close().await;
    if let Some(error) = answer.get("error") {
        panic!("the netsim worker failed: {error}");
    }
    answer["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .filter_map(|r: &Value| Some(r["events"].as_f64()? / r["ms"].as_f64()? * 1e3))
                .collect()
        })
        .unwrap_or_default()
}

/// Each fabric lab case as a learner runs it: (case, events/s of both sides in the page's
/// worker, read from the page; events/s of the same two scenarios run natively here).
async fn lab_page_rates(site: &Site) -> Vec<(&'static str, f64, f64)> {
    let browser = Browser::start().await;
    let mut rates = Vec::new();
    for case in netsim::CASES.iter() {
        browser
            .visit(site, &format!("/fabric-lab?case={}", case.id))
            .await;
        let sides = browser
            .wait_until_for(
                "const v = document.querySelector('.fabric-view'); \
                 if (!v || v.dataset.run === 'running') return null; \
                 return [...document.querySelectorAll('.fabric-side')] \
                   .map(s => [Number(s.dataset.events), Number(s.dataset.solveMs)]);",
                "the fabric lab's run to end",
                std::time::Duration::from_secs(300),
            )
            .await;
        let (events, ms) = sides
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| Some((s[0].as_f64()?, s[1].as_f64()?)))
            .fold((0.0, 0.0), |(e, t), (se, st)| (e + se, t + st));
        let scenarios = case
            .scenarios_with(&netsim::LabParams::default())
            .expect("a lab case builds");
        let started = Instant::now();
        let mut native_events = 0;
        for s in &scenarios {
            native_events += netsim::simulate(s, &netsim::Limits::default())
                .expect("runs")
                .events;
        }
        let native = native_events as f64 / started.elapsed().as_secs_f64();
        rates.push((case.id, events / ms * 1e3, native));
    }
    browser.close().await;
    rates
}

/// Prints the fabric simulator section of the bench.
pub async fn report(site: &Site) {
    println!("Fabric simulator (netsim):");
    let (ours, theirs) = native_rates(7);
    let ratio = ours / theirs;
    println!(
        "  native, {}: {:.1} M events/s; the DCQCN packet model on the same scenarios {:.1} M events/s: {ratio:.2}× (target ≥ {NATIVE_RATIO_TARGET:.1}×: {})",
        SHARED.join(" + "),
        ours / 1e6,
        theirs / 1e6,
        verdict(ratio >= NATIVE_RATIO_TARGET)
    );
    let wasm = median(&wasm_rates(site, 3).await);
    let ratio = wasm / ours;
    println!(
        "  wasm (the simulator's worker in Chromium), same scenarios: {:.1} M events/s, {ratio:.2}× native (target ≥ {WASM_RATIO_TARGET:.1}×: {})",
        wasm / 1e6,
        verdict(ratio >= WASM_RATIO_TARGET)
    );
    println!("  the fabric lab's cases (/fabric-lab), both sides in the page's worker beside the same scenarios natively:");
    for (case, page, native) in lab_page_rates(site).await {
        println!(
            "    {case}: page {:.1} M events/s, native {:.1} M events/s ({:.2}× native)",
            page / 1e6,
            native / 1e6,
            page / native
        );
    }
    let scenario = netsim::named_scenario("rail-1024").expect("a named scenario");
    let started = Instant::now();
    let report = netsim::simulate(
        &scenario,
        &netsim::Limits {
            max_events: dcqcn::MAX_EVENTS_CAP,
        },
    )
    .expect("the scale run is valid");
    let wall = started.elapsed().as_secs_f64();
    let busbw = report.collectives.first().and_then(|c| c.busbw_gbs);
    println!(
        "  scale, native: {}: stopped {:?} at {:.0} µs simulated, {} events in {wall:.1} s wall ({:.1} M events/s), busbw {}",
        scenario.name,
        report.stop,
        report.end_us,
        report.events,
        report.events as f64 / wall / 1e6,
        busbw.map_or("—".to_string(), |b| format!("{b:.1} GB/s"))
    );
}
