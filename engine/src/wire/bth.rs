//! Base Transport Header (IBTA Vol 1 §9.2), 12 bytes, present in every RoCE and
//! InfiniBand transport packet.
//!
//! ```text
//! byte 0     OpCode
//! byte 1     SE(7) M(6) PadCnt(5-4) TVer(3-0)
//! bytes 2-3  P_Key
//! byte 4     F/FECN(7) B/BECN(6) Resv6 — the "resv8a" byte of IBTA 1.2; the two
//!            congestion bits were defined in it by IBTA Vol 1 §A10 (congestion control)
//! bytes 5-7  DestQP (24 bits)
//! byte 8     A(7) Resv7
//! bytes 9-11 PSN (24 bits)
//! ```
//! Byte 4 is a variant field: the ICRC is computed with it set to all ones
//! (IBTA Vol 1 §7.8.1, Annex A17.4.1; Linux `rxe_icrc.c`), so a switch may set FECN
//! without invalidating the end-to-end CRC.

use super::bytes::{be16, be24, put16, put24, put_u8, u8_at};
use super::opcode::Opcode;
use super::{ErrorKind, Header, Result, WireError};
use serde::{Deserialize, Serialize};

/// The PSN field's type, shared with the QP model (see [`crate::psn`]).
pub use crate::psn::Psn;

pub(crate) mod field {
    pub const OPCODE: usize = 0;
    pub const FLAGS: usize = 1;
    pub const P_KEY: usize = 2;
    pub const RESV8A: usize = 4;
    pub const DEST_QP: usize = 5;
    pub const ACK_REQ: usize = 8;
    pub const PSN: usize = 9;
    pub const LEN: usize = 12;
}

/// BTH length.
pub const HEADER_LEN: usize = field::LEN;
/// Byte offset of the variant "resv8a" byte inside the BTH.
pub const RESV8A_OFFSET: usize = field::RESV8A;

/// A 24-bit queue pair number.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
pub struct Qpn(pub u32);

impl Qpn {
    pub const MASK: u32 = 0x00FF_FFFF;
}

/// Zero-copy view of a BTH.
#[derive(Debug, Clone)]
pub struct BthPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> BthPacket<T> {
    pub fn new_checked(buffer: T) -> Result<Self> {
        let len = buffer.as_ref().len();
        if len < field::LEN {
            return Err(WireError::truncated(Header::Bth, 0, field::LEN, len));
        }
        Ok(BthPacket { buffer })
    }
    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    pub fn opcode(&self) -> Opcode {
        Opcode(u8_at(self.b(), field::OPCODE))
    }
    pub fn solicited_event(&self) -> bool {
        u8_at(self.b(), field::FLAGS) & 0x80 != 0
    }
    pub fn mig_req(&self) -> bool {
        u8_at(self.b(), field::FLAGS) & 0x40 != 0
    }
    pub fn pad_count(&self) -> u8 {
        (u8_at(self.b(), field::FLAGS) >> 4) & 0x3
    }
    pub fn tver(&self) -> u8 {
        u8_at(self.b(), field::FLAGS) & 0x0F
    }
    pub fn p_key(&self) -> u16 {
        be16(self.b(), field::P_KEY)
    }
    pub fn resv8a(&self) -> u8 {
        u8_at(self.b(), field::RESV8A)
    }
    pub fn fecn(&self) -> bool {
        self.resv8a() & 0x80 != 0
    }
    pub fn becn(&self) -> bool {
        self.resv8a() & 0x40 != 0
    }
    pub fn dest_qp(&self) -> Qpn {
        Qpn(be24(self.b(), field::DEST_QP))
    }
    pub fn ack_req(&self) -> bool {
        u8_at(self.b(), field::ACK_REQ) & 0x80 != 0
    }
    pub fn resv7(&self) -> u8 {
        u8_at(self.b(), field::ACK_REQ) & 0x7F
    }
    pub fn psn(&self) -> Psn {
        Psn::truncate(be24(self.b(), field::PSN))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> BthPacket<T> {
    /// Sets FECN, as a congested IB switch does (IBTA Vol 1 §A10.2).
    pub fn set_fecn(&mut self, on: bool) {
        let v = (self.resv8a() & !0x80) | if on { 0x80 } else { 0 };
        put_u8(self.buffer.as_mut(), field::RESV8A, v);
    }
    pub fn set_psn(&mut self, psn: Psn) {
        put24(self.buffer.as_mut(), field::PSN, psn.value());
    }
}

/// High-level BTH. Reserved bits are emitted as zero and ignored on parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BthRepr {
    /// `infiniband.bth.opcode`.
    pub opcode: Opcode,
    /// `infiniband.bth.se`: ask the receiver to raise a solicited completion event.
    pub solicited_event: bool,
    /// `infiniband.bth.m`: APM migration state.
    pub mig_req: bool,
    /// `infiniband.bth.padcnt`: bytes (0..=3) padding the payload to 4-byte alignment.
    pub pad_count: u8,
    /// `infiniband.bth.tver`: transport header version, 0.
    pub tver: u8,
    /// `infiniband.bth.p_key`: partition key; 0xFFFF is the default full-member key.
    pub p_key: u16,
    pub fecn: bool,
    pub becn: bool,
    /// `infiniband.bth.destqp`.
    pub dest_qp: Qpn,
    /// `infiniband.bth.a`: ask the responder to acknowledge this packet.
    pub ack_req: bool,
    /// `infiniband.bth.psn`.
    pub psn: Psn,
}

impl BthRepr {
    pub fn parse<T: AsRef<[u8]>>(p: &BthPacket<T>) -> Result<Self> {
        Ok(BthRepr {
            opcode: p.opcode(),
            solicited_event: p.solicited_event(),
            mig_req: p.mig_req(),
            pad_count: p.pad_count(),
            tver: p.tver(),
            p_key: p.p_key(),
            fecn: p.fecn(),
            becn: p.becn(),
            dest_qp: p.dest_qp(),
            ack_req: p.ack_req(),
            psn: p.psn(),
        })
    }

    pub fn emit(&self) -> Result<[u8; field::LEN]> {
        let bad = |field, value| {
            Err(WireError::new(
                Header::Bth,
                0,
                ErrorKind::BadValue { field, value },
            ))
        };
        if self.pad_count > 3 {
            return bad("infiniband.bth.padcnt", u64::from(self.pad_count));
        }
        if self.tver > 0x0F {
            return bad("infiniband.bth.tver", u64::from(self.tver));
        }
        if self.dest_qp.0 > Qpn::MASK {
            return bad("infiniband.bth.destqp", u64::from(self.dest_qp.0));
        }
        let mut b = [0u8; field::LEN];
        put_u8(&mut b, field::OPCODE, self.opcode.0);
        let flags = (u8::from(self.solicited_event) << 7)
            | (u8::from(self.mig_req) << 6)
            | (self.pad_count << 4)
            | self.tver;
        put_u8(&mut b, field::FLAGS, flags);
        put16(&mut b, field::P_KEY, self.p_key);
        put_u8(
            &mut b,
            field::RESV8A,
            (u8::from(self.fecn) << 7) | (u8::from(self.becn) << 6),
        );
        put24(&mut b, field::DEST_QP, self.dest_qp.0);
        put_u8(&mut b, field::ACK_REQ, u8::from(self.ack_req) << 7);
        put24(&mut b, field::PSN, self.psn.value());
        Ok(b)
    }
}
