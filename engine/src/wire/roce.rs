//! Whole RoCE v2 frames: Ethernet [802.1Q] / IPv4|IPv6 / UDP 4791 / BTH / extended
//! headers / payload / pad / ICRC [/ FCS] (IBTA Vol 1 Annex A17.4).
//!
//! [`locate`] walks a frame once and records where every part starts; [`summarize`]
//! (the allocation-free hot path: one pass, one CRC) and [`RoceFrameRepr::parse`] and
//! the UI dissector build on it.

use super::bth::{BthPacket, BthRepr};
use super::bytes::{be32, slice};
use super::crc::{ethernet_fcs, roce_v2_icrc, ICRC_LEN};
use super::ethernet::{self, EtherType, EthernetFrame, EthernetRepr, MIN_FRAME_LEN};
use super::ext::{Aeth, Deth, ExtRepr, Reth};
use super::ipv4::{Ipv4Packet, Ipv4Repr, PROTOCOL_UDP};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::opcode::{Opcode, OpcodeInfo};
use super::udp::{PseudoHeader, UdpPacket, UdpRepr, ROCE_V2_PORT};
use super::{bth, udp, ErrorKind, Header, Result, WireError};
use serde::{Deserialize, Serialize};

/// Whether the frame ends with an Ethernet FCS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum FcsMode {
    /// The capture stripped the FCS (the usual case for pcap from a host NIC).
    Absent,
    /// The last four bytes after the IP packet are the FCS.
    Present,
    /// Treat four trailing bytes after the IP packet as an FCS when they check out.
    #[default]
    Detect,
}

/// Either IP version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IpRepr {
    V4(Ipv4Repr),
    V6(Ipv6Repr),
}

/// Byte offsets of every part of a RoCE v2 frame, found by [`locate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoceLayout {
    pub frame_len: usize,
    pub vlan: bool,
    pub ip_offset: usize,
    pub ip_version: u8,
    pub ip_header_len: usize,
    /// End of the IP packet (IP total length / payload length applied).
    pub ip_end: usize,
    pub udp_offset: usize,
    pub bth_offset: usize,
    pub ext_offset: usize,
    pub payload_offset: usize,
    pub payload_len: usize,
    pub pad_len: usize,
    pub icrc_offset: usize,
    /// Offset of the FCS, when one was found.
    pub fcs_offset: Option<usize>,
}

/// Walks the headers of `frame` and checks every length against the bytes present.
/// Checksums and CRCs are not verified here.
pub fn locate(frame: &[u8], fcs: FcsMode) -> Result<(RoceLayout, OpcodeInfo)> {
    let eth = EthernetFrame::new_checked(frame)?;
    let ip_offset = eth.header_len();
    let ethertype = eth.ethertype();
    let l3 = slice(frame, ip_offset, frame.len());
    let (ip_version, ip_header_len, ip_end) = match ethertype {
        EtherType::IPV4 => {
            let ip = Ipv4Packet::new_checked(l3).map_err(|e| e.shifted(ip_offset))?;
            ip.check_total_len().map_err(|e| e.shifted(ip_offset))?;
            if ip.more_frags() || ip.frag_offset() != 0 {
                return Err(not_roce(
                    Header::Ipv4,
                    ip_offset,
                    "a fragment offset/MF flag",
                    u64::from(ip.frag_offset()),
                ));
            }
            if ip.protocol() != PROTOCOL_UDP {
                return Err(not_roce(
                    Header::Ipv4,
                    ip_offset,
                    "IP protocol",
                    u64::from(ip.protocol()),
                ));
            }
            (4, ip.header_len(), ip_offset + usize::from(ip.total_len()))
        }
        EtherType::IPV6 => {
            let ip = Ipv6Packet::new_checked(l3).map_err(|e| e.shifted(ip_offset))?;
            ip.check_payload_len().map_err(|e| e.shifted(ip_offset))?;
            if ip.next_header() != PROTOCOL_UDP {
                return Err(not_roce(
                    Header::Ipv6,
                    ip_offset,
                    "next header",
                    u64::from(ip.next_header()),
                ));
            }
            (
                6,
                super::ipv6::HEADER_LEN,
                ip_offset + super::ipv6::HEADER_LEN + usize::from(ip.payload_len()),
            )
        }
        EtherType(other) => {
            return Err(not_roce(Header::Ethernet, 0, "EtherType", u64::from(other)));
        }
    };
    let udp_offset = ip_offset + ip_header_len;
    let udp_buf = slice(frame, udp_offset, ip_end);
    let udp = UdpPacket::new_checked(udp_buf).map_err(|e| e.shifted(udp_offset))?;
    udp.check_len().map_err(|e| e.shifted(udp_offset))?;
    if udp.dst_port() != ROCE_V2_PORT {
        return Err(not_roce(
            Header::Udp,
            udp_offset,
            "destination port",
            u64::from(udp.dst_port()),
        ));
    }
    let udp_end = udp_offset + usize::from(udp.len());
    let bth_offset = udp_offset + udp::HEADER_LEN;
    let bth_buf = slice(frame, bth_offset, udp_end);
    let bth = BthPacket::new_checked(bth_buf).map_err(|e| e.shifted(bth_offset))?;
    let opcode = bth.opcode();
    let info = opcode.info().ok_or_else(|| {
        WireError::new(
            Header::Bth,
            bth_offset,
            ErrorKind::UnknownOpcode { opcode: opcode.0 },
        )
    })?;
    let ext_offset = bth_offset + bth::HEADER_LEN;
    let ext_len = info.headers.len();
    // Extended headers and the ICRC must fit inside the UDP datagram.
    let mut at = ext_offset;
    for h in info.headers.iter() {
        let need = super::ext::header_len(h);
        let avail = udp_end.saturating_sub(at);
        if avail < need {
            return Err(WireError::truncated(h, at, need, avail));
        }
        at += need;
    }
    let payload_offset = ext_offset + ext_len;
    let room = udp_end.saturating_sub(payload_offset);
    if room < ICRC_LEN {
        return Err(WireError::truncated(
            Header::Icrc,
            payload_offset,
            ICRC_LEN,
            room,
        ));
    }
    let payload_and_pad = room - ICRC_LEN;
    let pad_len = usize::from(bth.pad_count());
    if pad_len > payload_and_pad {
        return Err(WireError::new(
            Header::Bth,
            bth_offset,
            ErrorKind::LengthMismatch {
                field: "infiniband.bth.padcnt",
                claimed: pad_len,
                available: payload_and_pad,
            },
        ));
    }
    if !info.headers.payload && payload_and_pad != 0 {
        return Err(WireError::new(
            Header::Payload,
            payload_offset,
            ErrorKind::LengthMismatch {
                field: "payload of an opcode that carries none",
                claimed: 0,
                available: payload_and_pad,
            },
        ));
    }
    let icrc_offset = udp_end - ICRC_LEN;
    let trailer = frame.len().saturating_sub(ip_end);
    let fcs_offset = match fcs {
        FcsMode::Absent => None,
        FcsMode::Present => {
            if trailer < ethernet::FCS_LEN {
                return Err(WireError::truncated(
                    Header::Fcs,
                    ip_end,
                    ethernet::FCS_LEN,
                    trailer,
                ));
            }
            Some(frame.len() - ethernet::FCS_LEN)
        }
        FcsMode::Detect => {
            let off = frame.len().wrapping_sub(ethernet::FCS_LEN);
            (trailer >= ethernet::FCS_LEN && fcs_matches(frame, off)).then_some(off)
        }
    };
    Ok((
        RoceLayout {
            frame_len: frame.len(),
            vlan: eth.is_tagged(),
            ip_offset,
            ip_version,
            ip_header_len,
            ip_end,
            udp_offset,
            bth_offset,
            ext_offset,
            payload_offset,
            payload_len: payload_and_pad - pad_len,
            pad_len,
            icrc_offset,
            fcs_offset,
        },
        info,
    ))
}

fn not_roce(header: Header, offset: usize, reason: &'static str, value: u64) -> WireError {
    WireError::new(header, offset, ErrorKind::NotRoce { reason, value })
}

fn fcs_matches(frame: &[u8], fcs_offset: usize) -> bool {
    let stored = slice(frame, fcs_offset, fcs_offset + ethernet::FCS_LEN);
    match stored {
        &[a, b, c, d] => {
            ethernet_fcs(slice(frame, 0, fcs_offset)) == u32::from_le_bytes([a, b, c, d])
        }
        _ => false,
    }
}

/// The ICRC stored in the frame (little-endian on the wire).
pub fn stored_icrc(frame: &[u8], layout: &RoceLayout) -> u32 {
    match slice(frame, layout.icrc_offset, layout.icrc_offset + ICRC_LEN) {
        &[a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// The ICRC computed over the frame's invariant bytes.
pub fn computed_icrc(frame: &[u8], layout: &RoceLayout) -> Result<u32> {
    roce_v2_icrc(slice(frame, layout.ip_offset, layout.icrc_offset))
        .map_err(|e| e.shifted(layout.ip_offset))
}

/// What a monitor needs per packet, decoded in one pass without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoceSummary {
    pub frame_len: u32,
    pub ip_version: u8,
    pub dscp: u8,
    pub ecn: u8,
    pub udp_src_port: u16,
    pub opcode: Opcode,
    pub solicited_event: bool,
    pub p_key: u16,
    pub fecn: bool,
    pub becn: bool,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub psn: u32,
    pub payload_len: u32,
    pub pad_len: u8,
    pub aeth: Option<Aeth>,
    pub reth: Option<Reth>,
    pub deth: Option<Deth>,
    pub icrc: u32,
    pub icrc_ok: bool,
}

/// Decodes the transport-relevant fields of a RoCE v2 frame and checks its ICRC.
/// Structural problems are errors; a bad ICRC is reported in `icrc_ok`.
pub fn summarize(frame: &[u8]) -> Result<RoceSummary> {
    let (l, info) = locate(frame, FcsMode::Absent)?;
    let ip = slice(frame, l.ip_offset, l.ip_end);
    let tclass = if l.ip_version == 4 {
        super::bytes::u8_at(ip, 1)
    } else {
        (super::bytes::be16(ip, 0) >> 4) as u8
    };
    let bth = BthPacket::new_checked(slice(frame, l.bth_offset, l.icrc_offset))
        .map_err(|e| e.shifted(l.bth_offset))?;
    let mut at = l.ext_offset;
    let (mut aeth, mut reth, mut deth) = (None, None, None);
    for h in info.headers.iter() {
        let b = slice(frame, at, l.icrc_offset);
        match h {
            Header::Aeth => aeth = Aeth::parse(b).ok(),
            Header::Reth => reth = Reth::parse(b).ok(),
            Header::Deth => deth = Deth::parse(b).ok(),
            _ => {}
        }
        at += super::ext::header_len(h);
    }
    let icrc = stored_icrc(frame, &l);
    let icrc_ok = computed_icrc(frame, &l)? == icrc;
    Ok(RoceSummary {
        frame_len: frame.len() as u32,
        ip_version: l.ip_version,
        dscp: tclass >> 2,
        ecn: tclass & 0x3,
        udp_src_port: super::bytes::be16(frame, l.udp_offset),
        opcode: bth.opcode(),
        solicited_event: bth.solicited_event(),
        p_key: bth.p_key(),
        fecn: bth.fecn(),
        becn: bth.becn(),
        dest_qp: bth.dest_qp().0,
        ack_req: bth.ack_req(),
        psn: bth.psn().value(),
        payload_len: l.payload_len as u32,
        pad_len: l.pad_len as u8,
        aeth,
        reth,
        deth,
        icrc,
        icrc_ok,
    })
}

/// A whole RoCE v2 frame, parsed. `emit` derives every length, checksum and CRC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoceFrameRepr {
    pub ethernet: EthernetRepr,
    pub ip: IpRepr,
    pub udp: UdpRepr,
    pub bth: BthRepr,
    pub ext: ExtRepr,
    /// Payload without the pad bytes.
    pub payload: Vec<u8>,
    /// Append an Ethernet FCS.
    pub fcs: bool,
}

impl RoceFrameRepr {
    /// Parses and fully validates a frame: lengths, IPv4 header checksum, UDP
    /// checksum (when present), ICRC and FCS (per `fcs`).
    pub fn parse(frame: &[u8], fcs: FcsMode) -> Result<Self> {
        let (l, info) = locate(frame, fcs)?;
        let eth = EthernetFrame::new_checked(frame)?;
        let ethernet = EthernetRepr::parse(&eth)?;
        let ip_bytes = slice(frame, l.ip_offset, l.ip_end);
        let (ip, pseudo) = if l.ip_version == 4 {
            let p = Ipv4Packet::new_checked(ip_bytes).map_err(|e| e.shifted(l.ip_offset))?;
            let r = Ipv4Repr::parse(&p).map_err(|e| e.shifted(l.ip_offset))?;
            (
                IpRepr::V4(r),
                PseudoHeader::V4 {
                    src: r.src_addr,
                    dst: r.dst_addr,
                },
            )
        } else {
            let p = Ipv6Packet::new_checked(ip_bytes).map_err(|e| e.shifted(l.ip_offset))?;
            let r = Ipv6Repr::parse(&p).map_err(|e| e.shifted(l.ip_offset))?;
            (
                IpRepr::V6(r),
                PseudoHeader::V6 {
                    src: r.src_addr,
                    dst: r.dst_addr,
                },
            )
        };
        let udp_p = UdpPacket::new_checked(slice(frame, l.udp_offset, l.ip_end))
            .map_err(|e| e.shifted(l.udp_offset))?;
        let udp = UdpRepr::parse(&udp_p, pseudo).map_err(|e| e.shifted(l.udp_offset))?;
        let bth_p = BthPacket::new_checked(slice(frame, l.bth_offset, l.icrc_offset))
            .map_err(|e| e.shifted(l.bth_offset))?;
        let bth = BthRepr::parse(&bth_p)?;
        let (ext, _) = ExtRepr::parse(info.headers, slice(frame, l.ext_offset, l.icrc_offset))
            .map_err(|e| e.shifted(l.ext_offset))?;
        let stored = stored_icrc(frame, &l);
        let computed = computed_icrc(frame, &l)?;
        if stored != computed {
            return Err(WireError::new(
                Header::Icrc,
                l.icrc_offset,
                ErrorKind::BadChecksum {
                    field: "infiniband.invariant.crc",
                    computed,
                    found: stored,
                },
            ));
        }
        if let (FcsMode::Present, Some(off)) = (fcs, l.fcs_offset) {
            if !fcs_matches(frame, off) {
                return Err(WireError::new(
                    Header::Fcs,
                    off,
                    ErrorKind::BadChecksum {
                        field: "eth.fcs",
                        computed: ethernet_fcs(slice(frame, 0, off)),
                        found: be32(frame, off).swap_bytes(),
                    },
                ));
            }
        }
        Ok(RoceFrameRepr {
            ethernet,
            ip,
            udp,
            bth,
            ext,
            payload: slice(frame, l.payload_offset, l.payload_offset + l.payload_len).to_vec(),
            fcs: l.fcs_offset.is_some(),
        })
    }

    /// Sets the derived fields (EtherType, IP protocol, payload lengths, UDP port)
    /// to what `emit` will write, so that `parse(emit(r)) == r.normalized()`.
    pub fn normalized(mut self) -> Self {
        let l4 = bth::HEADER_LEN
            + self.ext.present().len()
            + self.payload.len()
            + usize::from(self.bth.pad_count)
            + ICRC_LEN;
        self.udp.payload_len = l4;
        self.udp.dst_port = ROCE_V2_PORT;
        match &mut self.ip {
            IpRepr::V4(r) => {
                r.protocol = PROTOCOL_UDP;
                r.payload_len = l4 + udp::HEADER_LEN;
                self.ethernet.ethertype = EtherType::IPV4.0;
            }
            IpRepr::V6(r) => {
                r.next_header = PROTOCOL_UDP;
                r.payload_len = l4 + udp::HEADER_LEN;
                self.udp.checksum = true;
                self.ethernet.ethertype = EtherType::IPV6.0;
            }
        }
        self
    }

    /// Builds the frame bytes: lengths, IPv4 header checksum, ICRC, UDP checksum (always
    /// over IPv6, on request over IPv4) and, when asked, the FCS.
    pub fn emit(&self) -> Result<Vec<u8>> {
        let r = self.clone().normalized();
        let info = r.bth.opcode.info().ok_or_else(|| {
            WireError::new(
                Header::Bth,
                0,
                ErrorKind::UnknownOpcode {
                    opcode: r.bth.opcode.0,
                },
            )
        })?;
        let pad = usize::from(r.bth.pad_count);
        if (r.payload.len() + pad) & 3 != 0 || pad > 3 {
            return Err(WireError::new(
                Header::Bth,
                0,
                ErrorKind::BadValue {
                    field: "infiniband.bth.padcnt (payload + pad must be a multiple of 4)",
                    value: pad as u64,
                },
            ));
        }
        if !info.headers.payload && !r.payload.is_empty() {
            return Err(WireError::new(
                Header::Payload,
                0,
                ErrorKind::LengthMismatch {
                    field: "payload of an opcode that carries none",
                    claimed: 0,
                    available: r.payload.len(),
                },
            ));
        }
        let eth_len = r.ethernet.header_len();
        let (ip_len, pseudo) = match r.ip {
            IpRepr::V4(ip) => (
                ip.header_len(),
                PseudoHeader::V4 {
                    src: ip.src_addr,
                    dst: ip.dst_addr,
                },
            ),
            IpRepr::V6(ip) => (
                ip.header_len(),
                PseudoHeader::V6 {
                    src: ip.src_addr,
                    dst: ip.dst_addr,
                },
            ),
        };
        let udp_offset = eth_len + ip_len;
        let mut out = vec![0u8; udp_offset + udp::HEADER_LEN];
        r.ethernet.emit(&mut out)?;
        let ip_buf = out.get_mut(eth_len..).unwrap_or(&mut []);
        match r.ip {
            IpRepr::V4(ip) => ip.emit(ip_buf),
            IpRepr::V6(ip) => ip.emit(ip_buf),
        }
        .map_err(|e| e.shifted(eth_len))?;
        r.udp
            .emit(out.get_mut(udp_offset..).unwrap_or(&mut []))
            .map_err(|e| e.shifted(udp_offset))?;
        out.extend_from_slice(&r.bth.emit()?);
        r.ext.emit(info.headers, &mut out)?;
        out.extend_from_slice(&r.payload);
        out.resize(out.len() + pad, 0);
        let icrc = roce_v2_icrc(slice(&out, eth_len, out.len()))?;
        out.extend_from_slice(&icrc.to_le_bytes());
        if r.udp.checksum {
            let end = out.len();
            let mut u = UdpPacket::new_checked(out.get_mut(udp_offset..end).unwrap_or(&mut []))?;
            u.fill_checksum(pseudo);
        }
        if out.len() < MIN_FRAME_LEN {
            out.resize(MIN_FRAME_LEN, 0);
        }
        if r.fcs {
            let fcs = ethernet_fcs(&out);
            out.extend_from_slice(&fcs.to_le_bytes());
        }
        Ok(out)
    }
}
