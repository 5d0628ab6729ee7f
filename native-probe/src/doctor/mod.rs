//! `native-probe doctor`: reads the sysfs and procfs files that say whether this host is ready
//! for RDMA and GPUDirect RDMA, and hands their text to the engine's verdicts
//! (`engine::probe::doctor`), which the lab page can share. Read only, and never outside the
//! two trees: every read goes through [`Root`].

use std::{fmt, io, path::Path};

use engine::probe::doctor::{self, Check, Content, FileRead, Report, Status};

use crate::{
    cli::DoctorArgs,
    output,
    sysfs::{ReadError, Root},
};

/// Some check failed; the report has said which, so `main` only sets the exit code.
#[derive(Debug)]
pub struct ChecksFailed;

impl fmt::Display for ChecksFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("some checks failed")
    }
}

impl std::error::Error for ChecksFailed {}

/// The ECN switches exist per 802.1p priority, 0 to 7.
const PRIORITIES: u32 = 8;

pub fn run(args: &DoctorArgs) -> Result<(), Box<dyn std::error::Error>> {
    let trees = HostTrees {
        sysfs: Tree::open(&args.sysfs_root, "--sysfs-root", "/sys")?,
        procfs: Tree::open(&args.procfs_root, "--procfs-root", "/proc")?,
        debugfs: Tree::lenient(&args.debugfs()),
    };
    let report = report(&trees);
    if args.json {
        let text = serde_json::to_string_pretty(&report)?;
        output::to_stdout(|out| writeln!(out, "{text}"))?;
    } else {
        output::to_stdout(|out| write_text(out, &report))?;
    }
    if report.any_failed() {
        return Err(ChecksFailed.into());
    }
    Ok(())
}

/// The three trees the checks read: sysfs, procfs (its `cmdline`, `self/limits` and
/// `sys/kernel/osrelease`) and debugfs (mlx5's `cc_params`).
pub struct HostTrees {
    pub sysfs: Tree,
    pub procfs: Tree,
    pub debugfs: Tree,
}

/// A tree the checks read, and the path it is shown under in the evidence (as given, not
/// canonical, so `/sys/class/net/eth0/mtu` reads as the user knows it). A tree that could
/// not be opened answers every read with why (debugfs is root-only; a recorded host may
/// come without procfs).
pub struct Tree {
    root: Result<Root, Content>,
    shown: String,
}

impl Tree {
    fn open(dir: &Path, flag: &str, default: &str) -> Result<Tree, String> {
        let root = Root::open(dir).map_err(|error| {
            format!(
                "cannot read {} ({error}); give {flag} a directory laid out like {default}",
                dir.display()
            )
        })?;
        Ok(Tree {
            root: Ok(root),
            shown: shown_dir(dir),
        })
    }

    /// A tree that may be missing or unreadable, without failing the run.
    pub fn lenient(dir: &Path) -> Tree {
        Tree::shown_as(dir, &shown_dir(dir))
    }

    /// A tree read at `dir` and shown as `shown` (a recording of a host's /sys shown as /sys).
    pub fn shown_as(dir: &Path, shown: &str) -> Tree {
        Tree {
            root: Root::open(dir).map_err(content_of),
            shown: shown.to_string(),
        }
    }

    /// The tree at `dir`, or none with `why` as the reason every read gives.
    pub fn at(dir: Option<&Path>, why: &str) -> Tree {
        match dir {
            Some(dir) => Tree::lenient(dir),
            None => Tree {
                root: Err(Content::Unreadable(why.to_string())),
                shown: String::new(),
            },
        }
    }

    fn path(&self, relative: &str) -> String {
        format!("{}/{relative}", self.shown)
    }

    fn read(&self, relative: &str) -> FileRead {
        FileRead {
            path: self.path(relative),
            content: match &self.root {
                Ok(root) => match root.read(Path::new(relative)) {
                    Ok(text) => Content::Text(text),
                    Err(error) => content_of(error),
                },
                Err(why) => why.clone(),
            },
        }
    }

    /// A binary file's bytes (at most `limit`), beside the file as evidence.
    fn read_bytes(&self, relative: &str, limit: usize) -> (FileRead, Option<Vec<u8>>) {
        let path = self.path(relative);
        let read = match &self.root {
            Ok(root) => root
                .read_bytes(Path::new(relative), limit)
                .map_err(content_of),
            Err(why) => Err(why.clone()),
        };
        match read {
            Ok(bytes) => {
                let shown = format!("({} bytes)", bytes.len());
                (FileRead::text(path, shown), Some(bytes))
            }
            Err(content) => (FileRead { path, content }, None),
        }
    }

    /// Where a link leads, relative to the root (`devices/pci0000:3a/…`), as a file read:
    /// sysfs places a PCI function by its path.
    fn place(&self, relative: &str) -> FileRead {
        let path = self.path(relative);
        let content = match &self.root {
            Ok(root) => match root.resolve(Path::new(relative)) {
                Ok(resolved) => match resolved.strip_prefix(root.dir()) {
                    Ok(inside) => Content::Text(inside.display().to_string()),
                    Err(_) => Content::Unreadable("resolved outside the tree".to_string()),
                },
                Err(error) => content_of(error),
            },
            Err(why) => why.clone(),
        };
        FileRead { path, content }
    }

    /// A directory's entry names, and the same as evidence (the names joined by spaces).
    fn list(&self, relative: &str) -> (FileRead, Vec<String>) {
        let path = self.path(relative);
        let listed = match &self.root {
            Ok(root) => root.list(Path::new(relative)).map_err(content_of),
            Err(why) => Err(why.clone()),
        };
        match listed {
            Ok(names) => (FileRead::text(path, names.join(" ")), names),
            Err(content) => (FileRead { path, content }, Vec::new()),
        }
    }
}

fn shown_dir(dir: &Path) -> String {
    dir.display().to_string().trim_end_matches('/').to_string()
}

fn content_of(error: ReadError) -> Content {
    match error {
        ReadError::Io { source, .. } => match source.kind() {
            io::ErrorKind::NotFound => Content::Missing,
            io::ErrorKind::PermissionDenied => Content::Denied,
            _ => Content::Unreadable(source.to_string()),
        },
        outside @ ReadError::OutsideRoot { .. } => Content::Unreadable(outside.to_string()),
    }
}

/// A name read from a file (`gid_attrs/ndevs/<i>`) that is used as a path component: one
/// component, never `..`.
fn component(name: &str) -> Option<&str> {
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0']);
    plain.then_some(name)
}

/// The numeric entries of a directory (port numbers, GID indices), in order.
fn numbered(names: &[String]) -> Vec<u32> {
    let mut numbers: Vec<u32> = names.iter().filter_map(|n| n.parse().ok()).collect();
    numbers.sort_unstable();
    numbers
}

/// Every check, in the order of the priorities: ports, GIDs, MTU, GPUDirect and
/// DMA-BUF, IOMMU, PCIe (links, GPU–NIC paths, ACS), locked memory, ECN, DCQCN parameters.
pub fn report(trees: &HostTrees) -> Report {
    const INFINIBAND: &str = "class/infiniband";
    let (sysfs, procfs) = (&trees.sysfs, &trees.procfs);
    let (class_dir, devices) = sysfs.list(INFINIBAND);
    let mut ports = Vec::new();
    let mut tables = Vec::new();
    for device in &devices {
        let (_, names) = sysfs.list(&format!("{INFINIBAND}/{device}/ports"));
        for port in numbered(&names) {
            let dir = format!("{INFINIBAND}/{device}/ports/{port}");
            let files = doctor::PortFiles {
                device: device.clone(),
                port,
                state: sysfs.read(&format!("{dir}/state")),
                phys_state: sysfs.read(&format!("{dir}/phys_state")),
                link_layer: sysfs.read(&format!("{dir}/link_layer")),
            };
            let (_, slots) = sysfs.list(&format!("{dir}/gids"));
            let entries = numbered(&slots)
                .into_iter()
                .map(|index| doctor::GidFiles {
                    index,
                    gid: sysfs.read(&format!("{dir}/gids/{index}")),
                    gid_type: sysfs.read(&format!("{dir}/gid_attrs/types/{index}")),
                    ndev: sysfs.read(&format!("{dir}/gid_attrs/ndevs/{index}")),
                })
                .collect();
            tables.push(doctor::GidTable {
                device: device.clone(),
                port,
                link_layer: match &files.link_layer.content {
                    Content::Text(text) => Some(text.clone()),
                    _ => None,
                },
                entries,
            });
            ports.push(files);
        }
    }

    let mut checks: Vec<Check> = Vec::new();
    if devices.is_empty() {
        checks.push(doctor::no_rdma_devices(&class_dir));
    }
    checks.extend(ports.iter().map(doctor::port_state));
    checks.extend(ports.iter().map(|port| {
        let dir = format!(
            "{INFINIBAND}/{}/ports/{}/hw_counters",
            port.device, port.port
        );
        doctor::transport_errors(&doctor::ErrorCounterFiles {
            device: port.device.clone(),
            port: port.port,
            files: doctor::TRANSPORT_ERRORS
                .iter()
                .map(|(name, _, _)| (*name, sysfs.read(&format!("{dir}/{name}"))))
                .collect(),
        })
    }));
    checks.extend(tables.iter().map(doctor::roce_v2_gid));
    // The RoCE netdevs, once each, in the order their ports were listed.
    let mut netdevs: Vec<String> = Vec::new();
    for table in &tables {
        let netdev = doctor::port_netdev(table).filter(|n| component(n).is_some());
        let roce = table.link_layer.as_deref() == Some("Ethernet");
        if let (true, Some(name)) = (roce, &netdev) {
            if !netdevs.contains(name) {
                netdevs.push(name.clone());
            }
        }
        checks.push(doctor::roce_mtu(&doctor::MtuFiles {
            device: table.device.clone(),
            port: table.port,
            link_layer: table.link_layer.clone(),
            netdev: netdev.map(|name| {
                let mtu = sysfs.read(&format!("class/net/{name}/mtu"));
                (name, mtu)
            }),
        }));
    }
    checks.push(doctor::gpudirect(&doctor::GpuDirectFiles {
        nvidia_version: sysfs.read("module/nvidia/version"),
        nvidia_peermem: sysfs.read("module/nvidia_peermem/initstate"),
        nv_peer_mem: sysfs.read("module/nv_peer_mem/initstate"),
    }));
    checks.push(doctor::dma_buf(&procfs.read("sys/kernel/osrelease")));
    checks.push(doctor::iommu(&doctor::IommuFiles {
        units: sysfs.list("class/iommu").0,
        cmdline: procfs.read("cmdline"),
        nic_domains: devices
            .iter()
            .map(|device| {
                let file = sysfs.read(&format!("{INFINIBAND}/{device}/device/iommu_group/type"));
                (device.clone(), file)
            })
            .collect(),
    }));
    for device in &devices {
        let pci = |name: &str| sysfs.read(&format!("{INFINIBAND}/{device}/device/{name}"));
        checks.push(doctor::pcie_link(&doctor::PcieFiles {
            device: device.clone(),
            numa_node: pci("numa_node"),
            current_speed: pci("current_link_speed"),
            current_width: pci("current_link_width"),
            max_speed: pci("max_link_speed"),
            max_width: pci("max_link_width"),
        }));
    }
    checks.extend(gpu_paths(sysfs, &devices));
    // `self` is this process, whose limits are the shell's that started it.
    checks.push(doctor::memlock(&procfs.read("self/limits")));
    for netdev in &netdevs {
        let switches = |role: &str| {
            (0..PRIORITIES)
                .map(|priority| {
                    sysfs.read(&format!("class/net/{netdev}/ecn/{role}/enable/{priority}"))
                })
                .collect()
        };
        checks.push(doctor::ecn(&doctor::EcnFiles {
            netdev: netdev.clone(),
            notification_point: switches("roce_np"),
            reaction_point: switches("roce_rp"),
        }));
    }
    for device in &devices {
        checks.push(cc_params(trees, device));
    }
    Report { checks }
}

/// sysfs gives at most 4 KiB of a PCIe function's config space.
const CONFIG_SPACE_BYTES: usize = 4096;
/// NVIDIA's PCI vendor id, and the display (VGA, 3D) class codes GPUs use.
const NVIDIA: &str = "0x10de";
const DISPLAY_CLASSES: [&str; 2] = ["0x0300", "0x0302"];

/// For each NVIDIA GPU on the PCI bus, its nearest RDMA NIC and, when they share a switch,
/// the ACS setting of the bridges between them.
fn gpu_paths(sysfs: &Tree, devices: &[String]) -> Vec<Check> {
    const PCI: &str = "bus/pci/devices";
    let (listing, functions) = sysfs.list(PCI);
    let gpus: Vec<&String> = functions
        .iter()
        .filter(|f| component(f).is_some())
        .filter(|f| {
            // The class is read only for NVIDIA's functions (NICs, bridges and the rest are
            // most of the bus).
            let text = |name: &str| match sysfs.read(&format!("{PCI}/{f}/{name}")).content {
                Content::Text(text) => Some(text),
                _ => None,
            };
            text("vendor").is_some_and(|v| v == NVIDIA)
                && text("class").is_some_and(|c| DISPLAY_CLASSES.iter().any(|d| c.starts_with(d)))
        })
        .collect();
    if gpus.is_empty() {
        return vec![doctor::no_gpus(&listing)];
    }
    let nics: Vec<doctor::PciPlace> = devices
        .iter()
        .map(|device| doctor::PciPlace {
            name: device.clone(),
            path: sysfs.place(&format!("class/infiniband/{device}/device")),
            numa_node: sysfs.read(&format!("class/infiniband/{device}/device/numa_node")),
        })
        .collect();
    let mut checks = Vec::new();
    for gpu in gpus {
        let place = doctor::PciPlace {
            name: gpu.clone(),
            path: sysfs.place(&format!("{PCI}/{gpu}")),
            numa_node: sysfs.read(&format!("{PCI}/{gpu}/numa_node")),
        };
        let path = doctor::gpu_nic_path(&place, &nics);
        checks.push(path.check);
        if let Some(nic) = &path.switch_nic {
            let bridges: Vec<doctor::ConfigSpace> = path
                .bridges
                .iter()
                .filter(|b| component(b).is_some())
                .map(|bridge| {
                    let (file, bytes) =
                        sysfs.read_bytes(&format!("{PCI}/{bridge}/config"), CONFIG_SPACE_BYTES);
                    doctor::ConfigSpace {
                        bridge: bridge.clone(),
                        file,
                        bytes,
                    }
                })
                .collect();
            checks.push(doctor::acs(gpu, nic, &bridges));
        }
    }
    checks
}

/// One device's DCQCN parameters from debugfs, found by the PCI address its `device` link
/// names.
fn cc_params(trees: &HostTrees, device: &str) -> Check {
    let place = trees
        .sysfs
        .place(&format!("class/infiniband/{device}/device"));
    let pci = match &place.content {
        Content::Text(path) => path.rsplit('/').next().map(str::to_string),
        _ => None,
    };
    let Some(pci) = pci.filter(|p| component(p).is_some()) else {
        return doctor::cc_params(&doctor::CcParamFiles {
            device: device.to_string(),
            dir: place,
            values: Vec::new(),
        });
    };
    let dir = format!("mlx5/{pci}/cc_params");
    let (listing, names) = trees.debugfs.list(&dir);
    let values = names
        .iter()
        .filter(|n| component(n).is_some())
        .map(|name| (name.clone(), trees.debugfs.read(&format!("{dir}/{name}"))))
        .collect();
    doctor::cc_params(&doctor::CcParamFiles {
        device: device.to_string(),
        dir: listing,
        values,
    })
}

fn mark(status: Status) -> &'static str {
    match status {
        Status::Pass => "✓",
        Status::Warn => "!",
        Status::Fail => "✗",
        Status::Skip => "-",
    }
}

/// Text read from files, made safe for a terminal: control characters are escaped, so a
/// recorded tree cannot send escape sequences.
fn shown(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

fn write_text(out: &mut dyn io::Write, report: &Report) -> io::Result<()> {
    for check in &report.checks {
        writeln!(out, "{} {}", mark(check.status), shown(&check.title))?;
        for evidence in &check.evidence {
            let value = match evidence.value.as_str() {
                "" => "(empty)".to_string(),
                value => shown(value),
            };
            writeln!(out, "    {}: {value}", shown(&evidence.path))?;
        }
        if let Some(fix) = &check.fix {
            writeln!(out, "    fix: {}", shown(fix))?;
        }
    }
    let count = |status| report.count(status);
    writeln!(
        out,
        "{} passed, {} warned, {} failed, {} skipped",
        count(Status::Pass),
        count(Status::Warn),
        count(Status::Fail),
        count(Status::Skip)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_files_are_single_path_components() {
        assert_eq!(component("ens1f0np0"), Some("ens1f0np0"));
        assert_eq!(component(".."), None);
        assert_eq!(component("../../etc"), None);
        assert_eq!(component(""), None);
    }

    #[test]
    fn control_characters_are_escaped_for_the_terminal() {
        assert_eq!(shown("up\u{1b}[2J"), "up\\u{1b}[2J");
        assert_eq!(shown("16.0 GT/s PCIe"), "16.0 GT/s PCIe");
    }
}
