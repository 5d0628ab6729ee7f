//! Located decode errors: which header, at which byte, and why.

use core::fmt;
use serde::Serialize;

/// The header (or trailer) an error or field belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum Header {
    Ethernet,
    Vlan,
    Ipv4,
    Ipv6,
    Udp,
    Lrh,
    Grh,
    Bth,
    Rdeth,
    Deth,
    XrcEth,
    Reth,
    AtomicEth,
    AtomicAckEth,
    Aeth,
    ImmDt,
    Ieth,
    CnpPadding,
    Payload,
    Icrc,
    Vcrc,
    Fcs,
    Capture,
}

impl Header {
    /// Short name as used in IBTA Vol 1 and Wireshark's layer titles.
    pub fn name(self) -> &'static str {
        match self {
            Header::Ethernet => "Ethernet",
            Header::Vlan => "802.1Q tag",
            Header::Ipv4 => "IPv4",
            Header::Ipv6 => "IPv6",
            Header::Udp => "UDP",
            Header::Lrh => "LRH",
            Header::Grh => "GRH",
            Header::Bth => "BTH",
            Header::Rdeth => "RDETH",
            Header::Deth => "DETH",
            Header::XrcEth => "XRCETH",
            Header::Reth => "RETH",
            Header::AtomicEth => "AtomicETH",
            Header::AtomicAckEth => "AtomicAckETH",
            Header::Aeth => "AETH",
            Header::ImmDt => "ImmDt",
            Header::Ieth => "IETH",
            Header::CnpPadding => "CNP reserved bytes",
            Header::Payload => "payload",
            Header::Icrc => "ICRC",
            Header::Vcrc => "VCRC",
            Header::Fcs => "FCS",
            Header::Capture => "capture file",
        }
    }
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a header could not be decoded or emitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ErrorKind {
    /// Fewer bytes remain than the header needs.
    Truncated { needed: usize, available: usize },
    /// A length field claims more (or less) than the frame holds.
    LengthMismatch {
        field: &'static str,
        claimed: usize,
        available: usize,
    },
    /// A checksum or CRC does not match the bytes it covers.
    BadChecksum {
        field: &'static str,
        computed: u32,
        found: u32,
    },
    /// A field holds a value the format does not allow.
    BadValue { field: &'static str, value: u64 },
    /// The BTH opcode is reserved or not in the table this module knows.
    UnknownOpcode { opcode: u8 },
    /// A well-formed frame that is not RoCE v2 (ARP, TCP, another UDP port, …).
    NotRoce { reason: &'static str, value: u64 },
}

/// A decode or emit failure located in the frame.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireError {
    /// The header being decoded.
    pub header: Header,
    /// Byte offset in the frame where that header starts.
    pub offset: usize,
    pub kind: ErrorKind,
}

impl WireError {
    pub(crate) fn truncated(
        header: Header,
        offset: usize,
        needed: usize,
        available: usize,
    ) -> Self {
        WireError {
            header,
            offset,
            kind: ErrorKind::Truncated { needed, available },
        }
    }

    pub(crate) fn new(header: Header, offset: usize, kind: ErrorKind) -> Self {
        WireError {
            header,
            offset,
            kind,
        }
    }

    /// The same error moved by `by` bytes, for a header decoded inside a larger frame.
    pub fn shifted(mut self, by: usize) -> Self {
        self.offset = self.offset.saturating_add(by);
        self
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (h, at) = (self.header, self.offset);
        match &self.kind {
            ErrorKind::Truncated { needed, available } => write!(
                f,
                "{h} truncated at byte {at}: needs {needed} bytes, {available} left"
            ),
            ErrorKind::LengthMismatch {
                field,
                claimed,
                available,
            } => write!(
                f,
                "{h} at byte {at}: {field} claims {claimed} bytes but {available} are present"
            ),
            ErrorKind::BadChecksum {
                field,
                computed,
                found,
            } => write!(
                f,
                "{h} at byte {at}: bad {field}: found {found:#x}, computed {computed:#x}"
            ),
            ErrorKind::BadValue { field, value } => {
                write!(f, "{h} at byte {at}: invalid {field} {value:#x}")
            }
            ErrorKind::UnknownOpcode { opcode } => {
                write!(
                    f,
                    "{h} at byte {at}: unknown or reserved opcode {opcode:#04x}"
                )
            }
            ErrorKind::NotRoce { reason, value } => {
                write!(f, "not RoCE v2: {h} at byte {at} has {reason} {value:#x}")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// A [`WireError`] in a numbered frame of a capture (numbered from 1, as Wireshark does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrameError {
    pub frame: usize,
    pub error: WireError,
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}: {}", self.frame, self.error)
    }
}

impl std::error::Error for FrameError {}
