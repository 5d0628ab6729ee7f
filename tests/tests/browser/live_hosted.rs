//! The live page away from a probe, in real Chromium: a copy of the lab on a static host (here
//! a tiny file server at a made-up name, `lab.example.test`, that Chromium resolves to
//! 127.0.0.1) explains the probe, names a probe's refusal with the exact command for this
//! site, and connects to a probe started with that command. A page a probe serves at such a
//! name needs none of it.

use std::{
    io::{BufRead, BufReader, Write},
    net::{SocketAddr, TcpListener, TcpStream},
    path::{Component, Path, PathBuf},
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    thread::JoinHandle,
    time::Duration,
};

use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    site::Site,
};

/// A name that is not this machine as far as the page can tell; only Chromium knows better.
const NAME: &str = "lab.example.test";

fn chromium_resolves_the_name() -> String {
    format!("--host-resolver-rules=MAP {NAME} 127.0.0.1")
}

fn dist_dir() -> PathBuf {
    std::env::var_os("LAB_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| lab_tests::repo_root().join("dist"))
}

/// What a static host does: files, and `index.html` for any other path (so `/live` loads),
/// with no probe behind it. A `/ws` handshake gets that page too, and fails.
struct StaticHost {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl StaticHost {
    fn start(root: PathBuf) -> StaticHost {
        assert!(
            root.join("index.html").is_file(),
            "the hosted-page tests need the built site in {}; run `./lab test`, which builds it",
            root.display()
        );
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let addr = listener.local_addr().expect("a bound address");
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::Relaxed) {
                    return;
                }
                if let Ok(stream) = stream {
                    let root = root.clone();
                    std::thread::spawn(move || {
                        let _ = serve(stream, &root);
                    });
                }
            }
        });
        StaticHost {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    fn origin(&self) -> String {
        format!("http://{NAME}:{}", self.addr.port())
    }
}

impl Drop for StaticHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Answers one request with a file (or `index.html`) and closes the connection.
fn serve(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let relative = Path::new(path.trim_start_matches('/'));
    let safe = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    // A file, a folder's index.html (a site built with one page per route), or the app.
    let named = root.join(relative);
    let file = [named.clone(), named.join("index.html")]
        .into_iter()
        .find(|file| safe && file.is_file())
        .unwrap_or_else(|| root.join("index.html"));
    let body = std::fs::read(&file)?;
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)
}

/// Puts `address` in the probe field as typing would and presses Connect. Set in one step:
/// the page redraws as messages arrive, and a redraw between clearing the field and typing
/// would bring the old text back.
async fn connect_to(browser: &Browser, address: &str) {
    browser.set_value("#probe-url", address, "input").await;
    // Back into view, where a screenshot's scrolling may have left it.
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

/// Desktop and phone screenshots of the part of the page `css` names.
async fn screenshots(browser: &Browser, css: &str, name: &str) {
    for (size, suffix) in [(DESKTOP, ""), (PHONE, "-phone")] {
        browser.resize(size).await;
        browser
            .eval(&format!(
                "document.querySelector({css:?})?.scrollIntoView({{block: 'start'}}); window.scrollBy(0, -70); return true"
            ))
            .await;
        browser.settle().await;
        browser.screenshot(&format!("{name}{suffix}")).await;
    }
    browser.resize(DESKTOP).await;
}

/// The browser logs every failed handshake and every failed look-up of `/probe` itself;
/// anything else is a fault of the page.
async fn assert_only_connection_failures_logged(browser: &Browser, context: &str) {
    let unexpected: Vec<String> = browser
        .console_errors()
        .await
        .into_iter()
        .filter(|e| {
            !(e.contains("WebSocket connection to '")
                || e.contains("/probe") && e.contains("Failed to load resource"))
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "unexpected console errors on {context}: {unexpected:#?}"
    );
}

#[tokio::test]
async fn a_hosted_page_explains_the_probe_names_a_refusal_and_connects_when_allowed() {
    let host = StaticHost::start(dist_dir());
    let origin = host.origin();
    let command = format!("native-probe serve --allow-origin {origin}");
    let refusing = Site::start_with(&["--interval-ms", "200"]);
    let allowing = Site::start_with(&["--interval-ms", "200", "--allow-origin", &origin]);
    let browser = Browser::start_with_args(&[&chromium_resolves_the_name()]).await;
    browser.goto(&format!("{origin}/live")).await;

    // The first screen: what the probe is, how to get it, this site's command, and the
    // default address already being tried.
    browser
        .wait_until(
            "return !!document.querySelector('.live-hosted')",
            "the hosted-page introduction",
        )
        .await;
    let intro = browser.text_content(".live-hosted").await;
    for said in [
        "native-probe",
        "reads your machine's RDMA and network counters",
        "./lab run",
        "cargo build --release -p native-probe",
        command.as_str(),
        "trying ws://127.0.0.1:7878/ws",
    ] {
        assert!(intro.contains(said), "the intro lacks {said:?}: {intro}");
    }
    let field = browser
        .eval("return document.querySelector('#probe-url').value")
        .await;
    assert_eq!(field, "ws://127.0.0.1:7878/ws");
    let first_screen = browser
        .eval("return document.querySelector('.live-hosted').getBoundingClientRect().top < window.innerHeight")
        .await;
    assert_eq!(
        first_screen, true,
        "the introduction is on the first screen"
    );
    // Whatever is on this machine's default port (most likely nothing), it is named.
    browser
        .wait_until(
            "return !!document.querySelector('.live-problem')",
            "what the default address said",
        )
        .await;
    browser.resize(PHONE).await;
    let (bottom, height) = (
        browser
            .eval("window.scrollTo(0, 0); return document.querySelector('.live-hosted .live-command').getBoundingClientRect().bottom")
            .await,
        browser.eval("return window.innerHeight").await,
    );
    assert!(
        bottom.as_f64() <= height.as_f64(),
        "the command is on a phone's first screen: it ends at {bottom} px of {height}"
    );
    screenshots(&browser, "h1", "live-hosted-intro").await;

    // A probe that does not know this site: named as a refusal, with the command.
    let refusing_address = refusing.base_url.trim_start_matches("http://").to_string();
    connect_to(&browser, &refusing_address).await;
    let problem = browser
        .wait_until(
            "const p = document.querySelector('.live-problem'); return p && p.textContent.includes('refused this site') && p.textContent",
            "the refusal",
        )
        .await;
    let problem = problem.as_str().unwrap_or_default();
    assert!(
        problem.contains(&format!(
            "The probe at {refusing_address} refused this site."
        )),
        "{problem}"
    );
    assert!(problem.contains(&command), "{problem}");
    let status = browser.text_content(".live-status").await;
    assert!(
        status.contains("the probe refused this site") && status.contains("retrying in"),
        "{status}"
    );
    assert!(
        !problem.contains("no probe answered") && !status.contains("no probe answered"),
        "a refusal is not an absence: {status} / {problem}"
    );
    screenshots(&browser, ".live-connect", "live-hosted-refused").await;

    // A probe started with the command: live data, and the instructions step aside.
    let allowing_address = allowing.base_url.trim_start_matches("http://").to_string();
    connect_to(&browser, &allowing_address).await;
    browser.wait_for_text(".live-status", "Connected").await;
    browser.wait_until("const r = document.querySelector(\"[aria-label='Interface lo'] tr[data-counter=rx_bytes] .rate\"); return !!r && r.textContent.endsWith('/s')",
        "a rate for lo's rx_bytes from the allowing probe",
    )
    .await;
    let leftovers = browser
        .eval("return document.querySelectorAll('.live-hosted, .live-problem').length")
        .await;
    assert_eq!(leftovers, 0, "connected, the page needs no instructions");
    screenshots(&browser, "h1", "live-hosted-connected").await;

    assert_only_connection_failures_logged(&browser, "the hosted live page").await;
    browser.close().await;
}

#[tokio::test]
async fn a_page_served_by_a_probe_at_a_name_connects_to_it_and_names_another_probes_refusal() {
    let serving = Site::start_with(&["--interval-ms", "200", "--allow-host", NAME]);
    let port = serving
        .base_url
        .rsplit(':')
        .next()
        .expect("the URL has a port");
    let origin = format!("http://{NAME}:{port}");
    let refusing = Site::start_with(&[]);
    let browser = Browser::start_with_args(&[&chromium_resolves_the_name()]).await;
    browser.goto(&format!("{origin}/live")).await;

    // Its own origin answers: the view is what it always was.
    browser.wait_for_text(".live-status", "Connected").await;
    browser.find("[aria-label='Interface lo']").await;
    let hosted = browser
        .eval("return !!document.querySelector('.live-hosted')")
        .await;
    assert_eq!(
        hosted, false,
        "a page served by a probe needs no instructions"
    );
    let field = browser
        .eval("return document.querySelector('#probe-url').value")
        .await;
    assert_eq!(field, format!("ws://{NAME}:{port}/ws"));

    // Another probe refuses this origin; that is said, with this origin's command.
    let refusing_address = refusing.base_url.trim_start_matches("http://").to_string();
    connect_to(&browser, &refusing_address).await;
    let problem = browser
        .wait_until(
            "const p = document.querySelector('.live-problem'); return p && p.textContent.includes('refused this site') && p.textContent",
            "the other probe's refusal",
        )
        .await;
    assert!(
        problem
            .as_str()
            .unwrap_or_default()
            .contains(&format!("native-probe serve --allow-origin {origin}")),
        "{problem}"
    );
    assert_only_connection_failures_logged(&browser, "the live page served at a name").await;
    browser.close().await;
}
