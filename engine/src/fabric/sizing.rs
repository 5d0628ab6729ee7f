//! Sizing a fabric from its parts.
//!
//! Two tiers follow the leaf–spine (folded Clos) shape; three tiers follow the k-ary
//! fat-tree of M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center
//! Network Architecture", SIGCOMM 2008, pp. 63–74: with k-port switches, k pods of k/2
//! edge and k/2 aggregation switches, (k/2)² core switches, k³/4 hosts and 5k²/4
//! switches. Here the edge switch is the *leaf*, the aggregation switch the *spine* and the
//! top tier the *core*. The leaf is the only tier that may be oversubscribed; spines and
//! cores are 1:1.
//!
//! Leaves are counted by the shape (one per rail and scalable unit, or as many whole
//! nodes per top-of-rack leaf as fit), but every tier above them is sized for the ports in
//! use: a leaf cables as many uplinks as its cabled down ports need at the asked
//! oversubscription (2 down ports at 1:1 need 2 uplinks, not the 32 its port split has room
//! for), spines and cores get ports for those uplinks, and links and optics are counted
//! over the cables that exist. Where every leaf is full this is the fat-tree above; a
//! partly filled scalable unit or pod is cabled for its nodes. NVIDIA builds a partly
//! filled scalable unit in full instead, to grow into; [`Fabric::full_units`] gives those
//! counts beside these.

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

/// One tier of switches: how many, how each one's ports are split, and how many of them
/// carry a cable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwitchTier {
    /// Switches in this tier over all planes.
    pub count: u64,
    /// Ports per switch facing the tier below (or the NICs, for a leaf).
    pub down_ports: u32,
    /// Ports per switch facing the tier above; 0 at the top tier.
    pub up_ports: u32,
    /// Down ports cabled on the busiest switch of the tier; fewer than `down_ports` when
    /// the nodes do not fill it.
    pub down_used: u32,
    /// Up ports cabled on that switch: what its cabled down ports need at the tier's
    /// ratio, rounded up so it reaches every switch above it over as many links.
    pub up_used: u32,
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
    /// Spines per pod (3 tiers) or in all (2 tiers), per plane. With 3 tiers every pod has
    /// as many as the fullest leaf needs uplinks, a partly filled last pod too, so that
    /// pods stay alike for the paths.
    pub spines_per_pod: u64,
    /// Cores in each of the `spines_per_pod` core groups of a 3-tier fabric, per plane
    /// (core group j joins spine j of every pod).
    pub cores_per_group: u64,
    pub links: Links,
    pub optics: Optics,
    pub bisection_gbps: f64,
    pub bisection_definition: &'static str,
    pub hops: HopCounts,
    /// `Some` only when rail-optimized.
    pub scalable_units: Option<ScalableUnits>,
    /// More than one switch per plane was sized, yet every NIC port of a plane fits one
    /// switch of this radix, which would put every port one hop from every other: rail
    /// optimization (or the tiers asked for) is what costs the rest.
    pub one_switch_would_serve: bool,
    /// Rail-optimized with every node in one scalable unit: each rail's ports share one
    /// leaf, so the tiers above the leaves carry only traffic between rails. NCCL's PXN
    /// moves such traffic over NVLink to the GPU on the destination's rail first (NCCL
    /// User Guide, `NCCL_PXN_DISABLE`, on by default since 2.12), and "rail-only" designs
    /// drop the spines for that reason (W. Wang, M. Ghobadi, K. Shakeri, Y. Zhang, N.
    /// Hasani, "Rail-only: A Low-Cost High-Performance Network for Training LLMs with
    /// Trillion Parameters", arXiv:2307.12169): traffic that does not go through PXN
    /// (NCCL with it disabled, GPUs without NVLink, other programs) still needs them.
    pub spines_only_between_rails: bool,
    /// The upper tiers as NVIDIA builds them when the last scalable unit is partly filled,
    /// `None` when that is what was sized. NVIDIA, "DGX SuperPOD Reference Architecture,
    /// DGX H100", "Network Fabrics": for a node count short of whole scalable units "the
    /// fabric should be designed to support the full SU, including leaf switches and
    /// leaf-spine cables", leaving unused the ports where the missing nodes would go, so
    /// routing and performance are alike everywhere and the fabric can grow.
    pub full_units: Option<FullUnits>,
}

/// Counts with the last scalable unit's leaves cabled up as if it were full (see
/// [`Fabric::full_units`]); NIC cables only for the nodes there are. Over all planes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FullUnits {
    pub spines: u64,
    pub cores: u64,
    pub switches: u64,
    pub links: Links,
    /// Two per link, under [`OPTICS_ASSUMPTION`].
    pub transceivers: u64,
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

/// Switches of one tier alike in what they carry: `count` of them (per plane), each with
/// `used` ports cabled below and needing `uplinks` ports cabled above.
#[derive(Debug, Clone, Copy)]
struct Alike {
    count: u64,
    used: u32,
    uplinks: u32,
}

/// The tier above sized for the uplinks the tier below needs.
#[derive(Debug, Clone, Copy)]
struct Spread {
    /// Switches above, per plane.
    uppers: u64,
    /// Links between the two tiers, per plane.
    links: u64,
    /// Down ports cabled on each switch above.
    upper_down_used: u32,
    /// Up ports cabled on the busiest switch below.
    lower_up_used: u32,
}

/// Uplinks a leaf with `used` cabled down ports needs at oversubscription `r`: ⌈used / r⌉,
/// at least one, at most the `up` ports its split has.
fn uplinks_needed(used: u32, r: f64, up: u32) -> u32 {
    // The epsilon keeps an exact ratio such as 128 / (16/15) = 120 from rounding up to 121.
    let need = (f64::from(used) / r - 1e-9).ceil().max(1.0) as u32;
    need.min(up)
}

/// The fewest switches above, s, for switches below that each reach every switch above
/// over the same number of parallel links, m = ⌈uplinks / s⌉, so each cables s·m ≥ its
/// uplinks. s starts at ⌈Σ uplinks / radix⌉ and grows until every switch below has s·m up
/// ports (`max_up`) and every switch above has a port for each of its Σ m links. When every
/// switch below needs all `max_up` of its ports this is the fewest divisor of `max_up`
/// that gives every uplink a port, as NVIDIA's DGX SuperPOD H100 table of compute fabric
/// parts has it (3 SUs: 24 leaves on 16 spines, not 12, as 32 uplinks do not split evenly
/// over 12).
fn spread(below: &[Alike], max_up: u32, radix: u32) -> Spread {
    let links_each = |s: u32, b: &Alike| b.uplinks.div_ceil(s);
    let down_used = |s: u32| -> u64 {
        below
            .iter()
            .map(|b| b.count * u64::from(links_each(s, b)))
            .sum()
    };
    let fits = |s: u32| {
        below.iter().all(|b| s * links_each(s, b) <= max_up) && down_used(s) <= u64::from(radix)
    };
    let uplinks: u64 = below.iter().map(|b| b.count * u64::from(b.uplinks)).sum();
    let need = uplinks.div_ceil(u64::from(radix)).max(1);
    let need = u32::try_from(need).unwrap_or(max_up).min(max_up);
    // s = max_up always fits when no more switches are below than an upper has ports (one
    // link each), which the tier counts in `build` ensure.
    let s = (need..=max_up).find(|&s| fits(s)).unwrap_or(max_up);
    Spread {
        uppers: u64::from(s),
        links: u64::from(s) * down_used(s),
        // At most `radix` once `fits`; clamped only for the fallback.
        upper_down_used: down_used(s).min(u64::from(u32::MAX)) as u32,
        lower_up_used: below
            .iter()
            .map(|b| s * links_each(s, b))
            .max()
            .unwrap_or(0),
    }
}

/// `total` shared out `per` at a time: (how many full shares, `per`), then (1, what is
/// left) for the one partly filled share, or (0, 0) when there is none.
fn full_then_rest(total: u64, per: u64) -> [(u64, u64); 2] {
    [
        (total / per, per),
        (u64::from(!total.is_multiple_of(per)), total % per),
    ]
}

/// The leaves of one plane by the down ports they cable. Rail-optimized: each full
/// scalable unit's `rails` leaves take `down` nodes, the last unit's take the rest.
/// Top-of-rack: each leaf takes `per_leaf` whole nodes, the last one the rest.
fn leaf_loads(
    nodes: u64,
    rails: u32,
    down: u32,
    rail_optimized: bool,
    r: f64,
    up: u32,
) -> Vec<Alike> {
    let groups = if rail_optimized {
        full_then_rest(nodes, u64::from(down))
            .map(|(units, nodes_each)| (units * u64::from(rails), nodes_each))
    } else {
        let per_leaf = u64::from(down / rails);
        full_then_rest(nodes, per_leaf)
            .map(|(leaves, nodes_each)| (leaves, nodes_each * u64::from(rails)))
    };
    groups
        .into_iter()
        .filter(|&(count, used)| count > 0 && used > 0)
        .map(|(count, used)| {
            // A leaf's cabled ports never exceed its down ports, which are a u32.
            let used = used as u32;
            Alike {
                count,
                used,
                uplinks: uplinks_needed(used, r, up),
            }
        })
        .collect()
}

/// The upper tiers of one plane and the links between the tiers.
struct Upper {
    spine: SwitchTier,
    core: Option<SwitchTier>,
    /// Uplinks cabled on the busiest leaf.
    leaf_up_used: u32,
    pods: Option<u64>,
    leaves_per_pod: u64,
    spines_per_pod: u64,
    cores_per_group: u64,
    leaf_spine: u64,
    spine_core: u64,
}

/// Two tiers: every leaf reaches every spine over as many links (see [`spread`]).
fn two_tiers(leaves: &[Alike], up: u32, radix: u32) -> Upper {
    let s = spread(leaves, up, radix);
    Upper {
        spine: SwitchTier {
            count: s.uppers,
            down_ports: radix,
            up_ports: 0,
            down_used: s.upper_down_used,
            up_used: 0,
        },
        core: None,
        leaf_up_used: s.lower_up_used,
        pods: None,
        leaves_per_pod: leaves.iter().map(|l| l.count).sum(),
        spines_per_pod: s.uppers,
        cores_per_group: 0,
        leaf_spine: s.links,
        spine_core: 0,
    }
}

/// Three tiers after Al-Fares: a pod of k/2 leaves, each leaf reaching each spine of its
/// pod once, so a pod has as many spines as the fullest leaf needs uplinks; spine j of
/// every pod joins core group j. Spines are 1:1: a spine sends up as many links as it has
/// leaves below, spread over its group's cores as leaves are over spines.
fn three_tiers(leaves: &[Alike], radix: u32) -> Upper {
    let half = radix / 2;
    let lpp = u64::from(half);
    let leaf_count: u64 = leaves.iter().map(|l| l.count).sum();
    let spines_per_pod = leaves.iter().map(|l| l.uplinks).max().unwrap_or(1);
    let pods = leaf_count.div_ceil(lpp);
    // Spine j of each pod, by how many leaves are below it.
    let pod_spines: Vec<Alike> = full_then_rest(leaf_count, lpp)
        .into_iter()
        .filter(|&(count, leaves)| count > 0 && leaves > 0)
        .map(|(count, leaves)| Alike {
            count,
            used: leaves as u32,
            uplinks: leaves as u32,
        })
        .collect();
    let group = spread(&pod_spines, half, radix);
    let groups = u64::from(spines_per_pod);
    Upper {
        spine: SwitchTier {
            count: pods * groups,
            down_ports: half,
            up_ports: half,
            down_used: pod_spines.iter().map(|p| p.used).max().unwrap_or(0),
            up_used: group.lower_up_used,
        },
        core: Some(SwitchTier {
            count: groups * group.uppers,
            down_ports: radix,
            up_ports: 0,
            down_used: group.upper_down_used,
            up_used: 0,
        }),
        leaf_up_used: spines_per_pod,
        pods: Some(pods),
        leaves_per_pod: lpp,
        spines_per_pod: groups,
        cores_per_group: group.uppers,
        leaf_spine: leaf_count * groups,
        spine_core: groups * group.links,
    }
}

/// Sizes the fabric, or says which constraint the parts cannot meet.
///
/// Leaves follow the shape asked (one per rail and scalable unit, or whole nodes per
/// top-of-rack leaf); spines, cores, links and optics follow the ports in use (see the
/// module's text). With [`Tiers::Auto`] a fabric whose NIC ports all fit one switch is
/// that switch, unless rail optimization spreads them over rails; then
/// [`Fabric::one_switch_would_serve`] says so.
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

    let loads = leaf_loads(nodes, rails, down, spec.rail_optimized, r, up);
    let upper = if tiers == 2 {
        two_tiers(&loads, up, radix)
    } else {
        three_tiers(&loads, radix)
    };
    let planes = u64::from(spec.planes);
    let all_planes = |t: SwitchTier| SwitchTier {
        count: t.count * planes,
        ..t
    };
    let leaf = all_planes(SwitchTier {
        count: leaves,
        down_ports: down,
        up_ports: up,
        down_used: loads.iter().map(|l| l.used).max().unwrap_or(0),
        up_used: upper.leaf_up_used,
    });
    let spine = all_planes(upper.spine);
    let core = upper.core.map(all_planes);
    let switches = leaf.count + spine.count + core.as_ref().map_or(0, |c| c.count);

    let links = links(
        endpoints_per_plane * planes,
        upper.leaf_spine * planes,
        upper.spine_core * planes,
    );
    let optics = optics(links.total);

    let injection = endpoints_per_plane as f64 * spec.nic_port_gbps;
    let uplink = upper.leaf_spine as f64 * port_gbps;
    let bisection_gbps = injection.min(uplink) / 2.0 * planes as f64;

    let hops = HopCounts {
        same_leaf: 1,
        other_leaf: Some(3),
        other_pod: upper.pods.is_some_and(|p| p > 1).then_some(5),
        other_rail_with_pxn: spec.rail_optimized.then_some(1),
    };
    let one_unit = scalable_units.as_ref().is_some_and(|su| su.count == 1);

    let mut fabric = Fabric {
        spec: spec.clone(),
        tiers,
        nodes,
        rails,
        endpoints: links.nic_leaf,
        radix,
        switch_port_gbps: port_gbps,
        leaf,
        spine,
        core,
        switches,
        pods: upper.pods,
        leaves_per_pod: upper.leaves_per_pod,
        spines_per_pod: upper.spines_per_pod,
        cores_per_group: upper.cores_per_group,
        links,
        optics,
        bisection_gbps,
        bisection_definition: BISECTION_DEFINITION,
        hops,
        scalable_units,
        one_switch_would_serve: endpoints_per_plane <= k,
        spines_only_between_rails: one_unit,
        full_units: None,
    };
    fabric.full_units = full_units(&fabric);
    Ok(fabric)
}

fn links(nic_leaf: u64, leaf_spine: u64, spine_core: u64) -> Links {
    Links {
        nic_leaf,
        leaf_spine,
        spine_core,
        total: nic_leaf + leaf_spine + spine_core,
    }
}

fn optics(links: u64) -> Optics {
    Optics {
        optical_links: links,
        transceivers: 2 * links,
        assumption: OPTICS_ASSUMPTION,
    }
}

/// The same fabric with its last scalable unit filled with nodes, less their NIC cables:
/// NVIDIA's way of building a partly filled unit (see [`Fabric::full_units`]). `None`
/// when every unit is full, when the full fabric would be out of range, or when it cables
/// no more than `f` does.
fn full_units(f: &Fabric) -> Option<FullUnits> {
    let su = f.scalable_units.as_ref()?;
    let nodes_in_full = su.count * u64::from(su.nodes_per_su);
    if nodes_in_full == f.nodes {
        return None;
    }
    let gpus = u32::try_from(nodes_in_full * u64::from(f.spec.gpus_per_node)).ok()?;
    let full = build(&FabricSpec {
        gpus,
        ..f.spec.clone()
    })
    .ok()?;
    let links = links(
        f.links.nic_leaf,
        full.links.leaf_spine,
        full.links.spine_core,
    );
    (links.total > f.links.total).then(|| FullUnits {
        spines: full.spine.count,
        cores: full.core.as_ref().map_or(0, |c| c.count),
        switches: full.switches,
        transceivers: 2 * links.total,
        links,
    })
}

/// The fabric of one switch per plane, every port facing the nodes: no uplinks, no spines.
fn one_switch(spec: &FabricSpec, radix: u32, port_gbps: f64, nodes: u64, rails: u32) -> Fabric {
    let planes = u64::from(spec.planes);
    let per_plane = nodes * u64::from(rails);
    let leaf = SwitchTier {
        count: planes,
        down_ports: radix,
        up_ports: 0,
        // The caller has checked that every NIC port of a plane fits the switch.
        down_used: per_plane as u32,
        up_used: 0,
    };
    let spine = SwitchTier {
        count: 0,
        down_ports: 0,
        up_ports: 0,
        down_used: 0,
        up_used: 0,
    };
    let links = links(per_plane * planes, 0, 0);
    let optics = optics(links.total);
    // The switch itself is taken as non-blocking, so the NICs are the narrowest layer.
    let bisection_gbps = links.nic_leaf as f64 * spec.nic_port_gbps / 2.0;
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
        endpoints: links.nic_leaf,
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
        // It is one switch already.
        one_switch_would_serve: false,
        spines_only_between_rails: false,
        full_units: None,
    }
}
