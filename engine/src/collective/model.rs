//! NCCL's cost model (`ncclTopoTuneModel` and `ncclTopoGetAlgoTime` in
//! src/graph/tuning.cc, v2.29.3-1) over a fabric described by its link rates instead of
//! NCCL's searched topology graphs.

use super::constants::*;
use super::error::CollectiveError;
use super::input::{
    Algorithm, Cluster, Collective, CollectiveRequest, CpuVendor, IntraLink, Protocol, Transport,
};
use serde::Serialize;

/// The link, or NCCL cap, that sets an estimate's bandwidth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bottleneck {
    /// The GPUs' NVLink (or NVSwitch) bandwidth.
    #[serde(rename = "nvlink")]
    NvLink,
    /// PCIe: between GPUs without NVLink, or between GPU and NIC.
    Pcie,
    /// The NICs' line rate (verbs).
    Network,
    /// The socket transport's copies through host memory and TCP (measured, not line rate).
    HostCopy,
    /// Host memory, without GPUDirect RDMA on verbs: every network byte is staged in it
    /// twice on each side ([`STAGING_HOST_MEMORY_PASSES`]). The lab's bound, not NCCL's.
    HostStaging,
    /// A per-channel or per-protocol cap in NCCL's tuning tables (`llMaxBws`,
    /// `perChMax*Bws`), not a link.
    ProtocolCap,
}

/// One algorithm/protocol pair's estimate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub algorithm: Algorithm,
    pub protocol: Protocol,
    /// The automatic choice may take it (NCCL's default, or the request's lists).
    pub enabled: bool,
    /// NCCL's estimate: latency + bytes / bandwidth, µs.
    pub time_us: f64,
    /// The latency part of `time_us`, µs.
    pub latency_us: f64,
    /// nccl-tests' algbw = S / t, GB/s.
    pub algbw_gbs: f64,
    /// nccl-tests' busbw = algbw × the collective's factor, GB/s.
    pub busbw_gbs: f64,
    /// What sets the bandwidth term.
    pub bottleneck: Bottleneck,
    /// The latency term is larger than the bandwidth term (small messages).
    pub latency_bound: bool,
}

/// The pair the automatic choice takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Choice {
    pub algorithm: Algorithm,
    pub protocol: Protocol,
}

/// Where the Ring/Tree channel count came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelSource {
    /// [`super::Cluster::channels`].
    Request,
    /// The rule described in [`estimate`].
    Rule,
}

/// Every modelled pair for one request, and the automatic choice.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CollectiveReport {
    /// The NCCL release whose constants were used.
    pub nccl_tag: &'static str,
    pub op: Collective,
    pub bytes: f64,
    pub ranks: u32,
    pub nodes: u32,
    /// Ring and Tree channels.
    pub channels: u32,
    pub channel_source: ChannelSource,
    /// In NCCL's order: algorithm, then protocol. Pairs NCCL does not offer for this
    /// collective and fabric are absent.
    pub estimates: Vec<Estimate>,
    /// The fastest enabled estimate; `None` when the request's lists leave none.
    pub chosen: Option<Choice>,
}

impl CollectiveReport {
    /// The estimate of the pair the automatic choice takes.
    pub fn chosen_estimate(&self) -> Option<&Estimate> {
        let Choice {
            algorithm,
            protocol,
        } = self.chosen?;
        let pair = |e: &&Estimate| e.algorithm == algorithm && e.protocol == protocol;
        self.estimates.iter().find(pair)
    }
}

/// A bandwidth and what sets it.
#[derive(Debug, Clone, Copy)]
struct Limit {
    gbs: f64,
    by: Bottleneck,
}

impl Limit {
    fn min(self, other: Limit) -> Limit {
        if other.gbs < self.gbs {
            other
        } else {
            self
        }
    }
    fn scale(self, f: f64) -> Limit {
        Limit {
            gbs: self.gbs * f,
            by: self.by,
        }
    }
    fn cap(self, gbs: f64) -> Limit {
        self.min(Limit {
            gbs,
            by: Bottleneck::ProtocolCap,
        })
    }
}

/// What NCCL's tuning reads from a communicator, derived from a [`Cluster`].
struct Setup {
    ranks: u32,
    nodes: u32,
    gpus_per_node: u32,
    ppn: f64,
    cc: u32,
    cc_row: usize,
    index2: usize,
    ll_max_bw: f64,
    intra_hw: usize,
    intra: Limit,
    net: Limit,
    /// Ring (and PAT) graph: one GPU's bus bandwidth over all channels.
    ring: Limit,
    /// Tree graph, same unit.
    tree: Limit,
    /// CollNet graphs, same unit.
    collnet: Limit,
    channels: u32,
    channel_source: ChannelSource,
    ll128_default: bool,
    net_overhead_us: f64,
    nvls: bool,
    /// CollNet is on (`collnetEnable`) and there is a network to reduce in.
    sharp: bool,
    nvswitch: bool,
}

/// NCCL's row for a compute capability (tuning.cc:249).
fn cc_row(cc: u32) -> usize {
    if cc >= 100 {
        3
    } else if cc >= 90 {
        2
    } else if cc >= 80 {
        1
    } else {
        0
    }
}

/// `log2i`: floor of log2, −1 for 0 (src/include/bitops.h:287-288).
fn log2i(x: u64) -> i32 {
    if x == 0 {
        -1
    } else {
        63 - x.leading_zeros() as i32
    }
}

/// A node's network bandwidth: the NICs, or the PCIe links that feed them (each NIC is fed
/// by one GPU's PCIe link; more NICs than GPUs share those links), or, without GPUDirect
/// RDMA on verbs, the host memory every byte is staged in. That last bound is ours: NCCL's
/// tuner times a path through the CPU like a direct one, so without it the model would
/// say GPUDirect RDMA changes nothing at large sizes.
fn network(f: &Cluster) -> Limit {
    let line = f.nic_gbps / 8.0; // NCCL: `net.bw = mbps / 8000.0` (topo.cc:384)
    let per_nic = match f.transport {
        Transport::Verbs => Limit {
            gbs: line,
            by: Bottleneck::Network,
        },
        Transport::Socket => Limit {
            gbs: line * SOCKET_LINE_FRACTION,
            by: Bottleneck::HostCopy,
        },
    };
    let nics = Limit {
        gbs: per_nic.gbs * f64::from(f.nics_per_node),
        by: per_nic.by,
    };
    let feeders = f.nics_per_node.min(f.gpus_per_node);
    let fed = nics.min(Limit {
        gbs: f.pcie_gbs * f64::from(feeders),
        by: Bottleneck::Pcie,
    });
    if staged_in_host_memory(f) {
        fed.min(Limit {
            gbs: f.host_memory_gbs / STAGING_HOST_MEMORY_PASSES,
            by: Bottleneck::HostStaging,
        })
    } else {
        fed
    }
}

/// Network traffic crosses host memory because GPUDirect RDMA is off on the verbs transport
/// (the socket transport's staging is inside its measured rate, [`SOCKET_LINE_FRACTION`]).
pub fn staged_in_host_memory(f: &Cluster) -> bool {
    f.nodes > 1 && f.transport == Transport::Verbs && !f.gdr
}

/// Channels when the request names none: NCCL's search starts at the largest per-channel
/// speed of its speed array and adds channels until they carry the graph; then
/// `ncclTopoDupChannels` doubles them when each carries enough (search.cc:961-973).
fn rule_channels(total: f64, cc: u32, nodes: u32) -> u32 {
    let row = cc_row(cc);
    let speed = if nodes == 1 {
        FIRST_SPEED_INTRA[row]
    } else {
        FIRST_SPEED_INTER[row]
    };
    let n = (total / speed)
        .ceil()
        .clamp(1.0, f64::from(MAX_RING_CHANNELS)) as u32;
    let per = total / f64::from(n);
    let dup = per >= DUP_MIN_BW && !(cc > 80 && per < DUP_SM90_BW && n > 4);
    if dup {
        (2 * n).min(MAX_RING_CHANNELS)
    } else {
        n
    }
}

impl Setup {
    fn new(f: &Cluster) -> Setup {
        let nodes = f.nodes;
        let ranks = f.ranks();
        let cc = f.compute_capability;
        let row = cc_row(cc);
        let index2 = if nodes <= 2 { nodes as usize - 1 } else { 2 };
        // LL cap: the GPU row on one node, the CPU row across nodes (tuning.cc:251-254).
        let index1 = if nodes == 1 {
            row
        } else {
            match f.cpu_vendor {
                CpuVendor::Intel => 0,
                CpuVendor::Amd => 1,
            }
        };
        let intra = Limit {
            gbs: f.intra_gbs,
            by: match f.intra_link {
                IntraLink::NvLink => Bottleneck::NvLink,
                IntraLink::Pcie => Bottleneck::Pcie,
            },
        };
        let net = network(f);
        let unbounded = Limit {
            gbs: f64::INFINITY,
            by: Bottleneck::NvLink,
        };
        let with_intra = if f.gpus_per_node > 1 {
            intra
        } else {
            unbounded
        };
        let ring = if nodes > 1 {
            with_intra.min(net)
        } else {
            with_intra
        };
        // On two nodes NCCL raises a tree's intra bandwidth up to twice the inter one
        // (search.cc:1205-1207) and tunes with it (tuning.cc:284).
        let tree = if nodes == 2 {
            with_intra.min(net.scale(2.0))
        } else {
            ring
        };
        // CollNet graphs, like trees on two nodes, may carry twice the inter bandwidth
        // inside the node (search.cc:1205-1207; tuned with bwIntra, tuning.cc:284).
        let collnet = with_intra.min(net.scale(2.0));
        let (channels, channel_source) = match f.channels {
            Some(c) => (c, ChannelSource::Request),
            None => (rule_channels(ring.gbs, cc, nodes), ChannelSource::Rule),
        };
        // Without GDR (or over sockets) the GPU-NIC path runs through the CPU, PATH_PHB
        // (paths.cc:750-760, 97); LL128 is on by default only up to PATH_PXN on Hopper and
        // later, PATH_PXB before (tuning.cc:482-487), and only over NVLink inside the node
        // (tuning.cc:491), from compute capability 7.0 (tuning.cc:493).
        let host_path = nodes > 1 && (!f.gdr || f.transport == Transport::Socket);
        let nvlink_inside = f.gpus_per_node == 1 || f.intra_link == IntraLink::NvLink;
        let ll128_default = !host_path && nvlink_inside && cc >= 70;
        let net_overhead_us = if nodes > 1 {
            match f.cpu_vendor {
                CpuVendor::Intel => NET_OVERHEAD_INTEL_US,
                CpuVendor::Amd => NET_OVERHEAD_AMD_US,
            }
        } else {
            0.0
        };
        Setup {
            ranks,
            nodes,
            gpus_per_node: f.gpus_per_node,
            ppn: f64::from(ranks) / f64::from(nodes),
            cc,
            cc_row: row,
            index2,
            ll_max_bw: LL_MAX_BW[index1][index2],
            intra_hw: match f.intra_link {
                IntraLink::NvLink => HW_NVLINK,
                IntraLink::Pcie => HW_PCI,
            },
            intra,
            net,
            ring,
            tree,
            collnet,
            sharp: f.sharp && nodes > 1,
            nvswitch: f.nvswitch,
            channels,
            channel_source,
            ll128_default,
            net_overhead_us,
            // NVLS needs an NVSwitch and Hopper or later (search.cc:1062), two channels
            // (tuning.cc:288) and, across nodes, CollNet (tuning.cc:468-471).
            nvls: f.nvswitch && cc >= 90 && f.gpus_per_node >= 2,
        }
    }

    /// Does NCCL offer this pair for this collective here? (tuning.cc:273-282, 288,
    /// 462-476; PAT's conditions in `ncclPatEnable`, tuning.cc:202-209.)
    fn offers(&self, op: Collective, a: Algorithm, p: Protocol) -> bool {
        use Collective::*;
        let by_op = match op {
            AlltoAll => return a == Algorithm::P2p && p == Protocol::Simple,
            Broadcast | Reduce => a == Algorithm::Ring,
            AllGather | ReduceScatter => {
                matches!(a, Algorithm::Ring | Algorithm::Pat | Algorithm::Nvls)
            }
            AllReduce => a != Algorithm::Pat,
        };
        let by_algo = match a {
            Algorithm::Ring | Algorithm::Tree => true,
            // CollNet is Simple only (tuning.cc:311-312); Direct needs an NVSwitch
            // (tuning.cc:473). Its AllGather/ReduceScatter (tuning.cc:313-343) is not modelled.
            Algorithm::CollNetDirect => {
                self.sharp && self.nvswitch && p == Protocol::Simple && op == AllReduce
            }
            Algorithm::CollNetChain => self.sharp && p == Protocol::Simple,
            Algorithm::Nvls => {
                self.nvls && (self.nodes == 1 || self.sharp) && p == Protocol::Simple
            }
            Algorithm::NvlsTree => self.nvls && self.nodes > 1 && p == Protocol::Simple,
            Algorithm::Pat => p == Protocol::Simple && self.cc >= 60 && self.nodes == self.ranks,
            Algorithm::P2p => false,
        };
        by_op && by_algo
    }

    /// NCCL's `bandwidths[coll][a][p]` (tuning.cc:284-352): algorithm bandwidth, GB/s,
    /// before the per-size corrections of `ncclTopoGetAlgoTime`.
    fn bandwidth(&self, op: Collective, a: Algorithm, p: Protocol) -> Limit {
        let ch = f64::from(self.channels);
        let mut bus = match a {
            Algorithm::Tree => self.tree,
            // P2p is timed by `alltoall_time`, not from a graph's bandwidth.
            Algorithm::Ring | Algorithm::Pat | Algorithm::P2p => self.ring,
            Algorithm::Nvls | Algorithm::NvlsTree => self.nvls_bus(op, a),
            Algorithm::CollNetChain => self.collnet,
            Algorithm::CollNetDirect => {
                // "Collnet+Direct requires all GPUs to have a local NIC to work at full
                // speed": GPUs per head, half-forgiven (tuning.cc:317-321).
                let heads = self.gpus_per_node.min(MAX_DIRECT_HEADS);
                let mut factor = self.ppn / f64::from(heads);
                factor -= (factor - 1.0) / 2.0;
                let mut bus = self.collnet.scale(1.0 / factor);
                if self.cc >= 90 {
                    bus = bus.scale(COLLNET_DIRECT_SM90_FACTOR);
                }
                bus
            }
        };
        let r = self.cc_row;
        let i2 = self.index2;
        if a == Algorithm::Ring && p == Protocol::Ll {
            bus = bus.scale(RING_LL_FACTOR).cap(self.ll_max_bw);
        }
        if a == Algorithm::Ring && p == Protocol::Ll128 {
            bus = bus
                .scale(RING_LL128_FACTOR)
                .cap(ch * PER_CH_MAX_RING_LL128_BW[r][i2]);
        }
        if a == Algorithm::Tree && op == Collective::AllReduce {
            bus = bus
                .scale(TREE_ALLREDUCE_FACTOR)
                .cap(ch * PER_CH_MAX_TREE_BW[r][i2]);
        }
        if a == Algorithm::Tree && p == Protocol::Ll {
            bus = bus.scale(TREE_LL_FACTOR).cap(self.ll_max_bw);
        }
        if a == Algorithm::Tree && p == Protocol::Ll128 {
            let f = if self.nodes == 1 {
                TREE_LL128_FACTOR_ONE_NODE
            } else {
                TREE_LL128_FACTOR_NODES
            };
            bus = bus.scale(f).cap(ch * PER_CH_MAX_TREE_LL128_BW[r][i2]);
        }
        if a == Algorithm::Pat {
            bus = bus.scale(PAT_FACTOR);
        }
        // Bus to algorithm bandwidth (tuning.cc:345-351); NCCL leaves non-Ring
        // AllGather/ReduceScatter unconverted.
        let ag_rs = matches!(op, Collective::AllGather | Collective::ReduceScatter);
        if !(a != Algorithm::Ring && ag_rs) {
            let ratio = match a {
                Algorithm::Ring | Algorithm::Nvls | Algorithm::NvlsTree => {
                    f64::from(self.ranks) / f64::from(op.ring_steps(self.ranks))
                }
                _ => TREE_RATIO,
            };
            bus = bus.scale(ratio);
        }
        bus
    }

    /// NVLS and NVLS-Tree bus bandwidth (tuning.cc:285-301). One channel per GPU head
    /// (search.cc:1064, 1069-1071), each with an equal share of the GPU's NVLink.
    fn nvls_bus(&self, op: Collective, a: Algorithm) -> Limit {
        let heads = self.gpus_per_node.min(MAX_NVLS_ARITY);
        let n = f64::from(heads);
        let bw_intra = self.intra.gbs / n;
        let mut intra = bw_intra * NVLS_EFFICIENCY[self.cc_row] * (n - 1.0) / n;
        if op == Collective::AllReduce {
            intra *= 2.0; // "AllReduce pipelines two operations" (tuning.cc:291-293)
        } else {
            intra *= (self.ppn - 1.0) / self.ppn;
        }
        let intra = Limit {
            gbs: intra,
            by: Bottleneck::NvLink,
        };
        let inter = if self.nodes == 1 {
            // One node: the NVLS search raises bwInter until it reaches twice bwIntra
            // (search.cc:1201-1204); nothing but NVLink is involved.
            Limit {
                gbs: 2.0 * bw_intra,
                by: Bottleneck::NvLink,
            }
        } else {
            let two_node = if self.nodes <= 2 && a == Algorithm::NvlsTree {
                2.0
            } else {
                1.0
            };
            self.net.scale(two_node / n)
        };
        let mut per_ch = intra.min(inter);
        if a == Algorithm::NvlsTree {
            per_ch = per_ch.cap(PER_CH_MAX_NVLS_TREE_BW[self.cc_row][self.index2]);
        }
        per_ch.scale(n)
    }

    /// The hardware latency of one step inside a node and of one across the network, µs.
    fn hw_latencies(&self, a: Algorithm, p: Protocol) -> (f64, f64) {
        let (ai, pi) = (a.index(), p.index());
        let intra_lat = HW_LATENCY_US[self.intra_hw][ai][pi];
        // One GPU per node leaves every hop exposed: NCCL takes Tree's network latency
        // (tuning.cc:355-356). NCCL adds the net plugin's own latency (twice for Simple,
        // tuning.cc:357-359); both IB and sockets report 0 (net_ib/init.cc:401,
        // net_socket.cc:121), so it is left out.
        let inter_lat = if self.ppn == 1.0 {
            HW_LATENCY_US[HW_NET][TREE][pi]
        } else {
            HW_LATENCY_US[HW_NET][ai][pi]
        };
        (intra_lat, inter_lat)
    }

    /// NCCL's `latencies[coll][a][p]`, µs (tuning.cc:353-401).
    fn latency(&self, op: Collective, a: Algorithm, p: Protocol) -> f64 {
        let (ai, pi) = (a.index(), p.index());
        let base = BASE_LATENCY_US[ai][pi];
        let (intra_lat, inter_lat) = self.hw_latencies(a, p);
        let ppn_steps = f64::from(self.gpus_per_node - 1);
        let log_nodes = f64::from(log2i(u64::from(self.nodes)).max(0));
        match a {
            Algorithm::Ring => {
                let hw = if self.nodes == 1 {
                    self.intra_hw
                } else {
                    HW_NET
                };
                let lat = HW_LATENCY_US[hw][RING][pi];
                if matches!(op, Collective::Broadcast | Collective::Reduce) {
                    // NCCL's ring graphs keep the same channels inside and across nodes
                    // (`sameChannels`, search.cc:1043-1044), so one step's latency.
                    base + lat
                } else {
                    let t = self.ring_steps(op, p, intra_lat, inter_lat);
                    base + f64::from(t.intra_steps) * t.intra_step_us
                        + f64::from(t.inter_steps) * t.inter_step_us
                }
            }
            Algorithm::Tree => {
                if op == Collective::AllReduce {
                    base + 2.0 * (ppn_steps * intra_lat + log_nodes * inter_lat)
                } else {
                    base
                }
            }
            Algorithm::CollNetDirect => {
                base + 2.0 * (ppn_steps.min(1.0) * intra_lat + ppn_steps * COLLNET_ARITY_LATENCY_US)
                    + inter_lat
            }
            Algorithm::CollNetChain => base + 2.0 * ppn_steps * intra_lat + inter_lat,
            Algorithm::Nvls => {
                if self.nodes > 1 {
                    intra_lat + inter_lat
                } else {
                    intra_lat
                }
            }
            Algorithm::NvlsTree => base + intra_lat + 2.0 * log_nodes * inter_lat,
            Algorithm::Pat => {
                base + log_nodes * (inter_lat / PAT_LOG_LATENCY_DIVISOR)
                    + f64::from(self.ranks) * PAT_RANK_LATENCY_US
            }
            // One step on Ring's rows (see `Algorithm::index`): the network's when there is
            // one, since every peer's send is in flight at once.
            Algorithm::P2p => {
                let hw = if self.nodes > 1 {
                    HW_NET
                } else {
                    self.intra_hw
                };
                base + HW_LATENCY_US[hw][RING][pi]
            }
        }
    }

    /// `ncclTopoGetAlgoTime` for one operation (tuning.cc:586-603): the size corrections,
    /// then latency + bytes / (1000 × bandwidth).
    fn time(&self, op: Collective, a: Algorithm, p: Protocol, bytes: u64) -> (f64, f64, Limit) {
        if a == Algorithm::P2p {
            return self.alltoall_time(bytes);
        }
        let mut bw = self.bandwidth(op, a, p);
        let mut lat = self.latency(op, a, p);
        let log_size = log2i(bytes >> 6);
        let corrected = (a == Algorithm::Tree && op == Collective::AllReduce && log_size < 23)
            || (a == Algorithm::NvlsTree
                && op == Collective::AllReduce
                && log_size < 24
                && self.cc >= 100);
        if corrected && log_size >= 0 {
            bw = bw.scale(TREE_CORRECTION[p.index()][log_size as usize]);
        }
        if a == Algorithm::Ring {
            lat *= self.ring_plateau(op, p, bytes);
        }
        let transfer = bytes as f64 / (1000.0 * bw.gbs);
        (lat + transfer, lat, bw)
    }
}

/// Ring steps of one collective, split by the link each crosses.
struct RingSteps {
    intra_steps: u32,
    intra_step_us: f64,
    inter_steps: u32,
    inter_step_us: f64,
}

impl Setup {
    /// AllReduce, AllGather and ReduceScatter rings: of the collective's steps, those that
    /// cross the network (once per node boundary, twice over for AllReduce) and the rest,
    /// inside nodes, each at least the network overhead (tuning.cc:371-385).
    fn ring_steps(&self, op: Collective, p: Protocol, intra_lat: f64, inter_lat: f64) -> RingSteps {
        let mut overhead = self.net_overhead_us;
        if p == Protocol::Simple {
            overhead *= NET_OVERHEAD_SIMPLE_FACTOR;
        }
        let steps = op.ring_steps(self.ranks);
        let inter_steps = if self.nodes == 1 {
            0
        } else if op == Collective::AllReduce {
            2 * (self.nodes - 1)
        } else {
            self.nodes - 1
        };
        RingSteps {
            intra_steps: steps - inter_steps,
            intra_step_us: intra_lat.max(overhead),
            inter_steps,
            inter_step_us: inter_lat,
        }
    }

    /// NCCL's latency factor for a multi-node Simple AllReduce ring once each rank's chunk
    /// per channel reaches 64 bytes (tuning.cc:597-600); 1 otherwise.
    fn ring_plateau(&self, op: Collective, p: Protocol, bytes: u64) -> f64 {
        let per_rank = bytes / (u64::from(self.channels) * u64::from(self.ranks));
        if p == Protocol::Simple && self.nodes > 1 && op == Collective::AllReduce && per_rank >= 64
        {
            if self.cc < 80 {
                RING_PLATEAU_OLDER
            } else {
                RING_PLATEAU_SM80
            }
        } else {
            1.0
        }
    }

    /// AlltoAll as sends and receives, which NCCL's tuner does not time: each rank sends
    /// `S/n` to each of the other n − 1. Its G − 1 node-mates get theirs over NVLink (or
    /// PCIe); the n − G others get theirs over the network, which carries G such ranks per
    /// node. The slower of the two sets the time, plus one step's latency (see
    /// [`Setup::latency`]). The model's own assumptions, not NCCL's.
    fn alltoall_time(&self, bytes: u64) -> (f64, f64, Limit) {
        let n = f64::from(self.ranks);
        let g = f64::from(self.gpus_per_node);
        let share = bytes as f64 / n;
        let intra_bytes = share * (g - 1.0);
        let net_bytes = share * (n - g) * g;
        let intra_us = intra_bytes / (1000.0 * self.intra.gbs);
        let net_us = if self.nodes > 1 {
            net_bytes / (1000.0 * self.net.gbs)
        } else {
            0.0
        };
        // The limit's rate is the algorithm bandwidth S / transfer time it implies.
        let (transfer_us, by) = if net_us > intra_us {
            (net_us, self.net.by)
        } else {
            (intra_us, self.intra.by)
        };
        let hw = if self.nodes > 1 {
            HW_NET
        } else {
            self.intra_hw
        };
        let lat = BASE_LATENCY_US[RING][SIMPLE] + HW_LATENCY_US[hw][RING][SIMPLE];
        let gbs = if transfer_us > 0.0 {
            bytes as f64 / (1000.0 * transfer_us)
        } else {
            f64::INFINITY
        };
        (lat + transfer_us, lat, Limit { gbs, by })
    }
}

/// Estimates every algorithm/protocol pair NCCL offers for the request and picks the
/// fastest enabled one, as NCCL's tuner does (minimum of `ncclTopoGetAlgoTime`).
///
/// Simplifications of NCCL's topology search, each a choice of this model:
/// - **Graphs from link rates.** NCCL searches channel graphs over the PCIe/NVLink tree
///   (search.cc). Here one GPU's bus bandwidth over all channels is the minimum of its
///   NVLink (or PCIe) rate, when the node has more than one GPU, and across nodes the
///   node's network: NICs × rate, or the PCIe links feeding them when fewer. A ring crosses
///   each node once per channel, so the node's NICs together carry the ring. Trees on two
///   nodes get twice the network (search.cc:1205-1207), which is why their busbw can pass
///   the NIC rate. Speeds are continuous, not NCCL's discrete speed arrays.
/// - **Channels.** Unless the request sets them: the graph total divided by the first entry
///   of NCCL's speed array for the GPU generation (search.cc:976-987), rounded up, then
///   doubled as `ncclTopoDupChannels` does (search.cc:964-967), at most 32 (init.cc:1061).
///   Channel count matters only through the per-channel caps (`perChMax*Bws`) and the Ring
///   plateau test. NVLS uses one channel per GPU.
/// - **GDR off, sockets.** NCCL reroutes GPU-NIC traffic through the CPU (paths.cc:750-760),
///   which in the tuner only turns LL128 off by default (tuning.cc:482-487); the PCIe cap
///   above applies either way. Sockets deliver [`SOCKET_LINE_FRACTION`] of line rate, from
///   the measurement cited there; NCCL's tuner itself does not know this (it reads the link
///   speed), so this is where the model departs from NCCL on purpose.
/// - **Homogeneous, x86, balanced trees.** Same GPUs everywhere (`minCompCap == maxCompCap`),
///   an x86 host, Intel or AMD; no Power CPU tweak (tuning.cc:260); Tree keeps NCCL's
///   balanced pattern, so the 0.85 of a plain tree pattern (tuning.cc:309) is not applied.
///   NCCL net plugin latency is 0, as IB and sockets report.
/// - **CollNet (SHARP).** Offered with [`super::Cluster::sharp`] across nodes, AllReduce
///   only; CollNet graphs carry up to twice the network inside the node, like two-node
///   trees; Direct has one head per GPU up to 8.
/// - **AlltoAll** is NCCL's grouped send/receive, which the tuner does not time: one
///   [`Algorithm::P2p`] Simple estimate from the model's own rule (see `alltoall_time`).
/// - **Not modelled:** CollNet AllGather/ReduceScatter; PXN's rerouting of AlltoAll
///   traffic through NVLink; tuner plugins; `numPipeOps` > 1.
pub fn estimate(req: &CollectiveRequest) -> Result<CollectiveReport, CollectiveError> {
    req.validate()?;
    let s = Setup::new(&req.cluster);
    let bytes = req.bytes as u64;
    let mut estimates = Vec::new();
    for a in Algorithm::ALL {
        for p in Protocol::ALL {
            if !s.offers(req.op, a, p) {
                continue;
            }
            let (time_us, latency_us, bw) = s.time(req.op, a, p, bytes);
            let algo_ok = req.algorithms.as_ref().is_none_or(|l| l.contains(&a));
            let proto_ok = match &req.protocols {
                Some(l) => l.contains(&p),
                None => p != Protocol::Ll128 || s.ll128_default,
            };
            let algbw_gbs = req.bytes / (time_us * 1000.0);
            estimates.push(Estimate {
                algorithm: a,
                protocol: p,
                enabled: algo_ok && proto_ok,
                time_us,
                latency_us,
                algbw_gbs,
                busbw_gbs: algbw_gbs * req.op.bus_factor(s.ranks),
                bottleneck: bw.by,
                latency_bound: latency_us > time_us - latency_us,
            });
        }
    }
    let chosen = estimates
        .iter()
        .filter(|e| e.enabled)
        .fold(None::<&Estimate>, |best, e| match best {
            Some(b) if b.time_us <= e.time_us => Some(b),
            _ => Some(e),
        })
        .map(|e| Choice {
            algorithm: e.algorithm,
            protocol: e.protocol,
        });
    Ok(CollectiveReport {
        nccl_tag: NCCL_TAG,
        op: req.op,
        bytes: req.bytes,
        ranks: s.ranks,
        nodes: s.nodes,
        channels: s.channels,
        channel_source: s.channel_source,
        estimates,
        chosen,
    })
}

/// The terms NCCL's Ring AllReduce time is the sum of, for one protocol: what /flows draws
/// step by step. `(base + intra_steps × intra_step_us + inter_steps × inter_step_us) ×
/// plateau + bytes / (1000 × algbw)` is the Ring row's `time_us` in [`estimate`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RingTerms {
    pub base_us: f64,
    /// Steps between GPUs of one node (NVLink or PCIe), and each one's latency, µs.
    pub intra_steps: u32,
    pub intra_step_us: f64,
    /// Steps that cross the network, and each one's latency, µs.
    pub inter_steps: u32,
    pub inter_step_us: f64,
    /// NCCL's latency factor for large multi-node Simple rings (1 when it does not apply).
    pub plateau: f64,
    /// The bus bandwidth the bytes move at, GB/s: the algorithm bandwidth × 2(n−1)/n.
    pub bus_gbs: f64,
    /// The Ring row of [`estimate`] these terms add up to.
    pub estimate: Estimate,
}

/// [`RingTerms`] of an AllReduce of `bytes` on `cluster` with `protocol`.
pub fn ring_allreduce_terms(
    cluster: &Cluster,
    bytes: u64,
    protocol: Protocol,
) -> Result<RingTerms, CollectiveError> {
    let req = CollectiveRequest {
        op: Collective::AllReduce,
        bytes: bytes as f64,
        cluster: cluster.clone(),
        algorithms: Some(vec![Algorithm::Ring]),
        protocols: Some(vec![protocol]),
    };
    let report = estimate(&req)?;
    let Some(estimate) = report
        .estimates
        .into_iter()
        .find(|e| e.algorithm == Algorithm::Ring && e.protocol == protocol)
    else {
        return Err(CollectiveError::invalid(
            "protocol",
            "NCCL offers no Ring AllReduce with this protocol here",
        ));
    };
    let s = Setup::new(cluster);
    let op = Collective::AllReduce;
    let (intra_lat, inter_lat) = s.hw_latencies(Algorithm::Ring, protocol);
    let steps = s.ring_steps(op, protocol, intra_lat, inter_lat);
    let bw = s.bandwidth(op, Algorithm::Ring, protocol);
    Ok(RingTerms {
        base_us: BASE_LATENCY_US[Algorithm::Ring.index()][protocol.index()],
        intra_steps: steps.intra_steps,
        intra_step_us: steps.intra_step_us,
        inter_steps: steps.inter_steps,
        inter_step_us: steps.inter_step_us,
        plateau: s.ring_plateau(op, protocol, bytes),
        bus_gbs: bw.gbs * op.bus_factor(s.ranks),
        estimate,
    })
}

/// The sizes of an `all_reduce_perf -b 8 -e 8G -f 2` sweep: 8 B to 8 GiB, doubling.
pub fn sweep_sizes() -> Vec<u64> {
    (3..=33).map(|k| 1u64 << k).collect()
}

/// [`estimate`] at every size of [`sweep_sizes`] (the request's own `bytes` is ignored).
pub fn sweep(req: &CollectiveRequest) -> Result<Vec<CollectiveReport>, CollectiveError> {
    sweep_sizes()
        .into_iter()
        .map(|b| {
            let mut r = req.clone();
            r.bytes = b as f64;
            estimate(&r)
        })
        .collect()
}
