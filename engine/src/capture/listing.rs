//! A capture as a packet list: what the lab's capture view and `native-probe decode`
//! show for each frame. [`packet_row`] gives the full row of a frame from [`dissect`];
//! [`summarize_frame`] the columns a big capture keeps, on a fast path that reads
//! well-formed RoCE v2 frames in place.
//!
//! Responses (ACK, NAK, RNR NAK, READ responses, atomic ACKs) carry the PSN of the
//! request they answer (IBTA Vol 1 §9.7.5.1). CNPs (opcode 0x81, IBTA Vol 1 Annex A17
//! §A17.9.3) tell a sender to slow down and carry no meaningful PSN. Which requests are
//! retransmissions is judged across the capture, in [`super::conversation`].

use super::conversation::classify_summaries;
use super::dissect::{dissect, DecodedFrame, FieldValue};
use super::pcap::{CaptureCursor, CaptureError, CapturedFrame, FrameRef, LinkType};
use crate::wire::bth::BthPacket;
use crate::wire::bytes::{slice, u8_at};
use crate::wire::ethernet::MacAddr;
use crate::wire::ext::Syndrome;
use crate::wire::ipv4::Ipv4Packet;
use crate::wire::ipv6::Ipv6Packet;
use crate::wire::opcode::{Opcode, Operation};
use crate::wire::roce::{computed_icrc, locate, stored_icrc, FcsMode};
use crate::wire::udp::{PseudoHeader, UdpPacket};
use crate::wire::{Header, WireError};
use core::fmt;
use core::net::{Ipv4Addr, Ipv6Addr};
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

impl PacketRole {
    /// The role in words, as the capture view labels a packet.
    pub fn name(self) -> &'static str {
        match self {
            PacketRole::Request => "request",
            PacketRole::Retransmission => "retransmission",
            PacketRole::Response => "ACK/response",
            PacketRole::Nak => "NAK",
            PacketRole::RnrNak => "RNR NAK",
            PacketRole::Cnp => "CNP",
            PacketRole::Other => "other",
        }
    }
    /// A role the packet list marks: a retransmission, a NAK or a CNP.
    pub fn is_marked(self) -> bool {
        !matches!(
            self,
            PacketRole::Request | PacketRole::Response | PacketRole::Other
        )
    }
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
/// [`classify_summaries`] compares PSNs across the capture.
fn role_of(d: &DecodedFrame) -> PacketRole {
    let Some(op) = d.uint("infiniband.bth.opcode") else {
        return PacketRole::Other;
    };
    let aeth = d
        .uint("infiniband.aeth.syndrome")
        .map(|s| Syndrome::from_byte(s as u8));
    let opcode = Opcode(op as u8);
    role(opcode, opcode.operation(), aeth)
}

/// The role of a transport packet from its opcode (and the operation it stands for) and
/// AETH syndrome.
fn role(opcode: Opcode, operation: Option<Operation>, aeth: Option<Syndrome>) -> PacketRole {
    if opcode == Opcode::CNP {
        return PacketRole::Cnp;
    }
    // AETH syndrome bits 6:5 (IBTA Vol 1 §9.3.5 Table 43): 00 ACK, 01 RNR NAK, 11 NAK.
    match aeth {
        Some(Syndrome::RnrNak { .. }) => return PacketRole::RnrNak,
        Some(Syndrome::Nak(_)) => return PacketRole::Nak,
        Some(_) => return PacketRole::Response,
        None => {}
    }
    match operation {
        Some(o) if o.is_response() => PacketRole::Response,
        Some(_) => PacketRole::Request,
        None => PacketRole::Other,
    }
}

/// Whether a dissected frame's ICRC checks out.
pub fn icrc_status(d: &DecodedFrame) -> IcrcStatus {
    match (
        d.field("infiniband.invariant.crc"),
        d.warnings.iter().any(|w| w.header == Header::Icrc),
    ) {
        (None, _) => IcrcStatus::Absent,
        (Some(_), true) => IcrcStatus::Invalid,
        (Some(_), false) => IcrcStatus::Valid,
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
    let icrc = icrc_status(d);
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
    /// Whether the packet list shows this frame: the capture view's test, over summaries.
    pub fn shows(&self, s: &FrameSummary) -> bool {
        (self.qpn.is_none() || s.qpn == self.qpn)
            && (self.opcode.is_none() || s.opcode == self.opcode)
            && (!self.problems_only || s.is_problem())
    }
}

/// A host as the packet list names it: IP address (RoCE v2), LID (native IB) or MAC
/// address, kept as bytes so a million of them cost no allocation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
pub enum HostAddr {
    /// Not decoded.
    #[default]
    None,
    V4([u8; 4]),
    V6([u8; 16]),
    Lid(u16),
    Mac([u8; 6]),
}

impl fmt::Display for HostAddr {
    /// The same text as the dissector's field (so as [`PacketRow::source`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HostAddr::None => Ok(()),
            HostAddr::V4(a) => Ipv4Addr::from(a).fmt(f),
            HostAddr::V6(a) => Ipv6Addr::from(a).fmt(f),
            HostAddr::Lid(l) => l.fmt(f),
            HostAddr::Mac(m) => MacAddr(m).fmt(f),
        }
    }
}

/// What the packet list keeps of each frame of a big capture: the columns it filters
/// and groups on, without the text. [`packet_row`] gives the full row of the few frames
/// on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameSummary {
    pub source: HostAddr,
    pub destination: HostAddr,
    pub opcode: Option<u8>,
    pub qpn: Option<u32>,
    pub psn: Option<u32>,
    /// Bytes captured.
    pub len: u32,
    pub icrc: IcrcStatus,
    pub role: PacketRole,
    /// The AETH syndrome, when the packet has one.
    pub aeth: Option<Syndrome>,
    /// A structural error or a bad checksum/CRC ([`PacketRow::has_error`]).
    pub problem: bool,
}

/// The Info column of a transport packet, as [`DecodedFrame::summary`] and the packet
/// list's fast path (`FrameSummary::info`) both write it.
#[derive(Debug, Clone, Copy)]
pub struct InfoLine<'a> {
    pub opcode: Opcode,
    pub qpn: u32,
    pub psn: u32,
    pub aeth: Option<Syndrome>,
    /// A checksum or CRC did not match.
    pub bad_checksum: bool,
    /// Where decoding stopped.
    pub error: Option<&'a WireError>,
}

impl fmt::Display for InfoLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.opcode.named() {
            Some(name) => name.fmt(f)?,
            None => write!(f, "opcode {:#04x}", self.opcode.0)?,
        }
        write!(f, " QP={:#08x} PSN={}", self.qpn, self.psn)?;
        if let Some(s) = self.aeth {
            write!(f, " {s}")?;
        }
        if self.bad_checksum {
            f.write_str(" [bad checksum]")?;
        }
        if let Some(e) = self.error {
            write!(f, " [{e}]")?;
        }
        Ok(())
    }
}

impl FrameSummary {
    /// The Info column of a frame [`summarize_roce`] read (a frame that was not is
    /// described by its [`PacketRow::info`]).
    pub fn info(&self) -> InfoLine<'static> {
        InfoLine {
            opcode: Opcode(self.opcode.unwrap_or(0)),
            qpn: self.qpn.unwrap_or(0),
            psn: self.psn.unwrap_or(0),
            aeth: self.aeth,
            bad_checksum: self.icrc == IcrcStatus::Invalid,
            error: None,
        }
    }

    /// Whether [`RowFilter`] would show the frame.
    pub fn is_problem(&self) -> bool {
        self.problem
            || matches!(
                self.role,
                PacketRole::Nak | PacketRole::RnrNak | PacketRole::Retransmission
            )
    }
}

fn host_of(d: &DecodedFrame, frame: &[u8], names: [&str; 4]) -> HostAddr {
    for (i, name) in names.iter().enumerate() {
        let Some(f) = d.field(name) else { continue };
        let b = slice(frame, f.offset, f.offset.saturating_add(f.len));
        return match i {
            0 => b.try_into().map(HostAddr::V4).unwrap_or_default(),
            1 => b.try_into().map(HostAddr::V6).unwrap_or_default(),
            2 => match f.value {
                FieldValue::Uint(v) => HostAddr::Lid(v as u16),
                _ => HostAddr::None,
            },
            _ => b.try_into().map(HostAddr::Mac).unwrap_or_default(),
        };
    }
    HostAddr::None
}

/// The summary of an already dissected frame.
pub fn summary_from(d: &DecodedFrame, frame: &[u8]) -> FrameSummary {
    let row = row_from(0, 0, d);
    FrameSummary {
        source: host_of(
            d,
            frame,
            ["ip.src", "ipv6.src", "infiniband.lrh.slid", "eth.src"],
        ),
        destination: host_of(
            d,
            frame,
            ["ip.dst", "ipv6.dst", "infiniband.lrh.dlid", "eth.dst"],
        ),
        opcode: row.opcode,
        qpn: row.qpn,
        psn: row.psn,
        len: row.len as u32,
        icrc: row.icrc,
        role: row.role,
        aeth: d
            .uint("infiniband.aeth.syndrome")
            .map(|s| Syndrome::from_byte(s as u8)),
        problem: row.has_error(),
    }
}

/// The fast path of [`summarize_frame`] alone: a well-formed RoCE v2 frame on Ethernet, walked
/// once by [`locate`] (the checks the dissector makes, in its order) and read in place,
/// with the IPv4 header checksum, the UDP checksum (when present) and the ICRC checked
/// but no text. `None` for any frame the dissector would report an error or a warning on
/// other than the ICRC: it then describes the frame. For a frame it reads,
/// [`FrameSummary::info`] is the Info column [`packet_row`] would give.
pub fn summarize_roce(f: &[u8]) -> Option<FrameSummary> {
    let l = locate(f, FcsMode::Absent).ok()?;
    let t = l.transport;
    let ip = slice(f, l.ip_offset, l.ip_end);
    let (source, destination, pseudo) = if l.ip_version == 4 {
        let ip = Ipv4Packet::new_checked(ip).ok()?;
        if !ip.verify_checksum() {
            return None;
        }
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        (
            HostAddr::V4(src.octets()),
            HostAddr::V4(dst.octets()),
            PseudoHeader::V4 { src, dst },
        )
    } else {
        let ip = Ipv6Packet::new_checked(ip).ok()?;
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        (
            HostAddr::V6(src.octets()),
            HostAddr::V6(dst.octets()),
            PseudoHeader::V6 { src, dst },
        )
    };
    let udp = UdpPacket::new_checked(slice(f, l.udp_offset, l.ip_end)).ok()?;
    if udp.checksum() != 0 && !udp.verify_checksum(pseudo) {
        return None;
    }
    let bth = BthPacket::new_checked(slice(f, t.bth_offset, t.icrc_offset)).ok()?;
    let valid = computed_icrc(f, &l).ok()? == stored_icrc(f, &l);
    let aeth = t.info.headers.aeth.then(|| {
        Syndrome::from_byte(u8_at(
            f,
            t.ext_offset + t.info.headers.offset_of(Header::Aeth),
        ))
    });
    Some(FrameSummary {
        source,
        destination,
        opcode: Some(bth.opcode().0),
        qpn: Some(bth.dest_qp().0),
        psn: Some(bth.psn().value()),
        len: f.len() as u32,
        icrc: if valid {
            IcrcStatus::Valid
        } else {
            IcrcStatus::Invalid
        },
        role: role(bth.opcode(), Some(t.info.operation), aeth),
        aeth,
        problem: !valid,
    })
}

/// Summarizes one captured frame: what [`packet_row`] would say of it, without the
/// text. Well-formed RoCE v2 frames take a fast path that allocates nothing; any other
/// frame goes through the dissector, so both agree on every input.
pub fn summarize_frame(data: &[u8], link: LinkType) -> FrameSummary {
    if link == LinkType::Ethernet {
        if let Some(s) = summarize_roce(data) {
            return s;
        }
    }
    summary_from(&dissect(data, link), data)
}

/// Frames read before [`CaptureDecoder`] sizes its lists for the whole file.
const RESERVE_AFTER: usize = 4096;

/// A capture decoded into summaries a slice of work at a time: the packet list of the
/// lab's capture view, and the decode benchmark, both run this.
pub struct CaptureDecoder {
    cursor: CaptureCursor,
    pub frames: Vec<FrameRef>,
    pub summaries: Vec<FrameSummary>,
    finished: bool,
    /// Size of the whole file, when it arrives in parts.
    file_len: usize,
}

impl CaptureDecoder {
    /// Reads the file header of `bytes`.
    pub fn new(bytes: &[u8]) -> Self {
        CaptureDecoder {
            cursor: CaptureCursor::new(bytes),
            frames: Vec::new(),
            summaries: Vec::new(),
            finished: false,
            file_len: 0,
        }
    }

    /// Tells the decoder the size of the whole file when it is given in parts
    /// ([`CaptureDecoder::step_of`]), so it can size its lists once.
    pub fn expect_len(&mut self, file_len: usize) {
        self.file_len = file_len;
    }

    /// Reads and summarizes up to `max_frames` more frames of `bytes` (the bytes given
    /// to [`CaptureDecoder::new`]); true while frames remain. When the file is done,
    /// classifies retransmissions across the whole capture.
    pub fn step(&mut self, bytes: &[u8], max_frames: usize) -> bool {
        self.step_of(bytes, true, max_frames)
    }

    /// [`CaptureDecoder::step`] while the file is still arriving: `bytes` is the part read
    /// so far and `complete` whether that is all of it. Returns false when the frames
    /// read so far are done (or the whole file is, once `complete`).
    pub fn step_of(&mut self, bytes: &[u8], complete: bool, max_frames: usize) -> bool {
        if self.finished {
            return false;
        }
        for _ in 0..max_frames {
            if self.frames.len() == RESERVE_AFTER {
                // Room for the rest of the file at the average record size so far, so
                // the lists are not copied as they grow.
                let per_frame = (self.cursor.offset() / RESERVE_AFTER).max(1);
                let len = bytes.len().max(self.file_len);
                let rest = len.saturating_sub(self.cursor.offset()) / per_frame;
                let more = rest + rest / 16;
                self.frames.reserve(more);
                self.summaries.reserve(more);
            }
            let Some(f) = self.cursor.next_frame_of(bytes, complete) else {
                if complete || self.cursor.error().is_some() {
                    self.finished = true;
                    classify_summaries(&mut self.summaries);
                }
                return false;
            };
            self.summaries
                .push(summarize_frame(f.data(bytes), f.link_type));
            self.frames.push(f);
        }
        true
    }

    /// Bytes of the file read so far.
    pub fn offset(&self) -> usize {
        self.cursor.offset()
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The error that stopped reading the file, if any.
    pub fn error(&self) -> Option<&CaptureError> {
        self.cursor.error()
    }
}

/// Decodes a whole capture in one go (see [`CaptureDecoder`]).
pub fn decode_capture(bytes: &[u8]) -> CaptureDecoder {
    let mut d = CaptureDecoder::new(bytes);
    while d.step(bytes, usize::MAX) {}
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::conversation::conversations_of;
    use crate::capture::pcap::LinkType;
    use crate::capture::spec::{build, PacketSpec, SpecOperation};
    use crate::psn::Psn;

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
                payload: crate::capture::spec::Payload::Size(16),
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
    fn the_fast_path_writes_the_dissectors_info_column() {
        for op in SpecOperation::ALL {
            for v6 in [false, true] {
                let mut spec = spec(op, 0xFF_FFFE, true);
                if v6 {
                    spec.src_ip = "fd00::1".parse().unwrap();
                    spec.dst_ip = "fd00::2".parse().unwrap();
                }
                let mut f = build(&spec).unwrap();
                for bad_icrc in [false, true] {
                    if bad_icrc {
                        let l = crate::wire::roce::locate(&f, FcsMode::Absent).unwrap();
                        f[l.transport.icrc_offset] ^= 1;
                    }
                    let d = dissect(&f, LinkType::Ethernet);
                    assert_eq!(d.summary.contains("[bad checksum]"), bad_icrc);
                    match summarize_roce(&f) {
                        Some(s) => assert_eq!(s.info().to_string(), d.summary, "{op:?} v6={v6}"),
                        // Over IPv6 the UDP checksum, which covers the ICRC, fails too:
                        // the dissector describes that frame.
                        None => assert!(v6 && bad_icrc, "{op:?} v6={v6}"),
                    }
                }
            }
        }
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

    fn classified(frames: &[CapturedFrame]) -> Vec<FrameSummary> {
        let mut summaries: Vec<FrameSummary> = frames
            .iter()
            .map(|f| summarize_frame(&f.data, f.link_type))
            .collect();
        classify_summaries(&mut summaries);
        summaries
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
        let summaries = classified(&frames);
        let roles: Vec<PacketRole> = summaries.iter().map(|s| s.role).collect();
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
        let convs = conversations_of(&summaries, |i| frames[i].timestamp_ns);
        assert_eq!(convs.len(), 1, "both directions are one conversation");
        assert_eq!(convs[0].qpns, [0x11, 0x12]);
        assert_eq!(convs[0].count(R::Retransmission), 1);
        assert!(!convs[0].points[2].from_a);
        assert_eq!(convs[0].points[4].time_ns, 4);

        // The capture view's filter, by 1-based frame number.
        let shown = |filter: &RowFilter| -> Vec<usize> {
            (1..=summaries.len())
                .filter(|&n| filter.shows(&summaries[n - 1]))
                .collect()
        };
        let problems = RowFilter {
            problems_only: true,
            ..RowFilter::default()
        };
        assert_eq!(shown(&problems), [3, 5]);
        let qp12 = RowFilter {
            qpn: Some(0x12),
            ..RowFilter::default()
        };
        assert_eq!(shown(&qp12), [3, 4, 6]);
    }

    #[test]
    fn psn_order_wraps_at_2_to_the_24() {
        use SpecOperation::*;
        let frames = [
            frame(&spec(Write, 0xFF_FFFF, true), 0),
            frame(&spec(Write, 0, true), 1),
        ];
        assert_eq!(classified(&frames)[1].role, PacketRole::Request);
    }

    #[test]
    fn a_capture_crossing_the_wrap_classifies_as_one_that_does_not() {
        use PacketRole as R;
        // Steps from the first PSN: two resends, one of them of a PSN before the wrap
        // arriving after it.
        let steps = [0u32, 1, 2, 3, 1, 4, 2, 5];
        let roles = |first: u32| -> Vec<PacketRole> {
            let frames: Vec<CapturedFrame> = steps
                .iter()
                .enumerate()
                .map(|(t, &n)| {
                    let psn = Psn::truncate(first).wrapping_add(n).value();
                    frame(&spec(SpecOperation::Write, psn, true), t as u64)
                })
                .collect();
            classified(&frames).iter().map(|s| s.role).collect()
        };
        let expected = [
            R::Request,
            R::Request,
            R::Request,
            R::Request,
            R::Retransmission,
            R::Request,
            R::Retransmission,
            R::Request,
        ];
        assert_eq!(roles(0x100), expected);
        // 0xFF_FFFE, 0xFF_FFFF, 0, 1, 0xFF_FFFF (resent), 2, 0 (resent), 3.
        assert_eq!(roles(0xFF_FFFE), expected);
    }
}
