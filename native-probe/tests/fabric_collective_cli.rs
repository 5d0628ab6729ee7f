//! `native-probe fabric` and `native-probe collective` as a script meets them: the real
//! binary's JSON checked against the cited figures and against the engine on the same input,
//! and bad flags named in the error.

use engine::collective::{estimate, sweep_sizes, CollectiveRequest, GpuModel, Machines, NicModel};
use lab_tests::cli::{Cli, Run};
use serde_json::Value;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn probe(args: &[&str]) -> Run {
    Cli::new(PROBE).run(args)
}

fn json(args: &[&str]) -> Value {
    let out = probe(args);
    assert!(out.status.success(), "{args:?} failed: {out:?}");
    serde_json::from_str(&out.stdout).expect("valid JSON")
}

fn refused(args: &[&str]) -> String {
    let out = probe(args);
    assert!(!out.status.success(), "{args:?} should fail");
    out.stderr
}

const DGX_1024: [&str; 14] = [
    "fabric",
    "--gpus",
    "1024",
    "--gpus-per-node",
    "8",
    "--nics-per-node",
    "8",
    "--nic-gbps",
    "400",
    "--switch-ports",
    "64",
    "--switch-gbps",
    "400",
    "--rail-optimized",
];

#[test]
fn fabric_json_sizes_1024_gpus_as_the_superpod_table_does() {
    let mut args = DGX_1024.to_vec();
    args.push("--json");
    let f = json(&args);
    // DGX SuperPOD H100 RA, Table 4, 4 SUs: 32 leaves, 16 spines; 128 nodes × 8 NIC ports
    // and as many leaf–spine cables (non-blocking), two transceivers per optical cable.
    assert_eq!(f["nodes"], 128);
    assert_eq!(f["leaves"], 32);
    assert_eq!(f["spines"], 16);
    assert_eq!(f["cores"], 0);
    assert_eq!(f["links"]["nic_leaf"], 1024);
    assert_eq!(f["links"]["leaf_spine"], 1024);
    assert_eq!(f["optics"]["transceivers"], 4096);
    // Half of 1,024 NIC ports × 400 Gb/s, one direction.
    assert_eq!(f["bisection_gbps"], 204_800.0);
    assert_eq!(f["scalable_units"]["count"], 4);

    let text = probe(&DGX_1024);
    let text = text.stdout;
    assert!(text.contains("204.8 Tb/s"), "{text}");
}

#[test]
fn fabric_errors_name_the_flag() {
    let mut args = DGX_1024.to_vec();
    args[2] = "1023";
    let e = refused(&args);
    assert!(
        e.contains("`--gpus`") && e.contains("`--gpus-per-node`"),
        "{e}"
    );
    let mut args = DGX_1024.to_vec();
    args[8] = "800";
    let e = refused(&args);
    assert!(e.contains("`--nic-gbps`"), "{e}");
    let e = refused(&["fabric", "--gpus", "8"]);
    assert!(
        e.contains("--gpus-per-node"),
        "clap names the missing flag: {e}"
    );
}

fn dgx_machines(nodes: u32) -> Machines {
    Machines {
        gpu: GpuModel::H100,
        gpus_per_node: 8,
        nodes,
        nic: NicModel::Ndr400,
        nics_per_node: 8,
        gdr: true,
        sharp: false,
    }
}

const ALLREDUCE_128: [&str; 15] = [
    "collective",
    "--op",
    "allreduce",
    "--bytes",
    "8G",
    "--nodes",
    "128",
    "--gpus-per-node",
    "8",
    "--gpu",
    "h100",
    "--nic",
    "ndr-400",
    "--nics-per-node",
    "8",
];

#[test]
fn collective_json_is_the_engines_estimate() {
    let mut args = ALLREDUCE_128.to_vec();
    args.push("--json");
    let out = json(&args);
    let report = estimate(&CollectiveRequest {
        op: engine::collective::Collective::AllReduce,
        bytes: (8u64 << 30) as f64,
        cluster: dgx_machines(128).cluster().unwrap(),
        algorithms: None,
        protocols: None,
    })
    .unwrap();
    assert_eq!(out["nccl_version"], engine::collective::NCCL_TAG);
    assert_eq!(out["ranks"], 1024);
    let rows = out["rows"].as_array().unwrap();
    let enabled: Vec<_> = report.estimates.iter().filter(|e| e.enabled).collect();
    assert_eq!(rows.len(), enabled.len());
    for (row, e) in rows.iter().zip(&enabled) {
        assert_eq!(row["algo"], e.algorithm.id());
        assert_eq!(row["proto"], e.protocol.id());
        // serde_json reads floats back to within an ulp or two.
        let close = |v: &Value, x: f64| (v.as_f64().unwrap() - x).abs() <= 1e-12 * x;
        assert!(close(&row["busbw_gbs"], e.busbw_gbs), "{row} {e:?}");
        assert!(close(&row["time_us"], e.time_us), "{row} {e:?}");
    }
    let chosen: Vec<_> = rows.iter().filter(|r| r["chosen"] == true).collect();
    assert_eq!(chosen.len(), 1);
    let c = report.chosen.unwrap();
    assert_eq!(chosen[0]["algo"], c.algorithm.id());
    // busbw = algbw × 2(n−1)/n for AllReduce (nccl-tests doc/PERFORMANCE.md).
    for r in rows {
        let (alg, bus) = (
            r["algbw_gbs"].as_f64().unwrap(),
            r["busbw_gbs"].as_f64().unwrap(),
        );
        assert!((bus - alg * 2.0 * 1023.0 / 1024.0).abs() < 1e-9 * bus);
    }
}

#[test]
fn collective_sweep_has_one_row_per_size_and_filters_work() {
    let args = [
        "collective",
        "--op",
        "alltoall",
        "--sweep",
        "--nodes",
        "2",
        "--gpus-per-node",
        "8",
        "--gpu",
        "a100",
        "--nic",
        "roce-200",
        "--json",
    ];
    let out = json(&args);
    let rows = out["rows"].as_array().unwrap();
    let sizes: Vec<u64> = rows
        .iter()
        .map(|r| r["bytes"].as_f64().unwrap() as u64)
        .collect();
    assert_eq!(sizes, sweep_sizes());
    assert!(rows.iter().all(|r| r["algo"] == "p2p"));

    let mut ring = ALLREDUCE_128.to_vec();
    ring.extend(["--algo", "ring", "--proto", "simple", "--json"]);
    let out = json(&ring);
    let rows = out["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (&rows[0]["algo"], &rows[0]["chosen"]),
        (&Value::from("ring"), &Value::from(true))
    );
}

#[test]
fn collective_errors_name_the_flag() {
    let mut args = ALLREDUCE_128.to_vec();
    args[4] = "8 gigs";
    assert!(refused(&args).contains("`--bytes`"));
    let mut args = ALLREDUCE_128.to_vec();
    args[6] = "0";
    assert!(refused(&args).contains("`--nodes`"));
    let mut args = ALLREDUCE_128.to_vec();
    args[12] = "none";
    assert!(refused(&args).contains("`--nic`"));
    let mut args = ALLREDUCE_128.to_vec();
    args[12] = "tcp-100";
    args.push("--sharp");
    assert!(refused(&args).contains("`--sharp`"));
    let mut args = ALLREDUCE_128.to_vec();
    args[10] = "h800";
    assert!(refused(&args).contains("--gpu"), "clap lists the GPUs");
    // An algorithm NCCL does not offer for the collective: said, not an empty table.
    let mut args = ALLREDUCE_128.to_vec();
    args.extend(["--algo", "p2p"]);
    assert!(refused(&args).contains("offers no p2p"));
}
