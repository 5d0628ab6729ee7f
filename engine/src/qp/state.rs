//! QP states and QP transport types.

use core::fmt;
use serde::{Deserialize, Serialize};

/// The state of a queue pair.
///
/// The seven states of the IBTA QP state machine (IBTA Vol. 1 §10.3.1, figure "QP/EE state
/// diagram"); the numeric values are rdma-core's `enum ibv_qp_state` (`libibverbs/verbs.h`),
/// which match the kernel's `enum ib_qp_state`. Serialized without the `IBV_QPS_` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum QpState {
    /// Freshly created (or reset): no attributes, queues empty, nothing is processed.
    Reset = 0,
    /// Initialized: port, P_Key and access rights are set; receives may be posted.
    Init = 1,
    /// Ready To Receive: the remote end is known; incoming packets are processed.
    Rtr = 2,
    /// Ready To Send: both directions run.
    Rts = 3,
    /// Send Queue Drain: no new send WRs start; those in progress finish.
    Sqd = 4,
    /// Send Queue Error (unreliable types only): the send side stopped on an error,
    /// the receive side still works.
    Sqe = 5,
    /// Error: nothing is processed; every outstanding WR completes as flushed.
    Err = 6,
}

impl QpState {
    /// All states in `ibv_qp_state` order.
    pub const ALL: [QpState; 7] = [
        QpState::Reset,
        QpState::Init,
        QpState::Rtr,
        QpState::Rts,
        QpState::Sqd,
        QpState::Sqe,
        QpState::Err,
    ];

    /// Short name as used in the transition table: `RESET`, `INIT`, ….
    pub fn name(self) -> &'static str {
        match self {
            QpState::Reset => "RESET",
            QpState::Init => "INIT",
            QpState::Rtr => "RTR",
            QpState::Rts => "RTS",
            QpState::Sqd => "SQD",
            QpState::Sqe => "SQE",
            QpState::Err => "ERR",
        }
    }

    /// The rdma-core constant name, e.g. `IBV_QPS_RTS`.
    pub fn ibv_name(self) -> &'static str {
        match self {
            QpState::Reset => "IBV_QPS_RESET",
            QpState::Init => "IBV_QPS_INIT",
            QpState::Rtr => "IBV_QPS_RTR",
            QpState::Rts => "IBV_QPS_RTS",
            QpState::Sqd => "IBV_QPS_SQD",
            QpState::Sqe => "IBV_QPS_SQE",
            QpState::Err => "IBV_QPS_ERR",
        }
    }

    /// Numeric value of `enum ibv_qp_state`.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// Parses `RTS`, `IBV_QPS_RTS` (any case) or the numeric value.
    pub fn parse(text: &str) -> Option<QpState> {
        let t = text.trim();
        if let Ok(n) = t.parse::<u32>() {
            return QpState::ALL.into_iter().find(|s| s.value() == n);
        }
        let upper = t.to_ascii_uppercase();
        let short = upper.strip_prefix("IBV_QPS_").unwrap_or(&upper);
        QpState::ALL.into_iter().find(|s| s.name() == short)
    }
}

impl fmt::Display for QpState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The transport service type of a queue pair.
///
/// Values are rdma-core's `enum ibv_qp_type` (`libibverbs/verbs.h`: RC = 2, UC = 3, UD = 4,
/// RAW_PACKET = 8, XRC_SEND = 9, XRC_RECV = 10); the kernel calls the XRC pair
/// `IB_QPT_XRC_INI` and `IB_QPT_XRC_TGT`. The kernel's special QPs (SMI = QP0, GSI = QP1)
/// are left out: applications cannot create them through verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum QpType {
    /// Reliable Connected: acknowledged, in order, RDMA Read/Write/Atomic.
    Rc = 2,
    /// Unreliable Connected: connected, RDMA Write and Send, no acknowledgements.
    Uc = 3,
    /// Unreliable Datagram: one QP talks to many, one MTU per message, address per send.
    Ud = 4,
    /// Raw Ethernet frames (Linux/mlx-specific, not an IBTA transport).
    RawPacket = 8,
    /// XRC initiator (kernel `IB_QPT_XRC_INI`): the sending half of an XRC connection.
    XrcSend = 9,
    /// XRC target (kernel `IB_QPT_XRC_TGT`): the receiving half, feeding XRC SRQs.
    XrcRecv = 10,
}

impl QpType {
    /// All types in `ibv_qp_type` order.
    pub const ALL: [QpType; 6] = [
        QpType::Rc,
        QpType::Uc,
        QpType::Ud,
        QpType::RawPacket,
        QpType::XrcSend,
        QpType::XrcRecv,
    ];

    /// Name as in the transition table: `RC`, `UC`, `UD`, `RAW_PACKET`, `XRC_SEND`, `XRC_RECV`.
    pub fn name(self) -> &'static str {
        match self {
            QpType::Rc => "RC",
            QpType::Uc => "UC",
            QpType::Ud => "UD",
            QpType::RawPacket => "RAW_PACKET",
            QpType::XrcSend => "XRC_SEND",
            QpType::XrcRecv => "XRC_RECV",
        }
    }

    /// The rdma-core constant name, e.g. `IBV_QPT_RC`.
    pub fn ibv_name(self) -> &'static str {
        match self {
            QpType::Rc => "IBV_QPT_RC",
            QpType::Uc => "IBV_QPT_UC",
            QpType::Ud => "IBV_QPT_UD",
            QpType::RawPacket => "IBV_QPT_RAW_PACKET",
            QpType::XrcSend => "IBV_QPT_XRC_SEND",
            QpType::XrcRecv => "IBV_QPT_XRC_RECV",
        }
    }

    /// The kernel's name for the same type (`drivers/infiniband/core/verbs.c`).
    pub fn kernel_name(self) -> &'static str {
        match self {
            QpType::Rc => "IB_QPT_RC",
            QpType::Uc => "IB_QPT_UC",
            QpType::Ud => "IB_QPT_UD",
            QpType::RawPacket => "IB_QPT_RAW_PACKET",
            QpType::XrcSend => "IB_QPT_XRC_INI",
            QpType::XrcRecv => "IB_QPT_XRC_TGT",
        }
    }

    /// Numeric value of `enum ibv_qp_type`.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// Parses `RC`, `IBV_QPT_RC`, the kernel names `XRC_INI`/`XRC_TGT` (any case) or the
    /// numeric value.
    pub fn parse(text: &str) -> Option<QpType> {
        let t = text.trim();
        if let Ok(n) = t.parse::<u32>() {
            return QpType::ALL.into_iter().find(|q| q.value() == n);
        }
        let upper = t.to_ascii_uppercase();
        let short = upper
            .strip_prefix("IBV_QPT_")
            .or_else(|| upper.strip_prefix("IB_QPT_"))
            .unwrap_or(&upper);
        match short {
            "XRC_INI" => Some(QpType::XrcSend),
            "XRC_TGT" => Some(QpType::XrcRecv),
            _ => QpType::ALL.into_iter().find(|q| q.name() == short),
        }
    }

    /// Whether the transport acknowledges every message (RC and both XRC halves).
    ///
    /// Reliable types are the ones with a transport timer, `retry_cnt` and RNR NAKs
    /// (IBTA Vol. 1 §9.7).
    pub fn is_reliable(self) -> bool {
        matches!(self, QpType::Rc | QpType::XrcSend | QpType::XrcRecv)
    }

    /// Whether a send-side error parks the QP in SQE instead of ERR.
    ///
    /// IBTA Vol. 1 §10.3.1 defines the Send Queue Error state for the unreliable service
    /// types only; a reliable connection cannot skip a message, so any error ends it (ERR).
    /// The kernel's `qp_state_table` lists SQE→RTS attributes for UD and UC alone; for the
    /// Linux-specific RAW_PACKET type this model follows the kernel table and sends errors to
    /// ERR.
    pub fn has_sqe_state(self) -> bool {
        matches!(self, QpType::Ud | QpType::Uc)
    }
}

impl fmt::Display for QpType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_values_follow_ibv_qp_state() {
        // rdma-core verbs.h: IBV_QPS_RESET, INIT, RTR, RTS, SQD, SQE, ERR count up from 0.
        let names = ["RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"];
        for (i, name) in names.iter().enumerate() {
            let s = QpState::parse(name).expect("known state");
            assert_eq!(s.value() as usize, i);
            assert_eq!(QpState::parse(&format!("ibv_qps_{name}")), Some(s));
            assert_eq!(QpState::parse(&i.to_string()), Some(s));
        }
        assert_eq!(QpState::parse("UNKNOWN"), None);
        assert_eq!(QpState::parse("7"), None);
    }

    #[test]
    fn type_values_follow_ibv_qp_type() {
        assert_eq!(QpType::parse("IBV_QPT_RC").map(QpType::value), Some(2));
        assert_eq!(QpType::parse("uc").map(QpType::value), Some(3));
        assert_eq!(QpType::parse("UD").map(QpType::value), Some(4));
        assert_eq!(QpType::parse("RAW_PACKET").map(QpType::value), Some(8));
        assert_eq!(QpType::parse("IB_QPT_XRC_INI"), Some(QpType::XrcSend));
        assert_eq!(QpType::parse("xrc_tgt"), Some(QpType::XrcRecv));
        assert_eq!(QpType::parse("10"), Some(QpType::XrcRecv));
        assert_eq!(QpType::parse("RD"), None);
    }
}
