//! Errors of the collective model: every refusal names the field and says why.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a collective could not be estimated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CollectiveError {
    /// A field is outside what the model accepts. `field` is its path in the request JSON
    /// (for example `cluster.gpus_per_node`).
    InvalidField { field: String, reason: String },
}

impl CollectiveError {
    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CollectiveError::InvalidField {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CollectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectiveError::InvalidField { field, reason } => {
                write!(f, "invalid `{field}`: {reason}")
            }
        }
    }
}

impl std::error::Error for CollectiveError {}
