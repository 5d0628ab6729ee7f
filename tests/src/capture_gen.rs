//! Big RoCE v2 captures made in memory with the engine's own emitters and pcap writer,
//! for the decode benchmark and the capture page's load test.
//!
//! The traffic is a realistic mix on 8 connections, half over IPv4 and half over IPv6:
//! RDMA WRITE messages of four packets (FIRST with its RETH, two MIDDLE, LAST) at a
//! 256-byte path MTU, SENDs, ACKs for each message, RDMA READ requests and their
//! responses, and CNPs. Every frame has a correct ICRC, unless [`with_bad_icrcs`] broke
//! some.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use engine::capture::pcap::{write_pcap, CapturedFrame, LinkType};
use engine::capture::spec::{to_repr, PacketSpec, Payload, SpecOperation};
use engine::wire::ext::Reth;
use engine::wire::opcode::{Opcode, Operation, Transport};
use engine::wire::roce::{locate, FcsMode, RoceFrameRepr};
use engine::wire::{Psn, Qpn};

const CONNECTIONS: u32 = 8;
/// Nanoseconds between frames: about a 25 Gb/s link kept busy.
const GAP_NS: u64 = 50;

/// One packet of the repeating pattern: operation, opcode override, payload bytes, and
/// whether it travels from the requester (else from the responder).
struct Step {
    op: SpecOperation,
    opcode: Option<Operation>,
    payload: u32,
    forward: bool,
}

const PATTERN: &[Step] = &[
    Step {
        op: SpecOperation::Write,
        opcode: Some(Operation::WriteFirst),
        payload: 128,
        forward: true,
    },
    Step {
        op: SpecOperation::Write,
        opcode: Some(Operation::WriteMiddle),
        payload: 128,
        forward: true,
    },
    Step {
        op: SpecOperation::Write,
        opcode: Some(Operation::WriteMiddle),
        payload: 128,
        forward: true,
    },
    Step {
        op: SpecOperation::Write,
        opcode: Some(Operation::WriteLast),
        payload: 128,
        forward: true,
    },
    Step {
        op: SpecOperation::Ack,
        opcode: None,
        payload: 0,
        forward: false,
    },
    Step {
        op: SpecOperation::Send,
        opcode: None,
        payload: 32,
        forward: true,
    },
    Step {
        op: SpecOperation::Ack,
        opcode: None,
        payload: 0,
        forward: false,
    },
    Step {
        op: SpecOperation::ReadRequest,
        opcode: None,
        payload: 0,
        forward: true,
    },
    Step {
        op: SpecOperation::ReadResponse,
        opcode: None,
        payload: 64,
        forward: false,
    },
    Step {
        op: SpecOperation::Cnp,
        opcode: None,
        payload: 0,
        forward: false,
    },
];

fn hosts(conn: u32) -> (IpAddr, IpAddr) {
    let c = conn as u8;
    if conn.is_multiple_of(2) {
        (
            IpAddr::V4(Ipv4Addr::new(10, 0, c, 1)),
            IpAddr::V4(Ipv4Addr::new(10, 0, c, 2)),
        )
    } else {
        (
            IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, u16::from(c), 0, 0, 0, 1)),
            IpAddr::V6(Ipv6Addr::new(0xfd00, 0, 0, u16::from(c), 0, 0, 0, 2)),
        )
    }
}

/// The frame template of one step on one connection.
fn template(conn: u32, step: &Step) -> RoceFrameRepr {
    let (req, resp) = hosts(conn);
    let (req_qp, resp_qp) = (0x100 + conn, 0x200 + conn);
    let (src_ip, dst_ip, dest_qp) = if step.forward {
        (req, resp, resp_qp)
    } else {
        (resp, req, req_qp)
    };
    let spec = PacketSpec {
        operation: step.op,
        src_ip,
        dst_ip,
        dest_qp,
        payload: Payload::Size(step.payload),
        ..PacketSpec::default()
    };
    let mut r = to_repr(&spec).expect("the pattern's specs build");
    if let Some(op) = step.opcode {
        r.bth.opcode = Opcode::new(Transport::Rc, op).expect("an RC opcode");
        r.ext.reth = (op == Operation::WriteFirst).then_some(Reth {
            va: 0x7f00_0000_0000 + u64::from(conn) * 0x10_0000,
            r_key: 0x1234 + conn,
            dma_len: 4 * step.payload,
        });
    }
    if step.op == SpecOperation::Cnp {
        r.bth.dest_qp = Qpn(req_qp);
    }
    r
}

/// `count` frames of the mix, in capture order.
pub fn roce_frames(count: usize) -> Vec<CapturedFrame> {
    let templates: Vec<Vec<RoceFrameRepr>> = (0..CONNECTIONS)
        .map(|c| PATTERN.iter().map(|s| template(c, s)).collect())
        .collect();
    let mut psn = [0u32; CONNECTIONS as usize];
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let round = i / PATTERN.len();
        let conn = round % CONNECTIONS as usize;
        let at = i % PATTERN.len();
        let mut r = templates[conn][at].clone();
        // Requests take the next PSN; a response carries the PSN it answers.
        if PATTERN[at].forward {
            psn[conn] = (psn[conn] + 1) & Psn::MASK;
        }
        r.bth.psn = Psn::truncate(psn[conn]);
        let data = r.emit().expect("the frame emits");
        out.push(CapturedFrame {
            timestamp_ns: 1_700_000_000_000_000_000 + i as u64 * GAP_NS,
            orig_len: data.len() as u32,
            link_type: LinkType::Ethernet,
            data,
        });
    }
    out
}

/// A pcap file of `count` frames of the mix.
pub fn roce_pcap(count: usize) -> Vec<u8> {
    write_pcap(&roce_frames(count)).expect("an Ethernet-only capture writes as pcap")
}

/// Flips a bit of the ICRC of every `every`-th frame (the first is frame `every`), as a
/// link that corrupts bytes in flight would leave them; the count of frames broken.
pub fn with_bad_icrcs(frames: &mut [CapturedFrame], every: usize) -> usize {
    let mut broken = 0;
    for f in frames.iter_mut().skip(every - 1).step_by(every) {
        let layout = locate(&f.data, FcsMode::Absent).expect("a generated frame");
        f.data[layout.transport.icrc_offset] ^= 0x01;
        broken += 1;
    }
    broken
}
