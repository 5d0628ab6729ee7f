//! Scenario parameters and their validation.

use serde::{Deserialize, Serialize};

use super::link::{LinkId, LinkKind};
use super::FlowError;
use crate::capture::segment::PATH_MTUS;

/// Largest message an RDMA work request can carry: the DMA length field is 32 bits and
/// messages are limited to 2^31 bytes (IBTA Vol. 1 §9.4.3; `engine::capture::segment`).
pub const MAX_RDMA_MESSAGE_BYTES: u64 = 1 << 31;
/// Largest buffer the scenarios accept at all (collectives, TCP): 64 GiB.
pub const MAX_MESSAGE_BYTES: u64 = 1 << 36;
/// Largest node count for a collective.
pub const MAX_NODES: u32 = 4096;
/// Largest GPU count per node (an NVLink domain inside one node: 8 on HGX boards; 72 for
/// rack-scale NVL72 domains).
pub const MAX_GPUS_PER_NODE: u32 = 72;
/// Ethernet IP MTU range accepted for the TCP path (IPv4 minimum datagram 576, RFC 791;
/// common jumbo frames up to 9216).
pub const IP_MTU_RANGE: (u32, u32) = (576, 9216);
/// Largest `max_inline_data` accepted; mlx5 devices report a few hundred bytes.
pub const MAX_INLINE_LIMIT: u32 = 1024;

/// What a scenario is built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioParams {
    /// Message (or collective buffer) size in bytes.
    pub message_bytes: u64,
    /// Host bus link (a PCIe link).
    pub pcie: LinkId,
    /// RDMA network link (InfiniBand or RoCE).
    pub network: LinkId,
    /// GPU-to-GPU link inside a node (NVLink).
    pub nvlink: LinkId,
    /// TCP network link for the socket scenarios.
    pub tcp: LinkId,
    /// Nodes in a collective (at least 2).
    pub nodes: u32,
    pub gpus_per_node: u32,
    /// NICs per node for collectives (rail-aligned: one per GPU when equal).
    pub nics_per_node: u32,
    /// RDMA path MTU in bytes (256, 512, 1024, 2048 or 4096).
    pub mtu: u32,
    /// IP MTU for the TCP path.
    pub ip_mtu: u32,
    /// Local ACK timeout exponent: 4.096 µs × 2^timeout (IBTA Vol. 1 §9.7.6.1.3).
    pub ack_timeout: u8,
    /// RNR NAK timer code (IBTA Vol. 1 §9.7.5.2.8).
    pub min_rnr_timer: u8,
    /// Largest message sent inline (`ibv_qp_cap.max_inline_data`).
    pub max_inline_data: u32,
    /// PFC pause quanta in a PAUSE frame (units of 512 bit times, IEEE 802.1Qbb).
    pub pause_quanta: u16,
}

impl Default for ScenarioParams {
    fn default() -> Self {
        ScenarioParams {
            message_bytes: 4096,
            pcie: LinkId::PcieGen5X16,
            network: LinkId::IbNdr,
            nvlink: LinkId::Nvlink4,
            tcp: LinkId::Tcp100g,
            nodes: 4,
            gpus_per_node: 8,
            nics_per_node: 8,
            mtu: 4096,
            ip_mtu: 1500,
            ack_timeout: 14,
            min_rnr_timer: 12,
            max_inline_data: 128,
            pause_quanta: 0xffff,
        }
    }
}

pub(crate) fn param_error(field: &str, value: impl ToString, reason: &str) -> FlowError {
    FlowError::Param {
        value: value.to_string(),
        error: crate::FieldError::new(field, reason),
    }
}

fn expect_kind(field: &str, link: LinkId, ok: bool, expected: &str) -> Result<(), FlowError> {
    if ok {
        Ok(())
    } else {
        Err(FlowError::WrongLinkKind {
            field: field.to_string(),
            link,
            expected: expected.to_string(),
        })
    }
}

impl ScenarioParams {
    /// Checks every field; the error names the field.
    pub fn validate(&self) -> Result<(), FlowError> {
        if self.message_bytes == 0 {
            return Err(param_error(
                "message_bytes",
                0,
                "a message must carry at least one byte",
            ));
        }
        if self.message_bytes > MAX_MESSAGE_BYTES {
            return Err(param_error(
                "message_bytes",
                self.message_bytes,
                "larger than 64 GiB, the largest buffer the scenarios model",
            ));
        }
        expect_kind(
            "pcie",
            self.pcie,
            self.pcie.kind() == LinkKind::Pcie,
            "a PCIe link",
        )?;
        expect_kind(
            "network",
            self.network,
            self.network.kind().is_rdma_network(),
            "an RDMA network link (InfiniBand or RoCE)",
        )?;
        expect_kind(
            "nvlink",
            self.nvlink,
            self.nvlink.kind() == LinkKind::Nvlink,
            "an NVLink link",
        )?;
        expect_kind(
            "tcp",
            self.tcp,
            self.tcp.kind() == LinkKind::Tcp,
            "a TCP/Ethernet link",
        )?;
        if !(2..=MAX_NODES).contains(&self.nodes) {
            return Err(param_error(
                "nodes",
                self.nodes,
                "a multi-node collective needs between 2 and 4096 nodes",
            ));
        }
        if !(1..=MAX_GPUS_PER_NODE).contains(&self.gpus_per_node) {
            return Err(param_error(
                "gpus_per_node",
                self.gpus_per_node,
                "must be between 1 and 72",
            ));
        }
        if self.nics_per_node == 0 || self.nics_per_node > self.gpus_per_node {
            return Err(param_error(
                "nics_per_node",
                self.nics_per_node,
                "must be between 1 and gpus_per_node",
            ));
        }
        if !PATH_MTUS.contains(&self.mtu) {
            return Err(param_error(
                "mtu",
                self.mtu,
                "an RDMA path MTU is one of 256, 512, 1024, 2048, 4096",
            ));
        }
        if !(IP_MTU_RANGE.0..=IP_MTU_RANGE.1).contains(&self.ip_mtu) {
            return Err(param_error(
                "ip_mtu",
                self.ip_mtu,
                "an IP MTU between 576 and 9216 bytes",
            ));
        }
        if self.ack_timeout == 0 || self.ack_timeout > 31 {
            return Err(param_error(
                "ack_timeout",
                self.ack_timeout,
                "a 5-bit exponent 1..=31 (0 means never retransmit, which cannot be played)",
            ));
        }
        if self.min_rnr_timer > 31 {
            return Err(param_error(
                "min_rnr_timer",
                self.min_rnr_timer,
                "a 5-bit RNR timer code 0..=31",
            ));
        }
        if self.max_inline_data > MAX_INLINE_LIMIT {
            return Err(param_error(
                "max_inline_data",
                self.max_inline_data,
                "larger than any device offers (at most 1024 here)",
            ));
        }
        if self.pause_quanta == 0 {
            return Err(param_error(
                "pause_quanta",
                0,
                "a PAUSE of 0 quanta is an XON (resume), not a pause",
            ));
        }
        Ok(())
    }

    /// Also checks that the message fits one RDMA work request.
    pub(crate) fn rdma_message(&self) -> Result<u64, FlowError> {
        if self.message_bytes > MAX_RDMA_MESSAGE_BYTES {
            return Err(param_error(
                "message_bytes",
                self.message_bytes,
                "an RDMA message is at most 2^31 bytes (IBTA Vol. 1 §9.4.3)",
            ));
        }
        Ok(self.message_bytes)
    }
}
