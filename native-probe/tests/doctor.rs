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
//! `self/limits` laid out as `fs/proc/base.c` `proc_pid_limits()` prints it.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
};

use serde_json::Value;
use tempfile::TempDir;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// What one run printed and how it exited.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", self.stdout, self.stderr))
    }
}

fn doctor(sysfs: &Path, procfs: &Path, extra: &[&str]) -> Run {
    let output = Command::new(PROBE)
        .arg("doctor")
        .arg("--sysfs-root")
        .arg(sysfs)
        .arg("--procfs-root")
        .arg(procfs)
        .args(extra)
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
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
        for tree in ["sysfs", "procfs"] {
            copy(&fixtures().join(tree), &dir.path().join(tree));
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

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        let kind = fs::symlink_metadata(&path).unwrap().file_type();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&path).unwrap(), target).unwrap();
        } else if kind.is_dir() {
            copy(&path, &target);
        } else {
            fs::copy(&path, target).unwrap();
        }
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
    assert_eq!(run.code, 0, "{}", run.stderr);
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
            "roce-gid/mlx5_0/1",
            "roce-gid/mlx5_1/1",
            "roce-gid/mlx5_2/1",
            "roce-mtu/mlx5_0/1",
            "roce-mtu/mlx5_1/1",
            "roce-mtu/mlx5_2/1",
            "gpudirect",
            "iommu",
            "pcie/mlx5_0",
            "pcie/mlx5_1",
            "pcie/mlx5_2",
            "memlock",
            "ecn/ens1f0np0",
            "ecn/ens1f1np1",
        ]
    );
    for check in report["checks"].as_array().unwrap() {
        let id = check["id"].as_str().unwrap();
        // mlx5_2 is InfiniBand: GID index and netdev MTU are RoCE's.
        let expected = if id.starts_with("roce-") && id.contains("mlx5_2") {
            "skip"
        } else {
            "pass"
        };
        assert_eq!(check["status"], expected, "{check:#}");
        assert!(check["fix"].is_null(), "{check:#}");
    }
    assert!(
        title(&report, "roce-gid/mlx5_0/1").starts_with(
            "on mlx5_0 port 1 the RoCE v2 IPv4 10.0.0.1 on ens1f0np0 GID is index 3: set NCCL_IB_GID_INDEX=3"
        ),
        "{report:#}"
    );
    assert!(title(&report, "gpudirect").contains("535.183.01"));
    assert!(title(&report, "pcie/mlx5_2").contains("NUMA node 1"));
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
    assert_eq!(run.code, 1);
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
    assert_eq!(run.code, 1);
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
    assert_eq!(run.code, 0);
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
    assert_eq!(run.code, 1);
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
    assert_eq!(run.code, 0);
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
        Some(&"14 passed, 1 warned, 0 failed, 2 skipped")
    );
}

#[test]
fn an_unreadable_root_is_an_error_that_names_the_flag() {
    let run = doctor(
        Path::new("/nonexistent/sys"),
        &fixtures().join("procfs"),
        &[],
    );
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr
            .contains("give --sysfs-root a directory laid out like /sys"),
        "{}",
        run.stderr
    );
    let help = Command::new(PROBE)
        .args(["doctor", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
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
    assert_eq!(run.code, 1);
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
    assert_eq!(run.code, 0);
    let report = run.json();
    assert_eq!(status(&report, "ecn/ens1f0np0"), "skip");
    assert!(title(&report, "ecn/ens1f0np0").contains("MLNX_OFED"));
    assert_eq!(status(&report, "ecn/ens1f1np1"), "pass");
}
