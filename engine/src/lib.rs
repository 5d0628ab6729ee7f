//! The models behind rdma-lab.
//!
//! Everything the lab teaches is computed here, once, and used by both the browser app and
//! the `native-probe` binary: this crate has no web or operating-system dependencies and
//! builds for native targets and `wasm32-unknown-unknown` alike.

pub mod address;
pub mod capture;
pub mod collective;
pub mod dcqcn;
pub mod exercise;
pub mod fabric;
pub mod field;
pub mod flows;
pub mod lossless;
pub mod nccl_log;
pub mod netsim;
pub mod number;
pub mod probe;
pub mod prose;
pub mod psn;
pub mod qp;
pub mod search;
pub mod wire;

pub use field::FieldError;
