//! The reference text in real Chromium: search as you type, `/` to focus, results that land
//! on the right heading, and links inside the text that stay in the app.

use fantoccini::key::Key;
use lab_tests::{browser::Browser, site::Site};

/// Focuses search with `/`, types `query`, and follows the first result with Enter.
async fn search_and_go(browser: &Browser, query: &str) {
    browser
        .find("main h1")
        .await
        .click()
        .await
        .expect("page body clicks");
    browser.press('/').await;
    let focused = browser
        .eval("return document.activeElement.classList.contains('search-input')")
        .await;
    assert_eq!(focused, true, "`/` focuses the search box");
    browser.eval("document.activeElement.value = ''").await;
    browser
        .find(".search-input")
        .await
        .send_keys(query)
        .await
        .expect("typing works");
    browser.find("#search-results li[role=option] a").await;
    browser.press(Key::Enter.into()).await;
}

/// A link in /roce's text to another topic (not a citation, a source's address or /roce).
const IN_TEXT_LINK: &str =
    "main .prose a:not([aria-label]):not([href^='http']):not([href^='#']):not([href^='roce/'])";

#[tokio::test]
async fn search_lands_on_the_right_headings() {
    let site = Site::start();
    let browser = Browser::open(&site, "/").await;

    search_and_go(&browser, "DCQCN").await;
    browser.wait_for_text("main h1", "DCQCN").await;
    assert_eq!(browser.path().await, "/dcqcn/");

    search_and_go(&browser, "GID").await;
    browser.wait_for_text("main h1", "Troubleshooting").await;
    let url = browser.client.current_url().await.expect("a URL");
    assert_eq!(url.fragment(), Some("roce-gid-index-wrong"));
    let heading_visible =
        "const h = document.getElementById('roce-gid-index-wrong').getBoundingClientRect();\
                           return h.top >= 0 && h.top < window.innerHeight / 2";
    browser
        .wait_until(heading_visible, "the GID heading to be scrolled into view")
        .await;
    browser.screenshot("search-gid-landing").await;

    browser
        .find(".search-input")
        .await
        .send_keys("PXN")
        .await
        .expect("typing works");
    browser
        .wait_for_text(
            "#search-results li.active .search-result-where",
            "NCCL transports › PXN: PCI × NVLink",
        )
        .await;
    browser.screenshot("search-pxn-results").await;
    browser
        .find("#search-results li.active a")
        .await
        .click()
        .await
        .expect("result clicks");
    browser.wait_for_text("main h1", "NCCL transports").await;
    let url = browser.client.current_url().await.expect("a URL");
    assert_eq!(
        (url.path(), url.fragment()),
        ("/nccl/", Some("pxn-pci-nvlink"))
    );

    browser.assert_no_console_errors("search").await;
    browser.close().await;
}

#[tokio::test]
async fn reference_pages_show_cited_text_and_in_app_links() {
    let site = Site::start();
    let browser = Browser::open(&site, "/roce").await;

    let cites = browser
        .eval("return document.querySelectorAll('main sup.cite a').length")
        .await;
    assert!(
        cites.as_u64().is_some_and(|n| n > 5),
        "the page cites its sources: {cites}"
    );
    let dangling = browser
        .eval("return [...document.querySelectorAll('main sup.cite a')].filter(a => a.pathname.replace(/[/]$/, '') !== location.pathname.replace(/[/]$/, '') || !document.getElementById(a.hash.slice(1))).length")
        .await;
    assert_eq!(
        dangling, 0,
        "every citation points at an entry of the source list"
    );

    // An in-text link to another topic navigates without reloading the page.
    browser.eval("window.__sameDocument = true").await;
    let link = browser.find(IN_TEXT_LINK).await;
    let path = browser
        .eval(&format!(
            "return document.querySelector({IN_TEXT_LINK:?}).pathname"
        ))
        .await
        .as_str()
        .expect("a link has a path")
        .to_string();
    link.click().await.expect("link clicks");
    browser
        .wait_for_value("return location.pathname", path.clone().into())
        .await;
    assert_eq!(
        browser.eval("return window.__sameDocument === true").await,
        true,
        "no full reload"
    );

    browser.goto(&site.url("/bandwidth")).await;
    browser
        .wait_for_text("main h1", "Bandwidth and latency")
        .await;
    let bars = browser
        .eval("return document.querySelectorAll('.bar-chart .bar').length")
        .await;
    let rows = browser
        .eval("return document.querySelectorAll('table.bandwidth tbody tr').length")
        .await;
    assert!(bars.as_u64().is_some_and(|n| n >= 10), "{bars} bars");
    assert_eq!(bars, rows, "one bar per row of the table");
    browser.screenshot("bandwidth-chart").await;

    browser.goto(&site.url("/nccl-env#nccl_ib_timeout")).await;
    browser
        .wait_for_text("main h1", "NCCL environment variables")
        .await;
    let row_visible = "const r = document.getElementById('nccl_ib_timeout').getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight";
    browser
        .wait_until(row_visible, "a deep link to a table row to scroll to it")
        .await;

    browser.assert_no_console_errors("reference pages").await;
    browser.close().await;
}
