//! NCCL's Ring AllReduce on N nodes × G GPUs, timed by the lab's one collective model
//! ([`crate::collective`], NCCL's own cost model from src/graph/tuning.cc), so this flow and
//! the /nccl calculator show the same time for the same machines.
//!
//! A ring AllReduce of n = N·G ranks takes 2(n−1) steps: n−1 of reduce-scatter, then n−1
//! of all-gather. In each half, N−1 steps cross the network (one per node boundary) and
//! n−N stay inside a node on NVLink. The flow draws the two halves; each carries half of
//! NCCL's latency terms and half of its bandwidth term, `(n−1)/n · S / busbw`. NCCL's
//! protocol for the ring is the fastest of those it enables by default; the pair NCCL would
//! pick over every algorithm is named in the text (often not Ring, see /nccl).

use super::link::LinkId;
use super::model::{Category, CollectivePhase, CollectiveSummary, StepKind, TimePart, Timing};
use super::params::ScenarioParams;
use super::stage::{Cost, Flow, StepSpec, Who};
use super::FlowError;
use crate::collective::{
    estimate, ring_allreduce_terms, Algorithm, Bottleneck, Cluster, Collective, CollectiveRequest,
    CpuVendor, GpuModel, IntraLink, RingTerms, Transport, PCI_X16_BW_BY_GEN,
};

/// Copies, syscalls and interrupts of one network step over NCCL's socket transport: the
/// chunk is copied GPU → host, sent (a syscall and a copy into the socket), received (an
/// interrupt, a syscall and a copy out of it) and copied host → GPU.
const SOCKET_STEP_COPIES: u32 = 4;
const SOCKET_STEP_SYSCALLS: u32 = 2;
const SOCKET_STEP_INTERRUPTS: u32 = 1;

fn param(field: &str, value: impl ToString, reason: &str) -> FlowError {
    FlowError::Param {
        value: value.to_string(),
        error: crate::FieldError::new(field, reason),
    }
}

/// The machines the flow's parameters describe, as the collective model reads them: the
/// NVLink generation names the GPU (NVLink 3 A100, 4 H100, 5 B200).
fn cluster(p: &ScenarioParams, tcp: bool) -> Result<Cluster, FlowError> {
    let gpu = match p.nvlink {
        LinkId::Nvlink3 => GpuModel::A100,
        LinkId::Nvlink4 => GpuModel::H100,
        LinkId::Nvlink5 => GpuModel::B200,
        other => return Err(param("nvlink", other.as_str(), "must be an NVLink link")),
    };
    let pcie_gbs = match p.pcie {
        LinkId::PcieGen4X16 => PCI_X16_BW_BY_GEN[1],
        LinkId::PcieGen5X16 => PCI_X16_BW_BY_GEN[2],
        other => return Err(param("pcie", other.as_str(), "must be a PCIe link")),
    };
    let net = if tcp { p.tcp } else { p.network };
    let cluster = Cluster {
        nodes: p.nodes,
        gpus_per_node: p.gpus_per_node,
        compute_capability: gpu.compute_capability(),
        intra_link: IntraLink::NvLink,
        intra_gbs: gpu.nvlink_gbs(),
        pcie_gbs,
        nvswitch: gpu.nvswitch_multicast(),
        nics_per_node: p.nics_per_node,
        nic_gbps: net.link().gbps,
        transport: if tcp {
            Transport::Socket
        } else {
            Transport::Verbs
        },
        gdr: !tcp,
        sharp: false,
        cpu_vendor: CpuVendor::Intel,
        host_memory_gbs: gpu.host_memory_gbs(),
        channels: None,
    };
    cluster.validate().map_err(|e| {
        // The collective model names its field `cluster.NAME`; the flow's are the same names.
        let crate::collective::CollectiveError::InvalidField(crate::FieldError { field, reason }) =
            e;
        let (name, value) = match field.trim_start_matches("cluster.") {
            "gpus_per_node" => ("gpus_per_node", p.gpus_per_node),
            "nics_per_node" => ("nics_per_node", p.nics_per_node),
            _ => ("nodes", p.nodes),
        };
        param(name, value, &reason)
    })?;
    Ok(cluster)
}

/// The collective model's request for these machines, with `algorithms` allowed.
fn request(cluster: &Cluster, bytes: u64, algorithms: Option<Vec<Algorithm>>) -> CollectiveRequest {
    CollectiveRequest {
        op: Collective::AllReduce,
        bytes: bytes as f64,
        cluster: cluster.clone(),
        algorithms,
        protocols: None,
    }
}

fn tp(category: Category, ns: f64) -> TimePart {
    TimePart { category, ns }
}

/// Where the bandwidth term's time goes, by what limits it.
fn bandwidth_category(b: Bottleneck) -> Category {
    match b {
        Bottleneck::NvLink => Category::Nvlink,
        Bottleneck::Pcie => Category::Pcie,
        Bottleneck::Network => Category::WireSerialization,
        Bottleneck::HostCopy | Bottleneck::HostStaging => Category::Memcpy,
        Bottleneck::ProtocolCap => Category::Waiting,
    }
}

/// The link the bandwidth term is drawn on.
fn bottleneck_link(b: Bottleneck, p: &ScenarioParams, tcp: bool) -> LinkId {
    match b {
        Bottleneck::NvLink => p.nvlink,
        Bottleneck::Pcie | Bottleneck::HostStaging => p.pcie,
        Bottleneck::Network | Bottleneck::HostCopy | Bottleneck::ProtocolCap => {
            if tcp {
                p.tcp
            } else {
                p.network
            }
        }
    }
}

/// One half of the ring (reduce-scatter or all-gather): its share of every term, in ns.
/// `with_base` adds NCCL's base latency (the launch), paid once, to the first half.
fn half(t: &RingTerms, ranks: u32, bytes: u64, link: LinkId, tcp: bool, with_base: bool) -> Cost {
    let us = 1000.0 * t.plateau;
    let intra_ns = f64::from(t.intra_steps / 2) * t.intra_step_us * us;
    let inter_ns = f64::from(t.inter_steps / 2) * t.inter_step_us * us;
    let base_ns = if with_base { t.base_us * us } else { 0.0 };
    let steps = ranks - 1;
    let factor = f64::from(steps) / f64::from(ranks);
    let gbps = t.bus_gbs * 8.0;
    let bandwidth_ns = factor * bytes as f64 * 8.0 / gbps;
    Cost {
        link: Some(link),
        timing: Timing::Ring {
            link,
            ranks,
            steps,
            per_step_latency_ns: (base_ns + intra_ns + inter_ns) / f64::from(steps),
            factor,
            bytes,
            gbps,
        },
        parts: vec![
            tp(Category::HostSoftware, base_ns),
            tp(Category::Nvlink, intra_ns),
            tp(
                if tcp {
                    Category::Kernel
                } else {
                    Category::NicProcessing
                },
                inter_ns,
            ),
            tp(bandwidth_category(t.estimate.bottleneck), bandwidth_ns),
        ],
    }
}

/// `nccl-allreduce` (`tcp` false) or `nccl-allreduce-tcp`.
pub(crate) fn allreduce(p: &ScenarioParams, tcp: bool) -> Result<Flow, FlowError> {
    let s = p.message_bytes;
    let g = p.gpus_per_node;
    let nodes = p.nodes;
    let ranks = nodes * g;
    let cluster = cluster(p, tcp)?;
    let model = |e: crate::collective::CollectiveError| param("message_bytes", s, &e.to_string());
    let ring = estimate(&request(&cluster, s, Some(vec![Algorithm::Ring]))).map_err(model)?;
    let protocol = ring
        .chosen
        .ok_or_else(|| param("nodes", nodes, "NCCL offers no Ring AllReduce here"))?
        .protocol;
    let t = ring_allreduce_terms(&cluster, s, protocol).map_err(model)?;
    let any = estimate(&request(&cluster, s, None)).map_err(model)?;
    let pick = any
        .chosen
        .and_then(|c| {
            any.estimates
                .iter()
                .find(|e| e.algorithm == c.algorithm && e.protocol == c.protocol)
        })
        .map(|e| {
            format!(
                "Over every algorithm NCCL would pick {}/{} here: {:.1} GB/s busbw against \
                 Ring's {:.1} (see /nccl).",
                e.algorithm.id(),
                e.protocol.id(),
                e.busbw_gbs,
                t.estimate.busbw_gbs
            )
        })
        .unwrap_or_default();
    let (id, title, summary) = if tcp {
        (
            "nccl-allreduce-tcp",
            "NCCL Ring AllReduce, nodes joined by TCP only",
            "The same ring where every network step runs over NCCL's socket transport: \
             staged through host memory, copied by CPU threads, with syscalls and \
             interrupts, at the rate a published measurement found, not the line rate.",
        )
    } else {
        (
            "nccl-allreduce",
            "NCCL Ring AllReduce, rail-aligned",
            "A ring through every GPU: NVLink inside each node, one network hop per node \
             boundary with GPUDirect RDMA, timed by NCCL's own cost model.",
        )
    };
    let mut f = Flow::new(id, title, format!("{summary} {pick}").trim_end());
    let link = bottleneck_link(t.estimate.bottleneck, p, tcp);
    let inter_steps = t.inter_steps / 2;
    let intra_steps = t.intra_steps / 2;
    let net_via: &[Who] = if g > 1 {
        &[Who::NvSwitch, Who::PcieSw, Who::Nic, Who::Leaf]
    } else {
        &[Who::PcieSw, Who::Nic, Who::Leaf]
    };
    let (copies, syscalls, interrupts) = if tcp {
        (
            SOCKET_STEP_COPIES,
            SOCKET_STEP_SYSCALLS,
            SOCKET_STEP_INTERRUPTS,
        )
    } else {
        (0, 0, 0)
    };
    let transport = if tcp {
        "the socket transport copies each chunk through host memory (4 copies, 2 syscalls \
         and an interrupt per network step)"
    } else {
        "GPUDirect RDMA moves each chunk between GPU memories with no host copy"
    };
    let mut phases = Vec::new();
    for (i, name) in ["reduce-scatter", "all-gather"].into_iter().enumerate() {
        let cost = half(&t, ranks, s, link, tcp, i == 0);
        let time_ns: f64 = cost.parts.iter().map(|x| x.ns).sum();
        phases.push(CollectivePhase {
            name: format!("ring {name}"),
            link,
            ranks,
            bytes: s,
            time_ns,
        });
        let what = if i == 0 {
            "each GPU passes a 1/n chunk of its buffer to the next, adding as it goes, until \
             every chunk holds the sum of all GPUs"
        } else {
            "each GPU passes the summed chunks on around the ring until every GPU has the \
             whole result"
        };
        let launch = if i == 0 {
            format!(
                " It also pays NCCL's base latency of {:.1} µs once.",
                t.base_us * t.plateau
            )
        } else {
            String::new()
        };
        f.then(
            StepSpec::new(
                Who::Gpu,
                Who::Cluster,
                StepKind::Packet,
                format!(
                    "Ring {name}: {} steps around {ranks} GPUs ({} over NVLink, {} across \
                     the network)",
                    ranks - 1,
                    intra_steps,
                    inter_steps
                ),
                cost,
                "/nccl",
                format!(
                    "In {} steps {what}. {intra_steps} steps stay on NVLink inside a node \
                     and {inter_steps} cross the network; {transport}. NCCL's model moves \
                     (n−1)/n of the buffer at {:.1} GB/s bus bandwidth, limited by the {}, \
                     with the {} protocol.{launch}",
                    ranks - 1,
                    t.bus_gbs,
                    bottleneck_words(t.estimate.bottleneck),
                    protocol.id(),
                ),
            )
            .via(net_via)
            .bytes(s)
            .copies(copies * inter_steps)
            .syscalls(syscalls * inter_steps)
            .interrupts(interrupts * inter_steps),
        );
    }
    let time_ns: f64 = phases.iter().map(|ph| ph.time_ns).sum();
    // bytes per ns = GB/s; the same figures as the Ring row of /nccl's table.
    let algbw = s as f64 / time_ns;
    let busbw = algbw * Collective::AllReduce.bus_factor(ranks);
    f.figure("algbw", algbw, "GB/s");
    f.figure("busbw", busbw, "GB/s");
    f.figure("bus bandwidth limit", t.bus_gbs, "GB/s");
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

fn bottleneck_words(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::NvLink => "NVLink",
        Bottleneck::Pcie => "PCIe links feeding the NICs",
        Bottleneck::Network => "NICs' line rate",
        Bottleneck::HostCopy => "socket transport's host copies",
        Bottleneck::HostStaging => "host memory every byte is staged in without GPUDirect RDMA",
        Bottleneck::ProtocolCap => "protocol's per-channel cap in NCCL's tables",
    }
}
