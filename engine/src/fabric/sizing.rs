//! Sizing a fabric from its parts.
//!
//! Two tiers follow the leaf–spine (folded Clos) shape; three tiers follow the k-ary
//! fat-tree of M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center
//! Network Architecture", SIGCOMM 2008, pp. 63–74: with k-port switches, k pods of k/2
//! edge and k/2 aggregation switches, (k/2)² core switches, k³/4 hosts and 5k²/4
//! switches. Here the edge switch is the *leaf*, the aggregation switch the *spine* and the
//! top tier the *core*. The leaf is the only tier that may be oversubscribed; spines and
//! cores are 1:1.

use super::error::FabricError;
use super::spec::{FabricSpec, Tiers};
use serde::Serialize;

/// The model's stated assumption about which links carry optics.
pub const OPTICS_ASSUMPTION: &str = "every link (NIC to leaf, leaf to spine, spine to core) \
     is optical with one transceiver at each end; a split switch port counts one \
     transceiver per logical port, which over-counts breakout cables and ignores copper \
     DACs inside a rack";

/// What bisection bandwidth means here.
pub const BISECTION_DEFINITION: &str = "the capacity in one direction, Gb/s, across the \
     worst cut of the endpoints into two equal halves: half the smaller of all NIC-to-leaf \
     capacity and all leaf uplink capacity, summed over planes (spines and cores are 1:1 \
     and have ports for every leaf uplink, so the leaves' uplinks are the narrowest layer; \
     ideal load balancing assumed)";

/// One tier of switches: how many, and how each one's ports are used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwitchTier {
    /// Switches in this tier over all planes.
    pub count: u64,
    /// Ports per switch facing the tier below (or the NICs, for a leaf).
    pub down_ports: u32,
    /// Ports per switch facing the tier above; 0 at the top tier.
    pub up_ports: u32,
}

/// Cables per tier over all planes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Links {
    pub nic_leaf: u64,
    pub leaf_spine: u64,
    pub spine_core: u64,
    pub total: u64,
}

/// Transceivers, under [`OPTICS_ASSUMPTION`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Optics {
    pub optical_links: u64,
    /// Two per optical link.
    pub transceivers: u64,
    pub assumption: &'static str,
}

/// Switches crossed between two GPUs on different nodes (NVLink hops not counted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HopCounts {
    /// Both NICs on one leaf (same rail and scalable unit, or same top-of-rack leaf).
    pub same_leaf: u32,
    /// Different leaves under the same spines (2 tiers, or one pod of 3): leaf, spine, leaf.
    /// `None` for a fabric of one switch per plane, which has no other leaf.
    pub other_leaf: Option<u32>,
    /// Different pods of a 3-tier fabric of more than one pod: leaf, spine, core, spine,
    /// leaf.
    pub other_pod: Option<u32>,
    /// Rail-optimized only: GPUs on different rails in one scalable unit when PXN first
    /// moves the data over NVLink to the GPU on the destination's rail (one NVLink hop,
    /// then this many switches). Without PXN the same pair crosses `other_leaf` switches.
    pub other_rail_with_pxn: Option<u32>,
}

/// Rail-optimized building blocks in the style of NVIDIA's DGX SuperPOD: one leaf per rail,
/// each leaf taking that rail of as many nodes as it has down ports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScalableUnits {
    /// Scalable units per plane (the last one may be partly filled).
    pub count: u64,
    pub nodes_per_su: u32,
    pub gpus_per_su: u64,
    /// One leaf per rail.
    pub leaves_per_su: u32,
}

/// A sized fabric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fabric {
    pub spec: FabricSpec,
    /// Tiers used: 1 (one switch per plane holds every NIC port), 2 or 3.
    pub tiers: u8,
    pub nodes: u64,
    /// NIC ports per node in one plane; with rail optimization, the number of rails.
    pub rails: u32,
    /// NIC ports attached, over all planes.
    pub endpoints: u64,
    /// Logical switch ports (physical ports × split).
    pub radix: u32,
    /// Speed of a logical switch port, Gb/s.
    pub switch_port_gbps: f64,
    pub leaf: SwitchTier,
    pub spine: SwitchTier,
    /// `None` for 2 tiers.
    pub core: Option<SwitchTier>,
    pub switches: u64,
    /// 3-tier pods per plane (`None` for 2 tiers).
    pub pods: Option<u64>,
    /// Leaves under one set of spines: all of them for 2 tiers, one pod's for 3.
    pub leaves_per_pod: u64,
    /// Spines per pod (3 tiers) or in all (2 tiers), per plane.
    pub spines_per_pod: u64,
    /// Cores in each of the `leaf.up_ports` core groups of a 3-tier fabric, per plane.
    pub cores_per_group: u64,
    pub links: Links,
    pub optics: Optics,
    pub bisection_gbps: f64,
    pub bisection_definition: &'static str,
    pub hops: HopCounts,
    /// `Some` only when rail-optimized.
    pub scalable_units: Option<ScalableUnits>,
}

/// Down and up ports of a leaf at oversubscription `r`: down = ⌊k·r/(1+r)⌋, up = k − down.
///
/// Rounding: down ≤ r·up < down + r + 1, so the leaf is never more oversubscribed than
/// asked and misses the ratio by less than one port on each side.
pub fn leaf_ports(radix: u32, oversubscription: f64) -> (u32, u32) {
    let k = f64::from(radix);
    // The epsilon keeps an exact split such as 64 × 3/4 = 48 from flooring to 47.
    let down = (k * oversubscription / (1.0 + oversubscription) + 1e-9).floor() as u32;
    let down = down.min(radix);
    (down, radix - down)
}

/// The fewest switches above, among the divisors of `per_switch_up`, that give every
/// uplink a port: `need` = ⌈uplinks / radix⌉. Using a divisor gives every lower switch the
/// same number of parallel links to each upper switch; NVIDIA's DGX SuperPOD H100 table of
/// compute fabric parts (3 SUs: 24 leaves, 16 spines, not 12) does the same.
fn upper_switches(lower: u64, per_switch_up: u32, radix: u32) -> u64 {
    let uplinks = lower * u64::from(per_switch_up);
    let need = uplinks.div_ceil(u64::from(radix)).max(1);
    (need..=u64::from(per_switch_up))
        .find(|&d| u64::from(per_switch_up).is_multiple_of(d))
        .unwrap_or(u64::from(per_switch_up))
}

/// Sizes the fabric, or says which constraint the parts cannot meet.
pub fn build(spec: &FabricSpec) -> Result<Fabric, FabricError> {
    spec.validate()?;
    let radix = spec.switch_ports * spec.switch_port_split;
    let port_gbps = spec.switch_port_gbps / f64::from(spec.switch_port_split);
    let nodes = u64::from(spec.gpus / spec.gpus_per_node);
    let rails = spec.nics_per_node * spec.nic_ports / spec.planes;
    let r = spec.oversubscription;
    let (down, up) = leaf_ports(radix, r);
    if down == 0 || up == 0 {
        return Err(FabricError::LeafHasNoRoom {
            radix,
            oversubscription: r,
            down_ports: down,
            up_ports: up,
        });
    }
    let endpoints_per_plane = nodes * u64::from(rails);
    // A rack of nodes on one switch needs no spine: with `Tiers::Auto`, when one switch per
    // plane has a port for every NIC port (and there is one rail, or the ports need not be
    // spread over rails), that switch is the whole fabric.
    if spec.tiers == Tiers::Auto
        && (rails == 1 || !spec.rail_optimized)
        && endpoints_per_plane <= u64::from(radix)
    {
        return Ok(one_switch(spec, radix, port_gbps, nodes, rails));
    }

    // Leaves per plane. Rail-optimized: each rail needs ⌈nodes / down⌉ leaves, one per
    // scalable unit; top-of-rack: as many whole nodes per leaf as fit.
    let (leaves, scalable_units) = if spec.rail_optimized {
        let sus = nodes.div_ceil(u64::from(down));
        let su = ScalableUnits {
            count: sus,
            nodes_per_su: down,
            gpus_per_su: u64::from(down) * u64::from(spec.gpus_per_node),
            leaves_per_su: rails,
        };
        (sus * u64::from(rails), Some(su))
    } else {
        let per_leaf = down / rails;
        if per_leaf == 0 {
            return Err(FabricError::NodeDoesNotFitLeaf {
                ports_per_node: rails,
                leaf_down_ports: down,
            });
        }
        (nodes.div_ceil(u64::from(per_leaf)), None)
    };

    let k = u64::from(radix);
    let half = radix / 2;
    let too_large = |tiers: u8, max_leaves: u64| FabricError::TooLarge {
        tiers,
        radix,
        oversubscription: r,
        max_endpoints: max_leaves * u64::from(down),
        asked_endpoints: endpoints_per_plane,
        max_leaves,
        leaves_needed: leaves,
    };
    // Two tiers: a spine reaches each leaf with at least one port, so at most k leaves
    // (Al-Fares' leaf–spine limit k·(k/2) = k²/2 endpoints at 1:1).
    let fits_two = leaves <= k;
    // Three tiers: a pod holds k/2 leaves (one per spine down port) and a core reaches at
    // most k pods, so at most k·(k/2) leaves (k³/4 endpoints at 1:1).
    let max_leaves_three = k * u64::from(half);
    let fits_three = half >= 1 && leaves <= max_leaves_three;
    let tiers = match spec.tiers {
        Tiers::Two if fits_two => 2,
        Tiers::Two => return Err(too_large(2, k)),
        Tiers::Three if fits_three => 3,
        Tiers::Three => return Err(too_large(3, max_leaves_three)),
        Tiers::Auto if fits_two => 2,
        Tiers::Auto if fits_three => 3,
        Tiers::Auto => return Err(too_large(3, max_leaves_three)),
    };

    let planes = u64::from(spec.planes);
    let (spine, core, pods, leaves_per_pod, spines_per_pod, cores_per_group, spine_core) =
        if tiers == 2 {
            let spines = upper_switches(leaves, up, radix);
            let spine = SwitchTier {
                count: spines * planes,
                down_ports: radix,
                up_ports: 0,
            };
            (spine, None, None, leaves, spines, 0, 0)
        } else {
            let lpp = u64::from(half);
            let pods = leaves.div_ceil(lpp);
            // Al-Fares: every leaf of a pod reaches every spine of the pod once, so a pod
            // has as many spines as a leaf has uplinks.
            let spines_per_pod = u64::from(up);
            let spines = pods * spines_per_pod;
            // Core group j joins spine j of every pod; each of its cores has k ports.
            let cpg = upper_switches(pods, half, radix);
            let cores = u64::from(up) * cpg;
            let spine = SwitchTier {
                count: spines * planes,
                down_ports: half,
                up_ports: half,
            };
            let core = SwitchTier {
                count: cores * planes,
                down_ports: radix,
                up_ports: 0,
            };
            let spine_core = spines * u64::from(half);
            (
                spine,
                Some(core),
                Some(pods),
                lpp,
                spines_per_pod,
                cpg,
                spine_core,
            )
        };
    let leaf = SwitchTier {
        count: leaves * planes,
        down_ports: down,
        up_ports: up,
    };
    let switches = leaf.count + spine.count + core.as_ref().map_or(0, |c| c.count);

    let nic_leaf = endpoints_per_plane * planes;
    let leaf_spine = leaves * u64::from(up) * planes;
    let spine_core = spine_core * planes;
    let total = nic_leaf + leaf_spine + spine_core;
    let links = Links {
        nic_leaf,
        leaf_spine,
        spine_core,
        total,
    };
    let optics = Optics {
        optical_links: total,
        transceivers: 2 * total,
        assumption: OPTICS_ASSUMPTION,
    };

    let injection = endpoints_per_plane as f64 * spec.nic_port_gbps;
    let uplink = (leaves * u64::from(up)) as f64 * port_gbps;
    let bisection_gbps = injection.min(uplink) / 2.0 * planes as f64;

    let hops = HopCounts {
        same_leaf: 1,
        other_leaf: Some(3),
        other_pod: pods.is_some_and(|p| p > 1).then_some(5),
        other_rail_with_pxn: spec.rail_optimized.then_some(1),
    };

    Ok(Fabric {
        spec: spec.clone(),
        tiers,
        nodes,
        rails,
        endpoints: nic_leaf,
        radix,
        switch_port_gbps: port_gbps,
        leaf,
        spine,
        core,
        switches,
        pods,
        leaves_per_pod,
        spines_per_pod,
        cores_per_group,
        links,
        optics,
        bisection_gbps,
        bisection_definition: BISECTION_DEFINITION,
        hops,
        scalable_units,
    })
}

/// The fabric of one switch per plane, every port facing the nodes: no uplinks, no spines.
fn one_switch(spec: &FabricSpec, radix: u32, port_gbps: f64, nodes: u64, rails: u32) -> Fabric {
    let planes = u64::from(spec.planes);
    let nic_leaf = nodes * u64::from(rails) * planes;
    let leaf = SwitchTier {
        count: planes,
        down_ports: radix,
        up_ports: 0,
    };
    let spine = SwitchTier {
        count: 0,
        down_ports: 0,
        up_ports: 0,
    };
    let links = Links {
        nic_leaf,
        leaf_spine: 0,
        spine_core: 0,
        total: nic_leaf,
    };
    let optics = Optics {
        optical_links: nic_leaf,
        transceivers: 2 * nic_leaf,
        assumption: OPTICS_ASSUMPTION,
    };
    // The switch itself is taken as non-blocking, so the NICs are the narrowest layer.
    let bisection_gbps = nic_leaf as f64 * spec.nic_port_gbps / 2.0;
    let scalable_units = spec.rail_optimized.then(|| ScalableUnits {
        count: 1,
        nodes_per_su: radix / rails.max(1),
        gpus_per_su: u64::from(radix / rails.max(1)) * u64::from(spec.gpus_per_node),
        leaves_per_su: rails,
    });
    Fabric {
        spec: spec.clone(),
        tiers: 1,
        nodes,
        rails,
        endpoints: nic_leaf,
        radix,
        switch_port_gbps: port_gbps,
        leaf,
        spine,
        core: None,
        switches: planes,
        pods: None,
        leaves_per_pod: 1,
        spines_per_pod: 0,
        cores_per_group: 0,
        links,
        optics,
        bisection_gbps,
        bisection_definition: BISECTION_DEFINITION,
        hops: HopCounts {
            same_leaf: 1,
            other_leaf: None,
            other_pod: None,
            other_rail_with_pxn: spec.rail_optimized.then_some(1),
        },
        scalable_units,
    }
}
