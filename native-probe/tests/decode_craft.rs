//! `native-probe craft` and `decode` as a learner runs them: the real binary on real files.

use std::{
    ffi::OsStr,
    path::{Path, PathBuf},
};

use lab_tests::cli::{Cli, Run};
use serde_json::Value;
use tempfile::TempDir;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn probe<'a>(args: impl IntoIterator<Item = &'a OsStr>) -> Run {
    Cli::new(PROBE).run(args)
}

/// A test's own folder for the files it writes; removed when dropped.
fn scratch() -> TempDir {
    tempfile::Builder::new()
        .prefix("rdma-lab-craft-")
        .tempdir()
        .unwrap()
}

fn decode_json(file: &Path) -> (bool, Vec<Value>) {
    let out = probe([OsStr::new("decode"), file.as_os_str(), OsStr::new("--json")]);
    let lines = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    (out.status.success(), lines)
}

const SPECS: &str = r#"[
  {"operation": "write", "psn": 5, "dest_qp": 66, "va": 4096, "r_key": 7, "payload": "hello RDMA"},
  {"operation": "ack", "psn": 5, "src_ip": "192.168.1.2", "dst_ip": "192.168.1.1"},
  {"operation": "cnp", "dest_qp": 18},
  {"operation": "ud_send", "src_ip": "fd00::1", "dst_ip": "fd00::2", "payload": 32,
   "vlan": {"pcp": 3, "dei": false, "vid": 100}}
]"#;

#[test]
fn crafted_packets_decode_back_with_their_fields_and_valid_icrcs() {
    let dir = scratch();
    let spec = dir.path().join("specs.json");
    let pcap = dir.path().join("crafted.pcap");
    std::fs::write(&spec, SPECS).unwrap();
    let out = probe([
        OsStr::new("craft"),
        spec.as_os_str(),
        OsStr::new("-o"),
        pcap.as_os_str(),
    ]);
    assert!(out.status.success());

    let (ok, frames) = decode_json(&pcap);
    assert!(ok);
    assert_eq!(frames.len(), 4);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["frame"], i + 1, "frames are numbered from 1");
        assert!(f["time"].is_number());
        assert_eq!(f["icrc_ok"], true, "{f}");
        assert!(f["error"].is_null());
    }
    let write = &frames[0];
    // RC RDMA WRITE Only is opcode 10 (IBTA Vol 1 §9.2 Table 35); numbers stay numbers.
    assert_eq!(write["fields"]["infiniband.bth.opcode"], 10);
    assert_eq!(write["fields"]["infiniband.bth.destqp"], 66);
    assert_eq!(write["fields"]["infiniband.bth.psn"], 5);
    assert_eq!(write["fields"]["infiniband.reth.va"], 4096);
    assert_eq!(
        write["fields"]["infiniband.reth.dmalen"],
        "hello RDMA".len()
    );
    assert_eq!(write["fields"]["udp.dstport"], 4791);
    assert_eq!(write["fields"]["ip.src"], "192.168.1.1");
    let layers: Vec<&str> = write["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(&layers[..4], ["eth", "ip", "udp", "infiniband.bth"]);
    assert!(layers.contains(&"infiniband.reth"));
    // CNPs are opcode 0x81 (IBTA Vol 1 Annex A17).
    assert_eq!(frames[2]["fields"]["infiniband.bth.opcode"], 0x81);
    assert_eq!(frames[3]["fields"]["vlan.priority"], 3);
    assert_eq!(frames[3]["fields"]["ipv6.dst"], "fd00::2");

    let text = probe([OsStr::new("decode"), pcap.as_os_str()]).stdout;
    assert_eq!(text.lines().count(), 4);
    assert!(text.lines().all(|l| l.contains("ICRC ok")), "{text}");
}

#[test]
fn a_bad_spec_names_the_spec_and_field() {
    let dir = scratch();
    let spec = dir.path().join("bad.json");
    std::fs::write(
        &spec,
        r#"[{"operation": "send"}, {"operation": "send", "dscp": 64}]"#,
    )
    .unwrap();
    let never = dir.path().join("never.pcap");
    let out = probe([
        OsStr::new("craft"),
        spec.as_os_str(),
        OsStr::new("-o"),
        never.as_os_str(),
    ]);
    assert!(!out.status.success());
    let err = out.stderr;
    assert!(err.contains("spec 2") && err.contains("dscp"), "{err}");
}

#[test]
fn a_corrupt_capture_reports_located_errors_and_keeps_going() {
    let sample = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../assets/samples/roce-sample.pcapng"
    );
    let mut bytes = std::fs::read(sample).unwrap();
    let whole = decode_json(&PathBuf::from(sample));
    assert!(whole.0);
    let count = whole.1.len();
    assert!(count >= 3);

    // Flip a byte inside the second frame's BTH region: its ICRC must fail, the
    // others must still decode.
    let needle = &whole.1[1];
    assert_eq!(needle["icrc_ok"], true);
    let frame2 = engine::capture::read_capture(&bytes).frames[1].data.clone();
    let at = bytes
        .windows(frame2.len())
        .position(|w| w == frame2.as_slice())
        .unwrap();
    bytes[at + frame2.len() - 6] ^= 0x40;
    // And cut the file in the middle of its last record.
    bytes.truncate(bytes.len() - 20);
    let dir = scratch();
    let corrupt = dir.path().join("corrupt.pcapng");
    std::fs::write(&corrupt, &bytes).unwrap();

    let (ok, lines) = decode_json(&corrupt);
    assert!(!ok, "a truncated file exits non-zero");
    assert_eq!(
        lines.len(),
        count,
        "every frame but the cut one, then the error"
    );
    assert_eq!(lines[1]["icrc_ok"], false);
    assert_eq!(lines[0]["icrc_ok"], true);
    let last = &lines[count - 1];
    assert_eq!(last["frame"], count);
    assert!(last["offset"].as_u64().unwrap() > 0);
    assert!(last["capture_error"].as_str().unwrap().contains("byte"));
}

/// Runs `craft` on `spec`; the exit status, stderr and whether the output file exists.
fn craft(dir: &Path, spec: &str) -> (bool, String, bool) {
    let input = dir.join("spec.json");
    let pcap = dir.join("out.pcap");
    let _ = std::fs::remove_file(&pcap);
    std::fs::write(&input, spec).unwrap();
    let out = probe([
        OsStr::new("craft"),
        input.as_os_str(),
        OsStr::new("-o"),
        pcap.as_os_str(),
    ]);
    let err = out.stderr;
    (out.status.success(), err, pcap.exists())
}

#[test]
fn craft_refuses_unknown_fields_wrong_types_and_missing_fields_at_their_json_path() {
    let dir = scratch();
    for (spec, path, reason) in [
        (
            r#"{"packets":[{"opcode":"nonsense"}]}"#,
            "packets[0].opcode",
            "unknown field `opcode`",
        ),
        // Once any object was a spec with every field defaulted: this wrote a SEND.
        (r#"{"flows": -1}"#, "flows", "unknown field `flows`"),
        (
            r#"[{"operation": "send"}, {"operation": "write", "psn": "5"}]"#,
            "[1].psn",
            "invalid type: string",
        ),
        (
            r#"{"operation": "nonsense"}"#,
            "operation",
            "unknown variant `nonsense`, expected one of `send`",
        ),
        (
            r#"{"packets": [{"vlan": {"pcp": 3, "dei": false}}]}"#,
            "packets[0].vlan",
            "missing field `vid`",
        ),
        (
            r#"{"packets": [{"operation": "send"}], "gap_ns": 5}"#,
            "gap_ns",
            "unknown field `gap_ns`, expected `packets`",
        ),
        (
            r#"{"payload": -1}"#,
            "payload",
            "invalid value: integer `-1`, expected a byte count",
        ),
    ] {
        let (ok, err, written) = craft(dir.path(), spec);
        assert!(!ok, "{spec} was accepted");
        assert!(!written, "{spec}: a refused spec writes no capture");
        assert!(
            err.contains(&format!("spec.json: {path}: {reason}")),
            "{spec}: {err}"
        );
        assert!(err.contains(" at line 1 column "), "{spec}: {err}");
        assert!(
            err.contains("hint: ") && err.contains("CRAFT.md"),
            "{spec}: {err}"
        );
    }
    for (spec, reason) in [
        ("-1", "the file holds a number, not a packet spec"),
        ("[]", "the file holds no specs"),
        (r#"{"packets": []}"#, "the file holds no specs"),
        ("[{\"operation\": \"send\"}", "EOF while parsing"),
        ("{} {}", "trailing characters"),
    ] {
        let (ok, err, written) = craft(dir.path(), spec);
        assert!(!ok && !written, "{spec} was accepted");
        assert!(
            err.contains(reason) && err.contains("spec.json"),
            "{spec}: {err}"
        );
    }
}

#[test]
fn craft_takes_one_spec_an_array_or_a_packets_object() {
    let dir = scratch();
    for (spec, frames) in [
        (r#"{}"#, 1),
        (r#"{"operation": "ack", "psn": 3}"#, 1),
        (r#"[{"operation": "write", "payload": 8}, {}]"#, 2),
        (
            r#"{"packets": [{"operation": "cnp"}, {"operation": "nak"}, {}]}"#,
            3,
        ),
    ] {
        let (ok, err, written) = craft(dir.path(), spec);
        assert!(ok && written, "{spec}: {err}");
        let (ok, lines) = decode_json(&dir.path().join("out.pcap"));
        assert!(ok);
        assert_eq!(lines.len(), frames, "{spec}");
    }
}

/// A capture of `count` WRITEs of 1 KiB, in `dir`.
fn big_capture(dir: &Path, count: usize) -> PathBuf {
    let specs: Vec<String> = (0..count)
        .map(|psn| format!(r#"{{"operation": "write", "psn": {psn}, "payload": 1024}}"#))
        .collect();
    let (ok, err, written) = craft(dir, &format!("[{}]", specs.join(",")));
    assert!(ok && written, "{err}");
    let pcap = dir.join("big.pcap");
    std::fs::rename(dir.join("out.pcap"), &pcap).unwrap();
    pcap
}

#[test]
fn decode_into_a_pipe_closed_early_exits_quietly() {
    let dir = scratch();
    // 5000 frames print far more than a pipe holds, so the probe is still writing when the
    // reader goes, as `decode big.pcap | head` would leave it.
    let pcap = big_capture(dir.path(), 5000);
    for json in [false, true] {
        let mut args = vec![OsStr::new("decode"), pcap.as_os_str()];
        if json {
            args.push(OsStr::new("--json"));
        }
        let out = Cli::new(PROBE).run_into_a_closed_pipe(args, 512);
        let err = out.stderr;
        assert!(
            out.status.success(),
            "--json {json}: {:?}: {err}",
            out.status
        );
        assert_eq!(err, "", "--json {json}: nothing on stderr");
    }
}

#[test]
fn a_truncated_or_missing_capture_names_the_file_and_the_byte() {
    let dir = scratch();
    let pcap = big_capture(dir.path(), 3);
    let mut bytes = std::fs::read(&pcap).unwrap();
    bytes.truncate(bytes.len() - 10);
    let cut = dir.path().join("cut.pcap");
    std::fs::write(&cut, &bytes).unwrap();
    let out = probe([OsStr::new("decode"), cut.as_os_str()]);
    assert!(!out.status.success());
    // The frames before the cut are still printed.
    assert_eq!(out.stdout.lines().count(), 2);
    let err = out.stderr;
    let shown = cut.display().to_string();
    assert!(err.contains(&format!("{shown}: frame 3 at byte ")), "{err}");

    let missing = dir.path().join("missing.pcap");
    let out = probe([OsStr::new("decode"), missing.as_os_str()]);
    assert!(!out.status.success());
    let err = out.stderr;
    assert!(
        err.contains(&format!("cannot read {}: ", missing.display())),
        "{err}"
    );
}
