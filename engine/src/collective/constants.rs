//! NCCL's tuning constants, copied as numbers (not code) from one tagged release.
//!
//! Every table below is from **NVIDIA/nccl tag `v2.29.3-1`** (commit
//! `25368a7f78bae866f29e46938af94fa586c84484`); each doc comment names the file and lines.
//! Indices follow NCCL's own order so a row can be checked against the source by eye:
//! algorithms Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT
//! (`NCCL_ALGO_*`); protocols LL, LL128, Simple (`NCCL_PROTO_*`); hardware NVLink, PCI, NET
//! (`NCCL_HW_*`); compute-capability rows Volta, Ampere, Hopper, Blackwell; node-count
//! columns 1, 2, >2 nodes (`index2` in `ncclTopoTuneModel`, tuning.cc:250).
//!
//! Latencies are µs, bandwidths GB/s (10⁹ B/s), as NCCL uses them: `ncclTopoGetAlgoTime`
//! computes `time = lat + nBytes / (1000 * bw)` in µs (tuning.cc:602).

/// The NCCL release the constants come from.
pub const NCCL_TAG: &str = "v2.29.3-1";
/// The commit of [`NCCL_TAG`].
pub const NCCL_COMMIT: &str = "25368a7f78bae866f29e46938af94fa586c84484";

/// Index of an algorithm in NCCL's tables (`NCCL_ALGO_*`).
pub(crate) const TREE: usize = 0;
pub(crate) const RING: usize = 1;
pub(crate) const COLLNET_DIRECT: usize = 2;
pub(crate) const COLLNET_CHAIN: usize = 3;
pub(crate) const NVLS: usize = 4;
pub(crate) const NVLS_TREE: usize = 5;
pub(crate) const PAT: usize = 6;
/// Index of a protocol in NCCL's tables (`NCCL_PROTO_*`).
pub(crate) const LL: usize = 0;
pub(crate) const LL128: usize = 1;
pub(crate) const SIMPLE: usize = 2;
/// Index of a hardware class in `hwLatencies` (`NCCL_HW_*`).
pub(crate) const HW_NVLINK: usize = 0;
pub(crate) const HW_PCI: usize = 1;
pub(crate) const HW_NET: usize = 2;

/// `baseLatencies[algorithm][protocol]`, µs: src/graph/tuning.cc:143-148.
pub const BASE_LATENCY_US: [[f64; 3]; 7] = [
    [6.8, 14.0, 8.4], // Tree
    [6.6, 14.0, 8.4], // Ring
    [0.0, 0.0, 0.0],  // CollNetDirect
    [0.0, 0.0, 0.0],  // CollNetChain
    [0.0, 0.0, 0.0],  // NVLS
    [0.0, 0.0, 0.0],  // NVLSTree
    [8.0, 8.0, 8.0],  // PAT
];

/// `hwLatencies[hw][algorithm][protocol]`, µs: src/graph/tuning.cc:149-168
/// (NVLink 150-155, PCI 156-161, NET 162-167).
pub const HW_LATENCY_US: [[[f64; 3]; 7]; 3] = [
    [
        [0.6, 1.25, 4.0],
        [0.6, 1.9, 3.4],
        [0.0, 0.0, 3.7],
        [0.0, 0.0, 2.8],
        [0.0, 0.0, 25.0],
        [0.0, 0.0, 25.0],
        [0.0, 0.0, 4.0],
    ],
    [
        [1.0, 1.9, 4.0],
        [1.0, 2.5, 5.7],
        [0.0, 0.0, 3.7],
        [0.0, 0.0, 2.8],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 4.0],
    ],
    [
        [5.0, 8.5, 14.0],
        [2.7, 4.0, 14.0],
        [0.0, 0.0, 31.0],
        [0.0, 0.0, 30.0],
        [0.0, 0.0, 18.0],
        [0.0, 0.0, 20.9],
        [0.0, 0.0, 14.0],
    ],
];

/// `llMaxBws[index1][index2]`, GB/s: src/graph/tuning.cc:169-174. `index1` is the GPU row
/// on one node and the CPU row (0 Intel, 1 AMD) across nodes (tuning.cc:252-253).
pub const LL_MAX_BW: [[f64; 3]; 4] = [
    [39.0, 39.0, 20.4],
    [87.7, 22.5, 19.0],
    [141.0, 45.0, 35.0],
    [2.0 * 141.0, 2.0 * 45.0, 2.0 * 35.0],
];

/// `perChMaxRingLL128Bws[compCap][index2]`, GB/s per channel: src/graph/tuning.cc:175-180.
pub const PER_CH_MAX_RING_LL128_BW: [[f64; 3]; 4] = [
    [20.0, 20.0, 20.0],
    [20.0, 20.0, 20.0],
    [36.7, 36.7, 36.7],
    [34.5, 34.6, 34.5],
];

/// `perChMaxTreeLL128Bws[compCap][index2]`, GB/s per channel: src/graph/tuning.cc:181-186.
pub const PER_CH_MAX_TREE_LL128_BW: [[f64; 3]; 4] = [
    [20.0, 20.0, 20.0],
    [20.0, 20.0, 20.0],
    [36.7, 36.7, 29.0],
    [55.6, 31.67, 20.0],
];

/// `perChMaxTreeBws[compCap][index2]`, GB/s per channel: src/graph/tuning.cc:187-192.
pub const PER_CH_MAX_TREE_BW: [[f64; 3]; 4] = [
    [26.5, 18.5, 10.0],
    [24.0, 23.6, 17.8],
    [38.7, 41.4, 36.0],
    [70.0, 42.8, 24.0],
];

/// `perChMaxNVLSTreeBws[compCap][index2]`, GB/s per channel: src/graph/tuning.cc:193-198.
pub const PER_CH_MAX_NVLS_TREE_BW: [[f64; 3]; 4] = [
    [26.5, 18.5, 10.0],
    [24.0, 23.6, 17.8],
    [0.0, 57.7, 45.5],
    [0.0, 96.0, 43.8],
];

/// `nvlsEfficiency[compCap]`: src/graph/tuning.cc:133-139 (0 before Hopper: no NVLS).
pub const NVLS_EFFICIENCY: [f64; 4] = [0.0, 0.0, 0.85, 0.74];

/// Ring/LL keeps half the bus bandwidth (8 data bytes per 16-byte line):
/// `busBw * .5`, src/graph/tuning.cc:304.
pub const RING_LL_FACTOR: f64 = 0.5;
/// Ring/LL128 keeps 120 of 128 bytes, written `0.92` in src/graph/tuning.cc:305.
pub const RING_LL128_FACTOR: f64 = 0.92;
/// Tree AllReduce efficiency: `busBw*.92`, src/graph/tuning.cc:306.
pub const TREE_ALLREDUCE_FACTOR: f64 = 0.92;
/// Tree/LL: `busBw*1.0/3.8`, src/graph/tuning.cc:307.
pub const TREE_LL_FACTOR: f64 = 1.0 / 3.8;
/// Tree/LL128 on one node: `7.0/9.0`, src/graph/tuning.cc:308.
pub const TREE_LL128_FACTOR_ONE_NODE: f64 = 7.0 / 9.0;
/// Tree/LL128 across nodes: `120.0/128.0`, src/graph/tuning.cc:308.
pub const TREE_LL128_FACTOR_NODES: f64 = 120.0 / 128.0;
/// PAT: `busBw *= .75`, src/graph/tuning.cc:310.
pub const PAT_FACTOR: f64 = 0.75;
/// Tree and CollNet algorithm bandwidth is half the bus bandwidth: `ratio *= .5`,
/// src/graph/tuning.cc:349.
pub const TREE_RATIO: f64 = 0.5;

/// CollNet Direct on Hopper and later: `busBw *= .85`, src/graph/tuning.cc:321.
pub const COLLNET_DIRECT_SM90_FACTOR: f64 = 0.85;
/// CollNet Direct's "arity serialization latency" per extra local rank, µs:
/// `(nRanks/nNodes-1) * 0.4`, src/graph/tuning.cc:388.
pub const COLLNET_ARITY_LATENCY_US: f64 = 0.4;
/// CollNet Direct uses at most `NCCL_MAX_DIRECT_ARITY + 1` heads (channels):
/// src/graph/search.cc:1065, `NCCL_MAX_DIRECT_ARITY 7` in src/include/device.h:194.
pub const MAX_DIRECT_HEADS: u32 = 7 + 1;
/// PAT's latency: `log2i(nNodes) * (interLat/3.5) + nRanks * 2.8`, src/graph/tuning.cc:398-399.
pub const PAT_LOG_LATENCY_DIVISOR: f64 = 3.5;
/// See [`PAT_LOG_LATENCY_DIVISOR`]; µs per rank.
pub const PAT_RANK_LATENCY_US: f64 = 2.8;

/// Network post overhead per ring step, µs, Intel x86 (and the default): src/graph/tuning.cc:216,218.
pub const NET_OVERHEAD_INTEL_US: f64 = 1.0;
/// Network post overhead per ring step, µs, AMD x86: src/graph/tuning.cc:217.
pub const NET_OVERHEAD_AMD_US: f64 = 2.0;
/// Simple pays three posts per step: `netOverhead *= 3`, src/graph/tuning.cc:375.
pub const NET_OVERHEAD_SIMPLE_FACTOR: f64 = 3.0;

/// Ring/Simple AllReduce "plateau" latency multiplier across nodes, compute capability
/// ≥ 8.0 and below: `1.4 : 1.9`, src/graph/tuning.cc:596-599.
pub const RING_PLATEAU_SM80: f64 = 1.4;
/// See [`RING_PLATEAU_SM80`].
pub const RING_PLATEAU_OLDER: f64 = 1.9;

/// `treeCorrectionFactor[protocol][log2(nBytes/64)]`, src/graph/tuning.cc:580-584; NCCL
/// applies entries 0..22 (tuning.cc:594).
pub const TREE_CORRECTION: [[f64; 24]; 3] = [
    [
        1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8,
        0.9, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9,
        0.9, 0.9, 0.9, 1.0, 1.0, 1.0,
    ],
    [
        0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8,
        0.7, 0.7, 0.8, 0.9, 0.9, 0.9,
    ],
];

/// The first (largest) per-channel speed NCCL's graph search tries, GB/s, for one node
/// (`speedArrayIntra`) and across nodes (`speedArrayInter`), by compute-capability row:
/// src/graph/search.cc:976-977 (before Hopper), 981-982 (Hopper), 986-987 (Blackwell).
/// Volta and Ampere share the first row.
pub const FIRST_SPEED_INTRA: [f64; 4] = [40.0, 40.0, 60.0, 90.0];
/// See [`FIRST_SPEED_INTRA`].
pub const FIRST_SPEED_INTER: [f64; 4] = [48.0, 48.0, 48.0, 96.0];
/// `ncclTopoDupChannels` doubles the channels only when a channel carries at least 25 GB/s,
/// and on compute capability > 8.0 not when it carries under 50 GB/s with more than 4
/// channels: src/graph/search.cc:964-965.
pub const DUP_MIN_BW: f64 = 25.0;
/// See [`DUP_MIN_BW`].
pub const DUP_SM90_BW: f64 = 50.0;
/// Ring graphs search at most `MAXCHANNELS/2` channels: src/init.cc:1061 and
/// `MAXCHANNELS 64` in src/include/device.h:86.
pub const MAX_RING_CHANNELS: u32 = 32;
/// NVLS uses one channel per GPU head, at most `NCCL_MAX_NVLS_ARITY`:
/// src/graph/search.cc:1064, src/include/device.h:208.
pub const MAX_NVLS_ARITY: u32 = 32;

/// NCCL's NVLink bandwidth per link, GB/s, by compute capability: src/graph/topo.h:18-22
/// (`SM70_NVLINK_BW` 20.0, `SM80_NVLINK_BW` 20.0, `SM90_NVLINK_BW` 20.6,
/// `SM100_NVLINK_BW` 40.1). For filling in [`super::Cluster::intra_gbs`] from a link count.
pub const NVLINK_BW_PER_LINK: [f64; 4] = [20.0, 20.0, 20.6, 40.1];
/// NCCL's PCIe Gen3 x16 bandwidth, GB/s: `PCI_BW 12.0`, src/graph/topo.h:23.
pub const PCI_GEN3_X16_BW: f64 = 12.0;
/// NCCL's x16 PCIe link bandwidth, GB/s, for Gen3, Gen4, Gen5, Gen6: `width*speed/80.0`
/// (src/graph/topo.cc:500-502) with speed 60, 120, 240, 480 for 8, 16, 32, 64 GT/s
/// (src/graph/topo.cc:435-436). For filling in [`super::Cluster::pcie_gbs`].
pub const PCI_X16_BW_BY_GEN: [f64; 4] = [
    16.0 * 60.0 / 80.0,
    16.0 * 120.0 / 80.0,
    16.0 * 240.0 / 80.0,
    16.0 * 480.0 / 80.0,
];

/// NCCL's socket transport, measured: NVIDIA/nccl issue #450 ("Optimize NCCL AllReduce
/// performance in 100Gbps TCP network", 2021-01-05): 4 nodes × 8 V100 on 100 Gb/s TCP,
/// `all_reduce_perf` from 8 MB to 128 MB, best bus bandwidth "between 4~6GB/s" after tuning
/// the socket threads and channels. We take the top of that range.
pub const SOCKET_MEASURED_BUSBW_GBS: f64 = 6.0;
/// The line rate of the measurement in [`SOCKET_MEASURED_BUSBW_GBS`], Gb/s.
pub const SOCKET_MEASURED_LINE_GBPS: f64 = 100.0;
/// The fraction of line rate the socket transport delivered in that measurement
/// (6 GB/s of 12.5 GB/s = 0.48). Scaling it to other line rates is our assumption: no
/// published run at 10 or 25 Gb/s was read.
pub const SOCKET_LINE_FRACTION: f64 = SOCKET_MEASURED_BUSBW_GBS / (SOCKET_MEASURED_LINE_GBPS / 8.0);

/// Host staging without GPUDirect RDMA — the lab's model, not NCCL's (NCCL's tuner times the
/// same path as with GPUDirect RDMA). NCCL's net transport then puts its send and receive
/// buffers in pinned host memory instead of GPU memory (`useGdr ? 1 : 0` picks the bank,
/// src/transport/net.cc:884 and :1051 at v2.29.3-1; the host bank comes from
/// `ncclCudaHostCalloc`, net.cc:920 and :1084), so each network byte is written into host
/// memory and read out of it on the sender (GPU kernel, then NIC) and again on the receiver
/// (NIC, then GPU kernel). A node sends and receives at the same rate at once, so host
/// memory carries this many times the node's network rate per direction.
pub const STAGING_HOST_MEMORY_PASSES: f64 = 4.0;

/// One DDR channel's peak, GB/s: transfers per second × 8 bytes (a 64-bit channel; JEDEC
/// JESD79-4 for DDR4, JESD79-5 for DDR5, two 32-bit subchannels).
pub const fn ddr_channel_gbs(mega_transfers: u32) -> f64 {
    mega_transfers as f64 * 8.0 / 1000.0
}
