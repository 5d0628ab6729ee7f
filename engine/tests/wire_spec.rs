//! PacketSpec JSON → frame, and pcap/pcapng round trips.

use engine::capture::dissect::dissect;
use engine::capture::listing::{summarize_frame, IcrcStatus};
use engine::capture::pcap::{
    read_capture, write_pcap, write_pcapng, CaptureFormat, CapturedFrame, LinkType,
};
use engine::capture::spec::{build, PacketSpec, SpecOperation};
use engine::wire::ext::{NakCode, Syndrome};
use engine::wire::opcode::Opcode;
use engine::wire::roce::{FcsMode, IpRepr, RoceFrameRepr};

fn from_json(s: &str) -> PacketSpec {
    serde_json::from_str(s).unwrap()
}

/// The frame parsed back, lengths, checksums and ICRC checked.
fn parse(f: &[u8]) -> RoceFrameRepr {
    RoceFrameRepr::parse(f, FcsMode::Absent).unwrap()
}

fn dscp(r: &RoceFrameRepr) -> u8 {
    match r.ip {
        IpRepr::V4(ip) => ip.dscp,
        IpRepr::V6(ip) => ip.dscp,
    }
}

#[test]
fn minimal_json_builds_an_rc_send() {
    let f = build(&from_json("{}")).unwrap();
    let s = parse(&f);
    assert_eq!(s.bth.opcode, Opcode(0x04));
    assert_eq!(
        summarize_frame(&f, LinkType::Ethernet).icrc,
        IcrcStatus::Valid
    );
    let IpRepr::V4(ip) = s.ip else {
        panic!("the default spec is IPv4")
    };
    assert_eq!((ip.dscp, ip.ecn, s.bth.p_key), (26, 2, 0xFFFF));
}

#[test]
fn every_operation_builds_a_valid_frame() {
    let cases = [
        ("send", 0x04),
        ("send_with_immediate", 0x05),
        ("write", 0x0A),
        ("write_with_immediate", 0x0B),
        ("read_request", 0x0C),
        ("read_response", 0x10),
        ("compare_swap", 0x13),
        ("fetch_add", 0x14),
        ("ack", 0x11),
        ("nak", 0x11),
        ("rnr_nak", 0x11),
        ("cnp", 0x81),
        ("ud_send", 0x64),
    ];
    for (op, code) in cases {
        for ip in [
            r#""src_ip":"10.0.0.1","dst_ip":"10.0.0.2""#,
            r#""src_ip":"fd00::1","dst_ip":"fd00::2""#,
        ] {
            let payload = if [
                "send",
                "write",
                "read_response",
                "ud_send",
                "send_with_immediate",
                "write_with_immediate",
            ]
            .contains(&op)
            {
                r#","payload":"hi""#
            } else {
                ""
            };
            let spec = from_json(&format!(
                r#"{{"operation":"{op}",{ip}{payload},"vlan":{{"pcp":3,"dei":false,"vid":7}},"fcs":true}}"#
            ));
            let f = build(&spec).unwrap_or_else(|e| panic!("{op}: {e}"));
            let d = dissect(&f, LinkType::Ethernet);
            assert!(
                d.error.is_none() && d.warnings.is_empty(),
                "{op}: {:?} {:?}",
                d.error,
                d.warnings
            );
            assert_eq!(d.uint("infiniband.bth.opcode"), Some(code), "{op}");
            assert_eq!(d.uint("vlan.priority"), Some(3));
            assert!(
                d.field("eth.fcs").is_some(),
                "{op}: FCS detected and correct"
            );
            if ip.contains("fd00") {
                assert_ne!(d.uint("udp.checksum"), Some(0), "IPv6 needs a UDP checksum");
            } else {
                assert_eq!(
                    d.uint("udp.checksum"),
                    Some(0),
                    "RoCE v2 over IPv4 sends zero"
                );
            }
        }
    }
}

#[test]
fn spec_fields_reach_the_wire() {
    let f = build(&from_json(r#"{"operation":"nak","nak_code":"RemoteAccessError","msn":9,"psn":16777215,"dest_qp":1234}"#)).unwrap();
    let s = parse(&f);
    assert_eq!(
        s.ext.aeth.unwrap().syndrome,
        Syndrome::Nak(NakCode::RemoteAccessError)
    );
    assert_eq!(
        (s.ext.aeth.unwrap().msn, s.bth.psn.value(), s.bth.dest_qp.0),
        (9, 0xFF_FFFF, 1234)
    );
    let r = parse(&build(&from_json(r#"{"operation":"rnr_nak","rnr_timer":0}"#)).unwrap());
    assert_eq!(r.ext.aeth.unwrap().syndrome.to_byte(), 0x20);
    let c = parse(&build(&from_json(r#"{"operation":"cnp","dest_qp":77}"#)).unwrap());
    assert!(c.bth.becn && dscp(&c) == 48 && c.payload.is_empty() && c.bth.dest_qp.0 == 77);
    let w = parse(
        &build(&from_json(
            r#"{"operation":"write","payload":100,"r_key":305419896,"va":4096}"#,
        ))
        .unwrap(),
    );
    let reth = w.ext.reth.unwrap();
    assert_eq!(
        (reth.r_key, reth.va, reth.dma_len, w.payload.len()),
        (0x1234_5678, 4096, 100, 100)
    );
    let u = parse(
        &build(&from_json(
            r#"{"operation":"ud_send","q_key":2147549184,"src_qp":1}"#,
        ))
        .unwrap(),
    );
    assert_eq!(
        (u.ext.deth.unwrap().q_key, u.ext.deth.unwrap().src_qp),
        (0x8001_0000, 1)
    );
}

#[test]
fn bad_specs_are_refused() {
    let refused = |spec: &PacketSpec| {
        build(spec)
            .unwrap_err()
            .field_error()
            .map(|e| e.field.clone())
    };
    let mixed = from_json(r#"{"src_ip":"10.0.0.1","dst_ip":"fd00::2"}"#);
    assert_eq!(refused(&mixed).as_deref(), Some("src_ip/dst_ip"));
    let dscp = PacketSpec {
        dscp: Some(64),
        ..PacketSpec::default()
    };
    assert_eq!(refused(&dscp).as_deref(), Some("dscp"));
    let ack_with_payload = PacketSpec {
        operation: SpecOperation::Ack,
        payload: engine::capture::spec::Payload::Size(4),
        ..PacketSpec::default()
    };
    assert_eq!(refused(&ack_with_payload).as_deref(), Some("payload"));
    assert!(serde_json::from_str::<PacketSpec>(r#"{"src_mac":"zz:00:00:00:00:00"}"#).is_err());
}

#[test]
fn pcap_and_pcapng_round_trip_with_timestamps() {
    let frames: Vec<CapturedFrame> = ["send", "ack", "cnp", "write"]
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let data = build(&from_json(&format!(r#"{{"operation":"{op}","psn":{i}}}"#))).unwrap();
            CapturedFrame {
                timestamp_ns: 1_700_000_000_000_000_000 + i as u64 * 123_456_789,
                orig_len: data.len() as u32,
                link_type: LinkType::Ethernet,
                data,
            }
        })
        .collect();
    let p = read_capture(&write_pcap(&frames).unwrap());
    assert_eq!(
        (p.format, p.error.clone()),
        (Some(CaptureFormat::Pcap), None)
    );
    assert_eq!(p.frames, frames);
    let mut mixed = frames.clone();
    let ib = engine::wire::ib::IbFrameRepr::parse(&{
        let r = engine::wire::ib::IbFrameRepr {
            lrh: engine::wire::ib::LrhRepr {
                vl: 0,
                lver: 0,
                sl: 0,
                dlid: 1,
                slid: 2,
            },
            grh: None,
            bth: engine::wire::roce::RoceFrameRepr::parse(
                &frames[1].data,
                engine::wire::roce::FcsMode::Absent,
            )
            .unwrap()
            .bth,
            ext: engine::wire::roce::RoceFrameRepr::parse(
                &frames[1].data,
                engine::wire::roce::FcsMode::Absent,
            )
            .unwrap()
            .ext,
            payload: vec![],
        };
        r.emit().unwrap()
    })
    .unwrap()
    .emit()
    .unwrap();
    mixed.push(CapturedFrame {
        timestamp_ns: 5,
        orig_len: ib.len() as u32,
        link_type: LinkType::Infiniband,
        data: ib,
    });
    let n = read_capture(&write_pcapng(&mixed).unwrap());
    assert_eq!(
        (n.format, n.error.clone()),
        (Some(CaptureFormat::PcapNg), None)
    );
    assert_eq!(n.frames, mixed);
    assert!(
        write_pcap(&mixed).is_err(),
        "pcap has one link type per file"
    );
}
