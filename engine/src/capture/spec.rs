//! A serde description of one packet and the builder that turns it into frame bytes
//! with correct lengths, checksums and ICRC.
//!
//! Every field has a default, so `{"operation": "send"}` is a complete spec; a field the
//! spec does not know is refused (a misspelt field would otherwise be silently dropped):
//!
//! ```
//! use engine::capture::spec::{build, PacketSpec};
//! let spec: PacketSpec = serde_json::from_str(r#"{"operation": "write", "payload": 64}"#).unwrap();
//! let frame = build(&spec).unwrap();
//! // Parsing back checks every length, checksum and the ICRC.
//! use engine::wire::roce::{FcsMode, RoceFrameRepr};
//! assert!(RoceFrameRepr::parse(&frame, FcsMode::Absent).is_ok());
//! ```

use super::segment::{packet_cost, Framing, MessageKind, PacketCost};
use crate::wire::bth::{BthRepr, Psn, Qpn};
use crate::wire::ethernet::{EtherType, EthernetRepr, MacAddr, VlanRepr};
use crate::wire::ext::header_len;
use crate::wire::ext::{
    Aeth, AtomicEth, Deth, ExtHeaders, ExtRepr, ImmDt, NakCode, Reth, Syndrome, CNP_PADDING_LEN,
    CREDITS_INVALID,
};
use crate::wire::ib::{GrhRepr, IbFrameRepr, LrhRepr};
use crate::wire::ipv4::{Ipv4Repr, PROTOCOL_UDP};
use crate::wire::ipv6::Ipv6Repr;
use crate::wire::opcode::{Opcode, Operation, Transport};
use crate::wire::roce::{IpRepr, RoceFrameRepr};
use crate::wire::udp::{UdpRepr, ROCE_V2_PORT};
use crate::wire::WireError;
use crate::FieldError;
use core::fmt;
use core::net::{IpAddr, Ipv4Addr};
use serde::{Deserialize, Serialize};

/// What the packet does. Multi-packet messages are single ONLY packets here; see
/// [`super::segment`] for FIRST/MIDDLE/LAST.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpecOperation {
    /// RC SEND Only.
    #[default]
    Send,
    /// RC SEND Only with Immediate.
    SendWithImmediate,
    /// RC RDMA WRITE Only (RETH).
    Write,
    /// RC RDMA WRITE Only with Immediate (RETH, ImmDt).
    WriteWithImmediate,
    /// RC RDMA READ Request (RETH, no payload).
    ReadRequest,
    /// RC RDMA READ Response Only (AETH, payload).
    ReadResponse,
    /// RC CmpSwap (AtomicETH).
    CompareSwap,
    /// RC FetchAdd (AtomicETH).
    FetchAdd,
    /// RC Acknowledge with an ACK syndrome.
    Ack,
    /// RC Acknowledge with a NAK syndrome (`nak_code`).
    Nak,
    /// RC Acknowledge with an RNR NAK syndrome (`rnr_timer`).
    RnrNak,
    /// Congestion Notification Packet (opcode 0x81).
    Cnp,
    /// UD SEND Only (DETH).
    UdSend,
}

/// Payload: a byte count (filled with 0, 1, 2, … modulo 256) or literal text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Payload {
    Size(u32),
    Text(String),
}

// By hand rather than `untagged`: an untagged enum's error names no reason ("did not match
// any variant"); this one says what a payload may be.
impl<'de> Deserialize<'de> for Payload {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, Unexpected};
        struct PayloadVisitor;
        impl de::Visitor<'_> for PayloadVisitor {
            type Value = Payload;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte count (0 to 4294967295) or text")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Payload, E> {
                u32::try_from(n)
                    .map(Payload::Size)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(n), &self))
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Payload, E> {
                match u64::try_from(n) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::invalid_value(Unexpected::Signed(n), &self)),
                }
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Payload, E> {
                Ok(Payload::Text(s.to_string()))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Payload, E> {
                Ok(Payload::Text(s))
            }
        }
        d.deserialize_any(PayloadVisitor)
    }
}

impl Default for Payload {
    fn default() -> Self {
        Payload::Size(0)
    }
}

/// The most payload one packet can carry: the largest path MTU of InfiniBand and RoCE,
/// 4096 bytes (rdma-core's `libibverbs/verbs.h`, `enum ibv_mtu`, whose largest value is
/// `IBV_MTU_4096`). A longer message is several packets, FIRST, MIDDLE… LAST (see `segment`).
pub const MAX_PACKET_PAYLOAD: usize = 4096;

impl Payload {
    pub fn len(&self) -> usize {
        match self {
            Payload::Size(n) => *n as usize,
            Payload::Text(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Payload::Size(n) => (0..*n).map(|i| i as u8).collect(),
            Payload::Text(s) => s.as_bytes().to_vec(),
        }
    }
}

fn default_src_mac() -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, 0x01])
}
fn default_dst_mac() -> MacAddr {
    MacAddr([0x02, 0, 0, 0, 0, 0x02])
}
fn default_src_ip() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(192, 168, 1, 1))
}
fn default_dst_ip() -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(192, 168, 1, 2))
}

/// Description of one RoCE v2 packet. Every field is optional in JSON; unknown fields are
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PacketSpec {
    pub operation: SpecOperation,
    /// Default 02:00:00:00:00:01.
    pub src_mac: MacAddr,
    /// Default 02:00:00:00:00:02.
    pub dst_mac: MacAddr,
    /// IPv4 or IPv6 (both addresses must agree). Default 192.168.1.1.
    pub src_ip: IpAddr,
    /// Default 192.168.1.2.
    pub dst_ip: IpAddr,
    /// 802.1Q tag (PCP selects the PFC priority). Default none.
    pub vlan: Option<VlanRepr>,
    /// DSCP; default 26 for data and 48 for CNPs (the NVIDIA/Mellanox RoCE defaults,
    /// `cnp_dscp` = 48).
    pub dscp: Option<u8>,
    /// ECN; default 2, ECT(0), as ECN-enabled RoCE NICs send. CNPs default to 0.
    pub ecn: Option<u8>,
    /// TTL / hop limit. Default 64.
    pub ttl: u8,
    /// IPv6 flow label. Default 0.
    pub flow_label: u32,
    /// UDP source port; default 0xC000 | (dest_qp & 0x3FFF), a stand-in for the
    /// per-QP hash NICs use for ECMP entropy.
    pub udp_src_port: Option<u16>,
    /// Compute the UDP checksum over IPv4 too (RoCE v2 senders normally send zero).
    /// Over IPv6 it is always computed.
    pub udp_checksum: bool,
    /// Destination QP. Default 0x11 (UD: 1).
    pub dest_qp: u32,
    pub psn: u32,
    /// Default 0xFFFF.
    pub p_key: u16,
    /// Default true for requests that expect a response.
    pub ack_req: Option<bool>,
    pub solicited_event: bool,
    pub fecn: bool,
    /// Default true for CNPs (as scapy's `cnp()` sets it), false otherwise.
    pub becn: Option<bool>,
    /// R_Key for RETH/AtomicETH. Default 0x1000.
    pub r_key: u32,
    /// Remote VA for RETH/AtomicETH. Default 0x10000.
    pub va: u64,
    /// RETH DMA length; default the payload length (READ request: 4096).
    pub dma_len: Option<u32>,
    pub immediate: u32,
    pub swap_add: u64,
    pub compare: u64,
    /// NAK code for `nak`. Default PSN sequence error.
    pub nak_code: NakCode,
    /// RNR timer code 0..=31 for `rnr_nak`. Default 14 (1.28 ms).
    pub rnr_timer: u8,
    /// AETH credit count for ACKs, 0..=31. Default 31 (invalid: no credits).
    pub credits: u8,
    /// AETH MSN.
    pub msn: u32,
    /// UD Q_Key. Default 0x11111111.
    pub q_key: u32,
    /// UD source QP. Default 0x12.
    pub src_qp: u32,
    pub payload: Payload,
    /// Append an Ethernet FCS.
    pub fcs: bool,
}

impl Default for PacketSpec {
    fn default() -> Self {
        PacketSpec {
            operation: SpecOperation::Send,
            src_mac: default_src_mac(),
            dst_mac: default_dst_mac(),
            src_ip: default_src_ip(),
            dst_ip: default_dst_ip(),
            vlan: None,
            dscp: None,
            ecn: None,
            ttl: 64,
            flow_label: 0,
            udp_src_port: None,
            udp_checksum: false,
            dest_qp: 0x11,
            psn: 0,
            p_key: 0xFFFF,
            ack_req: None,
            solicited_event: false,
            fecn: false,
            becn: None,
            r_key: 0x1000,
            va: 0x10000,
            dma_len: None,
            immediate: 0,
            swap_add: 0,
            compare: 0,
            nak_code: NakCode::PsnSequenceError,
            rnr_timer: 14,
            credits: CREDITS_INVALID,
            msn: 0,
            q_key: 0x1111_1111,
            src_qp: 0x12,
            payload: Payload::Size(0),
            fcs: false,
        }
    }
}

/// Why a spec could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum BuildError {
    /// A spec field is out of range or inconsistent (several fields joined by `/` when
    /// they disagree with each other).
    Invalid(FieldError),
    /// Emitting failed.
    Wire(WireError),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Invalid(e) => write!(f, "{}: {}", e.field, e.reason),
            BuildError::Wire(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BuildError {}

impl From<WireError> for BuildError {
    fn from(e: WireError) -> Self {
        BuildError::Wire(e)
    }
}

fn invalid(field: &'static str, reason: impl Into<String>) -> BuildError {
    BuildError::Invalid(FieldError::new(field, reason))
}

impl BuildError {
    /// The field refused, if the spec (not the emitter) was at fault.
    pub fn field_error(&self) -> Option<&FieldError> {
        match self {
            BuildError::Invalid(e) => Some(e),
            BuildError::Wire(_) => None,
        }
    }
}

/// Turns a spec into a frame representation (inspect it, or `emit` it).
pub fn to_repr(s: &PacketSpec) -> Result<RoceFrameRepr, BuildError> {
    use SpecOperation as S;
    let is_cnp = s.operation == S::Cnp;
    let dscp = s.dscp.unwrap_or(if is_cnp { 48 } else { 26 });
    let ecn = s.ecn.unwrap_or(if is_cnp { 0 } else { 2 });
    if dscp > 63 {
        return Err(invalid("dscp", format!("{dscp} is not in 0..=63")));
    }
    if ecn > 3 {
        return Err(invalid("ecn", format!("{ecn} is not in 0..=3")));
    }
    if s.dest_qp > Qpn::MASK || s.src_qp > Qpn::MASK {
        return Err(invalid("dest_qp/src_qp", "QP numbers are 24 bits"));
    }
    if s.psn > Psn::MASK || s.msn > 0x00FF_FFFF {
        return Err(invalid("psn/msn", "sequence numbers are 24 bits"));
    }
    if s.rnr_timer > 31 || s.credits > 31 {
        return Err(invalid("rnr_timer/credits", "5-bit fields, 0..=31"));
    }
    if let Some(v) = s.vlan {
        if v.pcp > 7 || v.vid > 0x0FFF {
            return Err(invalid("vlan", "pcp is 0..=7 and vid 0..=4095"));
        }
    }
    let opcode = s
        .operation
        .opcode()
        .ok_or_else(|| invalid("operation", "no such opcode"))?;
    let info = opcode
        .info()
        .ok_or_else(|| invalid("operation", "no such opcode"))?;
    if info.headers.payload && s.payload.len() > MAX_PACKET_PAYLOAD {
        return Err(invalid(
            "payload",
            format!(
                "{} bytes do not fit one packet: the largest RoCE and InfiniBand path MTU \
                 (4096) carries at most {MAX_PACKET_PAYLOAD} bytes of payload; a longer \
                 message is sent as FIRST, MIDDLE and LAST packets",
                s.payload.len()
            ),
        ));
    }
    let payload = if info.headers.payload {
        s.payload.bytes()
    } else {
        Vec::new()
    };
    if !info.headers.payload && s.payload != Payload::Size(0) {
        return Err(invalid(
            "payload",
            format!("{:?} packets carry no payload", s.operation),
        ));
    }
    let pad = ((4 - payload.len() % 4) % 4) as u8;
    let mut ext = ExtRepr::default();
    let syndrome = match s.operation {
        S::Nak => Syndrome::Nak(s.nak_code),
        S::RnrNak => Syndrome::RnrNak { timer: s.rnr_timer },
        _ => Syndrome::Ack { credits: s.credits },
    };
    if info.headers.reth {
        let default_len = if s.operation == S::ReadRequest {
            4096
        } else {
            payload.len() as u32
        };
        ext.reth = Some(Reth {
            va: s.va,
            r_key: s.r_key,
            dma_len: s.dma_len.unwrap_or(default_len),
        });
    }
    if info.headers.immdt {
        ext.immdt = Some(ImmDt { data: s.immediate });
    }
    if info.headers.aeth {
        ext.aeth = Some(Aeth {
            syndrome,
            msn: s.msn,
        });
    }
    if info.headers.atomic_eth {
        ext.atomic_eth = Some(AtomicEth {
            va: s.va,
            r_key: s.r_key,
            swap_add: s.swap_add,
            compare: s.compare,
        });
    }
    if info.headers.deth {
        ext.deth = Some(Deth {
            q_key: s.q_key,
            src_qp: s.src_qp,
        });
    }
    if info.headers.cnp_padding {
        ext.cnp_padding = Some([0; CNP_PADDING_LEN]);
    }
    let expects_response = matches!(
        s.operation,
        S::Send
            | S::SendWithImmediate
            | S::Write
            | S::WriteWithImmediate
            | S::ReadRequest
            | S::CompareSwap
            | S::FetchAdd
    );
    let bth = BthRepr {
        opcode,
        solicited_event: s.solicited_event,
        mig_req: false,
        pad_count: pad,
        tver: 0,
        p_key: s.p_key,
        fecn: s.fecn,
        becn: s.becn.unwrap_or(is_cnp),
        dest_qp: Qpn(s.dest_qp),
        ack_req: s.ack_req.unwrap_or(expects_response),
        psn: Psn::truncate(s.psn),
    };
    let (ip, ethertype) = match (s.src_ip, s.dst_ip) {
        (IpAddr::V4(src), IpAddr::V4(dst)) => (
            IpRepr::V4(Ipv4Repr {
                src_addr: src,
                dst_addr: dst,
                dscp,
                ecn,
                ttl: s.ttl,
                ident: 0,
                dont_frag: true,
                protocol: PROTOCOL_UDP,
                payload_len: 0,
            }),
            EtherType::IPV4,
        ),
        (IpAddr::V6(src), IpAddr::V6(dst)) => {
            if s.flow_label > 0x000F_FFFF {
                return Err(invalid("flow_label", "20 bits"));
            }
            (
                IpRepr::V6(Ipv6Repr {
                    src_addr: src,
                    dst_addr: dst,
                    dscp,
                    ecn,
                    flow_label: s.flow_label,
                    hop_limit: s.ttl,
                    next_header: PROTOCOL_UDP,
                    payload_len: 0,
                }),
                EtherType::IPV6,
            )
        }
        _ => {
            return Err(invalid(
                "src_ip/dst_ip",
                "both addresses must be IPv4 or both IPv6",
            ))
        }
    };
    let repr = RoceFrameRepr {
        ethernet: EthernetRepr {
            src_addr: s.src_mac,
            dst_addr: s.dst_mac,
            vlan: s.vlan,
            ethertype: ethertype.0,
        },
        ip,
        udp: UdpRepr {
            src_port: s
                .udp_src_port
                .unwrap_or(0xC000 | (s.dest_qp & 0x3FFF) as u16),
            dst_port: ROCE_V2_PORT,
            checksum: s.udp_checksum,
            payload_len: 0,
        },
        bth,
        ext,
        payload,
        fcs: s.fcs,
    };
    Ok(repr.normalized())
}

/// Builds the full frame described by `spec`.
pub fn build(spec: &PacketSpec) -> Result<Vec<u8>, BuildError> {
    Ok(to_repr(spec)?.emit()?)
}

impl SpecOperation {
    /// Every operation, in the order the builder lists them.
    pub const ALL: [SpecOperation; 13] = [
        SpecOperation::Send,
        SpecOperation::SendWithImmediate,
        SpecOperation::Write,
        SpecOperation::WriteWithImmediate,
        SpecOperation::ReadRequest,
        SpecOperation::ReadResponse,
        SpecOperation::CompareSwap,
        SpecOperation::FetchAdd,
        SpecOperation::Ack,
        SpecOperation::Nak,
        SpecOperation::RnrNak,
        SpecOperation::Cnp,
        SpecOperation::UdSend,
    ];

    /// The snake_case name used in JSON and URLs.
    pub fn key(self) -> &'static str {
        use SpecOperation as S;
        match self {
            S::Send => "send",
            S::SendWithImmediate => "send_with_immediate",
            S::Write => "write",
            S::WriteWithImmediate => "write_with_immediate",
            S::ReadRequest => "read_request",
            S::ReadResponse => "read_response",
            S::CompareSwap => "compare_swap",
            S::FetchAdd => "fetch_add",
            S::Ack => "ack",
            S::Nak => "nak",
            S::RnrNak => "rnr_nak",
            S::Cnp => "cnp",
            S::UdSend => "ud_send",
        }
    }

    /// Inverse of [`SpecOperation::key`].
    pub fn from_key(key: &str) -> Option<SpecOperation> {
        Self::ALL.into_iter().find(|o| o.key() == key)
    }

    /// Human name for a menu.
    pub fn label(self) -> &'static str {
        use SpecOperation as S;
        match self {
            S::Send => "SEND",
            S::SendWithImmediate => "SEND with immediate",
            S::Write => "RDMA WRITE",
            S::WriteWithImmediate => "RDMA WRITE with immediate",
            S::ReadRequest => "RDMA READ request",
            S::ReadResponse => "RDMA READ response",
            S::CompareSwap => "ATOMIC compare & swap",
            S::FetchAdd => "ATOMIC fetch & add",
            S::Ack => "ACK",
            S::Nak => "NAK",
            S::RnrNak => "RNR NAK",
            S::Cnp => "CNP (congestion notification)",
            S::UdSend => "UD SEND",
        }
    }

    /// The opcode of this operation's packet (every operation has one).
    pub fn opcode(self) -> Option<Opcode> {
        use SpecOperation as S;
        let op = match self {
            S::Send | S::UdSend => Operation::SendOnly,
            S::SendWithImmediate => Operation::SendOnlyImm,
            S::Write => Operation::WriteOnly,
            S::WriteWithImmediate => Operation::WriteOnlyImm,
            S::ReadRequest => Operation::ReadRequest,
            S::ReadResponse => Operation::ReadResponseOnly,
            S::CompareSwap => Operation::CompareSwap,
            S::FetchAdd => Operation::FetchAdd,
            S::Ack | S::Nak | S::RnrNak => Operation::Acknowledge,
            S::Cnp => return Some(Opcode::CNP),
        };
        let transport = match self {
            S::UdSend => Transport::Ud,
            _ => Transport::Rc,
        };
        Opcode::new(transport, op)
    }

    /// The extended headers this operation's packet carries, and whether a payload follows.
    pub fn headers(self) -> ExtHeaders {
        let info = self.opcode().and_then(|o| o.info());
        info.map(|i| i.headers).unwrap_or_default()
    }

    /// Whether packets of this operation carry a payload.
    pub fn carries_payload(self) -> bool {
        self.headers().payload
    }

    /// The message this packet belongs to when it is longer than one MTU, for
    /// [`super::segment::message_cost`]: a READ request draws READ responses.
    pub fn message(self) -> Option<(Transport, MessageKind)> {
        use SpecOperation as S;
        let kind = match self {
            S::Send | S::UdSend => MessageKind::Send,
            S::SendWithImmediate => MessageKind::SendWithImmediate,
            S::Write => MessageKind::Write,
            S::WriteWithImmediate => MessageKind::WriteWithImmediate,
            S::ReadRequest | S::ReadResponse => MessageKind::ReadResponse,
            _ => return None,
        };
        let transport = if self == S::UdSend {
            Transport::Ud
        } else {
            Transport::Rc
        };
        Some((transport, kind))
    }
}

/// LIDs the native-IB twin of a spec uses: a subnet manager hands out LIDs from 1
/// (IBTA Vol 1 §4.1.3: 0 is reserved, 0xC000 and up are multicast).
pub const IB_SLID: u16 = 1;
pub const IB_DLID: u16 = 2;

/// The same transport packet as native InfiniBand: LRH (+ GRH when `grh`) instead of
/// Ethernet/IP/UDP, the same BTH, extended headers and payload, then ICRC and VCRC
/// (IBTA Vol 1 §7.7, §8.3). The service level is the VLAN PCP, as both pick the
/// priority class. Global IDs are the IP addresses (IPv4 as ::ffff:a.b.c.d, the form
/// RoCE GIDs take for IPv4, IBTA Vol 1 Annex A17 §A17.4.5.2).
pub fn to_ib_repr(s: &PacketSpec, grh: bool) -> Result<IbFrameRepr, BuildError> {
    if s.operation == SpecOperation::Cnp {
        return Err(invalid(
            "operation",
            "opcode 0x81 CNPs exist only in RoCE v2 (Annex A17); native IB congestion \
             control (Annex A10) returns the BECN bit instead",
        ));
    }
    let roce = to_repr(s)?;
    let gid = |ip: IpAddr| match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    };
    let tclass = (s.dscp.unwrap_or(26) << 2) | s.ecn.unwrap_or(0);
    Ok(IbFrameRepr {
        lrh: LrhRepr {
            vl: 0,
            lver: 0,
            sl: s.vlan.map(|v| v.pcp).unwrap_or(0),
            dlid: IB_DLID,
            slid: IB_SLID,
        },
        grh: grh.then(|| GrhRepr {
            tclass,
            flow_label: s.flow_label & 0x000F_FFFF,
            hop_limit: s.ttl,
            sgid: gid(s.src_ip),
            dgid: gid(s.dst_ip),
        }),
        bth: roce.bth,
        ext: roce.ext,
        payload: roce.payload,
    })
}

/// Builds the native-IB twin of `spec` (LRH through VCRC).
pub fn build_ib(spec: &PacketSpec, grh: bool) -> Result<Vec<u8>, BuildError> {
    Ok(to_ib_repr(spec, grh)?.emit()?)
}

/// One packet's cost on the wire as RoCE v2 and, when it has one, as its native-IB twin
/// without a GRH (see [`super::segment::packet_cost`] for what each counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireCosts {
    pub roce: PacketCost,
    pub ib: Option<PacketCost>,
}

/// What the packet `spec` describes costs on each fabric.
pub fn wire_costs(s: &PacketSpec) -> Result<WireCosts, BuildError> {
    let repr = to_repr(s)?;
    let info = repr
        .bth
        .opcode
        .info()
        .ok_or_else(|| invalid("operation", "no such opcode"))?;
    let ext: u32 = info.headers.iter().map(|h| header_len(h) as u32).sum();
    let payload = repr.payload.len() as u32;
    let roce = packet_cost(
        Framing::RoceV2 {
            ipv6: s.src_ip.is_ipv6(),
            vlan: s.vlan.is_some(),
        },
        ext,
        payload,
    );
    let ib = (s.operation != SpecOperation::Cnp)
        .then(|| packet_cost(Framing::Infiniband { grh: false }, ext, payload));
    Ok(WireCosts { roce, ib })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::dissect::dissect;
    use crate::capture::pcap::LinkType;

    #[test]
    fn operation_keys_round_trip_and_match_serde() {
        for op in SpecOperation::ALL {
            assert_eq!(SpecOperation::from_key(op.key()), Some(op));
            let json = serde_json::to_string(&op).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", op.key()));
        }
        assert_eq!(SpecOperation::from_key("teleport"), None);
    }

    #[test]
    fn the_ib_twin_shares_the_transport_and_checks_its_crcs() {
        let spec = PacketSpec {
            operation: SpecOperation::Write,
            payload: Payload::Size(100),
            ..PacketSpec::default()
        };
        let roce = build(&spec).unwrap_or_default();
        let ib = build_ib(&spec, false).unwrap_or_default();
        // LRH 8 + transport + VCRC 2 against Ethernet 14 + IPv4 20 + UDP 8 + transport.
        assert_eq!(roce.len() - (14 + 20 + 8), ib.len() - (8 + 2));
        let d = dissect(&ib, LinkType::Infiniband);
        assert!(d.error.is_none(), "{:?}", d.error);
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        assert_eq!(d.uint("infiniband.lrh.dlid"), Some(u64::from(IB_DLID)));
        assert_eq!(d.uint("infiniband.reth.dmalen"), Some(100));
        let with_grh = build_ib(&spec, true).unwrap_or_default();
        assert_eq!(with_grh.len(), ib.len() + 40);
        assert!(dissect(&with_grh, LinkType::Infiniband).warnings.is_empty());
    }

    #[test]
    fn wire_costs_agree_with_the_built_frames() {
        let spec = PacketSpec {
            operation: SpecOperation::Write,
            payload: Payload::Size(100),
            ..PacketSpec::default()
        };
        let costs = wire_costs(&spec).unwrap_or(WireCosts {
            roce: packet_cost(Framing::Infiniband { grh: false }, 0, 0),
            ib: None,
        });
        // The built frame lacks only the FCS (4 bytes) that the cost counts.
        assert_eq!(
            costs.roce.frame as usize,
            build(&spec).unwrap_or_default().len() + 4
        );
        let ib = costs.ib.map(|c| c.frame as usize);
        assert_eq!(ib, Some(build_ib(&spec, false).unwrap_or_default().len()));
        assert_eq!(costs.roce.payload, 100);
    }

    #[test]
    fn cnps_have_no_ib_twin() {
        let spec = PacketSpec {
            operation: SpecOperation::Cnp,
            ..PacketSpec::default()
        };
        assert!(matches!(
            to_ib_repr(&spec, false),
            Err(BuildError::Invalid(e)) if e.field == "operation"
        ));
    }

    #[test]
    fn payload_carrying_operations_match_the_opcode_table() {
        for op in SpecOperation::ALL {
            let spec = PacketSpec {
                operation: op,
                payload: Payload::Size(4),
                ..PacketSpec::default()
            };
            assert_eq!(build(&spec).is_ok(), op.carries_payload(), "{op:?}");
        }
    }

    #[test]
    fn one_packet_carries_at_most_the_largest_path_mtu() {
        let spec = |payload| PacketSpec {
            operation: SpecOperation::Write,
            payload,
            ..PacketSpec::default()
        };
        assert!(build(&spec(Payload::Size(4096))).is_ok());
        let refused = build(&spec(Payload::Size(9000))).unwrap_err().to_string();
        assert!(
            refused.starts_with("payload: 9000 bytes do not fit one packet"),
            "{refused}"
        );
        assert!(refused.contains("4096"), "{refused}");
        assert!(build(&spec(Payload::Text("x".repeat(4097)))).is_err());
    }

    #[test]
    fn json_specs_refuse_unknown_fields_and_say_what_a_payload_may_be() {
        let parse = serde_json::from_str::<PacketSpec>;
        let unknown = parse(r#"{"opcode": "send"}"#).unwrap_err().to_string();
        assert!(unknown.contains("unknown field `opcode`"), "{unknown}");
        let vlan = parse(r#"{"vlan": {"pcp": 3, "dei": false, "vid": 7, "prio": 1}}"#);
        assert!(vlan.is_err());
        for bad in [
            r#"{"payload": -1}"#,
            r#"{"payload": 4294967296}"#,
            r#"{"payload": 1.5}"#,
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("a byte count (0 to 4294967295) or text"),
                "{bad}: {e}"
            );
        }
        assert_eq!(
            parse(r#"{"payload": 7}"#).unwrap().payload,
            Payload::Size(7)
        );
        assert_eq!(
            parse(r#"{"payload": "hi"}"#).unwrap().payload,
            Payload::Text("hi".into())
        );
        // Every field stays optional, and a spec survives its own JSON.
        let spec = parse("{}").unwrap();
        assert_eq!(spec, PacketSpec::default());
        let text = serde_json::to_string(&spec).unwrap();
        assert_eq!(parse(&text).unwrap(), spec);
    }
}
