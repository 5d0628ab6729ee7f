//! Segmentation and per-packet cost.

use engine::capture::segment::*;
use engine::wire::bth::Psn;
use engine::wire::opcode::{Operation, Transport};

fn psn(value: u32) -> Psn {
    Psn::new(value).unwrap()
}

fn ops(p: &[PacketPlan]) -> Vec<Operation> {
    p.iter().map(|x| x.opcode.operation().unwrap()).collect()
}

#[test]
fn send_first_middle_last_with_consecutive_psns() {
    use Operation::*;
    let p = segment(
        Transport::Rc,
        MessageKind::Send,
        3 * 1024 + 1,
        1024,
        psn(10),
    )
    .unwrap();
    assert_eq!(ops(&p), [SendFirst, SendMiddle, SendMiddle, SendLast]);
    assert_eq!(
        p.iter().map(|x| x.psn.value()).collect::<Vec<_>>(),
        [10, 11, 12, 13]
    );
    assert_eq!(
        p.iter().map(|x| x.payload_len).collect::<Vec<_>>(),
        [1024, 1024, 1024, 1]
    );
    assert_eq!(p[3].pad, 3);
    assert_eq!(
        p.iter().map(|x| x.payload_len as u64).sum::<u64>(),
        3 * 1024 + 1
    );
}

#[test]
fn only_packets() {
    assert_eq!(
        ops(&segment(Transport::Rc, MessageKind::Send, 0, 256, psn(0)).unwrap()),
        [Operation::SendOnly]
    );
    assert_eq!(
        ops(&segment(Transport::Rc, MessageKind::Send, 4096, 4096, psn(0)).unwrap()),
        [Operation::SendOnly]
    );
    assert_eq!(
        ops(&segment(Transport::Rc, MessageKind::Send, 4097, 4096, psn(0)).unwrap()),
        [Operation::SendFirst, Operation::SendLast]
    );
    assert_eq!(
        ops(&segment(Transport::Ud, MessageKind::Send, 100, 4096, psn(0)).unwrap()),
        [Operation::SendOnly]
    );
}

#[test]
fn psn_wraps_at_2_pow_24() {
    let p = segment(
        Transport::Rc,
        MessageKind::Write,
        4 * 256,
        256,
        psn(0xFF_FFFE),
    )
    .unwrap();
    assert_eq!(
        p.iter().map(|x| x.psn.value()).collect::<Vec<_>>(),
        [0xFF_FFFE, 0xFF_FFFF, 0, 1]
    );
    assert_eq!(psn(0xFF_FFFF).offset_to(psn(1)), 2);
    assert_eq!(psn(1).offset_to(psn(0xFF_FFFF)), -2);
}

#[test]
fn write_reth_first_immediate_last() {
    let p = segment(
        Transport::Rc,
        MessageKind::WriteWithImmediate,
        3000,
        1024,
        psn(0),
    )
    .unwrap();
    assert_eq!(
        p.iter().map(|x| x.headers.reth).collect::<Vec<_>>(),
        [true, false, false]
    );
    assert_eq!(
        p.iter().map(|x| x.headers.immdt).collect::<Vec<_>>(),
        [false, false, true]
    );
    let one = segment(
        Transport::Rc,
        MessageKind::WriteWithImmediate,
        10,
        1024,
        psn(0),
    )
    .unwrap();
    assert!(one[0].headers.reth && one[0].headers.immdt);
}

#[test]
fn read_response_aeth_on_first_last_only() {
    let p = segment(
        Transport::Rc,
        MessageKind::ReadResponse,
        3 * 512,
        512,
        psn(5),
    )
    .unwrap();
    assert_eq!(
        p.iter().map(|x| x.headers.aeth).collect::<Vec<_>>(),
        [true, false, true]
    );
    assert_eq!(p[0].psn, psn(5));
}

#[test]
fn refusals() {
    assert_eq!(
        segment(Transport::Rc, MessageKind::Send, 10, 1500, psn(0)),
        Err(SegmentError::BadMtu(1500))
    );
    assert!(matches!(
        segment(Transport::Ud, MessageKind::Send, 5000, 4096, psn(0)),
        Err(SegmentError::Unsupported { .. })
    ));
    assert!(matches!(
        segment(Transport::Uc, MessageKind::ReadResponse, 10, 4096, psn(0)),
        Err(SegmentError::Unsupported { .. })
    ));
    assert!(matches!(
        segment(
            Transport::Rc,
            MessageKind::Send,
            (1 << 31) + 1,
            4096,
            psn(0)
        ),
        Err(SegmentError::TooLong(_))
    ));
}

#[test]
fn roce_packet_cost_counts_every_byte() {
    // Full 4096-byte SEND Middle over IPv4, no tag: Eth 14, IPv4 20, UDP 8, BTH 12,
    // ICRC 4, FCS 4 in the frame; preamble+SFD 8 and IFG 12 around it.
    let c = packet_cost(
        Framing::RoceV2 {
            ipv6: false,
            vlan: false,
        },
        0,
        4096,
    );
    assert_eq!(c.frame, 4096 + 14 + 20 + 8 + 12 + 4 + 4);
    assert_eq!(c.wire, c.frame + 20);
    assert_eq!(c.overhead(), 82);
    let v6 = packet_cost(
        Framing::RoceV2 {
            ipv6: true,
            vlan: true,
        },
        16,
        1024,
    );
    assert_eq!(v6.overhead() - c.overhead(), 20 + 4 + 16);
    // A bare ACK is shorter than Ethernet's 64-byte minimum and gets padded.
    assert_eq!(
        packet_cost(
            Framing::RoceV2 {
                ipv6: false,
                vlan: false
            },
            0,
            0
        )
        .frame,
        64
    );
}

#[test]
fn ib_packet_cost() {
    let c = packet_cost(Framing::Infiniband { grh: false }, 0, 4096);
    assert_eq!(c.overhead(), 8 + 12 + 4 + 2);
    assert_eq!(
        packet_cost(Framing::Infiniband { grh: true }, 0, 4096).overhead(),
        8 + 40 + 12 + 4 + 2
    );
}

#[test]
fn goodput_grows_with_mtu_and_stays_below_link_rate() {
    for framing in [
        Framing::RoceV2 {
            ipv6: false,
            vlan: true,
        },
        Framing::Infiniband { grh: false },
    ] {
        let t = mtu_overhead_table(framing, 100.0);
        assert_eq!(t.len(), 5);
        for w in t.windows(2) {
            assert!(w[1].goodput_gbps > w[0].goodput_gbps);
            assert!(w[1].packets_per_second < w[0].packets_per_second);
        }
        assert!(t
            .iter()
            .all(|r| r.goodput_gbps < 100.0 && r.efficiency > 0.5));
    }
    let m = message_cost(
        Framing::RoceV2 {
            ipv6: false,
            vlan: false,
        },
        Transport::Rc,
        MessageKind::Write,
        1 << 20,
        4096,
        100.0,
    )
    .unwrap();
    assert_eq!(m.packets, 256);
    // First packet adds a 16-byte RETH to 256 packets of 82 bytes overhead each.
    assert_eq!(m.wire_bytes, (1 << 20) + 256 * 82 + 16);
}
