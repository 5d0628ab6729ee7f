//! `native-probe doctor`'s verdicts: whether a host is ready for RDMA (and GPUDirect RDMA with
//! NCCL), decided from the plain text of the sysfs and procfs files the probe read, so the
//! lab page can show the same findings from the same data.
//!
//! Each check names the files it read ([`Evidence`]) and, unless it passed, what to do. A
//! file that is not in the format the kernel prints is a failed check naming that file, never
//! a guess. The formats, and where they come from:
//! - port `state`/`phys_state` "`<code>: <name>`", `link_layer`, `gids/<i>`,
//!   `gid_attrs/{types,ndevs}/<i>`: kernel `Documentation/ABI/stable/sysfs-class-infiniband`,
//!   printed by `drivers/infiniband/core/sysfs.c`; the type names "IB/RoCE v1" and "RoCE v2"
//!   are `drivers/infiniband/core/cache.c`'s `gid_type_str`;
//! - `class/net/<if>/mtu`: `Documentation/ABI/testing/sysfs-class-net`;
//! - `module/<name>/{initstate,version}`: `Documentation/ABI/testing/sysfs-module`;
//! - `class/iommu/`: `Documentation/ABI/testing/sysfs-class-iommu`; `iommu_group/type`:
//!   `Documentation/ABI/testing/sysfs-kernel-iommu_groups`; the command line's `iommu=pt`,
//!   `iommu.passthrough=`, `intel_iommu=`, `amd_iommu=`:
//!   `Documentation/admin-guide/kernel-parameters.txt`;
//! - PCI `current_link_speed` "16.0 GT/s PCIe" and `current_link_width` "16" (and their
//!   `max_` twins): `drivers/pci/pci-sysfs.c`, the speed names from `pci_speed_string()`;
//! - `/proc/<pid>/limits`: `fs/proc/base.c` `proc_pid_limits()`;
//! - `class/net/<if>/ecn/roce_{np,rp}/enable/<prio>`: NVIDIA's MLNX_OFED mlx5 driver (the
//!   MLNX_OFED manual, "Explicit Congestion Notification (ECN)"), not the inbox driver;
//! - debugfs `mlx5/<pci>/cc_params/<name>`: one decimal number each, kernel
//!   `drivers/infiniband/hw/mlx5/cong.c` (units as [`crate::dcqcn::DcqcnParams`] gives them);
//! - `/proc/sys/kernel/osrelease`: `Documentation/admin-guide/sysctl/kernel.rst`;
//! - the PCIe tree and config space: see [`pci`].

use serde::{Deserialize, Serialize};

use super::attribute;

pub mod pci;
pub use pci::{acs, gpu_nic_path, no_gpus, ConfigSpace, GpuNicPath, PciPlace};

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    /// Works, but slower or more fragile than it should be.
    Warn,
    /// RDMA (or what the check covers) will not work as the host stands.
    Fail,
    /// Could not be decided here (not applicable, or needs root); the title says why.
    Skip,
}

/// One file the verdict rests on, and what it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub path: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable across runs: the check's kind, then what it is about (`port-state/mlx5_0/1`).
    pub id: String,
    pub status: Status,
    /// The finding in one sentence.
    pub title: String,
    pub evidence: Vec<Evidence>,
    /// What to do; `None` when there is nothing to do.
    pub fix: Option<String>,
}

/// What `native-probe doctor --json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    pub fn any_failed(&self) -> bool {
        self.checks.iter().any(|c| c.status == Status::Fail)
    }

    /// How many checks came out `status`.
    pub fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }
}

/// What reading one file gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// The text, without its trailing newline.
    Text(String),
    Missing,
    /// Permission denied: reading it needs root.
    Denied,
    /// Any other failure, as the reader put it.
    Unreadable(String),
}

/// One file (or, for a directory, its entry names joined by spaces) and where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    pub path: String,
    pub content: Content,
}

impl FileRead {
    pub fn text(path: impl Into<String>, text: impl Into<String>) -> FileRead {
        FileRead {
            path: path.into(),
            content: Content::Text(text.into()),
        }
    }

    pub fn missing(path: impl Into<String>) -> FileRead {
        FileRead {
            path: path.into(),
            content: Content::Missing,
        }
    }

    fn value(&self) -> Option<&str> {
        match &self.content {
            Content::Text(text) => Some(text),
            _ => None,
        }
    }

    fn evidence(&self) -> Evidence {
        let value = match &self.content {
            Content::Text(text) => text.clone(),
            Content::Missing => "(missing)".to_string(),
            Content::Denied => "(permission denied: needs root)".to_string(),
            Content::Unreadable(why) => format!("(unreadable: {why})"),
        };
        Evidence {
            path: self.path.clone(),
            value,
        }
    }
}

fn evidence<'a>(files: impl IntoIterator<Item = &'a FileRead>) -> Vec<Evidence> {
    files.into_iter().map(FileRead::evidence).collect()
}

fn check(
    id: String,
    status: Status,
    title: String,
    evidence: Vec<Evidence>,
    fix: Option<String>,
) -> Check {
    Check {
        id,
        status,
        title,
        evidence,
        fix,
    }
}

/// The failed check for a file whose text is not what the kernel prints there.
fn malformed(id: String, file: &FileRead, error: impl std::fmt::Display) -> Check {
    check(
        id,
        Status::Fail,
        format!("{} is malformed: {error}", file.path),
        vec![file.evidence()],
        Some(
            "This is not what the kernel writes in that file; if the tree is a copy, copy it \
             again from the host (cp -rL keeps sysfs's text), else report the driver's output."
                .to_string(),
        ),
    )
}

/// What makes a file unusable for a check that needs it, as a reason for the title.
fn unavailable(file: &FileRead) -> String {
    match &file.content {
        Content::Text(_) => format!("{} is empty", file.path),
        Content::Missing => format!("{} does not exist", file.path),
        Content::Denied => format!("{} needs root to read", file.path),
        Content::Unreadable(why) => format!("{} could not be read ({why})", file.path),
    }
}

// ---------------------------------------------------------------------------------------
// 1. RDMA devices and port state

/// `class/infiniband` had no device in it (or did not exist).
pub fn no_rdma_devices(class_dir: &FileRead) -> Check {
    check(
        "rdma-devices".to_string(),
        Status::Fail,
        "no RDMA devices: nothing under class/infiniband".to_string(),
        vec![class_dir.evidence()],
        Some(
            "Load the RDMA driver of your NIC (modprobe mlx5_ib for ConnectX; ib_core and \
             ib_uverbs come with it) and check that `rdma link` lists it."
                .to_string(),
        ),
    )
}

/// The files of one `class/infiniband/<device>/ports/<port>/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortFiles {
    pub device: String,
    pub port: u32,
    pub state: FileRead,
    pub phys_state: FileRead,
    pub link_layer: FileRead,
}

/// The logical `state` a port must reach to carry traffic (IBTA PortInfo PortState 4).
const ACTIVE: u32 = 4;
/// The `phys_state` of a trained link (IBTA PortPhysicalState 5).
const LINK_UP: u32 = 5;

/// A port carries traffic once it is ACTIVE over a physical link that is LinkUp.
pub fn port_state(port: &PortFiles) -> Check {
    let id = format!("port-state/{}/{}", port.device, port.port);
    let files = [&port.state, &port.phys_state, &port.link_layer];
    let parse = |file: &FileRead| match file.value() {
        Some(text) => attribute::enumerated(text).map(Some),
        None => Ok(None),
    };
    let state = match parse(&port.state) {
        Ok(state) => state,
        Err(error) => return malformed(id, &port.state, error),
    };
    let phys = match parse(&port.phys_state) {
        Ok(phys) => phys,
        Err(error) => return malformed(id, &port.phys_state, error),
    };
    let link_layer = port.link_layer.value().unwrap_or("unknown link layer");
    let roce = link_layer == "Ethernet";
    let Some(state) = state else {
        return check(
            id,
            Status::Fail,
            format!(
                "{} port {}: no state ({})",
                port.device,
                port.port,
                unavailable(&port.state)
            ),
            evidence(files),
            Some("Reload the RDMA driver (e.g. modprobe -r mlx5_ib && modprobe mlx5_ib).".into()),
        );
    };
    let phys_name = phys.as_ref().map_or("unknown", |p| p.name.as_str());
    let title = format!(
        "{} port {}: {}, {}, {}{}",
        port.device,
        port.port,
        state.name,
        phys_name,
        link_layer,
        if roce { " (RoCE)" } else { "" }
    );
    let phys_code = phys.as_ref().map(|p| p.code);
    // ACTIVE needs a trained link, so an unreadable phys_state does not cast doubt on it.
    if state.code == ACTIVE && matches!(phys_code, Some(LINK_UP) | None) {
        return check(id, Status::Pass, title, evidence(files), None);
    }
    let fix = match (state.code, phys_code) {
        (_, Some(3)) => "The port is disabled: enable it (ibportstate <lid> <port> enable on \
                         InfiniBand; ip link set <netdev> up on RoCE)."
            .to_string(),
        (_, Some(2)) => "The port sees no link partner (Polling): check the cable or \
                         transceiver and that the switch port is up; ibstat or ethtool <netdev> \
                         shows what was negotiated."
            .to_string(),
        (2, Some(LINK_UP)) if !roce => "The link is up but no subnet manager configured the \
                                        port (INIT): run opensm on one node or enable the \
                                        switch's SM; sminfo finds the master SM."
            .to_string(),
        (3, _) => "The subnet manager configured the port but has not activated it (ARMED): \
                   check the SM's log."
            .to_string(),
        (ACTIVE, _) => "The port is ACTIVE on a link that is not LinkUp: watch for link \
                        errors (LinkErrorRecovery) in the port's counters and reseat the cable."
            .to_string(),
        _ if roce => "The Ethernet link under this RoCE port is down: ip link set <netdev> up, \
                      then check the cable and the switch port."
            .to_string(),
        _ => "The port is not active: check the cable, the switch port and the subnet manager."
            .to_string(),
    };
    check(id, Status::Fail, title, evidence(files), Some(fix))
}

// ---------------------------------------------------------------------------------------
// 2. RoCE v2 GIDs and NCCL_IB_GID_INDEX

/// One `gids/<index>` slot with its `gid_attrs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GidFiles {
    pub index: u32,
    pub gid: FileRead,
    pub gid_type: FileRead,
    pub ndev: FileRead,
}

/// A port's GID table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GidTable {
    pub device: String,
    pub port: u32,
    /// `link_layer`'s text, when it could be read.
    pub link_layer: Option<String>,
    pub entries: Vec<GidFiles>,
}

/// What a populated GID's address is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Address {
    /// IPv4-mapped `::ffff:a.b.c.d` (RFC 4291 section 2.5.5.2).
    Ipv4(String),
    /// `fe80::/10` (RFC 4291 section 2.5.6): not routed beyond its link.
    LinkLocal,
    GlobalIpv6,
}

const ROCE_V2: &str = "RoCE v2";
const ROCE_V1: &str = "IB/RoCE v1";

struct Populated<'a> {
    files: &'a GidFiles,
    address: Address,
    roce_v2: bool,
}

/// The populated entries of a table, or the check that fails on a malformed one. An all-zero
/// GID is an empty slot, as rdma-core's `show_gids` treats it; its `gid_attrs` are not read.
fn populated<'a>(id: &str, table: &'a GidTable) -> Result<Vec<Populated<'a>>, Check> {
    let mut entries = Vec::new();
    for files in &table.entries {
        let Some(text) = files.gid.value() else {
            continue;
        };
        let groups = attribute::gid(text).map_err(|e| malformed(id.to_string(), &files.gid, e))?;
        if groups.iter().all(|&g| g == 0) {
            continue;
        }
        let roce_v2 = match files.gid_type.value() {
            Some(ROCE_V2) => true,
            Some(ROCE_V1) | None => false,
            Some(_) => {
                return Err(malformed(
                    id.to_string(),
                    &files.gid_type,
                    format!("expected \"{ROCE_V1}\" or \"{ROCE_V2}\""),
                ))
            }
        };
        let address = match attribute::ipv4_of_gid(&groups) {
            Some(ipv4) => Address::Ipv4(ipv4),
            None if groups[0] & 0xffc0 == 0xfe80 => Address::LinkLocal,
            None => Address::GlobalIpv6,
        };
        entries.push(Populated {
            files,
            address,
            roce_v2,
        });
    }
    Ok(entries)
}

/// The netdev a RoCE port's GIDs belong to: the `ndevs` of its first populated entry.
pub fn port_netdev(table: &GidTable) -> Option<String> {
    let entries = populated("", table).ok()?;
    entries
        .iter()
        .find_map(|e| e.files.ndev.value().filter(|n| !n.is_empty()))
        .map(str::to_string)
}

/// NCCL picks the GID by `NCCL_IB_GID_INDEX`; the one to give it is the RoCE v2 entry of an
/// IPv4 address (routable, and what RoCE fabrics are built for), else a RoCE v2 global IPv6
/// one. Link-local entries are flagged: they do not cross a router.
pub fn roce_v2_gid(table: &GidTable) -> Check {
    let id = format!("roce-gid/{}/{}", table.device, table.port);
    let where_ = format!("{} port {}", table.device, table.port);
    if table.link_layer.as_deref() != Some("Ethernet") {
        return check(
            id,
            Status::Skip,
            format!(
                "{where_} is not RoCE (link layer {}): NCCL_IB_GID_INDEX applies to RoCE ports only",
                table.link_layer.as_deref().unwrap_or("unknown")
            ),
            Vec::new(),
            None,
        );
    }
    let entries = match populated(&id, table) {
        Ok(entries) => entries,
        Err(failed) => return failed,
    };
    let shown = evidence(
        entries
            .iter()
            .flat_map(|e| [&e.files.gid, &e.files.gid_type, &e.files.ndev]),
    );
    let v2 = || entries.iter().filter(|e| e.roce_v2);
    let ipv4 = v2().find_map(|e| match &e.address {
        Address::Ipv4(ip) => Some((e, format!("IPv4 {ip}"))),
        _ => None,
    });
    let global = || {
        v2().find(|e| e.address == Address::GlobalIpv6).map(|e| {
            (
                e,
                format!("global IPv6 {}", e.files.gid.value().unwrap_or("")),
            )
        })
    };
    let on_netdev = |e: &Populated| {
        e.files
            .ndev
            .value()
            .map(|n| format!(" on {n}"))
            .unwrap_or_default()
    };
    if let Some((entry, address)) = ipv4.or_else(global) {
        let index = entry.files.index;
        let link_local: Vec<String> = v2()
            .filter(|e| e.address == Address::LinkLocal)
            .map(|e| e.files.index.to_string())
            .collect();
        let flagged = if link_local.is_empty() {
            String::new()
        } else {
            format!(
                " (index {} is link-local fe80::, not routable)",
                link_local.join(", ")
            )
        };
        return check(
            id,
            Status::Pass,
            format!(
                "on {where_} the RoCE v2 {address}{} GID is index {index}: set \
                 NCCL_IB_GID_INDEX={index}{flagged}",
                on_netdev(entry)
            ),
            shown,
            // Advice even though nothing is wrong: the index to give NCCL. NCCL picks a
            // RoCE v2 GID itself only from 2.21 (`ncclIbGetGidIndex`, v2.21.5-1
            // src/transport/net_ib.cc:292); before, an unset variable meant index 0.
            Some(format!(
                "NCCL_IB_GID_INDEX={index} for jobs using {where_}; NCCL 2.21 and later find \
                 this index themselves when the variable is unset, older releases use index 0"
            )),
        );
    }
    let netdev = port_netdev(table).unwrap_or_else(|| "<netdev>".to_string());
    if let Some(entry) = v2().find(|e| e.address == Address::LinkLocal) {
        return check(
            id,
            Status::Warn,
            format!(
                "{where_} has only a link-local RoCE v2 GID (index {}, fe80::): it does not \
                 cross a router",
                entry.files.index
            ),
            shown,
            Some(format!(
                "Give {netdev} an IPv4 address (ip addr add <addr>/<len> dev {netdev}); the \
                 kernel adds a RoCE v2 GID for it, whose index goes in NCCL_IB_GID_INDEX."
            )),
        );
    }
    check(
        id,
        Status::Fail,
        format!("{where_} has no RoCE v2 GID, so RoCE v2 traffic cannot leave it"),
        shown,
        Some(format!(
            "Bring {netdev} up with an IP address (ip link set {netdev} up; ip addr add \
             <addr>/<len> dev {netdev}): the kernel adds RoCE v1 and v2 GIDs for each address \
             of the netdev (drivers/infiniband/core/roce_gid_mgmt.c)."
        )),
    )
}

// ---------------------------------------------------------------------------------------
// 3. netdev MTU and the RoCE path MTU

/// Bytes the kernel keeps free of a RoCE packet's netdev MTU for headers in `iboe_get_mtu()`
/// (`include/rdma/ib_addr.h`): GRH 40 + UDP 8 + BTH 12 + XRC ETH 4 + AtomicETH 28 + ICRC 4
/// (`include/rdma/ib_pack.h`).
pub const ROCE_HEADER_BYTES: u32 = 40 + 8 + 12 + 4 + 28 + 4;

/// The IB MTUs a RoCE path can have (IBTA `enum ib_mtu`), largest first.
const IB_MTUS: [u32; 5] = [4096, 2048, 1024, 512, 256];

/// The RDMA MTU a RoCE port gets from its netdev's MTU, as `iboe_get_mtu()` computes it: the
/// largest IB MTU that fits the netdev MTU less [`ROCE_HEADER_BYTES`]; `None` below 256.
/// The RDMA CM gives RoCE path records this MTU (`cma_resolve_iboe_route()` in
/// `drivers/infiniband/core/cma.c`).
pub fn iboe_mtu(netdev_mtu: u32) -> Option<u32> {
    let room = netdev_mtu.checked_sub(ROCE_HEADER_BYTES)?;
    IB_MTUS.into_iter().find(|&mtu| room >= mtu)
}

/// A RoCE port and its netdev's `mtu` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MtuFiles {
    pub device: String,
    pub port: u32,
    pub link_layer: Option<String>,
    /// The netdev of the port's GIDs and its `class/net/<netdev>/mtu`.
    pub netdev: Option<(String, FileRead)>,
}

/// The netdev MTU must leave room for a 4096-byte RDMA MTU plus headers, or every RDMA
/// message is cut into smaller packets (sysfs has no active_mtu: `ibv_devinfo` shows it).
pub fn roce_mtu(files: &MtuFiles) -> Check {
    let id = format!("roce-mtu/{}/{}", files.device, files.port);
    let where_ = format!("{} port {}", files.device, files.port);
    if files.link_layer.as_deref() != Some("Ethernet") {
        return check(
            id,
            Status::Skip,
            format!(
                "{where_} is not RoCE: on InfiniBand the subnet manager sets the MTU, not a netdev"
            ),
            Vec::new(),
            None,
        );
    }
    let Some((netdev, mtu_file)) = &files.netdev else {
        return check(
            id,
            Status::Skip,
            format!("{where_}: no netdev in its GID table (gid_attrs/ndevs), so no MTU to compare"),
            Vec::new(),
            None,
        );
    };
    let Some(text) = mtu_file.value() else {
        return check(
            id,
            Status::Fail,
            format!("{where_}: {}", unavailable(mtu_file)),
            vec![mtu_file.evidence()],
            Some(format!(
                "Check that {netdev} exists: ip link show {netdev}."
            )),
        );
    };
    let mtu: u32 = match attribute::number(text, "an MTU in bytes") {
        Ok(mtu) => mtu,
        Err(error) => return malformed(id, mtu_file, error),
    };
    let wanted = 4096 + ROCE_HEADER_BYTES;
    let raise = format!(
        "Raise {netdev}'s MTU to at least {wanted} (ip link set dev {netdev} mtu 9000, or 4200 \
         as NVIDIA suggests for RoCE), matching the switch ports; make it persistent in the \
         network configuration."
    );
    match iboe_mtu(mtu) {
        Some(4096) => check(
            id,
            Status::Pass,
            format!("{where_}: {netdev} MTU {mtu} carries the largest RDMA MTU, 4096"),
            vec![mtu_file.evidence()],
            None,
        ),
        Some(rdma) => check(
            id,
            Status::Warn,
            format!(
                "{where_}: {netdev} MTU {mtu} leaves {} bytes after {ROCE_HEADER_BYTES} bytes \
                 of RoCE v2 headers, so the RDMA MTU is {rdma}, not 4096",
                mtu - ROCE_HEADER_BYTES
            ),
            vec![mtu_file.evidence()],
            Some(raise),
        ),
        None => check(
            id,
            Status::Fail,
            format!(
                "{where_}: {netdev} MTU {mtu} is too small for any RDMA MTU (256 + \
                 {ROCE_HEADER_BYTES} bytes of headers)"
            ),
            vec![mtu_file.evidence()],
            Some(raise),
        ),
    }
}

// ---------------------------------------------------------------------------------------
// 4. GPUDirect RDMA: nvidia_peermem and the NVIDIA driver

/// `module/nvidia/version`, `module/nvidia_peermem/initstate`, `module/nv_peer_mem/initstate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuDirectFiles {
    pub nvidia_version: FileRead,
    pub nvidia_peermem: FileRead,
    pub nv_peer_mem: FileRead,
}

/// A loaded module's `initstate` (kernel `module_state`: live, coming, going).
fn module_state(file: &FileRead) -> Result<Option<&str>, String> {
    match file.value() {
        None => Ok(None),
        Some(state @ ("live" | "coming" | "going")) => Ok(Some(state)),
        Some(_) => Err("expected live, coming or going".to_string()),
    }
}

/// GPUDirect RDMA needs a peer-memory client so the NIC can register GPU memory:
/// `nvidia_peermem` (in the NVIDIA driver since R470) or the older `nv_peer_mem`.
pub fn gpudirect(files: &GpuDirectFiles) -> Check {
    let id = "gpudirect".to_string();
    let all = [
        &files.nvidia_version,
        &files.nvidia_peermem,
        &files.nv_peer_mem,
    ];
    let Some(version) = files.nvidia_version.value() else {
        return check(
            id,
            Status::Skip,
            format!(
                "no NVIDIA GPU driver loaded ({}), so no GPUDirect RDMA to check",
                unavailable(&files.nvidia_version)
            ),
            evidence(all),
            None,
        );
    };
    let well_formed = !version.is_empty()
        && version
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    if !well_formed {
        return malformed(
            id,
            &files.nvidia_version,
            "expected a version such as 535.183.01",
        );
    }
    let mut loaded = None;
    for (name, file) in [
        ("nvidia_peermem", &files.nvidia_peermem),
        ("nv_peer_mem", &files.nv_peer_mem),
    ] {
        match module_state(file) {
            Err(error) => return malformed(id, file, error),
            Ok(Some(state)) if loaded.is_none() => loaded = Some((name, state)),
            Ok(_) => {}
        }
    }
    match loaded {
        Some((name, "live")) => check(
            id,
            Status::Pass,
            format!(
                "{name} is loaded (NVIDIA driver {version}): NICs can read and write GPU memory"
            ),
            evidence(all),
            None,
        ),
        Some((name, state)) => check(
            id,
            Status::Warn,
            format!("{name} is {state}, not live yet (NVIDIA driver {version})"),
            evidence(all),
            Some(format!(
                "Wait for modprobe to finish, or check dmesg for why {name} is stuck."
            )),
        ),
        None => check(
            id,
            Status::Warn,
            format!(
                "NVIDIA driver {version} is loaded but no peer-memory module: GPUDirect RDMA is \
                 off, so NCCL stages GPU buffers through host memory"
            ),
            evidence(all),
            Some(
                "modprobe nvidia_peermem (it ships with the driver since R470; add it to \
                 /etc/modules-load.d/ to keep it). NCCL can also use DMA-BUF instead on kernels \
                 with it and the open GPU kernel modules."
                    .to_string(),
            ),
        ),
    }
}

// ---------------------------------------------------------------------------------------
// 5. IOMMU

/// `class/iommu` (entry names joined by spaces), the kernel command line, and each NIC's
/// `device/iommu_group/type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IommuFiles {
    pub units: FileRead,
    pub cmdline: FileRead,
    pub nic_domains: Vec<(String, FileRead)>,
}

/// What the command line asks of the IOMMU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    Passthrough,
    Off,
    On,
    Nothing,
}

fn asked(cmdline: &str) -> Asked {
    let mut asked = Asked::Nothing;
    // The kernel applies parameters left to right, so the last word wins; those after "--"
    // are init's, not the kernel's.
    for word in cmdline.split_whitespace().take_while(|w| *w != "--") {
        asked = match word {
            "iommu=pt" | "iommu.passthrough=1" => Asked::Passthrough,
            "iommu=off" | "intel_iommu=off" | "amd_iommu=off" => Asked::Off,
            "intel_iommu=on" | "iommu.passthrough=0" | "iommu=force" => {
                if asked == Asked::Passthrough {
                    // intel_iommu=on with iommu=pt is the documented passthrough setup.
                    Asked::Passthrough
                } else {
                    Asked::On
                }
            }
            _ => asked,
        };
    }
    asked
}

/// With DMA translation on for the NIC, peer-to-peer reads and writes between GPU and NIC go
/// through the IOMMU (and ACS redirects them to the root complex): GPUDirect RDMA slows or
/// fails. Passthrough (`iommu=pt`) or no IOMMU avoids it.
pub fn iommu(files: &IommuFiles) -> Check {
    let id = "iommu".to_string();
    let mut all = vec![&files.units, &files.cmdline];
    all.extend(files.nic_domains.iter().map(|(_, f)| f));
    let shown = evidence(all);
    let cmdline = files.cmdline.value().map(asked);
    let fix = Some(
        "Add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then \
         update-grub or grub2-mkconfig, and reboot): devices then keep identity mappings."
            .to_string(),
    );
    // What `iommu_group_show_type()` (drivers/iommu/iommu.c) prints; "auto" is write-only.
    const TYPES: [&str; 6] = [
        "identity",
        "DMA",
        "DMA-FQ",
        "blocked",
        "unmanaged",
        "unknown",
    ];
    let mut translated = Vec::new();
    let mut known = 0;
    for (device, file) in &files.nic_domains {
        match file.value() {
            None => {}
            Some(kind) if !TYPES.contains(&kind) => {
                return malformed(id, file, format!("expected one of {}", TYPES.join(", ")))
            }
            // No default domain: says nothing of translation.
            Some("unknown") => {}
            Some(kind) => {
                known += 1;
                if kind != "identity" {
                    translated.push(format!("{device} ({kind})"));
                }
            }
        }
    }
    if !translated.is_empty() {
        return check(
            id,
            Status::Warn,
            format!(
                "the IOMMU translates DMA for {}: GPU–NIC peer-to-peer traffic is remapped",
                translated.join(", ")
            ),
            shown,
            fix,
        );
    }
    if known > 0 {
        return check(
            id,
            Status::Pass,
            "every NIC's IOMMU group is in identity (passthrough) mode".to_string(),
            shown,
            None,
        );
    }
    let units = match &files.units.content {
        Content::Text(names) => names.split_whitespace().count(),
        _ => 0,
    };
    match (units, cmdline) {
        (0, _) => check(
            id,
            Status::Pass,
            "no IOMMU is active (class/iommu is empty), so DMA is not translated".to_string(),
            shown,
            None,
        ),
        (_, Some(Asked::Passthrough)) => check(
            id,
            Status::Pass,
            format!("{units} IOMMU unit(s) active in passthrough mode (iommu=pt)"),
            shown,
            None,
        ),
        (_, Some(Asked::Off)) => check(
            id,
            Status::Pass,
            "the command line turns the IOMMU off".to_string(),
            shown,
            None,
        ),
        (_, None) => check(
            id,
            Status::Skip,
            format!(
                "{units} IOMMU unit(s) active, but {}, so the mode is unknown",
                unavailable(&files.cmdline)
            ),
            shown,
            None,
        ),
        (_, Some(_)) => check(
            id,
            Status::Warn,
            format!(
                "{units} IOMMU unit(s) active and the command line has no iommu=pt: DMA is \
                 likely translated"
            ),
            shown,
            fix,
        ),
    }
}

// ---------------------------------------------------------------------------------------
// 6. NUMA node and PCIe link of each NIC

/// A NIC's PCI device files (`class/infiniband/<device>/device/…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcieFiles {
    pub device: String,
    pub numa_node: FileRead,
    pub current_speed: FileRead,
    pub current_width: FileRead,
    pub max_speed: FileRead,
    pub max_width: FileRead,
}

/// A PCI device's `numa_node`: `None` when the file is unreadable or says -1 (the platform
/// gives none).
fn numa_node(file: &FileRead) -> Result<Option<i32>, String> {
    let Some(text) = file.value() else {
        return Ok(None);
    };
    match attribute::number::<i32>(text, "a NUMA node number") {
        Ok(-1) => Ok(None),
        Ok(node) if node >= 0 => Ok(Some(node)),
        Ok(_) => Err("expected -1 or a node number".to_string()),
        Err(error) => Err(error.to_string()),
    }
}

/// A link speed as `pci_speed_string()` prints it: "16.0 GT/s PCIe" (older kernels' own
/// switch printed "16 GT/s"); `None` for "Unknown".
fn link_speed(text: &str) -> Result<Option<f64>, String> {
    if text == "Unknown" {
        return Ok(None);
    }
    let expected = || "expected a speed such as \"16.0 GT/s PCIe\"".to_string();
    let mut words = text.split(' ');
    let number: f64 = words
        .next()
        .and_then(|n| n.parse().ok())
        .filter(|n: &f64| n.is_finite() && *n > 0.0)
        .ok_or_else(expected)?;
    match (words.next(), words.next(), words.next()) {
        (Some("GT/s"), None | Some("PCIe"), None) => Ok(Some(number)),
        _ => Err(expected()),
    }
}

/// A NIC whose PCIe link trained below what it can do (fewer lanes, a slower generation)
/// cannot feed its ports; the NUMA node says which CPUs and GPUs are near it.
pub fn pcie_link(files: &PcieFiles) -> Check {
    let id = format!("pcie/{}", files.device);
    let link = [
        &files.current_speed,
        &files.current_width,
        &files.max_speed,
        &files.max_width,
    ];
    let mut all = vec![&files.numa_node];
    all.extend(link);
    let shown = evidence(all.iter().copied());
    let numa = match numa_node(&files.numa_node) {
        _ if files.numa_node.value().is_none() => "NUMA node unknown".to_string(),
        Ok(None) => "no NUMA node given by the platform".to_string(),
        Ok(Some(node)) => format!("NUMA node {node}"),
        Err(error) => return malformed(id, &files.numa_node, error),
    };
    if link.iter().all(|f| f.value().is_none()) {
        return check(
            id,
            Status::Skip,
            format!(
                "{}: {numa}; no PCIe link attributes (not a PCIe function, e.g. a software \
                 RDMA device)",
                files.device
            ),
            shown,
            None,
        );
    }
    let speed = |file: &FileRead| match file.value() {
        Some(text) => link_speed(text).map_err(|e| malformed(id.clone(), file, e)),
        None => Ok(None),
    };
    let width = |file: &FileRead| match file.value() {
        Some(text) => attribute::number::<u32>(text, "a lane count")
            .map(Some)
            .map_err(|e| malformed(id.clone(), file, e)),
        None => Ok(None),
    };
    let parsed = (|| {
        Ok::<_, Check>((
            speed(&files.current_speed)?,
            width(&files.current_width)?,
            speed(&files.max_speed)?,
            width(&files.max_width)?,
        ))
    })();
    let (cur_speed, cur_width, max_speed, max_width) = match parsed {
        Ok(values) => values,
        Err(failed) => return failed,
    };
    let show = |speed: Option<f64>, width: Option<u32>| {
        format!(
            "{} x{}",
            speed.map_or("? GT/s".to_string(), |s| format!("{s:.1} GT/s")),
            width.map_or("?".to_string(), |w| w.to_string())
        )
    };
    let current = show(cur_speed, cur_width);
    let max = show(max_speed, max_width);
    let slower = matches!((cur_speed, max_speed), (Some(c), Some(m)) if c < m);
    let narrower = matches!((cur_width, max_width), (Some(c), Some(m)) if c < m);
    if slower || narrower {
        return check(
            id,
            Status::Warn,
            format!(
                "{}: {numa}; PCIe link trained at {current}, below the NIC's {max}",
                files.device
            ),
            shown,
            Some(
                "Seat the NIC in a slot with as many lanes and the same PCIe generation as the \
                 card (check the slot's wiring, risers and the BIOS slot settings), then reboot; \
                 lspci -vv shows LnkCap and LnkSta."
                    .to_string(),
            ),
        );
    }
    if cur_speed.is_none() || cur_width.is_none() || max_speed.is_none() || max_width.is_none() {
        return check(
            id,
            Status::Skip,
            format!(
                "{}: {numa}; PCIe link {current} of {max}: not every link attribute could be read",
                files.device
            ),
            shown,
            None,
        );
    }
    check(
        id,
        Status::Pass,
        format!("{}: {numa}; PCIe link at its full {current}", files.device),
        shown,
        None,
    )
}

// ---------------------------------------------------------------------------------------
// 7. RLIMIT_MEMLOCK

/// A soft or hard limit as `proc_pid_limits()` prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Unlimited,
    Bytes(u64),
}

fn limit(word: &str) -> Option<Limit> {
    match word {
        "unlimited" => Some(Limit::Unlimited),
        _ => word.parse().ok().map(Limit::Bytes),
    }
}

/// The soft and hard "Max locked memory" of a `limits` file.
fn memlock_limits(text: &str) -> Result<(Limit, Limit), String> {
    const NAME: &str = "Max locked memory";
    let line = text
        .lines()
        .find(|line| line.starts_with(NAME))
        .ok_or_else(|| format!("no \"{NAME}\" line"))?;
    let words: Vec<&str> = line[NAME.len()..].split_whitespace().collect();
    match words[..] {
        [soft, hard, "bytes"] => match (limit(soft), limit(hard)) {
            (Some(soft), Some(hard)) => Ok((soft, hard)),
            _ => Err(format!(
                "expected two limits and \"bytes\" after \"{NAME}\""
            )),
        },
        _ => Err(format!(
            "expected two limits and \"bytes\" after \"{NAME}\""
        )),
    }
}

fn shown_limit(limit: Limit) -> String {
    match limit {
        Limit::Unlimited => "unlimited".to_string(),
        Limit::Bytes(bytes) if bytes >= 1 << 20 && bytes % (1 << 20) == 0 => {
            format!("{} MiB", bytes >> 20)
        }
        Limit::Bytes(bytes) if bytes >= 1 << 10 && bytes % (1 << 10) == 0 => {
            format!("{} KiB", bytes >> 10)
        }
        Limit::Bytes(bytes) => format!("{bytes} bytes"),
    }
}

/// Registering memory (`ibv_reg_mr`) pins it, and pinned memory counts against
/// RLIMIT_MEMLOCK: below unlimited, large registrations fail with ENOMEM.
pub fn memlock(limits: &FileRead) -> Check {
    let id = "memlock".to_string();
    let Some(text) = limits.value() else {
        return check(
            id,
            Status::Skip,
            format!("no locked-memory limit to check: {}", unavailable(limits)),
            vec![limits.evidence()],
            None,
        );
    };
    let (soft, hard) = match memlock_limits(text) {
        Ok(limits) => limits,
        Err(error) => return malformed(id, limits, error),
    };
    let line = text
        .lines()
        .find(|l| l.starts_with("Max locked memory"))
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let shown = vec![Evidence {
        path: limits.path.clone(),
        value: line,
    }];
    if soft == Limit::Unlimited {
        return check(
            id,
            Status::Pass,
            "RLIMIT_MEMLOCK is unlimited: memory registration can pin what it needs".to_string(),
            shown,
            None,
        );
    }
    let raise_hard = if hard == Limit::Unlimited {
        String::new()
    } else {
        format!(" (the hard limit, {}, too)", shown_limit(hard))
    };
    check(
        id,
        Status::Warn,
        format!(
            "RLIMIT_MEMLOCK is {}: registering larger buffers fails with ENOMEM",
            shown_limit(soft)
        ),
        shown,
        Some(format!(
            "Raise it to unlimited{raise_hard}: `* - memlock unlimited` in \
             /etc/security/limits.d/ and log in again; LimitMEMLOCK=infinity for a systemd \
             service; --ulimit memlock=-1 for docker run."
        )),
    )
}

// ---------------------------------------------------------------------------------------
// 8. ECN / DCQCN per priority

/// A RoCE netdev's `ecn/roce_np/enable/<prio>` and `ecn/roce_rp/enable/<prio>`, priorities
/// 0 to 7 in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EcnFiles {
    pub netdev: String,
    pub notification_point: Vec<FileRead>,
    pub reaction_point: Vec<FileRead>,
}

/// DCQCN needs both ends on the RoCE priority: the notification point (receiver) answers ECN
/// marks with CNPs, the reaction point (sender) slows down on them.
pub fn ecn(files: &EcnFiles) -> Check {
    let id = format!("ecn/{}", files.netdev);
    let all: Vec<&FileRead> = files
        .notification_point
        .iter()
        .chain(&files.reaction_point)
        .collect();
    if all.iter().all(|f| f.content == Content::Missing) {
        return check(
            id,
            Status::Skip,
            format!(
                "{}: no ecn/ directory; the per-priority ECN switches are MLNX_OFED's mlx5 \
                 driver's, so with another driver this check cannot see them",
                files.netdev
            ),
            Vec::new(),
            None,
        );
    }
    let shown = evidence(all.iter().copied());
    let mut off = Vec::new();
    let mut unknown = Vec::new();
    for (role, list) in [
        ("roce_np", &files.notification_point),
        ("roce_rp", &files.reaction_point),
    ] {
        let mut disabled = Vec::new();
        for (priority, file) in list.iter().enumerate() {
            match file.value() {
                Some("1") => {}
                Some("0") => disabled.push(priority.to_string()),
                Some(_) => return malformed(id, file, "expected 0 or 1"),
                None => unknown.push(file.path.clone()),
            }
        }
        if !disabled.is_empty() {
            off.push(format!("{role} on priority {}", disabled.join(", ")));
        }
    }
    if !off.is_empty() {
        return check(
            id,
            Status::Warn,
            format!(
                "{}: ECN/DCQCN is off for {}: RoCE traffic there gets no congestion control",
                files.netdev,
                off.join("; ")
            ),
            shown,
            Some(format!(
                "Enable both on the priority RoCE uses (NCCL_IB_TC's): echo 1 > \
                 /sys/class/net/{0}/ecn/roce_np/enable/<prio> and the same for roce_rp.",
                files.netdev
            )),
        );
    }
    if !unknown.is_empty() {
        return check(
            id,
            Status::Skip,
            format!("{}: some ECN switches could not be read", files.netdev),
            shown,
            None,
        );
    }
    check(
        id,
        Status::Pass,
        format!(
            "{}: ECN/DCQCN enabled on all 8 priorities, as notification and reaction point",
            files.netdev
        ),
        shown,
        None,
    )
}

// ---------------------------------------------------------------------------------------
// 9. DCQCN parameters (mlx5 debugfs)

/// One device's `mlx5/<pci>/cc_params` directory (entry names joined by spaces) and its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CcParamFiles {
    pub device: String,
    pub dir: FileRead,
    pub values: Vec<(String, FileRead)>,
}

/// The parameters a reader of the DCQCN paper looks for first, with their units (the
/// QCN-derived units of `dcqcn::params`).
const CC_SHOWN: [(&str, &str); 8] = [
    ("rp_time_reset", " µs"),
    ("rp_byte_reset", " bytes"),
    ("rp_ai_rate", " Mb/s"),
    ("rp_hai_rate", " Mb/s"),
    ("rp_gd", ""),
    ("rp_min_rate", " Mb/s"),
    ("np_cnp_dscp", ""),
    ("np_cnp_prio", ""),
];

/// The DCQCN parameters the NIC runs with, read where the driver exposes them (root only):
/// the reaction point's timer, byte counter and steps, and the DSCP/priority its CNPs use.
pub fn cc_params(files: &CcParamFiles) -> Check {
    let id = format!("cc-params/{}", files.device);
    if files.dir.value().is_none() {
        return check(
            id,
            Status::Skip,
            format!(
                "{}: DCQCN parameters not read ({}; debugfs is root-only, and only mlx5 \
                 creates cc_params, on functions whose firmware lets the driver set them)",
                files.device,
                unavailable(&files.dir)
            ),
            vec![files.dir.evidence()],
            None,
        );
    }
    let mut numbers = Vec::new();
    for (name, file) in &files.values {
        if let Some(text) = file.value() {
            match attribute::number::<u32>(text, "a decimal number") {
                Ok(value) => numbers.push((name.as_str(), value)),
                Err(error) => return malformed(id, file, error),
            }
        }
    }
    let value = |name: &str| numbers.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let shown: Vec<String> = CC_SHOWN
        .iter()
        .filter_map(|(name, unit)| value(name).map(|v| format!("{name} {v}{unit}")))
        .collect();
    // The evidence is the files the title quotes; the count says how many more were read.
    let quoted = files
        .values
        .iter()
        .filter(|(name, _)| CC_SHOWN.iter().any(|(shown, _)| shown == name))
        .map(|(_, file)| file);
    if numbers.is_empty() {
        return check(
            id,
            Status::Skip,
            format!(
                "{}: the cc_params directory holds no readable parameter",
                files.device
            ),
            evidence(files.values.iter().map(|(_, f)| f)),
            None,
        );
    }
    check(
        id,
        Status::Pass,
        format!(
            "{}: DCQCN runs with {} ({} parameters read; try them on the DCQCN page)",
            files.device,
            if shown.is_empty() {
                "the parameters below".to_string()
            } else {
                shown.join(", ")
            },
            numbers.len()
        ),
        evidence(quoted),
        None,
    )
}

// ---------------------------------------------------------------------------------------
// 10. DMA-BUF

/// The first kernel whose RDMA core registers DMA-BUF memory (`ibv_reg_dmabuf_mr`): the
/// dma-buf user-memory support merged for Linux 5.12 (`drivers/infiniband/core/umem_dmabuf.c`).
const DMA_BUF_KERNEL: (u32, u32) = (5, 12);

/// GPUDirect RDMA without a peer-memory module: NCCL registers GPU memory as a DMA-BUF when
/// the kernel, the NIC driver and the GPU driver support it (NCCL `net_ib` `ncclIbDmaBufSupport`
/// probes `ibv_reg_dmabuf_mr` at start-up). The kernel's part is decided by its version.
pub fn dma_buf(osrelease: &FileRead) -> Check {
    let id = "dma-buf".to_string();
    let Some(text) = osrelease.value() else {
        return check(
            id,
            Status::Skip,
            format!("kernel version unknown: {}", unavailable(osrelease)),
            vec![osrelease.evidence()],
            None,
        );
    };
    let mut parts = text.split(['.', '-']);
    let version = match (
        parts.next().and_then(|p| p.parse::<u32>().ok()),
        parts.next().and_then(|p| p.parse::<u32>().ok()),
    ) {
        (Some(major), Some(minor)) => (major, minor),
        _ => return malformed(id, osrelease, "expected a release such as 6.8.0-45-generic"),
    };
    let (major, minor) = version;
    if version >= DMA_BUF_KERNEL {
        check(
            id,
            Status::Pass,
            format!(
                "Linux {major}.{minor} registers DMA-BUF memory for RDMA (since {}.{}): with the \
                 open GPU kernel modules NCCL can use GPUDirect RDMA without nvidia_peermem",
                DMA_BUF_KERNEL.0, DMA_BUF_KERNEL.1
            ),
            vec![osrelease.evidence()],
            None,
        )
    } else {
        check(
            id,
            Status::Warn,
            format!(
                "Linux {major}.{minor} predates RDMA's DMA-BUF support ({}.{}): GPUDirect RDMA \
                 needs a peer-memory module here",
                DMA_BUF_KERNEL.0, DMA_BUF_KERNEL.1
            ),
            vec![osrelease.evidence()],
            Some("Keep nvidia_peermem loaded, or move to a kernel of 5.12 or later.".to_string()),
        )
    }
}

// ---------------------------------------------------------------------------------------
// 11. Transport errors a port has counted (mlx5 hw_counters)

/// The `hw_counters/` files that count an RDMA operation failed or refused, each with what to
/// check and the lab page that explains it (names from the kernel's
/// `drivers/infiniband/hw/mlx5/counters.c`). Counted since the driver loaded, so a non-zero
/// value is history to explain, not proof of a fault now.
pub const TRANSPORT_ERRORS: &[(&str, &str, &str)] = &[
    (
        "req_remote_access_errors",
        "the peer refused this host's RDMA READ or WRITE: check the rkey, the address range and          the access flags the peer registered its memory with",
        "/verbs#memory-registration-lkey-rkey-and-pinning",
    ),
    (
        "resp_remote_access_errors",
        "this host refused a peer's RDMA READ or WRITE: check the rkey and range the peer was          given and the access flags of the local registration",
        "/verbs#memory-registration-lkey-rkey-and-pinning",
    ),
    (
        "rnr_nak_retry_err",
        "receiver-not-ready NAKs: the peer had no receive posted when a SEND arrived; post          receives ahead of the traffic or raise rnr_retry",
        "/troubleshooting#ib-completion-error",
    ),
    (
        "req_rnr_retries_exceeded",
        "a send gave up after its RNR retries: the peer stopped posting receives (often it exited)",
        "/troubleshooting#ib-completion-error",
    ),
    (
        "req_cqe_error",
        "send-side work requests completed in error: the application's first error completion          names the status",
        "/troubleshooting#ib-completion-error",
    ),
    (
        "resp_cqe_error",
        "receive-side work requests completed in error: the application's first error          completion names the status",
        "/troubleshooting#ib-completion-error",
    ),
    (
        "req_transport_retries_exceeded",
        "a send gave up after its transport retries: the path lost packets or the peer is gone",
        "/troubleshooting#retry-exceeded",
    ),
    (
        "rx_icrc_encapsulated",
        "packets arrived with a bad ICRC, corrupted on the way: check cables, transceivers and          the switch ports on the path",
        "/roce#roce-v2-header-by-header",
    ),
];

/// A port's `hw_counters/` files among [`TRANSPORT_ERRORS`] (those it has).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorCounterFiles {
    pub device: String,
    pub port: u32,
    /// (file name, what reading it gave), in [`TRANSPORT_ERRORS`]' order.
    pub files: Vec<(&'static str, FileRead)>,
}

/// Whether a port has counted failed or refused operations, with what to check for each
/// counter that has: skipped where the driver keeps no such counters (not mlx5).
pub fn transport_errors(port: &ErrorCounterFiles) -> Check {
    let id = format!("transport-errors/{}/{}", port.device, port.port);
    let read: Vec<&(&str, FileRead)> = port
        .files
        .iter()
        .filter(|(_, f)| f.content != Content::Missing)
        .collect();
    let files = evidence(read.iter().map(|(_, f)| f));
    if read.is_empty() {
        let title = format!(
            "{} port {}: no transport error counters (hw_counters is mlx5's)",
            port.device, port.port
        );
        return check(id, Status::Skip, title, files, None);
    }
    let mut counted = Vec::new();
    for (name, file) in &read {
        let Some(text) = file.value() else { continue };
        match attribute::counter(text) {
            Ok(0) => {}
            Ok(n) => counted.push((*name, n)),
            Err(error) => return malformed(id, file, error),
        }
    }
    if counted.is_empty() {
        let title = format!(
            "{} port {}: no failed or refused RDMA operations counted ({} counters read)",
            port.device,
            port.port,
            read.len()
        );
        return check(id, Status::Pass, title, files, None);
    }
    let listed: Vec<String> = counted.iter().map(|(n, v)| format!("{n} {v}")).collect();
    let title = format!(
        "{} port {}: failed or refused RDMA operations counted since the driver loaded: {}",
        port.device,
        port.port,
        listed.join(", ")
    );
    let advice: Vec<String> = counted
        .iter()
        .filter_map(|(name, _)| TRANSPORT_ERRORS.iter().find(|(n, _, _)| n == name))
        .map(|(name, what, page)| format!("{name}: {what} (see {page})."))
        .collect();
    check(id, Status::Warn, title, files, Some(advice.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(values: &[(&'static str, &str)]) -> Check {
        transport_errors(&ErrorCounterFiles {
            device: "mlx5_0".into(),
            port: 1,
            files: TRANSPORT_ERRORS
                .iter()
                .map(|(name, _, _)| {
                    let path = format!("hw_counters/{name}");
                    let file = match values.iter().find(|(n, _)| n == name) {
                        Some((_, text)) => FileRead::text(path, *text),
                        None => FileRead::missing(path),
                    };
                    (*name, file)
                })
                .collect(),
        })
    }

    #[test]
    fn counted_transport_errors_warn_with_what_to_check_and_where_it_is_explained() {
        let quiet: Vec<_> = TRANSPORT_ERRORS.iter().map(|(n, _, _)| (*n, "0")).collect();
        assert_eq!(errors(&quiet).status, Status::Pass);
        assert_eq!(errors(&quiet).evidence.len(), TRANSPORT_ERRORS.len());
        let mut bad = quiet.clone();
        bad[0].1 = "3";
        bad[4].1 = "1";
        bad[7].1 = "2";
        let warned = errors(&bad);
        assert_eq!(warned.status, Status::Warn);
        assert!(
            warned
                .title
                .contains("req_remote_access_errors 3, req_cqe_error 1, rx_icrc_encapsulated 2"),
            "{}",
            warned.title
        );
        let fix = warned.fix.unwrap();
        for page in [
            "/verbs#memory-registration-lkey-rkey-and-pinning",
            "/troubleshooting#ib-completion-error",
            "/roce#roce-v2-header-by-header",
        ] {
            assert!(fix.contains(page), "{fix}");
        }
        assert!(!fix.contains("rnr_nak_retry_err"), "{fix}");
        // No such counters (an mlx4 or IB port without hw_counters): not decided here.
        assert_eq!(errors(&[]).status, Status::Skip);
        assert_eq!(errors(&[("req_cqe_error", "lots")]).status, Status::Fail);
    }

    fn port(state: &str, phys: &str, link_layer: &str) -> PortFiles {
        PortFiles {
            device: "mlx5_0".into(),
            port: 1,
            state: FileRead::text("ports/1/state", state),
            phys_state: FileRead::text("ports/1/phys_state", phys),
            link_layer: FileRead::text("ports/1/link_layer", link_layer),
        }
    }

    #[test]
    fn an_active_linked_port_passes_and_others_fail_with_their_cause() {
        let up = port_state(&port("4: ACTIVE", "5: LinkUp", "Ethernet"));
        assert_eq!(up.status, Status::Pass);
        assert_eq!(up.id, "port-state/mlx5_0/1");
        assert!(
            up.title.contains("ACTIVE, LinkUp, Ethernet (RoCE)"),
            "{}",
            up.title
        );
        assert_eq!(up.evidence.len(), 3);
        assert_eq!(up.fix, None);

        let no_sm = port_state(&port("2: INIT", "5: LinkUp", "InfiniBand"));
        assert_eq!(no_sm.status, Status::Fail);
        assert!(no_sm.fix.unwrap().contains("subnet manager"));
        let polling = port_state(&port("1: DOWN", "2: Polling", "Ethernet"));
        assert!(polling.fix.unwrap().contains("no link partner"));
        let disabled = port_state(&port("1: DOWN", "3: Disabled", "InfiniBand"));
        assert!(disabled.fix.unwrap().contains("disabled"));
        let mut unknown_phys = port("4: ACTIVE", "", "Ethernet");
        unknown_phys.phys_state = FileRead::missing("ports/1/phys_state");
        assert_eq!(port_state(&unknown_phys).status, Status::Pass);
    }

    #[test]
    fn a_malformed_or_missing_state_fails_naming_the_file() {
        let bad = port_state(&port("ACTIVE", "5: LinkUp", "Ethernet"));
        assert_eq!(bad.status, Status::Fail);
        assert!(
            bad.title.starts_with("ports/1/state is malformed"),
            "{}",
            bad.title
        );
        let mut gone = port("4: ACTIVE", "5: LinkUp", "Ethernet");
        gone.state = FileRead::missing("ports/1/state");
        let gone = port_state(&gone);
        assert_eq!(gone.status, Status::Fail);
        assert!(gone.title.contains("does not exist"), "{}", gone.title);
        assert_eq!(gone.evidence[0].value, "(missing)");
    }

    fn gid(index: u32, gid: &str, kind: &str) -> GidFiles {
        GidFiles {
            index,
            gid: FileRead::text(format!("gids/{index}"), gid),
            gid_type: FileRead::text(format!("types/{index}"), kind),
            ndev: FileRead::text(format!("ndevs/{index}"), "ens1f0np0"),
        }
    }

    const LINK_LOCAL: &str = "fe80:0000:0000:0000:0e42:a1ff:fef2:1a2a";
    const IPV4: &str = "0000:0000:0000:0000:0000:ffff:0a00:0001";
    const GLOBAL: &str = "2001:0db8:0000:0000:0000:0000:0000:0001";
    const EMPTY: &str = "0000:0000:0000:0000:0000:0000:0000:0000";

    fn table(entries: Vec<GidFiles>) -> GidTable {
        GidTable {
            device: "mlx5_0".into(),
            port: 1,
            link_layer: Some("Ethernet".into()),
            entries,
        }
    }

    #[test]
    fn the_roce_v2_ipv4_gid_is_the_index_for_nccl() {
        let check = roce_v2_gid(&table(vec![
            gid(0, LINK_LOCAL, ROCE_V1),
            gid(1, LINK_LOCAL, ROCE_V2),
            gid(2, IPV4, ROCE_V1),
            gid(3, IPV4, ROCE_V2),
            gid(4, EMPTY, ""),
        ]));
        assert_eq!(check.status, Status::Pass);
        assert!(
            check.title.starts_with(
                "on mlx5_0 port 1 the RoCE v2 IPv4 10.0.0.1 on ens1f0np0 GID is index 3: set NCCL_IB_GID_INDEX=3"
            ),
            "{}",
            check.title
        );
        assert!(
            check.title.contains("index 1 is link-local"),
            "{}",
            check.title
        );
        // The index to use is advice the page keeps in view, not folded with the passes.
        assert!(
            check
                .fix
                .as_deref()
                .is_some_and(|f| f.starts_with("NCCL_IB_GID_INDEX=3")),
            "{:?}",
            check.fix
        );
        // Four populated entries, three files each; the empty slot is left out.
        assert_eq!(check.evidence.len(), 12);
    }

    #[test]
    fn without_ipv4_a_global_ipv6_gid_does_and_link_local_only_warns() {
        let v6 = roce_v2_gid(&table(vec![
            gid(0, LINK_LOCAL, ROCE_V2),
            gid(1, GLOBAL, ROCE_V1),
            gid(2, GLOBAL, ROCE_V2),
        ]));
        assert_eq!(v6.status, Status::Pass);
        assert!(v6.title.contains("NCCL_IB_GID_INDEX=2"), "{}", v6.title);
        assert!(v6.title.contains("global IPv6"), "{}", v6.title);

        let local = roce_v2_gid(&table(vec![
            gid(0, LINK_LOCAL, ROCE_V1),
            gid(1, LINK_LOCAL, ROCE_V2),
        ]));
        assert_eq!(local.status, Status::Warn);
        assert!(local.fix.unwrap().contains("ip addr add"));

        let v1 = roce_v2_gid(&table(vec![gid(0, IPV4, ROCE_V1)]));
        assert_eq!(v1.status, Status::Fail);
        let none = roce_v2_gid(&table(vec![gid(0, EMPTY, "")]));
        assert_eq!(none.status, Status::Fail);
        assert!(none.evidence.is_empty());
    }

    #[test]
    fn gid_tables_off_roce_are_skipped_and_malformed_entries_fail() {
        let mut ib = table(vec![gid(0, LINK_LOCAL, ROCE_V1)]);
        ib.link_layer = Some("InfiniBand".into());
        assert_eq!(roce_v2_gid(&ib).status, Status::Skip);
        let bad = roce_v2_gid(&table(vec![gid(0, "fe80::1", ROCE_V2)]));
        assert_eq!(bad.status, Status::Fail);
        assert!(
            bad.title.starts_with("gids/0 is malformed"),
            "{}",
            bad.title
        );
        let bad_type = roce_v2_gid(&table(vec![gid(0, IPV4, "RoCE v3")]));
        assert!(
            bad_type.title.starts_with("types/0 is malformed"),
            "{}",
            bad_type.title
        );
        assert_eq!(
            port_netdev(&table(vec![gid(0, EMPTY, ""), gid(1, IPV4, ROCE_V2)])).as_deref(),
            Some("ens1f0np0")
        );
    }

    #[test]
    fn the_rdma_mtu_is_the_largest_that_fits_after_96_header_bytes() {
        assert_eq!(ROCE_HEADER_BYTES, 96);
        assert_eq!(iboe_mtu(9000), Some(4096));
        assert_eq!(iboe_mtu(4192), Some(4096));
        assert_eq!(iboe_mtu(4191), Some(2048));
        assert_eq!(iboe_mtu(1500), Some(1024));
        assert_eq!(iboe_mtu(352), Some(256));
        assert_eq!(iboe_mtu(351), None);
        assert_eq!(iboe_mtu(0), None);
    }

    fn mtu(text: &str) -> Check {
        roce_mtu(&MtuFiles {
            device: "mlx5_0".into(),
            port: 1,
            link_layer: Some("Ethernet".into()),
            netdev: Some((
                "ens1f0np0".into(),
                FileRead::text("net/ens1f0np0/mtu", text),
            )),
        })
    }

    #[test]
    fn a_netdev_mtu_below_4192_warns_with_the_rdma_mtu_it_gives() {
        assert_eq!(mtu("4200").status, Status::Pass);
        let standard = mtu("1500");
        assert_eq!(standard.status, Status::Warn);
        assert!(
            standard.title.contains("RDMA MTU is 1024"),
            "{}",
            standard.title
        );
        assert!(standard.fix.unwrap().contains("at least 4192"));
        assert_eq!(mtu("300").status, Status::Fail);
        assert!(mtu("big").title.contains("is malformed"));
    }

    fn module(path: &str, text: Option<&str>) -> FileRead {
        match text {
            Some(text) => FileRead::text(path, text),
            None => FileRead::missing(path),
        }
    }

    fn gpudirect_of(version: Option<&str>, peermem: Option<&str>, old: Option<&str>) -> Check {
        gpudirect(&GpuDirectFiles {
            nvidia_version: module("module/nvidia/version", version),
            nvidia_peermem: module("module/nvidia_peermem/initstate", peermem),
            nv_peer_mem: module("module/nv_peer_mem/initstate", old),
        })
    }

    #[test]
    fn gpudirect_needs_a_peer_memory_module_once_there_is_a_gpu_driver() {
        let loaded = gpudirect_of(Some("535.183.01"), Some("live"), None);
        assert_eq!(loaded.status, Status::Pass);
        assert!(loaded
            .title
            .contains("nvidia_peermem is loaded (NVIDIA driver 535.183.01)"));
        assert_eq!(
            gpudirect_of(Some("470.57.02"), None, Some("live")).status,
            Status::Pass
        );
        let missing = gpudirect_of(Some("535.183.01"), None, None);
        assert_eq!(missing.status, Status::Warn);
        assert!(missing.fix.unwrap().contains("modprobe nvidia_peermem"));
        assert_eq!(gpudirect_of(None, None, None).status, Status::Skip);
        assert_eq!(
            gpudirect_of(Some("535.183.01"), Some("coming"), None).status,
            Status::Warn
        );
        assert_eq!(
            gpudirect_of(Some("535.183.01"), Some("alive"), None).status,
            Status::Fail
        );
        assert_eq!(
            gpudirect_of(Some("v535"), Some("live"), None).status,
            Status::Fail
        );
    }

    fn iommu_of(units: &str, cmdline: &str, domain: Option<&str>) -> Check {
        iommu(&IommuFiles {
            units: FileRead::text("class/iommu", units),
            cmdline: FileRead::text("cmdline", cmdline),
            nic_domains: domain
                .map(|kind| {
                    (
                        "mlx5_0".to_string(),
                        FileRead::text("iommu_group/type", kind),
                    )
                })
                .into_iter()
                .collect(),
        })
    }

    #[test]
    fn translated_dma_for_a_nic_warns_and_passthrough_passes() {
        let root = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro";
        assert_eq!(iommu_of("", root, None).status, Status::Pass);
        assert_eq!(
            iommu_of(
                "dmar0 dmar1",
                &format!("{root} intel_iommu=on iommu=pt"),
                None
            )
            .status,
            Status::Pass
        );
        assert_eq!(
            iommu_of(
                "dmar0 dmar1",
                &format!("{root} iommu=pt intel_iommu=on"),
                None
            )
            .status,
            Status::Pass
        );
        let on = iommu_of("dmar0 dmar1", &format!("{root} intel_iommu=on"), None);
        assert_eq!(on.status, Status::Warn);
        assert!(on.fix.unwrap().contains("iommu=pt"));
        assert_eq!(iommu_of("ivhd0", root, None).status, Status::Warn);
        let for_init = iommu_of("dmar0", &format!("{root} -- iommu=pt"), None);
        assert_eq!(for_init.status, Status::Warn);
        // The NIC's own domain type outranks the command line.
        assert_eq!(
            iommu_of("dmar0", root, Some("identity")).status,
            Status::Pass
        );
        let dma = iommu_of("dmar0", &format!("{root} iommu=pt"), Some("DMA-FQ"));
        assert_eq!(dma.status, Status::Warn);
        assert!(dma.title.contains("mlx5_0 (DMA-FQ)"), "{}", dma.title);
        assert_eq!(
            iommu_of("dmar0", root, Some("translated")).status,
            Status::Fail
        );
    }

    fn pcie_of(speed: &str, width: &str, max_speed: &str, max_width: &str) -> Check {
        pcie_link(&PcieFiles {
            device: "mlx5_0".into(),
            numa_node: FileRead::text("numa_node", "0"),
            current_speed: FileRead::text("current_link_speed", speed),
            current_width: FileRead::text("current_link_width", width),
            max_speed: FileRead::text("max_link_speed", max_speed),
            max_width: FileRead::text("max_link_width", max_width),
        })
    }

    #[test]
    fn a_link_below_its_maximum_speed_or_width_warns() {
        let full = pcie_of("16.0 GT/s PCIe", "16", "16.0 GT/s PCIe", "16");
        assert_eq!(full.status, Status::Pass);
        assert!(full.title.contains("NUMA node 0"), "{}", full.title);
        assert!(full.title.contains("16.0 GT/s x16"), "{}", full.title);
        let narrow = pcie_of("16.0 GT/s PCIe", "8", "16.0 GT/s PCIe", "16");
        assert_eq!(narrow.status, Status::Warn);
        assert!(
            narrow.title.contains("trained at 16.0 GT/s x8"),
            "{}",
            narrow.title
        );
        assert_eq!(
            pcie_of("8.0 GT/s PCIe", "16", "16.0 GT/s PCIe", "16").status,
            Status::Warn
        );
        assert_eq!(pcie_of("8 GT/s", "16", "8 GT/s", "16").status, Status::Pass);
        assert_eq!(
            pcie_of("Unknown", "16", "16.0 GT/s PCIe", "16").status,
            Status::Skip
        );
        assert_eq!(
            pcie_of("fast", "16", "16.0 GT/s PCIe", "16").status,
            Status::Fail
        );
        assert_eq!(
            pcie_of("16.0 GT/s PCIe", "x16", "16.0 GT/s PCIe", "16").status,
            Status::Fail
        );
    }

    /// `/proc/self/limits` as `proc_pid_limits()` lays it out (`%-25s %-20s %-20s %-10s`).
    fn limits(soft: &str, hard: &str) -> String {
        format!(
            "{:<25} {:<20} {:<20} {:<10}\n{:<25} {:<20} {:<20} {:<10}\n{:<25} {:<20} {:<20} {:<10}\n",
            "Limit", "Soft Limit", "Hard Limit", "Units",
            "Max processes", "63450", "63450", "processes",
            "Max locked memory", soft, hard, "bytes",
        )
    }

    #[test]
    fn memlock_below_unlimited_warns_with_the_limits_in_mib() {
        let file = |text: String| FileRead::text("self/limits", text);
        let unlimited = memlock(&file(limits("unlimited", "unlimited")));
        assert_eq!(unlimited.status, Status::Pass);
        assert_eq!(
            unlimited.evidence[0].value,
            "Max locked memory unlimited unlimited bytes"
        );
        let low = memlock(&file(limits("8388608", "8388608")));
        assert_eq!(low.status, Status::Warn);
        assert!(low.title.contains("8 MiB"), "{}", low.title);
        assert!(low.fix.unwrap().contains("the hard limit, 8 MiB, too"));
        assert_eq!(
            memlock(&file(limits("65536", "unlimited"))).status,
            Status::Warn
        );
        assert_eq!(
            memlock(&file(limits("lots", "unlimited"))).status,
            Status::Fail
        );
        assert_eq!(
            memlock(&file("Limit Soft Limit\n".into())).status,
            Status::Fail
        );
        assert_eq!(
            memlock(&FileRead::missing("self/limits")).status,
            Status::Skip
        );
    }

    fn ecn_of(np: [&str; 8], rp: [&str; 8]) -> Check {
        let files = |role: &str, values: [&str; 8]| {
            values
                .iter()
                .enumerate()
                .map(|(p, v)| FileRead::text(format!("ecn/{role}/enable/{p}"), *v))
                .collect()
        };
        ecn(&EcnFiles {
            netdev: "ens1f0np0".into(),
            notification_point: files("roce_np", np),
            reaction_point: files("roce_rp", rp),
        })
    }

    #[test]
    fn ecn_off_on_any_priority_warns_naming_it() {
        let on = ["1"; 8];
        assert_eq!(ecn_of(on, on).status, Status::Pass);
        let mut rp = on;
        rp[3] = "0";
        let off = ecn_of(on, rp);
        assert_eq!(off.status, Status::Warn);
        assert!(off.title.contains("roce_rp on priority 3"), "{}", off.title);
        let mut np = on;
        np[0] = "yes";
        assert_eq!(ecn_of(np, on).status, Status::Fail);
        let absent = ecn(&EcnFiles {
            netdev: "eth0".into(),
            notification_point: vec![FileRead::missing("ecn/roce_np/enable/0")],
            reaction_point: vec![FileRead::missing("ecn/roce_rp/enable/0")],
        });
        assert_eq!(absent.status, Status::Skip);
    }

    #[test]
    fn a_report_fails_only_when_a_check_fails_and_serializes_as_documented() {
        let report = Report {
            checks: vec![memlock(&FileRead::missing("self/limits"))],
        };
        assert!(!report.any_failed());
        let json = serde_json::to_value(&report).unwrap();
        let first = &json["checks"][0];
        assert_eq!(first["status"], "skip");
        assert_eq!(first["id"], "memlock");
        assert_eq!(first["evidence"][0]["path"], "self/limits");
        assert!(first["fix"].is_null());
        let failed = Report {
            checks: vec![no_rdma_devices(&FileRead::missing("class/infiniband"))],
        };
        assert!(failed.any_failed());
    }

    fn cc(values: &[(&str, &str)]) -> CcParamFiles {
        CcParamFiles {
            device: "mlx5_0".into(),
            dir: FileRead::text("cc_params", "rp_ai_rate rp_gd"),
            values: values
                .iter()
                .map(|(n, v)| (n.to_string(), FileRead::text(format!("cc_params/{n}"), *v)))
                .collect(),
        }
    }

    #[test]
    fn cc_params_name_their_units_and_skip_without_debugfs() {
        let read = cc_params(&cc(&[
            ("rp_ai_rate", "5"),
            ("rp_gd", "11"),
            ("rp_threshold", "1"),
        ]));
        assert_eq!(read.status, Status::Pass);
        assert!(
            read.title.contains("rp_ai_rate 5 Mb/s, rp_gd 11"),
            "{}",
            read.title
        );
        assert!(read.title.contains("3 parameters"), "{}", read.title);
        assert_eq!(read.evidence.len(), 2, "only the quoted files");
        assert_eq!(cc_params(&cc(&[("rp_gd", "eleven")])).status, Status::Fail);
        let denied = cc_params(&CcParamFiles {
            device: "mlx5_0".into(),
            dir: FileRead {
                path: "mlx5/0000:3b:00.0/cc_params".into(),
                content: Content::Denied,
            },
            values: Vec::new(),
        });
        assert_eq!(denied.status, Status::Skip);
        assert!(denied.title.contains("needs root"), "{}", denied.title);
    }

    #[test]
    fn dma_buf_follows_the_kernel_release() {
        let at = |release: &str| dma_buf(&FileRead::text("sys/kernel/osrelease", release));
        assert_eq!(at("6.8.0-45-generic").status, Status::Pass);
        assert_eq!(at("5.12.0").status, Status::Pass);
        assert_eq!(at("5.4.0-150-generic").status, Status::Warn);
        assert_eq!(at("4.18.0-513.el8.x86_64").status, Status::Warn);
        assert_eq!(at("linux").status, Status::Fail);
        assert_eq!(
            dma_buf(&FileRead::missing("osrelease")).status,
            Status::Skip
        );
    }
}
