//! The fabric lab's comparisons: seven claims the reference makes, each as two scenarios run
//! side by side and a check that says, in the runs' own numbers, whether the claim held.
//!
//! Each side is small enough for a browser worker (a few million events at most; the
//! tests measure them). [`check_browser_budget`] estimates a scenario's events before it
//! runs and refuses one too large for the browser, naming the native command instead.

use super::outputs::{Report, Stop};
use super::scenario::{leaf_spine, lossless_switch, named_scenario, scenario_names, Scenario};
use super::switch::{EcnSpec, MarkAt, Routing, SwitchSpec};
use super::topology::{Topology, TopologySpec};
use super::traffic::{plan, TrafficSpec};
use super::SimError;
use crate::dcqcn::DcqcnParams;
use crate::exercise::Exercise;
use crate::fabric::{FabricSpec, Tiers};

/// One side of a comparison.
#[derive(Debug)]
pub struct Side {
    /// What differs on this side, in a few words (a legend or a column heading).
    pub label: &'static str,
    pub scenario: fn() -> Result<Scenario, SimError>,
}

/// What a comparison's two runs showed.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the runs show what the claim predicts.
    pub holds: bool,
    /// The numbers behind it, one line (e.g. "victim 58 → 400 Gb/s").
    pub shown: String,
}

/// A claim and the pair of runs that tests it.
#[derive(Debug)]
pub struct LabCase {
    /// Stable, for URLs, tests and the page's `data-case`.
    pub id: &'static str,
    pub title: &'static str,
    /// What the reference claims, which the two runs test.
    pub claim: &'static str,
    /// The side the claim warns about first, then the side it recommends.
    pub sides: [Side; 2],
    /// Reads the two reports, in the order of `sides`.
    pub check: fn(&Report, &Report) -> Verdict,
}

/// Cases are told apart by their id (a page compares the case it shows).
impl PartialEq for LabCase {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl LabCase {
    /// Both sides' scenarios.
    pub fn scenarios(&self) -> Result<[Scenario; 2], SimError> {
        Ok([(self.sides[0].scenario)()?, (self.sides[1].scenario)()?])
    }
}

/// The lab's comparisons, in the order. Where a claim comes from outside the
/// simulator:
/// - ECMP places each flow (here each QP, by its UDP source port) on one path, which is why
///   NCCL offers more QPs per connection (`NCCL_IB_QPS_PER_CONNECTION`, NCCL User Guide).
/// - PFC pauses spreading to innocent flows, and DCQCN as the cure: Guo et al., "RDMA over
///   Commodity Ethernet at Scale", SIGCOMM 2016; Zhu et al., "Congestion Control for
///   Large-Scale RDMA Deployments" (DCQCN), SIGCOMM 2015.
/// - ECN has to mark before PFC pauses for DCQCN to act first: the DCQCN paper, which sets
///   its marking threshold well below the PFC threshold.
/// - Deadlock needs a cycle in the buffers' dependencies (Dally and Seitz, "Deadlock-Free
///   Message Routing in Multiprocessor Interconnection Networks", 1987); PFC makes switch
///   buffers such a resource (Hu et al., "Deadlocks in Datacenter Networks: Why Do They
///   Form, and How to Avoid Them", HotNets 2016). Up/down routing on a Clos has no cycle.
/// - Rails: the NVIDIA DGX SuperPOD reference architecture cables NIC r of every node in a
///   scalable unit to that unit's leaf r.
///
/// Every number a verdict states is the simulator's.
pub static CASES: [LabCase; 7] = [
    LabCase {
        id: "ecmp-collision",
        title: "ECMP collision",
        claim: "ECMP hashes each QP onto one uplink, so a few long flows can land on the same \
                uplink while others idle, and the collided flows finish late. Routing each \
                packet to the least-queued uplink (adaptive routing) evens the load out.",
        sides: [
            Side {
                label: "ECMP, 1 QP per connection",
                scenario: ecmp_one_qp,
            },
            Side {
                label: "adaptive routing",
                scenario: ecmp_adaptive,
            },
        ],
        check: check_ecmp,
    },
    LabCase {
        id: "ecmp-qps",
        title: "QPs per connection",
        claim: "Each QP of a connection has its own UDP source port, so ECMP hashes each one \
                on its own: with four QPs per connection a collision holds back a quarter of \
                a flow instead of all of it, and the uplinks share the load more evenly than \
                with one.",
        sides: [
            Side {
                label: "ECMP, 1 QP per connection",
                scenario: ecmp_one_qp,
            },
            Side {
                label: "ECMP, 4 QPs per connection",
                scenario: ecmp_four_qps,
            },
        ],
        check: check_ecmp,
    },
    LabCase {
        id: "incast-victim",
        title: "Incast and a victim",
        claim: "With PFC alone, an incast's pauses climb back through the fabric and stop a \
                flow that shares only a link with it. DCQCN, with ECN marking below XOFF, \
                slows the incast's senders before PFC fires, and the victim keeps its rate.",
        sides: [
            Side {
                label: "PFC alone",
                scenario: victim_pfc_alone,
            },
            Side {
                label: "DCQCN, ECN below XOFF",
                scenario: victim_dcqcn,
            },
        ],
        check: check_victim,
    },
    LabCase {
        id: "ecn-vs-pfc",
        title: "ECN vs PFC thresholds",
        claim: "DCQCN can only act if switches mark before they pause: with K_min above XOFF \
                the queue reaches XOFF first and PFC stops whole links; with K_min below, \
                DCQCN's rate cuts keep queues short and PFC rarely fires.",
        sides: [
            Side {
                label: "K_min above XOFF",
                scenario: kmin_above_xoff,
            },
            Side {
                label: "K_min below XOFF",
                scenario: victim_dcqcn,
            },
        ],
        check: check_thresholds,
    },
    LabCase {
        id: "deadlock",
        title: "PFC deadlock",
        claim: "Lossless routes that form a cycle of buffers can deadlock under PFC: each \
                switch waits for the next to resume. Up/down routing on a fat tree has no \
                such cycle, so the same load finishes.",
        sides: [
            Side {
                label: "ring of switches, clockwise routes",
                scenario: ring_deadlock,
            },
            Side {
                label: "fat tree, up/down routes",
                scenario: fat_tree,
            },
        ],
        check: check_deadlock,
    },
    LabCase {
        id: "rail-alignment",
        title: "Rail alignment",
        claim: "On a rail-optimized fabric a rail-aligned ring keeps its traffic on each \
                rail's leaf; built top-of-rack, the same ring crosses the spines between \
                servers, where ECMP can hash two or three of its channels onto one uplink, and \
                the ring runs at its slowest channel's pace.",
        sides: [
            Side {
                label: "rail-optimized",
                scenario: rail_optimized,
            },
            Side {
                label: "top-of-rack",
                scenario: top_of_rack,
            },
        ],
        check: check_rails,
    },
    LabCase {
        id: "oversubscription",
        title: "Oversubscription",
        claim: "A leaf with twice as many down ports as up ports (2:1) gives traffic that \
                leaves it half the bandwidth of a non-blocking (1:1) leaf; traffic between \
                hosts on one leaf never uses the uplinks and is unaffected.",
        sides: [
            Side {
                label: "1:1 leaves",
                scenario: leaves_one_to_one,
            },
            Side {
                label: "2:1 leaves",
                scenario: leaves_two_to_one,
            },
        ],
        check: check_oversubscription,
    },
];

/// The case with this id.
pub fn lab_case(id: &str) -> Option<&'static LabCase> {
    CASES.iter().find(|c| c.id == id)
}

/// What a learner ran for one case: the two reports, in the order of its sides.
#[derive(Debug, Clone)]
pub struct LabRuns {
    pub case: String,
    pub runs: [Report; 2],
}

impl LabRuns {
    /// The case's verdict on these runs, if the case exists.
    pub fn verdict(&self) -> Option<Verdict> {
        lab_case(&self.case).map(|c| (c.check)(&self.runs[0], &self.runs[1]))
    }

    fn shows(&self, id: &str) -> bool {
        self.case == id && self.verdict().is_some_and(|v| v.holds)
    }
}

/// The lab page's "Try this", one per case: each is done when the learner's two runs of
/// that case show what its claim predicts, whatever parameters they changed to get there.
pub static EXERCISES: [Exercise<LabRuns>; 7] = [
    Exercise {
        id: "ecmp-collision",
        task: "Run the ECMP collision with a seed of your own and see adaptive routing \
               raise the flows' aggregate rate by more than a quarter, wherever the hash \
               put the flows.",
        lesson: "ECMP places a QP, not a packet: the flows that hash onto one uplink share \
                 it for their whole life. Per-packet adaptive routing never commits a flow \
                 to one uplink.",
        done: |r| r.shows("ecmp-collision"),
    },
    Exercise {
        id: "ecmp-qps",
        task: "Try seeds until one QP per connection collides badly, and see four QPs per \
               connection win back more than a quarter of the aggregate rate.",
        lesson: "More QPs per connection give the hash more, smaller things to place: the \
                 worst uplink carries a smaller share of any one flow. It evens the load \
                 out, but less than adaptive routing, which places every packet.",
        done: |r| r.shows("ecmp-qps"),
    },
    Exercise {
        id: "incast-victim",
        task: "Make the victim flow, which shares no bottleneck with the incast, keep more \
               than twice the rate it keeps under PFC alone.",
        lesson: "PFC pauses a whole link, not a flow: every flow behind a paused port waits. \
                 Congestion control that slows the culprits keeps the pauses from starting.",
        done: |r| r.shows("incast-victim"),
    },
    Exercise {
        id: "ecn-vs-pfc",
        task: "Show PFC pausing far more often with K_min above XOFF than below it.",
        lesson: "A mark must reach the receiver and a CNP come back before a sender slows; \
                 a PAUSE needs only the queue. Marking has to start well below XOFF to win.",
        done: |r| r.shows("ecn-vs-pfc"),
    },
    Exercise {
        id: "deadlock",
        task: "Make the ring of switches deadlock while the fat tree, under the same load, \
               finishes.",
        lesson: "A deadlock needs a cycle of buffers, each waiting on the next. Routing that \
                 only goes up then down cannot form one.",
        done: |r| r.shows("deadlock"),
    },
    Exercise {
        id: "rail-alignment",
        task: "Run the same ring all-reduce on both builds and see the top-of-rack one send \
               bytes through the spines that the rail-optimized one keeps on its leaves.",
        lesson: "With rails, GPU r of every server sits on leaf r, so a rail-aligned ring \
                 crosses one switch between servers. Top-of-rack, every server-to-server \
                 step climbs to a spine.",
        done: |r| r.shows("rail-alignment"),
    },
    Exercise {
        id: "oversubscription",
        task: "Show cross-leaf traffic losing at least 40 % of its rate at 2:1 while traffic \
               inside one leaf keeps its rate.",
        lesson: "Oversubscription only costs what must leave the leaf: placing jobs so their \
                 heavy traffic stays under one leaf hides it.",
        done: |r| r.shows("oversubscription"),
    },
];

// The scenarios.

fn ecmp_one_qp() -> Result<Scenario, SimError> {
    named_scenario("ecmp-collision")
}

/// The same eight flows, each over four QPs (NCCL_IB_QPS_PER_CONNECTION=4), so each
/// connection offers ECMP four UDP source ports to hash.
fn ecmp_four_qps() -> Result<Scenario, SimError> {
    let mut s = named_scenario("ecmp-collision")?;
    s.name = "ecmp-collision, 4 QPs per connection".into();
    s.description = "The same eight flows, each split over four QPs that ECMP hashes apart.".into();
    for t in &mut s.traffic {
        if let TrafficSpec::Flow { qps, .. } = t {
            *qps = 4;
        }
    }
    Ok(s)
}

fn ecmp_adaptive() -> Result<Scenario, SimError> {
    let mut s = named_scenario("ecmp-collision")?;
    s.name = "ecmp-collision, adaptive routing".into();
    s.description = "The same eight flows with each packet sent to the least-queued uplink.".into();
    s.switch.routing = Routing::Adaptive;
    Ok(s)
}

/// Seven hosts send to host 8 without end while host 0 sends to host 9, all on one
/// leaf–spine with PFC (packets sprayed over the uplinks, so the victim shares the paused
/// links by construction rather than by where a hash put it). Under PFC alone the pauses
/// climb from host 8's port to the spines and to leaf 0's uplinks, and the victim's packets
/// wait behind the incast's.
pub(super) fn incast_with_victim(dcqcn: Option<DcqcnParams>) -> Scenario {
    let mut traffic: Vec<TrafficSpec> = (1..8)
        .map(|i| TrafficSpec::Flow {
            from: i,
            to: 8,
            bytes: None,
            start_us: 0.0,
            qps: 1,
        })
        .collect();
    traffic.push(TrafficSpec::Flow {
        from: 0,
        to: 9,
        bytes: None,
        start_us: 0.0,
        qps: 1,
    });
    Scenario {
        name: "incast with a victim".into(),
        description: "Hosts 1–7 send to host 8 without end; host 0 sends to host 9, whose \
                      own link is idle, over the same sprayed uplinks."
            .into(),
        topology: leaf_spine(16, 16, 400.0),
        switch: SwitchSpec {
            routing: Routing::Spray,
            ..lossless_switch(4 << 20)
        },
        dcqcn,
        traffic,
        mtu_bytes: 4096,
        duration_us: 20_000.0,
        sample_interval_us: 100.0,
        seed: 1,
    }
}

fn victim_pfc_alone() -> Result<Scenario, SimError> {
    let mut s = incast_with_victim(None);
    s.name = "incast with a victim, PFC alone".into();
    Ok(s)
}

fn victim_dcqcn() -> Result<Scenario, SimError> {
    let mut s = incast_with_victim(Some(DcqcnParams::mlx5_default()));
    s.name = "incast with a victim, DCQCN".into();
    Ok(s)
}

fn kmin_above_xoff() -> Result<Scenario, SimError> {
    let mut s = victim_dcqcn()?;
    s.name = "incast with a victim, DCQCN, K_min above XOFF".into();
    // XOFF is 256 KiB per ingress port; marking starts at 1 MB of egress queue.
    s.switch.ecn = Some(EcnSpec {
        kmin_bytes: 1_000_000,
        kmax_bytes: 3_000_000,
        pmax: 0.01,
        at: MarkAt::Enqueue,
    });
    Ok(s)
}

fn ring_deadlock() -> Result<Scenario, SimError> {
    named_scenario("ring-deadlock")
}

fn fat_tree() -> Result<Scenario, SimError> {
    named_scenario("fat-tree-no-deadlock")
}

/// Four DGX-like servers of 8 GPUs on 16-port 400G switches, two tiers: rail-optimized,
/// each rail has its own leaf; top-of-rack, each server has one leaf with 8 uplinks.
/// Measured when this case was written: busbw 365 GB/s rail-optimized; top-of-rack 26 GB/s
/// with DCQCN, 99 under PFC alone and 362 with adaptive routing. So the spine hop itself
/// costs little: ECMP's collisions (up to three channels on one uplink), and DCQCN's cuts
/// on them, cost the rest.
fn four_servers(rail_optimized: bool) -> Result<Scenario, SimError> {
    let mut s = named_scenario("ring-allreduce-16")?;
    s.name = if rail_optimized {
        "ring all-reduce, rail-optimized".into()
    } else {
        "ring all-reduce, top-of-rack".into()
    };
    s.description = "A ring all-reduce of 32 MiB per GPU over four 8-GPU servers on \
                     16-port 400G switches."
        .into();
    if let TopologySpec::Fabric { fabric, .. } = &mut s.topology {
        *fabric = FabricSpec {
            gpus: 32,
            gpus_per_node: 8,
            nics_per_node: 8,
            nic_ports: 1,
            nic_port_gbps: 400.0,
            switch_ports: 16,
            switch_port_gbps: 400.0,
            switch_port_split: 1,
            tiers: Tiers::Two,
            oversubscription: 1.0,
            rail_optimized,
            planes: 1,
        };
    }
    s.traffic = vec![TrafficSpec::RingAllReduce {
        bytes_per_gpu: 32 << 20,
        channels: 8,
        qps_per_connection: 1,
        pxn: true,
    }];
    s.duration_us = 100_000.0;
    s.sample_interval_us = 20.0;
    Ok(s)
}

fn rail_optimized() -> Result<Scenario, SimError> {
    four_servers(true)
}

fn top_of_rack() -> Result<Scenario, SimError> {
    four_servers(false)
}

/// Hosts on one leaf of eight: leaf `l` holds hosts 8l .. 8l + 8.
const HOSTS_PER_LEAF: u32 = 8;

/// 24 single-GPU hosts, 8 per leaf: hosts on leaf 0 each send to one on leaf 1, hosts on
/// leaf 2 each send to their neighbour on leaf 2. Packets are sprayed so the uplinks' count,
/// not where ECMP hashed, sets the cross-leaf rate, and PFC alone holds the senders back so
/// the uplinks run full: the run measures capacity, not how near DCQCN converges to it.
fn three_leaves(oversubscription: f64) -> Result<Scenario, SimError> {
    // Eight down ports either way, so the hosts sit on the same leaves: 16 ports at 1:1
    // leave 8 up, 12 at 2:1 leave 4.
    let switch_ports = if oversubscription > 1.0 { 12 } else { 16 };
    let mut topology = leaf_spine(24, switch_ports, 400.0);
    if let TopologySpec::Fabric { fabric, .. } = &mut topology {
        fabric.oversubscription = oversubscription;
    }
    let bytes = Some(16 << 20);
    let flow = |from, to| TrafficSpec::Flow {
        from,
        to,
        bytes,
        start_us: 0.0,
        qps: 1,
    };
    let cross = (0..HOSTS_PER_LEAF).map(|i| flow(i, HOSTS_PER_LEAF + i));
    let inside =
        (0..HOSTS_PER_LEAF).map(|i| flow(2 * HOSTS_PER_LEAF + i, 2 * HOSTS_PER_LEAF + (i + 1) % 8));
    Ok(Scenario {
        name: format!("leaves at {oversubscription}:1"),
        description: "Eight flows from leaf 0 to leaf 1 and eight inside leaf 2, 16 MiB each, \
                      sprayed, under PFC alone."
            .into(),
        topology,
        switch: SwitchSpec {
            routing: Routing::Spray,
            ..super::scenario::lossless_switch(16 << 20)
        },
        dcqcn: None,
        traffic: cross.chain(inside).collect(),
        mtu_bytes: 4096,
        duration_us: 10_000.0,
        sample_interval_us: 10.0,
        seed: 5,
    })
}

fn leaves_one_to_one() -> Result<Scenario, SimError> {
    three_leaves(1.0)
}

fn leaves_two_to_one() -> Result<Scenario, SimError> {
    three_leaves(2.0)
}

// The checks.

/// Bytes the flows matching `pick` delivered × 8 / the last one's completion time, Gb/s
/// (`None` if one of them did not finish).
fn aggregate_gbps(r: &Report, pick: impl Fn(u32) -> bool) -> Option<f64> {
    let flows: Vec<_> = r.flows.iter().filter(|f| pick(f.traffic)).collect();
    let last = flows
        .iter()
        .map(|f| f.fct_us)
        .try_fold(0.0f64, |m, t| t.map(|t| m.max(t)))?;
    let bytes: u64 = flows.iter().map(|f| f.received_bytes).sum();
    (last > 0.0 && !flows.is_empty()).then(|| bytes as f64 * 8.0 / (last * 1e3))
}

fn gbps(x: Option<f64>) -> String {
    x.map_or_else(|| "unfinished".into(), |x| format!("{x:.0} Gb/s"))
}

fn check_ecmp(a: &Report, b: &Report) -> Verdict {
    let (ra, rb) = (aggregate_gbps(a, |_| true), aggregate_gbps(b, |_| true));
    Verdict {
        holds: matches!((ra, rb), (Some(x), Some(y)) if y > 1.25 * x),
        shown: format!("the flows' aggregate rate {} → {}", gbps(ra), gbps(rb)),
    }
}

/// The victim's mean delivered rate over the run's second half, Gb/s: the flow of the last
/// traffic entry.
fn victim_gbps(r: &Report) -> f64 {
    let Some(last) = r.flows.iter().map(|f| f.traffic).max() else {
        return 0.0;
    };
    let half = r.end_us / 2.0;
    let picked: Vec<f64> = r
        .flows
        .iter()
        .filter(|f| f.traffic == last)
        .flat_map(|f| {
            r.time_us
                .iter()
                .zip(&f.rate_gbps)
                .filter(|(t, _)| **t > half)
                .map(|(_, g)| f64::from(*g))
        })
        .collect();
    picked.iter().sum::<f64>() / picked.len().max(1) as f64
}

fn check_victim(a: &Report, b: &Report) -> Verdict {
    let (va, vb) = (victim_gbps(a), victim_gbps(b));
    let (pa, pb) = (a.totals.pause_frames, b.totals.pause_frames);
    Verdict {
        holds: vb > 2.0 * va && pb < pa,
        shown: format!("victim {va:.0} → {vb:.0} Gb/s; PAUSE frames {pa} → {pb}"),
    }
}

fn check_thresholds(a: &Report, b: &Report) -> Verdict {
    let (pa, pb) = (a.totals.pause_frames, b.totals.pause_frames);
    Verdict {
        holds: pa > 0 && pa >= 4 * pb,
        shown: format!(
            "PAUSE frames {pa} → {pb}; CNPs {} → {}; victim {:.0} → {:.0} Gb/s",
            a.totals.cnps_sent,
            b.totals.cnps_sent,
            victim_gbps(a),
            victim_gbps(b)
        ),
    }
}

fn check_deadlock(a: &Report, b: &Report) -> Verdict {
    let side = |r: &Report| match &r.stop {
        Stop::Deadlock { at_us, cycle } => {
            let mut waits: Vec<String> = cycle
                .iter()
                .zip(cycle.iter().cycle().skip(1))
                .map(|(x, y)| format!("{x} waits on {y}"))
                .collect();
            waits.dedup();
            format!("deadlock at {at_us:.0} µs: {}", waits.join(", "))
        }
        Stop::Finished => format!(
            "finished in {:.0} µs after {} PAUSE frames",
            r.end_us, r.totals.pause_frames
        ),
        other => format!("stopped: {other:?}"),
    };
    Verdict {
        holds: matches!(a.stop, Stop::Deadlock { .. }) && b.stop == Stop::Finished,
        shown: format!("{}; {}", side(a), side(b)),
    }
}

/// Bytes sent to spines.
fn spine_bytes(r: &Report) -> u64 {
    r.links
        .iter()
        .filter(|l| l.to.starts_with("spine"))
        .map(|l| l.tx_bytes)
        .sum()
}

fn busbw(r: &Report) -> String {
    busbw_gbs(r).map_or_else(|| "unfinished".into(), |b| format!("{b:.0} GB/s"))
}

/// The most QPs ECMP put on one leaf-to-spine link (0 when none crosses a spine or the
/// routing picks paths per packet).
fn most_on_one_uplink(r: &Report) -> usize {
    let mut on = vec![0usize; r.links.len()];
    for l in r.flows.iter().filter_map(|f| f.path.as_ref()).flatten() {
        if let Some(n) = on.get_mut(*l as usize) {
            *n += 1;
        }
    }
    r.links
        .iter()
        .zip(on)
        .filter(|(l, _)| l.from.starts_with("leaf") && l.to.starts_with("spine"))
        .map(|(_, n)| n)
        .max()
        .unwrap_or(0)
}

fn busbw_gbs(r: &Report) -> Option<f64> {
    r.collectives.first().and_then(|c| c.busbw_gbs)
}

fn check_rails(a: &Report, b: &Report) -> Verdict {
    let (sa, sb) = (spine_bytes(a), spine_bytes(b));
    let slower = matches!((busbw_gbs(a), busbw_gbs(b)), (Some(x), Some(y)) if y < x);
    Verdict {
        holds: sb > 0 && sb > sa.saturating_mul(10) && slower,
        shown: format!(
            "busbw {} → {}; bytes through spines {:.1} → {:.1} MB; most QPs on one leaf \
             uplink {} → {}",
            busbw(a),
            busbw(b),
            sa as f64 / 1e6,
            sb as f64 / 1e6,
            most_on_one_uplink(a),
            most_on_one_uplink(b)
        ),
    }
}

fn check_oversubscription(a: &Report, b: &Report) -> Verdict {
    // The first eight traffic entries cross leaves, the rest stay on one.
    let cross = |t: u32| t < HOSTS_PER_LEAF;
    let inside = |t: u32| t >= HOSTS_PER_LEAF;
    let (ca, cb) = (aggregate_gbps(a, cross), aggregate_gbps(b, cross));
    let (ia, ib) = (aggregate_gbps(a, inside), aggregate_gbps(b, inside));
    let holds = match (ca, cb, ia, ib) {
        (Some(ca), Some(cb), Some(ia), Some(ib)) => cb < 0.6 * ca && (ib / ia - 1.0).abs() < 0.1,
        _ => false,
    };
    Verdict {
        holds,
        shown: format!(
            "cross-leaf {} → {}; inside a leaf {} → {}",
            gbps(ca),
            gbps(cb),
            gbps(ia),
            gbps(ib)
        ),
    }
}

// The browser's budget.

/// Most events a run in the browser may take: a few seconds in a worker.
pub const BROWSER_MAX_EVENTS: u64 = 30_000_000;

/// A run's work, estimated before it starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkEstimate {
    /// Events the run takes if it runs until its traffic is delivered or its duration ends.
    pub events: u64,
    /// Its flows' routes form a cycle of switch buffers under PFC, so it may stop far
    /// sooner at a deadlock; `events` is then a bound, not a forecast.
    pub may_deadlock: bool,
}

/// Estimates a run's events from its inputs: each data packet costs two events per link it
/// crosses (its transmission's end and its arrival), plus the samples and, under DCQCN,
/// each QP's rate timer. A NIC sends and receives at most its line rate, so endless flows
/// and incasts are counted at what their links carry, and the run is taken to last until
/// its busiest NIC has sent or received its bytes at line rate (or the duration ends).
pub fn estimate_events(s: &Scenario) -> Result<WorkEstimate, SimError> {
    let topo = Topology::build(&s.topology)?;
    s.validate(&topo)?;
    let (qps, _) = plan(&s.traffic, &topo, s.duration_us, s.seed)?;
    let mtu = f64::from(s.mtu_bytes);
    let seconds = |start_ps: u64| (s.duration_us - start_ps as f64 / 1e6).max(0.0) * 1e-6;
    // A host's fastest port: a GPU's NVLink, or its NIC.
    let line = |host: u32| {
        topo.ports_of(host)
            .map(|p| topo.ports[p as usize].bps)
            .fold(0.0, f64::max)
    };
    // Per QP: the bytes it would send, at most its NIC at line rate from its start.
    let mut bytes: Vec<f64> = qps
        .iter()
        .map(|q| {
            let cap = line(q.src) / 8.0 * seconds(q.start_ps);
            if q.endless {
                cap
            } else {
                (q.message_bytes as f64 * f64::from(q.messages)).min(cap)
            }
        })
        .collect();
    // Each host sends, and receives, at most line rate for the duration: scale its QPs
    // down to that, and keep the busiest host's time at line rate as the run's length.
    let mut busiest_s = 0.0f64;
    for by_src in [true, false] {
        let end = |q: &super::traffic::QpPlan| if by_src { q.src } else { q.dst };
        let mut total = vec![0.0f64; topo.hosts as usize];
        for (q, b) in qps.iter().zip(&bytes) {
            total[end(q) as usize] += b;
        }
        for (q, b) in qps.iter().zip(bytes.iter_mut()) {
            let h = end(q);
            let cap = line(h) / 8.0 * seconds(0);
            let t = total[h as usize];
            if t > cap && t > 0.0 {
                *b *= cap / t;
            }
        }
        for (h, t) in total.iter().enumerate() {
            let rate = line(h as u32) / 8.0;
            if rate > 0.0 {
                busiest_s = busiest_s.max(t / rate);
            }
        }
    }
    let run_us = (busiest_s * 1e6).min(s.duration_us);
    let mut dependencies = Dependencies::default();
    let packet_links: f64 = qps
        .iter()
        .zip(&bytes)
        .map(|(q, b)| {
            let path = path(&topo, q.src, q.dst);
            dependencies.add(&topo, &path);
            (b / mtu).ceil() * path.len() as f64
        })
        .sum();
    let samples = run_us / s.sample_interval_us;
    let timers = s
        .dcqcn
        .as_ref()
        .map_or(0.0, |d| run_us / d.rp_time_reset_us * qps.len() as f64);
    let events = 2.0 * packet_links + samples + timers + qps.len() as f64;
    Ok(WorkEstimate {
        events: events.min(u64::MAX as f64) as u64,
        may_deadlock: s.switch.pfc.is_some() && dependencies.cyclic(),
    })
}

/// The egress ports a packet crosses from `src` to `dst`, taking the first candidate at
/// each hop (on the fabrics every candidate path has the same length and shape).
fn path(topo: &Topology, src: u32, dst: u32) -> Vec<u32> {
    let mut node = src;
    let mut ports = Vec::new();
    while node != dst && ports.len() <= topo.nodes.len() {
        let Some(&port) = topo.next_ports(node, dst).first() else {
            break;
        };
        ports.push(port);
        node = topo.far_node(port);
    }
    ports
}

/// Which switch egress port's buffer waits on which: a packet held for port `a` at one
/// switch moves next to port `b` at the following switch (Dally and Seitz's channel
/// dependency graph; a cycle in it is what PFC needs to deadlock).
#[derive(Default)]
struct Dependencies {
    next: std::collections::BTreeMap<u32, std::collections::BTreeSet<u32>>,
}

impl Dependencies {
    fn add(&mut self, topo: &Topology, path: &[u32]) {
        for w in path.windows(2) {
            let at = topo.ports[w[0] as usize].node;
            if !topo.is_host(at) {
                self.next.entry(w[0]).or_default().insert(w[1]);
            }
        }
    }

    fn cyclic(&self) -> bool {
        // Kahn's algorithm: the graph is acyclic if every port can be peeled off.
        let mut indegree: std::collections::BTreeMap<u32, usize> =
            std::collections::BTreeMap::new();
        for (a, bs) in &self.next {
            indegree.entry(*a).or_insert(0);
            for b in bs {
                *indegree.entry(*b).or_insert(0) += 1;
            }
        }
        let mut ready: Vec<u32> = indegree
            .iter()
            .filter(|(_, d)| **d == 0)
            .map(|(p, _)| *p)
            .collect();
        let mut peeled = 0;
        while let Some(p) = ready.pop() {
            peeled += 1;
            for b in self.next.get(&p).into_iter().flatten() {
                if let Some(d) = indegree.get_mut(b) {
                    *d -= 1;
                    if *d == 0 {
                        ready.push(*b);
                    }
                }
            }
        }
        peeled < indegree.len()
    }
}

/// The estimate, or a refusal for a scenario too large for the browser that names the
/// native command to run it with.
pub fn check_browser_budget(s: &Scenario) -> Result<WorkEstimate, SimError> {
    let estimate = estimate_events(s)?;
    if estimate.events <= BROWSER_MAX_EVENTS {
        return Ok(estimate);
    }
    let named = scenario_names()
        .iter()
        .find(|&&n| named_scenario(n).is_ok_and(|named| &named == s));
    let command = match named {
        Some(name) => format!("native-probe netsim --scenario {name}"),
        None => "native-probe netsim --file scenario.json (the scenario saved as JSON)".into(),
    };
    Err(SimError::invalid(
        "scenario",
        format!(
            "about {:.0} million events, more than the {:.0} million a browser runs in a few \
             seconds; run it natively: {command}",
            estimate.events as f64 / 1e6,
            BROWSER_MAX_EVENTS as f64 / 1e6
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::{simulate, Limits};
    use super::*;
    use crate::exercise::Progress;

    #[test]
    fn ids_are_unique_stable_and_each_case_has_its_exercise() {
        let ids: Vec<&str> = CASES.iter().map(|c| c.id).collect();
        assert_eq!(
            ids,
            [
                "ecmp-collision",
                "ecmp-qps",
                "incast-victim",
                "ecn-vs-pfc",
                "deadlock",
                "rail-alignment",
                "oversubscription"
            ],
            "ids are in URLs: change none"
        );
        let exercises: Vec<&str> = EXERCISES.iter().map(|e| e.id).collect();
        assert_eq!(exercises, ids);
        for c in &CASES {
            assert!(std::ptr::eq(lab_case(c.id).unwrap(), c));
            assert!(!c.title.is_empty() && !c.claim.is_empty());
            assert!(!c.sides[0].label.is_empty() && !c.sides[1].label.is_empty());
        }
        assert!(lab_case("no-such").is_none());
        let nowhere = LabRuns {
            case: "no-such".into(),
            runs: [empty_report(), empty_report()],
        };
        assert!(nowhere.verdict().is_none());
        assert_eq!(Progress::default().observe(&EXERCISES, &nowhere).count(), 0);
    }

    /// The exercise asks for a seed where one QP collides badly; four QPs must win whatever
    /// seed the learner tries, not only the case's own.
    #[test]
    fn four_qps_per_connection_win_on_every_seed_tried() {
        let case = lab_case("ecmp-qps").unwrap();
        for seed in [1, 2, 3, 5, 11, 42] {
            let params = super::super::LabParams {
                seed: Some(seed),
                duration_us: None,
            };
            let [a, b] = case.scenarios_with(&params).unwrap();
            let runs = [&a, &b].map(|s| simulate(s, &Limits::default()).unwrap());
            let verdict = (case.check)(&runs[0], &runs[1]);
            assert!(verdict.holds, "seed {seed}: {}", verdict.shown);
        }
    }

    fn empty_report() -> Report {
        let s = named_scenario("ecmp-collision").unwrap();
        simulate(&s, &Limits { max_events: 1 }).unwrap()
    }

    /// Every case's two runs show what its claim predicts, the check fails with the sides
    /// swapped, each side fits the browser's budget and its estimate is near its events,
    /// and the case's exercise (and only it) is done by those runs.
    #[test]
    fn every_case_shows_its_claim_and_only_the_right_way_round() {
        for (i, c) in CASES.iter().enumerate() {
            let [a, b] = c.scenarios().unwrap();
            let runs = [&a, &b].map(|s| {
                let estimate = check_browser_budget(s).unwrap();
                let r = simulate(s, &Limits::default()).unwrap();
                if !estimate.may_deadlock {
                    let ratio = estimate.events as f64 / r.events as f64;
                    assert!(
                        (0.5..=2.0).contains(&ratio),
                        "{}: estimated {} events, ran {}",
                        s.name,
                        estimate.events,
                        r.events
                    );
                }
                r
            });
            let verdict = (c.check)(&runs[0], &runs[1]);
            assert!(verdict.holds, "{}: {}", c.id, verdict.shown);
            let swapped = (c.check)(&runs[1], &runs[0]);
            assert!(!swapped.holds, "{} swapped: {}", c.id, swapped.shown);
            let [x, y] = runs;
            let seen = LabRuns {
                case: c.id.into(),
                runs: [x.clone(), y.clone()],
            };
            let p = Progress::default().observe(&EXERCISES, &seen);
            assert!(p.is_done(i) && p.count() == 1, "{}", c.id);
            let backwards = LabRuns {
                case: c.id.into(),
                runs: [y, x],
            };
            assert_eq!(
                Progress::default().observe(&EXERCISES, &backwards).count(),
                0
            );
        }
    }

    /// The estimate is within a factor of two of the events each named scenario takes
    /// (a run that deadlocks stops early: its estimate is flagged and only bounds it), and
    /// rail-1024 is refused with the command that runs it natively.
    #[test]
    fn the_estimate_tracks_the_named_scenarios_and_refuses_the_largest() {
        for &name in scenario_names() {
            let s = named_scenario(name).unwrap();
            if name == "rail-1024" {
                let err = check_browser_budget(&s).unwrap_err().to_string();
                assert!(
                    err.contains("native-probe netsim --scenario rail-1024"),
                    "{err}"
                );
                let mut own = s.clone();
                own.seed += 1;
                let err = check_browser_budget(&own).unwrap_err().to_string();
                assert!(err.contains("native-probe netsim --file"), "{err}");
                continue;
            }
            let estimate = estimate_events(&s).unwrap();
            assert_eq!(estimate.may_deadlock, name == "ring-deadlock", "{name}");
            let r = simulate(&s, &Limits::default()).unwrap();
            let ratio = estimate.events as f64 / r.events as f64;
            if estimate.may_deadlock {
                assert!(matches!(r.stop, Stop::Deadlock { .. }) && ratio >= 1.0);
            } else {
                assert!(
                    (0.5..=2.0).contains(&ratio),
                    "{name}: estimated {} events, ran {}",
                    estimate.events,
                    r.events
                );
            }
        }
    }

    #[test]
    fn a_bad_scenario_is_refused_not_estimated() {
        let mut s = named_scenario("two-flow").unwrap();
        s.mtu_bytes = 0;
        let err = estimate_events(&s).unwrap_err().to_string();
        assert!(err.contains("mtu_bytes"), "{err}");
        s.mtu_bytes = 4096;
        s.traffic.clear();
        assert!(check_browser_budget(&s).is_err());
    }
}
