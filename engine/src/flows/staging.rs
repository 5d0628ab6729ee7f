//! Staging GPU data through host memory: the `cudaMemcpy` a path without GPUDirect needs on
//! each side, used by the staged RDMA WRITE and by the TCP socket path.

use super::costs::CUDA_MEMCPY_SETUP_NS;
use super::link::Link;
use super::model::{Category, StepKind};
use super::stage::{fixed, transfer, Flow, StepSpec, Who};

/// How a scenario explains its copies: each path gives its own reason for them.
pub(crate) struct CudaMemcpyText {
    /// Follows "cudaMemcpy device→host: " (or host→device) in the copy engine's step title.
    pub copy_title: &'static str,
    pub call: &'static str,
    pub copy: &'static str,
}

/// The API call, then the copy engine moving `bytes` over PCIe. The sender (`remote` false)
/// copies out of its GPU into host memory; the receiver copies from host memory into its GPU.
pub(crate) fn cuda_memcpy(
    f: &mut Flow,
    pcie: &Link,
    remote: bool,
    bytes: u64,
    text: &CudaMemcpyText,
) {
    let (app, mem, gpu, sw) = if remote {
        (
            Who::RemoteApp,
            Who::RemoteHostMem,
            Who::RemoteGpu,
            Who::RemotePcieSw,
        )
    } else {
        (Who::App, Who::HostMem, Who::Gpu, Who::PcieSw)
    };
    let (from, to, name) = if remote {
        (mem, gpu, "cudaMemcpy host→device")
    } else {
        (gpu, mem, "cudaMemcpy device→host")
    };
    f.then(StepSpec::new(
        app,
        gpu,
        StepKind::CpuWork,
        format!("{name}: API call"),
        fixed(
            CUDA_MEMCPY_SETUP_NS,
            Category::HostSoftware,
            "CUDA_MEMCPY_SETUP_NS",
        ),
        "/gpudirect",
        text.call,
    ));
    f.then(
        StepSpec::new(
            from,
            to,
            StepKind::GpuCopy,
            format!("{name}: {}", text.copy_title),
            transfer(pcie, bytes),
            "/gpudirect",
            text.copy,
        )
        .via(&[sw])
        .bytes(bytes)
        .copies(1),
    );
}
