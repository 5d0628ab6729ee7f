//! What the whole log says: versions, ranks and hosts, and the transports between them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::facts::{FactSource, GdrHca};
use super::record::{Event, LinkLayer, NetDevice, Peer, Side, Transport};
use super::{NcclLog, Record};

/// How ranks on different hosts reach each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum InterNodeTransport {
    IB,
    RoCE,
    Socket,
    /// One host, or no connection between hosts.
    #[serde(rename = "none")]
    None,
}

/// How ranks on one host reach each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum IntraNodeTransport {
    P2P,
    SHM,
    NVLS,
    NET,
}

/// An `NCCL_*` variable the log reports as set, with every line that says so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
    pub lines: Vec<usize>,
}

/// One rank, from its `Init COMPLETE` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RankSummary {
    pub rank: u32,
    pub host: Option<String>,
    /// The rank's place among the ranks of its host, counted from the lowest rank; NCCL does
    /// not print it in these lines, so it is worked out from the hosts.
    pub local_rank: Option<u32>,
    pub cuda_dev: Option<i64>,
    pub nvml_dev: Option<i64>,
    pub bus_id: Option<String>,
    pub lines: Vec<usize>,
}

/// One host and what NCCL found on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostSummary {
    pub host: String,
    pub ranks: Vec<u32>,
    /// Devices from `NET/IB : Using`.
    pub ib_devices: Vec<NetDevice>,
    /// Devices from `NET/Socket : Using`.
    pub socket_devices: Vec<NetDevice>,
    /// Interfaces from `Bootstrap : Using`.
    pub bootstrap: Vec<String>,
    /// Names from `NET/Plugin: Loaded net plugin`.
    pub net_plugins: Vec<String>,
    /// RoCE GID indexes from the QP lines (and failed `ibv_modify_qp` calls) of this host.
    pub gid_indexes: Vec<i64>,
    /// Lines from this host that show a network being set up (plugin, IB, socket lists).
    pub net_lines: Vec<usize>,
    /// The network devices (`n` of `NET/n`) that this host's ranks reach other hosts
    /// through, by the channel lines this host printed; sorted.
    pub nics_in_use: Vec<u32>,
    /// This host's ranks that printed such a line; sorted. When they are all its ranks,
    /// `nics_in_use` is every device the host uses between hosts.
    pub ranks_on_net: Vec<u32>,
}

/// One connection of one channel, merged over the lines (send side, receive side, ranks)
/// that report it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChannelLink {
    pub channel: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conn_index: Option<u32>,
    pub from: Peer,
    pub to: Peer,
    pub transport: Transport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_dev: Option<u32>,
    pub via: String,
    pub gdr: bool,
    /// Whether the two ranks are on different hosts; `None` when a host is not known.
    pub inter_node: Option<bool>,
    pub lines: Vec<usize>,
}

/// What the log says, taken together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub nccl_version: Option<String>,
    pub cuda_version: Option<String>,
    pub nranks: Option<u32>,
    pub nnodes: Option<usize>,
    /// Whether the job spans hosts; known (from NET channels) when the count is not.
    pub multi_node: Option<bool>,
    /// The network NCCL uses between hosts as it names it: `IB` (its verbs transport, over
    /// InfiniBand or RoCE), `Socket`, a plugin's name, or `none` for one host.
    pub inter_node_network: Option<String>,
    /// The link layer of the IB transport's NICs: `IB` (InfiniBand) or `RoCE`.
    pub link_layer: Option<LinkLayer>,
    /// `None` (JSON null) when the log does not say.
    pub inter_node_transport: Option<InterNodeTransport>,
    /// `false` when NET channels between hosts lack `/GDRDMA`; `None` when the log does
    /// not say.
    pub gdr_used: Option<bool>,
    /// Each NIC's `GPU Direct RDMA Enabled/Disabled for` lines.
    pub gdr_hcas: Vec<GdrHca>,
    /// Where each headline fact came from, or which line would tell.
    pub sources: Vec<FactSource>,
    pub intra_node: BTreeSet<IntraNodeTransport>,
    pub env: Vec<EnvVar>,
    pub channels: Vec<ChannelLink>,
    pub ranks: Vec<RankSummary>,
    pub hosts: Vec<HostSummary>,
    /// Lines of `NCCL version`.
    pub version_lines: Vec<usize>,
    /// Ring and tree lines (`Channel 00/02 : 0 1 2 3`, `Trees [0] ...`).
    pub topology_lines: Vec<usize>,
    /// Lines that mention NVLS or CollNet.
    pub nvls_lines: Vec<usize>,
    pub collnet_lines: Vec<usize>,
    /// Lines printed at WARN level.
    pub warn_lines: Vec<usize>,
}

impl NcclLog {
    /// Gather the records into a [`Summary`].
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        let mut env: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        let mut hosts: BTreeMap<String, HostSummary> = BTreeMap::new();
        let mut inits: Vec<&Record> = Vec::new();
        let mut link_index: HashMap<(u32, Option<u32>, u32, u32, String), usize> = HashMap::new();
        // Ranks' hosts as channel lines show them, for logs without `Init COMPLETE`.
        let mut channel_hosts: BTreeMap<u32, String> = BTreeMap::new();
        // Ranks' hosts as the lines that give a rank and its communicator's size show them
        // (`Init START`, `bootstrapSplit`, the old INIT lines): (rank, nranks) → host.
        let mut sized_hosts: BTreeMap<(u32, u32), String> = BTreeMap::new();
        let mut nvls_used = false;

        for r in &self.records {
            if r.level == super::Level::Warn {
                s.warn_lines.push(r.line);
            }
            let host = r.origin.host.as_deref();
            match &r.event {
                Event::Version { nccl, cuda } => {
                    if s.nccl_version.is_none() {
                        s.nccl_version = Some(nccl.clone());
                        s.cuda_version = cuda.clone();
                    }
                    s.version_lines.push(r.line);
                }
                Event::InitComplete { .. } => inits.push(r),
                Event::CommSize {
                    rank: Some(rank),
                    nranks,
                    ..
                } => {
                    if let Some(h) = host {
                        sized_hosts
                            .entry((*rank, *nranks))
                            .or_insert_with(|| h.to_string());
                    }
                }
                Event::EnvSet { name, value } => env
                    .entry((name.clone(), value.clone()))
                    .or_default()
                    .push(r.line),
                Event::NetIbUsing { devices, .. } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        merge_devices(&mut h.ib_devices, devices);
                        h.net_lines.push(r.line);
                    }
                }
                Event::NetSocketUsing { devices } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        merge_devices(&mut h.socket_devices, devices);
                        h.net_lines.push(r.line);
                    }
                }
                Event::Bootstrap { interfaces } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        for i in interfaces {
                            if !h.bootstrap.contains(i) {
                                h.bootstrap.push(i.clone());
                            }
                        }
                    }
                }
                Event::NetPluginLoaded { name } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        if !h.net_plugins.contains(name) {
                            h.net_plugins.push(name.clone());
                        }
                        h.net_lines.push(r.line);
                    }
                }
                Event::NetPluginNotLoaded { .. } | Event::UsingNetwork { .. } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        h.net_lines.push(r.line);
                    }
                }
                Event::Channel(c) => {
                    if let Some(h) = host {
                        // The sending rank logs send-side and P2P/SHM lines; the receiver
                        // logs `[receive]` lines (`net.cc` line 362 at v2.29.3-1).
                        let me = if c.side == Some(Side::Receive) {
                            c.to.rank
                        } else {
                            c.from.rank
                        };
                        channel_hosts.entry(me).or_insert_with(|| h.to_string());
                    }
                    let key = (
                        c.channel,
                        c.conn_index,
                        c.from.rank,
                        c.to.rank,
                        c.via.clone(),
                    );
                    match link_index.get(&key) {
                        Some(&i) => s.channels[i].lines.push(r.line),
                        None => {
                            link_index.insert(key, s.channels.len());
                            s.channels.push(ChannelLink {
                                channel: c.channel,
                                conn_index: c.conn_index,
                                from: c.from.clone(),
                                to: c.to.clone(),
                                transport: c.transport,
                                net: c.net.clone(),
                                net_dev: c.net_dev,
                                via: c.via.clone(),
                                gdr: c.gdr,
                                inter_node: None,
                                lines: vec![r.line],
                            });
                        }
                    }
                }
                Event::IbQp {
                    gid_index: Some(g),
                    lid_form: false,
                    ..
                }
                | Event::ModifyQpFailed {
                    gid_index: Some(g), ..
                } => {
                    if let Some(h) = host_entry(&mut hosts, host) {
                        if !h.gid_indexes.contains(g) {
                            h.gid_indexes.push(*g);
                        }
                    }
                }
                Event::Topology { .. } => s.topology_lines.push(r.line),
                Event::NvlsConnected => {
                    nvls_used = true;
                    s.nvls_lines.push(r.line);
                }
                Event::NvlsSupport { .. } | Event::NvlsFailure { .. } | Event::NvlsMention => {
                    s.nvls_lines.push(r.line)
                }
                Event::CollNetMention => s.collnet_lines.push(r.line),
                _ => {}
            }
        }

        s.env = env
            .into_iter()
            .map(|((name, value), lines)| EnvVar { name, value, lines })
            .collect();

        // Ranks: several communicators may be logged; the largest is the job's world.
        s.nranks = inits
            .iter()
            .filter_map(|r| match r.event {
                Event::InitComplete { nranks, .. } => Some(nranks),
                _ => None,
            })
            .max();
        let mut ranks: BTreeMap<u32, RankSummary> = BTreeMap::new();
        for r in &inits {
            if let Event::InitComplete {
                rank,
                nranks,
                cuda_dev,
                nvml_dev,
                bus_id,
            } = &r.event
            {
                if Some(*nranks) != s.nranks {
                    continue;
                }
                let e = ranks.entry(*rank).or_insert_with(|| RankSummary {
                    rank: *rank,
                    host: r.origin.host.clone(),
                    local_rank: None,
                    cuda_dev: *cuda_dev,
                    nvml_dev: *nvml_dev,
                    bus_id: bus_id.clone(),
                    lines: Vec::new(),
                });
                e.lines.push(r.line);
            }
        }
        let mut rank_host: BTreeMap<u32, String> = ranks
            .values()
            .filter_map(|r| r.host.clone().map(|h| (r.rank, h)))
            .collect();
        for (rank, h) in channel_hosts {
            rank_host.entry(rank).or_insert(h);
        }
        // Without `Init COMPLETE` lines, the largest communicator the sized lines name.
        let world = s
            .nranks
            .or_else(|| sized_hosts.keys().map(|&(_, n)| n).max());
        for ((rank, nranks), h) in sized_hosts {
            if Some(nranks) == world {
                rank_host.entry(rank).or_insert(h);
            }
        }
        for (rank, h) in &rank_host {
            let e = hosts.entry(h.clone()).or_insert_with(|| HostSummary {
                host: h.clone(),
                ..HostSummary::default()
            });
            e.ranks.push(*rank);
        }
        for r in ranks.values_mut() {
            if let Some(h) = r.host.as_ref().and_then(|h| hosts.get(h)) {
                r.local_rank = h
                    .ranks
                    .iter()
                    .position(|&x| x == r.rank)
                    .and_then(|p| u32::try_from(p).ok());
            }
        }
        s.ranks = ranks.into_values().collect();
        // Hosts: those that ran ranks, or, without rank lines, every host that printed.
        let with_ranks = hosts.values().filter(|h| !h.ranks.is_empty()).count();
        s.nnodes = if with_ranks > 0 {
            Some(with_ranks)
        } else {
            let printing: BTreeSet<&str> = self
                .records
                .iter()
                .filter_map(|r| r.origin.host.as_deref())
                .collect();
            (!printing.is_empty()).then_some(printing.len())
        };

        let single_host = with_ranks == 1
            && s.nranks
                .is_some_and(|n| usize::try_from(n).is_ok_and(|n| n == rank_host.len()));
        for c in &mut s.channels {
            c.inter_node = match c.transport {
                Transport::P2P | Transport::SHM => Some(false),
                _ => match (rank_host.get(&c.from.rank), rank_host.get(&c.to.rank)) {
                    (Some(a), Some(b)) => Some(a != b),
                    // Every rank's host is known and there is one: a NET channel stays inside.
                    _ if single_host => Some(false),
                    _ => None,
                },
            };
            match (c.transport, c.inter_node) {
                (Transport::P2P, _) => s.intra_node.insert(IntraNodeTransport::P2P),
                (Transport::SHM, _) => s.intra_node.insert(IntraNodeTransport::SHM),
                (Transport::NET, Some(false)) => s.intra_node.insert(IntraNodeTransport::NET),
                _ => false,
            };
        }
        if nvls_used {
            s.intra_node.insert(IntraNodeTransport::NVLS);
        }
        nics_in_use(self, &rank_host, &mut hosts);
        s.hosts = hosts.into_values().collect();
        super::facts::complete(self, &mut s);
        s
    }
}

/// Fills each host's `nics_in_use` and `ranks_on_net` from the NET channel lines it printed
/// for connections to another host: the sender prints `[send]` lines and the receiver
/// `[receive]` ones, each naming its own device (v2.29.3-1 `src/transport/net.cc` lines 316,
/// 320 and 362).
fn nics_in_use(
    log: &NcclLog,
    rank_host: &BTreeMap<u32, String>,
    hosts: &mut BTreeMap<String, HostSummary>,
) {
    for r in &log.records {
        let (Event::Channel(c), Some(host)) = (&r.event, r.origin.host.as_deref()) else {
            continue;
        };
        let (Transport::NET, Some(dev)) = (c.transport, c.net_dev) else {
            continue;
        };
        let me = if c.side == Some(Side::Receive) {
            c.to.rank
        } else {
            c.from.rank
        };
        let between_hosts = matches!(
            (rank_host.get(&c.from.rank), rank_host.get(&c.to.rank)),
            (Some(a), Some(b)) if a != b
        );
        if !between_hosts || rank_host.get(&me).map(String::as_str) != Some(host) {
            continue;
        }
        if let Some(h) = hosts.get_mut(host) {
            for (list, x) in [(&mut h.nics_in_use, dev), (&mut h.ranks_on_net, me)] {
                if let Err(at) = list.binary_search(&x) {
                    list.insert(at, x);
                }
            }
        }
    }
}

fn host_entry<'a>(
    hosts: &'a mut BTreeMap<String, HostSummary>,
    host: Option<&str>,
) -> Option<&'a mut HostSummary> {
    let h = host?;
    Some(hosts.entry(h.to_string()).or_insert_with(|| HostSummary {
        host: h.to_string(),
        ..HostSummary::default()
    }))
}

fn merge_devices(into: &mut Vec<NetDevice>, devices: &[NetDevice]) {
    for d in devices {
        if !into.contains(d) {
            into.push(d.clone());
        }
    }
}
