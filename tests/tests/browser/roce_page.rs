//! The RoCE v2 packets page in real Chromium: build an RDMA WRITE, link a field to its
//! bytes and a byte to its field, break the ICRC by editing a covered byte, and open the
//! committed sample capture by button and by file input.

use fantoccini::actions::{InputSource, MouseActions, PointerAction};
use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    repo_root,
    site::Site,
};
use serde_json::Value;

/// Frames in `assets/samples/roce-sample.pcapng` (engine::capture::sample::exchange).
const SAMPLE_FRAMES: usize = 10;

/// Offsets of the builder dissector's highlighted hex bytes.
const SELECTED_BYTES: &str = "return [...document.querySelectorAll('.roce-section .dissector')[0].querySelectorAll('.hex-byte.sel')].map(e => Number(e.dataset.offset))";
const ICRC_STATE: &str =
    "return document.querySelector('.roce-section .dissector .icrc-status').dataset.ok";
const ROWS: &str = "return document.querySelectorAll('.capture-row').length";

#[tokio::test]
async fn builder_dissector_hex_edit_and_sample_capture() {
    let site = Site::start();

    // Start from a deep link to a SEND and build a WRITE in the form.
    let browser = Browser::open(&site, "/roce?operation=send&payload=10").await;
    let op = browser.find("#roce-operation").await;
    assert_eq!(
        op.prop("value").await.unwrap().as_deref(),
        Some("send"),
        "the URL sets the operation"
    );
    op.select_by_value("write")
        .await
        .expect("operation selects");
    browser.type_over("#roce-payload", "32").await;
    browser.wait_for_value(
        "return location.search.includes('payload=32') && !location.search.includes('operation=')",
        Value::Bool(true),
    )
    .await;

    // A malformed value is reported at its field and kept as typed.
    browser.type_over("#roce-psn", "0x1000000").await;
    browser
        .wait_for_value(
            "return document.getElementById('roce-psn-error')?.textContent.includes('at most') ?? false",
            Value::Bool(true),
        )
        .await;
    browser.type_over("#roce-psn", "7").await;
    browser
        .wait_for_value(
            "return document.getElementById('roce-psn-error')?.textContent ?? ''",
            Value::from(""),
        )
        .await;

    // One packet carries at most the largest path MTU: a 9000-byte payload is refused at its
    // field with the rule, not drawn as a single 9098-byte frame.
    browser
        .visit(&site, "/roce?operation=write&payload=9000")
        .await;
    browser.wait_for_value(
        "const e = document.getElementById('roce-payload-error'); return !!e && e.textContent.includes('4096') && e.textContent.includes('FIRST')",
        Value::Bool(true),
    )
    .await;
    // The field's help states the same rule, and the packet shown meanwhile is the form's WRITE
    // (UX check 2026-12: the label said 0–9000 and an RC SEND with no payload was shown).
    let shown = browser
        .eval(
            "return [document.querySelector('#roce-payload-help').textContent, \
             document.querySelector('section[aria-labelledby=roce-dissect]').textContent]",
        )
        .await;
    let label = shown[0].as_str().unwrap();
    assert!(label.contains("0–4096"), "{label}");
    // A WRITE carries a RETH (the remote address and key); a SEND has none.
    let dissected = shown[1].as_str().unwrap();
    assert!(
        dissected.contains("RDMA Extended Transport Header"),
        "{dissected}"
    );
    browser.visit(&site, "/roce?payload=32&psn=7").await;

    // The reload restores the builder from the URL.
    browser.client.refresh().await.expect("reloads");
    browser.wait_for_text("main h1", "RoCE v2 packets").await;
    let payload = browser.find("#roce-payload").await;
    assert_eq!(payload.prop("value").await.unwrap().as_deref(), Some("32"));
    assert_eq!(
        browser
            .find("#roce-psn")
            .await
            .prop("value")
            .await
            .unwrap()
            .as_deref(),
        Some("7")
    );
    browser.screenshot("roce-builder-light").await;

    // Select RETH VA: exactly its 8 bytes light up. Ethernet 14 + IPv4 20 + UDP 8 +
    // BTH 12 puts the RETH, and its VA, at byte 54 (IBTA Vol 1 §9.3.1).
    browser
        .find("button[data-layer='infiniband.reth']")
        .await
        .click()
        .await
        .expect("layer opens");
    let va = browser
        .find("button[data-field='infiniband.reth.va']")
        .await;
    va.click().await.expect("field selects");
    assert_eq!(va.attr("data-offset").await.unwrap().as_deref(), Some("54"));
    assert_eq!(va.attr("data-len").await.unwrap().as_deref(), Some("8"));
    let selected = browser.eval(SELECTED_BYTES).await;
    assert_eq!(
        selected,
        serde_json::json!([54, 55, 56, 57, 58, 59, 60, 61])
    );
    assert!(browser
        .find(".hex-status")
        .await
        .text()
        .await
        .unwrap()
        .contains("infiniband.reth.va"));

    // Pointing at a byte highlights its field: byte 45 is in the BTH's destination QP.
    let byte = browser.find(".hex-byte[data-offset='47']").await;
    let mouse = MouseActions::new("mouse".to_string()).then(PointerAction::MoveToElement {
        element: byte,
        duration: None,
        x: 0.0,
        y: 0.0,
    });
    browser
        .client
        .perform_actions(mouse)
        .await
        .expect("pointer moves");
    browser.wait_for_value(
        "return [...document.querySelectorAll('.hex-byte.hov')].map(e => Number(e.dataset.offset))",
        serde_json::json!([47, 48, 49]),
    )
    .await;
    browser.screenshot("roce-dissector-highlight-light").await;

    // The ICRC verifies; flipping a covered byte (the VA's first) breaks it.
    assert_eq!(browser.eval(ICRC_STATE).await, "true");
    browser
        .eval(
            "const t = document.getElementById('builder-hex-edit');
             const b = t.value.trim().split(/\\s+/);
             b[54] = (parseInt(b[54], 16) ^ 0xff).toString(16).padStart(2, '0');
             t.value = b.join(' ');
             t.dispatchEvent(new InputEvent('input', { bubbles: true }));
             return null",
        )
        .await;
    browser
        .find(".hex-apply")
        .await
        .click()
        .await
        .expect("applies");
    browser
        .wait_for_value(ICRC_STATE, Value::from("false"))
        .await;
    assert!(browser
        .find(".icrc-status")
        .await
        .text()
        .await
        .unwrap()
        .contains("ICRC invalid"));

    // A bad edit is located and keeps the previous packet.
    browser
        .eval(
            "const t = document.getElementById('builder-hex-edit');
             t.value = '00 11 2g';
             t.dispatchEvent(new InputEvent('input', { bubbles: true }));
             return null",
        )
        .await;
    browser
        .find(".hex-apply")
        .await
        .click()
        .await
        .expect("applies");
    let error = browser.find(".hex-error").await.text().await.unwrap();
    assert!(error.contains("line 1, column 8"), "{error}");
    assert_eq!(
        browser.eval(ICRC_STATE).await,
        "false",
        "the edited packet is kept"
    );

    // The encapsulation stepper walks from the payload outwards.
    assert!(browser
        .find(".encap-step")
        .await
        .text()
        .await
        .unwrap()
        .contains("Payload"));
    browser
        .find(".encap-next")
        .await
        .click()
        .await
        .expect("steps");

    // The sample capture, by button.
    browser
        .find(".load-sample")
        .await
        .click()
        .await
        .expect("loads");
    browser
        .wait_for_value(ROWS, Value::from(SAMPLE_FRAMES))
        .await;
    let notes = browser.eval("return [...document.querySelectorAll('.capture-row td:last-child')].map(e => e.textContent)").await;
    let notes: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        notes.iter().filter(|n| **n == "NAK").count(),
        1,
        "{notes:?}"
    );
    assert_eq!(
        notes.iter().filter(|n| **n == "CNP").count(),
        1,
        "{notes:?}"
    );
    assert_eq!(
        notes.iter().filter(|n| **n == "retransmission").count(),
        2,
        "{notes:?}"
    );
    // At desktop width the whole list, Note column included, fits its box.
    let overflow = browser
        .eval("const w = document.querySelector('.capture-list-wrap'); return w.scrollWidth - w.clientWidth")
        .await;
    assert_eq!(overflow, 0, "the packet list is cut at the right");
    let retx_marks = browser
        .eval("return document.querySelectorAll('.qp-timeline g[data-role=Retransmission]').length")
        .await;
    assert_eq!(retx_marks, 2);
    // Filter to problems and pick a frame for the detail panes.
    browser
        .find("#cap-problems")
        .await
        .click()
        .await
        .expect("checks");
    browser.wait_for_value(ROWS, Value::from(3)).await;
    // A click on the row itself picks its frame (UX check 2026-12: only the number's
    // button did).
    browser
        .find(".capture-row td:nth-child(5)")
        .await
        .click()
        .await
        .expect("picks");
    browser.find(".capture-detail .dissector").await;
    let picked = browser
        .eval("return document.querySelector('.capture-row.sel .frame-pick')?.getAttribute('aria-pressed')")
        .await;
    assert_eq!(picked, Value::from("true"));
    browser.screenshot("roce-capture-light").await;
    browser
        .eval("document.querySelector('.qp-view').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-qp-timeline-light").await;
    browser
        .eval("document.getElementById('roce-encap').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-encap-light").await;

    // And by the file input.
    let sample = repo_root().join("assets/samples/roce-sample.pcapng");
    browser
        .find("#cap-problems")
        .await
        .click()
        .await
        .expect("unchecks");
    browser
        .find("#cap-file")
        .await
        .send_keys(&sample.display().to_string())
        .await
        .expect("file chosen");
    browser.wait_for_value(
        "return document.querySelector('.capture-list caption').textContent.startsWith('10 of 10')",
        Value::Bool(true),
    )
    .await;

    browser.assert_no_console_errors("/roce").await;

    // Dark theme and the phone width.
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("toggles");
    browser.find(".roce-section h2").await;
    browser
        .eval("document.getElementById('roce-build').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-builder-dark").await;
    browser
        .eval("document.getElementById('roce-dissect').scrollIntoView(); return null")
        .await;
    browser
        .find("button[data-layer='infiniband.bth']")
        .await
        .click()
        .await
        .expect("opens");
    browser
        .find("button[data-field='infiniband.bth.psn']")
        .await
        .click()
        .await
        .expect("selects");
    browser.screenshot("roce-dissector-highlight-dark").await;
    browser
        .eval("document.getElementById('roce-capture').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-capture-dark").await;

    browser.resize(PHONE).await;
    for (id, name) in [
        ("roce-build", "builder"),
        ("roce-dissect", "dissector"),
        ("roce-capture", "capture"),
    ] {
        browser
            .eval(&format!(
                "document.getElementById('{id}').scrollIntoView(); return null"
            ))
            .await;
        browser.screenshot(&format!("roce-{name}-phone-dark")).await;
    }
    let overflow = browser
        .eval("return document.documentElement.scrollWidth > window.innerWidth")
        .await;
    assert_eq!(
        overflow, false,
        "nothing scrolls the page sideways at 375 px"
    );
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("toggles back");
    browser
        .eval("document.getElementById('roce-build').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-builder-phone-light").await;
    browser.resize(DESKTOP).await;

    browser
        .assert_no_console_errors("/roce in both themes")
        .await;
    browser.close().await;
}

/// Presses `key` (a WebDriver key code) `times` times on whatever has focus.
async fn press_times(browser: &Browser, key: char, times: usize) {
    for _ in 0..times {
        browser.press(key).await;
    }
}

const HOVERED_BYTES: &str = "return [...document.querySelectorAll('.roce-section .dissector')[0].querySelectorAll('.hex-byte.hov')].map(e => Number(e.dataset.offset))";

/// Replaces byte `at` of the builder's hex with `at`'s value XOR `mask` and applies it.
async fn flip_byte(browser: &Browser, at: usize, mask: u8) {
    browser
        .eval(&format!(
            "const t = document.getElementById('builder-hex-edit');
             const b = t.value.trim().split(/\\s+/);
             b[{at}] = (parseInt(b[{at}], 16) ^ {mask}).toString(16).padStart(2, '0');
             t.value = b.join(' ');
             t.dispatchEvent(new InputEvent('input', {{ bubbles: true }}));
             return null"
        ))
        .await;
    browser
        .find(".hex-apply")
        .await
        .click()
        .await
        .expect("applies");
}

/// The verbs call under the builder follows the form: a WRITE's work request carries the
/// RETH's address, key and length, the PSN is the QP's; an ACK is the NIC's, posted by no one.
#[tokio::test]
async fn the_verbs_call_follows_the_form() {
    let site = Site::start();
    let browser = Browser::open(&site, "/roce?operation=write&payload=32&psn=7").await;
    browser.click_in_view(".roce-verbs summary").await;
    let source = browser.text(".roce-verbs pre").await;
    for part in [
        ".opcode = IBV_WR_RDMA_WRITE,",
        ".length = 32,",
        ".wr.rdma.remote_addr = 0x10000,",
        "BTH PSN 7",
        "ibv_post_send(qp, &wr, &bad_wr);",
    ] {
        assert!(source.contains(part), "{part} in {source}");
    }
    browser.screenshot("roce-verbs-write").await;
    browser.resize(PHONE).await;
    browser.screenshot("roce-verbs-write-phone").await;
    browser.resize(DESKTOP).await;
    browser
        .find("#roce-operation")
        .await
        .select_by_value("ack")
        .await
        .expect("operation selects");
    browser
        .wait_for_text_containing(".roce-verbs p", "No verb posts an ACK")
        .await;
    browser.screenshot("roce-verbs-call").await;
}

#[tokio::test]
async fn the_keyboard_reaches_every_byte_and_the_try_this_tasks_tick_off() {
    let site = Site::start();
    let browser = Browser::open(&site, "/roce?operation=write&payload=32").await;
    browser.find(".try-this").await;
    assert_eq!(browser.exercises_done().await, Vec::<String>::new());
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('.compare-table th:empty').length")
            .await,
        0,
        "every header cell names its column"
    );

    // Focus on a field shows its bytes, as pointing does: the PSN is BTH bytes 9–11, 51–53.
    browser
        .find("button[data-layer='infiniband.bth']")
        .await
        .click()
        .await
        .expect("layer opens");
    browser
        .eval("document.querySelector(\"button[data-field='infiniband.bth.psn']\").focus(); return null")
        .await;
    browser
        .wait_for_value(HOVERED_BYTES, serde_json::json!([51, 52, 53]))
        .await;

    // The hex pane by keyboard: focus puts a cursor on byte 0; two rows down and 15 right is
    // byte 47, the first of the destination QP (Ethernet 14 + IPv4 20 + UDP 8 + BTH 5).
    browser
        .eval("document.querySelector('.roce-section .hex-pane').focus(); return null")
        .await;
    browser
        .wait_for_value(
            "return document.querySelector('.hex-byte.cursor')?.dataset.offset",
            Value::from("0"),
        )
        .await;
    press_times(&browser, '\u{E015}', 2).await; // ↓
    press_times(&browser, '\u{E014}', 15).await; // →
    browser
        .wait_for_value(
            "return document.querySelector('.hex-byte.cursor')?.dataset.offset",
            Value::from("47"),
        )
        .await;
    browser
        .wait_for_value(HOVERED_BYTES, serde_json::json!([47, 48, 49]))
        .await;
    let status = browser.find(".hex-status").await.text().await.unwrap();
    assert!(
        status.contains("Byte 47") && status.contains("infiniband.bth.destqp"),
        "{status}"
    );
    assert!(
        browser.exercises_done().await.is_empty(),
        "pointing is not picking"
    );
    browser.press('\u{E007}').await; // Enter picks the field
    browser
        .wait_for_value(SELECTED_BYTES, serde_json::json!([47, 48, 49]))
        .await;
    browser.wait_for_exercise("find-dest-qp").await;
    browser.screenshot("roce-hex-keyboard-light").await;

    // The TTL is a variant field: the ICRC still holds. A BTH byte is not: it fails.
    const TTL_BYTE: &str =
        "return document.querySelector('.hex-byte[data-offset=\"22\"]').textContent";
    let ttl = browser.eval(TTL_BYTE).await;
    flip_byte(&browser, 22, 0x01).await;
    browser
        .wait_for_value(&format!("{TTL_BYTE} !== {ttl}"), Value::Bool(true))
        .await;
    assert_eq!(browser.eval(ICRC_STATE).await, "true", "TTL is masked");
    assert!(!browser
        .exercises_done()
        .await
        .contains(&"break-icrc".to_string()));
    flip_byte(&browser, 47, 0x01).await;
    browser
        .wait_for_value(ICRC_STATE, Value::from("false"))
        .await;
    browser.wait_for_exercise("break-icrc").await;

    // A VLAN tag, and its priority bits picked in the tree by keyboard (byte 14 also holds
    // the narrower DEI bit, which is what the byte cursor names).
    browser.click_in_view("#roce-vlan").await;
    browser.click_in_view("button[data-layer='vlan']").await;
    browser
        .eval("document.querySelector(\"button[data-field='vlan.priority']\").focus(); return null")
        .await;
    browser.press('\u{E007}').await;
    browser.wait_for_exercise("find-priority").await;
    assert_eq!(
        browser.exercises_done().await,
        ["find-dest-qp", "break-icrc", "find-priority"]
    );
    browser
        .eval("document.querySelector('.try-this').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-try-this-light").await;

    // A valid capture with no packets says so.
    let empty = tempfile::Builder::new()
        .prefix("lab-empty-")
        .suffix(".pcap")
        .tempfile()
        .expect("a temp file");
    let mut header = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
    header.extend([0u8; 8]);
    header.extend(65535u32.to_le_bytes());
    header.extend(1u32.to_le_bytes());
    std::fs::write(empty.path(), header).expect("a temp file");
    browser
        .find("#cap-file")
        .await
        .send_keys(&empty.path().display().to_string())
        .await
        .expect("file chosen");
    browser.wait_for_value(
        "const p = document.querySelector('.capture-empty'); return !!p && p.textContent.includes('0 frames') && p.textContent.includes('no packets')",
        Value::Bool(true),
    )
    .await;
    browser.assert_no_console_errors("/roce keyboard").await;
}

/// Frames in `assets/samples/ib-sample.pcap` (engine::capture::ib_sample::exchange).
const IB_SAMPLE_FRAMES: usize = 14;

/// ibdump's kind of file (pcap of ERF records): the InfiniBand sample opens by button,
/// every packet's ICRC holds, each MAD is named in the list, and a connection request
/// shows its QPN and starting PSN in the dissector.
#[tokio::test]
async fn an_ibdump_capture_opens_with_its_mads_named() {
    let site = Site::start();
    let browser = Browser::open(&site, "/roce").await;
    browser
        .find(".load-ib-sample")
        .await
        .click()
        .await
        .expect("loads");
    browser
        .wait_for_value(ROWS, Value::from(IB_SAMPLE_FRAMES))
        .await;
    let column = |n: usize| {
        format!("return [...document.querySelectorAll('.capture-row td:nth-child({n})')].map(e => e.textContent)")
    };
    let notes = browser.eval(&column(10)).await;
    let icrc = browser.eval(&column(9)).await;
    let notes: Vec<&str> = notes
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(notes[0], "SubnGet(SMInfo)", "{notes:?}");
    assert_eq!(notes[4], "CM: ConnectRequest", "{notes:?}");
    assert!(icrc.as_array().unwrap().iter().all(|v| v == "ok"), "{icrc}");
    // The source column holds LIDs: 1 is the subnet manager.
    assert_eq!(browser.eval(&column(3)).await[0], "1");
    browser
        .find(".capture-row[data-frame='5'] td:nth-child(5)")
        .await
        .click()
        .await
        .expect("picks the REQ");
    browser
        .find(".capture-detail button[data-layer='infiniband.cm.req']")
        .await
        .click()
        .await
        .expect("opens the REQ");
    let qpn = browser
        .eval("return document.querySelector(\".capture-detail button[data-field='infiniband.cm.req.localqpn'] .field-value\").textContent")
        .await;
    assert_eq!(qpn, "1234 (0x4d2)");
    let vcrc = browser
        .eval("return [...document.querySelectorAll('.capture-detail .layer-toggle')].map(b => b.dataset.layer)")
        .await;
    assert!(
        vcrc.as_array()
            .unwrap()
            .iter()
            .any(|l| l == "infiniband.vcrc"),
        "{vcrc}"
    );
    browser
        .eval("document.querySelector('.capture-detail').scrollIntoView(); return null")
        .await;
    browser.screenshot("roce-ib-capture-light").await;
    browser.assert_no_console_errors("/roce ib sample").await;
}
