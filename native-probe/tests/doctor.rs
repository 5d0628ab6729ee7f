//! `native-probe doctor` run as the real binary on the recorded ConnectX host, and on copies
//! of it altered to make each check warn or fail.
//!
//! The files the doctor reads were added to the recording as a ConnectX-6 Dx host with an
//! NVIDIA GPU driver shows them: PCI `current_link_speed` "16.0 GT/s PCIe" and
//! `current_link_width` "16" (kernel `drivers/pci/pci-sysfs.c`, `pci_speed_string()`), each
//! device's `iommu_group` link to `kernel/iommu_groups/<n>/type` "identity"
//! (`Documentation/ABI/testing/sysfs-kernel-iommu_groups`), `class/iommu/dmar<n>` links to
//! `devices/virtual/iommu/dmar<n>` (`Documentation/ABI/testing/sysfs-class-iommu`,
//! `…-intel-iommu` for `intel-iommu/version`), `module/nvidia/version` and
//! `module/<name>/initstate` "live" (`Documentation/ABI/testing/sysfs-module`), MLNX_OFED's
//! `class/net/<if>/ecn/roce_{np,rp}/enable/<prio>`, and under `procfs/` a `cmdline` and a
//! `self/limits` laid out as `fs/proc/base.c` `proc_pid_limits()` prints it, and
//! `sys/kernel/osrelease` (`Documentation/admin-guide/sysctl/kernel.rst`). `bus/pci/devices`
//! links each PCI function to its place under `devices/`, with the `vendor`, `class` and
//! `device` ids `drivers/pci/pci-sysfs.c` prints ("0x15b3", "0x020000"; ConnectX-6 Dx is
//! device 0x101d, the MT4125 of `hca_type`); the host has no GPU, so tests add one.

use std::{
    ffi::OsStr,
    fs,
    path::{Path, PathBuf},
};

use lab_tests::{
    cli::{Cli, Run},
    probe::copy_tree,
};
use serde_json::Value;
use tempfile::TempDir;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The doctor over `sysfs` and `procfs`, with the debugfs recorded beside them.
fn doctor(sysfs: &Path, procfs: &Path, extra: &[&str]) -> Run {
    let debugfs = sysfs.parent().unwrap().join("debugfs");
    let roots = [
        "doctor".as_ref(),
        "--sysfs-root".as_ref(),
        sysfs.as_os_str(),
        "--procfs-root".as_ref(),
        procfs.as_os_str(),
        "--debugfs-root".as_ref(),
        debugfs.as_os_str(),
    ];
    Cli::new(PROBE).run(roots.into_iter().chain(extra.iter().map(OsStr::new)))
}

/// The check with this id.
fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report:#}"))
}

fn status<'a>(report: &'a Value, id: &str) -> &'a str {
    check(report, id)["status"].as_str().unwrap()
}

fn title<'a>(report: &'a Value, id: &str) -> &'a str {
    check(report, id)["title"].as_str().unwrap()
}

/// A copy of the recorded host to alter, its symlinks kept as links (as build.rs does).
struct Host {
    dir: TempDir,
}

impl Host {
    fn new() -> Host {
        let dir = tempfile::Builder::new()
            .prefix("rdma-lab-doctor-")
            .tempdir()
            .unwrap();
        for tree in ["sysfs", "procfs", "debugfs"] {
            copy_tree(&fixtures().join(tree), &dir.path().join(tree)).unwrap();
        }
        Host { dir }
    }

    fn sysfs(&self) -> PathBuf {
        self.dir.path().join("sysfs")
    }

    fn procfs(&self) -> PathBuf {
        self.dir.path().join("procfs")
    }

    /// Rewrites a file of the copy (through its links, which stay inside the copy).
    fn write(&self, relative: &str, text: &str) {
        let path = self.dir.path().join(relative);
        assert!(path.exists(), "{relative} is not in the fixture");
        fs::write(path, format!("{text}\n")).unwrap();
    }

    fn remove(&self, relative: &str) {
        let path = self.dir.path().join(relative);
        let kind = fs::symlink_metadata(&path).unwrap().file_type();
        if kind.is_dir() {
            fs::remove_dir_all(path).unwrap();
        } else {
            fs::remove_file(path).unwrap();
        }
    }

    fn run(&self) -> Run {
        doctor(&self.sysfs(), &self.procfs(), &["--json"])
    }
}

const MLX5_0: &str = "sysfs/class/infiniband/mlx5_0";

#[test]
fn the_recorded_host_passes_every_check_that_applies() {
    let run = doctor(
        &fixtures().join("sysfs"),
        &fixtures().join("procfs"),
        &["--json"],
    );
    assert_eq!(run.code(), 0, "{}", run.stderr);
    let report = run.json();
    let ids: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "port-state/mlx5_0/1",
            "port-state/mlx5_1/1",
            "port-state/mlx5_2/1",
            "transport-errors/mlx5_0/1",
            "transport-errors/mlx5_1/1",
            "transport-errors/mlx5_2/1",
            "roce-gid/mlx5_0/1",
            "roce-gid/mlx5_1/1",
            "roce-gid/mlx5_2/1",
            "roce-mtu/mlx5_0/1",
            "roce-mtu/mlx5_1/1",
            "roce-mtu/mlx5_2/1",
            "gpudirect",
            "dma-buf",
            "iommu",
            "pcie/mlx5_0",
            "pcie/mlx5_1",
            "pcie/mlx5_2",
            "gpu-nic",
            "memlock",
            "ecn/ens1f0np0",
            "ecn/ens1f1np1",
            "cc-params/mlx5_0",
            "cc-params/mlx5_1",
            "cc-params/mlx5_2",
        ]
    );
    for check in report["checks"].as_array().unwrap() {
        let id = check["id"].as_str().unwrap();
        // mlx5_2 is InfiniBand: GID index and netdev MTU are RoCE's, and the recording has
        // no DCQCN parameters for it; the host has no GPU.
        let expected = if (id.starts_with("roce-") || id.starts_with("cc-params/"))
            && id.contains("mlx5_2")
            || id == "gpu-nic"
        {
            "skip"
        } else {
            "pass"
        };
        assert_eq!(check["status"], expected, "{check:#}");
        // Only the GID check carries advice when it passes: the index to give NCCL.
        let advice = id.starts_with("roce-gid/") && expected == "pass";
        assert_eq!(check["fix"].is_null(), !advice, "{check:#}");
    }
    assert!(
        title(&report, "roce-gid/mlx5_0/1").starts_with(
            "on mlx5_0 port 1 the RoCE v2 IPv4 10.0.0.1 on ens1f0np0 GID is index 3: set NCCL_IB_GID_INDEX=3"
        ),
        "{report:#}"
    );
    assert!(title(&report, "gpudirect").contains("535.183.01"));
    assert!(title(&report, "pcie/mlx5_2").contains("NUMA node 1"));
    assert!(title(&report, "dma-buf").starts_with("Linux 5.15 registers DMA-BUF memory"));
    assert!(
        title(&report, "cc-params/mlx5_0").contains("rp_ai_rate 5 Mb/s")
            && title(&report, "cc-params/mlx5_0").contains("20 parameters read"),
        "{report:#}"
    );
    // Evidence names the file as the user would find it, and the value read there.
    let state = &check(&report, "port-state/mlx5_0/1")["evidence"][0];
    assert_eq!(
        state["path"],
        format!(
            "{}/class/infiniband/mlx5_0/ports/1/state",
            fixtures().join("sysfs").display()
        )
    );
    assert_eq!(state["value"], "4: ACTIVE");
    let iommu = &check(&report, "iommu")["evidence"];
    assert_eq!(iommu[0]["value"], "dmar0 dmar1 dmar2 dmar3");
    assert!(iommu[1]["value"].as_str().unwrap().ends_with("iommu=pt"));
}

#[test]
fn a_port_that_lost_its_link_fails_and_the_exit_status_says_so() {
    let host = Host::new();
    host.write(&format!("{MLX5_0}/ports/1/state"), "1: DOWN");
    host.write(&format!("{MLX5_0}/ports/1/phys_state"), "2: Polling");
    let run = host.run();
    assert_eq!(run.code(), 1);
    let report = run.json();
    assert_eq!(status(&report, "port-state/mlx5_0/1"), "fail");
    assert_eq!(status(&report, "port-state/mlx5_1/1"), "pass");
    let fix = check(&report, "port-state/mlx5_0/1")["fix"]
        .as_str()
        .unwrap();
    assert!(fix.contains("no link partner"), "{fix}");
}

#[test]
fn a_malformed_file_is_a_failure_naming_its_path() {
    let host = Host::new();
    host.write(&format!("{MLX5_0}/ports/1/state"), "ACTIVE");
    let run = host.run();
    assert_eq!(run.code(), 1);
    let report = run.json();
    let found = title(&report, "port-state/mlx5_0/1");
    assert!(
        found.starts_with(&format!(
            "{}/class/infiniband/mlx5_0/ports/1/state is malformed",
            host.sysfs().display()
        )),
        "{found}"
    );
}

#[test]
fn without_an_ipv4_address_only_link_local_gids_remain_and_warn() {
    let host = Host::new();
    let zero = "0000:0000:0000:0000:0000:0000:0000:0000";
    host.write(&format!("{MLX5_0}/ports/1/gids/2"), zero);
    host.write(&format!("{MLX5_0}/ports/1/gids/3"), zero);
    let run = host.run();
    assert_eq!(run.code(), 0);
    let report = run.json();
    assert_eq!(status(&report, "roce-gid/mlx5_0/1"), "warn");
    assert!(title(&report, "roce-gid/mlx5_0/1").contains("only a link-local RoCE v2 GID (index 1"));

    // No RoCE v2 entry at all: RoCE v2 cannot work.
    host.write(&format!("{MLX5_0}/ports/1/gid_attrs/types/1"), "IB/RoCE v1");
    let report = host.run().json();
    assert_eq!(status(&report, "roce-gid/mlx5_0/1"), "fail");
}

#[test]
fn a_standard_mtu_warns_with_the_rdma_mtu_it_allows() {
    let host = Host::new();
    host.write("sysfs/class/net/ens1f0np0/mtu", "1500");
    let report = host.run().json();
    assert_eq!(status(&report, "roce-mtu/mlx5_0/1"), "warn");
    assert!(title(&report, "roce-mtu/mlx5_0/1").contains("RDMA MTU is 1024"));
    assert_eq!(status(&report, "roce-mtu/mlx5_1/1"), "pass");
    host.write("sysfs/class/net/ens1f0np0/mtu", "256");
    assert_eq!(status(&host.run().json(), "roce-mtu/mlx5_0/1"), "fail");
}

#[test]
fn gpudirect_warns_without_nvidia_peermem_and_skips_without_a_gpu_driver() {
    let host = Host::new();
    host.remove("sysfs/module/nvidia_peermem");
    let report = host.run().json();
    assert_eq!(status(&report, "gpudirect"), "warn");
    let fix = check(&report, "gpudirect")["fix"].as_str().unwrap();
    assert!(fix.contains("modprobe nvidia_peermem"), "{fix}");
    host.remove("sysfs/module/nvidia");
    assert_eq!(status(&host.run().json(), "gpudirect"), "skip");
}

#[test]
fn translated_dma_warns_from_the_group_type_or_the_command_line() {
    let host = Host::new();
    host.write("sysfs/kernel/iommu_groups/80/type", "DMA-FQ");
    let report = host.run().json();
    assert_eq!(status(&report, "iommu"), "warn");
    assert!(title(&report, "iommu").contains("mlx5_2 (DMA-FQ)"));

    // Without group types the command line decides: IOMMU units and no iommu=pt.
    for group in ["0000:3b:00.0", "0000:3b:00.1"] {
        host.remove(&format!(
            "sysfs/devices/pci0000:3a/0000:3a:00.0/{group}/iommu_group"
        ));
    }
    host.remove("sysfs/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0/iommu_group");
    host.write(
        "procfs/cmdline",
        "BOOT_IMAGE=/boot/vmlinuz-5.15.0-105-generic root=/dev/sda1 ro intel_iommu=on",
    );
    let report = host.run().json();
    assert_eq!(status(&report, "iommu"), "warn");
    assert!(check(&report, "iommu")["fix"]
        .as_str()
        .unwrap()
        .contains("iommu=pt"));
}

#[test]
fn a_nic_trained_below_its_lanes_warns() {
    let host = Host::new();
    host.write(&format!("{MLX5_0}/device/current_link_width"), "8");
    let report = host.run().json();
    assert_eq!(status(&report, "pcie/mlx5_0"), "warn");
    assert!(title(&report, "pcie/mlx5_0")
        .contains("trained at 16.0 GT/s x8, below the NIC's 16.0 GT/s x16"));
    assert_eq!(status(&report, "pcie/mlx5_1"), "pass");
}

#[test]
fn a_memlock_limit_below_unlimited_warns() {
    let host = Host::new();
    let limits = fs::read_to_string(host.procfs().join("self/limits")).unwrap();
    let lowered = limits.replace(
        "Max locked memory         unlimited            unlimited",
        "Max locked memory         8388608              8388608  ",
    );
    assert_ne!(lowered, limits);
    fs::write(host.procfs().join("self/limits"), lowered).unwrap();
    let report = host.run().json();
    assert_eq!(status(&report, "memlock"), "warn");
    assert!(title(&report, "memlock").contains("8 MiB"));
}

#[test]
fn counted_transport_errors_warn_with_what_to_check() {
    let host = Host::new();
    // One refused RDMA WRITE: its error completion, and the work requests flushed after it.
    let hw = format!("{MLX5_0}/ports/1/hw_counters");
    host.write(&format!("{hw}/req_remote_access_errors"), "1");
    host.write(&format!("{hw}/req_cqe_error"), "1");
    host.write(&format!("{hw}/req_cqe_flush_error"), "30");
    host.write(&format!("{hw}/rx_icrc_encapsulated"), "4");
    let run = host.run();
    assert_eq!(run.code(), 0, "a warning is not a failure: {}", run.stderr);
    let report = run.json();
    let id = "transport-errors/mlx5_0/1";
    assert_eq!(status(&report, id), "warn");
    assert!(
        title(&report, id)
            .ends_with("req_remote_access_errors 1, req_cqe_error 1, rx_icrc_encapsulated 4"),
        "{report:#}"
    );
    let fix = check(&report, id)["fix"].as_str().unwrap();
    for page in [
        "/verbs#memory-registration-lkey-rkey-and-pinning",
        "/troubleshooting#ib-completion-error",
        "/roce#roce-v2-header-by-header",
    ] {
        assert!(fix.contains(page), "{fix}");
    }
    assert_eq!(status(&report, "transport-errors/mlx5_1/1"), "pass");
}

#[test]
fn ecn_off_on_one_priority_warns_naming_it() {
    let host = Host::new();
    host.write("sysfs/class/net/ens1f1np1/ecn/roce_rp/enable/3", "0");
    let report = host.run().json();
    assert_eq!(status(&report, "ecn/ens1f1np1"), "warn");
    assert!(title(&report, "ecn/ens1f1np1").contains("roce_rp on priority 3"));
    assert_eq!(status(&report, "ecn/ens1f0np0"), "pass");
}

#[test]
fn a_host_without_rdma_devices_fails() {
    let empty = tempfile::tempdir().unwrap();
    let run = doctor(empty.path(), &fixtures().join("procfs"), &["--json"]);
    assert_eq!(run.code(), 1);
    let report = run.json();
    assert_eq!(status(&report, "rdma-devices"), "fail");
    assert!(check(&report, "rdma-devices")["fix"]
        .as_str()
        .unwrap()
        .contains("modprobe mlx5_ib"));
}

#[test]
fn text_mode_prints_a_marked_line_per_check_with_indented_evidence_and_fix() {
    let host = Host::new();
    host.write("sysfs/class/net/ens1f0np0/mtu", "1500");
    let run = doctor(&host.sysfs(), &host.procfs(), &[]);
    assert_eq!(run.code(), 0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "✓ mlx5_0 port 1: ACTIVE, LinkUp, Ethernet (RoCE)");
    assert!(lines[1].starts_with("    ") && lines[1].ends_with("/ports/1/state: 4: ACTIVE"));
    let warned = lines
        .iter()
        .position(|l| l.starts_with("! mlx5_0 port 1: ens1f0np0 MTU 1500"))
        .unwrap();
    assert!(lines[warned + 1].ends_with("class/net/ens1f0np0/mtu: 1500"));
    assert!(lines[warned + 2].starts_with("    fix: Raise ens1f0np0's MTU"));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("- mlx5_2 port 1 is not RoCE")));
    assert_eq!(
        lines.last(),
        Some(&"20 passed, 1 warned, 0 failed, 4 skipped")
    );
}

#[test]
fn an_unreadable_root_is_an_error_that_names_the_flag() {
    let run = doctor(
        Path::new("/nonexistent/sys"),
        &fixtures().join("procfs"),
        &[],
    );
    assert_eq!(run.code(), 1);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("give --sysfs-root a directory laid out like /sys"),
        "{}",
        run.stderr
    );
    let help = Cli::new(PROBE).run(["doctor", "--help"]).stdout;
    assert!(
        help.contains("Exit status: 0 when no check failed"),
        "{help}"
    );
}

#[test]
fn a_link_out_of_the_tree_is_not_followed_and_fails_the_check_that_needed_it() {
    let host = Host::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("mtu"), "9000\n").unwrap();
    let mtu = host
        .sysfs()
        .join("devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/ens1f0np0/mtu");
    fs::remove_file(&mtu).unwrap();
    std::os::unix::fs::symlink(outside.path().join("mtu"), &mtu).unwrap();
    let run = host.run();
    assert_eq!(run.code(), 1);
    let report = run.json();
    assert_eq!(status(&report, "roce-mtu/mlx5_0/1"), "fail");
    let value = check(&report, "roce-mtu/mlx5_0/1")["evidence"][0]["value"]
        .as_str()
        .unwrap();
    assert!(value.contains("outside the tree"), "{value}");
}

#[test]
fn ecn_is_skipped_where_the_driver_has_no_ecn_directory() {
    let host = Host::new();
    host.remove("sysfs/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/ens1f0np0/ecn");
    let run = host.run();
    assert_eq!(run.code(), 0);
    let report = run.json();
    assert_eq!(status(&report, "ecn/ens1f0np0"), "skip");
    assert!(title(&report, "ecn/ens1f0np0").contains("MLNX_OFED"));
    assert_eq!(status(&report, "ecn/ens1f1np1"), "pass");
}

/// Adds an NVIDIA GPU to the copy at `path` (under `devices/`), with the files and the
/// `bus/pci/devices` link a real one has.
fn add_gpu(host: &Host, path: &str, numa: &str) {
    let dir = host.sysfs().join("devices").join(path);
    fs::create_dir_all(&dir).unwrap();
    for (name, value) in [
        ("vendor", "0x10de"),
        ("class", "0x030200"),
        ("device", "0x2330"),
    ] {
        fs::write(dir.join(name), format!("{value}\n")).unwrap();
    }
    fs::write(dir.join("numa_node"), format!("{numa}\n")).unwrap();
    let address = path.rsplit('/').next().unwrap();
    std::os::unix::fs::symlink(
        format!("../../../devices/{path}"),
        host.sysfs().join("bus/pci/devices").join(address),
    )
    .unwrap();
}

#[test]
fn a_gpu_that_meets_its_nic_only_at_the_host_bridge_warns_with_nccls_level() {
    let host = Host::new();
    // Another root port of the host bridge that holds mlx5_0 and mlx5_1.
    add_gpu(&host, "pci0000:3a/0000:3a:02.0/0000:3c:00.0", "0");
    let report = host.run().json();
    let id = "gpu-nic/0000:3c:00.0";
    assert_eq!(status(&report, id), "warn", "{report:#}");
    assert!(
        title(&report, id).contains("mlx5_0"),
        "{}",
        title(&report, id)
    );
    assert!(
        title(&report, id).contains("(PHB)"),
        "{}",
        title(&report, id)
    );
    let fix = check(&report, id)["fix"].as_str().unwrap();
    assert!(fix.contains("NCCL_NET_GDR_LEVEL=PHB"), "{fix}");
    // No shared switch, so no ACS to look at.
    assert!(report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| !c["id"].as_str().unwrap().starts_with("acs/")));
}

/// 4 KiB of a switch port's config space whose only extended capability is ACS, at 0x100,
/// with `control` in its control register (PCIe Base Specification, ACS Extended Capability).
fn switch_port_config(control: u16) -> Vec<u8> {
    let mut bytes = vec![0u8; 4096];
    bytes[0..4].copy_from_slice(&[0xb5, 0x10, 0x00, 0x87]); // vendor 0x10b5 (a switch maker)
    bytes[0x100..0x104].copy_from_slice(&(0x000d_u32 | 1 << 16).to_le_bytes());
    bytes[0x106..0x108].copy_from_slice(&control.to_le_bytes());
    bytes
}

#[test]
fn a_gpu_beside_its_nic_under_a_switch_passes_and_acs_redirect_on_its_ports_warns() {
    let host = Host::new();
    // A switch below mlx5_2's root port: upstream port 0000:b0:00.0, downstream ports
    // 0000:b1:00.0 (to the GPU) and 0000:b1:04.0 (to a second IB function moved there).
    let switch = "pci0000:ae/0000:ae:00.0/0000:b0:00.0";
    add_gpu(&host, &format!("{switch}/0000:b1:00.0/0000:b2:00.0"), "1");
    let nic_dir = host
        .sysfs()
        .join(format!("devices/{switch}/0000:b1:04.0/0000:b3:00.0"));
    fs::create_dir_all(&nic_dir).unwrap();
    fs::write(nic_dir.join("numa_node"), "1\n").unwrap();
    let link = host.sysfs().join("class/infiniband/mlx5_2/device");
    // mlx5_2's `device` link now leads to the function under the switch.
    let class_link = host.sysfs().join("class/infiniband/mlx5_2");
    let ib_dir = nic_dir.join("infiniband/mlx5_2");
    fs::create_dir_all(ib_dir.parent().unwrap()).unwrap();
    copy_tree(&fs::canonicalize(&class_link).unwrap(), &ib_dir).unwrap();
    fs::remove_file(&class_link).unwrap();
    std::os::unix::fs::symlink(
        format!("../../devices/{switch}/0000:b1:04.0/0000:b3:00.0/infiniband/mlx5_2"),
        &class_link,
    )
    .unwrap();
    let _ = fs::remove_file(ib_dir.join("device"));
    std::os::unix::fs::symlink("../../../0000:b3:00.0", ib_dir.join("device")).unwrap();
    assert!(link.join("numa_node").exists());
    let ports = |control: u16| {
        for port in ["0000:b1:00.0", "0000:b1:04.0"] {
            let dir = host.sysfs().join(format!("devices/{switch}/{port}"));
            fs::write(dir.join("config"), switch_port_config(control)).unwrap();
            let bus_link = host.sysfs().join("bus/pci/devices").join(port);
            let _ = fs::remove_file(&bus_link);
            std::os::unix::fs::symlink(format!("../../../devices/{switch}/{port}"), bus_link)
                .unwrap();
        }
    };

    ports(0x0000);
    let report = host.run().json();
    let gpu = "0000:b2:00.0";
    assert_eq!(
        status(&report, &format!("gpu-nic/{gpu}")),
        "pass",
        "{report:#}"
    );
    assert!(title(&report, &format!("gpu-nic/{gpu}")).contains("mlx5_2"));
    assert_eq!(status(&report, &format!("acs/{gpu}")), "pass", "{report:#}");

    // Request and completion redirect on, as Linux sets them with the IOMMU translating.
    ports(0x001d);
    let report = host.run().json();
    assert_eq!(status(&report, &format!("acs/{gpu}")), "warn", "{report:#}");
    let warned = title(&report, &format!("acs/{gpu}"));
    assert!(
        warned.contains("0000:b1:00.0") && warned.contains("0000:b1:04.0"),
        "{warned}"
    );
    let evidence = &check(&report, &format!("acs/{gpu}"))["evidence"][0];
    assert_eq!(evidence["value"], "(4096 bytes)");

    // What a reader without root gets: the 64-byte header.
    for port in ["0000:b1:00.0", "0000:b1:04.0"] {
        let config = host.sysfs().join(format!("devices/{switch}/{port}/config"));
        fs::write(config, &switch_port_config(0x001d)[..64]).unwrap();
    }
    let report = host.run().json();
    assert_eq!(status(&report, &format!("acs/{gpu}")), "skip");
    assert!(title(&report, &format!("acs/{gpu}")).contains("needs root"));
}

#[test]
fn dcqcn_parameters_are_skipped_without_debugfs_and_a_bad_value_fails() {
    let host = Host::new();
    host.write("debugfs/mlx5/0000:3b:00.0/cc_params/rp_ai_rate", "five");
    host.remove("debugfs/mlx5/0000:3b:00.1");
    let report = host.run().json();
    assert_eq!(status(&report, "cc-params/mlx5_0"), "fail");
    assert!(title(&report, "cc-params/mlx5_0").contains("rp_ai_rate is malformed"));
    assert_eq!(status(&report, "cc-params/mlx5_1"), "skip");
    assert!(title(&report, "cc-params/mlx5_1").contains("debugfs is root-only"));
}
