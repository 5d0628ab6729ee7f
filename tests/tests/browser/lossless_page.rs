//! The /lossless calculators in real headless Chromium: the page opens on its reference
//! text's examples (43,496 bytes of headroom, NCCL_IB_TC=104 landing on lossless priority
//! 3), typing digit by digit updates them, garbage names its field and keeps the last
//! answer, a deep link reloads the typed values, and the page fits a phone.

use engine::lossless::Headroom;
use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};

/// `n` in groups of three digits split by narrow no-break spaces, as the page writes it.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// Pairs of fields that begin level but whose boxes do not, by their labels.
const UNEVEN_BOXES: &str =
    "const fields = [...document.querySelectorAll('.lossless-fields .form-field')].map(f => ({ \
        label: f.querySelector('label').textContent, \
        top: f.getBoundingClientRect().top, \
        box: f.querySelector('input').getBoundingClientRect().top })); \
    return fields.flatMap((a, i) => fields.slice(i + 1) \
        .filter(b => Math.abs(a.top - b.top) < 1 && Math.abs(a.box - b.box) >= 1) \
        .map(b => a.label + ' / ' + b.label));";

#[tokio::test]
async fn qos_and_headroom_calculators_answer_as_typed() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/lossless")).await;

    // The reference page's worked example: 43 496 bytes.
    browser
        .wait_for_text_containing(".lossless-total td", &grouped(43_496))
        .await;
    let total = browser.text(".lossless-total td").await;
    assert!(total.starts_with(&grouped(43_496)), "{total}");
    let chain = browser.text(".lossless-chain").await;
    assert!(chain.contains("DSCP 26 → priority 3"), "{chain}");
    assert!(chain.contains("PFC on, ECN on"), "{chain}");
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('.lossless-findings .lossless-bad').length")
            .await,
        0
    );

    // Fields that begin on one line have their boxes on one line, whether or not a label
    // wraps (UX check 2026-12: "ECN / DCQCN on priorities" wrapped and its box sat lower).
    // At 1024 px "ECN marking from, bytes" takes two lines beside one-line labels.
    for width in [1280, 1024] {
        browser.resize((width, 860)).await;
        let uneven = browser.eval(UNEVEN_BOXES).await;
        assert_eq!(uneven, serde_json::json!([]), "at {width} px");
    }
    browser.resize((1280, 860)).await;

    // 300 m of cable, typed digit by digit: three times the cable term.
    browser.type_keys("#headroom-cable_m", "300").await;
    let expected = Headroom {
        cable_m: 300.0,
        ..Headroom::example()
    }
    .bytes()
    .unwrap()
    .total;
    browser
        .wait_for_text_containing(".lossless-total td", &grouped(expected))
        .await;

    // Garbage after the digits: the field is named, the answer for 300 m stays.
    browser.type_keys("#headroom-cable_m", "300x").await;
    let error = browser.text("#headroom-cable_m-error").await;
    assert!(error.contains("cable_m"), "{error}");
    assert!(browser
        .text(".lossless-total td")
        .await
        .starts_with(&grouped(expected)));

    // NCCL_IB_TC=96 is DSCP 24: not in the map, so lossy priority 0.
    browser.type_keys("#qos-nccl_ib_tc", "96").await;
    browser
        .wait_for_text_containing(".lossless-chain", "DSCP 24 → priority 0")
        .await;
    let bad = browser.text(".lossless-findings .lossless-bad").await;
    assert!(bad.contains("not in the map"), "{bad}");

    // The typed values are in the URL and survive a reload.
    let url = browser.eval("return location.href").await;
    let url = url.as_str().expect("a URL").to_string();
    assert!(url.contains("qos.nccl_ib_tc=96"), "{url}");
    browser.goto(&url).await;
    browser
        .wait_for_text_containing(".lossless-chain", "DSCP 24 → priority 0")
        .await;
    assert_eq!(
        browser
            .eval("return document.querySelector('#qos-nccl_ib_tc').value")
            .await,
        "96"
    );
    browser.screenshot("lossless-desktop").await;

    // Back to the examples; then a phone in the dark theme.
    browser.click_in_view(".lossless-reset").await;
    browser
        .wait_for_text_containing(".lossless-chain", "DSCP 26 → priority 3")
        .await;
    browser.click_in_view(".theme-toggle").await;
    browser.resize(PHONE).await;
    browser
        .goto(&site.url("/lossless?headroom.link_gbps=400"))
        .await;
    browser.find(".lossless-table").await;
    let fits = browser
        .eval("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        .await;
    assert_eq!(fits, true, "no sideways scrolling at 375 px");
    browser
        .eval("document.querySelector('.lossless-table').scrollIntoView(); return true")
        .await;
    browser.screenshot("lossless-375-dark").await;

    browser.assert_no_console_errors("lossless page").await;
    browser.close().await;
}
