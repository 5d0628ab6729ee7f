//! Reliable delivery on RC: go-back-N after a NAK, retransmission after the ACK timeout, and
//! the RNR NAK with its timer (IBTA Vol. 1 §9.7.5 responder, §9.7.6 requester).

use super::costs::*;
use super::model::{Category, StepKind};
use super::params::{param_error, ScenarioParams};
use super::rdma::{
    ack_cqe_poll, cross, dma_read, dma_write, ext, nic_work, requester_front, Links,
};
use super::stage::{control_wire, fabric, fixed, rdma_wire, transfer, Flow, StepSpec, Who};
use super::FlowError;
use crate::prose::count;
use crate::qp::values::{rnr_timer_us, timeout_ns};
use crate::wire::Header;

fn wire_of_packets(l: &Links, len: u64, mtu: u32, first: u64, count: u64) -> u64 {
    // Bytes of packets [first, first + count) of a WRITE of `len` at `mtu`.
    let mtu64 = u64::from(mtu);
    let start = first * mtu64;
    let end = ((first + count) * mtu64).min(len);
    let reth = if first == 0 { ext(Header::Reth) } else { 0 };
    rdma_wire(&l.net, end.saturating_sub(start), mtu, reth).1
}

/// `go-back-n`: PSN 1 is lost; PSN 2 arrives out of sequence, the responder NAKs, and the
/// requester goes back to PSN 1 and sends everything again from there.
pub(crate) fn go_back_n(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let mtu = u64::from(p.mtu);
    let n = len.div_ceil(mtu);
    if n < 3 {
        return Err(param_error(
            "message_bytes",
            len,
            &format!(
                "go-back-n needs at least 3 packets: more than {} bytes at mtu {}",
                2 * mtu,
                p.mtu
            ),
        ));
    }
    let l = Links::of(p);
    let mut f = Flow::new(
        "go-back-n",
        "Lost packet: NAK and go-back-N",
        "The second packet is dropped. The responder sees a PSN from the future, answers with \
         a NAK (PSN sequence error) naming the PSN it expects, and the requester retransmits \
         from that PSN onwards.",
    );
    requester_front(&mut f, &l, Who::HostMem, len);
    let start = f.last();
    let w0 = wire_of_packets(&l, len, p.mtu, 0, 1);
    let w1 = wire_of_packets(&l, len, p.mtu, 1, 1);
    let w2 = wire_of_packets(&l, len, p.mtu, 2, 1);
    // PSN 1 leaves right after PSN 0 and dies at the spine (two cables, one switch).
    f.beside(
        start,
        l.net.serialization_ns(w0),
        StepSpec::new(
            Who::Nic,
            Who::Spine,
            StepKind::PacketDrop,
            "PSN 1 is dropped at the spine",
            fabric(&l.net, w1, 2, 1),
            "/troubleshooting",
            "A corrupted frame (bad FCS/ICRC) or an overflowing lossy queue: the switch \
             discards it and nobody tells the sender.",
        )
        .via(&[Who::Leaf])
        .bytes(mtu),
    );
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "PSN 0, 1, 2 leave back to back; 0 and 2 arrive",
        2 * mtu,
        w0 + w1 + w2,
        "/roce",
        "The sender's link serializes all three; PSN 2 reaches the responder right after PSN 0.",
    ));
    f.then(nic_work(
        Who::RemoteNic,
        "Responder sees PSN 2 while expecting PSN 1",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "An RC responder accepts only the next PSN. It discards PSN 2 and sends one NAK; later \
         out-of-sequence packets are discarded silently until the expected PSN arrives.",
    ));
    let nak = control_wire(&l.net, ext(Header::Aeth));
    let sent_psn2 = f.last();
    f.then(cross(
        &l,
        false,
        StepKind::Nak,
        "NAK: PSN sequence error, expected PSN 1",
        0,
        nak,
        "/roce",
        "The AETH syndrome says NAK with code 0 (PSN sequence error); the BTH PSN is the one \
         the responder expects.",
    ));
    // Packets the sender kept sending until the NAK arrived are wasted.
    let nak_arrival = f.end_of(f.last());
    let psn2_done = f.end_of(start) + l.net.serialization_ns(w0 + w1 + w2);
    let full = l
        .net
        .serialization_ns(wire_of_packets(&l, len, p.mtu, 3, 1).max(1));
    let room = ((nak_arrival - psn2_done) / full).floor().max(0.0);
    let wasted = (n - 3).min(room as u64);
    if wasted > 0 {
        let ww = wire_of_packets(&l, len, p.mtu, 3, wasted);
        f.beside(
            sent_psn2,
            0.0,
            cross(
                &l,
                true,
                StepKind::Packet,
                &format!(
                    "{} sent before the NAK, discarded",
                    count(wasted, "more packet", "more packets")
                ),
                wasted * mtu,
                ww,
                "/roce",
                "Bandwidth spent on packets that the responder throws away: the price of \
                 go-back-N's simple receiver.",
            ),
        );
    }
    f.figure("packets", n as f64, "packets");
    f.figure("packets discarded after the loss", wasted as f64, "packets");
    f.then(nic_work(
        Who::Nic,
        "Requester rewinds to PSN 1",
        NIC_TX_NS,
        "NIC_TX_NS",
        "/qp",
        "The send queue goes back to the WQE and offset that PSN 1 belongs to.",
    ));
    let resend = len - mtu;
    dma_read(
        &mut f,
        &l,
        Who::HostMem,
        resend,
        "NIC reads the data again",
        "The NIC keeps no copy of sent packets: it fetches the data from host memory again.",
    );
    let wr = wire_of_packets(&l, len, p.mtu, 1, n - 1);
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        &format!("PSN 1..{} retransmitted", n - 1),
        resend,
        wr,
        "/roce",
        "Everything from the lost PSN on goes again, including packets that had arrived after \
         the loss.",
    ));
    let w = dma_write(
        &l,
        Who::RemoteNic,
        Who::RemoteHostMem,
        resend,
        "Remote NIC writes the rest of the data",
        "Now in sequence, the packets are placed in memory.",
    );
    f.then(w);
    ack_cqe_poll(&mut f, &l, "The WRITE completes successfully, only later.");
    Ok(f)
}

/// `timeout-retransmit`: the last packet is lost; only the ACK timeout recovers it.
pub(crate) fn timeout_retransmit(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let mtu = u64::from(p.mtu);
    let n = len.div_ceil(mtu).max(1);
    let timeout = timeout_ns(p.ack_timeout)
        .map_err(|e| param_error("ack_timeout", p.ack_timeout, &e.to_string()))?
        .ok_or_else(|| param_error("ack_timeout", 0, "0 means no timeout"))?;
    let mut f = Flow::new(
        "timeout-retransmit",
        "Lost last packet: ACK timeout and retransmission",
        "When the last packet of a message is lost nothing arrives to reveal the gap, so no \
         NAK comes. The requester waits for its transport timer, 4.096 µs × 2^timeout, and \
         retransmits from the oldest unacknowledged PSN.",
    );
    requester_front(&mut f, &l, Who::HostMem, len);
    let (_, wire) = rdma_wire(&l.net, len, p.mtu, ext(Header::Reth));
    f.then(
        StepSpec::new(
            Who::Nic,
            Who::Leaf,
            StepKind::Packet,
            format!("NIC transmits PSN 0..{}", n - 1),
            transfer(&l.net, wire),
            "/roce",
            "All packets leave; the transport timer runs while any are unacknowledged.",
        )
        .bytes(len),
    );
    let sent = f.last();
    let last_wire = wire_of_packets(&l, len, p.mtu, n - 1, 1);
    f.beside(
        sent,
        0.0,
        StepSpec::new(
            Who::Leaf,
            Who::Spine,
            StepKind::PacketDrop,
            format!("PSN {} is dropped", n - 1),
            fabric(&l.net, 0, 1, 1),
            "/troubleshooting",
            "The final packet is lost. Any earlier packets arrive and may be acknowledged, but \
             the message stays incomplete.",
        )
        .bytes(len - (n - 1) * mtu)
        .via(&[]),
    );
    f.figure("timeout", timeout as f64, "ns");
    f.then(StepSpec::new(
        Who::Nic,
        Who::Nic,
        StepKind::Wait,
        format!("ACK timeout: 4.096 µs × 2^{}", p.ack_timeout),
        fixed(timeout as f64, Category::Waiting, "qp::values::timeout_ns"),
        "/qp",
        "Usually far longer than a round trip: a lost tail costs milliseconds at common \
         settings (timeout 14 is 67 ms). retry_cnt bounds how many times this may happen.",
    ));
    f.then(nic_work(
        Who::Nic,
        "Requester retransmits from the unacknowledged PSN",
        NIC_TX_NS,
        "NIC_TX_NS",
        "/qp",
        "The retry counter is decremented; the data is fetched again.",
    ));
    let tail = len - (n - 1) * mtu;
    dma_read(
        &mut f,
        &l,
        Who::HostMem,
        tail,
        "NIC reads the lost packet's data again",
        "Fetched again from host memory.",
    );
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "Retransmitted packet",
        tail,
        last_wire,
        "/roce",
        "This time it gets through.",
    ));
    let w = dma_write(
        &l,
        Who::RemoteNic,
        Who::RemoteHostMem,
        tail,
        "Remote NIC writes the data",
        "The message is now complete in remote memory.",
    );
    f.then(w);
    ack_cqe_poll(&mut f, &l, "Completion, one timeout later.");
    Ok(f)
}

/// `rnr-retry`: a SEND arrives before the receiver posted a receive.
pub(crate) fn rnr_retry(p: &ScenarioParams) -> Result<Flow, FlowError> {
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let rnr_us = rnr_timer_us(p.min_rnr_timer)
        .map_err(|e| param_error("min_rnr_timer", p.min_rnr_timer, &e.to_string()))?;
    let rnr_ns = f64::from(rnr_us) * 1000.0;
    let mut f = Flow::new(
        "rnr-retry",
        "Receiver not ready: RNR NAK, wait, retry",
        "A SEND needs a receive WQE at the responder. With none posted the responder answers \
         RNR NAK carrying its RNR timer; the requester waits that long and sends again.",
    );
    requester_front(&mut f, &l, Who::HostMem, len);
    let (_, wire) = rdma_wire(&l.net, len, p.mtu, 0);
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "SEND packets cross the fabric",
        len,
        wire,
        "/roce",
        "A SEND carries no address: the receiver's posted receive decides where data goes.",
    ));
    f.then(nic_work(
        Who::RemoteNic,
        "Responder finds no receive WQE",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/qp",
        "The receive queue is empty, so the data has nowhere to go and is discarded.",
    ));
    let nacked = f.last();
    let nak = control_wire(&l.net, ext(Header::Aeth));
    f.then(cross(
        &l,
        false,
        StepKind::Nak,
        "RNR NAK with the RNR timer",
        0,
        nak,
        "/qp",
        "The AETH says RNR NAK and carries the responder's min_rnr_timer code.",
    ));
    f.beside(
        nacked,
        0.0,
        StepSpec::new(
            Who::RemoteApp,
            Who::RemoteHostMem,
            StepKind::WqeWrite,
            "Receiver posts a receive",
            fixed(VERBS_POST_NS, Category::HostSoftware, "VERBS_POST_NS"),
            "/verbs",
            "ibv_post_recv() at last: the buffer is ready for the retry.",
        )
        .bytes(WQE_BYTES),
    );
    f.figure("RNR timer", rnr_ns, "ns");
    f.then(StepSpec::new(
        Who::Nic,
        Who::Nic,
        StepKind::Wait,
        format!("RNR timer, code {}", p.min_rnr_timer),
        fixed(rnr_ns, Category::Waiting, "qp::values::rnr_timer_us"),
        "/qp",
        "The requester waits at least the advertised time; rnr_retry bounds how many times \
         (7 = forever).",
    ));
    dma_read(
        &mut f,
        &l,
        Who::HostMem,
        len,
        "NIC reads the data again",
        "The retry starts from the NAK'd PSN, so the data is fetched again.",
    );
    f.then(cross(
        &l,
        true,
        StepKind::Packet,
        "SEND retried",
        len,
        wire,
        "/roce",
        "Same packets, same PSNs.",
    ));
    dma_read(
        &mut f,
        &l,
        Who::RemoteHostMem,
        WQE_BYTES,
        "Remote NIC fetches the receive WQE",
        "The posted receive names the buffer for the data.",
    );
    let w = dma_write(
        &l,
        Who::RemoteNic,
        Who::RemoteHostMem,
        len,
        "Remote NIC writes the data",
        "The SEND is delivered.",
    );
    f.then(w);
    ack_cqe_poll(&mut f, &l, "Completion after one RNR wait.");
    Ok(f)
}
