//! Search in real Chromium answers what a learner types (issue 18, item 8): words that are not
//! in the heading ("fallback"), a symptom ("slow all-reduce", "3 GB/s"), a typo ("dcqnc").
//! Each query's first result is the section that answers it, and Enter lands there.

use fantoccini::key::Key;
use lab_tests::{browser::Browser, site::Site};

/// Where the first result of the box's current query leads, as `path#anchor`, or what the
/// box says instead, once the results are drawn for the whole query.
const FIRST_RESULT: &str = "const list = document.getElementById('search-results');\
     if (!list) return null;\
     const link = list.querySelector('li[role=option] a');\
     if (link) return link.pathname + link.hash;\
     const empty = list.querySelector('.search-empty');\
     return empty && !empty.textContent.startsWith('Loading') ? 'no result: ' + empty.textContent : null;";

/// (query, the first result's route and anchor, the page's h1 after Enter)
const QUERIES: &[(&str, &str, &str)] = &[
    (
        "nccl socket fallback",
        "/troubleshooting/#nccl-falls-back-to-sockets",
        "Troubleshooting",
    ),
    (
        "slow all-reduce",
        "/troubleshooting/#nccl-falls-back-to-sockets",
        "Troubleshooting",
    ),
    (
        "3 GB/s",
        "/troubleshooting/#nccl-falls-back-to-sockets",
        "Troubleshooting",
    ),
    ("dcqnc", "/dcqcn/", "DCQCN"),
];

#[tokio::test]
async fn natural_questions_land_on_the_section_that_answers_them() {
    let site = Site::start();
    let browser = Browser::open(&site, "/").await;

    for &(query, want, title) in QUERIES {
        // After a landing the page is scrolled; leave the box the way a reader would.
        browser.eval("document.activeElement.blur()").await;
        browser.press('/').await;
        browser.eval("document.activeElement.value = ''").await;
        browser
            .find(".search-input")
            .await
            .send_keys(query)
            .await
            .expect("typing works");
        let first = browser
            .wait_until(FIRST_RESULT, &format!("results for {query:?}"))
            .await;
        assert_eq!(first, want, "the first result for {query:?}");
        browser
            .screenshot(&format!("search-{}", want.replace(['/', '#'], "-")))
            .await;

        browser.press(Key::Enter.into()).await;
        browser.wait_for_text("main h1", title).await;
        let url = browser.client.current_url().await.expect("a URL");
        let landed = format!(
            "{}{}",
            url.path(),
            url.fragment().map(|f| format!("#{f}")).unwrap_or_default()
        );
        assert_eq!(landed, want, "Enter on {query:?} opens the first result");
        if let Some((_, anchor)) = want.split_once('#') {
            let visible = format!(
                "const h = document.getElementById({anchor:?}).getBoundingClientRect();\
                 return h.top >= 0 && h.top < window.innerHeight / 2"
            );
            browser
                .wait_until(
                    &visible,
                    &format!("{query:?}: the heading to be scrolled into view"),
                )
                .await;
        }
    }

    browser
        .assert_no_console_errors("natural-language search")
        .await;
    browser.close().await;
}
