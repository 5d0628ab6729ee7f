//! Native InfiniBand framing, for comparison with RoCE v2: Local Route Header
//! (IBTA Vol 1 §7.7), optional Global Route Header (§8.3), BTH and the rest, ICRC
//! (§7.8.1) and VCRC (§7.8.2).
//!
//! ```text
//! LRH byte 0   VL(7-4) LVer(3-0)
//!     byte 1   SL(7-4) Resv2(3-2) LNH(1-0): 00 raw, 01 IP, 10 IBA local (BTH next),
//!                                           11 IBA global (GRH next)
//!     bytes 2-3 DLID   bytes 4-5 Resv5(15-11) PktLen(10-0)   bytes 6-7 SLID
//! ```
//! PktLen counts 4-byte words from the first LRH byte through the ICRC (the VCRC is
//! excluded). The GRH has the IPv6 header's layout (IPVer 6, TClass, FlowLabel,
//! PayLen, NxtHdr 0x1B for an IBA transport header, HopLmt, SGID, DGID); RoCE v1
//! (Annex A16) put exactly this GRH on Ethernet, and RoCE v2 replaced it with IP/UDP.

use super::bth::BthRepr;
use super::bytes::{be16, be32, put, put16, put32, put_u8, slice, u8_at};
use super::crc::{ib_icrc, vcrc, ICRC_LEN, VCRC_LEN};
use super::ext::ExtRepr;
use super::ipv6::addr_at;
use super::transport::{self, TransportLayout};
use super::{ErrorKind, Header, Result, WireError};
use core::net::Ipv6Addr;
use serde::{Deserialize, Serialize};

pub(crate) mod field {
    pub const VL_LVER: usize = 0;
    pub const SL_LNH: usize = 1;
    pub const DLID: usize = 2;
    pub const PKTLEN: usize = 4;
    pub const SLID: usize = 6;
    pub const LRH_LEN: usize = 8;

    pub const GRH_VER_TC_FLOW: usize = 0;
    pub const GRH_PAYLEN: usize = 4;
    pub const GRH_NXTHDR: usize = 6;
    pub const GRH_HOPLMT: usize = 7;
    pub const GRH_SGID: usize = 8;
    pub const GRH_DGID: usize = 24;
    pub const GRH_LEN: usize = 40;
}

/// LRH length.
pub const LRH_LEN: usize = field::LRH_LEN;
/// GRH length.
pub const GRH_LEN: usize = field::GRH_LEN;
/// GRH next-header value meaning "IBA transport header follows" (IBTA Vol 1 §8.3.1).
pub const NXTHDR_IBA: u8 = 0x1B;
/// LNH: IBA local, BTH follows the LRH.
pub const LNH_IBA_LOCAL: u8 = 0b10;
/// LNH: IBA global, GRH follows the LRH.
pub const LNH_IBA_GLOBAL: u8 = 0b11;

/// Zero-copy view of an LRH.
#[derive(Debug, Clone)]
pub struct LrhPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> LrhPacket<T> {
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        if len < field::LRH_LEN {
            return Err(WireError::truncated(Header::Lrh, 0, field::LRH_LEN, len));
        }
        Ok(LrhPacket { buffer })
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    pub fn vl(&self) -> u8 {
        u8_at(self.b(), field::VL_LVER) >> 4
    }
    pub fn lver(&self) -> u8 {
        u8_at(self.b(), field::VL_LVER) & 0x0F
    }
    pub fn sl(&self) -> u8 {
        u8_at(self.b(), field::SL_LNH) >> 4
    }
    pub fn lnh(&self) -> u8 {
        u8_at(self.b(), field::SL_LNH) & 0x3
    }
    pub fn dlid(&self) -> u16 {
        be16(self.b(), field::DLID)
    }
    /// Packet length in 4-byte words, LRH through ICRC.
    pub fn pkt_len(&self) -> u16 {
        be16(self.b(), field::PKTLEN) & 0x07FF
    }
    pub fn slid(&self) -> u16 {
        be16(self.b(), field::SLID)
    }
}

/// Zero-copy view of a GRH.
#[derive(Debug, Clone)]
pub struct GrhPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> GrhPacket<T> {
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        if len < field::GRH_LEN {
            return Err(WireError::truncated(Header::Grh, 0, field::GRH_LEN, len));
        }
        Ok(GrhPacket { buffer })
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    pub fn ip_ver(&self) -> u8 {
        u8_at(self.b(), 0) >> 4
    }
    pub fn tclass(&self) -> u8 {
        (be32(self.b(), field::GRH_VER_TC_FLOW) >> 20) as u8
    }
    pub fn flow_label(&self) -> u32 {
        be32(self.b(), field::GRH_VER_TC_FLOW) & 0x000F_FFFF
    }
    /// Bytes after the GRH through the ICRC.
    pub fn pay_len(&self) -> u16 {
        be16(self.b(), field::GRH_PAYLEN)
    }
    pub fn nxt_hdr(&self) -> u8 {
        u8_at(self.b(), field::GRH_NXTHDR)
    }
    pub fn hop_lmt(&self) -> u8 {
        u8_at(self.b(), field::GRH_HOPLMT)
    }
    pub fn sgid(&self) -> Ipv6Addr {
        addr_at(self.b(), field::GRH_SGID)
    }
    pub fn dgid(&self) -> Ipv6Addr {
        addr_at(self.b(), field::GRH_DGID)
    }
}

/// High-level LRH; LNH and PktLen are derived on emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LrhRepr {
    /// Virtual lane (VL15 is the subnet-management lane).
    pub vl: u8,
    /// Link version, 0.
    pub lver: u8,
    /// Service level, mapped to a VL at each hop.
    pub sl: u8,
    pub dlid: u16,
    pub slid: u16,
}

/// High-level GRH; PayLen and NxtHdr are derived on emit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrhRepr {
    pub tclass: u8,
    pub flow_label: u32,
    pub hop_limit: u8,
    pub sgid: Ipv6Addr,
    pub dgid: Ipv6Addr,
}

/// Offsets of a native IB packet's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IbLayout {
    pub grh: bool,
    /// BTH through ICRC.
    pub transport: TransportLayout,
    pub vcrc_offset: usize,
}

/// What an LRH must say to carry an IBA transport: a link next header of BTH or GRH, and a
/// packet length the bytes hold (with the VCRC after it). The end of the ICRC, and whether
/// a GRH follows; errors at offset 0.
pub fn check_lrh<T: AsRef<[u8]>>(lrh: &LrhPacket<T>, available: usize) -> Result<(usize, bool)> {
    let end = usize::from(lrh.pkt_len()) * 4;
    if end + VCRC_LEN > available || end < field::LRH_LEN {
        let (field, claimed) = ("infiniband.lrh.pktlen", end + VCRC_LEN);
        let kind = ErrorKind::LengthMismatch {
            field,
            claimed,
            available,
        };
        return Err(WireError::new(Header::Lrh, 0, kind));
    }
    match lrh.lnh() {
        LNH_IBA_LOCAL => Ok((end, false)),
        LNH_IBA_GLOBAL => Ok((end, true)),
        other => Err(not_iba(
            Header::Lrh,
            "a non-IBA link next header (raw or IP), LNH",
            other,
        )),
    }
}

/// What a GRH must say before a BTH: the IBA next header; errors at offset 0.
pub fn check_grh<T: AsRef<[u8]>>(grh: &GrhPacket<T>) -> Result<()> {
    match grh.nxt_hdr() {
        NXTHDR_IBA => Ok(()),
        other => Err(not_iba(Header::Grh, "GRH next header", other)),
    }
}

fn not_iba(header: Header, reason: &'static str, value: u8) -> WireError {
    let value = u64::from(value);
    WireError::new(header, 0, ErrorKind::NotRoce { reason, value })
}

/// Walks a native IB packet and checks its lengths (not its CRCs).
pub fn locate_ib(pkt: &[u8]) -> Result<IbLayout> {
    let (end, grh) = check_lrh(&LrhPacket::new_checked(pkt)?, pkt.len())?;
    let mut bth_offset = field::LRH_LEN;
    if grh {
        let at_grh = |e: WireError| e.shifted(field::LRH_LEN);
        let g = GrhPacket::new_checked(slice(pkt, field::LRH_LEN, end)).map_err(at_grh)?;
        check_grh(&g).map_err(at_grh)?;
        bth_offset += field::GRH_LEN;
    }
    Ok(IbLayout {
        grh,
        transport: transport::locate(pkt, bth_offset, end)?,
        vcrc_offset: end,
    })
}

/// A native InfiniBand packet, LRH through VCRC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbFrameRepr {
    pub lrh: LrhRepr,
    pub grh: Option<GrhRepr>,
    pub bth: BthRepr,
    pub ext: ExtRepr,
    pub payload: Vec<u8>,
}

impl IbFrameRepr {
    /// Parses and checks lengths, ICRC and VCRC.
    pub fn parse(pkt: &[u8]) -> Result<Self> {
        let l = locate_ib(pkt)?;
        let t = l.transport;
        let lrh_p = LrhPacket::new_checked(pkt)?;
        let lrh = LrhRepr {
            vl: lrh_p.vl(),
            lver: lrh_p.lver(),
            sl: lrh_p.sl(),
            dlid: lrh_p.dlid(),
            slid: lrh_p.slid(),
        };
        let grh = if l.grh {
            let g = GrhPacket::new_checked(slice(pkt, field::LRH_LEN, t.icrc_offset))
                .map_err(|e| e.shifted(field::LRH_LEN))?;
            Some(GrhRepr {
                tclass: g.tclass(),
                flow_label: g.flow_label(),
                hop_limit: g.hop_lmt(),
                sgid: g.sgid(),
                dgid: g.dgid(),
            })
        } else {
            None
        };
        let (bth, ext, payload) = transport::parse(pkt, &t)?;
        let icrc = u32::from_le_bytes(le4(slice(pkt, t.icrc_offset, t.icrc_offset + ICRC_LEN)));
        transport::check_icrc(&t, ib_icrc(slice(pkt, 0, t.icrc_offset))?, icrc)?;
        let v = u16::from_le_bytes([u8_at(pkt, l.vcrc_offset), u8_at(pkt, l.vcrc_offset + 1)]);
        let vc = vcrc(slice(pkt, 0, l.vcrc_offset));
        if v != vc {
            return Err(WireError::new(
                Header::Vcrc,
                l.vcrc_offset,
                ErrorKind::BadChecksum {
                    field: "infiniband.variant.crc",
                    computed: u32::from(vc),
                    found: u32::from(v),
                },
            ));
        }
        Ok(IbFrameRepr {
            lrh,
            grh,
            bth,
            ext,
            payload,
        })
    }

    /// Builds LRH, optional GRH, BTH ext payload pad ICRC VCRC.
    pub fn emit(&self) -> Result<Vec<u8>> {
        let info = transport::check_emit(&self.bth, self.payload.len())?;
        let pad = usize::from(self.bth.pad_count);
        let bad = |h, field, value| Err(WireError::new(h, 0, ErrorKind::BadValue { field, value }));
        if self.lrh.vl > 15 || self.lrh.sl > 15 || self.lrh.lver > 15 {
            return bad(
                Header::Lrh,
                "infiniband.lrh.vl/sl/lver",
                u64::from(self.lrh.vl),
            );
        }
        let mut out = vec![
            0u8;
            field::LRH_LEN
                + if self.grh.is_some() {
                    field::GRH_LEN
                } else {
                    0
                }
        ];
        out.extend_from_slice(&self.bth.emit()?);
        self.ext.emit(info.headers, &mut out)?;
        out.extend_from_slice(&self.payload);
        out.resize(out.len() + pad, 0);
        let total = out.len() + ICRC_LEN;
        if total / 4 > 0x07FF {
            return bad(Header::Lrh, "infiniband.lrh.pktlen", (total / 4) as u64);
        }
        let lnh = if self.grh.is_some() {
            LNH_IBA_GLOBAL
        } else {
            LNH_IBA_LOCAL
        };
        put_u8(&mut out, field::VL_LVER, (self.lrh.vl << 4) | self.lrh.lver);
        put_u8(&mut out, field::SL_LNH, (self.lrh.sl << 4) | lnh);
        put16(&mut out, field::DLID, self.lrh.dlid);
        put16(&mut out, field::PKTLEN, (total / 4) as u16);
        put16(&mut out, field::SLID, self.lrh.slid);
        if let Some(g) = self.grh {
            if g.flow_label > 0x000F_FFFF {
                return bad(
                    Header::Grh,
                    "infiniband.grh.flowlabel",
                    u64::from(g.flow_label),
                );
            }
            let o = field::LRH_LEN;
            put32(
                &mut out,
                o + field::GRH_VER_TC_FLOW,
                (6 << 28) | (u32::from(g.tclass) << 20) | g.flow_label,
            );
            put16(
                &mut out,
                o + field::GRH_PAYLEN,
                (total - field::LRH_LEN - field::GRH_LEN) as u16,
            );
            put_u8(&mut out, o + field::GRH_NXTHDR, NXTHDR_IBA);
            put_u8(&mut out, o + field::GRH_HOPLMT, g.hop_limit);
            put(&mut out, o + field::GRH_SGID, &g.sgid.octets());
            put(&mut out, o + field::GRH_DGID, &g.dgid.octets());
        }
        let icrc = ib_icrc(&out)?;
        out.extend_from_slice(&icrc.to_le_bytes());
        let v = vcrc(&out);
        out.extend_from_slice(&v.to_le_bytes());
        Ok(out)
    }
}

fn le4(b: &[u8]) -> [u8; 4] {
    match b {
        &[a, b1, c, d] => [a, b1, c, d],
        _ => [0; 4],
    }
}
