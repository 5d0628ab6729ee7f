//! Every class of bad input yields a located error, never a panic.

use engine::capture::dissect::dissect;
use engine::capture::listing::{decode_capture, packet_row, summarize_frame, IcrcStatus};
use engine::capture::pcap::{read_capture, write_pcap, write_pcapng, CapturedFrame, LinkType};
use engine::capture::spec::{build, PacketSpec, SpecOperation};
use engine::wire::ib::IbFrameRepr;
use engine::wire::roce::{locate, FcsMode, RoceFrameRepr};
use engine::wire::{ErrorKind, FrameError, Header};

fn spec(op: SpecOperation) -> PacketSpec {
    PacketSpec {
        operation: op,
        payload: engine::capture::spec::Payload::Size(
            if matches!(op, SpecOperation::Send | SpecOperation::Write) {
                33
            } else {
                0
            },
        ),
        ..PacketSpec::default()
    }
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    f[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// The located error of the one walk over a RoCE v2 frame's headers, which the packet
/// list's fast path and `RoceFrameRepr::parse` start with.
fn walk_error(f: &[u8]) -> engine::wire::WireError {
    locate(f, FcsMode::Absent).unwrap_err()
}

/// Fixes the IPv4 header checksum after an edit (RFC 1071), for tests that want a
/// valid header with lying lengths.
fn fix_ipv4_checksum(f: &mut [u8]) {
    set16(f, 24, 0);
    let mut acc: u32 = f[14..34]
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], c[1]])))
        .sum();
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    set16(f, 24, !(acc as u16));
}

#[test]
fn reth_truncated_inside_consistent_lengths() {
    // READ request: Eth 14 + IPv4 20 + UDP 8 + BTH 12, so the RETH starts at byte 54.
    let mut f = build(&spec(SpecOperation::ReadRequest)).unwrap();
    let ip_len = u16::from_be_bytes([f[16], f[17]]) - 12;
    set16(&mut f, 16, ip_len);
    set16(&mut f, 38, ip_len - 20);
    fix_ipv4_checksum(&mut f);
    f.truncate(14 + usize::from(ip_len));
    let e = walk_error(&f);
    assert_eq!(e.header, Header::Reth);
    assert_eq!(e.offset, 54);
    assert_eq!(
        e.kind,
        ErrorKind::Truncated {
            needed: 16,
            available: 8
        }
    );
    let fe = FrameError {
        frame: 17,
        error: e,
    };
    assert_eq!(
        fe.to_string(),
        "frame 17: RETH truncated at byte 54: needs 16 bytes, 8 left"
    );
    let d = dissect(&f, LinkType::Ethernet);
    assert_eq!(d.error.as_ref().unwrap().header, Header::Reth);
    assert!(
        d.field("infiniband.bth.opcode").is_some(),
        "layers before the error are kept"
    );
}

#[test]
fn every_prefix_of_every_frame_is_an_error_not_a_panic() {
    for op in [
        SpecOperation::Send,
        SpecOperation::Write,
        SpecOperation::Ack,
        SpecOperation::Cnp,
        SpecOperation::UdSend,
        SpecOperation::CompareSwap,
    ] {
        let full = build(&spec(op)).unwrap();
        for cut in 0..full.len() {
            let f = &full[..cut];
            assert!(locate(f, FcsMode::Absent).is_err(), "{op:?} cut at {cut}");
            assert!(RoceFrameRepr::parse(f, FcsMode::Detect).is_err());
            let d = dissect(f, LinkType::Ethernet);
            assert!(d.error.is_some(), "{op:?} cut at {cut}");
            let _ = dissect(f, LinkType::Infiniband);
            let _ = IbFrameRepr::parse(f);
        }
    }
}

#[test]
fn ip_total_length_that_lies() {
    let mut f = build(&spec(SpecOperation::Send)).unwrap();
    let claimed = u16::from_be_bytes([f[16], f[17]]) + 100;
    set16(&mut f, 16, claimed);
    fix_ipv4_checksum(&mut f);
    let e = walk_error(&f);
    assert_eq!((e.header, e.offset), (Header::Ipv4, 14));
    assert!(matches!(
        e.kind,
        ErrorKind::LengthMismatch {
            field: "ip.len",
            ..
        }
    ));
}

#[test]
fn udp_length_that_lies() {
    let mut f = build(&spec(SpecOperation::Send)).unwrap();
    let claimed = u16::from_be_bytes([f[38], f[39]]) + 1;
    set16(&mut f, 38, claimed);
    let e = walk_error(&f);
    assert_eq!((e.header, e.offset), (Header::Udp, 34));
    assert!(matches!(
        e.kind,
        ErrorKind::LengthMismatch {
            field: "udp.length",
            ..
        }
    ));
}

#[test]
fn unknown_opcode() {
    let mut f = build(&spec(SpecOperation::Ack)).unwrap();
    f[42] = 0x15; // reserved on RC
    let e = walk_error(&f);
    assert_eq!(
        (e.header, e.offset, e.kind.clone()),
        (Header::Bth, 42, ErrorKind::UnknownOpcode { opcode: 0x15 })
    );
    let d = dissect(&f, LinkType::Ethernet);
    assert_eq!(
        d.uint("infiniband.bth.opcode"),
        Some(0x15),
        "the BTH is still shown"
    );
}

#[test]
fn bad_icrc_is_flagged_and_decoding_goes_on() {
    let mut f = build(&spec(SpecOperation::Write)).unwrap();
    let n = f.len();
    f[n - 10] ^= 0x01; // a payload byte
    let s = summarize_frame(&f, LinkType::Ethernet);
    assert_eq!(s.icrc, IcrcStatus::Invalid);
    let e = RoceFrameRepr::parse(&f, FcsMode::Absent).unwrap_err();
    assert_eq!((e.header, e.offset), (Header::Icrc, n - 4));
    let d = dissect(&f, LinkType::Ethernet);
    assert!(d.error.is_none());
    assert_eq!(d.warnings.len(), 1);
    assert_eq!(d.warnings[0].header, Header::Icrc);
    assert!(d.summary.contains("bad checksum"));
}

#[test]
fn bad_ipv4_checksum_is_flagged() {
    let mut f = build(&spec(SpecOperation::Send)).unwrap();
    f[24] ^= 0xFF;
    let d = dissect(&f, LinkType::Ethernet);
    assert!(d.warnings.iter().any(|w| w.header == Header::Ipv4));
    assert!(RoceFrameRepr::parse(&f, FcsMode::Absent).is_err());
    // The IPv4 checksum is a variant field of the ICRC, so the ICRC still holds.
    assert_eq!(
        summarize_frame(&f, LinkType::Ethernet).icrc,
        IcrcStatus::Valid
    );
}

#[test]
fn non_roce_frames_stop_cleanly() {
    // ARP.
    let mut arp = vec![0xFFu8; 6];
    arp.extend_from_slice(&[2, 0, 0, 0, 0, 1, 0x08, 0x06]);
    arp.extend_from_slice(&[0; 28]);
    let e = walk_error(&arp);
    assert!(matches!(
        e.kind,
        ErrorKind::NotRoce {
            reason: "EtherType",
            value: 0x0806
        }
    ));
    // UDP to port 53: Ethernet, IPv4 and UDP are still decoded.
    let mut f = build(&spec(SpecOperation::Send)).unwrap();
    set16(&mut f, 36, 53);
    let d = dissect(&f, LinkType::Ethernet);
    assert_eq!(
        d.layers.iter().map(|l| l.name).collect::<Vec<_>>(),
        ["eth", "ip", "udp"]
    );
    assert!(matches!(
        d.error.unwrap().kind,
        ErrorKind::NotRoce {
            reason: "destination port",
            value: 53
        }
    ));
    // TCP.
    let mut t = build(&spec(SpecOperation::Send)).unwrap();
    t[23] = 6;
    fix_ipv4_checksum(&mut t);
    assert!(matches!(
        walk_error(&t).kind,
        ErrorKind::NotRoce {
            reason: "IP protocol",
            value: 6
        }
    ));
}

#[test]
fn pad_count_larger_than_payload() {
    let mut f = build(&spec(SpecOperation::Ack)).unwrap();
    f[43] |= 0x30; // pad count 3 on a packet without payload
    let e = walk_error(&f);
    assert_eq!(e.header, Header::Bth);
}

/// xorshift64*: deterministic pseudo-random bytes for the fuzz-style tests.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn random_mutations_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let ops = [
        SpecOperation::Send,
        SpecOperation::Write,
        SpecOperation::ReadResponse,
        SpecOperation::Nak,
        SpecOperation::Cnp,
        SpecOperation::UdSend,
        SpecOperation::FetchAdd,
    ];
    let mut seeds: Vec<Vec<u8>> = ops.iter().map(|&o| build(&spec(o)).unwrap()).collect();
    seeds.push(
        build(&PacketSpec {
            src_ip: "fd00::1".parse().unwrap(),
            dst_ip: "fd00::2".parse().unwrap(),
            vlan: Some(Default::default()),
            ..spec(SpecOperation::Write)
        })
        .unwrap(),
    );
    for i in 0..20_000 {
        let mut f = seeds[i % seeds.len()].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(f.len());
            f[at] = rng.next() as u8;
        }
        if rng.below(4) == 0 {
            let cut = rng.below(f.len() + 1);
            f.truncate(cut);
        }
        let _ = summarize_frame(&f, LinkType::Ethernet);
        let _ = RoceFrameRepr::parse(&f, FcsMode::Detect);
        let _ = dissect(&f, LinkType::Ethernet);
        let _ = dissect(&f, LinkType::Infiniband);
        let _ = IbFrameRepr::parse(&f);
    }
    for _ in 0..5_000 {
        let len = rng.below(120);
        let f: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = summarize_frame(&f, LinkType::Ethernet);
        let _ = dissect(&f, LinkType::Ethernet);
        let _ = dissect(&f, LinkType::Infiniband);
    }
}

fn sample_frames() -> Vec<CapturedFrame> {
    [SpecOperation::Send, SpecOperation::Ack, SpecOperation::Cnp]
        .iter()
        .enumerate()
        .map(|(i, &op)| {
            let data = build(&spec(op)).unwrap();
            CapturedFrame {
                timestamp_ns: 1_700_000_000_123_456_789 + i as u64 * 1_001,
                orig_len: data.len() as u32,
                link_type: LinkType::Ethernet,
                data,
            }
        })
        .collect()
}

#[test]
fn corrupt_captures_keep_frames_read_so_far() {
    for bytes in [
        write_pcap(&sample_frames()).unwrap(),
        write_pcapng(&sample_frames()).unwrap(),
    ] {
        // Cut anywhere: the frames fully before the cut survive, and the error names
        // the next frame.
        for cut in 0..bytes.len() {
            let c = read_capture(&bytes[..cut]);
            if let Some(e) = &c.error {
                assert!(
                    e.frame == 0 || e.frame == c.frames.len() + 1,
                    "cut {cut}: {e}"
                );
                assert!(e.offset <= cut);
            }
            assert!(c.frames.len() <= 3);
        }
        // Random corruption never panics.
        let mut rng = Rng(42);
        for _ in 0..3_000 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(b.len());
                b[at] = rng.next() as u8;
            }
            let _ = read_capture(&b);
            let _ = decode_capture(&b);
        }
    }
    let c = read_capture(b"definitely not a capture");
    assert!(c.frames.is_empty() && c.error.unwrap().frame == 0);
}

#[test]
fn an_empty_file_is_named_as_empty_and_a_capture_without_packets_is_no_error() {
    let empty = read_capture(b"");
    let message = empty.error.expect("an empty file is refused").message;
    assert!(message.contains("empty"), "{message}");
    let none = read_capture(&write_pcap(&[]).unwrap());
    assert!(none.frames.is_empty());
    assert!(
        none.error.is_none(),
        "a capture of 0 packets is valid: {:?}",
        none.error
    );
}

#[test]
fn capture_decoding_continues_after_a_bad_frame() {
    let mut frames = sample_frames();
    frames[1].data.truncate(30);
    let file = read_capture(&write_pcap(&frames).unwrap());
    let rows: Vec<_> = file
        .frames
        .iter()
        .enumerate()
        .map(|(i, f)| packet_row(i + 1, f))
        .collect();
    assert!(rows[0].error.is_none() && rows[2].error.is_none());
    assert_eq!(rows[1].number, 2);
    let e = rows[1].error.as_deref().unwrap();
    assert!(e.starts_with("IPv4 truncated at byte 14"), "{e}");
}
