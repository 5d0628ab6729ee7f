//! The messages between the DCQCN page and its packet-simulation worker, as JSON strings,
//! one type each for both sides (see `worker.rs`), so they cannot drift apart.

use engine::dcqcn::{Scenario, Series, SimError};
use serde::{Deserialize, Serialize};

/// The page asks for one packet-model run; `run` lets it drop answers it no longer wants.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub run: u64,
    pub scenario: Scenario,
}

/// The worker's answer to a [`Request`].
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply {
    pub run: u64,
    pub result: Result<Series, SimError>,
}

/// What the worker posts once its handler is installed: messages posted before that would
/// be lost, so the page holds its request until it sees this.
pub const READY: &str = "ready";
