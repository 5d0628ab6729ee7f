//! Named clusters a learner can start from: the fabric's parts and the GPUs and NICs on it,
//! each with the published design it follows. /topology builds their fabric, /nccl runs
//! collectives on their machines, and both read this one list.

use super::spec::{FabricSpec, Tiers};
use crate::collective::{GpuModel, Machines, NicModel};
use serde::Serialize;

/// A cluster by name: its fabric and the models of its GPUs and NICs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterPreset {
    /// Stable id for URLs and the CLI (`superpod-h100-4su`).
    pub id: &'static str,
    /// What a reader calls it.
    pub name: &'static str,
    /// The published design it follows, and what the preset assumes beyond it.
    pub source: &'static str,
    pub spec: FabricSpec,
    pub gpu: GpuModel,
    pub nic: NicModel,
}

impl ClusterPreset {
    /// The machines on this fabric, as the collective model takes them: one node per
    /// `gpus_per_node` GPUs, GPUDirect RDMA where the parts allow it.
    pub fn machines(&self) -> Machines {
        Machines {
            gpu: self.gpu,
            gpus_per_node: self.spec.gpus_per_node,
            nodes: self.spec.gpus / self.spec.gpus_per_node,
            nic: self.nic,
            nics_per_node: self.spec.nics_per_node,
            gdr: true,
            sharp: false,
        }
    }
}

/// A DGX H100 SuperPOD compute fabric of `units` scalable units: 32 DGX H100 per unit, one
/// of whose places goes to the UFM appliance (Table 4 lists 31, 63, 95, 127 nodes), 8 ×
/// 400G ConnectX-7 per node, QM9700 switches (64 × 400G NDR), rail-optimized, non-blocking.
pub(crate) fn superpod_h100(nodes: u32) -> FabricSpec {
    FabricSpec {
        gpus: nodes * 8,
        gpus_per_node: 8,
        nics_per_node: 8,
        nic_ports: 1,
        nic_port_gbps: 400.0,
        switch_ports: 64,
        switch_port_gbps: 400.0,
        switch_port_split: 1,
        tiers: Tiers::Auto,
        oversubscription: 1.0,
        rail_optimized: true,
        planes: 1,
    }
}

const SUPERPOD_SOURCE: &str = "NVIDIA DGX SuperPOD Reference Architecture, DGX H100, \
    \"Network Fabrics\", Table 4 (compute fabric of 1 to 4 scalable units: 31, 63, 95 or 127 \
    DGX H100, 8 leaves per unit); QM9700 switches, 64 ports of 400 Gb/s NDR.";

const LLAMA3_SOURCE: &str = "Meta, \"The Llama 3 Herd of Models\" (arXiv:2407.21783), section \
    3.3.1, \"Network\": 24K H100 GPUs on RoCE, 400 Gb/s between GPUs, servers of eight GPUs, \
    racks of 16 GPUs (two servers) on one ToR, 192 racks form a pod of 3,072 GPUs with full \
    bisection bandwidth, eight pods joined by aggregation switches at 1:7 oversubscription. \
    This model has one switch radix for every tier and puts oversubscription only at the \
    leaf, so this is the nearest it can build, not that cluster: 24,576 GPUs in servers of 8 \
    with one 400 Gb/s RoCE NIC per GPU (the paper gives 400 Gb/s per GPU, not the NIC count), \
    top-of-rack (not rail-optimized), three tiers of 64 × 400 Gb/s switches (a radix chosen \
    here; the paper names Arista 7800 and Minipack2 switches but no port counts), \
    non-blocking at every tier. So each leaf takes four servers (32 GPUs, not 16), a pod is \
    1,024 GPUs (not 3,072) and there are 24 pods (not 8), and the top tier is 1:1, not 1:7: \
    the bisection bandwidth shown is about seven times what crosses between the paper's pods.";

/// The Llama 3 RoCE cluster as near as one radix and a non-blocking top tier allow (see
/// `LLAMA3_SOURCE` for each difference).
fn meta_llama3_roce() -> FabricSpec {
    FabricSpec {
        gpus: 24_576,
        gpus_per_node: 8,
        nics_per_node: 8,
        nic_ports: 1,
        nic_port_gbps: 400.0,
        switch_ports: 64,
        switch_port_gbps: 400.0,
        switch_port_split: 1,
        tiers: Tiers::Three,
        oversubscription: 1.0,
        rail_optimized: false,
        planes: 1,
    }
}

const HPN_SOURCE: &str = "K. Qian et al., \"Alibaba HPN: A Data Center Network for Large \
    Language Model Training\", SIGCOMM 2024: hosts of 8 GPUs and 8 backend NICs of 2 × 200 \
    Gb/s, each port to one ToR of a dual-ToR set (section 4), the two ToRs in two planes \
    (section 6.1); a 51.2 Tb/s single-chip ToR with 128 active (and 8 backup) 200 Gb/s ports \
    down and 60 × 400 Gb/s up, 1.067:1 (section 5.1); rail-optimized, 16 ToRs and 1,024 GPUs \
    a segment (section 5.2); 15 segments, 15,360 GPUs, a two-tier pod with 60 aggregation \
    switches in each plane (section 6, Tables 1 and 2). Here each switch has the 248 ports of \
    200 Gb/s that design uses (128 down, 60 × 400 Gb/s counted as 120 × 200 Gb/s up; the 8 \
    backup ports are left out) and the aggregation switches have the same ports, so a \
    ToR-to-aggregation 400 Gb/s cable is counted as two 200 Gb/s links. The 15:1 \
    aggregation-to-core tier above the pod (section 7) and the frontend NIC are not modelled. \
    The paper's hosts carry H800 GPUs with 400 GB/s (bidirectional) NVLink (section 9); this \
    model names no H800, so the machines are H100s, whose NVLink is faster.";

/// One HPN pod: 15 segments of 128 hosts, dual-plane (see `HPN_SOURCE`).
fn alibaba_hpn_pod() -> FabricSpec {
    FabricSpec {
        gpus: 15_360,
        gpus_per_node: 8,
        nics_per_node: 8,
        nic_ports: 2,
        nic_port_gbps: 200.0,
        switch_ports: 248,
        switch_port_gbps: 200.0,
        switch_port_split: 1,
        tiers: Tiers::Auto,
        // 128 ports down to 120 up.
        oversubscription: 16.0 / 15.0,
        rail_optimized: true,
        planes: 2,
    }
}

const WORKSTATION_RACK_SOURCE: &str = "Not a published design: a small lab's rack, for contrast \
    with the RDMA fabrics. Eight workstations of four GeForce RTX 4090 each, one 25 GbE NIC \
    per workstation speaking TCP (no RDMA: NVIDIA's GPUDirect RDMA guide lists data-center and \
    professional GPUs, not GeForce), on one 32 × 100 GbE switch whose ports are split into \
    4 × 25 GbE (128 ports). All eight fit that one switch, so the fabric is that switch.";

fn rtx4090_rack() -> FabricSpec {
    FabricSpec {
        gpus: 32,
        gpus_per_node: 4,
        nics_per_node: 1,
        nic_ports: 1,
        nic_port_gbps: 25.0,
        switch_ports: 32,
        switch_port_gbps: 100.0,
        switch_port_split: 4,
        tiers: Tiers::Auto,
        oversubscription: 1.0,
        rail_optimized: false,
        planes: 1,
    }
}

/// Every preset, in the order the pages list them.
pub fn presets() -> Vec<ClusterPreset> {
    vec![
        ClusterPreset {
            id: "superpod-h100-1su",
            name: "DGX H100 SuperPOD, 1 scalable unit (31 nodes, 248 GPUs)",
            source: SUPERPOD_SOURCE,
            spec: superpod_h100(31),
            gpu: GpuModel::H100,
            nic: NicModel::Ndr400,
        },
        ClusterPreset {
            id: "superpod-h100-2su",
            name: "DGX H100 SuperPOD, 2 scalable units (63 nodes, 504 GPUs)",
            source: SUPERPOD_SOURCE,
            spec: superpod_h100(63),
            gpu: GpuModel::H100,
            nic: NicModel::Ndr400,
        },
        ClusterPreset {
            id: "superpod-h100-4su",
            name: "DGX H100 SuperPOD, 4 scalable units (127 nodes, 1,016 GPUs)",
            source: SUPERPOD_SOURCE,
            spec: superpod_h100(127),
            gpu: GpuModel::H100,
            nic: NicModel::Ndr400,
        },
        ClusterPreset {
            id: "meta-llama3-roce",
            name: "Meta Llama 3 RoCE cluster, as near as this model gets (24,576 GPUs)",
            source: LLAMA3_SOURCE,
            spec: meta_llama3_roce(),
            gpu: GpuModel::H100,
            nic: NicModel::Roce400,
        },
        ClusterPreset {
            id: "alibaba-hpn-pod",
            name: "Alibaba HPN pod, dual-plane (15,360 GPUs)",
            source: HPN_SOURCE,
            spec: alibaba_hpn_pod(),
            // The nearest named GPU to the paper's H800 (see `HPN_SOURCE`).
            gpu: GpuModel::H100,
            nic: NicModel::Roce400,
        },
        ClusterPreset {
            id: "rtx4090-rack",
            name: "8 RTX 4090 workstations on 25 GbE, no RDMA (32 GPUs)",
            source: WORKSTATION_RACK_SOURCE,
            spec: rtx4090_rack(),
            gpu: GpuModel::Rtx4090,
            nic: NicModel::Tcp25,
        },
    ]
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<ClusterPreset> {
    presets().into_iter().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::build;

    #[test]
    fn every_preset_builds_and_makes_a_cluster() {
        let all = presets();
        for p in &all {
            let f = build(&p.spec).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert!(f.nodes >= 1, "{}", p.id);
            p.machines()
                .cluster()
                .unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!(preset(p.id).as_ref(), Some(p));
            assert!(
                (p.nic.gbps() - p.spec.nic_port_gbps * f64::from(p.spec.nic_ports)).abs() < 1e-9,
                "{}: the NIC model's rate is its ports' rate",
                p.id
            );
        }
        let mut ids: Vec<_> = all.iter().map(|p| p.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "ids are unique");
    }

    #[test]
    fn meta_preset_keeps_the_papers_gpus_and_full_bisection_pods() {
        // Llama 3 paper, 3.3.1: 24K GPUs, 8 per server, 400 Gb/s each, three layers,
        // no oversubscription inside a pod. What differs is in the source.
        let p = preset("meta-llama3-roce").unwrap();
        let f = build(&p.spec).unwrap();
        assert_eq!(f.nodes * 8, 24_576);
        assert_eq!(f.tiers, 3);
        assert_eq!(f.endpoints, 24_576);
        assert_eq!(f.leaf.down_ports, f.leaf.up_ports, "non-blocking leaves");
        // The nearest spec's own shape, as the source states it: 32 GPUs a leaf, pods of
        // 1,024 GPUs, 24 pods, and half the NICs' 400 Gb/s as bisection.
        assert_eq!(u64::from(f.leaf.down_ports), 32);
        assert_eq!(f.leaves_per_pod * 32, 1024);
        assert_eq!(f.pods, Some(24));
        assert_eq!(f.bisection_gbps, 24_576.0 * 400.0 / 2.0);
        assert!(p.source.contains("1:7") && p.source.contains("not 3,072"));
        assert_eq!(p.nic.gbps(), 400.0);
    }

    #[test]
    fn hpn_preset_matches_segments_and_aggregation_of_the_paper() {
        // HPN, sections 5.2 and 6: 1,024 GPUs and 16 ToRs a segment, 15 segments a pod
        // (15,360 GPUs), two tiers, 60 aggregation switches per plane, 2 planes.
        let p = preset("alibaba-hpn-pod").unwrap();
        let f = build(&p.spec).unwrap();
        assert_eq!(f.tiers, 2);
        assert_eq!(f.nodes * 8, 15_360);
        let su = f.scalable_units.clone().unwrap();
        assert_eq!(su.gpus_per_su, 1024);
        assert_eq!(su.count, 15);
        // Eight rails in each of two planes: 16 ToRs a segment.
        assert_eq!(su.leaves_per_su * p.spec.planes, 16);
        assert_eq!(f.leaf.count, 15 * 16);
        // 128 down, 120 up (60 × 400 Gb/s): the paper's 1.067:1.
        assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (128, 120));
        assert!((128.0 / 120.0 - 1.067f64).abs() < 1e-3);
        assert_eq!(f.spine.count, 2 * 60);
        // Each NIC: 2 × 200 Gb/s = the 400 Gb/s per GPU of section 6.2.
        assert_eq!(p.nic.gbps(), 400.0);
        assert_eq!(f.endpoints, 15_360 * 2);
    }

    #[test]
    fn workstation_rack_is_one_switch_without_rdma() {
        let p = preset("rtx4090-rack").unwrap();
        let f = build(&p.spec).unwrap();
        assert_eq!((f.tiers, f.nodes, f.switches), (1, 8, 1));
        assert_eq!(f.radix, 128);
        assert_eq!(f.links.total, 8);
        let m = p.machines();
        assert!(!m.gdr_in_use(), "GeForce and TCP: no GPUDirect RDMA");
        assert_eq!((m.nodes, m.gpus_per_node, m.nics_per_node), (8, 4, 1));
    }

    #[test]
    fn superpod_presets_match_table_4() {
        // Table 4: 8, 16 and 32 leaves; 4, 8 and 16 spines for 1, 2 and 4 units.
        for (id, leaves, spines) in [
            ("superpod-h100-1su", 8, 4),
            ("superpod-h100-2su", 16, 8),
            ("superpod-h100-4su", 32, 16),
        ] {
            let f = build(&preset(id).unwrap().spec).unwrap();
            assert_eq!((f.leaf.count, f.spine.count), (leaves, spines), "{id}");
        }
    }
}
