//! Checks against oracles: the DCQCN models, balls into bins, and the properties any
//! lossless run must keep.

use super::lab::incast_with_victim;
use super::*;
use crate::dcqcn;

fn window_mean(
    time: &[f64],
    values: impl IntoIterator<Item = f64>,
    from_us: f64,
    to_us: f64,
) -> f64 {
    let picked: Vec<f64> = time
        .iter()
        .zip(values)
        .filter(|(t, _)| **t > from_us && **t <= to_us)
        .map(|(_, v)| v)
        .collect();
    picked.iter().sum::<f64>() / picked.len().max(1) as f64
}

fn rates(flow: &FlowReport) -> impl Iterator<Item = f64> + '_ {
    flow.rate_gbps.iter().map(|&x| f64::from(x))
}

/// Two long flows on one bottleneck, the same scenario in both packet models, averaged over
/// seeds: one run's marks are random, so a single seed's flows can differ by 5 % and its
/// time-averaged queue (rare spikes over a near-empty queue) by more. Over 32 seeds the
/// models' flow rates still differed by 2.3 % (the models share no random stream); over 128
/// they differ by under 1 % and their queues by 0.5 %, so 128 seeds hold the 2 %.
#[test]
fn one_bottleneck_agrees_with_the_dcqcn_packet_and_fluid_models() {
    let seeds = 128;
    let (from, to) = (20_000.0, 40_000.0);
    let mut ours = [0.0; 2];
    let mut theirs = [0.0; 2];
    let mut queue = [0.0; 2];
    for seed in 1..=seeds {
        let mut d = dcqcn::named_scenario("two-flow").unwrap();
        d.seed = seed;
        let packet = dcqcn::simulate_packets(&d, &Limits::default()).unwrap();
        let r = simulate(&Scenario::from_dcqcn(&d).unwrap(), &Limits::default()).unwrap();
        assert_eq!(r.stop, Stop::Duration);
        for f in 0..2 {
            theirs[f] += window_mean(
                &packet.time_us,
                packet.flows[f].goodput_gbps.iter().copied(),
                from,
                to,
            );
            ours[f] += window_mean(&r.time_us, rates(&r.flows[f]), from, to);
        }
        let bottleneck = r.links.iter().find(|l| l.to == "receiver").unwrap();
        queue[0] += window_mean(
            &packet.time_us,
            packet.queue_bytes.iter().copied(),
            from,
            to,
        );
        queue[1] += window_mean(
            &r.time_us,
            bottleneck.queue_bytes.iter().map(|&q| f64::from(q)),
            from,
            to,
        );
    }
    for f in 0..2 {
        let (a, b) = (ours[f] / seeds as f64, theirs[f] / seeds as f64);
        assert!(
            (a / b - 1.0).abs() < 0.02,
            "flow {f}: {a:.3} Gb/s here, {b:.3} in engine::dcqcn"
        );
    }
    let (a, b) = (queue[1] / seeds as f64, queue[0] / seeds as f64);
    assert!(
        (a / b - 1.0).abs() < 0.02,
        "queue {a:.0} B here, {b:.0} B in engine::dcqcn"
    );

    // The fluid model's steady state is its fixed point, C/N per flow: its run oscillates
    // about it (its window mean sends ~2 % more than the link carries, the fluid queue
    // taking the rest), while a packet queue empties after each cut and the link idles a
    // little, so the check is against the fixed point the fluid run settles on.
    let d = dcqcn::named_scenario("two-flow").unwrap();
    let fluid = dcqcn::simulate_fluid(&d, &Limits::default()).unwrap();
    let fixed_point = d.bottleneck_gbps / 2.0;
    for (f, ours) in ours.iter().enumerate() {
        let settled = window_mean(
            &fluid.time_us,
            fluid.flows[f].rc_gbps.iter().copied(),
            30_000.0,
            40_000.0,
        );
        assert!(
            (settled / fixed_point - 1.0).abs() < 0.03,
            "the fluid run settles at {settled:.3} Gb/s"
        );
        let here = ours / seeds as f64;
        assert!(
            (here / fixed_point - 1.0).abs() < 0.05,
            "flow {f}: {here:.3} Gb/s here, the fluid model's steady state is {fixed_point:.3}"
        );
    }
}

/// E[max load] of `balls` thrown uniformly into `bins`: Σ_k P(max ≥ k), with
/// P(max < k) = balls!/bins^balls · [x^balls] (Σ_{j<k} x^j/j!)^bins.
fn expected_max_load(balls: usize, bins: usize) -> f64 {
    let mut fact = vec![1.0f64; balls + 1];
    for i in 1..=balls {
        fact[i] = fact[i - 1] * i as f64;
    }
    let mut expected = 0.0;
    for k in 1..=balls {
        // Polynomial power by repeated multiplication, truncated at degree `balls`.
        let base: Vec<f64> = (0..=balls)
            .map(|j| if j < k { 1.0 / fact[j] } else { 0.0 })
            .collect();
        let mut poly = vec![0.0; balls + 1];
        poly[0] = 1.0;
        for _ in 0..bins {
            let mut next = vec![0.0; balls + 1];
            for (i, a) in poly.iter().enumerate() {
                for (j, b) in base.iter().enumerate().take(balls + 1 - i) {
                    next[i + j] += a * b;
                }
            }
            poly = next;
        }
        let below = fact[balls] * poly[balls] / (bins as f64).powi(balls as i32);
        expected += 1.0 - below;
    }
    expected
}

#[test]
fn ecmp_spreads_flows_like_balls_into_bins() {
    // 8 flows from leaf 0's hosts to leaf 1's, over leaf 0's 8 uplinks, one packet each.
    let runs = 400;
    let mut total_max = 0.0;
    for seed in 0..runs {
        let s = Scenario {
            name: "ecmp".into(),
            description: String::new(),
            topology: scenario::leaf_spine(16, 16, 400.0),
            switch: SwitchSpec {
                buffer_bytes: 1 << 24,
                ecn: None,
                pfc: None,
                routing: Routing::Ecmp,
            },
            dcqcn: None,
            traffic: (0..8)
                .map(|i| TrafficSpec::Flow {
                    from: i,
                    to: 8 + i,
                    bytes: Some(1000),
                    start_us: 0.0,
                    qps: 1,
                })
                .collect(),
            mtu_bytes: 4096,
            duration_us: 100.0,
            sample_interval_us: 10.0,
            seed,
        };
        let r = simulate(&s, &Limits::default()).unwrap();
        let uplinks: Vec<u64> = r
            .links
            .iter()
            .filter(|l| l.from == "leaf 0" && l.to.starts_with("spine"))
            .map(|l| l.tx_bytes / 1000)
            .collect();
        assert_eq!(uplinks.len(), 8);
        assert_eq!(uplinks.iter().sum::<u64>(), 8);
        total_max += *uplinks.iter().max().unwrap() as f64;
    }
    let mean = total_max / runs as f64;
    let expected = expected_max_load(8, 8);
    assert!(
        (mean / expected - 1.0).abs() < 0.05,
        "most-loaded uplink carries {mean:.3} flows on average, balls into bins says {expected:.3}"
    );
}

#[test]
fn flows_sharing_an_uplink_share_it() {
    let finite = simulate(
        &named_scenario("ecmp-collision").unwrap(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(finite.stop, Stop::Finished);
    // Long flows under PFC alone: each link's FIFO serves its flows in turn. (Under DCQCN
    // at 400G the shares wander for tens of milliseconds; the two-flow check covers it.)
    let mut s = named_scenario("ecmp-collision").unwrap();
    for t in &mut s.traffic {
        if let TrafficSpec::Flow { bytes, .. } = t {
            *bytes = None;
        }
    }
    s.duration_us = 30_000.0;
    s.sample_interval_us = 100.0;
    s.dcqcn = None;
    let r = simulate(&s, &Limits::default()).unwrap();
    // k = the most flows on any link of a flow's path.
    let mut on_link = vec![0u32; r.links.len()];
    for f in &r.flows {
        for &l in f.path.as_ref().unwrap() {
            on_link[l as usize] += 1;
        }
    }
    let fair = max_min_fair(&r);
    let mut shared = 0;
    for (f, fair) in r.flows.iter().zip(fair) {
        let k = f
            .path
            .as_ref()
            .unwrap()
            .iter()
            .map(|&l| on_link[l as usize])
            .max()
            .unwrap();
        let gbps = window_mean(&r.time_us, rates(f), 15_000.0, 30_000.0);
        shared += u32::from(k > 1);
        assert!(
            (gbps / fair - 1.0).abs() < 0.05,
            "a flow on a link shared by {k} got {gbps:.1} Gb/s; max-min fair is {fair:.1}"
        );
    }
    assert!(shared > 0, "the named case must show a collision");
}

/// Water-filling over the flows' ECMP paths: the most-contended link fixes its flows' equal
/// share, the rest divide what is left (Bertsekas and Gallager, Data Networks, §6.5.2).
fn max_min_fair(r: &Report) -> Vec<f64> {
    let mut left: Vec<f64> = r.links.iter().map(|l| l.gbps).collect();
    let mut share = vec![None; r.flows.len()];
    while share.iter().any(Option::is_none) {
        let open = |l: usize| {
            r.flows
                .iter()
                .enumerate()
                .filter(|(i, f)| {
                    share[*i].is_none() && f.path.as_ref().unwrap().contains(&(l as u32))
                })
                .count()
        };
        let (link, each) = (0..left.len())
            .filter(|&l| open(l) > 0)
            .map(|l| (l, left[l] / open(l) as f64))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap();
        for (i, f) in r.flows.iter().enumerate() {
            let path = f.path.as_ref().unwrap();
            if share[i].is_none() && path.contains(&(link as u32)) {
                share[i] = Some(each);
                for &l in path {
                    left[l as usize] -= each;
                }
            }
        }
    }
    share.into_iter().map(Option::unwrap).collect()
}

#[test]
fn a_ring_with_clockwise_routes_deadlocks_and_a_fat_tree_does_not() {
    let ring = simulate(
        &named_scenario("ring-deadlock").unwrap(),
        &Limits::default(),
    )
    .unwrap();
    let Stop::Deadlock { cycle, .. } = &ring.stop else {
        panic!("the ring did not deadlock: {:?}", ring.stop);
    };
    assert!(
        cycle.len() >= 2 && cycle.iter().all(|c| c.starts_with("switch")),
        "{cycle:?}"
    );
    let tree = simulate(
        &named_scenario("fat-tree-no-deadlock").unwrap(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(tree.stop, Stop::Finished, "{:?}", tree.stop);
    assert!(
        tree.totals.pause_frames > 0,
        "the fat-tree case must pause to mean anything"
    );
}

/// Lossless runs lose nothing, hold what they have sent, and keep queues inside buffers.
#[test]
fn lossless_runs_conserve_bytes() {
    for name in [
        "two-flow",
        "ecmp-collision",
        "fat-tree-no-deadlock",
        "ring-allreduce-16",
    ] {
        let mut s = named_scenario(name).unwrap();
        s.duration_us = s.duration_us.min(20_000.0);
        let r = simulate(&s, &Limits::default()).unwrap();
        assert_eq!(r.totals.drops, 0, "{name}");
        assert_eq!(r.totals.headroom_overruns, 0, "{name}");
        assert_eq!(
            r.in_flight_bytes, r.held_bytes,
            "{name}: sent − received ≠ bytes in queues and on links"
        );
        assert_eq!(
            r.totals.sent_bytes,
            r.totals.received_bytes + r.totals.in_flight_bytes,
            "{name}"
        );
        for sw in &r.switches {
            assert!(
                sw.max_buffered_bytes <= s.switch.buffer_bytes,
                "{name}: {} over its buffer",
                sw.label
            );
        }
    }
}

#[test]
fn same_inputs_same_bytes() {
    let s = named_scenario("ecmp-collision").unwrap();
    let a = serde_json::to_string(&simulate(&s, &Limits::default()).unwrap()).unwrap();
    let b = serde_json::to_string(&simulate(&s, &Limits::default()).unwrap()).unwrap();
    assert_eq!(a, b);
    let mut other = s.clone();
    other.seed += 1;
    let c = serde_json::to_string(&simulate(&other, &Limits::default()).unwrap()).unwrap();
    assert_ne!(a, c, "the seed must matter to ECMP");
}

#[test]
fn an_uncongested_ring_all_reduce_reaches_nccls_ring_bandwidth() {
    use crate::collective::{
        estimate, Algorithm, Collective, CollectiveRequest, GpuModel, Machines, NicModel, Protocol,
    };
    let s = named_scenario("ring-allreduce-16").unwrap();
    let r = simulate(&s, &Limits::default()).unwrap();
    assert_eq!(r.stop, Stop::Finished);
    assert!(r.flows.iter().all(|f| Some(f.received_bytes) == f.bytes));
    let c = &r.collectives[0];
    assert_eq!(c.ranks, 16);
    let machines = Machines {
        gpu: GpuModel::H100,
        gpus_per_node: 8,
        nodes: 2,
        nic: NicModel::Roce400,
        nics_per_node: 8,
        gdr: true,
        sharp: false,
    };
    let nccl = estimate(&CollectiveRequest {
        op: Collective::AllReduce,
        bytes: c.bytes_per_gpu as f64,
        cluster: machines.cluster().unwrap(),
        algorithms: Some(vec![Algorithm::Ring]),
        protocols: Some(vec![Protocol::Simple]),
    })
    .unwrap();
    let ring = nccl
        .estimates
        .iter()
        .find(|e| e.algorithm == Algorithm::Ring && e.protocol == Protocol::Simple)
        .unwrap();
    // The bandwidth term alone: the latency part of NCCL's time is the steps' start-up,
    // which the simulator has in its own time.
    let model = ring.busbw_gbs * ring.time_us / (ring.time_us - ring.latency_us);
    let here = c.busbw_gbs.unwrap();
    // Both are bound by NVLink here (18 × 20.6 GB/s per GPU, each GPU sends 2(n−1)/n · S
    // over it; the 8 rails give 400 GB/s); the simulator adds packet headers' absence,
    // store-and-forward and the steps' start-up, NCCL its latency term.
    assert!(
        (here / model - 1.0).abs() < 0.10,
        "busbw {here:.1} GB/s here, {model:.1} in engine::collective"
    );
}

#[test]
fn bad_input_is_refused_with_its_path() {
    let refused = |edit: &dyn Fn(&mut Scenario), path: &str| {
        let mut s = named_scenario("ecmp-collision").unwrap();
        edit(&mut s);
        match simulate(&s, &Limits::default()) {
            Err(SimError::InvalidParameter(e)) => assert_eq!(e.field, path),
            other => panic!("expected a refusal at {path}, got {other:?}"),
        }
    };
    refused(&|s| s.mtu_bytes = 10, "mtu_bytes");
    refused(&|s| s.duration_us = f64::NAN, "duration_us");
    refused(&|s| s.switch.buffer_bytes = 0, "switch.buffer_bytes");
    refused(
        &|s| {
            s.traffic[3] = TrafficSpec::Flow {
                from: 3,
                to: 99,
                bytes: Some(1),
                start_us: 0.0,
                qps: 1,
            }
        },
        "traffic[3].to",
    );
    refused(
        &|s| {
            s.traffic[0] = TrafficSpec::Incast {
                from: vec![1, 2],
                to: 2,
                bytes: 10,
                start_us: 0.0,
            }
        },
        "traffic[0].from[1]",
    );
    refused(
        &|s| {
            s.topology = TopologySpec::SwitchRing {
                switches: 2,
                hosts_per_switch: 1,
                gbps: 1.0,
                delay_us: 1.0,
            }
        },
        "topology.switch_ring.switches",
    );
    let json = serde_json::to_value(named_scenario("ecmp-collision").unwrap()).unwrap();
    let mut bad = json.clone();
    bad["switch"]["ecn"]["kmin"] = 1.into();
    let err = serde_json::from_value::<Scenario>(bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("kmin"), "{err}");
}

#[test]
fn a_run_stops_at_its_event_cap_and_when_cancelled() {
    let s = named_scenario("ring-allreduce-16").unwrap();
    let r = simulate(&s, &Limits { max_events: 10_000 }).unwrap();
    assert_eq!(r.stop, Stop::EventCap { max_events: 10_000 });
    assert_eq!(r.events, 10_000);
    let mut reports = 0;
    let r = simulate_with_progress(&s, &Limits::default(), |p| {
        reports += 1;
        assert!(p.events > 0 && p.simulated_us <= p.duration_us);
        Control::Cancel
    })
    .unwrap();
    assert_eq!(r.stop, Stop::Cancelled);
    assert_eq!(reports, 1);
}

/// "Rail alignment keeps ring traffic off the spines" (the reference's claim), tried: on a
/// rail-optimized fabric a rail-aligned ring with PXN and the hierarchical all-reduce send
/// nothing to a spine; the same ring without PXN leaves each server on one rail and enters
/// the next on another, so its bytes cross the spines.
#[test]
fn rail_aligned_collectives_stay_off_the_spines() {
    let spine_bytes = |traffic: TrafficSpec| {
        let mut s = named_scenario("ring-allreduce-16").unwrap();
        s.traffic = vec![traffic];
        let r = simulate(&s, &Limits::default()).unwrap();
        assert_eq!(r.stop, Stop::Finished, "{:?}", s.traffic);
        assert!(r.flows.iter().all(|f| Some(f.received_bytes) == f.bytes));
        let busbw = r.collectives[0].busbw_gbs.unwrap();
        let to_spines: u64 = r
            .links
            .iter()
            .filter(|l| l.to.starts_with("spine"))
            .map(|l| l.tx_bytes)
            .sum();
        (to_spines, busbw)
    };
    let bytes_per_gpu = 64 << 20;
    let ring = |pxn| TrafficSpec::RingAllReduce {
        bytes_per_gpu,
        channels: 8,
        qps_per_connection: 1,
        pxn,
    };
    let (with_pxn, _) = spine_bytes(ring(true));
    let (without_pxn, _) = spine_bytes(ring(false));
    let (hierarchical, busbw) = spine_bytes(TrafficSpec::HierarchicalAllReduce {
        bytes_per_gpu,
        qps_per_connection: 2,
    });
    assert_eq!(with_pxn, 0);
    assert_eq!(hierarchical, 0);
    assert!(
        without_pxn > bytes_per_gpu,
        "{without_pxn} bytes to spines without PXN"
    );
    // The phases in turn at their links' rates: each GPU sends 7/8 of S over its NVLink for
    // the reduce-scatter and again for the all-gather (18 × 20.6 GB/s), and 2·(1/2)·S/8 over
    // its rail's NIC (50 GB/s) in between; headers and the steps' start-up are not counted.
    let s = bytes_per_gpu as f64;
    let seconds = 2.0 * (7.0 / 8.0) * s / 370.8e9 + (s / 8.0) / 50e9;
    let expected = s / seconds / 1e9 * 2.0 * 15.0 / 16.0;
    assert!(
        (busbw / expected - 1.0).abs() < 0.10,
        "hierarchical busbw {busbw:.1} GB/s, the phases at line rate give {expected:.1}"
    );
}

/// "More QPs per connection spread ECMP" (the reference's claim), tried: 8 connections
/// across 8 uplinks, each as 1 QP or as 4; over seeds the busiest uplink carries less of the
/// load, and the last connection finishes sooner, with 4.
#[test]
fn more_qps_per_connection_spread_ecmp() {
    let run = |qps: u32, seed: u64| {
        let s = Scenario {
            name: "qps".into(),
            description: String::new(),
            topology: scenario::leaf_spine(16, 16, 400.0),
            switch: SwitchSpec {
                buffer_bytes: 1 << 24,
                ecn: None,
                pfc: Some(crate::dcqcn::PfcThresholds {
                    xoff_bytes: 256 << 10,
                    xon_bytes: 224 << 10,
                }),
                routing: Routing::Ecmp,
            },
            dcqcn: None,
            traffic: (0..8)
                .map(|i| TrafficSpec::Flow {
                    from: i,
                    to: 8 + i,
                    bytes: Some(4 << 20),
                    start_us: 0.0,
                    qps,
                })
                .collect(),
            mtu_bytes: 4096,
            duration_us: 10_000.0,
            sample_interval_us: 100.0,
            seed,
        };
        let r = simulate(&s, &Limits::default()).unwrap();
        assert_eq!(r.stop, Stop::Finished);
        let up: Vec<u64> = r
            .links
            .iter()
            .filter(|l| l.from == "leaf 0" && l.to.starts_with("spine"))
            .map(|l| l.tx_bytes)
            .collect();
        let busiest = *up.iter().max().unwrap() as f64 / up.iter().sum::<u64>() as f64;
        let last = r.flows.iter().filter_map(|f| f.fct_us).fold(0.0, f64::max);
        (busiest, last)
    };
    let seeds = 30;
    let mean = |qps| {
        let runs: Vec<(f64, f64)> = (0..seeds).map(|seed| run(qps, seed)).collect();
        let n = runs.len() as f64;
        (
            runs.iter().map(|r| r.0).sum::<f64>() / n,
            runs.iter().map(|r| r.1).sum::<f64>() / n,
        )
    };
    let (one_share, one_last) = mean(1);
    let (four_share, four_last) = mean(4);
    assert!(
        four_share < one_share * 0.85,
        "busiest uplink's share: {one_share:.3} with 1 QP, {four_share:.3} with 4"
    );
    assert!(
        four_last < one_last * 0.9,
        "last connection done at {one_last:.0} µs with 1 QP, {four_last:.0} µs with 4"
    );
}

/// PFC spreads an incast's congestion to a victim: hosts 1–7 send to host 8 across the
/// spine while host 0 sends to host 9, whose own link is idle. Under PFC alone the pauses
/// climb from host 8's port to the spine and to leaf 0's uplinks, and the victim's packets
/// wait behind the incast's; with DCQCN the senders slow down first and the victim runs.
#[test]
fn pfc_alone_spreads_an_incast_to_a_victim_and_dcqcn_spares_it() {
    let victim_gbps = |dcqcn: Option<crate::dcqcn::DcqcnParams>| {
        let s = incast_with_victim(dcqcn);
        let r = simulate(&s, &Limits::default()).unwrap();
        let victim = r.flows.last().unwrap();
        (
            window_mean(&r.time_us, rates(victim), 10_000.0, 20_000.0),
            r.totals.pause_frames,
        )
    };
    let (alone, pauses_alone) = victim_gbps(None);
    let (with_dcqcn, pauses_dcqcn) = victim_gbps(Some(crate::dcqcn::DcqcnParams::mlx5_default()));
    // Measured at this commit: 58 Gb/s and 17 568 PAUSE frames alone, 400 Gb/s and 417 with
    // DCQCN; the victim's own path could carry 400.
    assert!(
        alone < 200.0,
        "the victim kept {alone:.1} Gb/s under PFC alone"
    );
    assert!(
        with_dcqcn > 340.0,
        "the victim got only {with_dcqcn:.1} Gb/s with DCQCN"
    );
    assert!(
        pauses_dcqcn * 10 < pauses_alone,
        "{pauses_dcqcn} PAUSE frames with DCQCN, {pauses_alone} without"
    );
}

#[test]
fn scenario_json_refuses_unknown_fields_at_every_level() {
    let json = serde_json::to_value(named_scenario("ring-allreduce-16").unwrap()).unwrap();
    for at in [
        "",
        "/topology/fabric",
        "/topology/fabric/fabric",
        "/switch",
        "/switch/ecn",
        "/switch/pfc",
        "/dcqcn",
        "/traffic/0/ring_all_reduce",
    ] {
        let mut v = json.clone();
        v.pointer_mut(at)
            .and_then(serde_json::Value::as_object_mut)
            .unwrap_or_else(|| panic!("{at} is an object"))
            .insert("surplus".into(), 1.into());
        let err = serde_json::from_value::<Scenario>(v)
            .unwrap_err()
            .to_string();
        assert!(err.contains("surplus"), "{at}: {err}");
    }
    // And it reads back what it wrote.
    assert_eq!(
        serde_json::from_value::<Scenario>(json).unwrap(),
        named_scenario("ring-allreduce-16").unwrap()
    );
}

#[test]
fn qps_get_the_kernels_udp_source_ports_and_unknown_names_list_this_simulators() {
    // rdma_flow_label_to_udp_sport(rdma_calc_flow_label(lqpn, rqpn)) by hand for one pair:
    // 0x11 · 0x22 = 0x242; folded: 0x242 ^ 0 = 0x242; | 0xC000.
    assert_eq!(roce_udp_sport(0x11, 0x22), 0xC242);
    let r = simulate(
        &named_scenario("ecmp-collision").unwrap(),
        &Limits::default(),
    )
    .unwrap();
    let ports: std::collections::BTreeSet<u16> = r.flows.iter().map(|f| f.udp_sport).collect();
    assert!(
        ports.len() > 1 && ports.iter().all(|&p| p >= 0xC000),
        "{ports:?}"
    );
    let err = named_scenario("no-such").unwrap_err().to_string();
    assert!(
        err.contains("ring-deadlock") && !err.contains("incast-16"),
        "{err}"
    );
}

/// The trees NCCL's own comments draw (src/graph/trees.cc at v2.29.3-1): 14 ranks, and the
/// mirrored second tree of 12.
#[test]
fn the_double_binary_tree_is_the_one_nccls_source_draws() {
    use super::traffic::{binary_tree, double_binary_tree};
    let drawn: [(u32, Option<u32>, &[u32]); 14] = [
        (0, None, &[8]),
        (8, Some(0), &[4, 12]),
        (4, Some(8), &[2, 6]),
        (12, Some(8), &[10, 13]),
        (2, Some(4), &[1, 3]),
        (6, Some(4), &[5, 7]),
        (10, Some(12), &[9, 11]),
        (1, Some(2), &[]),
        (3, Some(2), &[]),
        (5, Some(6), &[]),
        (7, Some(6), &[]),
        (9, Some(10), &[]),
        (11, Some(10), &[]),
        (13, Some(12), &[]),
    ];
    for (rank, parent, children) in drawn {
        assert_eq!(
            binary_tree(14, rank),
            (parent, children.to_vec()),
            "rank {rank}"
        );
    }
    // Mirrored for 12: 11 is the root, over 3, whose children are 1 and 7 (listed here as
    // the mirrors of 8's children 4 and 10, in that order).
    assert_eq!(double_binary_tree(12, 1, 11), (None, vec![3]));
    assert_eq!(double_binary_tree(12, 1, 3), (Some(11), vec![7, 1]));
    assert_eq!(double_binary_tree(12, 1, 0), (Some(1), vec![]));
    // Shifted for 13: 1 is the root over 9, which has 5 and 0 below it, and 0 has 11.
    assert_eq!(double_binary_tree(13, 1, 1), (None, vec![9]));
    assert_eq!(double_binary_tree(13, 1, 9), (Some(1), vec![5, 0]));
    assert_eq!(double_binary_tree(13, 1, 0), (Some(9), vec![11]));
    // Every rank but the root has one parent, and the parent lists it as a child.
    for n in 2..=40 {
        for t in 0..2 {
            let roots = (0..n)
                .filter(|&r| double_binary_tree(n, t, r).0.is_none())
                .count();
            assert_eq!(roots, 1, "{n} ranks, tree {t}");
            for r in 0..n {
                if let (Some(p), _) = double_binary_tree(n, t, r) {
                    assert!(double_binary_tree(n, t, p).1.contains(&r), "{n}/{t}: {r}");
                }
            }
        }
    }
}

/// A tree all-reduce on two servers (each the root of one tree and a leaf of the other)
/// runs at the rate of its busiest link, NVLink here; on four, the inner servers' NICs take
/// two children's chunks at once, and that incast, not any link's capacity, sets the time.
#[test]
fn a_tree_all_reduce_runs_at_its_busiest_link_until_inner_servers_take_two_children() {
    let run = |servers: u32| {
        let mut s = named_scenario("ring-allreduce-16").unwrap();
        if let TopologySpec::Fabric { fabric, .. } = &mut s.topology {
            *fabric = crate::fabric::superpod_h100(servers);
        }
        s.traffic = vec![TrafficSpec::TreeAllReduce {
            bytes_per_gpu: 256 << 20,
            channels: 16,
            qps_per_connection: 1,
        }];
        let r = simulate(&s, &Limits::default()).unwrap();
        assert_eq!(r.stop, Stop::Finished);
        assert!(r.flows.iter().all(|f| Some(f.received_bytes) == f.bytes));
        let busiest_us = r
            .links
            .iter()
            .map(|l| l.tx_bytes as f64 * 8.0 / (l.gbps * 1e3))
            .fold(0.0, f64::max);
        let marks: u64 = r.links.iter().map(|l| l.ecn_marks).sum();
        (r.collectives[0].time_us.unwrap(), busiest_us, marks)
    };
    let (time, busiest, marks) = run(2);
    assert_eq!(marks, 0);
    assert!(
        (time / busiest - 1.0).abs() < 0.02,
        "two servers: {time:.0} µs, the busiest link is busy {busiest:.0} µs"
    );
    let (time, busiest, marks) = run(4);
    assert!(marks > 0);
    assert!(
        time > 1.3 * busiest,
        "four servers: {time:.0} µs, the busiest link is busy {busiest:.0} µs"
    );
}

/// After a PAUSE a link still delivers what was on the wire and what its sender put on it
/// while the PAUSE travelled: inside the headroom `engine::lossless` computes for the link,
/// and most of it.
#[test]
fn pause_needs_no_more_headroom_than_the_lossless_model_computes() {
    let mut s = incast_with_victim(None);
    s.duration_us = 2_000.0;
    let r = simulate(&s, &Limits::default()).unwrap();
    assert!(r.totals.pause_frames > 0);
    let mut fullest = 0.0f64;
    for l in &r.links {
        if let Some(h) = l.headroom_bytes {
            assert!(
                l.headroom_used_bytes <= h,
                "{} → {}: {} bytes after PAUSE, headroom {h}",
                l.from,
                l.to,
                l.headroom_used_bytes
            );
            fullest = fullest.max(l.headroom_used_bytes as f64 / h as f64);
        } else {
            assert!(
                l.to.starts_with("gpu") || l.to.starts_with("host"),
                "{}",
                l.to
            );
        }
    }
    // 400 Gb/s and 1 µs each way: the cable term alone is 100 000 of 108 256 bytes.
    assert!(
        fullest > 0.9,
        "the fullest headroom was {:.0} % used",
        fullest * 100.0
    );
}
