//! UDP headers (RFC 768) carrying RoCE v2 on destination port 4791.
//!
//! IBTA Vol 1 Annex A17.3: the destination port is 4791 and the source port carries
//! flow entropy for ECMP (the sender hashes the QP pair into it). Over IPv4 the UDP
//! checksum may be zero (RFC 768) and RoCE v2 senders normally leave it zero, relying
//! on the ICRC; over IPv6 a zero checksum is not allowed (RFC 8200 §8.1), so it is
//! computed over the IPv6 pseudo-header.

use super::bytes::{be16, put16, slice};
use super::ipv4::{fold_checksum, ones_complement_sum};
use super::{ErrorKind, Header, Result, WireError};
use core::net::{Ipv4Addr, Ipv6Addr};
use serde::{Deserialize, Serialize};

pub(crate) mod field {
    pub const SRC_PORT: usize = 0;
    pub const DST_PORT: usize = 2;
    pub const LENGTH: usize = 4;
    pub const CHECKSUM: usize = 6;
    pub const HEADER_LEN: usize = 8;
}

/// UDP header length.
pub const HEADER_LEN: usize = field::HEADER_LEN;
/// IANA-assigned RoCE v2 destination port (IBTA Vol 1 Annex A17.3).
pub const ROCE_V2_PORT: u16 = 4791;

/// Addresses that enter the UDP pseudo-header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PseudoHeader {
    V4 { src: Ipv4Addr, dst: Ipv4Addr },
    V6 { src: Ipv6Addr, dst: Ipv6Addr },
}

/// Checksum of a whole UDP datagram (header with the checksum field counted as zero,
/// payload) under the pseudo-header; a computed zero is sent as 0xFFFF (RFC 768).
pub fn compute_checksum(pseudo: PseudoHeader, datagram: &[u8]) -> u16 {
    let len = datagram.len() as u32;
    let mut acc = match pseudo {
        PseudoHeader::V4 { src, dst } => {
            let a = ones_complement_sum(0, &src.octets());
            let a = ones_complement_sum(a, &dst.octets());
            a + 17 + len
        }
        PseudoHeader::V6 { src, dst } => {
            let a = ones_complement_sum(0, &src.octets());
            let a = ones_complement_sum(a, &dst.octets());
            a + (len >> 16) + (len & 0xFFFF) + 17
        }
    };
    acc = ones_complement_sum(acc, slice(datagram, 0, field::CHECKSUM));
    acc = ones_complement_sum(acc, slice(datagram, field::HEADER_LEN, datagram.len()));
    match fold_checksum(acc) {
        0 => 0xFFFF,
        c => c,
    }
}

/// Zero-copy view of a UDP header and payload.
#[derive(Debug, Clone)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        if len < field::HEADER_LEN {
            return Err(WireError::truncated(Header::Udp, 0, field::HEADER_LEN, len));
        }
        Ok(UdpPacket { buffer })
    }

    /// Errors when the length field is below 8 or beyond the bytes present.
    pub fn check_len(&self) -> Result<()> {
        let claimed = usize::from(self.len());
        let avail = self.buffer.as_ref().len();
        if claimed < field::HEADER_LEN || claimed > avail {
            return Err(WireError::new(
                Header::Udp,
                0,
                ErrorKind::LengthMismatch {
                    field: "udp.length",
                    claimed,
                    available: avail,
                },
            ));
        }
        Ok(())
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    pub fn src_port(&self) -> u16 {
        be16(self.b(), field::SRC_PORT)
    }
    pub fn dst_port(&self) -> u16 {
        be16(self.b(), field::DST_PORT)
    }
    pub fn len(&self) -> u16 {
        be16(self.b(), field::LENGTH)
    }
    pub fn is_empty(&self) -> bool {
        usize::from(self.len()) <= field::HEADER_LEN
    }
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    /// The datagram bounded by the length field (or by the buffer, when it lies).
    pub fn datagram(&self) -> &[u8] {
        let b = self.b();
        slice(
            b,
            0,
            usize::from(self.len()).clamp(field::HEADER_LEN, b.len()),
        )
    }
    pub fn payload(&self) -> &[u8] {
        let d = self.datagram();
        slice(d, field::HEADER_LEN, d.len())
    }
    /// True when the checksum is absent (zero over IPv4) or correct.
    pub fn verify_checksum(&self, pseudo: PseudoHeader) -> bool {
        match (self.checksum(), pseudo) {
            (0, PseudoHeader::V4 { .. }) => true,
            (found, p) => compute_checksum(p, self.datagram()) == found,
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    pub fn fill_checksum(&mut self, pseudo: PseudoHeader) {
        let c = compute_checksum(pseudo, self.datagram());
        put16(self.buffer.as_mut(), field::CHECKSUM, c);
    }
}

/// High-level UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    /// Whether the checksum is (to be) filled in. Over IPv6 it always is.
    pub checksum: bool,
    pub payload_len: usize,
}

impl UdpRepr {
    /// Parses and validates the length field and, when present, the checksum.
    pub fn parse<T: AsRef<[u8]>>(p: &UdpPacket<T>, pseudo: PseudoHeader) -> Result<Self> {
        p.check_len()?;
        if matches!(pseudo, PseudoHeader::V6 { .. }) && p.checksum() == 0 {
            return Err(WireError::new(
                Header::Udp,
                0,
                ErrorKind::BadValue {
                    field: "udp.checksum (zero is not allowed over IPv6, RFC 8200 §8.1)",
                    value: 0,
                },
            ));
        }
        if !p.verify_checksum(pseudo) {
            return Err(WireError::new(
                Header::Udp,
                0,
                ErrorKind::BadChecksum {
                    field: "udp.checksum",
                    computed: u32::from(compute_checksum(pseudo, p.datagram())),
                    found: u32::from(p.checksum()),
                },
            ));
        }
        Ok(UdpRepr {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            checksum: p.checksum() != 0,
            payload_len: usize::from(p.len()) - field::HEADER_LEN,
        })
    }

    pub fn header_len(&self) -> usize {
        field::HEADER_LEN
    }

    /// Writes the header with a zero checksum; the caller fills the checksum once the
    /// payload is in place (see [`UdpPacket::fill_checksum`]).
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < field::HEADER_LEN {
            return Err(WireError::truncated(
                Header::Udp,
                0,
                field::HEADER_LEN,
                buf.len(),
            ));
        }
        let total = self.payload_len + field::HEADER_LEN;
        if total > usize::from(u16::MAX) {
            return Err(WireError::new(
                Header::Udp,
                0,
                ErrorKind::BadValue {
                    field: "udp.length",
                    value: total as u64,
                },
            ));
        }
        put16(buf, field::SRC_PORT, self.src_port);
        put16(buf, field::DST_PORT, self.dst_port);
        put16(buf, field::LENGTH, total as u16);
        put16(buf, field::CHECKSUM, 0);
        Ok(())
    }
}
