//! What the model is asked: a collective, its size and a plain description of the machines.

use super::error::CollectiveError;
use serde::{Deserialize, Serialize};

/// The collective operations, as nccl-tests names them (`all_reduce_perf`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    /// Every rank sends `S / n` to every rank (`alltoall_perf`). NCCL has no collective
    /// kernel for it: it is a group of sends and receives (see [`Algorithm::P2p`]).
    #[serde(rename = "alltoall")]
    AlltoAll,
}

impl Collective {
    /// Every modelled collective.
    pub const ALL: [Collective; 6] = [
        Collective::AllReduce,
        Collective::AllGather,
        Collective::ReduceScatter,
        Collective::Broadcast,
        Collective::Reduce,
        Collective::AlltoAll,
    ];

    /// The short name the CLI takes (`allreduce`), nccl-tests' binary name without `_perf`
    /// and underscores.
    pub fn id(self) -> &'static str {
        match self {
            Collective::AllReduce => "allreduce",
            Collective::AllGather => "allgather",
            Collective::ReduceScatter => "reducescatter",
            Collective::Broadcast => "broadcast",
            Collective::Reduce => "reduce",
            Collective::AlltoAll => "alltoall",
        }
    }

    pub fn from_id(id: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.id() == id)
    }

    /// nccl-tests' bus-bandwidth factor, `busbw = algbw × factor`: 2(n−1)/n for AllReduce,
    /// (n−1)/n for AllGather, ReduceScatter and AlltoAll, 1 for Broadcast and Reduce
    /// (NVIDIA/nccl-tests doc/PERFORMANCE.md:136-143 at a0b82b2; the same factors in
    /// src/all_reduce.cu:63, all_gather.cu:42, reduce_scatter.cu:41, broadcast.cu:38,
    /// reduce.cu:39, alltoall.cu).
    pub fn bus_factor(self, ranks: u32) -> f64 {
        let n = f64::from(ranks.max(1));
        match self {
            Collective::AllReduce => 2.0 * (n - 1.0) / n,
            Collective::AllGather | Collective::ReduceScatter | Collective::AlltoAll => {
                (n - 1.0) / n
            }
            Collective::Broadcast | Collective::Reduce => 1.0,
        }
    }

    /// Ring steps NCCL counts for this collective (`nsteps`, src/graph/tuning.cc:268-270;
    /// AlltoAll, which runs no ring, counts its n − 1 peers).
    pub fn ring_steps(self, ranks: u32) -> u32 {
        match self {
            Collective::AllReduce => 2 * (ranks - 1),
            Collective::AllGather | Collective::ReduceScatter | Collective::AlltoAll => ranks - 1,
            Collective::Broadcast | Collective::Reduce => ranks,
        }
    }
}

/// NCCL's algorithms. CollNet (Direct, Chain) and multi-node NVLS need in-network
/// reduction (SHARP) through NCCL's CollNet plugin (src/graph/tuning.cc:468-471).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    Tree,
    Ring,
    #[serde(rename = "collnet_direct")]
    CollNetDirect,
    #[serde(rename = "collnet_chain")]
    CollNetChain,
    Nvls,
    NvlsTree,
    Pat,
    /// Not an `NCCL_ALGO`: grouped sends and receives on NCCL's peer-to-peer channels, which
    /// is how AlltoAll runs (nccl-tests src/alltoall.cu: `ncclSend`/`ncclRecv` to every
    /// peer inside `ncclGroupStart`/`End`). NCCL's tuner does not time these.
    P2p,
}

impl Algorithm {
    /// In NCCL's order (`NCCL_ALGO_*`), which is also the order ties are broken in, then
    /// [`Algorithm::P2p`].
    pub const ALL: [Algorithm; 8] = [
        Algorithm::Tree,
        Algorithm::Ring,
        Algorithm::CollNetDirect,
        Algorithm::CollNetChain,
        Algorithm::Nvls,
        Algorithm::NvlsTree,
        Algorithm::Pat,
        Algorithm::P2p,
    ];

    /// The short name the CLI takes (`nvls-tree`), as `NCCL_ALGO` spells it in lower case.
    pub fn id(self) -> &'static str {
        match self {
            Algorithm::Tree => "tree",
            Algorithm::Ring => "ring",
            Algorithm::CollNetDirect => "collnet-direct",
            Algorithm::CollNetChain => "collnet-chain",
            Algorithm::Nvls => "nvls",
            Algorithm::NvlsTree => "nvls-tree",
            Algorithm::Pat => "pat",
            Algorithm::P2p => "p2p",
        }
    }

    pub fn from_id(id: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.id() == id)
    }

    /// The row of NCCL's tables; [`Algorithm::P2p`] has none and reads Ring's, the rows of
    /// the one-peer-at-a-time pattern it is nearest to.
    pub(crate) fn index(self) -> usize {
        use super::constants::{COLLNET_CHAIN, COLLNET_DIRECT, NVLS, NVLS_TREE, PAT, RING, TREE};
        match self {
            Algorithm::Tree => TREE,
            Algorithm::Ring => RING,
            Algorithm::CollNetDirect => COLLNET_DIRECT,
            Algorithm::CollNetChain => COLLNET_CHAIN,
            Algorithm::Nvls => NVLS,
            Algorithm::NvlsTree => NVLS_TREE,
            Algorithm::Pat => PAT,
            Algorithm::P2p => RING,
        }
    }
}

/// NCCL's protocols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Protocol {
    Ll,
    Ll128,
    Simple,
}

impl Protocol {
    /// In NCCL's order (`NCCL_PROTO_*`).
    pub const ALL: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

    /// The short name the CLI takes (`ll128`).
    pub fn id(self) -> &'static str {
        match self {
            Protocol::Ll => "ll",
            Protocol::Ll128 => "ll128",
            Protocol::Simple => "simple",
        }
    }

    pub fn from_id(id: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.id() == id)
    }

    pub(crate) fn index(self) -> usize {
        use super::constants::{LL, LL128, SIMPLE};
        match self {
            Protocol::Ll => LL,
            Protocol::Ll128 => LL128,
            Protocol::Simple => SIMPLE,
        }
    }
}

/// How the GPUs of one node reach each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraLink {
    #[serde(rename = "nvlink")]
    NvLink,
    Pcie,
}

/// NCCL's network transport between nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// `NET/IB`: InfiniBand or RoCE through verbs.
    Verbs,
    /// `NET/Socket`: TCP, every byte staged in host memory.
    Socket,
}

/// The host CPU, which NCCL's tuning reads for the network overhead and LL caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuVendor {
    #[default]
    Intel,
    Amd,
}

/// The machines, reduced to what NCCL's cost model reads. Homogeneous: every node has the
/// same GPUs, NICs and links.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// Nodes (hosts). ≥ 1.
    pub nodes: u32,
    /// GPUs (ranks) per node. ≥ 1; `nodes × gpus_per_node` ≥ 2.
    pub gpus_per_node: u32,
    /// CUDA compute capability ×10 (70 V100, 80 A100, 89 RTX 4090, 90 H100/H200,
    /// 100 B200): selects NCCL's Volta/Ampere/Hopper/Blackwell rows (tuning.cc:249). 60..=129.
    pub compute_capability: u32,
    /// NVLink or PCIe between the GPUs of a node.
    pub intra_link: IntraLink,
    /// One GPU's bandwidth to the other GPUs of its node, GB/s, one direction, as NCCL
    /// counts it (H100: 18 links × 20.6 = 370.8; see [`super::NVLINK_BW_PER_LINK`]).
    pub intra_gbs: f64,
    /// One GPU's PCIe link, GB/s, one direction (NCCL: 12 for Gen3 x16, topo.h:23).
    pub pcie_gbs: f64,
    /// The GPUs of a node share an NVSwitch with multicast (NVLS needs it).
    pub nvswitch: bool,
    /// NICs per node. ≥ 1 when `nodes` > 1.
    pub nics_per_node: u32,
    /// Line rate of one NIC, Gb/s. > 0 when `nodes` > 1.
    pub nic_gbps: f64,
    /// Verbs (IB/RoCE) or TCP sockets.
    pub transport: Transport,
    /// GPUDirect RDMA: the NIC reads and writes GPU memory. Not possible with sockets.
    pub gdr: bool,
    /// The switches reduce in the network (SHARP) and NCCL loads its CollNet plugin
    /// (`NCCL_COLLNET_ENABLE=1`): enables CollNet and multi-node NVLS. Verbs only.
    #[serde(default)]
    pub sharp: bool,
    /// The host CPU.
    #[serde(default)]
    pub cpu_vendor: CpuVendor,
    /// Host memory bandwidth of one node, GB/s, all sockets, reads and writes together. Read
    /// only without GPUDirect RDMA on verbs, where every network byte is staged in host
    /// memory ([`super::constants::STAGING_HOST_MEMORY_PASSES`]); the default is a DGX
    /// H100's ([`DEFAULT_HOST_MEMORY_GBS`]).
    #[serde(default = "default_host_memory_gbs")]
    pub host_memory_gbs: f64,
    /// Ring/Tree channels; `None` chooses them as described in [`super::estimate`]. 1..=64.
    #[serde(default)]
    pub channels: Option<u32>,
}

/// A DGX H100's host memory bandwidth, GB/s: see [`super::GpuModel::host_memory_gbs`].
pub const DEFAULT_HOST_MEMORY_GBS: f64 = 614.4;

fn default_host_memory_gbs() -> f64 {
    DEFAULT_HOST_MEMORY_GBS
}

/// One question: how long does `op` on `bytes` take on `cluster`?
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectiveRequest {
    pub op: Collective,
    /// nccl-tests' size `S`: the AllReduce/Broadcast/Reduce buffer, the gathered output of
    /// AllGather, the input of ReduceScatter (NCCL's `nBytes` too: enqueue.h:36-38). A whole
    /// number ≥ 0, at most 2⁵⁰.
    pub bytes: f64,
    pub cluster: Cluster,
    /// The algorithms the automatic choice may take (like `NCCL_ALGO`); `None`: all.
    #[serde(default)]
    pub algorithms: Option<Vec<Algorithm>>,
    /// The protocols it may take (like `NCCL_PROTO`, which also turns LL128 on where NCCL
    /// leaves it off by default); `None`: NCCL's default.
    #[serde(default)]
    pub protocols: Option<Vec<Protocol>>,
}

/// The largest size accepted, bytes (1 PiB: far past any buffer, well inside f64's exact
/// integers).
pub const MAX_BYTES: f64 = 1_125_899_906_842_624.0;
/// The most nodes accepted.
pub const MAX_NODES: u32 = 1_000_000;
/// The most GPUs per node accepted.
pub const MAX_GPUS_PER_NODE: u32 = 1024;

fn positive(name: &str, v: f64) -> Result<(), CollectiveError> {
    if !v.is_finite() || v <= 0.0 {
        return Err(CollectiveError::invalid(
            name,
            "must be a finite number > 0",
        ));
    }
    Ok(())
}

impl CollectiveRequest {
    /// Refuses input the model cannot answer, naming the field.
    pub fn validate(&self) -> Result<(), CollectiveError> {
        let b = self.bytes;
        if !b.is_finite() || b < 0.0 || b.fract() != 0.0 || b > MAX_BYTES {
            return Err(CollectiveError::invalid(
                "bytes",
                "must be a whole number of bytes from 0 to 2^50",
            ));
        }
        if matches!(&self.algorithms, Some(a) if a.is_empty()) {
            return Err(CollectiveError::invalid("algorithms", "must not be empty"));
        }
        if matches!(&self.protocols, Some(p) if p.is_empty()) {
            return Err(CollectiveError::invalid("protocols", "must not be empty"));
        }
        self.cluster.validate()
    }
}

impl Cluster {
    /// Refuses a cluster the model cannot answer for, naming the field as `cluster.NAME`.
    pub fn validate(&self) -> Result<(), CollectiveError> {
        if self.nodes == 0 || self.nodes > MAX_NODES {
            return Err(CollectiveError::invalid(
                "cluster.nodes",
                format!("must be from 1 to {MAX_NODES}"),
            ));
        }
        if self.gpus_per_node == 0 || self.gpus_per_node > MAX_GPUS_PER_NODE {
            return Err(CollectiveError::invalid(
                "cluster.gpus_per_node",
                format!("must be from 1 to {MAX_GPUS_PER_NODE}"),
            ));
        }
        if self.nodes == 1 && self.gpus_per_node == 1 {
            return Err(CollectiveError::invalid(
                "cluster.gpus_per_node",
                "one GPU on one node has nobody to talk to: a collective needs 2 ranks or more",
            ));
        }
        if !(60..=129).contains(&self.compute_capability) {
            return Err(CollectiveError::invalid(
                "cluster.compute_capability",
                "must be from 60 to 129 (compute capability × 10, e.g. 90 for H100)",
            ));
        }
        positive("cluster.intra_gbs", self.intra_gbs)?;
        positive("cluster.pcie_gbs", self.pcie_gbs)?;
        positive("cluster.host_memory_gbs", self.host_memory_gbs)?;
        if self.nvswitch && self.intra_link != IntraLink::NvLink {
            return Err(CollectiveError::invalid(
                "cluster.nvswitch",
                "an NVSwitch needs intra_link \"nvlink\"",
            ));
        }
        if self.nodes > 1 {
            if self.nics_per_node == 0 {
                return Err(CollectiveError::invalid(
                    "cluster.nics_per_node",
                    "must be ≥ 1 when there is more than one node",
                ));
            }
            positive("cluster.nic_gbps", self.nic_gbps)?;
        } else if !self.nic_gbps.is_finite() || self.nic_gbps < 0.0 {
            return Err(CollectiveError::invalid(
                "cluster.nic_gbps",
                "must be a finite number ≥ 0",
            ));
        }
        if self.gdr && self.transport == Transport::Socket {
            return Err(CollectiveError::invalid(
                "cluster.gdr",
                "the socket transport takes host memory only (ptrSupport = NCCL_PTR_HOST, \
                 src/transport/net_socket.cc:117), so GPUDirect RDMA must be off",
            ));
        }
        if self.sharp && self.transport == Transport::Socket {
            return Err(CollectiveError::invalid(
                "cluster.sharp",
                "in-network reduction (SHARP) needs the verbs transport",
            ));
        }
        if matches!(self.channels, Some(c) if c == 0 || c > 64) {
            return Err(CollectiveError::invalid(
                "cluster.channels",
                "must be from 1 to 64 (MAXCHANNELS, src/include/device.h:86)",
            ));
        }
        Ok(())
    }

    /// Ranks in the communicator: `nodes × gpus_per_node`.
    pub fn ranks(&self) -> u32 {
        self.nodes.saturating_mul(self.gpus_per_node)
    }
}

/// Reads a size as nccl-tests' `-b`/`-e` take it: `8`, `64K`, `8G`, where K, M and G are
/// powers of 1024 (src/common.cu `parsesize`). Beyond nccl-tests, also lower case, T, a
/// `B`/`iB` tail (`8GiB`, `512 KB`); a fractional count (`1.5M`) must come to a whole number
/// of bytes, at most [`MAX_BYTES`].
pub fn parse_size(text: &str) -> Result<u64, CollectiveError> {
    let t = text.trim();
    let bad = |why: &str| CollectiveError::invalid("bytes", format!("{t:?}: {why}"));
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    if number.is_empty() {
        return Err(bad("start with a number, e.g. 8, 64K or 8G"));
    }
    let value: f64 = number
        .parse()
        .map_err(|_| bad("the number is not a decimal number"))?;
    let unit = unit.trim();
    let stem = unit
        .strip_suffix("iB")
        .or_else(|| unit.strip_suffix('B'))
        .or_else(|| unit.strip_suffix('b').filter(|s| !s.is_empty()))
        .unwrap_or(unit);
    let shift = match stem.to_ascii_uppercase().as_str() {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(bad("the unit must be K, M, G or T (powers of 1024), or B")),
    };
    let bytes = value * (1u64 << shift) as f64;
    if bytes.fract() != 0.0 {
        return Err(bad("that is not a whole number of bytes"));
    }
    if bytes > MAX_BYTES {
        return Err(bad("larger than 2^50 bytes"));
    }
    Ok(bytes as u64)
}
