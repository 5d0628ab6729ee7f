//! Which `ibv_modify_qp()` calls the kernel accepts: the transition table and the mask check.
//!
//! Source of every cell: `qp_state_table` and `ib_modify_qp_is_ok()` in the Linux kernel,
//! `drivers/infiniband/core/verbs.c`. Every provider driver (mlx5, rxe, irdma, …) calls
//! `ib_modify_qp_is_ok()` before touching hardware, so a mask it rejects fails with `EINVAL`
//! on every device. The meaning of the states is IBTA Vol. 1 §10.3; the Modify QP verb and
//! its per-transition attribute lists are in IBTA Vol. 1 ch. 11 (verbs) and ibv_modify_qp(3).

use core::fmt;
use serde::{Deserialize, Serialize};

use super::attr::{AttrMask, AttrName};
use super::state::{QpState, QpType};

/// An `errno` value the verbs layer returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Errno {
    /// `EINVAL` (22, Linux `include/uapi/asm-generic/errno-base.h`): invalid argument.
    #[serde(rename = "EINVAL")]
    Einval,
}

impl Errno {
    /// The numeric value on Linux.
    pub fn value(self) -> i32 {
        match self {
            Errno::Einval => 22,
        }
    }

    /// The symbolic name.
    pub fn name(self) -> &'static str {
        match self {
            Errno::Einval => "EINVAL",
        }
    }

    /// What `strerror()` prints for it on Linux/glibc.
    pub fn message(self) -> &'static str {
        match self {
            Errno::Einval => "Invalid argument",
        }
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}, {})", self.value(), self.name(), self.message())
    }
}

/// What one cell of the kernel table demands of the mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Bits that must be set.
    pub required: AttrMask,
    /// Bits that may be set.
    pub optional: AttrMask,
}

const NONE: Cell = Cell {
    required: AttrMask::EMPTY,
    optional: AttrMask::EMPTY,
};

fn req(required: AttrMask) -> Cell {
    Cell {
        required,
        optional: AttrMask::EMPTY,
    }
}

fn opt(optional: AttrMask) -> Cell {
    Cell {
        required: AttrMask::EMPTY,
        optional,
    }
}

/// The kernel's table cell for `from → to` on `qp_type`, or `None` when the transition is
/// not valid at all (`.valid = 0`).
///
/// `IBV_QP_STATE` never appears in a cell: `ib_modify_qp_is_ok()` always tolerates it.
pub fn kernel_cell(from: QpState, to: QpState, qp_type: QpType) -> Option<Cell> {
    use AttrName::*;
    use QpState::*;
    use QpType::*;

    // Shorthands for the groups that recur below.
    let m = AttrMask::of;
    // The types whose responder side accepts RDMA Read/Atomic and sends RNR NAKs.
    let responder = matches!(qp_type, Rc | XrcRecv);

    let cell = match (from, to) {
        // Reset and Error may always be entered from any state except that RESET → ERR is
        // not in the kernel table.
        (_, Reset) => NONE,
        (Reset, Err) => return None,
        (_, Err) => NONE,

        (Reset, Init) => match qp_type {
            Ud => req(m(&[PkeyIndex, Port, Qkey])),
            RawPacket => req(m(&[Port])),
            Rc | Uc | XrcSend | XrcRecv => req(m(&[PkeyIndex, Port, AccessFlags])),
        },
        (Init, Init) => match qp_type {
            Ud => opt(m(&[PkeyIndex, Port, Qkey])),
            RawPacket => NONE,
            Rc | Uc | XrcSend | XrcRecv => opt(m(&[PkeyIndex, Port, AccessFlags])),
        },
        (Init, Rtr) => match qp_type {
            Ud => opt(m(&[PkeyIndex, Qkey])),
            RawPacket => NONE,
            _ => {
                let mut required = m(&[Av, PathMtu, DestQpn, RqPsn]);
                if responder {
                    required = required | MaxDestRdAtomic | MinRnrTimer;
                }
                Cell {
                    required,
                    optional: m(&[AltPath, AccessFlags, PkeyIndex]),
                }
            }
        },
        (Rtr, Rts) => match qp_type {
            Ud => Cell {
                required: m(&[SqPsn]),
                optional: m(&[CurState, Qkey]),
            },
            Uc => Cell {
                required: m(&[SqPsn]),
                optional: m(&[CurState, AltPath, AccessFlags, PathMigState]),
            },
            Rc | XrcSend => {
                let mut optional = m(&[CurState, AltPath, AccessFlags, PathMigState]);
                if responder {
                    optional = optional | MinRnrTimer;
                }
                Cell {
                    required: m(&[Timeout, RetryCnt, RnrRetry, SqPsn, MaxQpRdAtomic]),
                    optional,
                }
            }
            XrcRecv => Cell {
                required: m(&[Timeout, SqPsn]),
                optional: m(&[CurState, AltPath, AccessFlags, MinRnrTimer, PathMigState]),
            },
            RawPacket => opt(m(&[RateLimit])),
        },
        // RTS → RTS, SQD → RTS and SQE → RTS re-enter RTS changing only what a running QP
        // may change.
        (Rts, Rts) | (Sqd, Rts) => match qp_type {
            Ud => opt(m(&[CurState, Qkey])),
            RawPacket if from == Rts => opt(m(&[RateLimit])),
            RawPacket => NONE,
            _ => {
                let mut optional = m(&[CurState, AccessFlags, AltPath, PathMigState]);
                if responder {
                    optional = optional | MinRnrTimer;
                }
                opt(optional)
            }
        },
        (Sqe, Rts) => match qp_type {
            Ud => opt(m(&[CurState, Qkey])),
            Uc => opt(m(&[CurState, AccessFlags])),
            Rc | RawPacket | XrcSend | XrcRecv => NONE,
        },
        (Rts, Sqd) => {
            if qp_type == RawPacket {
                NONE
            } else {
                opt(m(&[EnSqdAsyncNotify]))
            }
        }
        // While drained, almost everything about the path may change.
        (Sqd, Sqd) => match qp_type {
            Ud => opt(m(&[PkeyIndex, Qkey])),
            Uc => opt(m(&[Av, AltPath, AccessFlags, PkeyIndex, PathMigState])),
            Rc => opt(m(&[
                Port,
                Av,
                Timeout,
                RetryCnt,
                RnrRetry,
                MaxQpRdAtomic,
                MaxDestRdAtomic,
                AltPath,
                AccessFlags,
                PkeyIndex,
                MinRnrTimer,
                PathMigState,
            ])),
            XrcSend => opt(m(&[
                Port,
                Av,
                Timeout,
                RetryCnt,
                RnrRetry,
                MaxQpRdAtomic,
                AltPath,
                AccessFlags,
                PkeyIndex,
                PathMigState,
            ])),
            XrcRecv => opt(m(&[
                Port,
                Av,
                Timeout,
                MaxDestRdAtomic,
                AltPath,
                AccessFlags,
                PkeyIndex,
                MinRnrTimer,
                PathMigState,
            ])),
            RawPacket => NONE,
        },
        _ => return None,
    };
    Some(cell)
}

/// The states from which `IBV_QP_CUR_STATE` may be passed at all.
///
/// `ib_modify_qp_is_ok()` rejects the bit unless the (claimed) current state is RTR, RTS,
/// SQD or SQE, before it even looks at the table.
pub fn cur_state_allowed_from(state: QpState) -> bool {
    matches!(
        state,
        QpState::Rtr | QpState::Rts | QpState::Sqd | QpState::Sqe
    )
}

/// The state the kernel checks a modify against.
///
/// Drivers compute `cur_state = mask & CUR_STATE ? attr->cur_qp_state : qp->state` and
/// `new_state = mask & STATE ? attr->qp_state : cur_state` before calling
/// `ib_modify_qp_is_ok()` (e.g. `rxe_qp_chk_attr()` in `drivers/infiniband/sw/rxe/rxe_qp.c`):
/// a mask without `IBV_QP_STATE` is an attribute change that keeps the current state.
pub fn effective_next_state(current: QpState, requested: QpState, mask: AttrMask) -> QpState {
    if mask.contains(AttrName::State) {
        requested
    } else {
        current
    }
}

/// Why `ibv_modify_qp()` failed: every problem the kernel's check would trip on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModifyError {
    /// QP type.
    pub qp_type: QpType,
    /// The current state the check used.
    pub from: QpState,
    /// The state the check used as target (the current state when `IBV_QP_STATE` is absent).
    pub to: QpState,
    /// The `qp_state` value the caller passed (ignored by the kernel without `IBV_QP_STATE`).
    pub requested: QpState,
    /// The mask as given.
    pub mask: AttrMask,
    /// The kernel table has no `from → to` entry.
    pub invalid_transition: bool,
    /// `IBV_QP_CUR_STATE` was set while `from` is not RTR, RTS, SQD or SQE.
    pub cur_state_not_allowed: bool,
    /// Required attributes absent from the mask.
    pub missing: AttrMask,
    /// Attributes in the mask that this transition neither requires nor allows.
    pub unexpected: AttrMask,
    /// Always `EINVAL`: the kernel reports every failed table check that way.
    pub errno: Errno,
}

impl ModifyError {
    /// A plain-language explanation for a learner, one sentence per problem.
    pub fn explanation(&self) -> String {
        let mut parts = Vec::new();
        if !self.mask.contains(AttrName::State) && self.requested != self.from {
            parts.push(format!(
                "IBV_QP_STATE is not in the mask, so qp_state = {} is ignored and the kernel \
                 checks a {} → {} attribute change instead of a state change.",
                self.requested, self.from, self.from
            ));
        }
        if self.invalid_transition {
            parts.push(format!(
                "{} → {} is not a transition the QP state machine allows{}.",
                self.from,
                self.to,
                transition_hint(self.from, self.to)
            ));
        }
        if self.cur_state_not_allowed {
            parts.push(format!(
                "IBV_QP_CUR_STATE may only be used when the QP is in RTR, RTS, SQD or SQE \
                 (it lets you tell the driver the QP moved on its own, e.g. RTS → SQE); \
                 the QP is in {}.",
                self.from
            ));
        }
        if !self.missing.is_empty() {
            parts.push(format!(
                "For {} {} → {} you must also set: {}.",
                self.qp_type,
                self.from,
                self.to,
                self.missing
                    .iter()
                    .map(|a| format!("{} (attr.{})", a.name(), a.field()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !self.unexpected.is_empty() {
            parts.push(format!(
                "These bits are not accepted for {} {} → {}: {}; remove them (a bit the \
                 transition does not list is an error, not ignored).",
                self.qp_type, self.from, self.to, self.unexpected
            ));
        }
        parts.push(
            "ibv_modify_qp() changed nothing: a rejected modify leaves every attribute and \
             the state as they were."
                .to_string(),
        );
        parts.join(" ")
    }
}

fn transition_hint(from: QpState, to: QpState) -> &'static str {
    match (from, to) {
        (QpState::Reset, QpState::Err) => {
            " (from RESET the only ways on are INIT or RESET; the kernel table has no RESET → ERR)"
        }
        (QpState::Reset, _) | (QpState::Init, QpState::Rts) => {
            " (a QP must go RESET → INIT → RTR → RTS one step at a time)"
        }
        (QpState::Err, _) => " (from ERR the only way back is RESET)",
        (_, QpState::Sqe) => " (SQE is entered only by the hardware after a send error)",
        _ => "",
    }
}

impl fmt::Display for ModifyError {
    /// Reads like what a verbs user sees: the failing call, errno, then the details.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ibv_modify_qp({} QP, {} -> {}, attr_mask = {}) failed: errno {}",
            self.qp_type, self.from, self.to, self.mask, self.errno
        )?;
        if self.invalid_transition {
            write!(f, "; invalid transition {} -> {}", self.from, self.to)?;
        }
        if self.cur_state_not_allowed {
            write!(f, "; IBV_QP_CUR_STATE not allowed from {}", self.from)?;
        }
        if !self.missing.is_empty() {
            write!(f, "; missing {}", self.missing)?;
        }
        if !self.unexpected.is_empty() {
            write!(f, "; unexpected {}", self.unexpected)?;
        }
        Ok(())
    }
}

impl std::error::Error for ModifyError {}

/// Checks a modify the way `ib_modify_qp_is_ok()` does.
///
/// `current` is the QP's state (or the `cur_qp_state` the caller claims, when the mask has
/// `IBV_QP_CUR_STATE`), `requested` the `qp_state` field. Accepted exactly when
/// 1. `IBV_QP_CUR_STATE` is absent, or `current` is RTR, RTS, SQD or SQE;
/// 2. the table has an entry `current → next`, with `next` from [`effective_next_state`];
/// 3. required ⊆ mask ⊆ required ∪ optional ∪ {`IBV_QP_STATE`}.
///
/// On failure every problem is reported at once (the kernel stops at the first; the result,
/// `EINVAL`, is the same).
pub fn check_modify(
    qp_type: QpType,
    current: QpState,
    requested: QpState,
    mask: AttrMask,
) -> Result<(), ModifyError> {
    let to = effective_next_state(current, requested, mask);
    let cur_state_not_allowed =
        mask.contains(AttrName::CurState) && !cur_state_allowed_from(current);
    let (invalid_transition, missing, unexpected) = match kernel_cell(current, to, qp_type) {
        None => (true, AttrMask::EMPTY, AttrMask::EMPTY),
        Some(cell) => (
            false,
            cell.required.difference(mask),
            mask.difference(cell.required | cell.optional | AttrName::State),
        ),
    };
    if !invalid_transition && !cur_state_not_allowed && missing.is_empty() && unexpected.is_empty()
    {
        return Ok(());
    }
    Err(ModifyError {
        qp_type,
        from: current,
        to,
        requested,
        mask,
        invalid_transition,
        cur_state_not_allowed,
        missing,
        unexpected,
        errno: Errno::Einval,
    })
}

/// One valid transition for one QP type, as `native-probe qp-table --json` prints it.
///
/// Serializes to `{"from":"RESET","to":"INIT","qp_type":"RC","required":[…],"optional":[…]}`.
/// `IBV_QP_STATE` is not listed: it is what selects the transition and the kernel accepts
/// it in every cell. A mask without it keeps the current state (see
/// [`effective_next_state`]), so a state change needs it in practice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitionRule {
    /// Current state.
    pub from: QpState,
    /// Next state.
    pub to: QpState,
    /// QP type.
    pub qp_type: QpType,
    /// Attributes that must be in the mask, in bit order.
    pub required: Vec<AttrName>,
    /// Attributes that may be in the mask, in bit order.
    pub optional: Vec<AttrName>,
}

/// Every valid transition for every QP type, ordered by `from`, `to`, then type.
///
/// A transition the kernel marks valid for all types appears for all six even where a type
/// can never reach `from` (RC is never in SQE, yet the kernel accepts RC SQE → RTS with an
/// otherwise empty mask).
pub fn transition_table() -> Vec<TransitionRule> {
    let mut rules = Vec::new();
    for from in QpState::ALL {
        for to in QpState::ALL {
            for qp_type in QpType::ALL {
                if let Some(cell) = kernel_cell(from, to, qp_type) {
                    rules.push(TransitionRule {
                        from,
                        to,
                        qp_type,
                        required: cell.required.iter().collect(),
                        optional: cell.optional.iter().collect(),
                    });
                }
            }
        }
    }
    rules
}

/// Why `ibv_modify_qp()` cannot take a QP of `qp_type` from `from` to `to`: the kernel table
/// has no such entry, so every mask fails with `EINVAL`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransitionRefusal {
    /// QP type.
    pub qp_type: QpType,
    /// The state the QP is in.
    pub from: QpState,
    /// The state asked for.
    pub to: QpState,
}

impl TransitionRefusal {
    /// What the state machine allows instead, in a learner's words.
    pub fn reason(&self) -> String {
        use QpState::*;
        let (from, to) = (self.from, self.to);
        match (from, to) {
            (Reset, Err) => {
                "the kernel table has no RESET → ERR; from RESET a modify goes to INIT (or stays in RESET)"
                    .to_string()
            }
            (Err, Err) => "the QP is in ERR already; the only way out is a modify to RESET".to_string(),
            (Err, _) => "from ERR the only way back is a modify to RESET, then INIT".to_string(),
            (_, Sqe) => {
                let mut text =
                    "SQE is entered only by the hardware, after a send error; no modify leads there"
                        .to_string();
                if !self.qp_type.has_sqe_state() {
                    text.push_str(&format!(
                        ", and {} QPs never enter it: their send errors take them to ERR",
                        self.qp_type
                    ));
                }
                text
            }
            (Reset | Init, _) => format!(
                "a QP must go RESET → INIT → RTR → RTS one step at a time; from {from} the next step is {}",
                if from == Reset { Init } else { Rtr }
            ),
            (Rtr, Rtr) => {
                "the table has no RTR → RTR, so attributes cannot be changed in RTR alone; the next modify is RTR → RTS".to_string()
            }
            (Rtr, Sqd) => "a QP drains to SQD only from RTS; from RTR the next step is RTS".to_string(),
            (Sqe, _) => {
                "from SQE a modify goes back to RTS (sending again), or to RESET or ERR".to_string()
            }
            _ => format!(
                "a QP never goes back along the bring-up path; to get to {to} again, modify it to RESET first"
            ),
        }
    }
}

impl fmt::Display for TransitionRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} → {} is not a transition ibv_modify_qp() can make: {}.",
            self.qp_type,
            self.from,
            self.to,
            self.reason()
        )
    }
}

impl std::error::Error for TransitionRefusal {}

/// Whether `ibv_modify_qp()` can move a QP of `qp_type` from `from` to `to` at all: the
/// kernel table's cell (what the mask must and may hold), or why there is none.
///
/// The same table [`check_modify`] consults; a modify to the same state is an attribute
/// change, allowed where the table has that cell (RTS → RTS, not RTR → RTR).
pub fn check_transition(
    qp_type: QpType,
    from: QpState,
    to: QpState,
) -> Result<Cell, TransitionRefusal> {
    kernel_cell(from, to, qp_type).ok_or(TransitionRefusal { qp_type, from, to })
}

/// The states reachable from `from` by a modify call (for any QP type).
pub fn valid_targets(from: QpState) -> Vec<QpState> {
    QpState::ALL
        .into_iter()
        .filter(|to| kernel_cell(from, *to, QpType::Rc).is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use AttrName::*;

    #[test]
    fn errno_is_linux_einval() {
        assert_eq!(Errno::Einval.value(), 22);
        assert_eq!(Errno::Einval.to_string(), "22 (EINVAL, Invalid argument)");
    }

    #[test]
    fn classic_rc_bring_up_masks_pass() {
        let init = State | PkeyIndex | Port | AccessFlags;
        assert_eq!(
            check_modify(QpType::Rc, QpState::Reset, QpState::Init, init),
            Ok(())
        );
        let rtr = State | Av | PathMtu | DestQpn | RqPsn | MaxDestRdAtomic | MinRnrTimer;
        assert_eq!(
            check_modify(QpType::Rc, QpState::Init, QpState::Rtr, rtr),
            Ok(())
        );
        let rts = State | Timeout | RetryCnt | RnrRetry | SqPsn | MaxQpRdAtomic;
        assert_eq!(
            check_modify(QpType::Rc, QpState::Rtr, QpState::Rts, rts),
            Ok(())
        );
    }

    #[test]
    fn error_names_missing_and_unexpected() {
        let mask = State | Av | PathMtu | DestQpn | RqPsn | Qkey;
        let err = check_modify(QpType::Rc, QpState::Init, QpState::Rtr, mask).unwrap_err();
        assert_eq!(err.missing, MaxDestRdAtomic | MinRnrTimer);
        assert_eq!(err.unexpected, Qkey.mask());
        assert_eq!(err.errno.value(), 22);
        let text = err.to_string();
        assert!(text.contains("missing IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_DEST_RD_ATOMIC"));
        assert!(text.contains("unexpected IBV_QP_QKEY"));
        assert!(err.explanation().contains("max_dest_rd_atomic"));
    }

    #[test]
    fn reset_to_err_is_not_in_the_kernel_table() {
        let err = check_modify(QpType::Rc, QpState::Reset, QpState::Err, State.mask()).unwrap_err();
        assert!(err.invalid_transition);
        assert!(err.explanation().contains("RESET → ERR"));
        for from in [
            QpState::Init,
            QpState::Rtr,
            QpState::Rts,
            QpState::Sqd,
            QpState::Sqe,
        ] {
            assert_eq!(
                check_modify(QpType::Ud, from, QpState::Err, State.mask()),
                Ok(())
            );
        }
    }

    #[test]
    fn mask_without_state_keeps_current_state() {
        // RTS with only ACCESS_FLAGS: an RTS → RTS change, valid for RC.
        assert_eq!(
            check_modify(QpType::Rc, QpState::Rts, QpState::Sqd, AccessFlags.mask()),
            Ok(())
        );
        // The same from RTR is RTR → RTR, which the table does not have.
        let err = check_modify(QpType::Rc, QpState::Rtr, QpState::Rts, SqPsn.mask()).unwrap_err();
        assert!(err.invalid_transition);
        assert_eq!(err.to, QpState::Rtr);
        assert!(err
            .explanation()
            .contains("IBV_QP_STATE is not in the mask"));
    }

    #[test]
    fn cur_state_only_from_rtr_rts_sqd_sqe() {
        let err =
            check_modify(QpType::Rc, QpState::Init, QpState::Init, State | CurState).unwrap_err();
        assert!(err.cur_state_not_allowed);
        assert_eq!(
            check_modify(QpType::Ud, QpState::Sqe, QpState::Rts, State | CurState),
            Ok(())
        );
        // Allowed state, but the SQD → SQD cell does not list CUR_STATE.
        let err =
            check_modify(QpType::Rc, QpState::Sqd, QpState::Sqd, State | CurState).unwrap_err();
        assert!(!err.cur_state_not_allowed);
        assert_eq!(err.unexpected, CurState.mask());
    }

    #[test]
    fn check_transition_follows_the_table_and_says_why_not() {
        for qp_type in QpType::ALL {
            for from in QpState::ALL {
                for to in QpState::ALL {
                    let cell = kernel_cell(from, to, qp_type);
                    match check_transition(qp_type, from, to) {
                        Ok(c) => assert_eq!(Some(c), cell),
                        Err(refusal) => {
                            assert_eq!(cell, None, "{qp_type} {from} → {to}");
                            assert_eq!((refusal.from, refusal.to), (from, to));
                            // Agrees with the mask check: every mask fails.
                            let err = check_modify(qp_type, from, to, State.mask()).unwrap_err();
                            assert!(err.invalid_transition);
                            let text = refusal.to_string();
                            assert!(
                                text.starts_with(&format!("{qp_type} {from} → {to} is not")),
                                "{text}"
                            );
                            assert!(!refusal.reason().is_empty());
                        }
                    }
                }
            }
        }
        let init = check_transition(QpType::Rc, QpState::Reset, QpState::Init).expect("valid");
        assert_eq!(init.required, PkeyIndex | Port | AccessFlags);
        let skip = check_transition(QpType::Rc, QpState::Init, QpState::Rts).unwrap_err();
        assert!(skip.reason().contains("the next step is RTR"), "{skip}");
        let sqe = check_transition(QpType::Rc, QpState::Rts, QpState::Sqe).unwrap_err();
        assert!(sqe.reason().contains("RC QPs never enter it"), "{sqe}");
        let sqe = check_transition(QpType::Ud, QpState::Rts, QpState::Sqe).unwrap_err();
        assert!(!sqe.reason().contains("never enter"), "{sqe}");
        let back = check_transition(QpType::Rc, QpState::Rts, QpState::Init).unwrap_err();
        assert!(back.reason().contains("modify it to RESET first"), "{back}");
        let err = check_transition(QpType::Uc, QpState::Err, QpState::Init).unwrap_err();
        assert!(err.reason().contains("only way back"), "{err}");
    }

    #[test]
    fn rule_count_is_22_transitions_times_6_types() {
        assert_eq!(transition_table().len(), 22 * 6);
        assert_eq!(
            valid_targets(QpState::Reset),
            vec![QpState::Reset, QpState::Init]
        );
    }
}
