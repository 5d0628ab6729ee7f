//! The BTH opcode table (IBTA Vol 1 §9.2.1, Table 38 "OpCode Field"; CNP from Annex
//! A17.9.3; XRC from the XRC annex of Vol 1 release 1.2.1).
//!
//! Bits 7–5 select the transport service (RC 000, UC 001, RD 010, UD 011, CNP 100,
//! XRC 101; 110 and 111 are reserved/manufacturer specific) and bits 4–0 the operation.
//! Each operation determines which extended transport headers follow the BTH, in the
//! fixed order RDETH, DETH, XRCETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH
//! (IBTA Vol 1 §9.2; the same order as Linux `drivers/infiniband/sw/rxe/rxe_opcode.c`).
//!
//! Not covered: the IBTA 1.5 FLUSH (0x1C) and ATOMIC WRITE (0x1D) operations and the
//! manufacturer-specific range; they decode as unknown opcodes.

use super::ext::ExtHeaders;
use core::fmt;
use serde::{Deserialize, Serialize};

/// Transport service, from opcode bits 7–5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Transport {
    /// Reliable Connection.
    Rc,
    /// Unreliable Connection.
    Uc,
    /// Reliable Datagram.
    Rd,
    /// Unreliable Datagram.
    Ud,
    /// Congestion Notification Packet (RoCE v2, Annex A17.9.3).
    Cnp,
    /// Extended Reliable Connection.
    Xrc,
}

impl Transport {
    pub fn prefix(self) -> u8 {
        match self {
            Transport::Rc => 0x00,
            Transport::Uc => 0x20,
            Transport::Rd => 0x40,
            Transport::Ud => 0x60,
            Transport::Cnp => 0x80,
            Transport::Xrc => 0xA0,
        }
    }
    pub fn abbrev(self) -> &'static str {
        match self {
            Transport::Rc => "RC",
            Transport::Uc => "UC",
            Transport::Rd => "RD",
            Transport::Ud => "UD",
            Transport::Cnp => "CNP",
            Transport::Xrc => "XRC",
        }
    }
    fn from_prefix(bits: u8) -> Option<Self> {
        Some(match bits & 0xE0 {
            0x00 => Transport::Rc,
            0x20 => Transport::Uc,
            0x40 => Transport::Rd,
            0x60 => Transport::Ud,
            0x80 => Transport::Cnp,
            0xA0 => Transport::Xrc,
            _ => return None,
        })
    }
}

/// Operation, from opcode bits 4–0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Operation {
    SendFirst,
    SendMiddle,
    SendLast,
    SendLastImm,
    SendOnly,
    SendOnlyImm,
    WriteFirst,
    WriteMiddle,
    WriteLast,
    WriteLastImm,
    WriteOnly,
    WriteOnlyImm,
    ReadRequest,
    ReadResponseFirst,
    ReadResponseMiddle,
    ReadResponseLast,
    ReadResponseOnly,
    Acknowledge,
    AtomicAcknowledge,
    CompareSwap,
    FetchAdd,
    /// RD only.
    Resync,
    SendLastInvalidate,
    SendOnlyInvalidate,
    /// The RoCE v2 congestion notification (opcode 0x81).
    CongestionNotification,
}

impl Operation {
    /// Low five opcode bits.
    pub fn code(self) -> u8 {
        use Operation::*;
        match self {
            SendFirst => 0x00,
            SendMiddle => 0x01,
            SendLast => 0x02,
            SendLastImm => 0x03,
            SendOnly => 0x04,
            SendOnlyImm => 0x05,
            WriteFirst => 0x06,
            WriteMiddle => 0x07,
            WriteLast => 0x08,
            WriteLastImm => 0x09,
            WriteOnly => 0x0A,
            WriteOnlyImm => 0x0B,
            ReadRequest => 0x0C,
            ReadResponseFirst => 0x0D,
            ReadResponseMiddle => 0x0E,
            ReadResponseLast => 0x0F,
            ReadResponseOnly => 0x10,
            Acknowledge => 0x11,
            AtomicAcknowledge => 0x12,
            CompareSwap => 0x13,
            FetchAdd => 0x14,
            Resync => 0x15,
            SendLastInvalidate => 0x16,
            SendOnlyInvalidate => 0x17,
            CongestionNotification => 0x01,
        }
    }

    fn from_code(code: u8) -> Option<Self> {
        use Operation::*;
        Some(match code {
            0x00 => SendFirst,
            0x01 => SendMiddle,
            0x02 => SendLast,
            0x03 => SendLastImm,
            0x04 => SendOnly,
            0x05 => SendOnlyImm,
            0x06 => WriteFirst,
            0x07 => WriteMiddle,
            0x08 => WriteLast,
            0x09 => WriteLastImm,
            0x0A => WriteOnly,
            0x0B => WriteOnlyImm,
            0x0C => ReadRequest,
            0x0D => ReadResponseFirst,
            0x0E => ReadResponseMiddle,
            0x0F => ReadResponseLast,
            0x10 => ReadResponseOnly,
            0x11 => Acknowledge,
            0x12 => AtomicAcknowledge,
            0x13 => CompareSwap,
            0x14 => FetchAdd,
            0x15 => Resync,
            0x16 => SendLastInvalidate,
            0x17 => SendOnlyInvalidate,
            _ => return None,
        })
    }

    /// Operation name as IBTA Table 38 spells it, without the transport prefix.
    pub fn name(self) -> &'static str {
        use Operation::*;
        match self {
            SendFirst => "SEND First",
            SendMiddle => "SEND Middle",
            SendLast => "SEND Last",
            SendLastImm => "SEND Last with Immediate",
            SendOnly => "SEND Only",
            SendOnlyImm => "SEND Only with Immediate",
            WriteFirst => "RDMA WRITE First",
            WriteMiddle => "RDMA WRITE Middle",
            WriteLast => "RDMA WRITE Last",
            WriteLastImm => "RDMA WRITE Last with Immediate",
            WriteOnly => "RDMA WRITE Only",
            WriteOnlyImm => "RDMA WRITE Only with Immediate",
            ReadRequest => "RDMA READ Request",
            ReadResponseFirst => "RDMA READ Response First",
            ReadResponseMiddle => "RDMA READ Response Middle",
            ReadResponseLast => "RDMA READ Response Last",
            ReadResponseOnly => "RDMA READ Response Only",
            Acknowledge => "Acknowledge",
            AtomicAcknowledge => "ATOMIC Acknowledge",
            CompareSwap => "CmpSwap",
            FetchAdd => "FetchAdd",
            Resync => "RESYNC",
            SendLastInvalidate => "SEND Last with Invalidate",
            SendOnlyInvalidate => "SEND Only with Invalidate",
            CongestionNotification => "Congestion Notification",
        }
    }

    /// Responses travel from responder to requester and carry no request headers
    /// (DETH for RD, XRCETH for XRC).
    pub fn is_response(self) -> bool {
        use Operation::*;
        matches!(
            self,
            ReadResponseFirst
                | ReadResponseMiddle
                | ReadResponseLast
                | ReadResponseOnly
                | Acknowledge
                | AtomicAcknowledge
        )
    }

    /// Whether this packet carries payload bytes after its headers.
    pub fn has_payload(self) -> bool {
        use Operation::*;
        !matches!(
            self,
            ReadRequest
                | Acknowledge
                | AtomicAcknowledge
                | CompareSwap
                | FetchAdd
                | Resync
                | CongestionNotification
        )
    }

    /// First or only packet of a message (or a single-packet operation).
    pub fn is_first_or_only(self) -> bool {
        use Operation::*;
        !matches!(
            self,
            SendMiddle
                | SendLast
                | SendLastImm
                | SendLastInvalidate
                | WriteMiddle
                | WriteLast
                | WriteLastImm
                | ReadResponseMiddle
                | ReadResponseLast
        )
    }

    /// Last or only packet of a message (or a single-packet operation).
    pub fn is_last_or_only(self) -> bool {
        use Operation::*;
        !matches!(
            self,
            SendFirst
                | SendMiddle
                | WriteFirst
                | WriteMiddle
                | ReadResponseFirst
                | ReadResponseMiddle
        )
    }

    /// Extended headers of the operation on RC (before RD/UD/XRC additions).
    fn base_headers(self) -> ExtHeaders {
        use Operation::*;
        let mut h = ExtHeaders::default();
        match self {
            SendLastImm | SendOnlyImm | WriteLastImm => h.immdt = true,
            WriteFirst | WriteOnly | ReadRequest => h.reth = true,
            WriteOnlyImm => {
                h.reth = true;
                h.immdt = true;
            }
            ReadResponseFirst | ReadResponseLast | ReadResponseOnly | Acknowledge => h.aeth = true,
            AtomicAcknowledge => {
                h.aeth = true;
                h.atomic_ack_eth = true;
            }
            CompareSwap | FetchAdd => h.atomic_eth = true,
            SendLastInvalidate | SendOnlyInvalidate => h.ieth = true,
            CongestionNotification => h.cnp_padding = true,
            SendFirst | SendMiddle | SendLast | SendOnly | WriteMiddle | WriteLast
            | ReadResponseMiddle | Resync => {}
        }
        h.payload = self.has_payload();
        h
    }
}

/// A BTH opcode byte. Any value can be held; [`Opcode::info`] says whether it is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Opcode(pub u8);

/// What an opcode means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    pub transport: Transport,
    pub operation: Operation,
    /// Extended headers that follow the BTH, and whether payload follows them.
    pub headers: ExtHeaders,
}

impl Opcode {
    /// RoCE v2 Congestion Notification Packet (IBTA Vol 1 Annex A17.9.3).
    pub const CNP: Opcode = Opcode(0x81);

    /// Combines a transport and an operation; `None` when the pair does not exist.
    pub fn new(transport: Transport, operation: Operation) -> Option<Opcode> {
        let op = Opcode(transport.prefix() | operation.code());
        (op.info()?.operation == operation).then_some(op)
    }

    pub fn info(self) -> Option<OpcodeInfo> {
        let transport = Transport::from_prefix(self.0)?;
        let code = self.0 & 0x1F;
        let operation = if transport == Transport::Cnp {
            // Only 100_00001 is defined in the CNP range.
            (code == 0x01).then_some(Operation::CongestionNotification)?
        } else {
            Operation::from_code(code)?
        };
        use Operation::*;
        let valid = match transport {
            Transport::Rc | Transport::Xrc => code <= 0x14 || code == 0x16 || code == 0x17,
            Transport::Uc => code <= 0x0B,
            Transport::Rd => code <= 0x15,
            Transport::Ud => matches!(operation, SendOnly | SendOnlyImm),
            Transport::Cnp => true,
        };
        if !valid {
            return None;
        }
        let mut headers = operation.base_headers();
        match transport {
            Transport::Rd => {
                headers.rdeth = true;
                headers.deth = !operation.is_response();
            }
            Transport::Ud => headers.deth = true,
            Transport::Xrc => headers.xrceth = !operation.is_response(),
            Transport::Rc | Transport::Uc | Transport::Cnp => {}
        }
        Some(OpcodeInfo {
            transport,
            operation,
            headers,
        })
    }

    pub fn transport(self) -> Option<Transport> {
        self.info().map(|i| i.transport)
    }

    pub fn operation(self) -> Option<Operation> {
        self.info().map(|i| i.operation)
    }

    /// Full name, e.g. "RC RDMA WRITE Only with Immediate", or `None` when unknown.
    pub fn name(self) -> Option<String> {
        self.named().map(|n| n.to_string())
    }

    /// [`Opcode::name`] written where it is wanted, without allocating.
    pub fn named(self) -> Option<OpcodeName> {
        self.info().map(OpcodeName)
    }

    /// Every opcode in the table, in ascending order.
    pub fn all() -> impl Iterator<Item = Opcode> {
        (0u8..=255).map(Opcode).filter(|o| o.info().is_some())
    }
}

/// The name of a known opcode ([`Opcode::named`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeName(OpcodeInfo);

impl fmt::Display for OpcodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.transport {
            Transport::Cnp => f.write_str("CNP"),
            t => {
                f.write_str(t.abbrev())?;
                f.write_str(" ")?;
                f.write_str(self.0.operation.name())
            }
        }
    }
}
