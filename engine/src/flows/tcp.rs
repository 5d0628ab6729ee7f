//! The TCP socket path between two GPUs, without RDMA.

use super::costs::*;
use super::model::{Category, StepKind};
use super::params::ScenarioParams;
use super::stage::{
    cpu_copy, fabric, fixed, tcp_wire, transfer, Flow, StepSpec, Who, FORWARD_VIA, PATH_CABLES,
    PATH_SWITCHES,
};
use super::staging::{cuda_memcpy, CudaMemcpyText};
use super::FlowError;
use crate::prose::count;

/// Bytes of a NIC transmit descriptor (a typical Ethernet TX descriptor size).
const TX_DESCRIPTOR_BYTES: u64 = 16;

/// Sockets need the data in host memory on both sides.
const STAGING: CudaMemcpyText = CudaMemcpyText {
    copy_title: "copy engine",
    call: "Sockets cannot read GPU memory, so the data must first sit in host memory.",
    copy: "A full copy of the payload across PCIe.",
};

/// `tcp-socket`: GPU → host → socket → wire → socket → host → GPU.
pub(crate) fn tcp_socket(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let len = p.message_bytes;
    let pcie = p.pcie.link();
    let net = p.tcp.link();
    let mut f = Flow::new(
        "tcp-socket",
        "GPU to GPU over TCP sockets",
        "The path without RDMA: two CUDA copies, two socket copies, a syscall on each side, \
         the kernel's TCP/IP stack, and an interrupt at the receiver.",
    );
    cuda_memcpy(&mut f, &pcie, false, len, &STAGING);
    f.then(
        StepSpec::new(
            Who::App,
            Who::Kernel,
            StepKind::Syscall,
            "send() system call",
            fixed(SYSCALL_NS, Category::Kernel, "SYSCALL_NS"),
            "/bandwidth",
            "The application enters the kernel; the socket layer takes the buffer.",
        )
        .syscalls(1),
    );
    f.then(
        StepSpec::new(
            Who::Kernel,
            Who::HostMem,
            StepKind::SocketCopy,
            "Kernel copies the data into socket buffers",
            cpu_copy(len, MEMCPY_SETUP_NS, MEMCPY_GBPS),
            "/bandwidth",
            "copy_from_user into sk_buffs: the CPU itself moves every byte, at memcpy speed.",
        )
        .bytes(len)
        .copies(1),
    );
    f.then(StepSpec::new(
        Who::Kernel,
        Who::Kernel,
        StepKind::CpuWork,
        "TCP/IP output and the driver",
        fixed(TCP_TX_STACK_NS, Category::Kernel, "TCP_TX_STACK_NS"),
        "/bandwidth",
        "TCP builds segments (or one large segment for segmentation offload), IP routes, \
         the queueing discipline and the driver post transmit descriptors.",
    ));
    f.then(
        StepSpec::new(
            Who::Kernel,
            Who::Nic,
            StepKind::Doorbell,
            "Driver rings the NIC's doorbell",
            transfer(&pcie, super::costs::DOORBELL_BYTES),
            "/bandwidth",
            "An MMIO write, as for RDMA, but issued by the kernel.",
        )
        .via(&[Who::PcieSw])
        .bytes(super::costs::DOORBELL_BYTES),
    );
    f.then(
        StepSpec::new(
            Who::Nic,
            Who::HostMem,
            StepKind::DmaRead,
            "NIC reads descriptor and data: request",
            transfer(&pcie, 0),
            "/bandwidth",
            "The NIC fetches the transmit descriptor and the sk_buff data by DMA.",
        )
        .via(&[Who::PcieSw]),
    );
    f.then(
        StepSpec::new(
            Who::HostMem,
            Who::Nic,
            StepKind::DmaRead,
            "NIC reads descriptor and data: completion",
            transfer(&pcie, len + TX_DESCRIPTOR_BYTES),
            "/bandwidth",
            "Data from the kernel's socket buffers, not from the application.",
        )
        .via(&[Who::PcieSw])
        .bytes(len + TX_DESCRIPTOR_BYTES),
    );
    let tx = f.last();
    let (segments, wire) = tcp_wire(len, p.ip_mtu);
    f.figure("TCP segments", segments as f64, "segments");
    f.figure("wire bytes", wire as f64, "B");
    f.then(
        StepSpec::new(
            Who::Nic,
            Who::RemoteNic,
            StepKind::Packet,
            format!(
                "{} the network",
                count(segments, "TCP segment crosses", "TCP segments cross")
            ),
            fabric(&net, wire, PATH_CABLES, PATH_SWITCHES),
            "/bandwidth",
            "Ethernet, IPv4 and TCP headers (with timestamps) on every MSS of data.",
        )
        .via(&FORWARD_VIA)
        .bytes(len),
    );
    f.beside(
        tx,
        0.0,
        StepSpec::new(
            Who::Nic,
            Who::Kernel,
            StepKind::Interrupt,
            "Transmit-completion interrupt at the sender",
            fixed(INTERRUPT_NS, Category::Kernel, "INTERRUPT_NS"),
            "/bandwidth",
            "The driver frees the sent buffers when the NIC reports them done (interrupt \
             moderation batches these).",
        )
        .interrupts(1),
    );
    f.then(
        StepSpec::new(
            Who::RemoteNic,
            Who::RemoteHostMem,
            StepKind::DmaWrite,
            "Remote NIC writes the frames into kernel buffers",
            transfer(&pcie, len),
            "/bandwidth",
            "Into receive-ring buffers the driver posted in advance: the NIC does not know \
             which application the data is for.",
        )
        .via(&[Who::RemotePcieSw])
        .bytes(len),
    );
    f.then(
        StepSpec::new(
            Who::RemoteNic,
            Who::RemoteKernel,
            StepKind::Interrupt,
            "Receive interrupt",
            fixed(INTERRUPT_NS, Category::Kernel, "INTERRUPT_NS"),
            "/bandwidth",
            "The NIC raises an MSI-X interrupt; the driver schedules NAPI polling in softirq.",
        )
        .interrupts(1),
    );
    f.then(StepSpec::new(
        Who::RemoteKernel,
        Who::RemoteKernel,
        StepKind::CpuWork,
        "Softirq: TCP/IP receive",
        fixed(TCP_RX_STACK_NS, Category::Kernel, "TCP_RX_STACK_NS"),
        "/bandwidth",
        "GRO merges segments, IP and TCP check them, the data joins the socket's receive \
         queue and an ACK is scheduled.",
    ));
    f.then(StepSpec::new(
        Who::RemoteKernel,
        Who::RemoteApp,
        StepKind::CpuWork,
        "Wake the receiving thread",
        fixed(WAKEUP_NS, Category::Kernel, "WAKEUP_NS"),
        "/bandwidth",
        "The thread blocked in recv() becomes runnable and is scheduled.",
    ));
    f.then(
        StepSpec::new(
            Who::RemoteApp,
            Who::RemoteKernel,
            StepKind::Syscall,
            "recv() returns to the kernel's data",
            fixed(SYSCALL_NS, Category::Kernel, "SYSCALL_NS"),
            "/bandwidth",
            "The second system call of the transfer.",
        )
        .syscalls(1),
    );
    f.then(
        StepSpec::new(
            Who::RemoteKernel,
            Who::RemoteHostMem,
            StepKind::SocketCopy,
            "Kernel copies socket data to the user buffer",
            cpu_copy(len, MEMCPY_SETUP_NS, MEMCPY_GBPS),
            "/bandwidth",
            "copy_to_user: the second CPU copy.",
        )
        .bytes(len)
        .copies(1),
    );
    cuda_memcpy(&mut f, &pcie, true, len, &STAGING);
    Ok(f)
}
