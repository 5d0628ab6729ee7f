//! `native-probe qp-table` as a script meets it: the real binary, its JSON checked against
//! the kernel's rules and the engine's table.

use engine::qp::{transition_table, QpState, QpType, TransitionRule};
use lab_tests::cli::Cli;
use serde_json::Value;

const PROBE: &str = env!("CARGO_BIN_EXE_native-probe");

fn run(args: &[&str]) -> String {
    let out = Cli::new(PROBE).run(args);
    assert!(out.status.success(), "{args:?} failed: {out:?}");
    out.stdout
}

#[test]
fn json_is_the_engines_table_with_the_kernels_cells() {
    let text = run(&["qp-table", "--json"]);
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    let rows = json.as_array().expect("a JSON array");

    // Every row names one of the six types and two of the seven states.
    let types: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["qp_type"].as_str()).collect();
    assert_eq!(types.len(), 6, "{types:?}");
    assert_eq!(rows.len(), transition_table().len());

    // RC RESET→INIT: ib_modify_qp_is_ok() requires exactly PKEY_INDEX, PORT and
    // ACCESS_FLAGS (kernel drivers/infiniband/core/verbs.c, qp_state_table) and allows nothing else.
    let rc_init = rows
        .iter()
        .find(|r| r["from"] == "RESET" && r["to"] == "INIT" && r["qp_type"] == "RC")
        .expect("RC RESET→INIT row");
    let mut required: Vec<&str> = rc_init["required"]
        .as_array()
        .expect("required list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(
        required,
        ["IBV_QP_ACCESS_FLAGS", "IBV_QP_PKEY_INDEX", "IBV_QP_PORT"]
    );
    assert_eq!(rc_init["optional"], Value::Array(vec![]));

    // RESET → ERR is not in the kernel table for any type.
    assert!(!rows
        .iter()
        .any(|r| r["from"] == "RESET" && r["to"] == "ERR"));

    // And the whole thing equals the engine's table, row for row.
    let parsed: Vec<TransitionRule> = serde_json::from_str(&text).expect("rules");
    assert_eq!(parsed, transition_table());
    assert!(parsed
        .iter()
        .any(|r| r.from == QpState::Rtr && r.to == QpState::Rts && r.qp_type == QpType::Ud));
}

#[test]
fn plain_output_is_an_aligned_table_with_a_header() {
    let text = run(&["qp-table"]);
    let mut lines = text.lines();
    let header = lines.next().expect("a header line");
    assert!(header.starts_with("FROM"), "{header}");
    assert_eq!(text.lines().count(), transition_table().len() + 1);
    assert!(text
        .lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>()
            == ["RESET", "INIT", "RC", "ACCESS_FLAGS,PKEY_INDEX,PORT", "-"]));
}
