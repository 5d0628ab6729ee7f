//! Fixed costs of software and device work. Every figure here is a model assumption, not a
//! measured or specified figure: each names its order of magnitude and why.

/// Size of one mlx5 send WQE basic block, bytes (`MLX5_SEND_WQE_BB` = 64 in rdma-core
/// `providers/mlx5/mlx5dv.h`); a plain RDMA WRITE WQE (control, remote address and one data
/// segment, 16 bytes each) fits in one.
pub const WQE_BYTES: u64 = 64;
/// Size of a completion queue entry, bytes (mlx5's default CQE size, 64; `ibv_create_cq`
/// with `MLX5_CQE_SIZE` unset).
pub const CQE_BYTES: u64 = 64;
/// Size of the doorbell MMIO write, bytes: a 64-bit write into the NIC's UAR page.
pub const DOORBELL_BYTES: u64 = 8;
/// Bytes of an inline WQE before its data: control (16) + remote address (16) + inline
/// segment header (4) (mlx5 segment layouts, rdma-core `providers/mlx5/mlx5dv.h`).
pub const INLINE_WQE_HEADER_BYTES: u64 = 36;

/// `ibv_post_send()` building a WQE in user space, ns. Model assumption, not a measured or
/// specified figure: user-space verbs posts take on the order of 100 ns (no syscall).
pub const VERBS_POST_NS: f64 = 100.0;
/// `ibv_poll_cq()` reading one CQE, ns. Model assumption, not a measured or specified
/// figure: tens of ns plus a cache miss.
pub const VERBS_POLL_NS: f64 = 80.0;
/// NIC transmit processing per work request (QP context, WQE parse, scheduling), ns. Model
/// assumption, not a measured or specified figure: the order of a few hundred ns.
pub const NIC_TX_NS: f64 = 200.0;
/// NIC receive processing per message (PSN and key checks, address translation), ns. Model
/// assumption, not a measured or specified figure.
pub const NIC_RX_NS: f64 = 200.0;
/// CUDA API and copy-engine setup of one `cudaMemcpy`, ns. Model assumption, not a measured
/// or specified figure: small synchronous copies take several µs.
pub const CUDA_MEMCPY_SETUP_NS: f64 = 5_000.0;
/// Entering and leaving the kernel for one socket syscall, socket layer included, ns. Model
/// assumption, not a measured or specified figure: hundreds of ns to ~1 µs.
pub const SYSCALL_NS: f64 = 700.0;
/// TCP/IP output processing for one send (segmentation offload set up, qdisc, driver), ns.
/// Model assumption, not a measured or specified figure.
pub const TCP_TX_STACK_NS: f64 = 1_500.0;
/// Hard interrupt entry until the NAPI softirq runs, ns. Model assumption, not a measured or
/// specified figure.
pub const INTERRUPT_NS: f64 = 1_000.0;
/// TCP/IP receive processing in softirq (GRO, IP, TCP, socket queue), ns. Model assumption,
/// not a measured or specified figure.
pub const TCP_RX_STACK_NS: f64 = 2_000.0;
/// Waking a thread blocked in `recv()` and scheduling it, ns. Model assumption, not a
/// measured or specified figure: a few µs.
pub const WAKEUP_NS: f64 = 3_000.0;
/// Single-core memcpy rate for socket copies, Gb/s (10 GB/s). Model assumption, not a
/// measured or specified figure: one core copies on the order of 10 GB/s.
pub const MEMCPY_GBPS: f64 = 80.0;
/// Fixed cost of starting one CPU copy, ns. Model assumption.
pub const MEMCPY_SETUP_NS: f64 = 50.0;
/// One `ibv_create_qp()` (syscall, firmware command), ns. Model assumption, not a measured or
/// specified figure: tens of µs.
pub const CREATE_QP_NS: f64 = 40_000.0;
/// One `ibv_modify_qp()` (syscall, firmware command), ns. Model assumption, not a measured or
/// specified figure: tens of µs.
pub const MODIFY_QP_NS: f64 = 20_000.0;
/// The out-of-band TCP exchange of QPN, PSN, GID and rkey (connect, send, recv both ways),
/// ns. Model assumption, not a measured or specified figure: a few LAN round trips through
/// the kernel TCP stack.
pub const OOB_EXCHANGE_NS: f64 = 60_000.0;
/// Bytes a switch port receives after its downstream neighbour paused it before its own
/// ingress queue crosses XOFF. Model assumption, not a measured or specified figure: XOFF
/// thresholds are per-port settings of tens to hundreds of KB.
pub const PFC_XOFF_FILL_BYTES: u64 = 64 * 1024;
/// Time for the receiver NIC's receive buffer to cross XOFF once the host stalls, ns. Model
/// assumption, not a measured or specified figure.
pub const NIC_BUFFER_FILL_NS: f64 = 2_000.0;
