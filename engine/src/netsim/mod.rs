//! A packet-level simulator of a whole fabric: hosts with RoCE v2 queue pairs, switches with
//! shared buffers, ECN and PFC, ECMP or adaptive routing, and NCCL-style collectives, in one
//! deterministic event loop that runs natively and in the browser.
//!
//! One concept per file:
//! - [`topology`]: the graph (dumbbell, ring of switches, GPU fabrics from
//!   [`crate::fabric`]) and its routes;
//! - [`switch`]: queues, RED marking, PFC per ingress port, the routing choices;
//! - [`host`]: NICs, queue pairs, DCQCN's reaction and notification points (reused from
//!   [`crate::dcqcn`]);
//! - [`traffic`]: incast, permutation, all-to-all, single flows, ring all-reduce (rail-aligned,
//!   with or without PXN) and the hierarchical all-reduce;
//! - [`run`]: the event loop, its stops (a deadlock among them) and progress;
//! - [`outputs`]: the report;
//! - [`scenario`]: the inputs and the named cases;
//! - [`lab`]: the fabric lab's comparisons, their "Try this" and the browser's budget;
//! - [`summary`]: what the lab's page shows of a run, and its CSV;
//! - [`map`]: the fabric as the lab's page draws it.
//!
//! Errors reuse [`crate::dcqcn::SimError`]: every refusal names the field path in the
//! scenario JSON.

pub mod host;
pub mod lab;
pub mod map;
pub mod outputs;
pub mod run;
pub mod scenario;
pub mod summary;
pub mod switch;
#[cfg(test)]
mod tests;
pub mod topology;
pub mod traffic;

pub use crate::dcqcn::{Limits, SimError};
pub use lab::{
    check_browser_budget, estimate_events, lab_case, LabCase, LabRuns, Side, Verdict, WorkEstimate,
    BROWSER_MAX_EVENTS, CASES, EXERCISES,
};
pub use map::{Cable, FabricMap, MapNode, Tier};
pub use outputs::{
    CollectiveReport, FlowReport, LinkReport, Report, Stop, SwitchReport, Totals, MAX_SERIES_CELLS,
};
pub use run::{roce_udp_sport, simulate, simulate_with_progress, Control, Progress};
pub use scenario::{named_scenario, scenario_names, Scenario};
pub use summary::{
    collective_progress, delivered_series, headline, hottest_links, hottest_queue, lab_csv,
    mean_utilisation, nccl_line, paused_series, sample_at, side_letter, stop_words, Headline,
    LabParams, NcclLine,
};
pub use switch::{EcnSpec, MarkAt, Routing, SwitchSpec};
pub use topology::{NodeKind, Topology, TopologySpec};
pub use traffic::TrafficSpec;
