//! `native-probe nccl-log` as a script meets it: the real binary on logs written from NCCL's
//! own format strings, its JSON keys as issue #21 names them, and its exit status.

use lab_tests::cli::{Cli, Run};
use serde_json::Value;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

/// Two hosts falling back to sockets because libibverbs is missing. Format strings, NVIDIA/nccl
/// v2.18.3-1: src/misc/ibvsymbols.cc:78 ("Failed to open libibverbs.so[.1]"),
/// src/transport/net_socket.cc:62 ("NET/Socket : Using"), src/init.cc:310 ("Using network"),
/// src/init.cc:1375 ("Init COMPLETE"), src/transport/net.cc:186 (the channel line).
const SOCKETS: &str = "n1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n\
    n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
    n1:1:2 [0] NCCL INFO Using network Socket\n\
    n1:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
    n2:3:4 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
    n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n";

fn run(args: &[&str], stdin: &str) -> Run {
    Cli::new(PROBE).run_with_input(args, stdin.as_bytes())
}

#[test]
fn json_has_the_issues_keys_and_names_the_socket_fallback() {
    let out = run(&["nccl-log", "-", "--json"], SOCKETS);
    let json: Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
    for key in [
        "nccl_version",
        "cuda_version",
        "nranks",
        "nnodes",
        "inter_node_transport",
        "gdr_used",
        "intra_node",
        "env",
        "channels",
        "findings",
    ] {
        assert!(json.get(key).is_some(), "missing {key}: {json}");
    }
    assert_eq!(json["inter_node_transport"], "Socket");
    assert_eq!(json["gdr_used"], false);
    assert_eq!(json["nranks"], 2);
    assert_eq!(json["nnodes"], 2);
    let sources = json["sources"].as_array().expect("sources");
    let nranks = sources
        .iter()
        .find(|f| f["fact"] == "nranks")
        .expect("nranks source");
    assert_eq!(nranks["lines"], serde_json::json!([4, 5]));
    assert_eq!(nranks["known"], true);
    let findings = json["findings"].as_array().unwrap();
    let socket = findings
        .iter()
        .find(|f| f["topic"] == "/troubleshooting#nccl-falls-back-to-sockets")
        .expect("the socket finding");
    for key in ["severity", "title", "explanation", "lines", "topic"] {
        assert!(socket.get(key).is_some(), "finding without {key}");
    }
    assert!(socket["lines"]
        .as_array()
        .unwrap()
        .contains(&Value::from(1)));
}

#[test]
fn text_mode_reads_a_file_and_exits_by_severity() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let path = dir.join("run.log");
    std::fs::write(&path, SOCKETS).unwrap();
    let out = run(&["nccl-log", path.to_str().unwrap()], "");
    let text = out.stdout;
    assert!(text.contains("between hosts: TCP sockets"), "{text}");
    assert!(text.contains("GPUDirect RDMA: no"), "{text}");
    // Each fact names its lines: the channel line says sockets; nothing gives the version.
    assert!(text.contains("inter_node_transport: line 6 ("), "{text}");
    assert!(text.contains("nccl_version: unknown; the banner"), "{text}");
    let errors = text.lines().any(|l| l.starts_with('✗'));
    assert_eq!(
        out.status.success(),
        !errors,
        "exit 1 exactly when an error is listed"
    );

    // Nothing NCCL wrote: no findings, every line kept, success.
    let out = run(&["nccl-log", "-", "--json"], "hello\nworld\n");
    assert!(out.status.success());
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["nccl_version"], Value::Null);

    // A missing file says so and what to do.
    let out = run(&["nccl-log", dir.join("absent.log").to_str().unwrap()], "");
    assert!(!out.status.success());
    let err = out.stderr;
    assert!(
        err.contains("cannot read") && err.contains("standard input"),
        "{err}"
    );
}
