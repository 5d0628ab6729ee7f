//! The event loop: one heap of timed events, integer picoseconds, ties broken by the order
//! events were scheduled, so the same scenario and seed give the same run on every target.
//!
//! A packet is stored and forwarded: it arrives at a node when its last bit does, one
//! serialization time on the egress port plus the link's propagation delay after it
//! started. A run ends when every finite flow has delivered (and no endless flow runs),
//! at the scenario's duration, at the event cap, when the caller cancels, or when PFC has
//! deadlocked: two sample intervals with no data packet sent anywhere while switches wait
//! on each other's PAUSE in a cycle.

use super::host::{NextPacket, NicQueue, Qp};
use super::outputs::{Outputs, Stop};
use super::scenario::Scenario;
use super::switch::{Egress, Ingress, MarkAt, Packet, Queued, Routing, Rules, SwitchState};
use super::topology::{NodeKind, Topology};
use super::traffic::{plan, CollectivePlan};
use super::{Report, SimError};
use crate::dcqcn::{
    us_to_ps, CnpOutcome, Limits, NotificationPoint, ReactionPoint, RpConfig, SplitMix64,
};

/// Bytes of a CNP on the wire (an RoCE v2 BTH + DETH-less CNP with its headers, padded to
/// Ethernet's 64-byte minimum frame).
pub(super) const CNP_BYTES: u16 = 64;
/// RoCE v2's UDP destination port (IANA; IBTA Annex A17).
const ROCE_V2_PORT: u64 = 4791;
/// Events between two progress reports.
const PROGRESS_EVERY: u64 = 1 << 20;

/// How far a run has gone, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    pub events: u64,
    pub simulated_us: f64,
    pub duration_us: f64,
}

/// What the caller wants after a progress report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Continue,
    Cancel,
}

/// Runs a scenario to its end.
pub fn simulate(scenario: &Scenario, limits: &Limits) -> Result<Report, SimError> {
    simulate_with_progress(scenario, limits, |_| Control::Continue)
}

/// Runs a scenario, reporting progress every 2²⁰ events; [`Control::Cancel`] stops it
/// with what it has so far.
pub fn simulate_with_progress(
    scenario: &Scenario,
    limits: &Limits,
    progress: impl FnMut(&Progress) -> Control,
) -> Result<Report, SimError> {
    limits.validate()?;
    let topo = Topology::build(&scenario.topology)?;
    scenario.validate(&topo)?;
    let (plans, collectives) = plan(
        &scenario.traffic,
        &topo,
        scenario.duration_us,
        scenario.seed,
    )?;
    let mut sim = Sim::new(scenario, topo, &plans, collectives)?;
    sim.run(limits.max_events, progress);
    let paths: Vec<Option<Vec<u32>>> = (0..sim.qps.len() as u32)
        .map(|q| sim.ecmp_path(q))
        .collect();
    Ok(sim.out.finish(
        &sim.topo,
        &sim.qps,
        &paths,
        &sim.egress,
        &sim.ingress,
        &sim.switches,
        sim.now,
        &sim.collectives,
    ))
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    /// `pkt`'s last bit reached the node of ingress `port`.
    Arrive {
        port: u32,
        pkt: Packet,
    },
    TxDone {
        port: u32,
    },
    /// A host port's earliest QP may send now.
    Wake {
        port: u32,
    },
    /// A PAUSE (or RESUME) reached egress `port`.
    Pfc {
        port: u32,
        pause: bool,
    },
    RateTimer {
        qp: u32,
        gen: u32,
    },
    PendingCut {
        qp: u32,
    },
    Sample,
}

#[derive(Debug, Clone, Copy)]
struct Event {
    time: u64,
    /// Ties at one time go in scheduling order; the event cap (≤ 2·10⁹) keeps it from
    /// wrapping. With `Kind` at 20 bytes an event is 32, which the heap moves on every
    /// push and pop.
    seq: u32,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed: the heap is a max-heap and the earliest event goes first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}
/// A binary heap: a 4-ary one measured faster on two flows and slower on an incast, so the
/// standard one stays.
type EventQueue = std::collections::BinaryHeap<Event>;

/// Serialization time of `bytes` at `bps`, ps (at least 1), rounded to the nearest ps
/// (adding ½ and truncating: the value is never negative, and it spares a libm call on
/// every packet).
fn ser_ps(bytes: u64, bps: f64) -> u64 {
    ((bytes as f64 * 8.0e12 / bps + 0.5) as u64).max(1)
}

/// A well-mixed 64-bit hash (SplitMix64's finalizer).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The RoCE v2 UDP source port the Linux kernel derives from a QP pair:
/// `rdma_calc_flow_label(lqpn, rqpn)` then `rdma_flow_label_to_udp_sport` (include/rdma/
/// ib_verbs.h): the 20-bit flow label folded to 14 bits, in 0xC000..=0xFFFF.
pub fn roce_udp_sport(lqpn: u32, rqpn: u32) -> u16 {
    let mut v = u64::from(lqpn) * u64::from(rqpn);
    v ^= v >> 20;
    v ^= v >> 40;
    let flow_label = (v & 0xF_FFFF) as u32;
    let low = (flow_label & 0x03FFF) ^ ((flow_label & 0xF_C000) >> 14);
    (low | 0xC000) as u16
}

struct Sim {
    topo: Topology,
    heap: EventQueue,
    seq: u32,
    now: u64,
    end_ps: u64,
    sample_ps: u64,
    mtu: u64,
    qps: Vec<Qp>,
    egress: Vec<Egress>,
    ingress: Vec<Ingress>,
    nic: Vec<NicQueue>,
    /// Per node: its rules, for switches.
    rules: Vec<Option<Rules>>,
    switches: Vec<SwitchState>,
    switch_seed: Vec<u64>,
    routing: Routing,
    dcqcn: Option<crate::dcqcn::DcqcnParams>,
    time_reset_ps: u64,
    np: NotificationPoint,
    rng: SplitMix64,
    /// Finite QPs not yet delivered; endless ones keep the run to its duration.
    unfinished: usize,
    endless: bool,
    collectives: Vec<CollectivePlan>,
    /// Data packets put on any link since the last sample, for the deadlock check.
    moved_since_sample: u64,
    still_samples: u32,
    out: Outputs,
}

impl Sim {
    fn new(
        s: &Scenario,
        topo: Topology,
        plans: &[super::traffic::QpPlan],
        collectives: Vec<CollectivePlan>,
    ) -> Result<Sim, SimError> {
        let ports = topo.ports.len();
        let mut nic: Vec<NicQueue> = (0..ports).map(|_| NicQueue::default()).collect();
        // Each NIC's QP numbers start where its history left them: seeded per host, so two
        // hosts' first QPs do not share a number (and a UDP source port) by construction.
        let mut next_qpn: Vec<u32> = (0..topo.hosts)
            .map(|h| 0x100 + (mix(s.seed ^ (u64::from(h) << 32)) % 0x10_0000) as u32)
            .collect();
        let mut qps = Vec::with_capacity(plans.len());
        for (i, p) in plans.iter().enumerate() {
            let first = topo.next_ports(p.src, p.dst);
            // The QPN pair gives the UDP source port; the NIC port among several, the hash.
            let lqpn = next_qpn[p.src as usize];
            next_qpn[p.src as usize] += 1;
            let rqpn = next_qpn[p.dst as usize];
            next_qpn[p.dst as usize] += 1;
            let udp_sport = roce_udp_sport(lqpn, rqpn);
            let hash = mix((u64::from(p.src) << 40)
                ^ (u64::from(p.dst) << 16)
                ^ u64::from(udp_sport)
                ^ (ROCE_V2_PORT << 56)
                ^ (17 << 36));
            let port = first[(hash % first.len() as u64) as usize];
            nic[port as usize].qps.push(i as u32);
            qps.push(Qp {
                src: p.src,
                dst: p.dst,
                port,
                udp_sport,
                hash,
                message_bytes: p.message_bytes,
                messages: p.messages,
                posted: 0,
                initial: p.initial,
                fed: 0,
                open: p.opened_by.is_none(),
                opens: None,
                sent_bytes: 0,
                received_bytes: 0,
                inputs: p.inputs.iter().map(|&f| f as u32).collect(),
                feeds: Vec::new(),
                start_ps: p.start_ps,
                finish_ps: None,
                next_tx_ps: p.start_ps,
                rp: None,
                timer_gen: 0,
                cnps: 0,
                delivered_since_sample: 0,
                traffic: p.traffic,
                endless: p.endless,
                last_tx_ps: 0,
                last_tx_bytes: 0,
            });
        }
        for (i, p) in plans.iter().enumerate() {
            if let Some((by, at)) = p.opened_by {
                qps[by].opens = Some((i as u32, at));
            }
            for &input in &p.inputs {
                qps[input].feeds.push(i as u32);
            }
        }
        qps.iter_mut().for_each(Qp::repost);
        let rules: Vec<Option<Rules>> = topo
            .nodes
            .iter()
            .map(|n| match n.kind {
                NodeKind::Host => None,
                NodeKind::NvSwitch => Some(Rules::nvswitch(&s.switch)),
                _ => Some(Rules::of(&s.switch)),
            })
            .collect();
        let mut seeds = SplitMix64::new(s.seed);
        let switch_seed = topo.nodes.iter().map(|_| seeds.next_u64()).collect();
        let unfinished = qps.iter().filter(|q| !q.endless).count();
        let endless = qps.iter().any(|q| q.endless);
        let sample_ps = us_to_ps(s.sample_interval_us).max(1);
        let out = Outputs::new(s, &topo, &qps, &collectives)?;
        let mut sim = Sim {
            heap: EventQueue::with_capacity(4096 + 4 * ports),
            seq: 0,
            now: 0,
            end_ps: us_to_ps(s.duration_us),
            sample_ps,
            mtu: u64::from(s.mtu_bytes),
            egress: (0..ports).map(|_| Egress::default()).collect(),
            ingress: (0..ports).map(|_| Ingress::default()).collect(),
            nic,
            switches: topo.nodes.iter().map(|_| SwitchState::default()).collect(),
            rules,
            switch_seed,
            routing: s.switch.routing,
            dcqcn: s.dcqcn.clone(),
            time_reset_ps: s
                .dcqcn
                .as_ref()
                .map_or(1, |d| us_to_ps(d.rp_time_reset_us).max(1)),
            np: NotificationPoint::new(
                qps.len(),
                s.dcqcn
                    .as_ref()
                    .map_or(0, |d| us_to_ps(d.np_min_time_between_cnps_us)),
            ),
            rng: SplitMix64::new(s.seed ^ 0xEC4E_5EED),
            unfinished,
            endless,
            collectives,
            moved_since_sample: 0,
            still_samples: 0,
            out,
            qps,
            topo,
        };
        for port in 0..ports as u32 {
            if let Some(&first) = sim.nic[port as usize].qps.first() {
                let at = sim.nic[port as usize]
                    .qps
                    .iter()
                    .map(|&q| sim.qps[q as usize].start_ps)
                    .min()
                    .unwrap_or(sim.qps[first as usize].start_ps);
                sim.nic[port as usize].wake_at = Some(at);
                sim.push(at, Kind::Wake { port });
            }
        }
        sim.push(sample_ps, Kind::Sample);
        Ok(sim)
    }

    fn push(&mut self, time: u64, kind: Kind) {
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            kind,
        });
    }

    fn run(&mut self, max_events: u64, mut progress: impl FnMut(&Progress) -> Control) {
        let mut events = 0u64;
        let stop = loop {
            if self.unfinished == 0 && !self.endless {
                break Stop::Finished;
            }
            let Some(ev) = self.heap.pop() else {
                break Stop::Finished;
            };
            if ev.time > self.end_ps {
                self.now = self.end_ps;
                break Stop::Duration;
            }
            if events >= max_events {
                break Stop::EventCap { max_events };
            }
            events += 1;
            if events.is_multiple_of(PROGRESS_EVERY) {
                let p = Progress {
                    events,
                    simulated_us: self.now as f64 / 1e6,
                    duration_us: self.end_ps as f64 / 1e6,
                };
                if progress(&p) == Control::Cancel {
                    break Stop::Cancelled;
                }
            }
            self.now = ev.time;
            if let Some(stop) = self.handle(ev.kind) {
                break stop;
            }
        };
        self.out.events = events;
        self.out.stop = Some(stop);
    }

    fn handle(&mut self, kind: Kind) -> Option<Stop> {
        match kind {
            Kind::Arrive { port, pkt } => self.arrive(port, pkt),
            Kind::TxDone { port } => self.tx_done(port),
            Kind::Wake { port } => {
                self.nic[port as usize].wake_at = None;
                self.try_start(port);
            }
            Kind::Pfc { port, pause } => self.pfc(port, pause),
            Kind::RateTimer { qp, gen } => self.rate_timer(qp, gen),
            Kind::PendingCut { qp } => {
                if let Some(rp) = self.qps[qp as usize].rp.as_mut() {
                    rp.apply_pending_cut(self.now);
                }
                self.after_rate_change(qp);
            }
            Kind::Sample => return self.sample(),
        }
        None
    }

    fn arrive(&mut self, port: u32, mut pkt: Packet) {
        let node = self.topo.ports[port as usize].node;
        if !pkt.cnp {
            self.out.on_wire_bytes -= u64::from(pkt.bytes);
        }
        if self.topo.is_host(node) {
            if pkt.cnp {
                self.cnp(pkt.qp);
            } else {
                self.deliver(pkt);
            }
            return;
        }
        let Some(out) = self.pick_port(node, &pkt) else {
            // Routes were checked before the run; a packet with none is lost, and counted.
            self.out.unroutable += 1;
            return;
        };
        if pkt.cnp {
            self.egress[out as usize].control.push_back(pkt);
            self.try_start(out);
            return;
        }
        let bytes = u64::from(pkt.bytes);
        let Some(rules) = self.rules[node as usize].as_ref() else {
            return;
        };
        let sw = &mut self.switches[node as usize];
        if rules.pfc.is_none() && sw.buffered + bytes > rules.buffer {
            sw.drops += 1;
            self.out.dropped_bytes += bytes;
            self.out.in_network_bytes -= bytes;
            return;
        }
        sw.buffered += bytes;
        sw.max_buffered = sw.max_buffered.max(sw.buffered);
        if sw.buffered > rules.buffer {
            sw.headroom_overruns += 1;
        }
        let eg = &mut self.egress[out as usize];
        let rng = &mut self.rng;
        if rules.marks(MarkAt::Enqueue, eg.data_bytes, || rng.next_f64()) {
            pkt.ce = true;
            eg.ecn_marks += 1;
        }
        eg.data_bytes += bytes;
        eg.max_data_bytes = eg.max_data_bytes.max(eg.data_bytes);
        eg.data.push_back(Queued { pkt, ingress: port });
        let ing = &mut self.ingress[port as usize];
        ing.bytes += bytes;
        if ing.holding {
            ing.since_pause += bytes;
            ing.max_since_pause = ing.max_since_pause.max(ing.since_pause);
        }
        let xoff = rules
            .pfc
            .is_some_and(|pfc| !ing.holding && ing.bytes >= pfc.xoff_bytes);
        if xoff {
            ing.holding = true;
            ing.holding_since = self.now;
            ing.since_pause = 0;
            ing.pause_frames_sent += 1;
            let p = &self.topo.ports[port as usize];
            let (upstream, delay) = (p.peer, p.delay_ps);
            self.push(
                self.now + delay,
                Kind::Pfc {
                    port: upstream,
                    pause: true,
                },
            );
        }
        self.try_start(out);
    }

    /// The egress port at switch `node` for `pkt`, by the scenario's routing.
    fn pick_port(&mut self, node: u32, pkt: &Packet) -> Option<u32> {
        let cands = self.topo.next_ports(node, pkt.dst);
        match cands.len() {
            0 => None,
            1 => Some(cands[0]),
            n => Some(match self.routing {
                Routing::Ecmp => {
                    let h = mix(self.qps[pkt.qp as usize].hash ^ self.switch_seed[node as usize]);
                    cands[(h % n as u64) as usize]
                }
                Routing::Adaptive => {
                    // Least-queued; ties go to the flow's hash so equal queues still spread.
                    let h = mix(self.qps[pkt.qp as usize].hash ^ self.switch_seed[node as usize]);
                    let start = (h % n as u64) as usize;
                    (0..n)
                        .map(|k| cands[(start + k) % n])
                        .min_by_key(|&p| {
                            let e = &self.egress[p as usize];
                            e.data_bytes
                        })
                        .unwrap_or(cands[start])
                }
                Routing::Spray => {
                    let first = self.topo.nodes[node as usize].first_port as usize;
                    let turn = &mut self.egress[first].spray_turn;
                    *turn = turn.wrapping_add(1);
                    cands[*turn as usize % n]
                }
            }),
        }
    }

    /// The egress ports a QP's packets cross under ECMP (every packet the same path);
    /// `None` when the path changes per packet (adaptive routing, spraying).
    fn ecmp_path(&self, qp: u32) -> Option<Vec<u32>> {
        if self.routing != Routing::Ecmp {
            return None;
        }
        let q = &self.qps[qp as usize];
        let mut path = vec![q.port];
        let mut node = self.topo.far_node(q.port);
        while !self.topo.is_host(node) && path.len() <= self.topo.nodes.len() {
            let cands = self.topo.next_ports(node, q.dst);
            let pick = match cands.len() {
                0 => return Some(path),
                1 => cands[0],
                n => cands[(mix(q.hash ^ self.switch_seed[node as usize]) % n as u64) as usize],
            };
            path.push(pick);
            node = self.topo.far_node(pick);
        }
        Some(path)
    }

    fn try_start(&mut self, port: u32) {
        let p = port as usize;
        if self.egress[p].busy {
            return;
        }
        let held = if let Some(pkt) = self.egress[p].control.pop_front() {
            Queued {
                pkt,
                ingress: u32::MAX,
            }
        } else if self.egress[p].paused {
            return;
        } else if let Some(mut held) = self.egress[p].data.pop_front() {
            let pkt = &mut held.pkt;
            let node = self.topo.ports[p].node;
            let eg = &mut self.egress[p];
            // The queue counts a packet until its last bit has left (it holds buffer until
            // then), as the DCQCN packet model's congestion point does.
            let behind = eg.data_bytes - u64::from(pkt.bytes);
            if let Some(rules) = &self.rules[node as usize] {
                let rng = &mut self.rng;
                if rules.marks(MarkAt::Dequeue, behind, || rng.next_f64()) && !pkt.ce {
                    pkt.ce = true;
                    eg.ecn_marks += 1;
                }
            }
            held
        } else if self.topo.is_host(self.topo.ports[p].node) {
            match self.nic[p].next(&self.qps, self.now, self.mtu) {
                NextPacket::Send { qp, bytes } => Queued {
                    pkt: self.host_packet(qp, bytes),
                    ingress: u32::MAX,
                },
                NextPacket::WaitUntil(t) => {
                    let nic = &mut self.nic[p];
                    if nic.wake_at.is_none_or(|w| t < w) {
                        nic.wake_at = Some(t);
                        self.push(t, Kind::Wake { port });
                    }
                    return;
                }
                NextPacket::Idle => return,
            }
        } else {
            return;
        };
        if !held.pkt.cnp {
            self.moved_since_sample += 1;
        }
        let done = self.now + ser_ps(u64::from(held.pkt.bytes), self.topo.ports[p].bps);
        let eg = &mut self.egress[p];
        eg.busy = true;
        eg.sending = Some(held);
        self.push(done, Kind::TxDone { port });
    }

    /// The next packet of `qp`, as its NIC sends it.
    fn host_packet(&mut self, qp: u32, bytes: u16) -> Packet {
        let now = self.now;
        let line = self.topo.ports[self.qps[qp as usize].port as usize].bps;
        let q = &mut self.qps[qp as usize];
        q.sent_bytes += u64::from(bytes);
        q.last_tx_ps = now;
        q.last_tx_bytes = bytes;
        let mut increased = false;
        if let Some(rp) = q.rp.as_mut() {
            increased = rp.on_bytes_sent(u64::from(bytes)) > 0;
        }
        q.next_tx_ps = now + ser_ps(u64::from(bytes), q.pace_bps(line));
        self.out.sent_bytes += u64::from(bytes);
        self.out.in_network_bytes += u64::from(bytes);
        // Counted on the wire from the first bit: a host holds no buffer.
        self.out.on_wire_bytes += u64::from(bytes);
        let pkt = Packet {
            qp,
            bytes,
            dst: q.dst,
            ce: false,
            cnp: false,
        };
        if increased {
            self.after_rate_change(qp);
        }
        pkt
    }

    fn tx_done(&mut self, port: u32) {
        let p = port as usize;
        let link = &self.topo.ports[p];
        let (peer, delay, node) = (link.peer, link.delay_ps, link.node);
        let eg = &mut self.egress[p];
        let Some(held) = eg.sending.take() else {
            return;
        };
        let pkt = held.pkt;
        eg.busy = false;
        eg.tx_bytes += u64::from(pkt.bytes);
        if !pkt.cnp && !self.topo.is_host(node) {
            eg.data_bytes -= u64::from(pkt.bytes);
        }
        self.push(self.now + delay, Kind::Arrive { port: peer, pkt });
        if !pkt.cnp && !self.topo.is_host(node) {
            self.out.on_wire_bytes += u64::from(pkt.bytes);
            self.release(node, held);
        }
        self.try_start(port);
    }

    /// A data packet left switch `node`: its buffer and its ingress port's share free up.
    fn release(&mut self, node: u32, held: Queued) {
        let bytes = u64::from(held.pkt.bytes);
        self.switches[node as usize].buffered -= bytes;
        let ing = &mut self.ingress[held.ingress as usize];
        ing.bytes -= bytes;
        let xon = self.rules[node as usize]
            .as_ref()
            .and_then(|r| r.pfc)
            .map(|p| p.xon_bytes);
        if let Some(xon) = xon {
            if ing.holding && ing.bytes <= xon {
                ing.holding = false;
                ing.held_ps += self.now - ing.holding_since;
                let link = &self.topo.ports[held.ingress as usize];
                let (upstream, delay) = (link.peer, link.delay_ps);
                self.push(
                    self.now + delay,
                    Kind::Pfc {
                        port: upstream,
                        pause: false,
                    },
                );
            }
        }
    }

    fn pfc(&mut self, port: u32, pause: bool) {
        let eg = &mut self.egress[port as usize];
        if pause == eg.paused {
            return;
        }
        eg.paused = pause;
        if pause {
            eg.paused_since = self.now;
            eg.pause_frames_received += 1;
        } else {
            eg.paused_ps += self.now - eg.paused_since;
            self.try_start(port);
        }
    }

    fn deliver(&mut self, pkt: Packet) {
        let now = self.now;
        let bytes = u64::from(pkt.bytes);
        self.out.received_bytes += bytes;
        self.out.in_network_bytes -= bytes;
        let q = &mut self.qps[pkt.qp as usize];
        // Messages complete only matter to a QP that feeds or opens another.
        let before = if !q.feeds.is_empty() || q.opens.is_some() {
            Some(q.delivered_messages())
        } else {
            None
        };
        q.received_bytes += bytes;
        q.delivered_since_sample += bytes;
        let done = !q.endless && q.received_bytes >= q.total_bytes() && q.finish_ps.is_none();
        if done {
            q.finish_ps = Some(now);
            self.unfinished -= 1;
        }
        let (src, dst, opens) = (q.src, q.dst, q.opens);
        if let Some(before) = before {
            let after = self.qps[pkt.qp as usize].delivered_messages();
            if after > before {
                for k in 0..self.qps[pkt.qp as usize].feeds.len() {
                    let next = self.qps[pkt.qp as usize].feeds[k] as usize;
                    let fed = self.qps[next]
                        .inputs
                        .iter()
                        .map(|&i| self.qps[i as usize].delivered_messages())
                        .min()
                        .unwrap_or(0);
                    let n = &mut self.qps[next];
                    n.fed = fed;
                    n.repost();
                    let port = n.port;
                    self.try_start(port);
                }
                if let Some((next, at)) = opens {
                    if before < at && after >= at {
                        let n = &mut self.qps[next as usize];
                        n.open = true;
                        n.repost();
                        let port = n.port;
                        self.try_start(port);
                    }
                }
            }
        }
        if self.dcqcn.is_some() && self.np.on_packet(pkt.qp as usize, pkt.ce, now) {
            let ports = self.topo.next_ports(dst, src);
            if let Some(&first) = ports.first() {
                let out = ports
                    .get((self.qps[pkt.qp as usize].hash % ports.len() as u64) as usize)
                    .copied()
                    .unwrap_or(first);
                self.out.cnps_sent += 1;
                self.egress[out as usize].control.push_back(Packet {
                    qp: pkt.qp,
                    bytes: CNP_BYTES,
                    dst: src,
                    ce: false,
                    cnp: true,
                });
                self.try_start(out);
            }
        }
    }

    fn cnp(&mut self, qp: u32) {
        let Some(params) = self.dcqcn.as_ref() else {
            return;
        };
        let now = self.now;
        let t_reset = self.time_reset_ps;
        let line = self.topo.ports[self.qps[qp as usize].port as usize].bps;
        let q = &mut self.qps[qp as usize];
        q.cnps += 1;
        let rp =
            q.rp.get_or_insert_with(|| ReactionPoint::new(RpConfig::new(params, line)));
        let outcome = rp.on_cnp(now);
        // The rate-increase timer restarts with every CNP.
        q.timer_gen = q.timer_gen.wrapping_add(1);
        let gen = q.timer_gen;
        self.push(now + t_reset, Kind::RateTimer { qp, gen });
        match outcome {
            CnpOutcome::CutNow => self.after_rate_change(qp),
            CnpOutcome::CutAt(t) => self.push(t, Kind::PendingCut { qp }),
            CnpOutcome::AlreadyPending => {}
        }
    }

    fn rate_timer(&mut self, qp: u32, gen: u32) {
        let q = &mut self.qps[qp as usize];
        if gen != q.timer_gen {
            return;
        }
        let Some(rp) = q.rp.as_mut() else {
            return;
        };
        rp.on_timer();
        let next = self.now + self.time_reset_ps;
        self.push(next, Kind::RateTimer { qp, gen });
        self.after_rate_change(qp);
    }

    /// After the rate changed the next packet may go earlier (or later) than planned.
    fn after_rate_change(&mut self, qp: u32) {
        let line = self.topo.ports[self.qps[qp as usize].port as usize].bps;
        let q = &mut self.qps[qp as usize];
        if q.sent_bytes == 0 {
            return;
        }
        let next =
            (q.last_tx_ps + ser_ps(u64::from(q.last_tx_bytes), q.pace_bps(line))).max(self.now);
        // A cut slows the packets after the next one, as the DCQCN packet model does: the
        // next departure was already set when the last packet left.
        if next >= q.next_tx_ps {
            return;
        }
        q.next_tx_ps = next;
        let port = q.port;
        let nic = &mut self.nic[port as usize];
        if nic.wake_at.is_none_or(|w| next < w) {
            nic.wake_at = Some(next);
            self.push(next, Kind::Wake { port });
        }
    }

    fn sample(&mut self) -> Option<Stop> {
        let now = self.now;
        self.out.sample(
            now,
            &self.topo,
            &mut self.qps,
            &mut self.egress,
            &self.switches,
        );
        if self.moved_since_sample == 0 && self.out.in_network_bytes > 0 {
            self.still_samples += 1;
        } else {
            self.still_samples = 0;
        }
        self.moved_since_sample = 0;
        if self.still_samples >= 2 {
            if let Some(cycle) = self.paused_cycle() {
                return Some(Stop::Deadlock {
                    at_us: now as f64 / 1e6,
                    cycle,
                });
            }
        }
        let next = now + self.sample_ps;
        if next <= self.end_ps {
            self.push(next, Kind::Sample);
        }
        None
    }

    /// A cycle of switches each holding data for a port its successor has paused.
    fn paused_cycle(&self) -> Option<Vec<String>> {
        let n = self.topo.nodes.len();
        let waits_on = |u: u32| -> Vec<u32> {
            self.topo
                .ports_of(u)
                .filter(|&p| {
                    let e = &self.egress[p as usize];
                    e.paused && !e.data.is_empty()
                })
                .map(|p| self.topo.far_node(p))
                .filter(|&v| !self.topo.is_host(v))
                .collect()
        };
        // Iterative DFS with colours: 0 unseen, 1 on the stack, 2 done.
        let mut colour = vec![0u8; n];
        for start in self.topo.hosts..n as u32 {
            if colour[start as usize] != 0 {
                continue;
            }
            let mut stack: Vec<(u32, Vec<u32>, usize)> = vec![(start, waits_on(start), 0)];
            colour[start as usize] = 1;
            while let Some((u, next, i)) = stack.last_mut() {
                if let Some(&v) = next.get(*i) {
                    *i += 1;
                    match colour[v as usize] {
                        0 => {
                            colour[v as usize] = 1;
                            let w = waits_on(v);
                            stack.push((v, w, 0));
                        }
                        1 => {
                            let from = stack.iter().position(|(x, _, _)| *x == v).unwrap_or(0);
                            return Some(
                                stack[from..]
                                    .iter()
                                    .map(|(x, _, _)| self.topo.nodes[*x as usize].label.clone())
                                    .collect(),
                            );
                        }
                        _ => {}
                    }
                } else {
                    colour[*u as usize] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}
