//! The lab's InfiniBand sample: what `ibdump` records on a port of a small subnet while
//! a connection is made, used and closed, written as ibdump writes it (pcap, LINKTYPE_ERF,
//! one type-21 record per packet).
//!
//! The subnet manager (LID 1) asks the port for its SMInfo by directed route on QP0 and
//! VL15; the host asks the subnet administrator (the SM's LID) for a PathRecord on QP1;
//! the connection manager exchanges REQ, REP and RTU (IBTA Vol 1 §12.6, the QPNs and
//! starting PSNs of both sides in them); one RC SEND is acknowledged; DREQ and DREP
//! close it; the performance manager reads the port's counters; and one host pings the
//! other over IPoIB.

use super::erf::{emit_record, TYPE_INFINIBAND};
use super::pcap::{CapturedFrame, LinkType};
use super::spec::{to_ib_repr, BuildError, PacketSpec, Payload, SpecOperation};
use crate::wire::ipv4::Ipv4Repr;
use crate::wire::mad::{class, cm, MadRepr, QP_GSI, QP_SMI};
use core::net::Ipv4Addr;

/// The subnet manager's (and administrator's) LID.
pub const SM_LID: u16 = 1;
/// The two hosts' LIDs: the one that connects and the one that accepts.
pub const CLIENT_LID: u16 = 2;
pub const SERVER_LID: u16 = 3;
/// The QPs the connection joins, and their starting PSNs (carried in REQ and REP).
pub const CLIENT_QP: u32 = 0x04d2;
pub const SERVER_QP: u32 = 0x04d3;
pub const CLIENT_PSN: u32 = 0x1234;
pub const SERVER_PSN: u32 = 0x5678;
/// The Q_Key every GSI MAD carries (IBTA Vol 1 §13.5.1: QP1's well-known Q_Key).
const GSI_Q_KEY: u32 = 0x8001_0000;
/// 2024-01-01T00:00:00Z.
const START_NS: u64 = 1_704_067_200_000_000_000;

/// A MAD from `slid` to `dlid` on QP0 (subnet management, on VL15) or QP1 (every other
/// class), as a UD SEND Only with its DETH.
pub fn mad_packet(mad: &MadRepr, slid: u16, dlid: u16) -> Result<Vec<u8>, BuildError> {
    let smp = matches!(
        mad.mgmt_class,
        class::SUBN_LID_ROUTED | class::SUBN_DIRECTED_ROUTE
    );
    let qp = if smp { QP_SMI } else { QP_GSI };
    let spec = PacketSpec {
        operation: SpecOperation::UdSend,
        dest_qp: qp,
        src_qp: qp,
        q_key: if smp { 0 } else { GSI_Q_KEY },
        payload: Payload::Size(0),
        ..PacketSpec::default()
    };
    let mut repr = to_ib_repr(&spec, false)?;
    // Subnet management travels on VL15, which no flow control holds back.
    repr.lrh.vl = if smp { 15 } else { 0 };
    (repr.lrh.slid, repr.lrh.dlid) = (slid, dlid);
    repr.payload = mad.emit();
    Ok(repr.emit()?)
}

fn mad(mgmt_class: u8, method: u8, attribute_id: u16, tid: u64, data: Vec<u8>) -> MadRepr {
    MadRepr {
        base_version: 1,
        mgmt_class,
        class_version: if mgmt_class == class::CM { 2 } else { 1 },
        method,
        status: 0,
        class_specific: 0,
        transaction_id: tid,
        attribute_id,
        attribute_modifier: 0,
        data,
    }
}

/// `(offset after the common header, big-endian bytes)` written into 232 zero bytes.
fn body(fields: &[(usize, &[u8])]) -> Vec<u8> {
    let mut data = vec![0u8; 232];
    for (at, bytes) in fields {
        data[*at..*at + bytes.len()].copy_from_slice(bytes);
    }
    data
}

fn be24(v: u32) -> [u8; 3] {
    let b = v.to_be_bytes();
    [b[1], b[2], b[3]]
}

/// The connection manager's REQ, REP and RTU, with the fields `ibta_vol1_c12.h` places.
fn connect(tid: u64) -> [MadRepr; 3] {
    let (client_id, server_id) = (0x1111_0001u32.to_be_bytes(), 0x2222_0002u32.to_be_bytes());
    let service_id = 0x0000_0000_0106_4791u64.to_be_bytes();
    let req = body(&[
        (0, &client_id),
        (8, &service_id),
        (16, &0x0002_c903_0000_1001u64.to_be_bytes()),
        (32, &be24(CLIENT_QP)),
        (35, &[4]),
        (39, &[4]),
        // Remote CM response timeout 20 (5 bits), transport RC (0), flow control on.
        (43, &[20 << 3 | 1]),
        (44, &be24(CLIENT_PSN)),
        // Local CM response timeout 20, retry count 7.
        (47, &[20 << 3 | 7]),
        (48, &0xFFFFu16.to_be_bytes()),
        // Path MTU 4096 (5), RNR retry count 7; max CM retries 15.
        (50, &[5 << 4 | 7]),
        (51, &[15 << 4]),
        (52, &CLIENT_LID.to_be_bytes()),
        (54, &SERVER_LID.to_be_bytes()),
    ]);
    let rep = body(&[
        (0, &server_id),
        (4, &client_id),
        (12, &be24(SERVER_QP)),
        (20, &be24(SERVER_PSN)),
        (24, &[4]),
        (25, &[4]),
        (26, &[15 << 3 | 1]),
        (27, &[7 << 5]),
        (28, &0x0002_c903_0000_2001u64.to_be_bytes()),
    ]);
    let rtu = body(&[(0, &client_id), (4, &server_id)]);
    [
        mad(class::CM, 0x03, cm::REQ, tid, req),
        mad(class::CM, 0x03, cm::REP, tid, rep),
        mad(class::CM, 0x03, cm::RTU, tid, rtu),
    ]
}

/// The sample's packets, each with its time after the first in nanoseconds.
pub fn exchange() -> Result<Vec<(u64, Vec<u8>)>, BuildError> {
    let sm_info = mad(class::SUBN_DIRECTED_ROUTE, 0x01, 0x0020, 0x10, vec![0; 232]);
    let sm_info_resp = MadRepr {
        method: 0x81,
        class_specific: 0x0000,
        ..sm_info.clone()
    };
    let path = mad(class::SUBN_ADM, 0x01, 0x0035, 0x20, vec![0; 232]);
    let path_resp = MadRepr {
        method: 0x81,
        ..path.clone()
    };
    let [req, rep, rtu] = connect(0x30);
    let (client_id, server_id) = (0x1111_0001u32.to_be_bytes(), 0x2222_0002u32.to_be_bytes());
    let dreq = mad(
        class::CM,
        0x03,
        cm::DREQ,
        0x31,
        body(&[(0, &client_id), (4, &server_id), (8, &be24(SERVER_QP))]),
    );
    let drep = mad(
        class::CM,
        0x03,
        cm::DREP,
        0x31,
        body(&[(0, &server_id), (4, &client_id)]),
    );
    let counters = mad(class::PERF_MGMT, 0x01, 0x0012, 0x40, vec![0; 232]);
    let counters_resp = MadRepr {
        method: 0x81,
        ..counters.clone()
    };
    let send = rc(
        SpecOperation::Send,
        SERVER_QP,
        CLIENT_PSN,
        CLIENT_LID,
        SERVER_LID,
    )?;
    let ack = rc(
        SpecOperation::Ack,
        CLIENT_QP,
        CLIENT_PSN,
        SERVER_LID,
        CLIENT_LID,
    )?;
    let (c, s, sm) = (CLIENT_LID, SERVER_LID, SM_LID);
    Ok(vec![
        (0, mad_packet(&sm_info, sm, c)?),
        (4_000, mad_packet(&sm_info_resp, c, sm)?),
        (50_000, mad_packet(&path, c, sm)?),
        (58_000, mad_packet(&path_resp, sm, c)?),
        (100_000, mad_packet(&req, c, s)?),
        (112_000, mad_packet(&rep, s, c)?),
        (120_000, mad_packet(&rtu, c, s)?),
        (130_000, send),
        (132_000, ack),
        (200_000, mad_packet(&dreq, c, s)?),
        (206_000, mad_packet(&drep, s, c)?),
        (300_000, mad_packet(&counters, sm, c)?),
        (304_000, mad_packet(&counters_resp, c, sm)?),
        (400_000, ipoib_ping(c, s)?),
    ])
}

/// QPs of the two hosts' IPoIB interfaces, and the Q_Key of the broadcast group they join.
const IPOIB_QPS: (u32, u32) = (0x48, 0x49);
const IPOIB_Q_KEY: u32 = 0x0000_0b1b;

/// An IPoIB ping from `slid` to `dlid`: the 4-byte IPoIB header (EtherType IPv4, RFC 4391
/// §6) and an ICMP echo request from 10.0.0.`slid` to 10.0.0.`dlid`, as a UD SEND.
pub fn ipoib_ping(slid: u16, dlid: u16) -> Result<Vec<u8>, BuildError> {
    let spec = PacketSpec {
        operation: SpecOperation::UdSend,
        dest_qp: IPOIB_QPS.1,
        src_qp: IPOIB_QPS.0,
        q_key: IPOIB_Q_KEY,
        payload: Payload::Size(0),
        ..PacketSpec::default()
    };
    let mut repr = to_ib_repr(&spec, false)?;
    (repr.lrh.slid, repr.lrh.dlid) = (slid, dlid);
    let (src, dst) = (
        Ipv4Addr::new(10, 0, 0, slid as u8),
        Ipv4Addr::new(10, 0, 0, dlid as u8),
    );
    let icmp = [8, 0, 0xf7, 0xfe, 0, 1, 0, 0];
    let ip = Ipv4Repr {
        src_addr: src,
        dst_addr: dst,
        dscp: 0,
        ecn: 0,
        ttl: 64,
        ident: 1,
        dont_frag: false,
        protocol: 1,
        payload_len: icmp.len(),
    };
    let mut payload = vec![0x08, 0x00, 0, 0];
    payload.resize(payload.len() + ip.header_len(), 0);
    ip.emit(&mut payload[4..])?;
    payload.extend_from_slice(&icmp);
    repr.bth.pad_count = ((4 - payload.len() % 4) % 4) as u8;
    repr.payload = payload;
    Ok(repr.emit()?)
}

fn rc(op: SpecOperation, qp: u32, psn: u32, slid: u16, dlid: u16) -> Result<Vec<u8>, BuildError> {
    let payload = Payload::Size(if op == SpecOperation::Send { 64 } else { 0 });
    let spec = PacketSpec {
        operation: op,
        dest_qp: qp,
        psn,
        payload,
        ..PacketSpec::default()
    };
    let mut repr = to_ib_repr(&spec, false)?;
    (repr.lrh.slid, repr.lrh.dlid) = (slid, dlid);
    Ok(repr.emit()?)
}

/// The sample as the frames of an ibdump capture: ERF records on LINKTYPE_ERF.
pub fn frames() -> Result<Vec<CapturedFrame>, BuildError> {
    let frames = exchange()?.into_iter().map(|(t, packet)| {
        let data = emit_record(TYPE_INFINIBAND, START_NS + t, &packet);
        CapturedFrame {
            timestamp_ns: START_NS + t,
            orig_len: data.len() as u32,
            link_type: LinkType::Other(super::erf::LINKTYPE_ERF),
            data,
        }
    });
    Ok(frames.collect())
}

/// The sample as a pcap file, byte for byte what `ibdump` would write for it (the lab's
/// copy is `assets/samples/ib-sample.pcap`).
pub fn pcap() -> Result<Vec<u8>, String> {
    let frames = frames().map_err(|e| e.to_string())?;
    super::pcap::write_pcap(&frames).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::dissect;
    use crate::capture::pcap::read_capture;

    /// Every MAD of the sample, and a REJ and a LID-routed SMP besides, read back by
    /// `MadRepr::parse` as the MAD `MadRepr::emit` wrote.
    #[test]
    fn every_mad_class_and_cm_message_round_trips() {
        let mut rej = vec![0u8; 232];
        (rej[8], rej[9], rej[11]) = (0x40, 4 << 1, 28);
        let mut mads: Vec<MadRepr> = vec![
            mad(class::CM, 0x03, cm::REJ, 9, rej),
            mad(class::SUBN_LID_ROUTED, 0x01, 0x0011, 9, vec![7; 232]),
        ];
        mads.extend(connect(1));
        for (_, packet) in exchange().unwrap() {
            let d = dissect(&packet, crate::capture::pcap::LinkType::Infiniband);
            let Some(at) = d
                .layers
                .iter()
                .find(|l| l.name == "infiniband.mad")
                .map(|l| l.offset)
            else {
                continue;
            };
            let parsed = MadRepr::parse(&packet[at..at + crate::wire::mad::MAD_LEN]).unwrap();
            assert_eq!(parsed.emit(), packet[at..at + crate::wire::mad::MAD_LEN]);
            mads.push(parsed);
        }
        let classes: std::collections::BTreeSet<u8> = mads.iter().map(|m| m.mgmt_class).collect();
        assert_eq!(
            classes.into_iter().collect::<Vec<_>>(),
            [0x01, 0x03, 0x04, 0x07, 0x81]
        );
        for m in &mads {
            assert_eq!(&MadRepr::parse(&m.emit()).unwrap(), m, "{}", m.describe());
        }
        let cm: std::collections::BTreeSet<u16> = mads
            .iter()
            .filter(|m| m.mgmt_class == class::CM)
            .map(|m| m.attribute_id)
            .collect();
        assert_eq!(
            cm.into_iter().collect::<Vec<_>>(),
            [cm::REQ, cm::REJ, cm::REP, cm::RTU, cm::DREQ, cm::DREP]
        );
    }

    #[test]
    fn the_sample_reads_back_as_infiniband_with_each_mad_named() {
        let file = read_capture(&pcap().unwrap());
        assert!(file.error.is_none());
        let lines: Vec<String> = file
            .frames
            .iter()
            .map(|f| dissect(&f.data, f.link_type).summary)
            .collect();
        let named = [
            "SubnGet(SMInfo)",
            "SubnAdmGet(PathRecord)",
            "CM: ConnectRequest",
            "CM: ReadyToUse",
            "IPoIB 10.0.0.2 → 10.0.0.3",
        ];
        for name in named {
            assert!(
                lines.iter().any(|l| l.ends_with(name)),
                "{name} in {lines:?}"
            );
        }
        assert!(
            lines.iter().all(|l| !l.contains('[')),
            "no error or bad CRC: {lines:?}"
        );
    }
}
