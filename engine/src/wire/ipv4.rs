//! IPv4 headers (RFC 791) with the DS field split into DSCP and ECN (RFC 2474, RFC 3168).
//!
//! RoCE v2 marks congestion in the ECN bits (DCQCN, Zhu et al. SIGCOMM 2015 §3) and
//! selects the lossless traffic class through DSCP. The header checksum is the
//! RFC 1071 one's-complement sum over the header only.

use super::bytes::{be16, put, put16, put_u8, slice, u8_at};
use super::{ErrorKind, Header, Result, WireError};
use core::net::Ipv4Addr;
use serde::{Deserialize, Serialize};

pub(crate) mod field {
    pub const VER_IHL: usize = 0;
    pub const DS: usize = 1;
    pub const TOTAL_LEN: usize = 2;
    pub const IDENT: usize = 4;
    pub const FLAGS_FRAG: usize = 6;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: usize = 10;
    pub const SRC: usize = 12;
    pub const DST: usize = 16;
    pub const MIN_HEADER_LEN: usize = 20;
}

/// Length of an IPv4 header without options.
pub const HEADER_LEN: usize = field::MIN_HEADER_LEN;
/// IP protocol number of UDP (IANA).
pub const PROTOCOL_UDP: u8 = 17;
/// Don't Fragment flag in the flags/fragment word (RFC 791 §3.1).
const FLAG_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const FRAG_OFFSET_MASK: u16 = 0x1FFF;

/// RFC 1071 one's-complement sum of 16-bit big-endian words, not yet complemented.
pub(crate) fn ones_complement_sum(acc: u32, data: &[u8]) -> u32 {
    // Four bytes at a time into 64 bits (RFC 1071 §2(B): the sum may be taken in wider
    // words and folded afterwards), then folded back to at most 17 bits: congruent modulo
    // 0xFFFF to the 16-bit sum, and zero only when that is zero.
    let mut wide = u64::from(acc);
    let mut words = data.chunks_exact(4);
    for w in &mut words {
        if let &[a, b, c, d] = w {
            wide += u64::from(u32::from_be_bytes([a, b, c, d]));
        }
    }
    let mut pairs = words.remainder().chunks_exact(2);
    for c in &mut pairs {
        if let &[a, b] = c {
            wide += u64::from(u16::from_be_bytes([a, b]));
        }
    }
    if let &[last] = pairs.remainder() {
        wide += u64::from(last) << 8;
    }
    while wide > 0xFFFF {
        wide = (wide & 0xFFFF) + (wide >> 16);
    }
    wide as u32
}

/// Folds carries and complements: the value to store in a checksum field.
pub(crate) fn fold_checksum(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// Zero-copy view of an IPv4 header and its payload.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Checks version, IHL and that the header (with options) is present. The total
    /// length is checked separately by [`Ipv4Packet::check_total_len`] so that a
    /// dissector can still show a header whose length field lies.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < field::MIN_HEADER_LEN {
            return Err(WireError::truncated(
                Header::Ipv4,
                0,
                field::MIN_HEADER_LEN,
                b.len(),
            ));
        }
        let p = Ipv4Packet { buffer };
        if p.version() != 4 {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::BadValue {
                    field: "ip.version",
                    value: u64::from(p.version()),
                },
            ));
        }
        let hl = p.header_len();
        if hl < field::MIN_HEADER_LEN {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::BadValue {
                    field: "ip.hdr_len",
                    value: hl as u64,
                },
            ));
        }
        let len = p.buffer.as_ref().len();
        if len < hl {
            return Err(WireError::truncated(Header::Ipv4, 0, hl, len));
        }
        Ok(p)
    }

    /// Errors when the total length field is shorter than the header or longer than
    /// the bytes present.
    pub fn check_total_len(&self) -> Result<()> {
        let total = usize::from(self.total_len());
        let len = self.buffer.as_ref().len();
        if total < self.header_len() || total > len {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::LengthMismatch {
                    field: "ip.len",
                    claimed: total,
                    available: len,
                },
            ));
        }
        Ok(())
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    pub fn version(&self) -> u8 {
        u8_at(self.b(), field::VER_IHL) >> 4
    }
    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(u8_at(self.b(), field::VER_IHL) & 0x0F) * 4
    }
    pub fn dscp(&self) -> u8 {
        u8_at(self.b(), field::DS) >> 2
    }
    pub fn ecn(&self) -> u8 {
        u8_at(self.b(), field::DS) & 0x3
    }
    pub fn total_len(&self) -> u16 {
        be16(self.b(), field::TOTAL_LEN)
    }
    pub fn ident(&self) -> u16 {
        be16(self.b(), field::IDENT)
    }
    pub fn dont_frag(&self) -> bool {
        be16(self.b(), field::FLAGS_FRAG) & FLAG_DF != 0
    }
    pub fn more_frags(&self) -> bool {
        be16(self.b(), field::FLAGS_FRAG) & FLAG_MF != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        be16(self.b(), field::FLAGS_FRAG) & FRAG_OFFSET_MASK
    }
    pub fn ttl(&self) -> u8 {
        u8_at(self.b(), field::TTL)
    }
    pub fn protocol(&self) -> u8 {
        u8_at(self.b(), field::PROTOCOL)
    }
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = self.b();
        Ipv4Addr::new(
            u8_at(b, field::SRC),
            u8_at(b, field::SRC + 1),
            u8_at(b, field::SRC + 2),
            u8_at(b, field::SRC + 3),
        )
    }
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = self.b();
        Ipv4Addr::new(
            u8_at(b, field::DST),
            u8_at(b, field::DST + 1),
            u8_at(b, field::DST + 2),
            u8_at(b, field::DST + 3),
        )
    }
    /// The header bytes, options included.
    pub fn header(&self) -> &[u8] {
        slice(self.b(), 0, self.header_len())
    }
    /// Checksum the header would carry (computed with the field taken as zero).
    pub fn compute_checksum(&self) -> u16 {
        let h = self.header();
        let acc = ones_complement_sum(0, slice(h, 0, field::CHECKSUM));
        let acc = ones_complement_sum(acc, slice(h, field::CHECKSUM + 2, h.len()));
        fold_checksum(acc)
    }
    pub fn verify_checksum(&self) -> bool {
        self.compute_checksum() == self.checksum()
    }
    /// Payload bounded by the total length field (or by the buffer, when it lies).
    pub fn payload(&self) -> &[u8] {
        let b = self.b();
        let end = usize::from(self.total_len()).min(b.len());
        slice(b, self.header_len(), end.max(self.header_len()))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    pub fn set_ttl(&mut self, ttl: u8) {
        put_u8(self.buffer.as_mut(), field::TTL, ttl);
    }
    pub fn set_ecn(&mut self, ecn: u8) {
        let b = self.buffer.as_mut();
        let ds = u8_at(b, field::DS);
        put_u8(b, field::DS, (ds & !0x3) | (ecn & 0x3));
    }
    /// Recomputes and stores the header checksum.
    pub fn fill_checksum(&mut self) {
        put16(self.buffer.as_mut(), field::CHECKSUM, 0);
        let c = self.compute_checksum();
        put16(self.buffer.as_mut(), field::CHECKSUM, c);
    }
}

/// High-level IPv4 header (no options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ipv4Repr {
    pub src_addr: Ipv4Addr,
    pub dst_addr: Ipv4Addr,
    /// Differentiated Services Code Point, 0..=63 (`ip.dsfield.dscp`).
    pub dscp: u8,
    /// Explicit Congestion Notification, 0..=3 (`ip.dsfield.ecn`): 0 Not-ECT,
    /// 1 ECT(1), 2 ECT(0), 3 CE (RFC 3168 §5).
    pub ecn: u8,
    pub ttl: u8,
    pub ident: u16,
    pub dont_frag: bool,
    pub protocol: u8,
    /// Bytes after the header, as given by the total length field.
    pub payload_len: usize,
}

impl Ipv4Repr {
    /// Parses and validates: version, IHL, total length against the buffer, no
    /// fragmentation, and the header checksum.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv4Packet<T>) -> Result<Self> {
        p.check_total_len()?;
        if p.more_frags() || p.frag_offset() != 0 {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::NotRoce {
                    reason: "a fragment (RoCE v2 never fragments), flags/offset",
                    value: u64::from(be16(p.b(), field::FLAGS_FRAG)),
                },
            ));
        }
        if !p.verify_checksum() {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::BadChecksum {
                    field: "ip.checksum",
                    computed: u32::from(p.compute_checksum()),
                    found: u32::from(p.checksum()),
                },
            ));
        }
        Ok(Ipv4Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            dscp: p.dscp(),
            ecn: p.ecn(),
            ttl: p.ttl(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            protocol: p.protocol(),
            payload_len: usize::from(p.total_len()) - p.header_len(),
        })
    }

    pub fn header_len(&self) -> usize {
        field::MIN_HEADER_LEN
    }

    /// Writes a 20-byte header with the checksum filled in.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        let total = self.payload_len + field::MIN_HEADER_LEN;
        if buf.len() < field::MIN_HEADER_LEN {
            return Err(WireError::truncated(
                Header::Ipv4,
                0,
                field::MIN_HEADER_LEN,
                buf.len(),
            ));
        }
        if total > usize::from(u16::MAX) {
            return Err(WireError::new(
                Header::Ipv4,
                0,
                ErrorKind::BadValue {
                    field: "ip.len",
                    value: total as u64,
                },
            ));
        }
        if self.dscp > 63 || self.ecn > 3 {
            return Err(WireError::new(
                Header::Ipv4,
                1,
                ErrorKind::BadValue {
                    field: "ip.dsfield",
                    value: u64::from(self.dscp) << 2 | u64::from(self.ecn),
                },
            ));
        }
        put_u8(buf, field::VER_IHL, 0x45);
        put_u8(buf, field::DS, (self.dscp << 2) | self.ecn);
        put16(buf, field::TOTAL_LEN, total as u16);
        put16(buf, field::IDENT, self.ident);
        put16(
            buf,
            field::FLAGS_FRAG,
            if self.dont_frag { FLAG_DF } else { 0 },
        );
        put_u8(buf, field::TTL, self.ttl);
        put_u8(buf, field::PROTOCOL, self.protocol);
        put16(buf, field::CHECKSUM, 0);
        put(buf, field::SRC, &self.src_addr.octets());
        put(buf, field::DST, &self.dst_addr.octets());
        let acc = ones_complement_sum(0, slice(buf, 0, field::MIN_HEADER_LEN));
        put16(buf, field::CHECKSUM, fold_checksum(acc));
        Ok(())
    }
}
