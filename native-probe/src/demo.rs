//! `serve --demo`: the recorded fixture, copied to a private temporary directory, with its
//! counters advanced at plausible rates so the page has something to draw on a machine with
//! no RDMA hardware. Every message then says `"source": "demo"`.
//!
//! The copy is the probe's own scratch space; real sysfs and debugfs are never written.

use std::{fs, io, path::PathBuf, time::Duration};

use tempfile::TempDir;

/// One file or link of the embedded fixture.
pub enum Entry {
    File(&'static [u8]),
    Link(&'static str),
}

include!(concat!(env!("OUT_DIR"), "/fixture.rs"));

/// How wide a demo counter is, so the 32-bit ones saturate the way IB port counters do (they
/// stop at all ones; see `engine::probe::counter`).
#[derive(Debug, Clone, Copy)]
enum Width {
    Bits32,
    Bits64,
}

/// Counter files the demo advances, relative to the sysfs root, with a mean rate per second in
/// the counter's own unit (4-octet words for the `_data` counters).
const STREAMS: &[(&str, f64, Width)] = &[
    // mlx5_0: a 100 GbE RoCE port carrying ~74 Gb/s each way (2.3e9 words/s × 32 bits), with
    // DCQCN at work: ECN marks, CNPs sent and handled.
    (
        "class/infiniband/mlx5_0/ports/1/counters/port_xmit_data",
        2.3e9,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/port_rcv_data",
        2.1e9,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/port_xmit_packets",
        2.2e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets",
        2.0e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/unicast_xmit_packets",
        2.2e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/unicast_rcv_packets",
        2.0e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait",
        4.0e4,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets",
        1.7e3,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent",
        1.5e3,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/rp_cnp_handled",
        1.2e3,
        Width::Bits64,
    ),
    // Loss on a lossy hour: the receiver sees gaps (out_of_sequence), the sender gets
    // sequence-error NAKs and resends, and some resent requests arrive twice at the peer (and
    // here, from its retries): retransmissions never outrun the gaps that cause them.
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/out_of_sequence",
        0.5,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/packet_seq_err",
        0.2,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/duplicate_request",
        0.2,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_0/ports/1/hw_counters/rx_write_requests",
        2.0e6,
        Width::Bits64,
    ),
    // mlx5_1: counters recorded as 32-bit and near 2^32, so they reach 2^32 − 1 within
    // seconds and stay there (2.5e8 words/s is 1 GB/s; a 32-bit word counter fills in ~17 s),
    // the case the legacy PortCounters attribute shows on a busy port.
    (
        "class/infiniband/mlx5_1/ports/1/counters/port_xmit_data",
        2.5e8,
        Width::Bits32,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/counters/port_rcv_data",
        2.0e8,
        Width::Bits32,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/counters/port_xmit_packets",
        2.4e5,
        Width::Bits32,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/counters/port_rcv_packets",
        1.9e5,
        Width::Bits32,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/counters/unicast_xmit_packets",
        2.4e5,
        Width::Bits32,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/counters/unicast_rcv_packets",
        1.9e5,
        Width::Bits32,
    ),
    // A CNP answers an ECN-marked packet (at most one per mark, fewer under the CNP
    // interval), so marks arrive at least as fast as CNPs leave.
    (
        "class/infiniband/mlx5_1/ports/1/hw_counters/np_ecn_marked_roce_packets",
        24.0,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/hw_counters/np_cnp_sent",
        20.0,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_1/ports/1/hw_counters/rp_cnp_handled",
        15.0,
        Width::Bits64,
    ),
    // mlx5_2: an HDR InfiniBand port at ~144 Gb/s of its 200.
    (
        "class/infiniband/mlx5_2/ports/1/counters/port_xmit_data",
        4.5e9,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_2/ports/1/counters/port_rcv_data",
        4.4e9,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_2/ports/1/counters/port_xmit_packets",
        4.4e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_2/ports/1/counters/port_rcv_packets",
        4.3e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_2/ports/1/counters/unicast_xmit_packets",
        4.4e6,
        Width::Bits64,
    ),
    (
        "class/infiniband/mlx5_2/ports/1/counters/unicast_rcv_packets",
        4.3e6,
        Width::Bits64,
    ),
    // Ordinary IP traffic on the netdevs.
    ("class/net/eth0/statistics/rx_bytes", 1.2e5, Width::Bits64),
    ("class/net/eth0/statistics/tx_bytes", 4.0e4, Width::Bits64),
    ("class/net/eth0/statistics/rx_packets", 90.0, Width::Bits64),
    ("class/net/eth0/statistics/tx_packets", 60.0, Width::Bits64),
    (
        "class/net/ens1f0np0/statistics/rx_bytes",
        6.0e4,
        Width::Bits64,
    ),
    (
        "class/net/ens1f0np0/statistics/tx_bytes",
        5.0e4,
        Width::Bits64,
    ),
    // The RoCE traffic bypasses the netdev; what it counts is the host's own TCP/IP (~700 B
    // per packet here), and on lo small local messages.
    (
        "class/net/ens1f0np0/statistics/rx_packets",
        85.0,
        Width::Bits64,
    ),
    (
        "class/net/ens1f0np0/statistics/tx_packets",
        70.0,
        Width::Bits64,
    ),
    ("class/net/lo/statistics/rx_bytes", 1.0e4, Width::Bits64),
    ("class/net/lo/statistics/tx_bytes", 1.0e4, Width::Bits64),
    ("class/net/lo/statistics/rx_packets", 50.0, Width::Bits64),
    ("class/net/lo/statistics/tx_packets", 50.0, Width::Bits64),
];

/// The device or interface a stream's file belongs to (`mlx5_0`, `eth0`).
fn device_of(relative: &str) -> &str {
    relative.split('/').nth(2).unwrap_or(relative)
}

/// The demo tree and the state of its counters.
pub struct Demo {
    dir: TempDir,
    /// Seconds of demo time so far, which shapes the traffic so rates visibly vary.
    clock_s: f64,
    /// Fractions of a count not yet written, per stream.
    carry: Vec<f64>,
}

impl Demo {
    /// Writes the embedded fixture into a new temporary directory.
    pub fn start() -> io::Result<Demo> {
        let dir = tempfile::Builder::new()
            .prefix("native-probe-demo-")
            .tempdir()?;
        for (relative, entry) in FIXTURE {
            let path = dir.path().join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            match entry {
                Entry::File(bytes) => fs::write(&path, bytes)?,
                Entry::Link(target) => std::os::unix::fs::symlink(target, &path)?,
            }
        }
        Ok(Demo {
            dir,
            clock_s: 0.0,
            carry: vec![0.0; STREAMS.len()],
        })
    }

    pub fn sysfs_root(&self) -> PathBuf {
        self.dir.path().join("sysfs")
    }

    pub fn debugfs_root(&self) -> PathBuf {
        self.dir.path().join("debugfs")
    }

    pub fn procfs_root(&self) -> PathBuf {
        self.dir.path().join("procfs")
    }

    /// Moves every demo counter on by `elapsed` of traffic.
    pub fn advance(&mut self, elapsed: Duration) -> io::Result<()> {
        let seconds = elapsed.as_secs_f64();
        self.clock_s += seconds;
        let root = self.sysfs_root();
        // A slow swell between 70 % and 130 % of the mean, out of phase per device but in
        // step within one, so a port's counters keep their ratios (no more CNPs sent than
        // ECN-marked packets received, packets moving whenever bytes do).
        for ((relative, per_second, width), carry) in STREAMS.iter().zip(self.carry.iter_mut()) {
            let offset: u32 = device_of(relative).bytes().map(u32::from).sum();
            let phase = self.clock_s / 7.0 + f64::from(offset);
            let amount = per_second * seconds * (1.0 + 0.3 * phase.sin()) + *carry;
            let whole = amount.floor();
            *carry = amount - whole;
            let path = root.join(relative);
            let text = fs::read_to_string(&path)?;
            let value: u64 = text.trim().parse().map_err(io::Error::other)?;
            // `whole` is at most a few times 1e10 per tick, far inside u64.
            let advanced = value.wrapping_add(whole as u64);
            let advanced = match width {
                Width::Bits32 => advanced.min(u64::from(u32::MAX)),
                Width::Bits64 => advanced,
            };
            fs::write(&path, format!("{advanced}\n"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::sysfs::Trees;
    use engine::probe::{CounterStatus, Sample};

    #[test]
    fn the_demo_counters_keep_their_ratios_tick_by_tick() {
        let mut demo = Demo::start().expect("the demo starts");
        let root = demo.sysfs_root();
        let read = |relative: &str| -> u64 {
            let text = fs::read_to_string(root.join(relative)).expect("readable");
            text.trim().parse().expect("a number")
        };
        let marked = "class/infiniband/mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets";
        let cnps = "class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent";
        let interfaces = ["eth0", "ens1f0np0", "lo"];
        for tick in 0..30 {
            let before: Vec<u64> = [marked, cnps].iter().map(|f| read(f)).collect();
            let net = |dir: &str, what: &str| format!("class/net/{dir}/statistics/{what}");
            let bytes_before: Vec<u64> = interfaces
                .iter()
                .map(|i| read(&net(i, "rx_bytes")))
                .collect();
            let packets_before: Vec<u64> = interfaces
                .iter()
                .map(|i| read(&net(i, "rx_packets")))
                .collect();
            demo.advance(Duration::from_secs(1)).expect("advances");
            let marked_now = read(marked) - before[0];
            let cnps_now = read(cnps) - before[1];
            assert!(
                cnps_now <= marked_now,
                "tick {tick}: {cnps_now} CNPs for {marked_now} marks"
            );
            for (k, interface) in interfaces.iter().enumerate() {
                let bytes = read(&net(interface, "rx_bytes")) - bytes_before[k];
                let packets = read(&net(interface, "rx_packets")) - packets_before[k];
                assert!(
                    bytes == 0 || packets > 0,
                    "tick {tick}: {interface} got {bytes} B in 0 packets"
                );
            }
        }
    }

    #[test]
    fn the_demo_tree_reads_like_the_fixture_and_its_counters_move() {
        let mut demo = Demo::start().unwrap();
        let mut trees = Trees::open(&demo.sysfs_root(), &demo.debugfs_root()).unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let recorded = Trees::open(&fixture.join("sysfs"), &fixture.join("debugfs")).unwrap();
        // Equal but for the temporary paths inside "why not" hints.
        let without_hints = |mut inventory: engine::probe::Inventory| {
            for device in &mut inventory.rdma_devices {
                device.cc_params.unavailable =
                    device.cc_params.unavailable.take().map(|_| String::new());
            }
            inventory
        };
        assert_eq!(
            without_hints(trees.inventory()),
            without_hints(recorded.inventory())
        );

        let before = trees.reading(0);
        demo.advance(Duration::from_secs(1)).unwrap();
        let after = trees.reading(1_000);
        let sample = Sample::between(&before, &after);
        let busy = &sample.ports[0];
        let tx = busy.tx_bytes_per_second.unwrap();
        // 2.3e9 words/s ± 30 %, in octets.
        assert!((0.7 * 9.2e9..=1.3 * 9.2e9).contains(&tx), "{tx}");
        // The 32-bit port starts within a second of 2^32 − 1: it reaches it on the first
        // step, then counts no more.
        demo.advance(Duration::from_secs(1)).unwrap();
        let later = trees.reading(2_000);
        let capped = &Sample::between(&after, &later).ports[1].counters["port_xmit_data"];
        assert_eq!(capped.value, Some(u64::from(u32::MAX)));
        assert_eq!(capped.status, CounterStatus::Saturated);
        assert_eq!(capped.per_second, None);
    }

    /// Retransmissions follow losses: a port whose demo resends (sequence-error NAKs) or
    /// receives requests twice also sees gaps, at least as often.
    #[test]
    fn every_port_retransmitting_also_sees_packets_out_of_sequence() {
        let rate = |path: &str| {
            STREAMS
                .iter()
                .find(|(p, _, _)| *p == path)
                .map_or(0.0, |(_, r, _)| *r)
        };
        let retries = ["/packet_seq_err", "/duplicate_request"];
        let retrying: Vec<_> = STREAMS
            .iter()
            .filter(|(p, _, _)| retries.iter().any(|r| p.ends_with(r)))
            .collect();
        assert!(!retrying.is_empty());
        for (path, per_second, _) in retrying {
            let dir = &path[..path.rfind('/').unwrap()];
            let gaps = rate(&format!("{dir}/out_of_sequence"));
            assert!(gaps >= *per_second, "{path}: {per_second}/s, {gaps}/s gaps");
        }
    }

    /// UX check 2026-12: the demo sent CNPs at 20/s on a port that saw no ECN marks, which
    /// the page's own definition of np_cnp_sent contradicts.
    #[test]
    fn every_port_sending_cnps_receives_at_least_as_many_marks() {
        let rate = |path: &str| {
            STREAMS
                .iter()
                .find(|(p, _, _)| *p == path)
                .map_or(0.0, |(_, r, _)| *r)
        };
        for (path, cnps, _) in STREAMS
            .iter()
            .filter(|(p, _, _)| p.ends_with("/np_cnp_sent"))
        {
            let marks = path.replace("/np_cnp_sent", "/np_ecn_marked_roce_packets");
            assert!(
                rate(&marks) >= *cnps,
                "{path}: {cnps}/s CNPs, {}/s marks",
                rate(&marks)
            );
        }
    }
}
