//! Queue pairs: the state machine, what `ibv_modify_qp()` accepts, and what happens to work
//! requests when things go wrong.
//!
//! - [`table`]: the kernel's transition table (`ib_modify_qp_is_ok()`), [`check_modify`],
//!   [`transition_table`].
//! - [`attr`]: the `ibv_qp_attr_mask` bits ([`AttrMask`], [`AttrName`]).
//! - [`values`]: the attribute value rules with decoded meaning (MTU, timeout, RNR timer,
//!   PSN, access flags, RDMA Read/Atomic depths).
//! - [`verbs`]: the verbs vocabulary: work requests, work completions and their statuses
//!   ([`WcStatus`]), async events ([`AsyncEvent`]), the modify attributes ([`ModifyAttrs`]).
//! - [`sim`]: a simulated QP ([`Qp`]) that applies modifies, posts, fatal errors and drains,
//!   producing work completions and async events.
//! - [`builder`]: attribute values as typed text, the equivalent C call, a QP brought to a
//!   given state.
//! - [`walkthrough`]: two peers bringing up an RC connection, as data, with failure variants.
//! - [`exercise`]: the view's "try this" tasks, checked on each [`exercise::QpMove`].

pub mod attr;
pub mod builder;
pub mod exercise;
pub mod sim;
pub mod state;
pub mod table;
pub mod values;
pub mod verbs;
pub mod walkthrough;

pub use crate::psn::Psn;
pub use attr::{AttrMask, AttrMaskError, AttrName};
pub use sim::{implicit_transitions, EventOutcome, ImplicitTransition, Qp, QpError, QpEvent};
pub use state::{QpState, QpType};
pub use table::{
    check_modify, check_transition, transition_table, Errno, ModifyError, TransitionRefusal,
    TransitionRule,
};
pub use values::{Decoded, ValueError};
pub use verbs::{AsyncEvent, ModifyAttrs, WcOpcode, WcStatus, WorkCompletion};
pub use walkthrough::{connection_walkthrough, ConnectionStep, Walkthrough, UD_ADDRESS_HANDLE};
