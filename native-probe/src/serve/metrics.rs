//! `/metrics`: the sampler's latest reading in the Prometheus text exposition format
//! (prometheus.io/docs/instrumenting/exposition_formats, format version 0.0.4), named by
//! Prometheus conventions: base units (bytes), `_total` on counters, one family per name.

use std::{collections::BTreeMap, fmt::Write, sync::Arc};

use axum::{
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use engine::probe::{octets_per_unit, SCHEMA_VERSION};

use super::{
    live::{same_secret, Latest},
    ProbeState,
};

const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

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
    let source = state.live.source.as_str();
    let body = exposition(&state.live.latest(), source, &state.live.host);
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], body).into_response()
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
        name: String,
        kind: &'static str,
        help: impl FnOnce() -> String,
        labels: Vec<(&'static str, String)>,
        value: impl ToString,
    ) {
        self.0
            .entry(name)
            .or_insert_with(|| Family {
                help: help(),
                kind,
                samples: Vec::new(),
            })
            .samples
            .push((labels, value.to_string()));
    }
}

/// The metric name for an RDMA port counter file. The data counters become bytes (× 4);
/// the `port_` prefix the kernel repeats is dropped.
pub fn port_counter_metric(file: &str) -> String {
    match file {
        "port_xmit_data" => "rdma_port_xmit_bytes_total".to_string(),
        "port_rcv_data" => "rdma_port_rcv_bytes_total".to_string(),
        other => format!(
            "rdma_port_{}_total",
            sanitized(other.strip_prefix("port_").unwrap_or(other))
        ),
    }
}

pub fn hw_counter_metric(file: &str) -> String {
    format!("rdma_port_hw_{}_total", sanitized(file))
}

pub fn netdev_metric(file: &str) -> String {
    format!("netdev_{}_total", sanitized(file))
}

/// Lower-case `[a-z0-9_]`, as metric names allow (and as Prometheus style prefers).
fn sanitized(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

pub fn exposition(latest: &Latest, source: &str, host: &str) -> String {
    let mut families = Families::default();
    families.add(
        "native_probe_info".into(),
        "gauge",
        || "Always 1; the labels say where the numbers come from (source=\"demo\" is a recording, not hardware).".into(),
        vec![
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
                    "rdma_port_phys_state".into(),
                    "gauge",
                    || "Physical port state code (5 = LinkUp), from ports/N/phys_state.".into(),
                    labels.clone(),
                    state.code,
                );
            }
            let mut info = labels.clone();
            info.push(("link_layer", port.link_layer.clone().unwrap_or_default()));
            info.push(("rate", port.rate.clone().unwrap_or_default()));
            families.add(
                "rdma_port_info".into(),
                "gauge",
                || "Always 1; link layer and rate as ports/N/link_layer and ports/N/rate print them.".into(),
                info,
                1,
            );
        }
        for (param, value) in &device.cc_params.values {
            families.add(
                "rdma_mlx5_cc_param".into(),
                "gauge",
                || "mlx5 DCQCN parameter from debugfs mlx5/<pci>/cc_params/<param>.".into(),
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
                "rdma_port_state".into(),
                "gauge",
                || "Logical port state code (4 = ACTIVE), from ports/N/state.".into(),
                labels.clone(),
                state.code,
            );
        }
        for (file, value) in &port.counters {
            let Some(value) = value else { continue };
            let scale = octets_per_unit(file);
            let Some(value) = value.checked_mul(scale) else {
                continue;
            };
            families.add(
                port_counter_metric(file),
                "counter",
                || {
                    if scale == 1 {
                        format!("RDMA port counter ports/N/counters/{file}.")
                    } else {
                        format!("Octets: ports/N/counters/{file} (4-octet words) times {scale}.")
                    }
                },
                labels.clone(),
                value,
            );
        }
        for (file, value) in &port.hw_counters {
            let Some(value) = value else { continue };
            families.add(
                hw_counter_metric(file),
                "counter",
                || format!("RDMA driver counter ports/N/hw_counters/{file}."),
                labels.clone(),
                value,
            );
        }
    }
    for netdev in &latest.inventory.netdevs {
        let labels = vec![("interface", netdev.name.clone())];
        if let Some(mtu) = netdev.mtu {
            families.add(
                "netdev_mtu_bytes".into(),
                "gauge",
                || "Interface MTU, from class/net/IF/mtu.".into(),
                labels.clone(),
                mtu,
            );
        }
        if let Some(speed) = netdev.speed_mbps {
            // Mb/s to bytes/s: × 10^6 / 8.
            families.add(
                "netdev_speed_bytes_per_second".into(),
                "gauge",
                || "Link speed, from class/net/IF/speed (Mb/s) in bytes per second.".into(),
                labels.clone(),
                speed.saturating_mul(125_000),
            );
        }
    }
    for netdev in &latest.reading.netdevs {
        let labels = vec![("interface", netdev.interface.clone())];
        families.add(
            "netdev_up".into(),
            "gauge",
            || "1 when class/net/IF/operstate is \"up\", else 0.".into(),
            labels.clone(),
            u8::from(netdev.operstate.as_deref() == Some("up")),
        );
        for (file, value) in &netdev.statistics {
            let Some(value) = value else { continue };
            families.add(
                netdev_metric(file),
                "counter",
                || format!("Interface counter class/net/IF/statistics/{file}."),
                labels.clone(),
                value,
            );
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
    use super::*;

    #[test]
    fn names_follow_prometheus_conventions() {
        assert_eq!(
            port_counter_metric("port_xmit_data"),
            "rdma_port_xmit_bytes_total"
        );
        assert_eq!(
            port_counter_metric("port_rcv_packets"),
            "rdma_port_rcv_packets_total"
        );
        assert_eq!(
            port_counter_metric("VL15_dropped"),
            "rdma_port_vl15_dropped_total"
        );
        assert_eq!(
            hw_counter_metric("np_cnp_sent"),
            "rdma_port_hw_np_cnp_sent_total"
        );
        assert_eq!(netdev_metric("rx_bytes"), "netdev_rx_bytes_total");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
