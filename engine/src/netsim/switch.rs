//! Switches: a shared buffer, output queues per port in two classes (a strict-priority
//! class for CNPs and the data class, which PFC pauses), ECN marking with RED on the data
//! queue's depth at enqueue or at dequeue, and PFC per ingress port.
//!
//! PFC here is IEEE 802.1Qbb's pair of thresholds on the bytes an ingress port has in the
//! buffer: past `xoff_bytes` the switch sends PAUSE to the port's upstream neighbour, at or
//! below `xon_bytes` it sends RESUME; each frame takes the link's propagation delay, and the
//! packets already on the wire still arrive (the headroom). A shared buffer that overflows
//! on a lossless switch is counted as a headroom overrun, not dropped. A lossy switch
//! (`pfc: null`) drops a data packet that does not fit.
//!
//! Each link into a lossless switch reports the most bytes that still came in after a PAUSE
//! (headroom used) beside the headroom `engine::lossless` computes for it from IEEE 802.1Qbb
//! Annex N: the model sends PAUSE at once and stops the upstream port after its frame in
//! progress, so it needs the cable both ways and one frame, inside the Annex's sum.
//!
//! Left out: per-port buffer limits and dynamic thresholds, PFC quanta and refresh (a pause
//! lasts until RESUME), more than one lossless priority, switch latency beyond
//! store-and-forward.

use super::SimError;
use crate::dcqcn::{PfcThresholds, RedCurve};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Where RED looks at the queue: the DCQCN packet model marks on arrival, the DCQCN paper's
/// model and HPCC's ns-3 at departure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

/// How a switch picks among equal-cost next hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// A hash of the flow's 5-tuple, seeded per switch: one path per QP.
    #[default]
    Ecmp,
    /// The least-queued candidate at each packet (adaptive routing).
    Adaptive,
    /// Each packet to the next candidate in turn (packet spraying).
    Spray,
}

/// RED marking on the data queue (DCQCN paper §3.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EcnSpec {
    pub kmin_bytes: u64,
    pub kmax_bytes: u64,
    pub pmax: f64,
    #[serde(default)]
    pub at: MarkAt,
}

/// Every switch's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Shared buffer of one switch, bytes.
    pub buffer_bytes: u64,
    /// `null`: no marking.
    pub ecn: Option<EcnSpec>,
    /// `null`: a lossy fabric.
    pub pfc: Option<PfcThresholds>,
    #[serde(default)]
    pub routing: Routing,
}

/// Largest shared buffer accepted, bytes (1 GiB, well above any switch ASIC's).
pub const MAX_SWITCH_BUFFER: u64 = 1 << 30;

impl SwitchSpec {
    pub fn validate(&self, mtu: u32) -> Result<(), SimError> {
        if self.buffer_bytes < u64::from(mtu) || self.buffer_bytes > MAX_SWITCH_BUFFER {
            return Err(SimError::invalid(
                "switch.buffer_bytes",
                format!(
                    "{} is outside [one MTU = {mtu}, {MAX_SWITCH_BUFFER}]",
                    self.buffer_bytes
                ),
            ));
        }
        if let Some(ecn) = &self.ecn {
            if ecn.kmin_bytes > ecn.kmax_bytes {
                return Err(SimError::invalid(
                    "switch.ecn.kmin_bytes",
                    format!("{} is above kmax_bytes {}", ecn.kmin_bytes, ecn.kmax_bytes),
                ));
            }
            if !(ecn.pmax > 0.0 && ecn.pmax <= 1.0) {
                return Err(SimError::invalid(
                    "switch.ecn.pmax",
                    format!("{} is outside (0, 1]", ecn.pmax),
                ));
            }
        }
        if let Some(pfc) = &self.pfc {
            if pfc.xoff_bytes < u64::from(mtu) || pfc.xoff_bytes > self.buffer_bytes {
                return Err(SimError::invalid(
                    "switch.pfc.xoff_bytes",
                    format!(
                        "{} is outside [one MTU = {mtu}, buffer_bytes = {}]",
                        pfc.xoff_bytes, self.buffer_bytes
                    ),
                ));
            }
            if pfc.xon_bytes > pfc.xoff_bytes {
                return Err(SimError::invalid(
                    "switch.pfc.xon_bytes",
                    format!("{} is above xoff_bytes {}", pfc.xon_bytes, pfc.xoff_bytes),
                ));
            }
        }
        Ok(())
    }
}

/// A packet on a link or in a queue: 12 bytes, so an event carrying one stays small.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packet {
    pub qp: u32,
    pub dst: u32,
    /// At most the MTU (9216) or a CNP's 64.
    pub bytes: u16,
    pub ce: bool,
    pub cnp: bool,
}

/// A packet held by a node, with the port it came in on (`u32::MAX` at its source), whose
/// PFC share it counts against until it leaves.
#[derive(Debug, Clone, Copy)]
pub(super) struct Queued {
    pub pkt: Packet,
    pub ingress: u32,
}

/// One egress port's queues, for hosts and switches alike.
#[derive(Debug, Default)]
pub(super) struct Egress {
    pub control: VecDeque<Packet>,
    pub data: VecDeque<Queued>,
    pub data_bytes: u64,
    /// The packet being serialized, until its `TxDone`.
    pub sending: Option<Queued>,
    pub busy: bool,
    /// PAUSE received for the data class.
    pub paused: bool,
    pub paused_since: u64,
    pub paused_ps: u64,
    pub pause_frames_received: u64,
    pub tx_bytes: u64,
    pub tx_bytes_sampled: u64,
    /// `paused_ps` (with the pause under way) at the last sample.
    pub paused_ps_sampled: u64,
    pub max_data_bytes: u64,
    pub ecn_marks: u64,
    /// Packet spraying's turn at this port's node (kept per port, used on the ingress side).
    pub spray_turn: u32,
}

/// One ingress port's share of its switch's buffer, for PFC.
#[derive(Debug, Default)]
pub(super) struct Ingress {
    pub bytes: u64,
    /// PAUSE sent upstream and not yet released.
    pub holding: bool,
    pub holding_since: u64,
    pub held_ps: u64,
    pub pause_frames_sent: u64,
    /// Bytes that have come in since the PAUSE went upstream (the headroom in use), and the
    /// most of any pause.
    pub since_pause: u64,
    pub max_since_pause: u64,
}

/// A switch's buffer and what it refused.
#[derive(Debug, Default)]
pub(super) struct SwitchState {
    pub buffered: u64,
    pub max_buffered: u64,
    pub drops: u64,
    pub headroom_overruns: u64,
}

/// A switch's marking and PFC rules, resolved once.
#[derive(Debug, Clone)]
pub(super) struct Rules {
    pub buffer: u64,
    pub red: Option<(RedCurve, MarkAt)>,
    pub pfc: Option<PfcThresholds>,
}

impl Rules {
    pub fn of(spec: &SwitchSpec) -> Rules {
        Rules {
            buffer: spec.buffer_bytes,
            red: spec.ecn.as_ref().map(|e| {
                (
                    RedCurve::new(e.kmin_bytes as f64, e.kmax_bytes as f64, e.pmax),
                    e.at,
                )
            }),
            pfc: spec.pfc,
        }
    }

    /// A server's NVSwitch: lossless (NVLink is credit-based) and never marks.
    pub fn nvswitch(spec: &SwitchSpec) -> Rules {
        Rules {
            buffer: spec.buffer_bytes,
            red: None,
            pfc: Some(spec.pfc.unwrap_or(PfcThresholds {
                xoff_bytes: spec.buffer_bytes / 2,
                xon_bytes: spec.buffer_bytes / 4,
            })),
        }
    }

    /// Whether a packet meeting a data queue of `queue_bytes` is marked; `draw` gives a
    /// uniform number in [0, 1) and is called only when the outcome is uncertain.
    pub fn marks(&self, at: MarkAt, queue_bytes: u64, draw: impl FnOnce() -> f64) -> bool {
        match self.red {
            Some((curve, when)) if when == at => {
                let p = curve.probability(queue_bytes as f64);
                p >= 1.0 || (p > 0.0 && draw() < p)
            }
            _ => false,
        }
    }
}

/// The PFC headroom `engine::lossless` computes for a link of `bps` and `delay_ps` carrying
/// frames of up to `mtu` bytes (the delay read as fibre at 5 ns/m; no interface or response
/// delay, as this model has none). `None` when the link is outside what that model takes.
pub(super) fn lossless_headroom(bps: f64, delay_ps: u64, mtu: u32) -> Option<u64> {
    let ns_per_m = 5.0;
    crate::lossless::Headroom {
        link_gbps: bps / 1e9,
        cable_m: delay_ps as f64 / 1e3 / ns_per_m,
        ns_per_m,
        max_frame_bytes: u64::from(mtu),
        response_ns: 0.0,
    }
    .bytes()
    .ok()
    .map(|b| b.total)
}
