//! The fabric lab in real Chromium: each of the seven claims runs both sides in the netsim
//! worker and its check holds (the time each took is printed); Cancel stops a run and a
//! fresh worker runs the next; a run over the browser's budget is refused with the command
//! that runs it natively; a bad seed is refused under its box; the URL restores a run; the
//! CSV and PNG downloads; a phone-width screen has nothing past its edge. Screenshots of
//! the ECMP collision and the deadlock at 1280 and 375 px, of the deadlock's drawing, and of
//! the rail-alignment all-reduce's progress beside NCCL's model.

use std::time::{Duration, Instant};

use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};
use serde_json::Value;

/// A case's two runs, in the worker, can take a while on a loaded machine.
const RUN_LIMIT: Duration = Duration::from_secs(120);

const CASES: [&str; 7] = [
    "ecmp-collision",
    "ecmp-qps",
    "incast-victim",
    "ecn-vs-pfc",
    "deadlock",
    "rail-alignment",
    "oversubscription",
];

async fn wait_until(browser: &Browser, expr: &str) -> Value {
    browser.wait_until(&format!("return ({expr});"), expr).await
}

async fn run_state(browser: &Browser) -> String {
    browser
        .eval("return document.querySelector('.fabric-view')?.dataset.run ?? ''")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Waits until the page's run has left `running`, for up to [`RUN_LIMIT`]; the state then.
async fn run_to_end(browser: &Browser) -> String {
    browser
        .wait_until_for(
            "const v = document.querySelector('.fabric-view'); \
             return v && v.dataset.run !== 'running' ? v.dataset.run : null",
            "the run to end",
            RUN_LIMIT,
        )
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// How many elements match `css`.
async fn count(browser: &Browser, css: &str) -> i64 {
    browser
        .eval(&format!(
            "return document.querySelectorAll(\"{css}\").length"
        ))
        .await
        .as_i64()
        .unwrap_or(-1)
}

async fn no_overflow(browser: &Browser) -> i64 {
    browser
        .eval("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        .await
        .as_i64()
        .unwrap_or(-1)
}

/// Each case's check holds on its two runs, made in the page's worker; the time each case
/// took from loading the page to its verdict is printed.
#[tokio::test]
async fn fabric_lab_every_claim_holds_in_the_worker() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    let mut timings = Vec::new();
    for case in CASES {
        let started = Instant::now();
        browser
            .visit(&site, &format!("/fabric-lab?case={case}"))
            .await;
        assert_eq!(run_to_end(&browser).await, "done", "{case}");
        let took = started.elapsed();
        let worker_ms = browser
            .eval(
                "return [...document.querySelectorAll('.fabric-figures tr')] \
                   .filter(r => r.querySelector('th').textContent === 'Worker time') \
                   .map(r => r.querySelector('td').textContent).join(' + ')",
            )
            .await;
        timings.push(format!("{case}: {took:.1?} in all, worker {worker_ms}"));
        let verdict = browser
            .eval("const v = document.querySelector('.fabric-verdict'); return v ? [v.dataset.holds, v.textContent] : null")
            .await;
        assert_eq!(verdict[0], "true", "{case}: {verdict}");
        assert_eq!(
            browser
                .eval("return document.querySelectorAll('.fabric-side[data-done=true] .fabric-hot tbody tr').length > 1")
                .await,
            Value::Bool(true),
            "{case}: both sides list their hottest links"
        );
        let run = browser
            .eval("return document.querySelector('.fabric-view').dataset.runNumber")
            .await;
        wait_until(
            &browser,
            &format!("document.querySelector('.fabric-charts').dataset.drawn === {run}"),
        )
        .await;
        // Only the all-reduce has a progress chart beside NCCL's model.
        let progress = browser
            .eval(
                "return !document.getElementById('fabric-chart-progress').closest('figure').hidden",
            )
            .await;
        assert_eq!(progress, Value::Bool(case == "rail-alignment"), "{case}");
        if case == "rail-alignment" {
            browser.eval("document.getElementById('fabric-chart-progress').scrollIntoView({block: 'center'}); return null").await;
            browser
                .screenshot("fabric-lab-rail-alignment-progress-1280")
                .await;
        }
        browser.wait_for_exercise(case).await;
        if case == "ecmp-collision" || case == "deadlock" {
            let to_results = "document.querySelector('.fabric-claim-box').scrollIntoView({block: 'start'}); return null";
            browser.eval(to_results).await;
            browser.screenshot(&format!("fabric-lab-{case}-1280")).await;
            browser.eval("document.querySelector('.fabric-charts').scrollIntoView({block: 'start'}); return null").await;
            browser
                .screenshot(&format!("fabric-lab-{case}-charts-1280"))
                .await;
            browser.resize(PHONE).await;
            assert_eq!(no_overflow(&browser).await, 0, "{case} fits 375 px");
            browser.eval(to_results).await;
            browser.screenshot(&format!("fabric-lab-{case}-375")).await;
            browser.resize((1280, 1000)).await;
        }
    }
    eprintln!("fabric lab runs:\n{}", timings.join("\n"));
    browser.assert_no_console_errors("the fabric lab").await;
    browser.close().await;
}

/// Cancel stops a run (a fresh worker runs the next), a run too large for the browser is
/// refused with the native command, a bad seed is refused under its box, the URL keeps the
/// case and parameters across a reload, and the downloads carry both sides.
#[tokio::test]
async fn fabric_lab_cancels_refuses_and_restores() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;

    // A long run (a few seconds in the worker), cancelled while it runs. On a loaded machine
    // the click may land after the run has ended (Cancel is then disabled and the run is
    // done): run it again, a bounded number of times, until the click lands in time.
    browser
        .visit(&site, "/fabric-lab?case=incast-victim&duration_us=100000")
        .await;
    let mut tries = 0;
    loop {
        tries += 1;
        wait_until(
            &browser,
            "document.querySelector('.fabric-view')?.dataset.run === 'running'",
        )
        .await;
        browser.click_in_view(".fabric-cancel").await;
        let state = wait_until(
            &browser,
            "['cancelled', 'done'].includes(document.querySelector('.fabric-view').dataset.run) \
             && document.querySelector('.fabric-view').dataset.run",
        )
        .await;
        if state == "cancelled" {
            break;
        }
        assert!(
            tries < 4,
            "the run ended before Cancel landed {tries} times"
        );
        browser.click_in_view(".fabric-run").await;
    }
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('.fabric-side[data-done=true]').length")
            .await,
        0,
        "nothing of the cancelled run is shown"
    );

    // Too large for the browser: refused before it runs, naming the native command.
    browser
        .set_value("#fabric-duration_us", "1000000", "change")
        .await;
    wait_until(
        &browser,
        "document.querySelector('.fabric-view').dataset.run === 'refused'",
    )
    .await;
    let refusal = browser.text(".fabric-refusal").await;
    assert!(refusal.contains("native-probe netsim --file"), "{refusal}");

    // A seed that is not a number: refused under its box, kept as typed (the duration
    // cleared after it, so nothing runs in between).
    browser.set_value("#fabric-seed", "lots", "change").await;
    browser.set_value("#fabric-duration_us", "", "change").await;
    let error = wait_until(
        &browser,
        "document.querySelector(\"[data-key='seed'] .form-error\")?.textContent",
    )
    .await;
    assert!(
        error.as_str().is_some_and(|e| e.contains("`seed`")),
        "{error}"
    );
    assert_eq!(run_state(&browser).await, "invalid");

    // Pick the deadlock with seed 3 and run it after the cancel: the fresh worker answers.
    browser.set_value("#fabric-seed", "3", "change").await;
    browser
        .set_value("#fabric-case", "deadlock", "change")
        .await;
    assert_eq!(run_to_end(&browser).await, "done");
    let search = browser.eval("return location.search").await;
    let search = search.as_str().unwrap_or_default().to_string();
    assert!(
        search.contains("case=deadlock") && search.contains("seed=3"),
        "{search}"
    );

    // Reload: the same case and seed, run again.
    browser
        .eval("window.__beforeReload = true; location.reload()")
        .await;
    wait_until(
        &browser,
        "!window.__beforeReload && document.querySelector('.fabric-view')",
    )
    .await;
    assert_eq!(run_to_end(&browser).await, "done");
    assert_eq!(
        browser
            .eval("return document.querySelector('#fabric-case').value")
            .await,
        "deadlock"
    );
    assert_eq!(
        browser
            .eval("return document.querySelector('#fabric-seed').value")
            .await,
        "3"
    );
    let shown = browser.text(".fabric-verdict").await;
    assert!(
        shown.contains("waits on"),
        "the page says which buffers wait: {shown}"
    );

    // The timeline by keyboard alone: Home goes to the start, an arrow key one sample on,
    // the step button (Enter) one more, and Play runs to the end.
    let cursor = "document.querySelector('.fabric-timeline').dataset.cursor";
    browser.click_in_view("#fabric-time").await;
    browser.press('\u{E011}').await; // Home
    wait_until(&browser, &format!("{cursor} === '0'")).await;
    browser.press('\u{E014}').await; // ArrowRight
    wait_until(&browser, &format!("{cursor} === '1'")).await;
    browser
        .eval("document.querySelector('.fabric-step').focus(); return null")
        .await;
    browser.press('\u{E007}').await; // Enter
    wait_until(&browser, &format!("{cursor} === '2'")).await;
    let at = browser.text(".fabric-at-side[data-side='B'] p").await;
    assert!(at.starts_with("Side B at ") && at.contains("Gb/s"), "{at}");
    browser
        .eval("document.querySelector('.fabric-play').focus(); return null")
        .await;
    browser.press('\u{E007}').await;
    wait_until(
        &browser,
        "document.querySelector('.fabric-timeline').dataset.playing === 'false' && \
         document.querySelector('#fabric-time').value === document.querySelector('#fabric-time').max",
    )
    .await;

    // The downloads: both sides' series under their parameters, and the charts.
    browser.catch_downloads().await;
    let csv_file = browser.click_to_download("Download CSV").await;
    assert_eq!(csv_file.name, "fabric-lab-deadlock.csv");
    let csv = browser.eval("return window.__blobs[0].text()").await;
    let csv = csv.as_str().expect("the CSV's text");
    assert!(
        csv.starts_with("# rdma-lab fabric lab: PFC deadlock"),
        "{csv:.200}"
    );
    assert!(csv.contains("seed 3;"), "{csv:.600}");
    assert!(csv.contains("\nA,") && csv.contains("\nB,"));
    let png_file = browser.click_to_download("Download PNG").await;
    assert_eq!(png_file.name, "fabric-lab-deadlock.png");
    assert!(png_file.href.starts_with("data:image/png"));
    browser.assert_no_console_errors("the fabric lab").await;
    browser.close().await;
}

/// Each side's fabric is drawn at the timeline's moment: the deadlocked ring's held senders
/// are marked, the drawing follows the timeline, a cable reached with the Tab key
/// names its numbers, and a flow picked from the list lights its path. Screenshots at 1280
/// and 375 px.
#[tokio::test]
async fn fabric_lab_draws_each_fabric_at_the_timelines_moment() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    browser.visit(&site, "/fabric-lab?case=deadlock").await;
    assert_eq!(run_to_end(&browser).await, "done");
    let ring = ".fabric-drawing[data-side='A']";
    // Four switches in a ring, two hosts on each: twelve cables, twelve nodes.
    assert_eq!(count(&browser, &format!("{ring} .fabric-cable")).await, 12);
    assert_eq!(count(&browser, &format!("{ring} .fabric-node")).await, 12);
    assert!(
        count(&browser, &format!("{ring} .fabric-cable.paused")).await >= 4,
        "the ring's four switch links are held when the run ends"
    );

    // The drawing follows the timeline (the ring deadlocks within its first sample, so it
    // is held throughout).
    browser.click_in_view("#fabric-time").await;
    browser.press('\u{E011}').await; // Home
    wait_until(
        &browser,
        &format!("document.querySelector(\"{ring}\").dataset.sample === '0'"),
    )
    .await;

    // The keyboard reaches a cable, which says what it carried.
    browser
        .eval(&format!(
            "document.querySelector(\"{ring} .fabric-drawing-box\").focus(); return null"
        ))
        .await;
    browser.press('\u{E004}').await; // Tab
    let said = wait_until(
        &browser,
        &format!("(t => t.startsWith('At ') ? t : null)(document.querySelector(\"{ring} .fabric-cable-said\").textContent)"),
    )
    .await;
    let said = said.as_str().unwrap_or_default();
    assert!(said.contains(" → ") && said.contains("Gb/s used"), "{said}");

    // A flow picked: its path lit, the rest dimmed.
    browser.set_value("#fabric-flow-A", "0", "change").await;
    wait_until(
        &browser,
        &format!("document.querySelectorAll(\"{ring} .fabric-cable.on-path\").length > 0"),
    )
    .await;
    assert!(count(&browser, &format!("{ring} .fabric-cable.off-path")).await > 0);

    browser.click_in_view("#fabric-time").await;
    browser.press('\u{E010}').await; // End: back to the deadlock
    browser
        .eval("document.querySelector('.fabric-drawings').scrollIntoView({block: 'start'}); return null")
        .await;
    browser.screenshot("fabric-lab-drawing-deadlock-1280").await;
    browser.resize(PHONE).await;
    assert_eq!(
        no_overflow(&browser).await,
        0,
        "the drawings fit 375 px (they scroll inside)"
    );
    browser
        .eval("document.querySelector('.fabric-drawings').scrollIntoView({block: 'start'}); return null")
        .await;
    browser.screenshot("fabric-lab-drawing-deadlock-375").await;
    browser
        .assert_no_console_errors("the fabric lab's drawing")
        .await;
    browser.close().await;
}

/// axe-core finds no serious violation on the page with a finished run shown, in the light
/// and dark themes at desktop width and on a phone (the shared accessibility test covers the
/// route before any run has finished).
#[tokio::test]
async fn fabric_lab_with_results_has_no_serious_axe_violation() {
    let site = Site::start();
    let browser = Browser::start().await;
    let mut found = Vec::new();
    for (size, theme) in [
        ((1280, 1000), "light"),
        ((1280, 1000), "dark"),
        (PHONE, "dark"),
    ] {
        browser.resize(size).await;
        browser.goto(&site.url("/")).await;
        browser
            .eval(&format!(
                "localStorage.setItem('rdma-lab.theme', '{theme}')"
            ))
            .await;
        browser.visit(&site, "/fabric-lab?case=deadlock").await;
        assert_eq!(run_to_end(&browser).await, "done");
        for violation in browser.serious_axe_violations().await {
            found.push(format!("{theme}, {} px: {violation}", size.0));
        }
    }
    browser.eval("localStorage.clear()").await;
    browser.close().await;
    assert!(found.is_empty(), "axe-core found:\n{}", found.join("\n"));
}
