//! The three CRCs around a RoCE / InfiniBand packet.
//!
//! * **ICRC** (invariant CRC, IBTA Vol 1 §7.8.1; RoCE v2: Annex A17.4.1): CRC-32 with
//!   the Ethernet polynomial (IEEE 802.3 §3.2.9), initial value all ones, final
//!   complement, over the packet from the (pseudo-)LRH to the end of the pad bytes
//!   with every *variant* field — one a router or switch may change — replaced by
//!   ones. For RoCE v2 the LRH does not exist and is replaced by 8 bytes of ones; the
//!   variant fields are IPv4 DSCP/ECN, TTL and header checksum, or IPv6 traffic class,
//!   flow label and hop limit; the UDP checksum; and BTH byte 4 (FECN/BECN/resv).
//!   The 32-bit result goes on the wire least significant byte first (Linux
//!   `drivers/infiniband/sw/rxe/rxe_icrc.c` stores `~crc32_le(...)` in CPU order on
//!   little-endian hosts; scapy `contrib/roce.py` `pack_icrc` reverses the big-endian
//!   bytes).
//! * **VCRC** (variant CRC, IBTA Vol 1 §7.8.2): CRC-16 with polynomial 0x100B
//!   (x^16 + x^12 + x^3 + x + 1), initial value all ones, final complement, bits
//!   processed least significant first like the ICRC, over the whole native IB packet
//!   from the LRH through the ICRC; recomputed at every hop. Sent least significant
//!   byte first, the same convention as the ICRC.
//! * **FCS** (IEEE 802.3 §3.2.9): the Ethernet CRC-32 over destination MAC through the
//!   end of the payload/padding, sent least significant byte first.
//!
//! The CRC-32 itself comes from the `crc32fast` crate; only the masking is ours.

use super::bytes::u8_at;
use super::{ErrorKind, Header, Result, WireError};

/// Length of the ICRC trailer.
pub const ICRC_LEN: usize = 4;
/// Length of the VCRC trailer.
pub const VCRC_LEN: usize = 2;
/// CRC-32 of the all-ones 8-byte pseudo-LRH RoCE v2 prepends (IBTA Vol 1 Annex
/// A17.4.1): every RoCE v2 ICRC starts from it (checked by a test).
const PSEUDO_LRH_CRC: u32 = 0x2144_DF1C;

const IPV6_LEN: usize = 40;
const UDP_LEN: usize = 8;
const BTH_LEN: usize = 12;
const LRH_LEN: usize = 8;
/// Largest IPv4 header (IHL 15).
const IPV4_MAX_LEN: usize = 60;

/// Ethernet FCS of `frame` (destination MAC up to, not including, the FCS).
pub fn ethernet_fcs(frame: &[u8]) -> u32 {
    crc32fast::hash(frame)
}

/// Masks the variant fields of an IPv6 header or IB GRH (same layout) in place:
/// traffic class, flow label and hop limit become ones; the version stays.
fn mask_ipv6_like(h: &mut [u8]) {
    if let Some(b0) = h.get_mut(0) {
        *b0 |= 0x0F;
    }
    for i in 1..4 {
        if let Some(b) = h.get_mut(i) {
            *b = 0xFF;
        }
    }
    if let Some(b) = h.get_mut(7) {
        *b = 0xFF;
    }
}

/// ICRC of a RoCE v2 packet. `l3` starts at the IP header and ends right before the
/// ICRC (so it holds IP, UDP, BTH, extended headers, payload and pad bytes).
pub fn roce_v2_icrc(l3: &[u8]) -> Result<u32> {
    let version = u8_at(l3, 0) >> 4;
    let ip_len = match version {
        4 => usize::from(u8_at(l3, 0) & 0x0F) * 4,
        6 => IPV6_LEN,
        v => {
            return Err(WireError::new(
                Header::Icrc,
                0,
                ErrorKind::BadValue {
                    field: "IP version",
                    value: u64::from(v),
                },
            ))
        }
    };
    let fixed = ip_len + UDP_LEN + BTH_LEN;
    if ip_len < 20 || l3.len() < fixed {
        return Err(WireError::truncated(Header::Icrc, 0, fixed, l3.len()));
    }
    // IP + UDP + BTH at most 60 + 8 + 12 bytes: masked on the stack, no allocation.
    let mut masked = [0u8; IPV4_MAX_LEN + UDP_LEN + BTH_LEN];
    let (m, rest) = match (masked.get_mut(..fixed), l3.split_at_checked(fixed)) {
        (Some(m), Some((head, rest))) => {
            m.copy_from_slice(head);
            (m, rest)
        }
        _ => return Err(WireError::truncated(Header::Icrc, 0, fixed, l3.len())),
    };
    if version == 4 {
        for i in [1usize, 8, 10, 11] {
            if let Some(b) = m.get_mut(i) {
                *b = 0xFF;
            }
        }
    } else {
        mask_ipv6_like(m);
    }
    for i in [ip_len + 6, ip_len + 7, ip_len + UDP_LEN + 4] {
        if let Some(b) = m.get_mut(i) {
            *b = 0xFF;
        }
    }
    let mut h = crc32fast::Hasher::new_with_initial(PSEUDO_LRH_CRC);
    h.update(m);
    h.update(rest);
    Ok(h.finalize())
}

/// ICRC of a native InfiniBand packet. `pkt` starts at the LRH and ends right before
/// the ICRC. Variant fields: LRH VL; GRH traffic class, flow label, hop limit (when
/// LNH = 11, IBA global); BTH byte 4 (IBTA Vol 1 §7.8.1).
pub fn ib_icrc(pkt: &[u8]) -> Result<u32> {
    let lnh = u8_at(pkt, 1) & 0x3;
    let grh = lnh == 0b11;
    let fixed = LRH_LEN + if grh { IPV6_LEN } else { 0 } + BTH_LEN;
    let mut masked = [0u8; LRH_LEN + IPV6_LEN + BTH_LEN];
    let (m, rest) = match (masked.get_mut(..fixed), pkt.split_at_checked(fixed)) {
        (Some(m), Some((head, rest))) => {
            m.copy_from_slice(head);
            (m, rest)
        }
        _ => return Err(WireError::truncated(Header::Icrc, 0, fixed, pkt.len())),
    };
    if let Some(b) = m.get_mut(0) {
        *b |= 0xF0; // VL
    }
    if grh {
        if let Some(g) = m.get_mut(LRH_LEN..LRH_LEN + IPV6_LEN) {
            mask_ipv6_like(g);
        }
    }
    if let Some(b) = m.get_mut(fixed - BTH_LEN + 4) {
        *b = 0xFF;
    }
    let mut h = crc32fast::Hasher::new();
    h.update(m);
    h.update(rest);
    Ok(h.finalize())
}

/// Polynomial 0x100B bit-reversed, for least-significant-bit-first processing.
const VCRC_POLY_REFLECTED: u16 = 0xD008;

const fn vcrc_table() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u16;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ VCRC_POLY_REFLECTED
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static VCRC_TABLE: [u16; 256] = vcrc_table();

/// VCRC over `pkt` (LRH through ICRC).
pub fn vcrc(pkt: &[u8]) -> u16 {
    let mut c: u16 = 0xFFFF;
    for &b in pkt {
        let idx = usize::from((c ^ u16::from(b)) as u8);
        c = VCRC_TABLE.get(idx).copied().unwrap_or(0) ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    const PSEUDO_LRH: [u8; 8] = [0xFF; 8];

    #[test]
    fn the_pseudo_lrh_crc_is_the_crc_of_eight_ones_bytes() {
        assert_eq!(crc32fast::hash(&PSEUDO_LRH), PSEUDO_LRH_CRC);
    }
}
