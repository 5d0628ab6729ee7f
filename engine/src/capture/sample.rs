//! The lab's sample capture: a short RC RDMA WRITE exchange seen at the responder, with
//! one lost packet answered by a NAK and a go-back-N retransmission, and one
//! congestion-marked packet answered by a CNP.
//!
//! Behaviour follows IBTA Vol 1 §9.7.5.2.2 (a responder that receives a PSN past the
//! expected one sends a NAK-sequence error carrying the expected PSN, and the requester
//! resends from there), and Annex A17 §A17.9 with Zhu et al., SIGCOMM 2015 §3.1 (a
//! receiver that sees ECN CE answers with a CNP addressed to the sender's QP).

use super::pcap::{CapturedFrame, LinkType};
use super::spec::{build, BuildError, PacketSpec, Payload, SpecOperation};
use crate::wire::ext::NakCode;
use core::net::{IpAddr, Ipv4Addr};

/// The requester's QP number (the responder's packets are addressed to it).
pub const REQUESTER_QP: u32 = 0x12;
/// The responder's QP number (the WRITEs are addressed to it).
pub const RESPONDER_QP: u32 = 0x11;
/// The PSN of the first WRITE.
pub const FIRST_PSN: u32 = 100;
/// 2024-01-01T00:00:00Z, so the sample shows a plausible date.
const START_NS: u64 = 1_704_067_200_000_000_000;

const REQUESTER: Ipv4Addr = Ipv4Addr::new(192, 168, 1, 1);
const RESPONDER: Ipv4Addr = Ipv4Addr::new(192, 168, 1, 2);

fn write(psn: u32, ecn: u8) -> PacketSpec {
    PacketSpec {
        operation: SpecOperation::Write,
        src_ip: IpAddr::V4(REQUESTER),
        dst_ip: IpAddr::V4(RESPONDER),
        dest_qp: RESPONDER_QP,
        psn,
        ecn: Some(ecn),
        va: 0x7f00_0000_0000 + u64::from(psn - FIRST_PSN) * 64,
        payload: Payload::Size(64),
        ..PacketSpec::default()
    }
}

fn response(operation: SpecOperation, psn: u32, msn: u32) -> PacketSpec {
    PacketSpec {
        operation,
        src_mac: PacketSpec::default().dst_mac,
        dst_mac: PacketSpec::default().src_mac,
        src_ip: IpAddr::V4(RESPONDER),
        dst_ip: IpAddr::V4(REQUESTER),
        dest_qp: REQUESTER_QP,
        psn,
        msn,
        nak_code: NakCode::PsnSequenceError,
        ..PacketSpec::default()
    }
}

/// The sample's packets with their send times in nanoseconds after the first.
pub fn exchange() -> Vec<(u64, PacketSpec)> {
    use SpecOperation::{Ack, Cnp, Nak};
    let p = FIRST_PSN;
    vec![
        (0, write(p, 2)),
        (2_000, response(Ack, p, 1)),
        // p + 1 is lost upstream: the next WRITE arrives out of order.
        (3_000, write(p + 2, 2)),
        (5_000, response(Nak, p + 1, 1)),
        (9_000, write(p + 1, 2)),
        (9_500, write(p + 2, 2)),
        (11_500, response(Ack, p + 2, 3)),
        // A switch queue marked this one Congestion Experienced.
        (12_000, write(p + 3, 3)),
        (13_000, response(Cnp, 0, 0)),
        (14_000, response(Ack, p + 3, 4)),
    ]
}

/// The sample as captured frames.
pub fn frames() -> Result<Vec<CapturedFrame>, BuildError> {
    exchange()
        .into_iter()
        .map(|(t, spec)| {
            let data = build(&spec)?;
            Ok(CapturedFrame {
                timestamp_ns: START_NS + t,
                orig_len: data.len() as u32,
                link_type: LinkType::Ethernet,
                data,
            })
        })
        .collect()
}

/// The sample as a pcapng file.
pub fn pcapng() -> Result<Vec<u8>, String> {
    let frames = frames().map_err(|e| e.to_string())?;
    super::pcap::write_pcapng(&frames).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::conversation::conversations_of;
    use crate::capture::listing::{decode_capture, PacketRole};

    #[test]
    fn the_sample_shows_a_nak_a_go_back_n_resend_and_a_cnp() {
        let file = pcapng().unwrap_or_default();
        let decoded = decode_capture(&file);
        assert!(decoded.error().is_none(), "{:?}", decoded.error());
        let summaries = &decoded.summaries;
        assert_eq!(summaries.len(), exchange().len());
        assert!(summaries.iter().all(|s| !s.problem));
        let convs = conversations_of(summaries, |i| decoded.frames[i].timestamp_ns);
        assert_eq!(convs.len(), 1);
        let c = &convs[0];
        assert_eq!(c.count(PacketRole::Nak), 1);
        assert_eq!(c.count(PacketRole::Cnp), 1);
        // Go-back-N resends both the lost PSN and the one after it.
        assert_eq!(c.count(PacketRole::Retransmission), 2);
        let nak = summaries.iter().find(|s| s.role == PacketRole::Nak);
        assert_eq!(
            nak.and_then(|s| s.psn),
            Some(FIRST_PSN + 1),
            "NAK names the expected PSN"
        );
        let cnp = summaries.iter().find(|s| s.role == PacketRole::Cnp);
        assert_eq!(cnp.and_then(|s| s.qpn), Some(REQUESTER_QP));
    }
}
