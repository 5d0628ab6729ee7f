//! The live page in real Chromium, connected over a real WebSocket to the real probe: this
//! machine's interfaces, and the recorded RDMA fixture with every counter explained.

use std::{
    process::Command,
    time::{Duration, Instant},
};

use tempfile::TempDir;

use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    probe::copy_tree,
    site::Site,
};

/// A private copy of the probe's recorded sysfs/debugfs trees, so the test can move counters;
/// removed when dropped.
fn fixture_copy(name: &str) -> TempDir {
    let source = lab_tests::repo_root().join("native-probe/tests/fixtures");
    let copy = tempfile::Builder::new()
        .prefix(&format!("rdma-lab-live-fixture-{name}-"))
        .tempdir()
        .expect("a folder for the copy");
    copy_tree(&source, copy.path()).expect("the fixture copies");
    copy
}

#[tokio::test]
async fn live_page_shows_this_machines_interfaces() {
    let site = Site::start_with(&["--interval-ms", "200"]);
    let browser = Browser::open_connected(&site, "/live").await;
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
    // Whatever statistics this kernel has for lo, each is explained.
    assert_every_netdev_counter_explained(&browser, "this machine").await;
    browser.screenshot("live-this-machine").await;
    browser.assert_no_console_errors("live page").await;
    browser.close().await;
}

#[tokio::test]
async fn live_page_explains_the_fixtures_rdma_counters_and_follows_changes() {
    let copy = fixture_copy("counters");
    let fixture = copy.path();
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
    let browser = Browser::open_connected(&site, "/live").await;
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
    // On a phone the type, the column that says RoCE v2, is in view before the table
    // scrolls (UX check 2026-12: it was off to the right).
    browser.resize(PHONE).await;
    let type_in_view = browser
        .eval(
            "const cell = document.querySelector('.live-gids tbody tr td:nth-child(4)'); \
             const box = cell.closest('.table-scroll').getBoundingClientRect(); \
             return [cell.textContent.includes('RoCE'), cell.getBoundingClientRect().right <= box.right + 1]",
        )
        .await;
    assert_eq!(type_in_view, serde_json::json!([true, true]));
    browser.resize(DESKTOP).await;

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
    assert_every_netdev_counter_explained(&browser, "the fixture").await;

    // Move a counter on disk and watch the rate appear. The traffic runs until the page has
    // shown it: a rate is the climb between the last two samples, so it falls back to zero
    // once the counter stops (stopping first left a window where the wait saw only zeros).
    let xmit = sysfs.join("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
    let traffic = lab_tests::probe::Traffic::start(vec![xmit]);
    browser.wait_until("const r = document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=port_xmit_data] .rate'); return !!r && /[1-9]/.test(r.textContent) && r.textContent.endsWith('/s')",
        "a non-zero transmit rate on mlx5_0 port 1",
    )
    .await;
    browser.screenshot("live-fixture-light").await;
    drop(traffic);
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
    browser.type_over("#probe-url", "ftp://nowhere").await;
    let still_typing = browser.eval("return document.activeElement.id").await;
    assert_eq!(
        still_typing, "probe-url",
        "the field keeps focus while the learner types"
    );
    // The page checks the address as it is typed; the help says so once it has.
    browser
        .wait_for_text_containing("#probe-url-error", "not a probe address")
        .await;
    // Port 9 (discard) on loopback: nothing listens there.
    browser.type_over("#probe-url", "127.0.0.1:9").await;
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

/// Every interface statistic on the page says what it counts, and none is "not explained".
async fn assert_every_netdev_counter_explained(browser: &Browser, context: &str) {
    let unexplained = browser
        .eval(
            "const rows = [...document.querySelectorAll(\"[aria-label^='Interface '] tr[data-counter]\")];\
             return [rows.length, [...new Set(rows.filter(r => r.textContent.includes('Not explained')).map(r => r.dataset.counter))]]",
        )
        .await;
    assert!(
        unexplained[0].as_u64().is_some_and(|n| n > 0),
        "no interface statistics on the page ({context})"
    );
    assert_eq!(
        unexplained[1],
        serde_json::json!([]),
        "interface statistics not explained ({context})"
    );
}

/// Puts `address` in the probe field as typing would and asks to connect. Set in one step:
/// the page redraws as messages arrive, and a redraw between clearing the field and typing
/// would bring the old text back.
async fn connect_to(browser: &Browser, address: &str) {
    browser.set_value("#probe-url", address, "input").await;
    browser
        .eval("document.querySelector('.live-connect').scrollIntoView({block: 'center'}); return true")
        .await;
    // Enter in the field, as a keyboard user submits: a key goes to the focused field, where
    // a click goes to a point the page may have moved since it was measured.
    browser
        .find("#probe-url")
        .await
        .send_keys("\u{E007}")
        .await
        .expect("the field takes Enter");
}

/// How much wider than the window the page is, with the elements that stick out (outside a
/// box that scrolls on its own), for the failure message.
async fn page_overflow(browser: &Browser) -> (f64, String) {
    let found = browser
        .eval(
            "const w = document.documentElement.clientWidth;\
             const out = [...document.querySelectorAll('body *')].filter(e => {\
               const r = e.getBoundingClientRect();\
               return r.width > 0 && r.right > w + 1 && !e.parentElement.closest('.table-scroll');\
             }).slice(0, 8).map(e => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} right=${Math.round(e.getBoundingClientRect().right)}`);\
             return [document.documentElement.scrollWidth - w, out.join('; ')]",
        )
        .await;
    (
        found[0].as_f64().unwrap_or(f64::MAX),
        found[1].as_str().unwrap_or_default().to_string(),
    )
}

async fn assert_fits_the_phone(browser: &Browser, context: &str) {
    let (overflow, culprits) = page_overflow(browser).await;
    assert!(
        overflow <= 0.0,
        "/live {context} is {overflow} px wider than the phone; sticking out: {culprits}"
    );
}

/// Each table of the view keeps to the screen, and one wider than its box scrolls inside it
/// with its first column in view.
async fn assert_wide_tables_scroll_in_their_box(browser: &Browser) {
    let tables = browser
        .eval(
            "return [...document.querySelectorAll('.live-view .table-scroll')].map(box => {\
               const caption = box.getAttribute('aria-labelledby') ?? '';\
               const first = box.querySelector('tbody tr > :first-child');\
               const last = box.querySelector('tbody tr > :last-child');\
               const wide = box.scrollWidth > box.clientWidth + 1;\
               const lastBefore = last.getBoundingClientRect().left;\
               box.scrollLeft = box.scrollWidth;\
               const boxLeft = box.getBoundingClientRect().left;\
               const kept = first.getBoundingClientRect().left >= boxLeft - 1;\
               const moved = last.getBoundingClientRect().left < lastBefore - 1;\
               box.scrollLeft = 0;\
               const held = first.getBoundingClientRect().width;\
               const widest = Math.max(...[...box.querySelectorAll('tr > :not(:first-child)')].map(c => c.getBoundingClientRect().width));\
               const seen = !wide || widest <= box.clientWidth - held + 1;\
               return { caption, wide, kept, moved, seen, held, widest, room: box.clientWidth, right: box.getBoundingClientRect().right, focusable: box.tabIndex >= 0 };\
             })",
        )
        .await;
    let tables = tables.as_array().cloned().unwrap_or_default();
    assert!(!tables.is_empty(), "no tables on /live");
    assert!(
        tables.iter().any(|t| t["wide"] == true),
        "no table is wider than a phone, so nothing here tests scrolling: {tables:#?}"
    );
    for table in &tables {
        assert!(
            table["right"].as_f64().is_some_and(|r| r <= PHONE.0 as f64),
            "a table's box sticks out of the screen: {table}"
        );
        if table["wide"] == true {
            assert!(
                table["moved"] == true && table["kept"] == true && table["focusable"] == true,
                "a wide table must scroll in its own box (by keyboard too) and keep its first column in view: {table}"
            );
            assert!(
                table["seen"] == true,
                "a column beside the held first one is wider than the room left for it, so part of it can never be seen: {table}"
            );
        }
    }
}

#[tokio::test]
async fn live_page_fits_a_phone_with_and_without_a_probe() {
    let site = Site::live_demo();
    let browser = Browser::start().await;
    browser.resize(PHONE).await;
    browser.goto(&site.url("/live")).await;
    browser.wait_for_text(".live-status", "Connected").await;
    browser
        .wait_until(
            "return !!document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=port_xmit_data] .rate')?.textContent.endsWith('/s')",
            "the demo's rates",
        )
        .await;
    assert_fits_the_phone(&browser, "connected to the demo").await;
    assert_wide_tables_scroll_in_their_box(&browser).await;
    browser.screenshot("live-demo-phone").await;
    browser
        .eval("document.querySelector('.live-devices').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-demo-phone-tables").await;
    browser
        .eval("document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] .live-counters').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-demo-phone-counters").await;

    // A mistyped address: the reason under the field wraps too.
    browser
        .set_value(
            "#probe-url",
            "ftp://a-rather-long-host-name.example.org:7878/ws",
            "input",
        )
        .await;
    assert_fits_the_phone(&browser, "with a refused address").await;

    // Nowhere: the probe's data goes, the advice comes.
    connect_to(&browser, "127.0.0.1:9").await;
    browser
        .wait_until(
            "return document.querySelector('.live-problem')?.textContent.includes('Nothing answered')",
            "the advice for a dead address",
        )
        .await;
    assert_fits_the_phone(&browser, "not connected").await;
    browser
        .eval("window.scrollTo(0, 0); document.querySelector('.live-connect').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-dead-phone").await;
    browser.close().await;
}

#[tokio::test]
async fn the_demo_shows_ports_before_interfaces_and_explains_every_statistic() {
    let site = Site::live_demo();
    let browser = Browser::open_connected(&site, "/live").await;
    browser
        .wait_until(
            "return document.querySelectorAll(\"[aria-label^='Interface '] tr[data-counter]\").length > 0",
            "the demo's interface panels",
        )
        .await;
    // The panels in page order: every RDMA port comes before the first interface, and the
    // device table before the interface table.
    let order = browser
        .eval("return [...document.querySelectorAll('.live-panel[aria-label], .live-devices, .live-netdevs')].map(e => e.getAttribute('aria-label') ?? e.className)")
        .await;
    let order: Vec<String> = order
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let last_port = order.iter().rposition(|l| l.starts_with("RDMA port"));
    let first_interface = order.iter().position(|l| l.starts_with("Interface"));
    let devices = order.iter().position(|l| l.contains("live-devices"));
    let netdevs = order.iter().position(|l| l.contains("live-netdevs"));
    assert!(
        matches!((last_port, first_interface), (Some(p), Some(i)) if p < i),
        "RDMA ports come before interfaces: {order:?}"
    );
    assert!(
        matches!((devices, netdevs), (Some(d), Some(n)) if d < n),
        "the device table comes before the interface table: {order:?}"
    );
    assert_every_netdev_counter_explained(&browser, "the demo").await;
    // The demo's mlx5_1 data counters are 32-bit and pinned at their top: the chart says so
    // (UX check 2026-12: it waited "for a second sample" for ever).
    browser
        .wait_until(
            "const f = [...document.querySelectorAll('.live-chart')].find(f => f.querySelector('figcaption').textContent.startsWith('mlx5_1:1 throughput')); \
             return !!f && f.querySelector('.live-legend').textContent.includes('stuck at its maximum (4294967295')",
            "the saturated counter named under its chart",
        )
        .await;
    browser.assert_no_console_errors("the demo").await;
    browser.close().await;
}

/// What the view says about its data: the "not live" note, and whether panels are there.
const DATA_STATE: &str = "return {\
    stale: document.querySelector('.live-stale')?.textContent ?? null,\
    panels: document.querySelectorAll('.live-panel[aria-label]').length,\
    tables: document.querySelectorAll('.live-devices, .live-netdevs, .live-counters').length,\
    titles: [...document.querySelectorAll('.live-panel[aria-label] .live-panel-title')].map(t => t.textContent),\
    source: document.querySelector('.live-source')?.textContent ?? null,\
    status: document.querySelector('.live-status')?.textContent ?? '',\
}";

#[tokio::test]
async fn a_probe_that_stops_leaves_its_data_marked_not_live_until_another_address() {
    let site = Site::live_demo();
    let browser = Browser::open_connected(&site, "/live").await;
    browser
        .wait_until(
            "return !!document.querySelector('[aria-label=\"RDMA port mlx5_0:1\"] tr[data-counter=port_xmit_data] .rate')?.textContent.endsWith('/s')",
            "the demo's rates",
        )
        .await;
    let live = browser.eval(DATA_STATE).await;
    assert_eq!(
        live["stale"],
        serde_json::Value::Null,
        "live data is not marked stale: {live}"
    );
    assert!(
        live["titles"].as_array().is_some_and(|t| !t.is_empty()
            && t.iter()
                .all(|t| !t.as_str().unwrap_or_default().contains("not live"))),
        "{live}"
    );
    // The page joined the probe that served it, and the demo's mlx5_0 sends and handles
    // CNPs, but no task is done on arrival (UX check 2026-12: two of three were): each waits
    // for the learner. Connect, pressed, is the first.
    assert_eq!(browser.exercises_done().await, Vec::<String>::new());
    browser
        .click_in_view(".live-connect button[type=submit]")
        .await;
    browser.wait_for_exercise("connect").await;
    // DCQCN at work is found by scrolling to a port's congestion chart while its CNPs rise.
    assert_eq!(browser.exercises_done().await, ["connect"]);
    browser
        .wait_until(
            "const f = [...document.querySelectorAll('.live-chart')].find(f => f.querySelector('figcaption').textContent.startsWith('mlx5_0:1 congestion')); \
             if (f) f.scrollIntoView({block: 'center'}); return !!f",
            "mlx5_0's congestion chart on screen",
        )
        .await;
    browser.wait_for_exercise("dcqcn-at-work").await;
    assert_eq!(browser.exercises_done().await, ["connect", "dcqcn-at-work"]);

    // The probe dies: at once the data says when it was last seen and that it is not live.
    drop(site);
    let died = Instant::now();
    let stale = browser
        .wait_until(
            "const s = document.querySelector('.live-stale')?.textContent ?? ''; return /Last seen at \\d\\d:\\d\\d:\\d\\d, not live/.test(s) && s",
            "the not-live note",
        )
        .await;
    assert!(
        died.elapsed() < Duration::from_secs(3),
        "the note took {:?} to appear",
        died.elapsed()
    );
    let dead = browser.eval(DATA_STATE).await;
    browser.wait_for_exercise("stop-the-probe").await;
    assert!(
        dead["panels"].as_u64().is_some_and(|n| n > 0),
        "the last data stays to read: {dead}"
    );
    assert!(
        dead["titles"].as_array().is_some_and(|t| t
            .iter()
            .all(|t| t.as_str().unwrap_or_default().contains("not live"))),
        "every panel is labelled not live: {dead}"
    );
    assert!(
        !dead["status"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Connected"),
        "{dead}"
    );
    browser
        .eval(
            "document.querySelector('.live-stale').scrollIntoView({block: 'center'}); return true",
        )
        .await;
    browser.screenshot("live-probe-gone").await;
    browser.resize(PHONE).await;
    assert_fits_the_phone(&browser, "with the last readings of a probe that stopped").await;
    browser
        .eval("document.querySelector('.live-stale').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-probe-gone-phone").await;
    browser
        .eval("document.querySelector('.live-panel[aria-label]').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-probe-gone-phone-panel").await;
    browser.resize(DESKTOP).await;

    // Another address that answers nothing: the old probe's data and banner go with it.
    connect_to(&browser, "127.0.0.1:9").await;
    browser
        .wait_until(
            "return document.querySelector('.live-problem')?.textContent.includes('Nothing answered at 127.0.0.1:9')",
            "the advice for the new address",
        )
        .await;
    let elsewhere = browser.eval(DATA_STATE).await;
    assert_eq!(elsewhere["panels"], 0, "old panels cleared: {elsewhere}");
    assert_eq!(elsewhere["tables"], 0, "old tables cleared: {elsewhere}");
    assert_eq!(elsewhere["stale"], serde_json::Value::Null, "{elsewhere}");
    assert_eq!(
        elsewhere["source"],
        serde_json::Value::Null,
        "the demo note goes too: {elsewhere}"
    );
    drop(stale);
    browser.close().await;
}

#[tokio::test]
async fn an_invalid_address_is_refused_once_with_its_reason() {
    let site = Site::start_with(&["--interval-ms", "200"]);
    let browser = Browser::open_connected(&site, "/live").await;
    // Count every socket and request the page opens from here on.
    browser
        .eval(
            "window.labAttempts = [];\
             const Socket = window.WebSocket;\
             window.WebSocket = function (url, ...rest) { window.labAttempts.push(String(url)); return new Socket(url, ...rest); };\
             window.WebSocket.prototype = Socket.prototype;\
             const get = window.fetch;\
             window.fetch = function (url, ...rest) { window.labAttempts.push(String(url)); return get.call(window, url, ...rest); };\
             return true",
        )
        .await;
    browser.set_value("#probe-url", "ws://[::1", "input").await;
    // The learner asks to connect (Enter in the field, or the button if it is enabled).
    browser
        .eval("document.querySelector('.live-connect').requestSubmit(); return true")
        .await;
    browser
        .wait_for_text_containing("#probe-url-error", "[::1")
        .await;
    // The wait is the scenario: a page that tried the address anyway would try it again after
    // its first retry delay (1 s, `FIRST_RETRY_MS` in app/src/views/live/connection.rs);
    // 3.5 s leaves room for three such retries.
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let seen = browser
        .eval(
            "return {\
               attempts: window.labAttempts,\
               help: document.querySelector('#probe-url-error')?.textContent ?? '',\
               page: document.querySelector('.live-view').textContent,\
             }",
        )
        .await;
    let attempts = seen["attempts"].as_array().map_or(usize::MAX, Vec::len);
    assert!(
        attempts <= 1,
        "the address was tried {attempts} times in 3.5 s: {seen}"
    );
    let help = seen["help"].as_str().unwrap_or_default();
    assert!(
        help.contains("[::1") && help.contains("]"),
        "the field says what is wrong with the address: {seen}"
    );
    assert!(
        !seen["page"]
            .as_str()
            .unwrap_or_default()
            .contains("retrying"),
        "{seen}"
    );
    browser.screenshot("live-invalid-address").await;
    drop(site);
    browser.close().await;
}

/// Sends `signal` (`STOP`, `CONT`) to the probe's process.
fn signal(site: &Site, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(site.pid().to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} failed");
}

#[tokio::test]
async fn a_probe_that_hangs_with_its_socket_open_is_marked_not_live_until_it_sends_again() {
    let site = Site::live_demo();
    let browser = Browser::open_connected(&site, "/live").await;
    browser
        .wait_until(
            "return document.querySelectorAll('.live-panel[aria-label]').length > 0",
            "the demo's panels",
        )
        .await;
    // Paused, the probe neither sends nor closes: only the silence tells.
    signal(&site, "STOP");
    let paused = Instant::now();
    browser
        .wait_until(
            "return /Last seen at \\d\\d:\\d\\d:\\d\\d, not live: the probe at .* has sent nothing since/.test(document.querySelector('.live-stale')?.textContent ?? '')",
            "the not-live note for a silent probe",
        )
        .await;
    let waited = paused.elapsed();
    let state = browser.eval(DATA_STATE).await;
    signal(&site, "CONT");
    assert!(
        waited < Duration::from_secs(8),
        "the silence took {waited:?} to be noticed"
    );
    assert!(
        state["status"]
            .as_str()
            .unwrap_or_default()
            .contains("gone quiet"),
        "{state}"
    );
    assert!(
        state["titles"].as_array().is_some_and(|t| !t.is_empty()
            && t.iter()
                .all(|t| t.as_str().unwrap_or_default().contains("not live"))),
        "{state}"
    );
    // Running again, it sends again: live, with no note.
    browser
        .wait_until(
            "return !document.querySelector('.live-stale') && document.querySelector('.live-status').textContent === 'Connected'",
            "the readings to be live again",
        )
        .await;
    browser.assert_no_console_errors("a probe that hung").await;
    browser.close().await;
}

/// The host checks panel: the verdict, then each problem with its fix, then the rest folded.
const HOST_CHECKS: &str = "return {\
    verdict: document.querySelector('.live-doctor-verdict')?.textContent ?? null,\
    problems: [...document.querySelectorAll('.live-doctor > .live-checks:not(.live-checks-advice) > .live-check')].map(c => c.dataset.check + ' ' + c.className + ': ' + c.textContent),\
    advised: [...document.querySelectorAll('.live-checks-advice > .live-check')].map(c => c.dataset.check),\
    folded: [...document.querySelectorAll('.live-checks-rest .live-check')].map(c => c.dataset.check),\
    gid: document.querySelector(\"[data-check='roce-gid/mlx5_0/1']\")?.textContent ?? null,\
    open: document.querySelector('.live-checks-rest')?.open ?? null,\
}";

#[tokio::test]
async fn the_probes_host_checks_say_what_to_fix_first_and_fold_what_passed() {
    // A recording whose mlx5_1 port lost its link: one problem, with its fix, first.
    let copy = fixture_copy("checks");
    let fixture = copy.path();
    std::fs::write(
        fixture.join("sysfs/class/infiniband/mlx5_1/ports/1/phys_state"),
        "3: Disabled\n",
    )
    .unwrap();
    std::fs::write(
        fixture.join("sysfs/class/infiniband/mlx5_1/ports/1/state"),
        "1: DOWN\n",
    )
    .unwrap();
    let procfs = fixture.join("procfs");
    let site = Site::start_with(&[
        "--interval-ms",
        "200",
        "--sysfs-root",
        fixture.join("sysfs").to_str().expect("a UTF-8 temp path"),
        "--debugfs-root",
        fixture.join("debugfs").to_str().expect("a UTF-8 temp path"),
        "--procfs-root",
        procfs.to_str().expect("a UTF-8 temp path"),
    ]);
    let browser = Browser::open_connected(&site, "/live").await;
    browser
        .wait_until(
            "return !!document.querySelector('.live-doctor-verdict')",
            "the host checks",
        )
        .await;
    let state = browser.eval(HOST_CHECKS).await;
    let verdict = state["verdict"].as_str().unwrap();
    assert!(verdict.starts_with("1 to fix"), "{state:#}");
    let problems = state["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{state:#}");
    let problem = problems[0].as_str().unwrap();
    assert!(
        problem.starts_with("port-state/mlx5_1/1 live-check fail: Problem:"),
        "{problem}"
    );
    assert!(problem.contains("Fix: "), "{problem}");
    // The GID a learner gives NCCL stays in view beside the problems (UX check 2026-12:
    // it was folded with the passes); the other passes are folded.
    assert_eq!(state["open"], false, "{state:#}");
    let folded = state["folded"].as_array().unwrap();
    assert!(
        !folded.iter().any(|c| c == "roce-gid/mlx5_0/1"),
        "{state:#}"
    );
    let advised = state["advised"].as_array().unwrap();
    assert!(
        advised.iter().any(|c| c == "roce-gid/mlx5_0/1"),
        "{state:#}"
    );
    assert!(
        state["gid"]
            .as_str()
            .unwrap()
            .contains("RoCE v2 IPv4 10.0.0.1 on ens1f0np0 GID is index 3: set NCCL_IB_GID_INDEX=3"),
        "{state:#}"
    );
    browser.screenshot("live-host-checks").await;

    // With the keyboard: the fold opens from its summary.
    browser
        .find(".live-checks-rest > summary")
        .await
        .send_keys("\u{E007}") // Enter, on the summary it focuses first
        .await
        .expect("the summary takes Enter");
    browser
        .wait_until(
            "return document.querySelector('.live-checks-rest').open",
            "the passed checks unfolded",
        )
        .await;
    // A device unplugged takes its port's panel and nothing else: the checks above stay the
    // same element, still unfolded, with the focus where the learner left it.
    browser
        .wait_until(
            "return !!document.querySelector('[aria-label=\"RDMA port mlx5_2:1\"]')",
            "the panel of the port to unplug",
        )
        .await;
    browser
        .eval("window.hostChecks = document.querySelector('.live-doctor'); return true")
        .await;
    std::fs::remove_file(fixture.join("sysfs/class/infiniband/mlx5_2")).unwrap();
    browser
        .wait_until(
            "return !document.querySelector('[aria-label=\"RDMA port mlx5_2:1\"]')",
            "the unplugged port's panel gone",
        )
        .await;
    let kept = browser
        .eval("const s = document.querySelector('.live-checks-rest > summary'); return [document.querySelector('.live-doctor') === window.hostChecks, s.parentElement.open, document.activeElement === s]")
        .await;
    assert_eq!(
        kept,
        serde_json::json!([true, true, true]),
        "[same checks, still open, still focused]"
    );
    browser.resize(PHONE).await;
    assert_fits_the_phone(&browser, "host checks unfolded").await;
    browser
        .eval("document.querySelector('.live-doctor').scrollIntoView({block: 'start'}); window.scrollBy(0, -70); return true")
        .await;
    browser.screenshot("live-host-checks-phone").await;
    browser.resize(DESKTOP).await;
    browser.assert_no_console_errors("host checks").await;
    browser.close().await;
}
