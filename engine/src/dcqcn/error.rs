//! Errors of the DCQCN models: every rejected input names the parameter and says why.

use crate::FieldError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a scenario could not be simulated.
///
/// A run that merely hits its work cap is *not* an error: it returns a [`super::Series`]
/// with `truncated = true` and a reason instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimError {
    /// A parameter is outside its valid range, named by its path in the scenario JSON (for
    /// example `cp.kmin_bytes` or `flows[3].link_gbps`).
    InvalidParameter(FieldError),
    /// No scenario with this name exists (see [`super::scenario_names`]).
    UnknownScenario { name: String },
}

impl SimError {
    pub(crate) fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        SimError::InvalidParameter(FieldError::new(name, reason))
    }

    /// The parameter refused, if the error is about one.
    pub fn field_error(&self) -> Option<&FieldError> {
        match self {
            SimError::InvalidParameter(e) => Some(e),
            SimError::UnknownScenario { .. } => None,
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidParameter(e) => {
                write!(f, "invalid parameter `{}`: {}", e.field, e.reason)
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
