//! The two-peer RC walkthroughs: success reaches RTS on both sides, each failure fails the
//! documented way.

use engine::qp::walkthrough::{Actor, StepOutcome, UD_ADDRESS_HANDLE};
use engine::qp::{connection_walkthrough, ConnectionStep, QpState, Walkthrough, WcStatus};

fn last(steps: &[ConnectionStep]) -> &ConnectionStep {
    steps.last().expect("steps")
}

fn failures(steps: &[ConnectionStep]) -> Vec<&ConnectionStep> {
    steps
        .iter()
        .filter(|s| matches!(s.outcome, StepOutcome::Failed { .. }))
        .collect()
}

/// States only move along transitions the QP state machine allows.
fn assert_monotone_bring_up(steps: &[ConnectionStep]) {
    let order = |s: QpState| match s {
        QpState::Reset => 0,
        QpState::Init => 1,
        QpState::Rtr => 2,
        QpState::Rts => 3,
        _ => 4,
    };
    for pair in steps.windows(2) {
        for (a, b) in [
            (pair[0].state_a, pair[1].state_a),
            (pair[0].state_b, pair[1].state_b),
        ] {
            if let (Some(a), Some(b)) = (a, b) {
                let (oa, ob) = (order(a), order(b));
                assert!(
                    ob == oa || ob == oa + 1 || b == QpState::Err || b == QpState::Reset,
                    "{a} -> {b} in one step ({})",
                    pair[1].title
                );
            }
        }
    }
}

#[test]
fn success_variants_reach_rts_on_both_sides() {
    for v in [Walkthrough::TcpBootstrap, Walkthrough::RdmaCm] {
        let steps = connection_walkthrough(v);
        assert!(failures(&steps).is_empty(), "{v:?}");
        let end = last(&steps);
        assert_eq!(end.state_a, Some(QpState::Rts), "{v:?}");
        assert_eq!(end.state_b, Some(QpState::Rts), "{v:?}");
        // The final Send is received by B and acknowledged to A.
        let ok: Vec<(Actor, WcStatus)> = end
            .completions
            .iter()
            .map(|c| (c.peer, c.completion.status))
            .collect();
        assert_eq!(
            ok,
            vec![(Actor::B, WcStatus::Success), (Actor::A, WcStatus::Success)]
        );
        assert_monotone_bring_up(&steps);
        // Every RESET -> INIT step shows the three attributes RC requires.
        for s in steps
            .iter()
            .filter(|s| s.title.contains("INIT") && s.title.contains("RESET"))
        {
            let names: Vec<&str> = s.values.iter().map(|v| v.name.as_str()).collect();
            for need in ["qp_access_flags", "pkey_index", "port_num"] {
                assert!(names.contains(&need), "{} lacks {need}", s.title);
            }
        }
    }
}

#[test]
fn tcp_exchange_carries_qpn_psn_gid_and_rkey() {
    let steps = connection_walkthrough(Walkthrough::TcpBootstrap);
    let ex = steps
        .iter()
        .find(|s| s.actor == Actor::Wire && s.title.contains("TCP"))
        .expect("exchange step");
    for field in ["qpn", "psn", "lid", "gid", "rkey", "addr"] {
        assert_eq!(
            ex.values.iter().filter(|v| v.name.ends_with(field)).count(),
            2,
            "{field} both ways"
        );
    }
    // A's rq_psn (at its INIT->RTR) is B's advertised PSN.
    let b_psn = ex
        .values
        .iter()
        .find(|v| v.name == "B→A psn")
        .map(|v| v.value.clone())
        .expect("B's psn");
    let a_rtr = steps
        .iter()
        .find(|s| s.actor == Actor::A && s.state_a == Some(QpState::Rtr))
        .expect("A's RTR step");
    let rq_psn = a_rtr
        .values
        .iter()
        .find(|v| v.name == "rq_psn")
        .expect("rq_psn shown");
    assert_eq!(
        format!("{:#x}", rq_psn.value.parse::<u32>().unwrap()),
        b_psn
    );
}

#[test]
fn missing_attribute_fails_with_einval_then_recovers() {
    let steps = connection_walkthrough(Walkthrough::MissingAttribute);
    let failed = failures(&steps);
    assert_eq!(failed.len(), 1);
    let f = failed[0];
    assert_eq!(f.actor, Actor::A);
    assert_eq!(
        f.state_a,
        Some(QpState::Init),
        "a failed modify changes nothing"
    );
    match &f.outcome {
        StepOutcome::Failed { message, errno } => {
            assert_eq!(errno.map(|e| e.value()), Some(22));
            assert!(message.contains("IBV_QP_MIN_RNR_TIMER"));
            assert!(message.contains("IBV_QP_MAX_DEST_RD_ATOMIC"));
        }
        StepOutcome::Ok => unreachable!(),
    }
    let end = last(&steps);
    assert_eq!(
        (end.state_a, end.state_b),
        (Some(QpState::Rts), Some(QpState::Rts))
    );
}

#[test]
fn send_before_peer_rtr_times_out_and_flushes() {
    let steps = connection_walkthrough(Walkthrough::SendBeforePeerRtr);
    assert!(failures(&steps).is_empty(), "every call itself succeeds");
    let wire = steps
        .iter()
        .find(|s| s.actor == Actor::Wire && !s.completions.is_empty())
        .expect("transmission step");
    assert_eq!(wire.state_b, Some(QpState::Init), "B not yet in RTR");
    assert_eq!(wire.state_a, Some(QpState::Err));
    let st: Vec<(u64, WcStatus)> = wire
        .completions
        .iter()
        .map(|c| (c.completion.wr_id, c.completion.status))
        .collect();
    assert_eq!(st[0], (1, WcStatus::RetryExcErr));
    assert!(st[1..].iter().all(|(_, s)| *s == WcStatus::WrFlushErr));
    assert_eq!(st.len(), 3, "second send and A's receive flushed");
    assert!(wire.completions.iter().all(|c| c.peer == Actor::A));
    assert_eq!(last(&steps).state_a, Some(QpState::Err));
}

#[test]
fn receiver_not_ready_exhausts_rnr_retry() {
    let steps = connection_walkthrough(Walkthrough::ReceiverNotReady);
    let wire = last(&steps);
    assert_eq!(wire.actor, Actor::Wire);
    assert_eq!(wire.completions.len(), 1);
    assert_eq!(
        wire.completions[0].completion.status,
        WcStatus::RnrRetryExcErr
    );
    assert_eq!(wire.state_a, Some(QpState::Err));
    assert_eq!(
        wire.state_b,
        Some(QpState::Rts),
        "the receiver is unaffected"
    );
    assert!(wire.values.iter().any(|v| v.name == "min_rnr_timer"));
}

#[test]
fn retry_exceeded_flushes_then_reset() {
    let steps = connection_walkthrough(Walkthrough::RetryExceeded);
    let wire = steps
        .iter()
        .find(|s| {
            s.actor == Actor::Wire && !s.completions.is_empty() && s.state_a == Some(QpState::Err)
        })
        .expect("failure step");
    let st: Vec<WcStatus> = wire
        .completions
        .iter()
        .map(|c| c.completion.status)
        .collect();
    assert_eq!(st[0], WcStatus::RetryExcErr);
    assert_eq!(st.len(), 4);
    assert!(st[1..].iter().all(|s| *s == WcStatus::WrFlushErr));
    let end = last(&steps);
    assert_eq!(end.state_a, Some(QpState::Reset));
    assert_eq!(end.state_b, Some(QpState::Rts));
}

#[test]
fn walkthroughs_serialize() {
    for v in Walkthrough::ALL {
        let steps = connection_walkthrough(v);
        let json = serde_json::to_string(&steps).unwrap();
        let back: Vec<ConnectionStep> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, steps);
    }
    assert!(UD_ADDRESS_HANDLE.contains("ibv_create_ah"));
}
