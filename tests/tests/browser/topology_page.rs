//! The /topology fabric builder in real headless Chromium: the 4-unit SuperPOD preset's parts
//! against NVIDIA's Table 4, a radix typed digit by digit, a located refusal, the path
//! between GPUs on two rails with and without PXN, the deep link surviving a reload, the
//! /nccl link, both themes and a phone-width screen.

use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};
use serde_json::Value;

async fn wait_until(browser: &Browser, expr: &str) -> Value {
    browser.wait_until(&format!("return ({expr});"), expr).await
}

/// The "all planes" cell of a parts-table row.
async fn total(browser: &Browser, part: &str) -> String {
    browser
        .eval(&format!(
            "return document.querySelector(\"tr[data-part='{part}'] td.total\").textContent"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Puts the focus in field `key`'s box with its text selected and sends `keys`, one key
/// event each, as a learner types.
async fn type_into(browser: &Browser, key: &str, keys: &str) {
    let css = format!("#topo-{key}");
    browser.find(&css).await;
    browser
        .eval(&format!(
            "document.querySelector({css:?}).scrollIntoView({{block: 'center'}});"
        ))
        .await;
    browser.type_over(&css, keys).await;
}

async fn value_of(browser: &Browser, css: &str) -> Value {
    browser
        .eval(&format!("return document.querySelector({css:?}).value"))
        .await
}

async fn route(browser: &Browser) -> (Value, Value, Vec<String>) {
    let v = browser
        .eval(
            "const s = document.querySelector('.topo-route-summary'); \
             return s ? [s.dataset.switches, s.dataset.pxn, \
             [...document.querySelectorAll('.topo-route li')].map(li => li.textContent)] : null",
        )
        .await;
    let steps = serde_json::from_value(v[2].clone()).unwrap_or_default();
    (v[0].clone(), v[1].clone(), steps)
}

#[tokio::test]
async fn topology_builder_sizes_draws_and_routes() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    browser.visit(&site, "/topology").await;
    wait_until(&browser, "document.querySelector('.topo-table')").await;

    // NVIDIA DGX SuperPOD H100 RA, Table 4, 4 SUs: 32 leaves, 16 spines.
    browser
        .set_value("#topo-preset", "superpod-h100-4su", "change")
        .await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='nodes'] td.total\").textContent === '127'",
    )
    .await;
    assert_eq!(total(&browser, "leaves").await, "32");
    assert_eq!(total(&browser, "spines").await, "16");
    assert_eq!(total(&browser, "cores").await, "0");
    let summary = browser
        .eval("return document.querySelector('.topo-summary').textContent")
        .await;
    assert!(
        summary
            .as_str()
            .is_some_and(|s| s.contains("+ 3 more scalable units")),
        "the rest is said in words: {summary}"
    );
    let drawn = browser
        .eval("return document.querySelectorAll('.topo-drawing svg *').length")
        .await;
    assert!(
        drawn.as_u64().is_some_and(|n| (256..4000).contains(&n)),
        "one unit is drawn in full, bounded: {drawn} elements"
    );
    browser.screenshot("topology-4su-light").await;

    // The radix typed digit by digit: "1" is refused at its field (the text stays), "128"
    // builds 16 leaves (two units of eight) on 8 spines.
    type_into(&browser, "switch_ports", "\u{E003}1").await;
    let error = wait_until(
        &browser,
        "document.querySelector(\"[data-key='switch_ports'] .form-error\")?.textContent",
    )
    .await;
    assert!(
        error.as_str().is_some_and(|e| e.contains("switch_ports")),
        "the refusal names the field: {error}"
    );
    assert_eq!(value_of(&browser, "#topo-switch_ports").await, "1");
    assert_eq!(
        total(&browser, "leaves").await,
        "32",
        "the last fabric stays"
    );
    type_into(&browser, "switch_ports", "\u{E010}28").await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='leaves'] td.total\").textContent === '16'",
    )
    .await;
    assert_eq!(value_of(&browser, "#topo-switch_ports").await, "128");
    assert_eq!(total(&browser, "spines").await, "8");
    let gone = browser
        .eval("return document.querySelector(\"[data-key='switch_ports'] .form-error\") === null")
        .await;
    assert_eq!(gone, Value::Bool(true));

    // Garbage in the GPU count: refused at that field, kept as typed.
    type_into(&browser, "gpus", "\u{E003}lots").await;
    let error = wait_until(
        &browser,
        "document.querySelector(\"[data-key='gpus'] .form-error\")?.textContent",
    )
    .await;
    assert!(
        error.as_str().is_some_and(|e| e.contains("`gpus`")),
        "{error}"
    );
    assert_eq!(value_of(&browser, "#topo-gpus").await, "lots");
    let invalid = browser
        .eval("return document.querySelector('#topo-gpus').getAttribute('aria-invalid')")
        .await;
    assert_eq!(invalid, "true");
    browser.screenshot("topology-refused-light").await;

    // Back to the preset; GPU 0 (rail 0) and GPU 13 (node 1, rail 5) go through a spine.
    browser
        .set_value("#topo-preset", "superpod-h100-4su", "change")
        .await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='leaves'] td.total\").textContent === '32'",
    )
    .await;
    browser.click_in_view("rect[data-gpu='0']").await;
    browser.click_in_view("rect[data-gpu='13']").await;
    wait_until(&browser, "document.querySelector('.topo-route-summary')").await;
    let rails = browser
        .eval(
            "return [0, 13].map(g => document.querySelector(`rect[data-gpu='${g}']`).dataset.rail)",
        )
        .await;
    assert_eq!(rails, serde_json::json!(["0", "5"]));
    let (switches, pxn, steps) = route(&browser).await;
    assert_eq!((switches, pxn), (Value::from("3"), Value::from("false")));
    assert!(
        steps.iter().any(|s| s.contains("spine")),
        "through a spine: {steps:?}"
    );
    let lit = browser
        .eval("return document.querySelectorAll('.topo-spine.on-path').length")
        .await;
    assert_eq!(lit, 1, "the spine is lit in the drawing");

    // PXN: NVLink first, to GPU 5 of node 0 (rail 5), then one leaf.
    browser.click_in_view("#topo-pxn").await;
    wait_until(
        &browser,
        "document.querySelector('.topo-route-summary')?.dataset.pxn === 'true'",
    )
    .await;
    let (switches, _, steps) = route(&browser).await;
    assert_eq!(switches, "1");
    assert!(
        steps
            .get(1)
            .is_some_and(|s| s.contains("NVLink") && s.contains("GPU 5")),
        "NVLink first: {steps:?}"
    );
    let nvlink = browser
        .eval("return document.querySelectorAll('.topo-nvlink').length")
        .await;
    assert_eq!(nvlink, 1);
    browser.screenshot("topology-path-pxn-light").await;

    // The /nccl link carries the preset's machines, under the site's root.
    let href = browser
        .eval("return document.querySelector('a.topo-nccl-link').getAttribute('href')")
        .await;
    assert_eq!(
        href,
        "nccl/?gpu=h100&gpn=8&nodes=127&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G"
    );
    let resolved = browser
        .eval("return document.querySelector('a.topo-nccl-link').href")
        .await;
    assert!(
        resolved.as_str().is_some_and(|h| h.ends_with(
            "/nccl/?gpu=h100&gpn=8&nodes=127&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G"
        )),
        "{resolved}"
    );

    // The deep link reloads the same fabric, pair and PXN.
    wait_until(
        &browser,
        "location.search.includes('from=0') && location.search.includes('to=13') && location.search.includes('pxn=1')",
    )
    .await;
    let url = browser.client.current_url().await.expect("a URL");
    browser.goto(url.as_str()).await;
    wait_until(
        &browser,
        "document.querySelector('.topo-route-summary')?.dataset.pxn === 'true'",
    )
    .await;
    assert_eq!(
        value_of(&browser, "#topo-preset").await,
        "superpod-h100-4su"
    );
    assert_eq!(total(&browser, "leaves").await, "32");
    let pressed = browser
        .eval("return [...document.querySelectorAll('rect[aria-pressed=true]')].map(r => r.dataset.gpu)")
        .await;
    assert_eq!(pressed, serde_json::json!(["0", "13"]));
    let checked = browser
        .eval("return document.querySelector('#topo-pxn').checked")
        .await;
    assert_eq!(checked, Value::Bool(true));

    // Keyboard: Enter on a focused GPU picks it (a third pick starts a new pair).
    browser
        .eval("const r = document.querySelector(\"rect[data-gpu='8']\"); r.scrollIntoView({block: 'center'}); r.focus();")
        .await;
    browser.press('\u{E007}').await;
    wait_until(
        &browser,
        "document.querySelector(\"rect[data-gpu='8']\").getAttribute('aria-pressed') === 'true'",
    )
    .await;
    let focused = browser
        .eval("return document.activeElement?.dataset?.gpu ?? null")
        .await;
    assert_eq!(focused, "8", "the focus stays on the GPU picked");
    browser.press(' ').await;
    wait_until(
        &browser,
        "document.querySelectorAll('rect[aria-pressed=true]').length === 0",
    )
    .await;

    // Dark theme.
    browser.click_in_view(".theme-toggle").await;
    wait_until(
        &browser,
        "document.documentElement.dataset.theme === 'dark'",
    )
    .await;
    browser
        .eval("document.querySelector('.topo-drawing').scrollIntoView(); return null")
        .await;
    browser.screenshot("topology-drawing-dark").await;
    browser
        .eval("document.querySelector('.topo-parts').scrollIntoView(); return null")
        .await;
    browser.screenshot("topology-parts-dark").await;

    // Phone width: the table and the drawing scroll in their own boxes, the page does not.
    browser.resize(PHONE).await;
    let overflow = browser
        .eval("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        .await;
    assert_eq!(overflow, 0, "the topology page fits a 375 px screen");
    browser
        .eval("document.querySelector('.topo-inputs').scrollIntoView(); return null")
        .await;
    browser.screenshot("topology-phone-inputs-dark").await;
    browser
        .eval("document.querySelector('.topo-parts').scrollIntoView(); return null")
        .await;
    browser.screenshot("topology-phone-parts-dark").await;

    browser.assert_no_console_errors("the topology page").await;
    browser.close().await;
}

/// The rack of RTX 4090 workstations is one switch; its /nccl link keeps TCP.
#[tokio::test]
async fn topology_workstation_rack_is_one_switch() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    browser
        .goto(&site.url("/topology?preset=rtx4090-rack"))
        .await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='tiers'] td.total\")?.textContent === '1'",
    )
    .await;
    assert_eq!(total(&browser, "leaves").await, "1");
    assert_eq!(total(&browser, "spines").await, "0");
    browser.click_in_view("rect[data-gpu='0']").await;
    browser.click_in_view("rect[data-gpu='31']").await;
    wait_until(&browser, "document.querySelector('.topo-route-summary')").await;
    let (switches, _, _) = route(&browser).await;
    assert_eq!(switches, "1");
    let href = browser
        .eval("return document.querySelector('a.topo-nccl-link').getAttribute('href')")
        .await;
    assert_eq!(
        href,
        "nccl/?gpu=rtx4090&gpn=4&nodes=8&nic=tcp-25&nics=1&gdr=1&op=all_reduce&size=8G"
    );
    browser.screenshot("topology-rack-light").await;
    browser
        .assert_no_console_errors("the topology page (rack)")
        .await;
    browser.close().await;
}

/// The published-design presets open with their counts: HPN's 240 ToRs and 120 aggregation
/// switches in two planes, and the Llama 3 cluster's nearest spec in three tiers.
#[tokio::test]
async fn topology_published_presets_open_with_their_counts() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    browser
        .goto(&site.url("/topology?preset=alibaba-hpn-pod"))
        .await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='leaves'] td.total\")?.textContent === '240'",
    )
    .await;
    assert_eq!(total(&browser, "spines").await, "120");
    assert_eq!(total(&browser, "tiers").await, "2");
    let summary = browser
        .eval("return document.querySelector('.topo-summary').textContent")
        .await;
    assert!(
        summary.as_str().is_some_and(|s| s.contains("plane 1")),
        "the second plane is said in words: {summary}"
    );
    browser
        .eval("document.querySelector('.topo-drawing').scrollIntoView(); return null")
        .await;
    browser.screenshot("topology-hpn-light").await;

    browser
        .set_value("#topo-preset", "meta-llama3-roce", "change")
        .await;
    wait_until(
        &browser,
        "document.querySelector(\"tr[data-part='tiers'] td.total\")?.textContent === '3'",
    )
    .await;
    let source = browser
        .eval("return document.querySelector('.topo-source p').textContent")
        .await;
    assert!(
        source
            .as_str()
            .is_some_and(|s| s.contains("1:7") && s.contains("not 3,072")),
        "the preset says how it differs from the paper: {source}"
    );
    browser.screenshot("topology-meta-light").await;
    browser
        .assert_no_console_errors("the topology page (presets)")
        .await;
    browser.close().await;
}
