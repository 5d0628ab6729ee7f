//! Reading the RDMA and network devices of a sysfs tree (and mlx5's DCQCN parameters from
//! debugfs), never writing, never leaving the trees it was given.
//!
//! Layout (paths relative to the sysfs root, mirroring `/sys`):
//! - `class/infiniband/<dev>/{node_guid,sys_image_guid,fw_ver,hca_type,board_id,node_type,node_desc}`
//!   and `…/ports/<n>/{state,phys_state,rate,link_layer,lid,sm_lid,gids/,gid_attrs/,counters/,hw_counters/}`
//!   (kernel `Documentation/ABI/stable/sysfs-class-infiniband`), and on mlx4 `counters_ext/`
//!   beside `counters/` (64-bit counters, where kernels before v4.5 put them, as
//!   prometheus/procfs notes);
//! - `class/infiniband/<dev>/device` → the PCI device, with its `numa_node`;
//! - `class/net/<if>/{address,mtu,speed,operstate,statistics/}` (kernel
//!   `Documentation/ABI/testing/sysfs-class-net`, `…/sysfs-class-net-statistics`).
//!
//! The debugfs root holds `mlx5/<pci address>/cc_params/<name>` (kernel
//! `drivers/infiniband/hw/mlx5/cong.c`); those files are mode 0600, so only root reads them.

mod held;
pub mod root;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    time::Duration,
};

use engine::probe::{
    attribute, wider, CcParams, Component, GidEntry, Inventory, NetDevice, NetdevReading,
    PortReading, RdmaDevice, RdmaPort, Reading,
};

use held::{Held, Opened, Values, REOPEN_EVERY};
pub use root::{ReadError, Root};

const INFINIBAND: &str = "class/infiniband";
const NET: &str = "class/net";
/// Not a counter: the number of milliseconds mlx5 caches `hw_counters` for (writable).
const NOT_COUNTERS: &[&str] = &["lifespan"];

/// An RDMA device's ports, each with its files (`None` when they could not be opened).
type Ports = Vec<(u32, Option<Held>)>;

/// The trees the probe reads: a sysfs root and, when it exists, a debugfs root.
pub struct Trees {
    pub sysfs: Root,
    /// `Err` holds why debugfs cannot be read, shown as the DCQCN parameters' hint.
    pub debugfs: Result<Root, String>,
    /// Each RDMA device's ports, listed when its files were opened (ports come and go only
    /// with their device), and each port's files; each interface's files. Held open
    /// between readings (the inventory, read when something came or went, opens what it
    /// reads each time).
    devices: BTreeMap<String, Opened<Ports>>,
    interfaces: BTreeMap<String, Opened<Option<Held>>>,
    reopen_every: Duration,
    /// Room for one attribute, reused by every read of a reading.
    buffer: Vec<u8>,
    /// How many times a device's or interface's files were opened (for the tests).
    #[cfg(test)]
    opened: usize,
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
            sysfs,
            debugfs,
            devices: BTreeMap::new(),
            interfaces: BTreeMap::new(),
            reopen_every: REOPEN_EVERY,
            buffer: Vec::new(),
            #[cfg(test)]
            opened: 0,
        })
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

    /// A reading and every device, port and interface it found, from one listing of the
    /// trees: the sampler needs both every interval.
    pub fn reading_and_components(&mut self, timestamp_ms: u64) -> (Reading, BTreeSet<Component>) {
        let mut found = BTreeSet::new();
        let mut ports = Vec::new();
        let devices = self.list(Path::new(INFINIBAND));
        // What left the listing is closed.
        self.devices.retain(|device, _| devices.contains(device));
        for device in devices {
            for (port, values) in self.read_device(&device) {
                let [counters, counters_ext, hw_counters] =
                    <[_; 3]>::try_from(values.groups).unwrap_or_default();
                // The 64-bit words counter where the port has one (mlx4's counters_ext).
                let octets = |name: &str| {
                    let wide = wider(name).and_then(|wide| counters_ext.get(wide));
                    wide.or_else(|| counters.get(name))
                        .copied()
                        .flatten()
                        .and_then(|words: u64| words.checked_mul(4))
                };
                ports.push(PortReading {
                    device: device.clone(),
                    port,
                    state: values.status.and_then(|t| attribute::enumerated(&t).ok()),
                    tx_bytes: octets("port_xmit_data"),
                    rx_bytes: octets("port_rcv_data"),
                    counters,
                    counters_ext,
                    hw_counters,
                });
                found.insert(Component::RdmaPort {
                    device: device.clone(),
                    port,
                });
            }
            found.insert(Component::RdmaDevice { device });
        }
        let mut netdevs = Vec::new();
        let interfaces = self.list(Path::new(NET));
        self.interfaces
            .retain(|interface, _| interfaces.contains(interface));
        for interface in interfaces {
            let values = self.read_interface(&interface);
            let statistics = values.groups.into_iter().next().unwrap_or_default();
            netdevs.push(NetdevReading {
                operstate: values.status,
                tx_bytes: statistics.get("tx_bytes").copied().flatten(),
                rx_bytes: statistics.get("rx_bytes").copied().flatten(),
                statistics,
                interface: interface.clone(),
            });
            found.insert(Component::Netdev { interface });
        }
        let reading = Reading {
            timestamp_ms,
            ports,
            netdevs,
        };
        (reading, found)
    }

    /// One reading of every port of `device`, through the handles held for it (its ports
    /// listed and their files opened first when there are none, or they are stale). When a
    /// file fails, the device's handles are dropped, so the next reading opens it afresh.
    fn read_device(&mut self, device: &str) -> Vec<(u32, Values)> {
        const GROUPS: &[&str] = &["counters", "counters_ext", "hw_counters"];
        if self
            .devices
            .get(device)
            .is_none_or(|opened| opened.stale(self.reopen_every))
        {
            let ports = self
                .port_numbers(device)
                .into_iter()
                .map(|port| {
                    let dir = port_dir(device, port);
                    let held = Held::open(&self.sysfs, &dir, "state", GROUPS, NOT_COUNTERS);
                    (port, held.ok())
                })
                .collect();
            self.count_opening();
            self.devices.insert(device.to_string(), Opened::now(ports));
        }
        let ports: Vec<_> = self.devices[device]
            .held
            .iter()
            .map(|(port, held)| {
                (
                    *port,
                    Held::read(held.as_ref(), GROUPS.len(), &mut self.buffer),
                )
            })
            .collect();
        if ports.iter().any(|(_, values)| !values.healthy) {
            self.devices.remove(device);
        }
        ports
    }

    /// [`Trees::read_device`] for a network interface.
    fn read_interface(&mut self, interface: &str) -> Values {
        const GROUPS: &[&str] = &["statistics"];
        if self
            .interfaces
            .get(interface)
            .is_none_or(|opened| opened.stale(self.reopen_every))
        {
            let dir = Path::new(NET).join(interface);
            let held = Held::open(&self.sysfs, &dir, "operstate", GROUPS, &[]);
            self.count_opening();
            self.interfaces
                .insert(interface.to_string(), Opened::now(held.ok()));
        }
        let held = self.interfaces[interface].held.as_ref();
        let values = Held::read(held, GROUPS.len(), &mut self.buffer);
        if !values.healthy {
            self.interfaces.remove(interface);
        }
        values
    }

    /// Counts one device or interface opened, for the tests.
    fn count_opening(&mut self) {
        #[cfg(test)]
        {
            self.opened += 1;
        }
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
            node_type: self.parsed(&dir.join("node_type"), attribute::enumerated),
            node_desc: text("node_desc"),
            numa_node: self.parsed(&dir.join("device/numa_node"), |t| {
                attribute::number(t, "a NUMA node number")
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
            state: self.parsed(&dir.join("state"), attribute::enumerated),
            phys_state: self.parsed(&dir.join("phys_state"), attribute::enumerated),
            rate_gbps: rate.as_deref().and_then(|r| attribute::rate_gbps(r).ok()),
            rate,
            link_layer: self.text(&dir.join("link_layer")),
            lid: self.parsed(&dir.join("lid"), attribute::lid),
            sm_lid: self.parsed(&dir.join("sm_lid"), attribute::lid),
            gids: self.gids(&dir),
            hw_counters_lifespan_ms: self
                .parsed(&dir.join("hw_counters/lifespan"), attribute::counter),
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
                let groups = attribute::gid(&text).ok()?;
                if groups.iter().all(|&g| g == 0) {
                    return None;
                }
                Some(GidEntry {
                    index,
                    gid_type: self.text(&port_dir.join(format!("gid_attrs/types/{index}"))),
                    ndev: self.text(&port_dir.join(format!("gid_attrs/ndevs/{index}"))),
                    ipv4: attribute::ipv4_of_gid(&groups),
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
                Ok(text) => match attribute::number::<u32>(&text, "an unsigned 32-bit value") {
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
            mtu: self.parsed(&dir.join("mtu"), |t| attribute::number(t, "an MTU")),
            speed_mbps: self
                .parsed(&dir.join("speed"), attribute::speed_mbps)
                .flatten(),
            operstate: self.text(&dir.join("operstate")),
            name,
        }
    }

    fn port_numbers(&self, device: &str) -> Vec<u32> {
        port_numbers(self.list(&ports_dir(device)))
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
