//! The probe closed to DNS rebinding: the real binary on a real socket, sent requests written
//! by hand, since a DNS-rebinding page's requests differ from the probe's own only in their
//! `Host` (and an HTTP client sets that from the URL).

mod common;

use std::time::Duration;

use common::Probe;
use lab_tests::probe::INDEX;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

impl Probe {
    fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `GET path` with exactly these headers (no Host unless one is given).
    async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = format!("GET {path} HTTP/1.1\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("Connection: close\r\n\r\n");
        self.send(request).await
    }

    /// A WebSocket handshake on `/ws` as a browser writes it.
    async fn handshake(&self, host: &str, origin: Option<&str>) -> Reply {
        let mut headers = vec![
            ("Host", host),
            ("Upgrade", "websocket"),
            ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        let mut request = "GET /ws HTTP/1.1\r\nConnection: Upgrade\r\n".to_string();
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        self.send(request).await
    }

    async fn send(&self, request: String) -> Reply {
        let mut stream = TcpStream::connect(self.addr).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        tokio::time::timeout(Duration::from_secs(10), Reply::read(&mut stream))
            .await
            .expect("a reply within 10 s")
    }
}

/// A response's status line and body (none after a 101: the socket then speaks WebSocket).
#[derive(Debug)]
struct Reply {
    status: u16,
    body: String,
}

impl Reply {
    async fn read(stream: &mut TcpStream) -> Reply {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        let head_end = loop {
            if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                break end + 4;
            }
            let read = stream.read(&mut chunk).await.unwrap();
            assert!(read > 0, "the probe closed before a whole response head");
            bytes.extend_from_slice(&chunk[..read]);
        };
        let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {head:?}"));
        let length = head.lines().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        });
        match (status, length) {
            (101, _) => {}
            // A refused handshake keeps the connection open: read just the body.
            (_, Some(length)) => {
                while bytes.len() < head_end + length {
                    let read = stream.read(&mut chunk).await.unwrap();
                    assert!(read > 0, "the probe closed before the whole body");
                    bytes.extend_from_slice(&chunk[..read]);
                }
            }
            // Connection: close, so the body runs to the end of the stream.
            (_, None) => {
                stream.read_to_end(&mut bytes).await.unwrap();
            }
        }
        Reply {
            status,
            body: String::from_utf8_lossy(&bytes[head_end..]).into_owned(),
        }
    }
}

fn host(name: &str, port: u16) -> String {
    format!("{name}:{port}")
}

#[tokio::test]
async fn a_dns_rebinding_handshake_is_refused() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    let evil = host("evil.example", probe.port());
    let refused = probe
        .handshake(&evil, Some(&format!("http://{evil}")))
        .await;
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.body,
        format!(
            "native-probe: Host \"{evil}\" is not allowed; start the probe with --allow-host evil.example to allow it\n"
        )
    );
}

#[tokio::test]
async fn every_route_refuses_a_foreign_host_naming_allow_host() {
    let probe = Probe::start("127.0.0.1:0", &["--token", "s3cret"]);
    let evil = host("evil.example", probe.port());
    let bearer = ("Authorization", "Bearer s3cret");
    for path in ["/", "/metrics", "/qp", "/app-ffffffffffffffff.js", "/ws"] {
        let refused = probe.get(path, &[("Host", &evil), bearer]).await;
        assert_eq!(refused.status, 403, "{path}");
        assert!(
            refused
                .body
                .contains("--allow-host evil.example to allow it"),
            "{path}: {refused:?}"
        );
        assert_eq!(refused.body.lines().count(), 1, "{path}: one line");
    }
    let own = host("127.0.0.1", probe.port());
    assert_eq!(
        probe
            .get("/metrics", &[("Host", &own), bearer])
            .await
            .status,
        200
    );
    assert_eq!(probe.get("/", &[("Host", &own)]).await.status, 200);
    // The token is still asked for once the Host passed.
    assert_eq!(probe.get("/metrics", &[("Host", &own)]).await.status, 401);

    // No Host, two, or one that is not a host[:port]: refused, saying what to send.
    let strange: [&[(&str, &str)]; 4] = [
        &[],
        &[("Host", &own), ("Host", &evil)],
        &[("Host", "not a host")],
        &[("Host", "127.0.0.1:port")],
    ];
    for headers in strange {
        let refused = probe.get("/metrics", headers).await;
        assert_eq!(refused.status, 403, "{headers:?}");
        assert!(refused.body.contains("--allow-host"), "{refused:?}");
    }
}

#[tokio::test]
async fn loopback_names_on_the_listening_port_pass() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    let port = probe.port();
    for name in ["localhost", "LocalHost", "127.0.0.1", "127.0.0.2", "[::1]"] {
        let given = host(name, port);
        for path in ["/", "/metrics"] {
            let reply = probe.get(path, &[("Host", &given)]).await;
            assert_eq!(reply.status, 200, "{given} {path}: {reply:?}");
        }
    }
    let index = probe.get("/", &[("Host", &host("localhost", port))]).await;
    assert_eq!(index.body, INDEX);
    // Not the machine's own name while it listens on loopback, nor another port.
    let other_port = host("localhost", port.wrapping_add(1));
    for given in [
        machine_name().map(|name| host(&name, port)),
        Some(other_port),
    ]
    .into_iter()
    .flatten()
    {
        let refused = probe.get("/metrics", &[("Host", &given)]).await;
        assert_eq!(refused.status, 403, "{given}");
    }
}

#[tokio::test]
async fn ipv6_loopback_passes_when_the_probe_listens_there() {
    if std::net::TcpListener::bind("[::1]:0").is_err() {
        eprintln!("skipped: this machine has no IPv6 loopback");
        return;
    }
    let probe = Probe::start("[::1]:0", &[]);
    let own = host("[::1]", probe.port());
    assert_eq!(probe.get("/metrics", &[("Host", &own)]).await.status, 200);
    let handshake = probe.handshake(&own, Some(&format!("http://{own}"))).await;
    assert_eq!(handshake.status, 101);
    let evil = host("evil.example", probe.port());
    assert_eq!(probe.get("/", &[("Host", &evil)]).await.status, 403);
}

#[tokio::test]
async fn the_page_the_probe_serves_still_connects() {
    let probe = Probe::start("127.0.0.1:0", &[]);
    for name in ["127.0.0.1", "localhost"] {
        let own = host(name, probe.port());
        let reply = probe.handshake(&own, Some(&format!("http://{own}"))).await;
        assert_eq!(reply.status, 101, "{own}");
    }
    // A client that is no page (no Origin) needs only an allowed Host.
    let own = host("127.0.0.1", probe.port());
    assert_eq!(probe.handshake(&own, None).await.status, 101);
}

#[tokio::test]
async fn allow_host_and_allow_origin_admit_exactly_what_they_name() {
    let probe = Probe::start(
        "127.0.0.1:0",
        &[
            "--allow-host",
            "evil.example",
            "--allow-host",
            "tunnel.example:9000",
            "--allow-origin",
            "https://name.github.io",
        ],
    );
    let port = probe.port();
    let named = host("evil.example", port);
    assert_eq!(probe.get("/metrics", &[("Host", &named)]).await.status, 200);
    assert_eq!(probe.get("/", &[("Host", &named)]).await.status, 200);
    let tunnel = "tunnel.example:9000";
    assert_eq!(probe.get("/metrics", &[("Host", tunnel)]).await.status, 200);
    // Named on purpose, the page at that name is the probe's own.
    let own = probe
        .handshake(&named, Some(&format!("http://{named}")))
        .await;
    assert_eq!(own.status, 101);
    for similar in [
        host("evil.example.com", port),
        host("www.evil.example", port),
        host("evil.example", port.wrapping_add(1)),
        host("tunnel.example", port),
        "evil.example".to_string(),
    ] {
        let refused = probe.get("/metrics", &[("Host", &similar)]).await;
        assert_eq!(refused.status, 403, "{similar}");
    }

    // A hosted lab page connecting to ws://127.0.0.1:PORT/ws.
    let loopback = host("127.0.0.1", port);
    let hosted = probe
        .handshake(&loopback, Some("https://name.github.io"))
        .await;
    assert_eq!(hosted.status, 101);
    for foreign in [
        "https://name.github.io.evil.example",
        "https://other.github.io",
        "http://name.github.io",
        "https://name.github.io:8443",
    ] {
        let refused = probe.handshake(&loopback, Some(foreign)).await;
        assert_eq!(refused.status, 403, "{foreign}");
        assert_eq!(
            refused.body,
            format!(
                "native-probe: pages from origin \"{foreign}\" may not open /ws; start the probe with --allow-origin {foreign} to allow it\n"
            )
        );
    }
    // An Origin equal to a Host only passes for an allowed Host: the Host check comes first.
    let other = host("other.example", port);
    let refused = probe
        .handshake(&other, Some(&format!("http://{other}")))
        .await;
    assert_eq!(refused.status, 403);
    assert!(
        refused.body.contains("--allow-host other.example"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn listening_beyond_loopback_answers_its_addresses_and_its_name() {
    // Bound to every address, reached on 127.0.0.1 only: no traffic leaves the machine.
    let probe = Probe::start("0.0.0.0:0", &[]);
    let port = probe.port();
    let mut answered = vec![
        host("127.0.0.1", port),
        host("localhost", port),
        host("10.1.2.3", port),
        host("[fe80::1]", port),
    ];
    answered.extend(machine_name().map(|name| host(&name, port)));
    for given in &answered {
        let reply = probe.get("/metrics", &[("Host", given)]).await;
        assert_eq!(reply.status, 200, "{given}: {reply:?}");
        let own = probe
            .handshake(given, Some(&format!("http://{given}")))
            .await;
        assert_eq!(own.status, 101, "{given}");
    }
    let evil = host("evil.example", port);
    assert_eq!(probe.get("/", &[("Host", &evil)]).await.status, 403);
    let rebinding = probe
        .handshake(&evil, Some(&format!("http://{evil}")))
        .await;
    assert_eq!(rebinding.status, 403);
    // A page on another machine of the network is not this probe's own page.
    let own = host("10.1.2.3", port);
    let elsewhere = probe
        .handshake(&own, Some(&format!("http://10.9.9.9:{port}")))
        .await;
    assert_eq!(elsewhere.status, 403);
}

/// This machine's host name, as the probe reads it; None if it is not a plain DNS name
/// (or is `localhost`, which every probe answers).
fn machine_name() -> Option<String> {
    let name = hostname::get().ok()?.into_string().ok()?;
    let plain = !name.is_empty()
        && !name.eq_ignore_ascii_case("localhost")
        && name.parse::<std::net::IpAddr>().is_err()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    plain.then_some(name)
}
