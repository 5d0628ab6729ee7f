//! Field-level decoding for the UI: every header becomes a [`Layer`] of [`Field`]s
//! named with Wireshark display-filter names, each with its exact byte range (and bit
//! mask when sub-byte) so the app can highlight it in a hex dump.
//!
//! Names follow Wireshark 4.0 (`tshark -G fields`). Fields Wireshark does not define
//! get names in the same style and are marked in their label: `infiniband.bth.fecn`,
//! `infiniband.bth.becn` (Wireshark shows byte 4 of the BTH only as reserved),
//! `infiniband.xrceth.xrcsrq`, `infiniband.pad`, `infiniband.cnp.reserved`.
//!
//! Each header's fields are a table of rows whose offsets are `wire`'s own layout
//! constants (its `field` modules), so no offset is stated twice.
//!
//! Decoding stops at the first structural error (recorded in
//! [`DecodedFrame::error`] with its location); checksum and CRC mismatches do not
//! stop it and are listed in [`DecodedFrame::warnings`].

mod ipoib;
mod mad;

use super::erf::{self, LINKTYPE_ERF};
use super::hex::plain_hex;
use super::listing::InfoLine;
use super::pcap::LinkType;
use crate::wire::bytes::{be16, be32, slice, u8_at};
use crate::wire::crc::{ethernet_fcs, ib_icrc, roce_v2_icrc, vcrc, ICRC_LEN, VCRC_LEN};
use crate::wire::ethernet::{self, EtherType, EthernetFrame, MacAddr, FCS_LEN};
use crate::wire::ext::{header_len, NakCode, Syndrome, CNP_PADDING_LEN, RNR_TIMER_US};
use crate::wire::ib::{check_grh, check_lrh, GrhPacket, LrhPacket, GRH_LEN, LRH_LEN};
use crate::wire::ib::{LNH_IBA_GLOBAL, LNH_IBA_LOCAL, NXTHDR_IBA};
use crate::wire::ipv4::{Ipv4Packet, PROTOCOL_UDP};
use crate::wire::ipv6::Ipv6Packet;
use crate::wire::opcode::Opcode;
use crate::wire::roce::{check_ipv4, check_ipv6, check_udp, not_roce_ethertype};
use crate::wire::udp::{PseudoHeader, UdpPacket, ROCE_V2_PORT};
use crate::wire::{bth, ipv6, transport, udp, ErrorKind, Header, WireError};

use core::net::{Ipv4Addr, Ipv6Addr};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A field's value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FieldValue {
    Uint(u64),
    Bool(bool),
    Text(String),
}

/// One decoded field. Names, labels and most meanings are the dissector's own text, so
/// a frame's tree costs an allocation only for what the frame itself says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Wireshark display-filter name, e.g. `infiniband.bth.psn`.
    pub name: &'static str,
    /// Human label, e.g. "Packet Sequence Number".
    pub label: &'static str,
    pub value: FieldValue,
    /// First byte of the field in the frame.
    pub offset: usize,
    /// Bytes the field spans.
    pub len: usize,
    /// Bits of those bytes (read big-endian) that hold the field, when sub-byte.
    pub mask: Option<u64>,
    /// What the value means.
    pub meaning: Cow<'static, str>,
}

/// One header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layer {
    /// Wireshark protocol/subtree name, e.g. `eth`, `ip`, `infiniband.bth`.
    pub name: &'static str,
    pub title: &'static str,
    pub offset: usize,
    pub len: usize,
    pub fields: Vec<Field>,
}

/// A dissected frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecodedFrame {
    pub len: usize,
    pub layers: Vec<Layer>,
    /// One line in the style of Wireshark's Info column.
    pub summary: String,
    /// Where and why decoding stopped, if it did.
    pub error: Option<WireError>,
    /// Checksum/CRC mismatches found along the way.
    pub warnings: Vec<WireError>,
}

impl DecodedFrame {
    /// The first field with this name, in any layer.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.layers
            .iter()
            .flat_map(|l| l.fields.iter())
            .find(|f| f.name == name)
    }
    /// The MAD the frame carries, named as tshark names it: "SubnGet(SMInfo)",
    /// "CM: ConnectRequest".
    pub fn mad_name(&self) -> Option<String> {
        let field = |n| self.uint(&format!("infiniband.mad.{n}"));
        let (class, method) = (field("mgmtclass")?, field("method")?);
        let attribute = field("attributeid")?;
        Some(crate::wire::mad::describe(
            class as u8,
            method as u8,
            attribute as u16,
        ))
    }
    /// The numeric value of a field (booleans as 0/1).
    pub fn uint(&self, name: &str) -> Option<u64> {
        match &self.field(name)?.value {
            FieldValue::Uint(v) => Some(*v),
            FieldValue::Bool(b) => Some(u64::from(*b)),
            FieldValue::Text(_) => None,
        }
    }
}

/// How a row's bytes are read.
#[derive(Clone, Copy)]
enum Read {
    Uint,
    /// One bit, set or not.
    Flag,
    Mac,
    Ipv4,
    /// An IPv6 address or an InfiniBand GID.
    Ipv6,
    /// Bytes with no structure, as hex.
    Hex,
}

/// What a row's value means.
#[derive(Clone, Copy)]
enum Means {
    Text(&'static str),
    /// Said by the value: listed values, and what any other value means.
    Pick(&'static [(u64, &'static str)], &'static str),
    /// Worked out from the value.
    By(fn(u64) -> String),
}

/// One field of a header's table. `at` is the offset `wire` names for the field, so the
/// dissector never states a header's layout a second time; `len` is how many bytes the
/// field is read from, and `mask` the bits of them it holds.
#[derive(Clone, Copy)]
struct Row {
    name: &'static str,
    label: &'static str,
    at: usize,
    len: usize,
    mask: Option<u64>,
    read: Read,
    means: Means,
}

const fn row(name: &'static str, label: &'static str, at: usize, len: usize, read: Read) -> Row {
    let (mask, means) = (None, Means::Text(""));
    Row {
        name,
        label,
        at,
        len,
        mask,
        read,
        means,
    }
}

const fn num(name: &'static str, label: &'static str, at: usize, len: usize) -> Row {
    row(name, label, at, len, Read::Uint)
}

const fn flag(name: &'static str, label: &'static str, at: usize, mask: u64) -> Row {
    row(name, label, at, 1, Read::Flag).bits(mask)
}

/// An address; its kind fixes its length.
const fn addr(name: &'static str, label: &'static str, at: usize, read: Read) -> Row {
    let len = match read {
        Read::Mac => 6,
        Read::Ipv4 => 4,
        _ => 16,
    };
    row(name, label, at, len, read)
}

/// `len` bytes as hex, from the start of their layer.
const fn hex(name: &'static str, label: &'static str, len: usize) -> Row {
    row(name, label, 0, len, Read::Hex)
}

/// `len` bytes as hex, at `at`.
const fn bytes(name: &'static str, label: &'static str, at: usize, len: usize) -> Row {
    row(name, label, at, len, Read::Hex)
}

impl Row {
    const fn bits(mut self, mask: u64) -> Row {
        self.mask = Some(mask);
        self
    }
    const fn means(mut self, text: &'static str) -> Row {
        self.means = Means::Text(text);
        self
    }
    const fn by(mut self, meaning: fn(u64) -> String) -> Row {
        self.means = Means::By(meaning);
        self
    }
    const fn pick(mut self, known: &'static [(u64, &'static str)], other: &'static str) -> Row {
        self.means = Means::Pick(known, other);
        self
    }
}

const VARIANT: &str = "variant: masked out of the ICRC";
const ECN: &str = "Explicit Congestion Notification";
#[rustfmt::skip]
const ECN_VALUES: &[(u64, &str)] = &[
    (0, "Not-ECT: not ECN-capable"), (1, "ECT(1): ECN-capable"), (2, "ECT(0): ECN-capable"),
];
const CE: &str = "CE: congestion experienced (a switch marked it; DCQCN answers with a CNP)";
#[rustfmt::skip]
const ETHERTYPES: &[(u64, &str)] = &[
    (EtherType::IPV4.0 as u64, "IPv4"),
    (EtherType::IPV6.0 as u64, "IPv6"),
    (EtherType::VLAN.0 as u64, "802.1Q tag follows"),
    (EtherType::ROCE_V1.0 as u64, "RoCE v1 (GRH over Ethernet)"),
];
const UDP_PROTOCOL: &[(u64, &str)] = &[(PROTOCOL_UDP as u64, "UDP")];
const LNH: &[(u64, &str)] = &[
    (LNH_IBA_LOCAL as u64, "IBA local: BTH follows"),
    (LNH_IBA_GLOBAL as u64, "IBA global: GRH follows"),
    (0, "raw"),
];
const AETH_KIND: &[(u64, &str)] = &[(0, "00: ACK"), (1, "01: RNR NAK"), (2, "10: reserved")];

/// A layer as the tree shows it: Wireshark's name for it, its title and its fields. The
/// tables keep one field to a line (rustfmt would spread each over eight); the layers with
/// no rows get their fields from the frame.
type Table = (&'static str, &'static str, &'static [Row]);

/// Header `h`'s table: Ethernet, IP and UDP here, the rest from [`ib_table`].
#[rustfmt::skip]
fn table(h: Header) -> Table {
    use crate::wire::{ethernet::field as eth, ipv4::field as ip, ipv6::field as ip6};
    use crate::wire::udp::field as udp;
    match h {
        Header::Ethernet => ("eth", "Ethernet II", const { &[
            addr("eth.dst", "Destination", eth::DESTINATION.start, Read::Mac)
                .means("MAC address of the next hop"),
            addr("eth.src", "Source", eth::SOURCE.start, Read::Mac)
                .means("MAC address of the sender"),
            num("eth.type", "Type", eth::ETHERTYPE, 2).pick(ETHERTYPES, "other"),
        ] }),
        // Offsets from the frame's start, as `wire` counts the tag's.
        Header::Vlan => ("vlan", "802.1Q Virtual LAN", const { &[
            num("vlan.priority", "Priority", eth::TCI, 2).bits(0xE000)
                .means("PCP: selects the traffic class, and so the PFC priority (IEEE 802.1Qbb)"),
            flag("vlan.dei", "DEI", eth::TCI, 0x10).means("Drop Eligible Indicator"),
            num("vlan.id", "ID", eth::TCI, 2).bits(0x0FFF).means("VLAN identifier"),
            num("vlan.etype", "Type", eth::INNER_ETHERTYPE, 2).pick(ETHERTYPES, "other"),
        ] }),
        Header::Ipv4 => ("ip", "Internet Protocol Version 4", const { &[
            num("ip.version", "Version", ip::VER_IHL, 1).bits(0xF0).means("4"),
            num("ip.hdr_len", "Header Length", ip::VER_IHL, 1).bits(0x0F)
                .by(|words| format!("{} bytes", words * 4)),
            num("ip.dsfield.dscp", "Differentiated Services Codepoint", ip::DS, 1).bits(0xFC)
                .means("DSCP: the switch maps it to a traffic class / PFC priority"),
            num("ip.dsfield.ecn", ECN, ip::DS, 1).bits(0x03).pick(ECN_VALUES, CE),
            num("ip.len", "Total Length", ip::TOTAL_LEN, 2).means("bytes of IP header and payload"),
            num("ip.id", "Identification", ip::IDENT, 2),
            flag("ip.flags.df", "Don't fragment", ip::FLAGS_FRAG, 0x40)
                .means("RoCE v2 packets are never fragmented"),
            num("ip.frag_offset", "Fragment Offset", ip::FLAGS_FRAG, 2).bits(0x1FFF),
            num("ip.ttl", "Time to Live", ip::TTL, 1).means(VARIANT),
            num("ip.proto", "Protocol", ip::PROTOCOL, 1).pick(UDP_PROTOCOL, "not UDP"),
            num("ip.checksum", "Header Checksum", ip::CHECKSUM, 2),
            addr("ip.src", "Source Address", ip::SRC, Read::Ipv4),
            addr("ip.dst", "Destination Address", ip::DST, Read::Ipv4),
        ] }),
        Header::Ipv6 => ("ipv6", "Internet Protocol Version 6", const { &[
            num("ipv6.version", "Version", ip6::VER_TC_FLOW, 1).bits(0xF0).means("6"),
            num("ipv6.tclass", "Traffic Class", ip6::VER_TC_FLOW, 4).bits(0x0FF0_0000)
                .means(VARIANT),
            num("ipv6.tclass.dscp", "Differentiated Services Codepoint", ip6::VER_TC_FLOW, 4)
                .bits(0x0FC0_0000).means("DSCP"),
            num("ipv6.tclass.ecn", ECN, ip6::VER_TC_FLOW, 4).bits(0x0030_0000).pick(ECN_VALUES, CE),
            num("ipv6.flow", "Flow Label", ip6::FLOW_LABEL, 3).bits(0x000F_FFFF).means(VARIANT),
            num("ipv6.plen", "Payload Length", ip6::PAYLOAD_LEN, 2)
                .means("bytes after this header"),
            num("ipv6.nxt", "Next Header", ip6::NEXT_HEADER, 1).pick(UDP_PROTOCOL, "not UDP"),
            num("ipv6.hlim", "Hop Limit", ip6::HOP_LIMIT, 1).means(VARIANT),
            addr("ipv6.src", "Source Address", ip6::SRC, Read::Ipv6),
            addr("ipv6.dst", "Destination Address", ip6::DST, Read::Ipv6),
        ] }),
        Header::Udp => ("udp", "User Datagram Protocol", const { &[
            num("udp.srcport", "Source Port", udp::SRC_PORT, 2)
                .means("flow entropy: senders hash the QP pair into it for ECMP"),
            num("udp.dstport", "Destination Port", udp::DST_PORT, 2)
                .pick(&[(ROCE_V2_PORT as u64, "4791: RoCE v2")], "not RoCE v2"),
            num("udp.length", "Length", udp::LENGTH, 2).means("bytes of UDP header and payload"),
            num("udp.checksum", "Checksum", udp::CHECKSUM, 2),
        ] }),
        Header::Fcs => ("eth.trailer", "Ethernet trailer", &[]),
        _ => ib_table(h),
    }
}

/// InfiniBand's routing headers, the BTH and the layers after the transport headers; the
/// extended transport headers from [`ext_table`].
#[rustfmt::skip]
fn ib_table(h: Header) -> Table {
    use crate::wire::{bth::field as bth, ib::field as ib};
    match h {
        Header::Lrh => ("infiniband.lrh", "Local Route Header", const { &[
            num("infiniband.lrh.vl", "Virtual Lane", ib::VL_LVER, 1).bits(0xF0).means(VARIANT),
            num("infiniband.lrh.lver", "Link Version", ib::VL_LVER, 1).bits(0x0F),
            num("infiniband.lrh.sl", "Service Level", ib::SL_LNH, 1).bits(0xF0),
            num("infiniband.lrh.reserved2", "Reserved (2 bits)", ib::SL_LNH, 1).bits(0x0C),
            num("infiniband.lrh.lnh", "Link Next Header", ib::SL_LNH, 1).bits(0x03)
                .pick(LNH, "IP (non-IBA)"),
            num("infiniband.lrh.dlid", "Destination Local ID", ib::DLID, 2),
            num("infiniband.lrh.reserved5", "Reserved (5 bits)", ib::PKTLEN, 2).bits(0xF800),
            num("infiniband.lrh.pktlen", "Packet Length", ib::PKTLEN, 2).bits(0x07FF)
                .means("4-byte words from LRH through ICRC"),
            num("infiniband.lrh.slid", "Source Local ID", ib::SLID, 2),
        ] }),
        Header::Grh => ("infiniband.grh", "Global Route Header", const { &[
            num("infiniband.grh.ipver", "IP Version", ib::GRH_VER_TC_FLOW, 1).bits(0xF0).means("6"),
            num("infiniband.grh.tclass", "Traffic Class", ib::GRH_VER_TC_FLOW, 2).bits(0x0FF0)
                .means("variant"),
            num("infiniband.grh.flowlabel", "Flow Label", ib::GRH_VER_TC_FLOW, 4).bits(0x000F_FFFF)
                .means("variant"),
            num("infiniband.grh.paylen", "Payload Length", ib::GRH_PAYLEN, 2)
                .means("bytes after the GRH through the ICRC"),
            num("infiniband.grh.nxthdr", "Next Header", ib::GRH_NXTHDR, 1)
                .pick(&[(NXTHDR_IBA as u64, "0x1b: IBA transport")], "not IBA"),
            num("infiniband.grh.hoplmt", "Hop Limit", ib::GRH_HOPLMT, 1).means("variant"),
            addr("infiniband.grh.sgid", "Source GID", ib::GRH_SGID, Read::Ipv6),
            addr("infiniband.grh.dgid", "Destination GID", ib::GRH_DGID, Read::Ipv6),
        ] }),
        Header::Bth => ("infiniband.bth", "Base Transport Header", const { &[
            num("infiniband.bth.opcode", "Opcode", bth::OPCODE, 1)
                .by(|op| Opcode(op as u8).name().unwrap_or_else(|| "unknown or reserved".into())),
            flag("infiniband.bth.se", "Solicited Event", bth::FLAGS, 0x80)
                .means("ask the receiver to raise a completion event"),
            flag("infiniband.bth.m", "MigReq", bth::FLAGS, 0x40)
                .means("path migration state (APM)"),
            num("infiniband.bth.padcnt", "Pad Count", bth::FLAGS, 1).bits(0x30)
                .means("bytes padding the payload to a multiple of 4"),
            num("infiniband.bth.tver", "Header Version", bth::FLAGS, 1).bits(0x0F)
                .means("transport header version, 0"),
            num("infiniband.bth.p_key", "Partition Key", bth::P_KEY, 2)
                .means("0xffff: default partition, full member"),
            flag("infiniband.bth.fecn", "FECN (not a Wireshark field)", bth::RESV8A, 0x80)
                .means("Forward ECN, set by a congested IB switch; variant"),
            flag("infiniband.bth.becn", "BECN (not a Wireshark field)", bth::RESV8A, 0x40)
                .means("Backward ECN, set in a CNP; variant"),
            num("infiniband.bth.destqp", "Destination Queue Pair", bth::DEST_QP, 3),
            flag("infiniband.bth.a", "Acknowledge Request", bth::ACK_REQ, 0x80)
                .means("ask the responder for an ACK"),
            num("infiniband.bth.reserved7", "Reserved (7 bits)", bth::ACK_REQ, 1).bits(0x7F),
            num("infiniband.bth.psn", "Packet Sequence Number", bth::PSN, 3)
                .means("24 bits, wraps at 2^24"),
        ] }),
        Header::Payload => ("infiniband.payload", "Payload", &[]),
        Header::Icrc => ("infiniband.icrc", "Invariant CRC", &[]),
        Header::Vcrc => ("infiniband.vcrc", "Variant CRC", &[]),
        _ => ext_table(h),
    }
}

#[rustfmt::skip]
fn ext_table(h: Header) -> Table {
    use crate::wire::ext::field::{aeth, deth, rdeth, reth, xrceth, WHOLE};
    match h {
        Header::Rdeth => ("infiniband.rdeth", "Reliable Datagram Extended Transport Header",
            const { &[num("infiniband.rdeth.eecnxt", "E2E Context", rdeth::EE_CONTEXT, 3)] }),
        Header::Deth => ("infiniband.deth", "Datagram Extended Transport Header", const { &[
            num("infiniband.deth.q_key", "Queue Key", deth::Q_KEY, 4).by(|q| match q & 0x8000_0000 {
                0 => String::new(),
                _ => "controlled Q_Key (high bit set)".into(),
            }),
            num("infiniband.deth.srcqp", "Source Queue Pair", deth::SRC_QP, 3),
        ] }),
        Header::XrcEth => ("infiniband.xrceth", "XRC Extended Transport Header", const { &[
            num("infiniband.xrceth.xrcsrq", "XRC SRQ (not a Wireshark field)", xrceth::XRC_SRQ, 3)
                .means("target shared receive queue"),
        ] }),
        Header::Reth => ("infiniband.reth", "RDMA Extended Transport Header", const { &[
            num("infiniband.reth.va", "Virtual Address", reth::VA, 8)
                .means("remote address of the whole RDMA operation"),
            num("infiniband.reth.r_key", "Remote Key", reth::R_KEY, 4)
                .means("authorises access to the remote memory region"),
            num("infiniband.reth.dmalen", "DMA Length", reth::DMA_LEN, 4)
                .means("bytes of the whole operation, not of this packet"),
        ] }),
        Header::AtomicEth => ("infiniband.atomiceth", "Atomic Extended Transport Header", const { &[
            num("infiniband.reth.va", "Virtual Address", reth::VA, 8)
                .means("8-byte aligned remote address"),
            num("infiniband.reth.r_key", "Remote Key", reth::R_KEY, 4),
            num("infiniband.atomiceth.swapdt", "Swap (Or Add) Data", reth::SWAP_ADD, 8),
            num("infiniband.atomiceth.cmpdt", "Compare Data", reth::COMPARE, 8),
        ] }),
        // The syndrome byte; its low five bits ([`aeth_rest`]) and the MSN follow.
        Header::Aeth => ("infiniband.aeth", "ACK Extended Transport Header", const { &[
            num("infiniband.aeth.syndrome", "Syndrome", aeth::SYNDROME, 1)
                .by(|s| Syndrome::from_byte(s as u8).meaning()),
            num("infiniband.aeth.syndrome.reserved", "Reserved", aeth::SYNDROME, 1).bits(0x80),
            num("infiniband.aeth.syndrome.opcode", "OpCode", aeth::SYNDROME, 1).bits(0x60)
                .pick(AETH_KIND, "11: NAK"),
        ] }),
        Header::AtomicAckEth => ("infiniband.atomicacketh", "Atomic ACK Extended Transport Header",
            const { &[num("infiniband.atomicacketh.origremdt", "Original Remote Data", WHOLE, 8)
                .means("value before the atomic operation")] }),
        Header::ImmDt => ("infiniband.immdt", "Immediate Data", const { &[
            num("infiniband.immdt", "Immediate Data", WHOLE, 4)
                .means("delivered in the receiver's completion"),
        ] }),
        Header::Ieth => ("infiniband.ieth", "Invalidate Extended Transport Header", const { &[
            num("infiniband.ieth", "RKey", WHOLE, 4).means("R_Key the responder invalidates"),
        ] }),
        Header::CnpPadding => ("infiniband.cnp", "CNP reserved bytes", const { &[
            hex("infiniband.cnp.reserved", "Reserved (not a Wireshark field)", CNP_PADDING_LEN)
                .means("16 reserved bytes (IBTA Vol 1 Annex A17.9.3)"),
        ] }),
        _ => ("frame", "Frame", &[]),
    }
}

/// The rest of the AETH after its syndrome byte: the low five bits, a different field for
/// each kind of syndrome (bits 6–5), and the MSN.
#[rustfmt::skip]
fn aeth_rest(kind: u8) -> [Row; 2] {
    use crate::wire::ext::field::aeth::{MSN, SYNDROME};
    let low5 = match kind {
        0 => num("infiniband.aeth.syndrome.credit_count", "Credit Count", SYNDROME, 1)
            .by(|n| match n {
                31 => "invalid: no end-to-end credits advertised".into(),
                n => format!("{n} credits"),
            }),
        1 => num("infiniband.aeth.syndrome.timer", "Timer", SYNDROME, 1).by(|timer| {
            let us = RNR_TIMER_US.get(timer as usize).copied().unwrap_or(0);
            format!("retry after at least {}.{:02} ms", us / 1000, (us % 1000) / 10)
        }),
        2 => num("infiniband.aeth.syndrome.reserved_value", "Reserved", SYNDROME, 1),
        _ => num("infiniband.aeth.syndrome.error_code", "Error Code", SYNDROME, 1)
            .by(|code| NakCode::from_code(code as u8).meaning().into()),
    };
    [
        low5.bits(0x1F),
        num("infiniband.aeth.msn", "Message Sequence Number", MSN, 3)
            .means("count of messages completed by the responder"),
    ]
}

/// One layer's fields as they are added.
struct LayerBuilder<'f> {
    frame: &'f [u8],
    layer: Layer,
}

impl LayerBuilder<'_> {
    /// Adds a table's rows for the header whose offsets they count from `base`.
    fn rows(&mut self, base: usize, rows: &[Row]) {
        for r in rows {
            self.row(base, r);
        }
    }
    /// Adds one row, read from `base + r.at`; the field is returned for a frame-dependent
    /// meaning or value to be set.
    fn row(&mut self, base: usize, r: &Row) -> &mut Field {
        let (offset, len, mask) = (base + r.at, r.len, r.mask);
        let bytes = slice(self.frame, offset, offset + len);
        // Big-endian, as every header field is (an out-of-range read is empty: zero).
        let raw = bytes.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        let bits = match mask {
            Some(m) if m != 0 => (raw & m) >> m.trailing_zeros(),
            _ => raw,
        };
        let value = match r.read {
            Read::Uint => FieldValue::Uint(bits),
            Read::Flag => FieldValue::Bool(bits != 0),
            Read::Mac => FieldValue::Text(MacAddr(array(bytes)).to_string()),
            Read::Ipv4 => FieldValue::Text(Ipv4Addr::from(array(bytes)).to_string()),
            Read::Ipv6 => FieldValue::Text(Ipv6Addr::from(array(bytes)).to_string()),
            Read::Hex => FieldValue::Text(plain_hex(bytes)),
        };
        let meaning = match r.means {
            Means::Text(text) => text.into(),
            Means::Pick(known, other) => {
                let said = known.iter().find(|(v, _)| *v == bits);
                said.map_or(other, |(_, text)| text).into()
            }
            Means::By(meaning) => meaning(bits).into(),
        };
        let (name, label) = (r.name, r.label);
        let f = Field {
            name,
            label,
            value,
            offset,
            len,
            mask,
            meaning,
        };
        self.layer.fields.push(f);
        self.layer.fields.last_mut().expect("just pushed")
    }
    /// Sets the meaning of a table's field that the frame around it explains (checksums).
    fn mean(&mut self, name: &str, meaning: String) {
        if let Some(f) = self.layer.fields.iter_mut().find(|f| f.name == name) {
            f.meaning = meaning.into();
        }
    }
}

/// The bytes of a fixed-size address (zeros if short, which a checked view rules out).
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    b.try_into().unwrap_or([0; N])
}

struct Dissector<'a> {
    frame: &'a [u8],
    out: DecodedFrame,
}

impl<'a> Dissector<'a> {
    /// Header `h`'s layer, with no fields yet.
    fn layer(&self, h: Header, at: usize, len: usize) -> LayerBuilder<'a> {
        let (name, title, _) = table(h);
        self.named_layer(name, title, at, len)
    }
    /// A layer named and titled by the caller (the MAD's, which `Header` does not list).
    fn named_layer(
        &self,
        name: &'static str,
        title: &'static str,
        at: usize,
        len: usize,
    ) -> LayerBuilder<'a> {
        let (offset, fields) = (at, Vec::new());
        let layer = Layer {
            name,
            title,
            offset,
            len,
            fields,
        };
        LayerBuilder {
            frame: self.frame,
            layer,
        }
    }
    /// Header `h`'s layer, its table's rows read from `at`.
    fn header(&self, h: Header, at: usize, len: usize) -> LayerBuilder<'a> {
        let mut l = self.layer(h, at, len);
        l.rows(at, table(h).2);
        l
    }
    fn push(&mut self, b: LayerBuilder<'a>) {
        self.out.layers.push(b.layer);
    }
    /// The value, or `None` with the error (moved to frame offsets) recorded.
    fn check<T>(&mut self, r: Result<T, WireError>, shift: usize) -> Option<T> {
        r.map_err(|e| self.out.error = Some(e.shifted(shift))).ok()
    }
    fn fail<T>(&mut self, header: Header, at: usize, kind: ErrorKind) -> Option<T> {
        self.check(Err(WireError::new(header, at, kind)), 0)
    }
    /// Records a checksum or CRC that does not match: `sums` is (computed, found).
    fn warn(&mut self, header: Header, at: usize, field: &'static str, sums: (u32, u32)) {
        let (computed, found) = sums;
        let kind = ErrorKind::BadChecksum {
            field,
            computed,
            found,
        };
        self.out.warnings.push(WireError::new(header, at, kind));
    }

    fn ethernet(&mut self) -> Option<()> {
        let eth = self.check(EthernetFrame::new_checked(self.frame), 0)?;
        let l = self.header(Header::Ethernet, 0, ethernet::HEADER_LEN);
        self.push(l);
        if eth.is_tagged() {
            let tag_len = ethernet::TAGGED_HEADER_LEN - ethernet::HEADER_LEN;
            let mut v = self.layer(Header::Vlan, ethernet::HEADER_LEN, tag_len);
            v.rows(0, table(Header::Vlan).2);
            self.push(v);
        }
        let ip_off = eth.header_len();
        match eth.ethertype() {
            EtherType::IPV4 => self.ipv4(ip_off),
            EtherType::IPV6 => self.ipv6(ip_off),
            EtherType(other) => self.check(Err(not_roce_ethertype(other)), 0),
        }
    }

    fn ipv4(&mut self, o: usize) -> Option<()> {
        let f = self.frame;
        let ip = self.check(Ipv4Packet::new_checked(slice(f, o, f.len())), o)?;
        let hl = ip.header_len();
        let mut l = self.header(Header::Ipv4, o, hl);
        let sums = (ip.compute_checksum().into(), ip.checksum().into());
        l.mean(
            "ip.checksum",
            match ip.verify_checksum() {
                true => "correct".into(),
                false => format!("incorrect, should be {:#06x}", sums.0),
            },
        );
        self.push(l);
        if !ip.verify_checksum() {
            self.warn(Header::Ipv4, o, "ip.checksum", sums);
        }
        let end = o + self.check(check_ipv4(&ip), o)?;
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        self.udp(o, o + hl, end, PseudoHeader::V4 { src, dst })
    }

    fn ipv6(&mut self, o: usize) -> Option<()> {
        let f = self.frame;
        let ip = self.check(Ipv6Packet::new_checked(slice(f, o, f.len())), o)?;
        let l = self.header(Header::Ipv6, o, ipv6::HEADER_LEN);
        self.push(l);
        let end = o + self.check(check_ipv6(&ip), o)?;
        let (src, dst) = (ip.src_addr(), ip.dst_addr());
        self.udp(o, o + ipv6::HEADER_LEN, end, PseudoHeader::V6 { src, dst })
    }

    fn udp(&mut self, ip_off: usize, o: usize, ip_end: usize, pseudo: PseudoHeader) -> Option<()> {
        let f = self.frame;
        let u = self.check(UdpPacket::new_checked(slice(f, o, ip_end)), o)?;
        let mut l = self.header(Header::Udp, o, udp::HEADER_LEN);
        let (len_ok, csum) = (u.check_len().is_ok(), u.checksum());
        let computed = || udp::compute_checksum(pseudo, u.datagram());
        let v6 = matches!(pseudo, PseudoHeader::V6 { .. });
        l.mean(
            "udp.checksum",
            match csum {
                0 if v6 => "zero, which IPv6 forbids (RFC 8200 §8.1)".into(),
                0 => "none (allowed over IPv4; RoCE v2 relies on the ICRC)".into(),
                _ if !len_ok => "not checked: the length field is wrong".into(),
                _ if u.verify_checksum(pseudo) => "correct".into(),
                _ => format!("incorrect, should be {:#06x}", computed()),
            },
        );
        self.push(l);
        // A zero checksum, or one over a wrong length, is not checked.
        if len_ok && csum != 0 && !u.verify_checksum(pseudo) {
            let sums = (computed().into(), csum.into());
            self.warn(Header::Udp, o, "udp.checksum", sums);
        }
        let udp_end = o + self.check(check_udp(&u), o)?;
        let transport = self.transport(o + udp::HEADER_LEN, udp_end);
        self.trailer(ip_end);
        let icrc_off = transport?;
        let c = self.check(roce_v2_icrc(slice(f, ip_off, icrc_off)), ip_off)?;
        let found = be32(f, icrc_off).swap_bytes();
        self.icrc(
            icrc_off,
            (c, found),
            match c == found {
                true => format!("correct: CRC-32 {c:#010x}, sent least significant byte first"),
                false => format!("incorrect: computed {c:#010x}, frame holds {found:#010x}"),
            },
        );
        Some(())
    }

    /// The ICRC's layer, and a warning when it does not match.
    fn icrc(&mut self, at: usize, sums: (u32, u32), meaning: String) {
        const NAME: &str = "infiniband.invariant.crc";
        let mut l = self.layer(Header::Icrc, at, ICRC_LEN);
        l.row(at, &num(NAME, "Invariant CRC", 0, ICRC_LEN)).meaning = meaning.into();
        self.push(l);
        if sums.0 != sums.1 {
            self.warn(Header::Icrc, at, NAME, sums);
        }
    }

    /// Ethernet bytes after the IP packet: padding, or an FCS when they check out.
    fn trailer(&mut self, ip_end: usize) {
        let f = self.frame;
        let extra = f.len().saturating_sub(ip_end);
        if extra == 0 {
            return;
        }
        let fcs_off = f.len() - FCS_LEN.min(extra);
        let fcs = be32(f, fcs_off).swap_bytes();
        let is_fcs = extra >= FCS_LEN && ethernet_fcs(slice(f, 0, fcs_off)) == fcs;
        let mut l = self.layer(Header::Fcs, ip_end, extra);
        if !is_fcs {
            let trailer = hex("eth.trailer", "Trailer", extra)
                .means("bytes after the IP packet (padding, or an FCS that does not match)");
            l.row(ip_end, &trailer);
        } else {
            if fcs_off > ip_end {
                let padding = hex("eth.padding", "Padding", fcs_off - ip_end);
                l.row(
                    ip_end,
                    &padding.means("pads the frame to the 64-byte minimum"),
                );
            }
            let sum = num("eth.fcs", "Frame check sequence", 0, FCS_LEN)
                .means("correct CRC-32 of the frame, sent least significant byte first");
            l.row(fcs_off, &sum).value = FieldValue::Uint(u64::from(fcs));
        }
        self.push(l);
    }

    /// BTH through pad, checked by [`transport::locate`]; returns the ICRC offset. The
    /// tree keeps the headers that fit before an error.
    fn transport(&mut self, o: usize, end: usize) -> Option<usize> {
        let f = self.frame;
        let layout = transport::locate(f, o, end);
        if end.saturating_sub(o) >= bth::HEADER_LEN {
            let l = self.header(Header::Bth, o, bth::HEADER_LEN);
            self.push(l);
        }
        let mut at = o + bth::HEADER_LEN;
        let headers = Opcode(u8_at(f, o)).info().map(|info| info.headers);
        for h in headers.iter().flat_map(|hs| hs.iter()) {
            if end.saturating_sub(at) < header_len(h) {
                break;
            }
            let mut l = self.header(h, at, header_len(h));
            if h == Header::Aeth {
                // The syndrome's kind says what its low five bits are.
                l.rows(at, &aeth_rest((u8_at(f, at) >> 5) & 0x3));
            }
            self.push(l);
            at += header_len(h);
        }
        let t = self.check(layout, 0)?;
        let payload = slice(f, t.payload_offset, t.payload_offset + t.payload_len);
        if mad::is_mad(f, o, t.payload_len) {
            self.mad(t.payload_offset);
        } else if t.info.headers.deth && ipoib::is_ipoib(payload) {
            self.ipoib(t.payload_offset, t.payload_len);
            self.payload(t.payload_offset + t.payload_len, 0, t.pad_len);
        } else {
            self.payload(t.payload_offset, t.payload_len, t.pad_len);
        }
        Some(t.icrc_offset)
    }

    fn payload(&mut self, at: usize, len: usize, pad: usize) {
        if len + pad == 0 {
            return;
        }
        let mut l = self.layer(Header::Payload, at, len + pad);
        if len > 0 {
            let payload = hex("infiniband.payload", "Payload", len);
            l.row(at, &payload).meaning = format!("{len} bytes").into();
        }
        if pad > 0 {
            let padding = hex("infiniband.pad", "Pad (not a Wireshark field)", pad);
            l.row(at + len, &padding).meaning = format!("{pad} pad bytes").into();
        }
        self.push(l);
    }

    /// LRH, GRH and transport, checked by `wire::ib`'s own checks.
    fn infiniband(&mut self) -> Option<()> {
        let f = self.frame;
        let lrh = self.check(LrhPacket::new_checked(f), 0)?;
        let l = self.header(Header::Lrh, 0, LRH_LEN);
        self.push(l);
        let (end, grh) = self.check(check_lrh(&lrh, f.len()), 0)?;
        let mut bth_off = LRH_LEN;
        if grh {
            let g = self.check(GrhPacket::new_checked(slice(f, LRH_LEN, end)), LRH_LEN)?;
            let l = self.header(Header::Grh, LRH_LEN, GRH_LEN);
            self.push(l);
            self.check(check_grh(&g), LRH_LEN)?;
            bth_off += GRH_LEN;
        }
        let icrc_off = self.transport(bth_off, end)?;
        let c = self.check(ib_icrc(slice(f, 0, icrc_off)), 0)?;
        let found = be32(f, icrc_off).swap_bytes();
        self.icrc(
            icrc_off,
            (c, found),
            match c == found {
                true => "correct".to_string(),
                false => format!("incorrect: computed {c:#010x}"),
            },
        );
        self.vcrc(end);
        Some(())
    }

    fn vcrc(&mut self, end: usize) {
        const NAME: &str = "infiniband.variant.crc";
        let f = self.frame;
        let (found, computed) = (be16(f, end).swap_bytes(), vcrc(slice(f, 0, end)));
        let mut l = self.layer(Header::Vcrc, end, VCRC_LEN);
        l.row(end, &num(NAME, "Variant CRC", 0, VCRC_LEN)).meaning = match found == computed {
            true => "correct, recomputed at every hop".into(),
            false => format!("incorrect: computed {computed:#06x}").into(),
        };
        self.push(l);
        if found != computed {
            self.warn(Header::Vcrc, end, NAME, (computed.into(), found.into()));
        }
    }
}

/// Decodes `frame` field by field. Never panics; see [`DecodedFrame::error`].
pub fn dissect(frame: &[u8], link: LinkType) -> DecodedFrame {
    let out = DecodedFrame {
        len: frame.len(),
        layers: Vec::new(),
        summary: String::new(),
        error: None,
        warnings: Vec::new(),
    };
    let mut d = Dissector { frame, out };
    match link {
        LinkType::Ethernet => d.ethernet(),
        LinkType::Infiniband => d.infiniband(),
        // An ERF record left whole is one of a type the capture reader does not unwrap.
        LinkType::Other(LINKTYPE_ERF) if frame.len() > 8 => {
            let kind = frame[8] & 0x7F;
            let (reason, value) = (erf::unread_type(kind), u64::from(kind));
            d.fail(Header::Capture, 8, ErrorKind::NotRoce { reason, value })
        }
        LinkType::Other(n) => {
            let kind = ErrorKind::NotRoce {
                reason: "link type",
                value: u64::from(n),
            };
            d.fail(Header::Capture, 0, kind)
        }
    };
    d.out.summary = summary_line(&d.out);
    d.out
}

fn summary_line(f: &DecodedFrame) -> String {
    let Some(op) = f.uint("infiniband.bth.opcode") else {
        return match &f.error {
            Some(e) => e.to_string(),
            None => "no InfiniBand transport".to_string(),
        };
    };
    let info = InfoLine {
        opcode: Opcode(op as u8),
        qpn: f.uint("infiniband.bth.destqp").unwrap_or(0) as u32,
        psn: f.uint("infiniband.bth.psn").unwrap_or(0) as u32,
        aeth: f
            .uint("infiniband.aeth.syndrome")
            .map(|s| Syndrome::from_byte(s as u8)),
        bad_checksum: !f.warnings.is_empty(),
        error: f.error.as_ref(),
    };
    let mut line = info.to_string();
    // A MAD is named as tshark names it: "SubnGet(SMInfo)", "CM: ConnectRequest".
    if let Some(mad) = f.mad_name() {
        line.push(' ');
        line.push_str(&mad);
    }
    if f.field("infiniband.rwh.etype").is_some() {
        line.push_str(" IPoIB");
        let text = |n: &str| match f.field(n).map(|x| &x.value) {
            Some(FieldValue::Text(t)) => Some(t.clone()),
            _ => None,
        };
        let src = text("ip.src").or_else(|| text("ipv6.src"));
        if let (Some(s), Some(d)) = (src, text("ip.dst").or_else(|| text("ipv6.dst"))) {
            line.push_str(&format!(" {s} → {d}"));
        }
    }
    line
}
