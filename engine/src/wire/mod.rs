//! RoCE v2 and native InfiniBand headers on the wire: the codecs.
//!
//! The layout follows smoltcp's `wire` module: Ethernet, IPv4, IPv6, UDP, the BTH, the
//! LRH and the GRH each have a zero-copy view (`Packet<T: AsRef<[u8]>>`) whose only public
//! constructor, `new_checked`, proves the buffer is long enough, beside a plain `Repr`
//! struct with `parse` and `emit`; byte offsets are named once, in a `field` module per
//! header, which the dissector ([`mod@crate::capture::dissect`]) reads too. The extended
//! transport headers (4 to 28 bytes, read once each) have no view: each is a plain struct
//! parsed from and emitted to its bytes ([`ext`]).
//!
//! Layers covered (primary sources in each module):
//! * Ethernet II with an optional IEEE 802.1Q tag ([`ethernet`]),
//! * IPv4 (RFC 791, RFC 2474/3168 for DSCP/ECN) and IPv6 (RFC 8200) ([`ipv4`], [`ipv6`]),
//! * UDP (RFC 768) on port 4791, the RoCE v2 port (IBTA Vol 1 Annex A17) ([`udp`]),
//! * the InfiniBand transport: BTH, the opcode table and the extended transport headers
//!   (IBTA Vol 1 §9.2–§9.3) ([`bth`], [`opcode`], [`ext`]),
//! * the invariant CRC, the variant CRC and the Ethernet FCS ([`crc`]),
//! * the transport part both framings share, BTH through ICRC ([`transport`]),
//! * native InfiniBand framing: LRH and GRH (IBTA Vol 1 §7.7, §8.3) ([`ib`]),
//! * whole RoCE v2 frames: the one walk over their headers and their `Repr` ([`roce`]).
//!
//! What the lab does with captured frames (pcap files, the dissector, the packet list,
//! crafting) is in [`crate::capture`].
//!
//! Nothing here panics on input bytes: every failure is a [`WireError`] saying which
//! header failed, at which byte offset of the frame, and why.

pub mod bth;
pub mod crc;
mod error;
pub mod ethernet;
pub mod ext;
pub mod ib;
pub mod ipv4;
pub mod ipv6;
pub mod mad;
pub mod opcode;
pub mod roce;
pub mod transport;
pub mod udp;

pub use bth::{BthPacket, BthRepr, Psn, Qpn};
pub use error::{ErrorKind, FrameError, Header, WireError};
pub use ethernet::{EtherType, EthernetFrame, EthernetRepr, MacAddr, VlanRepr};
pub use ext::ExtHeaders;
pub use opcode::{Opcode, Operation, Transport};
pub use roce::{IpRepr, RoceFrameRepr};

/// Result of a wire operation.
pub type Result<T> = core::result::Result<T, WireError>;

/// Big-endian readers and writers that cannot panic.
///
/// Views check their length once in `new_checked`; these helpers still use `get` so that
/// a logic slip returns zero instead of aborting the browser tab.
pub(crate) mod bytes {
    pub fn u8_at(b: &[u8], at: usize) -> u8 {
        b.get(at).copied().unwrap_or(0)
    }

    pub fn be16(b: &[u8], at: usize) -> u16 {
        match b.get(at..at.wrapping_add(2)) {
            Some(&[x, y]) => u16::from_be_bytes([x, y]),
            _ => 0,
        }
    }

    pub fn be24(b: &[u8], at: usize) -> u32 {
        match b.get(at..at.wrapping_add(3)) {
            Some(&[x, y, z]) => u32::from_be_bytes([0, x, y, z]),
            _ => 0,
        }
    }

    pub fn be32(b: &[u8], at: usize) -> u32 {
        match b.get(at..at.wrapping_add(4)) {
            Some(&[a, b1, c, d]) => u32::from_be_bytes([a, b1, c, d]),
            _ => 0,
        }
    }

    pub fn be64(b: &[u8], at: usize) -> u64 {
        let mut out = [0u8; 8];
        if let Some(src) = b.get(at..at.wrapping_add(8)) {
            out.copy_from_slice(src);
        }
        u64::from_be_bytes(out)
    }

    pub fn put(b: &mut [u8], at: usize, src: &[u8]) {
        if let Some(dst) = b.get_mut(at..at.wrapping_add(src.len())) {
            dst.copy_from_slice(src);
        }
    }

    pub fn put_u8(b: &mut [u8], at: usize, v: u8) {
        if let Some(x) = b.get_mut(at) {
            *x = v;
        }
    }

    pub fn put16(b: &mut [u8], at: usize, v: u16) {
        put(b, at, &v.to_be_bytes());
    }

    pub fn put24(b: &mut [u8], at: usize, v: u32) {
        let [_, x, y, z] = v.to_be_bytes();
        put(b, at, &[x, y, z]);
    }

    pub fn put32(b: &mut [u8], at: usize, v: u32) {
        put(b, at, &v.to_be_bytes());
    }

    pub fn put64(b: &mut [u8], at: usize, v: u64) {
        put(b, at, &v.to_be_bytes());
    }

    /// Sub-slice that cannot panic: empty when out of range.
    pub fn slice(b: &[u8], start: usize, end: usize) -> &[u8] {
        b.get(start..end).unwrap_or(&[])
    }
}
