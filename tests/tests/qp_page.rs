//! The /qp page in real headless Chromium: an RC QP brought from RESET to RTS through the
//! modify builder (with an EINVAL and a bad value on the way), the diagram following, the
//! deep link surviving a reload, and the two-peer walkthrough stepped to the end.

use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};

async fn tick(browser: &Browser, attr: &str) {
    let id = format!("#{}-on", attr.to_ascii_lowercase().replace('_', "-"));
    click(browser, &id).await;
}

async fn type_value(browser: &Browser, attr: &str, text: &str) {
    let id = format!("#{}-value", attr.to_ascii_lowercase().replace('_', "-"));
    let field = browser.find(&id).await;
    field.clear().await.expect("field clears");
    field.send_keys(text).await.expect("field takes keys");
}

/// Scrolls `css` to the middle of the screen (clear of the sticky header) and clicks it.
async fn click(browser: &Browser, css: &str) {
    let element = browser.find(css).await;
    browser
        .eval(&format!(
            "document.querySelector('{css}').scrollIntoView({{block: 'center'}}); return true"
        ))
        .await;
    element.click().await.expect("element clicks");
}

async fn apply(browser: &Browser) {
    click(browser, ".qp-apply").await;
}

async fn text_of(browser: &Browser, css: &str) -> String {
    browser.find(css).await.text().await.expect("element text")
}

async fn show(browser: &Browser, css: &str) {
    browser
        .eval(&format!(
            "document.querySelector('{css}').scrollIntoView({{block: 'start'}}); return true"
        ))
        .await;
}

async fn lit_state(browser: &Browser) -> serde_json::Value {
    browser
        .eval("const n = document.querySelectorAll('.qp-diagram g.qp-node.current'); return n.length === 1 ? n[0].dataset.state : n.length")
        .await
}

/// RESET → INIT with the three attributes the kernel requires, ticked by hand.
async fn reset_to_init(browser: &Browser) {
    browser.wait_for_text(".qp-current", "RESET").await;
    for attr in ["IBV_QP_PKEY_INDEX", "IBV_QP_PORT", "IBV_QP_ACCESS_FLAGS"] {
        tick(browser, attr).await;
    }
    apply(browser).await;
    browser.wait_for_text(".qp-current", "INIT").await;
}

/// INIT → RTR with everything but IBV_QP_AV: the kernel's EINVAL.
async fn rtr_without_av(browser: &Browser) -> String {
    for attr in [
        "IBV_QP_PATH_MTU",
        "IBV_QP_DEST_QPN",
        "IBV_QP_RQ_PSN",
        "IBV_QP_MAX_DEST_RD_ATOMIC",
        "IBV_QP_MIN_RNR_TIMER",
    ] {
        tick(browser, attr).await;
    }
    apply(browser).await;
    text_of(browser, ".qp-result.error").await
}

async fn step_count(browser: &Browser) -> u64 {
    browser
        .eval("return document.querySelectorAll('.qp-step-list li').length")
        .await
        .as_u64()
        .expect("a count")
}

/// Clicks Next until it is disabled, checking each click moves one step; returns the text
/// of every step seen.
async fn step_to_end(browser: &Browser) -> String {
    let total = step_count(browser).await;
    let mut seen = String::new();
    for _ in 0..total {
        seen.push_str(&text_of(browser, ".qp-step").await);
        let next = browser.find(".qp-next").await;
        if next.attr("disabled").await.expect("attribute").is_some() {
            assert_eq!(
                text_of(browser, ".qp-step-count").await,
                format!("Step {total} of {total}")
            );
            return seen;
        }
        let before = text_of(browser, ".qp-step-count").await;
        click(browser, ".qp-next").await;
        let n: u64 = before
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .expect("a step number");
        browser
            .wait_for_text(".qp-step-count", &format!("Step {} of {total}", n + 1))
            .await;
    }
    panic!("the walkthrough never ended");
}

#[tokio::test]
async fn rc_qp_reaches_rts_through_the_builder_and_the_walkthrough_runs() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/qp?type=RC&state=RESET")).await;
    browser.wait_for_text("main h1", "QP state machine").await;
    assert_eq!(lit_state(&browser).await, "RESET");

    // Mid-way through the first modify: the live check already names what is missing.
    tick(&browser, "IBV_QP_PKEY_INDEX").await;
    let live = text_of(&browser, ".qp-live").await;
    assert!(
        live.contains("missing IBV_QP_ACCESS_FLAGS | IBV_QP_PORT"),
        "{live}"
    );
    show(&browser, ".qp-builder").await;
    browser.screenshot("qp-builder-light").await;
    tick(&browser, "IBV_QP_PKEY_INDEX").await; // untick again: reset_to_init ticks all three
    reset_to_init(&browser).await;
    assert_eq!(lit_state(&browser).await, "INIT");

    // INIT → RTR without the address vector: EINVAL naming the missing bit, state unchanged.
    let error = rtr_without_av(&browser).await;
    assert!(error.contains("errno 22 (EINVAL"), "{error}");
    assert!(error.contains("missing IBV_QP_AV"), "{error}");
    assert!(
        error.contains("you must also set: IBV_QP_AV (attr.ah_attr)"),
        "{error}"
    );
    assert_eq!(text_of(&browser, ".qp-current").await, "INIT");

    // A bad value is refused next to its field, and the C call leaves it out.
    type_value(&browser, "IBV_QP_MIN_RNR_TIMER", "40").await;
    let field_error = text_of(&browser, "[data-attr=IBV_QP_MIN_RNR_TIMER] .qp-field-error").await;
    assert!(field_error.contains("min_rnr_timer: 40"), "{field_error}");
    assert!(text_of(&browser, ".qp-c-source").await.contains("left out"));
    show(&browser, ".qp-live").await;
    browser.screenshot("qp-error-light").await;
    type_value(&browser, "IBV_QP_MIN_RNR_TIMER", "12").await;
    let meaning = text_of(&browser, "[data-attr=IBV_QP_MIN_RNR_TIMER] .qp-meaning").await;
    assert!(
        meaning.contains("0.640 ms") || meaning.contains("640"),
        "{meaning}"
    );

    // Fix it: tick the AV; the C call shows it; RTR.
    tick(&browser, "IBV_QP_AV").await;
    let c = text_of(&browser, ".qp-c-source").await;
    assert!(c.contains(".qp_state = IBV_QPS_RTR,"), "{c}");
    assert!(
        c.contains("IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU"),
        "{c}"
    );
    apply(&browser).await;
    browser.wait_for_text(".qp-current", "RTR").await;

    // RTR → RTS with the button that ticks exactly the required set.
    click(&browser, ".qp-tick-required").await;
    assert!(text_of(&browser, ".qp-live").await.contains("accepts"));
    apply(&browser).await;
    browser.wait_for_text(".qp-current", "RTS").await;
    assert_eq!(lit_state(&browser).await, "RTS");
    let open = browser
        .eval(
            "return document.querySelectorAll('.qp-edge.open[data-from=RTS][data-to=SQD]').length",
        )
        .await;
    assert_eq!(open, 1, "RTS → SQD is drawn as open from RTS");
    show(&browser, ".qp-diagram").await;
    browser.screenshot("qp-diagram-light").await;

    // Events: a posted send then a fatal error flushes it.
    browser
        .eval("[...document.querySelectorAll('.qp-event-buttons button')].find(b => b.textContent.startsWith('ibv_post_send')).click(); return true")
        .await;
    browser
        .eval("[...document.querySelectorAll('.qp-event-buttons button')].find(b => b.textContent === 'Fatal error').click(); return true")
        .await;
    browser.wait_for_text(".qp-current", "ERR").await;
    let log = text_of(&browser, ".qp-log").await;
    assert!(
        log.contains("IBV_WC_WR_FLUSH_ERR") && log.contains("IBV_EVENT_QP_FATAL"),
        "{log}"
    );

    // Deep link: RTS in the URL again, reload, restored.
    browser
        .goto(&site.url("/qp?type=RC&state=RTS&walk=tcp&step=1"))
        .await;
    browser.wait_for_text(".qp-current", "RTS").await;
    browser.client.refresh().await.expect("reloads");
    browser.wait_for_text(".qp-current", "RTS").await;
    assert_eq!(lit_state(&browser).await, "RTS");

    // The two-peer walkthrough, by keyboard first, then to the end.
    click(&browser, ".qp-walk-stage").await;
    browser.press('\u{E014}').await; // →
    browser
        .wait_for_text(".qp-step-count", &text_of(&browser, ".qp-step-count").await)
        .await;
    assert!(text_of(&browser, ".qp-step-count")
        .await
        .starts_with("Step 2 of"));
    let url = browser.eval("return location.search").await;
    assert!(url.as_str().is_some_and(|s| s.contains("step=2")), "{url}");
    step_to_end(&browser).await;
    assert_eq!(
        text_of(&browser, "[data-peer=A] .qp-peer-state")
            .await
            .split_whitespace()
            .next(),
        Some("RTS")
    );
    assert_eq!(
        text_of(&browser, "[data-peer=B] .qp-peer-state")
            .await
            .split_whitespace()
            .next(),
        Some("RTS")
    );
    show(&browser, ".qp-walk").await;
    browser.screenshot("qp-walkthrough-light").await;

    // A failure variant: the peer vanishes, retries run out, ERR, flushed completions.
    click(&browser, "#qp-walk-variant option[value=retry-exceeded]").await;
    browser
        .wait_for_text(".qp-step-count", &text_of(&browser, ".qp-step-count").await)
        .await;
    assert!(text_of(&browser, ".qp-step-count")
        .await
        .starts_with("Step 1 of"));
    let seen = step_to_end(&browser).await;
    assert!(seen.contains("IBV_WC_RETRY_EXC_ERR"), "{seen}");
    assert!(seen.contains("IBV_WC_WR_FLUSH_ERR"), "{seen}");
    assert!(browser
        .eval("return location.search")
        .await
        .as_str()
        .is_some_and(|s| s.contains("walk=retry-exceeded")));
    browser.assert_no_console_errors("/qp light").await;

    // Dark theme: the same three views.
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("toggles");
    browser
        .goto(&site.url("/qp?type=RC&state=INIT&walk=missing-attribute&step=1"))
        .await;
    browser.wait_for_text(".qp-current", "INIT").await;
    // Not accepted at INIT → RTR, so it sits in the folded "other attributes" list.
    click(&browser, ".qp-other-attrs summary").await;
    tick(&browser, "IBV_QP_TIMEOUT").await;
    show(&browser, ".qp-builder").await;
    browser.screenshot("qp-builder-dark").await;
    let error = rtr_without_av(&browser).await;
    assert!(error.contains("missing IBV_QP_AV"), "{error}");
    assert!(error.contains("unexpected IBV_QP_TIMEOUT"), "{error}");
    show(&browser, ".qp-live").await;
    browser.screenshot("qp-error-dark").await;
    let seen = step_to_end(&browser).await;
    assert!(seen.contains("EINVAL"), "{seen}");
    show(&browser, ".qp-walk").await;
    browser.screenshot("qp-walkthrough-dark").await;
    browser.assert_no_console_errors("/qp dark").await;

    // 375 px: nothing wider than the screen.
    browser.resize(PHONE).await;
    browser
        .goto(&site.url("/qp?type=UD&state=RTS&walk=rnr&step=3"))
        .await;
    browser.wait_for_text(".qp-current", "RTS").await;
    // Nothing in the view reaches past the right edge of a 375 px screen.
    let wide = browser
        .eval("const w = document.documentElement.clientWidth; return [...document.querySelectorAll('.qp-view *')].filter(e => e.getBoundingClientRect().right > w + 0.5).map(e => e.tagName + ': ' + e.textContent.slice(0, 40))")
        .await;
    assert_eq!(wide, serde_json::json!([]), "wider than the screen");
    show(&browser, ".qp-builder").await;
    browser.screenshot("qp-phone-builder").await;
    show(&browser, ".qp-walk").await;
    browser.screenshot("qp-phone-walkthrough").await;
    browser.assert_no_console_errors("/qp phone").await;
    browser.close().await;
}
