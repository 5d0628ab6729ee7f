//! `/ws`: the live counter stream, one sampler shared by every client.
//!
//! Safe by default: a browser page from another site cannot connect (after the `Host` check
//! every route has, see `host`, the handshake's `Origin` must be the probe's own, a localhost
//! origin or one given with `--allow-origin`; otherwise 403), an optional token gates it, at
//! most [`MAX_CLIENTS`] clients are served (503 beyond), a client may send at most
//! [`MAX_INCOMING_BYTES`] per message, and a client that reads too slowly loses its oldest
//! samples (and is told how many) instead of growing the probe's memory.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc, PoisonError, RwLock,
};

use axum::{
    extract::{
        ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade},
        Query, State,
    },
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use engine::probe::{
    doctor::Report, Envelope, Hello, Inventory, Lagged, ProbeMessage, Reading, Source,
    SCHEMA_VERSION,
};
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use tokio::sync::{broadcast, watch, Semaphore};

use super::{host::AllowedHosts, ProbeState};
use crate::sampler::Sampler;

/// Concurrent WebSocket clients; the next one gets 503.
pub const MAX_CLIENTS: usize = 32;
/// The largest message a client may send; the probe expects none, so this is only a guard.
pub const MAX_INCOMING_BYTES: usize = 4 * 1024;
/// Messages queued for all clients together; a client further behind loses the oldest.
pub const QUEUE_MESSAGES: usize = 16;
/// The read buffer of each client. Small because clients send nothing but control frames;
/// tungstenite's default (128 KiB) is cleared on every poll of the socket, once per sample.
const READ_BUFFER_BYTES: usize = MAX_INCOMING_BYTES;
/// Bytes tungstenite may buffer per client before waiting for the socket, and the most it may
/// hold at all (an error, closing the client, beyond that).
const WRITE_BUFFER_BYTES: usize = 64 * 1024;
const MAX_WRITE_BUFFER_BYTES: usize = 4 * 1024 * 1024;
/// Bytes beyond the longest message so far that an encoding starts with room for.
const ENCODING_SLACK_BYTES: usize = 1024;
/// WebSocket close code 1001, "going away" (RFC 6455 section 7.4.1): the server is stopping.
const CLOSE_GOING_AWAY: u16 = 1001;

/// The live side of the probe: what the sampler last saw and the channel it publishes on.
pub struct Live {
    pub source: Source,
    /// The doctor's checks, run once when the probe started; every `hello` carries them.
    pub doctor: Arc<Report>,
    pub host: String,
    pub interval_ms: u64,
    pub allowed_origins: Vec<String>,
    pub token: Option<String>,
    latest: RwLock<Latest>,
    sender: broadcast::Sender<Utf8Bytes>,
    /// The longest message encoded so far, to size the next one's buffer.
    encoded_bytes: AtomicUsize,
    clients: Arc<Semaphore>,
    stopping: watch::Receiver<bool>,
}

/// The sampler's latest view, which `/metrics` and each new client's `hello` read. Shared,
/// not copied: the sampler publishes one every interval.
#[derive(Clone)]
pub struct Latest {
    pub inventory: Arc<Inventory>,
    pub reading: Arc<Reading>,
}

impl Latest {
    /// What `sampler` saw last, shared.
    pub fn of(sampler: &Sampler) -> Latest {
        Latest {
            inventory: Arc::clone(sampler.inventory()),
            reading: Arc::clone(sampler.latest()),
        }
    }
}

pub struct LiveConfig {
    pub source: Source,
    pub doctor: Arc<Report>,
    pub host: String,
    pub interval_ms: u64,
    pub allowed_origins: Vec<String>,
    pub token: Option<String>,
}

impl Live {
    pub fn new(config: LiveConfig, latest: Latest, stopping: watch::Receiver<bool>) -> Live {
        let (sender, _) = broadcast::channel(QUEUE_MESSAGES);
        Live {
            source: config.source,
            doctor: config.doctor,
            host: config.host,
            interval_ms: config.interval_ms,
            allowed_origins: config
                .allowed_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                .collect(),
            token: config.token,
            latest: RwLock::new(latest),
            sender,
            encoded_bytes: AtomicUsize::new(0),
            clients: Arc::new(Semaphore::new(MAX_CLIENTS)),
            stopping,
        }
    }

    /// Whether the server is stopping, or stopped (its stop signal is gone).
    pub fn stopping(&self) -> bool {
        *self.stopping.borrow() || self.stopping.has_changed().is_err()
    }

    pub fn latest(&self) -> Latest {
        self.latest
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records the sampler's newest state and sends its messages to every client.
    pub fn publish(&self, latest: Latest, messages: &[ProbeMessage]) {
        *self.latest.write().unwrap_or_else(PoisonError::into_inner) = latest;
        for message in messages {
            // No subscribers is not an error: nobody is watching right now.
            let _ = self.sender.send(self.encode(message));
        }
    }

    fn encode(&self, message: &ProbeMessage) -> Utf8Bytes {
        let envelope = Envelope {
            schema_version: SCHEMA_VERSION,
            source: self.source,
            message,
        };
        // Room for the largest message lately (a sample is some 20 kB), so the text is not
        // copied over and over as it grows.
        let room = self.encoded_bytes.load(Ordering::Relaxed) + ENCODING_SLACK_BYTES;
        let mut text = Vec::with_capacity(room);
        // Serializing these plain structs cannot fail; should it ever, say so in-band.
        let encoded = serde_json::to_writer(&mut text, &envelope)
            .map_err(|error| error.to_string())
            .and_then(|()| String::from_utf8(text).map_err(|error| error.to_string()));
        match encoded {
            Ok(text) => {
                self.encoded_bytes.fetch_max(text.len(), Ordering::Relaxed);
                text.into()
            }
            Err(error) => format!(
                r#"{{"schema_version":{SCHEMA_VERSION},"type":"error","message":"could not encode a message: {error}"}}"#
            )
            .into(),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct SocketQuery {
    token: Option<String>,
}

pub async fn socket(
    State(state): State<Arc<ProbeState>>,
    Query(query): Query<SocketQuery>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let live = &state.live;
    if !origin_allowed(&headers, &live.allowed_origins, &state.hosts) {
        return origin_refused(&headers);
    }
    if let Some(expected) = &live.token {
        if !query
            .token
            .as_deref()
            .is_some_and(|given| same_secret(given, expected))
        {
            return (StatusCode::UNAUTHORIZED, "a valid ?token= is required\n").into_response();
        }
    }
    let Ok(permit) = live.clients.clone().try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("the probe already serves {MAX_CLIENTS} clients; try again later\n"),
        )
            .into_response();
    };
    let state = state.clone();
    upgrade
        .max_message_size(MAX_INCOMING_BYTES)
        .max_frame_size(MAX_INCOMING_BYTES)
        .read_buffer_size(READ_BUFFER_BYTES)
        .write_buffer_size(WRITE_BUFFER_BYTES)
        .max_write_buffer_size(MAX_WRITE_BUFFER_BYTES)
        .on_upgrade(move |socket| async move {
            serve_client(socket, &state.live).await;
            drop(permit);
        })
}

async fn serve_client(socket: WebSocket, live: &Live) {
    let (mut sink, mut incoming) = socket.split();
    let mut queue = live.sender.subscribe();
    let mut stopping = live.stopping.clone();
    let hello = live.encode(&ProbeMessage::Hello(Hello {
        host: live.host.clone(),
        interval_ms: live.interval_ms,
        inventory: Inventory::clone(&live.latest().inventory),
        doctor: Some(Report::clone(&live.doctor)),
    }));
    let mut next = Some(hello);
    loop {
        if let Some(text) = next.take() {
            tokio::select! {
                _ = stopping.wait_for(|stop| *stop) => break,
                sent = sink.send(Message::Text(text)) => if sent.is_err() { return },
            }
        }
        tokio::select! {
            _ = stopping.wait_for(|stop| *stop) => break,
            message = incoming.next() => match message {
                // The protocol is one-way; pings are answered by the WebSocket layer.
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            queued = queue.recv() => match queued {
                Ok(text) => next = Some(text),
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    next = Some(live.encode(&ProbeMessage::Lagged(Lagged { missed })));
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
    let _ = sink
        .send(Message::Close(Some(CloseFrame {
            code: CLOSE_GOING_AWAY,
            reason: "native-probe is stopping".into(),
        })))
        .await;
}

/// Whether a WebSocket handshake may proceed, by its `Origin`: this stops cross-site
/// WebSocket hijacking, a foreign page opening the stream with the learner's browser. Browsers
/// always send `Origin` on a WebSocket handshake (RFC 6455 section 4.1, item 8), so a request
/// without one is not from a web page and cannot be a cross-site request; `--token` guards
/// those. The probe's own origin passes only with a `Host` the probe answers: under DNS
/// rebinding the attacker's page *is* same-origin, and only its `Host` tells it apart.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String], hosts: &AllowedHosts) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim_end_matches('/').to_ascii_lowercase();
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false; // "null" (sandboxed or file: pages) and anything malformed
    };
    if scheme != "http" && scheme != "https" {
        return false;
    }
    if allowed.contains(&origin) {
        return true;
    }
    if matches!(
        engine::address::host_of(authority),
        "localhost" | "127.0.0.1" | "[::1]"
    ) {
        return true;
    }
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|own| own.eq_ignore_ascii_case(authority) && hosts.check_host(own).is_ok())
}

/// The 403 for a foreign `Origin`, naming the flag that would admit it.
fn origin_refused(headers: &HeaderMap) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .map(|o| String::from_utf8_lossy(o.as_bytes()).into_owned())
        .unwrap_or_default();
    let normalized = origin.trim_end_matches('/').to_ascii_lowercase();
    let web_origin = normalized.starts_with("http://") || normalized.starts_with("https://");
    let advice = if web_origin {
        format!("start the probe with --allow-origin {normalized} to allow it")
    } else {
        "only http(s) pages can be allowed, with --allow-origin ORIGIN".to_string()
    };
    (
        StatusCode::FORBIDDEN,
        [(header::X_CONTENT_TYPE_OPTIONS, "nosniff")],
        format!("native-probe: pages from origin {origin:?} may not open /ws; {advice}\n"),
    )
        .into_response()
}

/// Compares secrets in time that does not depend on where they first differ.
pub fn same_secret(given: &str, expected: &str) -> bool {
    let (given, expected) = (given.as_bytes(), expected.as_bytes());
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(origin: Option<&'static str>, host: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static(host));
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_static(origin));
        }
        headers
    }

    /// A probe on `listen` of a machine named lab-node01.
    fn hosts(listen: &str, allow_host: &[&str]) -> AllowedHosts {
        let allowed = allow_host.iter().map(|h| h.parse().unwrap()).collect();
        AllowedHosts::new(listen.parse().unwrap(), "lab-node01", allowed)
    }

    #[test]
    fn local_and_own_origins_pass_and_foreign_ones_do_not() {
        let none: &[String] = &[];
        let hosts = hosts("0.0.0.0:7878", &[]);
        for origin in [
            "http://localhost:8080",
            "http://127.0.0.1:7878",
            "http://[::1]:3000",
            "https://localhost",
            "http://lab-node01:7878",
            "http://LAB-NODE01:7878/",
        ] {
            assert!(
                origin_allowed(&headers(Some(origin), "lab-node01:7878"), none, &hosts),
                "{origin}"
            );
        }
        for origin in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "null",
            "file://",
            "ws://lab-node01:7878",
            "http://lab-node01:9999",
            "http://10.0.0.9:7878",
        ] {
            assert!(
                !origin_allowed(&headers(Some(origin), "lab-node01:7878"), none, &hosts),
                "{origin}"
            );
        }
        let allowed = ["https://lab.example.org".to_string()];
        assert!(origin_allowed(
            &headers(Some("https://lab.example.org/"), "10.0.0.5:7878"),
            &allowed,
            &hosts
        ));
        assert!(!origin_allowed(
            &headers(
                Some("https://lab.example.org.evil.example"),
                "10.0.0.5:7878"
            ),
            &allowed,
            &hosts
        ));
        assert!(origin_allowed(
            &headers(None, "10.0.0.5:7878"),
            none,
            &hosts
        ));
    }

    #[test]
    fn an_origin_equal_to_its_host_passes_only_when_the_host_is_allowed() {
        let none: &[String] = &[];
        let rebinding = headers(Some("http://evil.example:7878"), "evil.example:7878");
        let on_loopback = hosts("127.0.0.1:7878", &[]);
        assert!(!origin_allowed(&rebinding, none, &on_loopback));
        let beyond = hosts("0.0.0.0:7878", &[]);
        assert!(!origin_allowed(&rebinding, none, &beyond));
        // The machine's own name is answered only beyond loopback.
        let named = headers(Some("http://lab-node01:7878"), "lab-node01:7878");
        assert!(!origin_allowed(&named, none, &on_loopback));
        assert!(origin_allowed(&named, none, &beyond));
        let allowed = hosts("127.0.0.1:7878", &["evil.example"]);
        assert!(origin_allowed(&rebinding, none, &allowed));
    }

    #[test]
    fn a_hosted_page_reaches_a_loopback_probe_with_allow_origin() {
        let allowed = ["https://name.github.io".to_string()];
        let page = headers(Some("https://name.github.io"), "127.0.0.1:7878");
        assert!(origin_allowed(
            &page,
            &allowed,
            &hosts("127.0.0.1:7878", &[])
        ));
        let other = headers(Some("https://other.github.io"), "127.0.0.1:7878");
        assert!(!origin_allowed(
            &other,
            &allowed,
            &hosts("127.0.0.1:7878", &[])
        ));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("s3cret", "s3cret"));
        assert!(!same_secret("s3cre", "s3cret"));
        assert!(!same_secret("s3creT", "s3cret"));
        assert!(!same_secret("", "s3cret"));
    }
}
