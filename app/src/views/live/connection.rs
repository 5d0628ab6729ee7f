//! The WebSocket to the probe: connect, decode the engine's message types, reconnect with
//! backoff when the probe goes away.

use std::{cell::RefCell, rc::Rc};

use engine::probe::{Envelope, Inventory, ProbeMessage, Sample, Source, SCHEMA_VERSION};
use gloo::timers::callback::Timeout;
use gloo::utils::window;
use wasm_bindgen::{closure::Closure, JsCast};
use web_sys::{CloseEvent, MessageEvent, WebSocket};
use yew::prelude::*;

use super::history::History;

const FIRST_RETRY_MS: u32 = 1_000;
const LONGEST_RETRY_MS: u32 = 30_000;

/// A probe address the learner typed, as a WebSocket URL.
pub struct ProbeUrl(pub String);

impl ProbeUrl {
    /// Accepts `host:port`, `http(s)://host:port` or a `ws(s)://` URL; `/ws` is added when
    /// no path is given.
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
        let (host, path) = match rest.split_once('/') {
            Some((host, path)) => (host, format!("/{path}")),
            None => (rest, String::new()),
        };
        if host.is_empty() {
            return Err("The address names no host.".into());
        }
        let path = if path.is_empty() || path == "/" {
            "/ws".to_string()
        } else {
            path
        };
        Ok(ProbeUrl(format!("{scheme}://{host}{path}")))
    }
}

/// The probe that served this page.
pub fn default_probe_url() -> String {
    let location = window().location();
    let scheme = if location.protocol().ok().as_deref() == Some("https:") {
        "wss"
    } else {
        "ws"
    };
    let host = location.host().unwrap_or_else(|_| "127.0.0.1:7878".into());
    format!("{scheme}://{host}/ws")
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionState {
    Connecting,
    Open,
    Retrying { in_ms: u32, reason: String },
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProbeView {
    pub state: ConnectionState,
    pub source: Option<Source>,
    pub host: String,
    pub interval_ms: u64,
    pub inventory: Option<Inventory>,
    pub latest: Option<Sample>,
    pub history: History,
    pub lagged: u64,
    pub error: Option<String>,
    failures: u32,
}

impl Default for ProbeView {
    fn default() -> Self {
        ProbeView {
            state: ConnectionState::Connecting,
            source: None,
            host: String::new(),
            interval_ms: 0,
            inventory: None,
            latest: None,
            history: History::default(),
            lagged: 0,
            error: None,
            failures: 0,
        }
    }
}

pub enum ProbeAction {
    Connecting,
    Opened,
    Received(String),
    Closed { reason: String },
}

impl ProbeView {
    /// How long to wait before the next attempt: doubling from one second, at most thirty.
    fn retry_delay_ms(&self) -> u32 {
        FIRST_RETRY_MS
            .saturating_mul(1 << self.failures.min(5))
            .min(LONGEST_RETRY_MS)
    }

    fn receive(&mut self, text: &str) {
        let envelope: Envelope = match serde_json::from_str(text) {
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
        self.source = Some(envelope.source);
        match envelope.message {
            ProbeMessage::Hello(hello) => {
                self.host = hello.host;
                self.interval_ms = hello.interval_ms;
                self.inventory = Some(hello.inventory);
                self.latest = None;
                self.history = History::default();
            }
            ProbeMessage::Sample(sample) => {
                self.history.record(&sample);
                self.latest = Some(sample);
            }
            ProbeMessage::Change(change) => self.inventory = Some(change.inventory),
            ProbeMessage::Lagged(lagged) => self.lagged += lagged.missed,
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
            ProbeAction::Connecting => next.state = ConnectionState::Connecting,
            ProbeAction::Opened => {
                next.state = ConnectionState::Open;
                next.failures = 0;
                next.error = None;
            }
            ProbeAction::Received(text) => next.receive(&text),
            ProbeAction::Closed { reason } => {
                let in_ms = next.retry_delay_ms();
                next.failures += 1;
                next.state = ConnectionState::Retrying { in_ms, reason };
            }
        }
        Rc::new(next)
    }
}

/// Everything a socket needs kept alive while it is open.
struct Live {
    socket: WebSocket,
    _handlers: Vec<Closure<dyn FnMut(JsValueEvent)>>,
}

type JsValueEvent = wasm_bindgen::JsValue;

/// Connects to `url`, keeps the connection up, and returns what the probe has said.
#[hook]
pub fn use_probe(url: String) -> UseReducerHandle<ProbeView> {
    let view = use_reducer(ProbeView::default);
    // Bumped to reconnect after a close.
    let attempt = use_state(|| 0u32);
    {
        let view = view.clone();
        let attempt = attempt.clone();
        use_effect_with((url, *attempt), move |(url, _)| {
            let retry: Rc<RefCell<Option<Timeout>>> = Rc::default();
            view.dispatch(ProbeAction::Connecting);
            let live = match WebSocket::new(url) {
                Ok(socket) => Some(connect(
                    socket,
                    view.clone(),
                    attempt.clone(),
                    retry.clone(),
                )),
                Err(_) => {
                    view.dispatch(ProbeAction::Closed {
                        reason: format!("{url} is not a valid WebSocket URL"),
                    });
                    None
                }
            };
            move || {
                retry.borrow_mut().take();
                if let Some(live) = live {
                    live.socket.set_onclose(None);
                    live.socket.set_onmessage(None);
                    live.socket.set_onopen(None);
                    let _ = live.socket.close();
                }
            }
        });
    }
    view
}

fn connect(
    socket: WebSocket,
    view: UseReducerHandle<ProbeView>,
    attempt: UseStateHandle<u32>,
    retry: Rc<RefCell<Option<Timeout>>>,
) -> Live {
    let on_open = {
        let view = view.clone();
        Closure::<dyn FnMut(JsValueEvent)>::new(move |_| view.dispatch(ProbeAction::Opened))
    };
    let on_message = {
        let view = view.clone();
        Closure::<dyn FnMut(JsValueEvent)>::new(move |event: JsValueEvent| {
            let text = event
                .dyn_ref::<MessageEvent>()
                .and_then(|m| m.data().as_string());
            if let Some(text) = text {
                view.dispatch(ProbeAction::Received(text));
            }
        })
    };
    let on_close = {
        let view = view.clone();
        Closure::<dyn FnMut(JsValueEvent)>::new(move |event: JsValueEvent| {
            let reason = match event.dyn_ref::<CloseEvent>() {
                Some(close) if close.code() == 1000 => {
                    "the probe closed the connection".to_string()
                }
                Some(close) if !close.reason().is_empty() => close.reason(),
                _ => "no probe answered at that address".to_string(),
            };
            let delay = view.retry_delay_ms();
            view.dispatch(ProbeAction::Closed { reason });
            let attempt = attempt.clone();
            *retry.borrow_mut() = Some(Timeout::new(delay, move || attempt.set(*attempt + 1)));
        })
    };
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
    use super::*;

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
    }

    #[test]
    fn retries_back_off_to_a_ceiling() {
        let mut view = ProbeView::default();
        let mut delays = Vec::new();
        for _ in 0..8 {
            delays.push(view.retry_delay_ms());
            view.failures += 1;
        }
        assert_eq!(delays, [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    }

    #[test]
    fn unreadable_and_foreign_schema_messages_are_reported_not_applied() {
        let mut view = ProbeView::default();
        view.receive("not json");
        assert!(view.error.as_deref().unwrap_or("").contains("cannot read"));
        view.receive(r#"{"schema_version": 99, "source": "live", "type": "lagged", "missed": 3}"#);
        assert!(view
            .error
            .as_deref()
            .unwrap_or("")
            .contains("schema version 99"));
        assert_eq!(view.lagged, 0);
        view.receive(r#"{"schema_version": 2, "source": "demo", "type": "lagged", "missed": 3}"#);
        assert_eq!((view.lagged, view.source), (3, Some(Source::Demo)));
    }
}
