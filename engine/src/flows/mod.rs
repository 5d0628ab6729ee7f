//! Animated packet flows: step-by-step scenarios of who touches the data, in what order,
//! over which link, for how long, and at what cost in copies, syscalls and interrupts.
//!
//! - [`link`](mod@link): the link model ([`LinkId`], [`Link`]): per-direction data rates from the
//!   specifications, latencies as named model assumptions. A transfer of `b` bytes over a
//!   link takes `latency + b × 8 / rate`.
//! - [`model`]: the data the app draws: [`Actor`]s with grid layout hints, [`Step`]s with
//!   start, duration, [`Timing`] and category split, and [`Totals`].
//! - [`ScenarioParams`]: message size, link choices, cluster shape, protocol timers.
//! - [`scenario_ids`], [`build_scenario`], [`comparisons`]: the registry.
//! - [`playback`]: opening parameters, editable fields, wires, routes and the state of a
//!   flow at a moment, for a player.
//! - [`exercise`]: the view's "try this" tasks, checked on the step shown.
//!
//! Conventions: time in ns from the first step; steps on the critical path follow each other
//! without gaps, so the breakdown by category sums to the end-to-end latency; steps off the
//! critical path (ACKs the receiver does not wait for, drops, interrupts) start when the step
//! they depend on ends. Network crossings serialize the bytes once (at the sender) and
//! add cable and cut-through switch latency per hop: hosts sit on different leaves of a
//! leaf–spine fabric (4 cables, 3 switches).

mod congestion;
pub mod costs;
pub mod exercise;
pub mod link;
pub mod model;
mod nccl;
mod params;
pub mod playback;
mod rdma;
mod reliability;
mod stage;
mod staging;
mod tcp;

pub use link::{link, links, switch_latency_ns, Link, LinkId, LinkKind};
pub use model::{
    Actor, ActorKind, Category, CategoryTime, CollectivePhase, CollectiveSummary, Figure,
    FlowError, Layout, Scenario, Side, Step, StepKind, TimePart, Timing, Totals,
};
pub use params::{
    ScenarioParams, IP_MTU_RANGE, MAX_GPUS_PER_NODE, MAX_INLINE_LIMIT, MAX_MESSAGE_BYTES,
    MAX_NODES, MAX_RDMA_MESSAGE_BYTES,
};
pub use playback::{default_params, param_fields, ParamField, Wire};
pub use stage::{PATH_CABLES, PATH_SWITCHES};

use serde::{Deserialize, Serialize};

/// Every scenario id, in teaching order.
pub const SCENARIO_IDS: [&str; 15] = [
    "post-send",
    "post-send-inline",
    "gpudirect-write",
    "staged-write",
    "tcp-socket",
    "rc-connect",
    "go-back-n",
    "timeout-retransmit",
    "rnr-retry",
    "rdma-read",
    "atomic-cas",
    "ecn-cnp",
    "pfc-pause",
    "nccl-allreduce",
    "nccl-allreduce-tcp",
];

/// Every scenario id.
pub fn scenario_ids() -> &'static [&'static str] {
    &SCENARIO_IDS
}

/// Builds a scenario after validating the parameters.
pub fn build_scenario(id: &str, params: &ScenarioParams) -> Result<Scenario, FlowError> {
    params.validate()?;
    let flow = match id {
        "post-send" => rdma::post_send(params, false)?,
        "post-send-inline" => rdma::post_send(params, true)?,
        "gpudirect-write" => rdma::gpu_write(params, true)?,
        "staged-write" => rdma::gpu_write(params, false)?,
        "tcp-socket" => tcp::tcp_socket(params)?,
        "rc-connect" => rdma::rc_connect(params)?,
        "go-back-n" => reliability::go_back_n(params)?,
        "timeout-retransmit" => reliability::timeout_retransmit(params)?,
        "rnr-retry" => reliability::rnr_retry(params)?,
        "rdma-read" => rdma::rdma_read(params)?,
        "atomic-cas" => rdma::atomic_cas(params)?,
        "ecn-cnp" => congestion::ecn_cnp(params)?,
        "pfc-pause" => congestion::pfc_pause(params)?,
        "nccl-allreduce" => nccl::allreduce(params, false)?,
        "nccl-allreduce-tcp" => nccl::allreduce(params, true)?,
        other => return Err(FlowError::UnknownScenario(other.to_string())),
    };
    Ok(flow.finish())
}

/// Two scenarios meant to be played side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub left: String,
    pub right: String,
    /// What the pair shows.
    pub point: String,
}

/// The comparison pairs.
pub fn comparisons() -> Vec<Comparison> {
    let pair = |l: &str, r: &str, point: &str| Comparison {
        left: l.to_string(),
        right: r.to_string(),
        point: point.to_string(),
    };
    vec![
        pair(
            "gpudirect-write",
            "staged-write",
            "GPUDirect RDMA removes both host copies and both CUDA calls.",
        ),
        pair(
            "post-send",
            "tcp-socket",
            "RDMA bypasses the kernel: no syscalls, no socket copies, no interrupts.",
        ),
        pair(
            "post-send",
            "post-send-inline",
            "Inline sends trade DMA round trips for a larger MMIO write.",
        ),
        pair(
            "nccl-allreduce",
            "nccl-allreduce-tcp",
            "The same collective with and without RDMA between nodes.",
        ),
    ]
}
