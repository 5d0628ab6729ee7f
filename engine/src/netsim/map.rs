//! The fabric as the lab page draws it: every node in its tier, and every cable as the two
//! ports (one per direction) whose series a [`Report`](super::Report) carries under the same
//! index in `links`.

use super::scenario::Scenario;
use super::topology::{NodeKind, Topology};
use super::SimError;

/// The row a node is drawn in, from the bottom up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// A server's NVLink switch, under its GPUs.
    NvLink,
    Host,
    /// A leaf, or the one switch of a dumbbell or a ring.
    Leaf,
    Spine,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MapNode {
    pub kind: NodeKind,
    pub tier: Tier,
    pub label: String,
    /// The node's place in its tier, from the left.
    pub slot: u32,
}

/// One cable: `ports[0]` sends from `ends[0]` to `ends[1]`, `ports[1]` back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cable {
    pub ends: [u32; 2],
    pub ports: [u32; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct FabricMap {
    pub nodes: Vec<MapNode>,
    pub cables: Vec<Cable>,
    /// Nodes in the widest tier.
    pub width: u32,
}

impl FabricMap {
    /// The map of the fabric `scenario` runs on (the same graph the simulator builds).
    pub fn of(scenario: &Scenario) -> Result<FabricMap, SimError> {
        let topo = Topology::build(&scenario.topology)?;
        let mut next_slot = [0u32; 4];
        let nodes: Vec<MapNode> = topo
            .nodes
            .iter()
            .map(|n| {
                let tier = match n.kind {
                    NodeKind::Host => Tier::Host,
                    NodeKind::NvSwitch => Tier::NvLink,
                    NodeKind::Leaf | NodeKind::Switch => Tier::Leaf,
                    NodeKind::Spine => Tier::Spine,
                };
                let slot = next_slot[tier as usize];
                next_slot[tier as usize] += 1;
                MapNode {
                    kind: n.kind,
                    tier,
                    label: n.label.clone(),
                    slot,
                }
            })
            .collect();
        let cables = (0..topo.ports.len() as u32)
            .filter_map(|p| {
                let port = &topo.ports[p as usize];
                (p < port.peer).then(|| Cable {
                    ends: [port.node, topo.far_node(p)],
                    ports: [p, port.peer],
                })
            })
            .collect();
        Ok(FabricMap {
            nodes,
            cables,
            width: next_slot.into_iter().max().unwrap_or(0),
        })
    }

    /// How many nodes `tier` holds.
    pub fn tier_len(&self, tier: Tier) -> u32 {
        self.nodes.iter().filter(|n| n.tier == tier).count() as u32
    }

    /// The cables a flow's path (indices into the report's links) crosses.
    pub fn cables_on(&self, path: &[u32]) -> Vec<usize> {
        self.cables
            .iter()
            .enumerate()
            .filter(|(_, c)| c.ports.iter().any(|p| path.contains(p)))
            .map(|(i, _)| i)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netsim::{named_scenario, simulate, Limits};

    #[test]
    fn every_port_is_one_direction_of_one_cable() {
        let s = named_scenario("ring-deadlock").unwrap();
        let map = FabricMap::of(&s).unwrap();
        let report = simulate(&s, &Limits::default()).unwrap();
        let mut seen: Vec<u32> = map.cables.iter().flat_map(|c| c.ports).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..report.links.len() as u32).collect::<Vec<_>>());
        for c in &map.cables {
            let there = &report.links[c.ports[0] as usize];
            let back = &report.links[c.ports[1] as usize];
            assert_eq!(there.from, map.nodes[c.ends[0] as usize].label);
            assert_eq!(there.to, map.nodes[c.ends[1] as usize].label);
            assert_eq!(
                (back.from.as_str(), back.to.as_str()),
                (there.to.as_str(), there.from.as_str())
            );
        }
        // Four switches in one row, two hosts under each.
        assert_eq!(map.tier_len(Tier::Leaf), 4);
        assert_eq!(map.tier_len(Tier::Host), 8);
        assert_eq!(map.width, 8);
    }

    #[test]
    fn a_gpu_fabric_has_its_tiers_and_a_flow_its_cables() {
        let s = named_scenario("ecmp-collision").unwrap();
        let map = FabricMap::of(&s).unwrap();
        assert!(map.tier_len(Tier::Spine) > 0 && map.tier_len(Tier::Leaf) > 0);
        let report = simulate(&s, &Limits::default()).unwrap();
        let path = report.flows[0]
            .path
            .clone()
            .expect("ECMP gives each flow one path");
        let cables = map.cables_on(&path);
        // Host → leaf → spine → leaf → host: four cables.
        assert_eq!(cables.len(), path.len());
    }

    #[test]
    fn pfc_runs_report_the_share_of_each_interval_paused() {
        let s = named_scenario("ring-deadlock").unwrap();
        let report = simulate(&s, &Limits::default()).unwrap();
        let held: f64 = report
            .links
            .iter()
            .map(|l| {
                assert_eq!(l.paused_share.len(), report.time_us.len());
                assert!(l
                    .paused_share
                    .iter()
                    .all(|x| (0.0..=1.0 + 1e-6).contains(x)));
                l.paused_share.iter().map(|&x| f64::from(x)).sum::<f64>()
            })
            .sum();
        assert!(held > 0.0, "a deadlocked ring holds its senders");
        let series: f64 = crate::netsim::paused_series(&report).iter().sum();
        assert!((series - held).abs() < 1e-3, "{series} vs {held}");
    }
}
