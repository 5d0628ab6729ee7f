//! How the calculator writes its numbers and names: bandwidths in GB/s with nccl-tests' two
//! decimals; times and sizes as `figures` writes them for every page (sizes in powers of
//! 1024, as nccl-tests reads `-b`/`-e`).

use engine::collective::{Bottleneck, Collective};

use crate::views::figures;

/// A time in µs, written as every page writes durations ([`figures::duration_ns`]).
pub fn time(us: f64) -> String {
    figures::duration_ns(us * 1e3)
}

/// GB/s as nccl-tests prints them.
pub fn gbs(v: f64) -> String {
    format!("{v:.2}")
}

/// A ratio such as `3.21×`.
pub fn ratio(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}×")
    } else {
        format!("{v:.2}×")
    }
}

/// The collective's serde name (`all_reduce`): the URL's `op`, and nccl-tests' binary stem.
pub fn op_id(op: Collective) -> String {
    serde_json::to_value(op)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

pub fn op_from_id(id: &str) -> Option<Collective> {
    Collective::ALL.into_iter().find(|op| op_id(*op) == id)
}

/// `all_reduce` as NCCL's API names it: AllReduce.
pub fn op_name(op: Collective) -> String {
    op_id(op)
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// What sets a pair's bandwidth, in words.
pub fn bottleneck(b: Bottleneck) -> &'static str {
    match b {
        Bottleneck::NvLink => "NVLink inside the node",
        Bottleneck::Pcie => "PCIe (GPU to GPU or GPU to NIC)",
        Bottleneck::Network => "the NICs' line rate",
        Bottleneck::HostCopy => "the socket transport's host copies",
        Bottleneck::HostStaging => "host memory (staging without GPUDirect RDMA; the lab's bound)",
        Bottleneck::ProtocolCap => "a per-channel cap in NCCL's tuning table",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_times_and_names_read_as_nccl_tests_would() {
        assert_eq!(time(12.345), "12.3 µs");
        assert_eq!(time(12_345.0), "12.3 ms");
        assert_eq!(time(2_500_000.0), "2.50 s");
        assert_eq!(op_name(Collective::AllReduce), "AllReduce");
        assert_eq!(op_name(Collective::ReduceScatter), "ReduceScatter");
        for op in Collective::ALL {
            assert_eq!(op_from_id(&op_id(op)), Some(op));
        }
        assert_eq!(op_id(Collective::AllGather), "all_gather");
    }
}
