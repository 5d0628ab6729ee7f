//! Lossless RoCE configuration worked out: where a traffic class lands (DSCP, priority, PFC
//! and ECN), and how much buffer a lossless priority needs per port after XOFF.
//!
//! - [`QosPlan`] → [`QosPlan::check`]: `NCCL_IB_TC` to the DSCP the NIC writes (mlx5:
//!   traffic class >> 2), to the priority the switches map that DSCP to, with the CNP's own
//!   DSCP and priority, and [`QosFinding`]s for every place the chain breaks.
//! - [`Headroom`] → [`Headroom::bytes`]: IEEE 802.1Qbb Annex N's delay components as bytes.

mod headroom;
mod qos;

pub use headroom::{Headroom, HeadroomBreakdown, PFC_FRAME_BYTES};
pub use qos::{
    parse_dscp_map, parse_priorities, traffic_class_byte, DscpPriority, Ecn, QosChain, QosFinding,
    QosPlan, Severity,
};
