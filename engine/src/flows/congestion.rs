//! Congestion on RoCE: the DCQCN loop (ECN mark → CNP → rate cut) and PFC PAUSE
//! propagating upstream hop by hop.

use super::costs::*;
use super::link::LinkKind;
use super::model::{Category, StepKind};
use super::params::ScenarioParams;
use super::rdma::{cross, nic_work, requester_front, Links};
use super::stage::{control_wire, fabric, fixed, rdma_wire, transfer, Flow, StepSpec, Who};
use super::FlowError;
use crate::capture::segment::{IFG, MIN_ETHERNET_FRAME, PREAMBLE_SFD};
use crate::dcqcn::{red_probability, CongestionPointParams, DcqcnParams, ReactionPoint, RpConfig};
use crate::wire::ext::CNP_PADDING_LEN;

fn require_roce(p: &ScenarioParams) -> Result<(), FlowError> {
    if p.network.kind() == LinkKind::Roce {
        Ok(())
    } else {
        Err(FlowError::WrongLinkKind {
            field: "network".to_string(),
            link: p.network,
            expected: "a RoCE link (ECN/CNP and PFC are Ethernet mechanisms)".to_string(),
        })
    }
}

/// `ecn-cnp`: the spine marks CE, the receiver NIC sends a CNP, the sender NIC cuts its rate.
pub(crate) fn ecn_cnp(p: &ScenarioParams) -> Result<Flow, FlowError> {
    require_roce(p)?;
    let len = p.rdma_message()?;
    let l = Links::of(p);
    let mut f = Flow::new(
        "ecn-cnp",
        "ECN mark, CNP, rate cut: one turn of the DCQCN loop",
        "A congested switch queue marks packets Congestion Experienced; the receiving NIC \
         turns marks into a CNP; the sending NIC cuts the flow's rate (Zhu et al., SIGCOMM \
         2015, §3).",
    );
    requester_front(&mut f, &l, Who::HostMem, len);
    let (_, wire) = rdma_wire(&l.net, len, p.mtu, 16);
    f.then(
        StepSpec::new(
            Who::Nic,
            Who::Spine,
            StepKind::Packet,
            "Packets travel to the spine",
            fabric(&l.net, wire, 2, 1),
            "/dcqcn",
            "The IP header carries ECN-capable transport (ECT) codepoints.",
        )
        .via(&[Who::Leaf])
        .bytes(len),
    );
    // The spine's egress queue stands between K_min and K_max of the paper's profile.
    let cp = CongestionPointParams::paper(10 * 1024 * 1024, None);
    let queue = (cp.kmin_bytes + cp.kmax_bytes) / 2;
    let prob = red_probability(
        queue as f64,
        cp.kmin_bytes as f64,
        cp.kmax_bytes as f64,
        cp.pmax,
    );
    f.figure("spine queue", queue as f64, "B");
    f.figure("marking probability", prob, "");
    f.then(StepSpec::new(
        Who::Spine,
        Who::Spine,
        StepKind::Packet,
        "Queued behind a standing queue, marked CE",
        fixed(
            l.net.serialization_ns(queue),
            Category::Switch,
            "queue bytes × 8 / link rate",
        ),
        "/dcqcn",
        "The egress queue holds more than K_min, so RED marks with a probability rising to \
         P_max at K_max; this packet waits for the queue ahead of it to drain, then leaves \
         with ECN = 11.",
    ));
    f.then(
        StepSpec::new(
            Who::Spine,
            Who::RemoteNic,
            StepKind::Packet,
            "Marked packet reaches the receiver",
            fabric(&l.net, 0, 2, 1),
            "/dcqcn",
            "Nothing else changes: the data is delivered normally.",
        )
        .via(&[Who::RemoteLeaf])
        .bytes(len),
    );
    let params = DcqcnParams::mlx5_default();
    f.then(nic_work(
        Who::RemoteNic,
        "Notification point: CE seen, CNP generated",
        NIC_RX_NS,
        "NIC_RX_NS",
        "/dcqcn",
        "The receiver NIC sends at most one CNP per flow per np_min_time_between_cnps; the CNP \
         goes back at high priority (DSCP 48 by default on mlx5).",
    ));
    let cnp = control_wire(&l.net, CNP_PADDING_LEN as u32);
    f.then(cross(
        &l,
        false,
        StepKind::Cnp,
        "CNP crosses back to the sender",
        0,
        cnp,
        "/dcqcn",
        "A CNP is a BTH with opcode 0x81 and 16 reserved bytes (RoCE v2 annex A17.9.3), \
         addressed to the sending QP.",
    ));
    let mut rp = ReactionPoint::new(RpConfig::new(&params, l.net.gbps * 1e9));
    let before = rp.rc_bps();
    let now_ps = (f.end_of(f.last()) * 1000.0) as u64;
    rp.on_cnp(now_ps);
    let after = rp.rc_bps();
    f.figure("rate before", before / 1e9, "Gb/s");
    f.figure("rate after", after / 1e9, "Gb/s");
    f.then(nic_work(
        Who::Nic,
        &format!(
            "Reaction point cuts the rate: {:.1} → {:.1} Gb/s",
            before / 1e9,
            after / 1e9
        ),
        NIC_TX_NS,
        "NIC_TX_NS",
        "/dcqcn",
        "α ← (1−g)α + g, target ← current, current ← current × (1 − α/2), bounded below by \
         rp_min_dec_fac: on a first CNP with α = 1 the rate halves. It then recovers by fast \
         recovery, additive and hyper increase.",
    ));
    Ok(f)
}

/// IEEE 802.1Qbb: one pause quantum is 512 bit times at the port's speed.
pub const BITS_PER_QUANTUM: f64 = 512.0;

/// `pfc-pause`: receiver → leaf → spine → leaf → sender, one PAUSE per hop.
pub(crate) fn pfc_pause(p: &ScenarioParams) -> Result<Flow, FlowError> {
    require_roce(p)?;
    let l = Links::of(p);
    let mut f = Flow::new(
        "pfc-pause",
        "PFC PAUSE spreading upstream",
        "A stalled receiver pauses its switch port; the switch's queue fills and it pauses its \
         upstream neighbour; hop by hop the pause reaches the sender (IEEE 802.1Qbb).",
    );
    let pause_ns = f64::from(p.pause_quanta) * BITS_PER_QUANTUM / l.net.gbps;
    f.figure("pause per frame", pause_ns, "ns");
    // A PFC frame is a minimum-size MAC control frame.
    let frame = u64::from(MIN_ETHERNET_FRAME + PREAMBLE_SFD + IFG);
    f.then(StepSpec::new(
        Who::RemoteNic,
        Who::RemoteNic,
        StepKind::Wait,
        "Receiver NIC buffer crosses XOFF",
        fixed(NIC_BUFFER_FILL_NS, Category::Waiting, "NIC_BUFFER_FILL_NS"),
        "/lossless",
        "The host cannot drain the NIC fast enough (a PCIe-bound or busy receiver), so its \
         receive buffer for this priority fills past the XOFF threshold.",
    ));
    let fill_ns = l.net.serialization_ns(PFC_XOFF_FILL_BYTES);
    let hops = [
        (Who::RemoteNic, Who::RemoteLeaf, "receiver NIC → its leaf"),
        (Who::RemoteLeaf, Who::Spine, "leaf → spine"),
        (Who::Spine, Who::Leaf, "spine → sender's leaf"),
        (Who::Leaf, Who::Nic, "leaf → sender NIC"),
    ];
    for (i, (from, to, name)) in hops.iter().enumerate() {
        if i > 0 {
            f.then(StepSpec::new(
                *from,
                *from,
                StepKind::Wait,
                "Paused egress: ingress queue fills to XOFF",
                fixed(
                    fill_ns,
                    Category::Switch,
                    "PFC_XOFF_FILL_BYTES × 8 / link rate",
                ),
                "/lossless",
                "The port towards the paused neighbour may not send on this priority, yet \
                 packets keep arriving at line rate; once the ingress queue passes XOFF the \
                 switch pauses its own upstream port. Flows that merely share these ports are \
                 stopped too: head-of-line blocking.",
            ));
        }
        f.then(
            StepSpec::new(
                *from,
                *to,
                StepKind::PauseFrame,
                format!("PAUSE {name}, {} quanta", p.pause_quanta),
                transfer(&l.net, frame),
                "/lossless",
                "A MAC control frame (opcode 0x0101) with a priority-enable vector and one time \
                 per priority in quanta of 512 bit times; it affects only one link.",
            )
            .bytes(MIN_ETHERNET_FRAME.into()),
        );
    }
    f.then(StepSpec::new(
        Who::Nic,
        Who::Nic,
        StepKind::Wait,
        format!("Sender paused for {} × 512 bit times", p.pause_quanta),
        fixed(
            pause_ns,
            Category::Waiting,
            "pause_quanta × 512 / link rate",
        ),
        "/lossless",
        "The sender stops this priority until the time runs out or an XON (a PAUSE with 0 \
         quanta) arrives; switches refresh the PAUSE while congestion lasts.",
    ));
    Ok(f)
}
