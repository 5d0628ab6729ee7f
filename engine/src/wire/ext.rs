//! Extended transport headers (IBTA Vol 1 §9.3): which ones a packet carries is fixed
//! by its opcode ([`super::opcode`]).
//!
//! Each header is a plain struct with `LEN`, `parse(&[u8])` (length-checked) and
//! `emit() -> [u8; LEN]`, so emitting can never write out of bounds.

use super::bytes::{be24, be32, be64, put24, put32, put64, u8_at};
use super::{ErrorKind, Header, Result, WireError};
use core::fmt;
use serde::{Deserialize, Serialize};

/// Which extended headers follow the BTH, in wire order, and whether payload follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExtHeaders {
    pub rdeth: bool,
    pub deth: bool,
    pub xrceth: bool,
    pub reth: bool,
    pub atomic_eth: bool,
    pub aeth: bool,
    pub atomic_ack_eth: bool,
    pub immdt: bool,
    pub ieth: bool,
    pub cnp_padding: bool,
    pub payload: bool,
}

impl ExtHeaders {
    /// Total length of the extended headers.
    pub fn len(&self) -> usize {
        self.iter().map(header_len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where header `h` starts, counted from the end of the BTH (the length of the headers
    /// before it; all of them when `h` is absent).
    pub fn offset_of(&self, h: Header) -> usize {
        self.iter().take_while(|&x| x != h).map(header_len).sum()
    }

    /// The headers present, in wire order.
    pub fn iter(&self) -> impl Iterator<Item = Header> + '_ {
        [
            (self.rdeth, Header::Rdeth),
            (self.deth, Header::Deth),
            (self.xrceth, Header::XrcEth),
            (self.reth, Header::Reth),
            (self.atomic_eth, Header::AtomicEth),
            (self.aeth, Header::Aeth),
            (self.atomic_ack_eth, Header::AtomicAckEth),
            (self.immdt, Header::ImmDt),
            (self.ieth, Header::Ieth),
            (self.cnp_padding, Header::CnpPadding),
        ]
        .into_iter()
        .filter_map(|(present, h)| present.then_some(h))
    }
}

/// Length in bytes of an extended header (IBTA Vol 1 §9.3; CNP padding Annex A17.9.3).
pub fn header_len(h: Header) -> usize {
    match h {
        Header::Rdeth => Rdeth::LEN,
        Header::Deth => Deth::LEN,
        Header::XrcEth => XrcEth::LEN,
        Header::Reth => Reth::LEN,
        Header::AtomicEth => AtomicEth::LEN,
        Header::Aeth => Aeth::LEN,
        Header::AtomicAckEth => AtomicAckEth::LEN,
        Header::ImmDt => ImmDt::LEN,
        Header::Ieth => Ieth::LEN,
        Header::CnpPadding => CNP_PADDING_LEN,
        _ => 0,
    }
}

/// Where each field starts inside its extended header (IBTA Vol 1 §9.3), named once for
/// the codecs below and the dissector.
pub(crate) mod field {
    pub mod rdeth {
        pub const EE_CONTEXT: usize = 1;
    }
    pub mod deth {
        pub const Q_KEY: usize = 0;
        pub const SRC_QP: usize = 5;
    }
    pub mod xrceth {
        pub const XRC_SRQ: usize = 1;
    }
    /// The AtomicETH begins as the RETH does (VA, R_Key) and goes on with its operands.
    pub mod reth {
        pub const VA: usize = 0;
        pub const R_KEY: usize = 8;
        pub const DMA_LEN: usize = 12;
        pub const SWAP_ADD: usize = 12;
        pub const COMPARE: usize = 20;
    }
    pub mod aeth {
        pub const SYNDROME: usize = 0;
        pub const MSN: usize = 1;
    }
    /// AtomicAckETH, ImmDt and IETH are one value each, from their first byte.
    pub const WHOLE: usize = 0;
}

/// Reserved bytes after the BTH of a CNP (IBTA Vol 1 Annex A17.9.3).
pub const CNP_PADDING_LEN: usize = 16;

fn need(h: Header, buf: &[u8], len: usize) -> Result<()> {
    if buf.len() < len {
        return Err(WireError::truncated(h, 0, len, buf.len()));
    }
    Ok(())
}

/// Reliable Datagram ETH (§9.3.1): 8 reserved bits and the 24-bit EE context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Rdeth {
    /// `infiniband.rdeth.eecnxt`.
    pub ee_context: u32,
}

impl Rdeth {
    pub const LEN: usize = 4;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::Rdeth, buf, Self::LEN)?;
        Ok(Rdeth {
            ee_context: be24(buf, field::rdeth::EE_CONTEXT),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        put24(
            &mut b,
            field::rdeth::EE_CONTEXT,
            self.ee_context & 0x00FF_FFFF,
        );
        b
    }
}

/// Datagram ETH (§9.3.2): Q_Key and 24-bit source QP (after 8 reserved bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Deth {
    /// `infiniband.deth.q_key`. Values with the high bit set are controlled Q_Keys
    /// (IBTA Vol 1 §10.2.5); QP1 (GSI) uses 0x80010000.
    pub q_key: u32,
    /// `infiniband.deth.srcqp`.
    pub src_qp: u32,
}

impl Deth {
    pub const LEN: usize = 8;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::Deth, buf, Self::LEN)?;
        Ok(Deth {
            q_key: be32(buf, field::deth::Q_KEY),
            src_qp: be24(buf, field::deth::SRC_QP),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        put32(&mut b, field::deth::Q_KEY, self.q_key);
        put24(&mut b, field::deth::SRC_QP, self.src_qp & 0x00FF_FFFF);
        b
    }
}

/// XRC ETH: 8 reserved bits and the 24-bit XRC SRQ number of the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct XrcEth {
    pub xrc_srq: u32,
}

impl XrcEth {
    pub const LEN: usize = 4;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::XrcEth, buf, Self::LEN)?;
        Ok(XrcEth {
            xrc_srq: be24(buf, field::xrceth::XRC_SRQ),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        put24(&mut b, field::xrceth::XRC_SRQ, self.xrc_srq & 0x00FF_FFFF);
        b
    }
}

/// RDMA ETH (§9.3.3): remote virtual address, R_Key and DMA length of the whole
/// RDMA operation (not of this packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Reth {
    /// `infiniband.reth.va`.
    pub va: u64,
    /// `infiniband.reth.r_key`.
    pub r_key: u32,
    /// `infiniband.reth.dmalen`.
    pub dma_len: u32,
}

impl Reth {
    pub const LEN: usize = 16;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::Reth, buf, Self::LEN)?;
        Ok(Reth {
            va: be64(buf, field::reth::VA),
            r_key: be32(buf, field::reth::R_KEY),
            dma_len: be32(buf, field::reth::DMA_LEN),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        put64(&mut b, field::reth::VA, self.va);
        put32(&mut b, field::reth::R_KEY, self.r_key);
        put32(&mut b, field::reth::DMA_LEN, self.dma_len);
        b
    }
}

/// Atomic ETH (§9.3.4): VA, R_Key, swap (or add) data and compare data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AtomicEth {
    pub va: u64,
    pub r_key: u32,
    /// `infiniband.atomiceth.swapdt`: the swap value (CmpSwap) or the addend (FetchAdd).
    pub swap_add: u64,
    /// `infiniband.atomiceth.cmpdt`: the compare value (ignored by FetchAdd).
    pub compare: u64,
}

impl AtomicEth {
    pub const LEN: usize = 28;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::AtomicEth, buf, Self::LEN)?;
        Ok(AtomicEth {
            va: be64(buf, field::reth::VA),
            r_key: be32(buf, field::reth::R_KEY),
            swap_add: be64(buf, field::reth::SWAP_ADD),
            compare: be64(buf, field::reth::COMPARE),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        put64(&mut b, field::reth::VA, self.va);
        put32(&mut b, field::reth::R_KEY, self.r_key);
        put64(&mut b, field::reth::SWAP_ADD, self.swap_add);
        put64(&mut b, field::reth::COMPARE, self.compare);
        b
    }
}

/// Atomic Acknowledge ETH (§9.3.6): the remote data before the atomic operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AtomicAckEth {
    /// `infiniband.atomicacketh.origremdt`.
    pub orig_remote_data: u64,
}

impl AtomicAckEth {
    pub const LEN: usize = 8;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::AtomicAckEth, buf, Self::LEN)?;
        Ok(AtomicAckEth {
            orig_remote_data: be64(buf, field::WHOLE),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        self.orig_remote_data.to_be_bytes()
    }
}

/// Immediate data (§9.3.7), delivered to the receiver's completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ImmDt {
    pub data: u32,
}

impl ImmDt {
    pub const LEN: usize = 4;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::ImmDt, buf, Self::LEN)?;
        Ok(ImmDt {
            data: be32(buf, field::WHOLE),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        self.data.to_be_bytes()
    }
}

/// Invalidate ETH (§9.3.8): the R_Key the responder invalidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Ieth {
    pub r_key: u32,
}

impl Ieth {
    pub const LEN: usize = 4;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::Ieth, buf, Self::LEN)?;
        Ok(Ieth {
            r_key: be32(buf, field::WHOLE),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        self.r_key.to_be_bytes()
    }
}

/// NAK error codes (IBTA Vol 1 §9.3.5, AETH syndrome encoding, NAK rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NakCode {
    /// 0: the responder saw a PSN beyond the expected one; the requester resends.
    PsnSequenceError,
    /// 1: unsupported or malformed request.
    InvalidRequest,
    /// 2: R_Key/VA/length check failed at the responder.
    RemoteAccessError,
    /// 3: the responder could not complete the request.
    RemoteOperationalError,
    /// 4: RD only.
    InvalidRdRequest,
    /// 5..=31: reserved.
    Reserved(u8),
}

impl NakCode {
    pub fn code(self) -> u8 {
        match self {
            NakCode::PsnSequenceError => 0,
            NakCode::InvalidRequest => 1,
            NakCode::RemoteAccessError => 2,
            NakCode::RemoteOperationalError => 3,
            NakCode::InvalidRdRequest => 4,
            NakCode::Reserved(c) => c & 0x1F,
        }
    }
    pub fn from_code(c: u8) -> Self {
        match c & 0x1F {
            0 => NakCode::PsnSequenceError,
            1 => NakCode::InvalidRequest,
            2 => NakCode::RemoteAccessError,
            3 => NakCode::RemoteOperationalError,
            4 => NakCode::InvalidRdRequest,
            c => NakCode::Reserved(c),
        }
    }
    pub fn meaning(self) -> &'static str {
        match self {
            NakCode::PsnSequenceError => "PSN Sequence Error",
            NakCode::InvalidRequest => "Invalid Request",
            NakCode::RemoteAccessError => "Remote Access Error",
            NakCode::RemoteOperationalError => "Remote Operational Error",
            NakCode::InvalidRdRequest => "Invalid RD Request",
            NakCode::Reserved(_) => "Reserved",
        }
    }
}

/// Minimum RNR NAK timer values in microseconds, indexed by the 5-bit timer code
/// (IBTA Vol 1 §9.7.5.2.8, RNR NAK timer encoding; the same values as Linux `enum ib_rnr_timeout`
/// in include/rdma/ib_verbs.h). Code 0 is the longest, 655.36 ms.
pub const RNR_TIMER_US: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840,
    5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840,
    245_760, 327_680, 491_520,
];

/// Credit count meaning "no end-to-end credits advertised" (IBTA Vol 1 §9.7.7.2.5).
pub const CREDITS_INVALID: u8 = 31;

/// The decoded AETH syndrome (IBTA Vol 1 §9.3.5): bit 7 reserved, bits 6–5 the kind,
/// bits 4–0 the credit count, RNR timer or NAK code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Syndrome {
    /// 00: ACK with end-to-end credit count (31 = invalid/unlimited).
    Ack { credits: u8 },
    /// 01: receiver not ready; retry after at least the timer's value.
    RnrNak { timer: u8 },
    /// 10: reserved.
    Reserved { value: u8 },
    /// 11: NAK with an error code.
    Nak(NakCode),
}

impl Syndrome {
    pub fn to_byte(self) -> u8 {
        match self {
            Syndrome::Ack { credits } => credits & 0x1F,
            Syndrome::RnrNak { timer } => 0x20 | (timer & 0x1F),
            Syndrome::Reserved { value } => 0x40 | (value & 0x1F),
            Syndrome::Nak(c) => 0x60 | c.code(),
        }
    }
    /// Decodes bits 6–0; the reserved bit 7 is ignored.
    pub fn from_byte(b: u8) -> Self {
        let low = b & 0x1F;
        match (b >> 5) & 0x3 {
            0 => Syndrome::Ack { credits: low },
            1 => Syndrome::RnrNak { timer: low },
            2 => Syndrome::Reserved { value: low },
            _ => Syndrome::Nak(NakCode::from_code(low)),
        }
    }
    /// One-line explanation for the UI (the [`fmt::Display`] text).
    pub fn meaning(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Syndrome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Syndrome::Ack {
                credits: CREDITS_INVALID,
            } => f.write_str("ACK, credit count invalid (no end-to-end credits)"),
            Syndrome::Ack { credits } => write!(f, "ACK, {credits} credits"),
            Syndrome::RnrNak { timer } => {
                let us = RNR_TIMER_US.get(usize::from(timer)).copied().unwrap_or(0);
                write!(
                    f,
                    "RNR NAK, retry after {}.{:02} ms",
                    us / 1000,
                    (us % 1000) / 10
                )
            }
            Syndrome::Reserved { value } => write!(f, "reserved syndrome kind 10, value {value}"),
            Syndrome::Nak(c) => write!(f, "NAK: {}", c.meaning()),
        }
    }
}

/// ACK ETH (§9.3.5): syndrome and the 24-bit message sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aeth {
    pub syndrome: Syndrome,
    /// `infiniband.aeth.msn`.
    pub msn: u32,
}

impl Aeth {
    pub const LEN: usize = 4;
    pub fn parse(buf: &[u8]) -> Result<Self> {
        need(Header::Aeth, buf, Self::LEN)?;
        Ok(Aeth {
            syndrome: Syndrome::from_byte(u8_at(buf, field::aeth::SYNDROME)),
            msn: be24(buf, field::aeth::MSN),
        })
    }
    pub fn emit(&self) -> [u8; Self::LEN] {
        let mut b = [0; Self::LEN];
        b[field::aeth::SYNDROME] = self.syndrome.to_byte();
        put24(&mut b, field::aeth::MSN, self.msn & 0x00FF_FFFF);
        b
    }
}

/// The extended headers of one packet, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExtRepr {
    pub rdeth: Option<Rdeth>,
    pub deth: Option<Deth>,
    pub xrceth: Option<XrcEth>,
    pub reth: Option<Reth>,
    pub atomic_eth: Option<AtomicEth>,
    pub aeth: Option<Aeth>,
    pub atomic_ack_eth: Option<AtomicAckEth>,
    pub immdt: Option<ImmDt>,
    pub ieth: Option<Ieth>,
    /// The 16 reserved bytes of a CNP, kept as sent.
    pub cnp_padding: Option<[u8; CNP_PADDING_LEN]>,
}

impl ExtRepr {
    /// Parses the headers `which` from the start of `buf` (the bytes after the BTH).
    /// Errors carry offsets relative to `buf`.
    pub fn parse(which: ExtHeaders, buf: &[u8]) -> Result<(Self, usize)> {
        let mut r = ExtRepr::default();
        let mut at = 0usize;
        for h in which.iter() {
            let rest = buf.get(at..).unwrap_or(&[]);
            let e = |e: WireError| e.shifted(at);
            match h {
                Header::Rdeth => r.rdeth = Some(Rdeth::parse(rest).map_err(e)?),
                Header::Deth => r.deth = Some(Deth::parse(rest).map_err(e)?),
                Header::XrcEth => r.xrceth = Some(XrcEth::parse(rest).map_err(e)?),
                Header::Reth => r.reth = Some(Reth::parse(rest).map_err(e)?),
                Header::AtomicEth => r.atomic_eth = Some(AtomicEth::parse(rest).map_err(e)?),
                Header::Aeth => r.aeth = Some(Aeth::parse(rest).map_err(e)?),
                Header::AtomicAckEth => {
                    r.atomic_ack_eth = Some(AtomicAckEth::parse(rest).map_err(e)?)
                }
                Header::ImmDt => r.immdt = Some(ImmDt::parse(rest).map_err(e)?),
                Header::Ieth => r.ieth = Some(Ieth::parse(rest).map_err(e)?),
                Header::CnpPadding => {
                    need(Header::CnpPadding, rest, CNP_PADDING_LEN).map_err(e)?;
                    let mut p = [0u8; CNP_PADDING_LEN];
                    p.copy_from_slice(rest.get(..CNP_PADDING_LEN).unwrap_or(&[0; CNP_PADDING_LEN]));
                    r.cnp_padding = Some(p);
                }
                _ => {}
            }
            at += header_len(h);
        }
        Ok((r, at))
    }

    /// Which headers this value holds.
    pub fn present(&self) -> ExtHeaders {
        ExtHeaders {
            rdeth: self.rdeth.is_some(),
            deth: self.deth.is_some(),
            xrceth: self.xrceth.is_some(),
            reth: self.reth.is_some(),
            atomic_eth: self.atomic_eth.is_some(),
            aeth: self.aeth.is_some(),
            atomic_ack_eth: self.atomic_ack_eth.is_some(),
            immdt: self.immdt.is_some(),
            ieth: self.ieth.is_some(),
            cnp_padding: self.cnp_padding.is_some(),
            payload: false,
        }
    }

    /// Appends the headers in wire order. Errors (at offset 0) when the set present
    /// differs from what the opcode requires.
    pub fn emit(&self, which: ExtHeaders, out: &mut Vec<u8>) -> Result<()> {
        let mut want = which;
        want.payload = false;
        if self.present() != want {
            let first_diff = want
                .iter()
                .find(|h| !self.present().iter().any(|p| p == *h));
            return Err(WireError::new(
                first_diff.unwrap_or(Header::Bth),
                0,
                ErrorKind::BadValue {
                    field: "extended headers required by the opcode",
                    value: 0,
                },
            ));
        }
        if let Some(h) = self.rdeth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.deth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.xrceth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.reth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.atomic_eth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.aeth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.atomic_ack_eth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.immdt {
            out.extend_from_slice(&h.emit());
        }
        if let Some(h) = self.ieth {
            out.extend_from_slice(&h.emit());
        }
        if let Some(p) = self.cnp_padding {
            out.extend_from_slice(&p);
        }
        Ok(())
    }
}
