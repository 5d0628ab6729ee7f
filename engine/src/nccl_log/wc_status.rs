//! Work-completion status numbers, as libibverbs numbers them.
//!
//! Source: rdma-core v64.0, `libibverbs/verbs.h` lines 489-514 (`enum ibv_wc_status`,
//! numbered from `IBV_WC_SUCCESS` = 0 by declaration order) and `libibverbs/enum_strs.c`
//! lines 102-135 (`ibv_wc_status_str`, the wording `ibv_wc_status_str()` prints). NCCL
//! v2.4 to v2.28 print only the number; v2.29 prints its own copy of the names
//! (`src/transport/net_ib/p2p.cc` lines 451-475 at v2.29.3-1), which match these.

/// The enumerator name and `ibv_wc_status_str` wording of a status number, if libibverbs
/// defines it.
pub fn describe(status: u32) -> Option<(&'static str, &'static str)> {
    let i = usize::try_from(status).ok()?;
    TABLE.get(i).copied()
}

/// Status 5: the QP went to the error state and its outstanding work requests were flushed.
pub const WR_FLUSH_ERR: u32 = 5;
/// Status 12: the transport retry counter was exceeded (no ACK from the peer).
pub const RETRY_EXC_ERR: u32 = 12;
/// Status 13: the RNR retry counter was exceeded (the peer had no receive posted).
pub const RNR_RETRY_EXC_ERR: u32 = 13;

const TABLE: [(&str, &str); 24] = [
    ("IBV_WC_SUCCESS", "success"),
    ("IBV_WC_LOC_LEN_ERR", "local length error"),
    ("IBV_WC_LOC_QP_OP_ERR", "local QP operation error"),
    ("IBV_WC_LOC_EEC_OP_ERR", "local EE context operation error"),
    ("IBV_WC_LOC_PROT_ERR", "local protection error"),
    ("IBV_WC_WR_FLUSH_ERR", "Work Request Flushed Error"),
    ("IBV_WC_MW_BIND_ERR", "memory management operation error"),
    ("IBV_WC_BAD_RESP_ERR", "bad response error"),
    ("IBV_WC_LOC_ACCESS_ERR", "local access error"),
    ("IBV_WC_REM_INV_REQ_ERR", "remote invalid request error"),
    ("IBV_WC_REM_ACCESS_ERR", "remote access error"),
    ("IBV_WC_REM_OP_ERR", "remote operation error"),
    ("IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"),
    ("IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"),
    ("IBV_WC_LOC_RDD_VIOL_ERR", "local RDD violation error"),
    ("IBV_WC_REM_INV_RD_REQ_ERR", "remote invalid RD request"),
    ("IBV_WC_REM_ABORT_ERR", "aborted error"),
    ("IBV_WC_INV_EECN_ERR", "invalid EE context number"),
    ("IBV_WC_INV_EEC_STATE_ERR", "invalid EE context state"),
    ("IBV_WC_FATAL_ERR", "fatal error"),
    ("IBV_WC_RESP_TIMEOUT_ERR", "response timeout error"),
    ("IBV_WC_GENERAL_ERR", "general error"),
    ("IBV_WC_TM_ERR", "TM error"),
    ("IBV_WC_TM_RNDV_INCOMPLETE", "TM software rendezvous"),
];

/// The status number of an enumerator name, for v2.29 lines that print both.
pub fn number_of(name: &str) -> Option<u32> {
    let i = TABLE.iter().position(|(n, _)| *n == name)?;
    u32::try_from(i).ok()
}
