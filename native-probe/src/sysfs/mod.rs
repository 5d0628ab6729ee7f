//! Reading the RDMA and network devices of a sysfs tree (and mlx5's DCQCN parameters from
//! debugfs), never writing, never leaving the trees it was given.
//!
//! Layout (paths relative to the sysfs root, mirroring `/sys`):
//! - `class/infiniband/<dev>/{node_guid,sys_image_guid,fw_ver,hca_type,board_id,node_type,node_desc}`
//!   and `…/ports/<n>/{state,phys_state,rate,link_layer,lid,sm_lid,gids/,gid_attrs/,counters/,hw_counters/}`
//!   (kernel `Documentation/ABI/stable/sysfs-class-infiniband`);
//! - `class/infiniband/<dev>/device` → the PCI device, with its `numa_node`;
//! - `class/net/<if>/{address,mtu,speed,operstate,statistics/}` (kernel
//!   `Documentation/ABI/testing/sysfs-class-net`, `…/sysfs-class-net-statistics`).
//!
//! The debugfs root holds `mlx5/<pci address>/cc_params/<name>` (kernel
//! `drivers/infiniband/hw/mlx5/cong.c`); those files are mode 0600, so only root reads them.

mod kept;
pub mod parse;
pub mod root;
mod tree_watch;

use std::{
    collections::{BTreeMap, BTreeSet},
    mem::take,
    path::{Path, PathBuf},
};

use engine::probe::{
    same_name, CcParams, Component, CounterName, GidEntry, Inventory, NetDevice, NetdevReading,
    PortReading, RdmaDevice, RdmaPort, Reading,
};

use kept::Kept;
pub use root::{ReadError, Root};

const INFINIBAND: &str = "class/infiniband";
const NET: &str = "class/net";
/// Not a counter: the number of milliseconds mlx5 caches `hw_counters` for (writable).
const HW_COUNTERS_NOT_COUNTERS: &[&str] = &["lifespan"];

/// The trees the probe reads: a sysfs root and, when it exists, a debugfs root.
#[derive(Debug)]
pub struct Trees {
    pub sysfs: Root,
    /// `Err` holds why debugfs cannot be read, shown as the DCQCN parameters' hint.
    pub debugfs: Result<Root, String>,
    /// What every reading reads, kept open between readings (the inventory, read when
    /// something came or went, opens what it reads each time).
    kept: Kept,
}

impl Trees {
    pub fn open(sysfs: &Path, debugfs: &Path) -> Result<Trees, ReadError> {
        let sysfs = Root::open(sysfs)?;
        let debugfs = Root::open(debugfs).map_err(|error| {
            format!(
                "debugfs is not readable ({error}); DCQCN parameters need root and debugfs mounted (mount -t debugfs none /sys/kernel/debug)"
            )
        });
        Ok(Trees {
            kept: Kept::new(sysfs.clone()),
            sysfs,
            debugfs,
        })
    }

    /// Every device, port and interface present now (directory listings only). The sampler
    /// takes them from [`Trees::reading_and_components`]; the tests check the two agree.
    #[cfg(test)]
    pub fn components(&self) -> BTreeSet<Component> {
        let mut found = BTreeSet::new();
        for device in self.list(Path::new(INFINIBAND)) {
            for port in self.port_numbers(&device) {
                found.insert(Component::RdmaPort {
                    device: device.clone(),
                    port,
                });
            }
            found.insert(Component::RdmaDevice { device });
        }
        for interface in self.list(Path::new(NET)) {
            found.insert(Component::Netdev { interface });
        }
        found
    }

    pub fn inventory(&self) -> Inventory {
        let rdma_devices = self
            .list(Path::new(INFINIBAND))
            .into_iter()
            .map(|name| self.rdma_device(name))
            .collect();
        let netdevs = self
            .list(Path::new(NET))
            .into_iter()
            .map(|name| self.netdev(name))
            .collect();
        Inventory {
            rdma_devices,
            netdevs,
        }
    }

    /// Every counter of every port and interface, stamped `timestamp_ms`.
    pub fn reading(&mut self, timestamp_ms: u64) -> Reading {
        self.reading_and_components(timestamp_ms).0
    }

    /// A reading and the components it found (the set the tests get from
    /// `Trees::components`), from one listing of the trees: the sampler needs both every
    /// interval.
    pub fn reading_and_components(&mut self, timestamp_ms: u64) -> (Reading, BTreeSet<Component>) {
        self.reading_and_components_reusing(timestamp_ms, None)
    }

    /// [`Trees::reading_and_components`], refilling the counter maps of `spare` (an older
    /// reading nobody holds any more) where they have the same names, instead of allocating
    /// every name anew each interval.
    pub fn reading_and_components_reusing(
        &mut self,
        timestamp_ms: u64,
        spare: Option<Reading>,
    ) -> (Reading, BTreeSet<Component>) {
        let (mut spare_ports, mut spare_netdevs) = spare
            .map(|reading| (reading.ports, reading.netdevs))
            .unwrap_or_default();
        let mut found = BTreeSet::new();
        let mut ports = Vec::new();
        self.kept.begin_reading();
        for device in self.kept_list(Path::new(INFINIBAND)) {
            found.insert(Component::RdmaDevice {
                device: device.clone(),
            });
            let port_numbers = port_numbers(self.kept_list(&ports_dir(&device)));
            for port in port_numbers {
                found.insert(Component::RdmaPort {
                    device: device.clone(),
                    port,
                });
                let dir = port_dir(&device, port);
                let (counters, hw_counters) = spare_ports
                    .iter_mut()
                    .find(|p| p.device == device && p.port == port)
                    .map(|p| (take(&mut p.counters), take(&mut p.hw_counters)))
                    .unwrap_or_default();
                let counters = self.counters(&dir.join("counters"), &[], counters);
                let hw_counters = self.counters(
                    &dir.join("hw_counters"),
                    HW_COUNTERS_NOT_COUNTERS,
                    hw_counters,
                );
                let octets = |name: &str| {
                    counters
                        .get(name)
                        .copied()
                        .flatten()
                        .and_then(|words: u64| words.checked_mul(4))
                };
                ports.push(PortReading {
                    device: device.clone(),
                    port,
                    state: self
                        .kept_text(&dir.join("state"))
                        .and_then(|t| parse::enumerated(&t).ok()),
                    tx_bytes: octets("port_xmit_data"),
                    rx_bytes: octets("port_rcv_data"),
                    counters,
                    hw_counters,
                });
            }
        }
        let mut netdevs = Vec::new();
        for interface in self.kept_list(Path::new(NET)) {
            found.insert(Component::Netdev {
                interface: interface.clone(),
            });
            let dir = Path::new(NET).join(&interface);
            let statistics = spare_netdevs
                .iter_mut()
                .find(|d| d.interface == interface)
                .map(|d| take(&mut d.statistics))
                .unwrap_or_default();
            let statistics = self.counters(&dir.join("statistics"), &[], statistics);
            netdevs.push(NetdevReading {
                operstate: self.kept_text(&dir.join("operstate")),
                tx_bytes: statistics.get("tx_bytes").copied().flatten(),
                rx_bytes: statistics.get("rx_bytes").copied().flatten(),
                statistics,
                interface,
            });
        }
        // What this reading did not use (a device that went away) is closed.
        self.kept.end_reading();
        let reading = Reading {
            timestamp_ms,
            ports,
            netdevs,
        };
        (reading, found)
    }

    fn rdma_device(&self, name: String) -> RdmaDevice {
        let dir = Path::new(INFINIBAND).join(&name);
        let text = |file: &str| self.text(&dir.join(file));
        let pci_address = self
            .sysfs
            .resolve(&dir.join("device"))
            .ok()
            .and_then(|path| path.file_name()?.to_str().map(str::to_string));
        let cc_params = match &pci_address {
            Some(pci) => self.cc_params(pci),
            None => CcParams {
                unavailable: Some(format!(
                    "{name} has no PCI device link, so no mlx5 debugfs directory"
                )),
                ..CcParams::default()
            },
        };
        RdmaDevice {
            node_guid: text("node_guid"),
            sys_image_guid: text("sys_image_guid"),
            fw_ver: text("fw_ver"),
            hca_type: text("hca_type"),
            board_id: text("board_id"),
            node_type: self.parsed(&dir.join("node_type"), parse::enumerated),
            node_desc: text("node_desc"),
            numa_node: self.parsed(&dir.join("device/numa_node"), |t| {
                parse::number(t, "a NUMA node number")
            }),
            pci_address,
            ports: self
                .port_numbers(&name)
                .into_iter()
                .map(|port| self.rdma_port(&name, port))
                .collect(),
            cc_params,
            name,
        }
    }

    fn rdma_port(&self, device: &str, port: u32) -> RdmaPort {
        let dir = port_dir(device, port);
        let rate = self.text(&dir.join("rate"));
        RdmaPort {
            port,
            state: self.parsed(&dir.join("state"), parse::enumerated),
            phys_state: self.parsed(&dir.join("phys_state"), parse::enumerated),
            rate_gbps: rate.as_deref().and_then(|r| parse::rate_gbps(r).ok()),
            rate,
            link_layer: self.text(&dir.join("link_layer")),
            lid: self.parsed(&dir.join("lid"), parse::lid),
            sm_lid: self.parsed(&dir.join("sm_lid"), parse::lid),
            gids: self.gids(&dir),
        }
    }

    /// The populated GID table, as rdma-core's `show_gids` prints it: an all-zero GID is an
    /// empty slot, and its `gid_attrs` files cannot be read (the kernel returns an error).
    fn gids(&self, port_dir: &Path) -> Vec<GidEntry> {
        let mut indices: Vec<u32> = self
            .list(&port_dir.join("gids"))
            .iter()
            .filter_map(|name| name.parse().ok())
            .collect();
        indices.sort_unstable();
        indices
            .into_iter()
            .filter_map(|index| {
                let text = self.text(&port_dir.join(format!("gids/{index}")))?;
                let groups = parse::gid(&text).ok()?;
                if groups.iter().all(|&g| g == 0) {
                    return None;
                }
                Some(GidEntry {
                    index,
                    gid_type: self.text(&port_dir.join(format!("gid_attrs/types/{index}"))),
                    ndev: self.text(&port_dir.join(format!("gid_attrs/ndevs/{index}"))),
                    ipv4: parse::ipv4_of_gid(&groups),
                    gid: text,
                })
            })
            .collect()
    }

    fn cc_params(&self, pci_address: &str) -> CcParams {
        let debugfs = match &self.debugfs {
            Ok(root) => root,
            Err(hint) => {
                return CcParams {
                    unavailable: Some(hint.clone()),
                    ..CcParams::default()
                }
            }
        };
        let dir = PathBuf::from("mlx5").join(pci_address).join("cc_params");
        let names = match debugfs.list(&dir) {
            Ok(names) => names,
            Err(error) => {
                return CcParams {
                    unavailable: Some(format!(
                        "no DCQCN parameters ({error}); they exist for mlx5 devices only, and reading them needs root"
                    )),
                    ..CcParams::default()
                }
            }
        };
        let mut values = BTreeMap::new();
        let mut failures = Vec::new();
        for name in names {
            match debugfs.read(&dir.join(&name)) {
                Ok(text) => match parse::number::<u32>(&text, "an unsigned 32-bit value") {
                    Ok(value) => {
                        values.insert(name, value);
                    }
                    Err(error) => failures.push(format!("{name}: {error}")),
                },
                Err(error) => failures.push(error.to_string()),
            }
        }
        let unavailable = (!failures.is_empty()).then(|| {
            format!(
                "some DCQCN parameters could not be read (reading them needs root): {}",
                failures.join("; ")
            )
        });
        CcParams {
            values,
            unavailable,
        }
    }

    fn netdev(&self, name: String) -> NetDevice {
        let dir = Path::new(NET).join(&name);
        NetDevice {
            address: self.text(&dir.join("address")),
            mtu: self.parsed(&dir.join("mtu"), |t| parse::number(t, "an MTU")),
            speed_mbps: self.parsed(&dir.join("speed"), parse::speed_mbps).flatten(),
            operstate: self.text(&dir.join("operstate")),
            name,
        }
    }

    /// Every file of a counters directory; a file that cannot be read or parsed is `None`,
    /// and a directory that cannot be listed has none.
    ///
    /// `reuse` is the map of an older reading of the same directory: while the files come
    /// (sorted by name) with the names it has, their values are written over its own. Its
    /// names are the listing's own, so they compare by pointer.
    fn counters(
        &mut self,
        dir: &Path,
        skip: &[&str],
        mut reuse: BTreeMap<CounterName, Option<u64>>,
    ) -> BTreeMap<CounterName, Option<u64>> {
        // How many of `reuse`'s entries, from its first, were overwritten in order, and
        // every file after the first that did not line up with the next of them.
        let mut overwritten = 0;
        let mut rest = Vec::new();
        let mut slots = reuse.iter_mut();
        let listed = self.kept.read_each(dir, |name, text| {
            if skip.contains(&&**name) {
                return;
            }
            let value = text
                .ok()
                .filter(|t| !t.is_empty())
                .and_then(|t| parse::counter(t).ok());
            if rest.is_empty() {
                if let Some((slot_name, slot)) = slots.next() {
                    if same_name(slot_name, name) {
                        *slot = value;
                        overwritten += 1;
                        return;
                    }
                }
            }
            rest.push((CounterName::clone(name), value));
        });
        if listed.is_err() {
            return BTreeMap::new();
        }
        if rest.is_empty() && overwritten == reuse.len() {
            return reuse;
        }
        // The names changed: the ones that lined up, then the others.
        reuse.into_iter().take(overwritten).chain(rest).collect()
    }

    fn port_numbers(&self, device: &str) -> Vec<u32> {
        port_numbers(self.list(&ports_dir(device)))
    }

    /// [`Trees::list`] through the directories kept open for readings.
    fn kept_list(&mut self, dir: &Path) -> Vec<String> {
        self.kept.list(dir).unwrap_or_default()
    }

    /// [`Trees::text`] through the files kept open for readings.
    fn kept_text(&mut self, file: &Path) -> Option<String> {
        self.kept.read(file).ok().filter(|t| !t.is_empty())
    }

    /// A directory's entries; a missing directory (no RDMA devices on this machine) is empty.
    fn list(&self, dir: &Path) -> Vec<String> {
        self.sysfs.list(dir).unwrap_or_default()
    }

    /// A file's text, or `None` when it is missing, unreadable or empty.
    fn text(&self, file: &Path) -> Option<String> {
        self.sysfs.read(file).ok().filter(|t| !t.is_empty())
    }

    fn parsed<T, E>(&self, file: &Path, parse: impl Fn(&str) -> Result<T, E>) -> Option<T> {
        self.text(file).and_then(|t| parse(&t).ok())
    }
}

fn ports_dir(device: &str) -> PathBuf {
    Path::new(INFINIBAND).join(device).join("ports")
}

fn port_dir(device: &str, port: u32) -> PathBuf {
    ports_dir(device).join(port.to_string())
}

/// The port numbers among a `ports` directory's entries, in order.
fn port_numbers(names: Vec<String>) -> Vec<u32> {
    let mut ports: Vec<u32> = names.iter().filter_map(|name| name.parse().ok()).collect();
    ports.sort_unstable();
    ports
}

#[cfg(test)]
mod tests;
