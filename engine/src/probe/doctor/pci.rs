//! Where each GPU sits on the PCIe tree relative to the NICs, and whether the bridges between
//! a GPU and its nearest NIC redirect peer-to-peer traffic (ACS).
//!
//! Sources:
//! - sysfs names a PCI function's directory by its path from the host bridge:
//!   `devices/pci<domain>:<bus>/<root port>/…/<function>` (kernel
//!   `Documentation/ABI/testing/sysfs-bus-pci`, `drivers/pci/probe.c`), so the functions
//!   between the host bridge and a device are its bridges: the first is a root port, the rest
//!   are PCIe switch ports;
//! - the path classes and NCCL's GPUDirect RDMA cut-off are NCCL's: `src/graph/topo.h`
//!   (`PATH_PIX` 4, `PATH_PXB` 5, `PATH_P2C` 6, `PATH_PHB` 8, `PATH_SYS` 9) and
//!   `src/graph/paths.cc` `ncclTopoCheckGdr` at v2.29.3-1, which turns GPUDirect RDMA off when
//!   the GPU–NIC path is farther than `NCCL_NET_GDR_LEVEL` (by default `PATH_P2C`, which only
//!   C2C systems use, so PIX and PXB pass and PHB and SYS do not);
//! - config space: the PCI Express Base Specification's extended capability header (ID in
//!   bits 15:0, next offset in bits 31:20, starting at 0x100) and the ACS extended capability
//!   (ID 0x000D; control register at +0x06, P2P Request Redirect bit 2, P2P Completion
//!   Redirect bit 3), as Linux names them in `include/uapi/linux/pci_regs.h`
//!   (`PCI_EXT_CAP_ID_ACS`, `PCI_ACS_CTRL`, `PCI_ACS_RR`, `PCI_ACS_CR`); sysfs hands readers
//!   without CAP_SYS_ADMIN only the first 64 bytes of `config` (`drivers/pci/pci-sysfs.c`
//!   `pci_read_config`), so ACS needs root.

use super::{check, malformed, numa_node, unavailable, Check, Evidence, FileRead, Status};

/// One PCI function as sysfs places it: `devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciPlace {
    /// What the device is called in findings: "mlx5_0", or a GPU's PCI address.
    pub name: String,
    /// The canonical sysfs path of the function, relative to the sysfs root; a [`FileRead`]
    /// so a link that could not be resolved says why.
    pub path: FileRead,
    pub numa_node: FileRead,
}

/// A place parsed: the host bridge directory and the functions from the root port down to
/// the device itself.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Place<'a> {
    host_bridge: &'a str,
    chain: Vec<&'a str>,
    numa: Option<i32>,
}

/// A PCI address as sysfs prints it: "0000:3b:00.0" (domain:bus:device.function, hex).
fn is_pci_address(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11]
            .iter()
            .all(|&i| b[i].is_ascii_hexdigit())
}

fn place(p: &PciPlace) -> Result<Option<Place<'_>>, Check> {
    let id = format!("gpu-nic/{}", p.name);
    let Some(path) = p.path.value() else {
        return Ok(None);
    };
    let expected = "expected devices/pci<domain>:<bus>/<address>/…/<address>";
    let mut parts = path.split('/');
    let (Some("devices"), Some(bridge)) = (parts.next(), parts.next()) else {
        return Err(malformed(id, &p.path, expected));
    };
    let chain: Vec<&str> = parts.collect();
    if !bridge.starts_with("pci") || chain.is_empty() || !chain.iter().all(|c| is_pci_address(c)) {
        return Err(malformed(id, &p.path, expected));
    }
    let numa = numa_node(&p.numa_node).map_err(|error| malformed(id, &p.numa_node, error))?;
    Ok(Some(Place {
        host_bridge: bridge,
        chain,
        numa,
    }))
}

/// How far apart two devices are, in NCCL's path classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum PciDistance {
    /// Below one PCIe switch or root port: NCCL's PIX or PXB.
    Switch,
    /// Through the host bridge (the CPU's root complex), same NUMA node: NCCL's PHB.
    HostBridge,
    /// Across the link between CPU sockets: NCCL's SYS.
    Sockets,
}

impl PciDistance {
    fn nccl_name(self) -> &'static str {
        match self {
            PciDistance::Switch => "PIX/PXB",
            PciDistance::HostBridge => "PHB",
            PciDistance::Sockets => "SYS",
        }
    }
}

/// The distance between two places and, below a shared switch, the bridges on the way
/// (each side's functions under the last one they share, the devices themselves excluded).
fn distance<'a>(a: &Place<'a>, b: &Place<'a>) -> (PciDistance, Vec<&'a str>) {
    if a.host_bridge != b.host_bridge {
        return match (a.numa, b.numa) {
            (Some(x), Some(y)) if x != y => (PciDistance::Sockets, Vec::new()),
            _ => (PciDistance::HostBridge, Vec::new()),
        };
    }
    let shared = a
        .chain
        .iter()
        .zip(&b.chain)
        .take_while(|(x, y)| x == y)
        .count();
    if shared == 0 {
        return (PciDistance::HostBridge, Vec::new());
    }
    let below = |chain: &[&'a str]| chain[shared.min(chain.len() - 1)..chain.len() - 1].to_vec();
    let mut bridges = below(&a.chain);
    bridges.extend(below(&b.chain));
    (PciDistance::Switch, bridges)
}

/// What the GPU–NIC check found for one GPU: its verdict and, below a shared switch, the
/// bridges whose ACS setting decides whether peer-to-peer traffic stays there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuNicPath {
    pub check: Check,
    /// The NIC, when it shares a switch with the GPU (the case where ACS matters).
    pub switch_nic: Option<String>,
    pub bridges: Vec<String>,
}

/// `bus/pci/devices` held no NVIDIA GPU (vendor 0x10de, display class).
pub fn no_gpus(listing: &FileRead) -> Check {
    check(
        "gpu-nic".to_string(),
        Status::Skip,
        "no NVIDIA GPU on the PCI bus, so no GPU–NIC path to check".to_string(),
        vec![listing.evidence()],
        None,
    )
}

/// The NIC nearest to `gpu`, and whether NCCL will use GPUDirect RDMA between them.
pub fn gpu_nic_path(gpu: &PciPlace, nics: &[PciPlace]) -> GpuNicPath {
    let id = format!("gpu-nic/{}", gpu.name);
    let mut shown = vec![gpu.path.evidence(), gpu.numa_node.evidence()];
    shown.extend(nics.iter().map(|n| n.path.evidence()));
    let verdict = |check| GpuNicPath {
        check,
        switch_nic: None,
        bridges: Vec::new(),
    };
    let gpu_place = match place(gpu) {
        Ok(Some(place)) => place,
        Ok(None) => {
            return verdict(check(
                id,
                Status::Skip,
                format!("GPU {}: {}", gpu.name, unavailable(&gpu.path)),
                shown,
                None,
            ))
        }
        Err(failed) => return verdict(failed),
    };
    let mut nearest: Option<(PciDistance, &str, Vec<&str>)> = None;
    for nic in nics {
        let nic_place = match place(nic) {
            Ok(Some(place)) => place,
            Ok(None) => continue,
            Err(failed) => return verdict(failed),
        };
        let (d, bridges) = distance(&gpu_place, &nic_place);
        if nearest.as_ref().is_none_or(|(best, _, _)| d < *best) {
            nearest = Some((d, nic.name.as_str(), bridges));
        }
    }
    let Some((d, nic, bridges)) = nearest else {
        return verdict(check(
            id,
            Status::Skip,
            format!("GPU {}: no RDMA NIC with a PCI path to compare", gpu.name),
            shown,
            None,
        ));
    };
    let check = match d {
        PciDistance::Switch => check(
            id,
            Status::Pass,
            format!(
                "GPU {} and {nic} share a PCIe switch ({}): NCCL uses GPUDirect RDMA between \
                 them by default",
                gpu.name,
                d.nccl_name()
            ),
            shown,
            None,
        ),
        PciDistance::HostBridge | PciDistance::Sockets => check(
            id,
            Status::Warn,
            format!(
                "GPU {} reaches its nearest NIC, {nic}, only through the {} ({}): NCCL turns \
                 GPUDirect RDMA off beyond PXB by default and stages data through host memory",
                gpu.name,
                if d == PciDistance::Sockets {
                    "link between CPU sockets"
                } else {
                    "CPU's host bridge"
                },
                d.nccl_name()
            ),
            shown,
            Some(format!(
                "Put each GPU under the same PCIe switch as a NIC (the server's GPU–NIC pairing), \
                 or let NCCL use this path with NCCL_NET_GDR_LEVEL={} and measure: many CPUs \
                 forward peer-to-peer traffic slowly.",
                d.nccl_name().rsplit('/').next().unwrap_or("PHB")
            )),
        ),
    };
    GpuNicPath {
        check,
        switch_nic: (d == PciDistance::Switch).then(|| nic.to_string()),
        bridges: bridges.into_iter().map(str::to_string).collect(),
    }
}

// ---------------------------------------------------------------------------------------
// ACS

/// One bridge's `config` file, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSpace {
    pub bridge: String,
    /// The file, shown as its path; its text is unused (config space is binary).
    pub file: FileRead,
    /// The bytes read, when the file could be read.
    pub bytes: Option<Vec<u8>>,
}

const EXTENDED_START: usize = 0x100;
const ACS_ID: u16 = 0x000D;
const ACS_CONTROL: usize = 0x06;
const REQUEST_REDIRECT: u16 = 0x0004;
const COMPLETION_REDIRECT: u16 = 0x0008;

/// The ACS control register, if the capability list has ACS; `Err` for a list that loops or
/// points outside the file.
fn acs_control(bytes: &[u8]) -> Result<Option<u16>, String> {
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut at = EXTENDED_START;
    // 4 KiB of config space holds at most (4096 - 256) / 4 headers; more means a loop.
    for _ in 0..(4096 - EXTENDED_START) / 4 {
        let Some(header) = u32_at(at) else {
            return Err(format!("extended capability at {at:#x} is past the end"));
        };
        // All zeros or all ones: no extended capabilities (conventional PCI, or absent).
        if header == 0 || header == u32::MAX {
            return Ok(None);
        }
        if header as u16 == ACS_ID {
            let control = bytes
                .get(at + ACS_CONTROL..at + ACS_CONTROL + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .ok_or_else(|| format!("ACS capability at {at:#x} is cut short"))?;
            return Ok(Some(control));
        }
        let next = (header >> 20) as usize & !0x3;
        if next == 0 {
            return Ok(None);
        }
        if next < EXTENDED_START {
            return Err(format!(
                "extended capability at {at:#x} points back into the header, at {next:#x}"
            ));
        }
        at = next;
    }
    Err("the extended capability list loops".to_string())
}

/// Whether the bridges between a GPU and the NIC it shares a switch with send peer-to-peer
/// requests up to the root complex (ACS P2P Request/Completion Redirect), which GPUDirect
/// RDMA then pays for on every transfer.
pub fn acs(gpu: &str, nic: &str, bridges: &[ConfigSpace]) -> Check {
    let id = format!("acs/{gpu}");
    let shown: Vec<Evidence> = bridges.iter().map(|b| b.file.evidence()).collect();
    let mut redirecting = Vec::new();
    let mut needs_root = Vec::new();
    for bridge in bridges {
        let Some(bytes) = &bridge.bytes else {
            needs_root.push(unavailable(&bridge.file));
            continue;
        };
        if bytes.len() <= EXTENDED_START {
            // 64 bytes is what sysfs gives a reader without CAP_SYS_ADMIN; 256 is conventional
            // PCI, which has no ACS.
            if bytes.len() < EXTENDED_START {
                needs_root.push(format!(
                    "{} gives {} bytes (readers without root see only the header)",
                    bridge.file.path,
                    bytes.len()
                ));
            }
            continue;
        }
        match acs_control(bytes) {
            Err(error) => return malformed(id, &bridge.file, error),
            Ok(Some(control)) if control & (REQUEST_REDIRECT | COMPLETION_REDIRECT) != 0 => {
                redirecting.push(format!("{} (ACS control {control:#06x})", bridge.bridge));
            }
            Ok(_) => {}
        }
    }
    if bridges.is_empty() {
        return check(
            id,
            Status::Skip,
            format!("GPU {gpu} and {nic} sit on one bridge's bus: no bridge between them"),
            shown,
            None,
        );
    }
    if !redirecting.is_empty() {
        return check(
            id,
            Status::Warn,
            format!(
                "ACS redirects peer-to-peer traffic between GPU {gpu} and {nic} on {}: it goes up \
                 to the root complex instead of across the switch",
                redirecting.join(", ")
            ),
            shown,
            Some(
                "On bare metal, turn ACS redirect off on these bridges (the BIOS's ACS setting, \
                 or as root setpci -s <bridge> ECAP_ACS+0x6.w=0000 after each boot); keep it in \
                 virtual machines, where it isolates guests."
                    .to_string(),
            ),
        );
    }
    if !needs_root.is_empty() {
        return check(
            id,
            Status::Skip,
            format!(
                "ACS between GPU {gpu} and {nic} not checked: reading PCI config space needs \
                 root ({})",
                needs_root.join("; ")
            ),
            shown,
            None,
        );
    }
    check(
        id,
        Status::Pass,
        format!("no ACS redirect on the bridges between GPU {gpu} and {nic}"),
        shown,
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(name: &str, path: &str, numa: &str) -> PciPlace {
        PciPlace {
            name: name.into(),
            path: FileRead::text(format!("{name}/path"), path),
            numa_node: FileRead::text(format!("{name}/numa_node"), numa),
        }
    }

    const SWITCH: &str = "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";

    #[test]
    fn a_gpu_under_the_nics_switch_passes_and_names_the_downstream_ports() {
        let gpu = at(
            "0000:3d:00.0",
            &format!("{SWITCH}/0000:3c:00.0/0000:3d:00.0"),
            "0",
        );
        let nic = at(
            "mlx5_0",
            &format!("{SWITCH}/0000:3c:08.0/0000:3e:00.0"),
            "0",
        );
        let far = at(
            "mlx5_1",
            "devices/pci0000:ae/0000:ae:00.0/0000:af:00.0",
            "1",
        );
        let found = gpu_nic_path(&gpu, &[far, nic]);
        assert_eq!(found.check.status, Status::Pass, "{}", found.check.title);
        assert!(
            found.check.title.contains("mlx5_0"),
            "{}",
            found.check.title
        );
        assert_eq!(found.bridges, ["0000:3c:00.0", "0000:3c:08.0"]);
        assert_eq!(found.switch_nic.as_deref(), Some("mlx5_0"));
    }

    #[test]
    fn a_gpu_on_another_root_port_or_socket_warns_with_nccls_level() {
        let gpu = at(
            "0000:3c:00.0",
            "devices/pci0000:3a/0000:3a:02.0/0000:3c:00.0",
            "0",
        );
        let nic = at(
            "mlx5_0",
            "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
            "0",
        );
        let phb = gpu_nic_path(&gpu, std::slice::from_ref(&nic));
        assert_eq!(phb.check.status, Status::Warn);
        assert!(phb.check.title.contains("(PHB)"), "{}", phb.check.title);
        assert!(phb.check.fix.unwrap().contains("NCCL_NET_GDR_LEVEL=PHB"));
        assert_eq!(phb.switch_nic, None);
        let remote = at(
            "mlx5_2",
            "devices/pci0000:ae/0000:ae:00.0/0000:af:00.0",
            "1",
        );
        let sys = gpu_nic_path(&gpu, std::slice::from_ref(&remote));
        assert!(sys.check.title.contains("(SYS)"), "{}", sys.check.title);
        // The nearest NIC is the one reported.
        let both = gpu_nic_path(&gpu, &[remote, nic]);
        assert!(both.check.title.contains("mlx5_0"), "{}", both.check.title);
    }

    #[test]
    fn paths_that_are_not_sysfs_pci_paths_are_malformed() {
        let gpu = at("0000:3c:00.0", "devices/virtual/net/lo", "0");
        let nic = at("mlx5_0", SWITCH, "0");
        assert_eq!(gpu_nic_path(&gpu, &[nic]).check.status, Status::Fail);
        let odd = at(
            "0000:3c:00.0",
            "devices/pci0000:3a/0000:3a:02.0/0000:3c:00.0",
            "x",
        );
        let nic = at("mlx5_0", SWITCH, "0");
        assert_eq!(gpu_nic_path(&odd, &[nic]).check.status, Status::Fail);
    }

    /// 4 KiB of config space with an AER capability at 0x100 pointing at ACS at `acs_at`.
    fn config(acs_at: usize, control: u16) -> Vec<u8> {
        let mut bytes = vec![0u8; 4096];
        let header = |id: u32, next: usize| (id | 1 << 16 | (next as u32) << 20).to_le_bytes();
        bytes[0x100..0x104].copy_from_slice(&header(0x0001, acs_at));
        bytes[acs_at..acs_at + 4].copy_from_slice(&header(u32::from(ACS_ID), 0));
        bytes[acs_at + 6..acs_at + 8].copy_from_slice(&control.to_le_bytes());
        bytes
    }

    fn bridge(bytes: Option<Vec<u8>>) -> ConfigSpace {
        ConfigSpace {
            bridge: "0000:3c:00.0".into(),
            file: FileRead::text("0000:3c:00.0/config", ""),
            bytes,
        }
    }

    #[test]
    fn acs_redirect_warns_and_a_clear_control_register_passes() {
        // SV | RR | CR | UF, what Linux sets on switch downstream ports with the IOMMU on.
        let on = acs("g", "mlx5_0", &[bridge(Some(config(0x148, 0x001d)))]);
        assert_eq!(on.status, Status::Warn);
        assert!(on.title.contains("0x001d"), "{}", on.title);
        let off = acs("g", "mlx5_0", &[bridge(Some(config(0x148, 0x0000)))]);
        assert_eq!(off.status, Status::Pass, "{}", off.title);
        // Source validation alone does not redirect.
        let sv = acs("g", "mlx5_0", &[bridge(Some(config(0x148, 0x0001)))]);
        assert_eq!(sv.status, Status::Pass);
    }

    #[test]
    fn acs_needs_root_and_says_so_and_bad_lists_are_malformed() {
        let header_only = acs("g", "mlx5_0", &[bridge(Some(vec![0; 64]))]);
        assert_eq!(header_only.status, Status::Skip);
        assert!(
            header_only.title.contains("needs root"),
            "{}",
            header_only.title
        );
        let mut looped = config(0x148, 0);
        looped[0x148..0x14c].copy_from_slice(&(0x0002u32 | 0x148 << 20).to_le_bytes());
        assert_eq!(acs("g", "n", &[bridge(Some(looped))]).status, Status::Fail);
        let mut back = config(0x148, 0);
        back[0x100..0x104].copy_from_slice(&(0x0001u32 | 0x040 << 20).to_le_bytes());
        assert_eq!(acs("g", "n", &[bridge(Some(back))]).status, Status::Fail);
        let cut = config(0x148, 0)[..0x14a].to_vec();
        assert_eq!(acs("g", "n", &[bridge(Some(cut))]).status, Status::Fail);
    }
}
