//! The /qp view's tasks, checked on each move the learner makes the QP take.

use super::QpState;
use crate::exercise::Exercise;

/// One thing that happened to the page's QP: an `ibv_modify_qp()` call (accepted or
/// refused) or an event (a post, a completion, an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpMove {
    pub before: QpState,
    pub after: QpState,
    /// The state a modify call asked for; `None` for an event.
    pub modify_to: Option<QpState>,
    /// The engine refused the call or event (kernel table, value rules, cur_qp_state).
    pub refused: bool,
}

/// What the /qp view asks the learner to try, in order.
pub const EXERCISES: [Exercise<QpMove>; 3] = [
    Exercise {
        id: "bring-up",
        task: "Bring the QP up to RTS, one ibv_modify_qp() call per state.",
        lesson: "INIT binds the QP to a port and P_Key, RTR tells it whom it receives from \
                 (for RC the peer's QPN, PSN and path), RTS sets up its send side. The \
                 receive side comes first, so a peer's first packet cannot arrive too early.",
        done: |m| m.after == QpState::Rts && m.before != QpState::Rts && !m.refused,
    },
    Exercise {
        id: "refused-rtr",
        task: "Make INIT → RTR fail on purpose: untick an attribute the kernel requires \
               (or type a value it rejects) and make the call.",
        lesson: "Every modify is checked against the kernel's transition table: the mask must \
                 carry each attribute the move requires and nothing it does not allow. A \
                 refused call changes nothing; the QP stays in INIT.",
        done: |m| m.before == QpState::Init && m.modify_to == Some(QpState::Rtr) && m.refused,
    },
    Exercise {
        id: "recover-from-error",
        task: "Send the QP to ERROR (an event will do it), then bring it back to RESET.",
        lesson: "In ERROR every outstanding work request completes with IBV_WC_WR_FLUSH_ERR. \
                 The only modify out of ERROR is to RESET, which empties the queues; from \
                 there the bring-up starts again.",
        done: |m| m.before == QpState::Err && m.after == QpState::Reset && !m.refused,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::Progress;

    fn moved(before: QpState, after: QpState, modify_to: Option<QpState>, refused: bool) -> QpMove {
        QpMove {
            before,
            after,
            modify_to,
            refused,
        }
    }

    #[test]
    fn each_task_is_done_by_its_own_move_only() {
        let p = Progress::default();
        // A bring-up step short of RTS, and an accepted INIT → RTR, fulfil nothing.
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Reset, QpState::Init, Some(QpState::Init), false),
        );
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Init, QpState::Rtr, Some(QpState::Rtr), false),
        );
        assert_eq!(p.count(), 0);
        // A refused INIT → RTS is not the task either.
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Init, QpState::Init, Some(QpState::Rts), true),
        );
        assert_eq!(p.count(), 0);
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Init, QpState::Init, Some(QpState::Rtr), true),
        );
        assert!(p.is_done(1) && p.count() == 1);
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Rtr, QpState::Rts, Some(QpState::Rts), false),
        );
        assert!(p.is_done(0));
        // An event that leaves ERROR in ERROR is not the recovery.
        let p = p.observe(&EXERCISES, &moved(QpState::Rts, QpState::Err, None, false));
        assert!(!p.is_done(2));
        let p = p.observe(
            &EXERCISES,
            &moved(QpState::Err, QpState::Reset, Some(QpState::Reset), false),
        );
        assert_eq!(p.count(), 3);
    }
}
