//! `native-probe qos` and `native-probe headroom` as a script meets them: the /lossless
//! page's examples, the engine's answers, flags named in errors, exit status on a problem.

use engine::lossless::Headroom;
use lab_tests::cli::{Cli, Run};
use serde_json::Value;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn probe(args: &[&str]) -> Run {
    Cli::new(PROBE).run(args)
}

#[test]
fn headroom_reproduces_the_pages_example_and_the_engine() {
    let out = probe(&["headroom", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let b: Value = serde_json::from_str(&out.stdout).unwrap();
    // content/topics/lossless.md's worked example.
    assert_eq!(b["total"], 43_496);
    let out = probe(&["headroom", "--gbps", "400", "--cable-m", "300", "--json"]);
    let b: Value = serde_json::from_str(&out.stdout).unwrap();
    let engine = Headroom {
        link_gbps: 400.0,
        cable_m: 300.0,
        ..Headroom::example()
    }
    .bytes()
    .unwrap();
    assert_eq!(b["total"], engine.total);
    let out = probe(&["headroom", "--cable-m=-5"]);
    assert!(!out.status.success());
    let err = out.stderr;
    assert!(err.contains("`--cable-m`"), "{err}");
}

#[test]
fn qos_follows_the_chain_and_fails_on_a_lossy_priority() {
    let out = probe(&["qos", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["chain"]["dscp"], 26);
    assert_eq!(v["chain"]["priority"], 3);

    // NCCL_IB_TC=96 is DSCP 24, not in the map: priority 0, PFC off, exit 1.
    let out = probe(&["qos", "--tc", "96"]);
    assert!(!out.status.success());
    let text = out.stdout;
    assert!(
        text.contains("DSCP 24 -> priority 0, not in the map"),
        "{text}"
    );

    let out = probe(&["qos", "--map", "26-3"]);
    let err = out.stderr;
    assert!(err.contains("`--map`"), "{err}");
    let out = probe(&["qos", "--tc", "300"]);
    let err = out.stderr;
    assert!(err.contains("`--tc`"), "{err}");
}
