//! The live page in real Chromium, connected over a real WebSocket to the real probe: this
//! machine's interfaces, and the recorded RDMA fixture with every counter explained.

use std::{path::PathBuf, process::Command, time::Duration};

use lab_tests::{browser::Browser, site::Site};

/// A private copy of the probe's recorded sysfs/debugfs trees, so the test can move counters.
fn fixture_copy() -> PathBuf {
    let source = lab_tests::repo_root().join("native-probe/tests/fixtures");
    let copy = std::env::temp_dir().join(format!("rdma-lab-live-fixture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&copy);
    let status = Command::new("cp")
        .arg("-a")
        .arg(&source)
        .arg(&copy)
        .status()
        .expect("cp runs");
    assert!(status.success(), "copying the fixture failed");
    copy
}

#[tokio::test]
async fn live_page_shows_this_machines_interfaces() {
    let site = Site::start_with(&["--interval-ms", "200"]);
    let browser = Browser::start().await;
    browser.goto(&site.url("/live")).await;
    browser.wait_for_text(".live-status", "Connected").await;
    browser.find("[aria-label='Interface lo']").await;
    // A rate needs two readings; lo always has its counters.
    browser.wait_until("const r = document.querySelector(\"[aria-label='Interface lo'] tr[data-counter=rx_bytes] .rate\"); return !!r && r.textContent.endsWith('/s')",
        "a rate for lo's rx_bytes",
    )
    .await;
    let explained = browser
        .eval("return document.querySelector(\"[aria-label='Interface lo'] tr[data-counter=rx_bytes]\").textContent")
        .await;
    assert!(
        explained
            .as_str()
            .is_some_and(|t| t.contains("Bytes the interface received")),
        "{explained}"
    );
    browser.screenshot("live-this-machine").await;
    browser.assert_no_console_errors("live page").await;
    browser.close().await;
}

#[tokio::test]
async fn live_page_explains_the_fixtures_rdma_counters_and_follows_changes() {
    let fixture = fixture_copy();
    let sysfs = fixture.join("sysfs");
    let debugfs = fixture.join("debugfs");
    let site = Site::start_with(&[
        "--interval-ms",
        "200",
        "--sysfs-root",
        sysfs.to_str().expect("a UTF-8 temp path"),
        "--debugfs-root",
        debugfs.to_str().expect("a UTF-8 temp path"),
    ]);
    let browser = Browser::start().await;
    browser.goto(&site.url("/live")).await;
    browser.wait_for_text(".live-status", "Connected").await;
    browser
        .wait_until(
            "return document.querySelector('.live-devices')?.textContent.includes('mlx5_0')",
            "the device table",
        )
        .await;
    // A tree read with --sysfs-root is somebody's recording, never this machine's NICs.
    browser
        .wait_until(
            "return !!document.querySelector('.live-source.recorded')?.textContent.includes(\"not this machine's NICs\")",
            "the recorded-data note",
        )
        .await;
    let gids = browser
        .eval("return document.querySelector('.live-gids').textContent")
        .await;
    let gids = gids.as_str().unwrap_or_default();
    assert!(
        gids.contains("RoCE v2") && gids.contains("IB/RoCE v1"),
        "both GID types are listed: {gids}"
    );

    // Every counter row of every port either explains itself or says it is not explained yet;
    // the DCQCN counters are explained and link to DCQCN.
    browser.wait_until("return !!document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=np_cnp_sent]')",
        "the first sample's counter rows",
    )
    .await;
    let cnp = browser
        .eval("const r = document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=np_cnp_sent]'); return [r.textContent, r.querySelector('a').pathname + r.querySelector('a').hash]")
        .await;
    assert!(cnp[0].as_str().is_some_and(|t| t.contains("CNPs")), "{cnp}");
    assert_eq!(cnp[1], "/dcqcn/#three-roles");

    // Move a counter on disk and watch the rate appear: 250 000 words in 200 ms is 5 MB/s.
    let xmit = sysfs.join("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
    for _ in 0..10 {
        let value: u64 = std::fs::read_to_string(&xmit)
            .expect("readable")
            .trim()
            .parse()
            .expect("a number");
        std::fs::write(&xmit, format!("{}\n", value + 250_000)).expect("writable copy");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    browser.wait_until("const r = document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=port_xmit_data] .rate'); return !!r && /[1-9]/.test(r.textContent) && r.textContent.endsWith('/s')",
        "a non-zero transmit rate on mlx5_0 port 1",
    )
    .await;
    browser.screenshot("live-fixture-light").await;
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("toggle clicks");
    browser
        .eval("document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"]').scrollIntoView()")
        .await;
    browser.screenshot("live-fixture-dark-charts").await;
    browser
        .assert_no_console_errors("live page with the fixture")
        .await;
    browser.close().await;
    let _ = std::fs::remove_dir_all(&fixture);
}

/// Clears a field and types into it. The page redraws as the probe's first messages arrive,
/// which can leave a just-found element stale; finding it again is what a person's eyes do.
async fn replace_text(browser: &Browser, css: &str, text: &str) {
    for _ in 0..5 {
        let field = browser.find(css).await;
        if field.clear().await.is_ok() && field.send_keys(text).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("could not type {text:?} into {css}");
}

#[tokio::test]
async fn a_dead_probe_is_reported_and_retried() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/live")).await;
    browser.find("#probe-url").await;
    // Panels appear when the first sample arrives; the field must be the same element after,
    // or a learner typing at that moment loses focus and the caret.
    browser
        .eval("window.probeField = document.querySelector('#probe-url'); return true")
        .await;
    browser.wait_for_text(".live-status", "Connected").await;
    browser
        .wait_until(
            "return document.querySelectorAll('.live-panel').length > 0",
            "the first sample's panels",
        )
        .await;
    let kept = browser
        .eval("return document.querySelector('#probe-url') === window.probeField")
        .await;
    assert_eq!(kept, true, "the first sample redrew the probe field");
    replace_text(&browser, "#probe-url", "ftp://nowhere").await;
    let still_typing = browser.eval("return document.activeElement.id").await;
    assert_eq!(
        still_typing, "probe-url",
        "the field keeps focus while the learner types"
    );
    let help = browser
        .find("#probe-url-help")
        .await
        .text()
        .await
        .expect("text");
    assert!(help.contains("not a probe address"), "{help}");
    // Port 9 (discard) on loopback: nothing listens there.
    replace_text(&browser, "#probe-url", "127.0.0.1:9").await;
    browser
        .find(".live-connect button[type=submit]")
        .await
        .click()
        .await
        .expect("connect clicks");
    browser
        .wait_until(
            "return document.querySelector('.live-status').textContent.includes('retrying in')",
            "the retry notice",
        )
        .await;
    // Nothing listens there, and the page asked (`/probe`) before saying so.
    let problem = browser
        .find(".live-problem")
        .await
        .text()
        .await
        .expect("text");
    assert!(
        problem.contains("Nothing answered at 127.0.0.1:9."),
        "{problem}"
    );
    browser.screenshot("live-dead-probe").await;
    // The browser itself logs the failed WebSocket and the failed look-ups of /probe that
    // tell "nothing there" from "refused"; nothing else may go wrong.
    let errors: Vec<String> = browser
        .console_errors()
        .await
        .into_iter()
        .filter(|e| {
            !(e.contains("WebSocket connection to 'ws://127.0.0.1:9/ws' failed")
                || e.starts_with("http://127.0.0.1:9/probe - Failed to load resource"))
        })
        .collect();
    assert!(errors.is_empty(), "unexpected console errors: {errors:#?}");
    browser.close().await;
}
