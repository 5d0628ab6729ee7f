//! Headless Chromium driven through chromedriver (Debian's `chromium` and `chromium-driver`).

use std::{
    net::{SocketAddr, TcpStream},
    os::unix::process::CommandExt,
    path::PathBuf,
    process::{Command, Stdio},
    sync::{mpsc, LazyLock},
    time::{Duration, Instant},
};

use fantoccini::{
    actions::{InputSource, KeyAction, KeyActions},
    elements::Element,
    wd::WebDriverCompatibleCommand,
    Client, ClientBuilder, Locator,
};
use serde_json::{json, Value};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::loopback::{free_port, get};
use crate::site::Site;
use crate::topics;

/// One browser at a time: two Chromiums on a two-core machine only make both flaky.
static BROWSER_SLOT: Semaphore = Semaphore::const_new(1);

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// Without the networking flags Chromium tries to reach the internet and stalls here.
/// Reduced motion and instant scrolling: animated views (the flows player) jump to where a
/// step ends and scrolls land at once, so a test reads a finished state as soon as the page
/// has drawn it.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--force-device-scale-factor=1",
    "--hide-scrollbars",
    "--force-prefers-reduced-motion",
    "--disable-smooth-scrolling",
];
pub const DESKTOP: (u32, u32) = (1280, 860);
pub const PHONE: (u32, u32) = (375, 740);
const WAIT: Duration = Duration::from_secs(15);
/// For states that take a while to reach: a simulation to finish, a probe's second sample.
const LONG_WAIT: Duration = Duration::from_secs(30);
/// How often a wait looks again at the state it waits for.
const POLL: Duration = Duration::from_millis(50);

/// A file the page downloaded: the link's `download` name and its `href` (a blob: or data:
/// URL).
#[derive(Debug, Clone, PartialEq)]
pub struct Download {
    pub name: String,
    pub href: String,
}

/// What `main h1` reads on `path`: its topic's title (the query and fragment aside).
fn heading_of(path: &str) -> String {
    let route = path.split(['?', '#']).next().unwrap_or_default();
    let route = match route.trim_end_matches('/') {
        "" => "/",
        route => route,
    };
    topics::all()
        .into_iter()
        .find(|topic| topic.path == route)
        .map_or_else(|| "Page not found".to_string(), |topic| topic.title)
}

/// A browser session of the process's one chromedriver, with its own Chromium and a fresh
/// profile.
pub struct Browser {
    pub client: Client,
    driver: u16,
    session: String,
    profile: PathBuf,
    /// False when pages run no script ([`Browser::start_without_scripts`]): nothing in them
    /// answers an event, and no animation-frame callback ever runs.
    scripts: bool,
    _slot: SemaphorePermit<'static>,
}

/// The port of the chromedriver every [`Browser`] of this process is a session of, started
/// on first use: one driver for the whole test binary instead of one per test.
fn chromedriver() -> u16 {
    static PORT: LazyLock<u16> = LazyLock::new(start_chromedriver);
    *PORT
}

/// Starts chromedriver from a thread that lives as long as the process, and has the kernel
/// kill it when that thread ends (`PR_SET_PDEATHSIG` follows the thread that forked): a
/// static is never dropped, and no driver may outlive the tests.
fn start_chromedriver() -> u16 {
    for tool in [CHROMIUM, CHROMEDRIVER] {
        assert!(
            std::path::Path::new(tool).exists(),
            "{tool} is missing; `./lab test` installs Debian's chromium and chromium-driver"
        );
    }
    let port = free_port();
    let (started, spawned) = mpsc::channel();
    std::thread::Builder::new()
        .name("chromedriver".into())
        .spawn(move || {
            let mut command = Command::new(CHROMEDRIVER);
            command
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // SAFETY: the closure only makes one system call, which is async-signal-safe.
            unsafe {
                command.pre_exec(|| {
                    rustix::process::set_parent_process_death_signal(Some(
                        rustix::process::Signal::KILL,
                    ))
                    .map_err(std::io::Error::from)
                });
            }
            let driver = command.spawn();
            let _ = started.send(driver.as_ref().map(|_| ()).map_err(|e| e.to_string()));
            loop {
                std::thread::park();
            }
        })
        .expect("a thread for chromedriver");
    spawned
        .recv()
        .expect("the chromedriver thread reports")
        .unwrap_or_else(|e| panic!("chromedriver does not start: {e}"));
    let deadline = Instant::now() + WAIT;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on port {port}"
        );
        std::thread::sleep(POLL);
    }
    port
}

impl Browser {
    pub async fn start() -> Browser {
        Browser::start_with_args(&[]).await
    }

    /// A browser whose pages run no script, as a reader with JavaScript off sees them.
    pub async fn start_without_scripts() -> Browser {
        let mut browser = Browser::start_with_args(&["--blink-settings=scriptEnabled=false"]).await;
        browser.scripts = false;
        browser
    }

    /// [`Browser::start`] with more Chromium switches, e.g.
    /// `--host-resolver-rules=MAP lab.example.test 127.0.0.1` for a page at a non-local name.
    pub async fn start_with_args(extra: &[&str]) -> Browser {
        let slot = BROWSER_SLOT
            .acquire()
            .await
            .expect("the slot is never closed");
        let driver = chromedriver();
        static PROFILES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let profile = std::env::temp_dir().join(format!(
            "rdma-lab-chromium-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={},{}", DESKTOP.0, DESKTOP.1));
        args.extend(extra.iter().map(|arg| arg.to_string()));
        let capabilities = json!({
            "browserName": "chrome",
            "goog:chromeOptions": { "binary": CHROMIUM, "args": args },
            "goog:loggingPrefs": { "browser": "ALL" },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("built as an object")
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{driver}"))
            .await
            .expect("chromedriver opens a Chromium session");
        let session = client
            .session_id()
            .await
            .ok()
            .flatten()
            .expect("a new session has an id");
        Browser {
            client,
            driver,
            session,
            profile,
            scripts: true,
            _slot: slot,
        }
    }

    /// A browser on `path` of `site`, once the page's heading (`main h1`) reads the title of
    /// the path's topic, or "Page not found" for a path that has none.
    pub async fn open(site: &Site, path: &str) -> Browser {
        let browser = Browser::start().await;
        browser.visit(site, path).await;
        browser
    }

    /// Goes to `path` of `site` and waits as [`Browser::open`] does.
    pub async fn visit(&self, site: &Site, path: &str) {
        self.goto(&site.url(path)).await;
        self.wait_for_text("main h1", &heading_of(path)).await;
    }

    /// A browser on `path` of `site` (`/live` or one of its addresses), once the live view
    /// says it is connected to the probe.
    pub async fn open_connected(site: &Site, path: &str) -> Browser {
        let browser = Browser::start().await;
        browser.goto(&site.url(path)).await;
        browser.wait_for_text(".live-status", "Connected").await;
        browser
    }

    /// From now on a link the page clicks to download a file is caught instead of followed:
    /// [`Browser::click_to_download`] reads what it carried. The blobs the page makes and
    /// every text drawn onto a canvas are kept too (`window.__blobs`, `window.__texts`), so
    /// a test can read an exported CSV and the captions drawn into an exported PNG.
    pub async fn catch_downloads(&self) {
        self.eval(
            "window.__downloads = []; window.__blobs = []; window.__texts = [];\
             HTMLAnchorElement.prototype.click = function () { \
               window.__downloads.push({ href: this.href, name: this.download }); };\
             const create = URL.createObjectURL;\
             URL.createObjectURL = (blob) => { window.__blobs.push(blob); return create(blob); };\
             const fill = CanvasRenderingContext2D.prototype.fillText;\
             CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) { \
               window.__texts.push(String(text)); return fill.call(this, text, ...rest); };",
        )
        .await;
    }

    /// Clicks the button labelled `label` and waits for the download it starts (after
    /// [`Browser::catch_downloads`]); its file name and address.
    pub async fn click_to_download(&self, label: &str) -> Download {
        let before = self
            .eval("return window.__downloads.length")
            .await
            .as_u64()
            .expect("downloads are caught (Browser::catch_downloads)");
        let button = format!("//button[normalize-space()='{label}']");
        self.client
            .find(Locator::XPath(&button))
            .await
            .unwrap_or_else(|e| panic!("a {label} button: {e}"))
            .click()
            .await
            .unwrap_or_else(|e| panic!("{label} clicks: {e}"));
        let count = format!("window.__downloads.length === {}", before + 1);
        self.wait_until(&format!("return ({count});"), &count).await;
        let caught = self
            .eval(&format!("return window.__downloads[{before}]"))
            .await;
        Download {
            name: caught["name"].as_str().unwrap_or_default().to_string(),
            href: caught["href"].as_str().unwrap_or_default().to_string(),
        }
    }

    pub async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
    }

    /// Resizes the window, and returns once the page has laid itself out at that width.
    pub async fn resize(&self, (width, height): (u32, u32)) {
        self.client
            .set_window_size(width, height)
            .await
            .expect("window resizes");
        self.wait_until(
            &format!("return window.innerWidth === {width}"),
            &format!("the page to be {width} px wide"),
        )
        .await;
        self.settle().await;
    }

    /// Returns after two animation frames: whatever the page does in answer to an event it
    /// has received (a redraw, a layout) is on screen by then. A page without scripts has
    /// nothing to answer with (and runs no frame callback), so there is nothing to wait for.
    pub async fn settle(&self) {
        if !self.scripts {
            return;
        }
        self.eval_async("requestAnimationFrame(() => requestAnimationFrame(() => done(true)))")
            .await;
    }

    /// Waits until `css` matches an element whose text is `text`.
    pub async fn wait_for_text(&self, css: &str, text: &str) -> Element {
        let deadline = Instant::now() + WAIT;
        let mut last = String::from("(no element)");
        loop {
            if let Ok(element) = self.client.find(Locator::Css(css)).await {
                if let Ok(found) = element.text().await {
                    if found.trim() == text {
                        return element;
                    }
                    last = found;
                }
            }
            assert!(
                Instant::now() < deadline,
                "`{css}` never showed {text:?}; last seen {last:?}"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until the first element matching `css` has `text` somewhere in its text.
    pub async fn wait_for_text_containing(&self, css: &str, text: &str) {
        let (css_js, text_js) = (json_string(css), json_string(text));
        self.wait_until(
            &format!(
                "const e = document.querySelector({css_js}); return !!e && e.textContent.includes({text_js})"
            ),
            &format!("{css} to contain {text:?}"),
        )
        .await;
    }

    /// Polls `script` (a function body ending in `return …`) until it returns something truthy,
    /// and returns that value.
    pub async fn wait_until(&self, script: &str, what: &str) -> Value {
        self.wait_until_for(script, what, LONG_WAIT).await
    }

    /// [`Browser::wait_until`] with its own time limit, for work that takes minutes.
    pub async fn wait_until_for(&self, script: &str, what: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            // Until the page has rendered what the script reads, the script may throw: that
            // is "not yet", like a falsy value.
            let value = self.try_eval(script).await.unwrap_or(Value::Null);
            let truthy = match &value {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !s.is_empty(),
                Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
                _ => true,
            };
            if truthy {
                return value;
            }
            if Instant::now() >= deadline {
                panic!(
                    "timed out waiting for {what}; the page says:\n{}",
                    self.shown_text().await
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Polls `script` (a function body ending in `return …`) until it returns `want`.
    pub async fn wait_for_value(&self, script: &str, want: Value) {
        let deadline = Instant::now() + WAIT;
        loop {
            // A script that throws (what it reads is not rendered yet) has not got there yet.
            let got = match self.try_eval(script).await {
                Ok(got) => got,
                Err(e) => Value::String(format!("(the script threw: {e})")),
            };
            if got == want {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "`{script}` stayed {got}, wanted {want}"
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Where the focus is and what the page's main part shows (its first 3,000 characters),
    /// for a failure message.
    async fn shown_text(&self) -> String {
        let shown = self
            .eval(
                "const f = document.activeElement;\
                 const focus = f ? [f.tagName.toLowerCase(), f.id && '#' + f.id, ...[...f.classList].map(c => '.' + c)].join('') : 'nothing';\
                 return `(focus on ${focus})\\n` + ((document.querySelector('main') ?? document.body)?.innerText ?? '')",
            )
            .await;
        shown
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(3_000)
            .collect()
    }

    /// Presses and releases one key (a character, or a WebDriver key code such as `'\u{E004}'`
    /// for Tab) on whatever has focus.
    pub async fn press(&self, key: char) {
        self.press_times(key, 1).await;
    }

    /// Presses `key` `times` times in one WebDriver action, each press its own key events.
    pub async fn press_times(&self, key: char, times: usize) {
        self.keys_to_focus(&key.to_string().repeat(times)).await;
    }

    pub async fn find(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no element matches `{css}`: {e}"))
    }

    /// The text of the first element matching `css`, as shown (WebDriver's element text),
    /// once one exists.
    pub async fn text(&self, css: &str) -> String {
        self.find(css)
            .await
            .text()
            .await
            .unwrap_or_else(|e| panic!("no text for `{css}`: {e}"))
    }

    /// The `textContent` of the first element matching `css` now (hidden parts included);
    /// empty when nothing matches.
    pub async fn text_content(&self, css: &str) -> String {
        let script = format!("return document.querySelector({css:?})?.textContent ?? ''");
        self.eval(&script)
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Types `text` over the text of the box `css` one key per sendKeys, as a learner types
    /// digit by digit.
    pub async fn type_keys(&self, css: &str, text: &str) {
        self.find(css).await;
        self.select_text(css).await;
        for c in text.chars() {
            self.keys_to_focus(&c.to_string()).await;
        }
    }

    /// Sends `keys` to the focused element as key actions, one press and release each.
    /// WebDriver's Element Send Keys is not used for typing over a selection: ChromeDriver
    /// (Chromium 148) puts the caret at the end of a text box before typing, which drops
    /// the selection, so Backspace would delete one character instead of the value.
    async fn keys_to_focus(&self, keys: &str) {
        if keys.is_empty() {
            return;
        }
        let mut actions = KeyActions::new("keyboard".to_string());
        for key in keys.chars() {
            actions = actions
                .then(KeyAction::Down { value: key })
                .then(KeyAction::Up { value: key });
        }
        self.client
            .perform_actions(actions)
            .await
            .expect("keys are typed");
    }

    /// Selects the text of the box `css` and types `keys` over it, one key event at a time
    /// (key codes such as `'\u{E003}'`, Backspace, included). This is how a learner
    /// replaces a value, and unlike WebDriver's Element Clear, which empties the box without
    /// an `input` event, the page hears every change: a page that redraws between a clear
    /// and the first key (the live page does at each sample) would put its own value back
    /// and the keys would land after it.
    pub async fn type_over(&self, css: &str, keys: &str) {
        self.find(css).await;
        self.select_text(css).await;
        self.keys_to_focus(keys).await;
    }

    /// Focuses the box `css` with all its text selected, so the next key replaces it.
    async fn select_text(&self, css: &str) {
        self.eval(&format!(
            "const el = document.querySelector({css:?}); el.focus(); el.select(); return true"
        ))
        .await;
    }

    /// Sets an input's, text area's or select's value as a learner would and fires `event` (`input` or
    /// `change`, whichever the page listens to). Going through the prototype's setter is
    /// what makes a framework see the change as a user's.
    pub async fn set_value(&self, css: &str, value: &str, event: &str) {
        let script = format!(
            "const el = document.querySelector({css:?});\
             const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype\
               : el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;\
             Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, {value:?});\
             el.dispatchEvent(new Event({event:?}, {{ bubbles: true }}));"
        );
        self.eval(&script).await;
    }

    pub async fn eval(&self, script: &str) -> Value {
        self.try_eval(script)
            .await
            .unwrap_or_else(|e| panic!("script failed: {script}: {e}"))
    }

    /// [`Browser::eval`], with the script's error as a value.
    pub async fn try_eval(&self, script: &str) -> Result<Value, String> {
        self.client
            .execute(script, vec![])
            .await
            .map_err(|e| e.to_string())
    }

    /// Runs `script`, a function body that calls `done(value)` (WebDriver's async script:
    /// `done` is the last argument), and returns the value.
    pub async fn eval_async(&self, script: &str) -> Value {
        let script = format!("const done = arguments[arguments.length - 1]; {script}");
        self.client
            .execute_async(&script, vec![])
            .await
            .unwrap_or_else(|e| panic!("async script failed: {e}"))
    }

    /// The serious and critical axe-core violations on the page shown, one line each: axe
    /// (`LAB_AXE`, installed by `./lab test`) is put into the page and run over the document.
    pub async fn serious_axe_violations(&self) -> Vec<String> {
        static AXE: LazyLock<String> = LazyLock::new(|| {
            let path = std::env::var("LAB_AXE").unwrap_or_else(|_| {
                let home = std::env::var("HOME").unwrap_or_default();
                format!("{home}/.cache/rdma-lab/node/node_modules/axe-core/axe.min.js")
            });
            std::fs::read_to_string(&path).unwrap_or_else(|e| {
                panic!("axe-core is not at {path} ({e}); ./lab test installs it")
            })
        });
        self.eval(&AXE).await;
        let report = self
            .eval_async(
                "axe.run(document, { resultTypes: ['violations'] }).then(r => done(r.violations \
                   .filter(v => v.impact === 'serious' || v.impact === 'critical') \
                   .map(v => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.slice(0, 4).map(n => n.target.join(' ')).join(', ')}`)), \
                   e => done([`axe failed: ${e}`]))",
            )
            .await;
        report
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    /// Scrolls `css` to the middle of the screen, clear of the sticky header, and clicks it as a
    /// learner would (WebDriver refuses a click the header would take).
    pub async fn click_in_view(&self, css: &str) {
        let element = self.find(css).await;
        // The shell scrolls once more when a page's view has its size (to keep an anchor
        // or the offset Back returned to); a click placed before that would miss.
        self.wait_until(
            "return document.querySelector('.view-slot:not(.settled)') === null",
            "the page's view in place",
        )
        .await;
        self.eval(&format!(
            "document.querySelector({css:?}).scrollIntoView({{block: 'center'}}); return null"
        ))
        .await;
        element
            .click()
            .await
            .unwrap_or_else(|e| panic!("`{css}` clicks: {e}"));
    }

    /// The ids of the view's "try this" tasks marked done, in the box's order.
    pub async fn exercises_done(&self) -> Vec<String> {
        let done = self
            .eval("return [...document.querySelectorAll('.try-task[data-done=true]')].map(t => t.dataset.exercise)")
            .await;
        serde_json::from_value(done).expect("a list of exercise ids")
    }

    /// Waits until the task `id` of the view's "try this" box is marked done, and checks it
    /// says what it showed.
    pub async fn wait_for_exercise(&self, id: &str) {
        self.wait_until(
            &format!("return document.querySelector('.try-task[data-exercise={id}][data-done=true] .try-lesson') !== null"),
            &format!("the \"{id}\" task to be marked done"),
        )
        .await;
    }

    pub async fn path(&self) -> String {
        self.client
            .current_url()
            .await
            .expect("a current URL")
            .path()
            .to_string()
    }

    /// Console errors (including Rust panics reported by the panic hook and failed loads)
    /// since the last call.
    pub async fn console_errors(&self) -> Vec<String> {
        let entries = self
            .client
            .issue_cmd(BrowserLog)
            .await
            .expect("chromedriver returns the browser log");
        entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    pub async fn assert_no_console_errors(&self, context: &str) {
        let errors = self.console_errors().await;
        assert!(
            errors.is_empty(),
            "console errors on {context}:\n{}",
            errors.join("\n")
        );
    }

    /// Saves a PNG of the viewport as `target/screenshots/NAME.png` when screenshots are
    /// asked for (`LAB_SCREENSHOTS=1`); a failing test leaves one of its own regardless.
    pub async fn screenshot(&self, name: &str) {
        if !crate::screenshots_wanted() {
            return;
        }
        let png = self
            .client
            .screenshot()
            .await
            .expect("Chromium takes a screenshot");
        crate::save_screenshot(name, &png);
    }

    /// What the page showed when a test failed, as `failed-TEST.png`: taken in `Drop` while
    /// the test unwinds, so over a blocking request straight to chromedriver (the client
    /// needs the test's runtime, which is busy unwinding).
    fn screenshot_of_failure(&self) {
        let test = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .replace("::", "-");
        let answer = get(
            SocketAddr::from(([127, 0, 0, 1], self.driver)),
            &format!("/session/{}/screenshot", self.session),
            &[],
        );
        let png = answer.and_then(|answer| {
            let body: Value = serde_json::from_slice(&answer.body)
                .map_err(|e| format!("chromedriver answered {}: {e}", answer.status))?;
            let encoded = body["value"]
                .as_str()
                .ok_or_else(|| format!("chromedriver answered {}: {body}", answer.status))?;
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, encoded)
                .map_err(|e| e.to_string())
        });
        match png {
            Ok(png) => {
                let path = crate::save_screenshot(&format!("failed-{test}"), &png);
                eprintln!("the page as the test failed: {}", path.display());
            }
            Err(e) => eprintln!("no screenshot of the failed page could be taken: {e}"),
        }
    }

    /// Ends the session politely; `Drop` cleans up whatever is left.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

impl Drop for Browser {
    /// Runs after a failed assertion too, so no Chromium outlives its test.
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.screenshot_of_failure();
        }
        let _ = Command::new("pkill")
            .args(["-f", "--"])
            .arg(format!("--user-data-dir={}", self.profile.display()))
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// chromedriver's log endpoint, which W3C WebDriver lacks and fantoccini does not wrap.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(r#"{"type":"browser"}"#.to_string()),
        )
    }
}

/// `text` as a JavaScript string literal.
fn json_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
