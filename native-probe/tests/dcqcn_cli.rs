//! `native-probe dcqcn`: the CSV series, the JSON summary, both models, and a bad scenario
//! file rejected with the parameter named.

use lab_tests::cli::{Cli, Run};
use serde_json::{json, Value};

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn probe(args: &[&str]) -> Run {
    Cli::new(PROBE).run(args)
}

#[test]
fn csv_has_the_header_and_one_row_per_flow_per_sample() {
    let out = probe(&[
        "dcqcn",
        "--scenario",
        "two-flow",
        "--model",
        "fluid",
        "--csv",
    ]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    // `#` lines first, naming the run and every parameter with its unit.
    let comments: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    for line in [
        "# scenario: two-flow",
        "# model: fluid",
        "# bottleneck_gbps = 40 Gb/s",
        "# dcqcn.rp_time_reset_us = 55 µs",
        "# flows[1].start_us = 2000 µs",
    ] {
        assert!(comments.contains(&line), "{line} missing from {comments:?}");
    }
    let mut lines = text.lines().skip(comments.len());
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    for column in [
        "time_us",
        "flow",
        "rc_gbps",
        "rt_gbps",
        "alpha",
        "goodput_gbps",
        "queue_bytes",
        "cnps",
        "pfc_paused",
        "sent_gbps",
    ] {
        assert!(header.contains(&column), "missing column {column}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // two-flow: 40 ms sampled every 100 µs, two flows.
    assert_eq!(rows.len(), 400 * 2);
    assert!(rows.iter().all(|r| r.len() == header.len()));
    // Rows alternate flow 0, flow 1 at the same instant.
    assert_eq!(rows[0][1], "0");
    assert_eq!(rows[1][1], "1");
    assert_eq!(rows[0][0], rows[1][0]);
    // The summary still goes to stderr.
    assert!(out.stderr.contains("Jain"), "{}", out.stderr);
}

#[test]
fn json_summary_has_the_headline_fields_for_both_models() {
    for model in ["fluid", "packet"] {
        let out = probe(&[
            "dcqcn",
            "--scenario",
            "incast-16",
            "--model",
            model,
            "--json",
        ]);
        assert!(out.status.success(), "{model}: {}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON on stdout");
        let s = &v["summary"];
        assert_eq!(s["link_gbps"], 100.0, "{model}");
        assert_eq!(
            s["mean_goodput_gbps"].as_array().map(Vec::len),
            Some(16),
            "{model}"
        );
        let jain = s["jain_fairness"].as_f64().expect("jain");
        // Jain's index lies in [1/n, 1].
        assert!((1.0 / 16.0..=1.0 + 1e-9).contains(&jain), "{model}: {jain}");
        let util = s["utilization"].as_f64().expect("utilization");
        assert!(util > 0.0 && util <= 1.0 + 1e-6, "{model}: {util}");
        // While the flows are on the link it is busier than over the whole run, which
        // goes on after the last completion.
        let active = s["active_utilization"]
            .as_f64()
            .expect("active utilization");
        assert!(active > util && active <= 1.0 + 1e-6, "{model}: {active}");
        assert!(s["active_to_us"].as_f64() < Some(8_000.0), "{model}");
        // Every incast flow draws CNPs and is cut; the report says where.
        let cuts = s["first_cut"].as_array().expect("first cuts");
        assert_eq!(cuts.len(), 16);
        assert!(
            cuts.iter().all(|c| c["time_us"].as_f64().is_some()),
            "{model}: {cuts:?}"
        );
        assert!(s["max_queue_bytes"].as_f64().expect("max queue") > 0.0);
        // 16 finite flows into a lossless port: every one completes.
        let fcts = s["fct_us"].as_array().expect("fct array");
        assert_eq!(fcts.len(), 16);
        assert!(
            fcts.iter().all(|f| f.as_f64().is_some_and(|t| t > 0.0)),
            "{model}"
        );
        assert_eq!(v["model"], model);
    }
}

#[test]
fn an_invalid_scenario_file_is_rejected_with_the_parameter_named() {
    let dump = probe(&["dcqcn", "--scenario", "two-flow", "--dump"]);
    assert!(dump.status.success());
    let mut scenario: serde_json::Value = serde_json::from_str(&dump.stdout).expect("JSON");
    scenario["cp"]["kmin_bytes"] = serde_json::json!(900_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.json");
    std::fs::write(&path, scenario.to_string()).expect("write");
    let out = probe(&["dcqcn", "--file", path.to_str().expect("utf-8 path")]);
    assert!(!out.status.success());
    assert!(out.stderr.contains("cp.kmin_bytes"), "{}", out.stderr);

    // The untouched dump runs.
    scenario["cp"]["kmin_bytes"] = serde_json::json!(5120);
    std::fs::write(&path, scenario.to_string()).expect("write");
    let out = probe(&[
        "dcqcn",
        "--file",
        path.to_str().expect("utf-8 path"),
        "--json",
    ]);
    assert!(out.status.success(), "{}", out.stderr);
}

#[test]
fn help_lists_the_scenarios_and_unknown_names_fail() {
    let out = probe(&["dcqcn", "--help"]);
    let help = out.stdout;
    for name in engine::dcqcn::scenario_names() {
        assert!(help.contains(name), "{name} missing from --help");
    }
    let out = probe(&["dcqcn", "--scenario", "nope"]);
    assert!(!out.status.success());
}

/// `two-flow` as `--dump` prints it.
fn dumped() -> Value {
    let dump = probe(&["dcqcn", "--scenario", "two-flow", "--dump"]);
    assert!(dump.status.success(), "{}", dump.stderr);
    serde_json::from_str(&dump.stdout).expect("JSON")
}

/// A change to the dumped scenario.
type Edit = fn(&mut Value);

#[test]
fn a_scenario_file_with_an_unknown_field_a_wrong_type_or_a_missing_field_names_its_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("scenario.json");
    // (the path it breaks, the change to the dump, the reason given)
    let edits: [(&str, Edit, &str); 6] = [
        (
            "cp.kmin",
            |s| s["cp"]["kmin"] = json!(5120),
            "unknown field `kmin`, expected one of `buffer_bytes`, `kmin_bytes`",
        ),
        (
            "flows[1].rate_gbps",
            |s| s["flows"][1]["rate_gbps"] = json!(40),
            "unknown field `rate_gbps`",
        ),
        (
            "flows",
            |s| s["flows"] = json!(-1),
            "invalid type: integer `-1`",
        ),
        (
            "flows[1].start_us",
            |s| s["flows"][1]["start_us"] = json!("soon"),
            "invalid type: string \"soon\", expected f64",
        ),
        (
            "dcqcn",
            |s| {
                s["dcqcn"].as_object_mut().expect("dcqcn").remove("g");
            },
            "missing field `g`",
        ),
        (
            "cp.pfc",
            |s| {
                s["cp"]["pfc"]
                    .as_object_mut()
                    .expect("pfc")
                    .remove("xon_bytes");
            },
            "missing field `xon_bytes`",
        ),
    ];
    for (at, edit, reason) in edits {
        let mut scenario = dumped();
        edit(&mut scenario);
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&scenario).expect("JSON"),
        )
        .expect("write");
        let out = probe(&["dcqcn", "--file", path.to_str().expect("utf-8 path")]);
        assert!(!out.status.success(), "{at}: accepted");
        let err = out.stderr;
        assert!(
            err.contains(&format!("scenario.json: {at}: {reason}")),
            "{at}: {err}"
        );
        assert!(err.contains(" at line "), "{at}: {err}");
        assert!(
            err.contains("hint: `native-probe dcqcn --scenario two-flow --dump`"),
            "{at}: {err}"
        );
        assert_eq!(out.stdout, "", "{at}: nothing runs");
    }

    // A missing top-level field has no path but the line and column.
    let mut scenario = dumped();
    scenario.as_object_mut().expect("object").remove("seed");
    std::fs::write(&path, scenario.to_string()).expect("write");
    let out = probe(&["dcqcn", "--file", path.to_str().expect("utf-8 path")]);
    assert!(!out.status.success());
    assert!(
        out.stderr
            .contains("scenario.json: missing field `seed` at line 1 column"),
        "{}",
        out.stderr
    );

    // `fluid_step_us` is the one field that may be left out.
    let mut scenario = dumped();
    scenario
        .as_object_mut()
        .expect("object")
        .remove("fluid_step_us");
    std::fs::write(&path, scenario.to_string()).expect("write");
    let out = probe(&[
        "dcqcn",
        "--file",
        path.to_str().expect("utf-8 path"),
        "--json",
    ]);
    assert!(out.status.success(), "{}", out.stderr);
}

#[test]
fn csv_and_dump_into_a_pipe_closed_early_exit_quietly() {
    // incast-16's series is 2560 rows, far more than a pipe holds: the probe is still
    // writing when the reader goes, as `| head` leaves it.
    let csv =
        Cli::new(PROBE).run_into_a_closed_pipe(["dcqcn", "--scenario", "incast-16", "--csv"], 512);
    assert!(csv.status.success(), "{:?}: {}", csv.status, csv.stderr);
    // Nothing about the pipe, and no summary of a run whose output nobody reads.
    assert_eq!(csv.stderr, "");

    // Small enough to fit a pipe: the reader may leave before or after the write.
    let dump =
        Cli::new(PROBE).run_into_a_closed_pipe(["dcqcn", "--scenario", "two-flow", "--dump"], 1);
    assert!(dump.status.success(), "{:?}: {}", dump.status, dump.stderr);
    assert_eq!(dump.stderr, "");
}
