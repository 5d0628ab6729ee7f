//! PSN conversations of a capture and its retransmissions, from the packet list's
//! [`FrameSummary`]s.
//!
//! The classification follows the RC transport rules of IBTA Vol 1 §9.7: a requester
//! numbers its request packets with consecutive PSNs (§9.7.1) and, after a NAK-sequence
//! error or a timeout, resends from the oldest unacknowledged PSN (§9.7.5.2.2), so a
//! request whose PSN is not ahead of the highest one already seen on its QP is a
//! retransmission. Responses carry the PSN of the request they answer (§9.7.5.1).

use super::listing::{FrameSummary, HostAddr, PacketRole};
use crate::wire::bth::Psn;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;

/// Packets exchanged between two hosts, for a PSN timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// The host that sent the first packet.
    pub a: String,
    pub b: String,
    /// Destination QPs seen, in order of appearance.
    pub qpns: Vec<u32>,
    pub points: Vec<PsnPoint>,
}

/// One packet on a PSN timeline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PsnPoint {
    /// Frame number (1-based).
    pub frame: usize,
    pub time_ns: u64,
    /// Sent by `a` (else by `b`).
    pub from_a: bool,
    pub qpn: u32,
    pub psn: u32,
    pub role: PacketRole,
}

impl Conversation {
    /// Count of points with this role.
    pub fn count(&self, role: PacketRole) -> usize {
        self.points.iter().filter(|p| p.role == role).count()
    }
}

/// Marks requests that resend a PSN already seen on the same destination QP between the
/// same two hosts. Summaries must be in capture order.
pub fn classify_summaries(frames: &mut [FrameSummary]) {
    // Fx rather than SipHash: the keys are a few hosts and QPNs of the file being read, so
    // resistance to chosen keys buys nothing and SipHash costs a tenth of the decode time.
    let mut highest: FxHashMap<(HostAddr, HostAddr, u32), Psn> = FxHashMap::default();
    for s in frames.iter_mut() {
        if s.role != PacketRole::Request {
            continue;
        }
        let (Some(qpn), Some(psn)) = (s.qpn, s.psn) else {
            continue;
        };
        let psn = Psn::truncate(psn);
        match highest.entry((s.source, s.destination, qpn)) {
            Entry::Occupied(mut top) => {
                if psn.is_after(*top.get()) {
                    top.insert(psn);
                } else {
                    s.role = PacketRole::Retransmission;
                }
            }
            Entry::Vacant(v) => {
                v.insert(psn);
            }
        }
    }
}

/// Groups transport packets by the unordered pair of hosts that exchanged them, in order
/// of first appearance. Requests and the responses to them share one PSN space, so they
/// belong on one timeline. `time_ns` gives the timestamp of the frame at an index.
pub fn conversations_of(
    frames: &[FrameSummary],
    time_ns: impl Fn(usize) -> u64,
) -> Vec<Conversation> {
    let mut out: Vec<Conversation> = Vec::new();
    let mut hosts: Vec<(HostAddr, HostAddr)> = Vec::new();
    let mut index: FxHashMap<(HostAddr, HostAddr), usize> = FxHashMap::default();
    for (i, s) in frames.iter().enumerate() {
        let (Some(qpn), Some(psn)) = (s.qpn, s.psn) else {
            continue;
        };
        let pair = if s.source <= s.destination {
            (s.source, s.destination)
        } else {
            (s.destination, s.source)
        };
        let at = *index.entry(pair).or_insert_with(|| {
            out.push(Conversation {
                a: s.source.to_string(),
                b: s.destination.to_string(),
                qpns: Vec::new(),
                points: Vec::new(),
            });
            hosts.push((s.source, s.destination));
            out.len() - 1
        });
        let conv = &mut out[at];
        if !conv.qpns.contains(&qpn) {
            conv.qpns.push(qpn);
        }
        conv.points.push(PsnPoint {
            frame: i + 1,
            time_ns: time_ns(i),
            from_a: hosts[at].0 == s.source,
            qpn,
            psn,
            role: s.role,
        });
    }
    out
}
