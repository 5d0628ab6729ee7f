//! A sysfs tree with every port counter file the mlx4 and mlx5 drivers put in sysfs, laid out
//! as the kernel lays it, for the tests that check the probe names and reads each one.
//!
//! The file lists are the drivers', not the lab's catalogue (`content/data/counters.toml`), so
//! a test that checks each file has a name of its own checks the catalogue against them:
//! - `counters/`: the PortCounters table of `drivers/infiniband/core/sysfs.c`, with the data
//!   and packet counters 32 bits wide as on a device without PortCountersExt, plus
//!   `port_rcv_discards`, which prometheus/procfs reads from the same directory;
//! - `counters_ext/`: mlx4's 64-bit extended counters, as prometheus/procfs reads them
//!   (`sysfs/class_infiniband.go`);
//! - `hw_counters/`: every name `drivers/infiniband/hw/mlx5/counters.c` (commit 10d4de418953)
//!   gives a port, and the `vport_` copies a switchdev representor port shows instead;
//!   `lifespan` beside them, a setting.
//!
//! mlx4's `hw_counters/` holds the 21 diagnostic counters of `diag_basic`
//! (`drivers/infiniband/hw/mlx4/main.c`). Its port directories also get `diag_ext`'s
//! `rq_num_dup` and `sq_num_to`, which are left out of the tree: no primary source read for
//! the lab says what they count, so they stay in the probe's uncatalogued family.
//!
//! The layout is the kernel's: `class/infiniband/<dev>` are links into `devices/…/infiniband/`,
//! each device's `device` link points at its PCI function, and one mlx4 port has no
//! performance management agent, so its `counters/` files read `N/A (no PMA)`.

use std::{
    fs, io,
    os::unix::fs::symlink,
    path::{Path, PathBuf},
};

/// `counters/`: every file the kernel's PortCounters table makes, with `port_rcv_discards`.
pub const PORT_COUNTERS: &[&str] = &[
    "symbol_error",
    "link_error_recovery",
    "link_downed",
    "port_rcv_errors",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_discards",
    "port_xmit_constraint_errors",
    "port_rcv_constraint_errors",
    "local_link_integrity_errors",
    "excessive_buffer_overrun_errors",
    "VL15_dropped",
    "port_xmit_data",
    "port_rcv_data",
    "port_xmit_packets",
    "port_rcv_packets",
    "port_xmit_wait",
    "unicast_xmit_packets",
    "unicast_rcv_packets",
    "multicast_xmit_packets",
    "multicast_rcv_packets",
    "port_rcv_discards",
];

/// `counters_ext/`: mlx4's 64-bit extended port counters.
pub const PORT_COUNTERS_EXT: &[&str] = &[
    "port_xmit_data_64",
    "port_rcv_data_64",
    "port_xmit_packets_64",
    "port_rcv_packets_64",
    "port_unicast_xmit_packets",
    "port_unicast_rcv_packets",
    "port_multicast_xmit_packets",
    "port_multicast_rcv_packets",
];

/// mlx5's queue counters (`basic_q_cnts`, `out_of_seq_q_cnts`, `retrans_q_cnts`,
/// `extended_err_cnts`, `roce_accl_cnts`), which a representor port shows as `vport_<name>`.
pub const MLX5_Q_COUNTERS: &[&str] = &[
    "rx_write_requests",
    "rx_read_requests",
    "rx_atomic_requests",
    "rx_dct_connect",
    "out_of_buffer",
    "out_of_sequence",
    "duplicate_request",
    "rnr_nak_retry_err",
    "packet_seq_err",
    "implied_nak_seq_err",
    "local_ack_timeout_err",
    "resp_local_length_error",
    "resp_cqe_error",
    "req_cqe_error",
    "req_remote_invalid_request",
    "req_remote_access_errors",
    "resp_remote_access_errors",
    "resp_cqe_flush_error",
    "req_cqe_flush_error",
    "req_transport_retries_exceeded",
    "req_rnr_retries_exceeded",
    "roce_adp_retrans",
    "roce_adp_retrans_to",
    "roce_slow_restart",
    "roce_slow_restart_cnps",
    "roce_slow_restart_trans",
];

/// mlx5's device-wide counters a port (not a representor) adds: `cong_cnts`, `ext_ppcnt_cnts`.
pub const MLX5_PORT_ONLY: &[&str] = &[
    "rp_cnp_ignored",
    "rp_cnp_handled",
    "np_ecn_marked_roce_packets",
    "np_cnp_sent",
    "rx_icrc_encapsulated",
];

/// mlx4's per-port diagnostic counters (`diag_basic`).
pub const MLX4_DIAG_COUNTERS: &[&str] = &[
    "rq_num_lle",
    "sq_num_lle",
    "rq_num_lqpoe",
    "sq_num_lqpoe",
    "rq_num_lpe",
    "sq_num_lpe",
    "rq_num_wrfe",
    "sq_num_wrfe",
    "sq_num_mwbe",
    "sq_num_bre",
    "sq_num_rire",
    "rq_num_rire",
    "sq_num_rae",
    "rq_num_rae",
    "sq_num_roe",
    "sq_num_tree",
    "sq_num_rree",
    "rq_num_rnr",
    "sq_num_rnr",
    "rq_num_oos",
    "sq_num_oos",
];

/// What the text of an unreadable PMA counter is (kernel `show_pma_counter` before the fix
/// prometheus/procfs links to; node_exporter skips such files).
pub const NO_PMA: &str = "N/A (no PMA)";

/// Writes the tree under `root` (which becomes a sysfs root): `mlx4_0` (an FDR InfiniBand
/// port with saturated 32-bit counters beside its 64-bit ones, and a port with no PMA),
/// `mlx5_0` (a RoCE port with every hw counter) and `mlx5_1` (a switchdev representor port).
pub fn every_driver_counter(root: &Path) -> io::Result<()> {
    mlx4(root)?;
    mlx5_port(root)?;
    mlx5_representor(root)
}

/// A device's directory under `devices/`, its PCI function with `numa_node`, the `device` link
/// to it and the `class/infiniband` link to the device; returns the device's directory.
fn device(root: &Path, pci: &str, name: &str, hca_type: &str) -> io::Result<PathBuf> {
    let function = root.join("devices/pci0000:00/0000:00:02.0").join(pci);
    let dir = function.join("infiniband").join(name);
    fs::create_dir_all(&dir)?;
    fs::write(function.join("numa_node"), "0\n")?;
    symlink(format!("../../../{pci}"), dir.join("device"))?;
    let class = root.join("class/infiniband");
    fs::create_dir_all(&class)?;
    symlink(
        format!("../../devices/pci0000:00/0000:00:02.0/{pci}/infiniband/{name}"),
        class.join(name),
    )?;
    let text = [
        ("board_id", "MT_0000000001"),
        ("fw_ver", "2.42.5000"),
        ("hca_type", hca_type),
        ("node_type", "1: CA"),
        ("node_guid", "0002:c903:0010:a0b0"),
        ("sys_image_guid", "0002:c903:0010:a0b3"),
        ("node_desc", "node02 HCA-1"),
    ];
    for (file, value) in text {
        fs::write(dir.join(file), format!("{value}\n"))?;
    }
    Ok(dir)
}

/// A port directory with its status files; returns it.
fn port(device: &Path, number: u32, link_layer: &str, rate: &str) -> io::Result<PathBuf> {
    let dir = device.join("ports").join(number.to_string());
    fs::create_dir_all(&dir)?;
    let text = [
        ("state", "4: ACTIVE"),
        ("phys_state", "5: LinkUp"),
        ("rate", rate),
        ("link_layer", link_layer),
        ("lid", "0x1a"),
        ("sm_lid", "0x1"),
    ];
    for (file, value) in text {
        fs::write(dir.join(file), format!("{value}\n"))?;
    }
    Ok(dir)
}

/// Writes `group/<name>` for each `(name, value)` under `port`.
fn counters(port: &Path, group: &str, values: &[(&str, String)]) -> io::Result<()> {
    let dir = port.join(group);
    fs::create_dir_all(&dir)?;
    for (name, value) in values {
        fs::write(dir.join(name), format!("{value}\n"))?;
    }
    Ok(())
}

/// `value` for each of `names`, with what `values` says for the names it lists and 0 else.
fn valued(names: &[&'static str], values: &[(&str, u64)]) -> Vec<(&'static str, String)> {
    names
        .iter()
        .map(|name| {
            let value = values.iter().find(|(n, _)| n == name).map_or(0, |v| v.1);
            (*name, value.to_string())
        })
        .collect()
}

fn mlx4(root: &Path) -> io::Result<()> {
    let dir = device(root, "0000:01:00.0", "mlx4_0", "MT4099")?;
    let busy = port(&dir, 1, "InfiniBand", "56 Gb/sec (4X FDR)")?;
    // The 32-bit data and packet counters stopped at 2^32 − 1 long ago; the 64-bit ones went
    // on (unicast + multicast = all packets).
    let full = u64::from(u32::MAX);
    let narrow = [
        ("port_xmit_data", full),
        ("port_rcv_data", full),
        ("port_xmit_packets", full),
        ("port_rcv_packets", full),
        ("unicast_xmit_packets", full),
        ("unicast_rcv_packets", full),
        ("multicast_xmit_packets", 1_137),
        ("multicast_rcv_packets", 1_072),
        ("port_xmit_wait", 81_234),
        ("port_xmit_discards", 12),
        ("port_rcv_errors", 3),
        ("symbol_error", 7),
        ("link_error_recovery", 1),
        ("port_rcv_discards", 2),
    ];
    counters(&busy, "counters", &valued(PORT_COUNTERS, &narrow))?;
    let wide = [
        ("port_xmit_data_64", 1_546_182_359_040),
        ("port_rcv_data_64", 1_498_314_275_104),
        ("port_xmit_packets_64", 5_912_345_678),
        ("port_rcv_packets_64", 5_734_887_102),
        ("port_unicast_xmit_packets", 5_912_344_541),
        ("port_unicast_rcv_packets", 5_734_886_030),
        ("port_multicast_xmit_packets", 1_137),
        ("port_multicast_rcv_packets", 1_072),
    ];
    counters(&busy, "counters_ext", &valued(PORT_COUNTERS_EXT, &wide))?;
    // One refused RDMA request and its error completions; a few gaps and the resends they
    // asked for.
    let diag = [
        ("sq_num_rae", 1),
        ("sq_num_wrfe", 1),
        ("rq_num_wrfe", 12),
        ("rq_num_oos", 4),
        ("sq_num_oos", 3),
        ("sq_num_rnr", 2),
    ];
    let mut hw = valued(MLX4_DIAG_COUNTERS, &diag);
    hw.push(("lifespan", "10".to_string()));
    counters(&busy, "hw_counters", &hw)?;
    // The second port's device answers no PMA queries: every counters/ file says so.
    let no_pma = port(&dir, 2, "InfiniBand", "56 Gb/sec (4X FDR)")?;
    let unreadable: Vec<_> = PORT_COUNTERS
        .iter()
        .map(|name| (*name, NO_PMA.to_string()))
        .collect();
    counters(&no_pma, "counters", &unreadable)
}

fn mlx5_port(root: &Path) -> io::Result<()> {
    let dir = device(root, "0000:02:00.0", "mlx5_0", "MT4125")?;
    let roce = port(&dir, 1, "Ethernet", "100 Gb/sec (4X EDR)")?;
    let values = [
        ("port_xmit_data", 193_849_201_734),
        ("port_rcv_data", 181_734_009_122),
        ("port_xmit_packets", 190_345_118),
        ("port_rcv_packets", 178_220_971),
        ("unicast_xmit_packets", 190_344_012),
        ("unicast_rcv_packets", 178_219_903),
        ("multicast_xmit_packets", 1_106),
        ("multicast_rcv_packets", 1_068),
        ("port_xmit_wait", 5_310_442),
    ];
    let mut port_files = valued(PORT_COUNTERS, &values);
    port_files.retain(|(name, _)| *name != "port_rcv_discards");
    counters(&roce, "counters", &port_files)?;
    let names: Vec<&str> = MLX5_Q_COUNTERS
        .iter()
        .chain(MLX5_PORT_ONLY)
        .copied()
        .collect();
    let mut hw = valued(&names, &mlx5_values());
    hw.push(("lifespan", "10".to_string()));
    counters(&roce, "hw_counters", &hw)
}

/// A RoCE port after a bad hour: every error comes with what follows from it (a CQE error
/// flushes the rest of its queue; retransmissions come with out-of-sequence packets and
/// duplicates at the peer), and fewer CNPs than ECN marks.
fn mlx5_values() -> Vec<(&'static str, u64)> {
    vec![
        ("rx_write_requests", 9_123_771),
        ("rx_read_requests", 120_334),
        ("rx_atomic_requests", 41),
        ("rx_dct_connect", 0),
        ("out_of_buffer", 5),
        ("out_of_sequence", 17),
        ("duplicate_request", 4),
        ("rnr_nak_retry_err", 6),
        ("packet_seq_err", 3),
        ("implied_nak_seq_err", 1),
        ("local_ack_timeout_err", 2),
        ("resp_local_length_error", 0),
        ("resp_cqe_error", 1),
        ("req_cqe_error", 2),
        ("req_remote_invalid_request", 0),
        ("req_remote_access_errors", 1),
        ("resp_remote_access_errors", 0),
        ("resp_cqe_flush_error", 63),
        ("req_cqe_flush_error", 31),
        ("req_transport_retries_exceeded", 1),
        ("req_rnr_retries_exceeded", 0),
        ("roce_adp_retrans", 9),
        ("roce_adp_retrans_to", 1),
        ("roce_slow_restart", 2),
        ("roce_slow_restart_cnps", 2),
        ("roce_slow_restart_trans", 2),
        ("rp_cnp_ignored", 0),
        ("rp_cnp_handled", 39_102),
        ("np_ecn_marked_roce_packets", 51_877),
        ("np_cnp_sent", 48_213),
        ("rx_icrc_encapsulated", 1),
    ]
}

fn mlx5_representor(root: &Path) -> io::Result<()> {
    let dir = device(root, "0000:02:00.1", "mlx5_1", "MT4125")?;
    let rep = port(&dir, 1, "Ethernet", "100 Gb/sec (4X EDR)")?;
    counters(&rep, "counters", &valued(PORT_COUNTERS, &[]))?;
    let values = mlx5_values();
    let mut hw: Vec<(String, String)> = MLX5_Q_COUNTERS
        .iter()
        .map(|name| {
            let value = values.iter().find(|(n, _)| n == name).map_or(0, |v| v.1);
            (format!("vport_{name}"), (value / 2).to_string())
        })
        .collect();
    hw.push(("lifespan".into(), "10".into()));
    let dir = rep.join("hw_counters");
    fs::create_dir_all(&dir)?;
    for (name, value) in hw {
        fs::write(dir.join(name), format!("{value}\n"))?;
    }
    Ok(())
}
