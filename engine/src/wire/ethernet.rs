//! Ethernet II frames (IEEE 802.3 Clause 3) with an optional IEEE 802.1Q tag.
//!
//! RoCE v2 rides on plain Ethernet II: destination, source, EtherType, then IPv4
//! (0x0800) or IPv6 (0x86DD). Lossless RoCE deployments usually add an 802.1Q tag so
//! that the Priority Code Point selects the PFC class (IEEE 802.1Qbb); the tag's TCI is
//! PCP (3 bits), DEI (1 bit) and VLAN ID (12 bits) per IEEE 802.1Q-2018 §9.6.

use super::bytes::{be16, put, put16, slice};
use super::{ErrorKind, Header, Result, WireError};
use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub(crate) mod field {
    use core::ops::Range;
    pub const DESTINATION: Range<usize> = 0..6;
    pub const SOURCE: Range<usize> = 6..12;
    pub const ETHERTYPE: usize = 12;
    /// Untagged header length.
    pub const HEADER_LEN: usize = 14;
    /// Tag Control Information, right after the TPID 0x8100.
    pub const TCI: usize = 14;
    pub const INNER_ETHERTYPE: usize = 16;
    pub const TAGGED_HEADER_LEN: usize = 18;
}

/// Length of an untagged Ethernet II header.
pub const HEADER_LEN: usize = field::HEADER_LEN;
/// Length of an Ethernet II header with one 802.1Q tag.
pub const TAGGED_HEADER_LEN: usize = field::TAGGED_HEADER_LEN;
/// Frame check sequence length (IEEE 802.3 §3.2.9).
pub const FCS_LEN: usize = 4;
/// Minimum frame length without FCS (64 bytes on the wire minus the FCS).
pub const MIN_FRAME_LEN: usize = 60;

/// EtherType values this module recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EtherType(pub u16);

impl EtherType {
    pub const IPV4: EtherType = EtherType(0x0800);
    pub const IPV6: EtherType = EtherType(0x86DD);
    /// IEEE 802.1Q customer VLAN tag protocol identifier.
    pub const VLAN: EtherType = EtherType(0x8100);
    /// RoCE v1 (IBTA Vol 1 Annex A16): GRH directly over Ethernet.
    pub const ROCE_V1: EtherType = EtherType(0x8915);
}

/// A 48-bit MAC address; serialised as `"02:00:00:00:00:01"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

/// Error for a MAC address string that is not six hex octets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacParseError(pub String);

impl fmt::Display for MacParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid MAC address {:?}: expected six hex octets like 02:00:00:00:00:01",
            self.0
        )
    }
}

impl FromStr for MacAddr {
    type Err = MacParseError;
    fn from_str(s: &str) -> core::result::Result<Self, Self::Err> {
        let mut out = [0u8; 6];
        let mut n = 0;
        for part in s.split([':', '-']) {
            let slot = out.get_mut(n).ok_or_else(|| MacParseError(s.to_string()))?;
            if part.len() != 2 {
                return Err(MacParseError(s.to_string()));
            }
            *slot = u8::from_str_radix(part, 16).map_err(|_| MacParseError(s.to_string()))?;
            n += 1;
        }
        if n != 6 {
            return Err(MacParseError(s.to_string()));
        }
        Ok(MacAddr(out))
    }
}

impl Serialize for MacAddr {
    fn serialize<S: Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MacAddr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> core::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Zero-copy view of an Ethernet II header, tagged or not.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Wraps `buffer` after checking that the whole header (with its tag, if the
    /// outer EtherType says there is one) is present.
    pub fn new_checked(buffer: T) -> Result<Self> {
        let b = buffer.as_ref();
        if b.len() < field::HEADER_LEN {
            return Err(WireError::truncated(
                Header::Ethernet,
                0,
                field::HEADER_LEN,
                b.len(),
            ));
        }
        if be16(b, field::ETHERTYPE) == EtherType::VLAN.0 && b.len() < field::TAGGED_HEADER_LEN {
            return Err(WireError::truncated(Header::Vlan, 12, 6, b.len() - 12));
        }
        Ok(EthernetFrame { buffer })
    }

    pub fn into_inner(self) -> T {
        self.buffer
    }

    pub fn dst_addr(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(slice(
            self.buffer.as_ref(),
            field::DESTINATION.start,
            field::DESTINATION.end,
        ));
        MacAddr(a)
    }

    pub fn src_addr(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(slice(
            self.buffer.as_ref(),
            field::SOURCE.start,
            field::SOURCE.end,
        ));
        MacAddr(a)
    }

    /// The outer EtherType (0x8100 when tagged).
    pub fn outer_ethertype(&self) -> EtherType {
        EtherType(be16(self.buffer.as_ref(), field::ETHERTYPE))
    }

    pub fn is_tagged(&self) -> bool {
        self.outer_ethertype() == EtherType::VLAN
    }

    /// The raw 16-bit Tag Control Information, when tagged.
    pub fn tci(&self) -> Option<u16> {
        self.is_tagged()
            .then(|| be16(self.buffer.as_ref(), field::TCI))
    }

    /// The EtherType of the payload (inside the tag when tagged).
    pub fn ethertype(&self) -> EtherType {
        if self.is_tagged() {
            EtherType(be16(self.buffer.as_ref(), field::INNER_ETHERTYPE))
        } else {
            self.outer_ethertype()
        }
    }

    pub fn header_len(&self) -> usize {
        if self.is_tagged() {
            field::TAGGED_HEADER_LEN
        } else {
            field::HEADER_LEN
        }
    }

    pub fn payload(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        slice(b, self.header_len(), b.len())
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    pub fn set_dst_addr(&mut self, a: MacAddr) {
        put(self.buffer.as_mut(), field::DESTINATION.start, &a.0);
    }
    pub fn set_src_addr(&mut self, a: MacAddr) {
        put(self.buffer.as_mut(), field::SOURCE.start, &a.0);
    }
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let start = self.header_len();
        let b = self.buffer.as_mut();
        let len = b.len();
        b.get_mut(start..len).unwrap_or(&mut [])
    }
}

/// An 802.1Q tag: PCP, DEI and VLAN ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VlanRepr {
    /// Priority Code Point, 0..=7 (`vlan.priority`); selects the PFC class.
    pub pcp: u8,
    /// Drop Eligible Indicator (`vlan.dei`).
    pub dei: bool,
    /// VLAN identifier, 0..=4095 (`vlan.id`).
    pub vid: u16,
}

impl VlanRepr {
    pub fn tci(&self) -> u16 {
        (u16::from(self.pcp & 0x7) << 13) | (u16::from(self.dei) << 12) | (self.vid & 0x0FFF)
    }
    pub fn from_tci(tci: u16) -> Self {
        VlanRepr {
            pcp: (tci >> 13) as u8,
            dei: tci & 0x1000 != 0,
            vid: tci & 0x0FFF,
        }
    }
}

/// High-level Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EthernetRepr {
    pub src_addr: MacAddr,
    pub dst_addr: MacAddr,
    pub vlan: Option<VlanRepr>,
    /// EtherType of the payload (never 0x8100; the tag is `vlan`).
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse<T: AsRef<[u8]>>(frame: &EthernetFrame<T>) -> Result<Self> {
        Ok(EthernetRepr {
            src_addr: frame.src_addr(),
            dst_addr: frame.dst_addr(),
            vlan: frame.tci().map(VlanRepr::from_tci),
            ethertype: frame.ethertype().0,
        })
    }

    pub fn header_len(&self) -> usize {
        if self.vlan.is_some() {
            field::TAGGED_HEADER_LEN
        } else {
            field::HEADER_LEN
        }
    }

    /// Writes the header into the first `header_len()` bytes of `buf`.
    pub fn emit(&self, buf: &mut [u8]) -> Result<()> {
        if buf.len() < self.header_len() {
            return Err(WireError::truncated(
                Header::Ethernet,
                0,
                self.header_len(),
                buf.len(),
            ));
        }
        if let Some(v) = self.vlan {
            if v.pcp > 7 || v.vid > 0x0FFF {
                return Err(WireError::new(
                    Header::Vlan,
                    12,
                    ErrorKind::BadValue {
                        field: "vlan.priority/vlan.id",
                        value: u64::from(v.tci()),
                    },
                ));
            }
        }
        put(buf, field::DESTINATION.start, &self.dst_addr.0);
        put(buf, field::SOURCE.start, &self.src_addr.0);
        match self.vlan {
            Some(v) => {
                put16(buf, field::ETHERTYPE, EtherType::VLAN.0);
                put16(buf, field::TCI, v.tci());
                put16(buf, field::INNER_ETHERTYPE, self.ethertype);
            }
            None => put16(buf, field::ETHERTYPE, self.ethertype),
        }
        Ok(())
    }
}
