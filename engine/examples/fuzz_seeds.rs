//! Writes the seed corpus of the fuzz targets (`fuzz/`): one frame per operation the
//! builder knows, over IPv4 and IPv6, with and without a VLAN tag; WRITE FIRST/MIDDLE/LAST;
//! truncated frames; and the sample capture as pcapng and pcap, whole and cut short.
//!
//! `cargo run -p engine --example fuzz_seeds`, then minimize with `cargo fuzz cmin`.

use engine::capture::pcap::{read_capture, write_pcap};
use engine::capture::spec::{build, to_repr, PacketSpec, Payload, SpecOperation};
use engine::wire::opcode::{Opcode, Operation, Transport};
use engine::wire::VlanRepr;
use std::net::{IpAddr, Ipv6Addr};
use std::path::Path;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).expect("the corpus folder is writable");
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let (frames_dir, capture_dir) = (root.join("dissect"), root.join("capture"));
    for d in [&frames_dir, &capture_dir] {
        std::fs::create_dir_all(d).expect("the corpus folder can be made");
    }
    let mut n = 0;
    for op in SpecOperation::ALL {
        for v6 in [false, true] {
            let mut s = PacketSpec {
                operation: op,
                psn: 77,
                vlan: v6.then_some(VlanRepr {
                    pcp: 3,
                    dei: false,
                    vid: 7,
                }),
                payload: Payload::Size(if op.carries_payload() { 9 } else { 0 }),
                ..PacketSpec::default()
            };
            if v6 {
                s.src_ip = IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1));
                s.dst_ip = IpAddr::V6(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 2));
            }
            let f = build(&s).expect("every operation builds");
            write(&frames_dir, &format!("seed-{n:03}-{op:?}"), &f);
            // A cut inside the transport headers, as a short capture would leave it.
            write(
                &frames_dir,
                &format!("seed-{n:03}-{op:?}-cut"),
                &f[..f.len() - 9],
            );
            n += 1;
        }
    }
    // WRITE FIRST (RETH), MIDDLE and LAST: the multi-packet message of IBTA §9.4.
    let spec = PacketSpec {
        operation: SpecOperation::Write,
        payload: Payload::Size(64),
        ..PacketSpec::default()
    };
    for (op, name) in [
        (Operation::WriteFirst, "write-first"),
        (Operation::WriteMiddle, "write-middle"),
        (Operation::WriteLast, "write-last"),
    ] {
        let mut r = to_repr(&spec).expect("a write builds");
        r.bth.opcode = Opcode::new(Transport::Rc, op).expect("an RC opcode");
        if op != Operation::WriteFirst {
            r.ext.reth = None;
        }
        let f = r.emit().expect("the frame emits");
        write(&frames_dir, &format!("seed-{name}"), &f);
    }
    let sample = engine::capture::sample::pcapng().expect("the sample builds");
    let pcap = write_pcap(&read_capture(&sample).frames).expect("pcap writes");
    for (name, file) in [("sample.pcapng", &sample), ("sample.pcap", &pcap)] {
        write(&capture_dir, &format!("seed-{name}"), file);
        write(
            &capture_dir,
            &format!("seed-{name}-cut"),
            &file[..file.len() * 2 / 3],
        );
        write(&capture_dir, &format!("seed-{name}-header"), &file[..40]);
    }
    println!("seeds written under {}", root.display());
}
