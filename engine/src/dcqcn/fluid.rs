//! The DCQCN fluid model (paper §5): delay differential equations for each flow's R_C,
//! R_T and alpha and the shared queue q, integrated with fixed steps of Heun's method,
//! the delayed values interpolated linearly between steps.
//!
//! With p = p(q(t − τ*)) the RED marking probability seen one feedback delay τ* ago,
//! R = R_C(t − τ*) in packets/s, τ the CNP interval N, τ′ the alpha period K, B the byte
//! counter in packets, T the timer and F the fast-recovery threshold:
//!
//! - dq/dt = Σ R_C − C
//! - dα/dt = (g/τ′)·[(1 − (1−p)^{τ′R}) − α]
//! - dR_T/dt = −(R_T − R_C)/τ · (1 − (1−p)^{τR})
//!   + R_AI·R·p(1−p)^{FB} / ((1−p)^{−B} − 1)
//!   + R_AI·R·p(1−p)^{FTR} / ((1−p)^{−TR} − 1)
//! - dR_C/dt = −R_C·α/(2τ) · (1 − (1−p)^{τR})
//!   + (R_T − R_C)/2 · R·p / ((1−p)^{−B} − 1)
//!   + (R_T − R_C)/2 · R·p / ((1−p)^{−TR} − 1)
//!
//! (1 − (1−p)^{τR})/τ is the CNP rate (at least one mark among the τR packets of an
//! interval), R·p/((1−p)^{−B} − 1) the rate of byte-counter expiries (B unmarked packets
//! in a row) and (1−p)^{FB} the chance that F of them passed since the last mark, i.e. that
//! the flow is in additive increase; likewise for the timer. Like the paper's model this
//! one leaves out hyper increase. Two generalisations cover the mlx5 options: the cut
//! removes `cut_fraction(α)` (α/2 for `rp_gd = 11`) bounded by `rp_min_dec_fac`, τ is the
//! larger of N and `rp_rate_reduce_monitor_period`, and when K < τ (mlx5: 1 µs < 4 µs)
//! alpha's input is the chance of a CNP in a K window, K × CNP rate, since no more than
//! one CNP per τ exists to sample.
//!
//! In the code: [`Marking::at`] is p(q), [`Port::advance_queue`] dq/dt, [`RateState::slope`]
//! dα/dt, dR_T/dt and dR_C/dt with the terms of [`Drive::at`], and
//! [`FluidFlow::heun_step`] integrates them; the maths they call is in `fastmath.rs`.
//!
//! PFC is modelled as a fluid too: while the queue is at XOFF and the offered load exceeds
//! the bottleneck, the senders are held to the bottleneck rate (the average effect of
//! PAUSE/RESUME cycling): a flow's sent rate (`sent_gbps`) falls to its share of the
//! bottleneck while its R_C stays where DCQCN put it, and there are no single pauses to
//! see. Without PFC the queue is capped at the buffer and the excess is counted as drops.

use super::cp::RedCurve;
use super::error::SimError;
use super::fastmath::{bounded, exp_m1, ln_1m, pow_n};
use super::params::DcqcnParams;
use super::rp::RpConfig;
use super::scenario::{FlowSpec, Limits, Scenario};
use super::series::{Model, Series};

/// Largest marking probability used inside logarithms, so that ln(1 − p) stays finite.
pub(super) const P_CAP: f64 = 1.0 - 1e-12;

struct FluidFlow {
    /// How many identical flows this one stands for, and their indices.
    weight: f64,
    members: Vec<usize>,
    active: bool,
    done_sending: bool,
    start_s: f64,
    size_bits: Option<f64>,
    max_bps: f64,
    min_bps: f64,
    state: RateState,
    /// The state at the end of the step being taken.
    next: RateState,
    /// The drive at the start of the coming step.
    drive: Drive,
    sent_bits: f64,
    /// What the flow put on the wire, and what of that got through the bottleneck, since
    /// the last sample, bits.
    interval_sent_bits: f64,
    interval_bits: f64,
    cnps: f64,
    history: Vec<f64>,
}

/// For runs of `n` unmarked packets: their rate per packet sent, p/((1−p)^{−n} − 1), and
/// (1−p)^n, the chance that a given run of n is unmarked; with their limits. The rate is
/// linear in the sending rate, so both are worked out once per step for all flows.
fn unmarked_runs(n_pkts: f64, p: f64, ln1mp: f64) -> (f64, f64) {
    if p <= 0.0 {
        let rate = if n_pkts > 0.0 { 1.0 / n_pkts } else { 0.0 };
        (rate, 1.0)
    } else {
        // (1−p)^n − 1, negative: the form with a single division.
        let y = n_pkts * ln1mp;
        let em1 = exp_m1(y);
        if em1 < 0.0 {
            let stay = 1.0 + em1;
            (p * stay / -em1, stay)
        } else {
            // n·|ln(1−p)| underflowed: (1−p)^{−n} − 1 ≈ −n·ln(1−p).
            (p / (-y).max(f64::MIN_POSITIVE), 1.0)
        }
    }
}

/// The timer's terms for a flow sending `r` packets/s: the expiry rate (T-long runs
/// without a mark; 1/T when nothing is marked) and (1−p)^{T·r}, the chance that one
/// period passes unmarked, from which the alpha input and the additive-increase gate
/// follow without another exponential.
fn timer_terms(r_pps: f64, t_s: f64, p: f64, ln1mp: f64) -> (f64, f64) {
    let y = t_s * r_pps * ln1mp;
    if p <= 0.0 || -y < 1e-12 {
        (1.0 / t_s, 1.0)
    } else {
        // (1−p)^{T·r} − 1, negative; the expiry rate r·p/((1−p)^{−T·r} − 1) rewritten
        // with it needs one division.
        let em1 = exp_m1(y);
        let stay = 1.0 + em1;
        (r_pps * p * stay / -em1, stay)
    }
}

/// The constants of a run's rate equations, in SI units.
struct Constants {
    red: RedCurve,
    pkt_bits: f64,
    per_pkt: f64,
    /// τ, the CNP interval (the larger of N and the reduce-monitor period), and 1/τ.
    tau: f64,
    per_tau: f64,
    /// τ′, the alpha period K.
    tau_alpha: f64,
    /// g/τ′, alpha's relaxation rate.
    g_per_tau_alpha: f64,
    t_timer: f64,
    b_pkts: f64,
    f_thr: u32,
    r_ai: f64,
    cut_scale: f64,
    /// The largest cut: all of the rate, less what `rp_min_dec_fac` keeps.
    max_cut: f64,
}

/// The port's marking as the senders feel it at one instant: from the queue τ* earlier.
#[derive(Clone, Copy)]
struct Marking {
    prob: f64,
    ln1mp: f64,
    /// Byte-counter expiries per packet sent.
    byte_runs: f64,
    /// (1−p)^{F·B}: F byte-counter periods in a row without a mark.
    byte_ai_gate: f64,
}

impl Marking {
    // Inlined by force: in wasm, LLVM left it (and `Drive::at`) as a call that returns its
    // struct through memory, which cost about 5 % of the solve in V8.
    #[inline(always)]
    fn at(q_del_bytes: f64, c: &Constants) -> Marking {
        // The marking equation: p(q), RED's curve (0 up to K_min, rising linearly to P_max
        // at K_max, 1 above), of the queue τ* earlier.
        let prob = c.red.probability(q_del_bytes).min(P_CAP);
        let ln1mp = ln_1m(prob);
        let (byte_runs, byte_unmarked) = unmarked_runs(c.b_pkts, prob, ln1mp);
        Marking {
            prob,
            ln1mp,
            byte_runs,
            byte_ai_gate: pow_n(byte_unmarked, c.f_thr),
        }
    }
}

/// What drives one flow's equations at one instant. It depends only on delayed values
/// (the marking and the flow's own rate τ* earlier), and it holds every exponential of
/// the model, so a step computes it once for the step's end and reuses it as the next
/// step's start.
#[derive(Clone, Copy, Default)]
struct Drive {
    /// CNPs per second.
    cnp_rate: f64,
    /// Rate-increase events per second: byte-counter and timer expiries.
    increase_events: f64,
    /// Growth of R_T per second from additive increase.
    ai_bps_per_s: f64,
    /// What alpha relaxes towards.
    alpha_input: f64,
}

impl Drive {
    #[inline(always)]
    fn at(m: &Marking, r_del_bps: f64, c: &Constants) -> Drive {
        let r = r_del_bps * c.per_pkt;
        let marked = m.prob > 0.0 && r > 0.0;
        // The CNP rate, (1 − (1−p)^{τR})/τ, of the rate-decrease terms: at least one mark
        // among an interval's τR packets.
        let cnp_rate = if !marked {
            0.0
        } else if c.tau > 0.0 {
            -exp_m1(c.tau * r * m.ln1mp) * c.per_tau
        } else {
            r * m.prob
        };
        let (timer_events, timer_unmarked) = timer_terms(r, c.t_timer, m.prob, m.ln1mp);
        // The alpha equation's input, 1 − (1−p)^{τ′R}: a mark within an alpha period.
        let alpha_input = if !marked {
            0.0
        } else if c.tau_alpha == c.t_timer {
            // The paper's K = T: one exponential serves both.
            1.0 - timer_unmarked
        } else if c.tau_alpha >= c.tau {
            -exp_m1(c.tau_alpha * r * m.ln1mp)
        } else {
            (cnp_rate * c.tau_alpha).min(1.0)
        };
        // The rate-increase terms: byte-counter expiries R·p/((1−p)^{−B} − 1) and timer
        // expiries, each moving R_C halfway to R_T (fast recovery), and after F of them
        // unmarked, (1−p)^{FB} and (1−p)^{FTR}, also raising R_T by R_AI (additive
        // increase).
        let byte_events = r * m.byte_runs;
        // (1−p)^{F·T·r}: F timer periods in a row without a mark.
        let timer_ai_gate = pow_n(timer_unmarked, c.f_thr);
        Drive {
            cnp_rate,
            increase_events: byte_events + timer_events,
            ai_bps_per_s: c.r_ai * (byte_events * m.byte_ai_gate + timer_events * timer_ai_gate),
            alpha_input,
        }
    }
}

/// One flow's R_C, R_T and alpha.
#[derive(Clone, Copy)]
struct RateState {
    rc: f64,
    rt: f64,
    alpha: f64,
}

impl RateState {
    /// d/dt of (R_C, R_T, alpha) under `d`: the model's rate and alpha equations.
    fn slope(&self, d: &Drive, c: &Constants) -> RateState {
        // The fraction a cut removes: α·2^(10−gd), the paper's α/2 at gd = 11, bounded
        // by `rp_min_dec_fac`.
        let cut = bounded(self.alpha * c.cut_scale, 0.0, c.max_cut);
        RateState {
            // dR_C/dt: the rate decrease, a cut of R_C per CNP, and the rate increase,
            // halfway to R_T per byte-counter or timer expiry.
            rc: -self.rc * cut * d.cnp_rate + (self.rt - self.rc) / 2.0 * d.increase_events,
            // dR_T/dt: R_T set to R_C per CNP, and additive increase.
            rt: -(self.rt - self.rc) * d.cnp_rate + d.ai_bps_per_s,
            // dα/dt = (g/τ′)·(input − α): the alpha update, a moving average of marking.
            alpha: c.g_per_tau_alpha * (d.alpha_input - self.alpha),
        }
    }

    /// `self + h·a + h·b`, kept where the NIC keeps it: alpha in [0, 1], R_C between the
    /// minimum and line rate, R_T no higher than the line rate and no lower than R_C.
    fn advanced(&self, h: f64, a: &RateState, b: &RateState, min_bps: f64, max_bps: f64) -> Self {
        let rc = bounded(self.rc + h * (a.rc + b.rc), min_bps, max_bps);
        RateState {
            rc,
            rt: bounded(self.rt + h * (a.rt + b.rt), rc, max_bps),
            alpha: bounded(self.alpha + h * (a.alpha + b.alpha), 0.0, 1.0),
        }
    }
}

const NO_SLOPE: RateState = RateState {
    rc: 0.0,
    rt: 0.0,
    alpha: 0.0,
};

/// A value τ* in the past, from rings of one value per step, interpolated linearly
/// between the two steps around it. τ* is `whole + frac` steps; every ring is
/// `whole + 2` long, so one pair of positions serves them all.
struct DelayLine {
    whole: usize,
    frac: f64,
}

/// Where, in every ring, the two steps around `n + 1 − τ*` sit. The rings start all 0,
/// which is what a step before the run reads: nothing was queued or sent.
#[derive(Clone, Copy)]
struct DelayTap {
    newer: usize,
    older: usize,
    frac: f64,
}

impl DelayLine {
    fn ring_len(&self) -> usize {
        self.whole + 2
    }

    /// The tap for step `n + 1 − τ*`, `slot` being step n's position in the rings. Under
    /// one step of delay the newest value stands in for the next one.
    fn tap(&self, slot: usize) -> DelayTap {
        let len = self.ring_len();
        // Step n − k sits k places behind `slot` (k < len), wrapping without a division.
        let behind = |k: usize| if slot >= k { slot - k } else { slot + len - k };
        DelayTap {
            newer: behind(self.whole.saturating_sub(1)),
            older: behind(self.whole),
            frac: self.frac,
        }
    }
}

impl DelayTap {
    fn read(&self, ring: &[f64]) -> f64 {
        ring[self.newer] * (1.0 - self.frac) + ring[self.older] * self.frac
    }
}

impl Constants {
    fn of(s: &Scenario) -> Constants {
        let p = &s.dcqcn;
        let pkt_bits = f64::from(s.mtu_bytes) * 8.0;
        let tau = (p
            .np_min_time_between_cnps_us
            .max(p.rp_rate_reduce_monitor_period_us)
            * 1e-6)
            .max(0.0);
        Constants {
            red: RedCurve::of(&s.cp),
            pkt_bits,
            per_pkt: 1.0 / pkt_bits,
            tau,
            per_tau: if tau > 0.0 { 1.0 / tau } else { 0.0 },
            tau_alpha: p.rp_dce_tcp_rtt_us * 1e-6,
            g_per_tau_alpha: p.g / (p.rp_dce_tcp_rtt_us * 1e-6),
            t_timer: p.rp_time_reset_us * 1e-6,
            b_pkts: p.rp_byte_reset_bytes as f64 * 8.0 / pkt_bits,
            f_thr: p.rp_threshold,
            r_ai: p.rp_ai_rate_mbps * 1e6,
            cut_scale: p.cut_scale(),
            max_cut: (1.0 - p.rp_min_dec_fac_pct / 100.0).clamp(0.0, 1.0),
        }
    }
}

/// The run's time grid. A step never reaches past the feedback delay, so the delayed terms
/// at its end are already in the history; and it divides the sample interval, so samples
/// fall at whole multiples of it as the series promises.
struct Grid {
    step_us: f64,
    dt: f64,
    steps_per_sample: u64,
    total_steps: u64,
    delay: DelayLine,
}

impl Grid {
    fn of(s: &Scenario) -> Grid {
        let longest_us = s.fluid_step_us.min(s.feedback_delay_us());
        let steps_per_sample = (s.sample_interval_us / longest_us).ceil().max(1.0);
        let step_us = s.sample_interval_us / steps_per_sample;
        let lag_steps = (s.feedback_delay_us() / step_us).max(0.0);
        Grid {
            step_us,
            dt: step_us * 1e-6,
            steps_per_sample: steps_per_sample as u64,
            total_steps: (s.duration_us / step_us).round() as u64,
            delay: DelayLine {
                whole: lag_steps.floor() as usize,
                frac: lag_steps.fract(),
            },
        }
    }
}

/// Flows with the same line rate, start and size follow the same trajectory in a
/// deterministic fluid model, so each such class is integrated once and weighted by its
/// size: a 16-way incast costs one flow. Each class is its members' indices, in order.
fn flow_classes(flows: &[FlowSpec]) -> Vec<Vec<usize>> {
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        let same = |j: usize| {
            flows.get(j).is_some_and(|g| {
                g.link_gbps.to_bits() == f.link_gbps.to_bits()
                    && g.start_us.to_bits() == f.start_us.to_bits()
                    && g.size_bytes == f.size_bytes
            })
        };
        match classes.iter_mut().find(|members| same(members[0])) {
            Some(members) => members.push(i),
            None => classes.push(vec![i]),
        }
    }
    classes
}

impl FluidFlow {
    /// A class of flows like `f`, idle until its start, with `hist_len` steps of history.
    fn new(f: &FlowSpec, members: Vec<usize>, p: &DcqcnParams, hist_len: usize) -> FluidFlow {
        // The same rate bounds as the packet model's reaction point.
        let bounds = RpConfig::new(p, f.link_gbps * 1e9);
        FluidFlow {
            weight: members.len() as f64,
            members,
            active: false,
            done_sending: false,
            start_s: f.start_us * 1e-6,
            size_bits: f.size_bytes.map(|b| b as f64 * 8.0),
            max_bps: bounds.max_rate_bps,
            min_bps: bounds.min_rate_bps,
            state: RateState {
                rc: 0.0,
                rt: 0.0,
                alpha: p.rp_initial_alpha,
            },
            next: NO_SLOPE,
            drive: Drive::default(),
            sent_bits: 0.0,
            interval_sent_bits: 0.0,
            interval_bits: 0.0,
            cnps: 0.0,
            history: vec![0.0; hist_len],
        }
    }

    /// One step of the rate equations (dR_C/dt, dR_T/dt, dα/dt) by Heun's method: the
    /// slope at the start, an Euler guess at the end, the slope there under the end's
    /// drive, and the state advanced by their mean. The CNPs received are integrated
    /// alike.
    fn heun_step(&mut self, drive_end: &Drive, dt: f64, c: &Constants) {
        let k1 = self.state.slope(&self.drive, c);
        let guess = self
            .state
            .advanced(dt, &k1, &NO_SLOPE, self.min_bps, self.max_bps);
        let k2 = guess.slope(drive_end, c);
        self.next = self
            .state
            .advanced(dt / 2.0, &k1, &k2, self.min_bps, self.max_bps);
        self.cnps += (self.drive.cnp_rate + drive_end.cnp_rate) / 2.0 * dt;
    }

    /// Takes the step's end state and counts what the flow sent (the trapezoid of its
    /// throttled rate at both ends) and what of it got through the bottleneck. True when
    /// that was the flow's last bit: it stops sending.
    fn deliver(&mut self, slot: usize, throttle_end: f64, service_share: f64, dt: f64) -> bool {
        let sent = (self.history[slot] + self.next.rc * throttle_end) / 2.0 * dt;
        self.state = self.next;
        self.sent_bits += sent;
        self.interval_sent_bits += sent;
        self.interval_bits += sent * service_share;
        if self.size_bits.is_some_and(|size| self.sent_bits >= size) {
            self.done_sending = true;
            self.active = false;
            self.state.rc = 0.0;
            return true;
        }
        false
    }
}

/// Starts the flows whose time has come, at line rate (R_C = R_T = line rate, as the NIC
/// starts a flow), and returns the load they offer, Σ R_C over the flows sending.
fn start_and_offer(flows: &mut [FluidFlow], t: f64) -> f64 {
    let mut offered_bps = 0.0;
    for f in flows.iter_mut() {
        if !f.active && !f.done_sending && t >= f.start_s {
            f.active = true;
            f.state.rc = f.max_bps;
            f.state.rt = f.max_bps;
        }
        if f.active {
            offered_bps += f.weight * f.state.rc;
        }
    }
    offered_bps
}

/// The bottleneck port: its queue q, the queue's history for the delayed marking, and the
/// marks, drops and pause time counted so far.
struct Port {
    c_bps: f64,
    buffer_bits: f64,
    /// Infinite on a port without PFC.
    xoff_bits: f64,
    q_bits: f64,
    history: Vec<f64>,
    marks: f64,
    dropped_bits: f64,
    pause_s: f64,
    max_queue_bits: f64,
}

impl Port {
    fn of(s: &Scenario, hist_len: usize) -> Port {
        Port {
            c_bps: s.bottleneck_gbps * 1e9,
            buffer_bits: s.cp.buffer_bytes as f64 * 8.0,
            xoff_bits: s
                .cp
                .pfc
                .as_ref()
                .map_or(f64::INFINITY, |x| x.xoff_bytes as f64 * 8.0),
            q_bits: 0.0,
            history: vec![0.0; hist_len],
            marks: 0.0,
            dropped_bits: 0.0,
            pause_s: 0.0,
            max_queue_bits: 0.0,
        }
    }

    /// Fluid PFC: at XOFF the senders are held to what the port drains, which is what
    /// PAUSE/RESUME cycling does on average. The factor `offered_bps` is scaled by with
    /// `q_bits` queued.
    fn throttle(&self, q_bits: f64, offered_bps: f64) -> f64 {
        if q_bits >= self.xoff_bits && offered_bps > self.c_bps {
            self.c_bps / offered_bps
        } else {
            1.0
        }
    }

    /// The queue equation's Euler guess at the step's end, for PFC to act on.
    fn predicted_queue(&self, arrival_bps: f64, dt: f64) -> f64 {
        bounded(
            self.q_bits + (arrival_bps - self.c_bps) * dt,
            0.0,
            self.buffer_bits,
        )
    }

    /// The share of what arrives over a step at `mean_arrival_bps` that the port serves:
    /// all of it unless the arrivals outrun C.
    fn service_share(&self, mean_arrival_bps: f64) -> f64 {
        let serving = self.q_bits > 0.0 || mean_arrival_bps > self.c_bps;
        if serving && mean_arrival_bps > self.c_bps {
            self.c_bps / mean_arrival_bps
        } else {
            1.0
        }
    }

    /// ECN marks over a step: p times the packet arrival rate, by the trapezoid.
    fn count_marks(
        &mut self,
        start: &Marking,
        arrival_bps: f64,
        end: &Marking,
        arrival_end_bps: f64,
        c: &Constants,
        dt: f64,
    ) {
        self.marks +=
            (start.prob * arrival_bps + end.prob * arrival_end_bps) / 2.0 * c.per_pkt * dt;
    }

    /// The queue equation, dq/dt = Σ R_C − C, over one step (the trapezoid of the arrival
    /// rate): q stays at or above 0 and, past the buffer, the excess is dropped.
    fn advance_queue(&mut self, mean_arrival_bps: f64, dt: f64) {
        let q_next = (self.q_bits + (mean_arrival_bps - self.c_bps) * dt).max(0.0);
        if q_next > self.buffer_bits {
            // Only a lossy port gets here: PFC holds a lossless one at XOFF ≤ buffer.
            self.dropped_bits += q_next - self.buffer_bits;
        }
        self.q_bits = q_next.min(self.buffer_bits);
        self.max_queue_bits = self.max_queue_bits.max(self.q_bits);
    }
}

/// Runs the fluid model. The work counted against `limits.max_events` is flow-steps
/// (one per class of identical flows per step).
///
/// The integrator is Heun's method (the explicit trapezoid rule), second order: each step
/// takes the slope at its start and at a predicted end. The delayed terms at the end come
/// from the history, since a step is never longer than the feedback delay τ*
/// (`fluid_step_us` is shortened to τ* when it is longer, and to divide the sample
/// interval). All of the model's exponentials sit in those delayed terms (`Drive`,
/// `Marking`), so a step evaluates them once, as forward Euler would, while its error
/// shrinks with the square of the step. Against a 0.05 µs reference, `two-flow`'s
/// 3.125 µs steps follow it more closely than forward Euler did at 1 µs.
pub fn simulate_fluid(scenario: &Scenario, limits: &Limits) -> Result<Series, SimError> {
    scenario.validate()?;
    limits.validate()?;
    let s = scenario;
    let mut series = Series::new(Model::Fluid, s);
    let grid = Grid::of(s);
    let dt = grid.dt;
    let c = Constants::of(s);
    let hist_len = grid.delay.ring_len();
    let mut flows: Vec<FluidFlow> = flow_classes(&s.flows)
        .into_iter()
        .filter_map(|members| {
            let f = s.flows.get(*members.first()?)?;
            Some(FluidFlow::new(f, members, &s.dcqcn, hist_len))
        })
        .collect();
    let mut port = Port::of(s, hist_len);
    let n_flows = flows.len() as u64;
    // The work cap as a number of steps: each step is one flow-step per class.
    let step_cap = limits.max_events / n_flows.max(1);
    let mut step: u64 = 0;
    let mut since_sample: u64 = 0;
    // Before the run there is no queue and no one sending: the marking is nil, and each
    // flow's drive is what an idle flow's would be.
    let mut marking = Marking::at(0.0, &c);
    for f in flows.iter_mut() {
        f.drive = Drive::at(&marking, 0.0, &c);
    }
    // Step `step`'s position in the delay rings.
    let mut slot: usize = 0;

    while step < grid.total_steps {
        if step == step_cap {
            series.truncated = true;
            series.truncation_reason = Some(format!(
                "work cap of {} flow-steps reached at t = {:.3} µs",
                limits.max_events,
                step as f64 * grid.step_us
            ));
            break;
        }
        let t = step as f64 * dt;

        // The step's start: the load offered, what PFC lets of it onto the wire, and the
        // queue put into the history the marking reads τ* later.
        let offered_bps = start_and_offer(&mut flows, t);
        let throttle = port.throttle(port.q_bits, offered_bps);
        let arrival_bps = offered_bps * throttle;
        port.history[slot] = port.q_bits;

        // The marking at the step's end, p(q(t − τ*)): the RED curve at the queue one
        // feedback delay earlier.
        let tap = grid.delay.tap(slot);
        let marking_end = Marking::at(tap.read(&port.history) / 8.0, &c);

        // The rate and alpha equations over the step.
        let offered_end_bps =
            integrate_rates(&mut flows, &marking_end, &tap, slot, throttle, dt, &c);

        // PFC at the step's end, on the queue the queue equation predicts.
        let throttle_end = port.throttle(port.predicted_queue(arrival_bps, dt), offered_end_bps);
        let arrival_end_bps = offered_end_bps * throttle_end;
        let paused_now = throttle < 1.0;
        if paused_now {
            port.pause_s += dt;
        }
        let mean_arrival_bps = (arrival_bps + arrival_end_bps) / 2.0;

        // What each flow sent and got through; a flow that sent its last bit completes once
        // the queue ahead of that bit has drained.
        let service_share = port.service_share(mean_arrival_bps);
        let drained_s = t + dt + port.q_bits / port.c_bps;
        deliver(
            &mut flows,
            &mut series,
            slot,
            throttle_end,
            service_share,
            dt,
            drained_s,
        );

        // The marks counted over the step, and the queue equation.
        port.count_marks(&marking, arrival_bps, &marking_end, arrival_end_bps, &c, dt);
        marking = marking_end;
        port.advance_queue(mean_arrival_bps, dt);

        step += 1;
        slot = if slot + 1 == hist_len { 0 } else { slot + 1 };
        since_sample += 1;
        if since_sample == grid.steps_per_sample {
            since_sample = 0;
            let sample = Sample {
                time_us: step as f64 * grid.step_us,
                interval_s: grid.steps_per_sample as f64 * dt,
                paused: paused_now,
            };
            sample.record(&mut series, &mut flows, &port, &c);
        }
    }
    copy_class_columns(&flows, &mut series);
    series.events = step * n_flows;
    series.max_queue_bytes = port.max_queue_bits / 8.0;
    series.pfc_pause_total_us = port.pause_s * 1e6;
    series.end_us = step as f64 * grid.step_us;
    Ok(series)
}

/// Steps every flow's rate and alpha equations (dR_C/dt, dR_T/dt, dα/dt) over one step,
/// each driven at the step's end by `marking_end` and its own rate τ* earlier, and returns
/// the load they offer at the end. `throttle` is what PFC let onto the wire at the start.
fn integrate_rates(
    flows: &mut [FluidFlow],
    marking_end: &Marking,
    tap: &DelayTap,
    slot: usize,
    throttle: f64,
    dt: f64,
    c: &Constants,
) -> f64 {
    let mut offered_end_bps = 0.0;
    for f in flows.iter_mut() {
        f.history[slot] = if f.active { f.state.rc * throttle } else { 0.0 };
        let drive_end = Drive::at(marking_end, tap.read(&f.history), c);
        if f.active {
            f.heun_step(&drive_end, dt, c);
            offered_end_bps += f.weight * f.next.rc;
        }
        f.drive = drive_end;
    }
    offered_end_bps
}

/// Ends the step for every sending flow (`FluidFlow::deliver`); a flow that sent its last
/// bit gets its completion time, `drained_s`: when the queue ahead of that bit is empty.
fn deliver(
    flows: &mut [FluidFlow],
    series: &mut Series,
    slot: usize,
    throttle_end: f64,
    service_share: f64,
    dt: f64,
    drained_s: f64,
) {
    for f in flows.iter_mut().filter(|f| f.active) {
        if f.deliver(slot, throttle_end, service_share, dt) {
            for &i in &f.members {
                if let Some(fct) = series.fct_us.get_mut(i) {
                    fct.get_or_insert((drained_s - f.start_s) * 1e6);
                }
            }
        }
    }
}

/// One sample of the series: when, over how long an interval, and whether PFC held the
/// senders in its last step.
struct Sample {
    time_us: f64,
    interval_s: f64,
    paused: bool,
}

impl Sample {
    /// Appends the port's and each class's values, and starts the flows' next interval.
    fn record(&self, series: &mut Series, flows: &mut [FluidFlow], port: &Port, c: &Constants) {
        series.time_us.push(self.time_us);
        for f in flows.iter_mut() {
            // The class's first member's columns; the others copy them after the run.
            if let Some(col) = f.members.first().and_then(|&i| series.flows.get_mut(i)) {
                col.rc_gbps.push(f.state.rc / 1e9);
                col.rt_gbps.push(f.state.rt / 1e9);
                col.alpha.push(f.state.alpha);
                col.goodput_gbps
                    .push(f.interval_bits / self.interval_s / 1e9);
                col.cnps.push(f.cnps.floor() as u64);
                col.sent_gbps
                    .push(f.interval_sent_bits / self.interval_s / 1e9);
            }
            f.interval_sent_bits = 0.0;
            f.interval_bits = 0.0;
        }
        series.queue_bytes.push(port.q_bits / 8.0);
        series.ecn_marks.push(port.marks.floor() as u64);
        series
            .drops
            .push((port.dropped_bits / c.pkt_bits).floor() as u64);
        series.pfc_paused.push(self.paused);
    }
}

/// Gives every member of a class the columns recorded for its first member.
fn copy_class_columns(flows: &[FluidFlow], series: &mut Series) {
    for f in flows {
        if let Some((&first, others)) = f.members.split_first() {
            // Taken out and put back, so its columns are copied into the others' reserved
            // room without a copy of their own.
            let Some(col) = series.flows.get_mut(first).map(std::mem::take) else {
                continue;
            };
            for &i in others {
                if let Some(other) = series.flows.get_mut(i) {
                    other.clone_from(&col);
                }
            }
            if let Some(slot) = series.flows.get_mut(first) {
                *slot = col;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::series::series_to_csv;
    use super::*;

    #[test]
    fn unmarked_runs_keep_their_limits() {
        // No marking: one run per n packets, and every run unmarked.
        assert_eq!(unmarked_runs(10.0, 0.0, 0.0), (0.1, 1.0));
        // Certain marking within a long run: no unmarked runs at all.
        let ln = ln_1m(P_CAP);
        assert_eq!(unmarked_runs(1e6, P_CAP, ln), (0.0, 0.0));
        // Against the closed forms for a moderate case.
        let (p, n) = (0.002, 500.0_f64);
        let (rate, unmarked) = unmarked_runs(n, p, ln_1m(p));
        let stay = (1.0 - p).powf(n);
        assert!((unmarked - stay).abs() < 1e-12);
        assert!((rate - p / (1.0 / stay - 1.0)).abs() < 1e-12);
    }

    /// Runs that between them take every branch of the model: the named scenarios with the
    /// paper's and the mlx5 parameters (K < τ), K ≥ τ with K ≠ T, τ = 0, a lossy port that
    /// drops, mixed line rates, starts and sizes, a run stopped by its work cap, and a
    /// large fast-recovery threshold with the deepest cut bounded by `rp_min_dec_fac`.
    fn pinned_runs() -> Vec<(String, Scenario, Limits)> {
        let named = |n: &str| super::super::scenario::named_scenario(n).unwrap();
        let mut runs = Vec::new();
        for name in super::super::scenario::scenario_names() {
            runs.push((name.to_string(), named(name), Limits::default()));
            let mut s = named(name);
            s.dcqcn = super::super::params::DcqcnParams::mlx5_default();
            runs.push((format!("{name}, mlx5"), s, Limits::default()));
        }
        let mut s = named("two-flow");
        s.dcqcn.rp_dce_tcp_rtt_us = 60.0;
        runs.push(("two-flow, K = 60 µs".into(), s, Limits::default()));
        let mut s = named("two-flow");
        s.dcqcn.np_min_time_between_cnps_us = 0.0;
        runs.push(("two-flow, τ = 0".into(), s, Limits::default()));
        let mut s = named("incast-16");
        s.cp.pfc = None;
        s.cp.buffer_bytes = 300 * 1024;
        runs.push(("incast-16, lossy".into(), s, Limits::default()));
        let mut s = named("two-flow");
        s.duration_us = 10_000.0;
        s.flows = [
            (25.0, 0.0, None),
            (40.0, 500.0, Some(2_000_000)),
            (100.0, 1_500.0, None),
        ]
        .iter()
        .cycle()
        .take(6)
        .map(
            |&(link_gbps, start_us, size_bytes)| super::super::scenario::FlowSpec {
                link_gbps,
                start_us,
                size_bytes,
            },
        )
        .collect();
        runs.push(("mixed flows".into(), s, Limits::default()));
        runs.push((
            "two-flow, capped".into(),
            named("two-flow"),
            Limits { max_events: 5_001 },
        ));
        let mut s = named("aggressive-g");
        s.dcqcn.rp_threshold = 1000;
        s.dcqcn.rp_gd = 10;
        s.dcqcn.rp_min_dec_fac_pct = 70.0;
        runs.push((
            "aggressive-g, F = 1000, gd = 10".into(),
            s,
            Limits::default(),
        ));
        runs
    }

    /// The variable that makes [`every_pinned_run_gives_the_stored_output`] write the
    /// computed output over the stored files instead of comparing them.
    const UPDATE_VAR: &str = "LAB_UPDATE_FLUID_PINS";

    /// Each pinned run's stored output, by slug ([`slug`]): its `series_to_csv`
    /// (`fluid_pins/<slug>.csv`) and the rest of its series ([`rest_of_series`],
    /// `fluid_pins/<slug>.rest.json`). Read at compile time, so the test opens no file when
    /// it runs, in wasm as natively.
    macro_rules! stored {
        ($($slug:literal),* $(,)?) => {
            &[$((
                $slug,
                include_str!(concat!("fluid_pins/", $slug, ".csv")),
                include_str!(concat!("fluid_pins/", $slug, ".rest.json")),
            )),*]
        };
    }
    const STORED: &[(&str, &str, &str)] = stored![
        "two-flow",
        "two-flow-mlx5",
        "incast-16",
        "incast-16-mlx5",
        "ecn-above-xoff",
        "ecn-above-xoff-mlx5",
        "aggressive-g",
        "aggressive-g-mlx5",
        "two-flow-k-60-s",
        "two-flow-0",
        "incast-16-lossy",
        "mixed-flows",
        "two-flow-capped",
        "aggressive-g-f-1000-gd-10",
    ];

    /// A run's slug, which names its stored files: the name in lowercase ASCII with each
    /// stretch of other characters (spaces, punctuation, µ, τ) made one `-`, and none at
    /// either end; "two-flow, K = 60 µs" is `two-flow-k-60-s`.
    fn slug(name: &str) -> String {
        let mut out = String::new();
        for c in name.chars() {
            if c.is_ascii_alphanumeric() {
                out.push(c.to_ascii_lowercase());
            } else if !out.is_empty() && !out.ends_with('-') {
                out.push('-');
            }
        }
        out.trim_end_matches('-').to_string()
    }

    /// What the CSV leaves out — end time, start rates, FCTs, first cuts, CNP gaps, pause
    /// time, largest queue, work done, truncation — as JSON: the series with the columns
    /// `series_to_csv` writes emptied, its values in full.
    fn rest_of_series(series: &Series) -> String {
        let mut rest = series.clone();
        rest.time_us.clear();
        rest.flows.clear();
        rest.queue_bytes.clear();
        rest.ecn_marks.clear();
        rest.drops.clear();
        rest.pfc_paused.clear();
        let mut json = serde_json::to_string_pretty(&rest).unwrap();
        json.push('\n');
        json
    }

    /// How far a recomputed value may be from the stored one.
    #[derive(Clone, Copy)]
    struct Tolerance {
        /// A fraction of the larger of the two values.
        relative: f64,
        /// The least difference allowed, for values at or near zero, where a relative
        /// bound allows nothing.
        absolute: f64,
    }

    impl Tolerance {
        /// The largest difference allowed between `stored` and `computed`, on top of
        /// `step`, the unit the value was rounded to when it was written.
        fn allowed(self, stored: f64, computed: f64, step: f64) -> f64 {
            (self.relative * stored.abs().max(computed.abs())).max(self.absolute) + step
        }
    }

    /// The model is deterministic: on one platform its output repeats bit for bit. Across
    /// platforms the functions it still takes from libm (`ln_1p` above 1 % marking) may
    /// differ in the last bit, wasm's libm against glibc's, and the integration carries
    /// that along. 1e-9 of a value is millions of ulps, room for such a difference to grow
    /// over a run, yet far below any change to the model worth a look; 1e-12 (µs, Gb/s,
    /// bytes) is as far below anything the model resolves.
    const TOLERANCE: Tolerance = Tolerance {
        relative: 1e-9,
        absolute: 1e-12,
    };

    /// One unit in the last place of a CSV column whose values `series_to_csv` rounds: the
    /// rates and alpha to 6 decimals, the queue to whole bytes, and the counts of CNPs,
    /// marks and drops, which are floors of running sums. A last-bit difference at a
    /// rounding step moves such a cell by one unit, so that much more is allowed. Time is
    /// written in full, and the flow index and PFC state must match exactly.
    fn rounding_step(column: &str) -> f64 {
        match column {
            "rc_gbps" | "rt_gbps" | "alpha" | "goodput_gbps" | "sent_gbps" => 1e-6,
            "queue_bytes" | "cnps" | "ecn_marks" | "drops" => 1.0,
            _ => 0.0,
        }
    }

    /// Whether a computed CSV is the stored one: the same header and rows, each numeric
    /// cell within `tol` (and its column's [`rounding_step`]), any other cell the same
    /// text. The error names the first differing row (1-based among the data rows) with its
    /// time, the column, and both values.
    fn compare_series_csv(stored: &str, computed: &str, tol: Tolerance) -> Result<(), String> {
        let mut stored_rows = stored.lines();
        let mut computed_rows = computed.lines();
        let header = stored_rows.next().unwrap_or_default();
        let computed_header = computed_rows.next().unwrap_or_default();
        if header != computed_header {
            return Err(format!(
                "the header differs: stored `{header}`, computed `{computed_header}`"
            ));
        }
        let columns: Vec<&str> = header.split(',').collect();
        let time_column = columns.iter().position(|&c| c == "time_us");
        // "data row n (line n + 1 of the file, time_us = t)", for a row's cells.
        let place = |row: usize, cells: &[&str]| {
            let time = time_column
                .and_then(|i| cells.get(i))
                .map_or(String::new(), |t| format!(", time_us = {t}"));
            format!("data row {row} (line {} of the file{time})", row + 1)
        };
        let mut row = 0;
        loop {
            row += 1;
            let (stored_row, computed_row) = match (stored_rows.next(), computed_rows.next()) {
                (None, None) => return Ok(()),
                (Some(s), Some(c)) => (s, c),
                (s, c) => {
                    let (only, cells) = match (s, c) {
                        (Some(s), _) => ("stored", s),
                        (_, c) => ("computed", c.unwrap_or_default()),
                    };
                    let cells: Vec<&str> = cells.split(',').collect();
                    return Err(format!(
                        "{} data rows stored, {} computed; {} is only in the {only} CSV",
                        stored.lines().count().saturating_sub(1),
                        computed.lines().count().saturating_sub(1),
                        place(row, &cells),
                    ));
                }
            };
            let stored_cells: Vec<&str> = stored_row.split(',').collect();
            let computed_cells: Vec<&str> = computed_row.split(',').collect();
            if stored_cells.len() != columns.len() || computed_cells.len() != columns.len() {
                return Err(format!(
                    "{}: {} cells stored, {} computed, {} columns",
                    place(row, &stored_cells),
                    stored_cells.len(),
                    computed_cells.len(),
                    columns.len()
                ));
            }
            for ((column, s), c) in columns.iter().zip(&stored_cells).zip(&computed_cells) {
                if s == c {
                    continue;
                }
                let why = match (s.parse::<f64>(), c.parse::<f64>()) {
                    (Ok(a), Ok(b)) => {
                        let diff = (a - b).abs();
                        let allowed = tol.allowed(a, b, rounding_step(column));
                        // A NaN against a number fails here too.
                        if diff <= allowed {
                            continue;
                        }
                        format!("differs by {diff:e}, allowed {allowed:e}")
                    }
                    _ => "not both numbers, so compared as text".into(),
                };
                return Err(format!(
                    "{}, column {column}: stored {s}, computed {c} ({why})",
                    place(row, &stored_cells)
                ));
            }
        }
    }

    /// Whether a computed [`rest_of_series`] is the stored one, compared as the CSV's cells
    /// are: numbers within `tol`, anything else exactly. The error names the first
    /// differing field by its path, e.g. `fct_us[3]`.
    fn compare_rest_of_series(stored: &str, computed: &str, tol: Tolerance) -> Result<(), String> {
        fn compare(
            path: &str,
            stored: &serde_json::Value,
            computed: &serde_json::Value,
            tol: Tolerance,
        ) -> Result<(), String> {
            use serde_json::Value;
            let differs = || Err(format!("{path}: stored {stored}, computed {computed}"));
            match (stored, computed) {
                (Value::Number(s), Value::Number(c)) => {
                    let (s, c) = (
                        s.as_f64().unwrap_or(f64::NAN),
                        c.as_f64().unwrap_or(f64::NAN),
                    );
                    if (s - c).abs() <= tol.allowed(s, c, 0.0) {
                        Ok(())
                    } else {
                        differs()
                    }
                }
                (Value::Array(s), Value::Array(c)) if s.len() == c.len() => s
                    .iter()
                    .zip(c)
                    .enumerate()
                    .try_for_each(|(i, (s, c))| compare(&format!("{path}[{i}]"), s, c, tol)),
                (Value::Object(s), Value::Object(c))
                    if s.len() == c.len() && s.keys().all(|k| c.contains_key(k)) =>
                {
                    s.iter().try_for_each(|(k, v)| {
                        let path = if path.is_empty() {
                            k.clone()
                        } else {
                            format!("{path}.{k}")
                        };
                        compare(&path, v, &c[k], tol)
                    })
                }
                _ if stored == computed => Ok(()),
                _ => differs(),
            }
        }
        let parse = |json: &str| serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"));
        compare("", &parse(stored)?, &parse(computed)?, tol)
    }

    /// Writes a run's output over its stored files; returns the paths it changed.
    fn write_stored(slug: &str, csv: &str, rest: &str) -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/dcqcn/fluid_pins");
        std::fs::create_dir_all(&dir).unwrap();
        let mut changed = Vec::new();
        for (file, text) in [
            (format!("{slug}.csv"), csv),
            (format!("{slug}.rest.json"), rest),
        ] {
            let path = dir.join(file);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
                std::fs::write(&path, text)
                    .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
                changed.push(path.display().to_string());
            }
        }
        changed
    }

    /// Every pinned run gives the stored output: its CSV cell by cell within [`TOLERANCE`]
    /// (and the CSV's [`rounding_step`]), the rest of its series field by field likewise.
    /// The stored files were written from the code at 472b466, their CSVs first checked
    /// against the FNV-1a hashes this test pinned before (recorded at d649194).
    /// The `sent_gbps` column was appended later (#32), every other cell left as it was.
    ///
    /// A change meant to alter the model's results stores the new output with
    /// `LAB_UPDATE_FLUID_PINS=1 cargo test -p engine --lib dcqcn::fluid`: the test then
    /// writes the computed output over the files in `fluid_pins/`, lists those it changed,
    /// and passes; the commit says why the results moved. A run new to [`pinned_runs`] is
    /// written the same way and then needs its slug in [`STORED`].
    #[test]
    fn every_pinned_run_gives_the_stored_output() {
        let runs = pinned_runs();
        let slugs: Vec<String> = runs.iter().map(|(name, ..)| slug(name)).collect();
        for (i, s) in slugs.iter().enumerate() {
            assert!(!slugs[..i].contains(s), "two pinned runs have the slug {s}");
        }
        let update = std::env::var(UPDATE_VAR).is_ok_and(|v| v == "1");
        let mut problems = Vec::new();
        let mut changed = Vec::new();
        for ((name, scenario, limits), slug) in runs.iter().zip(&slugs) {
            let series = simulate_fluid(scenario, limits).unwrap();
            let csv = series_to_csv(&series);
            let rest = rest_of_series(&series);
            let stored = STORED.iter().find(|(s, ..)| s == slug);
            if update {
                changed.extend(write_stored(slug, &csv, &rest));
            }
            let Some(&(_, stored_csv, stored_rest)) = stored else {
                let how = if update {
                    "its files are written".to_string()
                } else {
                    format!("write its files with {UPDATE_VAR}=1")
                };
                problems.push(format!(
                    "{name}: nothing is stored as `{slug}`; {how}, then add \"{slug}\" to STORED"
                ));
                continue;
            };
            if update {
                continue;
            }
            if let Err(e) = compare_series_csv(stored_csv, &csv, TOLERANCE) {
                problems.push(format!("{name} (fluid_pins/{slug}.csv): {e}"));
            }
            if let Err(e) = compare_rest_of_series(stored_rest, &rest, TOLERANCE) {
                problems.push(format!("{name} (fluid_pins/{slug}.rest.json): {e}"));
            }
        }
        for (stored_slug, ..) in STORED {
            if !slugs.iter().any(|s| s == stored_slug) {
                problems.push(format!(
                    "`{stored_slug}` is stored but no pinned run has that slug: remove it \
                     from STORED and its files from fluid_pins/"
                ));
            }
        }
        if update {
            // Straight to stderr, which the test harness does not capture (print! it
            // would), so the list shows without --nocapture.
            use std::io::Write as _;
            let mut report = format!("{UPDATE_VAR}: {} stored files changed\n", changed.len());
            for line in changed.iter().chain(&problems) {
                report.push_str(&format!("  {line}\n"));
            }
            let _ = std::io::stderr().write_all(report.as_bytes());
            return;
        }
        assert!(
            problems.is_empty(),
            "the fluid model's output is not the stored one:\n{}\nIf the change is intended, \
             store the new output with `{UPDATE_VAR}=1 cargo test -p engine --lib \
             dcqcn::fluid` and say in the commit why it moved.",
            problems.join("\n")
        );
    }

    fn stored(slug: &str) -> (&'static str, &'static str) {
        let &(_, csv, rest) = STORED.iter().find(|(s, ..)| *s == slug).unwrap();
        (csv, rest)
    }

    /// The comparison catches a change far smaller than any chart shows: one rate 1 ppm
    /// off, late in a run, is named by its row and column; a difference of one unit in
    /// the last printed place, which a last-bit difference can make, is not.
    #[test]
    fn a_rate_one_ppm_off_is_named_by_its_row_and_column() {
        let (csv, _) = stored("two-flow");
        assert_eq!(compare_series_csv(csv, csv, TOLERANCE), Ok(()));
        let mut rows: Vec<Vec<String>> = csv
            .lines()
            .map(|row| row.split(',').map(String::from).collect())
            .collect();
        let rc = rows[0].iter().position(|c| c == "rc_gbps").unwrap();
        let alpha = rows[0].iter().position(|c| c == "alpha").unwrap();
        let time = rows[0].iter().position(|c| c == "time_us").unwrap();
        // A late data row whose rate is large enough that 1 ppm shows in 6 decimals.
        let row = (rows.len() / 2..rows.len())
            .find(|&r| rows[r][rc].parse::<f64>().unwrap() > 10.0)
            .unwrap();
        let to_csv =
            |rows: &[Vec<String>]| rows.iter().map(|r| r.join(",") + "\n").collect::<String>();

        let mut last_place = rows.clone();
        let a: f64 = rows[row][alpha].parse().unwrap();
        last_place[row][alpha] = format!("{:.6}", a + 1e-6);
        assert_eq!(
            compare_series_csv(csv, &to_csv(&last_place), TOLERANCE),
            Ok(())
        );

        let rate: f64 = rows[row][rc].parse().unwrap();
        rows[row][rc] = format!("{:.6}", rate * (1.0 + 1e-6));
        let err = compare_series_csv(csv, &to_csv(&rows), TOLERANCE).unwrap_err();
        let named = format!(
            "data row {row} (line {} of the file, time_us = {}), column rc_gbps: stored {}, \
             computed {}",
            row + 1,
            rows[row][time],
            csv.lines().nth(row).unwrap().split(',').nth(rc).unwrap(),
            rows[row][rc],
        );
        assert!(err.starts_with(&named), "{err}");
    }

    /// Likewise for the rest of a series: one FCT 1 ppm off is named by its path.
    #[test]
    fn an_fct_one_ppm_off_is_named_by_its_path() {
        let (_, rest) = stored("incast-16");
        assert_eq!(compare_rest_of_series(rest, rest, TOLERANCE), Ok(()));
        let mut value: serde_json::Value = serde_json::from_str(rest).unwrap();
        let fct = value["fct_us"][3].as_f64().unwrap();
        value["fct_us"][3] = (fct * (1.0 + 1e-6)).into();
        let err = compare_rest_of_series(rest, &value.to_string(), TOLERANCE).unwrap_err();
        assert!(err.starts_with("fct_us[3]: stored "), "{err}");
    }
}
