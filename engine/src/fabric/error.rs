//! Why a fabric was refused: a field outside its range, or parts that cannot make the
//! fabric asked for. Every message names the field or the constraint that fails.

use crate::FieldError;
use serde::Serialize;
use std::fmt;

/// Why [`super::build()`] or [`super::Fabric::path`] refused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum FabricError {
    /// An input is zero, not finite or beyond the model's range, named as in the
    /// [`super::FabricSpec`] JSON.
    InvalidField(FieldError),
    /// `gpus` does not fill whole nodes.
    PartialNode { gpus: u32, gpus_per_node: u32 },
    /// Two planes need every NIC to have a port in each plane.
    PlanesWithoutPorts { planes: u32, nic_ports: u32 },
    /// A NIC port is faster than the switch port it plugs into (after any split).
    NicFasterThanSwitchPort {
        nic_port_gbps: f64,
        switch_port_gbps: f64,
    },
    /// The leaf's ports, split by the oversubscription, leave no downlink or no uplink.
    LeafHasNoRoom {
        radix: u32,
        oversubscription: f64,
        down_ports: u32,
        up_ports: u32,
    },
    /// Without rail optimization a node's ports all go to one leaf, and they do not fit.
    NodeDoesNotFitLeaf {
        ports_per_node: u32,
        leaf_down_ports: u32,
    },
    /// The fabric is larger than the tiers allowed can hold with this radix.
    TooLarge {
        tiers: u8,
        radix: u32,
        oversubscription: f64,
        max_endpoints: u64,
        asked_endpoints: u64,
        max_leaves: u64,
        leaves_needed: u64,
    },
    /// A GPU index in a path query is not in the fabric.
    NoSuchGpu { gpu: u64, gpus: u64 },
}

impl FabricError {
    pub(crate) fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        FabricError::InvalidField(FieldError::new(field, reason))
    }

    /// The field refused, when one field alone is wrong (the other refusals are about how
    /// several fit together).
    pub fn field_error(&self) -> Option<&FieldError> {
        match self {
            FabricError::InvalidField(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for FabricError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FabricError::InvalidField(e) => write!(f, "{e}"),
            FabricError::PartialNode {
                gpus,
                gpus_per_node,
            } => write!(
                f,
                "`gpus` {gpus} is not a whole number of nodes of {gpus_per_node} GPUs \
                 (`gpus_per_node`)"
            ),
            FabricError::PlanesWithoutPorts { planes, nic_ports } => write!(
                f,
                "{planes} planes need a port of every NIC in each plane, but `nic_ports` is \
                 {nic_ports}, not a multiple of {planes}"
            ),
            FabricError::NicFasterThanSwitchPort {
                nic_port_gbps,
                switch_port_gbps,
            } => write!(
                f,
                "a {nic_port_gbps} Gb/s NIC port cannot run on a {switch_port_gbps} Gb/s \
                 switch port (`nic_port_gbps` > `switch_port_gbps` / `switch_port_split`)"
            ),
            FabricError::LeafHasNoRoom {
                radix,
                oversubscription,
                down_ports,
                up_ports,
            } => write!(
                f,
                "a {radix}-port leaf at {oversubscription}:1 (down:up) gets {down_ports} \
                 down and {up_ports} up ports; it needs at least one of each"
            ),
            FabricError::NodeDoesNotFitLeaf {
                ports_per_node,
                leaf_down_ports,
            } => write!(
                f,
                "without rail optimization a node's {ports_per_node} ports go to one leaf, \
                 which has only {leaf_down_ports} down ports (set `rail_optimized`)"
            ),
            FabricError::TooLarge {
                tiers,
                radix,
                oversubscription,
                max_endpoints,
                asked_endpoints,
                max_leaves,
                leaves_needed,
            } => write!(
                f,
                "a {tiers}-tier fabric of {radix}-port switches at {oversubscription}:1 \
                 holds at most {max_endpoints} endpoints per plane ({max_leaves} leaves); \
                 {asked_endpoints} asked, needing {leaves_needed} leaves"
            ),
            FabricError::NoSuchGpu { gpu, gpus } => {
                write!(f, "GPU {gpu} is not in the fabric (GPUs are 0..{gpus})")
            }
        }
    }
}

impl std::error::Error for FabricError {}
