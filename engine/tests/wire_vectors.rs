//! Cross-checks against frames built by an independent implementation (scapy's
//! `contrib.roce`) and decoded by another (tshark 4.0). The data and the script that
//! made it are in tests/data/wire/.

use engine::capture::dissect::dissect;
use engine::capture::listing::{summarize_frame, IcrcStatus};
use engine::capture::pcap::LinkType;
use engine::wire::roce::{locate, stored_icrc, FcsMode, IpRepr, RoceFrameRepr};
use serde_json::Value;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn vectors() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("data/wire/vectors.json")).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

#[test]
fn icrc_matches_scapy() {
    for v in vectors() {
        let frame = unhex(v["hex"].as_str().unwrap());
        let layout =
            locate(&frame, FcsMode::Absent).unwrap_or_else(|e| panic!("{}: {e}", v["name"]));
        assert_eq!(
            u64::from(stored_icrc(&frame, &layout)),
            v["icrc"].as_u64().unwrap(),
            "{}",
            v["name"]
        );
        assert_eq!(
            summarize_frame(&frame, LinkType::Ethernet).icrc,
            IcrcStatus::Valid,
            "{}: computed ICRC differs from scapy's",
            v["name"]
        );
    }
}

#[test]
fn field_values_match_generator() {
    for v in vectors() {
        let name = v["name"].as_str().unwrap();
        let frame = unhex(v["hex"].as_str().unwrap());
        let d = dissect(&frame, LinkType::Ethernet);
        assert!(d.error.is_none(), "{name}: {:?}", d.error);
        assert!(d.warnings.is_empty(), "{name}: {:?}", d.warnings);
        for (field, want) in v["fields"].as_object().unwrap() {
            let mut want = want.as_u64().unwrap();
            if field == "infiniband.invariant.crc" {
                // Wireshark shows the four trailer bytes read big-endian; the CRC
                // value itself goes on the wire least significant byte first.
                want = u64::from((want as u32).swap_bytes());
            }
            assert_eq!(d.uint(field), Some(want), "{name}: {field}");
        }
    }
}

#[test]
fn parse_then_emit_reproduces_scapy_bytes() {
    for v in vectors() {
        let name = v["name"].as_str().unwrap();
        let frame = unhex(v["hex"].as_str().unwrap());
        let r =
            RoceFrameRepr::parse(&frame, FcsMode::Absent).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.emit().unwrap(), frame, "{name}");
    }
}

#[test]
fn variant_fields_do_not_change_icrc() {
    // Vector 8 is vector 1 after a switch set ECN CE, decremented TTL and set FECN.
    let v = vectors();
    let parse = |i: usize| {
        let frame = unhex(v[i]["hex"].as_str().unwrap());
        // `parse` checks the ICRC: both frames carry a correct one.
        let r = RoceFrameRepr::parse(&frame, FcsMode::Absent).unwrap();
        let layout = locate(&frame, FcsMode::Absent).unwrap();
        let IpRepr::V4(ip) = r.ip else {
            panic!("vector {i} is IPv4")
        };
        (ip.ecn, r.bth.fecn, stored_icrc(&frame, &layout))
    };
    let (a, b) = (parse(0), parse(7));
    assert_eq!((a.0, b.0), (2, 3));
    assert!(b.1 && !a.1);
    assert_eq!(a.2, b.2);
}

#[test]
fn fields_match_tshark() {
    let t: Value = serde_json::from_str(include_str!("data/wire/tshark.json")).unwrap();
    let frames = t["frames"].as_array().unwrap();
    let vs = vectors();
    assert_eq!(frames.len(), vs.len());
    let mut compared = 0;
    for (fr, v) in frames.iter().zip(vs.iter()) {
        let d = dissect(&unhex(v["hex"].as_str().unwrap()), LinkType::Ethernet);
        for (field, want) in fr.as_object().unwrap() {
            assert_eq!(d.uint(field), want.as_u64(), "{}: {field}", v["name"]);
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} fields compared");
}
