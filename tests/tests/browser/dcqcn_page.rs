//! The DCQCN page in real Chromium: a slider changes the charts, the packet model runs in
//! its worker and finishes, a bad value is refused with the parameter named and the last
//! good run stays drawn; both themes and a phone-width screen.

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

/// The newest run the page has asked for (equal to [`run_number`] once it has been drawn).
async fn requested_run(browser: &Browser) -> u64 {
    let v = browser
        .eval("return document.querySelector('.dcqcn-charts').dataset.requested")
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
        .visit(&site, "/dcqcn?scenario=two-flow&model=fluid")
        .await;
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
            "[data-key='cp.kmin_bytes'] input.form-text",
            "999999999",
            "input",
        )
        .await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='cp.kmin_bytes'] .form-error\")?.textContent",
    )
    .await;
    assert!(
        message
            .as_str()
            .is_some_and(|m| m.contains("cp.kmin_bytes")),
        "the refusal names the parameter: {message}"
    );
    let typed = browser
        .eval("return document.querySelector(\"[data-key='cp.kmin_bytes'] input.form-text\").value")
        .await;
    assert_eq!(typed, "999999999", "what the learner typed is kept");
    // The refusal and the run it did not ask for are one state of the page: shown together.
    assert_eq!(
        requested_run(&browser).await,
        drawn_run,
        "no run for a refused value"
    );
    assert_eq!(run_number(&browser).await, drawn_run);
    assert_eq!(
        rate_pixels(&browser).await,
        after_pixels,
        "the last good run stays drawn"
    );
    // Malformed text is refused too.
    browser
        .set_value("[data-key='dcqcn.g'] input.form-text", "fast", "input")
        .await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='dcqcn.g'] .form-error\")?.textContent",
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
        "document.querySelector('.dcqcn-summary')?.dataset && document.querySelectorAll('.dcqcn-readout tbody tr').length === 16",
    )
    .await;
    browser
        .set_value(
            "[data-key='duration_us'] input.form-text",
            "10000",
            "change",
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
        .eval("return document.querySelector(\"[data-key='duration_us'] input.form-text\").value")
        .await;
    assert_eq!(duration, "10000");
    browser.screenshot("dcqcn-packet-light").await;

    // Dark theme: the charts redraw with the theme's background.
    browser
        .eval("window.lightPixels = document.getElementById('dcqcn-chart-rate').toDataURL(); return true")
        .await;
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
    wait_until(
        &browser,
        "document.getElementById('dcqcn-chart-rate').toDataURL() !== window.lightPixels",
    )
    .await;
    browser.screenshot("dcqcn-packet-dark").await;

    // Phone width: nothing overflows the screen.
    browser.resize((375, 800)).await;
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

/// The number box of field `key`.
fn number_box(key: &str) -> String {
    format!("[data-key='{key}'] input.form-text")
}

/// Opens the panel section holding field `key` as a learner does (a click on its
/// summary), puts the focus in its number box with the text selected, and types `keys`
/// there with one WebDriver sendKeys, which sends them one key event at a time.
async fn type_into(browser: &Browser, key: &str, keys: &str) {
    let css = number_box(key);
    let open = browser
        .eval(&format!(
            "return document.querySelector({css:?}).closest('details').open"
        ))
        .await;
    if open != Value::Bool(true) {
        browser
            .eval(&format!(
                "document.querySelector({css:?}).closest('details').querySelector('summary').click()"
            ))
            .await;
    }
    browser.type_over(&css, keys).await;
}

/// Where the learner left field `key`: its box's text, whether its section is open and
/// whether the focus is still in the box.
async fn left_as(browser: &Browser, key: &str) -> (Value, Value, Value) {
    let css = number_box(key);
    let v = browser
        .eval(&format!(
            "const el = document.querySelector({css:?}); \
             return [el.value, el.closest('details').open, document.activeElement === el];"
        ))
        .await;
    (v[0].clone(), v[1].clone(), v[2].clone())
}

async fn open_fresh(browser: &Browser, site: &Site, query: &str) -> u64 {
    browser.goto(&site.url(&format!("/dcqcn?{query}"))).await;
    wait_until(
        browser,
        "document.querySelector('.dcqcn-charts')?.dataset.run > '0'",
    )
    .await;
    run_number(browser).await
}

/// Issue 18, item 1: a number typed digit by digit is taken whole, once, with the panel
/// left as the learner left it.
#[tokio::test]
async fn dcqcn_number_boxes_take_a_number_typed_digit_by_digit() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    // (field, what a reading of the model shows once it ran with 100)
    let checks: [(&str, &str); 4] = [
        ("bottleneck_gbps", "true"),
        (
            "flows",
            "document.querySelectorAll('.dcqcn-readout tbody tr').length === 100",
        ),
        (
            "duration_us",
            "document.getElementById('dcqcn-cursor').max === '100'",
        ),
        ("cp.kmin_bytes", "true"),
    ];
    for (key, reading) in checks {
        let first_run = open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
        // The learner empties the box (Backspace over the selection), then types 1, 0, 0.
        type_into(&browser, key, "\u{E003}100").await;
        assert_eq!(
            left_as(&browser, key).await,
            (Value::from("100"), Value::Bool(true), Value::Bool(true)),
            "{key}: while typing, the box holds every digit, its section stays open and \
             the focus stays in it"
        );
        wait_until(
            &browser,
            &format!(
                "location.search.includes('{key}=100&') || location.search.endsWith('{key}=100')"
            ),
        )
        .await;
        wait_until(&browser, reading).await;
        assert_eq!(
            run_number(&browser).await,
            first_run + 1,
            "{key}: one run, for the whole number, not one per keystroke"
        );
        assert_eq!(
            left_as(&browser, key).await,
            (Value::from("100"), Value::Bool(true), Value::Bool(true)),
            "{key}: after the run, the panel is as the learner left it"
        );
        let error = browser
            .eval(&format!(
                "return document.querySelector(\"[data-key='{key}'] .form-error\")?.textContent ?? ''"
            ))
            .await;
        assert_eq!(error, "", "{key}: 100 is accepted");
    }
    browser.screenshot("dcqcn-typed-kmin").await;

    // Enter commits at once, without waiting for the box to rest.
    let first_run = open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
    type_into(&browser, "flows", "12\u{E007}").await;
    wait_until(
        &browser,
        &format!(
            "document.querySelector('.dcqcn-charts').dataset.run === '{}' && \
             document.querySelectorAll('.dcqcn-readout tbody tr').length === 12",
            first_run + 1
        ),
    )
    .await;
    browser
        .assert_no_console_errors("typing into the DCQCN panel")
        .await;
    browser.close().await;
}

/// Issue 18, item 1: an absurd value is refused next to its box with the range and the
/// reason, and the run keeps the last valid value.
#[tokio::test]
async fn dcqcn_an_absurd_number_is_refused_beside_its_box_and_the_last_value_runs() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    let first_run = open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
    type_into(&browser, "flows", "1e9").await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='flows'] .form-error\")?.textContent",
    )
    .await;
    let message = message.as_str().unwrap_or_default().to_string();
    for part in [
        "`flows`",
        "1 to 1024",
        "keeps the last valid value, 2 flows",
    ] {
        assert!(message.contains(part), "{part:?} missing from {message:?}");
    }
    assert_eq!(
        left_as(&browser, "flows").await,
        (Value::from("1e9"), Value::Bool(true), Value::Bool(true)),
        "what the learner typed stays, in an open section, with the focus"
    );
    // The refusal comes from the box's commit, which would have asked for the run too.
    assert_eq!(requested_run(&browser).await, first_run, "nothing ran");
    assert_eq!(run_number(&browser).await, first_run);
    let search = browser.eval("return location.search").await;
    let search = search.as_str().unwrap_or_default();
    assert!(
        !search.contains("flows=") && !search.contains("flow_stagger_us"),
        "the URL keeps the last valid scenario: {search}"
    );
    assert_eq!(
        browser
            .eval("return document.querySelectorAll('.dcqcn-readout tbody tr').length")
            .await,
        2
    );
    browser.screenshot("dcqcn-refused-flows").await;

    // A link rate past the engine's cap says which rates it takes.
    type_into(&browser, "bottleneck_gbps", "100000").await;
    let message = wait_until(
        &browser,
        "document.querySelector(\"[data-key='bottleneck_gbps'] .form-error\")?.textContent",
    )
    .await;
    let message = message.as_str().unwrap_or_default();
    assert!(
        message.contains("1\u{202f}600 Gb/s") && message.contains("40 Gb/s"),
        "{message}"
    );
    assert_eq!(run_number(&browser).await, first_run, "nothing ran");
    browser
        .assert_no_console_errors("refusing values on the DCQCN page")
        .await;
    browser.close().await;
}

/// The text of the summary's row `term`.
async fn summary_row(browser: &Browser, term: &str) -> String {
    let v = browser
        .eval(&format!(
            "const row = [...document.querySelectorAll('.dcqcn-summary .dcqcn-stat')] \
               .find(r => r.querySelector('dt').textContent === {term:?}); \
             return row ? row.querySelector('dd').textContent : '';"
        ))
        .await;
    v.as_str().unwrap_or_default().to_string()
}

/// Flow 0's R_C in the readout with the cursor at `t_us`.
async fn rate_at(browser: &Browser, t_us: f64) -> f64 {
    browser
        .set_value("#dcqcn-cursor", &t_us.to_string(), "input")
        .await;
    let sample = ((t_us / 100.0).round() - 1.0).max(0.0);
    wait_until(
        browser,
        &format!("document.querySelector('.dcqcn-readout').dataset.sample === '{sample}'"),
    )
    .await;
    let text = browser
        .eval("return document.querySelector('.dcqcn-readout tbody tr td').textContent")
        .await;
    text.as_str()
        .and_then(|t| t.parse().ok())
        .expect("a rate in the readout")
}

/// Issue 18, item 6: the summary reports the cut the charts show, utilization while the
/// flows are on the link, and each flow's completion.
#[tokio::test]
async fn dcqcn_summary_agrees_with_the_charts() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;

    // two-flow, fluid: CNPs arrive, and the first cut is where flow 0's rate first falls.
    open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
    let cnps: u64 = summary_row(&browser, "CNPs")
        .await
        .parse()
        .expect("a count");
    assert!(cnps > 0);
    let cut = summary_row(&browser, "Flow 0 first cut").await;
    assert!(cut.contains("→"), "CNPs {cnps} and no cut: {cut:?}");
    let cut_us: f64 = browser
        .eval("return Number(document.querySelector('.dcqcn-summary').dataset.firstCutUs)")
        .await
        .as_f64()
        .expect("the cut's instant");
    assert_eq!(
        rate_at(&browser, cut_us - 100.0).await,
        40.0,
        "line rate before"
    );
    let after = rate_at(&browser, cut_us).await;
    assert!(
        after < 40.0,
        "the readout shows the cut at {cut_us} µs: {after}"
    );
    assert!(
        cut.contains(&format!("{after:.1} Gb/s")),
        "{cut} vs {after}"
    );

    // incast-16, fluid: the link is full until the flows end at about 5.4 ms.
    open_fresh(&browser, &site, "scenario=incast-16&model=fluid").await;
    let util = summary_row(&browser, "Utilization while flows were active").await;
    let percent: f64 = util
        .split(" %")
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("a percentage: {util:?}"));
    assert!(percent > 95.0, "{util}");
    assert!(util.contains("0.000 ms to 5."), "{util}");
    let completions = browser
        .eval(
            "return [...document.querySelectorAll('.dcqcn-flow-table tbody tr')] \
               .map(r => r.children[3].textContent)",
        )
        .await;
    let completions = completions.as_array().expect("rows");
    assert_eq!(completions.len(), 16, "one row per flow");
    assert!(
        completions.iter().all(|c| c
            .as_str()
            .is_some_and(|c| c.starts_with("5.") && c.ends_with(" ms"))),
        "{completions:?}"
    );
    browser.screenshot("dcqcn-incast-summary").await;

    // The packet model's first cut, an instant.
    browser
        .find("input[name='dcqcn-model'][value='packet']")
        .await
        .click()
        .await
        .expect("packet model radio clicks");
    wait_until(
        &browser,
        "document.querySelector('.dcqcn-charts').dataset.model === 'packet'",
    )
    .await;
    let cut = summary_row(&browser, "Flow 0 first cut").await;
    assert!(cut.contains("100.0 → ") && cut.contains(" at "), "{cut}");
    browser.assert_no_console_errors("the DCQCN summary").await;
    browser.close().await;
}

/// Decodes standard base64 (a data URL's payload).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    sextets
        .chunks(4)
        .flat_map(|c| {
            let n = c
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, &v)| n | u32::from(v) << (18 - 6 * i));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len().saturating_sub(1))
        })
        .collect()
}

/// Issue 18, item 7: the legend names each flow's colour in words, and both exports name
/// the scenario, the model and the parameters.
#[tokio::test]
async fn dcqcn_exports_name_their_run_and_the_legend_names_each_colour() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;

    open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
    let legend = browser
        .eval("return [...document.querySelectorAll('.dcqcn-legend li')].map(li => li.textContent)")
        .await;
    assert_eq!(
        legend,
        serde_json::json!(["Flow 0: blue", "Flow 1: orange"])
    );
    let swatch = browser
        .eval("return getComputedStyle(document.querySelector('.dcqcn-legend .dcqcn-swatch')).backgroundColor")
        .await;
    assert_eq!(swatch, "rgb(11, 92, 213)", "the rate chart's flow 0 colour");

    open_fresh(&browser, &site, "scenario=incast-16&model=fluid").await;
    let legend = browser
        .eval("return [...document.querySelectorAll('.dcqcn-legend li')].map(li => li.textContent)")
        .await;
    assert_eq!(legend[0], "Flows 0, 8: blue", "{legend}");
    assert_eq!(legend.as_array().map(Vec::len), Some(8));
    let run = run_number(&browser).await;
    type_into(&browser, "dcqcn.g", "0.5\u{E007}").await;
    wait_until(
        &browser,
        &format!(
            "document.querySelector('.dcqcn-charts').dataset.run === '{}'",
            run + 1
        ),
    )
    .await;

    // Catch the downloads instead of saving them: the link's name and address, the CSV's
    // blob, and every text drawn onto a canvas.
    browser.catch_downloads().await;
    let csv_file = browser.click_to_download("Export CSV").await;
    assert_eq!(csv_file.name, "dcqcn-incast-16-fluid.csv");
    let csv = browser.eval("return window.__blobs[0].text()").await;
    let csv = csv.as_str().expect("the CSV's text");
    let comments: Vec<&str> = csv.lines().take_while(|l| l.starts_with('#')).collect();
    for line in [
        "# scenario: incast-16",
        "# model: fluid",
        "# dcqcn.g = 0.5",
        "# bottleneck_gbps = 100 Gb/s",
        "# flows[0-15].size_bytes = 4194304 bytes",
    ] {
        assert!(comments.contains(&line), "{line} missing from {comments:?}");
    }
    let table: Vec<&str> = csv.lines().skip(comments.len()).collect();
    assert!(table[0].starts_with("time_us,flow,rc_gbps"), "{}", table[0]);
    assert_eq!(
        table.len(),
        1 + 160 * 16,
        "header and one row per flow per sample"
    );

    let png_file = browser.click_to_download("Export PNG").await;
    assert_eq!(png_file.name, "dcqcn-incast-16-fluid.png");
    let texts = browser.eval("return window.__texts").await;
    let texts: Vec<&str> = texts
        .as_array()
        .expect("texts")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for wanted in [
        "DCQCN · incast-16 · fluid model",
        "Changed from incast-16: dcqcn.g = 0.5",
        "flow 0, 8 (blue)",
        "Rate per flow: sent on the wire (solid), DCQCN's current rate Rc (dashed), target Rt \
         (dotted)",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(wanted)),
            "{wanted:?} not drawn into the PNG: {texts:?}"
        );
    }
    assert!(
        texts
            .iter()
            .any(|t| t.contains("bottleneck_gbps = 100 Gb/s")),
        "the parameters are drawn: {texts:?}"
    );
    // The image: the five charts under a caption.
    let sizes = browser
        .eval(
            "const img = new Image(); img.src = window.__downloads[1].href; await img.decode(); \
             const charts = [...document.querySelectorAll('.dcqcn-chart canvas')] \
               .reduce((h, c) => h + c.height, 0); \
             return [img.naturalWidth, img.naturalHeight, charts];",
        )
        .await;
    let (height, charts) = (sizes[1].as_f64(), sizes[2].as_f64());
    assert!(
        height.zip(charts).is_some_and(|(h, c)| h > c + 100.0),
        "a caption above the charts: {sizes}"
    );
    let png = base64_decode(
        png_file
            .href
            .strip_prefix("data:image/png;base64,")
            .expect("a PNG data URL"),
    );
    assert_eq!(&png[1..4], b"PNG");
    if lab_tests::screenshots_wanted() {
        lab_tests::save_screenshot("dcqcn-export", &png);
    }
    browser.screenshot("dcqcn-legend").await;

    // A phone: the legend and the per-flow table fit.
    browser.resize((375, 800)).await;
    let overflow = browser
        .eval("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        .await;
    assert_eq!(overflow, 0, "the page fits a 375 px screen");
    browser
        .eval("document.querySelector('.dcqcn-legend').scrollIntoView()")
        .await;
    browser.screenshot("dcqcn-phone-legend").await;
    browser
        .eval("document.querySelector('.dcqcn-flow-table').scrollIntoView()")
        .await;
    browser.screenshot("dcqcn-phone-flow-table").await;
    browser.assert_no_console_errors("the DCQCN exports").await;
    browser.close().await;
}

/// Issue 18, item 11: the view's "try this" tasks, done the way a learner would, each
/// ticked off once a run shows it.
#[tokio::test]
async fn dcqcn_try_this_tasks_tick_off_when_a_run_shows_them() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    open_fresh(&browser, &site, "scenario=two-flow&model=fluid").await;
    assert_eq!(browser.exercises_done().await, Vec::<String>::new());

    // mlx5's minimum decrease factor bounds every cut.
    type_into(&browser, "dcqcn.rp_min_dec_fac_pct", "\u{E003}80\u{E007}").await;
    browser.wait_for_exercise("gentle-cut").await;

    // Sixteen senders at line rate reach XOFF before the first CNP is back; the scenario as
    // shipped shows it, so it ticks nothing (UX check 2026-12: the task completed itself)
    // until the learner changes something: twenty senders.
    browser
        .set_value(".dcqcn-controls select", "incast-16", "change")
        .await;
    browser
        .click_in_view("input[name=dcqcn-model][value=packet]")
        .await;
    browser
        .wait_until(
            "const c = document.querySelector('.dcqcn-charts'); \
             return !!c && c.dataset.run === c.dataset.requested && c.dataset.model === 'packet' \
               && document.querySelectorAll('.dcqcn-flow-table tbody tr').length === 16",
            "the shipped incast run drawn",
        )
        .await;
    assert_eq!(browser.exercises_done().await, ["gentle-cut"]);
    type_into(&browser, "flows", "\u{E003}20\u{E007}").await;
    browser.wait_for_exercise("pfc-first").await;

    // 24 KB between XOFF and the end of a 1 MiB buffer is far less than the senders still
    // have on the wire when the PAUSE reaches them.
    type_into(&browser, "cp.pfc.xoff_bytes", "\u{E003}1024000\u{E007}").await;
    browser.wait_for_exercise("headroom-overrun").await;
    assert_eq!(
        browser.exercises_done().await,
        ["pfc-first", "headroom-overrun", "gentle-cut"]
    );
    browser
        .eval("document.querySelector('.try-this').scrollIntoView(); return null")
        .await;
    browser.screenshot("dcqcn-try-this-light").await;
    browser.assert_no_console_errors("the DCQCN tasks").await;
    browser.close().await;
}

/// UX check 2026-12, Leo's item 12: at 375 px the first chart began about 1,850 px below
/// the scenario select, under the whole parameter panel. The charts now come right after
/// the controls on a phone, the parameters next (Tab goes from the time cursor to the
/// first section), and a desktop still shows the parameters beside the charts with the
/// results straight under the charts.
#[tokio::test]
async fn dcqcn_charts_follow_the_controls_on_a_phone_and_sit_beside_the_parameters_on_a_desktop() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((375, 812)).await;
    open_fresh(&browser, &site, "scenario=ecn-above-xoff&model=fluid").await;
    let phone = browser
        .eval(
            "const top = (el) => el.getBoundingClientRect().top + scrollY; \
             const bottom = (el) => el.getBoundingClientRect().bottom + scrollY; \
             const select = document.querySelector('.dcqcn-controls select'); \
             const chart = document.getElementById('dcqcn-chart-rate'); \
             const panel = document.querySelector('.dcqcn-panel'); \
             return [top(chart) - bottom(select), top(panel) - bottom(chart), \
               document.documentElement.scrollWidth - document.documentElement.clientWidth];",
        )
        .await;
    let below_select = phone[0].as_f64().expect("a distance");
    assert!(
        below_select < 700.0,
        "the rate chart starts {below_select} px below the scenario select"
    );
    assert!(
        phone[1].as_f64().is_some_and(|d| d > 0.0),
        "the parameters come after the charts: {phone}"
    );
    assert_eq!(phone[2], 0, "the page fits a 375 px screen");
    browser
        .eval("document.querySelector('.dcqcn-controls').scrollIntoView(); return null")
        .await;
    browser.screenshot("dcqcn-phone-charts").await;

    // The keyboard takes the same way: from the charts' time cursor to the parameters.
    browser
        .eval("document.getElementById('dcqcn-cursor').focus(); return null")
        .await;
    browser.press('\u{E004}').await;
    let focused = browser
        .eval(
            "const el = document.activeElement; \
             return el.matches('.dcqcn-group summary') \
               && el === document.querySelector('.dcqcn-group summary');",
        )
        .await;
    assert_eq!(
        focused, true,
        "Tab from the time cursor reaches the first section"
    );

    // A desktop: parameters on the left from the top of the charts' column, the results
    // straight under the charts however long the panel is.
    browser.resize((1280, 900)).await;
    let desktop = browser
        .eval(
            "const box = (css) => document.querySelector(css).getBoundingClientRect(); \
             const [panel, figures, results] = \
               ['.dcqcn-panel', '.dcqcn-figures', '.dcqcn-results'].map(box); \
             return [panel.right < figures.left, Math.abs(panel.top - figures.top) <= 1, \
               Math.abs(results.top - figures.bottom) <= 1, results.left === figures.left];",
        )
        .await;
    assert_eq!(
        desktop,
        serde_json::json!([true, true, true, true]),
        "{desktop}"
    );
    browser.screenshot("dcqcn-desktop-layout").await;
    browser.assert_no_console_errors("the DCQCN layout").await;
    browser.close().await;
}

/// UX check 2026-12, item 11: the XOFF slider ran to 2 MiB past incast-16's 1 MiB buffer,
/// and no text but an error message gave the buffer's size. The slider now ends at the
/// buffer, of whichever scenario, and the row says the size and the headroom left.
#[tokio::test]
async fn dcqcn_the_xoff_slider_ends_at_the_buffer_its_row_names() {
    let site = Site::start();
    let browser = Browser::start().await;
    browser.resize((1280, 1000)).await;
    open_fresh(&browser, &site, "scenario=incast-16&model=fluid").await;
    // An element of the XOFF row, as JavaScript.
    let xoff =
        |what: &str| format!("document.querySelector(\"[data-key='cp.pfc.xoff_bytes'] {what}\")");
    let (slider, note) = (xoff("input[type=range]"), xoff(".form-note"));
    let max = browser.eval(&format!("return {slider}.max")).await;
    assert_eq!(max, "1048576", "the slider ends at the 1 MiB buffer");
    let note_text = format!("return {note}?.textContent");
    let note = browser.eval(&note_text).await;
    let note = note.as_str().unwrap_or_default();
    for wanted in [
        "1\u{202f}048\u{202f}576 bytes (1 MiB)",
        "638\u{202f}976 bytes (624 KiB)",
    ] {
        assert!(note.contains(wanted), "{wanted:?} not in {note:?}");
    }

    // The slider at its end: XOFF at the buffer leaves no headroom, and the row says so.
    browser
        .set_value(
            "[data-key='cp.pfc.xoff_bytes'] input[type=range]",
            "1048576",
            "input",
        )
        .await;
    wait_until(
        &browser,
        &format!(
            "{}?.textContent.includes('above XOFF, 0 bytes')",
            xoff(".form-note")
        ),
    )
    .await;

    // Another scenario, another buffer: two-flow's is 2 MiB.
    browser
        .set_value(".dcqcn-controls select", "two-flow", "change")
        .await;
    wait_until(&browser, &format!("{slider}.max === '2097152'")).await;
    let note = browser.eval(&note_text).await;
    assert!(
        note.as_str()
            .is_some_and(|n| n.contains("2\u{202f}097\u{202f}152 bytes (2 MiB)")),
        "{note}"
    );
    browser.assert_no_console_errors("the XOFF slider").await;
    browser.close().await;
}
