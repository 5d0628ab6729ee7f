//! The messages between the fabric lab and its simulation worker, as JSON strings.
//! Shared by both sides (the worker bin includes this file), so they cannot drift apart.

use engine::netsim::{Progress, Report, Scenario, SimError};
use serde::{Deserialize, Serialize};

/// The page asks for one run; `run` lets it tell its answers apart and drop stale ones.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub run: u64,
    pub scenario: Scenario,
}

/// What the worker posts: progress while a run goes (every 2²⁰ events), then its end.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Message {
    Progress {
        run: u64,
        progress: Progress,
    },
    Done {
        run: u64,
        /// Milliseconds the run took in the worker, when its clock could be read.
        solve_ms: Option<f64>,
        result: Result<Box<Report>, SimError>,
    },
}

/// What the worker posts once its handler is installed: messages posted before that would
/// be lost, so the page holds its requests until it sees this.
pub const READY: &str = "ready";
