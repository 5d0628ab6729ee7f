//! The live side of `native-probe serve` as a page and a Prometheus server meet it: the real
//! binary on an ephemeral port, reading a copy of the recorded fixture.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::Path,
    process::Command,
    time::Duration,
};

use futures_util::{SinkExt, StreamExt};
use lab_tests::{
    loopback::{self, Answer},
    node_exporter::NodeExporter,
    probe::{FixtureSite, Probe as Running},
    sysfs_tree,
};
use serde_json::Value;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::{
    client_async,
    tungstenite::{client::IntoClientRequest, Error as WsError, Message},
    MaybeTlsStream, WebSocketStream,
};

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

/// A running `native-probe serve` on an ephemeral port; stopped when dropped.
struct Probe(Running);

impl Probe {
    /// `serve` over `scratch`'s site and copy of the fixture, with `extra` options.
    fn on(scratch: &FixtureSite, extra: &[&str]) -> Probe {
        Probe(Running::spawn(scratch.serve(
            Path::new(PROBE),
            "127.0.0.1:0",
            extra,
        )))
    }

    /// `serve` with `args` alone.
    fn start(args: &[&str]) -> Probe {
        let mut command = Command::new(PROBE);
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(args);
        Probe(Running::spawn(command))
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    async fn connect(&self, path: &str, origin: Option<&str>) -> Result<Ws, WsError> {
        let stream = TcpStream::connect(self.addr()).await.unwrap();
        self.handshake(stream, path, origin).await
    }

    async fn handshake(
        &self,
        stream: TcpStream,
        path: &str,
        origin: Option<&str>,
    ) -> Result<Ws, WsError> {
        let mut request = format!("ws://{}{path}", self.addr())
            .into_client_request()
            .unwrap();
        if let Some(origin) = origin {
            request
                .headers_mut()
                .insert("origin", origin.parse().unwrap());
        }
        client_async(request, MaybeTlsStream::Plain(stream))
            .await
            .map(|(ws, _)| ws)
    }

    /// `GET /metrics`, off the runtime's thread: the client blocks.
    async fn metrics(&self, token: Option<&str>) -> Answer {
        let addr = self.addr();
        let authorization = token.map(|token| format!("Bearer {token}"));
        tokio::task::spawn_blocking(move || {
            let headers: Vec<_> = authorization
                .iter()
                .map(|value| ("authorization", value.as_str()))
                .collect();
            loopback::get(addr, "/metrics", &headers).unwrap()
        })
        .await
        .unwrap()
    }
}

impl std::ops::Deref for Probe {
    type Target = Running;

    fn deref(&self) -> &Running {
        &self.0
    }
}

impl std::ops::DerefMut for Probe {
    fn deref_mut(&mut self) -> &mut Running {
        &mut self.0
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

async fn next_json(ws: &mut Ws) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("the stream is open")
            .expect("a valid frame");
        if let Message::Text(text) = message {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

/// Reads `ws` until `count` more samples have arrived.
async fn samples_received(ws: &mut Ws, count: usize) {
    let mut seen = 0;
    while seen < count {
        if next_json(ws).await["type"] == "sample" {
            seen += 1;
        }
    }
}

fn status_of(error: WsError) -> u16 {
    match error {
        WsError::Http(response) => response.status().as_u16(),
        other => panic!("expected an HTTP refusal, got {other}"),
    }
}

#[tokio::test]
async fn hello_then_samples_whose_rates_follow_the_counter_files() {
    let scratch = FixtureSite::copied("rates");
    let probe = Probe::on(&scratch, &["--interval-ms", "100"]);
    let mut ws = probe
        .connect("/ws", Some("http://localhost:5173"))
        .await
        .unwrap();

    let hello = next_json(&mut ws).await;
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["schema_version"], 2);
    assert_eq!(
        hello["source"], "recorded",
        "a --sysfs-root tree is not live hardware"
    );
    assert_eq!(hello["interval_ms"], 100);
    let devices = hello["inventory"]["rdma_devices"].as_array().unwrap();
    assert_eq!(devices.len(), 3);
    assert_eq!(devices[0]["ports"][0]["gids"][1]["gid_type"], "RoCE v2");
    // The doctor's checks of the same tree ride on the hello; procfs is this machine's, not
    // the recorded host's, so its checks are skipped unless --procfs-root names one.
    let checks = hello["doctor"]["checks"].as_array().unwrap();
    let by_id = |id: &str| {
        checks
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {checks:#?}"))
    };
    let gid = by_id("roce-gid/mlx5_0/1");
    assert_eq!(gid["status"], "pass");
    assert!(
        gid["title"]
            .as_str()
            .unwrap()
            .contains("GID is index 3: set NCCL_IB_GID_INDEX=3"),
        "{gid:#}"
    );
    let memlock = by_id("memlock");
    assert_eq!(memlock["status"], "skip", "{memlock:#}");
    assert!(memlock["evidence"][0]["value"]
        .as_str()
        .unwrap()
        .contains("--procfs-root was not given"));

    let file = scratch
        .sysfs()
        .join("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data");
    let before: u64 = std::fs::read_to_string(&file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // One million 4-octet words: four million octets.
    std::fs::write(&file, format!("{}\n", before + 1_000_000)).unwrap();
    for _ in 0..50 {
        let message = next_json(&mut ws).await;
        if message["type"] != "sample" {
            continue;
        }
        let port = &message["ports"][0];
        assert_eq!(port["device"], "mlx5_0");
        let xmit = &port["counters"]["port_xmit_data"];
        if xmit["value"] != before + 1_000_000 || xmit["status"] != "ok" {
            continue;
        }
        let per_second = xmit["per_second"].as_f64().unwrap();
        if per_second == 0.0 {
            continue; // a sample after the change: nothing moved since
        }
        let elapsed_s = message["elapsed_ms"].as_f64().unwrap() / 1000.0;
        assert!(
            (per_second * elapsed_s - 4_000_000.0).abs() < 1.0,
            "{per_second} over {elapsed_s} s"
        );
        assert_eq!(port["tx_bytes_per_second"].as_f64(), Some(per_second));
        return;
    }
    panic!("no sample showed the change");
}

#[tokio::test]
async fn foreign_origins_are_refused_and_tokens_are_required_when_set() {
    let scratch = FixtureSite::copied("origin");
    let probe = Probe::on(&scratch, &["--allow-origin", "https://lab.example.org"]);
    let refused = probe
        .connect("/ws", Some("https://evil.example"))
        .await
        .unwrap_err();
    assert_eq!(status_of(refused), 403);
    let own = format!("http://{}", probe.addr());
    for origin in [
        "http://127.0.0.1:9",
        "http://[::1]:8080",
        "https://lab.example.org",
        own.as_str(),
    ] {
        let mut ws = probe
            .connect("/ws", Some(origin))
            .await
            .unwrap_or_else(|e| panic!("{origin}: {e}"));
        assert_eq!(next_json(&mut ws).await["type"], "hello");
    }
    drop(probe);

    let guarded = Probe::on(&scratch, &["--token", "s3cret"]);
    assert_eq!(
        status_of(guarded.connect("/ws", None).await.unwrap_err()),
        401
    );
    assert_eq!(
        status_of(guarded.connect("/ws?token=wrong", None).await.unwrap_err()),
        401
    );
    let mut ws = guarded.connect("/ws?token=s3cret", None).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    assert_eq!(guarded.metrics(None).await.status, 401);
    assert_eq!(guarded.metrics(Some("wrong")).await.status, 401);
    assert_eq!(guarded.metrics(Some("s3cret")).await.status, 200);
}

#[tokio::test]
async fn clients_beyond_the_cap_get_503_and_big_messages_close_the_socket() {
    let scratch = FixtureSite::copied("cap");
    let probe = Probe::on(&scratch, &[]);
    let mut clients = Vec::new();
    for _ in 0..32 {
        clients.push(probe.connect("/ws", None).await.unwrap());
    }
    assert_eq!(
        status_of(probe.connect("/ws", None).await.unwrap_err()),
        503
    );

    let mut ws = clients.pop().unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    ws.send(Message::text("x".repeat(8 * 1024))).await.unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match ws.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
                Some(Ok(_)) => {}
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "an 8 KiB message closes the connection");
    // The slot it held is free again, once the probe has seen the socket close.
    drop(ws);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match probe.connect("/ws", None).await {
            Ok(_) => break,
            Err(error) => {
                let status = status_of(error);
                assert_eq!(status, 503, "only the cap refuses a client");
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the closed client's slot was not freed within 5 s"
                );
            }
        }
    }
}

#[tokio::test]
async fn clients_that_never_read_do_not_grow_the_probe_and_are_told_what_they_missed() {
    let scratch = FixtureSite::copied("slow");
    let probe = Probe::on(&scratch, &["--interval-ms", "100"]);
    let mut sleepers = Vec::new();
    for _ in 0..8 {
        // A small receive window, so the probe's side fills up within seconds.
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket.connect(probe.addr()).await.unwrap();
        sleepers.push(probe.handshake(stream, "/ws", None).await.unwrap());
    }
    // A client that reads: the samples it receives count the probe's intervals.
    let mut watcher = probe.connect("/ws", None).await.unwrap();
    // ~3 s: the sleepers' small windows and the probe's send buffers are full by then.
    samples_received(&mut watcher, 30).await;
    let early = probe.rss_kib();
    samples_received(&mut watcher, 70).await;
    let late = probe.rss_kib();
    // Unbounded per-client queues would hold 8 clients × ~70 samples of ~16 KiB (~9 MiB) by now.
    assert!(
        late < early + 2 * 1024,
        "VmRSS grew from {early} KiB to {late} KiB while clients did not read"
    );

    let ws = &mut sleepers[0];
    for _ in 0..200 {
        let message = next_json(ws).await;
        if message["type"] == "lagged" {
            assert!(message["missed"].as_u64().unwrap() > 0);
            assert_eq!(message["source"], "recorded");
            return;
        }
    }
    panic!("the slow client was never told it lost samples");
}

/// One parsed exposition line.
#[derive(Debug)]
enum Line {
    Help(String, String),
    Type(String, String),
    Sample(String, BTreeMap<String, String>, f64),
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// A strict parser for the subset of the text format the probe writes.
fn parse_line(line: &str) -> Result<Line, String> {
    if let Some(rest) = line.strip_prefix("# HELP ") {
        let (name, text) = rest.split_once(' ').ok_or("HELP without text")?;
        if !valid_name(name) {
            return Err("bad name".into());
        }
        let mut help = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next().ok_or("dangling escape in HELP")? {
                    'n' => help.push('\n'),
                    '\\' => help.push('\\'),
                    other => return Err(format!("bad escape \\{other} in HELP")),
                },
                c => help.push(c),
            }
        }
        return Ok(Line::Help(name.into(), help));
    }
    if let Some(rest) = line.strip_prefix("# TYPE ") {
        let (name, kind) = rest.split_once(' ').ok_or("TYPE without type")?;
        if !["counter", "gauge", "untyped", "summary", "histogram"].contains(&kind) {
            return Err(format!("unknown type {kind}"));
        }
        return valid_name(name)
            .then(|| Line::Type(name.into(), kind.into()))
            .ok_or("bad name".into());
    }
    let name_end = line.find(['{', ' ']).ok_or("no value")?;
    let name = &line[..name_end];
    if !valid_name(name) {
        return Err(format!("bad metric name {name:?}"));
    }
    let mut labels = BTreeMap::new();
    let mut rest = &line[name_end..];
    if let Some(body) = rest.strip_prefix('{') {
        let mut chars = body.char_indices().peekable();
        let end;
        loop {
            let start = chars.peek().map(|&(i, _)| i).ok_or("unterminated labels")?;
            if body[start..].starts_with('}') {
                end = start + 1;
                break;
            }
            let eq = body[start..].find("=\"").ok_or("label without =\"")? + start;
            let key = &body[start..eq];
            if !valid_name(key) || key.starts_with("__") {
                return Err(format!("bad label name {key:?}"));
            }
            while chars.peek().is_some_and(|&(i, _)| i <= eq + 1) {
                chars.next();
            }
            let mut value = String::new();
            loop {
                let (_, c) = chars.next().ok_or("unterminated label value")?;
                match c {
                    '\\' => match chars.next().ok_or("dangling escape")?.1 {
                        'n' => value.push('\n'),
                        '\\' => value.push('\\'),
                        '"' => value.push('"'),
                        other => return Err(format!("bad escape \\{other}")),
                    },
                    '"' => break,
                    '\n' => return Err("raw newline in label".into()),
                    c => value.push(c),
                }
            }
            if labels.insert(key.to_string(), value).is_some() {
                return Err(format!("label {key} twice"));
            }
            match chars.next() {
                Some((_, ',')) => {}
                Some((i, '}')) => {
                    end = i + 1;
                    break;
                }
                other => return Err(format!("unexpected {other:?} after a label")),
            }
        }
        rest = body.get(end..).ok_or("unterminated labels")?;
    }
    let value = rest.strip_prefix(' ').ok_or("no space before value")?;
    let value: f64 = value.parse().map_err(|_| format!("bad value {value:?}"))?;
    Ok(Line::Sample(name.into(), labels, value))
}

type Series = BTreeMap<(String, BTreeMap<String, String>), f64>;

/// A parsed exposition: every series, and each family's HELP text and TYPE.
struct Exposition {
    series: Series,
    help: BTreeMap<String, String>,
    types: BTreeMap<String, String>,
}

impl Exposition {
    /// The family whose HELP says it comes from `<dir>/<file>`.
    fn family_naming(&self, dir: &str, file: &str) -> Option<&str> {
        let path = format!("/{dir}/{file}");
        self.help
            .iter()
            .find(|(_, help)| {
                help.match_indices(&path).any(|(at, _)| {
                    matches!(help[at + path.len()..].chars().next(), Some('.' | ' '))
                })
            })
            .map(|(name, _)| name.as_str())
    }
}

/// Parses a whole exposition, checking family structure: HELP then TYPE before a family's
/// samples, each family in one block, counters named `_total`, no series twice.
fn parse_exposition(text: &str) -> Exposition {
    let mut series = Series::new();
    let mut help = BTreeMap::new();
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut finished = BTreeSet::new();
    let mut current: Option<String> = None;
    for (number, line) in text.lines().enumerate() {
        let parsed =
            parse_line(line).unwrap_or_else(|e| panic!("line {}: {e}: {line:?}", number + 1));
        match parsed {
            Line::Help(name, text) => {
                if let Some(previous) = current.replace(name.clone()) {
                    finished.insert(previous);
                }
                assert!(!finished.contains(&name), "family {name} split");
                assert!(help.insert(name, text).is_none(), "HELP twice");
            }
            Line::Type(name, kind) => {
                assert_eq!(
                    current.as_deref(),
                    Some(name.as_str()),
                    "TYPE after its HELP"
                );
                if kind == "counter" {
                    assert!(name.ends_with("_total"), "{name}");
                }
                assert!(types.insert(name, kind).is_none(), "TYPE twice");
            }
            Line::Sample(name, labels, value) => {
                assert_eq!(
                    current.as_deref(),
                    Some(name.as_str()),
                    "sample in its family"
                );
                assert!(types.contains_key(&name), "{name} has a TYPE");
                assert!(
                    series.insert((name, labels), value).is_none(),
                    "duplicate series"
                );
            }
        }
    }
    Exposition {
        series,
        help,
        types,
    }
}

fn labelled(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[tokio::test]
async fn metrics_parse_and_agree_with_snapshot_json() {
    let scratch = FixtureSite::copied("metrics");
    let probe = Probe::on(&scratch, &[]);
    let response = probe.metrics(None).await;
    assert_eq!(response.status, 200);
    assert!(response
        .field("content-type")
        .starts_with("text/plain; version=0.0.4"));
    let exposition = parse_exposition(&response.text());
    let series = &exposition.series;

    let output = Command::new(PROBE)
        .args(["snapshot", "--json", "--sysfs-root"])
        .arg(scratch.sysfs())
        .arg("--debugfs-root")
        .arg(scratch.debugfs())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let snapshot: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(snapshot["source"], "recorded");
    for key in [
        "schema_version",
        "source",
        "host",
        "inventory",
        "timestamp_ms",
        "ports",
        "netdevs",
    ] {
        assert!(snapshot.get(key).is_some(), "snapshot has {key}");
    }
    let value = |name: &str, labels: &[(&str, &str)]| -> f64 {
        *series
            .get(&(name.to_string(), labelled(labels)))
            .unwrap_or_else(|| panic!("no {name}{labels:?} in /metrics"))
    };

    let ports = snapshot["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 3);
    for port in ports {
        let device = port["device"].as_str().unwrap();
        let number = port["port"].to_string();
        let labels = [("device", device), ("port", number.as_str())];
        let words = port["counters"]["port_xmit_data"].as_u64().unwrap();
        assert_eq!(port["tx_bytes"].as_u64(), Some(words * 4));
        assert_eq!(
            value(
                "rdma_lab_infiniband_port_data_transmitted_bytes_total",
                &labels
            ),
            port["tx_bytes"].as_f64().unwrap()
        );
        assert_eq!(
            value(
                "rdma_lab_infiniband_port_data_received_bytes_total",
                &labels
            ),
            port["rx_bytes"].as_f64().unwrap()
        );
        assert_eq!(
            value(
                "rdma_lab_infiniband_port_packets_transmitted_total",
                &labels
            ),
            port["counters"]["port_xmit_packets"].as_f64().unwrap()
        );
        // Every counter file is exported once with its raw value (the data counters in
        // bytes): under the family whose HELP names the file, or, for a driver counter the
        // lab has no name for, by file name in the generic family.
        let groups = [("counters", "port"), ("hw_counters", "hw")];
        for (dir, group) in groups {
            for (file, raw) in port[dir].as_object().unwrap() {
                let raw = raw.as_f64().unwrap();
                match exposition.family_naming(dir, file) {
                    Some(family) => {
                        let scale = if file.ends_with("_data") { 4.0 } else { 1.0 };
                        assert_eq!(value(family, &labels), raw * scale, "{device} {file}");
                    }
                    None => {
                        assert_eq!(group, "hw", "every counters/ file has a name: {file}");
                        let generic = [
                            ("device", device),
                            ("port", number.as_str()),
                            ("group", group),
                            ("file", file),
                        ];
                        assert_eq!(
                            value("rdma_lab_infiniband_uncatalogued_total", &generic),
                            raw
                        );
                    }
                }
            }
        }
        let state = port["state"]["code"].as_f64().unwrap();
        assert_eq!(value("rdma_lab_infiniband_state_id", &labels), state);
    }
    let first = [("device", "mlx5_0"), ("port", "1")];
    assert_eq!(
        value("rdma_lab_infiniband_np_cnp_packets_sent_total", &first),
        ports[0]["hw_counters"]["np_cnp_sent"].as_f64().unwrap()
    );
    assert_eq!(
        value("rdma_lab_infiniband_rp_cnp_packets_handled_total", &first),
        ports[0]["hw_counters"]["rp_cnp_handled"].as_f64().unwrap()
    );
    let port = &snapshot["inventory"]["rdma_devices"][0]["ports"][0];
    assert_eq!(port["rate"], "100 Gb/sec (4X EDR)");
    assert_eq!(
        value("rdma_lab_infiniband_rate_bytes_per_second", &first),
        100e9 / 8.0
    );
    assert_eq!(
        value("rdma_lab_infiniband_physical_state_id", &first),
        port["phys_state"]["code"].as_f64().unwrap()
    );
    assert_eq!(
        value("rdma_lab_infiniband_lifespan_seconds", &first),
        port["hw_counters_lifespan_ms"].as_f64().unwrap() / 1000.0
    );
    assert_eq!(
        value(
            "rdma_lab_infiniband_port_info",
            &[
                ("device", "mlx5_0"),
                ("port", "1"),
                ("link_layer", "Ethernet"),
                ("rate", "100 Gb/sec (4X EDR)"),
                ("interface", port["gids"][0]["ndev"].as_str().unwrap()),
            ]
        ),
        1.0
    );
    for netdev in snapshot["netdevs"].as_array().unwrap() {
        let labels = [("interface", netdev["interface"].as_str().unwrap())];
        assert_eq!(
            value("rdma_lab_network_receive_bytes_total", &labels),
            netdev["rx_bytes"].as_f64().unwrap()
        );
        assert_eq!(
            value("rdma_lab_network_transmit_bytes_total", &labels),
            netdev["tx_bytes"].as_f64().unwrap()
        );
        assert_eq!(netdev["rx_bytes"], netdev["statistics"]["rx_bytes"]);
        assert_eq!(
            value("rdma_lab_network_receive_errs_total", &labels),
            netdev["statistics"]["rx_errors"].as_f64().unwrap()
        );
        let up = netdev["operstate"] == "up";
        assert_eq!(
            value("rdma_lab_network_up", &labels),
            f64::from(u8::from(up))
        );
    }
    for netdev in snapshot["inventory"]["netdevs"].as_array().unwrap() {
        let labels = [("interface", netdev["name"].as_str().unwrap())];
        assert_eq!(
            value("rdma_lab_network_mtu_bytes", &labels),
            netdev["mtu"].as_f64().unwrap()
        );
        if let Some(mbps) = netdev["speed_mbps"].as_f64() {
            assert_eq!(
                value("rdma_lab_network_speed_bytes", &labels),
                mbps * 125_000.0
            );
        }
    }
    assert_eq!(
        value(
            "rdma_lab_probe_info",
            &[
                ("version", env!("CARGO_PKG_VERSION")),
                ("source", "recorded"),
                ("host", snapshot["host"].as_str().unwrap()),
                ("schema_version", "2")
            ]
        ),
        1.0
    );
    assert_eq!(
        value(
            "rdma_lab_mlx5_cc_param",
            &[("device", "mlx5_0"), ("param", "rp_ai_rate")]
        ),
        snapshot["inventory"]["rdma_devices"][0]["cc_params"]["values"]["rp_ai_rate"]
            .as_f64()
            .unwrap()
    );
}

/// The whole exposition as a strict reader and Prometheus' own linter see it: every family
/// under `rdma_lab_`, typed and explained (its unit and the file it comes from), counters and
/// only counters named `_total`, one label set per family, no series twice.
#[tokio::test]
async fn metrics_are_strict_text_format_and_pass_promtool() {
    let scratch = FixtureSite::copied("metrics-strict");
    let probe = Probe::on(&scratch, &[]);
    let text = probe.metrics(None).await.text();
    let exposition = parse_exposition(&text);
    assert!(
        exposition.types.len() > 60,
        "{} families",
        exposition.types.len()
    );
    for (name, kind) in &exposition.types {
        assert!(name.starts_with("rdma_lab_"), "{name}");
        assert_eq!(
            kind == "counter",
            name.ends_with("_total"),
            "{name} is a {kind}"
        );
        let help = &exposition.help[name];
        assert!(
            help.contains("Unit: ") || help.starts_with("Always 1;"),
            "{name} says its unit: {help}"
        );
        assert!(
            help.contains("/sys/class/")
                || help.contains("debugfs")
                || name == "rdma_lab_probe_info",
            "{name} says where it comes from: {help}"
        );
        let label_sets: BTreeSet<Vec<&String>> = exposition
            .series
            .keys()
            .filter(|(family, _)| family == name)
            .map(|(_, labels)| labels.keys().collect())
            .collect();
        assert_eq!(
            label_sets.len(),
            1,
            "{name} has one label set: {label_sets:?}"
        );
    }

    // Debian's prometheus package brings promtool; the test command installs it.
    let mut lint = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("promtool (Debian's prometheus package) is needed: {e}"));
    use std::io::Write as _;
    lint.stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let output = lint.wait_with_output().unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && report.trim().is_empty(),
        "promtool check metrics: {report}"
    );
}

#[tokio::test]
async fn demo_mode_says_so_on_every_message_and_moves() {
    let scratch = FixtureSite::copied("demo");
    let site = scratch.site().display().to_string();
    let probe = Probe::start(&["--ui", &site, "--demo", "--interval-ms", "100"]);
    let mut ws = probe.connect("/ws", None).await.unwrap();
    let hello = next_json(&mut ws).await;
    assert_eq!(hello["type"], "hello");
    assert_eq!(hello["source"], "demo");
    // The recording's own /proc is checked too, its files shown where a host has them.
    let checks = hello["doctor"]["checks"].as_array().unwrap();
    let memlock = checks.iter().find(|c| c["id"] == "memlock").unwrap();
    assert_eq!(memlock["status"], "pass", "{memlock:#}");
    assert_eq!(memlock["evidence"][0]["path"], "/proc/self/limits");
    let mut moving = false;
    for _ in 0..5 {
        let sample = next_json(&mut ws).await;
        assert_eq!(sample["source"], "demo");
        moving |= sample["ports"][0]["tx_bytes_per_second"]
            .as_f64()
            .is_some_and(|r| r > 0.0);
    }
    assert!(moving, "the demo's busy port carries traffic");
    let metrics = probe.metrics(None).await.text();
    assert!(metrics.contains("source=\"demo\""));
}

#[tokio::test]
async fn sigterm_and_sigint_stop_the_probe_cleanly() {
    use rustix::process::Signal;
    for signal in [Signal::TERM, Signal::INT] {
        let scratch = FixtureSite::copied(&format!("stop-{}", signal.as_raw()));
        // The demo's temporary copy goes here, so the test can see it removed.
        let temporary = scratch.dir().join("tmp");
        std::fs::create_dir(&temporary).unwrap();
        let site = scratch.site().display().to_string();
        let mut command = Command::new(PROBE);
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--ui", &site, "--demo"])
            .args(["--interval-ms", "1000"])
            .env("TMPDIR", &temporary);
        let mut probe = Probe(Running::spawn(command));
        assert_eq!(
            std::fs::read_dir(&temporary).unwrap().count(),
            1,
            "the demo's copy"
        );
        let mut ws = probe.connect("/ws", None).await.unwrap();
        assert_eq!(next_json(&mut ws).await["type"], "hello");

        probe.signal(signal);
        // The client is told, with "going away" (1001), well within one interval.
        let closed = loop {
            let message = tokio::time::timeout(Duration::from_millis(900), ws.next())
                .await
                .expect("a close frame before the next sample would be due");
            match message {
                Some(Ok(Message::Close(frame))) => break frame,
                Some(Ok(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        };
        assert_eq!(closed.map(|f| u16::from(f.code)), Some(1001));
        let status = probe
            .exited_within(Duration::from_secs(1))
            .expect("the probe exits within a second of the signal");
        assert!(status.success(), "{signal:?}: {status}");
        let rest = probe.rest_of_stdout();
        assert!(rest.ends_with("native-probe: stopped\n"), "{rest:?}");
        assert_eq!(
            std::fs::read_dir(&temporary).unwrap().count(),
            0,
            "the demo's copy is removed"
        );
    }
}

#[tokio::test]
async fn a_probe_whose_reader_left_serves_on_and_stops_cleanly() {
    use rustix::process::Signal;
    let scratch = FixtureSite::copied("reader-left");
    // As `native-probe serve | head -1` leaves once it has the URL.
    let mut probe = Probe(Running::spawn_then_close_stdout(scratch.serve(
        Path::new(PROBE),
        "127.0.0.1:0",
        &[],
    )));
    let mut ws = probe.connect("/ws", None).await.unwrap();
    assert_eq!(next_json(&mut ws).await["type"], "hello");
    probe.signal(Signal::INT);
    let status = probe
        .exited_within(Duration::from_secs(2))
        .expect("the probe exits after the signal");
    assert!(status.success(), "{status}");
}

#[test]
fn intervals_below_100_ms_are_refused_with_a_clear_message() {
    let output = Command::new(PROBE)
        .args(["serve", "--interval-ms", "50"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("at least 100 ms"), "{message}");
}

/// Every port counter file the mlx4 and mlx5 drivers expose (`lab_tests::sysfs_tree`), where
/// it sits in that tree: (device, port, directory, file).
fn driver_files() -> Vec<(&'static str, &'static str, &'static str, String)> {
    let own = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let mut files = Vec::new();
    let mut add = |device, port, dir, names: Vec<String>| {
        files.extend(names.into_iter().map(|n| (device, port, dir, n)));
    };
    add("mlx4_0", "1", "counters", own(sysfs_tree::PORT_COUNTERS));
    add(
        "mlx4_0",
        "1",
        "hw_counters",
        own(sysfs_tree::MLX4_DIAG_COUNTERS),
    );
    add(
        "mlx4_0",
        "1",
        "counters_ext",
        own(sysfs_tree::PORT_COUNTERS_EXT),
    );
    let mut mlx5 = own(sysfs_tree::PORT_COUNTERS);
    mlx5.retain(|n| n != "port_rcv_discards");
    add("mlx5_0", "1", "counters", mlx5);
    let mut hw = own(sysfs_tree::MLX5_Q_COUNTERS);
    hw.extend(own(sysfs_tree::MLX5_PORT_ONLY));
    add("mlx5_0", "1", "hw_counters", hw);
    let vport = sysfs_tree::MLX5_Q_COUNTERS
        .iter()
        .map(|n| format!("vport_{n}"))
        .collect();
    add("mlx5_1", "1", "hw_counters", vport);
    files
}

/// Each driver file's family in `ours`: its own (one file per name), a counter, with a sample
/// for the file's port; none left in the uncatalogued family. Returns how many names.
fn assert_every_driver_file_is_named(ours: &Exposition) -> usize {
    let mut names = BTreeMap::new();
    for (device, port, dir, file) in driver_files() {
        let family = ours
            .family_naming(dir, &file)
            .unwrap_or_else(|| panic!("no family says it comes from {dir}/{file}"));
        let path = format!("{dir}/{file}");
        let named = names.entry(family).or_insert_with(|| path.clone());
        assert_eq!(*named, path, "{family} names two files");
        assert_eq!(ours.types[family], "counter", "{family}");
        let labels = labelled(&[("device", device), ("port", port)]);
        assert!(
            ours.series.contains_key(&(family.to_string(), labels)),
            "{family} has no {device} port {port} sample"
        );
    }
    assert!(
        !ours
            .help
            .contains_key("rdma_lab_infiniband_uncatalogued_total"),
        "a driver's file left unnamed"
    );
    // The port with no PMA has its state and rate but no counter; its sibling has them all.
    let port_2: Vec<_> = ours
        .series
        .keys()
        .filter(|(_, labels)| labels.get("device").map(String::as_str) == Some("mlx4_0"))
        .filter(|(_, labels)| labels.get("port").map(String::as_str) == Some("2"))
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(
        port_2.contains(&"rdma_lab_infiniband_state_id"),
        "{port_2:?}"
    );
    assert!(port_2.iter().all(|n| !n.ends_with("_total")), "{port_2:?}");
    // lifespan is a setting: a gauge in seconds, never a counter.
    assert_eq!(
        ours.family_naming("hw_counters", "lifespan"),
        Some("rdma_lab_infiniband_lifespan_seconds")
    );
    assert_eq!(ours.types["rdma_lab_infiniband_lifespan_seconds"], "gauge");
    names.len()
}

/// Every value Debian's node_exporter reports from `sysfs`, checked equal in `ours` (its
/// `node_infiniband_X` as `rdma_lab_infiniband_X`, same labels); returns how many values, and
/// the families they came in.
async fn assert_node_exporters_values(sysfs: &Path, ours: &Exposition) -> (usize, usize) {
    let exporter = NodeExporter::start(sysfs, &["--collector.infiniband"]);
    let version = NodeExporter::version();
    let text = tokio::task::spawn_blocking(move || exporter.metrics())
        .await
        .unwrap();
    assert!(
        text.contains("node_scrape_collector_success{collector=\"infiniband\"} 1"),
        "node_exporter {version} could not read the tree"
    );
    // Only its infiniband families: the rest is node_exporter's own (go_*, process_*).
    let infiniband: String = text
        .lines()
        .filter(|line| line.contains(" node_infiniband_") || line.starts_with("node_infiniband_"))
        .map(|line| format!("{line}\n"))
        .collect();
    let theirs = parse_exposition(&infiniband);
    let mut families = BTreeSet::new();
    let mut compared = 0;
    for ((name, labels), value) in &theirs.series {
        let suffix = name.strip_prefix("node_infiniband_").unwrap();
        // Device-wide text (board_id, firmware_version as labels): not a value to compare.
        if suffix == "info" {
            continue;
        }
        let ours_name = format!("rdma_lab_infiniband_{suffix}");
        let mine = ours.series.get(&(ours_name.clone(), labels.clone()));
        assert_eq!(
            mine,
            Some(value),
            "{ours_name}{labels:?} against node_exporter {version}'s {name}"
        );
        families.insert(suffix);
        compared += 1;
    }
    // What node_exporter reads of this tree: the counters/ and counters_ext/ families (it
    // reads no hw_counters/ before v1.11), every one compared.
    for wanted in [
        "legacy_data_transmitted_bytes_total",
        "legacy_packets_received_total",
        "legacy_multicast_packets_transmitted_total",
        "port_discards_received_total",
        "port_data_transmitted_bytes_total",
        "symbol_error_total",
        "state_id",
    ] {
        assert!(
            families.contains(wanted),
            "{wanted} not compared: {families:?}"
        );
    }
    println!("node_exporter {version}");
    (compared, families.len())
}

/// Issue #38's check: on a tree with every counter file the mlx4 and mlx5 drivers expose, each
/// file is exported under a name of its own with HELP text, none is left in the uncatalogued
/// family, a port whose counters read "N/A (no PMA)" costs only its own values, and every
/// value node_exporter reports from the same tree is the probe's too.
#[tokio::test]
async fn every_driver_counter_has_its_own_name_and_node_exporters_value() {
    let scratch = FixtureSite::every_driver_counter("drivers");
    let probe = Probe::on(&scratch, &[]);
    let ours = parse_exposition(&probe.metrics(None).await.text());
    let named = assert_every_driver_file_is_named(&ours);
    let (values, families) = assert_node_exporters_values(&scratch.sysfs(), &ours).await;
    println!(
        "{named} files named; {values} values in {families} families equal to node_exporter's"
    );

    // Where a port has counters_ext, its bytes are the 64-bit counter's.
    let output = Command::new(PROBE)
        .args(["snapshot", "--json", "--sysfs-root"])
        .arg(scratch.sysfs())
        .output()
        .unwrap();
    let snapshot: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mlx4 = &snapshot["ports"][0];
    assert_eq!(mlx4["device"], "mlx4_0");
    assert_eq!(mlx4["counters"]["port_xmit_data"], u64::from(u32::MAX));
    let wide = mlx4["counters_ext"]["port_xmit_data_64"].as_u64().unwrap();
    assert_eq!(mlx4["tx_bytes"].as_u64(), Some(wide * 4));
}
