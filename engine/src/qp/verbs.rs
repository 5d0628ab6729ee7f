//! The verbs vocabulary the QP model speaks: work requests, work completions and their
//! statuses, affiliated async events, address vectors and device limits, and the
//! `ibv_modify_qp()` attributes, decoded by the value rules of [`super::values`]. Names and
//! numbers follow rdma-core `libibverbs/verbs.h`; [`super::sim`] is the queue pair that acts
//! on them.

use serde::{Deserialize, Serialize};

use super::attr::{AttrMask, AttrName};
use super::state::QpState;
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
    pub(super) fn completion_opcode(self) -> WcOpcode {
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
                return Err(ValueError::out_of_range(
                    "port_num",
                    v.into(),
                    format!(
                        "is not a port of this device (ports are numbered 1..={})",
                        device.phys_port_cnt
                    ),
                ));
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
                    return Err(ValueError::out_of_range(
                        "path_mig_state",
                        v.into(),
                        "is not an enum ibv_mig_state value (0..=2)",
                    ))
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
    pub(super) fn merge_from(&mut self, other: &ModifyAttrs) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
