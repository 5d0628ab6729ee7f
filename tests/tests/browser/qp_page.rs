//! The /qp page in real headless Chromium: an RC QP brought from RESET to RTS through the
//! modify builder (with an EINVAL and a bad value on the way), the diagram following, the
//! deep link surviving a reload, and the two-peer walkthrough stepped to the end.

use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};

async fn tick(browser: &Browser, attr: &str) {
    let id = format!("#{}-on", attr.to_ascii_lowercase().replace('_', "-"));
    browser.click_in_view(&id).await;
}

async fn type_value(browser: &Browser, attr: &str, text: &str) {
    let id = format!("#{}-value", attr.to_ascii_lowercase().replace('_', "-"));
    browser.type_over(&id, text).await;
}

async fn apply(browser: &Browser) {
    browser.click_in_view(".qp-apply").await;
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
    browser.text(".qp-result.error").await
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
    // A step's title names its peer once ("A: RESET → INIT", not "A: A: RESET → INIT").
    let doubled = browser
        .eval(
            "return [...document.querySelectorAll('.qp-step-list li, .qp-step-title')]\
               .map(e => e.textContent).filter(t => /^(A|B)\\b\\W+\\1\\b/.test(t))",
        )
        .await;
    assert_eq!(
        doubled,
        serde_json::json!([]),
        "titles that name their peer twice"
    );
    let mut seen = String::new();
    for _ in 0..total {
        seen.push_str(&browser.text(".qp-step").await);
        let next = browser.find(".qp-next").await;
        if next.attr("disabled").await.expect("attribute").is_some() {
            assert_eq!(
                browser.text(".qp-step-count").await,
                format!("Step {total} of {total}")
            );
            return seen;
        }
        let before = browser.text(".qp-step-count").await;
        browser.click_in_view(".qp-next").await;
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
    let browser = Browser::open(&site, "/qp?type=RC&state=RESET").await;
    assert_eq!(lit_state(&browser).await, "RESET");
    assert_eq!(browser.exercises_done().await, Vec::<String>::new());

    // Mid-way through the first modify: the live check already names what is missing.
    tick(&browser, "IBV_QP_PKEY_INDEX").await;
    let live = browser.text(".qp-live").await;
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
    assert_eq!(browser.text(".qp-current").await, "INIT");
    browser.wait_for_exercise("refused-rtr").await;
    assert_eq!(browser.exercises_done().await, ["refused-rtr"]);

    // A bad value is refused next to its field, and the C call leaves it out.
    type_value(&browser, "IBV_QP_MIN_RNR_TIMER", "40").await;
    let field_error = browser
        .text("[data-attr=IBV_QP_MIN_RNR_TIMER] .form-error")
        .await;
    assert!(field_error.contains("min_rnr_timer: 40"), "{field_error}");
    assert!(browser.text(".qp-c-source").await.contains("left out"));
    show(&browser, ".qp-live").await;
    browser.screenshot("qp-error-light").await;
    type_value(&browser, "IBV_QP_MIN_RNR_TIMER", "12").await;
    let meaning = browser
        .text("[data-attr=IBV_QP_MIN_RNR_TIMER] .form-note")
        .await;
    assert!(
        meaning.contains("0.640 ms") || meaning.contains("640"),
        "{meaning}"
    );

    // Fix it: tick the AV; the C call shows it; RTR.
    tick(&browser, "IBV_QP_AV").await;
    let c = browser.text(".qp-c-source").await;
    assert!(c.contains(".qp_state = IBV_QPS_RTR,"), "{c}");
    assert!(
        c.contains("IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU"),
        "{c}"
    );
    apply(&browser).await;
    browser.wait_for_text(".qp-current", "RTR").await;

    // RTR → RTS with the button that ticks exactly the required set.
    browser.click_in_view(".qp-tick-required").await;
    assert!(browser.text(".qp-live").await.contains("accepts"));
    apply(&browser).await;
    browser.wait_for_text(".qp-current", "RTS").await;
    assert_eq!(lit_state(&browser).await, "RTS");
    browser.wait_for_exercise("bring-up").await;
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
    let log = browser.text(".qp-log").await;
    assert!(
        log.contains("IBV_WC_WR_FLUSH_ERR") && log.contains("IBV_EVENT_QP_FATAL"),
        "{log}"
    );
    // Out of ERROR: the builder aims at RESET, the one state a modify can reach from there.
    apply(&browser).await;
    browser.wait_for_text(".qp-current", "RESET").await;
    browser.wait_for_exercise("recover-from-error").await;
    assert_eq!(
        browser.exercises_done().await,
        ["bring-up", "refused-rtr", "recover-from-error"]
    );
    show(&browser, ".try-this").await;
    browser.screenshot("qp-try-this-light").await;

    // Deep link: RTS in the URL again, reload, restored.
    browser
        .goto(&site.url("/qp?type=RC&state=RTS&walk=tcp&step=1"))
        .await;
    browser.wait_for_text(".qp-current", "RTS").await;
    browser.client.refresh().await.expect("reloads");
    browser.wait_for_text(".qp-current", "RTS").await;
    assert_eq!(lit_state(&browser).await, "RTS");

    // The two-peer walkthrough, by keyboard first, then to the end.
    browser.click_in_view(".qp-walk-stage").await;
    browser.press('\u{E014}').await; // →
    browser
        .wait_for_text(".qp-step-count", &browser.text(".qp-step-count").await)
        .await;
    assert!(browser
        .text(".qp-step-count")
        .await
        .starts_with("Step 2 of"));
    let url = browser.eval("return location.search").await;
    assert!(url.as_str().is_some_and(|s| s.contains("step=2")), "{url}");
    step_to_end(&browser).await;
    assert_eq!(
        browser
            .text("[data-peer=A] .qp-peer-state")
            .await
            .split_whitespace()
            .next(),
        Some("RTS")
    );
    assert_eq!(
        browser
            .text("[data-peer=B] .qp-peer-state")
            .await
            .split_whitespace()
            .next(),
        Some("RTS")
    );
    show(&browser, ".qp-walk").await;
    browser.screenshot("qp-walkthrough-light").await;

    // A failure variant: the peer vanishes, retries run out, ERR, flushed completions.
    browser
        .click_in_view("#qp-walk-variant option[value=retry-exceeded]")
        .await;
    browser
        .wait_for_text(".qp-step-count", &browser.text(".qp-step-count").await)
        .await;
    assert!(browser
        .text(".qp-step-count")
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
    browser.click_in_view(".qp-other-attrs summary").await;
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
    // Nothing in the view reaches past the right edge of a 375 px screen, but the state
    // diagram's drawing, which scrolls sideways in its own box to keep its labels readable
    // (UX check 2026-12: about 6 px at 375).
    let wide = browser
        .eval("const w = document.documentElement.clientWidth; return [...document.querySelectorAll('.qp-view *')].filter(e => !(e.closest('.qp-diagram-scroll') && !e.matches('.qp-diagram-scroll')) && e.getBoundingClientRect().right > w + 0.5).map(e => e.tagName + ': ' + e.textContent.slice(0, 40))")
        .await;
    assert_eq!(wide, serde_json::json!([]), "wider than the screen");
    // Every label, the notes ("current", "not UD") included, is 10 px or more: its size in
    // the drawing's units times the drawing's scale. The box has scrolled the current state
    // (RTS, right of the middle) into view, and the caption under it has not moved.
    let diagram = browser
        .eval(
            "const svg = document.querySelector('.qp-diagram-scroll > svg'); \
             const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
             const box = svg.parentElement.getBoundingClientRect(); \
             const rts = document.querySelector('.qp-diagram g.qp-node[data-state=RTS] rect').getBoundingClientRect(); \
             const caption = document.querySelector('.qp-diagram figcaption').getBoundingClientRect(); \
             return { smallest_px: Math.min(...[...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k)), \
                      current_shown: rts.left >= box.left && rts.right <= box.right, \
                      caption_in_place: caption.left >= box.left - 0.5 && caption.right <= box.right + 0.5 }",
        )
        .await;
    assert!(
        diagram["smallest_px"].as_f64().is_some_and(|px| px >= 10.0),
        "diagram labels at 375: {diagram}"
    );
    assert_eq!(diagram["current_shown"], true, "{diagram}");
    assert_eq!(diagram["caption_in_place"], true, "{diagram}");
    show(&browser, ".qp-builder").await;
    browser.screenshot("qp-phone-builder").await;
    show(&browser, ".qp-walk").await;
    browser.screenshot("qp-phone-walkthrough").await;
    browser.assert_no_console_errors("/qp phone").await;
    browser.close().await;
}

/// The id the page gives the state diagram's node for `state`.
fn node(state: &str) -> String {
    format!(".qp-diagram g.qp-node[data-state={state}]")
}

/// Focuses `css` from script (as Tab would leave it) and says whether it took focus.
async fn focus(browser: &Browser, css: &str) -> bool {
    browser
        .eval(&format!(
            "const e = document.querySelector('{css}'); e.focus(); return document.activeElement === e"
        ))
        .await
        == serde_json::Value::Bool(true)
}

async fn target(browser: &Browser) -> String {
    browser
        .eval("return document.querySelector('#qp-target').value")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The caption under the diagram when an arrow is shown, or `None`.
async fn edge_caption(browser: &Browser) -> Option<String> {
    browser
        .eval(
            "const c = document.querySelector('.qp-edge-caption.shown'); \
             return c && c.offsetHeight > 0 ? c.textContent : null",
        )
        .await
        .as_str()
        .map(str::to_string)
}

/// States in the diagram are buttons: click, Enter or Space aims the builder at one when the
/// kernel table allows the move, and says why not (the engine's reason) when it does not.
/// Every arrow tells what it means in a visible caption on focus as well as on hover, and
/// its accessible name carries the same text.
#[tokio::test]
async fn diagram_states_pick_the_target_and_arrows_explain_on_focus_and_hover() {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};

    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/qp?type=RC&state=INIT")).await;
    browser.wait_for_text(".qp-current", "INIT").await;
    assert_eq!(
        target(&browser).await,
        "RTR",
        "the natural next state first"
    );
    show(&browser, ".qp-diagram").await;

    // Keyboard: the state takes focus; Space and Enter pick it.
    assert!(focus(&browser, &node("RESET")).await, "a state takes focus");
    let scroll = browser.eval("return window.scrollY").await;
    browser.press(' ').await;
    browser
        .wait_until(
            "return document.querySelector('#qp-target').value === 'RESET'",
            "Space on RESET to aim the builder at RESET",
        )
        .await;
    assert_eq!(
        browser.eval("return window.scrollY").await,
        scroll,
        "Space on a state does not scroll the page"
    );
    let aimed = browser.text(".qp-pick").await;
    assert!(aimed.contains("INIT → RESET"), "{aimed}");
    assert!(browser
        .text(".qp-builder legend")
        .await
        .contains("INIT → RESET"));
    // Tab moves to the next state, Enter picks it.
    browser.press('\u{E004}').await; // Tab
    assert_eq!(
        browser
            .eval("return document.activeElement.dataset.state || document.activeElement.tagName")
            .await,
        "INIT",
        "Tab walks the states"
    );
    browser.screenshot("qp-diagram-node-focus").await;
    browser.press('\u{E007}').await; // Enter
    browser
        .wait_until(
            "return document.querySelector('#qp-target').value === 'INIT'",
            "Enter on INIT to aim the builder at INIT (an attribute change)",
        )
        .await;

    // A click on a state the kernel does not allow from INIT: the engine's reason, next to
    // the diagram, and the builder's target unchanged.
    browser.click_in_view(&node("RTS")).await;
    let refused = browser
        .find(".qp-pick.refused")
        .await
        .text()
        .await
        .unwrap_or_default();
    assert!(
        refused.contains("RC INIT → RTS is not a transition ibv_modify_qp() can make"),
        "{refused}"
    );
    assert!(refused.contains("the next step is RTR"), "{refused}");
    assert_eq!(target(&browser).await, "INIT");
    browser.click_in_view(&node("SQE")).await;
    let refused = browser.text(".qp-pick.refused").await;
    assert!(refused.contains("RC QPs never enter it"), "{refused}");
    // A click on an allowed one moves the builder.
    browser.click_in_view(&node("RTR")).await;
    browser
        .wait_until(
            "return document.querySelector('#qp-target').value === 'RTR'",
            "a click on RTR to aim the builder at RTR",
        )
        .await;
    assert!(browser
        .eval("return document.querySelectorAll('.qp-pick.refused').length === 0")
        .await
        .as_bool()
        .unwrap_or(false));

    // Arrows: after the states, Tab reaches them, and the caption shows the focused one.
    assert_eq!(edge_caption(&browser).await, None, "no arrow shown yet");
    assert!(focus(&browser, &node("ERR")).await);
    browser.press('\u{E004}').await; // Tab
    let name = browser
        .eval("const a = document.activeElement; return a.classList.contains('qp-edge-hit') ? a.getAttribute('aria-label') : null")
        .await;
    let name = name
        .as_str()
        .expect("Tab after the last state reaches an arrow");
    assert_eq!(edge_caption(&browser).await.as_deref(), Some(name));
    let fatal = ".qp-edge-hit[data-kind=implicit][data-from=INIT][data-to=ERR]";
    assert!(focus(&browser, fatal).await, "an arrow takes focus");
    let caption = edge_caption(&browser).await.unwrap_or_default();
    assert!(
        caption.contains("INIT → ERR without a modify: fatal error (IBV_EVENT_QP_FATAL)"),
        "{caption}"
    );
    let described = browser
        .eval(&format!(
            "return document.querySelector('{fatal}').getAttribute('aria-label')"
        ))
        .await;
    assert_eq!(
        described.as_str(),
        Some(caption.as_str()),
        "screen readers get it too"
    );
    show(&browser, ".qp-diagram").await;
    browser.screenshot("qp-diagram-focus").await;
    // Focus leaves: the caption goes.
    assert!(focus(&browser, "#qp-target").await);
    assert_eq!(edge_caption(&browser).await, None);

    // Hover: the pointer on an arrow's line shows its caption.
    show(&browser, ".qp-diagram").await;
    let modify = ".qp-edge-hit[data-kind=modify][data-from=RTR][data-to=RTS]";
    let point = browser
        .eval(&format!(
            "const e = document.querySelector('{modify}'); \
             const p = e.getPointAtLength(e.getTotalLength() / 2); \
             const m = e.getScreenCTM(); \
             const x = p.x * m.a + p.y * m.c + m.e, y = p.x * m.b + p.y * m.d + m.f; \
             return document.elementFromPoint(x, y) === e ? [x, y] : null"
        ))
        .await;
    let xy: Vec<f64> = point
        .as_array()
        .expect("the arrow's middle is on top at its point")
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    let pointer = MouseActions::new("mouse".to_string()).then(PointerAction::MoveTo {
        duration: None,
        x: xy[0].round(),
        y: xy[1].round(),
    });
    browser
        .client
        .perform_actions(pointer)
        .await
        .expect("the pointer moves");
    browser
        .wait_until(
            "const c = document.querySelector('.qp-edge-caption.shown'); \
             return c && c.textContent.startsWith('RTR → RTS by ibv_modify_qp()')",
            "hovering RTR → RTS to show its caption",
        )
        .await;
    let caption = edge_caption(&browser).await.unwrap_or_default();
    assert!(caption.contains("IBV_QP_SQ_PSN"), "{caption}");
    browser.screenshot("qp-diagram-hover").await;
    browser.assert_no_console_errors("/qp diagram").await;

    // 375 px: the caption and the refusal fit.
    browser.resize(PHONE).await;
    browser.goto(&site.url("/qp?type=UD&state=RTS")).await;
    browser.wait_for_text(".qp-current", "RTS").await;
    browser.click_in_view(&node("INIT")).await;
    browser.find(".qp-pick.refused").await;
    assert!(focus(&browser, ".qp-edge-hit[data-from=RTS][data-to=SQE]").await);
    let wide = browser
        .eval("const w = document.documentElement.clientWidth; return [...document.querySelectorAll('.qp-diagram, .qp-diagram *')].filter(e => !(e.closest('.qp-diagram-scroll') && !e.matches('.qp-diagram-scroll')) && e.getBoundingClientRect().right > w + 0.5).map(e => e.tagName + ': ' + e.textContent.slice(0, 40))")
        .await;
    assert_eq!(wide, serde_json::json!([]), "wider than the screen");
    show(&browser, ".qp-diagram").await;
    browser.screenshot("qp-phone-diagram").await;
    browser.assert_no_console_errors("/qp diagram phone").await;
    browser.close().await;
}

/// A ticked attribute with a value that does not read: the live check says the mask is
/// accepted and, with it, that this value is not valid and the C snippet leaves it out
/// (and what the kernel says of the snippet's own mask).
#[tokio::test]
async fn live_check_names_a_value_the_snippet_leaves_out() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/qp?type=RC&state=RESET")).await;
    browser.wait_for_text(".qp-current", "RESET").await;
    for attr in ["IBV_QP_PKEY_INDEX", "IBV_QP_PORT", "IBV_QP_ACCESS_FLAGS"] {
        tick(&browser, attr).await;
    }
    let live = browser.text(".qp-live").await;
    assert!(live.contains("accepts this mask"), "{live}");
    type_value(&browser, "IBV_QP_ACCESS_FLAGS", "REMOTE_FLY").await;
    assert!(browser
        .text(".qp-c-source")
        .await
        .contains("left out until their values read: IBV_QP_ACCESS_FLAGS"));
    let live = browser.text(".qp-live").await;
    assert!(
        live.contains("accepts this mask, but"),
        "the verdict names both facts: {live}"
    );
    assert!(
        live.contains("qp_access_flags = \"REMOTE_FLY\" is not a valid value"),
        "{live}"
    );
    assert!(live.contains("the C snippet below leaves it out"), "{live}");
    assert!(live.contains("missing IBV_QP_ACCESS_FLAGS"), "{live}");
    assert_eq!(
        browser
            .eval("return document.querySelector('.qp-live').classList.contains('ok')")
            .await,
        false,
        "not drawn as all good"
    );
    show(&browser, ".qp-live").await;
    browser.screenshot("qp-live-left-out").await;
    type_value(&browser, "IBV_QP_ACCESS_FLAGS", "IBV_ACCESS_REMOTE_WRITE").await;
    browser
        .wait_for_text(".qp-live p", "✓ ib_modify_qp_is_ok() accepts this mask.")
        .await;
    assert!(!browser.text(".qp-c-source").await.contains("left out"));
    browser.assert_no_console_errors("/qp live check").await;
    browser.close().await;
}
