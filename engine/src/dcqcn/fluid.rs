//! The DCQCN fluid model (paper §5): delay differential equations for each flow's R_C,
//! R_T and alpha and the shared queue q, integrated with fixed-step forward Euler.
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
//! PFC is modelled as a fluid too: while the queue is at XOFF and the offered load exceeds
//! the bottleneck, the senders are held to the bottleneck rate (the average effect of
//! PAUSE/RESUME cycling). Without PFC the queue is capped at the buffer and the excess is
//! counted as drops.

use super::cp::red_probability;
use super::error::SimError;
use super::scenario::{Limits, Scenario};
use super::series::{Model, Series};

/// Largest marking probability used inside logarithms, so that ln(1 − p) stays finite.
const P_CAP: f64 = 1.0 - 1e-12;

struct FluidFlow {
    /// How many identical flows this one stands for, and their indices.
    weight: f64,
    members: Vec<usize>,
    active: bool,
    done_sending: bool,
    start_s: f64,
    size_bits: Option<f64>,
    finish_s: Option<f64>,
    max_bps: f64,
    min_bps: f64,
    rc: f64,
    rt: f64,
    alpha: f64,
    sent_bits: f64,
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
        let denom = (-n_pkts * ln1mp).exp_m1();
        if denom > 0.0 && denom.is_finite() {
            (p / denom, 1.0 / (1.0 + denom))
        } else if denom > 0.0 {
            (0.0, 0.0)
        } else {
            // n·|ln(1−p)| underflowed: (1−p)^{−n} − 1 ≈ −n·ln(1−p).
            (p / (-n_pkts * ln1mp).max(f64::MIN_POSITIVE), 1.0)
        }
    }
}

/// ln(1 − p). Marking probabilities are mostly below P_max (often 1 %), where nine terms
/// of the series are exact to f64 precision and much cheaper than `ln_1p` in wasm.
fn ln_unmarked(p: f64) -> f64 {
    if p <= 0.01 {
        const INV: [f64; 9] = [
            1.0,
            1.0 / 2.0,
            1.0 / 3.0,
            1.0 / 4.0,
            1.0 / 5.0,
            1.0 / 6.0,
            1.0 / 7.0,
            1.0 / 8.0,
            1.0 / 9.0,
        ];
        -p * INV.iter().rev().fold(0.0, |sum, inv| sum * p + inv)
    } else {
        (-p).ln_1p()
    }
}

/// The timer's terms for a flow sending `r` packets/s: the expiry rate (T-long runs
/// without a mark; 1/T when nothing is marked) and (1−p)^{T·r}, the chance that one
/// period passes unmarked, from which the alpha input and the additive-increase gate
/// follow without another exponential.
fn timer_terms(r_pps: f64, t_s: f64, p: f64, ln1mp: f64) -> (f64, f64) {
    let x = -t_s * r_pps * ln1mp;
    if p <= 0.0 || x < 1e-12 {
        (1.0 / t_s, 1.0)
    } else {
        let denom = x.exp_m1();
        if denom.is_finite() {
            (r_pps * p / denom, 1.0 / (1.0 + denom))
        } else {
            (0.0, 0.0)
        }
    }
}

/// Runs the fluid model. The work counted against `limits.max_events` is flow-steps
/// (one per class of identical flows per step).
pub fn simulate_fluid(scenario: &Scenario, limits: &Limits) -> Result<Series, SimError> {
    scenario.validate()?;
    limits.validate()?;
    let s = scenario;
    let p = &s.dcqcn;
    let mut series = Series::new(Model::Fluid, s);
    let dt = s.fluid_step_us * 1e-6;
    let pkt_bits = f64::from(s.mtu_bytes) * 8.0;
    let c_bps = s.bottleneck_gbps * 1e9;
    let buffer_bits = s.cp.buffer_bytes as f64 * 8.0;
    let tau = (p
        .np_min_time_between_cnps_us
        .max(p.rp_rate_reduce_monitor_period_us)
        * 1e-6)
        .max(0.0);
    let tau_alpha = p.rp_dce_tcp_rtt_us * 1e-6;
    let t_timer = p.rp_time_reset_us * 1e-6;
    let b_pkts = p.rp_byte_reset_bytes as f64 * 8.0 / pkt_bits;
    let f_thr_i = i32::try_from(p.rp_threshold).unwrap_or(i32::MAX);
    let r_ai = p.rp_ai_rate_mbps * 1e6;
    let min_keep = p.rp_min_dec_fac_pct / 100.0;
    let delay_steps = (s.feedback_delay_us() / s.fluid_step_us).round().max(0.0) as usize;
    let hist_len = delay_steps + 1;

    // Flows with the same line rate, start and size follow the same trajectory in a
    // deterministic fluid model, so each such class is integrated once and weighted by its
    // size: a 16-way incast costs one flow.
    let mut classes: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, f) in s.flows.iter().enumerate() {
        let same = |j: usize| {
            s.flows.get(j).is_some_and(|g| {
                g.link_gbps.to_bits() == f.link_gbps.to_bits()
                    && g.start_us.to_bits() == f.start_us.to_bits()
                    && g.size_bytes == f.size_bytes
            })
        };
        match classes.iter_mut().find(|(rep, _)| same(*rep)) {
            Some((_, members)) => members.push(i),
            None => classes.push((i, vec![i])),
        }
    }
    let mut flows: Vec<FluidFlow> = classes
        .iter()
        .filter_map(|(rep, members)| s.flows.get(*rep).map(|f| (f, members.clone())))
        .map(|(f, members)| {
            let line = f.link_gbps * 1e9;
            let max = if p.rp_max_rate_mbps > 0.0 {
                (p.rp_max_rate_mbps * 1e6).min(line)
            } else {
                line
            };
            FluidFlow {
                weight: members.len() as f64,
                members,
                active: false,
                done_sending: false,
                start_s: f.start_us * 1e-6,
                size_bits: f.size_bytes.map(|b| b as f64 * 8.0),
                finish_s: None,
                max_bps: max,
                min_bps: (p.rp_min_rate_mbps * 1e6).min(max),
                rc: 0.0,
                rt: 0.0,
                alpha: p.rp_initial_alpha,
                sent_bits: 0.0,
                interval_bits: 0.0,
                cnps: 0.0,
                history: vec![0.0; hist_len],
            }
        })
        .collect();
    let mut q_hist = vec![0.0_f64; hist_len];
    let mut q_bits = 0.0_f64;
    let mut marks = 0.0_f64;
    let mut dropped_bits = 0.0_f64;
    let mut pause_s = 0.0_f64;
    let xoff_bits = s.cp.pfc.as_ref().map(|x| x.xoff_bytes as f64 * 8.0);
    let total_steps = (s.duration_us / s.fluid_step_us).round() as u64;
    let steps_per_sample = (s.sample_interval_us / s.fluid_step_us).round().max(1.0) as u64;
    let n_flows = flows.len() as u64;
    let mut work: u64 = 0;
    let mut step: u64 = 0;
    let mut since_sample: u64 = 0;
    // Ring position of this step in the delay histories.
    let mut slot: usize = 0;

    while step < total_steps {
        if work.saturating_add(n_flows) > limits.max_events {
            series.truncated = true;
            series.truncation_reason = Some(format!(
                "work cap of {} flow-steps reached at t = {:.3} µs",
                limits.max_events,
                step as f64 * s.fluid_step_us
            ));
            break;
        }
        work += n_flows;
        let t = step as f64 * dt;
        // The oldest slot is the value τ* ago (or the current one without delay).
        let delayed = if slot + 1 == hist_len { 0 } else { slot + 1 };
        q_hist[slot] = q_bits;
        let q_del_bytes = if step as usize >= delay_steps {
            q_hist[delayed] / 8.0
        } else {
            0.0
        };
        let prob = red_probability(
            q_del_bytes,
            s.cp.kmin_bytes as f64,
            s.cp.kmax_bytes as f64,
            s.cp.pmax,
        )
        .min(P_CAP);
        let ln1mp = ln_unmarked(prob);
        let (byte_runs, byte_unmarked) = unmarked_runs(b_pkts, prob, ln1mp);
        // (1−p)^{F·B}: F byte-counter periods in a row without a mark.
        let byte_ai_gate = byte_unmarked.powi(f_thr_i);

        let mut offered_bps = 0.0;
        for f in flows.iter_mut() {
            if !f.active && !f.done_sending && t >= f.start_s {
                f.active = true;
                f.rc = f.max_bps;
                f.rt = f.max_bps;
            }
            if f.active {
                offered_bps += f.weight * f.rc;
            }
        }
        // Fluid PFC: at XOFF the senders are held to what the port drains, which is what
        // PAUSE/RESUME cycling does on average.
        let throttle = match xoff_bits {
            Some(x) if q_bits >= x && offered_bps > c_bps => c_bps / offered_bps,
            _ => 1.0,
        };
        let paused_now = throttle < 1.0;
        if paused_now {
            pause_s += dt;
        }
        let arrival_bps = offered_bps * throttle;
        for f in flows.iter_mut() {
            f.history[slot] = if f.active { f.rc * throttle } else { 0.0 };
        }
        let serving = q_bits > 0.0 || arrival_bps > c_bps;
        let service_share = if serving && arrival_bps > c_bps {
            c_bps / arrival_bps
        } else {
            1.0
        };

        for f in flows.iter_mut() {
            if !f.active {
                continue;
            }
            let r_del_bps = if step as usize >= delay_steps {
                f.history[delayed]
            } else {
                0.0
            };
            let r = r_del_bps / pkt_bits;
            // CNP rate: at least one mark per τ interval.
            let cnp_rate = if prob <= 0.0 || r <= 0.0 {
                0.0
            } else if tau > 0.0 {
                -(tau * r * ln1mp).exp_m1() / tau
            } else {
                r * prob
            };
            let (timer_events, timer_unmarked) = timer_terms(r, t_timer, prob, ln1mp);
            let alpha_input = if prob <= 0.0 || r <= 0.0 {
                0.0
            } else if tau_alpha == t_timer {
                // The paper's K = T: one exponential serves both.
                1.0 - timer_unmarked
            } else if tau_alpha >= tau {
                -(tau_alpha * r * ln1mp).exp_m1()
            } else {
                (cnp_rate * tau_alpha).min(1.0)
            };
            let byte_events = r * byte_runs;
            // (1−p)^{F·T·r}: F timer periods in a row without a mark.
            let timer_ai_gate = timer_unmarked.powi(f_thr_i);
            let cut = (p.cut_fraction(f.alpha)).min(1.0 - min_keep);

            let d_alpha = p.g / tau_alpha * (alpha_input - f.alpha);
            let d_rt = -(f.rt - f.rc) * cnp_rate
                + r_ai * (byte_events * byte_ai_gate + timer_events * timer_ai_gate);
            let d_rc = -f.rc * cut * cnp_rate + (f.rt - f.rc) / 2.0 * (byte_events + timer_events);

            f.alpha = (f.alpha + d_alpha * dt).clamp(0.0, 1.0);
            f.rt = (f.rt + d_rt * dt).min(f.max_bps);
            f.rc = (f.rc + d_rc * dt).clamp(f.min_bps, f.max_bps);
            f.rt = f.rt.max(f.rc);
            f.cnps += cnp_rate * dt;

            // What the flow got through the bottleneck this step.
            let out = f.history[slot] * service_share * dt;
            f.sent_bits += f.history[slot] * dt;
            f.interval_bits += out;
            if f.size_bits.is_some_and(|size| f.sent_bits >= size) {
                // Sending is over; the flow completes once the queue ahead of its last
                // bit has drained.
                f.done_sending = true;
                f.active = false;
                f.rc = 0.0;
                f.finish_s = Some(t + dt + q_bits / c_bps);
            }
        }
        for f in flows.iter() {
            if let Some(done) = f.finish_s {
                for &i in &f.members {
                    if let Some(slot) = series.fct_us.get_mut(i) {
                        if slot.is_none() {
                            *slot = Some((done - f.start_s) * 1e6);
                        }
                    }
                }
            }
        }
        marks += prob * arrival_bps / pkt_bits * dt;
        let q_next = (q_bits + (arrival_bps - c_bps) * dt).max(0.0);
        if q_next > buffer_bits {
            // Only a lossy port gets here: PFC holds a lossless one at XOFF ≤ buffer.
            dropped_bits += q_next - buffer_bits;
        }
        q_bits = q_next.min(buffer_bits);
        series.max_queue_bytes = series.max_queue_bytes.max(q_bits / 8.0);

        step += 1;
        slot = delayed;
        since_sample += 1;
        if since_sample == steps_per_sample {
            since_sample = 0;
            let interval_s = steps_per_sample as f64 * dt;
            series.time_us.push(step as f64 * s.fluid_step_us);
            for f in flows.iter_mut() {
                for &i in &f.members {
                    if let Some(col) = series.flows.get_mut(i) {
                        col.rc_gbps.push(f.rc / 1e9);
                        col.rt_gbps.push(f.rt / 1e9);
                        col.alpha.push(f.alpha);
                        col.goodput_gbps.push(f.interval_bits / interval_s / 1e9);
                        col.cnps.push(f.cnps.floor() as u64);
                    }
                }
                f.interval_bits = 0.0;
            }
            series.queue_bytes.push(q_bits / 8.0);
            series.ecn_marks.push(marks.floor() as u64);
            series.drops.push((dropped_bits / pkt_bits).floor() as u64);
            series.pfc_paused.push(paused_now);
        }
    }
    series.events = work;
    series.pfc_pause_total_us = pause_s * 1e6;
    series.end_us = step as f64 * s.fluid_step_us;
    Ok(series)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_series_matches_ln_1p() {
        for p in [0.0, 1e-9, 1e-4, 0.003, 0.01, 0.0100001, 0.2, P_CAP] {
            let want = (-p).ln_1p();
            let got = ln_unmarked(p);
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "p = {p}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn unmarked_runs_keep_their_limits() {
        // No marking: one run per n packets, and every run unmarked.
        assert_eq!(unmarked_runs(10.0, 0.0, 0.0), (0.1, 1.0));
        // Certain marking within a long run: no unmarked runs at all.
        let ln = ln_unmarked(P_CAP);
        assert_eq!(unmarked_runs(1e6, P_CAP, ln), (0.0, 0.0));
        // Against the closed forms for a moderate case.
        let (p, n) = (0.002, 500.0_f64);
        let (rate, unmarked) = unmarked_runs(n, p, ln_unmarked(p));
        let stay = (1.0 - p).powf(n);
        assert!((unmarked - stay).abs() < 1e-12);
        assert!((rate - p / (1.0 / stay - 1.0)).abs() < 1e-12);
    }
}
