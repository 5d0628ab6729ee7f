//! The WebSocket to the probe: find one (the page's own origin first, then this machine's
//! default address for a copy of the lab hosted elsewhere), decode the engine's message types,
//! tell why a connection failed, and reconnect with backoff when the probe goes away.
//!
//! All of it is one reducer, [`ProbeView`]; the hook only turns its state into effects (a
//! socket per attempt, a timer while waiting, a question to `/probe` after a failed handshake)
//! and their outcomes back into actions.

use std::{cell::Cell, rc::Rc};

use engine::address::{split_authority, Authority, AuthorityError};
use engine::probe::{
    doctor::Report, fleet::HostPorts, Envelope, Inventory, ProbeMessage, Sample, Source,
    SCHEMA_VERSION,
};
use gloo::timers::callback::Timeout;
use wasm_bindgen::{closure::Closure, JsCast, JsValue};
use web_sys::{CloseEvent, MessageEvent, WebSocket};
use yew::prelude::*;

use super::address::{Page, ProbeAddress, LOCAL_PROBE};
use super::failure::Failure;
use super::history::History;
use super::presence::{self, Answer};

const FIRST_RETRY_MS: u32 = 1_000;
/// The shortest silence after which the readings are no longer called live.
const SILENCE_AT_LEAST_MS: u32 = 3_000;
const LONGEST_RETRY_MS: u32 = 30_000;

/// A probe address the learner typed, as a WebSocket URL.
pub struct ProbeUrl(pub String);

impl ProbeUrl {
    /// Accepts `host:port`, `http(s)://host:port` or a `ws(s)://` URL; `/ws` is added when
    /// no path is given. An address the browser could not open is refused here, with what is
    /// wrong with it, so that it is never tried at all.
    pub fn parse(text: &str) -> Result<ProbeUrl, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("Enter the probe's address, e.g. 127.0.0.1:7878.".into());
        }
        if text.contains(char::is_whitespace) {
            return Err("An address has no spaces.".into());
        }
        let (scheme, rest) = match text.split_once("://") {
            Some(("ws", rest)) | Some(("http", rest)) => ("ws", rest),
            Some(("wss", rest)) | Some(("https", rest)) => ("wss", rest),
            Some((other, _)) => {
                return Err(format!(
                    "{other}:// is not a probe address; use ws:// or host:port."
                ))
            }
            None => ("ws", text),
        };
        let (authority, tail) = split_authority(rest);
        check_authority(authority)?;
        let path = match tail {
            "" | "/" => "/ws".to_string(),
            query if query.starts_with(['?', '#']) => format!("/ws{query}"),
            path => path.to_string(),
        };
        Ok(ProbeUrl(format!("{scheme}://{authority}{path}")))
    }
}

/// Why `host[:port]` is not an address a WebSocket URL can name, if it is not: the engine's
/// parser decides, this says it to the learner.
fn check_authority(authority: &str) -> Result<(), String> {
    use AuthorityError as E;
    Authority::parse(authority).map(drop).map_err(|why| match why {
        E::Empty => "The address names no host.".into(),
        E::UserInfo => "A probe address has no user name: leave out the part up to @.".into(),
        E::UnclosedBracket => format!(
            "{authority} opens an IPv6 address with [ but never closes it with ]: write it as [::1]:7878."
        ),
        E::NotIpv6(v6) => format!(
            "[{v6}] is not an IPv6 address: only hex digits, colons and dots go between the brackets."
        ),
        E::AfterBracket { v6, after } => {
            format!("After ] comes :port or nothing, not {after}: e.g. [{v6}]:7878.")
        }
        E::StrayBracket => format!(
            "{authority} has a bracket out of place: only an IPv6 address goes in brackets, e.g. [::1]:7878."
        ),
        E::ManyColons => format!(
            "{authority} has more than one colon: an IPv6 address goes in brackets, e.g. [::1]:7878."
        ),
        E::NoHost => "The address names no host before its port.".into(),
        E::NotAHostName { host, bad } => {
            format!("{host} is not a host name: {bad} cannot be part of one.")
        }
        E::NoPort => format!(
            "{authority} ends in a colon without a port: add it, e.g. {authority}7878."
        ),
        E::BadPort(port) => format!("The port must be a number from 1 to 65535, not {port}."),
    })
}

/// WebSocket close code 1000, a normal closure (RFC 6455 section 7.4.1).
const CLOSE_NORMAL: u16 = 1000;

/// Whether a probe served this page, as far as the view knows yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// The page's own origin is being tried first.
    Asking,
    /// A probe served this page (`./lab run`, or a probe reached by name): its own origin
    /// answered, so the view is what it always was.
    Probe,
    /// Nothing answered at the page's own origin: a copy on a static host. The view explains
    /// the probe and tries this machine's default address.
    Hosted,
    /// The page's address names the probe (`?probe=`, or one of `?probes=`): that one is
    /// tried, and only that one.
    Named,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionState {
    Connecting,
    Open,
    /// The handshake failed; the view is asking the address what, if anything, refused it.
    Checking,
    Retrying {
        in_ms: u32,
        failure: Failure,
    },
    /// The browser will not open this address from this page; trying again cannot help.
    Stopped(Failure),
}

/// Everything one probe has said since its `hello`, kept with the address it came from: when
/// the connection ends it is still shown, as the last reading, and it goes when the learner
/// points the view at another address.
#[derive(Debug, Clone, PartialEq)]
pub struct Readings {
    /// The WebSocket URL these came from.
    pub url: String,
    pub source: Source,
    pub host: String,
    pub interval_ms: u64,
    pub inventory: Option<Inventory>,
    /// The probe's host checks, from its `hello` (older probes send none).
    pub doctor: Option<Report>,
    pub latest: Option<Sample>,
    pub history: History,
    /// The ports' rates as rows of the fleet table, with their short trends.
    pub ports: HostPorts,
    pub lagged: u64,
    /// When the last message arrived, by this browser's clock (ms since the Unix epoch): the
    /// time a learner compares with their own.
    pub last_seen_ms: f64,
    /// The socket is still open but the probe has sent nothing for several intervals (a
    /// stopped process, a network that drops everything): no close event says so.
    pub silent: bool,
}

impl Readings {
    fn new(url: String, source: Source, at_ms: f64) -> Readings {
        Readings {
            url,
            source,
            host: String::new(),
            interval_ms: 0,
            inventory: None,
            doctor: None,
            latest: None,
            history: History::default(),
            ports: HostPorts::default(),
            lagged: 0,
            last_seen_ms: at_ms,
            silent: false,
        }
    }

    /// How long the probe may say nothing before its readings are no longer live: three of
    /// its intervals, and never under three seconds (a busy page can be late by one).
    pub fn silence_after_ms(&self) -> u32 {
        self.interval_ms
            .saturating_mul(3)
            .clamp(u64::from(SILENCE_AT_LEAST_MS), u64::from(u32::MAX)) as u32
    }
}

/// Whether what the view shows is current.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Freshness {
    Live,
    /// The connection ended (or is being made again): the readings are its last.
    Disconnected {
        last_seen_ms: f64,
    },
    /// The connection is open but the probe stopped sending.
    Silent {
        last_seen_ms: f64,
    },
}

impl Freshness {
    pub fn is_live(self) -> bool {
        self == Freshness::Live
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProbeView {
    pub page: Page,
    /// The WebSocket URL tried now.
    pub url: String,
    pub home: Home,
    pub state: ConnectionState,
    /// Counts attempts: each new one opens a new socket, and late answers about an earlier
    /// one are ignored.
    pub attempt: u32,
    /// What the probe at `url` said last, live or not.
    pub readings: Option<Readings>,
    pub error: Option<String>,
    /// Why the last attempt at this address failed, kept while the next one runs so what it
    /// says does not flicker away and back with every retry.
    pub last_failure: Option<Failure>,
    failures: u32,
    /// Whether the learner brought the connection about: pressed Connect, or started a
    /// probe while the page waited for one (a connection that opens after a failure). The
    /// one a page makes by itself to the probe that served it is not theirs.
    pub by_learner: bool,
}

impl ProbeView {
    /// A view on `page` that first tries the probe that would have served it.
    pub fn new(page: Page) -> ProbeView {
        ProbeView {
            url: page.own_probe.clone(),
            page,
            home: Home::Asking,
            state: ConnectionState::Connecting,
            attempt: 0,
            readings: None,
            error: None,
            last_failure: None,
            failures: 0,
            by_learner: false,
        }
    }

    /// A view of the probe at `url` (a WebSocket URL), whatever served the page.
    pub fn named(page: Page, url: String) -> ProbeView {
        ProbeView {
            url,
            home: Home::Named,
            ..ProbeView::new(page)
        }
    }

    /// Whether the view should explain how to run a probe: only for a hosted page that is
    /// not connected.
    pub fn needs_a_probe(&self) -> bool {
        self.home == Home::Hosted && self.state != ConnectionState::Open
    }

    /// Whether the readings are current: `None` when there are none.
    pub fn freshness(&self) -> Option<Freshness> {
        let readings = self.readings.as_ref()?;
        let last_seen_ms = readings.last_seen_ms;
        Some(match self.state {
            ConnectionState::Open if readings.silent => Freshness::Silent { last_seen_ms },
            ConnectionState::Open => Freshness::Live,
            _ => Freshness::Disconnected { last_seen_ms },
        })
    }
}

pub enum ProbeAction {
    /// The learner asked for this address.
    Connect(String),
    Opened,
    /// A message from the probe, and when it arrived (ms since the Unix epoch).
    Received {
        text: String,
        at_ms: f64,
    },
    /// Nothing has come since the message that arrived at `last_seen_ms`, on attempt
    /// `attempt`, for as long as the probe may be quiet.
    Quiet {
        attempt: u32,
        last_seen_ms: f64,
    },
    /// The socket closed; its close event's code and reason.
    Closed {
        code: u16,
        reason: String,
    },
    /// `new WebSocket()` threw; the exception's name and message.
    Unopenable {
        name: String,
        message: String,
    },
    /// What the address said after attempt `attempt`'s handshake failed.
    Answered {
        attempt: u32,
        answer: Answer,
    },
    /// The wait before the next attempt is over.
    Retry,
}

impl ProbeView {
    /// How long to wait before the next attempt: doubling from one second, at most thirty.
    fn retry_delay_ms(&self) -> u32 {
        FIRST_RETRY_MS
            .saturating_mul(1 << self.failures.min(5))
            .min(LONGEST_RETRY_MS)
    }

    /// Gives up on this attempt for `failure`, waiting before the next when that can help.
    fn fail(&mut self, failure: Failure) {
        self.last_failure = Some(failure.clone());
        self.state = if failure.retry_helps() {
            let in_ms = self.retry_delay_ms();
            self.failures += 1;
            ConnectionState::Retrying { in_ms, failure }
        } else {
            ConnectionState::Stopped(failure)
        };
    }

    /// A fresh attempt at `url`, now.
    fn try_url(&mut self, url: String) {
        self.url = url;
        self.failures = 0;
        self.last_failure = None;
        self.attempt += 1;
        self.state = ConnectionState::Connecting;
    }

    /// Whether this attempt is the first look at the page's own origin.
    fn asking_home(&self) -> bool {
        self.home == Home::Asking && self.url == self.page.own_probe
    }

    /// The page's own origin did not answer as a probe: a hosted copy, so try this machine.
    fn move_out(&mut self) {
        self.home = Home::Hosted;
        self.try_url(LOCAL_PROBE.to_string());
    }

    fn receive(&mut self, text: &str, at_ms: f64) {
        let envelope = match Envelope::from_json(text) {
            Ok(envelope) => envelope,
            Err(error) => {
                self.error = Some(format!(
                    "The probe sent a message this page cannot read ({error})."
                ));
                return;
            }
        };
        if envelope.schema_version != SCHEMA_VERSION {
            self.error = Some(format!(
                "The probe speaks schema version {}, this page version {SCHEMA_VERSION}: use a probe and a page from the same build.",
                envelope.schema_version
            ));
            return;
        }
        // A `hello` begins a connection's readings; anything else adds to them.
        let fresh = matches!(envelope.message, ProbeMessage::Hello(_))
            || self.readings.as_ref().is_none_or(|r| r.url != self.url);
        if fresh {
            self.readings = Some(Readings::new(self.url.clone(), envelope.source, at_ms));
        }
        let Some(readings) = self.readings.as_mut() else {
            return;
        };
        readings.source = envelope.source;
        readings.last_seen_ms = at_ms;
        readings.silent = false;
        match envelope.message {
            ProbeMessage::Hello(hello) => {
                readings.host = hello.host;
                readings.interval_ms = hello.interval_ms;
                readings.inventory = Some(hello.inventory);
                readings.doctor = hello.doctor;
            }
            ProbeMessage::Sample(sample) => {
                readings.history.record(&sample);
                readings.ports.record(&sample);
                readings.latest = Some(sample);
            }
            ProbeMessage::Change(change) => readings.inventory = Some(change.inventory),
            ProbeMessage::Lagged(lagged) => readings.lagged += lagged.missed,
            ProbeMessage::Error(error) => {
                self.error = Some(format!("The probe reports: {}", error.message))
            }
        }
    }
}

impl Reducible for ProbeView {
    type Action = ProbeAction;

    fn reduce(self: Rc<Self>, action: ProbeAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            ProbeAction::Connect(url) => {
                // Another probe's readings say nothing about this one: they go, with what
                // that probe reported.
                if next.readings.as_ref().is_some_and(|r| r.url != url) {
                    next.readings = None;
                    next.error = None;
                }
                next.try_url(url);
                next.by_learner = true;
            }
            ProbeAction::Opened => {
                if next.asking_home() {
                    next.home = Home::Probe;
                }
                if next.last_failure.is_some() {
                    next.by_learner = true;
                }
                next.state = ConnectionState::Open;
                next.failures = 0;
                next.last_failure = None;
                next.error = None;
            }
            ProbeAction::Received { text, at_ms } => next.receive(&text, at_ms),
            ProbeAction::Quiet {
                attempt,
                last_seen_ms,
            } => {
                let open = next.state == ConnectionState::Open && attempt == next.attempt;
                match next.readings.as_mut() {
                    Some(readings) if open && readings.last_seen_ms == last_seen_ms => {
                        readings.silent = true
                    }
                    _ => return self,
                }
            }
            ProbeAction::Closed { code, reason } => match next.state {
                ConnectionState::Open => {
                    let reason = match (code, reason) {
                        (CLOSE_NORMAL, _) => "the probe closed the connection".to_string(),
                        (_, reason) if !reason.is_empty() => reason,
                        _ => "the connection to the probe was lost".to_string(),
                    };
                    next.fail(Failure::Closed(reason));
                }
                // The handshake failed, and the browser does not say why: ask.
                ConnectionState::Connecting => next.state = ConnectionState::Checking,
                _ => return self,
            },
            ProbeAction::Unopenable { name, message } => {
                if next.asking_home() {
                    next.move_out();
                } else {
                    let failure = Failure::unopenable(&next.page, &next.url, &name, &message);
                    next.fail(failure);
                }
            }
            ProbeAction::Answered { attempt, answer } => {
                if attempt != next.attempt || next.state != ConnectionState::Checking {
                    return self;
                }
                if next.asking_home() {
                    if !matches!(answer, Answer::Probe(_)) {
                        next.move_out();
                        return Rc::new(next);
                    }
                    // A probe served this page and refused the stream (a token, say): say so.
                    next.home = Home::Probe;
                }
                next.fail(Failure::from_answer(answer));
            }
            ProbeAction::Retry => {
                if !matches!(next.state, ConnectionState::Retrying { .. }) {
                    return self;
                }
                next.attempt += 1;
                next.state = ConnectionState::Connecting;
            }
        }
        Rc::new(next)
    }
}

/// Everything a socket needs kept alive while it is open.
struct Live {
    socket: WebSocket,
    _handlers: Vec<Closure<dyn FnMut(JsValue)>>,
}

/// Finds a probe (the one at `named`, a WebSocket URL, when given), keeps the connection up,
/// and returns what the probe has said. Each call has its own socket and state, so several
/// probes on one page do not disturb each other.
#[hook]
pub fn use_probe(named: Option<String>) -> UseReducerHandle<ProbeView> {
    let view = use_reducer(move || match named {
        Some(url) => ProbeView::named(Page::of_window(), url),
        None => ProbeView::new(Page::of_window()),
    });
    // One socket per attempt.
    {
        let dispatch = view.clone();
        use_effect_with((view.url.clone(), view.attempt), move |(url, _)| {
            let live = match WebSocket::new(url) {
                Ok(socket) => Some(connect(socket, dispatch)),
                Err(error) => {
                    dispatch.dispatch(ProbeAction::Unopenable {
                        name: js_text(&error, "name"),
                        message: js_text(&error, "message"),
                    });
                    None
                }
            };
            move || {
                if let Some(live) = live {
                    live.socket.set_onclose(None);
                    live.socket.set_onmessage(None);
                    live.socket.set_onopen(None);
                    let _ = live.socket.close();
                }
            }
        });
    }
    // The wait between attempts.
    {
        let dispatch = view.clone();
        let waiting = match view.state {
            ConnectionState::Retrying { in_ms, .. } => Some(in_ms),
            _ => None,
        };
        use_effect_with((view.attempt, waiting), move |(_, waiting)| {
            let timer =
                waiting.map(|ms| Timeout::new(ms, move || dispatch.dispatch(ProbeAction::Retry)));
            move || drop(timer)
        });
    }
    // A probe that stops sending while its socket stays open: the readings stop being live
    // once it has been quiet too long. Each message starts the wait again.
    {
        let dispatch = view.clone();
        let quiet = view
            .readings
            .as_ref()
            .filter(|_| view.state == ConnectionState::Open)
            .map(|r| (r.last_seen_ms.to_bits(), r.silence_after_ms()));
        use_effect_with((view.attempt, quiet), move |&(attempt, quiet)| {
            let timer = quiet.map(|(seen, after_ms)| {
                Timeout::new(after_ms, move || {
                    dispatch.dispatch(ProbeAction::Quiet {
                        attempt,
                        last_seen_ms: f64::from_bits(seen),
                    })
                })
            });
            move || drop(timer)
        });
    }
    // After a failed handshake, the question to the address's `/probe`.
    {
        let dispatch = view.clone();
        let checking = view.state == ConnectionState::Checking;
        let presence = ProbeAddress::of(&view.url).map(|a| a.presence);
        use_effect_with((view.attempt, checking), move |&(attempt, checking)| {
            let abandoned = Rc::new(Cell::new(false));
            if checking {
                let abandoned = abandoned.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let answer = match presence {
                        Some(url) => presence::ask(&url).await,
                        None => Answer::Nothing,
                    };
                    if !abandoned.get() {
                        dispatch.dispatch(ProbeAction::Answered { attempt, answer });
                    }
                });
            }
            move || abandoned.set(true)
        });
    }
    view
}

/// A string property of a thrown value (a `DOMException`'s `name` or `message`).
fn js_text(value: &JsValue, key: &str) -> String {
    js_sys::Reflect::get(value, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

fn connect(socket: WebSocket, view: UseReducerHandle<ProbeView>) -> Live {
    let on_open = {
        let view = view.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |_| view.dispatch(ProbeAction::Opened))
    };
    let on_message = {
        let view = view.clone();
        Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
            let text = event
                .dyn_ref::<MessageEvent>()
                .and_then(|m| m.data().as_string());
            if let Some(text) = text {
                let at_ms = js_sys::Date::now();
                view.dispatch(ProbeAction::Received { text, at_ms });
            }
        })
    };
    let on_close = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let (code, reason) = event
            .dyn_ref::<CloseEvent>()
            .map(|close| (close.code(), close.reason()))
            .unwrap_or_default();
        view.dispatch(ProbeAction::Closed { code, reason });
    });
    socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
    socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));
    Live {
        socket,
        _handlers: vec![on_open, on_message, on_close],
    }
}

#[cfg(test)]
mod tests {
    use super::super::presence::Presence;
    use super::*;
    use engine::probe::doctor::Status;

    fn view_at(origin: &str, base: &str) -> Rc<ProbeView> {
        Rc::new(ProbeView::new(Page::at(origin, base)))
    }

    fn refused() -> Answer {
        Answer::Probe(Presence {
            probe: "native-probe".into(),
            origin_allowed: false,
            allow_with: Some("--allow-origin https://name.github.io".into()),
        })
    }

    /// The handshake of the current attempt fails and the address answers `answer`.
    fn fails_with(view: Rc<ProbeView>, answer: Answer) -> Rc<ProbeView> {
        let view = view.reduce(ProbeAction::Closed {
            code: 1006,
            reason: String::new(),
        });
        assert_eq!(view.state, ConnectionState::Checking);
        let attempt = view.attempt;
        view.reduce(ProbeAction::Answered { attempt, answer })
    }

    #[test]
    fn probe_addresses_become_websocket_urls() {
        let ok = |s: &str| ProbeUrl::parse(s).map(|u| u.0);
        assert_eq!(ok("127.0.0.1:7878"), Ok("ws://127.0.0.1:7878/ws".into()));
        assert_eq!(ok("http://box:9000/"), Ok("ws://box:9000/ws".into()));
        assert_eq!(
            ok("https://lab.example.org"),
            Ok("wss://lab.example.org/ws".into())
        );
        assert_eq!(ok("ws://h:1/ws?token=x"), Ok("ws://h:1/ws?token=x".into()));
        assert!(ProbeUrl::parse("").is_err());
        assert!(ProbeUrl::parse("ftp://x").is_err());
        assert!(ProbeUrl::parse("a b").is_err());
        assert!(ProbeUrl::parse("ws:///ws").is_err());
        assert_eq!(ok("[::1]:7878"), Ok("ws://[::1]:7878/ws".into()));
        assert_eq!(
            ok("box:9000?token=x"),
            Ok("ws://box:9000/ws?token=x".into())
        );
    }

    #[test]
    fn addresses_a_browser_could_not_open_are_refused_with_what_is_wrong() {
        let refused = |s: &str| ProbeUrl::parse(s).err().unwrap_or_default();
        assert!(refused("ws://[::1").contains("never closes it with ]"));
        assert!(refused("[::1:7878").contains("never closes it with ]"));
        assert!(refused("[fe80::1%eth0]:1").contains("not an IPv6 address"));
        assert!(refused("[::1]7878").contains("After ] comes :port"));
        assert!(refused("::1:7878").contains("more than one colon"));
        assert!(refused("box]:1").contains("bracket out of place"));
        assert!(refused("127.0.0.1:").contains("without a port"));
        assert!(refused("127.0.0.1:0").contains("from 1 to 65535, not 0"));
        assert!(refused("127.0.0.1:70000").contains("not 70000"));
        assert!(refused("127.0.0.1:+80").contains("not +80"));
        assert!(refused(":7878").contains("no host before its port"));
        assert!(refused("user@box:1").contains("no user name"));
        assert!(refused("bo<x:1").contains("< cannot be part of one"));
    }

    #[test]
    fn retries_back_off_to_a_ceiling() {
        let mut view = ProbeView::new(Page::at(
            "http://127.0.0.1:7878",
            "http://127.0.0.1:7878/live",
        ));
        let mut delays = Vec::new();
        for _ in 0..8 {
            delays.push(view.retry_delay_ms());
            view.failures += 1;
        }
        assert_eq!(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    }

    #[test]
    fn unreadable_and_foreign_schema_messages_are_reported_not_applied() {
        let mut view = ProbeView::new(Page::at(
            "http://127.0.0.1:7878",
            "http://127.0.0.1:7878/live",
        ));
        view.receive("not json", 0.0);
        assert!(view.error.as_deref().unwrap_or("").contains("cannot read"));
        view.receive(
            r#"{"schema_version": 99, "source": "live", "type": "lagged", "missed": 3}"#,
            0.0,
        );
        assert!(view
            .error
            .as_deref()
            .unwrap_or("")
            .contains("schema version 99"));
        assert_eq!(view.readings, None);
        view.receive(
            r#"{"schema_version": 2, "source": "demo", "type": "lagged", "missed": 3}"#,
            0.0,
        );
        let readings = view.readings.expect("readings");
        assert_eq!((readings.lagged, readings.source), (3, Source::Demo));
    }

    const HELLO: &str = r#"{"schema_version": 2, "source": "demo", "type": "hello", "host": "lab-node01", "interval_ms": 200,
        "inventory": {"rdma_devices": [], "netdevs": []}}"#;
    const SAMPLE: &str = r#"{"schema_version": 2, "source": "demo", "type": "sample", "timestamp_ms": 1000, "elapsed_ms": 200,
        "ports": [], "netdevs": []}"#;

    #[test]
    fn a_hello_brings_the_host_checks_and_an_older_probes_hello_none() {
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let view = view.reduce(ProbeAction::Opened);
        let older = received(view.clone(), HELLO, 1_000.0);
        assert_eq!(
            older.readings.as_ref().map(|r| r.doctor.is_none()),
            Some(true)
        );
        let with_checks = HELLO.replace(
            r#""netdevs": []}"#,
            r#""netdevs": []}, "doctor": {"checks": [{"id": "memlock", "status": "warn",
                "title": "locked memory is limited", "evidence": [], "fix": "ulimit -l unlimited"}]}"#,
        );
        let view = received(view, &with_checks, 1_000.0);
        let report = view.readings.as_ref().and_then(|r| r.doctor.clone());
        let check = &report.expect("the checks").checks[0];
        assert_eq!((check.id.as_str(), check.status), ("memlock", Status::Warn));
    }

    fn received(view: Rc<ProbeView>, text: &str, at_ms: f64) -> Rc<ProbeView> {
        view.reduce(ProbeAction::Received {
            text: text.into(),
            at_ms,
        })
    }

    /// The "try this" tasks count a connection the learner made, not the one a page served
    /// by a probe opens by itself (UX check 2026-12: "connect" was done on arrival).
    #[test]
    fn a_connection_is_the_learners_after_connect_or_after_the_page_waited() {
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let view = view.reduce(ProbeAction::Opened);
        assert!(!view.by_learner, "the page joined the probe that served it");
        let pressed = view
            .clone()
            .reduce(ProbeAction::Connect("ws://127.0.0.1:7878/ws".into()))
            .reduce(ProbeAction::Opened);
        assert!(pressed.by_learner, "Connect pressed");
        // The probe stops, and the learner starts it again while the page retries.
        let view = view
            .reduce(ProbeAction::Closed {
                code: 1006,
                reason: String::new(),
            })
            .reduce(ProbeAction::Retry);
        assert!(!view.by_learner);
        let view = view.reduce(ProbeAction::Opened);
        assert!(view.by_learner, "a probe started while the page waited");
    }

    /// What the "try this" tasks see: nothing from the page's own connection until the
    /// learner scrolls to a chart, then that port; a reading once they connected; nothing
    /// while they connect again (it is not the probe stopping); the loss when it stops.
    #[test]
    fn the_tasks_see_what_the_learner_brought_about() {
        use engine::probe::exercise::Sight;
        use std::collections::BTreeSet;
        let sample = r#"{"schema_version": 2, "source": "demo", "type": "sample", "timestamp_ms": 1000, "elapsed_ms": 200,
            "ports": [{"device": "mlx5_0", "port": 1, "state": null, "counters": {}, "tx_bytes_per_second": null, "rx_bytes_per_second": null,
                "hw_counters": {"np_cnp_sent": {"value": 40, "per_second": 20.0, "status": "ok"}}}], "netdevs": []}"#;
        let sights = super::super::sights;
        let none = BTreeSet::new();
        let mlx5_0 = BTreeSet::from(["mlx5_0:1".to_string()]);
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let view = received(
            received(view.reduce(ProbeAction::Opened), HELLO, 1_000.0),
            sample,
            1_200.0,
        );
        assert_eq!(sights(&view, &none), [], "the page as it opens");
        let watched = sights(&view, &mlx5_0);
        assert!(
            matches!(&watched[..], [Sight::Watched(p)] if p.device == "mlx5_0"),
            "{watched:?}"
        );
        let again = view
            .clone()
            .reduce(ProbeAction::Connect("ws://127.0.0.1:7878/ws".into()));
        assert_eq!(sights(&again, &mlx5_0), [], "connecting again");
        let again = received(
            received(again.reduce(ProbeAction::Opened), HELLO, 2_000.0),
            sample,
            2_200.0,
        );
        assert!(matches!(sights(&again, &none)[..], [Sight::Live(_)]));
        let gone = again.reduce(ProbeAction::Closed {
            code: 1006,
            reason: String::new(),
        });
        assert_eq!(sights(&gone, &mlx5_0), [Sight::Lost]);
    }

    #[test]
    fn readings_outlive_their_connection_as_not_live_until_another_address() {
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        assert_eq!(view.freshness(), None);
        let view = view.reduce(ProbeAction::Opened);
        let view = received(view, HELLO, 5_000.0);
        let view = received(view, SAMPLE, 5_200.0);
        assert_eq!(view.freshness(), Some(Freshness::Live));
        let readings = view.readings.clone().expect("readings");
        assert_eq!(
            (readings.host.as_str(), readings.interval_ms),
            ("lab-node01", 200)
        );
        assert!(readings.latest.is_some());

        // The probe goes away: the readings stay, as what it last said, and when.
        let view = view.reduce(ProbeAction::Closed {
            code: 1006,
            reason: String::new(),
        });
        assert_eq!(
            view.freshness(),
            Some(Freshness::Disconnected {
                last_seen_ms: 5_200.0
            })
        );
        assert_eq!(view.readings.as_ref(), Some(&readings));
        // Trying the same address again keeps them; they are live again once it answers.
        let view = view.reduce(ProbeAction::Retry);
        let view = view.reduce(ProbeAction::Connect("ws://127.0.0.1:7878/ws".into()));
        assert!(view.readings.is_some());
        assert!(!view.freshness().expect("readings").is_live());
        let view = view.reduce(ProbeAction::Opened);
        let view = received(view, HELLO, 9_000.0);
        assert_eq!(view.freshness(), Some(Freshness::Live));
        assert_eq!(
            view.readings.as_ref().map(|r| r.latest.is_none()),
            Some(true),
            "a hello starts the readings afresh"
        );

        // Another address: the old probe's readings and report go, before it answers at all.
        let view = received(
            view,
            r#"{"schema_version": 2, "source": "demo", "type": "error", "message": "disk gone"}"#,
            9_100.0,
        );
        assert!(view.error.is_some());
        let view = view.reduce(ProbeAction::Connect("ws://127.0.0.1:9/ws".into()));
        assert_eq!((view.readings.as_ref(), view.error.as_ref()), (None, None));
        assert_eq!(view.freshness(), None);
    }

    #[test]
    fn a_probe_that_goes_quiet_with_its_socket_open_is_not_live() {
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let view = received(view.reduce(ProbeAction::Opened), HELLO, 1_000.0);
        assert_eq!(
            view.readings.as_ref().map(Readings::silence_after_ms),
            Some(3_000)
        );
        let attempt = view.attempt;
        // A wait that began before the last message is out of date.
        let view = received(view, SAMPLE, 1_200.0);
        let view = view.reduce(ProbeAction::Quiet {
            attempt,
            last_seen_ms: 1_000.0,
        });
        assert_eq!(view.freshness(), Some(Freshness::Live));
        let view = view.reduce(ProbeAction::Quiet {
            attempt,
            last_seen_ms: 1_200.0,
        });
        assert_eq!(
            view.freshness(),
            Some(Freshness::Silent {
                last_seen_ms: 1_200.0
            })
        );
        // The next message makes it live again.
        let view = received(view, SAMPLE, 9_000.0);
        assert_eq!(view.freshness(), Some(Freshness::Live));
    }

    #[test]
    fn a_page_served_by_a_probe_stays_with_it() {
        let view = view_at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        assert_eq!(view.url, "ws://127.0.0.1:7878/ws");
        let view = view.reduce(ProbeAction::Opened);
        assert_eq!(
            (view.home, &view.state),
            (Home::Probe, &ConnectionState::Open)
        );
        assert!(!view.needs_a_probe());
        // The probe stops: its reason is shown, and the view waits before trying again.
        let view = view.reduce(ProbeAction::Closed {
            code: 1001,
            reason: "native-probe is stopping".into(),
        });
        assert_eq!(
            view.state,
            ConnectionState::Retrying {
                in_ms: 1000,
                failure: Failure::Closed("native-probe is stopping".into())
            }
        );
        let view = view.reduce(ProbeAction::Retry);
        assert_eq!(view.state, ConnectionState::Connecting);
        let view = fails_with(view, Answer::Nothing);
        assert_eq!(view.home, Home::Probe);
        assert_eq!(view.url, "ws://127.0.0.1:7878/ws");
        assert_eq!(view.last_failure, Some(Failure::NoAnswer));
    }

    #[test]
    fn a_hosted_page_moves_to_the_local_probe_and_names_its_refusal() {
        let view = view_at("https://name.github.io", "https://name.github.io/rdma-lab/");
        assert_eq!(view.url, "wss://name.github.io/rdma-lab/ws");
        // The static host answers, but not as a probe: this is a hosted copy.
        let view = fails_with(view, Answer::Something);
        assert_eq!(view.home, Home::Hosted);
        assert_eq!(view.url, LOCAL_PROBE);
        assert_eq!(view.state, ConnectionState::Connecting);
        assert!(view.needs_a_probe());
        let view = fails_with(view, refused());
        assert_eq!(
            view.state,
            ConnectionState::Retrying {
                in_ms: 1000,
                failure: Failure::Refused {
                    allow_with: Some("--allow-origin https://name.github.io".into())
                }
            }
        );
        // While the next attempt runs, the refusal is still what the view says.
        let view = view.reduce(ProbeAction::Retry);
        assert_eq!(view.state, ConnectionState::Connecting);
        assert!(matches!(view.last_failure, Some(Failure::Refused { .. })));
        // Started again with the flag, it connects on the next attempt.
        let view = view.reduce(ProbeAction::Opened);
        assert_eq!(view.last_failure, None);
        assert_eq!(
            (view.home, &view.state),
            (Home::Hosted, &ConnectionState::Open)
        );
        assert!(!view.needs_a_probe());
    }

    #[test]
    fn a_named_probe_is_tried_alone_and_never_left_for_another() {
        let page = Page::at("http://127.0.0.1:7878", "http://127.0.0.1:7878/live");
        let view = Rc::new(ProbeView::named(page, "ws://127.0.0.1:9001/ws".into()));
        assert_eq!(
            (view.home, view.url.as_str()),
            (Home::Named, "ws://127.0.0.1:9001/ws")
        );
        let view = fails_with(view, Answer::Something);
        assert_eq!(
            (view.home, view.url.as_str()),
            (Home::Named, "ws://127.0.0.1:9001/ws")
        );
        assert!(matches!(view.state, ConnectionState::Retrying { .. }));
        assert!(!view.needs_a_probe());
    }

    #[test]
    fn a_probe_that_served_the_page_but_refuses_its_stream_is_still_home() {
        let view = view_at("http://lab-node01:7878", "http://lab-node01:7878/live");
        let allowed = Answer::Probe(Presence {
            probe: "native-probe".into(),
            origin_allowed: true,
            allow_with: None,
        });
        let view = fails_with(view, allowed);
        assert_eq!(view.home, Home::Probe);
        assert_eq!(view.last_failure, Some(Failure::Declined));
    }

    #[test]
    fn late_answers_and_browser_refusals() {
        let view = view_at("https://name.github.io", "https://name.github.io/");
        let view = fails_with(view, Answer::Nothing);
        let stale = view.attempt - 1;
        // The learner picks another address; the old attempt's answer changes nothing.
        let view = view.reduce(ProbeAction::Connect("ws://box:9000/ws".into()));
        let before = view.clone();
        let view = view.reduce(ProbeAction::Answered {
            attempt: stale,
            answer: refused(),
        });
        assert_eq!(view, before);
        // From https, ws:// to another machine is mixed content: no retrying.
        let view = view.reduce(ProbeAction::Unopenable {
            name: "SecurityError".into(),
            message: "An insecure WebSocket connection may not be initiated from a page loaded over HTTPS.".into(),
        });
        let stopped = ConnectionState::Stopped(Failure::MixedContent);
        assert_eq!(view.state, stopped);
        assert_eq!(view.reduce(ProbeAction::Retry).state, stopped);
    }
}
