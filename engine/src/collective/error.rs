//! Errors of the collective model: every refusal names the field and says why.

use crate::FieldError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a collective could not be estimated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum CollectiveError {
    /// A field is outside what the model accepts, named by its path in the request JSON
    /// (for example `cluster.gpus_per_node`).
    InvalidField(FieldError),
}

impl CollectiveError {
    pub(crate) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CollectiveError::InvalidField(FieldError::new(field, reason))
    }

    /// The field refused.
    pub fn field_error(&self) -> Option<&FieldError> {
        match self {
            CollectiveError::InvalidField(e) => Some(e),
        }
    }
}

impl fmt::Display for CollectiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollectiveError::InvalidField(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CollectiveError {}
