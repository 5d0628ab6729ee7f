//! `native-probe decode` on an ibdump-style capture (pcap, LINKTYPE_ERF, record type 21):
//! the lab's InfiniBand sample (a subnet's SMP, SA, CM and performance MADs around one RC
//! SEND), then a REJ, a LID-routed SMP, an SA table query and RC packets with a GRH. Where tshark is installed, every LRH, BTH, DETH and MAD field tshark shows
//! must be one the probe gives, with the same value, and the Info column must name each
//! MAD as tshark does.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use engine::capture::erf::{emit_record, LINKTYPE_ERF, TYPE_INFINIBAND};
use engine::capture::ib_sample;
use engine::capture::pcap::{write_pcap, CapturedFrame, LinkType};
use engine::capture::spec::{build_ib, PacketSpec, SpecOperation};
use engine::wire::mad::{class, cm, MadRepr};
use lab_tests::cli::Cli;
use serde_json::Value;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

/// The field families compared with tshark: the routing and transport headers and
/// every MAD layout the lab decodes.
const COMPARED: [&str; 10] = [
    "infiniband.lrh.",
    "infiniband.bth.",
    "infiniband.deth.",
    "infiniband.mad.",
    "infiniband.smpdirected.",
    "infiniband.smplid.",
    "infiniband.rmpp.",
    "infiniband.sa.",
    "infiniband.cm.",
    "infiniband.rwh.",
];

/// The IP header inside an IPoIB packet: the fields both decoders name alike.
/// (Not `ip.hdr_len`: the lab gives the header's own count of 4-byte words, Wireshark bytes.)
const IP_FIELDS: [&str; 8] = [
    "ip.version",
    "ip.len",
    "ip.id",
    "ip.ttl",
    "ip.proto",
    "ip.checksum",
    "ip.src",
    "ip.dst",
];

/// Names tshark gives to whole layers rather than fields (the lab lists these as layers):
/// the SA record's bytes, the IP CM header's, and the 232 bytes after a CM message's
/// header, which tshark 4.0 labels as SMP data.
const NOT_FIELDS: [&str; 3] = [
    "infiniband.sa.drdlid",
    "infiniband.cm.req.ip_cm",
    "infiniband.smplid.smpdata",
];

/// What the sample does not show: a REJ, a LID-routed SMP, a PathRecord table query,
/// and RC packets with a GRH, each in its ERF record.
fn more_frames() -> Vec<CapturedFrame> {
    let mad = |mgmt_class, method, attribute_id, data: Vec<u8>| MadRepr {
        base_version: 1,
        mgmt_class,
        class_version: 2,
        method,
        status: 0,
        class_specific: 0,
        transaction_id: 0x77,
        attribute_id,
        attribute_modifier: 3,
        data,
    };
    let mut rej = vec![0u8; 232];
    rej[..8].copy_from_slice(&[0, 0, 0, 9, 0x11, 0x11, 0, 1]);
    // REQ rejected (0b00), 4 bytes of reject info, reason 28: consumer reject.
    (rej[8], rej[9], rej[10], rej[11]) = (0x00, 4 << 1, 0, 28);
    let mads = [
        mad(class::CM, 0x03, cm::REJ, rej),
        mad(class::SUBN_LID_ROUTED, 0x01, 0x0011, vec![0x5A; 232]),
        mad(class::SUBN_ADM, 0x12, 0x0035, vec![0; 232]),
    ];
    let mut packets: Vec<Vec<u8>> = mads
        .iter()
        .map(|m| ib_sample::mad_packet(m, 4, 5).unwrap())
        .collect();
    for operation in [
        SpecOperation::Write,
        SpecOperation::ReadRequest,
        SpecOperation::Ack,
    ] {
        let spec = PacketSpec {
            operation,
            ..PacketSpec::default()
        };
        packets.push(build_ib(&spec, true).unwrap());
    }
    let frames = packets.iter().map(|p| {
        let data = emit_record(TYPE_INFINIBAND, 0, p);
        let orig_len = data.len() as u32;
        CapturedFrame {
            timestamp_ns: 0,
            orig_len,
            link_type: LinkType::Other(LINKTYPE_ERF),
            data,
        }
    });
    frames.collect()
}

fn sample_capture(dir: &Path) -> std::path::PathBuf {
    let mut frames = ib_sample::frames().expect("the sample builds");
    frames.extend(more_frames());
    let file = dir.join("ib-sample.pcap");
    std::fs::write(&file, write_pcap(&frames).expect("writes")).unwrap();
    file
}

fn decode_json(file: &Path) -> Vec<Value> {
    let run = Cli::new(PROBE).run([OsStr::new("decode"), file.as_os_str(), OsStr::new("--json")]);
    assert!(run.status.success(), "{}", run.stderr);
    run.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

#[test]
fn every_frame_of_an_ibdump_capture_decodes_with_both_crc_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let frames = decode_json(&sample_capture(dir.path()));
    assert_eq!(frames.len(), 20);
    for f in &frames {
        assert_eq!(f["error"], Value::Null, "{f}");
        assert_eq!(
            (&f["icrc_ok"], &f["vcrc_ok"]),
            (&Value::Bool(true), &Value::Bool(true)),
            "{f}"
        );
    }
    let req = &frames[4]["fields"];
    assert_eq!(req["infiniband.cm.req.localqpn"], ib_sample::CLIENT_QP);
    assert_eq!(req["infiniband.cm.req.startpsn"], ib_sample::CLIENT_PSN);
    assert_eq!(
        frames[5]["fields"]["infiniband.cm.rep.localqpn"],
        ib_sample::SERVER_QP
    );
    let run = Cli::new(PROBE).run([OsStr::new("decode"), sample_capture(dir.path()).as_os_str()]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].ends_with("SubnGet(SMInfo)"), "{}", lines[0]);
    assert!(lines[4].ends_with("CM: ConnectRequest"), "{}", lines[4]);
    let ping = &frames[13];
    assert_eq!(ping["fields"]["infiniband.rwh.etype"], 0x0800);
    assert_eq!(ping["fields"]["ip.dst"], "10.0.0.3");
    assert!(
        lines[13].ends_with("IPoIB 10.0.0.2 → 10.0.0.3"),
        "{}",
        lines[13]
    );
    let rej = &frames[14]["fields"];
    assert_eq!(rej["infiniband.cm.rej.reason"], 28, "consumer reject");
}

/// tshark's numeric and byte fields of one frame, as the probe writes them (numbers,
/// and bytes as plain hex).
fn tshark_fields(layers: &Value, out: &mut BTreeMap<String, Value>) {
    let Some(map) = layers.as_object() else {
        return;
    };
    for (name, v) in map {
        match v {
            Value::String(_) if NOT_FIELDS.contains(&name.as_str()) => {}
            Value::String(text) if COMPARED.iter().any(|p| name.starts_with(p)) => {
                let number = match text.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => text.parse::<u64>().ok(),
                };
                // Bytes come as "00:1a:…"; anything else (a GID, "fd00::1") as text.
                let is_bytes = text
                    .split(':')
                    .all(|b| b.len() == 2 && b.chars().all(|c| c.is_ascii_hexdigit()));
                let v = match number {
                    Some(n) => Value::from(n),
                    None if is_bytes => Value::from(text.replace(':', "")),
                    None => Value::from(text.as_str()),
                };
                out.insert(name.clone(), v);
            }
            _ => tshark_fields(v, out),
        }
    }
}

/// The IP layer's fields, read as [`tshark_fields`] reads the InfiniBand ones.
fn tshark_ip_fields(layer: &Value, out: &mut BTreeMap<String, Value>) {
    let Some(map) = layer.as_object() else { return };
    for (name, v) in map {
        match v {
            Value::String(text) => {
                let number = match text.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => text.parse::<u64>().ok(),
                };
                out.insert(
                    name.clone(),
                    number.map_or_else(|| Value::from(text.as_str()), Value::from),
                );
            }
            _ => tshark_ip_fields(v, out),
        }
    }
}

fn probe_value(v: &Value) -> Value {
    match v {
        Value::Bool(b) => Value::from(u64::from(*b)),
        other => other.clone(),
    }
}

#[test]
fn the_probe_agrees_with_tshark_on_every_lrh_bth_and_mad_field() {
    if Command::new("tshark").arg("--version").output().is_err() {
        eprintln!("tshark is not installed: the comparison is skipped (./lab test installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = sample_capture(dir.path());
    let ours = decode_json(&file);
    // RPC-over-RDMA's heuristic claims empty RC SENDs and marks them malformed.
    let out = Command::new("tshark")
        .args([
            "-r",
            file.to_str().unwrap(),
            "-T",
            "json",
            "--disable-protocol",
            "rpcordma",
        ])
        .output()
        .expect("tshark runs");
    let theirs: Vec<Value> = serde_json::from_slice(&out.stdout).expect("tshark's JSON");
    assert_eq!(theirs.len(), ours.len());
    let (mut compared, mut differ) = (0, Vec::new());
    for (i, (t, o)) in theirs.iter().zip(&ours).enumerate() {
        let mut fields = BTreeMap::new();
        tshark_fields(&t["_source"]["layers"]["infiniband"], &mut fields);
        let mut ip = BTreeMap::new();
        tshark_ip_fields(&t["_source"]["layers"]["ip"], &mut ip);
        fields.extend(
            ip.into_iter()
                .filter(|(name, _)| IP_FIELDS.contains(&name.as_str())),
        );
        for (name, want) in fields {
            let got = o["fields"].get(&name).map(probe_value);
            if got.as_ref() != Some(&want) {
                differ.push(format!(
                    "frame {}: {name}: tshark {want}, probe {got:?}",
                    i + 1
                ));
            }
            compared += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {compared} fields differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert!(compared > 300, "only {compared} fields compared");
    let info = Command::new("tshark")
        .args([
            "-r",
            file.to_str().unwrap(),
            "-T",
            "fields",
            "-e",
            "_ws.col.Info",
        ])
        .output()
        .expect("tshark runs");
    let run = Cli::new(PROBE).run([OsStr::new("decode"), file.as_os_str()]);
    let lines = String::from_utf8_lossy(&info.stdout)
        .lines()
        .map(String::from)
        .collect::<Vec<_>>();
    for ((theirs, ours), json) in lines.iter().zip(run.stdout.lines()).zip(&ours) {
        // Only a MAD's name is compared: tshark names other packets by what they carry.
        if json["fields"].get("infiniband.mad.mgmtclass").is_none() {
            continue;
        }
        // tshark: "UD Send Only QP=0x000000 SubnGet(SMInfo)" or "CM: ConnectRequest".
        let mad = theirs
            .rsplit(" QP=0x")
            .next()
            .map(|t| t.split_once(' ').map_or("", |(_, m)| m));
        let mad = if theirs.starts_with("CM: ") {
            theirs
        } else {
            mad.unwrap_or("")
        };
        assert!(
            ours.ends_with(mad.trim()),
            "tshark: {theirs:?}; probe: {ours:?}"
        );
    }
}
