//! Why a pair is missing from a report or left out of the automatic choice, in words, for the
//! /nccl calculator. The conditions restate [`super::estimate`]'s (model.rs, `Setup::offers`
//! and the LL128 default); the tests below hold the two together.

use super::input::{Algorithm, CollectiveRequest, IntraLink, Protocol, Transport};
use super::model::{CollectiveReport, Estimate};
use super::Collective;

/// Why `algorithm` has no estimate in `report` (the model does not offer it for this
/// collective on these machines); `None` when it has one.
pub fn absent_reason(
    req: &CollectiveRequest,
    report: &CollectiveReport,
    algorithm: Algorithm,
) -> Option<String> {
    if report.estimates.iter().any(|e| e.algorithm == algorithm) {
        return None;
    }
    let c = &req.cluster;
    let op = req.op;
    let multi_node = c.nodes > 1;
    let nvls_hardware = c.nvswitch && c.compute_capability >= 90 && c.gpus_per_node >= 2;
    let reason = match algorithm {
        Algorithm::P2p => Some(
            "grouped sends and receives are how AlltoAll runs; the other collectives use \
             NCCL's algorithms"
                .to_string(),
        ),
        _ if op == Collective::AlltoAll => Some(
            "NCCL runs AlltoAll as grouped sends and receives, not with one of its collective \
             algorithms"
                .to_string(),
        ),
        Algorithm::Tree
            if matches!(
                op,
                Collective::AllGather
                    | Collective::ReduceScatter
                    | Collective::Broadcast
                    | Collective::Reduce
            ) =>
        {
            Some("NCCL runs Tree for AllReduce only".to_string())
        }
        Algorithm::Pat if !matches!(op, Collective::AllGather | Collective::ReduceScatter) => {
            Some("PAT runs AllGather and ReduceScatter only".to_string())
        }
        Algorithm::Pat if c.gpus_per_node > 1 => {
            Some("PAT needs one GPU per node (ncclPatEnable, tuning.cc:202-209)".to_string())
        }
        Algorithm::CollNetDirect | Algorithm::CollNetChain if op != Collective::AllReduce => {
            Some("CollNet is modelled for AllReduce only".to_string())
        }
        Algorithm::CollNetDirect | Algorithm::CollNetChain if !multi_node => Some(
            "CollNet reduces in the network's switches (SHARP): one node has no network to \
             reduce in"
                .to_string(),
        ),
        Algorithm::CollNetDirect | Algorithm::CollNetChain if !c.sharp => Some(
            "CollNet needs in-network reduction: turn SHARP on (InfiniBand only), which loads \
             NCCL's CollNet plugin"
                .to_string(),
        ),
        Algorithm::CollNetDirect if !c.nvswitch => {
            Some("CollNet Direct needs the node's GPUs on an NVSwitch (tuning.cc:473)".to_string())
        }
        Algorithm::Nvls | Algorithm::NvlsTree
            if !matches!(
                op,
                Collective::AllReduce | Collective::AllGather | Collective::ReduceScatter
            ) || (algorithm == Algorithm::NvlsTree && op != Collective::AllReduce) =>
        {
            Some(format!(
                "NCCL has no {} for this collective",
                algorithm_name(algorithm)
            ))
        }
        Algorithm::Nvls | Algorithm::NvlsTree if !nvls_hardware => Some(
            "NVLS needs NVSwitch multicast (NVLink SHARP: Hopper or later on a third-generation \
             NVSwitch) and two GPUs or more in the node"
                .to_string(),
        ),
        Algorithm::Nvls if multi_node && !c.sharp => Some(
            "NVLS across nodes also reduces in the network, so it needs SHARP; NVLS Tree joins \
             the nodes with a tree instead"
                .to_string(),
        ),
        Algorithm::NvlsTree if !multi_node => {
            Some("NVLS Tree joins nodes with a tree: on one node NVLS alone runs".to_string())
        }
        _ => None,
    };
    Some(reason.unwrap_or_else(|| {
        format!(
            "the model offers no {} for this collective here",
            algorithm_name(algorithm)
        )
    }))
}

/// Why the automatic choice may not take `estimate`; `None` when it may.
pub fn disabled_reason(req: &CollectiveRequest, estimate: &Estimate) -> Option<String> {
    if estimate.enabled {
        return None;
    }
    if let Some(list) = &req.algorithms {
        if !list.contains(&estimate.algorithm) {
            return Some(format!(
                "{} is left out of the allowed algorithms (as NCCL_ALGO would)",
                algorithm_name(estimate.algorithm)
            ));
        }
    }
    if let Some(list) = &req.protocols {
        if !list.contains(&estimate.protocol) {
            return Some(format!(
                "{} is left out of the allowed protocols (as NCCL_PROTO would)",
                protocol_name(estimate.protocol)
            ));
        }
    }
    let c = &req.cluster;
    if estimate.protocol == Protocol::Ll128 {
        let why = if c.nodes > 1 && c.transport == Transport::Socket {
            "the socket transport stages data in host memory, so the GPU-NIC path runs \
             through the CPU (tuning.cc:482-487)"
        } else if c.nodes > 1 && !c.gdr {
            "without GPUDirect RDMA the GPU-NIC path runs through the CPU (tuning.cc:482-487)"
        } else if c.gpus_per_node > 1 && c.intra_link != IntraLink::NvLink {
            "the node's GPUs talk over PCIe, not NVLink (tuning.cc:491)"
        } else {
            "this GPU generation is older than compute capability 7.0 (tuning.cc:493)"
        };
        return Some(format!("NCCL leaves LL128 off by default here: {why}"));
    }
    Some("the automatic choice may not take it".to_string())
}

/// NCCL_ALGO's name for an algorithm, as NCCL's logs print it.
pub fn algorithm_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Tree => "Tree",
        Algorithm::Ring => "Ring",
        Algorithm::CollNetDirect => "CollNetDirect",
        Algorithm::CollNetChain => "CollNetChain",
        Algorithm::Nvls => "NVLS",
        Algorithm::NvlsTree => "NVLSTree",
        Algorithm::Pat => "PAT",
        Algorithm::P2p => "send/receive",
    }
}

/// NCCL_PROTO's name for a protocol.
pub fn protocol_name(p: Protocol) -> &'static str {
    match p {
        Protocol::Ll => "LL",
        Protocol::Ll128 => "LL128",
        Protocol::Simple => "Simple",
    }
}

#[cfg(test)]
mod tests {
    use super::super::{estimate, GpuModel, Machines, NicModel};
    use super::*;

    fn requests() -> Vec<CollectiveRequest> {
        let mut out = Vec::new();
        for gpu in [
            GpuModel::H100,
            GpuModel::A100,
            GpuModel::Rtx4090,
            GpuModel::V100,
        ] {
            for nic in [
                NicModel::Ndr400,
                NicModel::Roce200,
                NicModel::Tcp100,
                NicModel::None,
            ] {
                for (gpn, nodes) in [(8, 1), (8, 2), (8, 16), (1, 4), (2, 1)] {
                    for gdr in [true, false] {
                        for sharp in [false, true] {
                            let m = Machines {
                                gpu,
                                gpus_per_node: gpn,
                                nodes,
                                nic,
                                nics_per_node: 8,
                                gdr,
                                sharp,
                            };
                            let Ok(cluster) = m.cluster() else { continue };
                            // The five collectives these reasons were written for.
                            let known = Collective::ALL.into_iter().filter(|op| {
                                matches!(
                                    op,
                                    Collective::AllReduce
                                        | Collective::AllGather
                                        | Collective::ReduceScatter
                                        | Collective::Broadcast
                                        | Collective::Reduce
                                )
                            });
                            for op in known {
                                out.push(CollectiveRequest {
                                    op,
                                    bytes: 1048576.0,
                                    cluster: cluster.clone(),
                                    algorithms: None,
                                    protocols: None,
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_absent_algorithm_has_a_specific_reason_and_present_ones_none() {
        for req in requests() {
            let report = estimate(&req).unwrap();
            for a in Algorithm::ALL {
                let present = report.estimates.iter().any(|e| e.algorithm == a);
                let reason = absent_reason(&req, &report, a);
                assert_eq!(reason.is_none(), present, "{a:?} {req:?}");
                if let Some(r) = reason {
                    assert!(
                        !r.starts_with("the model offers no"),
                        "{a:?} has only the generic reason on {req:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_disabled_pair_says_why_and_ll128_names_its_default() {
        for req in requests() {
            let report = estimate(&req).unwrap();
            for e in &report.estimates {
                let reason = disabled_reason(&req, e);
                assert_eq!(reason.is_none(), e.enabled, "{e:?}");
                if let Some(r) = reason {
                    assert_eq!(e.protocol, Protocol::Ll128, "{r}");
                    assert!(r.contains("off by default"), "{r}");
                }
            }
        }
        let mut req = requests().remove(0);
        req.algorithms = Some(vec![Algorithm::Ring]);
        let report = estimate(&req).unwrap();
        let tree = report
            .estimates
            .iter()
            .find(|e| e.algorithm == Algorithm::Tree)
            .unwrap();
        assert!(disabled_reason(&req, tree).unwrap().contains("NCCL_ALGO"));
    }
}
