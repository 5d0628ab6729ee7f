//! Packet-level discrete-event simulation of N senders → one switch → one receiver.
//!
//! Time is integer picoseconds (a 1 KB packet at 100 Gb/s takes 81 920 ps, so nothing is
//! lost to rounding); events sit in a binary heap ordered by (time, sequence number), so
//! equal-time events run in the order they were scheduled and a run is deterministic.
//!
//! Model, per packet:
//! 1. the sender's rate limiter (RP) releases a packet every `size / R_C`; it takes
//!    `size / line rate` on the sender's link plus the propagation delay to the switch;
//! 2. the egress port (CP) marks it with the RED probability of the queue it finds,
//!    drops it if a lossy buffer is full, and may send PAUSE/RESUME upstream (they reach
//!    the senders one propagation delay later, and stop new packets, not the one on the
//!    wire);
//! 3. the port sends packets FIFO at the bottleneck rate; each reaches the receiver one
//!    propagation delay after its last bit left;
//! 4. the receiver (NP) answers a CE mark with a CNP at most once per N per flow; CNPs
//!    travel back over two links in a strict-priority class (no queueing);
//! 5. the RP cuts on CNPs and increases on its timer and byte counter.
//!
//! Not modelled: retransmission (a dropped packet is lost; a finite flow with a drop
//! never completes), ACK traffic, per-ingress PFC accounting (the shared egress queue
//! decides for all senders).

use super::cp::{Admission, CongestionPoint, PfcSignal};
use super::error::SimError;
use super::np::NotificationPoint;
use super::rng::SplitMix64;
use super::rp::{us_to_ps, CnpOutcome, ReactionPoint, RpConfig};
use super::scenario::{Limits, Scenario};
use super::series::{FirstCut, Model, PauseInterval, Series, MAX_PAUSE_INTERVALS};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Debug, Clone, Copy)]
enum Kind {
    SenderTx { flow: u32, gen: u32 },
    SwitchArrival { flow: u32, size: u32 },
    SwitchTxDone,
    ReceiverArrival { flow: u32, size: u32, ce: bool },
    CnpArrival { flow: u32 },
    RateTimer { flow: u32, gen: u32 },
    PendingCut { flow: u32 },
    PfcAtSenders { pause: bool },
    Sample,
}

#[derive(Debug, Clone, Copy)]
struct Event {
    time: u64,
    seq: u64,
    kind: Kind,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    // Reversed: BinaryHeap is a max-heap and we want the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

struct Queue {
    heap: BinaryHeap<Event>,
    seq: u64,
}

impl Queue {
    fn push(&mut self, time: u64, kind: Kind) {
        self.seq += 1;
        self.heap.push(Event {
            time,
            seq: self.seq,
            kind,
        });
    }
}

struct Sender {
    rp: ReactionPoint,
    line_bps: f64,
    size: Option<u64>,
    sent: u64,
    delivered: u64,
    interval_bytes: u64,
    /// Generation of the scheduled transmission; a rescheduled one invalidates older.
    tx_gen: u32,
    tx_pending: Option<u64>,
    last_tx_ps: Option<u64>,
    /// The last packet put on the link: its size and how long its bits take to leave, ps
    /// (it started at `last_tx_ps`). A sample splits it where it falls.
    last_size: u64,
    last_on_wire_ps: u64,
    /// Bytes on the link by the last sample, counting a packet's bits as they leave.
    on_wire_at_sample: f64,
    blocked_by_pause: bool,
    timer_gen: u32,
    last_cnp_ps: Option<u64>,
    min_cnp_gap_ps: Option<u64>,
    start_ps: u64,
    rate_before_first_cut: f64,
}

impl Sender {
    fn has_more(&self) -> bool {
        self.size.is_none_or(|s| self.sent < s)
    }

    /// Bytes this sender had put on its link by `t`: every packet started, less the part
    /// of the last one still to leave (a sender's packets never overlap on its link, so
    /// only the last can be leaving).
    fn on_wire_by(&self, t: u64) -> f64 {
        let Some(start) = self.last_tx_ps else {
            return 0.0;
        };
        let left = start + self.last_on_wire_ps;
        let unsent = if t >= left {
            0.0
        } else {
            (left - t.max(start)) as f64 / self.last_on_wire_ps as f64
        };
        self.sent as f64 - self.last_size as f64 * unsent
    }
}

/// Serialization time of `bytes` at `rate_bps`, ps (at least 1).
fn ser_ps(bytes: u64, rate_bps: f64) -> u64 {
    let t = (bytes as f64 * 8.0e12 / rate_bps).round();
    if t.is_finite() && t >= 1.0 {
        t as u64
    } else if t.is_finite() {
        1
    } else {
        u64::MAX / 4
    }
}

fn ps_to_us(ps: u64) -> f64 {
    ps as f64 / 1e6
}

/// Runs the packet-level model. Invalid scenarios are rejected; hitting
/// `limits.max_events` returns a truncated series.
pub fn simulate_packets(scenario: &Scenario, limits: &Limits) -> Result<Series, SimError> {
    scenario.validate()?;
    limits.validate()?;
    let mut sim = PacketSim::new(scenario);
    sim.run(limits.max_events);
    Ok(sim.series)
}

struct PacketSim {
    mtu: u64,
    prop_ps: u64,
    bottleneck_bps: f64,
    end_ps: u64,
    sample_ps: u64,
    time_reset_ps: u64,
    q: Queue,
    senders: Vec<Sender>,
    senders_paused: bool,
    cp: CongestionPoint,
    np: NotificationPoint,
    rng: SplitMix64,
    port: VecDeque<(u32, u32, bool)>,
    port_busy: bool,
    pause_start_ps: u64,
    series: Series,
    now: u64,
}

impl PacketSim {
    fn new(s: &Scenario) -> Self {
        let senders: Vec<Sender> = s
            .flows
            .iter()
            .map(|f| {
                let line_bps = f.link_gbps * 1e9;
                let rp = ReactionPoint::new(RpConfig::new(&s.dcqcn, line_bps));
                Sender {
                    rp,
                    line_bps,
                    size: f.size_bytes,
                    sent: 0,
                    delivered: 0,
                    interval_bytes: 0,
                    tx_gen: 0,
                    tx_pending: None,
                    last_tx_ps: None,
                    last_size: 0,
                    last_on_wire_ps: 0,
                    on_wire_at_sample: 0.0,
                    blocked_by_pause: false,
                    timer_gen: 0,
                    last_cnp_ps: None,
                    min_cnp_gap_ps: None,
                    start_ps: us_to_ps(f.start_us),
                    rate_before_first_cut: 0.0,
                }
            })
            .collect();
        let n = senders.len();
        let mut q = Queue {
            heap: BinaryHeap::with_capacity(1024 + 64 * n),
            seq: 0,
        };
        for (i, snd) in senders.iter().enumerate() {
            q.push(
                snd.start_ps,
                Kind::SenderTx {
                    flow: i as u32,
                    gen: 0,
                },
            );
        }
        let sample_ps = us_to_ps(s.sample_interval_us).max(1);
        q.push(sample_ps, Kind::Sample);
        PacketSim {
            mtu: u64::from(s.mtu_bytes),
            prop_ps: us_to_ps(s.prop_delay_us),
            bottleneck_bps: s.bottleneck_gbps * 1e9,
            end_ps: us_to_ps(s.duration_us),
            sample_ps,
            time_reset_ps: us_to_ps(s.dcqcn.rp_time_reset_us).max(1),
            q,
            senders,
            senders_paused: false,
            cp: CongestionPoint::new(s.cp.clone()),
            np: NotificationPoint::new(n, us_to_ps(s.dcqcn.np_min_time_between_cnps_us)),
            rng: SplitMix64::new(s.seed),
            port: VecDeque::with_capacity(4096),
            port_busy: false,
            pause_start_ps: 0,
            series: Series::new(Model::Packet, s),
            now: 0,
        }
    }

    fn run(&mut self, max_events: u64) {
        let mut events: u64 = 0;
        while let Some(ev) = self.q.heap.pop() {
            if ev.time > self.end_ps {
                self.now = self.end_ps;
                break;
            }
            if events >= max_events {
                self.series.truncated = true;
                self.series.truncation_reason = Some(format!(
                    "event cap of {max_events} reached at t = {:.3} µs",
                    ps_to_us(ev.time)
                ));
                break;
            }
            events += 1;
            self.now = ev.time;
            self.handle(ev.kind);
        }
        self.finish(events);
    }

    fn handle(&mut self, kind: Kind) {
        match kind {
            Kind::SenderTx { flow, gen } => self.sender_tx(flow as usize, gen),
            Kind::SwitchArrival { flow, size } => self.switch_arrival(flow, size),
            Kind::SwitchTxDone => self.switch_tx_done(),
            Kind::ReceiverArrival { flow, size, ce } => {
                self.receiver_arrival(flow as usize, size, ce)
            }
            Kind::CnpArrival { flow } => self.cnp_arrival(flow as usize),
            Kind::RateTimer { flow, gen } => self.rate_timer(flow as usize, gen),
            Kind::PendingCut { flow } => {
                let f = flow as usize;
                if let Some(s) = self.senders.get_mut(f) {
                    s.rp.apply_pending_cut(self.now);
                }
                self.after_rate_change(f, true);
            }
            Kind::PfcAtSenders { pause } => self.pfc_at_senders(pause),
            Kind::Sample => self.sample(),
        }
    }

    fn sender_tx(&mut self, f: usize, gen: u32) {
        let now = self.now;
        let paused = self.senders_paused;
        let mtu = self.mtu;
        let prop = self.prop_ps;
        let Some(s) = self.senders.get_mut(f) else {
            return;
        };
        if gen != s.tx_gen {
            return;
        }
        s.tx_pending = None;
        if !s.has_more() {
            return;
        }
        if paused {
            s.blocked_by_pause = true;
            return;
        }
        let remaining = s.size.map_or(mtu, |total| total - s.sent);
        let size = remaining.min(mtu);
        s.sent += size;
        s.last_tx_ps = Some(now);
        let on_wire = ser_ps(size, s.line_bps);
        s.last_size = size;
        s.last_on_wire_ps = on_wire;
        s.rp.on_bytes_sent(size);
        let more = s.has_more();
        let gap = ser_ps(size, s.rp.rc_bps().min(s.line_bps)).max(on_wire);
        let next = now + gap;
        let flow = f as u32;
        let size32 = u32::try_from(size).unwrap_or(u32::MAX);
        if more {
            s.tx_pending = Some(next);
            let gen = s.tx_gen;
            self.q.push(next, Kind::SenderTx { flow, gen });
        }
        self.q.push(
            now + on_wire + prop,
            Kind::SwitchArrival { flow, size: size32 },
        );
    }

    /// After R_C changed: an increase may let the next packet go earlier than planned.
    fn after_rate_change(&mut self, f: usize, record_cut: bool) {
        let now = self.now;
        let Some(s) = self.senders.get_mut(f) else {
            return;
        };
        if record_cut && s.rp.cuts() == 1 {
            if let Some(slot) = self.series.first_cut.get_mut(f) {
                if slot.is_none() {
                    *slot = Some(FirstCut {
                        time_us: ps_to_us(now),
                        rate_before_gbps: s.rate_before_first_cut / 1e9,
                        rate_after_gbps: s.rp.rc_bps() / 1e9,
                    });
                }
            }
        }
        let (Some(pending), Some(last)) = (s.tx_pending, s.last_tx_ps) else {
            return;
        };
        let gap = ser_ps(self.mtu, s.rp.rc_bps().min(s.line_bps));
        let earliest = (last + gap).max(now);
        if earliest < pending {
            s.tx_gen = s.tx_gen.wrapping_add(1);
            s.tx_pending = Some(earliest);
            let gen = s.tx_gen;
            self.q.push(
                earliest,
                Kind::SenderTx {
                    flow: f as u32,
                    gen,
                },
            );
        }
    }

    fn switch_arrival(&mut self, flow: u32, size: u32) {
        let now = self.now;
        let rng = &mut self.rng;
        let (adm, signal) = self.cp.enqueue(u64::from(size), now, || rng.next_f64());
        self.handle_pfc(signal);
        if let Admission::Queued { ce } = adm {
            self.port.push_back((flow, size, ce));
            if !self.port_busy {
                self.start_port_tx();
            }
        }
    }

    fn start_port_tx(&mut self) {
        if let Some(&(_, size, _)) = self.port.front() {
            self.port_busy = true;
            let t = self.now + ser_ps(u64::from(size), self.bottleneck_bps);
            self.q.push(t, Kind::SwitchTxDone);
        } else {
            self.port_busy = false;
        }
    }

    fn switch_tx_done(&mut self) {
        let now = self.now;
        if let Some((flow, size, ce)) = self.port.pop_front() {
            let signal = self.cp.dequeue(u64::from(size), now);
            self.handle_pfc(signal);
            self.q
                .push(now + self.prop_ps, Kind::ReceiverArrival { flow, size, ce });
        }
        self.start_port_tx();
    }

    fn handle_pfc(&mut self, signal: Option<PfcSignal>) {
        let now = self.now;
        match signal {
            Some(PfcSignal::Pause) => {
                self.pause_start_ps = now;
                self.q
                    .push(now + self.prop_ps, Kind::PfcAtSenders { pause: true });
            }
            Some(PfcSignal::Resume) => {
                self.record_pause(now);
                self.q
                    .push(now + self.prop_ps, Kind::PfcAtSenders { pause: false });
            }
            None => {}
        }
    }

    fn record_pause(&mut self, end_ps: u64) {
        if self.series.pause_intervals.len() < MAX_PAUSE_INTERVALS {
            self.series.pause_intervals.push(PauseInterval {
                start_us: ps_to_us(self.pause_start_ps),
                end_us: ps_to_us(end_ps),
            });
        }
    }

    fn pfc_at_senders(&mut self, pause: bool) {
        self.senders_paused = pause;
        if pause {
            return;
        }
        for f in 0..self.senders.len() {
            let Some(s) = self.senders.get_mut(f) else {
                continue;
            };
            if s.blocked_by_pause {
                s.blocked_by_pause = false;
                s.tx_gen = s.tx_gen.wrapping_add(1);
                s.tx_pending = Some(self.now);
                let gen = s.tx_gen;
                self.q.push(
                    self.now,
                    Kind::SenderTx {
                        flow: f as u32,
                        gen,
                    },
                );
            }
        }
    }

    fn receiver_arrival(&mut self, f: usize, size: u32, ce: bool) {
        let now = self.now;
        let Some(s) = self.senders.get_mut(f) else {
            return;
        };
        s.delivered += u64::from(size);
        s.interval_bytes += u64::from(size);
        if let Some(total) = s.size {
            if s.delivered >= total {
                if let Some(slot) = self.series.fct_us.get_mut(f) {
                    if slot.is_none() {
                        *slot = Some(ps_to_us(now.saturating_sub(s.start_ps)));
                    }
                }
            }
        }
        if self.np.on_packet(f, ce, now) {
            // Receiver → switch → sender, strict priority: two propagation delays.
            self.q
                .push(now + 2 * self.prop_ps, Kind::CnpArrival { flow: f as u32 });
        }
    }

    fn cnp_arrival(&mut self, f: usize) {
        let now = self.now;
        let t_reset = self.time_reset_ps;
        let Some(s) = self.senders.get_mut(f) else {
            return;
        };
        if let Some(prev) = s.last_cnp_ps {
            let gap = now.saturating_sub(prev);
            s.min_cnp_gap_ps = Some(s.min_cnp_gap_ps.map_or(gap, |m| m.min(gap)));
        }
        s.last_cnp_ps = Some(now);
        if s.rp.cuts() == 0 {
            s.rate_before_first_cut = s.rp.rc_bps();
        }
        let outcome = s.rp.on_cnp(now);
        // The rate-increase timer restarts with every CNP.
        s.timer_gen = s.timer_gen.wrapping_add(1);
        let gen = s.timer_gen;
        let flow = f as u32;
        self.q.push(now + t_reset, Kind::RateTimer { flow, gen });
        match outcome {
            CnpOutcome::CutNow => self.after_rate_change(f, true),
            CnpOutcome::CutAt(t) => self.q.push(t, Kind::PendingCut { flow }),
            CnpOutcome::AlreadyPending => {}
        }
    }

    fn rate_timer(&mut self, f: usize, gen: u32) {
        let now = self.now;
        let t_reset = self.time_reset_ps;
        let Some(s) = self.senders.get_mut(f) else {
            return;
        };
        if gen != s.timer_gen {
            return;
        }
        s.rp.on_timer();
        self.q.push(
            now + t_reset,
            Kind::RateTimer {
                flow: f as u32,
                gen,
            },
        );
        self.after_rate_change(f, false);
    }

    fn sample(&mut self) {
        let now = self.now;
        let interval_us = ps_to_us(self.sample_ps);
        self.series.time_us.push(ps_to_us(now));
        for (s, col) in self.senders.iter_mut().zip(self.series.flows.iter_mut()) {
            col.rc_gbps.push(s.rp.rc_bps() / 1e9);
            col.rt_gbps.push(s.rp.rt_bps() / 1e9);
            col.alpha.push(s.rp.alpha(now));
            col.goodput_gbps
                .push(s.interval_bytes as f64 * 8.0 / (interval_us * 1e3));
            col.cnps.push(s.rp.cnps());
            let on_wire = s.on_wire_by(now);
            col.sent_gbps
                .push((on_wire - s.on_wire_at_sample) * 8.0 / (interval_us * 1e3));
            s.on_wire_at_sample = on_wire;
            s.interval_bytes = 0;
        }
        self.series.queue_bytes.push(self.cp.queue_bytes() as f64);
        self.series.ecn_marks.push(self.cp.ecn_marks);
        self.series.drops.push(self.cp.drops);
        self.series.pfc_paused.push(self.cp.paused_upstream());
        let next = now + self.sample_ps;
        if next <= self.end_ps {
            self.q.push(next, Kind::Sample);
        }
    }

    fn finish(&mut self, events: u64) {
        if self.cp.paused_upstream() {
            self.record_pause(self.now);
        }
        let s = &mut self.series;
        s.events = events;
        s.end_us = ps_to_us(self.now);
        s.pfc_pause_total_us = ps_to_us(self.cp.paused_ps_at(self.now));
        s.pfc_pause_events = self.cp.pause_events;
        s.max_queue_bytes = self.cp.max_queue_bytes as f64;
        s.headroom_overruns = self.cp.headroom_overruns;
        s.min_cnp_gap_us = self
            .senders
            .iter()
            .map(|x| x.min_cnp_gap_ps.map(ps_to_us))
            .collect();
    }
}
