//! The output of both models: time series sampled at a fixed interval, a summary, and
//! a CSV writer.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

use super::rp::RpConfig;

/// Which model produced a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Model {
    Packet,
    Fluid,
}

impl Model {
    /// `fluid` or `packet`, as the CLI's `--model` and the page's URL spell it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Fluid => "fluid",
            Model::Packet => "packet",
        }
    }
}

/// One flow's columns; index `k` belongs to `Series::time_us[k]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct FlowSeries {
    /// Current rate R_C at the sample instant, Gb/s.
    pub rc_gbps: Vec<f64>,
    /// Target rate R_T at the sample instant, Gb/s.
    pub rt_gbps: Vec<f64>,
    /// Alpha at the sample instant.
    pub alpha: Vec<f64>,
    /// Bytes delivered to the receiver during the interval ending at the sample, Gb/s.
    pub goodput_gbps: Vec<f64>,
    /// CNPs received by this flow's RP so far (cumulative).
    pub cnps: Vec<u64>,
    /// Bytes the sender put on its link during the interval ending at the sample, Gb/s:
    /// R_C is only what DCQCN allows, and a sender PFC has paused sends nothing whatever
    /// R_C says. The packet model counts each packet's bits as they leave (zero through a
    /// pause); the fluid model has no single pauses and holds the senders to their share
    /// of the bottleneck while PFC acts, so there it is the rate PAUSE/RESUME lets through
    /// on average.
    #[serde(default)]
    pub sent_gbps: Vec<f64>,
}

/// A time span during which the switch held its upstream paused (XOFF → XON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PauseInterval {
    pub start_us: f64,
    pub end_us: f64,
}

/// A flow's first rate cut: how deep the first reaction was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstCut {
    pub time_us: f64,
    pub rate_before_gbps: f64,
    pub rate_after_gbps: f64,
}

/// How far (a fraction of the rate before) a fluid flow's sampled R_C must fall for
/// [`Series::first_cuts`] to count a cut: far above rounding, far below any cut a chart shows.
pub const FIRST_CUT_TOLERANCE: f64 = 1e-6;

/// Most pause intervals kept in a series; the total pause time is exact regardless.
pub const MAX_PAUSE_INTERVALS: usize = 10_000;

/// Sampled output of a run. Samples are at `k·sample_interval_us`, k = 1, 2, ….
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    pub model: Model,
    pub scenario: String,
    pub bottleneck_gbps: f64,
    pub sample_interval_us: f64,
    /// Simulated time actually covered, µs (less than the duration when truncated).
    pub end_us: f64,
    pub time_us: Vec<f64>,
    pub flows: Vec<FlowSeries>,
    pub flow_start_us: Vec<f64>,
    /// The rate each flow starts at, Gb/s: its line rate, capped by `rp_max_rate`. The
    /// rate before a flow's first sample, against which [`Summary::first_cut`] measures a
    /// cut in the fluid model's first interval.
    #[serde(default)]
    pub flow_start_gbps: Vec<f64>,
    /// Egress queue at the sample instant, bytes.
    pub queue_bytes: Vec<f64>,
    /// ECN marks so far (cumulative).
    pub ecn_marks: Vec<u64>,
    /// Drops so far (cumulative).
    pub drops: Vec<u64>,
    /// Whether the upstream was paused at the sample instant.
    pub pfc_paused: Vec<bool>,
    /// Pause intervals (at most [`MAX_PAUSE_INTERVALS`]).
    pub pause_intervals: Vec<PauseInterval>,
    /// Exact total pause time, µs.
    pub pfc_pause_total_us: f64,
    pub pfc_pause_events: u64,
    /// Exact largest queue, bytes.
    pub max_queue_bytes: f64,
    /// Arrivals that pushed a lossless queue beyond its buffer.
    pub headroom_overruns: u64,
    /// Flow completion times (last byte delivered − start), µs.
    pub fct_us: Vec<Option<f64>>,
    /// Smallest gap between two successive CNP arrivals at each flow's sender, µs.
    pub min_cnp_gap_us: Vec<Option<f64>>,
    pub first_cut: Vec<Option<FirstCut>>,
    /// Events (packet model) or flow-steps (fluid model) processed.
    pub events: u64,
    /// The run stopped at its work cap before the end.
    pub truncated: bool,
    pub truncation_reason: Option<String>,
    /// Wall-clock time the solver took, ms. The engine keeps no clock (it runs in wasm
    /// too); whoever ran it and could time it fills this in.
    #[serde(default)]
    pub solve_ms: Option<f64>,
}

/// The most values (8 bytes each) a new series reserves room for: 16 MB.
const RESERVED_VALUES: usize = 2_000_000;

impl Series {
    pub(crate) fn new(model: Model, scenario: &super::Scenario) -> Self {
        let n = scenario.flows.len();
        // Room for every sample up front, where that is modest: a column that grows by
        // doubling copies itself over and over, and there are 6 per flow. A run that stops
        // at its work cap would not fill a large reservation, so none is made for it.
        let samples = (scenario.duration_us / scenario.sample_interval_us)
            .ceil()
            .clamp(0.0, super::scenario::MAX_SAMPLES as f64) as usize;
        let values = samples.saturating_mul(6 * n + 5);
        let samples = if values <= RESERVED_VALUES {
            samples
        } else {
            0
        };
        let flow = || FlowSeries {
            rc_gbps: Vec::with_capacity(samples),
            rt_gbps: Vec::with_capacity(samples),
            alpha: Vec::with_capacity(samples),
            goodput_gbps: Vec::with_capacity(samples),
            cnps: Vec::with_capacity(samples),
            sent_gbps: Vec::with_capacity(samples),
        };
        Series {
            model,
            scenario: scenario.name.clone(),
            bottleneck_gbps: scenario.bottleneck_gbps,
            sample_interval_us: scenario.sample_interval_us,
            end_us: 0.0,
            time_us: Vec::with_capacity(samples),
            flows: (0..n).map(|_| flow()).collect(),
            flow_start_us: scenario.flows.iter().map(|f| f.start_us).collect(),
            flow_start_gbps: scenario
                .flows
                .iter()
                .map(|f| RpConfig::new(&scenario.dcqcn, f.link_gbps * 1e9).max_rate_bps / 1e9)
                .collect(),
            queue_bytes: Vec::with_capacity(samples),
            ecn_marks: Vec::with_capacity(samples),
            drops: Vec::with_capacity(samples),
            pfc_paused: Vec::with_capacity(samples),
            pause_intervals: Vec::new(),
            pfc_pause_total_us: 0.0,
            pfc_pause_events: 0,
            max_queue_bytes: 0.0,
            headroom_overruns: 0,
            fct_us: vec![None; n],
            min_cnp_gap_us: vec![None; n],
            first_cut: vec![None; n],
            events: 0,
            solve_ms: None,
            truncated: false,
            truncation_reason: None,
        }
    }

    /// Total CNPs received by all flows at the end of the series.
    pub fn total_cnps(&self) -> u64 {
        self.flows
            .iter()
            .map(|f| f.cnps.last().copied().unwrap_or(0))
            .sum()
    }

    /// Index of the sample nearest to `time_us` (a timeline cursor), or `None` for an
    /// empty series. Times outside the run clamp to the first or last sample.
    pub fn sample_index_at(&self, time_us: f64) -> Option<usize> {
        let last = self.time_us.len().checked_sub(1)?;
        if !time_us.is_finite()
            || self.sample_interval_us.is_nan()
            || self.sample_interval_us <= 0.0
        {
            return Some(0);
        }
        // Samples sit at k·interval for k = 1, 2, …, so index k − 1 holds time k·interval.
        let k = (time_us / self.sample_interval_us).round() - 1.0;
        Some(if k <= 0.0 { 0 } else { (k as usize).min(last) })
    }

    /// CNPs received by all flows during the interval that ends at sample `k` (the
    /// cumulative counters' increase); 0 for an index past the end.
    pub fn cnps_in_interval(&self, k: usize) -> u64 {
        self.flows
            .iter()
            .map(|f| {
                let now = f.cnps.get(k).copied().unwrap_or(0);
                let before = match k.checked_sub(1) {
                    Some(j) => f.cnps.get(j).copied().unwrap_or(0),
                    None => 0,
                };
                now.saturating_sub(before)
            })
            .sum()
    }

    /// Summary over the whole run.
    pub fn summary(&self) -> Summary {
        self.summary_window(0.0, self.end_us)
    }

    /// Summary over samples whose interval lies in `(from_us, to_us]`. Fairness counts
    /// the flows that had started by `from_us` and not finished before `to_us`.
    pub fn summary_window(&self, from_us: f64, to_us: f64) -> Summary {
        let idx: Vec<usize> = self
            .time_us
            .iter()
            .enumerate()
            .filter(|(_, &t)| t - self.sample_interval_us >= from_us - 1e-9 && t <= to_us + 1e-9)
            .map(|(k, _)| k)
            .collect();
        let mean_goodput_gbps: Vec<f64> = self
            .flows
            .iter()
            .map(|f| {
                if idx.is_empty() {
                    0.0
                } else {
                    idx.iter()
                        .filter_map(|&k| f.goodput_gbps.get(k))
                        .sum::<f64>()
                        / idx.len() as f64
                }
            })
            .collect();
        let active: Vec<f64> = mean_goodput_gbps
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let started = self.flow_start_us.get(*i).is_some_and(|&s| s <= from_us);
                let running = match self.fct_us.get(*i).copied().flatten() {
                    Some(fct) => self.flow_start_us.get(*i).copied().unwrap_or(0.0) + fct >= to_us,
                    None => true,
                };
                started && running
            })
            .map(|(_, &g)| g)
            .collect();
        let total: f64 = mean_goodput_gbps.iter().sum();
        let max_queue_bytes = idx
            .iter()
            .filter_map(|&k| self.queue_bytes.get(k))
            .fold(0.0_f64, |a, &b| a.max(b));
        let (active_from_us, active_to_us) = self.active_span();
        // Bits delivered in the window's samples over what the link could have carried
        // during the part of them that lies in the active span.
        let dt = self.sample_interval_us;
        let (delivered_gbit_us, active_us) =
            idx.iter().fold((0.0_f64, 0.0_f64), |(bits, covered), &k| {
                let t = self.time_us.get(k).copied().unwrap_or(0.0);
                let overlap = (t.min(active_to_us) - (t - dt).max(active_from_us)).max(0.0);
                let goodput: f64 = self
                    .flows
                    .iter()
                    .filter_map(|f| f.goodput_gbps.get(k))
                    .sum();
                (bits + goodput * dt, covered + overlap)
            });
        let link_gbit_us = self.bottleneck_gbps * active_us;
        Summary {
            model: self.model,
            link_gbps: self.bottleneck_gbps,
            from_us,
            to_us,
            jain_fairness: jain_index(&active),
            utilization: if self.bottleneck_gbps > 0.0 {
                total / self.bottleneck_gbps
            } else {
                0.0
            },
            active_from_us: active_from_us.max(from_us),
            active_to_us: active_to_us.min(to_us).max(active_from_us.max(from_us)),
            active_utilization: if link_gbit_us > 0.0 {
                delivered_gbit_us / link_gbit_us
            } else {
                0.0
            },
            mean_goodput_gbps,
            max_queue_bytes,
            fct_us: self.fct_us.clone(),
            completed_at_us: self
                .fct_us
                .iter()
                .zip(&self.flow_start_us)
                .map(|(fct, start)| fct.map(|fct| start + fct))
                .collect(),
            first_cut: self.first_cuts(),
            total_cnps: self.total_cnps(),
            pfc_pause_us: self.pfc_pause_total_us,
            drops: self.drops.last().copied().unwrap_or(0),
            ecn_marks: self.ecn_marks.last().copied().unwrap_or(0),
        }
    }

    /// When flows were on the link: from the first flow's start to the last flow's
    /// completion, or to the end of the run while any flow has not completed, µs.
    pub fn active_span(&self) -> (f64, f64) {
        let from = self
            .flow_start_us
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .min(self.end_us);
        let all_done: Option<Vec<f64>> = self
            .fct_us
            .iter()
            .zip(&self.flow_start_us)
            .map(|(fct, start)| fct.map(|fct| start + fct))
            .collect();
        let to = match all_done {
            Some(ends) if !ends.is_empty() => ends.into_iter().fold(from, f64::max),
            _ => self.end_us,
        };
        if from.is_finite() {
            (from, to.min(self.end_us).max(from))
        } else {
            (0.0, 0.0)
        }
    }

    /// Each flow's first rate cut as the charts show it. The packet model records the
    /// cut itself (the instant of the first CNP-driven decrease, exact). The fluid model's
    /// rate falls continuously while CNPs arrive, so its first cut is read from the
    /// series: the first sample whose R_C is below the one before it (for the flow's
    /// first sample, below the rate it started at) by more than [`FIRST_CUT_TOLERANCE`]
    /// of that rate; `time_us` is that sample's instant, the end of the interval in which
    /// the cut began. A flow that finishes sending (its rate drops to 0) uncut has none.
    pub fn first_cuts(&self) -> Vec<Option<FirstCut>> {
        match self.model {
            Model::Packet => self.first_cut.clone(),
            Model::Fluid => (0..self.flows.len())
                .map(|i| self.fluid_first_cut(i))
                .collect(),
        }
    }

    fn fluid_first_cut(&self, i: usize) -> Option<FirstCut> {
        let f = self.flows.get(i)?;
        let start = self.flow_start_us.get(i).copied().unwrap_or(0.0);
        let mut before: Option<f64> = self.flow_start_gbps.get(i).copied();
        for (&t, &rc) in self.time_us.iter().zip(&f.rc_gbps) {
            // Samples before the flow began show it idle, at rate 0.
            if t <= start {
                continue;
            }
            // A sending flow's rate stays at or above its floor (> 0): 0 is a flow that
            // has sent everything, which is no cut.
            if rc <= 0.0 {
                return None;
            }
            if let Some(prev) = before {
                if rc < prev - FIRST_CUT_TOLERANCE * prev {
                    return Some(FirstCut {
                        time_us: t,
                        rate_before_gbps: prev,
                        rate_after_gbps: rc,
                    });
                }
            }
            before = Some(rc);
        }
        None
    }
}

/// Jain's fairness index (Σx)² / (n·Σx²): 1 when all equal, 1/n when one takes all.
/// An empty or all-zero set counts as fair (1).
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq <= 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * sq)
    }
}

/// Headline numbers of a run or a window of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub model: Model,
    pub link_gbps: f64,
    pub from_us: f64,
    pub to_us: f64,
    /// Per-flow mean goodput over the window, Gb/s.
    pub mean_goodput_gbps: Vec<f64>,
    /// Jain's index over the flows active through the window.
    pub jain_fairness: f64,
    /// Sum of the window's mean goodputs / bottleneck rate: an average over the whole
    /// window, idle time before the first start and after the last completion included.
    pub utilization: f64,
    /// The part of the window in which flows were on the link ([`Series::active_span`]),
    /// µs.
    pub active_from_us: f64,
    pub active_to_us: f64,
    /// Bits delivered / bits the bottleneck could carry while flows were active: what the
    /// charts show as a full link reads 100 %.
    pub active_utilization: f64,
    /// Largest sampled queue in the window, bytes.
    pub max_queue_bytes: f64,
    /// Flow completion times (last byte delivered − start), µs.
    pub fct_us: Vec<Option<f64>>,
    /// When each flow completed (start + FCT), µs.
    pub completed_at_us: Vec<Option<f64>>,
    /// Each flow's first rate cut ([`Series::first_cuts`]).
    pub first_cut: Vec<Option<FirstCut>>,
    pub total_cnps: u64,
    /// Total PFC pause time of the run, µs.
    pub pfc_pause_us: f64,
    pub drops: u64,
    pub ecn_marks: u64,
}

/// The CSV header: one row per flow per sample. `sent_gbps` ([`FlowSeries::sent_gbps`])
/// came last and stays last, so a reader that takes the older columns by position still
/// finds them.
pub const CSV_HEADER: &str = "time_us,flow,rc_gbps,rt_gbps,alpha,goodput_gbps,queue_bytes,cnps,\
                              pfc_paused,ecn_marks,drops,sent_gbps";

/// Writes a series as CSV (header [`CSV_HEADER`]); queue and PFC columns repeat on every
/// flow's row of a sample.
pub fn series_to_csv(series: &Series) -> String {
    let mut out = String::with_capacity(64 * series.time_us.len() * series.flows.len().max(1));
    out.push_str(CSV_HEADER);
    out.push('\n');
    for (k, t) in series.time_us.iter().enumerate() {
        let q = series.queue_bytes.get(k).copied().unwrap_or(0.0);
        let paused = series.pfc_paused.get(k).copied().unwrap_or(false);
        let marks = series.ecn_marks.get(k).copied().unwrap_or(0);
        let drops = series.drops.get(k).copied().unwrap_or(0);
        for (i, f) in series.flows.iter().enumerate() {
            let get = |v: &Vec<f64>| v.get(k).copied().unwrap_or(0.0);
            // Writing to a String cannot fail.
            let _ = writeln!(
                out,
                "{t},{i},{:.6},{:.6},{:.6},{:.6},{:.0},{},{},{marks},{drops},{:.6}",
                get(&f.rc_gbps),
                get(&f.rt_gbps),
                get(&f.alpha),
                get(&f.goodput_gbps),
                q,
                f.cnps.get(k).copied().unwrap_or(0),
                u8::from(paused),
                get(&f.sent_gbps),
            );
        }
    }
    out
}
