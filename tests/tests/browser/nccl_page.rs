//! The collective calculator (/nccl) in real Chromium: the /topology page's link opens with
//! the engine's own answer, the node count typed digit by digit updates it, a bad size is
//! refused at its field with the last results kept, the sweep draws one line per algorithm
//! and 31 rows, sockets against RoCE gives the engine's ratio, the link reloads to the same
//! state (keeping another widget's keys), the page fits a phone in both themes, and a pasted
//! all_reduce_perf run stands beside the engine's answers.

use engine::collective::{
    estimate, Collective, CollectiveReport, CollectiveRequest, Estimate, GpuModel, Machines,
    NicModel,
};
use lab_tests::{
    browser::{Browser, PHONE},
    site::Site,
};
use serde_json::Value;

const LINK: &str =
    "/nccl?gpu=h100&gpn=8&nodes=128&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G&train-params=7";

fn machines(nodes: u32, nic: NicModel) -> Machines {
    Machines {
        gpu: GpuModel::H100,
        gpus_per_node: 8,
        nodes,
        nic,
        nics_per_node: 8,
        gdr: true,
        sharp: false,
    }
}

fn report(m: Machines, bytes: u64) -> CollectiveReport {
    estimate(&CollectiveRequest {
        op: Collective::AllReduce,
        bytes: bytes as f64,
        cluster: m.cluster().expect("the machines make a cluster"),
        algorithms: None,
        protocols: None,
    })
    .expect("the engine estimates it")
}

fn chosen(r: &CollectiveReport) -> Estimate {
    r.chosen_estimate()
        .cloned()
        .expect("the chosen pair has an estimate")
}

async fn wait(browser: &Browser, expr: &str) -> Value {
    browser.wait_until(&format!("return ({expr});"), expr).await
}

/// The chosen row's busbw and time as the page holds them (full precision in data-*).
async fn chosen_row(browser: &Browser) -> (f64, f64, String) {
    let v = wait(
        browser,
        "(() => { const r = document.querySelector('.nccl-pairs tr[data-chosen=true]'); \
         return r && [r.dataset.busbw, r.dataset.timeUs, r.querySelector('.nccl-busbw').textContent]; })()",
    )
    .await;
    let a = v.as_array().expect("three values");
    let num = |i: usize| -> f64 { a[i].as_str().unwrap().parse().unwrap() };
    (num(0), num(1), a[2].as_str().unwrap().to_string())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

async fn show(browser: &Browser, css: &str) {
    browser
        .eval(&format!(
            "document.querySelector({css:?}).scrollIntoView({{block: 'start'}}); window.scrollBy(0, -70); return null"
        ))
        .await;
}

/// The table `all_reduce_perf` prints (nccl-tests v2.19.6, src/util.cu), two sizes of it.
const RUN: &str = "# Collective test starting: ./build/all_reduce_perf
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576        262144     float     sum      -1    61.02   17.18   32.22      0    60.11   17.44   32.71      0
  8589934592    2147483648     float     sum      -1    71002  120.98  226.84      0    70911  121.14  227.13      0
# Avg bus bandwidth    : 129.53
";

/// Mina's wish (UX check 2026-12): her own all_reduce_perf run set against the model for
/// her machines, each size beside the engine's answer; garbage refused with its line, and a
/// run of another collective sent to that collective's setting.
#[tokio::test]
async fn a_pasted_run_stands_beside_the_model() {
    let site = Site::start();
    let browser = Browser::open(
        &site,
        "/nccl?gpu=h100&gpn=8&nodes=2&nic=ndr-400&nics=8&gdr=1&op=all_reduce&size=8G",
    )
    .await;
    browser.set_value("#nccl-measured-text", RUN, "input").await;
    browser
        .wait_for_text_containing(".nccl-measured-verdict", "your run reaches")
        .await;
    let model = chosen(&report(machines(2, NicModel::Ndr400), 8_589_934_592));
    let row = browser
        .eval("return [...document.querySelectorAll('.nccl-measured-table tr[data-line=\"5\"] td')].map(c => c.textContent)")
        .await;
    assert_eq!(row[0], format!("{:.0} %", 226.84 / model.busbw_gbs * 100.0));
    assert_eq!(row[1], "226.84", "the measured out-of-place busbw");
    let engine = format!("{:.2}", model.busbw_gbs);
    assert_eq!(row[2], engine, "the engine's busbw");
    let violations = browser.serious_axe_violations().await;
    assert!(violations.is_empty(), "axe-core found: {violations:?}");
    show(&browser, ".nccl-measured").await;
    browser.screenshot("nccl-measured").await;
    browser.resize(PHONE).await;
    show(&browser, ".nccl-measured-verdict").await;
    browser.settle().await;
    browser.screenshot("nccl-measured-phone").await;

    // Following the verdict's link and coming Back finds the run and its comparison again.
    browser.resize((1280, 1000)).await;
    browser.click_in_view(".nccl-measured-verdict a").await;
    browser
        .wait_for_text_containing("main h1", "Troubleshooting")
        .await;
    browser.client.back().await.expect("history goes back");
    browser
        .wait_for_text_containing(".nccl-measured-verdict", "your run reaches")
        .await;

    let (garbage, bad_cell) = ("hello\nnot a table", RUN.replace("226.84", "fast"));
    let other = RUN.replace("all_reduce_perf", "all_gather_perf");
    for (text, said) in [
        (garbage, "no nccl-tests result table"),
        (bad_cell.as_str(), "line 5: busbw reads \"fast\""),
        (other.as_str(), "pick AllGather above"),
    ] {
        browser
            .set_value("#nccl-measured-text", text, "input")
            .await;
        browser
            .wait_for_text_containing("#nccl-measured-error", said)
            .await;
    }
}

#[tokio::test]
async fn nccl_calculator_answers_as_the_engine_does() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;

    // Mina's case (UX check 2026-12): 2 × 8 H100 on 400G RoCE, GPUDirect RDMA off in the
    // variant. Host staging costs bandwidth, and the page says where the bound comes from.
    browser
        .goto(&site.url(
            "/nccl?gpu=h100&gpn=8&nodes=2&nic=roce-400&nics=8&gdr=1&op=all_reduce&size=1G&cmp-gdr=0",
        ))
        .await;
    let gdr_on = chosen(&report(machines(2, NicModel::Roce400), 1 << 30));
    let gdr_off = chosen(&report(
        Machines {
            gdr: false,
            ..machines(2, NicModel::Roce400)
        },
        1 << 30,
    ));
    let ratio = wait(
        &browser,
        "document.querySelector('.nccl-ratio')?.dataset.ratio",
    )
    .await;
    let ratio: f64 = ratio.as_str().unwrap().parse().unwrap();
    assert!(close(ratio, gdr_off.time_us / gdr_on.time_us), "{ratio}");
    assert!(ratio >= 1.4, "GPUDirect RDMA off costs time: {ratio}");
    let note = wait(
        &browser,
        "document.querySelector('.nccl-compare [data-note=host-staging]')?.textContent",
    )
    .await;
    let note = note.as_str().unwrap();
    assert!(
        note.contains("614.40 GB/s of host memory") && note.contains("the lab's"),
        "{note}"
    );
    show(&browser, ".nccl-compare").await;
    browser.screenshot("nccl-compare-gdr-off").await;

    // GPUDirect RDMA off in the configuration itself: the LL128 rows carry a long note,
    // which wraps; the table fits its box at 1280 px (UX check 2026-12: "NCCL's choice" was
    // cut 23 px short).
    browser
        .goto(
            &site.url(
                "/nccl?gpu=h100&gpn=8&nodes=2&nic=roce-400&nics=8&gdr=0&op=all_reduce&size=1G",
            ),
        )
        .await;
    let note = wait(
        &browser,
        "[...document.querySelectorAll('.nccl-pairs .nccl-why')].map(c => c.textContent).find(t => t.includes('without GPUDirect RDMA'))",
    )
    .await;
    assert!(
        note.as_str().is_some_and(|n| n.starts_with("off:")),
        "{note}"
    );
    let fits = browser
        .eval("const b = document.querySelector('.nccl-results .nccl-scroll'); return b.scrollWidth <= b.clientWidth + 1")
        .await;
    assert_eq!(fits, true, "the pairs table fits its box at 1280 px");
    show(&browser, ".nccl-results").await;
    browser.screenshot("nccl-table-gdr-off").await;

    browser.goto(&site.url(LINK)).await;

    // The link's machines: the chosen pair and its busbw are the engine's.
    let gib8 = 8u64 << 30;
    let expected = chosen(&report(machines(128, NicModel::Ndr400), gib8));
    let (busbw, _, shown) = chosen_row(&browser).await;
    assert!(
        close(busbw, expected.busbw_gbs),
        "{busbw} vs {}",
        expected.busbw_gbs
    );
    assert_eq!(shown, format!("{:.2}", expected.busbw_gbs));
    let pair = browser
        .eval("const r = document.querySelector('.nccl-pairs tr[data-chosen=true]'); return r.dataset.algorithm + '/' + r.dataset.protocol")
        .await;
    assert_eq!(
        pair.as_str().unwrap(),
        format!(
            "{}/{}",
            engine::collective::algorithm_name(expected.algorithm),
            engine::collective::protocol_name(expected.protocol)
        )
    );
    let why = browser
        .eval("return document.querySelector('.nccl-choice').textContent")
        .await;
    assert!(why.as_str().unwrap().contains("fastest"), "{why}");

    // The node count, typed digit by digit: each prefix gives the engine's answer.
    browser.set_value("#nccl-nodes", "", "input").await;
    wait(
        &browser,
        "document.querySelector('[data-key=nodes] .form-error') !== null",
    )
    .await;
    let nodes_box = browser.find("#nccl-nodes").await;
    for (typed, nodes) in [("1", 1u32), ("6", 16)] {
        nodes_box.send_keys(typed).await.expect("typing");
        let want = chosen(&report(machines(nodes, NicModel::Ndr400), gib8));
        wait(
            &browser,
            &format!(
                "(() => {{ const r = document.querySelector('.nccl-pairs tr[data-chosen=true]'); \
                 return r && Math.abs(Number(r.dataset.timeUs) - {}) <= 1e-6 * {}; }})()",
                want.time_us,
                want.time_us.max(1.0)
            ),
        )
        .await;
    }
    let typed = browser
        .eval("return document.querySelector('#nccl-nodes').value")
        .await;
    assert_eq!(typed, "16");
    let sixteen = chosen(&report(machines(16, NicModel::Ndr400), gib8));

    // Garbage in the size: refused at its field, typed text kept, last results kept.
    browser.set_value("#nccl-size", "8Gx", "input").await;
    let message = wait(
        &browser,
        "document.querySelector('[data-key=size] .form-error')?.textContent",
    )
    .await;
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains("bytes") && m.contains("8Gx")),
        "{message}"
    );
    let kept = browser
        .eval("return document.querySelector('#nccl-size').value")
        .await;
    assert_eq!(kept, "8Gx");
    assert!(browser
        .eval("return document.querySelector('.nccl-stale-note') !== null")
        .await
        .as_bool()
        .unwrap());
    let (busbw, _, _) = chosen_row(&browser).await;
    assert!(
        close(busbw, sixteen.busbw_gbs),
        "the last good results stay"
    );
    browser.screenshot("nccl-invalid-light").await;
    browser.set_value("#nccl-size", "8G", "input").await;
    wait(
        &browser,
        "document.querySelector('.nccl-stale-note') === null",
    )
    .await;

    // The sweep: one line per algorithm offered, 31 rows.
    let offered = {
        let r = report(machines(16, NicModel::Ndr400), gib8);
        let mut a: Vec<_> = r.estimates.iter().map(|e| e.algorithm).collect();
        a.dedup();
        a.len()
    };
    browser.click_in_view(".nccl-sweep .nccl-button").await;
    wait(
        &browser,
        "document.querySelectorAll('.nccl-sweep-table tbody tr').length === 31",
    )
    .await;
    let lines = browser
        .eval("return document.querySelectorAll('.nccl-chart svg polyline').length")
        .await;
    assert_eq!(lines.as_u64(), Some(offered as u64));
    show(&browser, ".nccl-sweep").await;
    browser.screenshot("nccl-sweep-light").await;

    // Sockets against RoCE at 100 Gb/s: both results and the engine's ratio.
    browser.set_value("#nccl-nic", "roce-100", "change").await;
    wait(
        &browser,
        "document.querySelector('#nccl-cmp-nic option[value=\"tcp-100\"]') !== null",
    )
    .await;
    browser
        .set_value("#nccl-cmp-nic", "tcp-100", "change")
        .await;
    let roce = chosen(&report(machines(16, NicModel::Roce100), gib8));
    let tcp = chosen(&report(machines(16, NicModel::Tcp100), gib8));
    let want_ratio = tcp.time_us / roce.time_us;
    let ratio = wait(
        &browser,
        "document.querySelector('.nccl-compare-table') && document.querySelector('#nccl-cmp-nic').value === 'tcp-100' && document.querySelector('.nccl-ratio')?.dataset.ratio",
    )
    .await;
    let ratio: f64 = ratio.as_str().unwrap().parse().unwrap();
    assert!(close(ratio, want_ratio), "{ratio} vs {want_ratio}");
    assert!(ratio > 1.0, "sockets are slower than RoCE at the same rate");
    let ratio_text = browser
        .eval("return document.querySelector('.nccl-ratio').textContent")
        .await;
    assert!(
        ratio_text
            .as_str()
            .unwrap()
            .contains(&format!("{want_ratio:.2}×")),
        "{ratio_text}"
    );
    assert!(browser
        .eval("return document.querySelector('.nccl-compare [data-note=sockets]') !== null")
        .await
        .as_bool()
        .unwrap());
    show(&browser, ".nccl-compare").await;
    browser.screenshot("nccl-compare-light").await;
    browser.assert_no_console_errors("/nccl light").await;

    // The URL holds the state and kept the other widget's key; a reload restores it.
    let search = wait(
        &browser,
        "location.search.includes('cmp-nic=tcp-100') && location.search.includes('nic=roce-100') && location.search",
    )
    .await;
    let search = search.as_str().unwrap().to_string();
    assert!(search.contains("train-params=7"), "{search}");
    assert!(
        search.contains("nodes=16") && search.contains("sweep=1"),
        "{search}"
    );
    browser.goto(&site.url(&format!("/nccl{search}"))).await;
    let again = wait(
        &browser,
        "document.querySelector('.nccl-ratio')?.dataset.ratio",
    )
    .await;
    assert!(close(again.as_str().unwrap().parse().unwrap(), want_ratio));
    let restored = browser
        .eval("return [document.querySelector('#nccl-nodes').value, document.querySelector('#nccl-nic').value, document.querySelectorAll('.nccl-sweep-table tbody tr').length]")
        .await;
    assert_eq!(restored, serde_json::json!(["16", "roce-100", 31]));

    // Dark theme.
    browser
        .find(".theme-toggle")
        .await
        .click()
        .await
        .expect("toggles");
    show(&browser, ".nccl-results").await;
    browser.screenshot("nccl-results-dark").await;
    show(&browser, ".nccl-sweep").await;
    browser.screenshot("nccl-sweep-dark").await;
    browser.assert_no_console_errors("/nccl dark").await;

    // Two nodes on one 100 Gb/s NIC each: where the engine's busbw passes the wire rate,
    // the page says why.
    let mut two = machines(2, NicModel::Roce100);
    two.nics_per_node = 1;
    let wire_gbs = NicModel::Roce100.gbps() / 8.0;
    let past = report(two, gib8)
        .estimates
        .iter()
        .any(|e| e.busbw_gbs > wire_gbs);
    assert!(past, "the engine has a pair past the wire here");
    browser.set_value("#nccl-nodes", "2", "input").await;
    browser.set_value("#nccl-nics", "1", "input").await;
    wait(
        &browser,
        "document.querySelector('.nccl-results [data-note=busbw-past-wire]') !== null",
    )
    .await;
    show(&browser, ".nccl-results [data-note=busbw-past-wire]").await;
    browser.screenshot("nccl-busbw-note-dark").await;

    // 375 px: the page never scrolls sideways; wide tables scroll in their own box.
    browser.resize(PHONE).await;
    browser.goto(&site.url(&format!("/nccl{search}"))).await;
    wait(&browser, "document.querySelector('.nccl-ratio')").await;
    let wide = browser
        .eval(
            "const w = document.documentElement.clientWidth; \
             return [document.documentElement.scrollWidth > w, \
               [...document.querySelectorAll('.nccl-view *')] \
                 .filter(e => !e.closest('.nccl-scroll') && e.getBoundingClientRect().right > w + 0.5) \
                 .map(e => e.tagName + ': ' + e.textContent.slice(0, 40))]",
        )
        .await;
    assert_eq!(
        wide,
        serde_json::json!([false, []]),
        "wider than the screen"
    );
    show(&browser, ".nccl-view").await;
    browser.screenshot("nccl-phone-form").await;
    show(&browser, ".nccl-results").await;
    // The chosen pair's busbw is in view at 375 without scrolling the table (UX check
    // 2026-12: it was off to the right).
    let busbw_in_view = browser
        .eval(
            "const cell = document.querySelector('.nccl-pairs tr[data-chosen=true] .nccl-busbw').getBoundingClientRect();              const box = document.querySelector('.nccl-results .nccl-scroll').getBoundingClientRect();              return cell.right <= box.right + 1",
        )
        .await;
    assert_eq!(busbw_in_view, true, "busbw in view at 375 px");
    browser.screenshot("nccl-phone-results").await;
    show(&browser, ".nccl-sweep").await;
    browser.screenshot("nccl-phone-sweep").await;
    browser.assert_no_console_errors("/nccl phone").await;
    browser.close().await;
}
