//! The built `dist/`, unchanged, from a plain static host two folders deep
//! (`/a/rdma-lab/`), as a GitHub project page is served: no SPA fallback, `/x` redirected
//! to `/x/`, `404.html` for unknown paths. Every route by URL, by its sidebar link and by a
//! reload, the state views keep in their query, anchors, the DCQCN worker, the sample
//! capture and the not-found page, at desktop and phone width.

use tempfile::TempDir;

use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    probe::copy_tree,
    repo_root,
    static_server::StaticServer,
    topics::{self, Topic},
};

/// Where the site sits on the host.
const SUB_PATH: &str = "/a/rdma-lab/";

/// A copy of `dist/` under [`SUB_PATH`] of its own document root, served until dropped.
struct Hosted {
    server: StaticServer,
    /// The document root; removed when dropped, after the server that serves it.
    _www: TempDir,
}

impl Hosted {
    fn start(name: &str) -> Hosted {
        let dist = repo_root().join("dist");
        assert!(
            dist.join("404.html").is_file(),
            "the static-host tests need the built site with its route pages ({}); run `./lab site`",
            dist.display()
        );
        let www = tempfile::Builder::new()
            .prefix(&format!("lab-static-{name}-"))
            .tempdir()
            .expect("a folder for the static host");
        let site = www.path().join(SUB_PATH.trim_matches('/'));
        copy_tree(&dist, &site).unwrap_or_else(|e| panic!("cannot copy {}: {e}", dist.display()));
        let server = StaticServer::start(www.path(), &site.join("404.html"));
        Hosted { server, _www: www }
    }

    /// The URL of a path below the site root (`qp/?type=RC`, `` for the overview).
    fn url(&self, below_root: &str) -> String {
        format!("{}{SUB_PATH}{below_root}", self.server.origin)
    }

    /// Every request went to the site's own folder, but the not-found page's search for it
    /// (HEAD requests) and the live view's attempt at a probe's socket.
    fn assert_nothing_fetched_outside(&self) {
        let outside: Vec<_> = self
            .server
            .served()
            .into_iter()
            .filter(|s| !s.path.starts_with(SUB_PATH) && s.method != "HEAD" && s.path != "/ws")
            .collect();
        assert!(
            outside.is_empty(),
            "requests outside {SUB_PATH}: {outside:?}"
        );
    }
}

/// A topic's folder below the site root, as a static host serves it: `qp/`, `` for `/`.
fn folder(topic: &Topic) -> String {
    match topic.path.trim_matches('/') {
        "" => String::new(),
        path => format!("{path}/"),
    }
}

/// Where a link to a route path leads: its folder under the site root.
fn href(route_path: &str) -> String {
    format!("{SUB_PATH}{}", folder_of(route_path))
}

fn folder_of(route_path: &str) -> String {
    match route_path.trim_matches('/') {
        "" => String::new(),
        path => format!("{path}/"),
    }
}

fn width_name((width, _): (u32, u32)) -> &'static str {
    if width == DESKTOP.0 {
        "desktop"
    } else {
        "phone"
    }
}

/// The stylesheet loaded and applies (a page without it still shows its h1). The not-found
/// page inserts its stylesheet once its script has found the site root, after the h1 shows.
async fn assert_styled(browser: &Browser, context: &str) {
    browser
        .wait_until(
            "const s = document.querySelector('link[rel=stylesheet]')?.sheet; return s && s.cssRules.length > 50",
            &format!("the stylesheet to apply on {context}"),
        )
        .await;
}

/// The live view has no probe to reach on a static host, and Chromium logs its refused
/// connection attempts; any other error (a panic above all) still counts.
fn is_unreachable_probe(error: &str) -> bool {
    [
        "WebSocket connection to",
        "status of 404",
        "ERR_CONNECTION_REFUSED",
    ]
    .iter()
    .any(|network| error.contains(network))
}

/// Whether a logged failure is of a request for `/ws` or `/probe`, which only /live makes.
fn names_probe_endpoint(error: &str) -> bool {
    error.contains("/ws'") || error.contains("/probe ")
}

async fn assert_no_console_errors_on(browser: &Browser, topic: &Topic, context: &str) {
    let errors: Vec<String> = browser
        .console_errors()
        .await
        .into_iter()
        // An attempt /live started can fail after the learner has left it (its socket and
        // look-up are abandoned on leaving, but Chromium still logs the failure), so on any
        // page a failure naming the probe's own endpoints is /live's.
        .filter(|e| {
            !(is_unreachable_probe(e) && (topic.path == "/live" || names_probe_endpoint(e)))
        })
        .collect();
    assert!(
        errors.is_empty(),
        "console errors on {context}:\n{}",
        errors.join("\n")
    );
}

async fn sidebar_hrefs(browser: &Browser) -> Vec<String> {
    browser
        .eval("return [...document.querySelectorAll('nav.sidebar a')].map(a => a.pathname)")
        .await
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// Opens the topic list first where it is folded away (a phone).
async fn click_sidebar_link(browser: &Browser, route_path: &str) {
    let folded = browser
        .eval("return getComputedStyle(document.querySelector('nav.sidebar')).display === 'none'")
        .await;
    if folded == true {
        browser
            .find(".menu-button")
            .await
            .click()
            .await
            .expect("menu opens");
    }
    browser
        .find(&format!("nav.sidebar a[data-topic='{route_path}']"))
        .await
        .click()
        .await
        .expect("link clicks");
}

#[tokio::test]
async fn every_route_opens_reloads_and_is_linked_under_a_sub_path() {
    let host = Hosted::start("routes");
    let browser = Browser::start().await;
    let topics = topics::all();

    for size in [DESKTOP, PHONE] {
        browser.resize(size).await;
        let width = width_name(size);

        // By URL, as a static host serves it, and reloaded.
        for topic in &topics {
            browser.goto(&host.url(&folder(topic))).await;
            browser.wait_for_text("main h1", &topic.title).await;
            assert_styled(&browser, &topic.path).await;
            let hrefs = sidebar_hrefs(&browser).await;
            assert_eq!(hrefs.len(), topics.len(), "one link per topic");
            assert!(
                hrefs.iter().all(|h| h.starts_with(SUB_PATH)),
                "links stay under the site root: {hrefs:?}"
            );
            let current = browser
                .eval("return document.querySelector('nav a[aria-current=page]')?.pathname")
                .await;
            assert_eq!(current, href(&topic.path), "the sidebar marks the page");
            browser.client.refresh().await.expect("page reloads");
            browser.wait_for_text("main h1", &topic.title).await;
            assert_no_console_errors_on(&browser, topic, &format!("{} at {width}", topic.path))
                .await;
        }

        // By its sidebar link, then reloaded from the address the link wrote.
        browser.goto(&host.url("")).await;
        browser.wait_for_text("main h1", "Overview").await;
        for topic in topics.iter().rev() {
            click_sidebar_link(&browser, &topic.path).await;
            browser.wait_for_text("main h1", &topic.title).await;
            assert_eq!(browser.path().await, href(&topic.path));
            browser.client.refresh().await.expect("page reloads");
            browser.wait_for_text("main h1", &topic.title).await;
            let reloaded = browser.path().await;
            assert!(
                reloaded == href(&topic.path) || reloaded == format!("{SUB_PATH}{}", folder(topic)),
                "{} reloads at {reloaded}",
                topic.path
            );
            assert_no_console_errors_on(
                &browser,
                topic,
                &format!("{} by link at {width}", topic.path),
            )
            .await;
            if topic.path == "/sharp" || topic.path == "/qp" {
                let name = topic.slug();
                browser
                    .screenshot(&format!("static-host-{name}-{width}"))
                    .await;
            }
        }
    }
    host.assert_nothing_fetched_outside();
    browser.close().await;
}

#[tokio::test]
async fn views_keep_their_query_anchors_and_workers_under_a_sub_path() {
    let host = Hosted::start("views");
    let browser = Browser::start().await;

    for size in [DESKTOP, PHONE] {
        browser.resize(size).await;
        let width = width_name(size);

        // Each view that keeps its state in the query gets it back after a reload.
        let deep_links = [
            (
                "qp/?type=RC&state=RTS&walk=tcp&step=1",
                "document.querySelector('.qp-current')?.textContent.trim() === 'RTS'",
            ),
            (
                "roce/?operation=send&payload=10",
                "document.querySelector('#roce-operation')?.value === 'send'",
            ),
            (
                "flows/?scenario=tcp-socket&size=64KiB&step=7",
                "document.querySelector('.flow-step-title')?.textContent.startsWith('Step 7 of')",
            ),
            (
                "dcqcn/?scenario=two-flow&model=fluid",
                "document.querySelector('.dcqcn-charts')?.dataset.model === 'fluid' && document.querySelector('.dcqcn-charts').dataset.run !== '0'",
            ),
        ];
        for (link, shown) in deep_links {
            let query = link.split_once('?').map(|(_, q)| q).unwrap_or_default();
            browser.goto(&host.url(link)).await;
            for reloaded in [false, true] {
                if reloaded {
                    browser.client.refresh().await.expect("page reloads");
                }
                browser
                    .wait_until(&format!("return {shown}"), &format!("{link} to show"))
                    .await;
                let search = browser.eval("return location.search").await;
                assert!(
                    query
                        .split('&')
                        .all(|pair| search.as_str().is_some_and(|s| s.contains(pair))),
                    "{link} keeps its query: {search}"
                );
            }
            browser
                .assert_no_console_errors(&format!("{link} at {width}"))
                .await;
        }

        // The packet model runs in its Web Worker, loaded from the site's folder.
        let fluid_run = browser
            .eval("return document.querySelector('.dcqcn-charts').dataset.run")
            .await;
        browser
            .find("input[name='dcqcn-model'][value='packet']")
            .await
            .click()
            .await
            .expect("packet model radio clicks");
        browser
            .wait_until(
                &format!("const c = document.querySelector('.dcqcn-charts'); return c.dataset.model === 'packet' && c.dataset.run !== {fluid_run} && document.querySelector('.dcqcn-summary').textContent.includes('CNPs')"),
                "the packet model's run",
            )
            .await;
        browser
            .assert_no_console_errors(&format!("the DCQCN worker at {width}"))
            .await;
        browser
            .find(".dcqcn-charts")
            .await
            .click()
            .await
            .expect("charts click");
        browser
            .screenshot(&format!("static-host-dcqcn-packet-{width}"))
            .await;

        // The committed sample capture, fetched from the site's folder.
        browser.goto(&host.url("roce/")).await;
        browser.wait_for_text("main h1", "RoCE v2 packets").await;
        browser
            .find(".load-sample")
            .await
            .click()
            .await
            .expect("loads");
        browser
            .wait_until(
                "return document.querySelectorAll('.capture-row').length === 10",
                "the sample capture's ten frames",
            )
            .await;

        // A link in the text to another page leads under the site root, and navigates in place.
        browser.eval("window.__sameDocument = true").await;
        const OTHER_PAGE: &str =
            "main .prose a:not([aria-label]):not([href^='http']):not([href^='#']):not([href^='roce/'])";
        let link = browser.find(OTHER_PAGE).await;
        let path = browser
            .eval(&format!(
                "return document.querySelector({OTHER_PAGE:?}).pathname"
            ))
            .await
            .as_str()
            .expect("a link has a path")
            .to_string();
        assert!(path.starts_with(SUB_PATH), "{path} is under the site root");
        link.click().await.expect("link clicks");
        browser
            .wait_until(
                &format!("return location.pathname === {path:?}"),
                "the in-text link",
            )
            .await;
        assert_eq!(browser.eval("return window.__sameDocument").await, true);

        // A citation (`#source-…`) stays on its page although <base> names the site root.
        browser.goto(&host.url("roce/")).await;
        browser.wait_for_text("main h1", "RoCE v2 packets").await;
        browser.eval("window.__sameDocument = true").await;
        browser
            .find("main sup.cite a")
            .await
            .click()
            .await
            .expect("citation clicks");
        browser
            .wait_until(
                "return location.hash.startsWith('#source-')",
                "the citation's anchor",
            )
            .await;
        assert_eq!(browser.path().await, format!("{SUB_PATH}roce/"));
        assert_eq!(browser.eval("return window.__sameDocument").await, true);

        // A deep link to a heading scrolls to it, and again after a reload.
        browser.goto(&host.url("nccl-env/#nccl_ib_timeout")).await;
        for reloaded in [false, true] {
            if reloaded {
                browser.client.refresh().await.expect("page reloads");
            }
            browser
                .wait_for_text("main h1", "NCCL environment variables")
                .await;
            browser
                .wait_until(
                    "const r = document.getElementById('nccl_ib_timeout')?.getBoundingClientRect(); return r && r.top >= 0 && r.top < window.innerHeight",
                    "the anchored row in view",
                )
                .await;
        }
        // At desktop width the row's answers (IB, RoCE, no RDMA) are in view without
        // scrolling the table sideways (UX check 2026-12: the RoCE column began at x = 1309
        // of 1280); a phone scrolls the table past its sticky names.
        let answers_shown = browser
            .eval(
                "const row = document.getElementById('nccl_ib_timeout'); \
                 const box = row.closest('.table-scroll').getBoundingClientRect(); \
                 const roce = row.children[3].getBoundingClientRect(); \
                 return [document.querySelector('.nccl-env thead th:nth-child(4)').textContent, roce.right <= box.right + 1]",
            )
            .await;
        let in_view = size != DESKTOP || answers_shown[1] == true;
        assert!(
            answers_shown[0] == "RoCE" && in_view,
            "{answers_shown} at {size:?}"
        );

        // A search result lands on its heading under the site root, and a reload keeps it.
        let search = browser.find(".search-input").await;
        search.send_keys("GID").await.expect("typing works");
        browser
            .find(&format!(
                "#search-results li.active a[href='{}']",
                "troubleshooting/#roce-gid-index-wrong"
            ))
            .await;
        browser.press('\u{E007}').await; // Enter
        browser.wait_for_text("main h1", "Troubleshooting").await;
        assert_eq!(browser.path().await, href("/troubleshooting"));
        browser.client.refresh().await.expect("page reloads");
        browser.wait_for_text("main h1", "Troubleshooting").await;
        browser
            .wait_until(
                "const h = document.getElementById('roce-gid-index-wrong')?.getBoundingClientRect(); return location.hash === '#roce-gid-index-wrong' && h && h.top >= 0 && h.top < window.innerHeight",
                "the GID heading in view after a reload",
            )
            .await;

        // The skip link moves focus to the content without leaving the page.
        browser.goto(&host.url("sharp/")).await;
        browser
            .wait_for_text("main h1", "SHARP and NVLink SHARP")
            .await;
        browser.eval("window.__sameDocument = true").await;
        browser.press('\u{E004}').await; // Tab
        browser.press('\u{E007}').await; // Enter
        browser
            .wait_until(
                "return document.activeElement.id === 'main'",
                "focus in the content",
            )
            .await;
        assert_eq!(browser.path().await, format!("{SUB_PATH}sharp/"));
        assert_eq!(browser.eval("return window.__sameDocument").await, true);
        browser
            .assert_no_console_errors(&format!("links and anchors at {width}"))
            .await;
    }
    host.assert_nothing_fetched_outside();
    browser.close().await;
}

#[tokio::test]
async fn unknown_paths_show_the_not_found_page_from_any_depth() {
    let host = Hosted::start("not-found");
    let browser = Browser::start().await;

    for size in [DESKTOP, PHONE] {
        browser.resize(size).await;
        let width = width_name(size);
        for unknown in ["no-such-page", "qp/no/such/page/", "404"] {
            browser.goto(&host.url(unknown)).await;
            browser.wait_for_text("main h1", "Page not found").await;
            assert_styled(&browser, unknown).await;
            let hrefs = sidebar_hrefs(&browser).await;
            assert!(
                !hrefs.is_empty() && hrefs.iter().all(|h| h.starts_with(SUB_PATH)),
                "links stay under the site root: {hrefs:?}"
            );
            // The host answers 404, and the page's search for the site root asks the
            // folders above it; Chromium reports both as failed loads, nothing else.
            let errors = browser.console_errors().await;
            assert!(
                errors.iter().all(|e| e.contains("status of 404")),
                "{unknown} at {width}: {errors:?}"
            );
            if unknown == "qp/no/such/page/" {
                browser
                    .screenshot(&format!("static-host-not-found-{width}"))
                    .await;
            }
            browser
                .find("main .not-found a")
                .await
                .click()
                .await
                .expect("link clicks");
            browser.wait_for_text("main h1", "Overview").await;
            browser
                .assert_no_console_errors(&format!("back from {unknown} at {width}"))
                .await;
        }
    }
    host.assert_nothing_fetched_outside();
    browser.close().await;
}

#[tokio::test]
async fn every_topic_reads_with_javascript_off() {
    let host = Hosted::start("no-script");
    let browser = Browser::start_without_scripts().await;
    let topics = topics::all();

    for size in [DESKTOP, PHONE] {
        browser.resize(size).await;
        let width = width_name(size);
        for topic in &topics {
            browser.goto(&host.url(&folder(topic))).await;
            browser.wait_for_text("main h1", &topic.title).await;
            assert_styled(&browser, &topic.path).await;
            // The whole text, its citations and its sources are in the page itself.
            let prose = browser
                .eval("return document.querySelector('main .prose').textContent.length")
                .await;
            assert!(
                prose.as_u64().is_some_and(|n| n > 1500),
                "{} has its text without JavaScript: {prose} characters",
                topic.path
            );
            let sources = browser
                .eval("return document.querySelectorAll('main .sources li').length")
                .await;
            assert!(
                sources.as_u64().is_some_and(|n| n > 0),
                "{} lists its sources",
                topic.path
            );
            let dangling = browser
                .eval("return [...document.querySelectorAll('main sup.cite a')].filter(a => a.pathname !== location.pathname || !document.getElementById(a.hash.slice(1))).length")
                .await;
            assert_eq!(
                dangling, 0,
                "{}: each citation names its own page",
                topic.path
            );
            let hrefs = sidebar_hrefs(&browser).await;
            assert_eq!(hrefs.len(), topics.len(), "one link per topic");
            assert!(
                hrefs.iter().all(|h| h.starts_with(SUB_PATH)),
                "links stay under the site root: {hrefs:?}"
            );
            // A view's place says what opens there (and nothing mounted it).
            let view = browser
                .eval(
                    "return document.querySelector('.view-slot .view-preview')?.textContent ?? ''",
                )
                .await;
            assert_eq!(
                view.as_str()
                    .is_some_and(|v| v.contains("needs JavaScript")),
                topic.view.is_some(),
                "{}: the view's place {view}",
                topic.path
            );
        }
        // Links are followed as plain page loads, to each topic's own page.
        browser.goto(&host.url("")).await;
        for topic in topics.iter().skip(1).take(4) {
            click_sidebar_link(&browser, &topic.path).await;
            browser.wait_for_text("main h1", &topic.title).await;
            assert_eq!(browser.path().await, href(&topic.path));
        }
        // A citation lands on its source, on the same page.
        browser.goto(&host.url("roce/")).await;
        browser
            .find("main sup.cite a")
            .await
            .click()
            .await
            .expect("citation clicks");
        browser
            .wait_until(
                "return location.hash.startsWith('#source-') && location.pathname.endsWith('/roce/')",
                "the citation's source",
            )
            .await;
        browser.goto(&host.url("verbs/")).await;
        browser
            .wait_for_text("main h1", "Verbs, doorbells and CQEs")
            .await;
        browser
            .screenshot(&format!("no-script-verbs-{width}"))
            .await;
    }
    host.assert_nothing_fetched_outside();
    browser.close().await;
}
