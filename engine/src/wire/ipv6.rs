//! IPv6 fixed headers (RFC 8200 §3); the traffic class splits into DSCP and ECN as in
//! IPv4 (RFC 2474 §3, RFC 3168 §5).
//!
//! Extension headers are not followed: RoCE v2 over IPv6 puts UDP (next header 17)
//! directly after the fixed header (IBTA Vol 1 Annex A17.4).

use super::bytes::{be16, be32, put, put16, put32, put_u8, slice, u8_at};
use super::{ErrorKind, Header, Result, WireError};
use core::net::Ipv6Addr;
use serde::{Deserialize, Serialize};

pub(crate) mod field {
    pub const VER_TC_FLOW: usize = 0;
    /// The three bytes that end in the 20-bit flow label.
    pub const FLOW_LABEL: usize = 1;
    pub const PAYLOAD_LEN: usize = 4;
    pub const NEXT_HEADER: usize = 6;
    pub const HOP_LIMIT: usize = 7;
    pub const SRC: usize = 8;
    pub const DST: usize = 24;
    pub const HEADER_LEN: usize = 40;
}

/// Length of the fixed IPv6 header.
pub const HEADER_LEN: usize = field::HEADER_LEN;

/// Zero-copy view of an IPv6 fixed header and its payload.
#[derive(Debug, Clone)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Checks the version and that the 40-byte header is present.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        if len < field::HEADER_LEN {
            return Err(WireError::truncated(
                Header::Ipv6,
                0,
                field::HEADER_LEN,
                len,
            ));
        }
        let p = Ipv6Packet { buffer };
        if p.version() != 6 {
            return Err(WireError::new(
                Header::Ipv6,
                0,
                ErrorKind::BadValue {
                    field: "ipv6.version",
                    value: u64::from(p.version()),
                },
            ));
        }
        Ok(p)
    }

    /// Errors when the payload length claims more bytes than are present.
    pub fn check_payload_len(&self) -> Result<()> {
        let claimed = usize::from(self.payload_len());
        let avail = self.buffer.as_ref().len() - field::HEADER_LEN;
        if claimed > avail {
            return Err(WireError::new(
                Header::Ipv6,
                0,
                ErrorKind::LengthMismatch {
                    field: "ipv6.plen",
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
    fn word0(&self) -> u32 {
        be32(self.b(), field::VER_TC_FLOW)
    }
    pub fn version(&self) -> u8 {
        (self.word0() >> 28) as u8
    }
    pub fn traffic_class(&self) -> u8 {
        (self.word0() >> 20) as u8
    }
    pub fn dscp(&self) -> u8 {
        self.traffic_class() >> 2
    }
    pub fn ecn(&self) -> u8 {
        self.traffic_class() & 0x3
    }
    pub fn flow_label(&self) -> u32 {
        self.word0() & 0x000F_FFFF
    }
    pub fn payload_len(&self) -> u16 {
        be16(self.b(), field::PAYLOAD_LEN)
    }
    pub fn next_header(&self) -> u8 {
        u8_at(self.b(), field::NEXT_HEADER)
    }
    pub fn hop_limit(&self) -> u8 {
        u8_at(self.b(), field::HOP_LIMIT)
    }
    pub fn src_addr(&self) -> Ipv6Addr {
        addr_at(self.b(), field::SRC)
    }
    pub fn dst_addr(&self) -> Ipv6Addr {
        addr_at(self.b(), field::DST)
    }
    /// Payload bounded by the payload length field (or by the buffer, when it lies).
    pub fn payload(&self) -> &[u8] {
        let b = self.b();
        let end = (field::HEADER_LEN + usize::from(self.payload_len())).min(b.len());
        slice(b, field::HEADER_LEN, end)
    }
}

pub(crate) fn addr_at(b: &[u8], at: usize) -> Ipv6Addr {
    let mut a = [0u8; 16];
    a.copy_from_slice(match b.get(at..at + 16) {
        Some(s) => s,
        None => &[0u8; 16],
    });
    Ipv6Addr::from(a)
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    pub fn set_hop_limit(&mut self, h: u8) {
        put_u8(self.buffer.as_mut(), field::HOP_LIMIT, h);
    }
    pub fn set_ecn(&mut self, ecn: u8) {
        let w = self.word0();
        let w = (w & !(0x3 << 20)) | (u32::from(ecn & 0x3) << 20);
        put32(self.buffer.as_mut(), field::VER_TC_FLOW, w);
    }
}

/// High-level IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ipv6Repr {
    pub src_addr: Ipv6Addr,
    pub dst_addr: Ipv6Addr,
    /// DSCP, the upper six bits of the traffic class (`ipv6.tclass.dscp`).
    pub dscp: u8,
    /// ECN, the lower two bits of the traffic class (`ipv6.tclass.ecn`).
    pub ecn: u8,
    /// 20-bit flow label (`ipv6.flow`); RoCE NICs often hash the QP pair into it.
    pub flow_label: u32,
    pub hop_limit: u8,
    pub next_header: u8,
    pub payload_len: usize,
}

impl Ipv6Repr {
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Self> {
        p.check_payload_len()?;
        Ok(Ipv6Repr {
            src_addr: p.src_addr(),
            dst_addr: p.dst_addr(),
            dscp: p.dscp(),
            ecn: p.ecn(),
            flow_label: p.flow_label(),
            hop_limit: p.hop_limit(),
            next_header: p.next_header(),
            payload_len: usize::from(p.payload_len()),
        })
    }

    pub fn header_len(&self) -> usize {
        field::HEADER_LEN
    }

    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < field::HEADER_LEN {
            return Err(WireError::truncated(
                Header::Ipv6,
                0,
                field::HEADER_LEN,
                buf.len(),
            ));
        }
        let bad = |field, value| {
            Err(WireError::new(
                Header::Ipv6,
                0,
                ErrorKind::BadValue { field, value },
            ))
        };
        if self.dscp > 63 || self.ecn > 3 {
            return bad(
                "ipv6.tclass",
                u64::from(self.dscp) << 2 | u64::from(self.ecn),
            );
        }
        if self.flow_label > 0x000F_FFFF {
            return bad("ipv6.flow", u64::from(self.flow_label));
        }
        if self.payload_len > usize::from(u16::MAX) {
            return bad("ipv6.plen", self.payload_len as u64);
        }
        let tc = u32::from((self.dscp << 2) | self.ecn);
        put32(
            buf,
            field::VER_TC_FLOW,
            (6 << 28) | (tc << 20) | self.flow_label,
        );
        put16(buf, field::PAYLOAD_LEN, self.payload_len as u16);
        put_u8(buf, field::NEXT_HEADER, self.next_header);
        put_u8(buf, field::HOP_LIMIT, self.hop_limit);
        put(buf, field::SRC, &self.src_addr.octets());
        put(buf, field::DST, &self.dst_addr.octets());
        Ok(())
    }
}
