//! `/metrics`: the sampler's latest reading in the Prometheus text exposition format
//! (prometheus.io/docs/instrumenting/exposition_formats, format version 0.0.4), named as
//! node_exporter's infiniband, netdev and netclass collectors name the same files, under
//! `rdma_lab_`: base units (bytes, seconds), `_total` on counters, one family per name. The
//! counter names, units and HELP sentences come from `content/data/counters.toml`, the one
//! place the lab explains each counter.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write,
    sync::{Arc, LazyLock},
};

use axum::{
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use engine::probe::{attribute, octets_per_unit, GidEntry, SCHEMA_VERSION};
use serde::{de::IgnoredAny, Deserialize};

use super::{
    live::{same_secret, Latest},
    ProbeState,
};

const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

const COUNTERS_TOML: &str = include_str!("../../../content/data/counters.toml");

/// The family for a `counters/` or `hw_counters/` file the catalogue has no entry for.
const UNNAMED_PORT_COUNTER: &str = "rdma_lab_infiniband_uncatalogued_total";
/// The family for a `statistics/` file the catalogue has no entry for.
const UNNAMED_STATISTIC: &str = "rdma_lab_network_uncatalogued_total";

/// The names the probe gives its own families: a catalogue entry may not take one.
const FIXED_NAMES: &[&str] = &[
    "rdma_lab_probe_info",
    UNNAMED_PORT_COUNTER,
    UNNAMED_STATISTIC,
    "rdma_lab_infiniband_state_id",
    "rdma_lab_infiniband_physical_state_id",
    "rdma_lab_infiniband_rate_bytes_per_second",
    "rdma_lab_infiniband_port_info",
    "rdma_lab_mlx5_cc_param",
    "rdma_lab_network_up",
    "rdma_lab_network_mtu_bytes",
    "rdma_lab_network_speed_bytes",
];

pub async fn scrape(State(state): State<Arc<ProbeState>>, headers: HeaderMap) -> Response {
    if let Some(expected) = &state.live.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if !given.is_some_and(|given| same_secret(given, expected)) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "a bearer token is required (Authorization: Bearer TOKEN)\n",
            )
                .into_response();
        }
    }
    // The catalogue is compiled in and a unit test parses it, so this refusal is for a
    // build that skipped the tests.
    let catalogue = match catalogue() {
        Ok(catalogue) => catalogue,
        Err(message) => {
            return (StatusCode::INTERNAL_SERVER_ERROR, format!("{message}\n")).into_response()
        }
    };
    let source = state.live.source.as_str();
    let body = exposition(catalogue, &state.live.latest(), source, &state.live.host);
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], body).into_response()
}

/// Where a counter file lives, as `group` in counters.toml says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Group {
    /// `ports/<n>/counters/`
    Port,
    /// `ports/<n>/counters_ext/` (mlx4's 64-bit extended port counters)
    #[serde(rename = "port_ext")]
    PortExt,
    /// `ports/<n>/hw_counters/`
    Hw,
    /// `class/net/<if>/statistics/`
    Netdev,
}

impl Group {
    fn as_str(self) -> &'static str {
        match self {
            Group::Port => "port",
            Group::PortExt => "port_ext",
            Group::Hw => "hw",
            Group::Netdev => "netdev",
        }
    }

    fn directory(self) -> &'static str {
        match self {
            Group::Port => "/sys/class/infiniband/<device>/ports/<port>/counters",
            Group::PortExt => "/sys/class/infiniband/<device>/ports/<port>/counters_ext",
            Group::Hw => "/sys/class/infiniband/<device>/ports/<port>/hw_counters",
            Group::Netdev => "/sys/class/net/<interface>/statistics",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Group::Port | Group::PortExt | Group::Hw => "rdma_lab_infiniband_",
            Group::Netdev => "rdma_lab_network_",
        }
    }
}

/// One `[[counter]]` of counters.toml. `topic` and `sources` are the site's (app/build checks
/// them); they are named here only so that an unknown key is still refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    file: String,
    group: Group,
    metric: String,
    unit: String,
    meaning: String,
    #[serde(rename = "topic")]
    _topic: IgnoredAny,
    #[serde(rename = "sources")]
    _sources: IgnoredAny,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CountersFile {
    counter: Vec<Entry>,
}

/// How a file's raw value becomes the metric's value in its base unit.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    /// Multiplied: `port_xmit_data` and `port_rcv_data` count 4-octet words.
    Times(u64),
    /// `hw_counters/lifespan` is in milliseconds; Prometheus' base unit is the second.
    MillisecondsToSeconds,
}

impl Scale {
    fn of(group: Group, file: &str) -> Scale {
        match (group, file) {
            (Group::Hw, "lifespan") => Scale::MillisecondsToSeconds,
            (Group::Port | Group::PortExt, file) => Scale::Times(octets_per_unit(file)),
            _ => Scale::Times(1),
        }
    }

    /// The value as the exposition writes it; `None` when it would not fit.
    fn apply(self, raw: u64) -> Option<String> {
        match self {
            Scale::Times(factor) => raw.checked_mul(factor).map(|v| v.to_string()),
            Scale::MillisecondsToSeconds => Some((raw as f64 / 1000.0).to_string()),
        }
    }

    fn note(self) -> String {
        match self {
            Scale::Times(1) => String::new(),
            Scale::Times(4) => " (4-octet words, multiplied by 4)".into(),
            Scale::Times(factor) => format!(" (multiplied by {factor})"),
            Scale::MillisecondsToSeconds => " (milliseconds, divided by 1000)".into(),
        }
    }
}

/// The metric a named counter file becomes.
#[derive(Debug)]
pub struct Named {
    pub metric: String,
    pub kind: &'static str,
    pub help: String,
    scale: Scale,
}

/// counters.toml, read for `/metrics`: each named file's metric, checked once.
#[derive(Debug)]
pub struct Catalogue(BTreeMap<(Group, String), Named>);

static CATALOGUE: LazyLock<Result<Catalogue, String>> =
    LazyLock::new(|| Catalogue::parse(COUNTERS_TOML));

/// The compiled-in catalogue, parsed on first use.
pub fn catalogue() -> Result<&'static Catalogue, &'static str> {
    CATALOGUE.as_ref().map_err(String::as_str)
}

impl Catalogue {
    /// Parses counters.toml strictly and checks every name: a valid Prometheus name in the
    /// group's namespace, used once, a counter's ending in `_total`.
    pub fn parse(text: &str) -> Result<Catalogue, String> {
        let file: CountersFile =
            toml::from_str(text).map_err(|e| format!("content/data/counters.toml: {e}"))?;
        let mut named = BTreeMap::new();
        let mut metrics: BTreeSet<String> = FIXED_NAMES.iter().map(|n| n.to_string()).collect();
        for entry in file.counter {
            let located = |problem: String| {
                format!(
                    "content/data/counters.toml, counter {:?} ({}): {problem}",
                    entry.file,
                    entry.group.as_str()
                )
            };
            if !is_metric_name(&entry.metric) {
                return Err(located(format!(
                    "metric {:?} is not a lower-case Prometheus name",
                    entry.metric
                )));
            }
            let prefix = entry.group.prefix();
            if !entry.metric.starts_with(prefix) {
                return Err(located(format!(
                    "metric {:?} must start with {prefix}",
                    entry.metric
                )));
            }
            if !metrics.insert(entry.metric.clone()) {
                return Err(located(format!(
                    "metric {:?} is taken already",
                    entry.metric
                )));
            }
            if entry.unit.trim().is_empty() {
                return Err(located("unit is empty".into()));
            }
            let scale = Scale::of(entry.group, &entry.file);
            let kind = if entry.metric.ends_with("_total") {
                "counter"
            } else {
                "gauge"
            };
            // A counter file is monotonic; only a file the probe converts as a setting may be
            // a gauge.
            if kind == "gauge" && scale != Scale::MillisecondsToSeconds {
                return Err(located(format!(
                    "metric {:?} is a counter and must end in _total",
                    entry.metric
                )));
            }
            let help = format!(
                "{}. Unit: {}. From {}/{}{}.",
                entry.meaning.trim_end_matches('.'),
                entry.unit,
                entry.group.directory(),
                entry.file,
                scale.note()
            );
            let key = (entry.group, entry.file.clone());
            let value = Named {
                metric: entry.metric,
                kind,
                help,
                scale,
            };
            if named.insert(key, value).is_some() {
                return Err(located("the file is listed twice".into()));
            }
        }
        Ok(Catalogue(named))
    }

    /// The named metric for a file, if counters.toml has one.
    pub fn get(&self, group: Group, file: &str) -> Option<&Named> {
        self.0.get(&(group, file.to_string()))
    }
}

/// `[a-z_][a-z0-9_]*`: a valid Prometheus metric name (which also allows upper case and `:`,
/// left to rules), lower-case as Prometheus style asks.
fn is_metric_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// One metric family: its help text, type and samples (labels, value).
struct Family {
    help: String,
    kind: &'static str,
    samples: Vec<(Vec<(&'static str, String)>, String)>,
}

#[derive(Default)]
struct Families(BTreeMap<String, Family>);

impl Families {
    fn add(
        &mut self,
        name: &str,
        kind: &'static str,
        help: impl FnOnce() -> String,
        labels: Vec<(&'static str, String)>,
        value: impl ToString,
    ) {
        self.0
            .entry(name.to_string())
            .or_insert_with(|| Family {
                help: help(),
                kind,
                samples: Vec::new(),
            })
            .samples
            .push((labels, value.to_string()));
    }

    /// A counter file's sample: under its catalogue name, or in the group's family for
    /// unnamed files with a `file` label. A value that does not fit once scaled is left out.
    fn counter_file(
        &mut self,
        catalogue: &Catalogue,
        group: Group,
        file: &str,
        mut labels: Vec<(&'static str, String)>,
        raw: u64,
    ) {
        if let Some(named) = catalogue.get(group, file) {
            if let Some(value) = named.scale.apply(raw) {
                self.add(
                    &named.metric,
                    named.kind,
                    || named.help.clone(),
                    labels,
                    value,
                );
            }
            return;
        }
        let (family, help) = match group {
            Group::Port | Group::PortExt | Group::Hw => {
                labels.push(("group", group.as_str().to_string()));
                (UNNAMED_PORT_COUNTER, UNNAMED_PORT_COUNTER_HELP)
            }
            Group::Netdev => (UNNAMED_STATISTIC, UNNAMED_STATISTIC_HELP),
        };
        labels.push(("file", file.to_string()));
        self.add(family, "counter", || help.to_string(), labels, raw);
    }
}

const UNNAMED_PORT_COUNTER_HELP: &str = "A counter file content/data/counters.toml gives no name to (no driver documents it): the raw value of /sys/class/infiniband/<device>/ports/<port>/counters/<file> (group=\"port\"), counters_ext/<file> (group=\"port_ext\") or hw_counters/<file> (group=\"hw\"). Unit: whatever the file counts, unscaled.";
const UNNAMED_STATISTIC_HELP: &str = "An interface statistic content/data/counters.toml gives no name to: the raw value of /sys/class/net/<interface>/statistics/<file>. Unit: whatever the file counts, unscaled.";

/// A port's `rate` ("100 Gb/sec (4X EDR)") in bytes per second: Gb/s × 10^9 / 8.
pub fn rate_bytes_per_second(rate: &str) -> Option<f64> {
    attribute::rate_gbps(rate)
        .ok()
        .map(|gbps| gbps * 125_000_000.0)
}

/// The netdev a port's RoCE GIDs belong to: the `ndevs` of its lowest populated index (the
/// port's own interface; VLAN or macvlan GIDs follow it), `""` when none has one (InfiniBand).
pub fn port_interface(gids: &[GidEntry]) -> String {
    gids.iter()
        .filter(|g| g.ndev.as_deref().is_some_and(|n| !n.is_empty()))
        .min_by_key(|g| g.index)
        .and_then(|g| g.ndev.clone())
        .unwrap_or_default()
}

pub fn exposition(catalogue: &Catalogue, latest: &Latest, source: &str, host: &str) -> String {
    let mut families = Families::default();
    families.add(
        "rdma_lab_probe_info",
        "gauge",
        || "Always 1; the labels say which probe wrote these numbers and where they come from: source=\"live\" is this host's /sys, \"demo\" and \"recorded\" are recordings, not hardware.".into(),
        vec![
            ("version", env!("CARGO_PKG_VERSION").to_string()),
            ("source", source.to_string()),
            ("host", host.to_string()),
            ("schema_version", SCHEMA_VERSION.to_string()),
        ],
        1,
    );
    for device in &latest.inventory.rdma_devices {
        for port in &device.ports {
            let labels = vec![
                ("device", device.name.clone()),
                ("port", port.port.to_string()),
            ];
            if let Some(state) = &port.phys_state {
                families.add(
                    "rdma_lab_infiniband_physical_state_id",
                    "gauge",
                    || "Physical port state code from /sys/class/infiniband/<device>/ports/<port>/phys_state (1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test). Unit: none, a code.".into(),
                    labels.clone(),
                    state.code,
                );
            }
            if let Some(rate) = port.rate.as_deref().and_then(rate_bytes_per_second) {
                families.add(
                    "rdma_lab_infiniband_rate_bytes_per_second",
                    "gauge",
                    || "The port's signalling rate (active width times active speed), from /sys/class/infiniband/<device>/ports/<port>/rate in Gb/s. Unit: bytes per second (Gb/s times 125000000).".into(),
                    labels.clone(),
                    rate,
                );
            }
            if let Some(ms) = port.hw_counters_lifespan_ms {
                families.counter_file(catalogue, Group::Hw, "lifespan", labels.clone(), ms);
            }
            let mut info = labels.clone();
            info.push(("link_layer", port.link_layer.clone().unwrap_or_default()));
            info.push(("rate", port.rate.clone().unwrap_or_default()));
            info.push(("interface", port_interface(&port.gids)));
            families.add(
                "rdma_lab_infiniband_port_info",
                "gauge",
                || "Always 1; link_layer and rate as /sys/class/infiniband/<device>/ports/<port>/link_layer and rate print them, interface the netdev of the port's RoCE GIDs (gid_attrs/ndevs/<lowest index>, empty on InfiniBand).".into(),
                info,
                1,
            );
        }
        for (param, value) in &device.cc_params.values {
            families.add(
                "rdma_lab_mlx5_cc_param",
                "gauge",
                || "An mlx5 DCQCN parameter, from debugfs mlx5/<pci>/cc_params/<param>. Unit: the parameter's own (see the lab's /dcqcn page).".into(),
                vec![("device", device.name.clone()), ("param", param.clone())],
                value,
            );
        }
    }
    for port in &latest.reading.ports {
        let labels = vec![
            ("device", port.device.clone()),
            ("port", port.port.to_string()),
        ];
        if let Some(state) = &port.state {
            families.add(
                "rdma_lab_infiniband_state_id",
                "gauge",
                || "Logical port state code from /sys/class/infiniband/<device>/ports/<port>/state (1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER). Unit: none, a code.".into(),
                labels.clone(),
                state.code,
            );
        }
        let files = [
            (Group::Port, &port.counters),
            (Group::PortExt, &port.counters_ext),
            (Group::Hw, &port.hw_counters),
        ];
        for (group, counters) in files {
            for (file, value) in counters {
                let Some(value) = value else { continue };
                families.counter_file(catalogue, group, file, labels.clone(), *value);
            }
        }
    }
    for netdev in &latest.inventory.netdevs {
        let labels = vec![("interface", netdev.name.clone())];
        if let Some(mtu) = netdev.mtu {
            families.add(
                "rdma_lab_network_mtu_bytes",
                "gauge",
                || "The interface's MTU, from /sys/class/net/<interface>/mtu. Unit: bytes.".into(),
                labels.clone(),
                mtu,
            );
        }
        if let Some(speed) = netdev.speed_mbps {
            // Mb/s to bytes/s: × 10^6 / 8, as node_exporter's netclass collector does.
            families.add(
                "rdma_lab_network_speed_bytes",
                "gauge",
                || "The link's speed, from /sys/class/net/<interface>/speed in Mb/s. Unit: bytes per second (Mb/s times 125000).".into(),
                labels.clone(),
                speed.saturating_mul(125_000),
            );
        }
    }
    for netdev in &latest.reading.netdevs {
        let labels = vec![("interface", netdev.interface.clone())];
        families.add(
            "rdma_lab_network_up",
            "gauge",
            || "1 when /sys/class/net/<interface>/operstate is \"up\", else 0. Unit: none.".into(),
            labels.clone(),
            u8::from(netdev.operstate.as_deref() == Some("up")),
        );
        for (file, value) in &netdev.statistics {
            let Some(value) = value else { continue };
            families.counter_file(catalogue, Group::Netdev, file, labels.clone(), *value);
        }
    }
    render(&families)
}

fn render(families: &Families) -> String {
    let mut out = String::new();
    for (name, family) in &families.0 {
        let _ = writeln!(out, "# HELP {name} {}", escape_help(&family.help));
        let _ = writeln!(out, "# TYPE {name} {}", family.kind);
        for (labels, value) in &family.samples {
            let labels: Vec<String> = labels
                .iter()
                .map(|(key, value)| format!("{key}=\"{}\"", escape_label(value)))
                .collect();
            let _ = writeln!(out, "{name}{{{}}} {value}", labels.join(","));
        }
    }
    out
}

/// HELP text escapes backslash and newline; label values also escape the double quote.
fn escape_help(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\n', "\\n")
}

fn escape_label(text: &str) -> String {
    escape_help(text).replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use std::{fs, path::Path};

    use super::*;
    use crate::sysfs::Trees;

    fn fixture() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"))
    }

    fn fixture_exposition() -> String {
        let trees = Trees::open(&fixture().join("sysfs"), &fixture().join("debugfs")).unwrap();
        let latest = Latest {
            inventory: Arc::new(trees.inventory()),
            reading: Arc::new({ trees }.reading(0)),
        };
        exposition(catalogue().unwrap(), &latest, "recorded", "node01")
    }

    /// File names in each of `pattern`'s directories (`*` one level of names).
    fn files_under(relative: &[&str]) -> BTreeSet<String> {
        let mut dirs = vec![fixture().join("sysfs")];
        for part in relative {
            dirs = dirs
                .into_iter()
                .flat_map(|dir| {
                    if *part == "*" {
                        fs::read_dir(&dir)
                            .unwrap()
                            .map(|e| e.unwrap().path())
                            .collect()
                    } else {
                        vec![dir.join(part)]
                    }
                })
                .filter(|d| d.is_dir())
                .collect();
        }
        assert!(!dirs.is_empty(), "no {relative:?} in the fixture");
        dirs.iter()
            .flat_map(|d| fs::read_dir(d).unwrap())
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    }

    fn metric(group: Group, file: &str) -> &'static str {
        &catalogue()
            .unwrap()
            .get(group, file)
            .unwrap_or_else(|| panic!("{file} has no metric"))
            .metric
    }

    #[test]
    fn the_compiled_in_catalogue_parses() {
        let catalogue = catalogue().unwrap_or_else(|e| panic!("{e}"));
        assert!(catalogue.0.len() > 50);
    }

    #[test]
    fn names_are_node_exporters_under_rdma_lab() {
        let ib = [
            ("port_xmit_data", "port_data_transmitted_bytes_total"),
            ("port_rcv_data", "port_data_received_bytes_total"),
            ("port_xmit_packets", "port_packets_transmitted_total"),
            ("port_rcv_packets", "port_packets_received_total"),
            ("unicast_xmit_packets", "unicast_packets_transmitted_total"),
            ("multicast_rcv_packets", "multicast_packets_received_total"),
            ("port_rcv_errors", "port_errors_received_total"),
            ("port_xmit_discards", "port_discards_transmitted_total"),
            ("symbol_error", "symbol_error_total"),
            ("link_downed", "link_downed_total"),
            ("VL15_dropped", "vl15_dropped_total"),
        ];
        for (file, suffix) in ib {
            assert_eq!(
                metric(Group::Port, file),
                format!("rdma_lab_infiniband_{suffix}")
            );
        }
        let hw = [
            ("np_cnp_sent", "np_cnp_packets_sent_total"),
            ("rp_cnp_handled", "rp_cnp_packets_handled_total"),
            (
                "np_ecn_marked_roce_packets",
                "np_ecn_marked_roce_packets_received_total",
            ),
            ("out_of_sequence", "out_of_sequence_packets_received_total"),
            ("local_ack_timeout_err", "local_ack_timeout_errors_total"),
            ("packet_seq_err", "packet_sequence_errors_total"),
            ("lifespan", "lifespan_seconds"),
            ("req_cqe_error", "req_cqes_errors_total"),
            (
                "resp_remote_access_errors",
                "resp_remote_access_errors_total",
            ),
            ("rnr_nak_retry_err", "rnr_nak_retry_packets_received_total"),
            ("roce_slow_restart", "roce_slow_restart_used_total"),
            ("roce_slow_restart_trans", "roce_slow_restart_total"),
            ("rx_icrc_encapsulated", "rx_icrc_encapsulated_errors_total"),
            ("rx_dct_connect", "rx_dct_connect_requests_total"),
        ];
        for (file, suffix) in hw {
            assert_eq!(
                metric(Group::Hw, file),
                format!("rdma_lab_infiniband_{suffix}")
            );
        }
        assert_eq!(
            metric(Group::Port, "port_rcv_discards"),
            "rdma_lab_infiniband_port_discards_received_total"
        );
        let ext = [
            ("port_xmit_data_64", "legacy_data_transmitted_bytes_total"),
            ("port_rcv_packets_64", "legacy_packets_received_total"),
            (
                "port_multicast_xmit_packets",
                "legacy_multicast_packets_transmitted_total",
            ),
        ];
        for (file, suffix) in ext {
            assert_eq!(
                metric(Group::PortExt, file),
                format!("rdma_lab_infiniband_{suffix}")
            );
        }
        let net = [
            ("rx_bytes", "receive_bytes_total"),
            ("tx_bytes", "transmit_bytes_total"),
            ("rx_packets", "receive_packets_total"),
            ("tx_packets", "transmit_packets_total"),
            ("rx_errors", "receive_errs_total"),
            ("rx_dropped", "receive_drop_total"),
            ("tx_errors", "transmit_errs_total"),
            ("tx_dropped", "transmit_drop_total"),
        ];
        for (file, suffix) in net {
            assert_eq!(
                metric(Group::Netdev, file),
                format!("rdma_lab_network_{suffix}")
            );
        }
        let lifespan = catalogue().unwrap().get(Group::Hw, "lifespan").unwrap();
        assert_eq!(lifespan.kind, "gauge");
        assert_eq!(
            catalogue()
                .unwrap()
                .get(Group::Port, "symbol_error")
                .unwrap()
                .kind,
            "counter"
        );
    }

    #[test]
    fn every_fixture_counter_has_a_metric() {
        let text = fixture_exposition();
        let ports = ["class", "infiniband", "*", "ports", "*"];
        let in_ports = |dir: &str| files_under(&[&ports[..], &[dir]].concat());
        let groups = [
            (Group::Port, in_ports("counters")),
            (Group::Hw, in_ports("hw_counters")),
            (
                Group::Netdev,
                files_under(&["class", "net", "*", "statistics"]),
            ),
        ];
        // The kernel documents every counters/ and statistics/ file, and counters.c every
        // mlx5 hw_counters/ one: each has a name of its own.
        for (group, files) in groups {
            for file in &files {
                let name = metric(group, file);
                assert!(text.contains(&format!("\n{name}{{")), "{name} in /metrics");
            }
        }
        assert!(
            !text.contains(&format!("\n{UNNAMED_PORT_COUNTER}{{")),
            "{text}"
        );
        assert!(
            !text.contains(&format!("\n{UNNAMED_STATISTIC}{{")),
            "{text}"
        );
    }

    #[test]
    fn a_file_no_driver_documents_is_still_exported_raw() {
        let copy = tempfile::tempdir().unwrap();
        lab_tests::probe::copy_tree(&fixture().join("sysfs"), copy.path()).unwrap();
        let hw = copy
            .path()
            .join("class/infiniband/mlx5_0/ports/1/hw_counters");
        fs::write(hw.join("from_a_future_driver"), "7\n").unwrap();
        let trees = Trees::open(copy.path(), &fixture().join("debugfs")).unwrap();
        let latest = Latest {
            inventory: Arc::new(trees.inventory()),
            reading: Arc::new({ trees }.reading(0)),
        };
        let text = exposition(catalogue().unwrap(), &latest, "recorded", "node01");
        let sample = format!("\n{UNNAMED_PORT_COUNTER}{{device=\"mlx5_0\",port=\"1\",group=\"hw\",file=\"from_a_future_driver\"}} 7\n");
        assert!(text.contains(&sample), "{text}");
    }

    #[test]
    fn help_reuses_the_meaning_and_names_file_and_unit() {
        let named = catalogue()
            .unwrap()
            .get(Group::Port, "port_xmit_data")
            .unwrap();
        assert_eq!(
            named.help,
            "Data sent by the port, counted in 4-octet words; the view multiplies by four to show bytes. \
             Unit: bytes. From /sys/class/infiniband/<device>/ports/<port>/counters/port_xmit_data \
             (4-octet words, multiplied by 4)."
        );
        let text = fixture_exposition();
        assert!(text
            .contains("# HELP rdma_lab_network_receive_bytes_total Bytes the interface received"));
        assert!(text.contains("# TYPE rdma_lab_infiniband_lifespan_seconds gauge\n"));
    }

    #[test]
    fn values_are_in_base_units() {
        let text = fixture_exposition();
        let raw = |path: &str| -> u64 {
            fs::read_to_string(
                fixture()
                    .join("sysfs/class/infiniband/mlx5_0/ports/1")
                    .join(path),
            )
            .unwrap()
            .trim()
            .parse()
            .unwrap()
        };
        let labels = "{device=\"mlx5_0\",port=\"1\"}";
        let words = raw("counters/port_xmit_data");
        assert!(text.contains(&format!(
            "\nrdma_lab_infiniband_port_data_transmitted_bytes_total{labels} {}\n",
            words * 4
        )));
        let lifespan_ms = raw("hw_counters/lifespan");
        assert!(text.contains(&format!(
            "\nrdma_lab_infiniband_lifespan_seconds{labels} {}\n",
            lifespan_ms as f64 / 1000.0
        )));
        assert!(text.contains(&format!(
            "\nrdma_lab_infiniband_rate_bytes_per_second{labels} 12500000000\n"
        )));
        assert!(text.contains(
            "\nrdma_lab_infiniband_port_info{device=\"mlx5_0\",port=\"1\",link_layer=\"Ethernet\",rate=\"100 Gb/sec (4X EDR)\",interface=\"ens1f0np0\"} 1\n"
        ));
        assert!(text.contains(&format!(
            "\nrdma_lab_probe_info{{version=\"{}\",source=\"recorded\",host=\"node01\",schema_version=\"{SCHEMA_VERSION}\"}} 1\n",
            env!("CARGO_PKG_VERSION")
        )));
    }

    #[test]
    fn protocol_md_lists_every_family() {
        let protocol = include_str!("../../PROTOCOL.md");
        let named = catalogue().unwrap().0.values().map(|n| n.metric.as_str());
        for name in FIXED_NAMES.iter().copied().chain(named) {
            assert!(
                protocol.contains(&format!("| `{name}` |")),
                "PROTOCOL.md lists {name}"
            );
        }
    }

    #[test]
    fn rate_becomes_bytes_per_second() {
        assert_eq!(rate_bytes_per_second("100 Gb/sec (4X EDR)"), Some(12.5e9));
        assert_eq!(
            rate_bytes_per_second("2.5 Gb/sec (1X SDR)"),
            Some(312_500_000.0)
        );
        assert_eq!(rate_bytes_per_second("400 Gb/sec (4X NDR)\n"), Some(50e9));
        assert_eq!(rate_bytes_per_second("fast"), None);
        assert_eq!(rate_bytes_per_second("100 Mb/sec"), None);
    }

    #[test]
    fn the_interface_is_the_lowest_gids_netdev() {
        let gid = |index, ndev: Option<&str>| GidEntry {
            index,
            gid: String::new(),
            gid_type: None,
            ndev: ndev.map(str::to_string),
            ipv4: None,
        };
        let gids = [
            gid(3, Some("ens1f0np0.100")),
            gid(0, Some("")),
            gid(1, Some("ens1f0np0")),
        ];
        assert_eq!(port_interface(&gids), "ens1f0np0");
        assert_eq!(port_interface(&[gid(0, None)]), "");
    }

    fn entry(file: &str, group: &str, metric: &str) -> String {
        format!(
            "[[counter]]\nfile = \"{file}\"\ngroup = \"{group}\"\nmetric = \"{metric}\"\nunit = \"packets\"\n\
             meaning = \"Something.\"\ntopic = \"/live\"\nsources = []\n"
        )
    }

    #[test]
    fn a_bad_catalogue_is_refused_with_its_entry() {
        let good = entry(
            "symbol_error",
            "port",
            "rdma_lab_infiniband_symbol_error_total",
        );
        assert!(Catalogue::parse(&good).is_ok());
        let cases = [
            (
                format!("{good}colour = \"red\"\n"),
                "unknown field `colour`",
            ),
            (
                entry("x", "port", "rdma_lab_infiniband_X_total"),
                "not a lower-case Prometheus name",
            ),
            (
                entry("x", "netdev", "rdma_lab_infiniband_x_total"),
                "must start with rdma_lab_network_",
            ),
            (
                entry("x", "hw", "rdma_lab_infiniband_x"),
                "must end in _total",
            ),
            (
                entry("x", "hw", "rdma_lab_infiniband_state_id"),
                "taken already",
            ),
            (
                format!(
                    "{good}{}",
                    entry("other", "port", "rdma_lab_infiniband_symbol_error_total")
                ),
                "taken already",
            ),
            (
                entry("x", "disk", "rdma_lab_infiniband_x_total"),
                "unknown variant `disk`",
            ),
        ];
        for (text, expected) in cases {
            let error = Catalogue::parse(&text).unwrap_err();
            assert!(error.contains(expected), "{error}");
            assert!(error.starts_with("content/data/counters.toml"), "{error}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
