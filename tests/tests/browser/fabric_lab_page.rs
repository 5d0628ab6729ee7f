//! The fabric lab in real headless Chromium: every case's two runs in the simulator's worker
//! with the claim holding, the verdict's numbers the runs' own; a long run cancelled and a
//! too-large one refused with the native command; the URL restoring a case and its
//! parameters; both themes free of serious axe violations; 375 px without sideways scroll.

use std::time::{Duration, Instant};

use engine::netsim::lab::CASES;
use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    site::Site,
};
use serde_json::Value;

/// A comparison runs two scenarios of a few million events at most; in a worker that is
/// seconds. The limit only keeps a hung run from waiting for ever.
const RUN_LIMIT: Duration = Duration::from_secs(120);
const STATE: &str = "return document.querySelector('.fabric-lab').dataset.run";

async fn pick(browser: &Browser, case: &str) {
    browser.set_value("#fab-case", case, "change").await;
    browser
        .wait_for_value(
            "return document.querySelector('.fabric-lab').dataset.case",
            Value::from(case),
        )
        .await;
}

/// Runs both sides and waits until they finish (or fail, which the caller sees).
async fn run(browser: &Browser) -> String {
    browser.click_in_view(".fabric-run").await;
    let state = browser
        .wait_until_for(
            "const s = document.querySelector('.fabric-lab').dataset.run; return s !== 'running' && s !== 'idle' ? s : null",
            "both runs to end",
            RUN_LIMIT,
        )
        .await;
    state.as_str().unwrap_or_default().to_string()
}

fn no_sideways_scroll() -> &'static str {
    "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
}

#[tokio::test]
async fn every_claim_holds_in_its_two_runs() {
    let site = Site::start();
    let browser = Browser::open(&site, "/fabric-lab").await;
    for case in &CASES {
        pick(&browser, case.id).await;
        let start = Instant::now();
        let state = run(&browser).await;
        let why = browser.text_content(".fabric-lab").await;
        assert_eq!(state, "done", "{}: {why}", case.id);
        let holds = browser
            .eval("return document.querySelector('.fabric-verdict')?.dataset.holds")
            .await;
        let verdict = browser.text_content(".fabric-verdict").await;
        eprintln!(
            "{}: {:.1} s in the worker, {verdict}",
            case.id,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(holds, "true", "{}: {verdict}", case.id);
        assert!(browser.path().await.contains(&format!("case={}", case.id)));
        if case.id == "ecmp-collision" || case.id == "deadlock" {
            browser.click_in_view(".fabric-verdict").await;
            browser
                .screenshot(&format!("fabric-lab-{}-1280", case.id))
                .await;
            browser.resize(PHONE).await;
            assert_eq!(
                browser.eval(no_sideways_scroll()).await,
                0,
                "{} at 375 px",
                case.id
            );
            browser
                .screenshot(&format!("fabric-lab-{}-375", case.id))
                .await;
            browser.resize(DESKTOP).await;
        }
    }
    // The deadlock's verdict names the switches that wait on each other.
    assert!(browser
        .text_content(".fabric-compare")
        .await
        .contains("deadlock at"));
    let serious = browser.serious_axe_violations().await;
    assert!(serious.is_empty(), "light: {serious:?}");
    browser.click_in_view(".theme-toggle").await;
    let serious = browser.serious_axe_violations().await;
    assert!(serious.is_empty(), "dark: {serious:?}");
    browser.screenshot("fabric-lab-deadlock-dark").await;
    browser.assert_no_console_errors("/fabric-lab").await;
}

#[tokio::test]
async fn a_long_run_cancels_a_large_one_is_refused_and_the_url_restores_the_case() {
    let site = Site::start();
    let browser = Browser::open(&site, "/fabric-lab?case=incast-victim&duration=100000").await;
    assert_eq!(
        browser
            .eval("return document.getElementById('fab-duration').value")
            .await,
        "100000"
    );
    assert_eq!(
        browser
            .eval("return document.getElementById('fab-case').value")
            .await,
        "incast-victim"
    );
    browser.click_in_view(".fabric-run").await;
    browser.wait_for_value(STATE, Value::from("running")).await;
    browser.click_in_view(".fabric-cancel").await;
    browser
        .wait_for_value(STATE, Value::from("cancelled"))
        .await;
    // A fresh worker runs the next comparison.
    browser.type_over("#fab-duration", "20000").await;
    assert_eq!(run(&browser).await, "done");

    // A second of fabric time is more than a browser should run: refused before it starts,
    // with the command that runs it natively.
    browser.type_over("#fab-duration", "1000000").await;
    assert_eq!(run(&browser).await, "failed");
    let refusal = browser.text_content(".fabric-refusal").await;
    assert!(refusal.contains("native-probe netsim"), "{refusal}");

    // A box that does not read is refused under it and runs nothing.
    browser.type_over("#fab-seed", "4x").await;
    browser
        .wait_until(
            "return document.getElementById('fab-seed-error')?.textContent",
            "the seed's refusal",
        )
        .await;

    // The URL keeps the case and the parameters as typed.
    let path = browser.path().await;
    assert!(
        path.contains("case=incast-victim") && path.contains("duration=1000000"),
        "{path}"
    );
    browser
        .visit(&site, "/fabric-lab?case=deadlock&seed=7")
        .await;
    assert_eq!(
        browser
            .eval("return document.getElementById('fab-seed').value")
            .await,
        "7"
    );
    assert_eq!(
        browser
            .eval("return document.querySelector('.fabric-claim h3').textContent")
            .await,
        CASES[3].title
    );
    browser
        .assert_no_console_errors("/fabric-lab cancel and refuse")
        .await;
}
