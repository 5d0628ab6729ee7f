//! Errors of the DCQCN models: every rejected input names the parameter and says why.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a scenario could not be simulated.
///
/// A run that merely hits its work cap is *not* an error: it returns a [`super::Series`]
/// with `truncated = true` and a reason instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimError {
    /// A parameter is outside its valid range. `name` is the field path as it appears
    /// in the scenario JSON (for example `cp.kmin_bytes` or `flows[3].link_gbps`).
    InvalidParameter { name: String, reason: String },
    /// No scenario with this name exists (see [`super::scenario_names`]).
    UnknownScenario { name: String },
}

impl SimError {
    pub(crate) fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        SimError::InvalidParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidParameter { name, reason } => {
                write!(f, "invalid parameter `{name}`: {reason}")
            }
            SimError::UnknownScenario { name } => write!(
                f,
                "unknown scenario `{name}` (known: {})",
                super::scenario_names().join(", ")
            ),
        }
    }
}

impl std::error::Error for SimError {}
