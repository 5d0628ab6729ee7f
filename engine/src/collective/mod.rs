//! Collectives on a GPU cluster: the time, algbw and busbw of AllReduce, AllGather,
//! ReduceScatter, Broadcast and Reduce per NCCL algorithm and protocol, from NCCL's own
//! cost model (src/graph/tuning.cc, NVIDIA/nccl v2.29.3-1), and the pair NCCL would pick.
//!
//! - [`CollectiveRequest`] / [`Cluster`]: the question, a plain description of the machines.
//! - [`estimate`]: every pair NCCL offers, with its bottleneck, and the automatic choice;
//!   [`sweep`]: the same at `all_reduce_perf`'s sizes; [`read_perf_table`] and
//!   [`against_model`]: a real run's nccl-tests table beside the model.
//! - [`constants`]: NCCL's tables, each with file and line.
//! - [`Machines`]: a [`Cluster`] from named parts ([`GpuModel`], [`NicModel`]).
//! - [`training_step`]: a data-parallel training step on [`Machines`]: compute, the gradient
//!   AllReduce, and the speedup over one GPU.
//!
//! algbw and busbw are nccl-tests' (doc/PERFORMANCE.md): algbw = S/t, busbw = algbw ×
//! [`Collective::bus_factor`].

pub mod constants;
mod error;
mod input;
mod model;
mod perf_table;
mod presets;
#[cfg(test)]
mod tests;
mod training;
mod why;

pub use constants::{
    NCCL_TAG, NVLINK_BW_PER_LINK, PCI_X16_BW_BY_GEN, SOCKET_LINE_FRACTION,
    STAGING_HOST_MEMORY_PASSES,
};
pub use error::CollectiveError;
pub use input::{
    parse_size, Algorithm, Cluster, Collective, CollectiveRequest, CpuVendor, IntraLink, Protocol,
    Transport, DEFAULT_HOST_MEMORY_GBS, MAX_BYTES, MAX_GPUS_PER_NODE, MAX_NODES,
};
pub use model::{
    estimate, ring_allreduce_terms, staged_in_host_memory, sweep, sweep_sizes, Bottleneck,
    ChannelSource, Choice, CollectiveReport, Estimate, RingTerms,
};
pub use perf_table::{
    against_model, read_perf_table, MeasuredError, MeasuredPoint, PerfRow, PerfTable,
    PerfTableError, MAX_PERF_ROWS,
};
pub use presets::{GpuModel, Machines, NicModel};
pub use training::{
    peak_dense_tflops, step as training_step, GradientAllReduce, GradientFormat, TrainingExample,
    TrainingReport, TrainingRequest, DEFAULT_MFU, FLOPS_PER_PARAM_PER_TOKEN, MAX_PARAMS,
    MAX_TOKENS_PER_GPU, TRAINING_EXAMPLES,
};
pub use why::{absent_reason, algorithm_name, disabled_reason, protocol_name};
