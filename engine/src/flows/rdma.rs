//! Verbs data paths: post-send (DMA and inline), GPUDirect and staged writes, RDMA READ,
//! ATOMIC compare-and-swap, and RC connection setup.
//!
//! A payload of more than one packet moves as a pipeline in the WRITE, SEND and READ data
//! paths: the sending NIC puts a packet on the wire as soon as its data has come in over
//! PCIe, and the receiving NIC writes each packet to memory as it arrives ([`Stream`]). A
//! long message then takes about as long as its slowest stage plus one packet through the
//! others; the full DMA read and write are drawn beside the packets, off the critical path.
//! Control steps (doorbell, WQE fetch, ACK, CQE) stay one after another.

use super::costs::*;
use super::link::Link;
use super::model::{Category, StepKind};
use super::params::{param_error, ScenarioParams};
use super::stage::{
    control_wire, duration, fabric, fixed, rdma_end_packets, rdma_wire, split_at_mtu, transfer,
    Flow, StepSpec, Who, BACKWARD_VIA, FORWARD_VIA, PATH_CABLES, PATH_SWITCHES,
};
use super::staging::{cuda_memcpy, CudaMemcpyText};
use super::FlowError;
use crate::prose::count;
use crate::qp::{connection_walkthrough, QpState, Walkthrough};
use crate::wire::ext::header_len;
use crate::wire::Header;

pub(crate) fn ext(h: Header) -> u32 {
    header_len(h) as u32
}

/// Links a scenario uses.
pub(crate) struct Links {
    pub pcie: Link,
    pub net: Link,
}

impl Links {
    pub(crate) fn of(p: &ScenarioParams) -> Links {
        Links {
            pcie: p.pcie.link(),
            net: p.network.link(),
        }
    }
}

/// The requester's half before the wire: the post, the doorbell, the WQE fetch, the NIC's
/// parsing, and the payload DMA read from `source` (host or GPU memory), whole.
pub(crate) fn requester_front(f: &mut Flow, l: &Links, source: Who, payload: u64) {
    requester_setup(f, l);
    if payload > 0 {
        let (title, text) = payload_read_words(source);
        dma_read(f, l, source, payload, title, text);
    }
}

/// [`requester_front`] with the payload read streaming into the packets.
pub(crate) fn requester_front_streamed(f: &mut Flow, l: &Links, source: Who, stream: &mut Stream) {
    requester_setup(f, l);
    let (title, text) = payload_read_words(source);
    stream_read(f, l, stream, source, title, text);
}

fn payload_read_words(source: Who) -> (&'static str, &'static str) {
    if source == Who::Gpu {
        (
            "NIC reads the payload from GPU memory (peer-to-peer)",
            "With GPUDirect RDMA the NIC's DMA read targets a GPU BAR address: the request \
             and the data go through the PCIe switch, never through host memory or the CPU.",
        )
    } else {
        (
            "NIC reads the payload from host memory",
            "The NIC pulls the registered buffer by DMA; the CPU is not involved.",
        )
    }
}

/// The post, the doorbell, the WQE fetch and the NIC's parsing.
fn requester_setup(f: &mut Flow, l: &Links) {
    f.then(
        StepSpec::new(
            Who::App,
            Who::HostMem,
            StepKind::WqeWrite,
            "ibv_post_send() writes a WQE",
            fixed(VERBS_POST_NS, Category::HostSoftware, "VERBS_POST_NS"),
            "/verbs",
            "The library fills a 64-byte work queue element in the send queue, which lives in \
             ordinary host memory. No system call: the queue is mapped into the process.",
        )
        .bytes(WQE_BYTES),
    );
    f.then(
        StepSpec::new(
            Who::App,
            Who::Nic,
            StepKind::Doorbell,
            "Doorbell: MMIO write to the NIC",
            transfer(&l.pcie, DOORBELL_BYTES),
            "/verbs",
            "The CPU writes 8 bytes into the NIC's doorbell page over PCIe to say \"new work in \
             this queue\". It is a posted write: the CPU does not wait for it.",
        )
        .via(&[Who::PcieSw])
        .bytes(DOORBELL_BYTES),
    );
    dma_read(
        f,
        l,
        Who::HostMem,
        WQE_BYTES,
        "NIC fetches the WQE",
        "The NIC reads the WQE from host memory by DMA: a read request goes out, a completion \
         carrying the 64 bytes comes back.",
    );
    f.then(StepSpec::new(
        Who::Nic,
        Who::Nic,
        StepKind::NicWork,
        "NIC parses the WQE",
        fixed(NIC_TX_NS, Category::NicProcessing, "NIC_TX_NS"),
        "/qp",
        "The NIC loads the QP context, checks the opcode and the local key, and schedules the \
         queue for transmission.",
    ));
}

/// A payload streaming from a DMA read through the wire into a DMA write.
pub(crate) struct Stream {
    /// Payload bytes.
    len: u64,
    /// Payload bytes per packet (the path MTU).
    mtu: u32,
    /// Wire bytes of all packets, of the first and of the last.
    wire: u64,
    first_wire: u64,
    last_wire: u64,
    /// The step reading the whole payload, when it runs beside the packets (the wire is the
    /// slower stage).
    read: Option<usize>,
    /// The DMA read is the slower stage: it is on the critical path and paces the packets.
    paced_by_read: bool,
    /// The DMA read request, which every overlapping step comes after.
    request: Option<usize>,
}

impl Stream {
    /// A stream of `len` bytes at `mtu`, the first packet carrying `first_ext` extended
    /// header bytes.
    pub(crate) fn new(l: &Links, len: u64, mtu: u32, first_ext: u32) -> Stream {
        let (_, wire) = rdma_wire(&l.net, len, mtu, first_ext);
        let (first_wire, last_wire) = rdma_end_packets(&l.net, len, mtu, first_ext);
        Stream {
            len,
            mtu,
            wire,
            first_wire,
            last_wire,
            read: None,
            paced_by_read: false,
            request: None,
        }
    }

    /// More than one packet: the stages can overlap.
    fn pipelined(&self) -> bool {
        self.len > u64::from(self.mtu)
    }

    /// Payload bytes of the first packet, and of the last.
    fn end_chunks(&self) -> (u64, u64) {
        let (_, last) = split_at_mtu(self.len, self.mtu);
        (self.len.min(u64::from(self.mtu.max(1))), last)
    }
}

/// The DMA read of a stream's payload by the NIC in front of `from`: a request, then the
/// data. Past one packet the critical path runs through the slower of the read and the
/// wire: if the wire is slower, the whole read runs beside and the path goes on as soon as
/// the first packet's data is in; if PCIe is slower, the whole read is on the path and the
/// packets follow it.
pub(crate) fn stream_read(
    f: &mut Flow,
    l: &Links,
    stream: &mut Stream,
    from: Who,
    title: &str,
    text: &str,
) {
    if !stream.pipelined() {
        dma_read(f, l, from, stream.len, title, text);
        return;
    }
    let (nic, sw) = pcie_side(from);
    f.then(read_request(nic, from, sw, l, title));
    let request = f.last();
    stream.request = request;
    let read = transfer(&l.pcie, stream.len);
    stream.paced_by_read = duration(&read) > l.net.serialization_ns(stream.wire);
    let whole = StepSpec::new(
        from,
        nic,
        StepKind::DmaRead,
        format!("{title}: the data streams in"),
        read,
        "/gpudirect",
        if stream.paced_by_read {
            format!(
                "{text} PCIe delivers the data more slowly than the link could send it, so \
                 this read sets the pace: the NIC sends each packet as soon as its data is in."
            )
        } else {
            format!(
                "{text} The read runs while packets leave: the NIC sends each packet as soon \
                 as its data has arrived, so this transfer overlaps the wire."
            )
        },
    )
    .via(&[sw])
    .bytes(stream.len);
    if stream.paced_by_read {
        f.then(whole);
        return;
    }
    stream.read = Some(f.beside(request, 0.0, whole));
    let (first, _) = stream.end_chunks();
    f.then(
        StepSpec::new(
            from,
            nic,
            StepKind::DmaRead,
            format!("{title}: the first packet's data is in"),
            transfer(&l.pcie, first),
            "/gpudirect",
            "The NIC need not wait for the whole payload: one packet's worth of data is enough \
             to start sending.",
        )
        .via(&[sw])
        .bytes(first),
    );
}

/// The packets of a stream, `spec` crossing the fabric. Paced by a slower DMA read, the
/// packets run beside it from its first packet's data on, and the critical path takes only
/// the last packet across once the read ends. Returns the packets' step.
pub(crate) fn stream_send(f: &mut Flow, l: &Links, stream: &Stream, spec: StepSpec) -> usize {
    if stream.paced_by_read {
        let read = f.last();
        let (first, last) = stream.end_chunks();
        let first_in = read.map_or(0.0, |r| f.start_of(r)) + duration(&transfer(&l.pcie, first));
        let (from, to, kind, topic, via) =
            (spec.from, spec.to, spec.kind, spec.topic, spec.via.clone());
        let packets = f.alongside(stream.request, first_in, spec);
        f.then(
            StepSpec::new(
                from,
                to,
                kind,
                "The last packet crosses the fabric",
                fabric(&l.net, stream.last_wire, PATH_CABLES, PATH_SWITCHES),
                topic,
                "Its data came in last; once it is sent and has crossed the switches, the \
                 whole message is at the far NIC.",
            )
            .via(&via)
            .bytes(last),
        );
        return packets;
    }
    let sender = spec.from;
    let wire = f.then(spec);
    let Some(read) = stream.read else {
        return wire;
    };
    // A guard for the boundary case: the last packet cannot leave before its data is in.
    let last_packet = fabric(&l.net, stream.last_wire, PATH_CABLES, PATH_SWITCHES);
    let behind = f.end_of(Some(read)) + duration(&last_packet) - f.end_of(Some(wire));
    // Below a nanosecond the difference is rounding, not a wait.
    if behind > 1.0 {
        f.then(StepSpec::new(
            sender,
            sender,
            StepKind::Wait,
            "The last packet waits for its data",
            fixed(
                behind,
                Category::Pcie,
                "end of the DMA read + the last packet's time on the wire, less the end of the packets",
            ),
            "/gpudirect",
            "The last packet leaves only once its data has come in over PCIe.",
        ));
    }
    wire
}

/// The receiving NIC's DMA write of a stream's payload into `to`, after the packets of step
/// `packets` (and the NIC's check, the last critical step). Past one packet, each packet is
/// written as it arrives: the whole write runs beside, and on the critical path (when
/// `critical`) only the last packet's write remains, or the backlog of a slower PCIe.
#[allow(clippy::too_many_arguments)]
pub(crate) fn stream_write(
    f: &mut Flow,
    l: &Links,
    stream: &Stream,
    packets: usize,
    nic: Who,
    to: Who,
    critical: bool,
    title: &str,
    text: &str,
) {
    let checked = f.last();
    if !stream.pipelined() {
        let w = dma_write(l, nic, to, stream.len, title, text);
        if critical {
            f.then(w);
        } else {
            f.beside(checked, 0.0, w);
        }
        return;
    }
    let first_packet = fabric(&l.net, stream.first_wire, PATH_CABLES, PATH_SWITCHES);
    let first_in = f.start_of(packets) + duration(&first_packet) + NIC_RX_NS;
    let whole = dma_write(
        l,
        nic,
        to,
        stream.len,
        &format!("{title}, packet by packet"),
        &format!(
            "{text} The NIC writes each packet as it arrives, so this write overlaps the \
             packets still on the wire."
        ),
    );
    let whole = f.alongside(stream.request, first_in, whole);
    if !critical {
        return;
    }
    let (_, last) = stream.end_chunks();
    f.then(dma_write(
        l,
        nic,
        to,
        last,
        &format!("{title}: the last packet's data"),
        "Only the last packet is left to write when it arrives.",
    ));
    let behind = f.end_of(Some(whole)) - f.end_of(f.last());
    // Below a nanosecond the difference is rounding, not a wait.
    if behind > 1.0 {
        f.then(StepSpec::new(
            nic,
            nic,
            StepKind::Wait,
            "The NIC finishes writing the earlier packets",
            fixed(
                behind,
                Category::Pcie,
                "end of the whole DMA write, less the end of the last packet's write",
            ),
            "/gpudirect",
            "PCIe takes the data more slowly than the link brings it, so packets queue in the \
             NIC and the write ends after the last packet's: PCIe sets the rate here.",
        ));
    }
}

/// The NIC and PCIe switch in front of a memory.
fn pcie_side(memory: Who) -> (Who, Who) {
    if matches!(memory, Who::RemoteHostMem | Who::RemoteGpu) {
        (Who::RemoteNic, Who::RemotePcieSw)
    } else {
        (Who::Nic, Who::PcieSw)
    }
}

fn read_request(nic: Who, from: Who, sw: Who, l: &Links, title: &str) -> StepSpec {
    StepSpec::new(
        nic,
        from,
        StepKind::DmaRead,
        format!("{title}: read request"),
        transfer(&l.pcie, 0),
        "/gpudirect",
        "A PCIe memory read request carries an address and a length but no data; it pays the \
         one-way latency.",
    )
    .via(&[sw])
}

/// A DMA read as two steps: the read request (no data) and the completion with the data.
pub(crate) fn dma_read(f: &mut Flow, l: &Links, from: Who, bytes: u64, title: &str, text: &str) {
    let (nic, sw) = pcie_side(from);
    f.then(read_request(nic, from, sw, l, title));
    f.then(
        StepSpec::new(
            from,
            nic,
            StepKind::DmaRead,
            format!("{title}: completion with data"),
            transfer(&l.pcie, bytes),
            "/gpudirect",
            text,
        )
        .via(&[sw])
        .bytes(bytes),
    );
}

/// A DMA write by `nic` into `to`.
pub(crate) fn dma_write(
    l: &Links,
    nic: Who,
    to: Who,
    bytes: u64,
    title: &str,
    text: &str,
) -> StepSpec {
    let sw = if nic == Who::RemoteNic {
        Who::RemotePcieSw
    } else {
        Who::PcieSw
    };
    StepSpec::new(
        nic,
        to,
        StepKind::DmaWrite,
        title,
        transfer(&l.pcie, bytes),
        "/gpudirect",
        text,
    )
    .via(&[sw])
    .bytes(bytes)
}

/// A message crossing the fabric from the local NIC to the remote one, or back.
// Every argument is a distinct field of the step; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cross(
    l: &Links,
    forward: bool,
    kind: StepKind,
    title: &str,
    payload: u64,
    wire: u64,
    topic: &'static str,
    text: &str,
) -> StepSpec {
    let (from, to, via) = if forward {
        (Who::Nic, Who::RemoteNic, FORWARD_VIA)
    } else {
        (Who::RemoteNic, Who::Nic, BACKWARD_VIA)
    };
    StepSpec::new(
        from,
        to,
        kind,
        title,
        fabric(&l.net, wire, PATH_CABLES, PATH_SWITCHES),
        topic,
        text,
    )
    .via(&via)
    .bytes(payload)
}

pub(crate) fn nic_work(
    who: Who,
    title: &str,
    ns: f64,
    basis: &str,
    topic: &'static str,
    text: &str,
) -> StepSpec {
    StepSpec::new(
        who,
        who,
        StepKind::NicWork,
        title,
        fixed(ns, Category::NicProcessing, basis),
        topic,
        text,
    )
}

/// ACK back to the requester, the CQE, and the poll that finds it.
pub(crate) fn ack_cqe_poll(f: &mut Flow, l: &Links, text: &str) {
    let ack = control_wire(&l.net, ext(Header::Aeth));
    f.then(nic_work(
        Who::RemoteNic,
        "Remote NIC generates the ACK",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/roce",
        "The responder checks the PSN, and acknowledges with an ACK packet that carries the \
         AETH (syndrome and credit count).",
    ));
    f.then(cross(
        l,
        false,
        StepKind::Ack,
        "ACK crosses the fabric",
        0,
        ack,
        "/roce",
        "A payload-less packet: BTH + AETH, padded to the minimum frame on Ethernet.",
    ));
    f.then(nic_work(
        Who::Nic,
        "NIC retires the WQE",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "The ACK covers the message's last PSN, so the work request is complete.",
    ));
    let cqe = dma_write(
        l,
        Who::Nic,
        Who::HostMem,
        CQE_BYTES,
        "NIC writes a CQE",
        text,
    );
    f.then(cqe);
    poll(f, Who::App, Who::HostMem);
}

pub(crate) fn poll(f: &mut Flow, app: Who, mem: Who) {
    f.then(StepSpec::new(
        app,
        mem,
        StepKind::CpuWork,
        "ibv_poll_cq() finds the completion",
        fixed(VERBS_POLL_NS, Category::HostSoftware, "VERBS_POLL_NS"),
        "/verbs",
        "The application reads the CQE from host memory (no syscall). A latency-minded \
         program busy-polls, spending a core; one that arms a completion channel sleeps and is \
         woken by an interrupt instead.",
    ));
}

/// `post-send` (DMA variant) or `post-send-inline` (BlueFlame).
pub(crate) fn post_send(p: &ScenarioParams, inline: bool) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let mut f = if inline {
        if len > u64::from(p.max_inline_data) {
            return Err(param_error(
                "message_bytes",
                len,
                &format!(
                    "an inline send carries at most max_inline_data = {} bytes",
                    p.max_inline_data
                ),
            ));
        }
        Flow::new(
            "post-send-inline",
            "RDMA WRITE, inline with BlueFlame",
            "A small message pushed into the NIC by the CPU: WQE and data travel in one MMIO \
             write, so the NIC makes no DMA reads before sending.",
        )
    } else {
        Flow::new(
            "post-send",
            "RDMA WRITE from host memory: ibv_post_send to ibv_poll_cq",
            "Who touches the data on the way from one host's memory to another's, and how the \
             sender learns that it arrived.",
        )
    };
    if inline {
        let bytes = (INLINE_WQE_HEADER_BYTES + len).div_ceil(WQE_BYTES) * WQE_BYTES;
        f.then(
            StepSpec::new(
                Who::App,
                Who::HostMem,
                StepKind::WqeWrite,
                "ibv_post_send() builds an inline WQE",
                fixed(VERBS_POST_NS, Category::HostSoftware, "VERBS_POST_NS"),
                "/verbs",
                "With IBV_SEND_INLINE the library copies the data into the WQE itself, so the \
                 buffer may be reused at once and need not be registered.",
            )
            .bytes(bytes),
        );
        f.then(
            StepSpec::new(
                Who::App,
                Who::Nic,
                StepKind::BlueFlame,
                "BlueFlame: WQE and data written by MMIO",
                transfer(&l.pcie, bytes),
                "/verbs",
                "The CPU writes the whole WQE through a write-combining mapping of the NIC's \
                 BlueFlame buffer. The NIC has everything it needs: no doorbell-then-fetch \
                 round trips.",
            )
            .via(&[Who::PcieSw])
            .bytes(bytes),
        );
        f.then(nic_work(
            Who::Nic,
            "NIC parses the WQE",
            NIC_TX_NS,
            "NIC_TX_NS",
            "/qp",
            "Same QP context work as for any send.",
        ));
    }
    let mut stream = Stream::new(&l, len, p.mtu, ext(Header::Reth));
    if !inline {
        requester_front_streamed(&mut f, &l, Who::HostMem, &mut stream);
    }
    let (packets, wire) = rdma_wire(&l.net, len, p.mtu, ext(Header::Reth));
    f.figure("packets", packets as f64, "packets");
    f.figure("wire bytes", wire as f64, "B");
    let sent = cross(
        &l,
        true,
        StepKind::Packet,
        &format!(
            "{} the fabric",
            count(packets, "packet crosses", "packets cross")
        ),
        len,
        wire,
        "/roce",
        "The NIC splits the message at the path MTU; the first packet carries the RETH \
         (remote address, rkey, length). Switches forward cut-through, so only the sender's \
         link serializes the bytes.",
    );
    let packets_step = stream_send(&mut f, &l, &stream, sent);
    f.then(nic_work(
        Who::RemoteNic,
        "Remote NIC checks the packets",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "PSN in sequence, rkey valid for this address range and RDMA WRITE access: the \
         remote CPU is not asked.",
    ));
    stream_write(
        &mut f,
        &l,
        &stream,
        packets_step,
        Who::RemoteNic,
        Who::RemoteHostMem,
        false,
        "Remote NIC writes the data into memory",
        "The data lands in the registered buffer by DMA. The responder need not wait for this \
         posted write before acknowledging: PCIe ordering keeps later accesses behind it.",
    );
    ack_cqe_poll(
        &mut f,
        &l,
        "A 64-byte completion queue entry lands in host memory: the WRITE is done.",
    );
    Ok(f)
}

/// Without GPUDirect the NIC can reach only host memory.
const STAGING: CudaMemcpyText = CudaMemcpyText {
    copy_title: "copy engine moves the data",
    call: "The CUDA runtime checks the pointers and programs a copy engine; a synchronous copy \
           then waits for it.",
    copy: "A full copy of the payload over PCIe into a staging buffer: memory bandwidth, \
           PCIe bandwidth and time spent only to move the data somewhere the NIC can reach.",
};

/// `gpudirect-write` (GPU to GPU with GPUDirect RDMA) or `staged-write` (through host memory).
pub(crate) fn gpu_write(p: &ScenarioParams, direct: bool) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let mut f = if direct {
        Flow::new(
            "gpudirect-write",
            "RDMA WRITE GPU to GPU with GPUDirect RDMA",
            "The NIC reads GPU memory and the remote NIC writes GPU memory, peer-to-peer over \
             PCIe: no copy through host memory on either side.",
        )
    } else {
        Flow::new(
            "staged-write",
            "RDMA WRITE GPU to GPU, staged through host memory",
            "Without GPUDirect RDMA the data is copied to host memory, sent from there, and \
             copied into the remote GPU: two extra copies and two CUDA calls.",
        )
    };
    if !direct {
        cuda_memcpy(&mut f, &l.pcie, false, len, &STAGING);
    }
    let source = if direct { Who::Gpu } else { Who::HostMem };
    let first_ext = ext(Header::Reth) + ext(Header::ImmDt);
    let mut stream = Stream::new(&l, len, p.mtu, first_ext);
    requester_front_streamed(&mut f, &l, source, &mut stream);
    let (packets, wire) = rdma_wire(&l.net, len, p.mtu, first_ext);
    f.figure("packets", packets as f64, "packets");
    let sent = cross(
        &l,
        true,
        StepKind::Packet,
        &format!(
            "{} of an RDMA WRITE with immediate",
            count(packets, "packet", "packets")
        ),
        len,
        wire,
        "/roce",
        "WRITE with immediate: the data goes to the remote address, and the 4-byte immediate \
         produces a completion at the receiver so that it knows the data is there.",
    );
    let packets_step = stream_send(&mut f, &l, &stream, sent);
    f.then(nic_work(
        Who::RemoteNic,
        "Remote NIC checks the packets",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "PSN, rkey and access checks in the NIC.",
    ));
    let rx = f.last();
    let target = if direct {
        Who::RemoteGpu
    } else {
        Who::RemoteHostMem
    };
    let text = if direct {
        "The remote NIC writes straight into GPU memory through the PCIe switch (the GPU \
         memory was registered with ibv_reg_mr through nvidia-peermem or dma-buf)."
    } else {
        "The data lands in a host staging buffer."
    };
    stream_write(
        &mut f,
        &l,
        &stream,
        packets_step,
        Who::RemoteNic,
        target,
        true,
        "Remote NIC writes the data",
        text,
    );
    let w = dma_write(
        &l,
        Who::RemoteNic,
        Who::RemoteHostMem,
        CQE_BYTES,
        "Remote NIC writes a receive CQE",
        "The immediate consumes a posted receive and completes it: the receiver learns the \
         data has arrived.",
    );
    f.then(w);
    poll(&mut f, Who::RemoteApp, Who::RemoteHostMem);
    if !direct {
        cuda_memcpy(&mut f, &l.pcie, true, len, &STAGING);
    }
    // The requester's ACK and CQE happen meanwhile, off the critical path.
    let ack = control_wire(&l.net, ext(Header::Aeth));
    let a = f.beside(
        rx,
        0.0,
        cross(
            &l,
            false,
            StepKind::Ack,
            "ACK back to the sender",
            0,
            ack,
            "/roce",
            "The sender's completion needs only the ACK; it runs beside the receiver's work.",
        ),
    );
    let c = dma_write(
        &l,
        Who::Nic,
        Who::HostMem,
        CQE_BYTES,
        "Sender's CQE",
        "The sender may reuse its buffer now.",
    );
    f.beside(Some(a), 0.0, c);
    Ok(f)
}

/// `rdma-read`: request, remote DMA read, response packets, local DMA write, CQE.
pub(crate) fn rdma_read(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let mut f = Flow::new(
        "rdma-read",
        "RDMA READ round trip",
        "The requester asks for remote memory; the remote NIC reads it and sends it back. A \
         round trip on the wire, and no remote CPU.",
    );
    requester_front(&mut f, &l, Who::HostMem, 0);
    let req = control_wire(&l.net, ext(Header::Reth));
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "READ request crosses the fabric",
        0,
        req,
        "/roce",
        "One packet with a RETH (address, rkey, length) and no payload. It reserves one PSN \
         per response packet to come.",
    ));
    f.then(nic_work(
        Who::RemoteNic,
        "Remote NIC checks the request",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "rkey and REMOTE_READ access checked; the request takes one of the responder's \
         max_dest_rd_atomic slots.",
    ));
    let mut stream = Stream::new(&l, len, p.mtu, ext(Header::Aeth));
    stream_read(
        &mut f,
        &l,
        &mut stream,
        Who::RemoteHostMem,
        "Remote NIC reads the data",
        "The responder's NIC pulls the data from its host memory by DMA.",
    );
    let (packets, wire) = rdma_wire(&l.net, len, p.mtu, ext(Header::Aeth));
    f.figure("response packets", packets as f64, "packets");
    let sent = cross(
        &l,
        false,
        StepKind::Packet,
        &format!(
            "{} back",
            count(
                packets,
                "READ response packet comes",
                "READ response packets come"
            )
        ),
        len,
        wire,
        "/roce",
        "READ responses carry an AETH on the first and last packets; they double as the \
         acknowledgement, so no separate ACK follows.",
    );
    let packets_step = stream_send(&mut f, &l, &stream, sent);
    f.then(nic_work(
        Who::Nic,
        "NIC matches the responses",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "The requester checks the PSNs against the outstanding READ.",
    ));
    stream_write(
        &mut f,
        &l,
        &stream,
        packets_step,
        Who::Nic,
        Who::HostMem,
        true,
        "NIC writes the data into the local buffer",
        "The data lands in the local registered buffer.",
    );
    let c = dma_write(
        &l,
        Who::Nic,
        Who::HostMem,
        CQE_BYTES,
        "NIC writes a CQE",
        "Written after the data, so a polled completion means the data is visible.",
    );
    f.then(c);
    poll(&mut f, Who::App, Who::HostMem);
    Ok(f)
}

/// Bytes of the compare-and-swap operand (IBTA Vol. 1 §9.4.5: 64-bit atomics).
pub const ATOMIC_OPERAND_BYTES: u64 = 8;

/// `atomic-cas`: ATOMIC compare-and-swap round trip.
pub(crate) fn atomic_cas(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let l = Links::of(p);
    let mut f = Flow::new(
        "atomic-cas",
        "ATOMIC compare-and-swap round trip",
        "An 8-byte compare-and-swap executed by the remote NIC on remote memory; the original \
         value comes back in the ATOMIC acknowledgement.",
    );
    requester_front(&mut f, &l, Who::HostMem, 0);
    let req = control_wire(&l.net, ext(Header::AtomicEth));
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "Compare-and-swap request",
        ATOMIC_OPERAND_BYTES,
        req,
        "/roce",
        "The AtomicETH (28 bytes) carries the virtual address, rkey, swap and compare values.",
    ));
    f.then(nic_work(
        Who::RemoteNic,
        "Remote NIC checks the request",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "REMOTE_ATOMIC access and 8-byte alignment are checked.",
    ));
    dma_read(
        &mut f,
        &l,
        Who::RemoteHostMem,
        ATOMIC_OPERAND_BYTES,
        "Remote NIC reads the 8-byte word",
        "The NIC reads the current value, holding off other atomics to the same address.",
    );
    let w = dma_write(
        &l,
        Who::RemoteNic,
        Who::RemoteHostMem,
        ATOMIC_OPERAND_BYTES,
        "Remote NIC writes the swap value if it matched",
        "Read, compare, and write are atomic only with respect to other atomics through the \
         same NIC (IBV_ATOMIC_HCA), unless the device advertises more.",
    );
    f.then(w);
    let ack = control_wire(&l.net, ext(Header::Aeth) + ext(Header::AtomicAckEth));
    f.then(cross(
        &l,
        false,
        StepKind::Ack,
        "ATOMIC acknowledgement with the original value",
        ATOMIC_OPERAND_BYTES,
        ack,
        "/roce",
        "AETH plus AtomicAckETH: the 8-byte value found before the operation.",
    ));
    let w = dma_write(
        &l,
        Who::Nic,
        Who::HostMem,
        ATOMIC_OPERAND_BYTES,
        "NIC writes the original value locally",
        "The old value lands in the requester's local buffer; comparing it with the expected \
         value tells whether the swap happened.",
    );
    f.then(w);
    let c = dma_write(
        &l,
        Who::Nic,
        Who::HostMem,
        CQE_BYTES,
        "NIC writes a CQE",
        "The atomic is complete.",
    );
    f.then(c);
    poll(&mut f, Who::App, Who::HostMem);
    Ok(f)
}

/// `rc-connect`: creation, the out-of-band exchange and RESET→INIT→RTR→RTS on both sides,
/// from [`connection_walkthrough`] (TCP bootstrap), up to both peers in RTS.
pub(crate) fn rc_connect(_p: &ScenarioParams) -> Result<Flow, FlowError> {
    let mut f = Flow::new(
        "rc-connect",
        "RC connection setup",
        "Two peers create QPs, swap QPN, PSN, GID and rkey over a TCP socket, and walk \
         RESET → INIT → RTR → RTS. Every create and modify is a system call and a firmware \
         command, which is why connections are set up once and reused.",
    );
    let mut state = (None, None);
    for step in connection_walkthrough(Walkthrough::TcpBootstrap) {
        let (app, remote) = match step.actor {
            crate::qp::walkthrough::Actor::A => (Who::App, false),
            crate::qp::walkthrough::Actor::B => (Who::RemoteApp, true),
            crate::qp::walkthrough::Actor::Wire => (Who::App, false),
        };
        let nic = if remote { Who::RemoteNic } else { Who::Nic };
        let before = if remote { state.1 } else { state.0 };
        let after = if remote { step.state_b } else { step.state_a };
        let spec = if step.actor == crate::qp::walkthrough::Actor::Wire {
            StepSpec::new(
                Who::App,
                Who::RemoteApp,
                StepKind::Control,
                step.title.clone(),
                fixed(OOB_EXCHANGE_NS, Category::Kernel, "OOB_EXCHANGE_NS"),
                "/qp",
                step.explanation.clone(),
            )
            .via(&[
                Who::Nic,
                Who::Leaf,
                Who::Spine,
                Who::RemoteLeaf,
                Who::RemoteNic,
            ])
            .bytes(0)
            .syscalls(4)
        } else if before != after {
            // A QP that did not exist is created; one that did changes state. Either way a
            // system call and a firmware command.
            let (ns, basis) = if before.is_none() {
                (CREATE_QP_NS, "CREATE_QP_NS")
            } else {
                (MODIFY_QP_NS, "MODIFY_QP_NS")
            };
            StepSpec::new(
                app,
                nic,
                StepKind::Syscall,
                step.title.clone(),
                fixed(ns, Category::Kernel, basis),
                "/qp",
                step.explanation.clone(),
            )
            .syscalls(1)
        } else {
            StepSpec::new(
                app,
                if remote {
                    Who::RemoteHostMem
                } else {
                    Who::HostMem
                },
                StepKind::WqeWrite,
                step.title.clone(),
                fixed(VERBS_POST_NS, Category::HostSoftware, "VERBS_POST_NS"),
                "/verbs",
                step.explanation.clone(),
            )
        };
        f.then(spec);
        state = (step.state_a, step.state_b);
        if state == (Some(QpState::Rts), Some(QpState::Rts)) {
            break;
        }
    }
    if state != (Some(QpState::Rts), Some(QpState::Rts)) {
        return Err(param_error(
            "scenario",
            "rc-connect",
            "the connection walkthrough did not reach RTS on both sides",
        ));
    }
    Ok(f)
}
