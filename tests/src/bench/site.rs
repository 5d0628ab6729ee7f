//! The site's figures for `lab-bench` (issue 17, "Performance"), side by side with an anchor
//! measured in the same run.
//!
//! Routes: a text route ([`TEXT_ROUTE`]) and each view route ([`view_routes`]), each opened
//! [`LOADS`] times, every time in a fresh browser session (fresh profile, empty cache), by
//! the real probe serving a copy of `dist/`. The copy also holds the anchor,
//! [`ANCHOR_FILE`]: a plain static HTML page of the text route's topic
//! (`content/topics/verbs.md` converted to HTML, with its title, summary and sources) that
//! links the site's CSS file and has no scripts. For each load:
//!
//! - **gzip bytes**: every entry of the page's Resource Timing (the navigation entry and
//!   each resource) that came over the network (`transferSize` > 0) until the page is idle,
//!   i.e. no new resource entry for [`QUIET`] after the load event (or [`IDLE_TIMEOUT`]);
//!   each such URL is fetched here, uncompressed, and gzip-compressed with flate2 at the
//!   default level ([`gzip_size`]), whatever the probe itself sent (its `transferSize` is
//!   printed beside it). What a Web Worker downloads is in the worker's own timeline, which
//!   the page cannot read, so the session also writes Chromium's net log: the site's URLs
//!   the browser requested that the page's timeline lacks are counted too, and named;
//! - **first contentful paint**: `performance.getEntriesByType('paint')`'s
//!   `first-contentful-paint`;
//! - **ready for input**: the later of the marks [`FIRST_ROUTE_MARK`] (the app's first route
//!   has rendered) and, on a view route, [`VIEW_READY_MARK`] (the view's own code has
//!   mounted) when the page sets it;
//! - **cumulative layout shift**: the sum of a buffered `layout-shift` PerformanceObserver's
//!   entries without recent input, read when the page is idle.
//!
//! Each figure is the median over the loads. Then, in one session each: the work of a search
//! keystroke (measure `lab-search`) and of a packet-flow animation frame (`lab-flows-frame`).

use std::{
    collections::HashMap,
    io::{Read, Write},
    net::TcpStream,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use flate2::{write::GzEncoder, Compression};
use pulldown_cmark::{html, Options, Parser};
use serde::Deserialize;

use super::{median, verdict};
use crate::{browser::Browser, probe::copy_tree, site::Site};

/// The text route: the topic the anchor reproduces.
pub const TEXT_ROUTE: &str = "/verbs";
/// The topic file the anchor is built from, the text route's.
const TEXT_TOPIC_FILE: &str = "content/topics/verbs.md";

/// The view routes: the topics with an interactive view (`content/topics.toml`'s `view`), in
/// the file's order.
pub fn view_routes() -> Vec<String> {
    crate::topics::all()
        .into_iter()
        .filter(|t| t.view.is_some())
        .map(|t| t.path)
        .collect()
}
/// The anchor's file name in the copy of `dist/`.
pub const ANCHOR_FILE: &str = "lab-bench-anchor.html";
/// Fresh-profile loads per route; each figure is their median.
pub const LOADS: usize = 7;
/// Idle: no new resource entry for this long after the load event…
pub const QUIET: Duration = Duration::from_secs(1);
/// …or this long after the load event, whichever comes first.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(20);

/// Set by the app when its first route has rendered.
pub const FIRST_ROUTE_MARK: &str = "lab-first-route";
/// Set by a view route when the view's own code has mounted (the split app); when a page
/// has none, ready for input is [`FIRST_ROUTE_MARK`] alone.
pub const VIEW_READY_MARK: &str = "lab-view-ready";

/// KB here are 1000 bytes.
const TEXT_GZIP_TARGET: usize = 150 * 1000;
const VIEW_GZIP_TARGET: usize = 400 * 1000;
/// The text route's first contentful paint, over the anchor's.
const FCP_RATIO_TARGET: f64 = 1.5;
/// Cumulative layout shift, on every route (strictly below).
const CLS_TARGET: f64 = 0.05;
/// The commit the ready-for-input baseline was measured on.
const BASELINE_COMMIT: &str = "427a25f";
/// Ready for input of the build before the split (commit 427a25f, main on 2026-12-01), ms
/// from navigation start, measured with this bench on the 2-core development VM the split is
/// made on (headless Debian Chromium, probe on loopback; other builds were sharing its cores,
/// load average 3–7): the median of three runs' medians
/// (5, 7 and 7 fresh loads; the runs gave /qp 426, 430, 421; /roce 438, 430, 473; /dcqcn
/// 397, 448, 534; /flows 416, 358, 509; /live 340, 405, 373). That build sets no
/// `lab-view-ready`, so these are its `lab-first-route`.
const BASELINE_READY_MS: &[(&str, f64)] = &[
    ("/qp", 426.0),
    ("/roce", 438.0),
    ("/dcqcn", 448.0),
    ("/flows", 416.0),
    ("/live", 373.0),
];
/// Machines (and one machine from run to run) drift 15–25 %: a view is ready "no later than
/// the baseline" when within this factor of it.
const READY_TOLERANCE: f64 = 1.25;

const KEYSTROKE_TARGET_MS: f64 = 16.0;
const FRAME_TARGET_MS: f64 = 16.0;
/// Played start to end: the RDMA send, the TCP path and the largest stage (NCCL on a cluster).
const PLAYED_FLOWS: &[&str] = &["post-send", "tcp-socket", "nccl-allreduce"];
/// Typed one character at a time, as a learner would.
const QUERIES: &[&str] = &[
    "DCQCN rate",
    "GID index",
    "PFC headroom",
    "NCCL_IB_TIMEOUT",
    "memlock",
];

/// Installed once the page has loaded: the layout-shift sum (buffered, so shifts before it
/// count) and the time of the newest resource entry.
const OBSERVE: &str = r#"
    if (!window.__labBench) {
        const bench = window.__labBench = { cls: 0, shifts: 0, last: performance.now() };
        new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
                if (!e.hadRecentInput) { bench.cls += e.value; bench.shifts += 1; }
            }
        }).observe({ type: 'layout-shift', buffered: true });
        new PerformanceObserver(() => { bench.last = performance.now(); })
            .observe({ type: 'resource' });
    }
    return true;
"#;

/// Milliseconds since the newest resource entry (or since the observers were installed).
const QUIET_FOR: &str = r#"
    const nav = performance.getEntriesByType('navigation')[0];
    const newest = Math.max(window.__labBench.last, nav ? nav.loadEventEnd : 0,
        ...performance.getEntriesByType('resource').map((e) => e.responseEnd));
    return performance.now() - newest;
"#;

const MEASURE: &str = r#"
    const nav = performance.getEntriesByType('navigation')[0];
    const entries = [nav, ...performance.getEntriesByType('resource')];
    const paint = performance.getEntriesByType('paint')
        .find((e) => e.name === 'first-contentful-paint');
    const mark = (name) => {
        const found = performance.getEntriesByName(name, 'mark');
        return found.length ? found[0].startTime : null;
    };
    return {
        downloads: entries.map((e) => ({
            name: e.name,
            initiator: e.initiatorType,
            transferSize: e.transferSize,
            encodedBodySize: e.encodedBodySize,
        })),
        fcp_ms: paint ? paint.startTime : null,
        first_route_ms: mark('lab-first-route'),
        view_ready_ms: mark('lab-view-ready'),
        cls: window.__labBench.cls,
        shifts: window.__labBench.shifts,
    };
"#;

#[derive(Debug, Deserialize)]
struct Download {
    name: String,
    initiator: String,
    #[serde(rename = "transferSize")]
    transfer_size: f64,
    #[serde(rename = "encodedBodySize")]
    encoded_body_size: f64,
}

#[derive(Debug, Deserialize)]
struct Load {
    downloads: Vec<Download>,
    fcp_ms: Option<f64>,
    first_route_ms: Option<f64>,
    view_ready_ms: Option<f64>,
    cls: f64,
    #[allow(dead_code)]
    shifts: u32,
    /// Set here, not by the page: the page never went quiet within [`IDLE_TIMEOUT`].
    #[serde(skip)]
    idle_timed_out: bool,
    /// Set here: the site's URLs Chromium's net log shows requested during the session that
    /// the page's timeline lacks (a worker's downloads).
    #[serde(skip)]
    outside_page: Vec<String>,
}

impl Load {
    /// Entries that came over the network (a cache hit has `transferSize` 0).
    fn fetched(&self) -> impl Iterator<Item = &Download> {
        self.downloads.iter().filter(|d| d.transfer_size > 0.0)
    }

    fn ready_ms(&self) -> Option<f64> {
        let first = self.first_route_ms?;
        Some(self.view_ready_ms.map_or(first, |view| view.max(first)))
    }
}

/// One URL as served, uncompressed: its length and its gzip length.
#[derive(Clone, Copy)]
struct Sized {
    raw: usize,
    gzip: usize,
}

/// Gzip sizes of URLs, each fetched once.
#[derive(Default)]
struct GzipSizes(HashMap<String, Sized>);

impl GzipSizes {
    /// The gzip size (flate2, default level) of what `url` serves, fetched here without
    /// `Accept-Encoding`, so whether the server compresses does not matter.
    fn get(&mut self, url: &str) -> Sized {
        if let Some(known) = self.0.get(url) {
            return *known;
        }
        let body = fetch(url);
        let sized = Sized {
            raw: body.len(),
            gzip: gzip_size(&body),
        };
        self.0.insert(url.to_string(), sized);
        sized
    }
}

/// The gzip-compressed length of `bytes` (flate2, default level).
pub fn gzip_size(bytes: &[u8]) -> usize {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(bytes)
        .expect("writing to memory cannot fail");
    encoder
        .finish()
        .expect("writing to memory cannot fail")
        .len()
}

/// The body of an `http://` URL on loopback: HTTP/1.0, so the server closes the connection
/// after an unchunked body; redirects are followed.
fn fetch(url: &str) -> Vec<u8> {
    let mut url = url::Url::parse(url).unwrap_or_else(|e| panic!("{url} is not a URL: {e}"));
    for _ in 0..5 {
        assert_eq!(url.scheme(), "http", "the bench fetches only http:// URLs");
        let host = url.host_str().expect("an http URL has a host").to_string();
        let port = url.port_or_known_default().expect("http has a port");
        let mut target = url.path().to_string();
        if let Some(query) = url.query() {
            target = format!("{target}?{query}");
        }
        let mut stream = TcpStream::connect((host.as_str(), port))
            .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"));
        write!(
            stream,
            "GET {target} HTTP/1.0\r\nHost: {host}:{port}\r\nAccept: */*\r\n\r\n"
        )
        .expect("the request is sent");
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .unwrap_or_else(|e| panic!("cannot read {url}: {e}"));
        let split = response
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("{url}: no end of headers in the response"));
        let head = String::from_utf8_lossy(&response[..split]).to_string();
        let body = response[split + 4..].to_vec();
        let status: u16 = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("{url}: no status in {head:?}"));
        let header = |name: &str| {
            head.lines().skip(1).find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        assert!(
            header("content-encoding").is_none(),
            "{url} came compressed though not asked to be"
        );
        if (300..400).contains(&status) {
            if let Some(location) = header("location") {
                url = url.join(&location).expect("a redirect names a URL");
                continue;
            }
        }
        let length = header("content-length").and_then(|l| l.parse::<usize>().ok());
        return match length {
            Some(n) if n <= body.len() => body[..n].to_vec(),
            _ => body,
        };
    }
    panic!("{url}: more than 5 redirects")
}

/// The anchor page: the text route's topic as plain HTML with the site's CSS, no scripts.
fn anchor_page(css_file: &str) -> String {
    #[derive(Deserialize)]
    struct Source {
        title: String,
        #[serde(default)]
        publisher: Option<String>,
        #[serde(default)]
        locator: Option<String>,
        #[serde(default)]
        url: Option<String>,
    }
    #[derive(Deserialize)]
    struct Front {
        #[serde(default)]
        sources: std::collections::BTreeMap<String, Source>,
    }
    let file = crate::repo_root().join(TEXT_TOPIC_FILE);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    let (front, body) = text
        .strip_prefix("+++")
        .and_then(|rest| rest.split_once("\n+++"))
        .unwrap_or_else(|| panic!("{} has no +++ front matter", file.display()));
    let front: Front =
        toml::from_str(front).unwrap_or_else(|e| panic!("{}'s front matter: {e}", file.display()));
    let topic = crate::topics::all()
        .into_iter()
        .find(|t| t.path == TEXT_ROUTE)
        .expect("the text route is a topic");

    // `[^key]` cites a source of the front matter: a numbered superscript, as on the site.
    let mut cited: Vec<&str> = Vec::new();
    let mut markdown = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(start) = rest.find("[^") {
        let Some(len) = rest[start + 2..].find(']') else {
            break;
        };
        let key = &rest[start + 2..start + 2 + len];
        markdown.push_str(&rest[..start]);
        if front.sources.contains_key(key) {
            let number = match cited.iter().position(|k| *k == key) {
                Some(i) => i + 1,
                None => {
                    cited.push(key);
                    cited.len()
                }
            };
            markdown.push_str(&format!(
                "<sup class=\"cite\"><a href=\"#source-{key}\">[{number}]</a></sup>"
            ));
        } else {
            markdown.push_str(&rest[start..start + 3 + len]);
        }
        rest = &rest[start + 3 + len..];
    }
    markdown.push_str(rest);

    let mut prose = String::new();
    html::push_html(
        &mut prose,
        Parser::new_ext(
            &markdown,
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
        ),
    );
    let mut sources = String::new();
    for key in &cited {
        let source = &front.sources[*key];
        let title = escape(&source.title);
        let title = match &source.url {
            Some(url) => format!("<a href=\"{}\">{title}</a>", escape(url)),
            None => title,
        };
        let detail: Vec<String> = [&source.publisher, &source.locator]
            .into_iter()
            .flatten()
            .map(|s| escape(s))
            .collect();
        sources.push_str(&format!(
            "<li id=\"source-{key}\">{title}. {}</li>",
            detail.join("; ")
        ));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n\
         <meta name=\"color-scheme\" content=\"light dark\" />\n<title>{title} · rdma-lab</title>\n\
         <link rel=\"stylesheet\" href=\"{css_file}\" />\n</head>\n<body>\n<main id=\"main\">\n\
         <article class=\"topic\" aria-labelledby=\"topic-title\">\n<h1 id=\"topic-title\">{title}</h1>\n\
         <p class=\"topic-summary\">{summary}</p>\n<div class=\"prose\">\n{prose}\n\
         <section class=\"sources\" aria-labelledby=\"sources\"><h2 id=\"sources\">Sources</h2><ol>{sources}</ol></section>\n\
         </div>\n</article>\n</main>\n</body>\n</html>\n",
        title = escape(&topic.title),
        summary = escape(&topic.summary),
    )
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A copy of `dist/` with the anchor page in it; removed when dropped.
struct DistCopy {
    dir: tempfile::TempDir,
}

impl DistCopy {
    fn new(dist: &Path) -> DistCopy {
        let dir = tempfile::Builder::new()
            .prefix("lab-bench-site-")
            .tempdir()
            .expect("a folder for the copy");
        copy_tree(dist, dir.path())
            .unwrap_or_else(|e| panic!("cannot copy {}: {e}", dist.display()));
        let css: Vec<String> = std::fs::read_dir(dist)
            .expect("dist/ is readable")
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".css"))
            .collect();
        let [css] = css.as_slice() else {
            panic!(
                "dist/ should hold one CSS file for the anchor to link, not {css:?} ({})",
                dist.display()
            )
        };
        std::fs::write(dir.path().join(ANCHOR_FILE), anchor_page(css))
            .expect("the anchor is written");
        DistCopy { dir }
    }
}

/// The probe over `dir`, started as every test starts it, through `LAB_DIST`.
fn serve(dir: &Path) -> Site {
    let before = std::env::var_os("LAB_DIST");
    std::env::set_var("LAB_DIST", dir);
    let site = Site::start();
    match before {
        Some(value) => std::env::set_var("LAB_DIST", value),
        None => std::env::remove_var("LAB_DIST"),
    }
    site
}

/// Site URLs (under `origin`) the browser requested, from a Chromium net log
/// (`--log-net-log`): its first line holds the constants, then one event per line.
fn requested_urls(net_log: &Path, origin: &str) -> Vec<String> {
    let text = std::fs::read_to_string(net_log)
        .unwrap_or_else(|e| panic!("Chromium wrote no net log at {}: {e}", net_log.display()));
    let mut lines = text.lines();
    // `{"constants":{…},` opens the log's object: closed here, it parses on its own.
    let first = lines.next().unwrap_or_default();
    let constants: serde_json::Value =
        serde_json::from_str(&format!("{}}}", first.trim_end().trim_end_matches(',')))
            .expect("a net log starts with its constants");
    let start_job = constants["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        .as_u64()
        .expect("the net log names URL_REQUEST_START_JOB");
    let mut urls = Vec::new();
    for line in lines.filter(|line| line.starts_with('{')) {
        let Ok(event) = serde_json::from_str::<serde_json::Value>(line.trim_end_matches(','))
        else {
            continue; // the last line of a log cut short
        };
        if event["type"].as_u64() != Some(start_job) {
            continue;
        }
        if let Some(url) = event["params"]["url"].as_str() {
            if url.starts_with(origin) && !urls.iter().any(|u| u == url) {
                urls.push(url.to_string());
            }
        }
    }
    urls
}

/// One fresh-profile load of `url`, read once the page is idle.
async fn fresh_load(site: &Site, url: &str) -> Load {
    static SESSION: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let session = SESSION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let net_log = std::env::temp_dir().join(format!(
        "lab-bench-netlog-{}-{session}.json",
        std::process::id()
    ));
    let browser =
        Browser::start_with_args(&[&format!("--log-net-log={}", net_log.display())]).await;
    // WebDriver's navigation returns after the load event.
    browser.goto(url).await;
    browser.eval(OBSERVE).await;
    let started = Instant::now();
    let mut idle_timed_out = false;
    loop {
        let quiet = browser.eval(QUIET_FOR).await.as_f64().unwrap_or(0.0);
        if quiet >= QUIET.as_secs_f64() * 1000.0 {
            break;
        }
        if started.elapsed() >= IDLE_TIMEOUT {
            idle_timed_out = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut load: Load =
        serde_json::from_value(browser.eval(MEASURE).await).expect("the page reports its timings");
    load.idle_timed_out = idle_timed_out;
    browser.close().await;
    let origin = format!("{}/", site.base_url);
    load.outside_page = requested_urls(&net_log, &origin)
        .into_iter()
        .filter(|u| !load.downloads.iter().any(|d| &d.name == u))
        .collect();
    let _ = std::fs::remove_file(&net_log);
    load
}

/// A route's loads, summed up.
struct Route {
    path: String,
    kind: Kind,
    loads: Vec<Load>,
    /// Per load: (gzip, raw) bytes of what it fetched, and the bytes the probe sent for the
    /// page's timeline entries (`transferSize`; a worker's downloads have none).
    totals: Vec<(usize, usize, f64)>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Anchor,
    Text,
    View,
}

impl Route {
    async fn measure(site: &Site, path: &str, kind: Kind, sizes: &mut GzipSizes) -> Route {
        let mut loads = Vec::new();
        for _ in 0..LOADS {
            loads.push(fresh_load(site, &site.url(path)).await);
        }
        let totals = loads
            .iter()
            .map(|load| {
                let (gzip, raw, sent) = load.fetched().fold((0, 0, 0.0), |(gzip, raw, sent), d| {
                    let sized = sizes.get(&d.name);
                    (gzip + sized.gzip, raw + sized.raw, sent + d.transfer_size)
                });
                // Outside the page's timeline nothing says what the probe sent.
                load.outside_page
                    .iter()
                    .fold((gzip, raw, sent), |(gzip, raw, sent), url| {
                        let sized = sizes.get(url);
                        (gzip + sized.gzip, raw + sized.raw, sent)
                    })
            })
            .collect();
        Route {
            path: path.to_string(),
            kind,
            loads,
            totals,
        }
    }

    fn name(&self) -> String {
        let kind = match self.kind {
            Kind::Anchor => "anchor",
            Kind::Text => "text route",
            Kind::View => "view route",
        };
        format!("{} ({kind})", self.path)
    }

    fn gzip(&self) -> f64 {
        median(&self.totals.iter().map(|t| t.0 as f64).collect::<Vec<_>>())
    }

    fn raw(&self) -> f64 {
        median(&self.totals.iter().map(|t| t.1 as f64).collect::<Vec<_>>())
    }

    fn sent(&self) -> f64 {
        median(&self.totals.iter().map(|t| t.2).collect::<Vec<_>>())
    }

    fn fcp(&self) -> f64 {
        median(
            &self
                .loads
                .iter()
                .filter_map(|l| l.fcp_ms)
                .collect::<Vec<_>>(),
        )
    }

    fn ready(&self) -> f64 {
        median(
            &self
                .loads
                .iter()
                .filter_map(Load::ready_ms)
                .collect::<Vec<_>>(),
        )
    }

    fn cls(&self) -> f64 {
        median(&self.loads.iter().map(|l| l.cls).collect::<Vec<_>>())
    }

    fn worst_cls(&self) -> f64 {
        self.loads.iter().map(|l| l.cls).fold(0.0, f64::max)
    }

    /// What is missing for the figures to mean anything, if anything is.
    fn problem(&self) -> Option<String> {
        if self.loads.iter().any(|l| l.fcp_ms.is_none()) {
            return Some(format!(
                "{}: a load recorded no first-contentful-paint",
                self.path
            ));
        }
        if self.kind != Kind::Anchor && self.loads.iter().any(|l| l.first_route_ms.is_none()) {
            return Some(format!(
                "{}: a load never set the {FIRST_ROUTE_MARK} mark",
                self.path
            ));
        }
        None
    }

    /// The files of the last load, each with its gzip size, largest first.
    fn files(&self, sizes: &mut GzipSizes) -> String {
        let load = self.loads.last().expect("at least one load");
        let listed = |urls: Vec<&str>, sizes: &mut GzipSizes| {
            let mut files: Vec<(String, usize)> = urls
                .into_iter()
                .map(|url| (short_name(url), sizes.get(url).gzip))
                .collect();
            files.sort_by_key(|f| std::cmp::Reverse(f.1));
            files
                .iter()
                .map(|(name, gzip)| format!("{name} {}", kb(*gzip as f64)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut line = listed(load.fetched().map(|d| d.name.as_str()).collect(), sizes);
        if !load.outside_page.is_empty() {
            line.push_str(&format!(
                "; not in the page's timeline, from Chromium's net log (a worker's): {}",
                listed(
                    load.outside_page.iter().map(String::as_str).collect(),
                    sizes
                )
            ));
        }
        let cached: Vec<String> = load
            .downloads
            .iter()
            .filter(|d| d.transfer_size <= 0.0)
            .map(|d| {
                format!(
                    "{} ({}, {:.0} B body)",
                    short_name(&d.name),
                    d.initiator,
                    d.encoded_body_size
                )
            })
            .collect();
        if !cached.is_empty() {
            line.push_str(&format!("; not counted, from cache: {}", cached.join(", ")));
        }
        line
    }

    fn timed_out(&self) -> usize {
        self.loads.iter().filter(|l| l.idle_timed_out).count()
    }

    /// One line per figure; `anchor_fcp` is the anchor's median paint (for a text route).
    fn print(&self, sizes: &mut GzipSizes, anchor_fcp: f64) {
        let name = self.name();
        println!("  {name} files (last load): {}", self.files(sizes));
        let target = match self.kind {
            Kind::Text => format!(
                " (target ≤ {} KB gzip: {})",
                TEXT_GZIP_TARGET / 1000,
                verdict(self.gzip() <= TEXT_GZIP_TARGET as f64)
            ),
            _ => String::new(),
        };
        let timed_out = match self.timed_out() {
            0 => String::new(),
            n => format!(
                ", {n} of {LOADS} loads not idle within {:.0} s",
                IDLE_TIMEOUT.as_secs_f64()
            ),
        };
        let sent = match self.loads.iter().any(|l| !l.outside_page.is_empty()) {
            true => "as the probe sent the page's own entries",
            false => "as transferred by the probe",
        };
        println!(
            "  {name} downloads: {} gzip in total ({} raw, {} {sent}{timed_out}){target}",
            kb(self.gzip()),
            kb(self.raw()),
            kb(self.sent()),
        );
        let fcp = self.fcp();
        let fcp_runs = runs(self.loads.iter().filter_map(|l| l.fcp_ms));
        match self.kind {
            Kind::Text => println!(
                "  {name} first contentful paint: {fcp:.0} ms [{fcp_runs} ms], {:.2}× the anchor's {anchor_fcp:.0} ms (target ≤ {FCP_RATIO_TARGET}×: {})",
                fcp / anchor_fcp,
                verdict(fcp <= FCP_RATIO_TARGET * anchor_fcp)
            ),
            _ => println!("  {name} first contentful paint: {fcp:.0} ms [{fcp_runs} ms]"),
        }
        if self.kind != Kind::Anchor {
            let ready = self.ready();
            let ready_runs = runs(self.loads.iter().filter_map(Load::ready_ms));
            let with_view = self
                .loads
                .iter()
                .filter(|l| l.view_ready_ms.is_some())
                .count();
            let marks = match (self.kind, with_view) {
                (Kind::Text, _) => FIRST_ROUTE_MARK.to_string(),
                (_, 0) => format!("{FIRST_ROUTE_MARK}; the page set no {VIEW_READY_MARK}"),
                (_, n) if n == LOADS => {
                    format!("the later of {FIRST_ROUTE_MARK} and {VIEW_READY_MARK}")
                }
                (_, n) => format!(
                    "the later of {FIRST_ROUTE_MARK} and {VIEW_READY_MARK}, set in {n} of {LOADS} loads"
                ),
            };
            let target = match (self.kind, baseline_ready(&self.path)) {
                (Kind::View, Some(base)) => format!(
                    "; {BASELINE_COMMIT} took {base:.0} ms (target no later, {:.0} % allowed for machine drift: ≤ {:.0} ms: {})",
                    (READY_TOLERANCE - 1.0) * 100.0,
                    base * READY_TOLERANCE,
                    verdict(ready <= base * READY_TOLERANCE)
                ),
                (Kind::View, None) => {
                    format!("; no figure of {BASELINE_COMMIT} for this route to compare with")
                }
                _ => String::new(),
            };
            println!(
                "  {name} ready for input: {ready:.0} ms from navigation start [{ready_runs} ms] ({marks}){target}"
            );
        }
        let target = match self.kind {
            Kind::Anchor => String::new(),
            _ => format!(
                "; target < {CLS_TARGET} in every load: {}",
                verdict(self.worst_cls() < CLS_TARGET)
            ),
        };
        println!(
            "  {name} cumulative layout shift: {:.3} (worst load {:.3}{target})",
            self.cls(),
            self.worst_cls(),
        );
    }
}

fn short_name(url: &str) -> String {
    let path = url::Url::parse(url)
        .map(|u| u.path().to_string())
        .unwrap_or_else(|_| url.to_string());
    match path.rsplit('/').find(|s| !s.is_empty()) {
        Some(last) if path.ends_with('/') => format!("{last}/"),
        Some(last) => last.to_string(),
        None => "/".to_string(),
    }
}

fn kb(bytes: f64) -> String {
    format!("{:.1} KB", bytes / 1000.0)
}

fn runs(values: impl Iterator<Item = f64>) -> String {
    values
        .map(|ms| format!("{ms:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn baseline_ready(path: &str) -> Option<f64> {
    BASELINE_READY_MS
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, ms)| *ms)
        .filter(|ms| ms.is_finite())
}

/// Prints the site's figures; false when a measurement failed (a target missed is printed,
/// not a failure).
pub async fn run(site: &Site) -> bool {
    let dist = std::env::var_os("LAB_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::repo_root().join("dist"));
    let copy = DistCopy::new(&dist);
    let served = serve(copy.dir.path());
    let mut sizes = GzipSizes::default();

    println!(
        "Routes, each opened in {LOADS} fresh browser sessions (fresh profile, empty cache), served by the probe from a copy of dist/ that also holds the anchor; medians over the loads. Downloads: every navigation and resource entry that came over the network until the page was idle (no new resource entry for {:.0} s after load, at most {:.0} s), and the site's URLs a worker fetched (Chromium's net log), each fetched here and gzip-compressed (flate2, default level); KB = 1000 bytes:",
        QUIET.as_secs_f64(),
        IDLE_TIMEOUT.as_secs_f64()
    );
    let mut routes: Vec<(String, Kind)> = vec![
        (format!("/{ANCHOR_FILE}"), Kind::Anchor),
        (TEXT_ROUTE.to_string(), Kind::Text),
    ];
    routes.extend(view_routes().into_iter().map(|p| (p, Kind::View)));
    let mut anchor_fcp = f64::NAN;
    let mut heaviest: Option<(String, f64)> = None;
    for (path, kind) in routes {
        let route = Route::measure(&served, &path, kind, &mut sizes).await;
        if let Some(problem) = route.problem() {
            eprintln!("lab-bench: error: {problem}");
            return false;
        }
        if kind == Kind::Anchor {
            anchor_fcp = route.fcp();
        }
        route.print(&mut sizes, anchor_fcp);
        if kind == Kind::View
            && heaviest
                .as_ref()
                .is_none_or(|(_, gzip)| route.gzip() > *gzip)
        {
            heaviest = Some((path, route.gzip()));
        }
    }
    drop(served);
    drop(copy);
    let (path, gzip) = heaviest.expect("view routes");
    println!(
        "  heaviest view route: {path} with {} gzip (target ≤ {} KB gzip: {})",
        kb(gzip),
        VIEW_GZIP_TARGET / 1000,
        verdict(gzip <= VIEW_GZIP_TARGET as f64)
    );

    // Keystrokes that arrive within one frame share a render, and so one measure.
    let keystrokes = search_keystrokes(site).await;
    let typed: usize = QUERIES.iter().map(|q| q.chars().count()).sum();
    if keystrokes.len() < QUERIES.len() {
        eprintln!(
            "lab-bench: error: {typed} keystrokes typed but only {} measured",
            keystrokes.len()
        );
        return false;
    }
    let slowest = keystrokes.iter().copied().fold(0.0_f64, f64::max);
    println!(
        "Search: {typed} keystrokes typed, {} renders measured over the whole corpus, median {:.2} ms, slowest {slowest:.2} ms per keystroke (target ≤ {KEYSTROKE_TARGET_MS:.0} ms: {})",
        keystrokes.len(),
        median(&keystrokes),
        verdict(slowest <= KEYSTROKE_TARGET_MS)
    );

    let frames = flow_frames(site).await;
    if frames.is_empty() {
        eprintln!("lab-bench: error: no animation frame of the packet flows was measured");
        return false;
    }
    let slowest_frame = frames.iter().copied().fold(0.0_f64, f64::max);
    println!(
        "Packet flows: {} animation frames while playing {}, median {:.2} ms, slowest {slowest_frame:.2} ms of work per frame (target ≤ {FRAME_TARGET_MS:.0} ms: {})",
        frames.len(),
        PLAYED_FLOWS.join(", "),
        median(&frames),
        verdict(slowest_frame <= FRAME_TARGET_MS)
    );
    true
}

/// Plays each flow to its end and reads the app's per-frame measures.
async fn flow_frames(site: &Site) -> Vec<f64> {
    let browser = Browser::start().await;
    let mut frames = Vec::new();
    for id in PLAYED_FLOWS {
        browser
            .goto(&site.url(&format!("/flows?scenario={id}")))
            .await;
        browser.find("svg.flow-stage").await;
        browser
            .eval("performance.clearMeasures('lab-flows-frame')")
            .await;
        browser
            .find(".flow-play")
            .await
            .click()
            .await
            .expect("play clicks");
        browser
            .wait_until(
                "return document.querySelector('section.flows').dataset.done === 'true'",
                &format!("{id} to play to its end"),
            )
            .await;
        let durations = browser
            .eval("return performance.getEntriesByName('lab-flows-frame').map(e => e.duration)")
            .await;
        let durations: Vec<f64> = serde_json::from_value(durations).expect("a list of durations");
        frames.extend(durations);
    }
    browser.close().await;
    frames
}

/// Types each query into the search box and reads the app's per-keystroke measures.
async fn search_keystrokes(site: &Site) -> Vec<f64> {
    let browser = Browser::start().await;
    browser.goto(&site.url("/")).await;
    browser.wait_for_text("main h1", "Overview").await;
    for query in QUERIES {
        browser.type_over(".search-input", query).await;
        browser.find("#search-results").await;
    }
    let durations = browser
        .eval("return performance.getEntriesByName('lab-search').map(e => e.duration)")
        .await;
    browser.close().await;
    serde_json::from_value(durations).expect("a list of durations")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchor_has_the_topic_text_and_no_script() {
        let page = anchor_page("style-0123456789abcdef.css");
        assert!(page.contains("<h1 id=\"topic-title\">Verbs, doorbells and CQEs</h1>"));
        assert!(page.contains("<h2>The objects a program creates</h2>"));
        assert!(page.contains("<table>"));
        assert!(page.contains("href=\"style-0123456789abcdef.css\""));
        assert!(page.contains("<li id=\"source-"));
        assert!(!page.contains("[^"));
        assert!(!page.contains("<script"));
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("http://127.0.0.1:1/verbs"), "verbs");
        assert_eq!(short_name("http://127.0.0.1:1/qp/"), "qp/");
        assert_eq!(short_name("http://127.0.0.1:1/"), "/");
        assert_eq!(
            short_name("http://127.0.0.1:1/app-1_bg.wasm"),
            "app-1_bg.wasm"
        );
    }
}
