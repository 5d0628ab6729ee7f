//! Reading the recorded fixture, which mirrors a real `/sys` layout file for file.

use std::path::{Path, PathBuf};

use engine::probe::Component;

use super::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn trees() -> Trees {
    let dir = fixture();
    Trees::open(&dir.join("sysfs"), &dir.join("debugfs")).unwrap()
}

#[test]
fn rdma_devices_are_found_through_their_class_links() {
    let inventory = trees().inventory();
    let names: Vec<_> = inventory
        .rdma_devices
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(names, ["mlx5_0", "mlx5_1", "mlx5_2"]);
    let roce = &inventory.rdma_devices[0];
    assert_eq!(roce.pci_address.as_deref(), Some("0000:3b:00.0"));
    assert_eq!(roce.numa_node, Some(0));
    assert_eq!(roce.fw_ver.as_deref(), Some("22.39.1002"));
    assert_eq!(roce.hca_type.as_deref(), Some("MT4125"));
    assert_eq!(roce.node_guid.as_deref(), Some("0c42:a103:00f2:1a2a"));
    let node_type = roce.node_type.as_ref().unwrap();
    assert_eq!((node_type.code, node_type.name.as_str()), (1, "CA"));
    // Both functions of one adapter share its system image GUID.
    assert_eq!(
        inventory.rdma_devices[0].sys_image_guid,
        inventory.rdma_devices[1].sys_image_guid
    );
    assert_eq!(inventory.rdma_devices[2].numa_node, Some(1));
}

#[test]
fn roce_ports_list_their_gids_like_show_gids() {
    let inventory = trees().inventory();
    let port = &inventory.rdma_devices[0].ports[0];
    assert_eq!(port.port, 1);
    assert_eq!(port.link_layer.as_deref(), Some("Ethernet"));
    assert_eq!(port.state.as_ref().map(|s| s.name.as_str()), Some("ACTIVE"));
    assert_eq!(port.phys_state.as_ref().map(|s| s.code), Some(5));
    assert_eq!(port.rate_gbps, Some(100.0));
    // A setting read with the inventory, not a counter sampled with the others.
    assert_eq!(port.hw_counters_lifespan_ms, Some(10));
    // Four populated entries (link-local and IPv4-mapped, each as RoCE v1 and v2); the
    // all-zero slots after them are skipped.
    assert_eq!(port.gids.len(), 4);
    let types: Vec<_> = port.gids.iter().map(|g| g.gid_type.as_deref()).collect();
    assert_eq!(
        types,
        [
            Some("IB/RoCE v1"),
            Some("RoCE v2"),
            Some("IB/RoCE v1"),
            Some("RoCE v2")
        ]
    );
    assert!(port
        .gids
        .iter()
        .all(|g| g.ndev.as_deref() == Some("ens1f0np0")));
    assert!(port.gids[0].gid.starts_with("fe80:"));
    assert_eq!(port.gids[0].ipv4, None);
    assert_eq!(port.gids[3].ipv4.as_deref(), Some("10.0.0.1"));
}

#[test]
fn the_infiniband_port_has_lids_and_no_netdev() {
    let inventory = trees().inventory();
    let port = &inventory.rdma_devices[2].ports[0];
    assert_eq!(port.link_layer.as_deref(), Some("InfiniBand"));
    assert_eq!(port.rate.as_deref(), Some("200 Gb/sec (4X HDR)"));
    assert_eq!(port.lid, Some(0x1c));
    assert_eq!(port.sm_lid, Some(1));
    assert_eq!(port.gids.len(), 1);
    assert_eq!(port.gids[0].ndev, None);
}

#[test]
fn dcqcn_parameters_come_from_debugfs_or_say_why_not() {
    let inventory = trees().inventory();
    let cc = &inventory.rdma_devices[0].cc_params;
    assert_eq!(cc.unavailable, None);
    assert!(cc.values.contains_key("rp_ai_rate"));
    assert!(cc.values.contains_key("np_cnp_dscp"));
    // The IB device has no cc_params directory in the recording.
    assert!(inventory.rdma_devices[2].cc_params.unavailable.is_some());

    let dir = fixture();
    let without = Trees::open(&dir.join("sysfs"), Path::new("/nonexistent/debugfs")).unwrap();
    let hint = without.inventory().rdma_devices[0]
        .cc_params
        .unavailable
        .clone()
        .unwrap();
    assert!(hint.contains("root") && hint.contains("debugfs"), "{hint}");
}

#[test]
fn netdevs_report_their_attributes() {
    let inventory = trees().inventory();
    let names: Vec<_> = inventory.netdevs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["ens1f0np0", "ens1f1np1", "eth0", "lo"]);
    let eth0 = &inventory.netdevs[2];
    assert_eq!(eth0.mtu, Some(1500));
    assert_eq!(eth0.speed_mbps, Some(1000));
    assert_eq!(eth0.operstate.as_deref(), Some("up"));
    let lo = &inventory.netdevs[3];
    assert_eq!(lo.speed_mbps, None);
    assert_eq!(lo.operstate.as_deref(), Some("unknown"));
}

#[test]
fn a_reading_has_every_counter_and_octet_totals() {
    let reading = trees().reading(1);
    assert_eq!(reading.ports.len(), 3);
    for port in &reading.ports {
        let words = port.counters["port_xmit_data"].unwrap();
        assert_eq!(port.tx_bytes, Some(words * 4));
        assert_eq!(
            port.rx_bytes,
            Some(port.counters["port_rcv_data"].unwrap() * 4)
        );
        assert!(!port.hw_counters.contains_key("lifespan"));
        assert!(port.counters.values().all(Option::is_some));
    }
    assert!(reading.ports[0].hw_counters.contains_key("np_cnp_sent"));
    let eth0 = reading
        .netdevs
        .iter()
        .find(|d| d.interface == "eth0")
        .unwrap();
    assert_eq!(eth0.rx_bytes, eth0.statistics["rx_bytes"]);
    assert!(eth0.statistics.len() >= 20);
}

#[test]
fn components_match_the_inventory() {
    let mut trees = trees();
    let (_, found) = trees.reading_and_components(1);
    assert!(found.contains(&Component::RdmaPort {
        device: "mlx5_2".into(),
        port: 1
    }));
    assert!(found.contains(&Component::Netdev {
        interface: "lo".into()
    }));
    let inventory = trees.inventory();
    let ports: usize = inventory.rdma_devices.iter().map(|d| d.ports.len()).sum();
    assert_eq!(
        found.len(),
        inventory.rdma_devices.len() + ports + inventory.netdevs.len()
    );
    assert_eq!(found.len(), 3 + 3 + 4);
}

#[test]
fn an_unreadable_counter_is_unavailable_and_the_rest_still_read() {
    let copy = tempfile::tempdir().unwrap();
    lab_tests::probe::copy_tree(&fixture().join("sysfs"), copy.path()).unwrap();
    let counter = copy
        .path()
        .join("class/infiniband/mlx5_0/ports/1/counters/symbol_error");
    std::fs::remove_file(&counter).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", &counter).unwrap();
    let garbage = copy
        .path()
        .join("class/infiniband/mlx5_0/ports/1/counters/link_downed");
    std::fs::write(&garbage, "not a number\n").unwrap();
    let mut trees = Trees::open(copy.path(), Path::new("/nonexistent")).unwrap();
    let reading = trees.reading(1);
    let counters = &reading.ports[0].counters;
    assert_eq!(
        counters["symbol_error"], None,
        "a link out of the root is not followed"
    );
    assert_eq!(counters["link_downed"], None);
    assert!(counters["port_xmit_data"].is_some());
}

/// A writable copy of the fixture's sysfs tree, and the trees read from it.
fn copied() -> (tempfile::TempDir, Trees) {
    let copy = tempfile::tempdir().unwrap();
    lab_tests::probe::copy_tree(&fixture().join("sysfs"), copy.path()).unwrap();
    let trees = Trees::open(copy.path(), Path::new("/nonexistent")).unwrap();
    (copy, trees)
}

const MLX5_0_COUNTERS: &str = "class/infiniband/mlx5_0/ports/1/counters";

fn xmit_data(reading: &Reading) -> Option<u64> {
    reading.ports[0].counters["port_xmit_data"]
}

#[test]
fn counters_written_in_place_are_read_through_the_files_held_open() {
    let (copy, mut trees) = copied();
    let file = copy.path().join(MLX5_0_COUNTERS).join("port_xmit_data");
    trees.reading(1);
    let opened = trees.opened;
    for value in [10u64, 9_999_999_999, 3] {
        std::fs::write(&file, format!("{value}\n")).unwrap();
        assert_eq!(xmit_data(&trees.reading(2)), Some(value));
    }
    assert_eq!(trees.opened, opened, "nothing was opened again");
    // Once they are stale, every component is opened and listed afresh.
    trees.reopen_every = Duration::ZERO;
    std::fs::write(copy.path().join(MLX5_0_COUNTERS).join("new_counter"), "7\n").unwrap();
    let reading = trees.reading(3);
    assert_eq!(reading.ports[0].counters["new_counter"], Some(7));
    assert_eq!(trees.opened, opened + 3 + 4);
}

#[test]
fn a_counter_that_fails_to_read_is_unavailable_and_its_device_opened_again() {
    let (copy, mut trees) = copied();
    let file = copy.path().join(MLX5_0_COUNTERS).join("port_xmit_data");
    trees.reading(1);
    let opened = trees.opened;
    std::fs::write(&file, vec![b'1'; 70 * 1024]).unwrap();
    let reading = trees.reading(2);
    assert_eq!(xmit_data(&reading), None);
    assert_eq!(reading.ports[0].tx_bytes, None);
    assert!(reading.ports[0].counters["port_rcv_data"].is_some());
    assert!(reading.ports[0].hw_counters["np_cnp_sent"].is_some());
    std::fs::write(&file, "12\n").unwrap();
    assert_eq!(xmit_data(&trees.reading(3)), Some(12));
    assert_eq!(
        trees.opened,
        opened + 1,
        "only that device was opened again"
    );
}

#[test]
fn a_device_that_disappears_and_returns_is_read_afresh() {
    let (copy, mut trees) = copied();
    let link = copy.path().join("class/infiniband/mlx5_2");
    let target = std::fs::read_link(&link).unwrap();
    assert_eq!(trees.reading(1).ports.len(), 3);
    std::fs::remove_file(&link).unwrap();
    let (reading, found) = trees.reading_and_components(2);
    assert_eq!(reading.ports.len(), 2);
    assert!(!found.contains(&Component::RdmaDevice {
        device: "mlx5_2".into()
    }));
    assert!(
        !trees.devices.contains_key("mlx5_2"),
        "the gone device's files are closed"
    );
    // It comes back with new counters, as a re-registered device does.
    let device = copy.path().join("class/infiniband").join(&target);
    std::fs::write(device.join("ports/1/counters/port_xmit_data"), "5\n").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let reading = trees.reading(3);
    assert_eq!(reading.ports.len(), 3);
    assert_eq!(reading.ports[2].counters["port_xmit_data"], Some(5));
}

#[test]
fn nothing_is_read_through_a_link_or_outside_the_root() {
    let (copy, mut trees) = copied();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "42\n").unwrap();
    // A counter that is a link, even to a file inside the tree, is not followed.
    let counters = copy.path().join(MLX5_0_COUNTERS);
    std::fs::remove_file(counters.join("symbol_error")).unwrap();
    std::os::unix::fs::symlink("port_xmit_data", counters.join("symbol_error")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), counters.join("escape")).unwrap();
    // A device whose link leads out of the root has no ports read.
    let link = copy.path().join("class/infiniband/mlx5_2");
    let device = std::fs::canonicalize(&link).unwrap();
    lab_tests::probe::copy_tree(&device, &outside.path().join("device")).unwrap();
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(outside.path().join("device"), &link).unwrap();

    let reading = trees.reading(1);
    let counters = &reading.ports[0].counters;
    assert_eq!(counters["symbol_error"], None);
    assert_eq!(counters["escape"], None);
    assert!(counters["port_xmit_data"].is_some());
    assert!(reading.ports.iter().all(|p| p.device != "mlx5_2"));
    assert!(trees.inventory().rdma_devices[2].ports.is_empty());
}

/// Fixture values hang together as a NIC's would: an error completion flushes the rest of its
/// queue pair's work requests, so CQE errors come with flush errors; a port that resends also
/// sees gaps; a port sends no more CNPs than it received ECN-marked packets.
#[test]
fn counter_values_are_mutually_consistent_in_every_fixture() {
    let drivers = tempfile::tempdir().unwrap();
    lab_tests::sysfs_tree::every_driver_counter(drivers.path()).unwrap();
    let recorded = fixture().join("sysfs");
    let mut checked = 0;
    for root in [recorded.as_path(), drivers.path()] {
        let reading = Trees::open(root, Path::new("/nonexistent"))
            .unwrap()
            .reading(0);
        for port in &reading.ports {
            let hw = |name: &str| port.hw_counters.get(name).copied().flatten().unwrap_or(0);
            let at = format!("{} {}:{}", root.display(), port.device, port.port);
            for side in ["req", "resp"] {
                let (errors, flushed) = (
                    hw(&format!("{side}_cqe_error")),
                    hw(&format!("{side}_cqe_flush_error")),
                );
                assert!(
                    errors == 0 || flushed > 0,
                    "{at}: {errors} {side} CQE errors, no flush"
                );
            }
            let resends = hw("packet_seq_err") + hw("duplicate_request");
            assert!(
                resends == 0 || hw("out_of_sequence") > 0,
                "{at}: resends with no gap"
            );
            assert!(
                hw("np_cnp_sent") <= hw("np_ecn_marked_roce_packets"),
                "{at}: CNPs"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3 + 4);
}

/// A port whose counters read "N/A (no PMA)" has no values, and costs nothing else: its
/// device's other port, and the other devices, read in full.
#[test]
fn a_port_without_pma_reads_as_unavailable_and_the_rest_still_read() {
    let drivers = tempfile::tempdir().unwrap();
    lab_tests::sysfs_tree::every_driver_counter(drivers.path()).unwrap();
    let reading = Trees::open(drivers.path(), Path::new("/nonexistent"))
        .unwrap()
        .reading(0);
    let port = |device: &str, n: u32| {
        reading
            .ports
            .iter()
            .find(|p| p.device == device && p.port == n)
            .unwrap()
    };
    let no_pma = port("mlx4_0", 2);
    assert_eq!(
        no_pma.counters.len(),
        lab_tests::sysfs_tree::PORT_COUNTERS.len()
    );
    assert!(no_pma.counters.values().all(Option::is_none));
    assert_eq!(no_pma.tx_bytes, None);
    let busy = port("mlx4_0", 1);
    assert!(busy.counters.values().all(Option::is_some));
    assert_eq!(busy.counters_ext.len(), 8);
    // The 32-bit words counter is stuck; the bytes come from the 64-bit one.
    assert_eq!(busy.counters["port_xmit_data"], Some(u64::from(u32::MAX)));
    assert_eq!(
        busy.tx_bytes,
        Some(busy.counters_ext["port_xmit_data_64"].unwrap() * 4)
    );
    // lifespan is a setting, read with the inventory, never a counter.
    assert!(!port("mlx5_0", 1).hw_counters.contains_key("lifespan"));
    assert!(port("mlx5_1", 1)
        .hw_counters
        .contains_key("vport_req_cqe_error"));
}
