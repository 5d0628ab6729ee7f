//! Whole RoCE v2 frames: Ethernet [802.1Q] / IPv4|IPv6 / UDP 4791 / BTH / extended
//! headers / payload / pad / ICRC [/ FCS] (IBTA Vol 1 Annex A17.4).
//!
//! [`locate`] walks a frame once, checking every length against the bytes present, and
//! records where every part starts; [`RoceFrameRepr::parse`] and the packet list's fast
//! path (`capture::listing`) build on it.

use super::bth::BthRepr;
use super::bytes::{be32, slice};
use super::crc::{ethernet_fcs, roce_v2_icrc, ICRC_LEN};
use super::ethernet::{self, EtherType, EthernetFrame, EthernetRepr, MIN_FRAME_LEN};
use super::ext::ExtRepr;
use super::ipv4::{Ipv4Packet, Ipv4Repr, PROTOCOL_UDP};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::transport::{self, TransportLayout};
use super::udp::{PseudoHeader, UdpPacket, UdpRepr, ROCE_V2_PORT};
use super::{bth, ipv6, udp, ErrorKind, Header, Result, WireError};
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoceLayout {
    pub frame_len: usize,
    pub vlan: bool,
    pub ip_offset: usize,
    pub ip_version: u8,
    pub ip_header_len: usize,
    /// End of the IP packet (IP total length / payload length applied).
    pub ip_end: usize,
    pub udp_offset: usize,
    /// BTH through ICRC.
    pub transport: TransportLayout,
    /// Offset of the FCS, when one was found.
    pub fcs_offset: Option<usize>,
}

/// Walks the headers of `frame` and checks every length against the bytes present.
/// Checksums and CRCs are not verified here.
// Always inlined: the packet list's fast path runs it for every frame of a capture, and
// as a call (its layout returned through a `Result`) it cost that path a fifth of its speed.
#[inline(always)]
pub fn locate(frame: &[u8], fcs: FcsMode) -> Result<RoceLayout> {
    let eth = EthernetFrame::new_checked(frame)?;
    let ip_offset = eth.header_len();
    let l3 = slice(frame, ip_offset, frame.len());
    let at_ip = |e: WireError| e.shifted(ip_offset);
    let (ip_version, ip_header_len, ip_len) = match eth.ethertype() {
        EtherType::IPV4 => {
            let ip = Ipv4Packet::new_checked(l3).map_err(at_ip)?;
            (4, ip.header_len(), check_ipv4(&ip).map_err(at_ip)?)
        }
        EtherType::IPV6 => {
            let ip = Ipv6Packet::new_checked(l3).map_err(at_ip)?;
            (6, ipv6::HEADER_LEN, check_ipv6(&ip).map_err(at_ip)?)
        }
        EtherType(other) => return Err(not_roce_ethertype(other)),
    };
    let ip_end = ip_offset + ip_len;
    let udp_offset = ip_offset + ip_header_len;
    let udp_buf = slice(frame, udp_offset, ip_end);
    let at_udp = |e: WireError| e.shifted(udp_offset);
    let udp = UdpPacket::new_checked(udp_buf).map_err(at_udp)?;
    let udp_end = udp_offset + check_udp(&udp).map_err(at_udp)?;
    let transport = transport::locate(frame, udp_offset + udp::HEADER_LEN, udp_end)?;
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
    Ok(RoceLayout {
        frame_len: frame.len(),
        vlan: eth.is_tagged(),
        ip_offset,
        ip_version,
        ip_header_len,
        ip_end,
        udp_offset,
        transport,
        fcs_offset,
    })
}

/// What an IPv4 header must say to carry RoCE v2: a total length the bytes hold, no
/// fragmentation, UDP inside. The length of the IP packet; errors at offset 0.
pub fn check_ipv4<T: AsRef<[u8]>>(ip: &Ipv4Packet<T>) -> Result<usize> {
    ip.check_total_len()?;
    if ip.more_frags() || ip.frag_offset() != 0 {
        return Err(not_roce(
            Header::Ipv4,
            0,
            "a fragment offset/MF flag",
            u64::from(ip.frag_offset()),
        ));
    }
    if ip.protocol() != PROTOCOL_UDP {
        return Err(not_roce(
            Header::Ipv4,
            0,
            "IP protocol",
            u64::from(ip.protocol()),
        ));
    }
    Ok(usize::from(ip.total_len()))
}

/// [`check_ipv4`] for IPv6: a payload length the bytes hold and UDP as the next header.
pub fn check_ipv6<T: AsRef<[u8]>>(ip: &Ipv6Packet<T>) -> Result<usize> {
    ip.check_payload_len()?;
    if ip.next_header() != PROTOCOL_UDP {
        return Err(not_roce(
            Header::Ipv6,
            0,
            "next header",
            u64::from(ip.next_header()),
        ));
    }
    Ok(ipv6::HEADER_LEN + usize::from(ip.payload_len()))
}

/// What a UDP header must say to carry RoCE v2: a length the bytes hold and port 4791.
/// The length of the datagram; errors at offset 0.
pub fn check_udp<T: AsRef<[u8]>>(udp: &UdpPacket<T>) -> Result<usize> {
    udp.check_len()?;
    if udp.dst_port() != ROCE_V2_PORT {
        return Err(not_roce(
            Header::Udp,
            0,
            "destination port",
            u64::from(udp.dst_port()),
        ));
    }
    Ok(usize::from(udp.len()))
}

/// The error for a frame that is not IP over Ethernet.
pub fn not_roce_ethertype(ethertype: u16) -> WireError {
    not_roce(Header::Ethernet, 0, "EtherType", u64::from(ethertype))
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
    match slice(
        frame,
        layout.transport.icrc_offset,
        layout.transport.icrc_offset + ICRC_LEN,
    ) {
        &[a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// The ICRC computed over the frame's invariant bytes.
pub fn computed_icrc(frame: &[u8], layout: &RoceLayout) -> Result<u32> {
    roce_v2_icrc(slice(frame, layout.ip_offset, layout.transport.icrc_offset))
        .map_err(|e| e.shifted(layout.ip_offset))
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
        let l = locate(frame, fcs)?;
        let t = l.transport;
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
        let (bth, ext, payload) = transport::parse(frame, &t)?;
        transport::check_icrc(&t, computed_icrc(frame, &l)?, stored_icrc(frame, &l))?;
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
            payload,
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
        let info = transport::check_emit(&r.bth, r.payload.len())?;
        let pad = usize::from(r.bth.pad_count);
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
