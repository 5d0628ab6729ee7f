//! Encapsulation, layer by layer: what each header of a dissected frame is for, in the
//! order a sender wraps the payload (innermost first) and a receiver unwraps it.
//!
//! Sources: IBTA Vol 1 §9.2–§9.3 (BTH and extended transport headers), §7.7–§8.3 (LRH,
//! GRH), Annex A17 (RoCE v2: UDP port 4791, ICRC over IP/UDP with variant fields masked),
//! RFC 791 / RFC 8200 (IP), RFC 768 (UDP), IEEE 802.3 and 802.1Q (Ethernet, VLAN tag).

use super::dissect::{DecodedFrame, Layer};
use serde::{Deserialize, Serialize};

/// One wrapping step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EncapStep {
    /// Dissector layer name, e.g. `infiniband.reth`.
    pub name: String,
    pub title: String,
    pub offset: usize,
    pub len: usize,
    /// Why the layer is there.
    pub purpose: &'static str,
}

/// What a dissector layer does for the packet.
pub fn layer_purpose(name: &str) -> &'static str {
    match name {
        "infiniband.payload" => "The application's bytes, copied by the NIC straight from registered memory, padded to a multiple of 4.",
        "infiniband.reth" => "Remote virtual address, R_Key and DMA length: where in the responder's memory a WRITE lands or a READ reads.",
        "infiniband.aeth" => "Acknowledge header: ACK with credits, NAK with a reason, or RNR NAK with a timer, plus the message sequence number.",
        "infiniband.deth" => "Datagram header: the Q_Key that authorises the send and the sender's QP, since UD has no connection.",
        "infiniband.immdt" => "32 bits of immediate data handed to the receiver in its completion.",
        "infiniband.atomiceth" => "Atomic operation: address, R_Key, and the swap/add and compare operands.",
        "infiniband.atomicacketh" => "The original value an atomic found in remote memory.",
        "infiniband.ieth" => "The R_Key the receiver must invalidate.",
        "infiniband.rdeth" => "Reliable-datagram end-to-end context.",
        "infiniband.xrceth" => "The XRC shared receive queue the message targets.",
        "infiniband.cnp" => "Reserved bytes of a congestion notification packet; the opcode alone carries the message.",
        "infiniband.bth" => "Base transport header: opcode, destination QP, PSN, P_Key, ACK request and congestion bits. Every IB transport packet has one.",
        "infiniband.icrc" => "Invariant CRC over the fields no switch or router changes; only the destination checks it.",
        "udp" => "UDP to port 4791 marks the packet as RoCE v2; the source port spreads flows across ECMP paths.",
        "ip" | "ipv6" => "IP routes the packet across subnets; DSCP picks the traffic class and ECN lets switches mark congestion for DCQCN.",
        "vlan" => "802.1Q tag: PCP chooses the priority that PFC pauses, the VLAN ID the broadcast domain.",
        "eth" => "Ethernet delivers the frame to the next hop's MAC address.",
        "eth.trailer" => "Bytes after the IP packet: minimum-size padding or the Ethernet FCS.",
        "infiniband.lrh" => "Local route header: source and destination LIDs and the service level, for switches inside one IB subnet.",
        "infiniband.grh" => "Global route header (IPv6-like GIDs) for routing between IB subnets.",
        "infiniband.vcrc" => "Variant CRC over the whole packet, recomputed at every hop.",
        _ => "Header decoded by the dissector.",
    }
}

/// Steps in the order a sender adds them: payload first, then transport headers from
/// the innermost out (the ICRC joins the transport), then UDP, IP, tag and Ethernet.
pub fn sender_steps(d: &DecodedFrame) -> Vec<EncapStep> {
    let step = |l: &Layer| EncapStep {
        name: l.name.to_string(),
        title: l.title.to_string(),
        offset: l.offset,
        len: l.len,
        purpose: layer_purpose(l.name),
    };
    let mut steps: Vec<EncapStep> = Vec::with_capacity(d.layers.len());
    // Payload, then the extended headers inward-out, BTH, ICRC; then the network layers.
    let transport = |n: &str| n.starts_with("infiniband.") && !is_link(n);
    let trailing = |n: &str| matches!(n, "infiniband.icrc" | "infiniband.vcrc" | "eth.trailer");
    let payload = d.layers.iter().filter(|l| l.name == "infiniband.payload");
    let ext = d
        .layers
        .iter()
        .rev()
        .filter(|l| transport(l.name) && l.name != "infiniband.payload" && !trailing(l.name));
    let icrc = d.layers.iter().filter(|l| l.name == "infiniband.icrc");
    let outer = d
        .layers
        .iter()
        .rev()
        .filter(|l| !transport(l.name) && !trailing(l.name));
    let tail = d
        .layers
        .iter()
        .filter(|l| matches!(l.name, "infiniband.vcrc" | "eth.trailer"));
    for l in payload.chain(ext).chain(icrc).chain(outer).chain(tail) {
        steps.push(step(l));
    }
    steps
}

fn is_link(name: &str) -> bool {
    matches!(
        name,
        "infiniband.lrh" | "infiniband.grh" | "infiniband.vcrc"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::dissect::dissect;
    use crate::capture::pcap::LinkType;
    use crate::capture::spec::{build, PacketSpec, Payload, SpecOperation};

    #[test]
    fn a_write_is_wrapped_payload_first_and_ethernet_last() {
        let frame = build(&PacketSpec {
            operation: SpecOperation::Write,
            payload: Payload::Size(8),
            ..PacketSpec::default()
        })
        .unwrap_or_default();
        let d = dissect(&frame, LinkType::Ethernet);
        let names: Vec<String> = sender_steps(&d).into_iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "infiniband.payload",
                "infiniband.reth",
                "infiniband.bth",
                "infiniband.icrc",
                "udp",
                "ip",
                "eth"
            ]
        );
        assert_eq!(sender_steps(&d).len(), d.layers.len(), "no layer is lost");
        assert!(sender_steps(&d)
            .iter()
            .all(|s| s.purpose != layer_purpose("unknown")));
    }
}
