//! `native-probe netsim`: the summary, the JSON report and the CSV series of named scenarios
//! and of the example file, a deadlock with its cycle, and scenario files refused with the
//! path of what is wrong.

use std::path::Path;

use lab_tests::cli::{Cli, Run};
use serde_json::{json, Value};

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/pfc-victim.json");
const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/NETSIM.md");

fn probe(args: &[&str]) -> Run {
    Cli::new(PROBE).run(args)
}

/// The report `--json` prints for `args`.
fn report(args: &[&str]) -> Value {
    let out = probe(&[&["netsim"], args, &["--json"]].concat());
    assert!(out.status.success(), "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("JSON on stdout")
}

/// The value of the summary line that starts with `label`.
fn summary_line<'a>(summary: &'a str, label: &str) -> &'a str {
    summary
        .lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or_else(|| panic!("no `{label}` line in\n{summary}"))
        .trim()
}

#[test]
fn a_named_scenario_prints_why_it_stopped_and_the_collectives_busbw() {
    let out = probe(&["netsim", "--scenario", "ring-allreduce-16"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    assert_eq!(
        summary_line(&text, "stopped"),
        "finished: every flow delivered all its bytes"
    );
    // The summary's figures are the report's.
    let r = report(&["--scenario", "ring-allreduce-16"]);
    let c = &r["collectives"][0];
    let busbw = c["busbw_gbs"].as_f64().expect("the all-reduce finished");
    let algbw = c["algbw_gbs"].as_f64().expect("algbw");
    let collective = summary_line(&text, "collective");
    assert!(
        collective.starts_with("traffic[0]: 16 ranks × 268435456 B (256.0 MiB)"),
        "{collective}"
    );
    assert!(
        collective.ends_with(&format!("algbw {algbw:.2} GB/s, busbw {busbw:.2} GB/s")),
        "{collective} vs busbw {busbw}"
    );
    // nccl-tests' all-reduce bus bandwidth: algbw × 2(n−1)/n.
    assert!((busbw - algbw * 2.0 * 15.0 / 16.0).abs() < 1e-6 * busbw);
    assert_eq!(
        summary_line(&text, "events"),
        format!(
            "{} in {:.1} µs simulated",
            r["events"],
            r["end_us"].as_f64().unwrap()
        )
    );
    assert!(text.contains("\nbusiest links (10 of 96;"), "{text}");
    assert!(text.contains("\nslowest flows (10 of 144):"), "{text}");
    // Nothing on stderr: it is not a terminal, so no progress either.
    assert_eq!(out.stderr, "");
}

#[test]
fn the_busiest_links_and_slowest_flows_come_first() {
    let out = probe(&["netsim", "--scenario", "ecmp-collision"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    let r = report(&["--scenario", "ecmp-collision"]);
    // The busiest link over the run is the first row under the table's header.
    let end_us = r["end_us"].as_f64().unwrap();
    let links = r["links"].as_array().unwrap();
    let util = |l: &Value| {
        l["tx_bytes"].as_f64().unwrap() / (l["gbps"].as_f64().unwrap() * 1e3 / 8.0 * end_us)
    };
    let busiest = (0..links.len())
        .max_by(|&a, &b| util(&links[a]).total_cmp(&util(&links[b])))
        .unwrap();
    let first_link = text
        .lines()
        .skip_while(|l| !l.starts_with("busiest links"))
        .nth(2)
        .expect("a row");
    let l = &links[busiest];
    assert!(
        first_link.starts_with(&format!(
            "{busiest:>6}  {} → {}",
            l["from"].as_str().unwrap(),
            l["to"].as_str().unwrap()
        )),
        "{first_link}"
    );
    assert!(
        first_link.contains(&format!("{:.1}%", util(l) * 100.0)),
        "{first_link}"
    );
    // And the slowest flow is the one with the longest FCT.
    let flows = r["flows"].as_array().unwrap();
    let fct = |f: &Value| f["fct_us"].as_f64().expect("every flow finishes");
    let slowest = flows.iter().map(fct).fold(0.0, f64::max);
    let first_flow = text
        .lines()
        .skip_while(|l| !l.starts_with("slowest flows"))
        .nth(2)
        .expect("a row");
    assert!(
        first_flow.ends_with(&format!("{slowest:.1} µs")),
        "{first_flow}"
    );
}

#[test]
fn ring_deadlock_is_reported_with_its_cycle_and_the_fat_tree_finishes() {
    let out = probe(&["netsim", "--scenario", "ring-deadlock"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    let r = report(&["--scenario", "ring-deadlock"]);
    assert_eq!(r["stop"]["kind"], "deadlock");
    let cycle: Vec<&str> = r["stop"]["cycle"]
        .as_array()
        .expect("a cycle")
        .iter()
        .map(|s| s.as_str().expect("a switch"))
        .collect();
    assert_eq!(cycle.len(), 4, "{cycle:?}");
    let stopped = summary_line(&text, "stopped");
    // The cycle, closed where it started.
    let closed = format!("{} → {}", cycle.join(" → "), cycle[0]);
    assert!(
        stopped.starts_with(&format!(
            "deadlock at {:.1} µs: {closed} wait on each other's PAUSE",
            r["stop"]["at_us"].as_f64().unwrap()
        )),
        "{stopped}"
    );
    for switch in ["switch 0", "switch 1", "switch 2", "switch 3"] {
        assert!(cycle.contains(&switch), "{switch} not in {cycle:?}");
    }
    // Flows stuck in the deadlock never finish, and the table says so.
    assert!(text.contains("not finished, "), "{text}");

    let out = probe(&["netsim", "--scenario", "fat-tree-no-deadlock"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    assert_eq!(
        summary_line(&text, "stopped"),
        "finished: every flow delivered all its bytes"
    );
    // PFC paused ports there too; nothing waited in a cycle.
    let pauses: u64 = summary_line(&text, "PAUSE frames")
        .split(',')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(pauses > 0, "{text}");
}

#[test]
fn json_is_the_whole_report() {
    let r = report(&["--scenario", "two-flow"]);
    for key in [
        "name",
        "stop",
        "end_us",
        "events",
        "time_us",
        "in_flight_bytes",
        "held_bytes",
        "links",
        "flows",
        "switches",
        "collectives",
        "totals",
        "series_note",
    ] {
        assert!(r.get(key).is_some(), "{key} missing");
    }
    assert_eq!(r["name"], "two-flow");
    // two-flow's flows never end: the run lasts its 40 ms.
    assert_eq!(r["stop"], json!({"kind": "duration"}));
    let samples = r["time_us"].as_array().expect("samples").len();
    assert_eq!(samples, 400);
    // Two senders, one switch, one receiver: three cables, six directions.
    let links = r["links"].as_array().expect("links");
    assert_eq!(links.len(), 6);
    for l in links {
        assert_eq!(l["utilisation"].as_array().map(Vec::len), Some(samples));
        assert_eq!(l["queue_bytes"].as_array().map(Vec::len), Some(samples));
    }
    assert_eq!(r["flows"].as_array().map(Vec::len), Some(2));
    let t = &r["totals"];
    let sent = t["sent_bytes"].as_u64().unwrap();
    let received = t["received_bytes"].as_u64().unwrap();
    let in_flight = t["in_flight_bytes"].as_u64().unwrap();
    assert!(received > 0 && sent == received + in_flight, "{t}");
    assert!(t["ecn_marks"].as_u64() > Some(0), "{t}");
}

#[test]
fn a_dumped_scenario_runs_from_a_file_to_the_same_report() {
    let dump = probe(&["netsim", "--scenario", "ecmp-collision", "--dump"]);
    assert!(dump.status.success(), "{}", dump.stderr);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("ecmp.json");
    std::fs::write(&path, &dump.stdout).expect("write");
    let from_file = report(&["--file", path.to_str().expect("utf-8 path")]);
    assert_eq!(from_file, report(&["--scenario", "ecmp-collision"]));
}

#[test]
fn csv_has_its_comments_the_header_and_one_row_per_link_per_sample() {
    let out = probe(&["netsim", "--scenario", "ring-deadlock", "--csv"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    let comments: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    assert_eq!(comments[0], "# rdma-lab netsim run");
    assert_eq!(comments[1], "# scenario: ring-deadlock");
    assert!(comments[2].starts_with("# description: Four switches in a ring"));
    assert!(
        comments[3].starts_with("# stopped: deadlock at "),
        "{comments:?}"
    );
    assert!(comments.contains(&"# sample_interval_us = 20 µs"));
    let r = report(&["--scenario", "ring-deadlock"]);
    let links = r["links"].as_array().expect("links");
    // Every link is named, in the report's order.
    for (i, l) in links.iter().enumerate() {
        let line = format!(
            "# link {i}: {} → {}, 100 Gb/s",
            l["from"].as_str().unwrap(),
            l["to"].as_str().unwrap()
        );
        assert!(comments.contains(&line.as_str()), "{line} missing");
    }
    let mut lines = text.lines().skip(comments.len());
    assert_eq!(lines.next(), Some("time_us,link,utilisation,queue_bytes"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let samples = r["time_us"].as_array().expect("samples");
    assert_eq!(rows.len(), samples.len() * links.len());
    // Sample by sample, each link in turn, with the report's values.
    for (k, row) in rows.iter().enumerate() {
        let (s, link) = (k / links.len(), k % links.len());
        assert_eq!(row.len(), 4, "{row:?}");
        assert_eq!(row[0].parse::<f64>().ok(), samples[s].as_f64());
        assert_eq!(row[1], link.to_string());
        let util: f64 = row[2].parse().expect("utilisation");
        let expected = links[link]["utilisation"][s].as_f64().unwrap();
        assert!((util - expected).abs() < 1e-6, "{row:?} vs {expected}");
        assert!((0.0..=1.0 + 1e-6).contains(&util), "{row:?}");
        let queue: f64 = row[3].parse().expect("queue");
        assert_eq!(Some(queue), links[link]["queue_bytes"][s].as_f64());
    }
    // Some link queued in the deadlock.
    assert!(rows.iter().any(|r| r[3] != "0"));
    // The summary goes to stderr beside the series.
    assert!(out.stderr.contains("stopped       deadlock at"));
}

#[test]
fn csv_into_a_pipe_closed_early_exits_quietly() {
    // ecmp-collision's series is 64 links × 185 samples, far more than a pipe holds.
    let out = Cli::new(PROBE)
        .run_into_a_closed_pipe(["netsim", "--scenario", "ecmp-collision", "--csv"], 512);
    assert!(out.status.success(), "{:?}: {}", out.status, out.stderr);
    assert_eq!(out.stderr, "");
}

#[test]
fn the_event_cap_stops_a_run_and_says_how_to_go_further() {
    let out = probe(&["netsim", "--scenario", "two-flow", "--max-events", "1000"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout;
    assert!(
        summary_line(&text, "stopped").starts_with("event cap: 1000 events processed")
            && text.contains("raise --max-events"),
        "{text}"
    );
    assert!(summary_line(&text, "events").starts_with("1000 in "));
    let out = probe(&["netsim", "--scenario", "two-flow", "--max-events", "0"]);
    assert!(!out.status.success());
    assert!(out.stderr.contains("--max-events"), "{}", out.stderr);
}

/// The example file with `edit` applied, written into `dir`.
fn edited_example(dir: &Path, edit: impl FnOnce(&mut Value)) -> String {
    let text = std::fs::read_to_string(EXAMPLE).expect("the example");
    let mut scenario: Value = serde_json::from_str(&text).expect("JSON");
    edit(&mut scenario);
    let path = dir.join("scenario.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&scenario).expect("JSON"),
    )
    .expect("write");
    path.to_str().expect("utf-8 path").to_string()
}

/// A change to the example.
type Edit = fn(&mut Value);

const HINT: &str = "hint: native-probe/NETSIM.md describes every field; \
    `native-probe netsim --scenario two-flow --dump` prints a valid scenario to start from";

#[test]
fn a_file_with_an_unknown_field_or_a_wrong_type_is_refused_with_its_path() {
    let dir = tempfile::tempdir().expect("temp dir");
    // (the path it breaks, the change, the reason given)
    let edits: [(&str, Edit, &str); 6] = [
        (
            "topology.fabric.fabric.gpu",
            |s| s["topology"]["fabric"]["fabric"]["gpu"] = json!(8),
            "unknown field `gpu`, expected one of `gpus`",
        ),
        (
            "traffic[1].flow.size",
            |s| s["traffic"][1]["flow"]["size"] = json!(1),
            "unknown field `size`, expected one of `from`, `to`, `bytes`",
        ),
        (
            "traffic[0]",
            |s| s["traffic"][0] = json!({"broadcast": {"bytes": 1}}),
            "unknown variant `broadcast`, expected one of `incast`",
        ),
        (
            "switch.ecn.at",
            |s| s["switch"]["ecn"]["at"] = json!("sometimes"),
            "unknown variant `sometimes`, expected `enqueue` or `dequeue`",
        ),
        (
            "traffic[0].incast.from",
            |s| s["traffic"][0]["incast"]["from"] = json!(1),
            "invalid type: integer `1`, expected a sequence",
        ),
        (
            "dcqcn",
            |s| {
                s["dcqcn"].as_object_mut().expect("dcqcn").remove("g");
            },
            "missing field `g`",
        ),
    ];
    for (at, edit, reason) in edits {
        let path = edited_example(dir.path(), edit);
        let out = probe(&["netsim", "--file", &path]);
        assert!(!out.status.success(), "{at}: accepted");
        let err = out.stderr;
        assert!(
            err.contains(&format!("scenario.json: {at}: {reason}")),
            "{at}: {err}"
        );
        assert!(err.contains(" at line "), "{at}: {err}");
        assert!(err.contains(HINT), "{at}: {err}");
        assert_eq!(out.stdout, "", "{at}: nothing runs");
    }
}

#[test]
fn a_scenario_the_engine_refuses_is_refused_with_its_path_and_a_hint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let edits: [(&str, Edit, &str); 4] = [
        (
            "traffic[1].to",
            |s| s["traffic"][1]["flow"]["to"] = json!(99),
            "host 99 does not exist (hosts 0 to 7)",
        ),
        (
            "traffic[0].from[2]",
            |s| s["traffic"][0]["incast"]["from"][2] = json!(6),
            "host 6 cannot send to itself",
        ),
        (
            "switch.pfc.xon_bytes",
            |s| s["switch"]["pfc"]["xon_bytes"] = json!(1 << 20),
            "1048576 is above xoff_bytes 65536",
        ),
        (
            "topology.fabric.fabric",
            |s| s["topology"]["fabric"]["fabric"]["tiers"] = json!("3"),
            "this fabric needs 3 tiers; the simulator builds one or two",
        ),
    ];
    for (at, edit, reason) in edits {
        let path = edited_example(dir.path(), edit);
        let out = probe(&["netsim", "--file", &path]);
        assert!(!out.status.success(), "{at}: accepted");
        let err = out.stderr;
        assert!(
            err.starts_with(&format!(
                "native-probe: error: {path}: invalid parameter `{at}`: {reason}"
            )),
            "{at}: {err}"
        );
        assert!(err.contains(HINT), "{at}: {err}");
        assert_eq!(out.stdout, "", "{at}: nothing runs");
    }
}

#[test]
fn the_example_file_runs_as_its_description_says_and_is_the_one_documented() {
    let r = report(&["--file", EXAMPLE]);
    assert_eq!(r["stop"]["kind"], "finished");
    let flows = r["flows"].as_array().expect("flows");
    let victim = flows
        .iter()
        .find(|f| f["traffic"] == 1)
        .expect("the victim flow");
    // 8 MiB at 100 Gb/s takes 671 µs; behind the PAUSE frames it takes far longer.
    let alone_us = 8.0 * 1024.0 * 1024.0 * 8.0 / 100e3;
    let fct = victim["fct_us"].as_f64().expect("it finishes");
    assert!(fct > 1.5 * alone_us, "victim FCT {fct} µs");
    // Its path never crosses the incast's last hop, but it crosses a paused link.
    let links = r["links"].as_array().expect("links");
    let path: Vec<&Value> = victim["path"]
        .as_array()
        .expect("an ECMP path")
        .iter()
        .map(|i| &links[i.as_u64().unwrap() as usize])
        .collect();
    assert!(path
        .iter()
        .all(|l| !l["to"].as_str().unwrap().starts_with("gpu 6 ")));
    assert!(path.iter().any(|l| l["pause_frames"].as_u64() > Some(0)));

    // NETSIM.md shows the file as it is.
    let doc = std::fs::read_to_string(DOC).expect("NETSIM.md");
    let example = std::fs::read_to_string(EXAMPLE).expect("the example");
    assert!(
        doc.contains(&format!("```json\n{example}```")),
        "NETSIM.md's example differs from examples/pfc-victim.json"
    );
}

/// Runs of white space as one space, to compare text clap has wrapped.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn help_lists_every_scenario_with_the_engines_description_and_unknown_names_fail() {
    let out = probe(&["netsim", "--help"]);
    assert!(out.status.success());
    let help = words(&out.stdout);
    for name in engine::netsim::scenario_names() {
        let description = engine::netsim::named_scenario(name)
            .expect("a named scenario")
            .description;
        assert!(
            help.contains(&format!("- {name}: {}", words(&description))),
            "{name} missing from --help: {help}"
        );
    }
    assert!(help.contains("NETSIM.md"), "{help}");
    assert!(
        help.contains("native-probe netsim --scenario ring-deadlock"),
        "{help}"
    );

    let out = probe(&["netsim", "--scenario", "nope"]);
    assert!(!out.status.success());
    let err = out.stderr;
    for name in engine::netsim::scenario_names() {
        assert!(err.contains(name), "{name} missing from {err}");
    }
}
