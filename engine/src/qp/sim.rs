//! A simulated queue pair: modify, post, and the events that happen without a modify call.
//!
//! What the model follows:
//! - modify: [`check_modify`] (the kernel table), then the value rules of [`super::values`];
//!   a rejected modify changes nothing (ibv_modify_qp(3), NOTES).
//! - entering ERR, by modify or by a fatal error, completes every outstanding work request;
//!   the first failing send carries the real error, the rest `IBV_WC_WR_FLUSH_ERR`
//!   (IBTA Vol. 1 §10.3.1, Error state; ibv_poll_cq(3)).
//! - entering RESET discards outstanding work requests without completions and clears the
//!   attributes (IBTA Vol. 1 §10.3.1, Reset state).
//! - a send error on UD/UC parks the QP in SQE: the send queue is flushed, the receive
//!   queue keeps working (IBTA Vol. 1 §10.3.1, C10-38 ff.); on reliable types it is ERR.
//! - RTS → SQD stops starting new sends; when the ones in flight finish and
//!   `en_sqd_async_notify` was set, `IBV_EVENT_SQ_DRAINED` fires.
//! - the first packet received in RTR raises `IBV_EVENT_COMM_EST`.
//!
//! Not modelled: message lengths against receive buffers, SRQs (XRC targets receive
//! through one), memory keys, alternate paths.
//!
//! The requests, completions, events and attributes it takes and returns are the verbs
//! vocabulary of [`super::verbs`], re-exported here so `qp::sim` names the whole API.

use std::collections::VecDeque;

use core::fmt;
use serde::{Deserialize, Serialize};

use super::state::{QpState, QpType};
use super::table::{check_modify, effective_next_state, Errno, ModifyError};
use super::values::{self, Decoded, ValueError};
use crate::psn::Psn;

pub use super::verbs::{
    format_gid, AddressVector, AsyncEvent, DeviceLimits, ModifyAttrs, RecvWr, SendOpcode, SendWr,
    UdDestination, WcOpcode, WcStatus, WorkCompletion, WorkQueue,
};

/// Something that happens to a QP without a modify call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum QpEvent {
    /// The oldest in-flight send finished: acknowledged (reliable) or transmitted
    /// (unreliable).
    SendCompleted,
    /// A Send arrived from the peer and consumes the oldest posted receive.
    MessageArrived {
        /// Bytes received.
        byte_len: u32,
    },
    /// The oldest send got no ACK through `retry_cnt` retransmissions (reliable types).
    RetryExceeded,
    /// The oldest send got RNR NAKs more than `rnr_retry` times (reliable types).
    RnrRetryExceeded,
    /// The responder NAKed the oldest send with Remote Access Error (reliable types).
    RemoteAccessError,
    /// An incoming request violated this QP's access rights (this QP is the responder).
    IncomingAccessViolation,
    /// A send-side error on the oldest in-flight send with the given status.
    SendError {
        /// The error status the WR completes with.
        status: WcStatus,
    },
    /// A catastrophic error not tied to any work request.
    Fatal,
}

/// What a [`Qp`] answered a packet with, when it received one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// Accepted (and, on reliable types, acknowledged).
    Accepted,
    /// Reliable responder had no receive posted: RNR NAK carrying its `min_rnr_timer`.
    RnrNak {
        /// The 5-bit timer code from this QP's `min_rnr_timer`.
        min_rnr_timer: u8,
    },
    /// Silently dropped (QP not yet in RTR, in ERR, or unreliable with no receive posted).
    Dropped,
}

/// The visible result of a modify, post or event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventOutcome {
    /// State before.
    pub before: QpState,
    /// State after.
    pub after: QpState,
    /// Completions that appeared on the CQs, in order.
    pub completions: Vec<WorkCompletion>,
    /// Async events raised.
    pub async_events: Vec<AsyncEvent>,
    /// How the QP answered an incoming packet ([`QpEvent::MessageArrived`] only).
    pub response: Option<Response>,
    /// Decoded attribute values (modify only).
    pub values: Vec<Decoded>,
    /// What happened, in sentences.
    pub notes: Vec<String>,
}

impl EventOutcome {
    fn new(state: QpState) -> EventOutcome {
        EventOutcome {
            before: state,
            after: state,
            completions: Vec::new(),
            async_events: Vec::new(),
            response: None,
            values: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Why a call on a [`Qp`] failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum QpError {
    /// The kernel's transition/mask check failed.
    Modify(ModifyError),
    /// A value was out of range (the driver answers `EINVAL`).
    Value {
        /// Which value and why.
        error: ValueError,
        /// `EINVAL`.
        errno: Errno,
    },
    /// `cur_qp_state` does not match the state the QP is in.
    CurStateMismatch {
        /// What the caller claimed.
        claimed: QpState,
        /// The real state.
        actual: QpState,
        /// `EINVAL`.
        errno: Errno,
    },
    /// A post was refused immediately (nothing was queued).
    Post {
        /// The queue.
        queue: WorkQueue,
        /// The QP state.
        state: QpState,
        /// Why.
        reason: String,
        /// `EINVAL`.
        errno: Errno,
    },
    /// The event cannot happen to this QP as it is.
    Event {
        /// The event.
        event: QpEvent,
        /// The QP state.
        state: QpState,
        /// Why not.
        reason: String,
    },
}

impl fmt::Display for QpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QpError::Modify(e) => write!(f, "{e}"),
            QpError::Value { error, errno } => {
                write!(f, "ibv_modify_qp failed: errno {errno}: {error}")
            }
            QpError::CurStateMismatch {
                claimed,
                actual,
                errno,
            } => write!(
                f,
                "ibv_modify_qp failed: errno {errno}: cur_qp_state says {claimed} but the QP is in {actual}"
            ),
            QpError::Post {
                queue,
                state,
                reason,
                errno,
            } => {
                let verb = match queue {
                    WorkQueue::Send => "ibv_post_send",
                    WorkQueue::Recv => "ibv_post_recv",
                };
                write!(f, "{verb} failed in {state}: errno {errno}: {reason}")
            }
            QpError::Event {
                event,
                state,
                reason,
            } => write!(f, "{event:?} cannot happen in {state}: {reason}"),
        }
    }
}

impl std::error::Error for QpError {}

/// A simulated queue pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Qp {
    qp_type: QpType,
    qp_num: u32,
    state: QpState,
    attrs: ModifyAttrs,
    device: DeviceLimits,
    /// Sends the HCA has started (RTS) and not completed.
    in_flight: VecDeque<SendWr>,
    /// Sends posted in SQD: held until the QP is back in RTS.
    held: VecDeque<SendWr>,
    recvs: VecDeque<RecvWr>,
    /// Set between RTS → SQD and the last in-flight send completing.
    draining: bool,
    /// Whether anything was received since the last RESET.
    received_any: bool,
}

impl Qp {
    /// A new QP in RESET, as `ibv_create_qp()` leaves it. `qp_num` is kept to 24 bits.
    pub fn new(qp_type: QpType, qp_num: u32) -> Qp {
        Qp::with_device(qp_type, qp_num, DeviceLimits::default())
    }

    /// A new QP on a device with the given limits.
    pub fn with_device(qp_type: QpType, qp_num: u32, device: DeviceLimits) -> Qp {
        Qp {
            qp_type,
            qp_num: qp_num & 0x00ff_ffff,
            state: QpState::Reset,
            attrs: ModifyAttrs::default(),
            device,
            in_flight: VecDeque::new(),
            held: VecDeque::new(),
            recvs: VecDeque::new(),
            draining: false,
            received_any: false,
        }
    }

    /// QP type.
    pub fn qp_type(&self) -> QpType {
        self.qp_type
    }

    /// QP number.
    pub fn qp_num(&self) -> u32 {
        self.qp_num
    }

    /// Current state.
    pub fn state(&self) -> QpState {
        self.state
    }

    /// Attributes set so far (state fields unset).
    pub fn attrs(&self) -> &ModifyAttrs {
        &self.attrs
    }

    /// Send work requests not yet completed (in flight, then held).
    pub fn outstanding_sends(&self) -> Vec<SendWr> {
        self.in_flight
            .iter()
            .chain(self.held.iter())
            .copied()
            .collect()
    }

    /// Receive work requests not yet completed.
    pub fn outstanding_recvs(&self) -> Vec<RecvWr> {
        self.recvs.iter().copied().collect()
    }

    /// Whether RTS → SQD is still waiting for in-flight sends.
    pub fn is_draining(&self) -> bool {
        self.draining
    }

    /// `ibv_modify_qp()`.
    pub fn modify(&mut self, req: &ModifyAttrs) -> Result<EventOutcome, QpError> {
        let mask = req.mask();
        if let Some(claimed) = req.cur_qp_state {
            // A driver uses the claim in place of its own idea of the state; here the
            // simulated state is always exact, so a different claim can only be a mistake.
            if claimed != self.state {
                return Err(QpError::CurStateMismatch {
                    claimed,
                    actual: self.state,
                    errno: Errno::Einval,
                });
            }
        }
        let requested = req.qp_state.unwrap_or(self.state);
        check_modify(self.qp_type, self.state, requested, mask).map_err(QpError::Modify)?;
        let values = req.decode(&self.device).map_err(|error| QpError::Value {
            error,
            errno: Errno::Einval,
        })?;
        let next = effective_next_state(self.state, requested, mask);
        let mut out = EventOutcome::new(self.state);
        out.values = values;
        for (field, v) in [("rq_psn", req.rq_psn), ("sq_psn", req.sq_psn)] {
            if let Some(v) = v.filter(|v| *v >> 24 != 0) {
                out.notes.push(format!(
                    "{field} {v:#x} is wider than 24 bits; the kernel keeps {:#x} and logs a warning",
                    Psn::truncate(v).value()
                ));
            }
        }
        self.attrs.merge_from(req);
        let before = self.state;
        self.state = next;
        match (before, next) {
            (_, QpState::Reset) => {
                let dropped = self.in_flight.len() + self.held.len() + self.recvs.len();
                *self = Qp::with_device(self.qp_type, self.qp_num, self.device);
                out.notes.push(format!(
                    "RESET clears every attribute and discards {dropped} outstanding work \
                     request(s) without completions"
                ));
            }
            (b, QpState::Err) if b != QpState::Err => {
                out.notes
                    .push("moved to ERR: every outstanding work request is flushed".into());
                self.flush_all(&mut out);
            }
            (QpState::Rts, QpState::Sqd) => {
                self.draining = true;
                out.notes.push(
                    "SQD: no new send starts; the sends already in flight run to completion".into(),
                );
                self.check_drained(&mut out);
            }
            (QpState::Sqd, QpState::Rts) => {
                self.draining = false;
                let n = self.held.len();
                self.in_flight.extend(self.held.drain(..));
                if n > 0 {
                    out.notes
                        .push(format!("back in RTS: {n} held send(s) start now"));
                }
            }
            (QpState::Sqe, QpState::Rts) => out
                .notes
                .push("back in RTS: the send queue runs again".into()),
            _ => {}
        }
        out.after = self.state;
        Ok(out)
    }

    /// `ibv_post_send()`.
    pub fn post_send(&mut self, wr: SendWr) -> Result<EventOutcome, QpError> {
        let refuse = |reason: String| QpError::Post {
            queue: WorkQueue::Send,
            state: self.state,
            reason,
            errno: Errno::Einval,
        };
        let allowed = match self.qp_type {
            QpType::Rc | QpType::XrcSend => true,
            QpType::Uc => wr.opcode != SendOpcode::RdmaRead,
            QpType::Ud | QpType::RawPacket => wr.opcode == SendOpcode::Send,
            QpType::XrcRecv => false,
        };
        if !allowed {
            return Err(refuse(format!(
                "{:?} is not an operation a {} QP can post (IBTA Vol. 1 ch. 9 lists the \
                 operations each transport supports)",
                wr.opcode, self.qp_type
            )));
        }
        if self.qp_type == QpType::Ud && wr.ud.is_none() {
            return Err(refuse(
                "a UD send must name its destination: wr.ud.ah, remote_qpn and remote_qkey".into(),
            ));
        }
        let mut out = EventOutcome::new(self.state);
        match self.state {
            QpState::Reset | QpState::Init | QpState::Rtr => {
                return Err(refuse(format!(
                    "sends can be posted only from RTS on (IBTA Vol. 1 §10.3.1); the QP is \
                     in {}",
                    self.state
                )))
            }
            QpState::Rts => {
                self.in_flight.push_back(wr);
                out.notes.push("the HCA starts sending it".into());
            }
            QpState::Sqd => {
                self.held.push_back(wr);
                out.notes
                    .push("queued but held: nothing new starts while in SQD".into());
            }
            QpState::Sqe | QpState::Err => {
                out.completions
                    .push(self.flushed(WorkQueue::Send, wr.wr_id));
                out.notes.push(format!(
                    "the send queue is in error ({}), so the request completes at once as \
                     flushed",
                    self.state
                ));
            }
        }
        Ok(out)
    }

    /// `ibv_post_recv()`.
    pub fn post_recv(&mut self, wr: RecvWr) -> Result<EventOutcome, QpError> {
        let refuse = |reason: String| QpError::Post {
            queue: WorkQueue::Recv,
            state: self.state,
            reason,
            errno: Errno::Einval,
        };
        if matches!(self.qp_type, QpType::XrcSend | QpType::XrcRecv) {
            return Err(refuse(
                "XRC QPs have no receive queue of their own: receives are posted to an XRC \
                 SRQ on the target side"
                    .into(),
            ));
        }
        let mut out = EventOutcome::new(self.state);
        match self.state {
            QpState::Reset => {
                return Err(refuse(
                    "receives can be posted from INIT on; the QP is in RESET".into(),
                ))
            }
            QpState::Err => {
                out.completions
                    .push(self.flushed(WorkQueue::Recv, wr.wr_id));
                out.notes
                    .push("the QP is in ERR, so the receive completes at once as flushed".into());
            }
            _ => {
                self.recvs.push_back(wr);
                out.notes
                    .push(format!("receive queued ({} waiting)", self.recvs.len()));
            }
        }
        Ok(out)
    }

    /// Applies an event that happens without a modify call.
    pub fn apply(&mut self, event: QpEvent) -> Result<EventOutcome, QpError> {
        let mut out = EventOutcome::new(self.state);
        let state = self.state;
        let refuse = |reason: &str| QpError::Event {
            event,
            state,
            reason: reason.to_string(),
        };
        match event {
            QpEvent::SendCompleted => {
                if !matches!(state, QpState::Rts | QpState::Sqd) {
                    return Err(refuse("no send can be in flight in this state"));
                }
                let wr = self
                    .in_flight
                    .pop_front()
                    .ok_or_else(|| refuse("no send is in flight"))?;
                out.completions.push(WorkCompletion {
                    queue: WorkQueue::Send,
                    wr_id: wr.wr_id,
                    status: WcStatus::Success,
                    opcode: Some(wr.opcode.completion_opcode()),
                    byte_len: None,
                    qp_num: self.qp_num,
                });
                self.check_drained(&mut out);
            }
            QpEvent::MessageArrived { byte_len } => {
                if matches!(self.qp_type, QpType::XrcSend | QpType::XrcRecv) {
                    return Err(refuse(
                        "XRC receives land on an XRC SRQ, which this model does not simulate",
                    ));
                }
                out.response = Some(self.receive(byte_len, &mut out));
            }
            QpEvent::RetryExceeded | QpEvent::RnrRetryExceeded | QpEvent::RemoteAccessError => {
                if !self.qp_type.is_reliable() {
                    return Err(refuse(
                        "only reliable transports wait for ACKs and NAKs (RC, XRC)",
                    ));
                }
                let status = match event {
                    QpEvent::RetryExceeded => WcStatus::RetryExcErr,
                    QpEvent::RnrRetryExceeded => WcStatus::RnrRetryExcErr,
                    _ => WcStatus::RemAccessErr,
                };
                self.fail_oldest_send(status, &mut out)
                    .map_err(|r| refuse(&r))?;
            }
            QpEvent::SendError { status } => {
                if matches!(status, WcStatus::Success | WcStatus::WrFlushErr) {
                    return Err(refuse(
                        "a send error needs an error status other than IBV_WC_WR_FLUSH_ERR",
                    ));
                }
                self.fail_oldest_send(status, &mut out)
                    .map_err(|r| refuse(&r))?;
            }
            QpEvent::IncomingAccessViolation => {
                if !matches!(state, QpState::Rtr | QpState::Rts | QpState::Sqd) {
                    return Err(refuse("the QP does not process incoming requests now"));
                }
                out.async_events.push(AsyncEvent::QpAccessErr);
                out.notes.push(
                    "an incoming request broke this QP's access rights: it NAKs the request, \
                     moves to ERR and raises IBV_EVENT_QP_ACCESS_ERR"
                        .into(),
                );
                self.state = QpState::Err;
                self.flush_all(&mut out);
            }
            QpEvent::Fatal => {
                if matches!(state, QpState::Reset | QpState::Err) {
                    return Err(refuse("a QP in RESET or ERR has nothing left to fail"));
                }
                out.async_events.push(AsyncEvent::QpFatal);
                out.notes.push(
                    "catastrophic error: the QP goes to ERR, raises IBV_EVENT_QP_FATAL and \
                     flushes everything"
                        .into(),
                );
                self.state = QpState::Err;
                self.flush_all(&mut out);
            }
        }
        out.after = self.state;
        Ok(out)
    }

    /// The oldest in-flight send fails with `status`; the QP goes to SQE (UD, UC) or ERR.
    fn fail_oldest_send(&mut self, status: WcStatus, out: &mut EventOutcome) -> Result<(), String> {
        if !matches!(self.state, QpState::Rts | QpState::Sqd) {
            return Err("no send can be in flight in this state".into());
        }
        let wr = self
            .in_flight
            .pop_front()
            .ok_or_else(|| "no send is in flight".to_string())?;
        out.completions.push(WorkCompletion {
            queue: WorkQueue::Send,
            wr_id: wr.wr_id,
            status,
            opcode: None,
            byte_len: None,
            qp_num: self.qp_num,
        });
        self.draining = false;
        if self.qp_type.has_sqe_state() {
            self.state = QpState::Sqe;
            out.notes.push(format!(
                "send failed with {}: a {} QP moves to SQE; the rest of the send queue is \
                 flushed, receives keep working; modify SQE → RTS to send again",
                status.name(),
                self.qp_type
            ));
            let rest: Vec<SendWr> = self
                .in_flight
                .drain(..)
                .chain(self.held.drain(..))
                .collect();
            for wr in rest {
                out.completions
                    .push(self.flushed(WorkQueue::Send, wr.wr_id));
            }
        } else {
            self.state = QpState::Err;
            out.notes.push(format!(
                "send failed with {}: a {} connection cannot skip a message, so the QP moves \
                 to ERR and every other outstanding request is flushed",
                status.name(),
                self.qp_type
            ));
            self.flush_all(out);
        }
        Ok(())
    }

    fn receive(&mut self, byte_len: u32, out: &mut EventOutcome) -> Response {
        match self.state {
            QpState::Reset | QpState::Init => {
                out.notes.push(format!(
                    "the QP is in {}: it does not process incoming packets yet, they are \
                     silently dropped",
                    self.state
                ));
                return Response::Dropped;
            }
            QpState::Err => {
                out.notes
                    .push("the QP is in ERR: incoming packets are dropped".into());
                return Response::Dropped;
            }
            QpState::Rtr if !self.received_any => {
                out.async_events.push(AsyncEvent::CommEst);
                out.notes.push(
                    "first packet while in RTR: IBV_EVENT_COMM_EST tells the application the \
                     peer is sending (useful when the connection handshake's last message \
                     was lost)"
                        .into(),
                );
            }
            _ => {}
        }
        self.received_any = true;
        match self.recvs.pop_front() {
            Some(wr) => {
                out.completions.push(WorkCompletion {
                    queue: WorkQueue::Recv,
                    wr_id: wr.wr_id,
                    status: WcStatus::Success,
                    opcode: Some(WcOpcode::Recv),
                    byte_len: Some(byte_len),
                    qp_num: self.qp_num,
                });
                Response::Accepted
            }
            None if self.qp_type.is_reliable() => {
                let code = self.attrs.min_rnr_timer.unwrap_or(0);
                let wait = values::rnr_timer_us(code)
                    .map(|us| values::format_ns(u64::from(us) * 1000))
                    .unwrap_or_else(|e| e.to_string());
                out.notes.push(format!(
                    "no receive posted: the responder answers RNR NAK asking the sender to \
                     wait {wait} (its min_rnr_timer = {code}) and retry"
                ));
                Response::RnrNak {
                    min_rnr_timer: code,
                }
            }
            None => {
                out.notes.push(format!(
                    "no receive posted: a {} QP silently drops the message",
                    self.qp_type
                ));
                Response::Dropped
            }
        }
    }

    fn check_drained(&mut self, out: &mut EventOutcome) {
        if self.state == QpState::Sqd && self.draining && self.in_flight.is_empty() {
            self.draining = false;
            if self.attrs.en_sqd_async_notify == Some(true) {
                out.async_events.push(AsyncEvent::SqDrained);
                out.notes.push(
                    "nothing left in flight: the send queue has drained and \
                     IBV_EVENT_SQ_DRAINED fires (en_sqd_async_notify was set)"
                        .into(),
                );
            } else {
                out.notes.push(
                    "nothing left in flight: the send queue has drained (no event: \
                     en_sqd_async_notify was not set)"
                        .into(),
                );
            }
        }
    }

    fn flushed(&self, queue: WorkQueue, wr_id: u64) -> WorkCompletion {
        WorkCompletion {
            queue,
            wr_id,
            status: WcStatus::WrFlushErr,
            opcode: None,
            byte_len: None,
            qp_num: self.qp_num,
        }
    }

    fn flush_all(&mut self, out: &mut EventOutcome) {
        self.draining = false;
        let sends: Vec<SendWr> = self
            .in_flight
            .drain(..)
            .chain(self.held.drain(..))
            .collect();
        let recvs: Vec<RecvWr> = self.recvs.drain(..).collect();
        for wr in sends {
            out.completions
                .push(self.flushed(WorkQueue::Send, wr.wr_id));
        }
        for wr in recvs {
            out.completions
                .push(self.flushed(WorkQueue::Recv, wr.wr_id));
        }
    }
}

/// A state change that happens without an `ibv_modify_qp()` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImplicitTransition {
    /// State before.
    pub from: QpState,
    /// State after.
    pub to: QpState,
    /// What causes it.
    pub cause: String,
}

/// The transitions the HCA makes on its own for `qp_type`, by the rules [`Qp::apply`]
/// follows (IBTA Vol. 1 §10.3.1): a fatal error takes any working state to ERR; a failed
/// send in RTS or SQD takes UD and UC to SQE and every other type to ERR; an incoming
/// request that breaks the access rules takes a receiving QP (RTR, RTS, SQD) to ERR.
pub fn implicit_transitions(qp_type: QpType) -> Vec<ImplicitTransition> {
    let mut out = Vec::new();
    let mut add = |from: QpState, to: QpState, cause: &str| {
        if let Some(t) = out
            .iter_mut()
            .find(|t: &&mut ImplicitTransition| t.from == from && t.to == to)
        {
            t.cause = format!("{}; {cause}", t.cause);
        } else {
            out.push(ImplicitTransition {
                from,
                to,
                cause: cause.to_string(),
            });
        }
    };
    for from in [QpState::Rts, QpState::Sqd] {
        if qp_type.has_sqe_state() {
            add(
                from,
                QpState::Sqe,
                "send error (completion with an error status)",
            );
        } else {
            add(
                from,
                QpState::Err,
                "send error, retry or RNR retry exceeded",
            );
        }
    }
    for from in [QpState::Rtr, QpState::Rts, QpState::Sqd] {
        add(from, QpState::Err, "incoming request breaks access rights");
    }
    for from in [
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
    ] {
        add(from, QpState::Err, "fatal error (IBV_EVENT_QP_FATAL)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(wr_id: u64) -> SendWr {
        SendWr {
            wr_id,
            opcode: SendOpcode::Send,
            length: 64,
            ud: None,
        }
    }

    #[test]
    fn post_send_refused_before_rts() {
        let mut qp = Qp::new(QpType::Rc, 7);
        let err = qp.post_send(send(1)).unwrap_err();
        assert!(matches!(
            err,
            QpError::Post {
                state: QpState::Reset,
                ..
            }
        ));
        assert!(qp
            .post_recv(RecvWr {
                wr_id: 1,
                length: 64
            })
            .is_err());
    }

    #[test]
    fn implicit_transitions_follow_what_apply_does() {
        for qp_type in QpType::ALL {
            for t in implicit_transitions(qp_type) {
                // Not a modify: the kernel table must not be what allows SQE entry.
                assert!(t.to == QpState::Err || t.to == QpState::Sqe);
                assert_eq!(
                    t.to == QpState::Sqe,
                    qp_type.has_sqe_state() && t.to != QpState::Err
                );
            }
            let has_rts_to_sqe = implicit_transitions(qp_type)
                .iter()
                .any(|t| t.from == QpState::Rts && t.to == QpState::Sqe);
            assert_eq!(has_rts_to_sqe, qp_type.has_sqe_state(), "{qp_type}");
        }
        // Cross-check one edge against the simulation: a fatal error in INIT lands in ERR.
        let mut qp = crate::qp::builder::qp_in_state(QpType::Rc, 1, QpState::Init).expect("INIT");
        assert_eq!(qp.apply(QpEvent::Fatal).map(|o| o.after), Ok(QpState::Err));
        assert!(implicit_transitions(QpType::Rc)
            .iter()
            .any(|t| t.from == QpState::Init && t.to == QpState::Err));
    }
}
