//! Segmentation of messages into packets, and what each packet costs on the wire.
//!
//! IBTA Vol 1 §9.5: a message larger than the path MTU is split into FIRST, MIDDLE…,
//! LAST packets (ONLY when it fits in one); every packet but the last carries exactly
//! one MTU of payload, and PSNs are consecutive modulo 2^24 (§9.7.1). An RDMA READ
//! request occupies one PSN per response packet it will draw (§9.7.4.1.3), so the
//! responses reuse the request's PSN range. RETH rides only on the first WRITE packet;
//! the immediate or invalidate header only on the last; READ responses carry an AETH
//! on the first, last and only packets (§9.3, Table 38).

use crate::wire::bth::Psn;
use crate::wire::ext::{header_len, ExtHeaders};
use crate::wire::opcode::{Opcode, Operation, Transport};
use crate::wire::Header;
use core::fmt;
use serde::{Deserialize, Serialize};

/// Kinds of message that segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MessageKind {
    Send,
    SendWithImmediate,
    SendWithInvalidate,
    Write,
    WriteWithImmediate,
    /// The responder's side of an RDMA READ.
    ReadResponse,
}

/// Valid IB path MTUs in payload bytes (IBTA Vol 1 §7.7.8 / PortInfo MTU enumeration).
pub const PATH_MTUS: [u32; 5] = [256, 512, 1024, 2048, 4096];

/// Why a segmentation request was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SegmentError {
    /// Not one of [`PATH_MTUS`].
    BadMtu(u32),
    /// RDMA messages are at most 2^31 bytes (IBTA Vol 1 §9.4.3: DMA length is 32 bits).
    TooLong(u64),
    /// The transport does not offer this operation (e.g. UD only sends single packets).
    Unsupported {
        transport: Transport,
        kind: MessageKind,
    },
}

impl fmt::Display for SegmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentError::BadMtu(m) => {
                write!(f, "path MTU {m} is not one of 256, 512, 1024, 2048, 4096")
            }
            SegmentError::TooLong(n) => write!(f, "message of {n} bytes exceeds 2^31"),
            SegmentError::Unsupported { transport, kind } => {
                write!(f, "{kind:?} is not available on {}", transport.abbrev())
            }
        }
    }
}

impl std::error::Error for SegmentError {}

/// One packet of a segmented message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketPlan {
    pub opcode: Opcode,
    pub psn: Psn,
    /// Offset of this packet's payload within the message.
    pub message_offset: u64,
    pub payload_len: u32,
    /// Pad bytes to a multiple of 4 (only the last packet can need any).
    pub pad: u8,
    /// Extended headers this packet carries.
    pub headers: ExtHeaders,
}

fn ops(kind: MessageKind) -> (Operation, Operation, Operation, Operation) {
    use Operation::*;
    match kind {
        MessageKind::Send => (SendFirst, SendMiddle, SendLast, SendOnly),
        MessageKind::SendWithImmediate => (SendFirst, SendMiddle, SendLastImm, SendOnlyImm),
        MessageKind::SendWithInvalidate => (
            SendFirst,
            SendMiddle,
            SendLastInvalidate,
            SendOnlyInvalidate,
        ),
        MessageKind::Write => (WriteFirst, WriteMiddle, WriteLast, WriteOnly),
        MessageKind::WriteWithImmediate => (WriteFirst, WriteMiddle, WriteLastImm, WriteOnlyImm),
        MessageKind::ReadResponse => (
            ReadResponseFirst,
            ReadResponseMiddle,
            ReadResponseLast,
            ReadResponseOnly,
        ),
    }
}

/// Number of packets a message of `len` bytes takes at `mtu` (at least one).
pub fn packet_count(len: u64, mtu: u32) -> u64 {
    len.div_ceil(u64::from(mtu.max(1))).max(1)
}

/// Splits a message into packets with consecutive PSNs starting at `start`.
pub fn segment(
    transport: Transport,
    kind: MessageKind,
    len: u64,
    mtu: u32,
    start: Psn,
) -> Result<Vec<PacketPlan>, SegmentError> {
    if !PATH_MTUS.contains(&mtu) {
        return Err(SegmentError::BadMtu(mtu));
    }
    if len > 1 << 31 {
        return Err(SegmentError::TooLong(len));
    }
    let (first, middle, last, only) = ops(kind);
    let n = packet_count(len, mtu);
    let op = |o: Operation| {
        Opcode::new(transport, o).ok_or(SegmentError::Unsupported { transport, kind })
    };
    // Check every opcode up front so that UD, for example, refuses a multi-packet send.
    let (first, middle, last, only) = if n == 1 {
        (op(only)?, op(only)?, op(only)?, op(only)?)
    } else {
        (op(first)?, op(middle)?, op(last)?, op(only)?)
    };
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    for i in 0..n {
        let offset = i * u64::from(mtu);
        let payload = (len - offset.min(len)).min(u64::from(mtu)) as u32;
        let opcode = match (n, i) {
            (1, _) => only,
            (_, 0) => first,
            (n, i) if i == n - 1 => last,
            _ => middle,
        };
        let headers = opcode.info().map(|i| i.headers).unwrap_or_default();
        out.push(PacketPlan {
            opcode,
            psn: start.wrapping_add(i as u32),
            message_offset: offset,
            payload_len: payload,
            pad: ((4 - payload % 4) % 4) as u8,
            headers,
        });
    }
    Ok(out)
}

/// Link framing for overhead accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Framing {
    /// RoCE v2: Ethernet [802.1Q] / IPv4 or IPv6 / UDP, plus the Ethernet preamble and
    /// SFD (8 bytes), FCS (4) and minimum inter-frame gap (12) (IEEE 802.3 §4.4.2).
    RoceV2 { ipv6: bool, vlan: bool },
    /// Native InfiniBand: LRH, optional GRH, … ICRC VCRC. Link-layer start/end delimiters and
    /// idles are carried by the line encoding and are not counted.
    Infiniband { grh: bool },
}

/// Ethernet preamble + start-of-frame delimiter.
pub const PREAMBLE_SFD: u32 = 8;
/// Minimum Ethernet inter-frame gap.
pub const IFG: u32 = 12;
/// Minimum Ethernet frame including the FCS.
pub const MIN_ETHERNET_FRAME: u32 = 64;

/// Byte accounting for one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PacketCost {
    /// Payload bytes delivered.
    pub payload: u32,
    /// Bytes of the frame (Ethernet header through FCS, or LRH through VCRC).
    pub frame: u32,
    /// Bytes the link spends, frame plus preamble/SFD/IFG for Ethernet.
    pub wire: u32,
}

impl PacketCost {
    /// Everything on the wire that is not payload.
    pub fn overhead(&self) -> u32 {
        self.wire - self.payload
    }
}

/// Cost of one packet with `ext` extended-header bytes and `payload` payload bytes.
pub fn packet_cost(framing: Framing, ext: u32, payload: u32) -> PacketCost {
    let pad = (4 - payload % 4) % 4;
    let transport = 12 + ext + payload + pad + 4; // BTH … ICRC
    match framing {
        Framing::RoceV2 { ipv6, vlan } => {
            let l2 = 14 + if vlan { 4 } else { 0 };
            let l3 = if ipv6 { 40 } else { 20 };
            let frame = (l2 + l3 + 8 + transport + 4).max(MIN_ETHERNET_FRAME);
            PacketCost {
                payload,
                frame,
                wire: frame + PREAMBLE_SFD + IFG,
            }
        }
        Framing::Infiniband { grh } => {
            let frame = 8 + if grh { 40 } else { 0 } + transport + 2;
            PacketCost {
                payload,
                frame,
                wire: frame,
            }
        }
    }
}

fn ext_bytes(h: ExtHeaders) -> u32 {
    h.iter().map(|x: Header| header_len(x) as u32).sum()
}

/// Totals for a whole message.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MessageCost {
    pub packets: u64,
    pub payload_bytes: u64,
    pub wire_bytes: u64,
    /// payload / wire.
    pub efficiency: f64,
    /// Payload rate at `link_gbps` when the link is busy only with this message.
    pub goodput_gbps: f64,
}

/// Wire cost of sending a message of `len` bytes at `mtu` over a link of `link_gbps`
/// (the MAC/data rate, e.g. 100 for 100GbE or IB EDR 4x).
pub fn message_cost(
    framing: Framing,
    transport: Transport,
    kind: MessageKind,
    len: u64,
    mtu: u32,
    link_gbps: f64,
) -> Result<MessageCost, SegmentError> {
    let plan = segment(transport, kind, len, mtu, Psn::truncate(0))?;
    let mut wire = 0u64;
    for p in &plan {
        wire += u64::from(packet_cost(framing, ext_bytes(p.headers), p.payload_len).wire);
    }
    let efficiency = if wire == 0 {
        0.0
    } else {
        len as f64 / wire as f64
    };
    Ok(MessageCost {
        packets: plan.len() as u64,
        payload_bytes: len,
        wire_bytes: wire,
        efficiency,
        goodput_gbps: efficiency * link_gbps,
    })
}

/// Steady-state numbers for full-MTU packets (a long message's MIDDLE packets).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MtuOverhead {
    pub mtu: u32,
    pub cost: PacketCost,
    pub efficiency: f64,
    pub goodput_gbps: f64,
    /// Packets per second at this rate.
    pub packets_per_second: f64,
}

/// One row per path MTU: what a full SEND Middle packet costs at `link_gbps`.
pub fn mtu_overhead_table(framing: Framing, link_gbps: f64) -> Vec<MtuOverhead> {
    PATH_MTUS
        .iter()
        .map(|&mtu| {
            let cost = packet_cost(framing, 0, mtu);
            let efficiency = f64::from(mtu) / f64::from(cost.wire);
            MtuOverhead {
                mtu,
                cost,
                efficiency,
                goodput_gbps: efficiency * link_gbps,
                packets_per_second: link_gbps * 1e9 / (8.0 * f64::from(cost.wire)),
            }
        })
        .collect()
}
