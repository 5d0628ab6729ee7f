//! The parts a fabric is built from, with the range each may take.

use super::error::FabricError;
use serde::{Deserialize, Serialize};

/// Most GPUs a fabric may have; well above the largest published clusters (about 10⁵),
/// low enough that every count fits in `u64` with room to spare.
pub const MAX_GPUS: u32 = 4_194_304;
/// Most GPUs in one node (an NVL576 rack is the largest published NVLink domain).
pub const MAX_GPUS_PER_NODE: u32 = 1024;
/// Most NICs in one node.
pub const MAX_NICS_PER_NODE: u32 = 64;
/// Most ports on one NIC.
pub const MAX_NIC_PORTS: u32 = 8;
/// Most physical ports on one switch.
pub const MAX_SWITCH_PORTS: u32 = 1024;
/// Most logical ports one physical switch port may be split into.
pub const MAX_SWITCH_PORT_SPLIT: u32 = 8;
/// Fastest port speed accepted, Gb/s (twice 1.6 Tb/s, the fastest port on sale today).
pub const MAX_PORT_GBPS: f64 = 3200.0;
/// Highest leaf oversubscription accepted (down:up).
pub const MAX_OVERSUBSCRIPTION: f64 = 64.0;

/// How many switch tiers: two (leaf–spine), three (leaf–spine–core) or the fewest that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Tiers {
    #[serde(rename = "2")]
    Two,
    #[serde(rename = "3")]
    Three,
    #[default]
    #[serde(rename = "auto")]
    Auto,
}

/// A GPU fabric described by its parts. Every field is named as in the JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSpec {
    /// GPUs in the whole cluster; a whole number of nodes.
    pub gpus: u32,
    /// GPUs in one node (8 in a DGX H100).
    pub gpus_per_node: u32,
    /// Scale-out NICs in one node (8 in a DGX H100, one per GPU).
    pub nics_per_node: u32,
    /// Fabric ports on one NIC.
    #[serde(default = "one")]
    pub nic_ports: u32,
    /// Speed of one NIC port, Gb/s.
    pub nic_port_gbps: f64,
    /// Physical ports on one switch (64 on a QM9700 or SN5600).
    pub switch_ports: u32,
    /// Speed of one physical switch port, Gb/s.
    pub switch_port_gbps: f64,
    /// Each physical switch port is split into this many ports of `switch_port_gbps` / N
    /// (64 × 400G split by 2 is used as 128 × 200G).
    #[serde(default = "one")]
    pub switch_port_split: u32,
    #[serde(default)]
    pub tiers: Tiers,
    /// Down:up port ratio at the leaf: 1 is non-blocking, 7 means 1:7 aggregation.
    #[serde(default = "one_f")]
    pub oversubscription: f64,
    /// Rail-optimized: NIC port r of every node in a scalable unit goes to that unit's
    /// leaf for rail r. Otherwise all of a node's ports go to one leaf (top-of-rack).
    #[serde(default)]
    pub rail_optimized: bool,
    /// Independent identical fabrics (1 or 2); each NIC has a port in every plane.
    #[serde(default = "one")]
    pub planes: u32,
}

fn one() -> u32 {
    1
}

fn one_f() -> f64 {
    1.0
}

fn count(field: &'static str, value: u32, min: u32, max: u32) -> Result<(), FabricError> {
    if value < min || value > max {
        return Err(FabricError::invalid(
            field,
            format!("{value} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}

fn rate(field: &'static str, value: f64, min_exclusive: f64, max: f64) -> Result<(), FabricError> {
    if !value.is_finite() || value <= min_exclusive || value > max {
        return Err(FabricError::invalid(
            field,
            format!("{value} is outside ({min_exclusive}, {max}]"),
        ));
    }
    Ok(())
}

impl FabricSpec {
    /// Checks every field's range and the constraints between fields that need no sizing.
    pub fn validate(&self) -> Result<(), FabricError> {
        count("gpus", self.gpus, 1, MAX_GPUS)?;
        count("gpus_per_node", self.gpus_per_node, 1, MAX_GPUS_PER_NODE)?;
        count("nics_per_node", self.nics_per_node, 1, MAX_NICS_PER_NODE)?;
        count("nic_ports", self.nic_ports, 1, MAX_NIC_PORTS)?;
        rate("nic_port_gbps", self.nic_port_gbps, 0.0, MAX_PORT_GBPS)?;
        count("switch_ports", self.switch_ports, 2, MAX_SWITCH_PORTS)?;
        rate(
            "switch_port_gbps",
            self.switch_port_gbps,
            0.0,
            MAX_PORT_GBPS,
        )?;
        count(
            "switch_port_split",
            self.switch_port_split,
            1,
            MAX_SWITCH_PORT_SPLIT,
        )?;
        // Below 1 the leaf would have more uplinks than downlinks, which this model does not
        // describe (the spine tiers are always 1:1).
        if !self.oversubscription.is_finite()
            || self.oversubscription < 1.0
            || self.oversubscription > MAX_OVERSUBSCRIPTION
        {
            return Err(FabricError::invalid(
                "oversubscription",
                format!(
                    "{} is outside [1, {MAX_OVERSUBSCRIPTION}]",
                    self.oversubscription
                ),
            ));
        }
        count("planes", self.planes, 1, 2)?;
        if !self.gpus.is_multiple_of(self.gpus_per_node) {
            return Err(FabricError::PartialNode {
                gpus: self.gpus,
                gpus_per_node: self.gpus_per_node,
            });
        }
        if !self.nic_ports.is_multiple_of(self.planes) {
            return Err(FabricError::PlanesWithoutPorts {
                planes: self.planes,
                nic_ports: self.nic_ports,
            });
        }
        let port_gbps = self.switch_port_gbps / f64::from(self.switch_port_split);
        // A relative tolerance so 400 / 2 = 200 is never refused by a rounding error.
        if self.nic_port_gbps > port_gbps * (1.0 + 1e-9) {
            return Err(FabricError::NicFasterThanSwitchPort {
                nic_port_gbps: self.nic_port_gbps,
                switch_port_gbps: port_gbps,
            });
        }
        Ok(())
    }
}
