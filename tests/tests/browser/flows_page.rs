//! The packet-flows page in real Chromium: every scenario plays to its end, stepping back
//! works, a deep link opens (and a reload restores) its step, the comparison shows two
//! stages, bad input is reported at its field, and animation frames stay short.

use fantoccini::key::Key;
use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};
use serde_json::Value;

/// Reads a data attribute of the player.
async fn player(browser: &Browser, attribute: &str) -> String {
    browser
        .eval(&format!(
            "const p = document.querySelector('section.flows'); return p ? p.dataset.{attribute} : null"
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Shows the stage and the panel in the viewport.
async fn frame_player(browser: &Browser) {
    browser
        .eval(
            "const c = document.querySelector('.flow-controls'); \
             window.scrollBy(0, c.getBoundingClientRect().top - 64)",
        )
        .await;
}

async fn set_speed(browser: &Browser, speed: &str) {
    browser
        .eval(&format!(
            "const s = document.querySelector('.flow-speed select'); s.value = '{speed}'; \
             s.dispatchEvent(new Event('change', {{bubbles: true}}))"
        ))
        .await;
}

#[tokio::test]
async fn every_flow_plays_steps_and_links() {
    let site = Site::start();
    let browser = Browser::open(&site, "/flows").await;
    browser.find("svg.flow-stage").await;

    let ids = browser
        .eval("return [...document.querySelectorAll('.flow-scenario option')].map(o => o.value)")
        .await;
    let ids: Vec<String> = ids
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    assert!(ids.len() >= 10, "the picker lists the registry: {ids:?}");
    // The size unit shows whole ("GiB"; UX check 2026-12: clipped to "Gi"), at desktop
    // width and on a phone.
    for size in [(1280, 900), PHONE] {
        browser.resize(size).await;
        let clipped = browser
            .eval("const u = document.querySelector('.flow-unit'); return !u || u.scrollWidth > u.clientWidth + 1 || u.getBoundingClientRect().width < 40")
            .await;
        assert_eq!(clipped, false, "the unit select is clipped at {size:?}");
    }
    browser.resize((1280, 900)).await;

    // Every scenario, stepped forward to its end, with a screenshot half-way.
    for id in &ids {
        browser
            .goto(&site.url(&format!("/flows?scenario={id}")))
            .await;
        browser
            .find(&format!("svg.flow-stage[data-scenario='{id}']"))
            .await;
        let segments: usize = player(&browser, "segments").await.parse().unwrap_or(0);
        assert!(segments > 0, "{id} has steps");
        assert_eq!(
            player(&browser, "done").await,
            "false",
            "{id} starts at the start"
        );
        assert_eq!(
            browser.text(".flow-position").await,
            format!("Step 0 of {segments}"),
            "{id}: no step is counted before one is taken"
        );
        // The first step by mouse, which leaves the focus on the button; the rest by Enter
        // on it, as a keyboard user steps, each press one step.
        let middle = segments / 2 + 1;
        browser.click_in_view(".flow-forward").await;
        browser.press_times(Key::Enter.into(), middle - 1).await;
        // Motion is reduced: the step is drawn whole as soon as its title shows.
        browser
            .wait_for_text_containing(".flow-step-title", &format!("Step {middle} of {segments}:"))
            .await;
        let title = browser.text(".flow-step-title").await;
        assert!(
            title.starts_with(&format!("Step {middle} of {segments}:")),
            "{id}: {title}"
        );
        let active = browser
            .eval("return document.querySelectorAll('.flow-actor.active').length")
            .await;
        assert!(
            active.as_u64().is_some_and(|n| n >= 1),
            "{id}: an actor is lit"
        );
        frame_player(&browser).await;
        browser.screenshot(&format!("flow-{id}")).await;
        browser
            .press_times(Key::Enter.into(), segments + 1 - middle)
            .await;
        browser
            .wait_until(
                "return document.querySelector('section.flows').dataset.done === 'true'",
                &format!("{id} to reach its end"),
            )
            .await;
        let caption = browser
            .find(".flow-breakdown figcaption")
            .await
            .text()
            .await
            .unwrap_or_default();
        // At the end the breakdown has filled to the end-to-end latency.
        let (so_far, total) = caption
            .trim_start_matches("Latency so far: ")
            .split_once(" of ")
            .unwrap_or_default();
        assert_eq!(so_far, total, "{id}: {caption}");
        // One step back.
        browser.click_in_view(".flow-back").await;
        browser
            .wait_until(
                &format!(
                    "return document.querySelector('section.flows').dataset.index === '{}'",
                    segments.saturating_sub(2)
                ),
                &format!("{id} to step back"),
            )
            .await;
        browser.assert_no_console_errors(id).await;
    }

    // Playing at 4×: the clock drives it to the end, and frames stay short.
    browser.goto(&site.url("/flows?scenario=post-send")).await;
    browser
        .find("svg.flow-stage[data-scenario='post-send']")
        .await;
    browser
        .eval("performance.clearMeasures('lab-flows-frame')")
        .await;
    set_speed(&browser, "4").await;
    browser.click_in_view(".flow-play").await;
    assert_eq!(player(&browser, "playing").await, "true");
    browser
        .wait_until(
            "return document.querySelector('section.flows').dataset.done === 'true'",
            "post-send to play to its end",
        )
        .await;
    assert_eq!(
        player(&browser, "playing").await,
        "false",
        "it stops at the end"
    );
    let frames = browser
        .eval("return performance.getEntriesByName('lab-flows-frame').map(e => e.duration)")
        .await;
    let frames: Vec<f64> = frames
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_f64)
        .collect();
    assert!(frames.len() > 20, "frames were measured: {}", frames.len());
    let slowest = frames.iter().copied().fold(0.0, f64::max);
    assert!(slowest < 50.0, "slowest frame {slowest} ms");
    assert!(
        browser
            .client
            .current_url()
            .await
            .expect("a URL")
            .query()
            .is_some_and(|q| q.contains("step=15")),
        "the URL follows the step"
    );

    // A deep link to a middle step, kept by a reload and moved by the keyboard.
    browser
        .goto(&site.url("/flows?scenario=tcp-socket&size=64KiB&step=7"))
        .await;
    for _ in 0..2 {
        let title = browser.text(".flow-step-title").await;
        assert!(title.starts_with("Step 7 of 18:"), "deep link: {title}");
        assert_eq!(player(&browser, "index").await, "6");
        let size = browser
            .find("#flow-field-message_bytes")
            .await
            .prop("value")
            .await
            .ok()
            .flatten();
        assert_eq!(size.as_deref(), Some("64"));
        browser.client.refresh().await.expect("page reloads");
        browser
            .find("svg.flow-stage[data-scenario='tcp-socket']")
            .await;
    }
    browser
        .eval("document.querySelector('section.flows').focus()")
        .await;
    browser.press(Key::Right.into()).await;
    browser
        .wait_until(
            "return location.search.includes('step=8')",
            "→ to step forward and the URL to follow",
        )
        .await;
    browser.press(Key::Left.into()).await;
    browser.press(Key::Left.into()).await;
    browser
        .wait_until(
            "return location.search.includes('step=6')",
            "← to step back",
        )
        .await;
    browser.press(Key::Space.into()).await;
    assert_eq!(player(&browser, "playing").await, "true", "space plays");
    browser.press(Key::Space.into()).await;
    assert_eq!(player(&browser, "playing").await, "false", "space pauses");

    // A topic link from the panel stays in the app.
    browser.eval("window.__sameDocument = true").await;
    let href = browser
        .find(".flow-step-topic a")
        .await
        .attr("href")
        .await
        .ok()
        .flatten()
        .unwrap_or_default();
    assert!(
        href.ends_with('/') || href.contains("/#"),
        "a topic's folder, relative to the site root: {href}"
    );
    browser
        .goto(&site.url("/flows?scenario=tcp-socket&step=3"))
        .await;
    browser.eval("window.__sameDocument = true").await;
    browser.click_in_view(".flow-step-topic a").await;
    browser
        .wait_until(
            "return location.pathname !== '/flows'",
            "the topic link to navigate",
        )
        .await;
    assert_eq!(
        browser.eval("return window.__sameDocument === true").await,
        true
    );

    // Bad input: located at its field, the text kept, the stage still there.
    browser.goto(&site.url("/flows?scenario=post-send")).await;
    browser
        .type_over("#flow-field-message_bytes", "lots\t")
        .await;
    let error = browser
        .find("[data-key='message_bytes'] .form-error")
        .await
        .text()
        .await
        .unwrap_or_default();
    assert!(error.contains("lots"), "the error names the text: {error}");
    let size = browser.find("#flow-field-message_bytes").await;
    size.clear().await.expect("field clears");
    size.send_keys("0\t").await.expect("typing works");
    browser
        .wait_for_text(
            "[data-key='message_bytes'] .form-error",
            "message_bytes = 0: a message must carry at least one byte",
        )
        .await;
    assert_eq!(
        browser
            .find("#flow-field-message_bytes")
            .await
            .prop("value")
            .await
            .ok()
            .flatten()
            .as_deref(),
        Some("0")
    );
    browser
        .find("svg.flow-stage[data-scenario='post-send']")
        .await;

    // Comparison: two stages on one time axis, played to the end.
    browser
        .goto(&site.url("/flows?compare=gpudirect-write,staged-write"))
        .await;
    browser.find(".flow-compare-pair").await;
    let stages = browser
        .eval(
            "return [...document.querySelectorAll('svg.flow-stage')].map(s => s.dataset.scenario)",
        )
        .await;
    assert_eq!(
        stages,
        serde_json::json!(["gpudirect-write", "staged-write"])
    );
    let segments: usize = player(&browser, "segments").await.parse().unwrap_or(0);
    let presses = segments / 3;
    for _ in 0..presses {
        browser.click_in_view(".flow-forward").await;
    }
    // The first press finishes step 1 where it stands, each later one moves on a step.
    if presses > 0 {
        browser
            .wait_until(
                &format!(
                    "return document.querySelector('section.flows').dataset.index === '{}'",
                    presses - 1
                ),
                "the comparison to stand at the step pressed to",
            )
            .await;
    }
    frame_player(&browser).await;
    browser.screenshot("flow-compare-gpudirect-staged").await;
    set_speed(&browser, "4").await;
    browser.click_in_view(".flow-play").await;
    browser
        .wait_until(
            "return document.querySelector('section.flows').dataset.done === 'true'",
            "the comparison to play to its end",
        )
        .await;
    let lit = browser
        .eval("return document.querySelectorAll('.flow-side-by-side .flow-step-title').length")
        .await;
    assert_eq!(lit, 2, "both sides show a step");

    // Dark theme and a phone-sized window.
    browser
        .goto(&site.url("/flows?scenario=gpudirect-write&step=8"))
        .await;
    browser.click_in_view(".theme-toggle").await;
    assert_eq!(
        browser
            .eval("return document.documentElement.dataset.theme")
            .await,
        "dark"
    );
    frame_player(&browser).await;
    browser.screenshot("flow-dark").await;
    browser.resize(PHONE).await;
    browser
        .goto(&site.url("/flows?scenario=nccl-allreduce&step=2"))
        .await;
    browser.find("svg.flow-stage").await;
    let overflow = browser
        .eval("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        .await;
    assert_eq!(
        overflow, true,
        "no sideways scrolling of the page at 375 px"
    );
    frame_player(&browser).await;
    browser.screenshot("flow-375").await;

    // UX check 2026-12: at 375 px the diagram's text was about 5.7 px and the remote half
    // lay off to the right. The stage turns tall: all of it in its box, every text 10 px or
    // more, the moving label over no actor.
    browser
        .goto(&site.url("/flows?scenario=gpudirect-write&step=8"))
        .await;
    browser
        .wait_until(
            "return !!document.querySelector('svg.flow-stage.tall .flow-message text')",
            "the stage drawn tall with its message",
        )
        .await;
    let stage = browser.eval(STAGE_CHECK).await;
    assert!(
        stage["smallest_px"].as_f64().is_some_and(|px| px >= 10.0),
        "text at 375 px: {stage}"
    );
    assert_eq!(stage["fits"], true, "the whole stage in its box: {stage}");
    assert_eq!(stage["covered"], serde_json::json!([]), "{stage}");
    frame_player(&browser).await;
    browser.screenshot("flow-375-tall").await;
    // Back at desktop width the stage is drawn across again; a 1 GiB WRITE's packets, the
    // step whose label ran over "Spine switch", cover no actor either.
    browser.resize((1280, 900)).await;
    browser
        .goto(&site.url("/flows?scenario=gpudirect-write&size=1GiB&network=roce-400g&step=9"))
        .await;
    browser
        .wait_until(
            "return !!document.querySelector('svg.flow-stage:not(.tall) .flow-message text')",
            "the stage drawn across with its message",
        )
        .await;
    let stage = browser.eval(STAGE_CHECK).await;
    assert_eq!(stage["covered"], serde_json::json!([]), "{stage}");
    assert!(
        browser
            .text(".flow-step-title")
            .await
            .contains("packets of an RDMA WRITE"),
        "step 9 is the packets' step"
    );

    browser.assert_no_console_errors("flows page").await;
    browser.close().await;
}

/// The first stage as drawn: its smallest text in CSS pixels (the SVG's own units times its
/// scale), whether it fits its box, and the actors the message's label covers.
const STAGE_CHECK: &str = "const svg = document.querySelector('svg.flow-stage'); \
    const box = svg.closest('.flow-stage-scroll'); \
    const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
    const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * k); \
    const label = svg.querySelector('.flow-message text').getBoundingClientRect(); \
    const covered = [...svg.querySelectorAll('.flow-actor')].filter(a => { \
        const r = a.querySelector('rect').getBoundingClientRect(); \
        return label.left < r.right - 0.5 && r.left < label.right - 0.5 \
            && label.top < r.bottom - 0.5 && r.top < label.bottom - 0.5; \
    }).map(a => a.dataset.actor); \
    return { smallest_px: Math.min(...sizes), fits: box.scrollWidth <= box.clientWidth + 1, covered };";

/// Focuses `css` (scrolled to the middle of the screen, clear of the sticky header) and
/// returns the page's scroll position after that.
async fn focus(browser: &Browser, css: &str) -> Value {
    browser.find(css).await;
    browser
        .eval(&format!(
            "const e = document.querySelector(\"{css}\"); e.scrollIntoView({{block: 'center'}}); \
             e.focus({{preventScroll: true}}); \
             return document.activeElement === e ? window.scrollY : null"
        ))
        .await
}

/// Presses `key` and waits until the player's `data-` `attribute` reads `value`.
async fn press_until(browser: &Browser, key: Key, attribute: &str, value: &str, what: &str) {
    browser.press(key.into()).await;
    browser
        .wait_until(
            &format!(
                "return document.querySelector('section.flows').dataset.{attribute} === '{value}'"
            ),
            what,
        )
        .await;
}

/// The hint under the player says "← back, → forward, space play/pause": with the player
/// focused, or anything in it whose own keys are not those (the scrubber, a topic link),
/// the keys do that and Space never scrolls the page. A button keeps Space (it presses the
/// button) and a text field keeps every key.
#[tokio::test]
async fn keys_work_in_the_player_as_the_hint_says() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser
        .goto(&site.url("/flows?scenario=tcp-socket&size=64KiB&step=7"))
        .await;
    browser
        .find("svg.flow-stage[data-scenario='tcp-socket']")
        .await;
    let hint = browser
        .find(".flow-keys")
        .await
        .text()
        .await
        .unwrap_or_default();
    assert!(hint.contains("space play/pause"), "{hint}");

    // Wherever focus sits, space plays, space pauses, and the page stays where it was.
    for css in ["section.flows", ".flow-scrub input", ".flow-step-topic a"] {
        browser
            .goto(&site.url("/flows?scenario=tcp-socket&size=64KiB&step=7"))
            .await;
        browser
            .find("svg.flow-stage[data-scenario='tcp-socket']")
            .await;
        let scroll = focus(&browser, css).await;
        assert!(scroll.is_number(), "{css} takes focus");
        assert_eq!(player(&browser, "index").await, "6");
        press_until(&browser, Key::Right, "index", "7", &format!("→ on {css}")).await;
        browser.press(Key::Left.into()).await;
        press_until(&browser, Key::Left, "index", "5", &format!("← ← on {css}")).await;
        press_until(
            &browser,
            Key::Space,
            "playing",
            "true",
            &format!("space on {css} to play"),
        )
        .await;
        press_until(
            &browser,
            Key::Space,
            "playing",
            "false",
            &format!("space on {css} to pause"),
        )
        .await;
        // Scrolling is instant here (`--disable-smooth-scrolling`): a scroll that Space had
        // started is done by the next frames.
        browser.settle().await;
        assert_eq!(
            browser.eval("return window.scrollY").await,
            scroll,
            "space on {css} does not scroll the page"
        );
        assert_eq!(
            browser
                .eval(&format!(
                    "return document.activeElement === document.querySelector(\"{css}\")"
                ))
                .await,
            true,
            "{css} keeps focus"
        );
    }

    // A button: the arrows step, Space presses the button (here: step forward), no scroll.
    let scroll = focus(&browser, ".flow-forward").await;
    let index: usize = player(&browser, "index")
        .await
        .parse()
        .expect("a step index");
    assert!(index > 0, "playing left the player past the first step");
    let back = (index - 1).to_string();
    press_until(&browser, Key::Left, "index", &back, "← on a button").await;
    press_until(
        &browser,
        Key::Space,
        "index",
        &index.to_string(),
        "space to press Forward",
    )
    .await;
    assert_eq!(
        player(&browser, "playing").await,
        "false",
        "space pressed the button"
    );
    assert_eq!(browser.eval("return window.scrollY").await, scroll);

    // In a text field the keys are the field's: → moves the caret, space types.
    let index = player(&browser, "index").await;
    focus(&browser, "#flow-field-message_bytes").await;
    browser.press(Key::Right.into()).await;
    browser.press(Key::Space.into()).await;
    // The field took the space, so the page has handled both keys.
    browser
        .wait_until(
            "return document.querySelector('#flow-field-message_bytes').value.includes(' ')",
            "the space to land in the field",
        )
        .await;
    browser.settle().await;
    assert_eq!(player(&browser, "index").await, index, "→ in a field");
    assert_eq!(
        player(&browser, "playing").await,
        "false",
        "space in a field"
    );
    browser.assert_no_console_errors("flows keys").await;
    browser.close().await;
}

/// Steps the focused player forward with → until the shown step's title contains `title`.
async fn step_to(browser: &Browser, title: &str) {
    // The step's title and the player's index: the first → shows the first step without
    // moving the index, later ones move both.
    const SHOWN: &str = "(document.querySelector('.flow-step-title')?.textContent ?? '') + '#' + \
         document.querySelector('section.flows').dataset.index";
    for _ in 0..60 {
        let shown = browser.eval(&format!("return {SHOWN}")).await;
        let shown = shown.as_str().unwrap_or_default().to_string();
        if shown.split('#').next().is_some_and(|t| t.contains(title)) {
            return;
        }
        browser.press(Key::Right.into()).await;
        browser
            .wait_until(
                &format!("return {SHOWN} !== {shown:?}"),
                "the player to move on",
            )
            .await;
    }
    panic!("no step titled {title:?}");
}

/// Picks scenario `id` in the player's menu, as a learner does, and focuses the player.
async fn pick_scenario(browser: &Browser, id: &str) {
    browser
        .set_value("select.flow-scenario", id, "change")
        .await;
    browser
        .find(&format!("svg.flow-stage[data-scenario='{id}']"))
        .await;
    focus(browser, "section.flows").await;
}

/// Issue 18, item 11: the view's "try this" tasks tick off when the player shows the step,
/// and stay ticked in the other scenarios.
#[tokio::test]
async fn flows_try_this_tasks_tick_off_at_their_steps() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/flows?scenario=post-send")).await;
    browser
        .find("svg.flow-stage[data-scenario='post-send']")
        .await;
    browser.find(".try-this").await;
    focus(&browser, "section.flows").await;
    // Every step of the first scenario, and none of the tasks.
    let segments: usize = player(&browser, "segments").await.parse().expect("a count");
    for _ in 0..segments {
        browser.press(Key::Right.into()).await;
    }
    browser
        .wait_until(
            "return document.querySelector('section.flows').dataset.done === 'true'",
            "the first scenario to end",
        )
        .await;
    assert_eq!(browser.exercises_done().await, Vec::<String>::new());

    pick_scenario(&browser, "go-back-n").await;
    step_to(&browser, "NAK").await;
    browser.wait_for_exercise("find-nak").await;
    pick_scenario(&browser, "pfc-pause").await;
    step_to(&browser, "PAUSE").await;
    browser.wait_for_exercise("find-pause").await;
    pick_scenario(&browser, "tcp-socket").await;
    step_to(&browser, "copies").await;
    browser.wait_for_exercise("find-cpu-copy").await;
    assert_eq!(
        browser.exercises_done().await,
        ["find-nak", "find-pause", "find-cpu-copy"]
    );
    browser
        .eval("document.querySelector('.try-this').scrollIntoView(); return null")
        .await;
    browser.screenshot("flows-try-this-light").await;
    browser.assert_no_console_errors("the flows tasks").await;
    browser.close().await;
}
