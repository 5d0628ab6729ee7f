//! axe-core (installed by `./lab test`, path in `LAB_AXE`) run in every route's page, in both
//! themes at desktop width and in the light theme on a phone, once the page's view has drawn
//! itself: no serious or critical violation anywhere. On the phone each route is also measured:
//! nothing may make the page scroll sideways (issue 18, item 2).

use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    site::Site,
    topics,
};

#[tokio::test]
async fn no_serious_violation_on_any_route_in_either_theme() {
    let site = Site::start();
    let browser = Browser::start().await;
    let mut found = Vec::new();
    let mut too_wide = Vec::new();

    for (size, theme) in [(DESKTOP, "light"), (DESKTOP, "dark"), (PHONE, "light")] {
        browser.resize(size).await;
        // The stored choice is read as each page loads, so one load per route shows it.
        browser.goto(&site.url("/")).await;
        browser
            .eval(&format!(
                "localStorage.setItem('rdma-lab.theme', '{theme}')"
            ))
            .await;
        for topic in topics::all() {
            browser.goto(&site.url(&topic.path)).await;
            browser.wait_for_text("main h1", &topic.title).await;
            assert_eq!(
                browser
                    .eval("return document.documentElement.dataset.theme")
                    .await,
                theme,
                "{} shows the stored theme",
                topic.path
            );
            browser
                .wait_until(
                    "return !document.querySelector('.view-slot:not(.settled)')",
                    "the page's view to draw itself",
                )
                .await;
            if size == PHONE {
                let wide = browser
                    .eval(
                        "const w = document.documentElement.clientWidth; \
                         const past = document.documentElement.scrollWidth - w; \
                         if (past <= 0) return null; \
                         const out = [...document.querySelectorAll('main *')] \
                           .filter(e => e.getBoundingClientRect().right > w + 0.5) \
                           .slice(0, 3).map(e => e.tagName + '.' + e.className); \
                         return `${past} px past the screen: ${out.join(', ')}`",
                    )
                    .await;
                if let Some(wide) = wide.as_str() {
                    too_wide.push(format!("{}: {wide}", topic.path));
                }
            }
            for violation in browser.serious_axe_violations().await {
                found.push(format!(
                    "{} ({theme}, {} px): {violation}",
                    topic.path, size.0
                ));
            }
        }
    }
    browser.eval("localStorage.clear()").await;
    browser.close().await;
    assert!(found.is_empty(), "axe-core found:\n{}", found.join("\n"));
    assert!(
        too_wide.is_empty(),
        "wider than a 375 px screen:\n{}",
        too_wide.join("\n")
    );
}
