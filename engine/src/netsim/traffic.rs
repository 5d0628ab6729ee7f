//! Traffic: what the hosts send, as queue pairs carrying messages.
//!
//! - Incast N→1, a permutation (each host to one other, a seeded derangement), all-to-all,
//!   and single flows (a background flow runs until the end).
//! - Ring all-reduce with NCCL's schedule: 2(n−1) steps in which every rank sends S/n to the
//!   next, a step starting when the previous step's data has arrived; the bytes are shared
//!   over `channels` rings and each connection over `qps_per_connection` QPs (NCCL's
//!   `NCCL_IB_QPS_PER_CONNECTION`), each QP with its own UDP source port. With servers of
//!   several GPUs the rings are rail-aligned: channel c enters and leaves every server on
//!   rail c mod G, the GPUs inside a server follow each other over NVLink, and with PXN (on
//!   by default since NCCL 2.12) the last GPU of a server hands its data over NVLink to the
//!   GPU on the next server's rail, whose NIC sends it (NCCL User Guide, `NCCL_PXN_DISABLE`).
//!
//! - The rail-aligned hierarchical all-reduce: a ring reduce-scatter over NVLink inside each
//!   server, then on each rail a ring all-reduce of that rail's 1/G of the data across the
//!   servers, then a ring all-gather over NVLink; each phase starts on a GPU once its part of
//!   the phase before is done there, so the phases overlap across GPUs as they would.
//!
//! - Tree all-reduce with NCCL's double binary tree across servers (`ncclGetDtree`,
//!   src/graph/trees.cc at v2.29.3-1: the second tree mirrors the first for an even number
//!   of servers and shifts it by one for an odd number) and a chain through the GPUs inside
//!   each server (src/graph/connect.cc): channel c uses tree c mod 2, and its chain starts
//!   at the GPU on rail ⌊c/2⌋ mod G, whose NIC carries the channel's traffic between servers.
//!   Data goes up in chunks of 512 KiB (NCCL's Simple-protocol step, `DEFAULT_BUFFSIZE`
//!   4 MiB / `NCCL_STEPS` 8, with one step a chunk for Tree in enqueue.cc): a GPU sends chunk
//!   k up once chunk k has come from all its children; the root's head GPU then sends each
//!   chunk down, and every GPU passes a chunk down as soon as it has it.
//!
//! Left out: NVLS; NCCL's balanced tree pattern, which hands one child server to the second
//! GPU of the chain (here the chain's first GPU takes both); a connection's 8-step credit
//! (a leaf sends all its chunks at once); the ring's slices and the LL/LL128 protocols (a
//! ring step is one message); the time a GPU takes to reduce.

use super::topology::{count, Topology};
use super::SimError;
use serde::{Deserialize, Serialize};

/// Largest message or flow accepted, bytes (1 TiB).
pub const MAX_FLOW_BYTES: u64 = 1 << 40;
/// Most QPs one scenario may create.
pub const MAX_QPS: usize = 1 << 20;
/// Message size of a flow that never ends, bytes.
const ENDLESS_MESSAGE: u64 = 1 << 20;

/// One entry of a scenario's traffic. In JSON: `{"incast": {...}}` and so on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficSpec {
    /// Every host in `from` sends `bytes` to `to`.
    Incast {
        from: Vec<u32>,
        to: u32,
        bytes: u64,
        #[serde(default)]
        start_us: f64,
    },
    /// Every host sends `bytes` to one other host, none to itself (seeded).
    Permutation { bytes: u64 },
    /// Every host sends `bytes` to every other host.
    AllToAll { bytes: u64 },
    /// One flow over `qps` QPs (`bytes: null`: it runs until the end).
    Flow {
        from: u32,
        to: u32,
        bytes: Option<u64>,
        #[serde(default)]
        start_us: f64,
        #[serde(default = "one")]
        qps: u32,
    },
    /// A ring all-reduce of `bytes_per_gpu` over every host.
    RingAllReduce {
        bytes_per_gpu: u64,
        channels: u32,
        #[serde(default = "one")]
        qps_per_connection: u32,
        #[serde(default = "yes")]
        pxn: bool,
    },
    /// A tree all-reduce of `bytes_per_gpu` over every host: NCCL's double binary tree
    /// across servers, a chain inside each.
    TreeAllReduce {
        bytes_per_gpu: u64,
        channels: u32,
        #[serde(default = "one")]
        qps_per_connection: u32,
    },
    /// The hierarchical all-reduce of `bytes_per_gpu` over every host: NVLink inside each
    /// server, one ring per rail across servers.
    HierarchicalAllReduce {
        bytes_per_gpu: u64,
        #[serde(default = "one")]
        qps_per_connection: u32,
    },
}

fn one() -> u32 {
    1
}

fn yes() -> bool {
    true
}

/// A QP to create.
#[derive(Debug, Clone)]
pub(super) struct QpPlan {
    pub src: u32,
    pub dst: u32,
    pub message_bytes: u64,
    pub messages: u32,
    /// Messages posted at the start.
    pub initial: u32,
    /// One more message is posted each time every one of these QPs has delivered one more
    /// (a ring's step waits for the step before; a tree's parent for all its children).
    pub inputs: Vec<usize>,
    /// Closed until this QP has delivered this many messages; at most one QP opens each,
    /// and each opens at most one.
    pub opened_by: Option<(usize, u32)>,
    pub start_ps: u64,
    pub traffic: u32,
    pub endless: bool,
}

/// A ring all-reduce's size, for its busbw.
#[derive(Debug, Clone)]
pub(super) struct CollectivePlan {
    pub traffic: u32,
    pub ranks: u32,
    pub bytes_per_gpu: u64,
}

fn host(field: String, h: u32, topo: &Topology) -> Result<u32, SimError> {
    if h >= topo.hosts {
        return Err(SimError::invalid(
            field,
            format!("host {h} does not exist (hosts 0 to {})", topo.hosts - 1),
        ));
    }
    Ok(h)
}

fn size(field: String, bytes: u64) -> Result<u64, SimError> {
    if bytes == 0 || bytes > MAX_FLOW_BYTES {
        return Err(SimError::invalid(
            field,
            format!("{bytes} is outside [1, {MAX_FLOW_BYTES}]"),
        ));
    }
    Ok(bytes)
}

fn start(field: String, us: f64, duration_us: f64) -> Result<u64, SimError> {
    if !us.is_finite() || us < 0.0 || us > duration_us {
        return Err(SimError::invalid(
            field,
            format!("{us} µs is outside [0, duration_us = {duration_us}]"),
        ));
    }
    Ok((us * 1e6).round() as u64)
}

fn route_exists(field: String, topo: &Topology, src: u32, dst: u32) -> Result<(), SimError> {
    if src == dst {
        return Err(SimError::invalid(
            field,
            format!("host {src} cannot send to itself"),
        ));
    }
    if topo.next_ports(src, dst).is_empty() {
        return Err(SimError::invalid(
            field,
            format!("no route from host {src} to host {dst}"),
        ));
    }
    Ok(())
}

/// One finite flow of `bytes` over one QP.
fn single(src: u32, dst: u32, bytes: u64, start_ps: u64, traffic: u32) -> QpPlan {
    QpPlan {
        src,
        dst,
        message_bytes: bytes,
        messages: 1,
        initial: 1,
        inputs: Vec::new(),
        opened_by: None,
        start_ps,
        traffic,
        endless: false,
    }
}

/// The QPs the traffic needs, and the collectives among them.
pub(super) fn plan(
    traffic: &[TrafficSpec],
    topo: &Topology,
    duration_us: f64,
    seed: u64,
) -> Result<(Vec<QpPlan>, Vec<CollectivePlan>), SimError> {
    let mut qps = Vec::new();
    let mut collectives = Vec::new();
    if traffic.is_empty() {
        return Err(SimError::invalid(
            "traffic",
            "there must be at least one entry",
        ));
    }
    for (i, t) in traffic.iter().enumerate() {
        let at = |field: &str| format!("traffic[{i}].{field}");
        let ti = i as u32;
        match t {
            TrafficSpec::Incast {
                from,
                to,
                bytes,
                start_us,
            } => {
                let to = host(at("to"), *to, topo)?;
                let bytes = size(at("bytes"), *bytes)?;
                let start_ps = start(at("start_us"), *start_us, duration_us)?;
                if from.is_empty() {
                    return Err(SimError::invalid(at("from"), "name at least one sender"));
                }
                for (k, &f) in from.iter().enumerate() {
                    let f = host(format!("traffic[{i}].from[{k}]"), f, topo)?;
                    route_exists(format!("traffic[{i}].from[{k}]"), topo, f, to)?;
                    qps.push(single(f, to, bytes, start_ps, ti));
                }
            }
            TrafficSpec::Permutation { bytes } => {
                let bytes = size(at("bytes"), *bytes)?;
                if topo.hosts < 2 {
                    return Err(SimError::invalid(at("permutation"), "needs two hosts"));
                }
                for (src, dst) in derangement(topo.hosts, seed).into_iter().enumerate() {
                    route_exists(at("permutation"), topo, src as u32, dst)?;
                    qps.push(single(src as u32, dst, bytes, 0, ti));
                }
            }
            TrafficSpec::AllToAll { bytes } => {
                let bytes = size(at("bytes"), *bytes)?;
                for src in 0..topo.hosts {
                    for dst in (0..topo.hosts).filter(|&d| d != src) {
                        route_exists(at("all_to_all"), topo, src, dst)?;
                        qps.push(single(src, dst, bytes, 0, ti));
                    }
                }
            }
            TrafficSpec::Flow {
                from,
                to,
                bytes,
                start_us,
                qps: per_flow,
            } => {
                let src = host(at("from"), *from, topo)?;
                let dst = host(at("to"), *to, topo)?;
                route_exists(at("to"), topo, src, dst)?;
                let start_ps = start(at("start_us"), *start_us, duration_us)?;
                count(&at("qps"), *per_flow, 1, 64)?;
                for _ in 0..*per_flow {
                    let mut plan = match bytes {
                        Some(b) => single(
                            src,
                            dst,
                            size(at("bytes"), *b)?.div_ceil(u64::from(*per_flow)),
                            start_ps,
                            ti,
                        ),
                        None => QpPlan {
                            message_bytes: ENDLESS_MESSAGE,
                            messages: u32::MAX,
                            initial: u32::MAX,
                            endless: true,
                            ..single(src, dst, 1, start_ps, ti)
                        },
                    };
                    plan.traffic = ti;
                    qps.push(plan);
                }
            }
            TrafficSpec::RingAllReduce {
                bytes_per_gpu,
                channels,
                qps_per_connection,
                pxn,
            } => {
                let bytes = collective_size(
                    &at,
                    "ring_all_reduce",
                    topo,
                    *bytes_per_gpu,
                    *channels,
                    *qps_per_connection,
                )?;
                ring(
                    &mut qps,
                    topo,
                    ti,
                    bytes,
                    *channels,
                    *qps_per_connection,
                    *pxn,
                )
                .map_err(|reason| SimError::invalid(at("ring_all_reduce"), reason))?;
                collectives.push(CollectivePlan {
                    traffic: ti,
                    ranks: topo.hosts,
                    bytes_per_gpu: bytes,
                });
            }
            TrafficSpec::TreeAllReduce {
                bytes_per_gpu,
                channels,
                qps_per_connection,
            } => {
                let bytes = collective_size(
                    &at,
                    "tree_all_reduce",
                    topo,
                    *bytes_per_gpu,
                    *channels,
                    *qps_per_connection,
                )?;
                tree(&mut qps, topo, ti, bytes, *channels, *qps_per_connection)
                    .map_err(|reason| SimError::invalid(at("tree_all_reduce"), reason))?;
                collectives.push(CollectivePlan {
                    traffic: ti,
                    ranks: topo.hosts,
                    bytes_per_gpu: bytes,
                });
            }
            TrafficSpec::HierarchicalAllReduce {
                bytes_per_gpu,
                qps_per_connection,
            } => {
                let bytes = size(at("bytes_per_gpu"), *bytes_per_gpu)?;
                count(&at("qps_per_connection"), *qps_per_connection, 1, 16)?;
                hierarchical(&mut qps, topo, ti, bytes, *qps_per_connection)
                    .map_err(|reason| SimError::invalid(at("hierarchical_all_reduce"), reason))?;
                collectives.push(CollectivePlan {
                    traffic: ti,
                    ranks: topo.hosts,
                    bytes_per_gpu: bytes,
                });
            }
        }
        if qps.len() > MAX_QPS {
            return Err(SimError::invalid(
                format!("traffic[{i}]"),
                format!("{} QPs exceed the cap {MAX_QPS}", qps.len()),
            ));
        }
    }
    Ok((qps, collectives))
}

/// A ring or tree collective's shared checks: its size per GPU, its channel and QP counts,
/// and at least two hosts; the size back.
fn collective_size(
    at: &dyn Fn(&str) -> String,
    kind: &str,
    topo: &Topology,
    bytes_per_gpu: u64,
    channels: u32,
    qps_per_connection: u32,
) -> Result<u64, SimError> {
    let bytes = size(at("bytes_per_gpu"), bytes_per_gpu)?;
    count(&at("channels"), channels, 1, 64)?;
    count(&at("qps_per_connection"), qps_per_connection, 1, 16)?;
    if topo.hosts < 2 {
        return Err(SimError::invalid(at(kind), "needs two hosts"));
    }
    Ok(bytes)
}

/// A seeded permutation of 0..n with no fixed point (Sattolo's algorithm: one cycle).
fn derangement(n: u32, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..n).collect();
    let mut rng = crate::dcqcn::SplitMix64::new(seed ^ 0x005E_ED0F_7E57);
    for i in (1..n as usize).rev() {
        let j = (rng.next_u64() % i as u64) as usize;
        order.swap(i, j);
    }
    // Sattolo's shuffle gives one cycle; follow it to map each host to the next.
    let mut next = vec![0u32; n as usize];
    for k in 0..n as usize {
        next[order[k] as usize] = order[(k + 1) % n as usize];
    }
    next
}

/// Servers of equal size in host order: (servers, GPUs per server).
fn servers(topo: &Topology) -> Result<(u32, u32), String> {
    let n = topo.hosts;
    // Hosts without a server are servers of one.
    let server_of = |h: u32| topo.nodes[h as usize].server.unwrap_or(h);
    let per_server = (0..n).take_while(|&h| server_of(h) == server_of(0)).count() as u32;
    if !n.is_multiple_of(per_server)
        || (0..n).any(|h| server_of(h) != server_of(h - h % per_server))
    {
        return Err("the hosts do not form servers of equal size in order".into());
    }
    Ok((n / per_server, per_server))
}

fn check_legs(topo: &Topology, legs: &[(u32, u32)]) -> Result<(), String> {
    for &(src, dst) in legs {
        if src == dst || topo.next_ports(src, dst).is_empty() {
            return Err(format!("no route from host {src} to host {dst}"));
        }
    }
    Ok(())
}

/// The three phases' legs for each QP of a connection; see the module's notes.
fn hierarchical(
    qps: &mut Vec<QpPlan>,
    topo: &Topology,
    traffic: u32,
    bytes: u64,
    per_connection: u32,
) -> Result<(), String> {
    let (servers, per_server) = servers(topo)?;
    if servers < 2 || per_server < 2 {
        return Err(format!(
            "needs at least two servers of two GPUs ({servers} of {per_server} here); use ring_all_reduce"
        ));
    }
    let gpu = |server: u32, local: u32| server * per_server + local % per_server;
    let q = u64::from(per_connection);
    let inside = bytes.div_ceil(u64::from(per_server) * q);
    let across = bytes.div_ceil(u64::from(per_server) * u64::from(servers) * q);
    let (steps_inside, steps_across) = (per_server - 1, 2 * (servers - 1));
    let plan = |src, dst, message_bytes, messages, input, opened_by| QpPlan {
        src,
        dst,
        message_bytes,
        messages,
        initial: 1,
        inputs: vec![input],
        opened_by,
        start_ps: 0,
        traffic,
        endless: false,
    };
    for _ in 0..per_connection {
        // Index of each phase's leg out of (server, local) or (rail, server).
        let base1 = qps.len();
        let leg1 = |k: u32, i: u32| base1 + (k * per_server + i % per_server) as usize;
        let base2 = base1 + (servers * per_server) as usize;
        let leg2 = |r: u32, k: u32| base2 + (r * servers + k % servers) as usize;
        let base3 = base2 + (per_server * servers) as usize;
        let leg3 = |k: u32, i: u32| base3 + (k * per_server + i % per_server) as usize;
        let mut legs = Vec::new();
        for k in 0..servers {
            for i in 0..per_server {
                legs.push((gpu(k, i), gpu(k, i + 1)));
                qps.push(plan(
                    gpu(k, i),
                    gpu(k, i + 1),
                    inside,
                    steps_inside,
                    leg1(k, i + per_server - 1),
                    None,
                ));
            }
        }
        for r in 0..per_server {
            for k in 0..servers {
                let next = (k + 1) % servers;
                legs.push((gpu(k, r), gpu(next, r)));
                // Opened when this GPU's share of its server is reduced: the last message of
                // the reduce-scatter into it.
                let into = leg1(k, r + per_server - 1);
                qps.push(plan(
                    gpu(k, r),
                    gpu(next, r),
                    across,
                    steps_across,
                    leg2(r, k + servers - 1),
                    Some((into, steps_inside)),
                ));
            }
        }
        for k in 0..servers {
            for i in 0..per_server {
                // Opened when this GPU's share is reduced across the servers of its rail.
                let into = leg2(i, k + servers - 1);
                qps.push(plan(
                    gpu(k, i),
                    gpu(k, i + 1),
                    inside,
                    steps_inside,
                    leg3(k, i + per_server - 1),
                    Some((into, steps_across)),
                ));
            }
        }
        check_legs(topo, &legs)?;
    }
    Ok(())
}

/// The ring's legs for every channel and QP, chained so each step waits for the last.
fn ring(
    qps: &mut Vec<QpPlan>,
    topo: &Topology,
    traffic: u32,
    bytes: u64,
    channels: u32,
    per_connection: u32,
    pxn: bool,
) -> Result<(), String> {
    let n = topo.hosts;
    let (servers, per_server) = servers(topo)?;
    let server_of = |h: u32| h / per_server;
    let steps = 2 * (n - 1);
    let message = bytes.div_ceil(u64::from(n) * u64::from(channels) * u64::from(per_connection));
    for c in 0..channels {
        let rail = c % per_server;
        let order: Vec<u32> = (0..servers)
            .flat_map(|s| (0..per_server).map(move |k| s * per_server + (rail + k) % per_server))
            .collect();
        // Legs as (src, dst, initial messages).
        let mut legs: Vec<(u32, u32, u32)> = Vec::new();
        for k in 0..n as usize {
            let (a, b) = (order[k], order[(k + 1) % n as usize]);
            if server_of(a) != server_of(b)
                && pxn
                && per_server > 1
                && a % per_server != b % per_server
            {
                let relay = server_of(a) * per_server + b % per_server;
                legs.push((a, relay, 1));
                legs.push((relay, b, 0));
            } else {
                legs.push((a, b, 1));
            }
        }
        let pairs: Vec<(u32, u32)> = legs.iter().map(|&(src, dst, _)| (src, dst)).collect();
        check_legs(topo, &pairs)?;
        for _ in 0..per_connection {
            let first = qps.len();
            let m = legs.len();
            for (k, &(src, dst, initial)) in legs.iter().enumerate() {
                qps.push(QpPlan {
                    src,
                    dst,
                    message_bytes: message,
                    messages: steps,
                    initial,
                    inputs: vec![first + (k + m - 1) % m],
                    opened_by: None,
                    start_ps: 0,
                    traffic,
                    endless: false,
                });
            }
        }
    }
    Ok(())
}

/// NCCL's chunk for Tree with the Simple protocol, bytes: one step of the 4 MiB buffer's 8
/// (`DEFAULT_BUFFSIZE` in src/init.cc, `NCCL_STEPS` in src/include/device.h, chunkSteps 1
/// for Tree in `calcCollChunking`, src/enqueue.cc, all at v2.29.3-1).
pub const TREE_CHUNK_BYTES: u64 = (4 << 20) / 8;

/// Parent and children of `rank` in NCCL's binary tree over `n` ranks (`ncclGetBtree`): rank
/// 0 is the root with one child; otherwise, with b the lowest set bit of the rank, the
/// parent is rank − b + 2b (or rank − b when that is out of range), and the children are
/// rank ∓ b/2, the upper one moved down by halving until it is in range.
pub fn binary_tree(n: u32, rank: u32) -> (Option<u32>, Vec<u32>) {
    if rank == 0 {
        let top = n.next_power_of_two();
        return (None, if n > 1 { vec![top / 2] } else { Vec::new() });
    }
    let bit = 1 << rank.trailing_zeros();
    let up = (rank ^ bit) | (bit << 1);
    let parent = if up >= n { rank ^ bit } else { up };
    let mut children = Vec::new();
    let mut low = bit >> 1;
    if low > 0 {
        children.push(rank - low);
    }
    while low > 0 && rank + low >= n {
        low >>= 1;
    }
    if low > 0 {
        children.push(rank + low);
    }
    (Some(parent), children)
}

/// Tree `t` (0 or 1) of NCCL's double binary tree over `n` ranks (`ncclGetDtree`): the
/// second is the first mirrored (n even) or shifted by one rank (n odd), so that no rank is
/// an inner node of both.
pub fn double_binary_tree(n: u32, t: u32, rank: u32) -> (Option<u32>, Vec<u32>) {
    if t == 0 {
        return binary_tree(n, rank);
    }
    // The second tree in the first one's numbering, and back.
    let mirror = n.is_multiple_of(2);
    let into = |r: u32| if mirror { n - 1 - r } else { (r + n - 1) % n };
    let back = |r: u32| if mirror { n - 1 - r } else { (r + 1) % n };
    let (parent, children) = binary_tree(n, into(rank));
    (parent.map(back), children.into_iter().map(back).collect())
}

/// The tree all-reduce's legs for every channel and QP; see the module's notes.
fn tree(
    qps: &mut Vec<QpPlan>,
    topo: &Topology,
    traffic: u32,
    bytes: u64,
    channels: u32,
    per_connection: u32,
) -> Result<(), String> {
    let (servers, per_server) = servers(topo)?;
    let first = qps.len();
    let share = bytes.div_ceil(u64::from(channels) * u64::from(per_connection));
    let messages = share.div_ceil(TREE_CHUNK_BYTES);
    let chunk = share.div_ceil(messages);
    let messages = u32::try_from(messages).map_err(|_| "too many chunks".to_string())?;
    // The two trees' shapes and their servers from the root down, shared by every channel.
    let trees: Vec<(Vec<TreeNode>, Vec<u32>)> = (0..2)
        .map(|t| {
            let shape: Vec<_> = (0..servers)
                .map(|s| double_binary_tree(servers, t, s))
                .collect();
            let order = by_depth(&shape);
            (shape, order)
        })
        .collect();
    for c in 0..channels {
        let rail = (c / 2) % per_server;
        // The chain of server s: its i-th GPU.
        let gpu = |s: u32, i: u32| s * per_server + (rail + i) % per_server;
        let (shape, order) = &trees[(c % 2) as usize];
        for _ in 0..per_connection {
            let mut leg = |src: u32, dst: u32, inputs: Vec<usize>| {
                qps.push(QpPlan {
                    src,
                    dst,
                    message_bytes: chunk,
                    messages,
                    initial: if inputs.is_empty() { messages } else { 0 },
                    inputs,
                    opened_by: None,
                    start_ps: 0,
                    traffic,
                    endless: false,
                });
                qps.len() - 1
            };
            // Up: the chain's tail towards its head, then each server's head to its
            // parent's, children before parents (deepest servers first).
            let mut chain_up = vec![None; servers as usize];
            for s in 0..servers {
                let mut below = None;
                for i in (1..per_server).rev() {
                    below = Some(leg(gpu(s, i), gpu(s, i - 1), below.into_iter().collect()));
                }
                chain_up[s as usize] = below;
            }
            let mut net_up: Vec<Option<usize>> = vec![None; servers as usize];
            for &s in order.iter().rev() {
                let (parent, children) = &shape[s as usize];
                if let Some(p) = parent {
                    let inputs = into_head(chain_up[s as usize], children, &net_up);
                    net_up[s as usize] = Some(leg(gpu(s, 0), gpu(*p, 0), inputs));
                }
            }
            // Down: from the root, each server's head to its children and along its chain.
            let mut net_down: Vec<Option<usize>> = vec![None; servers as usize];
            for &s in order {
                let (parent, children) = &shape[s as usize];
                let reduced = match parent {
                    // The root's head has the whole sum once its chain and children are in.
                    None => into_head(chain_up[s as usize], children, &net_up),
                    Some(_) => net_down[s as usize].into_iter().collect(),
                };
                for &k in children {
                    net_down[k as usize] = Some(leg(gpu(s, 0), gpu(k, 0), reduced.clone()));
                }
                let mut above = reduced;
                for i in 1..per_server {
                    above = vec![leg(gpu(s, i - 1), gpu(s, i), above)];
                }
            }
        }
    }
    let pairs: Vec<(u32, u32)> = qps[first..].iter().map(|q| (q.src, q.dst)).collect();
    check_legs(topo, &pairs)
}

/// The legs a server's head waits on before it sends up (or, at the root, down): its
/// chain's last leg and each child server's leg up.
fn into_head(chain: Option<usize>, children: &[u32], net_up: &[Option<usize>]) -> Vec<usize> {
    chain
        .into_iter()
        .chain(children.iter().filter_map(|&k| net_up[k as usize]))
        .collect()
}

/// A server's parent and children in one tree.
type TreeNode = (Option<u32>, Vec<u32>);

/// The servers in breadth-first order from the tree's root.
fn by_depth(shape: &[TreeNode]) -> Vec<u32> {
    let mut order: Vec<u32> = shape
        .iter()
        .enumerate()
        .filter(|(_, (parent, _))| parent.is_none())
        .map(|(s, _)| s as u32)
        .collect();
    let mut k = 0;
    while k < order.len() {
        order.extend(shape[order[k] as usize].1.iter().copied());
        k += 1;
    }
    order
}
