//! The congestion point (CP): a switch egress queue with RED-style ECN marking and
//! optional PFC (DCQCN paper §3.1 and Fig. 5; IEEE 802.1Qbb for PAUSE/RESUME).

use super::params::CongestionPointParams;

/// Marking probability for an instantaneous queue of `queue_bytes` (paper §3.1, Fig. 5):
/// 0 at or below K_min, rising linearly to P_max at K_max, 1 above K_max.
pub fn red_probability(queue_bytes: f64, kmin_bytes: f64, kmax_bytes: f64, pmax: f64) -> f64 {
    RedCurve::new(kmin_bytes, kmax_bytes, pmax).probability(queue_bytes)
}

/// The RED marking curve of [`red_probability`] with its slope worked out once, for the
/// models that ask it on every packet or step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedCurve {
    kmin_bytes: f64,
    kmax_bytes: f64,
    /// P_max/(K_max − K_min) per byte; 0 when K_max = K_min (no queue lies between).
    per_byte: f64,
}

impl RedCurve {
    pub fn new(kmin_bytes: f64, kmax_bytes: f64, pmax: f64) -> RedCurve {
        RedCurve {
            kmin_bytes,
            kmax_bytes,
            per_byte: if kmax_bytes > kmin_bytes {
                pmax / (kmax_bytes - kmin_bytes)
            } else {
                0.0
            },
        }
    }

    pub fn of(params: &CongestionPointParams) -> RedCurve {
        RedCurve::new(
            params.kmin_bytes as f64,
            params.kmax_bytes as f64,
            params.pmax,
        )
    }

    pub fn probability(&self, queue_bytes: f64) -> f64 {
        if queue_bytes <= self.kmin_bytes {
            0.0
        } else if queue_bytes <= self.kmax_bytes {
            self.per_byte * (queue_bytes - self.kmin_bytes)
        } else {
            1.0
        }
    }
}

/// What the CP did with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Queued; `ce` tells whether it was ECN-marked (Congestion Experienced).
    Queued { ce: bool },
    /// Dropped: no PFC and the buffer was full.
    Dropped,
}

/// A PFC frame the CP must send upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfcSignal {
    Pause,
    Resume,
}

/// Switch egress port state.
#[derive(Debug, Clone)]
pub struct CongestionPoint {
    params: CongestionPointParams,
    /// `params`' marking curve.
    red: RedCurve,
    queue_bytes: u64,
    paused_upstream: bool,
    pause_started_ps: u64,
    /// Packets marked CE so far.
    pub ecn_marks: u64,
    /// Packets dropped for lack of buffer (only without PFC).
    pub drops: u64,
    /// PAUSE frames sent.
    pub pause_events: u64,
    /// Total time the upstream was held paused (XOFF → XON), ps.
    pub paused_ps: u64,
    /// Arrivals that pushed a lossless queue past its buffer (PFC headroom too small).
    pub headroom_overruns: u64,
    /// Largest queue seen, bytes.
    pub max_queue_bytes: u64,
}

impl CongestionPoint {
    pub fn new(params: CongestionPointParams) -> Self {
        CongestionPoint {
            red: RedCurve::of(&params),
            params,
            queue_bytes: 0,
            paused_upstream: false,
            pause_started_ps: 0,
            ecn_marks: 0,
            drops: 0,
            pause_events: 0,
            paused_ps: 0,
            headroom_overruns: 0,
            max_queue_bytes: 0,
        }
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queue_bytes
    }

    /// Whether the upstream is currently held by PAUSE.
    pub fn paused_upstream(&self) -> bool {
        self.paused_upstream
    }

    /// Marking probability for the current queue.
    pub fn marking_probability(&self) -> f64 {
        self.red.probability(self.queue_bytes as f64)
    }

    /// A packet of `size` bytes arrives at `now_ps`. Marking looks at the queue the
    /// packet finds on arrival; `draw` yields a uniform number in [0, 1) and is called
    /// only when the marking probability is strictly between 0 and 1.
    pub fn enqueue(
        &mut self,
        size: u64,
        now_ps: u64,
        draw: impl FnOnce() -> f64,
    ) -> (Admission, Option<PfcSignal>) {
        let lossless = self.params.pfc.is_some();
        if !lossless && self.queue_bytes + size > self.params.buffer_bytes {
            self.drops += 1;
            return (Admission::Dropped, None);
        }
        let p = self.marking_probability();
        // Draw only when the outcome is uncertain, so marks below K_min cost nothing.
        let ce = p >= 1.0 || (p > 0.0 && draw() < p);
        if ce {
            self.ecn_marks += 1;
        }
        self.queue_bytes += size;
        if self.queue_bytes > self.params.buffer_bytes {
            self.headroom_overruns += 1;
        }
        self.max_queue_bytes = self.max_queue_bytes.max(self.queue_bytes);
        let mut signal = None;
        if let Some(pfc) = &self.params.pfc {
            if !self.paused_upstream && self.queue_bytes >= pfc.xoff_bytes {
                self.paused_upstream = true;
                self.pause_started_ps = now_ps;
                self.pause_events += 1;
                signal = Some(PfcSignal::Pause);
            }
        }
        (Admission::Queued { ce }, signal)
    }

    /// A packet of `size` bytes has left the port at `now_ps`.
    pub fn dequeue(&mut self, size: u64, now_ps: u64) -> Option<PfcSignal> {
        self.queue_bytes = self.queue_bytes.saturating_sub(size);
        if let Some(pfc) = &self.params.pfc {
            if self.paused_upstream && self.queue_bytes <= pfc.xon_bytes {
                self.paused_upstream = false;
                self.paused_ps += now_ps.saturating_sub(self.pause_started_ps);
                return Some(PfcSignal::Resume);
            }
        }
        None
    }

    /// Pause time including a pause still in progress at `now_ps`.
    pub fn paused_ps_at(&self, now_ps: u64) -> u64 {
        if self.paused_upstream {
            self.paused_ps + now_ps.saturating_sub(self.pause_started_ps)
        } else {
            self.paused_ps
        }
    }

    /// Start of the pause in progress, if any.
    pub fn pause_started_ps(&self) -> Option<u64> {
        self.paused_upstream.then_some(self.pause_started_ps)
    }
}
