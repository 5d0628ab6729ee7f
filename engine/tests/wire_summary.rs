//! The packet list's fast path agrees with the dissector: for every frame the builder
//! makes, every single-byte corruption and every truncation of them, `summarize_frame`
//! says what `packet_row` says; the zero-copy frame index `decode_capture` keeps reads what
//! `read_capture` reads; and decoding the sample capture classifies and groups its frames as the
//! exchange it was built from says, with the dissector's addresses, QPNs and PSNs.

use engine::capture::conversation::{classify_summaries, conversations_of};
use engine::capture::dissect;
use engine::capture::listing::{
    decode_capture, packet_row, summarize_frame, summary_from, PacketRole,
};
use engine::capture::pcap::{read_capture, write_pcap, CapturedFrame, LinkType};
use engine::capture::spec::{build, PacketSpec, Payload, SpecOperation};
use engine::wire::VlanRepr;
use std::net::{IpAddr, Ipv6Addr};

fn frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for op in SpecOperation::ALL {
        for v6 in [false, true] {
            for (vlan, udp_checksum) in [(false, false), (true, true)] {
                let mut s = PacketSpec {
                    operation: op,
                    psn: 0x00AB_CDEF,
                    vlan: vlan.then_some(VlanRepr {
                        pcp: 3,
                        dei: false,
                        vid: 100,
                    }),
                    udp_checksum,
                    ..PacketSpec::default()
                };
                if op.carries_payload() {
                    s.payload = Payload::Size(13);
                }
                if v6 {
                    s.src_ip = IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1));
                    s.dst_ip = IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 2));
                }
                out.push(build(&s).expect("the spec builds"));
            }
        }
    }
    out
}

fn agree(data: &[u8], what: &str) -> bool {
    let fast = summarize_frame(data, LinkType::Ethernet);
    let slow = summary_from(&dissect(data, LinkType::Ethernet), data);
    assert_eq!(fast, slow, "{what}");
    let row = packet_row(
        1,
        &CapturedFrame {
            timestamp_ns: 0,
            orig_len: data.len() as u32,
            link_type: LinkType::Ethernet,
            data: data.to_vec(),
        },
    );
    assert_eq!(fast.source.to_string(), row.source, "{what}");
    assert_eq!(fast.destination.to_string(), row.destination, "{what}");
    fast.problem
}

#[test]
fn fast_summaries_agree_with_the_dissector_on_built_frames_and_every_corruption() {
    for (i, f) in frames().iter().enumerate() {
        assert!(!agree(f, &format!("frame {i}")), "frame {i} is clean");
        for at in 0..f.len() {
            let mut bad = f.clone();
            bad[at] ^= 0x5A;
            agree(&bad, &format!("frame {i}, byte {at} flipped"));
        }
        for len in 0..f.len() {
            agree(&f[..len], &format!("frame {i} cut to {len} bytes"));
        }
        let mut long = f.clone();
        long.extend_from_slice(&[0, 1, 2, 3, 4, 5]);
        agree(&long, &format!("frame {i} with a trailer"));
    }
}

#[test]
fn other_link_types_summarize_like_rows() {
    let f = frames().remove(0);
    for link in [LinkType::Infiniband, LinkType::Other(105)] {
        let s = summarize_frame(&f, link);
        assert_eq!(s, summary_from(&dissect(&f, link), &f));
    }
}

#[test]
fn the_index_reads_what_read_capture_reads() {
    let sample = engine::capture::sample::pcapng().expect("the sample builds");
    let frames = read_capture(&sample).frames;
    let pcap = write_pcap(&frames).expect("pcap writes");
    for file in [sample.clone(), pcap] {
        for cut in [file.len(), file.len() - 7, file.len() / 2, 30, 3] {
            let bytes = &file[..cut];
            let read = read_capture(bytes);
            let decoded = decode_capture(bytes);
            assert_eq!(read.error.as_ref(), decoded.error(), "cut at {cut}");
            assert_eq!(read.frames.len(), decoded.frames.len());
            for (r, i) in read.frames.iter().zip(&decoded.frames) {
                assert_eq!(
                    (r.timestamp_ns, r.orig_len, r.link_type, &r.data[..]),
                    (i.timestamp_ns, i.orig_len, i.link_type, i.data(bytes))
                );
            }
        }
    }
}

#[test]
fn decoding_a_capture_classifies_and_groups_its_frames() {
    use engine::capture::sample::{exchange, FIRST_PSN, REQUESTER_QP, RESPONDER_QP};
    let sample = engine::capture::sample::pcapng().expect("the sample builds");
    let file = read_capture(&sample);
    let rows: Vec<_> = file
        .frames
        .iter()
        .enumerate()
        .map(|(i, f)| packet_row(i + 1, f))
        .collect();
    let decoded = decode_capture(&sample);
    assert!(decoded.is_finished() && decoded.error().is_none());
    assert_eq!(decoded.summaries.len(), exchange().len());
    // The exchange `engine::capture::sample` builds: a WRITE lost after the first, a NAK,
    // and a go-back-N resend of it and the one after it; then a CNP.
    use PacketRole as R;
    let roles: Vec<PacketRole> = decoded.summaries.iter().map(|s| s.role).collect();
    assert_eq!(
        roles,
        [
            R::Request,
            R::Response,
            R::Request,
            R::Nak,
            R::Retransmission,
            R::Retransmission,
            R::Response,
            R::Request,
            R::Cnp,
            R::Response
        ]
    );
    for (s, r) in decoded.summaries.iter().zip(&rows) {
        assert_eq!(s.problem, r.has_error(), "frame {}", r.number);
    }
    assert_eq!(decoded.summaries[3].psn, Some(FIRST_PSN + 1));

    // One conversation, both directions, each frame a point with the dissector's fields.
    let times = |i: usize| decoded.frames[i].timestamp_ns;
    let convs = conversations_of(&decoded.summaries, times);
    assert_eq!(convs.len(), 1);
    let c = &convs[0];
    assert_eq!((&c.a[..], &c.b[..]), ("192.168.1.1", "192.168.1.2"));
    assert_eq!(c.qpns, [RESPONDER_QP, REQUESTER_QP]);
    let frames: Vec<usize> = c.points.iter().map(|p| p.frame).collect();
    assert_eq!(frames, (1..=rows.len()).collect::<Vec<_>>());
    for p in &c.points {
        let r = &rows[p.frame - 1];
        assert_eq!(p.time_ns, r.time_ns, "frame {}", p.frame);
        assert_eq!(
            (Some(p.qpn), Some(p.psn)),
            (r.qpn, r.psn),
            "frame {}",
            p.frame
        );
        assert_eq!(p.role, roles[p.frame - 1], "frame {}", p.frame);
        let (from, to) = if p.from_a { (&c.a, &c.b) } else { (&c.b, &c.a) };
        assert_eq!((from, to), (&r.source, &r.destination), "frame {}", p.frame);
    }

    let mut again = decoded.summaries.clone();
    classify_summaries(&mut again);
    assert_eq!(
        again, decoded.summaries,
        "classifying twice changes nothing"
    );
}

#[test]
fn a_capture_decoded_as_it_arrives_matches_one_decoded_whole() {
    use engine::capture::listing::CaptureDecoder;
    let sample = engine::capture::sample::pcapng().expect("the sample builds");
    let pcap = write_pcap(&read_capture(&sample).frames).expect("pcap writes");
    for file in [sample, pcap] {
        let whole = decode_capture(&file);
        for part in [1, 7, 50, 333] {
            let mut d = CaptureDecoder::new(&file[..part.min(file.len()).max(40)]);
            d.expect_len(file.len());
            let mut have = 40.min(file.len());
            loop {
                let complete = have == file.len();
                while d.step_of(&file[..have], complete, 3) {}
                if complete {
                    break;
                }
                have = (have + part).min(file.len());
            }
            assert!(d.is_finished() && d.error().is_none(), "part {part}");
            assert_eq!(d.summaries, whole.summaries, "part {part}");
            assert_eq!(d.frames, whole.frames, "part {part}");
        }
        // A file cut short still ends in the located error, once complete.
        let cut = &file[..file.len() - 5];
        let mut d = CaptureDecoder::new(&cut[..40]);
        while d.step_of(&cut[..40], false, 100) {}
        assert!(d.error().is_none() && !d.is_finished());
        while d.step_of(cut, true, 100) {}
        assert!(d.is_finished());
        assert_eq!(d.error(), decode_capture(cut).error());
    }
}
