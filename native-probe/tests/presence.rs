//! `GET /probe`, which lets a lab page hosted elsewhere tell "the probe refused this site" from
//! "no probe here": the real binary on a real socket, sent requests written by hand so each
//! test controls `Host` and `Origin` exactly.

mod common;

use std::time::Duration;

use common::Probe;
use serde_json::{json, Value};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

impl Probe {
    /// The `Host` a browser sends for `http://127.0.0.1:PORT/`.
    fn own_host(&self) -> String {
        self.addr.to_string()
    }

    /// `METHOD path` with these headers and `Connection: close`.
    async fn request(&self, method: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = format!("{method} {path} HTTP/1.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("Connection: close\r\n\r\n");
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut bytes = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut bytes))
            .await
            .expect("a reply within 10 s")
            .unwrap();
        Reply::parse(&String::from_utf8_lossy(&bytes))
    }

    /// `GET /probe` as a page at `origin` sends it (no `Origin` when `None`).
    async fn ask(&self, origin: Option<&str>) -> Reply {
        let host = self.own_host();
        let mut headers = vec![("Host", host.as_str())];
        headers.extend(origin.map(|o| ("Origin", o)));
        self.request("GET", "/probe", &headers).await
    }
}

#[derive(Debug)]
struct Reply {
    status: u16,
    /// Lowercase names.
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    /// A whole `Connection: close` response; the probe sends these bodies unchunked.
    fn parse(text: &str) -> Reply {
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no response head in {text:?}"));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {head:?}"));
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.to_ascii_lowercase(), value.trim().to_string()))
            .collect();
        Reply {
            status,
            headers,
            body: body.to_string(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("/probe's body is not JSON ({e}): {:?}", self.body))
    }
}

/// The fields that do not depend on the asking page.
fn presence(origin: Value, allowed: bool, allow_with: Value) -> Value {
    json!({
        "probe": "native-probe",
        "version": env!("CARGO_PKG_VERSION"),
        "schema_version": engine::probe::SCHEMA_VERSION,
        "origin": origin,
        "origin_allowed": allowed,
        "allow_with": allow_with,
    })
}

#[tokio::test]
async fn a_refused_origin_is_told_so_with_the_flag_that_admits_it() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    let reply = probe.ask(Some("https://Name.GitHub.io/")).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    // Any page may read it: that is the point of the route.
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    assert_eq!(reply.header("vary"), Some("Origin"));
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.json(),
        presence(
            json!("https://name.github.io"),
            false,
            json!("--allow-origin https://name.github.io")
        )
    );
}

#[tokio::test]
async fn allowed_local_and_originless_requests_are_told_they_pass() {
    let probe = Probe::start("127.0.0.1:0", &["--allow-origin", "https://name.github.io"]);
    let hosted = probe.ask(Some("https://name.github.io")).await;
    assert_eq!(
        hosted.json(),
        presence(json!("https://name.github.io"), true, Value::Null)
    );
    let local = probe.ask(Some("http://localhost:8080")).await;
    assert_eq!(
        local.json(),
        presence(json!("http://localhost:8080"), true, Value::Null)
    );
    // The probe's own page (same origin: browsers send no Origin on a same-origin GET).
    let own = probe.ask(None).await;
    assert_eq!(own.json(), presence(Value::Null, true, Value::Null));
    // Sandboxed and file: pages cannot be allowed, so no flag is suggested.
    let sandboxed = probe.ask(Some("null")).await;
    assert_eq!(
        sandboxed.json(),
        presence(json!("null"), false, Value::Null)
    );
}

#[tokio::test]
async fn the_host_check_still_comes_first() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    let evil = format!("evil.example:{}", probe.addr.port());
    let refused = probe
        .request(
            "GET",
            "/probe",
            &[("Host", &evil), ("Origin", &format!("http://{evil}"))],
        )
        .await;
    assert_eq!(refused.status, 403);
    assert!(
        refused
            .body
            .contains("--allow-host evil.example to allow it"),
        "{refused:?}"
    );
    // No CORS header on a refusal: a rebinding page cannot even read that line.
    assert_eq!(refused.header("access-control-allow-origin"), None);
}

#[tokio::test]
async fn it_needs_no_token_and_gives_none_away() {
    let probe = Probe::start("127.0.0.1:0", &["--token", "s3cret"]);
    let reply = probe.ask(Some("https://name.github.io")).await;
    assert_eq!(reply.status, 200);
    assert!(!reply.body.contains("s3cret"), "{reply:?}");
    assert_eq!(reply.json()["origin_allowed"], false);
}

#[tokio::test]
async fn the_private_network_preflight_is_answered_and_the_route_is_read_only() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    let host = probe.own_host();
    let preflight = probe
        .request(
            "OPTIONS",
            "/probe",
            &[
                ("Host", &host),
                ("Origin", "https://name.github.io"),
                ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Private-Network", "true"),
            ],
        )
        .await;
    assert_eq!(preflight.status, 204, "{preflight:?}");
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        Some("GET")
    );
    assert_eq!(
        preflight.header("access-control-allow-private-network"),
        Some("true")
    );
    // Only the one route opts in to private network access.
    let plain = probe
        .request(
            "OPTIONS",
            "/probe",
            &[("Host", &host), ("Access-Control-Request-Method", "GET")],
        )
        .await;
    assert_eq!(plain.header("access-control-allow-private-network"), None);
    let posted = probe
        .request(
            "POST",
            "/probe",
            &[("Host", &host), ("Content-Length", "0")],
        )
        .await;
    assert_eq!(posted.status, 405);
}
