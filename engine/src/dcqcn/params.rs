//! DCQCN parameters, named after both the paper and the mlx5 `cc_params`, with units,
//! valid ranges and two cited presets.
//!
//! Sources:
//! - **Paper**: Y. Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//!   SIGCOMM 2015, §3 (CP/NP/RP algorithm) and §5 (fluid model, parameter choice).
//! - **mlx5**: the Linux kernel `drivers/infiniband/hw/mlx5/cong.c` exposes these names in
//!   debugfs (`/sys/kernel/debug/mlx5/<pci>/cc_params/`); each read or write becomes a
//!   `QUERY_CONG_PARAMS`/`MODIFY_CONG_PARAMS` command on the firmware's
//!   `cong_control_r_roce_ecn_rp` / `_np` structures (`include/linux/mlx5/mlx5_ifc.h`).
//!   The firmware defaults below are the values that `mlxconfig -d <dev> query` prints for
//!   a ConnectX (`RPG_TIME_RESET_P1 300`, `RPG_BYTE_RESET_P1 32767`, ...). Units follow the
//!   IEEE 802.1Qau QCN parameters these fields descend from (`include/uapi/linux/dcbnl.h`,
//!   `struct ieee_qcn`: `rpg_time_reset` in µs, `rpg_byte_reset` in bytes,
//!   `rpg_ai_rate`/`rpg_hai_rate`/`rpg_max_rate` in Mbit/s).

use super::error::SimError;
use serde::{Deserialize, Serialize};

/// Reaction-point (sender NIC) and notification-point (receiver NIC) parameters.
///
/// Every field keeps the mlx5 `cc_params` name (with a unit suffix) and the doc comment
/// gives the paper's symbol. Rates are in Mbit/s, times in µs, sizes in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnParams {
    /// mlx5 `rp_clamp_tgt_rate`: on every CNP set the target rate to the current rate
    /// (R_T ← R_C). The paper's RP always does this (§3.1), so the paper preset sets it.
    pub rp_clamp_tgt_rate: bool,
    /// mlx5 `rp_clamp_tgt_rate_ati` (`clamp_tgt_rate_after_time_inc`): with
    /// `rp_clamp_tgt_rate` off, a CNP still sets R_T ← R_C when the last rate increase
    /// since the previous CNP came from the byte counter; with this flag also when it came
    /// from the timer. With no increase in between, R_T is kept (so recovery aims back at
    /// the rate before the earlier cut).
    pub rp_clamp_tgt_rate_ati: bool,
    /// mlx5 `rp_time_reset`, paper **T**: the rate-increase timer period, µs. (0, 10⁶].
    pub rp_time_reset_us: f64,
    /// mlx5 `rp_byte_reset`, paper **B**: bytes sent between byte-counter increase
    /// events. [1, 10¹²].
    pub rp_byte_reset_bytes: u64,
    /// mlx5 `rp_threshold`, paper **F**: number of increase events spent in fast
    /// recovery before additive (one counter past F) or hyper (both past F) increase.
    /// [1, 1000].
    pub rp_threshold: u32,
    /// mlx5 `rp_ai_rate`, paper **R_AI**: additive-increase step of R_T, Mbit/s. [0, 10⁶].
    pub rp_ai_rate_mbps: f64,
    /// mlx5 `rp_hai_rate`, paper **R_HAI**: hyper-increase step of R_T, Mbit/s. [0, 10⁶].
    pub rp_hai_rate_mbps: f64,
    /// mlx5 `rp_max_rate`: ceiling of R_T and R_C, Mbit/s; 0 means the sender's line rate.
    pub rp_max_rate_mbps: f64,
    /// mlx5 `rp_min_dec_fac`: a cut keeps at least this percentage of R_C
    /// (50 → the rate can at most halve in one cut). [1, 100].
    pub rp_min_dec_fac_pct: f64,
    /// mlx5 `rp_min_rate`: floor of R_C, Mbit/s. (0, line rate].
    pub rp_min_rate_mbps: f64,
    /// mlx5 `rp_rate_to_set_on_first_cnp`: R_C set on a flow's first CNP, Mbit/s; 0
    /// means "no special case": the first CNP cuts like any other, from the line rate.
    pub rp_rate_to_set_on_first_cnp_mbps: f64,
    /// Paper **g**: EWMA gain of alpha, α ← (1−g)α + g on a CNP, α ← (1−g)α after each
    /// alpha period without one. (0, 1]. mlx5 encodes it as `rp_dce_tcp_g`, see
    /// [`DcqcnParams::mlx5_default`].
    pub g: f64,
    /// mlx5 `rp_dce_tcp_rtt`, paper **K** (55 µs): alpha update period, µs. (0, 10⁶].
    pub rp_dce_tcp_rtt_us: f64,
    /// mlx5 `rp_rate_reduce_monitor_period`: at most one cut per this period; a CNP that
    /// arrives earlier is applied at the start of the next period, µs. [0, 10⁶].
    /// 0 means every CNP cuts at once (the paper's RP).
    pub rp_rate_reduce_monitor_period_us: f64,
    /// mlx5 `rp_initial_alpha_value` (fixed point, 1023 ≈ 1.0) as a fraction: alpha
    /// when a flow's rate limiter is created at its first CNP. [0, 1].
    pub rp_initial_alpha: f64,
    /// mlx5 `rp_gd`: a cut removes α·2^(10−gd) of R_C, i.e. α_fixed/2^gd with the 10-bit
    /// fixed-point alpha. gd = 11 gives the paper's R_C ← R_C(1 − α/2). [10, 20].
    pub rp_gd: u32,
    /// mlx5 `np_min_time_between_cnps`, paper **N** (50 µs): at most one CNP per flow per
    /// this interval, µs. [0, 10⁶].
    pub np_min_time_between_cnps_us: f64,
    /// mlx5 `np_cnp_dscp`: DSCP of CNPs. [0, 63]. Carried for display; CNPs are modelled
    /// as a strict-priority class that never queues behind data.
    pub np_cnp_dscp: u8,
    /// mlx5 `np_cnp_prio_mode`: 0 = tag CNPs with `np_cnp_prio` (writing `np_cnp_prio`
    /// through debugfs clears this mode, see `cong.c`). Carried for display.
    pub np_cnp_prio_mode: u8,
    /// mlx5 `np_cnp_prio` (`cnp_802p_prio`): 802.1p priority of CNPs. [0, 7]. Display only.
    pub np_cnp_prio: u8,
}

impl DcqcnParams {
    /// The paper's parameters (Zhu et al., SIGCOMM 2015), as its co-authors' fluid-model
    /// code states them: `fluidmodel/dcqcn/dcqcn2.m` in github.com/jitupadhye-zz/rdma at
    /// commit 06f786ff5632be6c18c6d3228fc7768f4ef6922d (the CoNEXT 2016 follow-up in the same
    /// repository, `conext2016/`, gives F = 5, R_AI = 40 Mbit/s, K_max = 200 KB as defaults).
    /// KB and MB there are decimal: the code writes them as `5 * 8 * 1e3` and `10 * 8 * 1e6`
    /// bits.
    ///
    /// - `tau = 50e-6` (the code calls it the feedback delay; the CNP interval N here),
    ///   `tauprime = 55e-6` (the α-update period K), `timer = 55e-6` (T), F = 5,
    ///   B = 10 MB (10 000 000 bytes), R_AI = 40 Mbit/s, g = 1/256.
    /// - R_HAI: **not given** in either text (the convergence analysis omits hyper-increase).
    ///   200 Mbit/s is the value in the authors' released ns-3 configuration
    ///   (`RATE_HAI 200Mb/s` next to `RATE_AI 40Mb/s`), used because a simulation needs one.
    /// - The paper names no minimum rate; 1 Mbit/s (the mlx5 default floor) is used so
    ///   that a rate can never reach zero.
    /// - The paper cuts by α/2 on every CNP and sets R_T ← R_C each time:
    ///   `rp_gd = 11`, `rp_clamp_tgt_rate = true`, no monitor period, no extra cut bound
    ///   (α/2 ≤ 1/2 already, so `rp_min_dec_fac = 50` never binds), initial α = 1 (the
    ///   model code starts every α at 1).
    pub fn paper() -> Self {
        DcqcnParams {
            rp_clamp_tgt_rate: true,
            rp_clamp_tgt_rate_ati: true,
            rp_time_reset_us: 55.0,
            rp_byte_reset_bytes: 10_000_000,
            rp_threshold: 5,
            rp_ai_rate_mbps: 40.0,
            rp_hai_rate_mbps: 200.0,
            rp_max_rate_mbps: 0.0,
            rp_min_dec_fac_pct: 50.0,
            rp_min_rate_mbps: 1.0,
            rp_rate_to_set_on_first_cnp_mbps: 0.0,
            g: 1.0 / 256.0,
            rp_dce_tcp_rtt_us: 55.0,
            rp_rate_reduce_monitor_period_us: 0.0,
            rp_initial_alpha: 1.0,
            rp_gd: 11,
            np_min_time_between_cnps_us: 50.0,
            np_cnp_dscp: 48,
            np_cnp_prio_mode: 0,
            np_cnp_prio: 6,
        }
    }

    /// ConnectX (mlx5) firmware defaults as printed by `mlxconfig query`:
    /// `CLAMP_TGT_RATE 0`, `CLAMP_TGT_RATE_AFTER_TIME_INC 1`, `RPG_TIME_RESET 300` (µs),
    /// `RPG_BYTE_RESET 32767` (bytes), `RPG_THRESHOLD 1`, `RPG_MAX_RATE 0`,
    /// `RPG_AI_RATE 5`, `RPG_HAI_RATE 50` (Mbit/s), `RPG_GD 11`, `RPG_MIN_DEC_FAC 50` (%),
    /// `RPG_MIN_RATE 1` (Mbit/s), `RATE_TO_SET_ON_FIRST_CNP 0`, `DCE_TCP_G 1019`,
    /// `DCE_TCP_RTT 1`, `RATE_REDUCE_MONITOR_PERIOD 4` (µs), `INITIAL_ALPHA_VALUE 1023`,
    /// `CNP_DSCP 48`, `CNP_802P_PRIO 6`.
    ///
    /// Not verified, flagged:
    /// - `rp_dce_tcp_g = 1019` is read here as a 10-bit fixed-point weight of the *old*
    ///   alpha, so g = (1024 − 1019)/1024 ≈ 1/205. No primary document stating the
    ///   encoding was found.
    /// - `rp_dce_tcp_rtt = 1` is taken as 1 µs (the unit is not documented where we
    ///   looked).
    /// - `np_min_time_between_cnps`: one ConnectX `mlxconfig` readout shows 2, a
    ///   published table of defaults shows 4 (µs); firmware versions differ. 4 µs is used.
    pub fn mlx5_default() -> Self {
        DcqcnParams {
            rp_clamp_tgt_rate: false,
            rp_clamp_tgt_rate_ati: true,
            rp_time_reset_us: 300.0,
            rp_byte_reset_bytes: 32767,
            rp_threshold: 1,
            rp_ai_rate_mbps: 5.0,
            rp_hai_rate_mbps: 50.0,
            rp_max_rate_mbps: 0.0,
            rp_min_dec_fac_pct: 50.0,
            rp_min_rate_mbps: 1.0,
            rp_rate_to_set_on_first_cnp_mbps: 0.0,
            g: (1024.0 - 1019.0) / 1024.0,
            rp_dce_tcp_rtt_us: 1.0,
            rp_rate_reduce_monitor_period_us: 4.0,
            // INITIAL_ALPHA_VALUE 1023 is the 10-bit fixed-point maximum: alpha = 1.
            rp_initial_alpha: 1.0,
            rp_gd: 11,
            np_min_time_between_cnps_us: 4.0,
            np_cnp_dscp: 48,
            np_cnp_prio_mode: 0,
            np_cnp_prio: 6,
        }
    }

    /// Fraction of R_C that a cut removes for a given alpha (before the
    /// `rp_min_dec_fac` bound): α·2^(10−gd), capped at 1.
    pub fn cut_fraction(&self, alpha: f64) -> f64 {
        (alpha * self.cut_scale()).clamp(0.0, 1.0)
    }

    /// 2^(10−gd): the cut per unit of alpha (½ for the paper's α/2 at `rp_gd = 11`).
    pub fn cut_scale(&self) -> f64 {
        2f64.powi(10_i32 - self.rp_gd as i32)
    }

    /// Checks every field; `prefix` is prepended to names (e.g. `"dcqcn."`).
    pub fn validate(&self, prefix: &str) -> Result<(), SimError> {
        let name = |n: &str| format!("{prefix}{n}");
        positive(&name("rp_time_reset_us"), self.rp_time_reset_us, 1e6)?;
        if self.rp_byte_reset_bytes == 0 || self.rp_byte_reset_bytes > 1_000_000_000_000 {
            return Err(SimError::invalid(
                name("rp_byte_reset_bytes"),
                format!("{} is outside [1, 10^12] bytes", self.rp_byte_reset_bytes),
            ));
        }
        if self.rp_threshold == 0 || self.rp_threshold > 1000 {
            return Err(SimError::invalid(
                name("rp_threshold"),
                format!("{} is outside [1, 1000]", self.rp_threshold),
            ));
        }
        non_negative(&name("rp_ai_rate_mbps"), self.rp_ai_rate_mbps, 1e6)?;
        non_negative(&name("rp_hai_rate_mbps"), self.rp_hai_rate_mbps, 1e6)?;
        non_negative(&name("rp_max_rate_mbps"), self.rp_max_rate_mbps, 1e7)?;
        finite(&name("rp_min_dec_fac_pct"), self.rp_min_dec_fac_pct)?;
        if !(1.0..=100.0).contains(&self.rp_min_dec_fac_pct) {
            return Err(SimError::invalid(
                name("rp_min_dec_fac_pct"),
                format!("{} is outside [1, 100] %", self.rp_min_dec_fac_pct),
            ));
        }
        positive(&name("rp_min_rate_mbps"), self.rp_min_rate_mbps, 1e7)?;
        non_negative(
            &name("rp_rate_to_set_on_first_cnp_mbps"),
            self.rp_rate_to_set_on_first_cnp_mbps,
            1e7,
        )?;
        positive(&name("g"), self.g, 1.0)?;
        positive(&name("rp_dce_tcp_rtt_us"), self.rp_dce_tcp_rtt_us, 1e6)?;
        non_negative(
            &name("rp_rate_reduce_monitor_period_us"),
            self.rp_rate_reduce_monitor_period_us,
            1e6,
        )?;
        non_negative(&name("rp_initial_alpha"), self.rp_initial_alpha, 1.0)?;
        if !(10..=20).contains(&self.rp_gd) {
            return Err(SimError::invalid(
                name("rp_gd"),
                format!("{} is outside [10, 20]", self.rp_gd),
            ));
        }
        non_negative(
            &name("np_min_time_between_cnps_us"),
            self.np_min_time_between_cnps_us,
            1e6,
        )?;
        if self.np_cnp_dscp > 63 {
            return Err(SimError::invalid(
                name("np_cnp_dscp"),
                format!("{} is outside [0, 63]", self.np_cnp_dscp),
            ));
        }
        if self.np_cnp_prio_mode > 1 {
            return Err(SimError::invalid(
                name("np_cnp_prio_mode"),
                format!("{} is neither 0 nor 1", self.np_cnp_prio_mode),
            ));
        }
        if self.np_cnp_prio > 7 {
            return Err(SimError::invalid(
                name("np_cnp_prio"),
                format!("{} is outside [0, 7]", self.np_cnp_prio),
            ));
        }
        Ok(())
    }
}

/// Priority flow control thresholds of the congestion point (IEEE 802.1Qbb). When the
/// queue reaches `xoff_bytes` the switch sends PAUSE upstream; when it falls to
/// `xon_bytes` it sends RESUME (a PAUSE with zero quanta).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PfcThresholds {
    pub xoff_bytes: u64,
    pub xon_bytes: u64,
}

/// The switch egress port (CP): buffer, RED/ECN profile and optional PFC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CongestionPointParams {
    /// Egress buffer, bytes. Without PFC a packet that does not fit is dropped. With PFC
    /// the port is lossless: packets still in flight after PAUSE are always accepted and
    /// any excess over the buffer is counted as a headroom overrun.
    pub buffer_bytes: u64,
    /// Paper **K_min**: below or at this queue nothing is marked, bytes.
    pub kmin_bytes: u64,
    /// Paper **K_max**: above this queue every packet is marked, bytes.
    pub kmax_bytes: u64,
    /// Paper **P_max**: marking probability at K_max. (0, 1].
    pub pmax: f64,
    /// PFC thresholds, or `None` for a lossy port.
    pub pfc: Option<PfcThresholds>,
}

impl CongestionPointParams {
    /// The paper's RED profile: K_min = 5 KB, K_max = 200 KB, P_max = 1 % (§5).
    pub fn paper(buffer_bytes: u64, pfc: Option<PfcThresholds>) -> Self {
        CongestionPointParams {
            buffer_bytes,
            // dcqcn2.m: Kmin = 5 KB, Kmax = 200 KB (decimal), pmax = 1 %.
            kmin_bytes: 5_000,
            kmax_bytes: 200_000,
            pmax: 0.01,
            pfc,
        }
    }

    pub fn validate(&self, prefix: &str) -> Result<(), SimError> {
        let name = |n: &str| format!("{prefix}{n}");
        if self.buffer_bytes == 0 || self.buffer_bytes > MAX_BUFFER_BYTES {
            return Err(SimError::invalid(
                name("buffer_bytes"),
                format!(
                    "{} is outside [1, {MAX_BUFFER_BYTES}] bytes",
                    self.buffer_bytes
                ),
            ));
        }
        if self.kmin_bytes > self.kmax_bytes {
            return Err(SimError::invalid(
                name("kmin_bytes"),
                format!(
                    "Kmin ({}) is greater than Kmax ({})",
                    self.kmin_bytes, self.kmax_bytes
                ),
            ));
        }
        if self.kmax_bytes > self.buffer_bytes {
            return Err(SimError::invalid(
                name("kmax_bytes"),
                format!(
                    "Kmax ({}) is larger than the buffer ({})",
                    self.kmax_bytes, self.buffer_bytes
                ),
            ));
        }
        finite(&name("pmax"), self.pmax)?;
        if !(self.pmax > 0.0 && self.pmax <= 1.0) {
            return Err(SimError::invalid(
                name("pmax"),
                format!("{} is outside (0, 1]", self.pmax),
            ));
        }
        if let Some(pfc) = &self.pfc {
            if pfc.xoff_bytes == 0 || pfc.xoff_bytes > self.buffer_bytes {
                return Err(SimError::invalid(
                    name("pfc.xoff_bytes"),
                    format!(
                        "{} is outside [1, buffer = {}] bytes",
                        pfc.xoff_bytes, self.buffer_bytes
                    ),
                ));
            }
            if pfc.xon_bytes >= pfc.xoff_bytes {
                return Err(SimError::invalid(
                    name("pfc.xon_bytes"),
                    format!(
                        "XON ({}) must be below XOFF ({})",
                        pfc.xon_bytes, pfc.xoff_bytes
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Largest buffer accepted, bytes (1 GiB): far above any switch, small enough for `u64`
/// arithmetic with headroom.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

pub(crate) fn finite(name: &str, v: f64) -> Result<(), SimError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(SimError::invalid(
            name,
            format!("{v} is not a finite number"),
        ))
    }
}

/// `v` must be finite, > 0 and ≤ `max`.
pub(crate) fn positive(name: &str, v: f64, max: f64) -> Result<(), SimError> {
    finite(name, v)?;
    if v <= 0.0 {
        return Err(SimError::invalid(
            name,
            format!("{v} must be greater than 0"),
        ));
    }
    if v > max {
        return Err(SimError::invalid(
            name,
            format!("{v} exceeds the cap {max}"),
        ));
    }
    Ok(())
}

/// `v` must be finite, ≥ 0 and ≤ `max`.
pub(crate) fn non_negative(name: &str, v: f64, max: f64) -> Result<(), SimError> {
    finite(name, v)?;
    if v < 0.0 {
        return Err(SimError::invalid(name, format!("{v} must not be negative")));
    }
    if v > max {
        return Err(SimError::invalid(
            name,
            format!("{v} exceeds the cap {max}"),
        ));
    }
    Ok(())
}
