//! DCQCN, the congestion control of RoCEv2 (Zhu et al., "Congestion Control for
//! Large-Scale RDMA Deployments", SIGCOMM 2015), as implemented in mlx5 NICs.
//!
//! - [`CongestionPoint`]: the switch egress queue, RED/ECN marking and PFC.
//! - [`NotificationPoint`]: the receiver NIC turning CE marks into CNPs.
//! - [`ReactionPoint`]: the sender NIC's per-flow rate limiter.
//! - [`simulate_packets`]: a packet-level discrete-event simulation of N senders into one
//!   bottleneck; [`simulate_fluid`]: the paper's fluid model of the same scenario. Both
//!   return a [`Series`] of the same shape so they can be plotted together.
//! - [`named_scenario`]: the teaching scenarios; [`series_to_csv`]: the series as CSV,
//!   [`run_csv`]: the same behind `#` lines naming the scenario, model and parameters.
//! - [`exercise`]: the view's "try this" tasks, checked on each run.

mod cp;
mod error;
pub mod exercise;
mod export;
mod fastmath;
mod fluid;
mod np;
mod packet_sim;
mod params;
mod rng;
mod rp;
mod scenario;
mod series;

pub use cp::{red_probability, Admission, CongestionPoint, PfcSignal, RedCurve};
pub use error::SimError;
pub use export::{csv_comments, one_line, parameters, run_csv, run_title, Parameter};
pub use fluid::simulate_fluid;
pub use np::NotificationPoint;
pub use packet_sim::simulate_packets;
pub use params::{CongestionPointParams, DcqcnParams, PfcThresholds, MAX_BUFFER_BYTES};
pub(crate) use rng::SplitMix64;
pub(crate) use rp::us_to_ps;
pub use rp::{CnpOutcome, IncreaseCause, IncreaseStage, ReactionPoint, RpConfig};
pub use scenario::{
    named_scenario, scenario_names, FlowSpec, Limits, Scenario, MAX_DURATION_US, MAX_EVENTS_CAP,
    MAX_FLOWS, MAX_LINK_GBPS, MAX_PROP_DELAY_US, MAX_SAMPLES, MTU_RANGE,
};
pub use series::{
    jain_index, series_to_csv, FirstCut, FlowSeries, Model, PauseInterval, Series, Summary,
    CSV_HEADER, FIRST_CUT_TOLERANCE, MAX_PAUSE_INTERVALS,
};
