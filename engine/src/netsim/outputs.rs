//! What a run reports: per link utilisation and queue depth over time, PFC pause frames and
//! time per port, ECN marks and CNPs, per-flow rates and completion times, each collective's
//! time and bus bandwidth, the events processed, and why the run stopped (a deadlock among
//! them, with the cycle of switches).
//!
//! Series are sampled every `sample_interval_us`. Their memory is capped: a run whose
//! samples × links (or × flows) would pass [`MAX_SERIES_CELLS`] keeps the totals and says
//! which series it left out.

use super::host::Qp;
use super::scenario::Scenario;
use super::switch::{lossless_headroom, Egress, Ingress, SwitchState};
use super::topology::{NodeKind, Topology};
use super::traffic::CollectivePlan;
use super::SimError;
use serde::{Deserialize, Serialize};

/// Most (sample, link) or (sample, flow) cells a report may hold.
pub const MAX_SERIES_CELLS: u64 = 8_000_000;

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stop {
    /// Every finite flow delivered all its bytes.
    Finished,
    /// The scenario's duration passed.
    Duration,
    EventCap {
        max_events: u64,
    },
    Cancelled,
    /// Nothing moved for two samples and these switches wait on each other's PAUSE.
    Deadlock {
        at_us: f64,
        cycle: Vec<String>,
    },
}

impl Stop {
    /// Why the run stopped, in a sentence; `duration_us` is the scenario's.
    pub fn reason(&self, duration_us: f64) -> String {
        match self {
            Stop::Finished => "finished: every flow delivered all its bytes".into(),
            Stop::Duration => {
                format!("the scenario's duration passed (duration_us = {duration_us} µs)")
            }
            Stop::EventCap { max_events } => {
                format!("event cap: {max_events} events processed before the traffic was delivered")
            }
            Stop::Cancelled => "cancelled".into(),
            Stop::Deadlock { at_us, cycle } => format!(
                "deadlock at {at_us:.1} µs: {} wait on each other's PAUSE in a cycle, \
                 nothing moves",
                cycle_text(cycle)
            ),
        }
    }
}

/// `switch 0 → switch 1 → switch 0`: the cycle, closed.
fn cycle_text(cycle: &[String]) -> String {
    let mut hops: Vec<&str> = cycle.iter().map(String::as_str).collect();
    if let (Some(&first), Some(&last)) = (hops.first(), hops.last()) {
        if first != last {
            hops.push(first);
        }
    }
    hops.join(" → ")
}

/// One direction of one link.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LinkReport {
    pub from: String,
    pub to: String,
    pub gbps: f64,
    pub tx_bytes: u64,
    /// Share of the link's rate used in each sample interval.
    pub utilisation: Vec<f32>,
    /// Data queue at the sample, bytes.
    pub queue_bytes: Vec<f32>,
    /// Share of each sample interval this port's sender was held by PFC; empty in a run
    /// without PFC.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paused_share: Vec<f32>,
    pub max_queue_bytes: u64,
    pub ecn_marks: u64,
    /// PAUSE frames this port received (its sender was held).
    pub pause_frames: u64,
    pub paused_us: f64,
    /// Into a lossless switch: the most bytes that still arrived after one of its PAUSEs.
    pub headroom_used_bytes: u64,
    /// Into a lossless Ethernet switch: the headroom `engine::lossless` computes for this
    /// link (IEEE 802.1Qbb Annex N), bytes.
    pub headroom_bytes: Option<u64>,
}

/// One QP's flow.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlowReport {
    /// The index of the traffic entry that made it.
    pub traffic: u32,
    pub src: u32,
    pub dst: u32,
    pub udp_sport: u16,
    /// `None` for a flow that runs until the end.
    pub bytes: Option<u64>,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    /// From its start to its last byte's arrival.
    pub fct_us: Option<f64>,
    pub cnps: u64,
    /// The links (indices into [`Report::links`]) its packets cross under ECMP; `None`
    /// when routing picks a path per packet.
    pub path: Option<Vec<u32>>,
    /// Delivered rate in each sample interval, Gb/s.
    pub rate_gbps: Vec<f32>,
}

/// One switch's buffer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SwitchReport {
    pub label: String,
    pub max_buffered_bytes: u64,
    pub drops: u64,
    pub headroom_overruns: u64,
    /// PAUSE frames its ingress ports sent upstream.
    pub pause_frames_sent: u64,
}

/// One collective.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CollectiveReport {
    pub traffic: u32,
    pub ranks: u32,
    pub bytes_per_gpu: u64,
    /// Until its last rank had all its data; `None` if the run stopped first.
    pub time_us: Option<f64>,
    /// bytes_per_gpu / time, GB/s.
    pub algbw_gbs: Option<f64>,
    /// algbw × 2(n−1)/n, as nccl-tests reports for all-reduce, GB/s.
    pub busbw_gbs: Option<f64>,
    /// At each of the report's sample times, the share of the collective's bytes its
    /// receivers had (0 to 1): how far it had got.
    pub delivered: Vec<f32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Totals {
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub dropped_bytes: u64,
    /// Sent and neither received nor dropped when the run stopped.
    pub in_flight_bytes: u64,
    pub ecn_marks: u64,
    pub cnps_sent: u64,
    pub pause_frames: u64,
    pub paused_us: f64,
    pub drops: u64,
    pub headroom_overruns: u64,
    pub unroutable_packets: u64,
}

/// A run's results.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub name: String,
    pub stop: Stop,
    pub end_us: f64,
    pub events: u64,
    pub time_us: Vec<f64>,
    /// Bytes sent and not yet received or dropped, at each sample.
    pub in_flight_bytes: Vec<u64>,
    /// Bytes queued in switches or on a link at each sample (equal to `in_flight_bytes` in a
    /// run that loses nothing: the conservation check).
    pub held_bytes: Vec<u64>,
    pub links: Vec<LinkReport>,
    pub flows: Vec<FlowReport>,
    pub switches: Vec<SwitchReport>,
    pub collectives: Vec<CollectiveReport>,
    pub totals: Totals,
    /// Which series were left out, and why.
    pub series_note: Option<String>,
}

/// What the run accumulates as it goes.
pub(super) struct Outputs {
    name: String,
    sample_us: f64,
    link_series: bool,
    flow_series: bool,
    series_note: Option<String>,
    time_us: Vec<f64>,
    in_flight: Vec<u64>,
    held: Vec<u64>,
    utilisation: Vec<Vec<f32>>,
    queue: Vec<Vec<f32>>,
    paused: Vec<Vec<f32>>,
    rates: Vec<Vec<f32>>,
    /// Per collective: its traffic entry, its bytes, and its share delivered per sample.
    collectives: Vec<(u32, u64, Vec<f32>)>,
    /// Per port, the headroom its link needs at the far switch, if that switch is lossless.
    headroom: Vec<Option<u64>>,
    pub events: u64,
    pub stop: Option<Stop>,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub dropped_bytes: u64,
    pub in_network_bytes: u64,
    /// Data bytes on links (sent, not yet arrived).
    pub on_wire_bytes: u64,
    pub cnps_sent: u64,
    pub unroutable: u64,
}

impl Outputs {
    pub fn new(
        s: &Scenario,
        topo: &Topology,
        qps: &[Qp],
        collectives: &[CollectivePlan],
    ) -> Result<Outputs, SimError> {
        let samples = (s.duration_us / s.sample_interval_us).floor() as u64 + 1;
        let link_cells = samples * topo.ports.len() as u64;
        let flow_cells = samples * qps.len() as u64;
        let link_series = link_cells <= MAX_SERIES_CELLS;
        let flow_series = flow_cells <= MAX_SERIES_CELLS;
        let mut notes = Vec::new();
        if !link_series {
            notes.push(format!(
                "per-link series left out: {samples} samples × {} ports exceed {MAX_SERIES_CELLS} cells",
                topo.ports.len()
            ));
        }
        if !flow_series {
            notes.push(format!(
                "per-flow series left out: {samples} samples × {} QPs exceed {MAX_SERIES_CELLS} cells",
                qps.len()
            ));
        }
        let ports = if link_series { topo.ports.len() } else { 0 };
        let flows = if flow_series { qps.len() } else { 0 };
        Ok(Outputs {
            name: s.name.clone(),
            sample_us: s.sample_interval_us,
            link_series,
            flow_series,
            series_note: (!notes.is_empty()).then(|| notes.join("; ")),
            time_us: Vec::new(),
            in_flight: Vec::new(),
            held: Vec::new(),
            utilisation: vec![Vec::new(); ports],
            queue: vec![Vec::new(); ports],
            paused: vec![Vec::new(); if s.switch.pfc.is_some() { ports } else { 0 }],
            rates: vec![Vec::new(); flows],
            collectives: collectives
                .iter()
                .map(|c| {
                    let mine = qps.iter().filter(|q| q.traffic == c.traffic);
                    (c.traffic, mine.map(Qp::total_bytes).sum(), Vec::new())
                })
                .collect(),
            headroom: (0..topo.ports.len() as u32)
                .map(|p| {
                    let port = &topo.ports[p as usize];
                    let far = topo.nodes[topo.far_node(p) as usize].kind;
                    let ethernet =
                        matches!(far, NodeKind::Leaf | NodeKind::Spine | NodeKind::Switch);
                    (s.switch.pfc.is_some() && ethernet)
                        .then(|| lossless_headroom(port.bps, port.delay_ps, s.mtu_bytes))
                        .flatten()
                })
                .collect(),
            events: 0,
            stop: None,
            sent_bytes: 0,
            received_bytes: 0,
            dropped_bytes: 0,
            in_network_bytes: 0,
            on_wire_bytes: 0,
            cnps_sent: 0,
            unroutable: 0,
        })
    }

    pub fn sample(
        &mut self,
        now: u64,
        topo: &Topology,
        qps: &mut [Qp],
        egress: &mut [Egress],
        switches: &[SwitchState],
    ) {
        self.time_us.push(now as f64 / 1e6);
        self.in_flight.push(self.in_network_bytes);
        let queued: u64 = switches.iter().map(|s| s.buffered).sum();
        self.held.push(queued + self.on_wire_bytes);
        let interval_bits = self.sample_us * 1e-6;
        for (p, e) in egress.iter_mut().enumerate() {
            if self.link_series {
                let bytes = e.tx_bytes - e.tx_bytes_sampled;
                let capacity = topo.ports[p].bps * interval_bits / 8.0;
                self.utilisation[p].push((bytes as f64 / capacity) as f32);
                self.queue[p].push(e.data_bytes as f32);
            }
            let paused_ps = e.paused_ps + if e.paused { now - e.paused_since } else { 0 };
            if let Some(series) = self.paused.get_mut(p) {
                let interval_ps = self.sample_us * 1e6;
                series.push(((paused_ps - e.paused_ps_sampled) as f64 / interval_ps) as f32);
            }
            e.tx_bytes_sampled = e.tx_bytes;
            e.paused_ps_sampled = paused_ps;
        }
        for (i, q) in qps.iter_mut().enumerate() {
            if self.flow_series {
                let gbps = q.delivered_since_sample as f64 * 8.0 / (self.sample_us * 1e3);
                self.rates[i].push(gbps as f32);
            }
            q.delivered_since_sample = 0;
        }
        for (traffic, total, series) in &mut self.collectives {
            let mine = qps.iter().filter(|q| q.traffic == *traffic);
            let delivered: u64 = mine.map(|q| q.received_bytes).sum();
            series.push((delivered as f64 / (*total).max(1) as f64) as f32);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn finish(
        mut self,
        topo: &Topology,
        qps: &[Qp],
        paths: &[Option<Vec<u32>>],
        egress: &[Egress],
        ingress: &[Ingress],
        switches: &[SwitchState],
        now: u64,
        collectives: &[CollectivePlan],
    ) -> Report {
        let us = |ps: u64| ps as f64 / 1e6;
        let links: Vec<LinkReport> = egress
            .iter()
            .enumerate()
            .map(|(p, e)| {
                let port = &topo.ports[p];
                let paused = e.paused_ps + if e.paused { now - e.paused_since } else { 0 };
                LinkReport {
                    from: topo.nodes[port.node as usize].label.clone(),
                    to: topo.nodes[topo.far_node(p as u32) as usize].label.clone(),
                    gbps: port.bps / 1e9,
                    tx_bytes: e.tx_bytes,
                    utilisation: std::mem::take(
                        self.utilisation.get_mut(p).unwrap_or(&mut Vec::new()),
                    ),
                    queue_bytes: std::mem::take(self.queue.get_mut(p).unwrap_or(&mut Vec::new())),
                    paused_share: std::mem::take(self.paused.get_mut(p).unwrap_or(&mut Vec::new())),
                    max_queue_bytes: e.max_data_bytes,
                    ecn_marks: e.ecn_marks,
                    pause_frames: e.pause_frames_received,
                    paused_us: us(paused),
                    headroom_used_bytes: ingress[port.peer as usize].max_since_pause,
                    headroom_bytes: self.headroom[p],
                }
            })
            .collect();
        let flows: Vec<FlowReport> = qps
            .iter()
            .enumerate()
            .map(|(i, q)| FlowReport {
                traffic: q.traffic,
                src: q.src,
                dst: q.dst,
                udp_sport: q.udp_sport,
                bytes: (!q.endless).then(|| q.total_bytes()),
                sent_bytes: q.sent_bytes,
                received_bytes: q.received_bytes,
                fct_us: q.finish_ps.map(|f| us(f - q.start_ps)),
                cnps: q.cnps,
                path: paths.get(i).cloned().flatten(),
                rate_gbps: std::mem::take(self.rates.get_mut(i).unwrap_or(&mut Vec::new())),
            })
            .collect();
        let switch_reports: Vec<SwitchReport> = topo
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind != NodeKind::Host)
            .map(|(i, n)| {
                let s = &switches[i];
                SwitchReport {
                    label: n.label.clone(),
                    max_buffered_bytes: s.max_buffered,
                    drops: s.drops,
                    headroom_overruns: s.headroom_overruns,
                    pause_frames_sent: topo
                        .ports_of(i as u32)
                        .map(|p| ingress[p as usize].pause_frames_sent)
                        .sum(),
                }
            })
            .collect();
        let collective_reports = collectives
            .iter()
            .zip(std::mem::take(&mut self.collectives))
            .map(|(c, (_, _, delivered))| {
                let mine = qps.iter().filter(|q| q.traffic == c.traffic);
                let finish = mine
                    .clone()
                    .map(|q| q.finish_ps)
                    .try_fold(0u64, |m, f| f.map(|f| m.max(f)));
                let start = mine.map(|q| q.start_ps).min().unwrap_or(0);
                let time_us = finish.map(|f| us(f - start));
                let algbw = time_us.map(|t| c.bytes_per_gpu as f64 / (t * 1e3));
                let n = f64::from(c.ranks);
                CollectiveReport {
                    traffic: c.traffic,
                    ranks: c.ranks,
                    bytes_per_gpu: c.bytes_per_gpu,
                    time_us,
                    algbw_gbs: algbw,
                    busbw_gbs: algbw.map(|a| a * 2.0 * (n - 1.0) / n),
                    delivered,
                }
            })
            .collect();
        let totals = Totals {
            sent_bytes: self.sent_bytes,
            received_bytes: self.received_bytes,
            dropped_bytes: self.dropped_bytes,
            in_flight_bytes: self.in_network_bytes,
            ecn_marks: links.iter().map(|l| l.ecn_marks).sum(),
            cnps_sent: self.cnps_sent,
            pause_frames: links.iter().map(|l| l.pause_frames).sum(),
            paused_us: links.iter().map(|l| l.paused_us).sum(),
            drops: switch_reports.iter().map(|s| s.drops).sum(),
            headroom_overruns: switch_reports.iter().map(|s| s.headroom_overruns).sum(),
            unroutable_packets: self.unroutable,
        };
        Report {
            name: self.name,
            stop: self.stop.unwrap_or(Stop::Finished),
            end_us: us(now),
            events: self.events,
            time_us: self.time_us,
            in_flight_bytes: self.in_flight,
            held_bytes: self.held,
            links,
            flows,
            switches: switch_reports,
            collectives: collective_reports,
            totals,
            series_note: self.series_note,
        }
    }
}
