//! One shape for "this input is wrong", shared by every model: the field, named as the
//! model's JSON names it (which is also the name of the view's box and, with `--` and dashes,
//! the CLI's flag), and why it was refused. A view puts `reason` under the box whose name
//! is `field`; it never reads the message to find out which box.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An input outside what a model accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldError {
    /// The field's path in the model's JSON, for example `cluster.gpus_per_node` or
    /// `traffic[2].bytes`.
    pub field: String,
    pub reason: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            reason: reason.into(),
        }
    }

    /// The same refusal under another name, for a model that takes another's input under a
    /// prefix of its own (`cluster.nodes` → `machines.nodes`).
    pub fn renamed(self, field: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            ..self
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid `{}`: {}", self.field, self.reason)
    }
}

impl std::error::Error for FieldError {}
