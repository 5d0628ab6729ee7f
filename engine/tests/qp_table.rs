//! The QP transition table against an independent transcription of the kernel's
//! `qp_state_table` (drivers/infiniband/core/verbs.c), written from the kernel source as
//! text, plus a property test of the mask rule of `ib_modify_qp_is_ok()`.

use std::collections::BTreeMap;

use engine::qp::{check_modify, transition_table, AttrMask, QpState, QpType};
use proptest::prelude::*;

/// `enum ibv_qp_attr_mask` from rdma-core verbs.h, by short name.
const BITS: [(&str, u32); 22] = [
    ("STATE", 1 << 0),
    ("CUR_STATE", 1 << 1),
    ("EN_SQD_ASYNC_NOTIFY", 1 << 2),
    ("ACCESS_FLAGS", 1 << 3),
    ("PKEY_INDEX", 1 << 4),
    ("PORT", 1 << 5),
    ("QKEY", 1 << 6),
    ("AV", 1 << 7),
    ("PATH_MTU", 1 << 8),
    ("TIMEOUT", 1 << 9),
    ("RETRY_CNT", 1 << 10),
    ("RNR_RETRY", 1 << 11),
    ("RQ_PSN", 1 << 12),
    ("MAX_QP_RD_ATOMIC", 1 << 13),
    ("ALT_PATH", 1 << 14),
    ("MIN_RNR_TIMER", 1 << 15),
    ("SQ_PSN", 1 << 16),
    ("MAX_DEST_RD_ATOMIC", 1 << 17),
    ("PATH_MIG_STATE", 1 << 18),
    ("CAP", 1 << 19),
    ("DEST_QPN", 1 << 20),
    ("RATE_LIMIT", 1 << 25),
];

const ALL_BITS: u32 = {
    let mut m = 0;
    let mut i = 0;
    while i < BITS.len() {
        m |= BITS[i].1;
        i += 1;
    }
    m
};

/// The kernel table. `FROM TO TYPE | required | optional`; TYPE `*` covers every type
/// without its own line for that transition. Transitions not listed are invalid.
const KERNEL_TABLE: &str = "
RESET RESET *          | |
RESET INIT *           | |
RESET INIT UD          | PKEY_INDEX PORT QKEY |
RESET INIT RAW_PACKET  | PORT |
RESET INIT UC          | PKEY_INDEX PORT ACCESS_FLAGS |
RESET INIT RC          | PKEY_INDEX PORT ACCESS_FLAGS |
RESET INIT XRC_SEND    | PKEY_INDEX PORT ACCESS_FLAGS |
RESET INIT XRC_RECV    | PKEY_INDEX PORT ACCESS_FLAGS |
INIT RESET *           | |
INIT ERR *             | |
INIT INIT *            | |
INIT INIT UD           | | PKEY_INDEX PORT QKEY
INIT INIT UC           | | PKEY_INDEX PORT ACCESS_FLAGS
INIT INIT RC           | | PKEY_INDEX PORT ACCESS_FLAGS
INIT INIT XRC_SEND     | | PKEY_INDEX PORT ACCESS_FLAGS
INIT INIT XRC_RECV     | | PKEY_INDEX PORT ACCESS_FLAGS
INIT RTR *             | |
INIT RTR UD            | | PKEY_INDEX QKEY
INIT RTR UC            | AV PATH_MTU DEST_QPN RQ_PSN | ALT_PATH ACCESS_FLAGS PKEY_INDEX
INIT RTR RC            | AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER | ALT_PATH ACCESS_FLAGS PKEY_INDEX
INIT RTR XRC_SEND      | AV PATH_MTU DEST_QPN RQ_PSN | ALT_PATH ACCESS_FLAGS PKEY_INDEX
INIT RTR XRC_RECV      | AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER | ALT_PATH ACCESS_FLAGS PKEY_INDEX
RTR RESET *            | |
RTR ERR *              | |
RTR RTS *              | |
RTR RTS UD             | SQ_PSN | CUR_STATE QKEY
RTR RTS UC             | SQ_PSN | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE
RTR RTS RC             | TIMEOUT RETRY_CNT RNR_RETRY SQ_PSN MAX_QP_RD_ATOMIC | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE
RTR RTS XRC_SEND       | TIMEOUT RETRY_CNT RNR_RETRY SQ_PSN MAX_QP_RD_ATOMIC | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE
RTR RTS XRC_RECV       | TIMEOUT SQ_PSN | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE
RTR RTS RAW_PACKET     | | RATE_LIMIT
RTS RESET *            | |
RTS ERR *              | |
RTS RTS *              | |
RTS RTS UD             | | CUR_STATE QKEY
RTS RTS UC             | | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE
RTS RTS RC             | | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE MIN_RNR_TIMER
RTS RTS XRC_SEND       | | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE
RTS RTS XRC_RECV       | | CUR_STATE ACCESS_FLAGS ALT_PATH PATH_MIG_STATE MIN_RNR_TIMER
RTS RTS RAW_PACKET     | | RATE_LIMIT
RTS SQD *              | |
RTS SQD UD             | | EN_SQD_ASYNC_NOTIFY
RTS SQD UC             | | EN_SQD_ASYNC_NOTIFY
RTS SQD RC             | | EN_SQD_ASYNC_NOTIFY
RTS SQD XRC_SEND       | | EN_SQD_ASYNC_NOTIFY
RTS SQD XRC_RECV       | | EN_SQD_ASYNC_NOTIFY
SQD RESET *            | |
SQD ERR *              | |
SQD RTS *              | |
SQD RTS UD             | | CUR_STATE QKEY
SQD RTS UC             | | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE
SQD RTS RC             | | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE
SQD RTS XRC_SEND       | | CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE
SQD RTS XRC_RECV       | | CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE
SQD SQD *              | |
SQD SQD UD             | | PKEY_INDEX QKEY
SQD SQD UC             | | AV ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE
SQD SQD RC             | | PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC MAX_DEST_RD_ATOMIC ALT_PATH ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE
SQD SQD XRC_SEND       | | PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE
SQD SQD XRC_RECV       | | PORT AV TIMEOUT MAX_DEST_RD_ATOMIC ALT_PATH ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE
SQE RESET *            | |
SQE ERR *              | |
SQE RTS *              | |
SQE RTS UD             | | CUR_STATE QKEY
SQE RTS UC             | | CUR_STATE ACCESS_FLAGS
ERR RESET *            | |
ERR ERR *              | |
";

const TYPES: [&str; 6] = ["RC", "UC", "UD", "RAW_PACKET", "XRC_SEND", "XRC_RECV"];
const STATES: [&str; 7] = ["RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"];

type Table = BTreeMap<(String, String, String), (u32, u32)>;

fn bits_of(names: &str) -> u32 {
    names
        .split_whitespace()
        .map(|n| {
            BITS.iter()
                .find(|(b, _)| *b == n)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| panic!("typo in test table: {n}"))
        })
        .fold(0, |a, b| a | b)
}

/// (from, to, type) → (required, optional), expanded for every type.
fn build_expected() -> Table {
    let mut specific = BTreeMap::new();
    let mut wildcard = Vec::new();
    for line in KERNEL_TABLE.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split('|');
        let head: Vec<&str> = parts.next().unwrap().split_whitespace().collect();
        let req = bits_of(parts.next().unwrap());
        let opt = bits_of(parts.next().unwrap());
        let key = (head[0].to_string(), head[1].to_string());
        if head[2] == "*" {
            wildcard.push(key);
        } else {
            specific.insert((key.0, key.1, head[2].to_string()), (req, opt));
        }
    }
    let mut all = BTreeMap::new();
    for (from, to) in wildcard {
        for t in TYPES {
            let k = (from.clone(), to.clone(), t.to_string());
            let v = specific.get(&k).copied().unwrap_or((0, 0));
            all.insert(k, v);
        }
    }
    for k in specific.keys() {
        assert!(all.contains_key(k), "test table: {k:?} lacks a * line");
    }
    all
}

fn expected() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(build_expected)
}

fn state(name: &str) -> QpState {
    QpState::parse(name).expect("state name")
}

fn qp_type(name: &str) -> QpType {
    QpType::parse(name).expect("type name")
}

#[test]
fn attr_bits_match_verbs_h() {
    assert_eq!(AttrMask::ALL.bits(), ALL_BITS);
    for (name, bit) in BITS {
        assert_eq!(
            AttrMask::parse(&format!("IBV_QP_{name}")).map(AttrMask::bits),
            Ok(bit)
        );
    }
}

#[test]
fn every_cell_matches_the_kernel_table() {
    let expected = expected();
    let mut produced = BTreeMap::new();
    for rule in transition_table() {
        let key = (
            rule.from.name().to_string(),
            rule.to.name().to_string(),
            rule.qp_type.name().to_string(),
        );
        let req = rule.required.iter().fold(0, |a, n| a | n.bit());
        let opt = rule.optional.iter().fold(0, |a, n| a | n.bit());
        assert!(
            produced.insert(key.clone(), (req, opt)).is_none(),
            "duplicate rule {key:?}"
        );
    }
    for (key, want) in expected {
        assert_eq!(produced.get(key), Some(want), "cell {key:?}");
    }
    for key in produced.keys() {
        assert!(
            expected.contains_key(key),
            "engine lists invalid transition {key:?}"
        );
    }
    // 22 valid transitions in the kernel table, for 6 types.
    assert_eq!(expected.len(), 22 * 6);
}

#[test]
fn invalid_transitions_are_rejected() {
    let expected = expected();
    for from in STATES {
        for to in STATES {
            for t in TYPES {
                let key = (from.to_string(), to.to_string(), t.to_string());
                let result = check_modify(
                    qp_type(t),
                    state(from),
                    state(to),
                    AttrMask::from_bits(1).unwrap(),
                );
                match expected.get(&key) {
                    Some((0, _)) => assert!(result.is_ok(), "{key:?}"),
                    Some(_) => {
                        let e = result.expect_err("required attributes missing");
                        assert!(!e.invalid_transition);
                    }
                    None => {
                        let e = result.expect_err("invalid transition");
                        assert!(e.invalid_transition, "{key:?}");
                        assert_eq!(e.errno.value(), 22);
                    }
                }
            }
        }
    }
}

#[test]
fn single_bit_perturbations_of_every_cell() {
    for ((from, to, t), (req, opt)) in expected() {
        let minimal = req | 1;
        let check = |mask: u32| {
            check_modify(
                qp_type(t),
                state(from),
                state(to),
                AttrMask::from_bits(mask).unwrap(),
            )
        };
        let cur_ok = matches!(from.as_str(), "RTR" | "RTS" | "SQD" | "SQE");
        assert!(check(minimal).is_ok(), "{from}->{to} {t}");
        for (name, bit) in BITS {
            if bit == 1 {
                continue;
            }
            let with = check(minimal | bit);
            let allowed = (req | opt) & bit != 0 && (name != "CUR_STATE" || cur_ok);
            assert_eq!(with.is_ok(), allowed, "{from}->{to} {t} +{name}");
            if (req | opt) & bit == 0 {
                assert_eq!(with.unwrap_err().unexpected.bits(), bit);
            }
            if req & bit != 0 {
                let e = check(minimal & !bit).expect_err("required bit removed");
                assert_eq!(e.missing.bits(), bit, "{from}->{to} {t} -{name}");
            }
        }
    }
}

#[test]
fn json_form_of_a_rule() {
    let rules = transition_table();
    let rule = rules
        .iter()
        .find(|r| r.from == QpState::Reset && r.to == QpState::Init && r.qp_type == QpType::Rc)
        .expect("RC RESET->INIT");
    assert_eq!(
        serde_json::to_string(rule).unwrap(),
        r#"{"from":"RESET","to":"INIT","qp_type":"RC","required":["IBV_QP_ACCESS_FLAGS","IBV_QP_PKEY_INDEX","IBV_QP_PORT"],"optional":[]}"#
    );
    let xrc = rules
        .iter()
        .find(|r| r.from == QpState::Rtr && r.to == QpState::Rts && r.qp_type == QpType::XrcRecv)
        .expect("XRC_RECV RTR->RTS");
    let v: serde_json::Value = serde_json::to_value(xrc).unwrap();
    assert_eq!(v["qp_type"], "XRC_RECV");
    assert_eq!(
        v["required"],
        serde_json::json!(["IBV_QP_TIMEOUT", "IBV_QP_SQ_PSN"])
    );
    let text = serde_json::to_string(&rules).unwrap();
    let back: Vec<engine::qp::TransitionRule> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, rules);
    assert!(
        !text.contains("\"IBV_QP_STATE\""),
        "STATE is implicit, not listed"
    );
}

/// The acceptance rule, computed from the test's own table.
fn model_accepts(t: &str, from: &str, to: &str, mask: u32) -> bool {
    let next = if mask & 1 != 0 { to } else { from };
    let cur_state_bit = 1 << 1;
    if mask & cur_state_bit != 0 && !matches!(from, "RTR" | "RTS" | "SQD" | "SQE") {
        return false;
    }
    match expected().get(&(from.to_string(), next.to_string(), t.to_string())) {
        None => false,
        Some((req, opt)) => mask & req == *req && mask & !(req | opt | 1) == 0,
    }
}

fn mask_strategy() -> impl Strategy<Value = (usize, usize, usize, u32)> {
    let any_mask = any::<u32>().prop_map(|m| m & ALL_BITS);
    // Masks near the valid region: required and some optional bits, sometimes a required
    // bit dropped or a stray bit added.
    let near = (0..6usize, 0..7usize, 0..7usize, any::<u32>(), any::<u32>()).prop_map(
        |(t, f, to, keep, noise)| {
            let key = (
                STATES[f].to_string(),
                STATES[to].to_string(),
                TYPES[t].to_string(),
            );
            let (req, opt) = expected().get(&key).copied().unwrap_or((0, 0));
            let stray = if noise % 4 == 0 {
                BITS[(noise as usize / 4) % BITS.len()].1
            } else {
                0
            };
            let drop = if noise % 5 == 1 { req & keep } else { 0 };
            let mask = ((req | (opt & keep) | 1) & !drop) | stray;
            (t, f, to, mask)
        },
    );
    prop_oneof![(0..6usize, 0..7usize, 0..7usize, any_mask), near]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn accepted_exactly_when_required_within_mask_within_allowed(
        (t, f, to, mask) in mask_strategy()
    ) {
        let (t, from, to) = (TYPES[t], STATES[f], STATES[to]);
        let result = check_modify(
            qp_type(t),
            state(from),
            state(to),
            AttrMask::from_bits(mask).unwrap(),
        );
        prop_assert_eq!(result.is_ok(), model_accepts(t, from, to, mask));
        if let Err(e) = result {
            prop_assert_eq!(e.errno.value(), 22);
            prop_assert_eq!(e.missing.bits() & mask, 0);
            prop_assert_eq!(e.unexpected.bits() & !mask, 0);
            prop_assert!(!e.to_string().is_empty());
        }
    }
}
