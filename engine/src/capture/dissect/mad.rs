//! The MAD in a UD SEND to QP0 or QP1: its common header and its class's layout, each a
//! table of rows at `wire::mad`'s offsets, named as Wireshark 4.0 names them (its
//! quirks included: the directed route SMP's M_Key is `infiniband.smplid.mkey`, the SA
//! layer is `infiniband.sa.drdlid`, a REQ's local communication ID is
//! `infiniband.cm.req`, a DREP's fields are `infiniband.cm.drsp.*`).

use super::{bytes, num, Dissector, Read, Row};
use crate::wire::bytes::{be16, u8_at};
use crate::wire::mad::{self, class, cm, field as m, COMMON_LEN, MAD_LEN};

/// Wireshark's name and title for a MAD layer, and its rows.
type MadTable = (&'static str, &'static str, &'static [Row]);

#[rustfmt::skip]
const COMMON: MadTable = ("infiniband.mad", "MAD Header - Common Management Datagram", &[
    num("infiniband.mad.baseversion", "Base Version", m::BASE_VERSION, 1).means("1: the MAD format of IBTA Vol 1 §13.4.3"),
    num("infiniband.mad.mgmtclass", "Management Class", m::MGMT_CLASS, 1).by(|c| mad::class_name(c as u8).into()),
    num("infiniband.mad.classversion", "Class Version", m::CLASS_VERSION, 1),
    num("infiniband.mad.method", "Method", m::METHOD, 1)
        .by(|x| mad::method_name(x as u8).unwrap_or("unknown method").into()),
    num("infiniband.mad.status", "Status", m::STATUS, 2),
    num("infiniband.mad.classspecific", "Class Specific", m::CLASS_SPECIFIC, 2),
    num("infiniband.mad.transactionid", "Transaction ID", m::TRANSACTION_ID, 8)
        .means("pairs a response with its request"),
    num("infiniband.mad.attributeid", "Attribute ID", m::ATTRIBUTE_ID, 2),
    num("infiniband.mad.reserved", "Reserved (not a Wireshark field)", m::RESERVED, 2),
    num("infiniband.mad.attributemodifier", "Attribute Modifier", m::ATTRIBUTE_MODIFIER, 4),
    bytes("infiniband.mad.data", "MAD Data Payload", COMMON_LEN, MAD_LEN - COMMON_LEN)
        .means("the class's own layout, decoded below when the lab knows the class"),
]);

#[rustfmt::skip]
const SMP_LID: MadTable = ("infiniband.smplid", "Subnet Management Packet (LID Routed)", &[
    num("infiniband.smplid.mkey", "M_Key", m::SMP_M_KEY, 8).means("management key the SM protects the port with"),
    bytes("infiniband.smplid.smpdata", "SMP Data", m::SMP_DATA, m::SMP_DATA_LEN),
]);

#[rustfmt::skip]
const SMP_DIRECTED: MadTable = ("infiniband.smpdirected", "Subnet Management Packet (Directed Route)", &[
    num("infiniband.smpdirected.d", "D (Direction Bit)", m::STATUS, 2).bits(0x8000)
        .means("0: outbound from the SM along the initial path; 1: the return"),
    num("infiniband.smpdirected.smpstatus", "Status", m::STATUS, 2).bits(0x7FFF),
    num("infiniband.smpdirected.hoppointer", "Hop Pointer", m::DR_HOP_POINTER, 1)
        .means("the hop the packet is at along the path"),
    num("infiniband.smpdirected.hopcount", "Hop Count", m::DR_HOP_COUNT, 1)
        .means("hops of the directed part of the route"),
    num("infiniband.smplid.mkey", "M_Key", m::SMP_M_KEY, 8),
    num("infiniband.smpdirected.drslid", "DrSLID", m::DR_SLID, 2).means("0xffff: the route starts at the SM's port"),
    num("infiniband.smpdirected.drdlid", "DrDLID", m::DR_DLID, 2).means("0xffff: the route ends by directed hops"),
    bytes("infiniband.smplid.smpdata", "SMP Data", m::SMP_DATA, m::SMP_DATA_LEN),
    bytes("infiniband.smpdirected.initialpath", "Initial Path", m::DR_INITIAL_PATH, m::DR_PATH_LEN)
        .means("the output port at each hop, outbound"),
    bytes("infiniband.smpdirected.returnpath", "Return Path", m::DR_RETURN_PATH, m::DR_PATH_LEN),
]);

#[rustfmt::skip]
const RMPP: MadTable = ("infiniband.rmpp", "RMPP (Reliable Multi-Packet Transaction Protocol)", &[
    num("infiniband.rmpp.rmppversion", "RMPP Version", m::RMPP_VERSION, 1),
    num("infiniband.rmpp.rmpptype", "RMPP Type", m::RMPP_TYPE, 1)
        .pick(&[(0, "not an RMPP segment"), (1, "DATA"), (2, "ACK"), (3, "STOP"), (4, "ABORT")], "reserved"),
    num("infiniband.rmpp.rresptime", "R Resp Time", m::RMPP_RESP_TIME_FLAGS, 1).bits(0xF8),
    num("infiniband.rmpp.rmppflags", "RMPP Flags", m::RMPP_RESP_TIME_FLAGS, 1).bits(0x07),
    num("infiniband.rmpp.rmppstatus", "RMPP Status", m::RMPP_STATUS, 1),
    num("infiniband.rmpp.data1", "RMPP Data 1", m::RMPP_DATA1, 4),
    num("infiniband.rmpp.data2", "RMPP Data 2", m::RMPP_DATA2, 4),
]);

#[rustfmt::skip]
const SA: MadTable = ("infiniband.sa.drdlid", "SA Packet (Subnet Administration)", &[
    num("infiniband.sa.smkey", "SM_Key (Verification Key)", m::SA_SM_KEY, 8),
    num("infiniband.sa.attributeoffset", "Attribute Offset", m::SA_ATTRIBUTE_OFFSET, 2)
        .means("8-byte words from one record to the next in a table"),
    num("infiniband.sa.componentmask", "Component Mask", m::SA_COMPONENT_MASK, 8)
        .means("which fields of the record the query matches on"),
    bytes("infiniband.sa.subnetadmindata", "Subnet Admin Data", m::SA_DATA, MAD_LEN - m::SA_DATA),
]);

/// Connection manager offsets count from the end of the common header.
const C: usize = COMMON_LEN;

#[rustfmt::skip]
const CM_REQ: MadTable = ("infiniband.cm.req", "CM ConnectRequest (REQ)", &[
    num("infiniband.cm.req", "Local Communication ID", C, 4),
    num("infiniband.cm.req.serviceid", "ServiceID", C + 8, 8).means("the service the client asks for"),
    bytes("infiniband.cm.req.serviceid.prefix", "Prefix", C + 8, 5).means("0000000001: an RDMA IP CM service (IBTA Annex A11)"),
    num("infiniband.cm.req.serviceid.protocol", "Protocol", C + 13, 1).pick(&[(0x02, "PS_IB"), (0x06, "PS_TCP"), (0x11, "PS_UDP"), (0x3F, "PS_IPOIB")], "other port space"),
    num("infiniband.cm.req.serviceid.dport", "Destination Port", C + 14, 2).means("the port rdma_listen() bound"),
    num("infiniband.cm.req.localcaguid", "Local CA GUID", C + 16, 8),
    num("infiniband.cm.req.localqkey", "Local Q_Key", C + 28, 4),
    num("infiniband.cm.req.localqpn", "Local QPN", C + 32, 3).means("the client's QP, the one the server's QP will send to"),
    num("infiniband.cm.req.responderres", "Responder Resources", C + 35, 1).means("RDMA READs and atomics the client will serve at once"),
    num("infiniband.cm.req.localeecn", "Local EECN", C + 36, 3),
    num("infiniband.cm.req.initdepth", "Initiator Depth", C + 39, 1).means("RDMA READs and atomics the client will have outstanding"),
    num("infiniband.cm.req.remoteeecn", "Remote EECN", C + 40, 3),
    num("infiniband.cm.req.remoteresptout", "Remote CM Response Timeout", C + 43, 1).bits(0xF8).by(timeout),
    num("infiniband.cm.req.transpsvctype", "Transport Service Type", C + 43, 1).bits(0x06)
        .pick(&[(0, "RC"), (1, "UC"), (2, "RD")], "reserved"),
    num("infiniband.cm.req.e2eflowctrl", "End-to-End Flow Control", C + 43, 1).bits(0x01),
    num("infiniband.cm.req.startpsn", "Starting PSN", C + 44, 3).means("the first PSN the client's QP sends"),
    num("infiniband.cm.req.localresptout", "Local CM Response Timeout", C + 47, 1).bits(0xF8).by(timeout),
    num("infiniband.cm.req.retrcount", "Retry Count", C + 47, 1).bits(0x07).means("transport retries before an error (timeouts, NAKs)"),
    num("infiniband.cm.req.pkey", "Partition Key", C + 48, 2),
    num("infiniband.cm.req.pppmtu", "Path Packet Payload MTU", C + 50, 1).bits(0xF0).by(mtu),
    num("infiniband.cm.req.rdcexist", "RDC Exists", C + 50, 1).bits(0x08),
    num("infiniband.cm.req.rnrretrcount", "RNR Retry Count", C + 50, 1).bits(0x07).means("7: retry for ever"),
    num("infiniband.cm.req.maxcmretr", "Max CM Retries", C + 51, 1).bits(0xF0),
    num("infiniband.cm.req.srq", "SRQ", C + 51, 1).bits(0x08),
    num("infiniband.cm.req.ext_transport", "Extended Transport", C + 51, 1).bits(0x07),
    num("infiniband.cm.req.prim_locallid", "Primary Local Port LID", C + 52, 2),
    num("infiniband.cm.req.prim_remotelid", "Primary Remote Port LID", C + 54, 2),
    super::addr("infiniband.cm.req.prim_localgid", "Primary Local Port GID", C + 56, Read::Ipv6),
    super::addr("infiniband.cm.req.prim_remotegid", "Primary Remote Port GID", C + 72, Read::Ipv6),
    num("infiniband.cm.req.prim_flowlabel", "Primary Flow Label", C + 88, 4).bits(0xFFFF_F000),
    num("infiniband.cm.req.prim_reserved0", "Reserved", C + 88, 4).bits(0x0000_0FC0),
    num("infiniband.cm.req.prim_pktrate", "Primary Packet Rate", C + 91, 1).bits(0x3F),
    num("infiniband.cm.req.prim_tfcclass", "Primary Traffic Class", C + 92, 1),
    num("infiniband.cm.req.prim_hoplim", "Primary Hop Limit", C + 93, 1),
    num("infiniband.cm.req.prim_sl", "Primary SL", C + 94, 1).bits(0xF0),
    num("infiniband.cm.req.prim_subnetlocal", "Primary Subnet Local", C + 94, 1).bits(0x08),
    num("infiniband.cm.req.prim_reserved1", "Reserved", C + 94, 1).bits(0x07),
    num("infiniband.cm.req.prim_localacktout", "Primary Local ACK Timeout", C + 95, 1).bits(0xF8).by(timeout),
    num("infiniband.cm.req.prim_reserved2", "Reserved", C + 95, 1).bits(0x07),
    num("infiniband.cm.req.alt_locallid", "Alternate Local Port LID", C + 96, 2).means("0: no alternate path (no APM)"),
    num("infiniband.cm.req.alt_remotelid", "Alternate Remote Port LID", C + 98, 2),
    // Wireshark shows the alternate GIDs as bytes, the primary ones as addresses.
    bytes("infiniband.cm.req.alt_localgid", "Alternate Local Port GID", C + 100, 16),
    bytes("infiniband.cm.req.alt_remotegid", "Alternate Remote Port GID", C + 116, 16),
    num("infiniband.cm.req.alt_flowlabel", "Alternate Flow Label", C + 132, 4).bits(0xFFFF_F000),
    num("infiniband.cm.req.alt_reserved0", "Reserved", C + 132, 4).bits(0x0000_0FC0),
    num("infiniband.cm.req.alt_pktrate", "Alternate Packet Rate", C + 135, 1).bits(0x3F),
    num("infiniband.cm.req.alt_tfcclass", "Alternate Traffic Class", C + 136, 1),
    num("infiniband.cm.req.alt_hoplim", "Alternate Hop Limit", C + 137, 1),
    num("infiniband.cm.req.alt_sl", "Alternate SL", C + 138, 1).bits(0xF0),
    num("infiniband.cm.req.alt_subnetlocal", "Alternate Subnet Local", C + 138, 1).bits(0x08),
    num("infiniband.cm.req.alt_reserved1", "Reserved", C + 138, 1).bits(0x07),
    num("infiniband.cm.req.alt_localacktout", "Alternate Local ACK Timeout", C + 139, 1).bits(0xF8).by(timeout),
    bytes("infiniband.cm.req.private", "PrivateData", C + 140, 92),
]);

/// The RDMA IP CM header rdma_cm puts in a REQ's private data when the service ID has
/// the IP CM prefix (IBTA Annex A11; the kernel's `struct cma_hdr`).
#[rustfmt::skip]
const CM_IP: MadTable = ("infiniband.cm.req.ip_cm", "IP CM Request Msg", &[
    num("infiniband.cm.req.ip_cm.majv", "IP CM Major Version", C + 140, 1).bits(0xF0),
    num("infiniband.cm.req.ip_cm.minv", "IP CM Minor Version", C + 140, 1).bits(0x0F),
    num("infiniband.cm.req.ip_cm.ipv", "IP CM IP Version", C + 141, 1).bits(0xF0),
    num("infiniband.cm.req.ip_cm.reserved", "IP CM Reserved", C + 141, 1).bits(0x0F),
    num("infiniband.cm.req.ip_cm.sport", "IP CM Source Port", C + 142, 2),
    super::addr("infiniband.cm.req.ip_cm.sip6", "IP CM Source IP", C + 144, Read::Ipv6)
        .means("an IPv4 address sits in the last 4 bytes"),
    super::addr("infiniband.cm.req.ip_cm.dip6", "IP CM Destination IP", C + 160, Read::Ipv6),
    bytes("infiniband.cm.req.ip_cm.private", "IP CM Consumer PrivateData", C + 176, 56),
]);

/// The service ID prefix of the RDMA IP CM services (IBTA Annex A11).
const IP_CM_PREFIX: [u8; 5] = [0, 0, 0, 0, 1];

#[rustfmt::skip]
const CM_REP: MadTable = ("infiniband.cm.rep", "CM ConnectReply (REP)", &[
    num("infiniband.cm.rep", "Local Communication ID", C, 4),
    num("infiniband.cm.rep.remotecommid", "Remote Communication ID", C + 4, 4),
    num("infiniband.cm.rep.localqkey", "Local Q_Key", C + 8, 4),
    num("infiniband.cm.rep.localqpn", "Local QPN", C + 12, 3).means("the server's QP, the one the client's QP will send to"),
    num("infiniband.cm.rep.localeecn", "Local EE Context Number", C + 16, 3),
    num("infiniband.cm.rep.startpsn", "Starting PSN", C + 20, 3).means("the first PSN the server's QP sends"),
    num("infiniband.cm.rep.respres", "Responder Resources", C + 24, 1),
    num("infiniband.cm.rep.initdepth", "Initiator Depth", C + 25, 1),
    num("infiniband.cm.rep.tgtackdelay", "Target ACK Delay", C + 26, 1).bits(0xF8),
    num("infiniband.cm.rep.failoveracc", "Failover Accepted", C + 26, 1).bits(0x06),
    num("infiniband.cm.rep.e2eflowctrl", "End-To-End Flow Control", C + 26, 1).bits(0x01),
    num("infiniband.cm.rep.rnrretrcount", "RNR Retry Count", C + 27, 1).bits(0xE0),
    num("infiniband.cm.rep.srq", "SRQ", C + 27, 1).bits(0x10),
    num("infiniband.cm.rep.reserved", "Reserved", C + 27, 1).bits(0x0F),
    num("infiniband.cm.rep.localcaguid", "Local CA GUID", C + 28, 8),
    bytes("infiniband.cm.rep.private", "PrivateData", C + 36, 196),
]);

#[rustfmt::skip]
const CM_RTU: MadTable = ("infiniband.cm.rtu", "CM ReadyToUse (RTU)", &[
    num("infiniband.cm.rtu.localcommid", "Local Communication ID", C, 4),
    num("infiniband.cm.rtu.remotecommid", "Remote Communication ID", C + 4, 4),
    bytes("infiniband.cm.rtu.private", "PrivateData", C + 8, 224),
]);

#[rustfmt::skip]
const CM_DREQ: MadTable = ("infiniband.cm.dreq", "CM DisconnectRequest (DREQ)", &[
    num("infiniband.cm.dreq.localcommid", "Local Communication ID", C, 4),
    num("infiniband.cm.dreq.remotecommid", "Remote Communication ID", C + 4, 4),
    num("infiniband.cm.req.remoteqpneecn", "Remote QPN/EECN", C + 8, 3).means("the QP the receiver is to close"),
    bytes("infiniband.cm.dreq.private", "PrivateData", C + 12, 220),
]);

#[rustfmt::skip]
const CM_DREP: MadTable = ("infiniband.cm.drsp", "CM DisconnectReply (DREP)", &[
    num("infiniband.cm.drsp.localcommid", "Local Communication ID", C, 4),
    num("infiniband.cm.drsp.remotecommid", "Remote Communication ID", C + 4, 4),
    bytes("infiniband.cm.drsp.private", "PrivateData", C + 8, 224),
]);

#[rustfmt::skip]
const CM_REJ: MadTable = ("infiniband.cm.rej", "CM ConnectReject (REJ)", &[
    num("infiniband.cm.rej.localcommid", "Local Communication ID", C, 4),
    num("infiniband.cm.rej.remotecommid", "Remote Communication ID", C + 4, 4),
    num("infiniband.cm.rej.msgrej", "Message REJected", C + 8, 1).bits(0xC0)
        .pick(&[(0, "REQ"), (1, "REP"), (2, "no message (MRA timed out)")], "reserved"),
    num("infiniband.cm.rej.reserved0", "Reserved", C + 8, 1).bits(0x3F),
    num("infiniband.cm.rej.rejinfolen", "Reject Info Length", C + 9, 1).bits(0xFE).means("bytes of ARI that mean something"),
    num("infiniband.cm.rej.reserved1", "Reserved", C + 9, 1).bits(0x01),
    num("infiniband.cm.rej.reason", "Reason", C + 10, 2)
        .by(|r| cm::reject_reason(r as u16).unwrap_or("reserved or vendor reason").into()),
    bytes("infiniband.cm.rej.ari", "Additional Reject Information (ARI)", C + 12, 72),
    bytes("infiniband.cm.rej.private", "PrivateData", C + 84, 148),
]);

/// 4.096 µs × 2^value, the encoding of every CM and ACK timeout (IBTA Vol 1 §12.7.34).
fn timeout(v: u64) -> String {
    let us = 4.096 * (1u64 << v.min(31)) as f64;
    match us {
        us if us >= 1e6 => format!("{:.1} s", us / 1e6),
        us if us >= 1e3 => format!("{:.1} ms", us / 1e3),
        us => format!("{us:.1} µs"),
    }
}

/// The IBTA's MTU code (1: 256 bytes … 5: 4096).
fn mtu(code: u64) -> String {
    match code {
        1..=5 => format!("{} bytes", 128u64 << code),
        _ => "reserved".into(),
    }
}

/// The class layout after the common header, by class and (for CM) attribute.
fn class_table(mgmt_class: u8, attribute: u16) -> &'static [MadTable] {
    match (mgmt_class, attribute) {
        (class::SUBN_LID_ROUTED, _) => &[SMP_LID],
        (class::SUBN_DIRECTED_ROUTE, _) => &[SMP_DIRECTED],
        (class::SUBN_ADM, _) => &[RMPP, SA],
        (class::CM, cm::REQ) => &[CM_REQ],
        (class::CM, cm::REP) => &[CM_REP],
        (class::CM, cm::RTU) => &[CM_RTU],
        (class::CM, cm::DREQ) => &[CM_DREQ],
        (class::CM, cm::DREP) => &[CM_DREP],
        (class::CM, cm::REJ) => &[CM_REJ],
        _ => &[],
    }
}

impl Dissector<'_> {
    /// The MAD at `at`: its common header, then its class's layers.
    pub(super) fn mad(&mut self, at: usize) {
        let f = self.frame;
        let mgmt_class = u8_at(f, at + m::MGMT_CLASS);
        let attribute = be16(f, at + m::ATTRIBUTE_ID);
        let ip_cm = mgmt_class == class::CM
            && attribute == cm::REQ
            && f.get(at + C + 8..at + C + 13) == Some(&IP_CM_PREFIX[..]);
        let tables = [COMMON].iter().chain(class_table(mgmt_class, attribute));
        let tables = tables.chain(ip_cm.then_some(&CM_IP));
        for (i, (name, title, rows)) in tables.enumerate() {
            // Every layer spans the whole MAD, as Wireshark's do.
            let mut l = self.named_layer(name, title, at, MAD_LEN);
            l.rows(at, rows);
            if i == 0 {
                let said = mad::attribute_name(mgmt_class, attribute)
                    .unwrap_or("not an attribute the lab knows");
                l.mean("infiniband.mad.attributeid", said.to_string());
            }
            self.push(l);
        }
    }
}

/// Whether the payload of a packet is a MAD: a UD SEND Only to QP0 or QP1 carrying 256
/// bytes or more.
pub(super) fn is_mad(frame: &[u8], bth_offset: usize, payload_len: usize) -> bool {
    use crate::wire::bth::field as bth;
    let opcode = frame.get(bth_offset + bth::OPCODE).copied();
    let qp = frame.get(bth_offset + bth::DEST_QP..bth_offset + bth::DEST_QP + 3);
    let to_qp0_or_1 = matches!(qp, Some([0, 0, 0 | 1]));
    opcode == Some(UD_SEND_ONLY) && to_qp0_or_1 && payload_len >= MAD_LEN
}

/// UD SEND Only (IBTA Vol 1 Table 38: UD prefix 0b011, SEND Only 0b00100).
const UD_SEND_ONLY: u8 = 0x64;
