//! Field-level decoding for the UI: every header becomes a [`Layer`] of [`Field`]s
//! named with Wireshark display-filter names, each with its exact byte range (and bit
//! mask when sub-byte) so the app can highlight it in a hex dump.
//!
//! Names follow Wireshark 4.0 (`tshark -G fields`). Fields Wireshark does not define
//! get names in the same style and are marked in their label: `infiniband.bth.fecn`,
//! `infiniband.bth.becn` (Wireshark shows byte 4 of the BTH only as reserved),
//! `infiniband.xrceth.xrcsrq`, `infiniband.pad`, `infiniband.cnp.reserved`.
//!
//! Decoding stops at the first structural error (recorded in
//! [`DecodedFrame::error`] with its location); checksum and CRC mismatches do not
//! stop it and are listed in [`DecodedFrame::warnings`].

use super::pcap::LinkType;
use crate::wire::bytes::{be16, be24, be32, be64, slice, u8_at};
use crate::wire::crc::{ethernet_fcs, ib_icrc, roce_v2_icrc, vcrc, ICRC_LEN, VCRC_LEN};
use crate::wire::ethernet::{EtherType, EthernetFrame, FCS_LEN};
use crate::wire::ext::{header_len, NakCode, Syndrome, RNR_TIMER_US};
use crate::wire::ib::{GrhPacket, LrhPacket, GRH_LEN, LNH_IBA_GLOBAL, LNH_IBA_LOCAL, LRH_LEN};
use crate::wire::ipv4::{Ipv4Packet, PROTOCOL_UDP};
use crate::wire::ipv6::Ipv6Packet;
use crate::wire::opcode::Opcode;
use crate::wire::roce::{check_ipv4, check_ipv6, check_udp, not_roce_ethertype};
use crate::wire::udp::{PseudoHeader, UdpPacket, ROCE_V2_PORT};
use crate::wire::{bth, ipv6, transport, udp, ErrorKind, Header, WireError};
use core::fmt;
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

struct Dissector<'a> {
    frame: &'a [u8],
    out: DecodedFrame,
}

/// Builder for one layer's fields.
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
    /// Adds an unsigned field read from `len` bytes at `offset` under `mask`.
    fn uint(
        &mut self,
        name: &'static str,
        label: &'static str,
        offset: usize,
        len: usize,
        mask: Option<u64>,
        meaning: impl Into<Cow<'static, str>>,
    ) -> u64 {
        let raw = self.raw(offset, len);
        let v = match mask {
            Some(m) if m != 0 => (raw & m) >> m.trailing_zeros(),
            _ => raw,
        };
        self.push(
            name,
            label,
            FieldValue::Uint(v),
            offset,
            len,
            mask,
            meaning.into(),
        );
        v
    }
    /// The ECN bits, with what their value means.
    fn ecn(&mut self, name: &'static str, offset: usize, len: usize, mask: u64) {
        let ecn = (self.raw(offset, len) & mask) >> mask.trailing_zeros();
        self.uint(
            name,
            "Explicit Congestion Notification",
            offset,
            len,
            Some(mask),
            ecn_meaning(ecn),
        );
    }
    fn flag(
        &mut self,
        name: &'static str,
        label: &'static str,
        offset: usize,
        mask: u64,
        meaning: &'static str,
    ) -> bool {
        let v = self.raw(offset, 1) & mask != 0;
        self.push(
            name,
            label,
            FieldValue::Bool(v),
            offset,
            1,
            Some(mask),
            meaning.into(),
        );
        v
    }
    fn text(
        &mut self,
        name: &'static str,
        label: &'static str,
        offset: usize,
        len: usize,
        text: String,
        meaning: impl Into<Cow<'static, str>>,
    ) {
        self.push(
            name,
            label,
            FieldValue::Text(text),
            offset,
            len,
            None,
            meaning.into(),
        );
    }
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: &'static str,
        label: &'static str,
        value: FieldValue,
        offset: usize,
        len: usize,
        mask: Option<u64>,
        meaning: Cow<'static, str>,
    ) {
        self.layer.fields.push(Field {
            name,
            label,
            value,
            offset,
            len,
            mask,
            meaning,
        });
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

fn ecn_meaning(ecn: u64) -> &'static str {
    match ecn {
        0 => "Not-ECT: not ECN-capable",
        1 => "ECT(1): ECN-capable",
        2 => "ECT(0): ECN-capable",
        _ => "CE: congestion experienced (a switch marked it; DCQCN answers with a CNP)",
    }
}

impl<'a> Dissector<'a> {
    fn layer(
        &self,
        name: &'static str,
        title: &'static str,
        offset: usize,
        len: usize,
    ) -> LayerBuilder<'a> {
        LayerBuilder {
            frame: self.frame,
            layer: Layer {
                name,
                title,
                offset,
                len,
                fields: Vec::new(),
            },
        }
    }
    fn push(&mut self, b: LayerBuilder<'a>) {
        self.out.layers.push(b.layer);
    }
    fn fail(&mut self, e: WireError) -> Option<()> {
        self.out.error = Some(e);
        None
    }
    fn warn(
        &mut self,
        header: Header,
        offset: usize,
        field: &'static str,
        computed: u32,
        found: u32,
    ) {
        self.out.warnings.push(WireError::new(
            header,
            offset,
            ErrorKind::BadChecksum {
                field,
                computed,
                found,
            },
        ));
    }

    fn ethernet(&mut self) -> Option<()> {
        let f = self.frame;
        let eth = match EthernetFrame::new_checked(f) {
            Ok(e) => e,
            Err(e) => return self.fail(e),
        };
        let mut l = self.layer("eth", "Ethernet II", 0, 14);
        l.text(
            "eth.dst",
            "Destination",
            0,
            6,
            eth.dst_addr().to_string(),
            "MAC address of the next hop",
        );
        l.text(
            "eth.src",
            "Source",
            6,
            6,
            eth.src_addr().to_string(),
            "MAC address of the sender",
        );
        let et = eth.outer_ethertype().0;
        l.uint("eth.type", "Type", 12, 2, None, ethertype_meaning(et));
        self.push(l);
        if eth.is_tagged() {
            let mut v = self.layer("vlan", "802.1Q Virtual LAN", 14, 4);
            v.uint(
                "vlan.priority",
                "Priority",
                14,
                2,
                Some(0xE000),
                "PCP: selects the traffic class, and so the PFC priority (IEEE 802.1Qbb)",
            );
            v.flag("vlan.dei", "DEI", 14, 0x10, "Drop Eligible Indicator");
            v.uint("vlan.id", "ID", 14, 2, Some(0x0FFF), "VLAN identifier");
            v.uint(
                "vlan.etype",
                "Type",
                16,
                2,
                None,
                ethertype_meaning(eth.ethertype().0),
            );
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
        let ip = match Ipv4Packet::new_checked(slice(f, o, f.len())) {
            Ok(p) => p,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let hl = ip.header_len();
        let mut l = self.layer("ip", "Internet Protocol Version 4", o, hl);
        l.uint("ip.version", "Version", o, 1, Some(0xF0), "4");
        l.uint(
            "ip.hdr_len",
            "Header Length",
            o,
            1,
            Some(0x0F),
            format!("{hl} bytes"),
        );
        l.uint(
            "ip.dsfield.dscp",
            "Differentiated Services Codepoint",
            o + 1,
            1,
            Some(0xFC),
            "DSCP: the switch maps it to a traffic class / PFC priority",
        );
        l.ecn("ip.dsfield.ecn", o + 1, 1, 0x03);
        l.uint(
            "ip.len",
            "Total Length",
            o + 2,
            2,
            None,
            "bytes of IP header and payload",
        );
        l.uint("ip.id", "Identification", o + 4, 2, None, "");
        l.flag(
            "ip.flags.df",
            "Don't fragment",
            o + 6,
            0x40,
            "RoCE v2 packets are never fragmented",
        );
        l.uint(
            "ip.frag_offset",
            "Fragment Offset",
            o + 6,
            2,
            Some(0x1FFF),
            "",
        );
        l.uint(
            "ip.ttl",
            "Time to Live",
            o + 8,
            1,
            None,
            "variant: masked out of the ICRC",
        );
        l.uint(
            "ip.proto",
            "Protocol",
            o + 9,
            1,
            None,
            if ip.protocol() == PROTOCOL_UDP {
                "UDP"
            } else {
                "not UDP"
            },
        );
        let ok = ip.verify_checksum();
        let computed = ip.compute_checksum();
        l.uint(
            "ip.checksum",
            "Header Checksum",
            o + 10,
            2,
            None,
            if ok {
                "correct".to_string()
            } else {
                format!("incorrect, should be {computed:#06x}")
            },
        );
        l.text(
            "ip.src",
            "Source Address",
            o + 12,
            4,
            ip.src_addr().to_string(),
            "",
        );
        l.text(
            "ip.dst",
            "Destination Address",
            o + 16,
            4,
            ip.dst_addr().to_string(),
            "",
        );
        self.push(l);
        if !ok {
            self.warn(
                Header::Ipv4,
                o,
                "ip.checksum",
                u32::from(computed),
                u32::from(ip.checksum()),
            );
        }
        let end = match check_ipv4(&ip) {
            Ok(len) => o + len,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let pseudo = PseudoHeader::V4 {
            src: ip.src_addr(),
            dst: ip.dst_addr(),
        };
        self.udp(o, o + hl, end, pseudo)
    }

    fn ipv6(&mut self, o: usize) -> Option<()> {
        let f = self.frame;
        let ip = match Ipv6Packet::new_checked(slice(f, o, f.len())) {
            Ok(p) => p,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let mut l = self.layer("ipv6", "Internet Protocol Version 6", o, ipv6::HEADER_LEN);
        l.uint("ipv6.version", "Version", o, 1, Some(0xF0), "6");
        l.uint(
            "ipv6.tclass",
            "Traffic Class",
            o,
            4,
            Some(0x0FF0_0000),
            "variant: masked out of the ICRC",
        );
        l.uint(
            "ipv6.tclass.dscp",
            "Differentiated Services Codepoint",
            o,
            4,
            Some(0x0FC0_0000),
            "DSCP",
        );
        l.ecn("ipv6.tclass.ecn", o, 4, 0x0030_0000);
        l.uint(
            "ipv6.flow",
            "Flow Label",
            o + 1,
            3,
            Some(0x000F_FFFF),
            "variant: masked out of the ICRC",
        );
        l.uint(
            "ipv6.plen",
            "Payload Length",
            o + 4,
            2,
            None,
            "bytes after this header",
        );
        l.uint(
            "ipv6.nxt",
            "Next Header",
            o + 6,
            1,
            None,
            if ip.next_header() == PROTOCOL_UDP {
                "UDP"
            } else {
                "not UDP"
            },
        );
        l.uint(
            "ipv6.hlim",
            "Hop Limit",
            o + 7,
            1,
            None,
            "variant: masked out of the ICRC",
        );
        l.text(
            "ipv6.src",
            "Source Address",
            o + 8,
            16,
            ip.src_addr().to_string(),
            "",
        );
        l.text(
            "ipv6.dst",
            "Destination Address",
            o + 24,
            16,
            ip.dst_addr().to_string(),
            "",
        );
        self.push(l);
        let end = match check_ipv6(&ip) {
            Ok(len) => o + len,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let pseudo = PseudoHeader::V6 {
            src: ip.src_addr(),
            dst: ip.dst_addr(),
        };
        self.udp(o, o + ipv6::HEADER_LEN, end, pseudo)
    }

    fn udp(&mut self, ip_off: usize, o: usize, ip_end: usize, pseudo: PseudoHeader) -> Option<()> {
        let f = self.frame;
        let u = match UdpPacket::new_checked(slice(f, o, ip_end)) {
            Ok(u) => u,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let mut l = self.layer("udp", "User Datagram Protocol", o, udp::HEADER_LEN);
        l.uint(
            "udp.srcport",
            "Source Port",
            o,
            2,
            None,
            "flow entropy: senders hash the QP pair into it for ECMP",
        );
        l.uint(
            "udp.dstport",
            "Destination Port",
            o + 2,
            2,
            None,
            if u.dst_port() == ROCE_V2_PORT {
                "4791: RoCE v2"
            } else {
                "not RoCE v2"
            },
        );
        l.uint(
            "udp.length",
            "Length",
            o + 4,
            2,
            None,
            "bytes of UDP header and payload",
        );
        let len_ok = u.check_len().is_ok();
        let csum = u.checksum();
        let v6 = matches!(pseudo, PseudoHeader::V6 { .. });
        let csum_meaning = match (csum, v6) {
            (0, false) => "none (allowed over IPv4; RoCE v2 relies on the ICRC)".to_string(),
            (0, true) => "zero, which IPv6 forbids (RFC 8200 §8.1)".to_string(),
            _ if !len_ok => "not checked: the length field is wrong".to_string(),
            _ if u.verify_checksum(pseudo) => "correct".to_string(),
            _ => format!(
                "incorrect, should be {:#06x}",
                crate::wire::udp::compute_checksum(pseudo, u.datagram())
            ),
        };
        l.uint("udp.checksum", "Checksum", o + 6, 2, None, csum_meaning);
        self.push(l);
        if len_ok && csum != 0 && !u.verify_checksum(pseudo) {
            self.warn(
                Header::Udp,
                o,
                "udp.checksum",
                u32::from(crate::wire::udp::compute_checksum(pseudo, u.datagram())),
                u32::from(csum),
            );
        }
        let udp_end = match check_udp(&u) {
            Ok(len) => o + len,
            Err(e) => return self.fail(e.shifted(o)),
        };
        let transport = self.transport(o + udp::HEADER_LEN, udp_end);
        self.trailer(ip_end);
        let icrc_off = transport?;
        let found = be32(f, icrc_off);
        let found_le = found.swap_bytes();
        match roce_v2_icrc(slice(f, ip_off, icrc_off)) {
            Ok(c) => {
                let meaning = if c == found_le {
                    format!("correct: CRC-32 {c:#010x}, sent least significant byte first")
                } else {
                    format!("incorrect: computed {c:#010x}, frame holds {found_le:#010x}")
                };
                let mut l = self.layer("infiniband.icrc", "Invariant CRC", icrc_off, ICRC_LEN);
                l.uint(
                    "infiniband.invariant.crc",
                    "Invariant CRC",
                    icrc_off,
                    4,
                    None,
                    meaning,
                );
                self.push(l);
                if c != found_le {
                    self.warn(
                        Header::Icrc,
                        icrc_off,
                        "infiniband.invariant.crc",
                        c,
                        found_le,
                    );
                }
            }
            Err(e) => return self.fail(e.shifted(ip_off)),
        }
        Some(())
    }

    /// Ethernet bytes after the IP packet: padding, or an FCS when they check out.
    fn trailer(&mut self, ip_end: usize) {
        let f = self.frame;
        let extra = f.len().saturating_sub(ip_end);
        if extra == 0 {
            return;
        }
        let fcs_off = f.len() - FCS_LEN.min(extra);
        let is_fcs =
            extra >= FCS_LEN && ethernet_fcs(slice(f, 0, fcs_off)) == be32(f, fcs_off).swap_bytes();
        let mut l = self.layer("eth.trailer", "Ethernet trailer", ip_end, extra);
        if is_fcs {
            if fcs_off > ip_end {
                l.text(
                    "eth.padding",
                    "Padding",
                    ip_end,
                    fcs_off - ip_end,
                    hex_bytes(slice(f, ip_end, fcs_off)),
                    "pads the frame to the 64-byte minimum",
                );
            }
            let v = be32(f, fcs_off).swap_bytes();
            l.push(
                "eth.fcs",
                "Frame check sequence",
                FieldValue::Uint(u64::from(v)),
                fcs_off,
                FCS_LEN,
                None,
                "correct CRC-32 of the frame, sent least significant byte first".into(),
            );
        } else {
            l.text(
                "eth.trailer",
                "Trailer",
                ip_end,
                extra,
                hex_bytes(slice(f, ip_end, f.len())),
                "bytes after the IP packet (padding, or an FCS that does not match)",
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
            self.bth(o);
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
            Err(e) => {
                self.fail(e);
                return None;
            }
        };
        let (at, plen, pad) = (t.payload_offset, t.payload_len, t.pad_len);
        let body = plen + pad;
        if body > 0 {
            let mut l = self.layer("infiniband.payload", "Payload", at, body);
            if plen > 0 {
                l.text(
                    "infiniband.payload",
                    "Payload",
                    at,
                    plen,
                    hex_bytes(slice(f, at, at + plen)),
                    format!("{plen} bytes"),
                );
            }
            if pad > 0 {
                l.text(
                    "infiniband.pad",
                    "Pad (not a Wireshark field)",
                    at + plen,
                    pad,
                    hex_bytes(slice(f, at + plen, at + body)),
                    format!("{pad} pad bytes"),
                );
            }
            self.push(l);
        }
        Some(t.icrc_offset)
    }

    fn bth(&mut self, o: usize) {
        let f = self.frame;
        let op = Opcode(u8_at(f, o));
        let mut l = self.layer(
            "infiniband.bth",
            "Base Transport Header",
            o,
            bth::HEADER_LEN,
        );
        l.uint(
            "infiniband.bth.opcode",
            "Opcode",
            o,
            1,
            None,
            op.name().unwrap_or_else(|| "unknown or reserved".into()),
        );
        l.flag(
            "infiniband.bth.se",
            "Solicited Event",
            o + 1,
            0x80,
            "ask the receiver to raise a completion event",
        );
        l.flag(
            "infiniband.bth.m",
            "MigReq",
            o + 1,
            0x40,
            "path migration state (APM)",
        );
        l.uint(
            "infiniband.bth.padcnt",
            "Pad Count",
            o + 1,
            1,
            Some(0x30),
            "bytes padding the payload to a multiple of 4",
        );
        l.uint(
            "infiniband.bth.tver",
            "Header Version",
            o + 1,
            1,
            Some(0x0F),
            "transport header version, 0",
        );
        l.uint(
            "infiniband.bth.p_key",
            "Partition Key",
            o + 2,
            2,
            None,
            "0xffff: default partition, full member",
        );
        l.flag(
            "infiniband.bth.fecn",
            "FECN (not a Wireshark field)",
            o + 4,
            0x80,
            "Forward ECN, set by a congested IB switch; variant",
        );
        l.flag(
            "infiniband.bth.becn",
            "BECN (not a Wireshark field)",
            o + 4,
            0x40,
            "Backward ECN, set in a CNP; variant",
        );
        l.uint(
            "infiniband.bth.destqp",
            "Destination Queue Pair",
            o + 5,
            3,
            None,
            "",
        );
        l.flag(
            "infiniband.bth.a",
            "Acknowledge Request",
            o + 8,
            0x80,
            "ask the responder for an ACK",
        );
        l.uint(
            "infiniband.bth.reserved7",
            "Reserved (7 bits)",
            o + 8,
            1,
            Some(0x7F),
            "",
        );
        l.uint(
            "infiniband.bth.psn",
            "Packet Sequence Number",
            o + 9,
            3,
            None,
            "24 bits, wraps at 2^24",
        );
        self.push(l);
    }

    fn ext_layer(&self, h: Header, o: usize) -> LayerBuilder<'a> {
        let len = header_len(h);
        match h {
            Header::Rdeth => {
                let mut l = self.layer(
                    "infiniband.rdeth",
                    "Reliable Datagram Extended Transport Header",
                    o,
                    len,
                );
                l.uint("infiniband.rdeth.eecnxt", "E2E Context", o + 1, 3, None, "");
                l
            }
            Header::Deth => {
                let mut l = self.layer(
                    "infiniband.deth",
                    "Datagram Extended Transport Header",
                    o,
                    len,
                );
                let q = l.uint("infiniband.deth.q_key", "Queue Key", o, 4, None, "");
                if let Some(last) = l.layer.fields.last_mut() {
                    last.meaning = if q & 0x8000_0000 != 0 {
                        "controlled Q_Key (high bit set)".into()
                    } else {
                        "".into()
                    };
                }
                l.uint(
                    "infiniband.deth.srcqp",
                    "Source Queue Pair",
                    o + 5,
                    3,
                    None,
                    "",
                );
                l
            }
            Header::XrcEth => {
                let mut l =
                    self.layer("infiniband.xrceth", "XRC Extended Transport Header", o, len);
                l.uint(
                    "infiniband.xrceth.xrcsrq",
                    "XRC SRQ (not a Wireshark field)",
                    o + 1,
                    3,
                    None,
                    "target shared receive queue",
                );
                l
            }
            Header::Reth => {
                let mut l = self.layer("infiniband.reth", "RDMA Extended Transport Header", o, len);
                l.uint(
                    "infiniband.reth.va",
                    "Virtual Address",
                    o,
                    8,
                    None,
                    "remote address of the whole RDMA operation",
                );
                l.uint(
                    "infiniband.reth.r_key",
                    "Remote Key",
                    o + 8,
                    4,
                    None,
                    "authorises access to the remote memory region",
                );
                l.uint(
                    "infiniband.reth.dmalen",
                    "DMA Length",
                    o + 12,
                    4,
                    None,
                    "bytes of the whole operation, not of this packet",
                );
                l
            }
            Header::AtomicEth => {
                let mut l = self.layer(
                    "infiniband.atomiceth",
                    "Atomic Extended Transport Header",
                    o,
                    len,
                );
                l.uint(
                    "infiniband.reth.va",
                    "Virtual Address",
                    o,
                    8,
                    None,
                    "8-byte aligned remote address",
                );
                l.uint("infiniband.reth.r_key", "Remote Key", o + 8, 4, None, "");
                l.uint(
                    "infiniband.atomiceth.swapdt",
                    "Swap (Or Add) Data",
                    o + 12,
                    8,
                    None,
                    "",
                );
                l.uint(
                    "infiniband.atomiceth.cmpdt",
                    "Compare Data",
                    o + 20,
                    8,
                    None,
                    "",
                );
                l
            }
            Header::Aeth => {
                let mut l = self.layer("infiniband.aeth", "ACK Extended Transport Header", o, len);
                let s = Syndrome::from_byte(u8_at(self.frame, o));
                l.uint(
                    "infiniband.aeth.syndrome",
                    "Syndrome",
                    o,
                    1,
                    None,
                    s.meaning(),
                );
                l.uint(
                    "infiniband.aeth.syndrome.reserved",
                    "Reserved",
                    o,
                    1,
                    Some(0x80),
                    "",
                );
                l.uint(
                    "infiniband.aeth.syndrome.opcode",
                    "OpCode",
                    o,
                    1,
                    Some(0x60),
                    match s {
                        Syndrome::Ack { .. } => "00: ACK",
                        Syndrome::RnrNak { .. } => "01: RNR NAK",
                        Syndrome::Reserved { .. } => "10: reserved",
                        Syndrome::Nak(_) => "11: NAK",
                    },
                );
                match s {
                    Syndrome::Ack { credits } => {
                        l.uint(
                            "infiniband.aeth.syndrome.credit_count",
                            "Credit Count",
                            o,
                            1,
                            Some(0x1F),
                            if credits == 31 {
                                "invalid: no end-to-end credits advertised".into()
                            } else {
                                format!("{credits} credits")
                            },
                        );
                    }
                    Syndrome::RnrNak { timer } => {
                        let us = RNR_TIMER_US.get(usize::from(timer)).copied().unwrap_or(0);
                        l.uint(
                            "infiniband.aeth.syndrome.timer",
                            "Timer",
                            o,
                            1,
                            Some(0x1F),
                            format!(
                                "retry after at least {}.{:02} ms",
                                us / 1000,
                                (us % 1000) / 10
                            ),
                        );
                    }
                    Syndrome::Reserved { .. } => {
                        l.uint(
                            "infiniband.aeth.syndrome.reserved_value",
                            "Reserved",
                            o,
                            1,
                            Some(0x1F),
                            "",
                        );
                    }
                    Syndrome::Nak(c) => {
                        l.uint(
                            "infiniband.aeth.syndrome.error_code",
                            "Error Code",
                            o,
                            1,
                            Some(0x1F),
                            NakCode::meaning(c),
                        );
                    }
                }
                l.uint(
                    "infiniband.aeth.msn",
                    "Message Sequence Number",
                    o + 1,
                    3,
                    None,
                    "count of messages completed by the responder",
                );
                l
            }
            Header::AtomicAckEth => {
                let mut l = self.layer(
                    "infiniband.atomicacketh",
                    "Atomic ACK Extended Transport Header",
                    o,
                    len,
                );
                l.uint(
                    "infiniband.atomicacketh.origremdt",
                    "Original Remote Data",
                    o,
                    8,
                    None,
                    "value before the atomic operation",
                );
                l
            }
            Header::ImmDt => {
                let mut l = self.layer("infiniband.immdt", "Immediate Data", o, len);
                l.uint(
                    "infiniband.immdt",
                    "Immediate Data",
                    o,
                    4,
                    None,
                    "delivered in the receiver's completion",
                );
                l
            }
            Header::Ieth => {
                let mut l = self.layer(
                    "infiniband.ieth",
                    "Invalidate Extended Transport Header",
                    o,
                    len,
                );
                l.uint(
                    "infiniband.ieth",
                    "RKey",
                    o,
                    4,
                    None,
                    "R_Key the responder invalidates",
                );
                l
            }
            _ => {
                let mut l = self.layer("infiniband.cnp", "CNP reserved bytes", o, len);
                l.text(
                    "infiniband.cnp.reserved",
                    "Reserved (not a Wireshark field)",
                    o,
                    len,
                    hex_bytes(slice(self.frame, o, o + len)),
                    "16 reserved bytes (IBTA Vol 1 Annex A17.9.3)",
                );
                l
            }
        }
    }

    fn infiniband(&mut self) -> Option<()> {
        let f = self.frame;
        let lrh = match LrhPacket::new_checked(f) {
            Ok(l) => l,
            Err(e) => return self.fail(e),
        };
        let mut l = self.layer("infiniband.lrh", "Local Route Header", 0, LRH_LEN);
        l.uint(
            "infiniband.lrh.vl",
            "Virtual Lane",
            0,
            1,
            Some(0xF0),
            "variant: masked out of the ICRC",
        );
        l.uint("infiniband.lrh.lver", "Link Version", 0, 1, Some(0x0F), "");
        l.uint("infiniband.lrh.sl", "Service Level", 1, 1, Some(0xF0), "");
        l.uint(
            "infiniband.lrh.reserved2",
            "Reserved (2 bits)",
            1,
            1,
            Some(0x0C),
            "",
        );
        l.uint(
            "infiniband.lrh.lnh",
            "Link Next Header",
            1,
            1,
            Some(0x03),
            match lrh.lnh() {
                LNH_IBA_LOCAL => "IBA local: BTH follows",
                LNH_IBA_GLOBAL => "IBA global: GRH follows",
                0 => "raw",
                _ => "IP (non-IBA)",
            },
        );
        l.uint(
            "infiniband.lrh.dlid",
            "Destination Local ID",
            2,
            2,
            None,
            "",
        );
        l.uint(
            "infiniband.lrh.reserved5",
            "Reserved (5 bits)",
            4,
            2,
            Some(0xF800),
            "",
        );
        l.uint(
            "infiniband.lrh.pktlen",
            "Packet Length",
            4,
            2,
            Some(0x07FF),
            "4-byte words from LRH through ICRC",
        );
        l.uint("infiniband.lrh.slid", "Source Local ID", 6, 2, None, "");
        self.push(l);
        let end = usize::from(lrh.pkt_len()) * 4;
        if end < LRH_LEN || end + VCRC_LEN > f.len() {
            return self.fail(WireError::new(
                Header::Lrh,
                0,
                ErrorKind::LengthMismatch {
                    field: "infiniband.lrh.pktlen",
                    claimed: end + VCRC_LEN,
                    available: f.len(),
                },
            ));
        }
        let mut bth_off = LRH_LEN;
        match lrh.lnh() {
            LNH_IBA_LOCAL => {}
            LNH_IBA_GLOBAL => {
                let g = match GrhPacket::new_checked(slice(f, LRH_LEN, end)) {
                    Ok(g) => g,
                    Err(e) => return self.fail(e.shifted(LRH_LEN)),
                };
                let o = LRH_LEN;
                let mut l = self.layer("infiniband.grh", "Global Route Header", o, GRH_LEN);
                l.uint("infiniband.grh.ipver", "IP Version", o, 1, Some(0xF0), "6");
                l.uint(
                    "infiniband.grh.tclass",
                    "Traffic Class",
                    o,
                    2,
                    Some(0x0FF0),
                    "variant",
                );
                l.uint(
                    "infiniband.grh.flowlabel",
                    "Flow Label",
                    o,
                    4,
                    Some(0x000F_FFFF),
                    "variant",
                );
                l.uint(
                    "infiniband.grh.paylen",
                    "Payload Length",
                    o + 4,
                    2,
                    None,
                    "bytes after the GRH through the ICRC",
                );
                l.uint(
                    "infiniband.grh.nxthdr",
                    "Next Header",
                    o + 6,
                    1,
                    None,
                    if g.nxt_hdr() == crate::wire::ib::NXTHDR_IBA {
                        "0x1b: IBA transport"
                    } else {
                        "not IBA"
                    },
                );
                l.uint(
                    "infiniband.grh.hoplmt",
                    "Hop Limit",
                    o + 7,
                    1,
                    None,
                    "variant",
                );
                l.text(
                    "infiniband.grh.sgid",
                    "Source GID",
                    o + 8,
                    16,
                    g.sgid().to_string(),
                    "",
                );
                l.text(
                    "infiniband.grh.dgid",
                    "Destination GID",
                    o + 24,
                    16,
                    g.dgid().to_string(),
                    "",
                );
                self.push(l);
                if g.nxt_hdr() != crate::wire::ib::NXTHDR_IBA {
                    return self.fail(WireError::new(
                        Header::Grh,
                        o,
                        ErrorKind::NotRoce {
                            reason: "GRH next header",
                            value: u64::from(g.nxt_hdr()),
                        },
                    ));
                }
                bth_off += GRH_LEN;
            }
            other => {
                return self.fail(WireError::new(
                    Header::Lrh,
                    0,
                    ErrorKind::NotRoce {
                        reason: "a non-IBA link next header, LNH",
                        value: u64::from(other),
                    },
                ))
            }
        }
        let icrc_off = self.transport(bth_off, end)?;
        let found = be32(f, icrc_off).swap_bytes();
        match ib_icrc(slice(f, 0, icrc_off)) {
            Ok(c) => {
                let mut l = self.layer("infiniband.icrc", "Invariant CRC", icrc_off, ICRC_LEN);
                l.uint(
                    "infiniband.invariant.crc",
                    "Invariant CRC",
                    icrc_off,
                    4,
                    None,
                    if c == found {
                        "correct".to_string()
                    } else {
                        format!("incorrect: computed {c:#010x}")
                    },
                );
                self.push(l);
                if c != found {
                    self.warn(Header::Icrc, icrc_off, "infiniband.invariant.crc", c, found);
                }
            }
            Err(e) => return self.fail(e),
        }
        let v = be16(f, end).swap_bytes();
        let vc = vcrc(slice(f, 0, end));
        let mut l = self.layer("infiniband.vcrc", "Variant CRC", end, VCRC_LEN);
        l.uint(
            "infiniband.variant.crc",
            "Variant CRC",
            end,
            2,
            None,
            if v == vc {
                "correct, recomputed at every hop".to_string()
            } else {
                format!("incorrect: computed {vc:#06x}")
            },
        );
        self.push(l);
        if v != vc {
            self.warn(
                Header::Vcrc,
                end,
                "infiniband.variant.crc",
                u32::from(vc),
                u32::from(v),
            );
        }
        Some(())
    }
}

fn ethertype_meaning(et: u16) -> &'static str {
    match EtherType(et) {
        EtherType::IPV4 => "IPv4",
        EtherType::IPV6 => "IPv6",
        EtherType::VLAN => "802.1Q tag follows",
        EtherType::ROCE_V1 => "RoCE v1 (GRH over Ethernet)",
        _ => "other",
    }
}

/// Decodes `frame` field by field. Never panics; see [`DecodedFrame::error`].
pub fn dissect(frame: &[u8], link: LinkType) -> DecodedFrame {
    let mut d = Dissector {
        frame,
        out: DecodedFrame {
            len: frame.len(),
            layers: Vec::new(),
            summary: String::new(),
            error: None,
            warnings: Vec::new(),
        },
    };
    match link {
        LinkType::Ethernet => {
            d.ethernet();
        }
        LinkType::Infiniband => {
            d.infiniband();
        }
        LinkType::Other(n) => {
            d.out.error = Some(WireError::new(
                Header::Capture,
                0,
                ErrorKind::NotRoce {
                    reason: "link type",
                    value: u64::from(n),
                },
            ));
        }
    }
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
