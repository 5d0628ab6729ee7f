//! The graph the packets cross: hosts (one NIC endpoint each, a GPU in a fabric), switches,
//! and full-duplex links, each direction an egress [`Port`] with its own rate and delay.
//!
//! Built from a [`TopologySpec`]: a dumbbell (N senders, one switch, one receiver), a ring
//! of switches (the cyclic-buffer-dependency case), or a GPU fabric sized by
//! [`crate::fabric::build`] (two tiers, plane 0; rail-optimized or top-of-rack; the leaf's
//! uplinks as its oversubscription leaves them; NVLink inside a server as one switch whose
//! links run at the NVLink rate).
//!
//! Routing is a table of equal-cost next hops per (node, destination host): shortest paths
//! in switch hops, with hosts never forwarding, which on a leaf–spine is up/down routing.
//! A host reaches a GPU of its own server over NVLink. The ring's table is built by hand:
//! every route goes clockwise, the routing that can deadlock under PFC.
//!
//! Left out: more than one plane, three tiers, NIC ports beyond one per GPU, link failures.

use super::SimError;
use crate::fabric::{build, FabricSpec};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// Most hosts a topology may have.
pub const MAX_HOSTS: usize = 16_384;
/// Most switches in a ring.
pub const MAX_RING_SWITCHES: u32 = 64;

/// What to build. In JSON: `{"dumbbell": {...}}`, `{"switch_ring": {...}}` or
/// `{"fabric": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// `senders` hosts, each on its own link to one switch, whose port to the receiver is
    /// the bottleneck. Hosts 0..senders send; host `senders` receives.
    Dumbbell {
        senders: u32,
        sender_gbps: f64,
        bottleneck_gbps: f64,
        /// One-way propagation delay of every link, µs.
        delay_us: f64,
    },
    /// `switches` switches in a ring, each with `hosts_per_switch` hosts; every route goes
    /// clockwise. Host h hangs off switch h / hosts_per_switch.
    SwitchRing {
        switches: u32,
        hosts_per_switch: u32,
        gbps: f64,
        delay_us: f64,
    },
    /// A GPU fabric; host g is GPU g (server g / gpus_per_node).
    Fabric {
        fabric: FabricSpec,
        /// One GPU's NVLink bandwidth to its server's NVSwitch, one direction, Gb/s.
        nvlink_gbps: f64,
        delay_us: f64,
    },
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Leaf,
    Spine,
    /// The switch of a dumbbell or a ring.
    Switch,
    /// A server's NVLink switch: a fast, lossless crossbar with no ECN.
    NvSwitch,
}

/// A host or a switch; its ports are `first_port .. first_port + ports` in
/// [`Topology::ports`].
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    pub kind: NodeKind,
    pub label: String,
    pub first_port: u32,
    pub ports: u32,
    /// The server a host or NVSwitch belongs to (fabric only).
    pub server: Option<u32>,
}

/// One direction of a link: an egress port of `node` towards the node of `peer`, the port
/// at the far end (which is that node's egress port back).
#[derive(Debug, Clone, Serialize)]
pub struct Port {
    pub node: u32,
    pub peer: u32,
    pub bps: f64,
    pub delay_ps: u64,
}

/// The built graph and its routes.
#[derive(Debug, Clone)]
pub struct Topology {
    /// Hosts first (node i < hosts is host i), then switches.
    pub nodes: Vec<Node>,
    pub hosts: u32,
    pub ports: Vec<Port>,
    /// Candidate egress ports, flattened; `route[node * hosts + dst]` indexes `groups`.
    group_ports: Vec<u32>,
    groups: Vec<(u32, u32)>,
    route: Vec<u32>,
}

const NO_ROUTE: u32 = u32::MAX;

impl Topology {
    /// Builds `spec`, or names the field that cannot be built.
    pub fn build(spec: &TopologySpec) -> Result<Topology, SimError> {
        match spec {
            TopologySpec::Dumbbell {
                senders,
                sender_gbps,
                bottleneck_gbps,
                delay_us,
            } => dumbbell(*senders, *sender_gbps, *bottleneck_gbps, *delay_us),
            TopologySpec::SwitchRing {
                switches,
                hosts_per_switch,
                gbps,
                delay_us,
            } => switch_ring(*switches, *hosts_per_switch, *gbps, *delay_us),
            TopologySpec::Fabric {
                fabric,
                nvlink_gbps,
                delay_us,
            } => gpu_fabric(fabric, *nvlink_gbps, *delay_us),
        }
    }

    /// The node at the far end of `port`.
    pub fn far_node(&self, port: u32) -> u32 {
        self.ports[self.ports[port as usize].peer as usize].node
    }

    /// The equal-cost egress ports at `node` towards host `dst` (empty: no route).
    pub fn next_ports(&self, node: u32, dst: u32) -> &[u32] {
        let g = self.route[node as usize * self.hosts as usize + dst as usize];
        if g == NO_ROUTE {
            return &[];
        }
        let (start, len) = self.groups[g as usize];
        &self.group_ports[start as usize..(start + len) as usize]
    }

    /// The ports of `node`.
    pub fn ports_of(&self, node: u32) -> std::ops::Range<u32> {
        let n = &self.nodes[node as usize];
        n.first_port..n.first_port + n.ports
    }

    pub fn is_host(&self, node: u32) -> bool {
        node < self.hosts
    }
}

/// Nodes, ports, each node's (port, far node) pairs, and the host count.
type Laid = (Vec<Node>, Vec<Port>, Vec<Vec<(u32, u32)>>, u32);

/// Nodes and links before routing.
struct Graph {
    nodes: Vec<Node>,
    /// Per node, its (port, far node) pairs, in port order.
    adjacency: Vec<Vec<(u32, u32)>>,
    links: Vec<(u32, u32, f64, u64)>,
    hosts: u32,
}

impl Graph {
    fn new() -> Graph {
        Graph {
            nodes: Vec::new(),
            adjacency: Vec::new(),
            links: Vec::new(),
            hosts: 0,
        }
    }

    fn node(&mut self, kind: NodeKind, label: String, server: Option<u32>) -> u32 {
        if kind == NodeKind::Host {
            self.hosts += 1;
        }
        self.nodes.push(Node {
            kind,
            label,
            first_port: 0,
            ports: 0,
            server,
        });
        self.adjacency.push(Vec::new());
        (self.nodes.len() - 1) as u32
    }

    fn link(&mut self, a: u32, b: u32, gbps: f64, delay_ps: u64) {
        self.links.push((a, b, gbps * 1e9, delay_ps));
    }

    /// Lays the ports out node by node and pairs each link's two directions.
    fn finish(mut self) -> Laid {
        let mut per_node: Vec<Vec<(usize, bool)>> = vec![Vec::new(); self.nodes.len()];
        for (i, &(a, b, _, _)) in self.links.iter().enumerate() {
            per_node[a as usize].push((i, true));
            per_node[b as usize].push((i, false));
        }
        let mut ports = Vec::with_capacity(self.links.len() * 2);
        // (link, side) → port id.
        let mut id = vec![[0u32; 2]; self.links.len()];
        for (n, list) in per_node.iter().enumerate() {
            self.nodes[n].first_port = ports.len() as u32;
            self.nodes[n].ports = list.len() as u32;
            for &(link, a_side) in list {
                let (_, _, bps, delay) = self.links[link];
                id[link][usize::from(!a_side)] = ports.len() as u32;
                ports.push(Port {
                    node: n as u32,
                    peer: 0,
                    bps,
                    delay_ps: delay,
                });
            }
        }
        for (link, &(a, b, _, _)) in self.links.iter().enumerate() {
            let [pa, pb] = id[link];
            ports[pa as usize].peer = pb;
            ports[pb as usize].peer = pa;
            self.adjacency[a as usize].push((pa, b));
            self.adjacency[b as usize].push((pb, a));
        }
        for list in &mut self.adjacency {
            list.sort_unstable();
        }
        (self.nodes, ports, self.adjacency, self.hosts)
    }
}

/// Interns groups of ports so equal groups are stored once.
struct Groups {
    ports: Vec<u32>,
    groups: Vec<(u32, u32)>,
    index: HashMap<Vec<u32>, u32>,
}

impl Groups {
    fn new() -> Groups {
        Groups {
            ports: Vec::new(),
            groups: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn intern(&mut self, group: Vec<u32>) -> u32 {
        if group.is_empty() {
            return NO_ROUTE;
        }
        if let Some(&g) = self.index.get(&group) {
            return g;
        }
        let g = self.groups.len() as u32;
        self.groups
            .push((self.ports.len() as u32, group.len() as u32));
        self.ports.extend_from_slice(&group);
        self.index.insert(group, g);
        g
    }
}

fn check_rate(field: &str, gbps: f64) -> Result<(), SimError> {
    if !gbps.is_finite() || gbps <= 0.0 || gbps > crate::dcqcn::MAX_LINK_GBPS * 4.0 {
        return Err(SimError::invalid(
            field,
            format!(
                "{gbps} Gb/s is outside (0, {}]",
                crate::dcqcn::MAX_LINK_GBPS * 4.0
            ),
        ));
    }
    Ok(())
}

fn delay_ps(field: &str, us: f64) -> Result<u64, SimError> {
    if !us.is_finite() || !(0.0..=crate::dcqcn::MAX_PROP_DELAY_US).contains(&us) {
        return Err(SimError::invalid(
            field,
            format!(
                "{us} µs is outside [0, {}]",
                crate::dcqcn::MAX_PROP_DELAY_US
            ),
        ));
    }
    Ok((us * 1e6).round() as u64)
}

/// `value` within [min, max], or refused at `field`.
pub(super) fn count(field: &str, value: u32, min: u32, max: usize) -> Result<(), SimError> {
    if value < min || value as usize > max {
        return Err(SimError::invalid(
            field,
            format!("{value} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}

fn dumbbell(
    senders: u32,
    sender_gbps: f64,
    bottleneck_gbps: f64,
    delay_us: f64,
) -> Result<Topology, SimError> {
    let prefix = "topology.dumbbell";
    count(&format!("{prefix}.senders"), senders, 1, MAX_HOSTS - 1)?;
    check_rate(&format!("{prefix}.sender_gbps"), sender_gbps)?;
    check_rate(&format!("{prefix}.bottleneck_gbps"), bottleneck_gbps)?;
    let delay = delay_ps(&format!("{prefix}.delay_us"), delay_us)?;
    let mut g = Graph::new();
    for i in 0..senders {
        g.node(NodeKind::Host, format!("sender {i}"), None);
    }
    let receiver = g.node(NodeKind::Host, "receiver".into(), None);
    let switch = g.node(NodeKind::Switch, "switch".into(), None);
    for i in 0..senders {
        g.link(i, switch, sender_gbps, delay);
    }
    g.link(switch, receiver, bottleneck_gbps, delay);
    Ok(shortest_path_routes(g))
}

fn switch_ring(
    switches: u32,
    hosts_per_switch: u32,
    gbps: f64,
    delay_us: f64,
) -> Result<Topology, SimError> {
    let prefix = "topology.switch_ring";
    count(
        &format!("{prefix}.switches"),
        switches,
        3,
        MAX_RING_SWITCHES as usize,
    )?;
    count(
        &format!("{prefix}.hosts_per_switch"),
        hosts_per_switch,
        1,
        MAX_HOSTS / switches as usize,
    )?;
    check_rate(&format!("{prefix}.gbps"), gbps)?;
    let delay = delay_ps(&format!("{prefix}.delay_us"), delay_us)?;
    let mut g = Graph::new();
    let hosts = switches * hosts_per_switch;
    for h in 0..hosts {
        g.node(NodeKind::Host, format!("host {h}"), None);
    }
    for s in 0..switches {
        g.node(NodeKind::Switch, format!("switch {s}"), None);
    }
    for h in 0..hosts {
        g.link(h, hosts + h / hosts_per_switch, gbps, delay);
    }
    for s in 0..switches {
        g.link(hosts + s, hosts + (s + 1) % switches, gbps, delay);
    }
    let (nodes, ports, adjacency, hosts) = g.finish();
    let node_count = nodes.len();
    let mut groups = Groups::new();
    let mut route = vec![NO_ROUTE; node_count * hosts as usize];
    let port_to = |from: u32, to: u32| {
        adjacency[from as usize]
            .iter()
            .find(|&&(_, far)| far == to)
            .map(|&(p, _)| p)
    };
    for dst in 0..hosts {
        let home = hosts + dst / hosts_per_switch;
        for node in 0..node_count as u32 {
            let port = if node < hosts {
                (node != dst).then(|| port_to(node, hosts + node / hosts_per_switch))
            } else if node == home {
                Some(port_to(node, dst))
            } else {
                // Clockwise: the next switch in the ring, whatever the distance.
                let next = hosts + (node - hosts + 1) % switches;
                Some(port_to(node, next))
            };
            if let Some(Some(p)) = port {
                route[node as usize * hosts as usize + dst as usize] = groups.intern(vec![p]);
            }
        }
    }
    Ok(Topology {
        nodes,
        hosts,
        ports,
        group_ports: groups.ports,
        groups: groups.groups,
        route,
    })
}

fn gpu_fabric(spec: &FabricSpec, nvlink_gbps: f64, delay_us: f64) -> Result<Topology, SimError> {
    let prefix = "topology.fabric";
    let fabric = build(spec).map_err(|e| SimError::invalid(prefix, e.to_string()))?;
    if spec.planes != 1 || spec.nic_ports != 1 || spec.nics_per_node != spec.gpus_per_node {
        return Err(SimError::invalid(
            format!("{prefix}.fabric"),
            "the simulator builds one plane with one single-port NIC per GPU \
             (planes = 1, nic_ports = 1, nics_per_node = gpus_per_node)",
        ));
    }
    if fabric.tiers > 2 {
        return Err(SimError::invalid(
            format!("{prefix}.fabric"),
            format!(
                "this fabric needs {} tiers; the simulator builds one or two",
                fabric.tiers
            ),
        ));
    }
    count(&format!("{prefix}.fabric.gpus"), spec.gpus, 1, MAX_HOSTS)?;
    check_rate(&format!("{prefix}.nvlink_gbps"), nvlink_gbps)?;
    let delay = delay_ps(&format!("{prefix}.delay_us"), delay_us)?;
    let gpus = spec.gpus;
    let per_node = spec.gpus_per_node;
    let servers = gpus / per_node;
    let mut g = Graph::new();
    for gpu in 0..gpus {
        g.node(
            NodeKind::Host,
            format!(
                "gpu {gpu} (server {}, rail {})",
                gpu / per_node,
                gpu % per_node
            ),
            Some(gpu / per_node),
        );
    }
    if per_node > 1 {
        for s in 0..servers {
            let nv = g.node(NodeKind::NvSwitch, format!("nvswitch {s}"), Some(s));
            for local in 0..per_node {
                g.link(s * per_node + local, nv, nvlink_gbps, 0);
            }
        }
    }
    let down = fabric.leaf.down_ports.max(1);
    let leaf_count = if fabric.tiers == 1 {
        1
    } else {
        fabric.leaf.count as u32
    };
    let first_leaf = g.nodes.len() as u32;
    for l in 0..leaf_count {
        g.node(NodeKind::Leaf, format!("leaf {l}"), None);
    }
    let rails = fabric.rails.max(1);
    for gpu in 0..gpus {
        let server = gpu / per_node;
        let rail = gpu % per_node;
        let leaf = if fabric.tiers == 1 {
            0
        } else if spec.rail_optimized {
            let per_su = fabric
                .scalable_units
                .as_ref()
                .map_or(down, |su| su.nodes_per_su);
            (server / per_su) * rails + rail
        } else {
            gpu / down
        };
        if leaf >= leaf_count {
            return Err(SimError::invalid(
                format!("{prefix}.fabric"),
                format!("gpu {gpu} maps to leaf {leaf} of {leaf_count}"),
            ));
        }
        g.link(gpu, first_leaf + leaf, spec.nic_port_gbps, delay);
    }
    if fabric.tiers == 2 {
        let spines = fabric.spine.count as u32;
        let first_spine = g.nodes.len() as u32;
        for s in 0..spines {
            g.node(NodeKind::Spine, format!("spine {s}"), None);
        }
        // Each leaf's cabled uplinks spread evenly over the spines.
        let per_spine = (fabric.leaf.up_used / spines.max(1)).max(1);
        for l in 0..leaf_count {
            for s in 0..spines {
                for _ in 0..per_spine {
                    g.link(
                        first_leaf + l,
                        first_spine + s,
                        fabric.switch_port_gbps,
                        delay,
                    );
                }
            }
        }
    }
    Ok(shortest_path_routes(g))
}

/// Routes every (node, destination) over all shortest paths in switch hops; hosts do not
/// forward, and a host reaches its own server's GPUs over NVLink only.
fn shortest_path_routes(g: Graph) -> Topology {
    let (nodes, ports, adjacency, hosts) = g.finish();
    let n = nodes.len();
    let mut groups = Groups::new();
    let mut route = vec![NO_ROUTE; n * hosts as usize];
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for dst in 0..hosts {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst as usize] = 0;
        queue.push_back(dst);
        while let Some(u) = queue.pop_front() {
            // Hosts are ends, not transit: only the destination itself expands.
            if u < hosts && u != dst {
                continue;
            }
            for &(_, v) in &adjacency[u as usize] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        let dst_server = nodes[dst as usize].server;
        for u in 0..n as u32 {
            if u == dst || dist[u as usize] == u32::MAX {
                continue;
            }
            let same_server =
                u < hosts && dst_server.is_some() && nodes[u as usize].server == dst_server;
            let group: Vec<u32> = adjacency[u as usize]
                .iter()
                .filter(|&&(_, v)| {
                    let via_nvlink = nodes[v as usize].kind == NodeKind::NvSwitch;
                    if u < hosts && same_server {
                        return via_nvlink;
                    }
                    if u < hosts && via_nvlink {
                        return false;
                    }
                    dist[v as usize] != u32::MAX && dist[v as usize] + 1 == dist[u as usize]
                })
                .map(|&(p, _)| p)
                .collect();
            route[u as usize * hosts as usize + dst as usize] = groups.intern(group);
        }
    }
    Topology {
        nodes,
        hosts,
        ports,
        group_ports: groups.ports,
        groups: groups.groups,
        route,
    }
}
