//! Hosts: a NIC whose reliable-connected queue pairs each carry one flow of messages, paced
//! by DCQCN's reaction point ([`ReactionPoint`], the same code as `engine::dcqcn`'s models),
//! and a notification point ([`crate::dcqcn::NotificationPoint`]) turning CE marks into
//! CNPs. Without DCQCN a QP sends at line rate and only PFC holds it back.
//!
//! A QP's RoCE v2 UDP source port is the entropy ECMP hashes (with the addresses and the
//! destination port 4791 that are fixed per host pair). Messages are posted in order; a QP
//! may feed others: a QP posts one more message each time all the QPs it is fed by have
//! delivered one more (how a ring's step waits for the step before it, and a tree's parent
//! for all its children).
//!
//! The NIC serves its QPs round-robin, one packet at a time, skipping a QP whose rate
//! limiter has not yet released its next packet. Left out: ACKs and retransmission (the
//! fabric is lossless or a drop is counted and the bytes never arrive), NIC caches and
//! PCIe, a QP's window.

use crate::dcqcn::ReactionPoint;

/// One queue pair, its flow and what it has done.
#[derive(Debug)]
pub(super) struct Qp {
    pub src: u32,
    pub dst: u32,
    /// The host's egress port the QP sends from.
    pub port: u32,
    pub udp_sport: u16,
    /// 5-tuple hash, before each switch's seed.
    pub hash: u64,
    pub message_bytes: u64,
    pub messages: u32,
    /// Messages posted so far (never above `messages`): see [`Qp::repost`].
    pub posted: u32,
    /// Messages posted once the QP is open, before any is fed.
    pub initial: u32,
    /// Messages every one of its inputs has delivered (the least of their counts).
    pub fed: u32,
    /// The QPs whose delivered messages post this one's: see `QpPlan::inputs`.
    pub inputs: Vec<u32>,
    /// False until the QP that opens it (a collective's earlier phase) has delivered enough.
    pub open: bool,
    /// The QP this one opens, and after how many of its own messages delivered.
    pub opens: Option<(u32, u32)>,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    /// The QPs that have this one among their inputs.
    pub feeds: Vec<u32>,
    pub start_ps: u64,
    pub finish_ps: Option<u64>,
    /// Earliest time the rate limiter lets the next packet go.
    pub next_tx_ps: u64,
    pub rp: Option<ReactionPoint>,
    pub timer_gen: u32,
    pub cnps: u64,
    /// Bytes delivered since the last sample.
    pub delivered_since_sample: u64,
    /// Which traffic entry made it.
    pub traffic: u32,
    /// A background flow: it never finishes.
    pub endless: bool,
    pub last_tx_ps: u64,
    pub last_tx_bytes: u16,
}

impl Qp {
    pub fn total_bytes(&self) -> u64 {
        self.message_bytes * u64::from(self.messages)
    }

    /// Bytes posted and not yet sent.
    pub fn backlog(&self) -> u64 {
        (self.message_bytes * u64::from(self.posted)).saturating_sub(self.sent_bytes)
    }

    /// The rate the limiter allows, bit/s (line rate before the first CNP).
    pub fn pace_bps(&self, line_bps: f64) -> f64 {
        self.rp
            .as_ref()
            .map_or(line_bps, |rp| rp.rc_bps().min(line_bps))
    }

    /// Posts what its state allows: nothing while closed, then its initial messages and one
    /// per message fed, at most all of them.
    pub fn repost(&mut self) {
        self.posted = if self.open {
            self.initial.saturating_add(self.fed).min(self.messages)
        } else {
            0
        };
    }

    /// Messages fully delivered.
    pub fn delivered_messages(&self) -> u32 {
        (self.received_bytes / self.message_bytes.max(1)) as u32
    }
}

/// The QPs behind one host egress port, served in turn.
#[derive(Debug, Default)]
pub(super) struct NicQueue {
    pub qps: Vec<u32>,
    pub turn: usize,
    /// A wake-up already scheduled for this time.
    pub wake_at: Option<u64>,
}

/// What the NIC can send now from its QPs.
pub(super) enum NextPacket {
    Send {
        qp: u32,
        bytes: u16,
    },
    /// Nothing is ready; the earliest QP is ready at this time.
    WaitUntil(u64),
    Idle,
}

impl NicQueue {
    /// Picks the next QP in turn that has bytes and whose limiter lets it send at `now`.
    pub fn next(&mut self, qps: &[Qp], now: u64, mtu: u64) -> NextPacket {
        let n = self.qps.len();
        let mut earliest: Option<u64> = None;
        let turn = self.turn.min(n);
        // In turn from `turn`, wrapping round, with no division per packet.
        for i in (turn..n).chain(0..turn) {
            let qp = &qps[self.qps[i] as usize];
            let backlog = qp.backlog();
            if backlog == 0 {
                continue;
            }
            // A QP that starts later holds `next_tx_ps` at its start.
            if qp.next_tx_ps > now {
                earliest = Some(earliest.map_or(qp.next_tx_ps, |e| e.min(qp.next_tx_ps)));
                continue;
            }
            self.turn = i + 1;
            // The MTU is at most 9216, so a packet's size fits 16 bits.
            let bytes = backlog.min(mtu) as u16;
            return NextPacket::Send {
                qp: self.qps[i],
                bytes,
            };
        }
        match earliest {
            Some(t) => NextPacket::WaitUntil(t),
            None => NextPacket::Idle,
        }
    }
}
