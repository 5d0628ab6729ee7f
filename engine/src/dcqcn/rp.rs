//! The reaction point (RP): the sender NIC's per-flow rate limiter (paper §3.1, the RP
//! algorithm and its figure; mlx5 `rp_*` parameters).
//!
//! State: current rate R_C, target rate R_T, alpha, and the two increase counters (timer
//! and byte counter). On a CNP: alpha ← (1−g)·alpha + g, then R_T ← R_C (subject to the
//! mlx5 clamp options) and R_C ← R_C·(1 − alpha/2) (bounded by `rp_min_dec_fac` and
//! `rp_min_rate`), and both counters restart. Without CNPs: alpha ← (1−g)·alpha every K,
//! and each timer expiry (T) or B bytes sent is a rate-increase event:
//! - fast recovery while neither counter has passed F: R_C ← (R_T + R_C)/2;
//! - additive increase when one counter has passed F: R_T += R_AI, R_C ← (R_T + R_C)/2;
//! - hyper increase when both have: R_T += i·R_HAI with i = min(counters) − F, then
//!   R_C ← (R_T + R_C)/2.
//!
//! Alpha is updated before the cut that the same CNP causes, as the mlx5 design does
//! (alpha is sampled per `rp_dce_tcp_rtt` window, the cut is applied at the next
//! `rp_rate_reduce_monitor_period`). The rate limiter, and with it alpha, is created at a
//! flow's first CNP: until then the flow runs at line rate and alpha holds
//! `rp_initial_alpha`.

use super::params::DcqcnParams;
use serde::{Deserialize, Serialize};

/// Which counter triggered a rate-increase event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IncreaseCause {
    Timer,
    ByteCounter,
}

/// The increase stage an event was handled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IncreaseStage {
    FastRecovery,
    AdditiveIncrease,
    HyperIncrease,
}

/// What the caller must do after a CNP arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CnpOutcome {
    /// The cut was applied now.
    CutNow,
    /// A cut is due at this time (ps): call [`ReactionPoint::apply_pending_cut`] then.
    CutAt(u64),
    /// A cut was already pending; this CNP joins it.
    AlreadyPending,
}

/// Rates in bit/s and times in ps derived once from [`DcqcnParams`].
#[derive(Debug, Clone)]
pub struct RpConfig {
    pub max_rate_bps: f64,
    pub min_rate_bps: f64,
    pub ai_bps: f64,
    pub hai_bps: f64,
    pub first_cnp_rate_bps: f64,
    pub min_dec_fraction: f64,
    pub g: f64,
    pub alpha_period_ps: u64,
    pub monitor_period_ps: u64,
    pub byte_reset: u64,
    pub threshold: u32,
    pub initial_alpha: f64,
    pub clamp_tgt_rate: bool,
    pub clamp_tgt_rate_ati: bool,
    cut_scale: f64,
}

impl RpConfig {
    /// Configuration for a sender whose link runs at `line_rate_bps`.
    pub fn new(p: &DcqcnParams, line_rate_bps: f64) -> Self {
        let max = if p.rp_max_rate_mbps > 0.0 {
            (p.rp_max_rate_mbps * 1e6).min(line_rate_bps)
        } else {
            line_rate_bps
        };
        RpConfig {
            max_rate_bps: max,
            min_rate_bps: (p.rp_min_rate_mbps * 1e6).min(max),
            ai_bps: p.rp_ai_rate_mbps * 1e6,
            hai_bps: p.rp_hai_rate_mbps * 1e6,
            first_cnp_rate_bps: p.rp_rate_to_set_on_first_cnp_mbps * 1e6,
            min_dec_fraction: p.rp_min_dec_fac_pct / 100.0,
            g: p.g,
            alpha_period_ps: us_to_ps(p.rp_dce_tcp_rtt_us).max(1),
            monitor_period_ps: us_to_ps(p.rp_rate_reduce_monitor_period_us),
            byte_reset: p.rp_byte_reset_bytes.max(1),
            threshold: p.rp_threshold,
            initial_alpha: p.rp_initial_alpha,
            clamp_tgt_rate: p.rp_clamp_tgt_rate,
            clamp_tgt_rate_ati: p.rp_clamp_tgt_rate_ati,
            cut_scale: p.cut_scale(),
        }
    }
}

pub(crate) fn us_to_ps(us: f64) -> u64 {
    // Inputs are validated finite and capped; the cast saturates anyway.
    (us * 1e6).round() as u64
}

/// One flow's DCQCN rate limiter.
#[derive(Debug, Clone)]
pub struct ReactionPoint {
    cfg: RpConfig,
    rc_bps: f64,
    rt_bps: f64,
    /// Alpha at `alpha_anchor_ps`; alpha decays lazily by (1−g) per full K since then,
    /// which is exactly a K-periodic timer restarted at every CNP.
    alpha_anchor: f64,
    alpha_anchor_ps: u64,
    limiter_active: bool,
    timer_stage: u32,
    byte_stage: u32,
    bytes_since_event: u64,
    last_increase: Option<IncreaseCause>,
    last_cut_ps: Option<u64>,
    cut_pending: bool,
    cnps: u64,
    cuts: u64,
}

impl ReactionPoint {
    /// A flow starting at line rate (R_C = R_T = max rate).
    pub fn new(cfg: RpConfig) -> Self {
        let max = cfg.max_rate_bps;
        let alpha = cfg.initial_alpha;
        ReactionPoint {
            cfg,
            rc_bps: max,
            rt_bps: max,
            alpha_anchor: alpha,
            alpha_anchor_ps: 0,
            limiter_active: false,
            timer_stage: 0,
            byte_stage: 0,
            bytes_since_event: 0,
            last_increase: None,
            last_cut_ps: None,
            cut_pending: false,
            cnps: 0,
            cuts: 0,
        }
    }

    pub fn config(&self) -> &RpConfig {
        &self.cfg
    }
    /// Current rate R_C, bit/s.
    pub fn rc_bps(&self) -> f64 {
        self.rc_bps
    }
    /// Target rate R_T, bit/s.
    pub fn rt_bps(&self) -> f64 {
        self.rt_bps
    }
    /// CNPs received so far.
    pub fn cnps(&self) -> u64 {
        self.cnps
    }
    /// Cuts applied so far.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }
    /// Whether the rate limiter exists (a CNP has arrived).
    pub fn limiter_active(&self) -> bool {
        self.limiter_active
    }
    /// (timer, byte counter) increase events since the last CNP.
    pub fn stages(&self) -> (u32, u32) {
        (self.timer_stage, self.byte_stage)
    }

    /// Alpha at `now_ps`.
    pub fn alpha(&self, now_ps: u64) -> f64 {
        if !self.limiter_active {
            return self.alpha_anchor;
        }
        let periods = now_ps.saturating_sub(self.alpha_anchor_ps) / self.cfg.alpha_period_ps;
        let periods = i32::try_from(periods).unwrap_or(i32::MAX);
        self.alpha_anchor * (1.0 - self.cfg.g).powi(periods)
    }

    /// A CNP arrives at `now_ps`. The caller restarts the rate-increase timer.
    pub fn on_cnp(&mut self, now_ps: u64) -> CnpOutcome {
        self.cnps += 1;
        let alpha = if self.limiter_active {
            self.alpha(now_ps)
        } else {
            self.cfg.initial_alpha
        };
        self.limiter_active = true;
        self.alpha_anchor = (1.0 - self.cfg.g) * alpha + self.cfg.g;
        self.alpha_anchor_ps = now_ps;
        // The increase counters restart with every CNP (paper §3.1).
        self.timer_stage = 0;
        self.byte_stage = 0;
        self.bytes_since_event = 0;
        if self.cut_pending {
            return CnpOutcome::AlreadyPending;
        }
        match self.last_cut_ps {
            Some(t) if now_ps < t.saturating_add(self.cfg.monitor_period_ps) => {
                self.cut_pending = true;
                CnpOutcome::CutAt(t + self.cfg.monitor_period_ps)
            }
            _ => {
                self.cut(now_ps);
                CnpOutcome::CutNow
            }
        }
    }

    /// Applies a cut deferred by `rp_rate_reduce_monitor_period`.
    pub fn apply_pending_cut(&mut self, now_ps: u64) {
        if self.cut_pending {
            self.cut_pending = false;
            self.cut(now_ps);
        }
    }

    fn cut(&mut self, now_ps: u64) {
        let old = self.rc_bps;
        let first = self.cuts == 0;
        self.cuts += 1;
        self.last_cut_ps = Some(now_ps);
        if first && self.cfg.first_cnp_rate_bps > 0.0 {
            self.rt_bps = old;
            self.rc_bps = self.cfg.first_cnp_rate_bps.min(old);
        } else {
            let clamp = self.cfg.clamp_tgt_rate
                || first
                || match self.last_increase {
                    Some(IncreaseCause::ByteCounter) => true,
                    Some(IncreaseCause::Timer) => self.cfg.clamp_tgt_rate_ati,
                    None => false,
                };
            if clamp {
                self.rt_bps = old;
            }
            let fraction = (self.alpha(now_ps) * self.cfg.cut_scale).clamp(0.0, 1.0);
            let floor = old * self.cfg.min_dec_fraction;
            self.rc_bps = (old * (1.0 - fraction)).max(floor);
        }
        self.rc_bps = self
            .rc_bps
            .clamp(self.cfg.min_rate_bps, self.cfg.max_rate_bps);
        self.rt_bps = self.rt_bps.max(self.rc_bps);
        self.last_increase = None;
    }

    /// The rate-increase timer (T) expired. Returns the stage used, or `None` before the
    /// first CNP (no rate limiter yet).
    pub fn on_timer(&mut self) -> Option<IncreaseStage> {
        if !self.limiter_active {
            return None;
        }
        self.timer_stage = self.timer_stage.saturating_add(1);
        Some(self.increase(IncreaseCause::Timer))
    }

    /// `bytes` were sent; each full B is one byte-counter increase event. Returns how
    /// many events fired.
    pub fn on_bytes_sent(&mut self, bytes: u64) -> u32 {
        if !self.limiter_active {
            return 0;
        }
        self.bytes_since_event += bytes;
        let mut events = 0;
        while self.bytes_since_event >= self.cfg.byte_reset {
            self.bytes_since_event -= self.cfg.byte_reset;
            self.byte_stage = self.byte_stage.saturating_add(1);
            self.increase(IncreaseCause::ByteCounter);
            events += 1;
        }
        events
    }

    fn increase(&mut self, cause: IncreaseCause) -> IncreaseStage {
        let f = self.cfg.threshold;
        let (t, b) = (self.timer_stage, self.byte_stage);
        let stage = if t.max(b) <= f {
            IncreaseStage::FastRecovery
        } else if t.min(b) > f {
            let i = f64::from(t.min(b) - f);
            self.rt_bps += i * self.cfg.hai_bps;
            IncreaseStage::HyperIncrease
        } else {
            self.rt_bps += self.cfg.ai_bps;
            IncreaseStage::AdditiveIncrease
        };
        self.rt_bps = self.rt_bps.min(self.cfg.max_rate_bps);
        self.rc_bps = ((self.rt_bps + self.rc_bps) / 2.0).min(self.cfg.max_rate_bps);
        self.last_increase = Some(cause);
        stage
    }
}
