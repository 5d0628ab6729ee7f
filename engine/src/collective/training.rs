//! One step of data-parallel training on given [`Machines`]: every GPU holds the whole model,
//! computes on its own tokens, then the GPUs average their gradients with one AllReduce.
//!
//! - compute: 6 × parameters × tokens FLOPs per GPU (Kaplan et al. 2020, "Scaling Laws for
//!   Neural Language Models", arXiv:2001.08361, §2.1: a forward pass costs about 2N FLOPs
//!   per token, the backward pass about twice that, so C ≈ 6N per training token), at the
//!   GPU's peak dense tensor rate ([`peak_dense_tflops`]) times a model-FLOPs utilisation;
//! - communication: an AllReduce of the gradients (parameters × element size bytes) as
//!   [`super::estimate`] prices it, NCCL's own cost model;
//! - the step: compute then AllReduce (no overlap), or the longer of the two (perfect
//!   overlap of the AllReduce with the backward pass), which bound what real frameworks do.
//!
//! Both compute and the AllReduce grow linearly with the parameters, so on a
//! bandwidth-bound network their ratio is set by the tokens each GPU computes per step, not
//! by the model's size; small models add NCCL's fixed latency on top.
//!
//! Not modelled: memory (whether the model, its gradients and optimizer state fit on the
//! GPU), gradient bucketing, and the host-memory copies of NCCL's shared-memory transport
//! when PCIe peer-to-peer is off: NCCL's tuning sees a PCIe GPU's link at its x16 rate,
//! so on a GeForce node the intra-node AllReduce here is optimistic.

use super::error::CollectiveError;
use super::input::{Collective, CollectiveRequest, MAX_BYTES, MAX_GPUS_PER_NODE, MAX_NODES};
use super::model::{estimate, Bottleneck};
use super::presets::{GpuModel, Machines, NicModel};
use super::{Algorithm, Protocol};
use serde::{Deserialize, Serialize};

/// FLOPs per parameter per training token: forward 2, backward 4 (Kaplan et al. 2020,
/// arXiv:2001.08361, §2.1, "C ≈ 6N floating point operators per training token").
pub const FLOPS_PER_PARAM_PER_TOKEN: f64 = 6.0;

/// The default model-FLOPs utilisation: 41.5 %, measured for a 22B-parameter GPT on A100s
/// with Megatron-LM (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
/// Transformer Models", arXiv:2205.05198, Table 5; the same table is in NVIDIA/Megatron-LM's
/// README). It is the smallest model, and the lowest MFU, of that table; the authors measured
/// it with no data parallelism, so it is the compute side alone, which is what this model
/// needs.
pub const DEFAULT_MFU: f64 = 0.415;

/// The most parameters accepted: 10 trillion (at 4 bytes each, 4 × 10¹³ bytes stays far
/// inside [`MAX_BYTES`]).
pub const MAX_PARAMS: u64 = 10_000_000_000_000;
/// The most tokens per GPU per step accepted.
pub const MAX_TOKENS_PER_GPU: u64 = 1_000_000_000;

/// Peak dense tensor throughput, TFLOP/s (10¹² FLOP/s), for BF16 or FP16 inputs with FP32
/// accumulation, without 2:4 structured sparsity. Datasheets quote the sparse figure, twice
/// the dense one; where they do, it is halved here.
///
/// - V100 SXM2: 125, "Tensor Performance" (FP16 in, FP32 accumulate; Volta has no BF16),
///   NVIDIA Tesla V100 datasheet, SXM2 column; also NVIDIA's "Programming Tensor Cores in
///   CUDA 9" ("up to 125 Tensor TFLOPS").
/// - A100 SXM4: 312, BFLOAT16 Tensor Core, NVIDIA A100 datasheet (624 with sparsity).
/// - H100 SXM5: 1,979 with sparsity, so 989.5 dense, BF16 Tensor Core, NVIDIA H100
///   datasheet ("Shown with sparsity. Specifications 1/2 lower without sparsity").
/// - H200 SXM: 1,979 with sparsity, so 989.5, BF16 Tensor Core, NVIDIA H200 datasheet (the
///   same GH100 tensor cores as the H100; only the memory differs).
/// - B200 in HGX B200: 4.5 PFLOPS FP16/BF16 Tensor Core per GPU with sparsity, so 2,250,
///   NVIDIA HGX B200 / DGX B200 specifications ("Individual Blackwell GPU Specifications").
/// - GeForce RTX 4090: 165.2, "Peak BF16 Tensor TFLOPS with FP32 Accumulate" (330.4 with
///   sparsity), NVIDIA Ada GPU Architecture whitepaper, RTX 4090 specification table.
///   GeForce runs FP32 accumulation at half the FP16-accumulate rate (330.3 dense);
///   training accumulates in FP32, so the lower figure applies.
pub fn peak_dense_tflops(gpu: GpuModel) -> f64 {
    match gpu {
        GpuModel::V100 => 125.0,
        GpuModel::A100 => 312.0,
        GpuModel::H100 | GpuModel::H200 => 1979.0 / 2.0,
        GpuModel::B200 => 4500.0 / 2.0,
        GpuModel::Rtx4090 => 165.2,
    }
}

/// The number format of the gradients the AllReduce carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradientFormat {
    Bf16,
    Fp16,
    Fp32,
}

impl GradientFormat {
    pub const ALL: [GradientFormat; 3] = [
        GradientFormat::Bf16,
        GradientFormat::Fp16,
        GradientFormat::Fp32,
    ];

    /// Bytes per element (IEEE 754 binary16 and binary32; bfloat16 is 16 bits).
    pub fn bytes(self) -> u32 {
        match self {
            GradientFormat::Bf16 | GradientFormat::Fp16 => 2,
            GradientFormat::Fp32 => 4,
        }
    }

    /// The short name the page's URL uses, as serde spells it.
    pub fn id(self) -> &'static str {
        match self {
            GradientFormat::Bf16 => "bf16",
            GradientFormat::Fp16 => "fp16",
            GradientFormat::Fp32 => "fp32",
        }
    }

    pub fn from_id(id: &str) -> Option<GradientFormat> {
        GradientFormat::ALL.into_iter().find(|g| g.id() == id)
    }
}

/// One question: how long is a data-parallel training step on `machines`?
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingRequest {
    pub machines: Machines,
    /// The model's parameters (count). 1 to [`MAX_PARAMS`].
    pub params: u64,
    /// The gradients' number format, which sets the AllReduce's size.
    pub gradients: GradientFormat,
    /// Tokens each GPU computes per step (its share of the global batch). 1 to
    /// [`MAX_TOKENS_PER_GPU`].
    pub tokens_per_gpu: u64,
    /// Model-FLOPs utilisation: the fraction of the peak dense rate the training code
    /// reaches (0 < mfu ≤ 1); see [`DEFAULT_MFU`].
    pub mfu: f64,
}

/// The gradient AllReduce, as NCCL's cost model prices it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GradientAllReduce {
    pub bytes: f64,
    /// Seconds.
    pub time_s: f64,
    pub algorithm: Algorithm,
    pub protocol: Protocol,
    /// nccl-tests' bus bandwidth, GB/s.
    pub busbw_gbs: f64,
    pub bottleneck: Bottleneck,
}

/// One step, per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TrainingReport {
    pub gpus: u32,
    /// TFLOP/s.
    pub peak_tflops: f64,
    /// FLOPs each GPU computes per step: 6 × params × tokens.
    pub flops_per_gpu: f64,
    /// Seconds.
    pub compute_s: f64,
    /// `None` on one GPU: there is nothing to average.
    pub all_reduce: Option<GradientAllReduce>,
    /// Compute, then the AllReduce, seconds.
    pub step_no_overlap_s: f64,
    /// The longer of the two, seconds.
    pub step_overlap_s: f64,
    /// Tokens per second of all the GPUs ÷ tokens per second of one GPU alone (which has
    /// no AllReduce), without overlap. Below 1: the GPUs together train slower than one.
    pub speedup_no_overlap: f64,
    /// The same with perfect overlap.
    pub speedup_overlap: f64,
}

impl TrainingReport {
    /// Even with perfect overlap, all the GPUs together get through fewer tokens per
    /// second than one GPU alone.
    pub fn slower_than_one_gpu(&self) -> bool {
        self.speedup_overlap < 1.0
    }
}

impl TrainingRequest {
    /// Refuses input the model cannot answer, naming the field (`params`, `mfu`,
    /// `machines.nodes`, ...).
    pub fn validate(&self) -> Result<(), CollectiveError> {
        if self.params == 0 || self.params > MAX_PARAMS {
            return Err(CollectiveError::invalid(
                "params",
                format!("must be a whole number from 1 to {MAX_PARAMS}"),
            ));
        }
        if self.tokens_per_gpu == 0 || self.tokens_per_gpu > MAX_TOKENS_PER_GPU {
            return Err(CollectiveError::invalid(
                "tokens_per_gpu",
                format!("must be a whole number from 1 to {MAX_TOKENS_PER_GPU}"),
            ));
        }
        if !(self.mfu.is_finite() && self.mfu > 0.0 && self.mfu <= 1.0) {
            return Err(CollectiveError::invalid(
                "mfu",
                "must be a fraction above 0 and at most 1 (0.415 is 41.5 %)",
            ));
        }
        let m = &self.machines;
        if m.nodes == 0 || m.nodes > MAX_NODES {
            return Err(CollectiveError::invalid(
                "machines.nodes",
                format!("must be from 1 to {MAX_NODES}"),
            ));
        }
        if m.gpus_per_node == 0 || m.gpus_per_node > MAX_GPUS_PER_NODE {
            return Err(CollectiveError::invalid(
                "machines.gpus_per_node",
                format!("must be from 1 to {MAX_GPUS_PER_NODE}"),
            ));
        }
        if self.gradient_bytes() > MAX_BYTES {
            return Err(CollectiveError::invalid(
                "params",
                "the gradients would be larger than 2^50 bytes",
            ));
        }
        Ok(())
    }

    /// Bytes of gradients each GPU contributes to the AllReduce.
    pub fn gradient_bytes(&self) -> f64 {
        self.params as f64 * f64::from(self.gradients.bytes())
    }

    fn gpus(&self) -> u32 {
        self.machines
            .nodes
            .saturating_mul(self.machines.gpus_per_node)
    }
}

/// A [`CollectiveError`] from [`Machines::cluster`], named by its path in a
/// [`TrainingRequest`] (`machines.nic`, `machines.nics_per_node`).
fn in_machines(e: CollectiveError) -> CollectiveError {
    let CollectiveError::InvalidField(e) = e;
    let field = format!(
        "machines.{}",
        e.field.strip_prefix("cluster.").unwrap_or(&e.field)
    );
    CollectiveError::InvalidField(e.renamed(field))
}

/// The step time and the speedup over one GPU; see the module's description.
pub fn step(req: &TrainingRequest) -> Result<TrainingReport, CollectiveError> {
    req.validate()?;
    let gpus = req.gpus();
    let peak_tflops = peak_dense_tflops(req.machines.gpu);
    let flops_per_gpu = FLOPS_PER_PARAM_PER_TOKEN * req.params as f64 * req.tokens_per_gpu as f64;
    let compute_s = flops_per_gpu / (peak_tflops * 1e12 * req.mfu);
    let all_reduce = if gpus == 1 {
        None
    } else {
        Some(gradient_all_reduce(req)?)
    };
    let comm_s = all_reduce.map_or(0.0, |a| a.time_s);
    let step_no_overlap_s = compute_s + comm_s;
    let step_overlap_s = compute_s.max(comm_s);
    // One GPU alone computes the same tokens in `compute_s` with no AllReduce.
    let speedup = |step_s: f64| f64::from(gpus) * compute_s / step_s;
    Ok(TrainingReport {
        gpus,
        peak_tflops,
        flops_per_gpu,
        compute_s,
        all_reduce,
        step_no_overlap_s,
        step_overlap_s,
        speedup_no_overlap: speedup(step_no_overlap_s),
        speedup_overlap: speedup(step_overlap_s),
    })
}

fn gradient_all_reduce(req: &TrainingRequest) -> Result<GradientAllReduce, CollectiveError> {
    let cluster = req.machines.cluster().map_err(in_machines)?;
    let bytes = req.gradient_bytes();
    let report = estimate(&CollectiveRequest {
        op: Collective::AllReduce,
        bytes,
        cluster,
        algorithms: None,
        protocols: None,
    })?;
    let chosen = report.chosen.and_then(|c| {
        report
            .estimates
            .iter()
            .find(|e| e.algorithm == c.algorithm && e.protocol == c.protocol)
    });
    let Some(e) = chosen else {
        // With no algorithm or protocol lists the automatic choice always has a pair.
        return Err(CollectiveError::invalid(
            "machines",
            "NCCL's cost model offers no AllReduce on these machines",
        ));
    };
    Ok(GradientAllReduce {
        bytes,
        time_s: e.time_us * 1e-6,
        algorithm: e.algorithm,
        protocol: e.protocol,
        busbw_gbs: e.busbw_gbs,
        bottleneck: e.bottleneck,
    })
}

/// A named set of machines the page offers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainingExample {
    /// The short name the page's URL uses.
    pub id: &'static str,
    pub name: &'static str,
    pub machines: Machines,
}

/// `nodes` workstations of 8 GeForce RTX 4090s each, one NIC each (or none).
const fn workstations(nodes: u32, nic: NicModel) -> Machines {
    Machines {
        gpu: GpuModel::Rtx4090,
        gpus_per_node: 8,
        nodes,
        nic,
        nics_per_node: 1,
        // GeForce cards offer no GPUDirect RDMA, and sockets could not use it anyway.
        gdr: false,
        sharp: false,
    }
}

/// One workstation of 8 RTX 4090s (PCIe only, no peer-to-peer), and two or four of them
/// over 10, 25 and 100 GbE with NCCL's socket transport.
pub const TRAINING_EXAMPLES: [TrainingExample; 7] = [
    TrainingExample {
        id: "ws1",
        name: "1 workstation, 8 × RTX 4090 (PCIe, no P2P)",
        machines: workstations(1, NicModel::None),
    },
    TrainingExample {
        id: "ws2-10g",
        name: "2 workstations over 10 GbE (TCP)",
        machines: workstations(2, NicModel::Tcp10),
    },
    TrainingExample {
        id: "ws2-25g",
        name: "2 workstations over 25 GbE (TCP)",
        machines: workstations(2, NicModel::Tcp25),
    },
    TrainingExample {
        id: "ws2-100g",
        name: "2 workstations over 100 GbE (TCP)",
        machines: workstations(2, NicModel::Tcp100),
    },
    TrainingExample {
        id: "ws4-10g",
        name: "4 workstations over 10 GbE (TCP)",
        machines: workstations(4, NicModel::Tcp10),
    },
    TrainingExample {
        id: "ws4-25g",
        name: "4 workstations over 25 GbE (TCP)",
        machines: workstations(4, NicModel::Tcp25),
    },
    TrainingExample {
        id: "ws4-100g",
        name: "4 workstations over 100 GbE (TCP)",
        machines: workstations(4, NicModel::Tcp100),
    },
];

impl TrainingExample {
    pub fn from_id(id: &str) -> Option<TrainingExample> {
        TRAINING_EXAMPLES.into_iter().find(|e| e.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req(machines: Machines, params: u64, tokens_per_gpu: u64) -> TrainingRequest {
        TrainingRequest {
            machines,
            params,
            gradients: GradientFormat::Bf16,
            tokens_per_gpu,
            mfu: DEFAULT_MFU,
        }
    }

    fn example(id: &str) -> Machines {
        TrainingExample::from_id(id).expect("example").machines
    }

    fn one_gpu() -> Machines {
        Machines {
            gpus_per_node: 1,
            ..example("ws1")
        }
    }

    #[test]
    fn peak_figures_are_the_datasheets_dense_ones() {
        // Ada whitepaper: 165.2 dense with FP32 accumulate, half of FP16-accumulate 330.3.
        assert_eq!(peak_dense_tflops(GpuModel::Rtx4090), 165.2);
        // Datasheets quote 1,979 (H100, H200) and 4.5 PFLOPS (B200) with sparsity.
        assert_eq!(peak_dense_tflops(GpuModel::H100), 989.5);
        assert_eq!(peak_dense_tflops(GpuModel::H200), 989.5);
        assert_eq!(peak_dense_tflops(GpuModel::B200), 2250.0);
        assert_eq!(peak_dense_tflops(GpuModel::A100), 312.0);
        assert_eq!(peak_dense_tflops(GpuModel::V100), 125.0);
    }

    #[test]
    fn compute_is_six_flops_per_parameter_per_token_at_peak_times_mfu() {
        // 1e9 params × 1000 tokens × 6 = 6e12 FLOPs; at 312 TFLOP/s × 0.5: 6/156 s.
        let mut r = req(
            Machines {
                gpu: GpuModel::A100,
                ..one_gpu()
            },
            1_000_000_000,
            1000,
        );
        r.mfu = 0.5;
        let rep = step(&r).unwrap();
        assert_eq!(rep.flops_per_gpu, 6e12);
        assert!((rep.compute_s - 6.0 / 156.0).abs() < 1e-12);
    }

    #[test]
    fn one_gpu_has_no_all_reduce_and_no_speedup() {
        let rep = step(&req(one_gpu(), 7_000_000_000, 4096)).unwrap();
        assert_eq!(rep.gpus, 1);
        assert!(rep.all_reduce.is_none());
        assert_eq!(rep.step_no_overlap_s, rep.compute_s);
        assert_eq!(rep.speedup_no_overlap, 1.0);
        assert_eq!(rep.speedup_overlap, 1.0);
    }

    #[test]
    fn the_all_reduce_carries_every_gradient_byte() {
        let mut r = req(example("ws2-25g"), 3_000_000_000, 2048);
        assert_eq!(step(&r).unwrap().all_reduce.unwrap().bytes, 6e9);
        r.gradients = GradientFormat::Fp32;
        assert_eq!(step(&r).unwrap().all_reduce.unwrap().bytes, 12e9);
    }

    #[test]
    fn every_rtx4090_example_falls_short_of_linear_speedup_without_overlap() {
        for e in TRAINING_EXAMPLES {
            let rep = step(&req(e.machines, 1_000_000_000, 4096)).unwrap();
            let gpus = f64::from(rep.gpus);
            // Without overlap every byte of the AllReduce adds to the step; with perfect
            // overlap a fast enough link hides it, and the GPUs reach their count.
            assert!(rep.speedup_no_overlap < gpus, "{}: {rep:?}", e.id);
            assert!(rep.speedup_overlap <= gpus, "{}", e.id);
            assert!(rep.speedup_no_overlap < rep.speedup_overlap, "{}", e.id);
            // Sockets stage through host memory: never GPUDirect, never faster than PCIe.
            assert!(!e.machines.gdr_in_use(), "{}", e.id);
        }
        // The one-node PCIe workstation: eight GPUs give less than eight.
        let ws = step(&req(example("ws1"), 1_000_000_000, 4096)).unwrap();
        assert_eq!(ws.gpus, 8);
        assert!(ws.speedup_no_overlap < 8.0);
        assert_eq!(ws.all_reduce.unwrap().bottleneck, Bottleneck::Pcie);
    }

    #[test]
    fn faster_ethernet_trains_faster() {
        let at = |id| step(&req(example(id), 1_000_000_000, 4096)).unwrap();
        let (g10, g25, g100) = (at("ws2-10g"), at("ws2-25g"), at("ws2-100g"));
        assert!(g10.speedup_no_overlap < g25.speedup_no_overlap);
        assert!(g25.speedup_no_overlap < g100.speedup_no_overlap);
        for r in [g10, g25] {
            assert_eq!(r.all_reduce.unwrap().bottleneck, Bottleneck::HostCopy);
        }
    }

    #[test]
    fn sixteen_4090s_over_10_gbe_can_train_slower_than_one() {
        // A 7B model, one 2048-token sequence per GPU per step: the AllReduce of 14 GB of
        // BF16 gradients over 10 GbE sockets outweighs what 15 more GPUs add.
        let rep = step(&req(example("ws2-10g"), 7_000_000_000, 2048)).unwrap();
        assert_eq!(rep.gpus, 16);
        assert!(rep.speedup_no_overlap < 1.0, "{rep:?}");
        assert!(rep.slower_than_one_gpu(), "{rep:?}");
        // The same machines with enough tokens per GPU do beat one GPU.
        let big_batch = step(&req(example("ws2-10g"), 7_000_000_000, 262_144)).unwrap();
        assert!(big_batch.speedup_no_overlap > 1.0, "{big_batch:?}");
    }

    #[test]
    fn model_size_alone_barely_moves_the_ratio_once_bandwidth_bound() {
        // Both terms are linear in the parameters; only NCCL's fixed latency differs.
        let at = |params| step(&req(example("ws4-25g"), params, 4096)).unwrap();
        let (small, big) = (at(10_000_000_000), at(100_000_000_000));
        let rel =
            (small.speedup_no_overlap - big.speedup_no_overlap).abs() / big.speedup_no_overlap;
        assert!(rel < 0.01, "{small:?} {big:?}");
    }

    #[test]
    fn bad_input_names_its_field() {
        let field = |r: TrainingRequest| match step(&r).unwrap_err() {
            CollectiveError::InvalidField(e) => e.field,
        };
        let good = req(example("ws2-10g"), 1_000_000_000, 2048);
        assert_eq!(field(TrainingRequest { params: 0, ..good }), "params");
        assert_eq!(
            field(TrainingRequest {
                params: MAX_PARAMS + 1,
                ..good
            }),
            "params"
        );
        assert_eq!(
            field(TrainingRequest {
                tokens_per_gpu: 0,
                ..good
            }),
            "tokens_per_gpu"
        );
        for mfu in [0.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert_eq!(field(TrainingRequest { mfu, ..good }), "mfu", "{mfu}");
        }
        let mut m = good.machines;
        m.nodes = 0;
        assert_eq!(
            field(TrainingRequest {
                machines: m,
                ..good
            }),
            "machines.nodes"
        );
        m = good.machines;
        m.nic = NicModel::None;
        assert_eq!(
            field(TrainingRequest {
                machines: m,
                ..good
            }),
            "machines.nic"
        );
        m = good.machines;
        m.nics_per_node = 0;
        assert_eq!(
            field(TrainingRequest {
                machines: m,
                ..good
            }),
            "machines.nics_per_node"
        );
    }

    #[test]
    fn requests_read_from_json_refuse_unknown_fields() {
        let json = r#"{"machines":{"gpu":"rtx4090","gpus_per_node":8,"nodes":2,
            "nic":"tcp-10","nics_per_node":1,"gdr":false,"sharp":false},
            "params":1000000000,"gradients":"bf16","tokens_per_gpu":2048,"mfu":0.415}"#;
        let r: TrainingRequest = serde_json::from_str(json).unwrap();
        assert_eq!(r.machines, example("ws2-10g"));
        let extra = json.replace("\"mfu\"", "\"mfu_typo\":1,\"mfu\"");
        assert!(serde_json::from_str::<TrainingRequest>(&extra).is_err());
        for g in GradientFormat::ALL {
            assert_eq!(GradientFormat::from_id(g.id()), Some(g));
            assert_eq!(
                serde_json::to_string(&g).unwrap(),
                format!("\"{}\"", g.id())
            );
        }
    }

    #[test]
    fn example_ids_are_distinct_and_found() {
        for e in TRAINING_EXAMPLES {
            assert_eq!(TrainingExample::from_id(e.id), Some(e));
            assert!(e.machines.cluster().is_ok(), "{}", e.id);
        }
        assert_eq!(TrainingExample::from_id("nope"), None);
    }

    proptest! {
        #[test]
        fn more_params_never_shorten_the_all_reduce(
            example in 0..TRAINING_EXAMPLES.len(),
            params in 1u64..1_000_000_000_000,
            more in 1u64..1_000_000_000_000,
        ) {
            let m = TRAINING_EXAMPLES[example].machines;
            let a = step(&req(m, params, 2048)).unwrap().all_reduce.unwrap();
            let b = step(&req(m, params + more, 2048)).unwrap().all_reduce.unwrap();
            prop_assert!(b.time_s >= a.time_s, "{a:?} {b:?}");
        }

        #[test]
        fn overlap_never_exceeds_no_overlap(
            example in 0..TRAINING_EXAMPLES.len(),
            params in 1u64..MAX_PARAMS,
            tokens in 1u64..MAX_TOKENS_PER_GPU,
            mfu in 0.01f64..=1.0,
        ) {
            let m = TRAINING_EXAMPLES[example].machines;
            let rep = step(&TrainingRequest { mfu, ..req(m, params, tokens) }).unwrap();
            prop_assert!(rep.step_overlap_s <= rep.step_no_overlap_s);
            prop_assert!(rep.step_overlap_s >= rep.compute_s);
            prop_assert!(rep.speedup_no_overlap <= rep.speedup_overlap);
            prop_assert!(rep.speedup_overlap <= f64::from(rep.gpus));
        }
    }
}
