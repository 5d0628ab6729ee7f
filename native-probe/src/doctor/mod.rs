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
    let sysfs = Tree::open(&args.sysfs_root, "--sysfs-root", "/sys")?;
    let procfs = Tree::open(&args.procfs_root, "--procfs-root", "/proc")?;
    let report = report(&sysfs, &procfs);
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

/// A tree the checks read, and the path it is shown under in the evidence (as given, not
/// canonical, so `/sys/class/net/eth0/mtu` reads as the user knows it).
struct Tree {
    root: Root,
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
            root,
            shown: dir.display().to_string().trim_end_matches('/').to_string(),
        })
    }

    fn path(&self, relative: &str) -> String {
        format!("{}/{relative}", self.shown)
    }

    fn read(&self, relative: &str) -> FileRead {
        FileRead {
            path: self.path(relative),
            content: match self.root.read(Path::new(relative)) {
                Ok(text) => Content::Text(text),
                Err(error) => content_of(error),
            },
        }
    }

    /// A directory's entry names, and the same as evidence (the names joined by spaces).
    fn list(&self, relative: &str) -> (FileRead, Vec<String>) {
        let path = self.path(relative);
        match self.root.list(Path::new(relative)) {
            Ok(names) => (FileRead::text(path, names.join(" ")), names),
            Err(error) => (
                FileRead {
                    path,
                    content: content_of(error),
                },
                Vec::new(),
            ),
        }
    }
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

/// Every check, in the order of the priorities: ports, GIDs, MTU, GPUDirect, IOMMU,
/// PCIe, locked memory, ECN.
fn report(sysfs: &Tree, procfs: &Tree) -> Report {
    const INFINIBAND: &str = "class/infiniband";
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
    Report { checks }
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
    let count = |status| report.checks.iter().filter(|c| c.status == status).count();
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
