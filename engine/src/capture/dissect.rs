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

use super::pcap::LinkType;
use crate::wire::bytes::{be16, be24, be32, be64, slice, u8_at};
use crate::wire::crc::{ethernet_fcs, ib_icrc, roce_v2_icrc, vcrc, ICRC_LEN, VCRC_LEN};
use crate::wire::ethernet::{self, EtherType, EthernetFrame, MacAddr, FCS_LEN};
use crate::wire::ext::{self, header_len, NakCode, Syndrome, RNR_TIMER_US};
use crate::wire::ib::{GrhPacket, LrhPacket, GRH_LEN, LRH_LEN};
use crate::wire::ib::{LNH_IBA_GLOBAL, LNH_IBA_LOCAL, NXTHDR_IBA};
use crate::wire::ipv4::{Ipv4Packet, PROTOCOL_UDP};
use crate::wire::ipv6::Ipv6Packet;
use crate::wire::opcode::Opcode;
use crate::wire::roce::{check_ipv4, check_ipv6, check_udp, not_roce_ethertype};
use crate::wire::udp::{PseudoHeader, UdpPacket, ROCE_V2_PORT};
use crate::wire::{bth, ipv6, transport, udp, ErrorKind, Header, WireError};
use core::fmt;
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
    /// The numeric value of a field (booleans as 0/1).
    pub fn uint(&self, name: &str) -> Option<u64> {
        match &self.field(name)?.value {
            FieldValue::Uint(v) => Some(*v),
            FieldValue::Bool(b) => Some(u64::from(*b)),
            FieldValue::Text(_) => None,
        }
    }
}

/// How a row's bytes become a value, and what the value means.
#[derive(Clone, Copy)]
enum Show {
    /// A number with a fixed meaning.
    Num(&'static str),
    /// A number whose meaning depends on its value.
    NumBy(fn(u64) -> Cow<'static, str>),
    /// One bit, set or not.
    Flag(&'static str),
    /// An address in its usual notation; the kind fixes the length.
    Addr(Addr, &'static str),
}

#[derive(Clone, Copy)]
enum Addr {
    Mac,
    V4,
    /// An IPv6 address or an InfiniBand GID.
    V6,
}

impl Addr {
    const fn len(self) -> usize {
        match self {
            Addr::Mac => 6,
            Addr::V4 => 4,
            Addr::V6 => 16,
        }
    }
    fn show(self, b: &[u8]) -> String {
        match self {
            Addr::Mac => MacAddr(b.try_into().unwrap_or_default()).to_string(),
            Addr::V4 => Ipv4Addr::from(<[u8; 4]>::try_from(b).unwrap_or_default()).to_string(),
            Addr::V6 => Ipv6Addr::from(<[u8; 16]>::try_from(b).unwrap_or_default()).to_string(),
        }
    }
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
    show: Show,
}

const fn num(name: &'static str, label: &'static str, at: usize, len: usize) -> Row {
    let show = Show::Num("");
    Row {
        name,
        label,
        at,
        len,
        mask: None,
        show,
    }
}

const fn flag(name: &'static str, label: &'static str, at: usize, mask: u64) -> Row {
    let show = Show::Flag("");
    Row {
        name,
        label,
        at,
        len: 1,
        mask: Some(mask),
        show,
    }
}

const fn addr(name: &'static str, label: &'static str, at: usize, kind: Addr) -> Row {
    let show = Show::Addr(kind, "");
    Row {
        name,
        label,
        at,
        len: kind.len(),
        mask: None,
        show,
    }
}

impl Row {
    const fn bits(self, mask: u64) -> Row {
        Row {
            mask: Some(mask),
            ..self
        }
    }
    const fn means(self, text: &'static str) -> Row {
        let show = match self.show {
            Show::Flag(_) => Show::Flag(text),
            Show::Addr(kind, _) => Show::Addr(kind, text),
            Show::Num(_) | Show::NumBy(_) => Show::Num(text),
        };
        Row { show, ..self }
    }
    const fn by(self, meaning: fn(u64) -> Cow<'static, str>) -> Row {
        Row {
            show: Show::NumBy(meaning),
            ..self
        }
    }
}

/// A header as the tree shows it: its Wireshark name, its title and its fields.
struct Table {
    name: &'static str,
    title: &'static str,
    rows: &'static [Row],
}

const VARIANT: &str = "variant: masked out of the ICRC";
const ECN: &str = "Explicit Congestion Notification";

// The tables keep one field to a line (rustfmt would spread each over eight).

#[rustfmt::skip]
const ETHERNET: Table = {
    use crate::wire::ethernet::field::*;
    Table { name: "eth", title: "Ethernet II", rows: &[
        addr("eth.dst", "Destination", DESTINATION.start, Addr::Mac).means("MAC address of the next hop"),
        addr("eth.src", "Source", SOURCE.start, Addr::Mac).means("MAC address of the sender"),
        num("eth.type", "Type", ETHERTYPE, 2).by(ethertype_meaning),
    ] }
};

/// Offsets from the frame's start, as `wire` counts the tag's.
#[rustfmt::skip]
const VLAN: Table = {
    use crate::wire::ethernet::field::*;
    Table { name: "vlan", title: "802.1Q Virtual LAN", rows: &[
        num("vlan.priority", "Priority", TCI, 2).bits(0xE000)
            .means("PCP: selects the traffic class, and so the PFC priority (IEEE 802.1Qbb)"),
        flag("vlan.dei", "DEI", TCI, 0x10).means("Drop Eligible Indicator"),
        num("vlan.id", "ID", TCI, 2).bits(0x0FFF).means("VLAN identifier"),
        num("vlan.etype", "Type", INNER_ETHERTYPE, 2).by(ethertype_meaning),
    ] }
};

#[rustfmt::skip]
const IPV4: Table = {
    use crate::wire::ipv4::field::*;
    Table { name: "ip", title: "Internet Protocol Version 4", rows: &[
        num("ip.version", "Version", VER_IHL, 1).bits(0xF0).means("4"),
        num("ip.hdr_len", "Header Length", VER_IHL, 1).bits(0x0F).by(ihl_meaning),
        num("ip.dsfield.dscp", "Differentiated Services Codepoint", DS, 1).bits(0xFC)
            .means("DSCP: the switch maps it to a traffic class / PFC priority"),
        num("ip.dsfield.ecn", ECN, DS, 1).bits(0x03).by(ecn_meaning),
        num("ip.len", "Total Length", TOTAL_LEN, 2).means("bytes of IP header and payload"),
        num("ip.id", "Identification", IDENT, 2),
        flag("ip.flags.df", "Don't fragment", FLAGS_FRAG, 0x40).means("RoCE v2 packets are never fragmented"),
        num("ip.frag_offset", "Fragment Offset", FLAGS_FRAG, 2).bits(0x1FFF),
        num("ip.ttl", "Time to Live", TTL, 1).means(VARIANT),
        num("ip.proto", "Protocol", PROTOCOL, 1).by(udp_meaning),
        num("ip.checksum", "Header Checksum", CHECKSUM, 2),
        addr("ip.src", "Source Address", SRC, Addr::V4),
        addr("ip.dst", "Destination Address", DST, Addr::V4),
    ] }
};

#[rustfmt::skip]
const IPV6: Table = {
    use crate::wire::ipv6::field::*;
    Table { name: "ipv6", title: "Internet Protocol Version 6", rows: &[
        num("ipv6.version", "Version", VER_TC_FLOW, 1).bits(0xF0).means("6"),
        num("ipv6.tclass", "Traffic Class", VER_TC_FLOW, 4).bits(0x0FF0_0000).means(VARIANT),
        num("ipv6.tclass.dscp", "Differentiated Services Codepoint", VER_TC_FLOW, 4)
            .bits(0x0FC0_0000).means("DSCP"),
        num("ipv6.tclass.ecn", ECN, VER_TC_FLOW, 4).bits(0x0030_0000).by(ecn_meaning),
        num("ipv6.flow", "Flow Label", FLOW_LABEL, 3).bits(0x000F_FFFF).means(VARIANT),
        num("ipv6.plen", "Payload Length", PAYLOAD_LEN, 2).means("bytes after this header"),
        num("ipv6.nxt", "Next Header", NEXT_HEADER, 1).by(udp_meaning),
        num("ipv6.hlim", "Hop Limit", HOP_LIMIT, 1).means(VARIANT),
        addr("ipv6.src", "Source Address", SRC, Addr::V6),
        addr("ipv6.dst", "Destination Address", DST, Addr::V6),
    ] }
};

#[rustfmt::skip]
const UDP: Table = {
    use crate::wire::udp::field::*;
    Table { name: "udp", title: "User Datagram Protocol", rows: &[
        num("udp.srcport", "Source Port", SRC_PORT, 2)
            .means("flow entropy: senders hash the QP pair into it for ECMP"),
        num("udp.dstport", "Destination Port", DST_PORT, 2).by(port_meaning),
        num("udp.length", "Length", LENGTH, 2).means("bytes of UDP header and payload"),
        num("udp.checksum", "Checksum", CHECKSUM, 2),
    ] }
};

#[rustfmt::skip]
const BTH: Table = {
    use crate::wire::bth::field::*;
    Table { name: "infiniband.bth", title: "Base Transport Header", rows: &[
        num("infiniband.bth.opcode", "Opcode", OPCODE, 1).by(opcode_meaning),
        flag("infiniband.bth.se", "Solicited Event", FLAGS, 0x80)
            .means("ask the receiver to raise a completion event"),
        flag("infiniband.bth.m", "MigReq", FLAGS, 0x40).means("path migration state (APM)"),
        num("infiniband.bth.padcnt", "Pad Count", FLAGS, 1).bits(0x30)
            .means("bytes padding the payload to a multiple of 4"),
        num("infiniband.bth.tver", "Header Version", FLAGS, 1).bits(0x0F)
            .means("transport header version, 0"),
        num("infiniband.bth.p_key", "Partition Key", P_KEY, 2)
            .means("0xffff: default partition, full member"),
        flag("infiniband.bth.fecn", "FECN (not a Wireshark field)", RESV8A, 0x80)
            .means("Forward ECN, set by a congested IB switch; variant"),
        flag("infiniband.bth.becn", "BECN (not a Wireshark field)", RESV8A, 0x40)
            .means("Backward ECN, set in a CNP; variant"),
        num("infiniband.bth.destqp", "Destination Queue Pair", DEST_QP, 3),
        flag("infiniband.bth.a", "Acknowledge Request", ACK_REQ, 0x80).means("ask the responder for an ACK"),
        num("infiniband.bth.reserved7", "Reserved (7 bits)", ACK_REQ, 1).bits(0x7F),
        num("infiniband.bth.psn", "Packet Sequence Number", PSN, 3).means("24 bits, wraps at 2^24"),
    ] }
};

#[rustfmt::skip]
const LRH: Table = {
    use crate::wire::ib::field::*;
    Table { name: "infiniband.lrh", title: "Local Route Header", rows: &[
        num("infiniband.lrh.vl", "Virtual Lane", VL_LVER, 1).bits(0xF0).means(VARIANT),
        num("infiniband.lrh.lver", "Link Version", VL_LVER, 1).bits(0x0F),
        num("infiniband.lrh.sl", "Service Level", SL_LNH, 1).bits(0xF0),
        num("infiniband.lrh.reserved2", "Reserved (2 bits)", SL_LNH, 1).bits(0x0C),
        num("infiniband.lrh.lnh", "Link Next Header", SL_LNH, 1).bits(0x03).by(lnh_meaning),
        num("infiniband.lrh.dlid", "Destination Local ID", DLID, 2),
        num("infiniband.lrh.reserved5", "Reserved (5 bits)", PKTLEN, 2).bits(0xF800),
        num("infiniband.lrh.pktlen", "Packet Length", PKTLEN, 2).bits(0x07FF)
            .means("4-byte words from LRH through ICRC"),
        num("infiniband.lrh.slid", "Source Local ID", SLID, 2),
    ] }
};

#[rustfmt::skip]
const GRH: Table = {
    use crate::wire::ib::field::*;
    Table { name: "infiniband.grh", title: "Global Route Header", rows: &[
        num("infiniband.grh.ipver", "IP Version", GRH_VER_TC_FLOW, 1).bits(0xF0).means("6"),
        num("infiniband.grh.tclass", "Traffic Class", GRH_VER_TC_FLOW, 2).bits(0x0FF0).means("variant"),
        num("infiniband.grh.flowlabel", "Flow Label", GRH_VER_TC_FLOW, 4).bits(0x000F_FFFF)
            .means("variant"),
        num("infiniband.grh.paylen", "Payload Length", GRH_PAYLEN, 2)
            .means("bytes after the GRH through the ICRC"),
        num("infiniband.grh.nxthdr", "Next Header", GRH_NXTHDR, 1).by(nxthdr_meaning),
        num("infiniband.grh.hoplmt", "Hop Limit", GRH_HOPLMT, 1).means("variant"),
        addr("infiniband.grh.sgid", "Source GID", GRH_SGID, Addr::V6),
        addr("infiniband.grh.dgid", "Destination GID", GRH_DGID, Addr::V6),
    ] }
};

#[rustfmt::skip]
const RDETH: Table = {
    use crate::wire::ext::field::rdeth::*;
    let title = "Reliable Datagram Extended Transport Header";
    Table { name: "infiniband.rdeth", title, rows: &[
        num("infiniband.rdeth.eecnxt", "E2E Context", EE_CONTEXT, 3),
    ] }
};

#[rustfmt::skip]
const DETH: Table = {
    use crate::wire::ext::field::deth::*;
    Table { name: "infiniband.deth", title: "Datagram Extended Transport Header", rows: &[
        num("infiniband.deth.q_key", "Queue Key", Q_KEY, 4).by(q_key_meaning),
        num("infiniband.deth.srcqp", "Source Queue Pair", SRC_QP, 3),
    ] }
};

#[rustfmt::skip]
const XRCETH: Table = {
    use crate::wire::ext::field::xrceth::*;
    Table { name: "infiniband.xrceth", title: "XRC Extended Transport Header", rows: &[
        num("infiniband.xrceth.xrcsrq", "XRC SRQ (not a Wireshark field)", XRC_SRQ, 3)
            .means("target shared receive queue"),
    ] }
};

#[rustfmt::skip]
const RETH: Table = {
    use crate::wire::ext::field::reth::*;
    Table { name: "infiniband.reth", title: "RDMA Extended Transport Header", rows: &[
        num("infiniband.reth.va", "Virtual Address", VA, 8)
            .means("remote address of the whole RDMA operation"),
        num("infiniband.reth.r_key", "Remote Key", R_KEY, 4)
            .means("authorises access to the remote memory region"),
        num("infiniband.reth.dmalen", "DMA Length", DMA_LEN, 4)
            .means("bytes of the whole operation, not of this packet"),
    ] }
};

#[rustfmt::skip]
const ATOMICETH: Table = {
    use crate::wire::ext::field::reth::*;
    Table { name: "infiniband.atomiceth", title: "Atomic Extended Transport Header", rows: &[
        num("infiniband.reth.va", "Virtual Address", VA, 8).means("8-byte aligned remote address"),
        num("infiniband.reth.r_key", "Remote Key", R_KEY, 4),
        num("infiniband.atomiceth.swapdt", "Swap (Or Add) Data", SWAP_ADD, 8),
        num("infiniband.atomiceth.cmpdt", "Compare Data", COMPARE, 8),
    ] }
};

/// The syndrome byte; its low five bits ([`AETH_KINDS`]) and the MSN follow.
#[rustfmt::skip]
const AETH: Table = {
    use crate::wire::ext::field::aeth::*;
    Table { name: "infiniband.aeth", title: "ACK Extended Transport Header", rows: &[
        num("infiniband.aeth.syndrome", "Syndrome", SYNDROME, 1).by(syndrome_meaning),
        num("infiniband.aeth.syndrome.reserved", "Reserved", SYNDROME, 1).bits(0x80),
        num("infiniband.aeth.syndrome.opcode", "OpCode", SYNDROME, 1).bits(0x60).by(aeth_kind_meaning),
    ] }
};

/// The AETH syndrome's low five bits, one field per syndrome kind (bits 6–5).
#[rustfmt::skip]
const AETH_KINDS: [Row; 4] = {
    use crate::wire::ext::field::aeth::*;
    [
        num("infiniband.aeth.syndrome.credit_count", "Credit Count", SYNDROME, 1).by(credits_meaning),
        num("infiniband.aeth.syndrome.timer", "Timer", SYNDROME, 1).by(rnr_timer_meaning),
        num("infiniband.aeth.syndrome.reserved_value", "Reserved", SYNDROME, 1),
        num("infiniband.aeth.syndrome.error_code", "Error Code", SYNDROME, 1).by(nak_meaning),
    ]
};

#[rustfmt::skip]
const AETH_MSN: Row = num("infiniband.aeth.msn", "Message Sequence Number", ext::field::aeth::MSN, 3)
    .means("count of messages completed by the responder");

#[rustfmt::skip]
const ATOMICACKETH: Table = {
    let title = "Atomic ACK Extended Transport Header";
    Table { name: "infiniband.atomicacketh", title, rows: &[
        num("infiniband.atomicacketh.origremdt", "Original Remote Data", ext::field::WHOLE, 8)
            .means("value before the atomic operation"),
    ] }
};

#[rustfmt::skip]
const IMMDT: Table = Table { name: "infiniband.immdt", title: "Immediate Data", rows: &[
    num("infiniband.immdt", "Immediate Data", ext::field::WHOLE, 4)
        .means("delivered in the receiver's completion"),
] };

#[rustfmt::skip]
const IETH: Table = Table { name: "infiniband.ieth", title: "Invalidate Extended Transport Header", rows: &[
    num("infiniband.ieth", "RKey", ext::field::WHOLE, 4).means("R_Key the responder invalidates"),
] };

/// The CNP's reserved bytes, shown as hex.
const CNP_PADDING: Table = Table {
    name: "infiniband.cnp",
    title: "CNP reserved bytes",
    rows: &[],
};

fn ext_table(h: Header) -> &'static Table {
    match h {
        Header::Rdeth => &RDETH,
        Header::Deth => &DETH,
        Header::XrcEth => &XRCETH,
        Header::Reth => &RETH,
        Header::AtomicEth => &ATOMICETH,
        Header::Aeth => &AETH,
        Header::AtomicAckEth => &ATOMICACKETH,
        Header::ImmDt => &IMMDT,
        Header::Ieth => &IETH,
        _ => &CNP_PADDING,
    }
}

fn ethertype_meaning(et: u64) -> Cow<'static, str> {
    match EtherType(et as u16) {
        EtherType::IPV4 => "IPv4",
        EtherType::IPV6 => "IPv6",
        EtherType::VLAN => "802.1Q tag follows",
        EtherType::ROCE_V1 => "RoCE v1 (GRH over Ethernet)",
        _ => "other",
    }
    .into()
}

fn ihl_meaning(words: u64) -> Cow<'static, str> {
    format!("{} bytes", words * 4).into()
}

fn ecn_meaning(ecn: u64) -> Cow<'static, str> {
    match ecn {
        0 => "Not-ECT: not ECN-capable",
        1 => "ECT(1): ECN-capable",
        2 => "ECT(0): ECN-capable",
        _ => "CE: congestion experienced (a switch marked it; DCQCN answers with a CNP)",
    }
    .into()
}

fn udp_meaning(protocol: u64) -> Cow<'static, str> {
    if protocol == u64::from(PROTOCOL_UDP) {
        "UDP"
    } else {
        "not UDP"
    }
    .into()
}

fn port_meaning(port: u64) -> Cow<'static, str> {
    if port == u64::from(ROCE_V2_PORT) {
        "4791: RoCE v2"
    } else {
        "not RoCE v2"
    }
    .into()
}

fn opcode_meaning(op: u64) -> Cow<'static, str> {
    Opcode(op as u8)
        .name()
        .map_or("unknown or reserved".into(), Cow::Owned)
}

fn lnh_meaning(lnh: u64) -> Cow<'static, str> {
    match lnh as u8 {
        LNH_IBA_LOCAL => "IBA local: BTH follows",
        LNH_IBA_GLOBAL => "IBA global: GRH follows",
        0 => "raw",
        _ => "IP (non-IBA)",
    }
    .into()
}

fn nxthdr_meaning(next: u64) -> Cow<'static, str> {
    if next == u64::from(NXTHDR_IBA) {
        "0x1b: IBA transport"
    } else {
        "not IBA"
    }
    .into()
}

fn q_key_meaning(q_key: u64) -> Cow<'static, str> {
    if q_key & 0x8000_0000 != 0 {
        "controlled Q_Key (high bit set)"
    } else {
        ""
    }
    .into()
}

fn syndrome_meaning(s: u64) -> Cow<'static, str> {
    Syndrome::from_byte(s as u8).meaning().into()
}

fn aeth_kind_meaning(kind: u64) -> Cow<'static, str> {
    ["00: ACK", "01: RNR NAK", "10: reserved", "11: NAK"][(kind & 3) as usize].into()
}

fn credits_meaning(credits: u64) -> Cow<'static, str> {
    match credits & 0x1F {
        31 => "invalid: no end-to-end credits advertised".into(),
        n => format!("{n} credits").into(),
    }
}

fn rnr_timer_meaning(timer: u64) -> Cow<'static, str> {
    let us = RNR_TIMER_US.get(timer as usize).copied().unwrap_or(0);
    format!(
        "retry after at least {}.{:02} ms",
        us / 1000,
        (us % 1000) / 10
    )
    .into()
}

fn nak_meaning(code: u64) -> Cow<'static, str> {
    NakCode::from_code(code as u8).meaning().into()
}

/// One layer's fields as they are added.
struct LayerBuilder<'f> {
    frame: &'f [u8],
    layer: Layer,
}

impl LayerBuilder<'_> {
    fn raw(&self, offset: usize, len: usize) -> u64 {
        let b = self.frame;
        match len {
            1 => u64::from(u8_at(b, offset)),
            2 => u64::from(be16(b, offset)),
            3 => u64::from(be24(b, offset)),
            4 => u64::from(be32(b, offset)),
            8 => be64(b, offset),
            _ => 0,
        }
    }
    /// Adds a table's rows for the header whose offsets they count from `base`.
    fn rows(&mut self, base: usize, rows: &[Row]) {
        for r in rows {
            let at = base + r.at;
            let raw = self.raw(at, r.len);
            let bits = match r.mask {
                Some(m) if m != 0 => (raw & m) >> m.trailing_zeros(),
                _ => raw,
            };
            let (value, meaning) = match r.show {
                Show::Num(text) => (FieldValue::Uint(bits), text.into()),
                Show::NumBy(meaning) => (FieldValue::Uint(bits), meaning(bits)),
                Show::Flag(text) => (FieldValue::Bool(bits != 0), text.into()),
                Show::Addr(kind, text) => {
                    let shown = kind.show(slice(self.frame, at, at + r.len));
                    (FieldValue::Text(shown), text.into())
                }
            };
            let (name, label, len, mask) = (r.name, r.label, r.len, r.mask);
            let f = Field {
                name,
                label,
                value,
                offset: at,
                len,
                mask,
                meaning,
            };
            self.layer.fields.push(f);
        }
    }
    /// A whole-byte field outside any table (trailers, CRCs, payload).
    fn add(
        &mut self,
        (name, label): (&'static str, &'static str),
        (offset, len): (usize, usize),
        value: FieldValue,
        meaning: impl Into<Cow<'static, str>>,
    ) {
        let meaning = meaning.into();
        let f = Field {
            name,
            label,
            value,
            offset,
            len,
            mask: None,
            meaning,
        };
        self.layer.fields.push(f);
    }
    /// Bytes shown as hex.
    fn hex(&mut self, name: (&'static str, &'static str), at: usize, len: usize, meaning: String) {
        let text = hex_bytes(slice(self.frame, at, at + len));
        self.add(name, (at, len), FieldValue::Text(text), meaning);
    }
    /// Sets the meaning of a field the frame around it explains (checksums).
    fn mean(&mut self, name: &str, meaning: impl Into<Cow<'static, str>>) {
        if let Some(f) = self.layer.fields.iter_mut().find(|f| f.name == name) {
            f.meaning = meaning.into();
        }
    }
}

fn hex_bytes(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * b.len());
    for &x in b {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 0xF)]));
    }
    s
}

struct Dissector<'a> {
    frame: &'a [u8],
    out: DecodedFrame,
}

impl<'a> Dissector<'a> {
    fn layer(
        &self,
        name: &'static str,
        title: &'static str,
        at: usize,
        len: usize,
    ) -> LayerBuilder<'a> {
        let fields = Vec::new();
        let layer = Layer {
            name,
            title,
            offset: at,
            len,
            fields,
        };
        LayerBuilder {
            frame: self.frame,
            layer,
        }
    }
    /// A header's layer with its table's rows read from `at`.
    fn header(&self, t: &Table, at: usize, len: usize) -> LayerBuilder<'a> {
        let mut l = self.layer(t.name, t.title, at, len);
        l.rows(at, t.rows);
        l
    }
    fn push(&mut self, b: LayerBuilder<'a>) {
        self.out.layers.push(b.layer);
    }
    /// The value, or `None` with the error (moved to frame offsets) recorded.
    fn check<T>(&mut self, r: Result<T, WireError>, shift: usize) -> Option<T> {
        r.map_err(|e| self.out.error = Some(e.shifted(shift))).ok()
    }
    fn fail<T>(&mut self, e: WireError) -> Option<T> {
        self.out.error = Some(e);
        None
    }
    fn warn(&mut self, header: Header, at: usize, field: &'static str, computed: u32, found: u32) {
        let kind = ErrorKind::BadChecksum {
            field,
            computed,
            found,
        };
        self.out.warnings.push(WireError::new(header, at, kind));
    }

    fn ethernet(&mut self) -> Option<()> {
        let eth = self.check(EthernetFrame::new_checked(self.frame), 0)?;
        let l = self.header(&ETHERNET, 0, ethernet::HEADER_LEN);
        self.push(l);
        if eth.is_tagged() {
            let tag_len = ethernet::TAGGED_HEADER_LEN - ethernet::HEADER_LEN;
            let mut v = self.layer(VLAN.name, VLAN.title, ethernet::HEADER_LEN, tag_len);
            v.rows(0, VLAN.rows);
            self.push(v);
        }
        let ip_off = eth.header_len();
        match eth.ethertype() {
            EtherType::IPV4 => self.ipv4(ip_off),
            EtherType::IPV6 => self.ipv6(ip_off),
            EtherType(other) => self.fail(not_roce_ethertype(other)),
        }
    }

    fn ipv4(&mut self, o: usize) -> Option<()> {
        let f = self.frame;
        let ip = self.check(Ipv4Packet::new_checked(slice(f, o, f.len())), o)?;
        let hl = ip.header_len();
        let mut l = self.header(&IPV4, o, hl);
        let (ok, computed) = (ip.verify_checksum(), ip.compute_checksum());
        l.mean(
            "ip.checksum",
            match ok {
                true => "correct".to_string(),
                false => format!("incorrect, should be {computed:#06x}"),
            },
        );
        self.push(l);
        if !ok {
            let found = u32::from(ip.checksum());
            self.warn(Header::Ipv4, o, "ip.checksum", u32::from(computed), found);
        }
        let end = o + self.check(check_ipv4(&ip), o)?;
        let pseudo = PseudoHeader::V4 {
            src: ip.src_addr(),
            dst: ip.dst_addr(),
        };
        self.udp(o, o + hl, end, pseudo)
    }

    fn ipv6(&mut self, o: usize) -> Option<()> {
        let f = self.frame;
        let ip = self.check(Ipv6Packet::new_checked(slice(f, o, f.len())), o)?;
        let l = self.header(&IPV6, o, ipv6::HEADER_LEN);
        self.push(l);
        let end = o + self.check(check_ipv6(&ip), o)?;
        let pseudo = PseudoHeader::V6 {
            src: ip.src_addr(),
            dst: ip.dst_addr(),
        };
        self.udp(o, o + ipv6::HEADER_LEN, end, pseudo)
    }

    fn udp(&mut self, ip_off: usize, o: usize, ip_end: usize, pseudo: PseudoHeader) -> Option<()> {
        let f = self.frame;
        let u = self.check(UdpPacket::new_checked(slice(f, o, ip_end)), o)?;
        let mut l = self.header(&UDP, o, udp::HEADER_LEN);
        let len_ok = u.check_len().is_ok();
        let csum = u.checksum();
        let computed = || udp::compute_checksum(pseudo, u.datagram());
        let correct = len_ok && csum != 0 && u.verify_checksum(pseudo);
        l.mean(
            "udp.checksum",
            match (csum, matches!(pseudo, PseudoHeader::V6 { .. })) {
                (0, false) => "none (allowed over IPv4; RoCE v2 relies on the ICRC)".to_string(),
                (0, true) => "zero, which IPv6 forbids (RFC 8200 §8.1)".to_string(),
                _ if !len_ok => "not checked: the length field is wrong".to_string(),
                _ if correct => "correct".to_string(),
                _ => format!("incorrect, should be {:#06x}", computed()),
            },
        );
        self.push(l);
        if len_ok && csum != 0 && !correct {
            self.warn(
                Header::Udp,
                o,
                "udp.checksum",
                u32::from(computed()),
                u32::from(csum),
            );
        }
        let udp_end = o + self.check(check_udp(&u), o)?;
        let transport = self.transport(o + udp::HEADER_LEN, udp_end);
        self.trailer(ip_end);
        let icrc_off = transport?;
        let c = self.check(roce_v2_icrc(slice(f, ip_off, icrc_off)), ip_off)?;
        let found = be32(f, icrc_off).swap_bytes();
        let meaning = match c == found {
            true => format!("correct: CRC-32 {c:#010x}, sent least significant byte first"),
            false => format!("incorrect: computed {c:#010x}, frame holds {found:#010x}"),
        };
        self.icrc(icrc_off, c, found, meaning);
        Some(())
    }

    /// The ICRC's layer, and a warning when it does not match.
    fn icrc(&mut self, at: usize, computed: u32, found: u32, meaning: String) {
        const NAME: &str = "infiniband.invariant.crc";
        let mut l = self.layer("infiniband.icrc", "Invariant CRC", at, ICRC_LEN);
        let value = FieldValue::Uint(u64::from(be32(self.frame, at)));
        l.add((NAME, "Invariant CRC"), (at, ICRC_LEN), value, meaning);
        self.push(l);
        if computed != found {
            self.warn(Header::Icrc, at, NAME, computed, found);
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
        let mut l = self.layer("eth.trailer", "Ethernet trailer", ip_end, extra);
        if !is_fcs {
            let meaning = "bytes after the IP packet (padding, or an FCS that does not match)";
            l.hex(("eth.trailer", "Trailer"), ip_end, extra, meaning.into());
        } else {
            if fcs_off > ip_end {
                let meaning = "pads the frame to the 64-byte minimum";
                l.hex(
                    ("eth.padding", "Padding"),
                    ip_end,
                    fcs_off - ip_end,
                    meaning.into(),
                );
            }
            let meaning = "correct CRC-32 of the frame, sent least significant byte first";
            let value = FieldValue::Uint(u64::from(fcs));
            l.add(
                ("eth.fcs", "Frame check sequence"),
                (fcs_off, FCS_LEN),
                value,
                meaning,
            );
        }
        self.push(l);
    }

    /// BTH through pad, checked by [`transport::locate`]; returns the ICRC offset. The
    /// tree keeps the headers that fit before an error.
    fn transport(&mut self, o: usize, end: usize) -> Option<usize> {
        let f = self.frame;
        let layout = transport::locate(f, o, end);
        if end.saturating_sub(o) >= bth::HEADER_LEN {
            let l = self.header(&BTH, o, bth::HEADER_LEN);
            self.push(l);
        }
        if let Some(info) = Opcode(u8_at(f, o)).info() {
            let mut at = o + bth::HEADER_LEN;
            for h in info.headers.iter() {
                if end.saturating_sub(at) < header_len(h) {
                    break;
                }
                let l = self.ext_layer(h, at);
                self.push(l);
                at += header_len(h);
            }
        }
        let t = match layout {
            Ok(t) => t,
            Err(e) => return self.fail(e),
        };
        let (at, plen, pad) = (t.payload_offset, t.payload_len, t.pad_len);
        if plen + pad > 0 {
            let mut l = self.layer("infiniband.payload", "Payload", at, plen + pad);
            if plen > 0 {
                l.hex(
                    ("infiniband.payload", "Payload"),
                    at,
                    plen,
                    format!("{plen} bytes"),
                );
            }
            if pad > 0 {
                let name = ("infiniband.pad", "Pad (not a Wireshark field)");
                l.hex(name, at + plen, pad, format!("{pad} pad bytes"));
            }
            self.push(l);
        }
        Some(t.icrc_offset)
    }

    fn ext_layer(&self, h: Header, o: usize) -> LayerBuilder<'a> {
        let len = header_len(h);
        let table = ext_table(h);
        let mut l = self.header(table, o, len);
        if h == Header::Aeth {
            // The syndrome's kind says what its low five bits are.
            let kind = (u8_at(self.frame, o) >> 5) & 0x3;
            l.rows(o, &[AETH_KINDS[usize::from(kind)].bits(0x1F), AETH_MSN]);
        } else if table.rows.is_empty() {
            let name = (
                "infiniband.cnp.reserved",
                "Reserved (not a Wireshark field)",
            );
            let meaning = "16 reserved bytes (IBTA Vol 1 Annex A17.9.3)";
            l.hex(name, o, len, meaning.into());
        }
        l
    }

    fn infiniband(&mut self) -> Option<()> {
        let f = self.frame;
        let lrh = self.check(LrhPacket::new_checked(f), 0)?;
        let l = self.header(&LRH, 0, LRH_LEN);
        self.push(l);
        let end = usize::from(lrh.pkt_len()) * 4;
        if end < LRH_LEN || end + VCRC_LEN > f.len() {
            let field = "infiniband.lrh.pktlen";
            let (claimed, available) = (end + VCRC_LEN, f.len());
            let kind = ErrorKind::LengthMismatch {
                field,
                claimed,
                available,
            };
            return self.fail(WireError::new(Header::Lrh, 0, kind));
        }
        let bth_off = match lrh.lnh() {
            LNH_IBA_LOCAL => LRH_LEN,
            LNH_IBA_GLOBAL => self.grh(end)?,
            other => {
                let reason = "a non-IBA link next header, LNH";
                let kind = ErrorKind::NotRoce {
                    reason,
                    value: u64::from(other),
                };
                return self.fail(WireError::new(Header::Lrh, 0, kind));
            }
        };
        let icrc_off = self.transport(bth_off, end)?;
        let c = self.check(ib_icrc(slice(f, 0, icrc_off)), 0)?;
        let found = be32(f, icrc_off).swap_bytes();
        let meaning = match c == found {
            true => "correct".to_string(),
            false => format!("incorrect: computed {c:#010x}"),
        };
        self.icrc(icrc_off, c, found, meaning);
        self.vcrc(end);
        Some(())
    }

    /// The GRH after the LRH; returns where the BTH starts.
    fn grh(&mut self, end: usize) -> Option<usize> {
        let g = self.check(
            GrhPacket::new_checked(slice(self.frame, LRH_LEN, end)),
            LRH_LEN,
        )?;
        let l = self.header(&GRH, LRH_LEN, GRH_LEN);
        self.push(l);
        if g.nxt_hdr() != NXTHDR_IBA {
            let reason = "GRH next header";
            let kind = ErrorKind::NotRoce {
                reason,
                value: u64::from(g.nxt_hdr()),
            };
            return self.fail(WireError::new(Header::Grh, LRH_LEN, kind));
        }
        Some(LRH_LEN + GRH_LEN)
    }

    fn vcrc(&mut self, end: usize) {
        const NAME: &str = "infiniband.variant.crc";
        let f = self.frame;
        let (found, computed) = (be16(f, end).swap_bytes(), vcrc(slice(f, 0, end)));
        let meaning = match found == computed {
            true => "correct, recomputed at every hop".to_string(),
            false => format!("incorrect: computed {computed:#06x}"),
        };
        let mut l = self.layer("infiniband.vcrc", "Variant CRC", end, VCRC_LEN);
        let value = FieldValue::Uint(u64::from(be16(f, end)));
        l.add((NAME, "Variant CRC"), (end, VCRC_LEN), value, meaning);
        self.push(l);
        if found != computed {
            self.warn(
                Header::Vcrc,
                end,
                NAME,
                u32::from(computed),
                u32::from(found),
            );
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
        LinkType::Other(n) => {
            let kind = ErrorKind::NotRoce {
                reason: "link type",
                value: u64::from(n),
            };
            d.fail(WireError::new(Header::Capture, 0, kind))
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
    InfoLine {
        opcode: Opcode(op as u8),
        qpn: f.uint("infiniband.bth.destqp").unwrap_or(0) as u32,
        psn: f.uint("infiniband.bth.psn").unwrap_or(0) as u32,
        aeth: f
            .uint("infiniband.aeth.syndrome")
            .map(|s| Syndrome::from_byte(s as u8)),
        bad_checksum: !f.warnings.is_empty(),
        error: f.error.as_ref(),
    }
    .to_string()
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
