//! GPU fabrics built from their parts: how many leaves, spines and cores, cables and optics
//! a cluster needs, its bisection bandwidth, and the path between two GPUs.
//!
//! - [`FabricSpec`]: GPUs, GPUs and NICs per node, NIC ports and speed, switch radix, port
//!   speed and split, [`Tiers`], leaf oversubscription, rail optimization, planes.
//! - [`build`]: sizes the [`Fabric`] or refuses with a [`FabricError`] naming the field or
//!   constraint that fails.
//! - [`Fabric::path`]: the [`Hop`]s from one GPU to another, with or without PXN.
//! - [`presets()`]: named clusters (fabric, GPUs and NICs) from published designs.
//!
//! Sources:
//! - **Fat-tree**: M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center
//!   Network Architecture", SIGCOMM 2008, pp. 63–74: a k-ary fat-tree of k-port switches
//!   has k pods of k/2 edge and k/2 aggregation switches and (k/2)² core switches: k³/4
//!   hosts, 5k²/4 switches. Its two lower tiers alone (k leaves, k/2 spines) are the
//!   non-blocking leaf–spine of k²/2 endpoints.
//! - **Rail-optimized scalable units**: NVIDIA, "DGX SuperPOD Reference Architecture, DGX
//!   H100", section "Network Fabrics" (docs.nvidia.com/dgx-superpod/
//!   reference-architecture-scalable-infrastructure-h100): each group of 32 nodes (a
//!   scalable unit) is rail-aligned, so traffic on one rail is one hop from the other 31
//!   nodes of its unit and traffic between rails crosses the spine layer; Table 4 gives
//!   the compute fabric's leaves (8 per unit), spines and leaf–spine cables for 1 to 4
//!   units. One leaf per rail and 256 GPUs per unit are read off that table and the DGX
//!   H100's eight GPUs, not stated in those words on the page. The same section asks
//!   for a node count short of whole units to be built as whole units, leaves and
//!   leaf–spine cables included, leaving ports unused: [`Fabric::full_units`].
//! - **Rail-only**: W. Wang, M. Ghobadi, K. Shakeri, Y. Zhang, N. Hasani, "Rail-only: A
//!   Low-Cost High-Performance Network for Training LLMs with Trillion Parameters"
//!   (arXiv:2307.12169): LLM training traffic between rails can go over the servers'
//!   NVLink first, so the spine layer can go ([`Fabric::spines_only_between_rails`]).
//! - **Larger SuperPODs**: NVIDIA, "DGX SuperPOD Reference Architecture, DGX B200",
//!   section "DGX SuperPOD Architecture": leaves, spines and cores for 2 to 64 units,
//!   against which the three-tier sizing is tested.
//!
//! Model assumptions, named where they are used: [`OPTICS_ASSUMPTION`],
//! [`BISECTION_DEFINITION`], the leaf port split of [`leaf_ports`], every leaf connected to
//! every spine of its pod, the tiers above the leaves sized for the ports in use (see
//! [`build`]), planes as independent identical fabrics.

mod error;
mod path;
mod presets;
mod sizing;
mod spec;
#[cfg(test)]
mod tests;

pub use error::FabricError;
pub use path::{Hop, Path};
pub(crate) use presets::superpod_h100;
pub use presets::{preset, presets, ClusterPreset};
pub use sizing::{
    build, leaf_ports, Fabric, FullUnits, HopCounts, Links, Optics, ScalableUnits, SwitchTier,
    BISECTION_DEFINITION, OPTICS_ASSUMPTION,
};
pub use spec::{
    FabricSpec, Tiers, MAX_GPUS, MAX_GPUS_PER_NODE, MAX_NICS_PER_NODE, MAX_NIC_PORTS,
    MAX_OVERSUBSCRIPTION, MAX_PORT_GBPS, MAX_SWITCH_PORTS, MAX_SWITCH_PORT_SPLIT,
};
