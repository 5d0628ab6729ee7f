//! The messages `native-probe` sends to the lab page, and the counter arithmetic behind them.
//!
//! The probe reads the Linux RDMA and network sysfs trees (kernel
//! `Documentation/ABI/stable/sysfs-class-infiniband`, `Documentation/ABI/testing/sysfs-class-net`)
//! and streams what it reads over a WebSocket. These types are that stream's schema, defined once
//! so the probe (serializing) and the page (deserializing) cannot disagree. The schema is
//! described for people in `native-probe/PROTOCOL.md`.

pub mod attribute;
pub mod counter;
pub mod doctor;
pub mod exercise;
pub mod fleet;
pub mod rolling;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use counter::{CounterStatus, Delta};

/// Bumped whenever a field is renamed or removed or its meaning changes; adding an optional
/// field does not bump it. Version 2: `source` gained `recorded`, and `live` no longer covers
/// a `--sysfs-root` tree.
pub const SCHEMA_VERSION: u32 = 2;

/// Where the numbers come from. A page must never present demo or recorded numbers as this
/// machine's NICs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Read from this machine's own `/sys`.
    Live,
    /// A recorded fixture whose counters the probe advances itself: no hardware involved.
    Demo,
    /// Read from a tree the user pointed `--sysfs-root` at: a recording or a copy of another
    /// machine's `/sys`, read as it is (it changes only when its files do), not this machine's
    /// hardware.
    Recorded,
}

impl Source {
    /// The word used on the wire and in `/metrics` labels.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Live => "live",
            Source::Demo => "demo",
            Source::Recorded => "recorded",
        }
    }
}

/// One message on the WebSocket: the schema version and source ride on every message, the
/// `type` field says which body follows. The probe sends an `Envelope<&ProbeMessage>`, which
/// writes the same text without giving up the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<M = ProbeMessage> {
    pub schema_version: u32,
    pub source: Source,
    #[serde(flatten)]
    pub message: M,
}

impl Envelope {
    /// Reads one message from its JSON text as the page does: the head (`schema_version`,
    /// `source`, `type`) first, then the body that `type` names, each straight from the text
    /// (each skips the other's fields). The derived reader of this flattened, tagged form
    /// first copies every message into serde's intermediate tree and reads each body from
    /// there, which costs each sample a second pass and the page's module tens of kilobytes.
    pub fn from_json(text: &str) -> serde_json::Result<Envelope> {
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case")]
        enum Kind {
            Hello,
            Sample,
            Change,
            Lagged,
            Error,
        }
        #[derive(Deserialize)]
        struct Head {
            schema_version: u32,
            source: Source,
            #[serde(rename = "type")]
            kind: Kind,
        }
        let head: Head = serde_json::from_str(text)?;
        let message = match head.kind {
            Kind::Hello => ProbeMessage::Hello(serde_json::from_str(text)?),
            Kind::Sample => ProbeMessage::Sample(serde_json::from_str(text)?),
            Kind::Change => ProbeMessage::Change(serde_json::from_str(text)?),
            Kind::Lagged => ProbeMessage::Lagged(serde_json::from_str(text)?),
            Kind::Error => ProbeMessage::Error(serde_json::from_str(text)?),
        };
        Ok(Envelope {
            schema_version: head.schema_version,
            source: head.source,
            message,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProbeMessage {
    /// First message on every connection.
    Hello(Hello),
    /// One reading of every counter, with per-second rates since the previous reading.
    Sample(Sample),
    /// Devices, ports or interfaces appeared or disappeared; carries the new inventory.
    Change(Change),
    /// This client fell behind and the oldest queued samples were dropped.
    Lagged(Lagged),
    /// Something the client should show; the stream continues unless the socket closes.
    Error(ProbeError),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The probe's host name, so a page connected to several probes can tell them apart.
    pub host: String,
    /// How often the probe samples, in milliseconds.
    pub interval_ms: u64,
    pub inventory: Inventory,
    /// `native-probe doctor`'s checks of this host, run when the probe started (absent from
    /// probes older than the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doctor: Option<doctor::Report>,
}

/// What hardware the probe sees: RDMA devices with their ports, and network interfaces.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    pub rdma_devices: Vec<RdmaDevice>,
    pub netdevs: Vec<NetDevice>,
}

/// One `/sys/class/infiniband/<name>` device. Every attribute is optional: a file that is
/// missing or unreadable is `null`, never a failure of the whole device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RdmaDevice {
    pub name: String,
    /// `node_guid`, as the kernel prints it: four groups of four hex digits ("0c42:a103:00f2:1a2a").
    pub node_guid: Option<String>,
    /// `sys_image_guid`: equal on every device (PCI function) of one adapter.
    pub sys_image_guid: Option<String>,
    pub fw_ver: Option<String>,
    /// `hca_type`, e.g. "MT4125" (mlx5 prints the PCI device id).
    pub hca_type: Option<String>,
    pub board_id: Option<String>,
    /// `node_type` ("1: CA") split into its code and name.
    pub node_type: Option<Enumerated>,
    pub node_desc: Option<String>,
    /// The PCI address the `device` link points at, e.g. "0000:3b:00.0".
    pub pci_address: Option<String>,
    /// The PCI device's `numa_node`; -1 means the platform does not say.
    pub numa_node: Option<i32>,
    pub ports: Vec<RdmaPort>,
    /// DCQCN parameters from debugfs `mlx5/<pci>/cc_params/` (kernel
    /// `drivers/infiniband/hw/mlx5/cong.c`).
    pub cc_params: CcParams,
}

/// A sysfs value of the form "`<code>: <name>`", e.g. port `state` "4: ACTIVE" or
/// `phys_state` "5: LinkUp" (kernel `drivers/infiniband/core/sysfs.c`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enumerated {
    pub code: u32,
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CcParams {
    /// Parameter file name to value, e.g. "rp_ai_rate" → 5.
    pub values: BTreeMap<String, u32>,
    /// Why `values` is empty, when it is: e.g. debugfs is not mounted or needs root.
    pub unavailable: Option<String>,
}

/// One `ports/<n>` directory of an RDMA device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RdmaPort {
    pub port: u32,
    pub state: Option<Enumerated>,
    pub phys_state: Option<Enumerated>,
    /// `rate` as the kernel prints it, e.g. "100 Gb/sec (4X EDR)".
    pub rate: Option<String>,
    /// The leading number of `rate`, in Gb/s.
    pub rate_gbps: Option<f64>,
    /// "InfiniBand" or "Ethernet" (RoCE).
    pub link_layer: Option<String>,
    /// Local identifier; meaningful on InfiniBand only (0 on RoCE).
    pub lid: Option<u32>,
    pub sm_lid: Option<u32>,
    /// The populated GID table entries, as rdma-core's `show_gids` lists them.
    pub gids: Vec<GidEntry>,
    /// `hw_counters/lifespan`: for how many milliseconds the kernel reuses one reading of the
    /// port's `hw_counters` (a setting, not a counter; absent without `hw_counters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hw_counters_lifespan_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GidEntry {
    pub index: u32,
    /// Eight colon-separated groups of four hex digits, as in `gids/<index>`.
    pub gid: String,
    /// `gid_attrs/types/<index>`: "IB/RoCE v1" or "RoCE v2".
    pub gid_type: Option<String>,
    /// `gid_attrs/ndevs/<index>`: the netdev a RoCE GID belongs to.
    pub ndev: Option<String>,
    /// The IPv4 address of an IPv4-mapped GID (`::ffff:a.b.c.d`, RFC 4291 section 2.5.5.2).
    pub ipv4: Option<String>,
}

/// One `/sys/class/net/<name>` interface.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetDevice {
    pub name: String,
    pub address: Option<String>,
    pub mtu: Option<u32>,
    /// `speed` in Mb/s; `null` when the kernel has none to give (e.g. `lo`, a link that is down).
    pub speed_mbps: Option<u64>,
    pub operstate: Option<String>,
}

/// Raw counter values at one instant: what `native-probe snapshot --json` prints, and what
/// a [`Sample`] is computed from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reading {
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    pub ports: Vec<PortReading>,
    pub netdevs: Vec<NetdevReading>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortReading {
    pub device: String,
    pub port: u32,
    pub state: Option<Enumerated>,
    /// `counters/<name>` raw values; `null` when the file could not be read (or reads
    /// "N/A (no PMA)", as on a port whose device has no performance management agent).
    pub counters: BTreeMap<String, Option<u64>>,
    /// `counters_ext/<name>` raw values: the 64-bit extended port counters mlx4 shows beside
    /// `counters` (e.g. `port_xmit_data_64`); absent on other devices.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters_ext: BTreeMap<String, Option<u64>>,
    /// `hw_counters/<name>` raw values (driver-specific, e.g. mlx5's `np_cnp_sent`).
    pub hw_counters: BTreeMap<String, Option<u64>>,
    /// Octets sent: `port_xmit_data_64` × 4 where `counters_ext` has it, else
    /// `port_xmit_data` × 4 (both count 4-octet words).
    pub tx_bytes: Option<u64>,
    /// Octets received: `port_rcv_data_64` or `port_rcv_data`, × 4.
    pub rx_bytes: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetdevReading {
    pub interface: String,
    pub operstate: Option<String>,
    /// `statistics/<name>` raw values.
    pub statistics: BTreeMap<String, Option<u64>>,
    pub tx_bytes: Option<u64>,
    pub rx_bytes: Option<u64>,
}

/// `native-probe snapshot --json`: one reading with the inventory it belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub schema_version: u32,
    pub source: Source,
    pub host: String,
    pub inventory: Inventory,
    #[serde(flatten)]
    pub reading: Reading,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub timestamp_ms: u64,
    /// Milliseconds since the previous reading: the divisor of every rate in this sample.
    pub elapsed_ms: u64,
    pub ports: Vec<PortSample>,
    pub netdevs: Vec<NetdevSample>,
}

/// One counter: its raw value and its rate over the last interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CounterSample {
    pub value: Option<u64>,
    /// Change per second, in the counter's unit; for `port_xmit_data` and `port_rcv_data`
    /// in octets (words × 4). `null` whenever `status` is not `ok`.
    pub per_second: Option<f64>,
    pub status: CounterStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PortSample {
    pub device: String,
    pub port: u32,
    pub state: Option<Enumerated>,
    pub counters: BTreeMap<String, CounterSample>,
    /// `counters_ext/` (mlx4's 64-bit counters); absent on other devices.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters_ext: BTreeMap<String, CounterSample>,
    pub hw_counters: BTreeMap<String, CounterSample>,
    /// From `port_xmit_data_64` where the port has it, else from `port_xmit_data`.
    pub tx_bytes_per_second: Option<f64>,
    pub rx_bytes_per_second: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetdevSample {
    pub interface: String,
    pub operstate: Option<String>,
    pub statistics: BTreeMap<String, CounterSample>,
    pub tx_bytes_per_second: Option<f64>,
    pub rx_bytes_per_second: Option<f64>,
}

/// Something that appeared or disappeared between two readings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Component {
    RdmaDevice { device: String },
    RdmaPort { device: String, port: u32 },
    Netdev { interface: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub added: Vec<Component>,
    pub removed: Vec<Component>,
    pub inventory: Inventory,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lagged {
    /// How many messages this client lost because it read too slowly.
    pub missed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeError {
    pub message: String,
}

/// The multiplier that turns a counter's unit into octets: `port_xmit_data` and
/// `port_rcv_data` count 4-octet words (kernel `Documentation/ABI/stable/sysfs-class-infiniband`,
/// after the IBTA PortCounters attribute's PortXmitData/PortRcvData).
/// The 64-bit ones in `counters_ext` count the same words (node_exporter multiplies them by 4
/// too, `sysfs/class_infiniband.go` in prometheus/procfs).
pub fn octets_per_unit(counter: &str) -> u64 {
    match counter {
        "port_xmit_data" | "port_rcv_data" | "port_xmit_data_64" | "port_rcv_data_64" => 4,
        _ => 1,
    }
}

/// The `counters_ext` file that counts what the `counters` file `counter` counts, 64 bits
/// wide: where a port has both, the wide one is the one to trust, for the narrow one stops at
/// 2^32 − 1 within seconds at line rate. The pairs are mlx4's `counters_ext`, as
/// prometheus/procfs reads it (`sysfs/class_infiniband.go`: kernels before v4.5 put the 64-bit
/// counters there).
pub fn wider(counter: &str) -> Option<&'static str> {
    Some(match counter {
        "port_xmit_data" => "port_xmit_data_64",
        "port_rcv_data" => "port_rcv_data_64",
        "port_xmit_packets" => "port_xmit_packets_64",
        "port_rcv_packets" => "port_rcv_packets_64",
        "unicast_xmit_packets" => "port_unicast_xmit_packets",
        "unicast_rcv_packets" => "port_unicast_rcv_packets",
        "multicast_xmit_packets" => "port_multicast_xmit_packets",
        "multicast_rcv_packets" => "port_multicast_rcv_packets",
        _ => return None,
    })
}

impl Sample {
    /// The sample between two readings, which must be of the same components at two instants;
    /// a component only in `now` gets status `first`.
    pub fn between(previous: &Reading, now: &Reading) -> Sample {
        let elapsed_ms = now.timestamp_ms.saturating_sub(previous.timestamp_ms);
        let ports = now
            .ports
            .iter()
            .map(|port| {
                let before = previous
                    .ports
                    .iter()
                    .find(|p| p.device == port.device && p.port == port.port);
                PortSample::between(before, port, elapsed_ms)
            })
            .collect();
        let netdevs = now
            .netdevs
            .iter()
            .map(|dev| {
                let before = previous
                    .netdevs
                    .iter()
                    .find(|d| d.interface == dev.interface);
                let statistics = rates(
                    &dev.statistics,
                    before.map(|d| &d.statistics),
                    elapsed_ms,
                    false,
                );
                NetdevSample {
                    interface: dev.interface.clone(),
                    operstate: dev.operstate.clone(),
                    tx_bytes_per_second: statistics.get("tx_bytes").and_then(|c| c.per_second),
                    rx_bytes_per_second: statistics.get("rx_bytes").and_then(|c| c.per_second),
                    statistics,
                }
            })
            .collect();
        Sample {
            timestamp_ms: now.timestamp_ms,
            elapsed_ms,
            ports,
            netdevs,
        }
    }
}

impl PortSample {
    /// One port's sample: `now` against its reading `elapsed_ms` earlier, if there was one.
    fn between(before: Option<&PortReading>, now: &PortReading, elapsed_ms: u64) -> PortSample {
        let counters = rates(&now.counters, before.map(|p| &p.counters), elapsed_ms, true);
        let counters_ext = rates(
            &now.counters_ext,
            before.map(|p| &p.counters_ext),
            elapsed_ms,
            true,
        );
        // The 64-bit counter's rate where the port has one (see `wider`).
        let per_second = |name: &str| {
            wider(name)
                .and_then(|wide| counters_ext.get(wide))
                .or_else(|| counters.get(name))
                .and_then(|c| c.per_second)
        };
        let hw_counters = rates(
            &now.hw_counters,
            before.map(|p| &p.hw_counters),
            elapsed_ms,
            false,
        );
        PortSample {
            device: now.device.clone(),
            port: now.port,
            state: now.state.clone(),
            tx_bytes_per_second: per_second("port_xmit_data"),
            rx_bytes_per_second: per_second("port_rcv_data"),
            counters,
            counters_ext,
            hw_counters,
        }
    }
}

/// Every counter of `now` with its rate since its value in `previous`.
fn rates(
    now: &BTreeMap<String, Option<u64>>,
    previous: Option<&BTreeMap<String, Option<u64>>>,
    elapsed_ms: u64,
    words_are_octets: bool,
) -> BTreeMap<String, CounterSample> {
    now.iter()
        .map(|(name, value)| {
            let before = previous.and_then(|p| p.get(name)).copied().flatten();
            let scale = if words_are_octets {
                octets_per_unit(name)
            } else {
                1
            };
            (
                name.clone(),
                counter::sample(
                    before,
                    *value,
                    elapsed_ms,
                    scale,
                    counter::saturation_limit(name),
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(ms: u64, xmit_words: Option<u64>, np_cnp_sent: u64, rx_bytes: u64) -> Reading {
        Reading {
            timestamp_ms: ms,
            ports: vec![PortReading {
                device: "mlx5_0".into(),
                port: 1,
                counters: BTreeMap::from([("port_xmit_data".into(), xmit_words)]),
                hw_counters: BTreeMap::from([("np_cnp_sent".into(), Some(np_cnp_sent))]),
                ..PortReading::default()
            }],
            netdevs: vec![NetdevReading {
                interface: "eth0".into(),
                statistics: BTreeMap::from([("rx_bytes".into(), Some(rx_bytes))]),
                ..NetdevReading::default()
            }],
        }
    }

    #[test]
    fn each_counter_is_paired_with_its_own_earlier_value() {
        // The earlier reading has names the later one lacks and the other way round.
        let mut before = reading(1_000, Some(5_000), 10, 100);
        let mut after = reading(2_000, Some(6_000), 15, 1_100);
        let hw = |pairs: &[(&str, u64)]| {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), Some(*v)))
                .collect::<BTreeMap<_, _>>()
        };
        before.ports[0].hw_counters = hw(&[("a", 1), ("c", 10), ("e", 100), ("f", 7)]);
        after.ports[0].hw_counters = hw(&[("b", 2), ("c", 13), ("d", 5), ("f", 9)]);
        let rates: BTreeMap<_, _> = Sample::between(&before, &after).ports[0]
            .hw_counters
            .iter()
            .map(|(n, c)| (n.clone(), (c.per_second, c.status)))
            .collect();
        assert_eq!(
            rates,
            BTreeMap::from([
                ("b".into(), (None, CounterStatus::First)),
                ("c".into(), (Some(3.0), CounterStatus::Ok)),
                ("d".into(), (None, CounterStatus::First)),
                ("f".into(), (Some(2.0), CounterStatus::Ok)),
            ])
        );
    }

    #[test]
    fn data_words_become_octets_and_other_counters_keep_their_unit() {
        // 1000 words in half a second = 2000 words/s = 8000 octets/s.
        let sample = Sample::between(
            &reading(1_000, Some(5_000), 10, 100),
            &reading(1_500, Some(6_000), 15, 1_100),
        );
        assert_eq!(sample.elapsed_ms, 500);
        let port = &sample.ports[0];
        assert_eq!(port.tx_bytes_per_second, Some(8_000.0));
        assert_eq!(port.hw_counters["np_cnp_sent"].per_second, Some(10.0));
        assert_eq!(sample.netdevs[0].rx_bytes_per_second, Some(2_000.0));
    }

    #[test]
    fn the_64_bit_data_counter_is_preferred_where_a_port_has_both() {
        // mlx4 beside counters_ext: the 32-bit words counter stuck at 2^32 − 1, the 64-bit
        // one still counting.
        let stuck = Some(u64::from(u32::MAX));
        let mut before = reading(0, stuck, 1, 1);
        let mut after = reading(1_000, stuck, 1, 1);
        let wide = |words: u64| BTreeMap::from([("port_xmit_data_64".to_string(), Some(words))]);
        before.ports[0].counters_ext = wide(10_000_000_000);
        after.ports[0].counters_ext = wide(10_000_000_500);
        let port = &Sample::between(&before, &after).ports[0];
        assert_eq!(
            port.counters["port_xmit_data"].status,
            CounterStatus::Saturated
        );
        assert_eq!(
            port.counters_ext["port_xmit_data_64"].per_second,
            Some(2_000.0)
        );
        assert_eq!(port.tx_bytes_per_second, Some(2_000.0));
        // Without counters_ext the narrow counter is all there is.
        let narrow = Sample::between(
            &reading(0, Some(100), 1, 1),
            &reading(1_000, Some(150), 1, 1),
        );
        assert_eq!(narrow.ports[0].tx_bytes_per_second, Some(200.0));
        assert!(narrow.ports[0].counters_ext.is_empty());
        assert_eq!(wider("port_rcv_packets"), Some("port_rcv_packets_64"));
        assert_eq!(wider("symbol_error"), None);
    }

    #[test]
    fn a_vanished_file_is_unavailable_not_a_failure() {
        let sample = Sample::between(&reading(0, Some(5), 1, 1), &reading(1_000, None, 1, 1));
        let xmit = &sample.ports[0].counters["port_xmit_data"];
        assert_eq!(xmit.status, CounterStatus::Unavailable);
        assert_eq!(xmit.per_second, None);
    }

    #[test]
    fn messages_carry_type_version_and_source_and_round_trip() {
        let message = Envelope {
            schema_version: SCHEMA_VERSION,
            source: Source::Demo,
            message: ProbeMessage::Lagged(Lagged { missed: 3 }),
        };
        let json = serde_json::to_value(&message).unwrap();
        assert_eq!(json["type"], "lagged");
        assert_eq!(json["source"], "demo");
        assert_eq!(json["schema_version"], SCHEMA_VERSION);
        assert_eq!(json["missed"], 3);
        let back: Envelope = serde_json::from_value(json).unwrap();
        assert_eq!(back, message);

        let sample = Envelope {
            schema_version: SCHEMA_VERSION,
            source: Source::Live,
            message: ProbeMessage::Sample(Sample::between(
                &reading(0, Some(u64::MAX - 1), 1, 1),
                &reading(1_000, Some(3), 2, 2),
            )),
        };
        let text = serde_json::to_string(&sample).unwrap();
        let back: Envelope = serde_json::from_str(&text).unwrap();
        assert_eq!(back, sample);
        assert_eq!(Envelope::from_json(&text).unwrap(), sample);
        // What the probe sends: the same text from a borrowed message.
        let borrowed = Envelope {
            schema_version: sample.schema_version,
            source: sample.source,
            message: &sample.message,
        };
        assert_eq!(serde_json::to_string(&borrowed).unwrap(), text);

        for source in [Source::Live, Source::Demo, Source::Recorded] {
            let json = serde_json::to_value(source).unwrap();
            assert_eq!(json, source.as_str());
            assert_eq!(serde_json::from_value::<Source>(json).unwrap(), source);
        }
    }

    #[test]
    fn the_pages_reader_reads_every_message_as_the_derived_one_and_refuses_the_same() {
        let messages = [
            ProbeMessage::Hello(Hello {
                host: "node-a".into(),
                interval_ms: 1000,
                inventory: Inventory::default(),
                doctor: None,
            }),
            ProbeMessage::Change(Change {
                added: vec![Component::RdmaPort {
                    device: "mlx5_0".into(),
                    port: 1,
                }],
                removed: vec![Component::Netdev {
                    interface: "eth1".into(),
                }],
                inventory: Inventory::default(),
            }),
            ProbeMessage::Lagged(Lagged { missed: 7 }),
            ProbeMessage::Error(ProbeError {
                message: "sysfs is gone".into(),
            }),
        ];
        for message in messages {
            let envelope = Envelope {
                schema_version: SCHEMA_VERSION,
                source: Source::Recorded,
                message,
            };
            let text = serde_json::to_string(&envelope).unwrap();
            assert_eq!(Envelope::from_json(&text).unwrap(), envelope, "{text}");
        }
        for bad in [
            r#"{"schema_version":2,"source":"live","type":"gossip"}"#,
            r#"{"schema_version":2,"source":"live","type":"lagged","missed":"many"}"#,
            r#"{"schema_version":2,"source":"nowhere","type":"lagged","missed":1}"#,
            r#"{"schema_version":2,"source":"live","missed":1}"#,
            r#"{"schema_version":2,"source":"live","type":"lagged","missed":1"#,
        ] {
            assert!(serde_json::from_str::<Envelope>(bad).is_err(), "{bad}");
            let error = Envelope::from_json(bad).unwrap_err().to_string();
            assert!(error.contains("column"), "{bad}: {error}");
        }
    }
}
