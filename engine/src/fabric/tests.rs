//! Tests against the cited figures and the model's own invariants; no expected value here
//! is a copy of this module's output.

use super::*;
use proptest::prelude::*;

/// One GPU and one NIC per node: an endpoint per GPU, as in the fat-tree paper.
fn hosts(gpus: u32, switch_ports: u32, tiers: Tiers) -> FabricSpec {
    FabricSpec {
        gpus,
        gpus_per_node: 1,
        nics_per_node: 1,
        nic_ports: 1,
        nic_port_gbps: 400.0,
        switch_ports,
        switch_port_gbps: 400.0,
        switch_port_split: 1,
        tiers,
        oversubscription: 1.0,
        rail_optimized: false,
        planes: 1,
    }
}

/// DGX H100-like nodes: 8 GPUs, 8 × 400G NICs, on 64 × 400G switches, rail-optimized.
fn dgx(gpus: u32) -> FabricSpec {
    FabricSpec {
        gpus,
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

#[test]
fn two_tier_leaf_spine_of_64_port_switches_holds_k_squared_over_2() {
    // Al-Fares et al., SIGCOMM 2008: the two lower tiers of a k-ary fat-tree, k = 64: k²/2 = 2,048
    // endpoints on k = 64 leaves and k/2 = 32 spines.
    let f = build(&hosts(2048, 64, Tiers::Two)).unwrap();
    assert_eq!(f.tiers, 2);
    assert_eq!(f.endpoints, 2048);
    assert_eq!(f.leaf.count, 64);
    assert_eq!(f.spine.count, 32);
    assert_eq!(f.core, None);

    let err = build(&hosts(2049, 64, Tiers::Two)).unwrap_err();
    assert!(matches!(
        err,
        FabricError::TooLarge {
            tiers: 2,
            max_endpoints: 2048,
            asked_endpoints: 2049,
            ..
        }
    ));
    let text = err.to_string();
    assert!(
        text.contains("2-tier fabric of 64-port switches at 1:1 holds at most 2048 endpoints"),
        "{text}"
    );
    assert!(text.contains("2049 asked"), "{text}");
}

#[test]
fn three_tier_fat_tree_k48_holds_27648_hosts_on_2880_switches() {
    // Al-Fares et al., SIGCOMM 2008: k³/4 = 27,648 hosts, 5k²/4 = 2,880 switches for k = 48; of them
    // k²/2 = 1,152 edge, 1,152 aggregation and (k/2)² = 576 core.
    let f = build(&hosts(27_648, 48, Tiers::Three)).unwrap();
    assert_eq!(f.tiers, 3);
    assert_eq!(f.endpoints, 27_648);
    assert_eq!(f.switches, 2_880);
    assert_eq!(f.leaf.count, 1_152);
    assert_eq!(f.spine.count, 1_152);
    assert_eq!(f.core.as_ref().map(|c| c.count), Some(576));
    assert_eq!(f.pods, Some(48));
    // Every switch port is cabled in a full fat-tree: k ports on each of 5k²/4 switches,
    // each cable using two switch ports except the k³/4 host cables, which use one.
    let switch_ports_used = 2 * (f.links.leaf_spine + f.links.spine_core) + f.links.nic_leaf;
    assert_eq!(switch_ports_used, 2_880 * 48);

    let err = build(&hosts(27_649, 48, Tiers::Auto)).unwrap_err();
    assert!(matches!(
        err,
        FabricError::TooLarge {
            tiers: 3,
            max_endpoints: 27_648,
            ..
        }
    ));
}

#[test]
fn auto_takes_the_fewest_tiers_that_fit() {
    assert_eq!(build(&hosts(2048, 64, Tiers::Auto)).unwrap().tiers, 2);
    assert_eq!(build(&hosts(2049, 64, Tiers::Auto)).unwrap().tiers, 3);
}

#[test]
fn dgx_1024_gpus_rail_optimized_on_64_port_400g_switches() {
    // By hand: 1,024 GPUs / 8 = 128 nodes, 8 rails. A 64-port leaf at 1:1 has 32 ports
    // down and 32 up, so a scalable unit is 32 nodes (256 GPUs) and 4 units are needed;
    // each unit has one leaf per rail: 4 × 8 = 32 leaves. Their 32 × 32 = 1,024 uplinks
    // fill 1,024 / 64 = 16 spines, and 32 leaves ≤ 64 fit two tiers. Cables: 1,024 NIC to
    // leaf + 1,024 leaf to spine = 2,048, so 4,096 transceivers. Bisection: half of
    // 1,024 × 400 Gb/s = 204,800 Gb/s each way. NVIDIA's DGX SuperPOD H100 RA, Table 4,
    // 4-SU row: 32 leaves, 16 spines, 1,024 spine–leaf cables.
    let f = build(&dgx(1024)).unwrap();
    assert_eq!(f.nodes, 128);
    assert_eq!(f.rails, 8);
    assert_eq!(f.tiers, 2);
    assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (32, 32));
    let su = f.scalable_units.as_ref().unwrap();
    assert_eq!(
        (su.count, su.nodes_per_su, su.gpus_per_su, su.leaves_per_su),
        (4, 32, 256, 8)
    );
    assert_eq!(f.leaf.count, 32);
    assert_eq!(f.spine.count, 16);
    assert_eq!(f.switches, 48);
    assert_eq!(f.links.nic_leaf, 1024);
    assert_eq!(f.links.leaf_spine, 1024);
    assert_eq!(f.links.total, 2048);
    assert_eq!(f.optics.transceivers, 4096);
    assert_eq!(f.bisection_gbps, 204_800.0);
}

#[test]
fn nvidia_superpod_h100_table_4_compute_fabric() {
    // DGX SuperPOD H100 RA, "Network Fabrics", Table 4: 1–4 SUs of 31, 63, 95, 127 nodes
    // (one node's place per SU goes to UFM) → 8/16/24/32 leaves, 4/8/16/16 spines,
    // 256/512/768/1,024 spine–leaf cables. The 3-SU row has 16 spines, not 12, because
    // 32 uplinks do not split evenly over 12.
    for (nodes, leaves, spines, cables) in [
        (31, 8, 4, 256),
        (63, 16, 8, 512),
        (95, 24, 16, 768),
        (127, 32, 16, 1024),
    ] {
        let f = build(&dgx(nodes * 8)).unwrap();
        assert_eq!(f.leaf.count, leaves, "{nodes} nodes");
        assert_eq!(f.spine.count, spines, "{nodes} nodes");
        assert_eq!(f.links.leaf_spine, cables, "{nodes} nodes");
        assert_eq!(f.links.nic_leaf, u64::from(nodes) * 8, "{nodes} nodes");
    }
}

#[test]
fn nvidia_superpod_b200_larger_configurations_take_a_core_tier() {
    // DGX SuperPOD B200 RA, "DGX SuperPOD Architecture", table of larger component counts:
    // 8 SUs (256 nodes, 2,048 GPUs): 64 leaves, 32 spines, no core; 16 SUs (4,096 GPUs):
    // 128 leaves, 128 spines, 64 cores and 4,096 cables in each tier; 32 SUs: 256, 256,
    // 128; 64 SUs (16,384 GPUs): 512, 512, 256. The page gives no radix or NIC speed; the
    // 8 × 400G nodes on 64-port switches are this test's assumption, the same as the H100
    // design above (it matches the table's 32 nodes and 8 leaves per SU).
    let f = build(&dgx(2048)).unwrap();
    assert_eq!((f.tiers, f.leaf.count, f.spine.count), (2, 64, 32));
    for (gpus, leaves, spines, cores) in [
        (4096, 128, 128, 64),
        (8192, 256, 256, 128),
        (16_384, 512, 512, 256),
    ] {
        let f = build(&dgx(gpus)).unwrap();
        assert_eq!(f.tiers, 3, "{gpus} GPUs");
        assert_eq!(f.leaf.count, leaves, "{gpus} GPUs");
        assert_eq!(f.spine.count, spines, "{gpus} GPUs");
        assert_eq!(f.core.as_ref().map(|c| c.count), Some(cores), "{gpus} GPUs");
        let cables = u64::from(gpus);
        assert_eq!(
            (f.links.nic_leaf, f.links.leaf_spine, f.links.spine_core),
            (cables, cables, cables),
            "{gpus} GPUs"
        );
    }
}

#[test]
fn two_rail_optimized_nodes_are_sized_for_their_16_ports() {
    // Issue #32: 2 DGX-like nodes, 8 rails, 64-port switches at 1:1. Each rail's leaf takes
    // 2 NIC ports, so at 1:1 it needs 2 uplinks, not the 32 its port split has room for:
    // 8 leaves × 2 = 16 uplinks fill one 64-port spine. Cables: 16 NIC to leaf + 16 leaf
    // to spine = 32, two transceivers each = 64.
    let f = build(&dgx(16)).unwrap();
    assert_eq!((f.tiers, f.nodes, f.rails), (2, 2, 8));
    assert!(f.links.leaf_spine <= 16, "{:?}", f.links);
    assert!(f.optics.transceivers <= 64, "{:?}", f.optics);
    assert_eq!(f.leaf.count, 8, "one leaf per rail");
    assert_eq!((f.leaf.down_used, f.leaf.up_used), (2, 2));
    // The port split stays the switch's: room for 32 nodes per leaf.
    assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (32, 32));
    assert_eq!(f.spine.count, 1);
    assert_eq!(f.spine.down_used, 16);
    assert_eq!(
        (f.links.nic_leaf, f.links.leaf_spine, f.links.total),
        (16, 16, 32)
    );
    assert_eq!(f.optics.transceivers, 64);
    // Half of 16 × 400 Gb/s: the 16 uplinks carry as much as the 16 NIC ports.
    assert_eq!(f.bisection_gbps, 3_200.0);
}

#[test]
fn a_partly_filled_unit_is_cabled_for_its_nodes_and_spreads_evenly_over_the_spines() {
    // 33 nodes: unit 0 full (8 leaves of 32 nodes, 32 uplinks each), unit 1 one node
    // (8 leaves of 1, 1 uplink needed each). 264 uplinks need ⌈264 / 64⌉ = 5 spines, but
    // a full leaf's 32 uplinks split evenly only over 8 (5, 6 and 7 leave it short), so 8
    // spines; each one-node leaf then reaches every spine once: 8 uplinks. Leaf–spine:
    // 8 × 32 + 8 × 8 = 320, not the 16 × 32 = 512 of two full units.
    let f = build(&dgx(33 * 8)).unwrap();
    assert_eq!((f.leaf.count, f.spine.count), (16, 8));
    assert_eq!(f.links.leaf_spine, 320);
    assert_eq!(f.links.nic_leaf, 264);
    assert_eq!(f.optics.transceivers, 2 * (264 + 320));
    assert_eq!((f.leaf.down_used, f.leaf.up_used), (32, 32));
}

#[test]
fn three_tiers_cable_only_the_pods_in_use() {
    // 2,049 hosts of one port on 64-port switches: 65 leaves (64 of 32 hosts, one of 1),
    // three tiers, pods of 32 leaves: 3 pods, the last with one leaf. Every leaf reaches
    // each of its pod's 32 spines once (Al-Fares), so leaf–spine = 65 × 32. Each spine
    // sends up as many links as it has leaves below (1:1): 32, 32 and 1 per spine index, 65
    // per core group, which needs ⌈65 / 64⌉ = 2 cores; 2 divides a spine's 32 up ports and
    // the one-leaf pod's spine reaches both cores once. Spine–core = 32 × (32 + 32 + 2).
    let f = build(&hosts(2049, 64, Tiers::Auto)).unwrap();
    assert_eq!((f.tiers, f.leaf.count, f.pods), (3, 65, Some(3)));
    assert_eq!(f.spines_per_pod, 32);
    assert_eq!(f.links.leaf_spine, 65 * 32);
    assert_eq!(f.cores_per_group, 2);
    assert_eq!(f.links.spine_core, 32 * (32 + 32 + 2));
    assert_eq!(f.core.as_ref().map(|c| c.count), Some(64));
}

#[test]
fn a_small_rail_optimized_fabric_says_what_fewer_switches_would_do() {
    // 2 nodes × 8 rails = 16 NIC ports: they fit one 64-port switch, and all 16 sit in
    // one scalable unit, so the spine carries only traffic between rails.
    let f = build(&dgx(16)).unwrap();
    assert!(f.one_switch_would_serve);
    assert!(f.spines_only_between_rails);
    // NVIDIA's RA cables the partly filled unit as a full one: the Table 4 1-SU row's
    // 4 spines and 256 spine–leaf cables, with NIC cables only for the 16 ports there are.
    let full = f.full_units.as_ref().expect("the unit is partly filled");
    assert_eq!((full.spines, full.cores, full.switches), (4, 0, 12));
    assert_eq!((full.links.nic_leaf, full.links.leaf_spine), (16, 256));
    assert_eq!(full.transceivers, 2 * (16 + 256));

    // Table 4's 1-SU row (31 nodes, one place to UFM) is cabled as a full unit already.
    let su1 = build(&dgx(31 * 8)).unwrap();
    assert_eq!(su1.full_units, None);
    assert!(su1.spines_only_between_rails);
    assert!(!su1.one_switch_would_serve, "248 ports do not fit 64");
    // Four units: traffic of one rail crosses the spines between units.
    let su4 = build(&dgx(1024)).unwrap();
    assert!(!su4.spines_only_between_rails && !su4.one_switch_would_serve);
    assert_eq!(su4.full_units, None);

    // Top-of-rack with the fewest tiers is one switch already; asking for two tiers builds
    // a spine the ports did not need, and the fabric says so.
    let rack = build(&hosts(8, 64, Tiers::Auto)).unwrap();
    assert_eq!(rack.tiers, 1);
    assert!(!rack.one_switch_would_serve);
    let two = build(&hosts(8, 64, Tiers::Two)).unwrap();
    assert_eq!(two.switches, 2);
    assert!(two.one_switch_would_serve);
    assert!(!two.spines_only_between_rails, "not rail-optimized");
}

#[test]
fn split_ports_double_the_radix_at_half_the_speed() {
    // 64 × 400G used as 128 × 200G: k = 128, so two tiers hold k²/2 = 8,192 endpoints.
    let mut spec = hosts(8192, 64, Tiers::Two);
    spec.switch_port_split = 2;
    spec.nic_port_gbps = 200.0;
    let f = build(&spec).unwrap();
    assert_eq!(f.radix, 128);
    assert_eq!(f.switch_port_gbps, 200.0);
    assert_eq!((f.leaf.count, f.spine.count), (128, 64));
    // A 400G NIC cannot use a 200G port.
    spec.nic_port_gbps = 400.0;
    assert!(matches!(
        build(&spec),
        Err(FabricError::NicFasterThanSwitchPort { .. })
    ));
}

#[test]
fn oversubscribed_leaf_at_7_to_1() {
    // 64 ports at 7:1: 56 down, 8 up (56 = 7 × 8); two tiers hold 64 × 56 = 3,584.
    let mut spec = hosts(3584, 64, Tiers::Two);
    spec.oversubscription = 7.0;
    let f = build(&spec).unwrap();
    assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (56, 8));
    assert_eq!(f.leaf.count, 64);
    assert_eq!(f.spine.count, 8);
    // Uplinks are the narrow layer: 64 × 8 × 400 / 2.
    assert_eq!(f.bisection_gbps, 64.0 * 8.0 * 400.0 / 2.0);
}

#[test]
fn two_planes_double_the_switches_of_one() {
    // Each dual-port NIC puts one port in each plane; each plane is a one-port fabric.
    let one = build(&dgx(1024)).unwrap();
    let mut spec = dgx(1024);
    spec.nic_ports = 2;
    spec.planes = 2;
    let two = build(&spec).unwrap();
    assert_eq!(two.rails, one.rails);
    assert_eq!(two.switches, 2 * one.switches);
    assert_eq!(two.links.total, 2 * one.links.total);
    assert_eq!(two.bisection_gbps, 2.0 * one.bisection_gbps);
    spec.nic_ports = 1;
    assert!(matches!(
        build(&spec),
        Err(FabricError::PlanesWithoutPorts { .. })
    ));
}

#[test]
fn absurd_inputs_are_refused_with_the_field_name() {
    type Change = fn(&mut FabricSpec);
    let cases: Vec<(&str, Change)> = vec![
        ("gpus", |s| s.gpus = 0),
        ("gpus", |s| s.gpus = u32::MAX),
        ("gpus_per_node", |s| s.gpus_per_node = 0),
        ("nics_per_node", |s| s.nics_per_node = 0),
        ("nic_ports", |s| s.nic_ports = 0),
        ("nic_port_gbps", |s| s.nic_port_gbps = f64::NAN),
        ("nic_port_gbps", |s| s.nic_port_gbps = 0.0),
        ("switch_ports", |s| s.switch_ports = 1),
        ("switch_port_gbps", |s| s.switch_port_gbps = f64::INFINITY),
        ("switch_port_split", |s| s.switch_port_split = 0),
        ("oversubscription", |s| s.oversubscription = f64::NAN),
        ("oversubscription", |s| s.oversubscription = 0.5),
        ("oversubscription", |s| s.oversubscription = 1e9),
        ("planes", |s| s.planes = 3),
    ];
    for (field, change) in cases {
        let mut spec = dgx(1024);
        change(&mut spec);
        let err = build(&spec).unwrap_err();
        assert!(
            matches!(&err, FabricError::InvalidField(e) if e.field == field),
            "{field}: {err:?}"
        );
        assert!(err.to_string().contains(field), "{err}");
    }
    let mut spec = dgx(1020);
    assert!(matches!(build(&spec), Err(FabricError::PartialNode { .. })));
    // A top-of-rack leaf with 4 down ports cannot take a node's 8.
    spec = dgx(1024);
    spec.rail_optimized = false;
    spec.switch_ports = 8;
    assert!(matches!(
        build(&spec),
        Err(FabricError::NodeDoesNotFitLeaf { .. })
    ));
}

#[test]
fn same_rail_in_one_scalable_unit_crosses_one_leaf() {
    let f = build(&dgx(1024)).unwrap();
    // GPU 3 of node 0 and GPU 3 of node 31: rail 3, both in scalable unit 0.
    let p = f.path(3, 31 * 8 + 3, false).unwrap();
    assert_eq!(p.switches, 1);
    assert_eq!(p.hops.len(), 5);
    assert!(matches!(p.hops[2], Hop::Leaf { leaf: 3, .. }));
    // Node 32 is in the next unit: same rail, another leaf, via a spine.
    let p = f.path(3, 32 * 8 + 3, false).unwrap();
    assert_eq!(Some(p.switches), f.hops.other_leaf);
    assert!(matches!(p.hops[3], Hop::Spine { .. }));
}

#[test]
fn another_rail_goes_via_a_spine_or_nvlink_first_with_pxn() {
    let f = build(&dgx(1024)).unwrap();
    // GPU 0 of node 0 (rail 0) to GPU 5 of node 1 (rail 5).
    let plain = f.path(0, 8 + 5, false).unwrap();
    assert_eq!(plain.switches, 3);
    assert!(!plain.pxn);
    let pxn = f.path(0, 8 + 5, true).unwrap();
    assert!(pxn.pxn);
    assert_eq!(pxn.nvlink_hops, 1);
    assert_eq!(Some(pxn.switches), f.hops.other_rail_with_pxn);
    // The proxy is GPU 5 of node 0, whose NIC is on rail 5.
    assert_eq!(pxn.hops[1], Hop::Gpu { gpu: 5, node: 0 });
    assert!(matches!(pxn.hops[2], Hop::Nic { rail: 5, .. }));
}

#[test]
fn paths_inside_a_node_and_out_of_range() {
    let f = build(&dgx(1024)).unwrap();
    let p = f.path(0, 7, false).unwrap();
    assert_eq!((p.switches, p.nvlink_hops), (0, 1));
    assert_eq!(
        f.path(0, 1024, false),
        Err(FabricError::NoSuchGpu {
            gpu: 1024,
            gpus: 1024
        })
    );
}

#[test]
fn three_tier_paths_cross_the_core_between_pods() {
    let f = build(&hosts(27_648, 48, Tiers::Three)).unwrap();
    // Hosts 0 and 23 share leaf 0; 24 is on leaf 1 of pod 0; 576 (= 24 × 24) is in pod 1.
    assert_eq!(f.path(0, 23, false).unwrap().switches, f.hops.same_leaf);
    assert_eq!(
        Some(f.path(0, 24, false).unwrap().switches),
        f.hops.other_leaf
    );
    let p = f.path(0, 576, false).unwrap();
    assert_eq!(Some(p.switches), f.hops.other_pod);
    assert!(matches!(p.hops[4], Hop::Core { .. }));
}

#[test]
fn a_rack_on_one_switch_is_a_one_tier_fabric() {
    // 8 nodes, one 25G port each, on 32 × 100G split into 128 × 25G: 8 of 128 ports used,
    // no spine. Asking for two tiers still gets a spine above the one leaf.
    let spec = FabricSpec {
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
    };
    let f = build(&spec).unwrap();
    assert_eq!(
        (f.tiers, f.leaf.count, f.spine.count, f.switches),
        (1, 1, 0, 1)
    );
    assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (128, 0));
    assert_eq!(
        (f.links.nic_leaf, f.links.leaf_spine, f.links.total),
        (8, 0, 8)
    );
    // Half of 8 × 25 Gb/s.
    assert_eq!(f.bisection_gbps, 100.0);
    assert_eq!(f.hops.other_leaf, None);
    let p = f.path(0, 31, false).unwrap();
    assert_eq!(p.switches, 1);
    let two = build(&FabricSpec {
        tiers: Tiers::Two,
        ..spec.clone()
    })
    .unwrap();
    assert_eq!((two.tiers, two.leaf.count, two.spine.count), (2, 1, 1));
    // 129 ports do not fit one switch: two leaves of 64 down ports and a spine.
    let big = build(&FabricSpec {
        gpus: 129 * 4,
        ..spec
    })
    .unwrap();
    assert_eq!((big.tiers, big.leaf.count), (2, 3));
}

#[test]
fn spec_json_denies_unknown_fields_and_fills_defaults() {
    let json = r#"{"gpus":16,"gpus_per_node":8,"nics_per_node":8,"nic_port_gbps":400,
        "switch_ports":64,"switch_port_gbps":400}"#;
    let spec: FabricSpec = serde_json::from_str(json).unwrap();
    assert_eq!(spec.tiers, Tiers::Auto);
    assert_eq!(
        (spec.planes, spec.switch_port_split, spec.nic_ports),
        (1, 1, 1)
    );
    assert_eq!(spec.oversubscription, 1.0);
    let bad = json.replace("\"gpus\":16", "\"gpus\":16,\"gpu\":1");
    assert!(serde_json::from_str::<FabricSpec>(&bad).is_err());
    let tiers: Tiers = serde_json::from_str("\"3\"").unwrap();
    assert_eq!(tiers, Tiers::Three);
    assert!(!spec.rail_optimized);
    // Top-of-rack: both nodes' 16 ports fit one 64-port switch, the whole fabric.
    let out = serde_json::to_value(build(&spec).unwrap()).unwrap();
    assert_eq!(out["leaf"]["count"], 1);
    assert_eq!(out["tiers"], 1);
    assert_eq!(out["core"], serde_json::Value::Null);
}

fn any_tiers() -> impl Strategy<Value = Tiers> {
    prop_oneof![Just(Tiers::Two), Just(Tiers::Three), Just(Tiers::Auto)]
}

/// Plausible fabrics: most build, some are refused.
fn plausible() -> impl Strategy<Value = FabricSpec> {
    (
        (
            1u32..=2048,
            prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        ),
        (1u32..=8, 1u32..=2),
        prop_oneof![
            Just(16u32),
            Just(32),
            Just(48),
            Just(64),
            Just(128),
            Just(144)
        ],
        (1u32..=2, any_tiers(), 1.0f64..8.0, any::<bool>(), 1u32..=2),
    )
        .prop_map(
            |((nodes, gpn), (nics, ports), switch_ports, (split, tiers, r, rail, planes))| {
                FabricSpec {
                    gpus: nodes * gpn,
                    gpus_per_node: gpn,
                    nics_per_node: nics,
                    nic_ports: ports,
                    nic_port_gbps: 200.0,
                    switch_ports,
                    switch_port_gbps: 400.0,
                    switch_port_split: split,
                    tiers,
                    oversubscription: r,
                    rail_optimized: rail,
                    planes,
                }
            },
        )
}

proptest! {
    #[test]
    fn every_switch_balances_its_ports(spec in plausible()) {
        let Ok(f) = build(&spec) else { return Ok(()) };
        if f.tiers == 1 {
            // One switch per plane: every port faces the nodes and carries at most one.
            prop_assert_eq!((f.leaf.down_ports, f.leaf.up_ports), (f.radix, 0));
            prop_assert_eq!(f.spine.count, 0);
            prop_assert!(f.links.nic_leaf <= f.leaf.count * u64::from(f.radix));
            return Ok(());
        }
        let r = spec.oversubscription;
        let (down, up) = (f64::from(f.leaf.down_ports), f64::from(f.leaf.up_ports));
        // The stated rounding of `leaf_ports`: down ≤ r·up < down + r + 1.
        prop_assert!(down <= r * up + 1e-9);
        prop_assert!(r * up < down + r + 1.0);
        prop_assert_eq!(f.leaf.down_ports + f.leaf.up_ports, f.radix);
        // Spines and cores are 1:1: a 3-tier spine has as many ports up as down.
        if let Some(core) = &f.core {
            prop_assert_eq!(f.spine.down_ports, f.spine.up_ports);
            prop_assert!(f.links.spine_core <= core.count * u64::from(core.down_ports));
        }
        // Every cable ends on a port that exists.
        prop_assert!(f.links.nic_leaf <= f.leaf.count * u64::from(f.leaf.down_ports));
        prop_assert!(f.links.leaf_spine <= f.leaf.count * u64::from(f.leaf.up_ports));
        prop_assert!(f.links.leaf_spine <= f.spine.count * u64::from(f.spine.down_ports));
        prop_assert_eq!(f.optics.transceivers, 2 * f.links.total);
        // Ports in use fit the split, and the busiest leaf cables enough uplinks for its
        // cabled down ports at the ratio asked, so a partly filled leaf is never more
        // oversubscribed than a full one.
        let tiers = [Some(&f.leaf), Some(&f.spine), f.core.as_ref()];
        for t in tiers.into_iter().flatten() {
            prop_assert!(t.down_used <= t.down_ports && t.up_used <= t.up_ports, "{:?}", t);
        }
        prop_assert!(f.leaf.down_used >= 1);
        prop_assert!(f64::from(f.leaf.down_used) <= r * f64::from(f.leaf.up_used) + 1e-9);
        // The spines have a cabled port for every leaf uplink, the cores for every spine
        // uplink (up to the busiest switch: the counts are of the busiest).
        prop_assert!(f.links.leaf_spine <= f.spine.count * u64::from(f.spine.down_used));
        if let Some(core) = &f.core {
            prop_assert!(f.links.spine_core <= core.count * u64::from(core.down_used));
            prop_assert!(f.links.spine_core <= f.spine.count * u64::from(f.spine.up_used));
        }
        // One switch would serve exactly when a plane's NIC ports fit one.
        let per_plane = f.endpoints / u64::from(spec.planes);
        prop_assert_eq!(f.one_switch_would_serve, per_plane <= u64::from(f.radix));
        if let Some(full) = &f.full_units {
            // NVIDIA's full units: the same leaves and NIC cables, more cabled above.
            let su = f.scalable_units.as_ref().unwrap();
            prop_assert!(f.nodes < su.count * u64::from(su.nodes_per_su));
            prop_assert_eq!(full.links.nic_leaf, f.links.nic_leaf);
            prop_assert!(full.links.total > f.links.total);
            prop_assert!(full.spines >= f.spine.count);
            prop_assert_eq!(full.transceivers, 2 * full.links.total);
        }
    }

    #[test]
    fn rail_optimized_same_rail_same_unit_is_one_leaf(
        spec in plausible(), a in any::<u64>(), b in any::<u64>(), local in any::<u32>()
    ) {
        let mut spec = spec;
        spec.rail_optimized = true;
        let Ok(f) = build(&spec) else { return Ok(()) };
        let su = f.scalable_units.clone().unwrap();
        let gpn = u64::from(spec.gpus_per_node);
        // Two nodes of the first scalable unit, the same GPU slot (so the same rail).
        let in_su = f.nodes.min(u64::from(su.nodes_per_su));
        let (na, nb) = (a % in_su, b % in_su);
        let slot = u64::from(local) % gpn;
        let p = f.path(na * gpn + slot, nb * gpn + slot, false).unwrap();
        if na != nb {
            prop_assert_eq!(p.switches, 1);
        }
    }

    #[test]
    fn no_input_panics(
        gpus in any::<u32>(), gpn in any::<u32>(), nics in any::<u32>(), ports in any::<u32>(),
        nic_gbps in any::<f64>(), switch_ports in any::<u32>(), switch_gbps in any::<f64>(),
        split in any::<u32>(), tiers in any_tiers(), r in any::<f64>(), rail in any::<bool>(),
        planes in any::<u32>(), from in any::<u64>(), to in any::<u64>(), pxn in any::<bool>(),
    ) {
        let spec = FabricSpec {
            gpus, gpus_per_node: gpn, nics_per_node: nics, nic_ports: ports,
            nic_port_gbps: nic_gbps, switch_ports, switch_port_gbps: switch_gbps,
            switch_port_split: split, tiers, oversubscription: r, rail_optimized: rail, planes,
        };
        match build(&spec) {
            Ok(f) => {
                let _ = f.path(from, to, pxn);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn paths_run_from_gpu_to_gpu_over_the_counted_switches(
        spec in plausible(), from in any::<u64>(), to in any::<u64>(), pxn in any::<bool>()
    ) {
        let Ok(f) = build(&spec) else { return Ok(()) };
        let n = u64::from(spec.gpus);
        let (from, to) = (from % n, to % n);
        let p = f.path(from, to, pxn).unwrap();
        let first_ok = matches!(p.hops.first(), Some(Hop::Gpu { gpu, .. }) if *gpu == from);
        let last_ok = matches!(p.hops.last(), Some(Hop::Gpu { gpu, .. }) if *gpu == to);
        prop_assert!(first_ok && last_ok);
        let switches = p.hops.iter().filter(|h| matches!(
            h, Hop::Leaf { .. } | Hop::Spine { .. } | Hop::Core { .. })).count() as u32;
        prop_assert_eq!(switches, p.switches);
        prop_assert!([0, 1, 3, 5].contains(&p.switches));
        if f.tiers == 2 {
            prop_assert!(p.switches <= 3);
        }
        // Every switch index is within its tier's count for one plane.
        let planes = u64::from(spec.planes);
        for h in &p.hops {
            match h {
                Hop::Leaf { leaf, .. } => prop_assert!(*leaf < f.leaf.count / planes),
                Hop::Spine { spine, .. } => prop_assert!(*spine < f.spine.count / planes),
                Hop::Core { core, .. } => {
                    prop_assert!(*core < f.core.as_ref().unwrap().count / planes)
                }
                _ => {}
            }
        }
    }
}

/// Any in-range parts, so sizing and paths run on odd radices, ratios and speeds too.
fn in_range() -> impl Strategy<Value = FabricSpec> {
    (
        (
            1u32..=MAX_GPUS,
            1u32..=MAX_GPUS_PER_NODE,
            1u32..=MAX_NICS_PER_NODE,
        ),
        (
            1u32..=MAX_NIC_PORTS,
            1e-3f64..=MAX_PORT_GBPS,
            2u32..=MAX_SWITCH_PORTS,
        ),
        (
            1e-3f64..=MAX_PORT_GBPS,
            1u32..=MAX_SWITCH_PORT_SPLIT,
            any_tiers(),
        ),
        (1.0f64..=MAX_OVERSUBSCRIPTION, any::<bool>(), 1u32..=2),
    )
        .prop_map(
            |(
                (gpus, gpn, nics),
                (ports, nic_gbps, sw),
                (sw_gbps, split, tiers),
                (r, rail, planes),
            )| {
                // Round down to whole nodes so more cases get past the first check.
                let gpus = (gpus / gpn).max(1) * gpn;
                FabricSpec {
                    gpus,
                    gpus_per_node: gpn,
                    nics_per_node: nics,
                    nic_ports: ports,
                    nic_port_gbps: nic_gbps,
                    switch_ports: sw,
                    switch_port_gbps: sw_gbps,
                    switch_port_split: split,
                    tiers,
                    oversubscription: r,
                    rail_optimized: rail,
                    planes,
                }
            },
        )
}

proptest! {
    #[test]
    fn in_range_parts_build_or_name_a_constraint(
        spec in in_range(), from in any::<u64>(), to in any::<u64>(), pxn in any::<bool>()
    ) {
        match build(&spec) {
            Ok(f) => {
                let n = u64::from(spec.gpus);
                let p = f.path(from % n, to % n, pxn).unwrap();
                prop_assert!([0, 1, 3, 5].contains(&p.switches));
                prop_assert!(f.bisection_gbps.is_finite() && f.bisection_gbps > 0.0);
            }
            Err(e) => {
                let is_path_error = matches!(e, FabricError::NoSuchGpu { .. });
                prop_assert!(!is_path_error);
            }
        }
    }

    #[test]
    fn hop_counts_agree_with_paths(
        spec in plausible(), from in any::<u64>(), to in any::<u64>()
    ) {
        let Ok(f) = build(&spec) else { return Ok(()) };
        let n = u64::from(spec.gpus);
        let p = f.path(from % n, to % n, false).unwrap();
        let leaves: Vec<u64> = p.hops.iter().filter_map(|h| match h {
            Hop::Leaf { leaf, .. } => Some(*leaf),
            _ => None,
        }).collect();
        let crosses_core = p.hops.iter().any(|h| matches!(h, Hop::Core { .. }));
        match leaves.as_slice() {
            [] => prop_assert_eq!(p.switches, 0),
            [_] => prop_assert_eq!(p.switches, f.hops.same_leaf),
            _ if crosses_core => prop_assert_eq!(Some(p.switches), f.hops.other_pod),
            _ => prop_assert_eq!(Some(p.switches), f.hops.other_leaf),
        }
    }
}
