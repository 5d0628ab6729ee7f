//! A fleet at a glance: one row per host and RDMA port, with the few figures that say whether
//! the port is moving data, under congestion control, or losing packets, each with a short
//! trend. The rows are built from what probes stream ([`Sample`]s over `/ws`) or from what a
//! Prometheus server has scraped from them ([`prometheus`]); the view draws either the same way.

pub mod prometheus;

use std::collections::VecDeque;

use super::{CounterSample, Enumerated, PortSample, Sample};

/// The counters whose rates add up to a port's error rate: packets received in error or
/// dropped, link faults, the RoCE transport's retransmission triggers, and operations that
/// failed or were refused (remote access errors, RNR NAKs, error completions, corrupted
/// packets). The recording rule
/// `instance_device_port:rdma_lab_infiniband_errors:rate1m` sums exactly these (a test in the
/// deploy files checks so). Names as the probe reads them under `counters/` and `hw_counters/`.
pub const ERROR_COUNTERS: [&str; 13] = [
    "port_rcv_errors",
    "port_xmit_discards",
    "symbol_error",
    "link_downed",
    "out_of_sequence",
    "local_ack_timeout_err",
    "packet_seq_err",
    "req_remote_access_errors",
    "resp_remote_access_errors",
    "rnr_nak_retry_err",
    "req_cqe_error",
    "resp_cqe_error",
    "rx_icrc_encapsulated",
];

/// The mlx5 hardware counter of CNPs this port sent as a notification point.
pub const CNP_SENT_COUNTER: &str = "np_cnp_sent";
/// The mlx5 hardware counter of CNPs this port acted on as a reaction point.
pub const CNP_HANDLED_COUNTER: &str = "rp_cnp_handled";

/// Points kept per trend: half a minute at the probe's default one-second interval.
pub const TREND_POINTS: usize = 30;

/// One of the figures in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Figure {
    TxBytes,
    RxBytes,
    CnpSent,
    CnpHandled,
    Errors,
}

/// The unit a figure is counted in, per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Bytes,
    Events,
}

impl Figure {
    pub const ALL: [Figure; 5] = [
        Figure::TxBytes,
        Figure::RxBytes,
        Figure::CnpSent,
        Figure::CnpHandled,
        Figure::Errors,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// A column heading.
    pub fn label(self) -> &'static str {
        match self {
            Figure::TxBytes => "Sent",
            Figure::RxBytes => "Received",
            Figure::CnpSent => "CNPs sent",
            Figure::CnpHandled => "CNPs handled",
            Figure::Errors => "Errors",
        }
    }

    pub fn unit(self) -> Unit {
        match self {
            Figure::TxBytes | Figure::RxBytes => Unit::Bytes,
            _ => Unit::Events,
        }
    }

    /// The counter files this figure is the rate of (the group is in the name: `port_` ones are
    /// under `counters/`, the others under `hw_counters/`), for the view's explanations.
    pub fn counters(self) -> &'static [&'static str] {
        match self {
            Figure::TxBytes => &["port_xmit_data"],
            Figure::RxBytes => &["port_rcv_data"],
            Figure::CnpSent => &[CNP_SENT_COUNTER],
            Figure::CnpHandled => &[CNP_HANDLED_COUNTER],
            Figure::Errors => &ERROR_COUNTERS,
        }
    }

    /// The figure's rate in one sample of a port: `None` when the probe could compute none
    /// (a first reading, a reset, a file the port lacks).
    pub fn of_sample(self, port: &PortSample) -> Option<f64> {
        let rate = |name: &str| {
            port.counters
                .get(name)
                .or_else(|| port.hw_counters.get(name))
                .and_then(|c: &CounterSample| c.per_second)
        };
        match self {
            Figure::TxBytes => port.tx_bytes_per_second,
            Figure::RxBytes => port.rx_bytes_per_second,
            Figure::CnpSent => rate(CNP_SENT_COUNTER),
            Figure::CnpHandled => rate(CNP_HANDLED_COUNTER),
            // As Prometheus' `sum` does: the counters that have a rate, added; none, no rate.
            Figure::Errors => ERROR_COUNTERS
                .iter()
                .filter_map(|name| rate(name))
                .fold(None, |sum, r| Some(sum.unwrap_or(0.0) + r)),
        }
    }
}

/// A figure's latest value and its recent history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trend {
    /// The value now; `None` when the latest reading had none (a gap, not the last value).
    pub latest: Option<f64>,
    /// (seconds since the Unix epoch, value), oldest first, at most [`TREND_POINTS`].
    pub points: VecDeque<(f64, f64)>,
}

impl Trend {
    /// Records `value` at `t`; a missing or non-finite value is a gap in the points.
    pub fn push(&mut self, t: f64, value: Option<f64>) {
        let value = value.filter(|v| v.is_finite());
        self.latest = value;
        if let Some(value) = value {
            super::rolling::push_newest(&mut self.points, (t, value), TREND_POINTS);
        }
    }
}

/// One RDMA port of one host.
#[derive(Debug, Clone, PartialEq)]
pub struct PortRow {
    pub device: String,
    pub port: u32,
    /// The port's logical state (`ports/N/state`), e.g. 4 "ACTIVE".
    pub state: Option<Enumerated>,
    /// One trend per [`Figure`], in [`Figure::ALL`]'s order.
    pub trends: [Trend; 5],
}

impl PortRow {
    pub fn new(device: &str, port: u32) -> PortRow {
        PortRow {
            device: device.to_string(),
            port,
            state: None,
            trends: Default::default(),
        }
    }

    pub fn trend(&self, figure: Figure) -> &Trend {
        &self.trends[figure.index()]
    }

    /// Whether the port is ACTIVE (state 4), the only state in which it carries data.
    pub fn is_active(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.code == PORT_ACTIVE)
    }
}

/// `ports/N/state` code 4, ACTIVE.
pub const PORT_ACTIVE: u32 = 4;

/// The name the kernel prints beside a port state code (`state_name` in
/// `drivers/infiniband/core/sysfs.c`), for a state read as a bare number from Prometheus.
pub fn port_state(code: u32) -> Enumerated {
    let name = match code {
        0 => "NOP",
        1 => "DOWN",
        2 => "INIT",
        3 => "ARMED",
        4 => "ACTIVE",
        5 => "ACTIVE_DEFER",
        _ => "UNKNOWN",
    };
    Enumerated {
        code,
        name: name.to_string(),
    }
}

/// The ports of one host, sorted by device and port.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostPorts {
    pub rows: Vec<PortRow>,
}

impl HostPorts {
    /// Adds a probe's sample: each port's figures join its trends; a port the sample no longer
    /// has is gone (it left the inventory), a new one starts its trends here.
    pub fn record(&mut self, sample: &Sample) {
        let t = sample.timestamp_ms as f64 / 1000.0;
        let mut previous = std::mem::take(&mut self.rows);
        let mut rows: Vec<PortRow> = sample
            .ports
            .iter()
            .map(|port| {
                let mut row = previous
                    .iter()
                    .position(|r| r.device == port.device && r.port == port.port)
                    .map(|i| previous.swap_remove(i))
                    .unwrap_or_else(|| PortRow::new(&port.device, port.port));
                row.state = port.state.clone();
                for figure in Figure::ALL {
                    row.trends[figure.index()].push(t, figure.of_sample(port));
                }
                row
            })
            .collect();
        rows.sort_by(|a, b| (&a.device, a.port).cmp(&(&b.device, b.port)));
        self.rows = rows;
    }

    /// The row of `device` port `port`, made when missing.
    pub fn row_mut(&mut self, device: &str, port: u32) -> &mut PortRow {
        let at = match self
            .rows
            .binary_search_by(|r| (r.device.as_str(), r.port).cmp(&(device, port)))
        {
            Ok(at) => at,
            Err(at) => {
                self.rows.insert(at, PortRow::new(device, port));
                at
            }
        };
        &mut self.rows[at]
    }
}

/// Every host's ports, by host: the table a Prometheus server gives, where the host is the
/// scrape target's `instance` (the probe's `host:port`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fleet {
    /// (host, its ports), sorted by host.
    pub hosts: Vec<(String, HostPorts)>,
}

impl Fleet {
    pub fn host_mut(&mut self, host: &str) -> &mut HostPorts {
        let at = match self.hosts.binary_search_by(|(h, _)| h.as_str().cmp(host)) {
            Ok(at) => at,
            Err(at) => {
                self.hosts
                    .insert(at, (host.to_string(), HostPorts::default()));
                at
            }
        };
        &mut self.hosts[at].1
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::super::{CounterStatus, PortSample};
    use super::*;

    fn counter(per_second: Option<f64>) -> CounterSample {
        CounterSample {
            value: Some(1),
            per_second,
            status: if per_second.is_some() {
                CounterStatus::Ok
            } else {
                CounterStatus::First
            },
        }
    }

    fn port(device: &str, n: u32, tx: Option<f64>, hw: &[(&str, Option<f64>)]) -> PortSample {
        PortSample {
            device: device.into(),
            port: n,
            state: Some(port_state(4)),
            counters: BTreeMap::from([
                ("port_rcv_errors".to_string(), counter(Some(2.0))),
                ("port_xmit_data".to_string(), counter(tx.map(|t| t / 4.0))),
            ]),
            counters_ext: BTreeMap::new(),
            hw_counters: hw
                .iter()
                .map(|(name, rate)| (name.to_string(), counter(*rate)))
                .collect(),
            tx_bytes_per_second: tx,
            rx_bytes_per_second: Some(10.0),
        }
    }

    fn sample(ms: u64, ports: Vec<PortSample>) -> Sample {
        Sample {
            timestamp_ms: ms,
            elapsed_ms: 1000,
            ports,
            netdevs: vec![],
        }
    }

    #[test]
    fn a_samples_figures_are_the_probes_rates_with_errors_summed() {
        let p = port(
            "mlx5_0",
            1,
            Some(800.0),
            &[
                ("np_cnp_sent", Some(5.0)),
                ("rp_cnp_handled", Some(3.0)),
                ("out_of_sequence", Some(1.5)),
                ("packet_seq_err", None),
                // Not in the error set: left out of the sum.
                ("rx_write_requests", Some(100.0)),
            ],
        );
        let figures: Vec<_> = Figure::ALL.iter().map(|f| f.of_sample(&p)).collect();
        assert_eq!(
            figures,
            [Some(800.0), Some(10.0), Some(5.0), Some(3.0), Some(3.5)]
        );
        // No error counter with a rate (a first sample): no rate, not zero.
        let mut first = p.clone();
        first.counters.clear();
        first.hw_counters.clear();
        assert_eq!(Figure::Errors.of_sample(&first), None);
        assert_eq!(Figure::CnpSent.of_sample(&first), None);
    }

    #[test]
    fn rows_follow_the_ports_of_each_sample_and_keep_short_trends() {
        let mut host = HostPorts::default();
        host.record(&sample(
            1_000,
            vec![
                port("mlx5_1", 1, None, &[]),
                port("mlx5_0", 1, Some(4.0), &[]),
            ],
        ));
        let names: Vec<_> = host.rows.iter().map(|r| r.device.as_str()).collect();
        assert_eq!(names, ["mlx5_0", "mlx5_1"], "sorted by device");
        assert!(host.rows[0].is_active());
        // A rate the probe could not compute is a gap, and the latest value is none.
        assert_eq!(host.rows[1].trend(Figure::TxBytes).latest, None);
        assert!(host.rows[1].trend(Figure::TxBytes).points.is_empty());

        for i in 2..=40u64 {
            host.record(&sample(
                i * 1_000,
                vec![port("mlx5_0", 1, Some(i as f64), &[])],
            ));
        }
        assert_eq!(host.rows.len(), 1, "mlx5_1 left the samples");
        let tx = host.rows[0].trend(Figure::TxBytes);
        assert_eq!(tx.latest, Some(40.0));
        assert_eq!(tx.points.len(), TREND_POINTS);
        assert_eq!(tx.points.front(), Some(&(11.0, 11.0)));
        assert_eq!(tx.points.back(), Some(&(40.0, 40.0)));
    }

    #[test]
    fn the_error_set_names_counters_the_lab_explains_once() {
        let mut names = ERROR_COUNTERS.to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ERROR_COUNTERS.len());
        assert_eq!(Figure::Errors.counters(), ERROR_COUNTERS);
        assert_eq!(port_state(4).name, "ACTIVE");
        assert_eq!(port_state(9).name, "UNKNOWN");
    }

    #[test]
    fn fleet_hosts_stay_sorted_and_unique() {
        let mut fleet = Fleet::default();
        fleet.host_mut("b:1").row_mut("mlx5_0", 1);
        fleet.host_mut("a:1").row_mut("mlx5_1", 1);
        fleet.host_mut("a:1").row_mut("mlx5_0", 2);
        fleet.host_mut("a:1").row_mut("mlx5_0", 2).state = Some(port_state(1));
        let hosts: Vec<_> = fleet
            .hosts
            .iter()
            .map(|(h, p)| (h.as_str(), p.rows.len()))
            .collect();
        assert_eq!(hosts, [("a:1", 2), ("b:1", 1)]);
        let a = &fleet.hosts[0].1.rows;
        assert_eq!((a[0].device.as_str(), a[0].port), ("mlx5_0", 2));
        assert!(!a[0].is_active());
    }
}
