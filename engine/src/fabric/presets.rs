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
fn superpod_h100(nodes: u32) -> FabricSpec {
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
