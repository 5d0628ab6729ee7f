//! Captures as `ibdump` writes them: pcap and pcapng with LINKTYPE_ERF (197), one ERF
//! record of type 21 per InfiniBand packet.

use engine::capture::erf::{emit_record, LINKTYPE_ERF, TYPE_INFINIBAND, TYPE_INFINIBAND_LINK};
use engine::capture::pcap::{read_capture, write_pcap, write_pcapng, CapturedFrame, LinkType};
use engine::capture::spec::{build, build_ib, PacketSpec, SpecOperation};
use engine::capture::{dissect, listing};
use engine::wire::Header;

fn ib_packets() -> Vec<Vec<u8>> {
    let ops = [
        SpecOperation::Send,
        SpecOperation::Write,
        SpecOperation::Ack,
    ];
    let mut packets: Vec<Vec<u8>> = ops
        .iter()
        .map(|&operation| {
            let spec = PacketSpec {
                operation,
                ..PacketSpec::default()
            };
            build_ib(&spec, false).expect("builds")
        })
        .collect();
    packets.push(build_ib(&PacketSpec::default(), true).expect("with a GRH"));
    packets
}

fn erf_frames(records: &[Vec<u8>]) -> Vec<CapturedFrame> {
    let frames = records.iter().enumerate().map(|(i, r)| CapturedFrame {
        timestamp_ns: 1_000 * i as u64,
        orig_len: r.len() as u32,
        link_type: LinkType::Other(LINKTYPE_ERF),
        data: r.clone(),
    });
    frames.collect()
}

fn ib_records() -> Vec<Vec<u8>> {
    let packets = ib_packets();
    let records = packets.iter().map(|p| emit_record(TYPE_INFINIBAND, 0, p));
    records.collect()
}

#[test]
fn an_erf_pcap_and_pcapng_read_as_infiniband_packets_with_both_crcs_checked() {
    let frames = erf_frames(&ib_records());
    for file in [write_pcap(&frames), write_pcapng(&frames)] {
        let file = file.expect("writes");
        let read = read_capture(&file);
        assert!(read.error.is_none(), "{:?}", read.error);
        assert_eq!(read.frames.len(), 4);
        for (frame, packet) in read.frames.iter().zip(ib_packets()) {
            assert_eq!(frame.link_type, LinkType::Infiniband);
            assert_eq!(frame.data, packet, "the record's packet, no ERF header");
            assert_eq!(frame.orig_len as usize, packet.len());
            let d = dissect(&frame.data, frame.link_type);
            assert!(d.error.is_none() && d.warnings.is_empty(), "{d:?}");
            let verdict = |name| d.field(name).map(|f| f.meaning.to_string());
            assert!(verdict("infiniband.invariant.crc").is_some_and(|m| m.starts_with("correct")));
            assert!(verdict("infiniband.variant.crc").is_some_and(|m| m.starts_with("correct")));
        }
    }
}

#[test]
fn a_bad_vcrc_and_a_bad_icrc_are_each_named() {
    let mut packet = ib_packets().remove(0);
    let n = packet.len();
    packet[n - 1] ^= 0xFF;
    let d = dissect(&packet, LinkType::Infiniband);
    let bad: Vec<Header> = d.warnings.iter().map(|w| w.header).collect();
    assert_eq!(bad, [Header::Vcrc]);
    packet[n - 1] ^= 0xFF;
    packet[n - 3] ^= 0xFF;
    let d = dissect(&packet, LinkType::Infiniband);
    let bad: Vec<Header> = d.warnings.iter().map(|w| w.header).collect();
    // The ICRC's bytes are inside the VCRC's coverage: both fail, each said.
    assert_eq!(bad, [Header::Icrc, Header::Vcrc]);
    let row = listing::row_from(1, 0, &d);
    assert_eq!(row.icrc, listing::IcrcStatus::Invalid);
}

#[test]
fn a_cut_erf_record_and_a_wrong_rlen_are_refused_with_frame_and_byte() {
    let mut records = ib_records();
    records[1].truncate(12);
    let file = write_pcap(&erf_frames(&records)).expect("writes");
    let read = read_capture(&file);
    assert_eq!(
        read.frames.len(),
        1,
        "the frame before the bad record is kept"
    );
    let e = read.error.expect("refused");
    assert_eq!(e.frame, 2);
    assert!(e.message.contains("ERF header takes 16 bytes"), "{e}");

    let mut records = ib_records();
    records[2][10..12].copy_from_slice(&4000u16.to_be_bytes());
    let file = write_pcap(&erf_frames(&records)).expect("writes");
    let read = read_capture(&file);
    let e = read.error.expect("refused");
    assert_eq!((e.frame, read.frames.len()), (3, 2));
    // pcap: 24-byte file header, then a 16-byte record header before each record.
    let third = 24 + 16 + records[0].len() + 16 + records[1].len() + 16;
    assert_eq!(e.offset, third + 10, "{e}: at the rlen field");
    assert!(e.message.contains("rlen says 4000"), "{e}");
}

#[test]
fn ethernet_records_read_as_ethernet_and_other_types_are_named() {
    let roce = build(&PacketSpec::default()).expect("builds");
    let link = emit_record(TYPE_INFINIBAND_LINK, 0, &[0x10, 0, 0, 0, 0, 0]);
    let records = vec![emit_record(2, 0, &roce), link];
    let read = read_capture(&write_pcap(&erf_frames(&records)).expect("writes"));
    assert!(read.error.is_none(), "{:?}", read.error);
    assert_eq!(read.frames[0].link_type, LinkType::Ethernet);
    assert_eq!(read.frames[0].data, roce);
    let other = &read.frames[1];
    assert_eq!(other.link_type, LinkType::Other(LINKTYPE_ERF));
    let d = dissect(&other.data, other.link_type);
    let e = d.error.expect("not read").to_string();
    assert!(e.contains("InfiniBand link record"), "{e}");
}

/// The ICRC and VCRC the engine wrote into the InfiniBand sample equal those an
/// independent implementation computes from IBTA Vol 1 §7.8 (`data/wire/gen_ib_crcs.py`:
/// Python's zlib CRC-32 and a bitwise CRC-16), and the dissector calls both correct.
#[test]
fn the_samples_crcs_match_an_independent_implementation() {
    let v: serde_json::Value =
        serde_json::from_str(include_str!("data/wire/ib_crcs.json")).expect("JSON");
    let want = v["frames"].as_array().expect("frames");
    let file = read_capture(&engine::capture::ib_sample::pcap().expect("builds"));
    // A changed sample needs `python3 engine/tests/data/wire/gen_ib_crcs.py` run again.
    assert_eq!(file.frames.len(), want.len(), "ib_crcs.json is stale");
    for (frame, w) in file.frames.iter().zip(want) {
        let d = &frame.data;
        let n = d.len();
        let icrc = u32::from_le_bytes([d[n - 6], d[n - 5], d[n - 4], d[n - 3]]);
        let vcrc = u16::from_le_bytes([d[n - 2], d[n - 1]]);
        assert_eq!(
            u64::from(icrc),
            w["icrc"].as_u64().unwrap(),
            "frame {}",
            w["frame"]
        );
        assert_eq!(
            u64::from(vcrc),
            w["vcrc"].as_u64().unwrap(),
            "frame {}",
            w["frame"]
        );
        let dissected = dissect(d, frame.link_type);
        assert!(
            dissected.warnings.is_empty(),
            "frame {}: {:?}",
            w["frame"],
            dissected.warnings
        );
    }
}
