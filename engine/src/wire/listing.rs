//! A capture as a packet list and as PSN conversations: what the lab's capture view and
//! `native-probe decode` show for each frame, derived from [`dissect`].
//!
//! The classification follows the RC transport rules of IBTA Vol 1 §9.7: a requester
//! numbers its request packets with consecutive PSNs (§9.7.1) and, after a NAK-sequence
//! error or a timeout, resends from the oldest unacknowledged PSN (§9.7.5.2.2), so a
//! request whose PSN is not ahead of the highest one already seen on its QP is a
//! retransmission. Responses (ACK, NAK, RNR NAK, READ responses, atomic ACKs) carry the
//! PSN of the request they answer (§9.7.5.1). CNPs (opcode 0x81, IBTA Vol 1 Annex A17
//! §A17.9.3) tell a sender to slow down and carry no meaningful PSN.

use super::bth::Psn;
use super::capture::CapturedFrame;
use super::dissect::{dissect, DecodedFrame, FieldValue};
use super::opcode::Opcode;
use serde::{Deserialize, Serialize};

/// Whether the invariant CRC of a frame checks out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IcrcStatus {
    Valid,
    Invalid,
    /// Not an InfiniBand transport packet, or decoding stopped before the ICRC.
    Absent,
}

/// What a frame does in its conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PacketRole {
    /// A request carrying a PSN ahead of every earlier one on its QP.
    Request,
    /// A request whose PSN was already sent on its QP.
    Retransmission,
    /// A positive acknowledgement (ACK, READ response, atomic ACK).
    Response,
    /// A NAK (PSN sequence error, access error, …).
    Nak,
    /// A receiver-not-ready NAK.
    RnrNak,
    /// A congestion notification packet.
    Cnp,
    /// Not an InfiniBand transport packet, or undecodable.
    Other,
}

/// One line of the packet list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PacketRow {
    /// 1-based, as Wireshark numbers frames.
    pub number: usize,
    pub time_ns: u64,
    /// IP address (RoCE v2) or LID (native IB); empty when not decoded.
    pub source: String,
    pub destination: String,
    pub opcode: Option<u8>,
    /// Opcode name, e.g. "RC RDMA WRITE Only"; empty when there is no BTH.
    pub opcode_name: String,
    pub qpn: Option<u32>,
    pub psn: Option<u32>,
    /// Bytes captured.
    pub len: usize,
    pub icrc: IcrcStatus,
    pub role: PacketRole,
    /// Wireshark-style Info column.
    pub info: String,
    /// Where and why decoding stopped, or the first checksum/CRC mismatch.
    pub error: Option<String>,
}

impl PacketRow {
    /// True when the frame has a structural error or a bad checksum/CRC.
    pub fn has_error(&self) -> bool {
        self.error.is_some() || self.icrc == IcrcStatus::Invalid
    }
}

fn text_of(d: &DecodedFrame, names: &[&str]) -> String {
    names
        .iter()
        .find_map(|n| match &d.field(n)?.value {
            FieldValue::Text(t) => Some(t.clone()),
            FieldValue::Uint(v) => Some(v.to_string()),
            FieldValue::Bool(b) => Some(b.to_string()),
        })
        .unwrap_or_default()
}

/// The role a packet plays judged by itself; [`PacketRole::Request`] until
/// [`classify_retransmissions`] compares PSNs across the capture.
fn role_of(d: &DecodedFrame) -> PacketRole {
    let Some(op) = d.uint("infiniband.bth.opcode") else {
        return PacketRole::Other;
    };
    let opcode = Opcode(op as u8);
    if opcode == Opcode::CNP {
        return PacketRole::Cnp;
    }
    // AETH syndrome bits 6:5 (IBTA Vol 1 §9.3.5 Table 43): 00 ACK, 01 RNR NAK, 11 NAK.
    if let Some(kind) = d.uint("infiniband.aeth.syndrome.opcode") {
        return match kind {
            1 => PacketRole::RnrNak,
            3 => PacketRole::Nak,
            _ => PacketRole::Response,
        };
    }
    match opcode.operation() {
        Some(o) if o.is_response() => PacketRole::Response,
        Some(_) => PacketRole::Request,
        None => PacketRole::Other,
    }
}

/// Decodes one captured frame into a packet-list row.
pub fn packet_row(number: usize, frame: &CapturedFrame) -> PacketRow {
    let d = dissect(&frame.data, frame.link_type);
    row_from(number, frame.timestamp_ns, &d)
}

/// A packet-list row from an already dissected frame.
pub fn row_from(number: usize, time_ns: u64, d: &DecodedFrame) -> PacketRow {
    let opcode = d.uint("infiniband.bth.opcode").map(|v| v as u8);
    let icrc = match (
        d.field("infiniband.invariant.crc"),
        d.warnings.iter().any(|w| w.header == super::Header::Icrc),
    ) {
        (None, _) => IcrcStatus::Absent,
        (Some(_), true) => IcrcStatus::Invalid,
        (Some(_), false) => IcrcStatus::Valid,
    };
    let error = d
        .error
        .as_ref()
        .or(d.warnings.first())
        .map(|e| e.to_string());
    PacketRow {
        number,
        time_ns,
        source: text_of(d, &["ip.src", "ipv6.src", "infiniband.lrh.slid", "eth.src"]),
        destination: text_of(d, &["ip.dst", "ipv6.dst", "infiniband.lrh.dlid", "eth.dst"]),
        opcode,
        opcode_name: opcode.and_then(|o| Opcode(o).name()).unwrap_or_default(),
        qpn: d.uint("infiniband.bth.destqp").map(|v| v as u32),
        psn: d.uint("infiniband.bth.psn").map(|v| v as u32),
        len: d.len,
        icrc,
        role: role_of(d),
        info: d.summary.clone(),
        error,
    }
}

/// Marks requests that resend a PSN already seen on the same destination QP between the
/// same two hosts. Rows must be in capture order.
pub fn classify_retransmissions(rows: &mut [PacketRow]) {
    let mut highest: Vec<((String, String, u32), Psn)> = Vec::new();
    for row in rows.iter_mut() {
        if row.role != PacketRole::Request {
            continue;
        }
        let (Some(qpn), Some(psn)) = (row.qpn, row.psn) else {
            continue;
        };
        let key = (row.source.clone(), row.destination.clone(), qpn);
        let psn = Psn(psn);
        match highest.iter_mut().find(|(k, _)| *k == key) {
            Some((_, top)) => {
                if top.distance_to(psn) > 0 {
                    *top = psn;
                } else {
                    row.role = PacketRole::Retransmission;
                }
            }
            None => highest.push((key, psn)),
        }
    }
}

/// Which rows the list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowFilter {
    pub qpn: Option<u32>,
    /// Exact opcode value.
    pub opcode: Option<u8>,
    /// Only frames with an error, a bad CRC, a NAK or a retransmission.
    pub problems_only: bool,
}

impl RowFilter {
    pub fn matches(&self, row: &PacketRow) -> bool {
        if self.qpn.is_some() && row.qpn != self.qpn {
            return false;
        }
        if self.opcode.is_some() && row.opcode != self.opcode {
            return false;
        }
        if self.problems_only {
            let problem = row.has_error()
                || matches!(
                    row.role,
                    PacketRole::Nak | PacketRole::RnrNak | PacketRole::Retransmission
                );
            if !problem {
                return false;
            }
        }
        true
    }
}

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

/// Groups transport packets by the unordered pair of hosts that exchanged them, in order
/// of first appearance. Requests and the responses to them share one PSN space, so they
/// belong on one timeline.
pub fn conversations(rows: &[PacketRow]) -> Vec<Conversation> {
    let mut out: Vec<Conversation> = Vec::new();
    for row in rows {
        let (Some(qpn), Some(psn)) = (row.qpn, row.psn) else {
            continue;
        };
        let pos = out.iter().position(|c| {
            (c.a == row.source && c.b == row.destination)
                || (c.b == row.source && c.a == row.destination)
        });
        let conv = match pos {
            Some(i) => &mut out[i],
            None => {
                out.push(Conversation {
                    a: row.source.clone(),
                    b: row.destination.clone(),
                    qpns: Vec::new(),
                    points: Vec::new(),
                });
                let last = out.len() - 1;
                &mut out[last]
            }
        };
        if !conv.qpns.contains(&qpn) {
            conv.qpns.push(qpn);
        }
        conv.points.push(PsnPoint {
            frame: row.number,
            time_ns: row.time_ns,
            from_a: conv.a == row.source,
            qpn,
            psn,
            role: row.role,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::capture::LinkType;
    use crate::wire::spec::{build, PacketSpec, SpecOperation};

    fn frame(spec: &PacketSpec, t: u64) -> CapturedFrame {
        let data = build(spec).unwrap_or_default();
        CapturedFrame {
            timestamp_ns: t,
            orig_len: data.len() as u32,
            link_type: LinkType::Ethernet,
            data,
        }
    }

    fn spec(op: SpecOperation, psn: u32, forward: bool) -> PacketSpec {
        let base = PacketSpec {
            operation: op,
            psn,
            ..PacketSpec::default()
        };
        if forward {
            base
        } else {
            PacketSpec {
                src_ip: base.dst_ip,
                dst_ip: base.src_ip,
                dest_qp: 0x12,
                ..base
            }
        }
    }

    #[test]
    fn rows_carry_addresses_opcode_and_a_valid_icrc() {
        let f = frame(
            &PacketSpec {
                operation: SpecOperation::Write,
                psn: 7,
                payload: crate::wire::spec::Payload::Size(16),
                ..PacketSpec::default()
            },
            5,
        );
        let row = packet_row(1, &f);
        assert_eq!(row.source, "192.168.1.1");
        assert_eq!(row.destination, "192.168.1.2");
        // RC RDMA WRITE Only is 0x0A (IBTA Vol 1 §9.2, Table 35).
        assert_eq!(row.opcode, Some(0x0A));
        assert_eq!((row.qpn, row.psn), (Some(0x11), Some(7)));
        assert_eq!(row.icrc, IcrcStatus::Valid);
        assert_eq!(row.role, PacketRole::Request);
        assert!(!row.has_error());
    }

    #[test]
    fn a_flipped_covered_byte_makes_the_icrc_invalid() {
        let mut f = frame(&spec(SpecOperation::Send, 0, true), 0);
        // The last payload/BTH byte before the ICRC is covered by it.
        let at = f.data.len() - 5;
        f.data[at] ^= 0xFF;
        let row = packet_row(1, &f);
        assert_eq!(row.icrc, IcrcStatus::Invalid);
        assert!(row.has_error());
    }

    #[test]
    fn garbage_is_a_located_error_not_a_panic() {
        let f = CapturedFrame {
            timestamp_ns: 0,
            orig_len: 3,
            link_type: LinkType::Ethernet,
            data: vec![1, 2, 3],
        };
        let row = packet_row(4, &f);
        assert_eq!(row.icrc, IcrcStatus::Absent);
        assert_eq!(row.role, PacketRole::Other);
        assert!(row.error.as_deref().is_some_and(|e| e.contains("byte")));
    }

    #[test]
    fn resent_psns_are_retransmissions_and_naks_cnps_are_recognised() {
        use SpecOperation::*;
        let frames = [
            frame(&spec(Write, 10, true), 0),
            frame(&spec(Write, 11, true), 1),
            frame(&spec(Nak, 10, false), 2),
            frame(&spec(Cnp, 0, false), 3),
            frame(&spec(Write, 10, true), 4),
            frame(&spec(Ack, 11, false), 5),
        ];
        let mut rows: Vec<PacketRow> = frames
            .iter()
            .enumerate()
            .map(|(i, f)| packet_row(i + 1, f))
            .collect();
        classify_retransmissions(&mut rows);
        let roles: Vec<PacketRole> = rows.iter().map(|r| r.role).collect();
        use PacketRole as R;
        assert_eq!(
            roles,
            [
                R::Request,
                R::Request,
                R::Nak,
                R::Cnp,
                R::Retransmission,
                R::Response
            ]
        );
        let convs = conversations(&rows);
        assert_eq!(convs.len(), 1, "both directions are one conversation");
        assert_eq!(convs[0].qpns, [0x11, 0x12]);
        assert_eq!(convs[0].count(R::Retransmission), 1);
        assert!(!convs[0].points[2].from_a);

        let problems = RowFilter {
            problems_only: true,
            ..RowFilter::default()
        };
        let shown: Vec<usize> = rows
            .iter()
            .filter(|r| problems.matches(r))
            .map(|r| r.number)
            .collect();
        assert_eq!(shown, [3, 5]);
        let qp12 = RowFilter {
            qpn: Some(0x12),
            ..RowFilter::default()
        };
        assert_eq!(rows.iter().filter(|r| qp12.matches(r)).count(), 3);
    }

    #[test]
    fn psn_order_wraps_at_2_to_the_24() {
        use SpecOperation::*;
        let frames = [
            frame(&spec(Write, 0xFF_FFFF, true), 0),
            frame(&spec(Write, 0, true), 1),
        ];
        let mut rows: Vec<PacketRow> = frames
            .iter()
            .enumerate()
            .map(|(i, f)| packet_row(i + 1, f))
            .collect();
        classify_retransmissions(&mut rows);
        assert_eq!(rows[1].role, PacketRole::Request);
    }
}
