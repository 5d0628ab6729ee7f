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

use std::collections::VecDeque;

use core::fmt;
use serde::{Deserialize, Serialize};

use super::attr::{AttrMask, AttrName};
use super::state::{QpState, QpType};
use super::table::{check_modify, effective_next_state, Errno, ModifyError};
use super::values::{self, Decoded, ValueError};
use crate::psn::Psn;

/// Work completion status, `enum ibv_wc_status` (rdma-core `libibverbs/verbs.h`; values
/// count up from `IBV_WC_SUCCESS` = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WcStatus {
    #[serde(rename = "IBV_WC_SUCCESS")]
    Success = 0,
    #[serde(rename = "IBV_WC_LOC_LEN_ERR")]
    LocLenErr = 1,
    #[serde(rename = "IBV_WC_LOC_QP_OP_ERR")]
    LocQpOpErr = 2,
    #[serde(rename = "IBV_WC_LOC_EEC_OP_ERR")]
    LocEecOpErr = 3,
    #[serde(rename = "IBV_WC_LOC_PROT_ERR")]
    LocProtErr = 4,
    #[serde(rename = "IBV_WC_WR_FLUSH_ERR")]
    WrFlushErr = 5,
    #[serde(rename = "IBV_WC_MW_BIND_ERR")]
    MwBindErr = 6,
    #[serde(rename = "IBV_WC_BAD_RESP_ERR")]
    BadRespErr = 7,
    #[serde(rename = "IBV_WC_LOC_ACCESS_ERR")]
    LocAccessErr = 8,
    #[serde(rename = "IBV_WC_REM_INV_REQ_ERR")]
    RemInvReqErr = 9,
    #[serde(rename = "IBV_WC_REM_ACCESS_ERR")]
    RemAccessErr = 10,
    #[serde(rename = "IBV_WC_REM_OP_ERR")]
    RemOpErr = 11,
    #[serde(rename = "IBV_WC_RETRY_EXC_ERR")]
    RetryExcErr = 12,
    #[serde(rename = "IBV_WC_RNR_RETRY_EXC_ERR")]
    RnrRetryExcErr = 13,
    #[serde(rename = "IBV_WC_LOC_RDD_VIOL_ERR")]
    LocRddViolErr = 14,
    #[serde(rename = "IBV_WC_REM_INV_RD_REQ_ERR")]
    RemInvRdReqErr = 15,
    #[serde(rename = "IBV_WC_REM_ABORT_ERR")]
    RemAbortErr = 16,
    #[serde(rename = "IBV_WC_INV_EECN_ERR")]
    InvEecnErr = 17,
    #[serde(rename = "IBV_WC_INV_EEC_STATE_ERR")]
    InvEecStateErr = 18,
    #[serde(rename = "IBV_WC_FATAL_ERR")]
    FatalErr = 19,
    #[serde(rename = "IBV_WC_RESP_TIMEOUT_ERR")]
    RespTimeoutErr = 20,
    #[serde(rename = "IBV_WC_GENERAL_ERR")]
    GeneralErr = 21,
    #[serde(rename = "IBV_WC_TM_ERR")]
    TmErr = 22,
    #[serde(rename = "IBV_WC_TM_RNDV_INCOMPLETE")]
    TmRndvIncomplete = 23,
}

impl WcStatus {
    /// Every status in value order.
    pub const ALL: [WcStatus; 24] = [
        WcStatus::Success,
        WcStatus::LocLenErr,
        WcStatus::LocQpOpErr,
        WcStatus::LocEecOpErr,
        WcStatus::LocProtErr,
        WcStatus::WrFlushErr,
        WcStatus::MwBindErr,
        WcStatus::BadRespErr,
        WcStatus::LocAccessErr,
        WcStatus::RemInvReqErr,
        WcStatus::RemAccessErr,
        WcStatus::RemOpErr,
        WcStatus::RetryExcErr,
        WcStatus::RnrRetryExcErr,
        WcStatus::LocRddViolErr,
        WcStatus::RemInvRdReqErr,
        WcStatus::RemAbortErr,
        WcStatus::InvEecnErr,
        WcStatus::InvEecStateErr,
        WcStatus::FatalErr,
        WcStatus::RespTimeoutErr,
        WcStatus::GeneralErr,
        WcStatus::TmErr,
        WcStatus::TmRndvIncomplete,
    ];

    /// The numeric value.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// The constant name, e.g. `IBV_WC_WR_FLUSH_ERR`.
    pub fn name(self) -> &'static str {
        match self {
            WcStatus::Success => "IBV_WC_SUCCESS",
            WcStatus::LocLenErr => "IBV_WC_LOC_LEN_ERR",
            WcStatus::LocQpOpErr => "IBV_WC_LOC_QP_OP_ERR",
            WcStatus::LocEecOpErr => "IBV_WC_LOC_EEC_OP_ERR",
            WcStatus::LocProtErr => "IBV_WC_LOC_PROT_ERR",
            WcStatus::WrFlushErr => "IBV_WC_WR_FLUSH_ERR",
            WcStatus::MwBindErr => "IBV_WC_MW_BIND_ERR",
            WcStatus::BadRespErr => "IBV_WC_BAD_RESP_ERR",
            WcStatus::LocAccessErr => "IBV_WC_LOC_ACCESS_ERR",
            WcStatus::RemInvReqErr => "IBV_WC_REM_INV_REQ_ERR",
            WcStatus::RemAccessErr => "IBV_WC_REM_ACCESS_ERR",
            WcStatus::RemOpErr => "IBV_WC_REM_OP_ERR",
            WcStatus::RetryExcErr => "IBV_WC_RETRY_EXC_ERR",
            WcStatus::RnrRetryExcErr => "IBV_WC_RNR_RETRY_EXC_ERR",
            WcStatus::LocRddViolErr => "IBV_WC_LOC_RDD_VIOL_ERR",
            WcStatus::RemInvRdReqErr => "IBV_WC_REM_INV_RD_REQ_ERR",
            WcStatus::RemAbortErr => "IBV_WC_REM_ABORT_ERR",
            WcStatus::InvEecnErr => "IBV_WC_INV_EECN_ERR",
            WcStatus::InvEecStateErr => "IBV_WC_INV_EEC_STATE_ERR",
            WcStatus::FatalErr => "IBV_WC_FATAL_ERR",
            WcStatus::RespTimeoutErr => "IBV_WC_RESP_TIMEOUT_ERR",
            WcStatus::GeneralErr => "IBV_WC_GENERAL_ERR",
            WcStatus::TmErr => "IBV_WC_TM_ERR",
            WcStatus::TmRndvIncomplete => "IBV_WC_TM_RNDV_INCOMPLETE",
        }
    }

    /// What the status means, in plain words (after ibv_poll_cq(3) and the IBTA completion error classes, Vol. 1 ch. 10).
    pub fn meaning(self) -> &'static str {
        match self {
            WcStatus::Success => "the work request finished without error",
            WcStatus::LocLenErr => "a length did not fit: message longer than the receive buffer or the port's maximum",
            WcStatus::LocQpOpErr => "the local QP found the work request inconsistent (e.g. an operation this QP type cannot do)",
            WcStatus::LocEecOpErr => "local EE context error (Reliable Datagram only)",
            WcStatus::LocProtErr => "a local buffer's lkey, protection domain or access rights did not allow the access",
            WcStatus::WrFlushErr => "never executed: the QP was in (or went to) the error state, so the request was flushed",
            WcStatus::MwBindErr => "a memory-window bind or memory-registration operation failed",
            WcStatus::BadRespErr => "the responder answered with an unexpected transport opcode",
            WcStatus::LocAccessErr => "a protection error on a local buffer while handling an incoming RDMA Write with immediate",
            WcStatus::RemInvReqErr => "the responder rejected the request as invalid (bad opcode, length or a receive queue problem)",
            WcStatus::RemAccessErr => "the responder refused access: wrong rkey, address range or missing remote access rights",
            WcStatus::RemOpErr => "the responder could not complete the operation (e.g. its receive WQE was malformed)",
            WcStatus::RetryExcErr => "no acknowledgement after retry_cnt retransmissions: the peer is unreachable or not in RTR",
            WcStatus::RnrRetryExcErr => "the peer kept answering Receiver Not Ready (no receive posted) more than rnr_retry times",
            WcStatus::LocRddViolErr => "Reliable Datagram domain violation",
            WcStatus::RemInvRdReqErr => "the responder got an invalid Reliable Datagram request",
            WcStatus::RemAbortErr => "the responder aborted the operation",
            WcStatus::InvEecnErr => "invalid EE context number (Reliable Datagram only)",
            WcStatus::InvEecStateErr => "EE context in an invalid state (Reliable Datagram only)",
            WcStatus::FatalErr => "fatal transport or device error",
            WcStatus::RespTimeoutErr => "the response did not come in time",
            WcStatus::GeneralErr => "other error",
            WcStatus::TmErr => "tag-matching error",
            WcStatus::TmRndvIncomplete => "tag-matching rendezvous not finished",
        }
    }
}

/// Completion opcode, `enum ibv_wc_opcode` (rdma-core `libibverbs/verbs.h`; receive
/// opcodes start at `IBV_WC_RECV` = 1 << 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum WcOpcode {
    #[serde(rename = "IBV_WC_SEND")]
    Send = 0,
    #[serde(rename = "IBV_WC_RDMA_WRITE")]
    RdmaWrite = 1,
    #[serde(rename = "IBV_WC_RDMA_READ")]
    RdmaRead = 2,
    #[serde(rename = "IBV_WC_RECV")]
    Recv = 128,
}

impl WcOpcode {
    /// The numeric value.
    pub fn value(self) -> u32 {
        self as u32
    }
}

/// Affiliated asynchronous events a QP raises, `enum ibv_event_type` (rdma-core
/// `libibverbs/verbs.h`, counting from `IBV_EVENT_CQ_ERR` = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AsyncEvent {
    /// `IBV_EVENT_QP_FATAL` (1): an error that is no work request's fault; the QP is in ERR.
    #[serde(rename = "IBV_EVENT_QP_FATAL")]
    QpFatal = 1,
    /// `IBV_EVENT_QP_REQ_ERR` (2): the responder saw an invalid request; the QP is in ERR.
    #[serde(rename = "IBV_EVENT_QP_REQ_ERR")]
    QpReqErr = 2,
    /// `IBV_EVENT_QP_ACCESS_ERR` (3): an incoming request broke access rules; QP in ERR.
    #[serde(rename = "IBV_EVENT_QP_ACCESS_ERR")]
    QpAccessErr = 3,
    /// `IBV_EVENT_COMM_EST` (4): first packet arrived while in RTR.
    #[serde(rename = "IBV_EVENT_COMM_EST")]
    CommEst = 4,
    /// `IBV_EVENT_SQ_DRAINED` (5): SQD reached and nothing is in flight any more.
    #[serde(rename = "IBV_EVENT_SQ_DRAINED")]
    SqDrained = 5,
}

impl AsyncEvent {
    /// The numeric value.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// The constant name.
    pub fn name(self) -> &'static str {
        match self {
            AsyncEvent::QpFatal => "IBV_EVENT_QP_FATAL",
            AsyncEvent::QpReqErr => "IBV_EVENT_QP_REQ_ERR",
            AsyncEvent::QpAccessErr => "IBV_EVENT_QP_ACCESS_ERR",
            AsyncEvent::CommEst => "IBV_EVENT_COMM_EST",
            AsyncEvent::SqDrained => "IBV_EVENT_SQ_DRAINED",
        }
    }
}

/// Which work queue a request or completion belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkQueue {
    /// The send queue.
    Send,
    /// The receive queue.
    Recv,
}

/// The operation of a send work request (`ibv_wr_opcode`, the subset modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SendOpcode {
    /// `IBV_WR_SEND`: consumes a receive at the peer.
    #[serde(rename = "IBV_WR_SEND")]
    Send,
    /// `IBV_WR_RDMA_WRITE`: writes peer memory, no receive consumed.
    #[serde(rename = "IBV_WR_RDMA_WRITE")]
    RdmaWrite,
    /// `IBV_WR_RDMA_READ`: reads peer memory (RC and XRC only).
    #[serde(rename = "IBV_WR_RDMA_READ")]
    RdmaRead,
}

impl SendOpcode {
    fn completion_opcode(self) -> WcOpcode {
        match self {
            SendOpcode::Send => WcOpcode::Send,
            SendOpcode::RdmaWrite => WcOpcode::RdmaWrite,
            SendOpcode::RdmaRead => WcOpcode::RdmaRead,
        }
    }
}

/// A primary or alternate path (`struct ibv_ah_attr`, the fields that matter here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AddressVector {
    /// Destination LID (InfiniBand; 0 on RoCE).
    pub dlid: u16,
    /// Destination GID when a GRH is used (`is_global = 1`; always on RoCE).
    pub dgid: Option<[u8; 16]>,
    /// Index of the local GID to send from (selects RoCE v1/v2 and IPv4/IPv6).
    pub sgid_index: u8,
    /// Service level (on RoCE mapped to a priority).
    pub sl: u8,
    /// Local port.
    pub port_num: u8,
}

/// The destination a UD send names (`wr.ud` in `struct ibv_send_wr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UdDestination {
    /// The address handle's attributes (`ibv_create_ah()`).
    pub ah: AddressVector,
    /// `remote_qpn`.
    pub remote_qpn: u32,
    /// `remote_qkey`.
    pub remote_qkey: u32,
}

/// A send work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendWr {
    /// Caller's id, returned in the completion.
    pub wr_id: u64,
    /// Operation.
    pub opcode: SendOpcode,
    /// Bytes to transfer.
    pub length: u32,
    /// Destination for UD sends; ignored by connected QPs.
    pub ud: Option<UdDestination>,
}

/// A receive work request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecvWr {
    /// Caller's id, returned in the completion.
    pub wr_id: u64,
    /// Buffer size.
    pub length: u32,
}

/// A work completion (`struct ibv_wc`, the fields that matter here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkCompletion {
    /// Queue the request was posted to.
    pub queue: WorkQueue,
    /// The request's `wr_id`.
    pub wr_id: u64,
    /// Status.
    pub status: WcStatus,
    /// Opcode; only defined when `status` is success (ibv_poll_cq(3)).
    pub opcode: Option<WcOpcode>,
    /// Bytes received; only defined for successful receives.
    pub byte_len: Option<u32>,
    /// The local QP number.
    pub qp_num: u32,
}

/// Device limits the value rules check against (`struct ibv_device_attr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLimits {
    /// `max_qp_rd_atom`: bound for `max_dest_rd_atomic`.
    pub max_qp_rd_atom: u8,
    /// `max_qp_init_rd_atom`: bound for `max_rd_atomic`.
    pub max_qp_init_rd_atom: u8,
    /// `phys_port_cnt`: ports are numbered 1..=phys_port_cnt.
    pub phys_port_cnt: u8,
}

impl Default for DeviceLimits {
    /// 16/16 as ConnectX adapters report in `ibv_devinfo -v`; one port.
    fn default() -> DeviceLimits {
        DeviceLimits {
            max_qp_rd_atom: 16,
            max_qp_init_rd_atom: 16,
            phys_port_cnt: 1,
        }
    }
}

/// The `struct ibv_qp_attr` fields of one `ibv_modify_qp()` call; the mask is derived from
/// which fields are `Some`. Also used for the attributes a QP holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct ModifyAttrs {
    pub qp_state: Option<QpState>,
    pub cur_qp_state: Option<QpState>,
    pub en_sqd_async_notify: Option<bool>,
    pub qp_access_flags: Option<u32>,
    pub pkey_index: Option<u16>,
    pub port_num: Option<u8>,
    pub qkey: Option<u32>,
    pub ah_attr: Option<AddressVector>,
    pub path_mtu: Option<u32>,
    pub timeout: Option<u8>,
    pub retry_cnt: Option<u8>,
    pub rnr_retry: Option<u8>,
    pub rq_psn: Option<u32>,
    pub max_rd_atomic: Option<u8>,
    pub alt_path: Option<AddressVector>,
    pub min_rnr_timer: Option<u8>,
    pub sq_psn: Option<u32>,
    pub max_dest_rd_atomic: Option<u8>,
    /// `enum ibv_mig_state`: 0 MIGRATED, 1 REARM, 2 ARMED.
    pub path_mig_state: Option<u8>,
    /// New `(max_send_wr, max_recv_wr)`.
    pub cap: Option<(u32, u32)>,
    pub dest_qp_num: Option<u32>,
    /// kbps.
    pub rate_limit: Option<u32>,
}

impl ModifyAttrs {
    /// An empty request that moves to `state`.
    pub fn to(state: QpState) -> ModifyAttrs {
        ModifyAttrs {
            qp_state: Some(state),
            ..ModifyAttrs::default()
        }
    }

    /// The `attr_mask` this request implies.
    pub fn mask(&self) -> AttrMask {
        let present = [
            (self.qp_state.is_some(), AttrName::State),
            (self.cur_qp_state.is_some(), AttrName::CurState),
            (
                self.en_sqd_async_notify.is_some(),
                AttrName::EnSqdAsyncNotify,
            ),
            (self.qp_access_flags.is_some(), AttrName::AccessFlags),
            (self.pkey_index.is_some(), AttrName::PkeyIndex),
            (self.port_num.is_some(), AttrName::Port),
            (self.qkey.is_some(), AttrName::Qkey),
            (self.ah_attr.is_some(), AttrName::Av),
            (self.path_mtu.is_some(), AttrName::PathMtu),
            (self.timeout.is_some(), AttrName::Timeout),
            (self.retry_cnt.is_some(), AttrName::RetryCnt),
            (self.rnr_retry.is_some(), AttrName::RnrRetry),
            (self.rq_psn.is_some(), AttrName::RqPsn),
            (self.max_rd_atomic.is_some(), AttrName::MaxQpRdAtomic),
            (self.alt_path.is_some(), AttrName::AltPath),
            (self.min_rnr_timer.is_some(), AttrName::MinRnrTimer),
            (self.sq_psn.is_some(), AttrName::SqPsn),
            (self.max_dest_rd_atomic.is_some(), AttrName::MaxDestRdAtomic),
            (self.path_mig_state.is_some(), AttrName::PathMigState),
            (self.cap.is_some(), AttrName::Cap),
            (self.dest_qp_num.is_some(), AttrName::DestQpn),
            (self.rate_limit.is_some(), AttrName::RateLimit),
        ];
        present
            .into_iter()
            .filter(|(set, _)| *set)
            .fold(AttrMask::EMPTY, |m, (_, a)| m.with(a))
    }

    /// Checks every present value and returns its decoded meaning, in mask order.
    pub fn decode(&self, device: &DeviceLimits) -> Result<Vec<Decoded>, ValueError> {
        let mut out = Vec::new();
        let text = |field: &str, value: u64, meaning: String| Decoded {
            field: field.to_string(),
            value,
            meaning,
        };
        if let Some(v) = self.en_sqd_async_notify {
            out.push(text(
                "en_sqd_async_notify",
                v.into(),
                if v {
                    "raise IBV_EVENT_SQ_DRAINED once the send queue has drained".into()
                } else {
                    "no event when the send queue has drained".into()
                },
            ));
        }
        if let Some(v) = self.qp_access_flags {
            out.push(values::decode_qp_access_flags(v)?);
        }
        if let Some(v) = self.pkey_index {
            out.push(text(
                "pkey_index",
                v.into(),
                format!("entry {v} of the port's P_Key table: the partition this QP belongs to"),
            ));
        }
        if let Some(v) = self.port_num {
            if v == 0 || v > device.phys_port_cnt {
                return Err(ValueError {
                    field: "port_num".into(),
                    value: v.into(),
                    reason: format!(
                        "is not a port of this device (ports are numbered 1..={})",
                        device.phys_port_cnt
                    ),
                });
            }
            out.push(text("port_num", v.into(), format!("HCA port {v}")));
        }
        if let Some(v) = self.qkey {
            out.push(text(
                "qkey",
                v.into(),
                format!(
                    "Q_Key {v:#x}: datagrams to this QP must carry it{}",
                    if v & 0x8000_0000 != 0 {
                        " (high bit set: a controlled Q_Key only privileged users may send)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if let Some(av) = self.ah_attr {
            out.push(text("ah_attr", av.dlid.into(), describe_av(&av)));
        }
        if let Some(v) = self.path_mtu {
            out.push(values::decode_path_mtu(v)?);
        }
        if let Some(v) = self.timeout {
            out.push(values::decode_timeout(v)?);
        }
        if let Some(v) = self.retry_cnt {
            out.push(values::decode_retry_cnt(v)?);
        }
        if let Some(v) = self.rnr_retry {
            out.push(values::decode_rnr_retry(v)?);
        }
        if let Some(v) = self.rq_psn {
            out.push(values::decode_psn("rq_psn", Psn::truncate(v).value())?);
        }
        if let Some(v) = self.max_rd_atomic {
            out.push(values::decode_max_rd_atomic(v, device.max_qp_init_rd_atom)?);
        }
        if let Some(av) = self.alt_path {
            out.push(text("alt_ah_attr", av.dlid.into(), describe_av(&av)));
        }
        if let Some(v) = self.min_rnr_timer {
            out.push(values::decode_min_rnr_timer(v)?);
        }
        if let Some(v) = self.sq_psn {
            out.push(values::decode_psn("sq_psn", Psn::truncate(v).value())?);
        }
        if let Some(v) = self.max_dest_rd_atomic {
            out.push(values::decode_max_dest_rd_atomic(v, device.max_qp_rd_atom)?);
        }
        if let Some(v) = self.path_mig_state {
            let name = match v {
                0 => "IBV_MIG_MIGRATED",
                1 => "IBV_MIG_REARM",
                2 => "IBV_MIG_ARMED",
                _ => {
                    return Err(ValueError {
                        field: "path_mig_state".into(),
                        value: v.into(),
                        reason: "is not an enum ibv_mig_state value (0..=2)".into(),
                    })
                }
            };
            out.push(text("path_mig_state", v.into(), name.into()));
        }
        if let Some((send, recv)) = self.cap {
            out.push(text(
                "cap",
                send.into(),
                format!("resize to {send} send and {recv} receive work requests"),
            ));
        }
        if let Some(v) = self.dest_qp_num {
            out.push(values::decode_qpn("dest_qp_num", v)?);
        }
        if let Some(v) = self.rate_limit {
            out.push(text(
                "rate_limit",
                v.into(),
                if v == 0 {
                    "0: no packet pacing".into()
                } else {
                    format!("pace this QP's packets to {v} kbps")
                },
            ));
        }
        Ok(out)
    }

    /// Copies every field present in `other` over this one (the state fields excepted).
    fn merge_from(&mut self, other: &ModifyAttrs) {
        fn take<T: Copy>(dst: &mut Option<T>, src: Option<T>) {
            if src.is_some() {
                *dst = src;
            }
        }
        take(&mut self.en_sqd_async_notify, other.en_sqd_async_notify);
        take(&mut self.qp_access_flags, other.qp_access_flags);
        take(&mut self.pkey_index, other.pkey_index);
        take(&mut self.port_num, other.port_num);
        take(&mut self.qkey, other.qkey);
        take(&mut self.ah_attr, other.ah_attr);
        take(&mut self.path_mtu, other.path_mtu);
        take(&mut self.timeout, other.timeout);
        take(&mut self.retry_cnt, other.retry_cnt);
        take(&mut self.rnr_retry, other.rnr_retry);
        // The kernel keeps the low 24 bits of an oversized PSN (with a warning).
        take(
            &mut self.rq_psn,
            other.rq_psn.map(|v| Psn::truncate(v).value()),
        );
        take(&mut self.max_rd_atomic, other.max_rd_atomic);
        take(&mut self.alt_path, other.alt_path);
        take(&mut self.min_rnr_timer, other.min_rnr_timer);
        take(
            &mut self.sq_psn,
            other.sq_psn.map(|v| Psn::truncate(v).value()),
        );
        take(&mut self.max_dest_rd_atomic, other.max_dest_rd_atomic);
        take(&mut self.path_mig_state, other.path_mig_state);
        take(&mut self.cap, other.cap);
        take(&mut self.dest_qp_num, other.dest_qp_num);
        take(&mut self.rate_limit, other.rate_limit);
    }
}

fn describe_av(av: &AddressVector) -> String {
    match av.dgid {
        Some(gid) => format!(
            "GRH to GID {} (sgid_index {}, SL {}, port {}){}",
            format_gid(&gid),
            av.sgid_index,
            av.sl,
            av.port_num,
            if av.dlid == 0 {
                String::new()
            } else {
                format!(", LID {}", av.dlid)
            }
        ),
        None => format!(
            "LID {} (no GRH: same InfiniBand subnet), SL {}, port {}",
            av.dlid, av.sl, av.port_num
        ),
    }
}

/// Formats a GID as IPv6 text, with IPv4-mapped GIDs (RoCE v2 over IPv4) as `::ffff:a.b.c.d`.
pub fn format_gid(gid: &[u8; 16]) -> String {
    let words: Vec<u16> = gid
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    if gid[..10].iter().all(|b| *b == 0) && gid[10] == 0xff && gid[11] == 0xff {
        return format!("::ffff:{}.{}.{}.{}", gid[12], gid[13], gid[14], gid[15]);
    }
    words
        .iter()
        .map(|w| format!("{w:x}"))
        .collect::<Vec<_>>()
        .join(":")
}

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
    fn wc_status_values_follow_verbs_h() {
        for (i, s) in WcStatus::ALL.iter().enumerate() {
            assert_eq!(s.value() as usize, i);
        }
        assert_eq!(WcStatus::WrFlushErr.value(), 5);
        assert_eq!(WcStatus::RemAccessErr.value(), 10);
        assert_eq!(WcStatus::RetryExcErr.value(), 12);
        assert_eq!(WcStatus::RnrRetryExcErr.value(), 13);
        assert_eq!(AsyncEvent::SqDrained.value(), 5);
        assert_eq!(WcOpcode::Recv.value(), 128);
    }

    #[test]
    fn format_gid_handles_ipv4_mapped() {
        let mut gid = [0u8; 16];
        gid[10] = 0xff;
        gid[11] = 0xff;
        gid[12..].copy_from_slice(&[192, 168, 1, 10]);
        assert_eq!(format_gid(&gid), "::ffff:192.168.1.10");
        let link_local = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        assert_eq!(format_gid(&link_local), "fe80:0:0:0:0:0:0:1");
    }

    #[test]
    fn mask_follows_present_fields() {
        let req = ModifyAttrs {
            pkey_index: Some(0),
            port_num: Some(1),
            qp_access_flags: Some(0),
            ..ModifyAttrs::to(QpState::Init)
        };
        assert_eq!(
            req.mask(),
            AttrName::State | AttrName::PkeyIndex | AttrName::Port | AttrName::AccessFlags
        );
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
