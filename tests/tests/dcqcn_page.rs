//! The DCQCN page in real Chromium: a slider changes the charts, the packet model runs in
//! its worker and finishes, a bad value is refused with the parameter named and the last
//! good run stays drawn; both themes and a phone-width screen.

use std::time::Duration;

use lab_tests::{browser::Browser, site::Site};
use serde_json::Value;

/// Polls a JavaScript expression until it is truthy; returns its value.
async fn wait_until(browser: &Browser, expr: &str) -> Value {
    browser.wait_until(&format!("return ({expr});"), expr).await
}

async fn run_number(browser: &Browser) -> u64 {
    let v = browser
        .eval("return document.querySelector('.dcqcn-charts').dataset.run")
        .await;
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

async fn rate_pixels(browser: &Browser) -> String {
    browser
        .eval("return document.getElementById('dcqcn-chart-rate').toDataURL()")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn measure_script(name: &str) -> String {
    format!(
        "(() => {{ const m = performance.getEntriesByName('{name}', 'measure'); \
         return m.length ? m[m.length - 1].duration : null; }})()"
    )
}

#[tokio::test]
async fn dcqcn_page_runs_compares_and_refuses_bad_values() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    browser
        .goto(&site.url("/dcqcn?scenario=two-flow&model=fluid"))
        .await;
    browser.wait_for_text("main h1", "DCQCN").await;
    wait_until(&browser, "document.querySelector('.dcqcn-charts[data-run]') && document.querySelector('.dcqcn-charts').dataset.run !== '0'").await;
    let first_run = run_number(&browser).await;
    let before_pixels = rate_pixels(&browser).await;
    assert!(before_pixels.len() > 1000, "the rate chart is drawn");
    let before_queue = browser
        .eval("return document.querySelector('.dcqcn-summary').dataset.maxQueue")
        .await;

    // Drag g from 1/256 to 0.5: a fresh fluid run redraws the charts.
    browser
        .set_value("[data-key='dcqcn.g'] input[type=range]", "0.5", "input")
        .await;
    wait_until(
        &browser,
        &format!("document.querySelector('.dcqcn-charts').dataset.run !== '{first_run}'"),
    )
    .await;
    let after_pixels = rate_pixels(&browser).await;
    assert_ne!(before_pixels, after_pixels, "the rate chart changed");
    let after_queue = browser
        .eval("return document.querySelector('.dcqcn-summary').dataset.maxQueue")
        .await;
    assert_ne!(before_queue, after_queue, "the summary follows the new run");
    let fluid_ms = wait_until(&browser, &measure_script("lab-dcqcn-fluid")).await;
    println!("lab-dcqcn-fluid: {fluid_ms} ms");
    for part in ["lab-dcqcn-draw"] {
        let ms = browser
            .eval(&format!("return {}", measure_script(part)))
            .await;
        println!("{part}: {ms} ms");
    }
    // The changed parameter reaches the URL once the values rest.
    wait_until(&browser, "location.search.includes('dcqcn.g=0.5')").await;

    // A value the engine refuses: named next to the field, the last run stays drawn.
    let drawn_run = run_number(&browser).await;
    browser
        .set_value(
            "[data-key='cp.kmin_bytes'] input.dcqcn-number",
            "999999999",
            "input",
        )
        .await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='cp.kmin_bytes'] .dcqcn-error\")?.textContent",
    )
    .await;
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains("cp.kmin_bytes")),
        "the refusal names the parameter: {message}"
    );
    let typed = browser
        .eval("return document.querySelector(\"[data-key='cp.kmin_bytes'] input.dcqcn-number\").value")
        .await;
    assert_eq!(typed, "999999999", "what the learner typed is kept");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        run_number(&browser).await,
        drawn_run,
        "no run for a refused value"
    );
    assert_eq!(
        rate_pixels(&browser).await,
        after_pixels,
        "the last good run stays drawn"
    );
    // Malformed text is refused too.
    browser
        .set_value("[data-key='dcqcn.g'] input.dcqcn-number", "fast", "input")
        .await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='dcqcn.g'] .dcqcn-error\")?.textContent",
    )
    .await;
    assert!(
        message.as_str().is_some_and(|m| m.contains("dcqcn.g")),
        "{message}"
    );
    browser.screenshot("dcqcn-invalid-light").await;

    // incast-16 for 10 ms with the packet model: it runs in the worker and finishes.
    browser
        .set_value(".dcqcn-controls select", "incast-16", "change")
        .await;
    wait_until(
        &browser,
        "document.querySelector('.dcqcn-summary')?.dataset && document.querySelectorAll('.dcqcn-table tbody tr').length === 16",
    )
    .await;
    browser
        .set_value(
            "[data-key='duration_us'] input.dcqcn-number",
            "10000",
            "input",
        )
        .await;
    let before_packet = run_number(&browser).await;
    browser
        .find("input[name='dcqcn-model'][value='packet']")
        .await
        .click()
        .await
        .expect("packet model radio clicks");
    wait_until(
        &browser,
        &format!(
            "document.querySelector('.dcqcn-charts').dataset.model === 'packet' && \
             document.querySelector('.dcqcn-charts').dataset.run !== '{before_packet}'"
        ),
    )
    .await;
    let packet_ms = wait_until(&browser, &measure_script("lab-dcqcn-packet")).await;
    println!("lab-dcqcn-packet: {packet_ms} ms");
    assert!(
        packet_ms.as_f64().is_some_and(|ms| ms <= 1000.0),
        "incast-16 over 10 ms in the packet model finishes within 1 s: {packet_ms}"
    );
    let cnps = browser
        .eval("return document.querySelector('.dcqcn-summary').textContent")
        .await;
    assert!(cnps.as_str().is_some_and(|t| t.contains("CNPs")));
    // The query follows the page once the values rest (a drag does not rewrite it at
    // every step).
    wait_until(
        &browser,
        "location.search.includes('scenario=incast-16') \
         && location.search.includes('model=packet')",
    )
    .await;
    let url = browser.client.current_url().await.expect("a URL");

    // The cursor moves the readout.
    browser.set_value("#dcqcn-cursor", "1000", "input").await;
    wait_until(
        &browser,
        "document.querySelector('.dcqcn-readout').dataset.sample === '19'",
    )
    .await;

    // A reload restores the shared state.
    browser.goto(url.as_str()).await;
    wait_until(
        &browser,
        "document.querySelector('.dcqcn-charts')?.dataset.model === 'packet'",
    )
    .await;
    let duration = browser
        .eval(
            "return document.querySelector(\"[data-key='duration_us'] input.dcqcn-number\").value",
        )
        .await;
    assert_eq!(duration, "10000");
    browser.screenshot("dcqcn-packet-light").await;

    // Dark theme: the charts redraw with the theme's background.
    let light_pixels = rate_pixels(&browser).await;
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("theme toggle clicks");
    wait_until(
        &browser,
        "document.documentElement.dataset.theme === 'dark'",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_ne!(
        rate_pixels(&browser).await,
        light_pixels,
        "charts follow the theme"
    );
    browser.screenshot("dcqcn-packet-dark").await;

    // Phone width: nothing overflows the screen.
    browser.resize((375, 800)).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let overflow = browser
        .eval("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        .await;
    assert_eq!(overflow, 0, "the DCQCN page fits a 375 px screen");
    browser.screenshot("dcqcn-phone-dark").await;
    browser
        .eval("document.querySelector('.dcqcn-charts').scrollIntoView()")
        .await;
    browser.screenshot("dcqcn-phone-charts-dark").await;

    browser.assert_no_console_errors("the DCQCN page").await;
    browser.close().await;
}
