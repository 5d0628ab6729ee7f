//! Behaviour of the simulated QP: flushes, SQE, SQD drain, async events, value errors.

use engine::qp::sim::{
    AddressVector, ModifyAttrs, Qp, QpError, QpEvent, RecvWr, Response, SendOpcode, SendWr,
    UdDestination, WorkQueue,
};
use engine::qp::{AsyncEvent, QpState, QpType, WcStatus};

fn send(wr_id: u64) -> SendWr {
    SendWr {
        wr_id,
        opcode: SendOpcode::Send,
        length: 256,
        ud: Some(UdDestination {
            ah: AddressVector::default(),
            remote_qpn: 0x99,
            remote_qkey: 0x1111_1111,
        }),
    }
}

fn recv(wr_id: u64) -> RecvWr {
    RecvWr {
        wr_id,
        length: 4096,
    }
}

/// Brings a QP to RTS with the attributes its type requires.
fn ready(qp_type: QpType) -> Qp {
    let mut qp = Qp::new(qp_type, 0x42);
    let init = match qp_type {
        QpType::Ud => ModifyAttrs {
            pkey_index: Some(0),
            port_num: Some(1),
            qkey: Some(0x1111_1111),
            ..ModifyAttrs::to(QpState::Init)
        },
        _ => ModifyAttrs {
            pkey_index: Some(0),
            port_num: Some(1),
            qp_access_flags: Some(0),
            ..ModifyAttrs::to(QpState::Init)
        },
    };
    qp.modify(&init).expect("RESET->INIT");
    let rtr = match qp_type {
        QpType::Ud => ModifyAttrs::to(QpState::Rtr),
        // XRC_SEND has no responder side: no MAX_DEST_RD_ATOMIC or MIN_RNR_TIMER.
        QpType::Uc | QpType::XrcSend => ModifyAttrs {
            ah_attr: Some(AddressVector::default()),
            path_mtu: Some(3),
            dest_qp_num: Some(0x43),
            rq_psn: Some(0),
            ..ModifyAttrs::to(QpState::Rtr)
        },
        _ => ModifyAttrs {
            ah_attr: Some(AddressVector::default()),
            path_mtu: Some(3),
            dest_qp_num: Some(0x43),
            rq_psn: Some(0),
            max_dest_rd_atomic: Some(1),
            min_rnr_timer: Some(12),
            ..ModifyAttrs::to(QpState::Rtr)
        },
    };
    qp.modify(&rtr).expect("INIT->RTR");
    let rts = match qp_type {
        QpType::Ud | QpType::Uc => ModifyAttrs {
            sq_psn: Some(0),
            ..ModifyAttrs::to(QpState::Rts)
        },
        _ => ModifyAttrs {
            timeout: Some(14),
            retry_cnt: Some(7),
            rnr_retry: Some(7),
            sq_psn: Some(0),
            max_rd_atomic: Some(1),
            ..ModifyAttrs::to(QpState::Rts)
        },
    };
    qp.modify(&rts).expect("RTR->RTS");
    assert_eq!(qp.state(), QpState::Rts);
    qp
}

#[test]
fn modify_to_err_flushes_everything() {
    let mut qp = ready(QpType::Rc);
    qp.post_recv(recv(10)).unwrap();
    qp.post_recv(recv(11)).unwrap();
    qp.post_send(send(1)).unwrap();
    qp.post_send(send(2)).unwrap();
    let out = qp.modify(&ModifyAttrs::to(QpState::Err)).unwrap();
    assert_eq!(out.after, QpState::Err);
    let ids: Vec<u64> = out.completions.iter().map(|c| c.wr_id).collect();
    assert_eq!(ids, vec![1, 2, 10, 11]);
    assert!(out
        .completions
        .iter()
        .all(|c| c.status == WcStatus::WrFlushErr && c.opcode.is_none() && c.byte_len.is_none()));
    assert!(qp.outstanding_sends().is_empty() && qp.outstanding_recvs().is_empty());
    // Posting in ERR completes at once, flushed.
    let late = qp.post_send(send(3)).unwrap();
    assert_eq!(late.completions.len(), 1);
    assert_eq!(late.completions[0].status, WcStatus::WrFlushErr);
    let late = qp.post_recv(recv(12)).unwrap();
    assert_eq!(late.completions[0].queue, WorkQueue::Recv);
}

#[test]
fn reset_discards_without_completions_and_clears_attributes() {
    let mut qp = ready(QpType::Rc);
    qp.post_send(send(1)).unwrap();
    let out = qp.modify(&ModifyAttrs::to(QpState::Reset)).unwrap();
    assert!(out.completions.is_empty());
    assert_eq!(qp.state(), QpState::Reset);
    assert_eq!(qp.attrs(), &ModifyAttrs::default());
    assert!(qp.outstanding_sends().is_empty());
}

#[test]
fn retry_exceeded_fails_oldest_and_flushes_rest() {
    let mut qp = ready(QpType::Rc);
    qp.post_recv(recv(10)).unwrap();
    for id in 1..=3 {
        qp.post_send(send(id)).unwrap();
    }
    let out = qp.apply(QpEvent::RetryExceeded).unwrap();
    assert_eq!(out.after, QpState::Err);
    let got: Vec<(u64, WcStatus)> = out
        .completions
        .iter()
        .map(|c| (c.wr_id, c.status))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, WcStatus::RetryExcErr),
            (2, WcStatus::WrFlushErr),
            (3, WcStatus::WrFlushErr),
            (10, WcStatus::WrFlushErr)
        ]
    );
    // Unreliable QPs have no ACKs to time out on.
    let mut ud = ready(QpType::Ud);
    ud.post_send(send(1)).unwrap();
    assert!(matches!(
        ud.apply(QpEvent::RetryExceeded),
        Err(QpError::Event { .. })
    ));
}

#[test]
fn rnr_and_remote_access_errors_end_in_err() {
    for (event, status) in [
        (QpEvent::RnrRetryExceeded, WcStatus::RnrRetryExcErr),
        (QpEvent::RemoteAccessError, WcStatus::RemAccessErr),
    ] {
        let mut qp = ready(QpType::XrcSend);
        qp.post_send(send(5)).unwrap();
        let out = qp.apply(event).unwrap();
        assert_eq!(out.completions[0].status, status);
        assert_eq!(qp.state(), QpState::Err);
    }
}

#[test]
fn ud_send_error_parks_in_sqe_and_receives_keep_working() {
    let mut qp = ready(QpType::Ud);
    qp.post_recv(recv(10)).unwrap();
    qp.post_send(send(1)).unwrap();
    qp.post_send(send(2)).unwrap();
    let out = qp
        .apply(QpEvent::SendError {
            status: WcStatus::LocLenErr,
        })
        .unwrap();
    assert_eq!(out.after, QpState::Sqe);
    assert_eq!(out.completions[0].status, WcStatus::LocLenErr);
    assert_eq!(out.completions[1].status, WcStatus::WrFlushErr);
    assert_eq!(out.completions.len(), 2, "the receive is not flushed");
    // The receive side still works in SQE.
    let rx = qp.apply(QpEvent::MessageArrived { byte_len: 100 }).unwrap();
    assert_eq!(rx.response, Some(Response::Accepted));
    assert_eq!(rx.completions[0].status, WcStatus::Success);
    assert_eq!(rx.completions[0].byte_len, Some(100));
    // Sends posted in SQE are flushed at once.
    let late = qp.post_send(send(3)).unwrap();
    assert_eq!(late.completions[0].status, WcStatus::WrFlushErr);
    // SQE -> RTS, telling the driver the state with IBV_QP_CUR_STATE.
    let back = ModifyAttrs {
        cur_qp_state: Some(QpState::Sqe),
        ..ModifyAttrs::to(QpState::Rts)
    };
    qp.modify(&back).unwrap();
    assert_eq!(qp.state(), QpState::Rts);
}

#[test]
fn rc_send_error_goes_to_err_not_sqe() {
    let mut qp = ready(QpType::Rc);
    qp.post_send(send(1)).unwrap();
    let out = qp
        .apply(QpEvent::SendError {
            status: WcStatus::LocProtErr,
        })
        .unwrap();
    assert_eq!(out.after, QpState::Err);
}

#[test]
fn sqd_drains_then_notifies() {
    let mut qp = ready(QpType::Rc);
    qp.post_send(send(1)).unwrap();
    qp.post_send(send(2)).unwrap();
    let to_sqd = ModifyAttrs {
        en_sqd_async_notify: Some(true),
        ..ModifyAttrs::to(QpState::Sqd)
    };
    let out = qp.modify(&to_sqd).unwrap();
    assert!(out.async_events.is_empty(), "two sends still in flight");
    assert!(qp.is_draining());
    // New sends are held, not started.
    qp.post_send(send(3)).unwrap();
    let first = qp.apply(QpEvent::SendCompleted).unwrap();
    assert!(first.async_events.is_empty());
    let second = qp.apply(QpEvent::SendCompleted).unwrap();
    assert_eq!(second.async_events, vec![AsyncEvent::SqDrained]);
    assert!(!qp.is_draining());
    // The held send is not in flight: nothing left to complete in SQD.
    assert!(qp.apply(QpEvent::SendCompleted).is_err());
    qp.modify(&ModifyAttrs::to(QpState::Rts)).unwrap();
    let third = qp.apply(QpEvent::SendCompleted).unwrap();
    assert_eq!(third.completions[0].wr_id, 3);
}

#[test]
fn sqd_with_nothing_in_flight_drains_at_once() {
    let mut qp = ready(QpType::Uc);
    let out = qp
        .modify(&ModifyAttrs {
            en_sqd_async_notify: Some(true),
            ..ModifyAttrs::to(QpState::Sqd)
        })
        .unwrap();
    assert_eq!(out.async_events, vec![AsyncEvent::SqDrained]);
    // Without the notify flag, no event.
    let mut qp = ready(QpType::Uc);
    let out = qp.modify(&ModifyAttrs::to(QpState::Sqd)).unwrap();
    assert!(out.async_events.is_empty());
}

#[test]
fn first_packet_in_rtr_raises_comm_est() {
    let mut qp = Qp::new(QpType::Rc, 1);
    qp.modify(&ModifyAttrs {
        pkey_index: Some(0),
        port_num: Some(1),
        qp_access_flags: Some(0),
        ..ModifyAttrs::to(QpState::Init)
    })
    .unwrap();
    qp.post_recv(recv(1)).unwrap();
    qp.post_recv(recv(2)).unwrap();
    // In INIT incoming packets are dropped.
    let dropped = qp.apply(QpEvent::MessageArrived { byte_len: 8 }).unwrap();
    assert_eq!(dropped.response, Some(Response::Dropped));
    assert!(dropped.completions.is_empty());
    qp.modify(&ModifyAttrs {
        ah_attr: Some(AddressVector::default()),
        path_mtu: Some(5),
        dest_qp_num: Some(2),
        rq_psn: Some(0),
        max_dest_rd_atomic: Some(0),
        min_rnr_timer: Some(0),
        ..ModifyAttrs::to(QpState::Rtr)
    })
    .unwrap();
    let first = qp.apply(QpEvent::MessageArrived { byte_len: 8 }).unwrap();
    assert_eq!(first.async_events, vec![AsyncEvent::CommEst]);
    let second = qp.apply(QpEvent::MessageArrived { byte_len: 8 }).unwrap();
    assert!(second.async_events.is_empty());
    // No receive left: a reliable QP answers RNR NAK with its min_rnr_timer.
    let third = qp.apply(QpEvent::MessageArrived { byte_len: 8 }).unwrap();
    assert_eq!(third.response, Some(Response::RnrNak { min_rnr_timer: 0 }));
}

#[test]
fn fatal_error_raises_event_and_flushes() {
    let mut qp = ready(QpType::Uc);
    qp.post_send(send(1)).unwrap();
    qp.post_recv(recv(2)).unwrap();
    let out = qp.apply(QpEvent::Fatal).unwrap();
    assert_eq!(out.async_events, vec![AsyncEvent::QpFatal]);
    assert_eq!(out.after, QpState::Err);
    assert!(out
        .completions
        .iter()
        .all(|c| c.status == WcStatus::WrFlushErr));
    assert_eq!(out.completions.len(), 2);
}

#[test]
fn incoming_access_violation_raises_access_err() {
    let mut qp = ready(QpType::Rc);
    let out = qp.apply(QpEvent::IncomingAccessViolation).unwrap();
    assert_eq!(out.async_events, vec![AsyncEvent::QpAccessErr]);
    assert_eq!(qp.state(), QpState::Err);
}

#[test]
fn rejected_modify_changes_nothing() {
    let mut qp = Qp::new(QpType::Rc, 1);
    let before = qp.clone();
    // Missing ACCESS_FLAGS.
    let err = qp
        .modify(&ModifyAttrs {
            pkey_index: Some(0),
            port_num: Some(1),
            ..ModifyAttrs::to(QpState::Init)
        })
        .unwrap_err();
    assert!(matches!(err, QpError::Modify(ref e) if e.missing.names() == ["IBV_QP_ACCESS_FLAGS"]));
    assert_eq!(qp, before);
    // A value out of range: the mask is fine, the value is not.
    let mut qp = ready(QpType::Rc);
    let before = qp.clone();
    let err = qp
        .modify(&ModifyAttrs {
            min_rnr_timer: Some(32),
            ..ModifyAttrs::to(QpState::Rts)
        })
        .unwrap_err();
    match err {
        QpError::Value { error, errno } => {
            assert_eq!(
                error.to_string(),
                "min_rnr_timer: 32 does not fit in 5 bits"
            );
            assert_eq!(errno.value(), 22);
        }
        other => panic!("expected a value error, got {other:?}"),
    }
    assert_eq!(qp, before);
    let err = qp
        .modify(&ModifyAttrs {
            max_dest_rd_atomic: Some(200),
            ..ModifyAttrs::to(QpState::Sqd)
        })
        .unwrap_err();
    // RTS -> SQD does not accept MAX_DEST_RD_ATOMIC at all: the table check comes first.
    assert!(matches!(err, QpError::Modify(_)));
}

#[test]
fn cur_state_claim_must_match() {
    let mut qp = ready(QpType::Ud);
    let err = qp
        .modify(&ModifyAttrs {
            cur_qp_state: Some(QpState::Sqe),
            ..ModifyAttrs::to(QpState::Rts)
        })
        .unwrap_err();
    assert!(matches!(
        err,
        QpError::CurStateMismatch {
            claimed: QpState::Sqe,
            actual: QpState::Rts,
            ..
        }
    ));
}

#[test]
fn ud_send_needs_a_destination_and_only_sends() {
    let mut qp = ready(QpType::Ud);
    let mut wr = send(1);
    wr.ud = None;
    assert!(matches!(qp.post_send(wr), Err(QpError::Post { .. })));
    let mut wr = send(2);
    wr.opcode = SendOpcode::RdmaWrite;
    assert!(qp.post_send(wr).is_err());
    // UD drops a message when no receive is posted.
    let out = qp.apply(QpEvent::MessageArrived { byte_len: 10 }).unwrap();
    assert_eq!(out.response, Some(Response::Dropped));
    // UC cannot RDMA Read.
    let mut uc = ready(QpType::Uc);
    let mut wr = send(3);
    wr.opcode = SendOpcode::RdmaRead;
    assert!(uc.post_send(wr).is_err());
}

#[test]
fn oversized_psn_is_truncated_like_the_kernel() {
    let mut qp = Qp::new(QpType::Uc, 1);
    qp.modify(&ModifyAttrs {
        pkey_index: Some(0),
        port_num: Some(1),
        qp_access_flags: Some(0),
        ..ModifyAttrs::to(QpState::Init)
    })
    .unwrap();
    let out = qp
        .modify(&ModifyAttrs {
            ah_attr: Some(AddressVector::default()),
            path_mtu: Some(3),
            dest_qp_num: Some(2),
            rq_psn: Some(0x0100_0005),
            ..ModifyAttrs::to(QpState::Rtr)
        })
        .unwrap();
    assert_eq!(qp.attrs().rq_psn, Some(5));
    assert!(out.notes.iter().any(|n| n.contains("24 bits")));
}
