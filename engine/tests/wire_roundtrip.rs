//! emit → parse is the identity for every opcode in the table, over IPv4 and IPv6,
//! tagged and untagged, and for native InfiniBand with and without a GRH.

use core::net::{Ipv4Addr, Ipv6Addr};
use engine::capture::dissect::dissect;
use engine::capture::listing::{summarize_frame, IcrcStatus};
use engine::capture::pcap::LinkType;
use engine::wire::bth::{BthRepr, Psn, Qpn};
use engine::wire::ethernet::{EthernetRepr, MacAddr, VlanRepr};
use engine::wire::ext::*;
use engine::wire::ib::{GrhRepr, IbFrameRepr, LrhRepr};
use engine::wire::ipv4::Ipv4Repr;
use engine::wire::ipv6::Ipv6Repr;
use engine::wire::opcode::{Opcode, Transport};
use engine::wire::roce::{FcsMode, IpRepr, RoceFrameRepr};
use engine::wire::udp::UdpRepr;

fn ext_for(op: Opcode) -> ExtRepr {
    let h = op.info().unwrap().headers;
    ExtRepr {
        rdeth: h.rdeth.then_some(Rdeth {
            ee_context: 0xABCDEF,
        }),
        deth: h.deth.then_some(Deth {
            q_key: 0x8001_0000,
            src_qp: 0x123456,
        }),
        xrceth: h.xrceth.then_some(XrcEth { xrc_srq: 0x00BEEF }),
        reth: h.reth.then_some(Reth {
            va: 0x0123_4567_89AB_CDEF,
            r_key: 0xCAFEBABE,
            dma_len: 7,
        }),
        atomic_eth: h.atomic_eth.then_some(AtomicEth {
            va: 0x1000,
            r_key: 0x42,
            swap_add: u64::MAX - 1,
            compare: 5,
        }),
        aeth: h.aeth.then_some(Aeth {
            syndrome: Syndrome::RnrNak { timer: 14 },
            msn: 0xFFFFFF,
        }),
        atomic_ack_eth: h.atomic_ack_eth.then_some(AtomicAckEth {
            orig_remote_data: 0xDEAD_BEEF_0000_0001,
        }),
        immdt: h.immdt.then_some(ImmDt { data: 0x0BAD_F00D }),
        ieth: h.ieth.then_some(Ieth { r_key: 0x7777 }),
        cnp_padding: h.cnp_padding.then_some([0; CNP_PADDING_LEN]),
    }
}

fn bth_for(op: Opcode, payload: &[u8]) -> BthRepr {
    BthRepr {
        opcode: op,
        solicited_event: true,
        mig_req: true,
        pad_count: ((4 - payload.len() % 4) % 4) as u8,
        tver: 0,
        p_key: 0x8001,
        fecn: false,
        becn: op == Opcode::CNP,
        dest_qp: Qpn(0xFEDCBA),
        ack_req: true,
        psn: Psn::MAX,
    }
}

fn payload_for(op: Opcode) -> Vec<u8> {
    if op.info().unwrap().headers.payload {
        b"seven!!".to_vec()
    } else {
        Vec::new()
    }
}

#[test]
fn table_is_complete() {
    let count = |t: Transport| Opcode::all().filter(|o| o.transport() == Some(t)).count();
    // IBTA Vol 1 Table 38: RC has 23 operations, UC 12, RD 22, UD 2, XRC 23 (as RC).
    assert_eq!(count(Transport::Rc), 23);
    assert_eq!(count(Transport::Uc), 12);
    assert_eq!(count(Transport::Rd), 22);
    assert_eq!(count(Transport::Ud), 2);
    assert_eq!(count(Transport::Xrc), 23);
    assert_eq!(
        Opcode::all()
            .filter(|o| o.transport() == Some(Transport::Cnp))
            .collect::<Vec<_>>(),
        vec![Opcode(0x81)]
    );
    assert_eq!(
        Opcode(0x0B).name().unwrap(),
        "RC RDMA WRITE Only with Immediate"
    );
    assert_eq!(Opcode(0x0E).name().unwrap(), "RC RDMA READ Response Middle");
    assert_eq!(Opcode(0x16).name().unwrap(), "RC SEND Last with Invalidate");
    assert_eq!(Opcode(0x12).name().unwrap(), "RC ATOMIC Acknowledge");
    assert_eq!(Opcode(0x64).name().unwrap(), "UD SEND Only");
    assert!(Opcode(0x15).info().is_none(), "0x15 is reserved on RC");
    assert!(Opcode(0x2C).info().is_none(), "UC has no READ");
}

#[test]
fn header_sets_follow_the_spec() {
    let h = |b: u8| Opcode(b).info().unwrap().headers;
    assert!(
        h(0x0B).reth && h(0x0B).immdt,
        "WRITE Only with Immediate: RETH + ImmDt"
    );
    assert!(!h(0x07).reth, "WRITE Middle has no RETH");
    assert!(
        h(0x0E).payload && !h(0x0E).aeth,
        "READ Response Middle: no AETH"
    );
    assert!(h(0x12).aeth && h(0x12).atomic_ack_eth);
    assert!(
        h(0x46).rdeth && h(0x46).deth && h(0x46).reth,
        "RD WRITE First: RDETH DETH RETH"
    );
    assert!(
        h(0x4D).rdeth && !h(0x4D).deth,
        "RD READ Response First: RDETH AETH, no DETH"
    );
    assert!(
        h(0xA6).xrceth && h(0xA6).reth,
        "XRC WRITE First: XRCETH RETH"
    );
    assert!(!h(0xB1).xrceth, "XRC Acknowledge: no XRCETH");
    assert_eq!(h(0x81).len(), 16);
    assert_eq!(h(0x13).len(), 28);
}

fn roce_repr(op: Opcode, v6: bool, vlan: bool) -> RoceFrameRepr {
    let payload = payload_for(op);
    let ip = if v6 {
        IpRepr::V6(Ipv6Repr {
            src_addr: Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 1),
            dst_addr: Ipv6Addr::new(0xfd00, 0, 0, 0, 0, 0, 0, 2),
            dscp: 26,
            ecn: 2,
            flow_label: 0xABCDE,
            hop_limit: 64,
            next_header: 17,
            payload_len: 0,
        })
    } else {
        IpRepr::V4(Ipv4Repr {
            src_addr: Ipv4Addr::new(10, 0, 0, 1),
            dst_addr: Ipv4Addr::new(10, 0, 0, 2),
            dscp: 26,
            ecn: 2,
            ttl: 64,
            ident: 7,
            dont_frag: true,
            protocol: 17,
            payload_len: 0,
        })
    };
    RoceFrameRepr {
        ethernet: EthernetRepr {
            src_addr: MacAddr([2, 0, 0, 0, 0, 1]),
            dst_addr: MacAddr([2, 0, 0, 0, 0, 2]),
            vlan: vlan.then_some(VlanRepr {
                pcp: 3,
                dei: true,
                vid: 4095,
            }),
            ethertype: 0,
        },
        ip,
        udp: UdpRepr {
            src_port: 0xC123,
            dst_port: 4791,
            checksum: v6,
            payload_len: 0,
        },
        bth: bth_for(op, &payload),
        ext: ext_for(op),
        payload,
        fcs: vlan,
    }
}

#[test]
fn roce_emit_parse_identity_for_every_opcode() {
    let mut n = 0;
    for op in Opcode::all() {
        for v6 in [false, true] {
            for vlan in [false, true] {
                let r = roce_repr(op, v6, vlan);
                let bytes = r.emit().unwrap_or_else(|e| panic!("{op:?}: {e}"));
                let mode = if vlan {
                    FcsMode::Present
                } else {
                    FcsMode::Absent
                };
                let back = RoceFrameRepr::parse(&bytes, mode)
                    .unwrap_or_else(|e| panic!("{op:?} v6={v6}: {e}"));
                assert_eq!(back, r.clone().normalized(), "{op:?} v6={v6} vlan={vlan}");
                let s = summarize_frame(&bytes, LinkType::Ethernet);
                assert_eq!(s.icrc, IcrcStatus::Valid);
                assert_eq!(
                    (s.opcode, s.psn, s.qpn),
                    (Some(op.0), Some(0xFFFFFF), Some(0xFEDCBA))
                );
                let d = dissect(&bytes, LinkType::Ethernet);
                assert!(
                    d.error.is_none() && d.warnings.is_empty(),
                    "{op:?}: {:?} {:?}",
                    d.error,
                    d.warnings
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 83 * 4);
}

#[test]
fn ib_emit_parse_identity_for_every_opcode() {
    for op in Opcode::all() {
        for grh in [false, true] {
            let payload = payload_for(op);
            let r = IbFrameRepr {
                lrh: LrhRepr {
                    vl: 3,
                    lver: 0,
                    sl: 5,
                    dlid: 0x0012,
                    slid: 0x0034,
                },
                grh: grh.then_some(GrhRepr {
                    tclass: 0x6A,
                    flow_label: 0x12345,
                    hop_limit: 255,
                    sgid: Ipv6Addr::new(0xfe80, 0, 0, 0, 2, 0xc9ff, 0xfe00, 1),
                    dgid: Ipv6Addr::new(0xfe80, 0, 0, 0, 2, 0xc9ff, 0xfe00, 2),
                }),
                bth: bth_for(op, &payload),
                ext: ext_for(op),
                payload,
            };
            let bytes = r.emit().unwrap();
            assert_eq!(
                IbFrameRepr::parse(&bytes).unwrap_or_else(|e| panic!("{op:?}: {e}")),
                r
            );
            let d = dissect(&bytes, LinkType::Infiniband);
            assert!(
                d.error.is_none() && d.warnings.is_empty(),
                "{op:?}: {:?} {:?}",
                d.error,
                d.warnings
            );
            // PktLen counts LRH..ICRC in words; the VCRC is the last two bytes.
            assert_eq!(
                d.uint("infiniband.lrh.pktlen").unwrap() as usize * 4 + 2,
                bytes.len()
            );
        }
    }
}

#[test]
fn ib_variant_fields_do_not_change_icrc_but_change_vcrc() {
    let op = Opcode(0x04);
    let payload = b"abcd".to_vec();
    let mut r = IbFrameRepr {
        lrh: LrhRepr {
            vl: 0,
            lver: 0,
            sl: 0,
            dlid: 1,
            slid: 2,
        },
        grh: Some(GrhRepr {
            tclass: 0,
            flow_label: 0,
            hop_limit: 64,
            sgid: Ipv6Addr::LOCALHOST,
            dgid: Ipv6Addr::LOCALHOST,
        }),
        bth: bth_for(op, &payload),
        ext: ext_for(op),
        payload,
    };
    let a = r.emit().unwrap();
    r.lrh.vl = 7;
    r.grh.as_mut().unwrap().hop_limit = 3;
    r.grh.as_mut().unwrap().tclass = 0xFF;
    r.bth.fecn = true;
    let b = r.emit().unwrap();
    let n = a.len();
    assert_eq!(
        a[n - 6..n - 2],
        b[n - 6..n - 2],
        "ICRC must not cover variant fields"
    );
    assert_ne!(a[n - 2..], b[n - 2..], "VCRC covers them");
    // Changing an invariant field (SLID) changes the ICRC.
    r.lrh.slid = 3;
    let c = r.emit().unwrap();
    assert_ne!(a[n - 6..n - 2], c[n - 6..n - 2]);
}

/// Bit-serial CRC-16 written straight from the definition (IBTA Vol 1 §7.8.2):
/// polynomial 0x100B, register preset to ones, data bits fed least significant first,
/// remainder complemented and read out bit-reversed. Shares nothing with the
/// table-driven code under test.
fn vcrc_reference(data: &[u8]) -> u16 {
    let mut reg: u16 = 0xFFFF;
    for &byte in data {
        for i in 0..8 {
            let bit = (byte >> i) & 1;
            let top = (reg >> 15) as u8 & 1;
            reg <<= 1;
            if top ^ bit == 1 {
                reg ^= 0x100B;
            }
        }
    }
    (!reg).reverse_bits()
}

#[test]
fn vcrc_matches_bit_serial_definition() {
    let data: Vec<u8> = (0..300u32).map(|i| (i * 31 + 7) as u8).collect();
    for len in [0, 1, 2, 7, 64, 300] {
        assert_eq!(
            engine::wire::crc::vcrc(&data[..len]),
            vcrc_reference(&data[..len]),
            "len {len}"
        );
    }
}
