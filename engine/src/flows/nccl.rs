//! NCCL hierarchical AllReduce on N nodes × G GPUs, rail-aligned, with the ring cost model.
//!
//! Phases (per GPU, buffer of S bytes):
//! 1. NVLink reduce-scatter among the G GPUs of a node: ring of k = G ranks,
//!    `t = (k−1)·α_nvl + (k−1)/k · S / B_nvl`; each GPU ends with a reduced S/G shard.
//! 2. Inter-node all-reduce of that shard among the N GPUs of the same rail (one per node,
//!    same local index, behind the same rail switch): ring of k = N,
//!    `t = 2(k−1)·α_net + 2(k−1)/k · (S/G) / B_net`.
//! 3. NVLink all-gather among the G GPUs: as phase 1.
//!
//! α is a per-step latency and B a per-rank bandwidth. algbw = S/t and busbw =
//! algbw · 2(n−1)/n with n = N·G (NVIDIA/nccl-tests, doc/PERFORMANCE.md). The model ignores
//! NCCL's pipelining of the phases, its protocol choices (LL, LL128, Simple) and tree
//! algorithms; it shows where time goes, not what a given cluster measures.

use super::costs::*;
use super::link::{switch_latency_ns, Link, LinkId};
use super::model::{Category, CollectivePhase, CollectiveSummary, StepKind, TimePart, Timing};
use super::params::ScenarioParams;
use super::stage::{rdma_framing, Cost, Flow, StepSpec, Who};
use super::FlowError;
use crate::wire::segment::packet_cost;

/// One ring phase's cost.
struct Ring {
    link: LinkId,
    ranks: u32,
    steps: u32,
    factor: f64,
    bytes: u64,
    gbps: f64,
    /// Per-step latency, split by category.
    per_step: Vec<TimePart>,
}

impl Ring {
    fn per_step_ns(&self) -> f64 {
        self.per_step.iter().map(|p| p.ns).sum()
    }
    fn bandwidth_ns(&self) -> f64 {
        self.factor * self.bytes as f64 * 8.0 / self.gbps
    }
    fn time_ns(&self) -> f64 {
        f64::from(self.steps) * self.per_step_ns() + self.bandwidth_ns()
    }
    fn cost(&self, bandwidth_category: Category) -> Cost {
        let mut parts: Vec<TimePart> = self
            .per_step
            .iter()
            .map(|p| TimePart {
                category: p.category,
                ns: p.ns * f64::from(self.steps),
            })
            .collect();
        parts.push(TimePart {
            category: bandwidth_category,
            ns: self.bandwidth_ns(),
        });
        Cost {
            link: Some(self.link),
            timing: Timing::Ring {
                link: self.link,
                ranks: self.ranks,
                steps: self.steps,
                per_step_latency_ns: self.per_step_ns(),
                factor: self.factor,
                bytes: self.bytes,
                gbps: self.gbps,
            },
            parts,
        }
    }
}

fn tp(category: Category, ns: f64) -> TimePart {
    TimePart { category, ns }
}

fn nvlink_ring(nvl: &Link, g: u32, bytes: u64) -> Ring {
    Ring {
        link: nvl.id,
        ranks: g,
        steps: g - 1,
        factor: f64::from(g - 1) / f64::from(g),
        bytes,
        gbps: nvl.gbps,
        per_step: vec![
            tp(Category::Nvlink, nvl.latency_ns),
            tp(Category::Waiting, NCCL_STEP_NS),
        ],
    }
}

/// Per-GPU inter-node bandwidth with RDMA: the rail NIC's payload rate (after per-packet
/// headers at the path MTU) shared by the GPUs behind it, capped by the GPU's PCIe link.
pub fn rdma_rank_gbps(p: &ScenarioParams) -> f64 {
    let net = p.network.link();
    let cost = packet_cost(rdma_framing(&net), 0, p.mtu);
    let efficiency = f64::from(cost.payload) / f64::from(cost.wire);
    let share = f64::from(p.nics_per_node) / f64::from(p.gpus_per_node);
    (net.gbps * efficiency * share).min(p.pcie.link().gbps)
}

/// Per-GPU inter-node bandwidth over TCP: the NIC's TCP payload rate shared by the GPUs
/// behind it, capped by PCIe and by one core's socket copy rate ([`MEMCPY_GBPS`]).
pub fn tcp_rank_gbps(p: &ScenarioParams) -> f64 {
    let net = p.tcp.link();
    let (_, wire) = super::stage::tcp_wire(1 << 20, p.ip_mtu);
    let efficiency = (1u64 << 20) as f64 / wire as f64;
    let share = f64::from(p.nics_per_node) / f64::from(p.gpus_per_node);
    (net.gbps * efficiency * share)
        .min(p.pcie.link().gbps)
        .min(MEMCPY_GBPS)
}

/// `nccl-allreduce` (`tcp` false) or `nccl-allreduce-tcp`.
pub(crate) fn allreduce(p: &ScenarioParams, tcp: bool) -> Result<Flow, FlowError> {
    let s = p.message_bytes;
    let g = p.gpus_per_node;
    let n_nodes = p.nodes;
    let ranks = n_nodes * g;
    let nvl = p.nvlink.link();
    let pcie = p.pcie.link();
    let net = if tcp { p.tcp.link() } else { p.network.link() };
    let mut f = if tcp {
        Flow::new(
            "nccl-allreduce-tcp",
            "NCCL AllReduce, nodes joined by TCP only",
            "The same hierarchical AllReduce where the inter-node phase runs over NCCL's socket \
             transport: staging through host memory, socket copies, syscalls and interrupts \
             on every ring step.",
        )
    } else {
        Flow::new(
            "nccl-allreduce",
            "NCCL hierarchical AllReduce, rail-aligned",
            "NVLink reduce-scatter inside each node, an all-reduce per rail between nodes with \
             GPUDirect RDMA, and an NVLink all-gather.",
        )
    };
    let mut phases = Vec::new();
    let shard = s.div_ceil(u64::from(g));
    if g > 1 {
        let r = nvlink_ring(&nvl, g, s);
        phases.push(CollectivePhase {
            name: "NVLink reduce-scatter".to_string(),
            link: nvl.id,
            ranks: g,
            bytes: s,
            time_ns: r.time_ns(),
        });
        f.then(
            StepSpec::new(
                Who::Gpu,
                Who::Gpu,
                StepKind::NvlinkTransfer,
                format!("Phase 1: NVLink reduce-scatter among {g} GPUs"),
                r.cost(Category::Nvlink),
                "/nccl",
                format!(
                    "Each GPU sends (k−1)/k of its buffer around a ring of {g} through \
                     NVSwitch, adding as it goes; each ends with one fully reduced 1/{g} \
                     shard of the node's sum."
                ),
            )
            .via(&[Who::NvSwitch])
            .bytes(s),
        );
    }
    let cable = net.latency_ns;
    let switch = switch_latency_ns(net.kind);
    let (gbps, per_step, copies, syscalls, interrupts) = if tcp {
        let k = TCP_TX_STACK_NS + TCP_RX_STACK_NS + 2.0 * SYSCALL_NS + INTERRUPT_NS + WAKEUP_NS;
        (
            tcp_rank_gbps(p),
            vec![
                tp(Category::Pcie, 2.0 * pcie.latency_ns),
                tp(Category::Kernel, k),
                tp(Category::Propagation, 2.0 * cable),
                tp(Category::Switch, switch),
                tp(Category::Waiting, NCCL_STEP_NS),
            ],
            4,
            2,
            1,
        )
    } else {
        (
            rdma_rank_gbps(p),
            vec![
                tp(Category::Pcie, 2.0 * pcie.latency_ns),
                tp(Category::NicProcessing, NIC_TX_NS + NIC_RX_NS),
                tp(Category::Propagation, 2.0 * cable),
                tp(Category::Switch, switch),
                tp(Category::Waiting, NCCL_STEP_NS),
            ],
            0,
            0,
            0,
        )
    };
    let steps = 2 * (n_nodes - 1);
    let r = Ring {
        link: net.id,
        ranks: n_nodes,
        steps,
        factor: f64::from(steps) / f64::from(n_nodes),
        bytes: shard,
        gbps,
        per_step,
    };
    f.figure("inter-node bandwidth per GPU", gbps / 8.0, "GB/s");
    phases.push(CollectivePhase {
        name: "inter-node all-reduce per rail".to_string(),
        link: net.id,
        ranks: n_nodes,
        bytes: shard,
        time_ns: r.time_ns(),
    });
    let text = if tcp {
        format!(
            "Per ring step each GPU's chunk is copied to host memory, sent with a syscall and \
             copied into the socket, received with an interrupt, a syscall and a copy, and \
             copied to the GPU: 4 copies, 2 syscalls and 1 interrupt per step, {steps} steps. \
             The per-GPU rate is capped by the shared NIC and by one core's copy speed."
        )
    } else {
        format!(
            "The GPUs with the same local index form a rail: each has its own NIC on the same \
             rail switch, so their ring crosses one switch. GPUDirect RDMA moves the shard \
             with no host copy and no syscall: {steps} steps of 2(k−1)/k · S/G."
        )
    };
    f.then(
        StepSpec::new(
            Who::Gpu,
            Who::Cluster,
            StepKind::Packet,
            format!("Phase 2: all-reduce of the 1/{g} shard across {n_nodes} nodes"),
            r.cost(Category::WireSerialization),
            "/nccl",
            text,
        )
        .via(&[Who::PcieSw, Who::Nic, Who::Leaf])
        .bytes(shard)
        .copies(copies * steps)
        .syscalls(syscalls * steps)
        .interrupts(interrupts * steps),
    );
    if g > 1 {
        let r = nvlink_ring(&nvl, g, s);
        phases.push(CollectivePhase {
            name: "NVLink all-gather".to_string(),
            link: nvl.id,
            ranks: g,
            bytes: s,
            time_ns: r.time_ns(),
        });
        f.then(
            StepSpec::new(
                Who::Gpu,
                Who::Gpu,
                StepKind::NvlinkTransfer,
                format!("Phase 3: NVLink all-gather among {g} GPUs"),
                r.cost(Category::Nvlink),
                "/nccl",
                "Each GPU broadcasts its globally reduced shard around the NVLink ring; all \
                 GPUs end with the whole result.",
            )
            .via(&[Who::NvSwitch])
            .bytes(s),
        );
    }
    let time_ns: f64 = phases.iter().map(|ph| ph.time_ns).sum();
    // bytes per ns = GB/s.
    let algbw = s as f64 / time_ns;
    let busbw = algbw * 2.0 * f64::from(ranks - 1) / f64::from(ranks);
    f.figure("algbw", algbw, "GB/s");
    f.figure("busbw", busbw, "GB/s");
    f.collective = Some(CollectiveSummary {
        ranks,
        bytes: s,
        phases,
        time_ns,
        algbw_gbytes_per_s: algbw,
        busbw_gbytes_per_s: busbw,
    });
    Ok(f)
}
