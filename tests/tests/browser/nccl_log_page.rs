//! The /nccl-log explainer in real headless Chromium: the example log names the socket
//! fallback with its lines and the section that explains it, a pasted 100,000-line log is
//! read in slices while the page keeps answering, garbage is kept and counted, and the page
//! fits a phone.

use engine::nccl_log::{diagnose, parse, Transport};
use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};

/// Puts the text `js` evaluates to into the log box as a paste does (one input event).
async fn paste(browser: &Browser, js: &str) {
    browser
        .eval(&format!(
            "const el = document.querySelector('#ncclog-text');\
             Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(el, {js});\
             el.dispatchEvent(new Event('input', {{ bubbles: true }})); return true"
        ))
        .await;
}

/// The head of [`big_log`], and the filler line it repeats (with the line's index).
const HEAD: &str = "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>\n\
                b:3:4 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.2<0>\n\
                a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n\
                b:3:4 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA\n\
                a:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
                b:3:4 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n";
const FILLER: &str = "a:1:2 [0] NCCL INFO some line NCCL prints ";

/// A healthy two-host RoCE log with GPUDirect RDMA, repeated to `lines` lines. Format
/// strings, NVIDIA/nccl v2.29.3-1: src/transport/net_ib/init.cc:351-357 (`NET/IB : Using`),
/// src/transport/net.cc:316 and 362 (channel lines with /GDRDMA), src/init.cc:1687
/// (`Init COMPLETE`).
fn big_log(lines: usize) -> String {
    let mut text = HEAD.to_string();
    for n in HEAD.lines().count()..lines {
        text.push_str(&format!("{FILLER}{n}\n"));
    }
    text
}

/// The same text, built in the page (sending 5 MB through WebDriver is slow).
fn big_log_js(lines: usize) -> String {
    format!(
        "(() => {{ const parts = [{HEAD:?}]; for (let n = {}; n < {lines}; n++) parts.push({FILLER:?} + n + '\\n'); return parts.join(''); }})()",
        HEAD.lines().count()
    )
}

/// Two hosts of eight GPUs: each GPU's P2P connection to the next on two channels, then the
/// ring's two crossings between the hosts over NET/IB, each logged by its sender and its
/// receiver. Format strings, NVIDIA/nccl v2.29.3-1: src/transport/p2p.cc:389-409 (`via
/// P2P/...`, as the engine's tests cite them), src/transport/net.cc:316 and 362.
fn mixed_log() -> String {
    let mut text = String::new();
    for (host, first) in [("node-a:4101:4130", 0u32), ("node-b:5202:5231", 8)] {
        for gpu in 0..7u32 {
            for channel in 0..2 {
                text.push_str(&format!(
                    "{host} [{gpu}] NCCL INFO Channel {channel:02}/0 : {}[{gpu}] -> {}[{}] via P2P/CUMEM/read\n",
                    first + gpu,
                    first + gpu + 1,
                    gpu + 1
                ));
            }
        }
    }
    for (from, to, sender, receiver) in [
        (
            "7[7]",
            "8[0]",
            "node-a:4101:4130 [7]",
            "node-b:5202:5231 [0]",
        ),
        (
            "15[7]",
            "0[0]",
            "node-b:5202:5231 [7]",
            "node-a:4101:4130 [0]",
        ),
    ] {
        text.push_str(&format!(
            "{sender} NCCL INFO Channel 00/0 : {from} -> {to} [send] via NET/IB/0/GDRDMA\n\
             {receiver} NCCL INFO Channel 00/0 : {from} -> {to} [receive] via NET/IB/0/GDRDMA\n"
        ));
    }
    text
}

/// The channel tables as shown: whether the first lists the channels through a NIC, the
/// rows of each, the first table's headers inside its box, and the second's headers.
const CHANNEL_TABLES: &str = "const tables = [...document.querySelectorAll('.ncclog-table')]; \
    const [net, host] = tables; \
    const box = net.closest('.ncclog-table-box').getBoundingClientRect(); \
    return { first_is_net: net.classList.contains('ncclog-net'), \
        net_rows: net.querySelectorAll('tbody tr').length, \
        host_rows: host ? host.querySelectorAll('tbody tr').length : 0, \
        shown: [...net.querySelectorAll('thead th')].filter(th => th.getBoundingClientRect().right <= box.right + 0.5).map(th => th.textContent), \
        host_heads: host ? [...host.querySelectorAll('thead th')].map(th => th.textContent) : [] };";

#[tokio::test]
async fn a_pasted_log_is_explained_in_the_page() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.goto(&site.url("/nccl-log")).await;

    // The example: sockets between the hosts, no GDR, the fallback named with its lines.
    browser.click_in_view(".ncclog-example").await;
    browser
        .wait_for_text_containing(".ncclog-inter", "TCP sockets")
        .await;
    assert_eq!(browser.text(".ncclog-gdr").await, "no");
    let finding = browser.text(".ncclog-findings").await;
    assert!(finding.contains("libibverbs"), "{finding}");
    let href = browser
        .eval("return document.querySelector('.ncclog-finding a').getAttribute('href')")
        .await;
    let href = href.as_str().unwrap();
    assert!(
        href.contains("troubleshooting") && href.ends_with("#nccl-falls-back-to-sockets"),
        "{href}"
    );
    assert!(browser
        .text(".ncclog-lines")
        .await
        .contains("Failed to open libibverbs"));
    // The job opens in the calculator with what the log gives, and nothing else.
    let calc = browser
        .eval("return document.querySelector('.ncclog-calc a').getAttribute('href')")
        .await;
    assert_eq!(calc.as_str(), Some("nccl/?gpn=1&nodes=2&nic=tcp&nics=1"));
    browser.screenshot("nccl-log-example").await;

    // Following a finding and coming Back finds the log and its reading again (UX check
    // 2026-12: the box was empty).
    browser.click_in_view(".ncclog-finding a").await;
    browser
        .wait_for_text_containing("main h1", "Troubleshooting")
        .await;
    browser.client.back().await.expect("history goes back");
    browser
        .wait_for_text_containing(".ncclog-inter", "TCP sockets")
        .await;
    let kept = browser
        .eval("return document.querySelector('#ncclog-text').value")
        .await;
    assert!(
        kept.as_str().unwrap().contains("Failed to open libibverbs"),
        "the pasted log is back"
    );

    // 100,000 lines pasted at once: read in slices (progress shown), the page stays
    // scriptable meanwhile, and the answer is the engine's.
    let expected = diagnose(&parse(&big_log(100_000)));
    paste(&browser, &big_log_js(100_000)).await;
    let started = browser
        .eval("return document.querySelector('#ncclog-status').textContent")
        .await;
    assert!(
        started.as_str().unwrap().starts_with("Reading"),
        "progress is shown while reading: {started}"
    );
    browser
        .wait_for_text_containing("#ncclog-status", "Read 100000 lines")
        .await;
    browser
        .wait_for_text_containing(".ncclog-inter", "RoCE")
        .await;
    assert_eq!(browser.text(".ncclog-gdr").await, "yes");
    let titles = browser
        .eval("return [...document.querySelectorAll('.ncclog-finding-title')].length")
        .await;
    assert_eq!(titles.as_u64().unwrap() as usize, expected.len());

    // Garbage is kept and counted, with no finding invented, and listed on request.
    paste(&browser, "'hello\\nthis is not NCCL\\n\\u001b[31m'").await;
    browser
        .wait_for_text_containing("#ncclog-status", "Read 3 lines; 3 not recognised")
        .await;
    assert_eq!(
        browser.text(".ncclog-unread summary").await,
        "Show the 3 lines not read"
    );
    let open = browser
        .eval("return document.querySelector('.ncclog-unread').open")
        .await;
    assert_eq!(open, false, "closed until asked");
    browser.click_in_view(".ncclog-unread summary").await;
    assert!(browser
        .text(".ncclog-unread .ncclog-lines")
        .await
        .contains("this is not NCCL"));

    // A phone in the dark theme, with the example.
    browser.click_in_view(".theme-toggle").await;
    browser.resize(PHONE).await;
    browser.goto(&site.url("/nccl-log")).await;
    // The tab kept the last log; the example asks before it replaces it.
    browser
        .wait_for_text_containing("#ncclog-status", "Read 3 lines")
        .await;
    browser.click_in_view(".ncclog-example").await;
    browser
        .wait_for_text_containing(".ncclog-confirm", "replace the log you pasted")
        .await;
    let untouched = browser
        .eval("return document.querySelector('#ncclog-text').value.startsWith('hello')")
        .await;
    assert_eq!(untouched, true, "nothing replaced before the answer");
    browser.screenshot("nccl-log-375-asks").await;
    browser.click_in_view(".ncclog-replace").await;
    browser
        .wait_for_text_containing(".ncclog-inter", "TCP sockets")
        .await;
    let fits = browser
        .eval("return document.documentElement.scrollWidth <= window.innerWidth + 1")
        .await;
    assert_eq!(fits, true, "no sideways scrolling at 375 px");
    browser
        .eval("document.querySelector('.ncclog-findings').scrollIntoView(); return true")
        .await;
    browser.screenshot("nccl-log-375-dark").await;

    // Mina's two hosts of eight GPUs: 28 P2P connections inside the hosts, logged first, and
    // the few that cross between them. The crossing ones come first, in a table of their
    // own whose first columns (the path, GPUDirect RDMA, the ranks) a phone shows whole;
    // the P2P table has no GDR column, which does not apply to it (UX check 2026-12).
    let log = mixed_log();
    let channels = parse(&log).summary().channels;
    let through_nic = channels
        .iter()
        .filter(|c| matches!(c.transport, Transport::NET))
        .count();
    paste(
        &browser,
        &serde_json::to_string(&log).expect("a JSON string"),
    )
    .await;
    browser
        .wait_for_text_containing(
            "#ncclog-status",
            &format!("Read {} lines", log.lines().count()),
        )
        .await;
    let tables = browser.eval(CHANNEL_TABLES).await;
    assert_eq!(tables["first_is_net"], true, "{tables}");
    assert_eq!(tables["net_rows"], through_nic, "{tables}");
    assert_eq!(
        tables["host_rows"],
        channels.len() - through_nic,
        "{tables}"
    );
    assert_eq!(
        tables["shown"]
            .as_array()
            .map(|s| s.iter().take(3).cloned().collect::<Vec<_>>()),
        Some(vec!["Via".into(), "GDR".into(), "From → to".into()]),
        "{tables}"
    );
    assert!(
        !tables["host_heads"]
            .as_array()
            .is_some_and(|h| h.iter().any(|t| t == "GDR")),
        "{tables}"
    );
    browser
        .eval("document.querySelector('.ncclog-net').scrollIntoView(); return true")
        .await;
    browser.screenshot("nccl-log-375-channels").await;

    browser.assert_no_console_errors("nccl-log page").await;
    browser.close().await;
}
