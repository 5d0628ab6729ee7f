//! The /roce view's tasks, checked on the frame shown and the field the learner picked.

use super::listing::{row_from, IcrcStatus};
use super::DecodedFrame;
use crate::exercise::Exercise;

/// A dissected frame and the field picked in it (in the tree or the hex), if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    pub frame: DecodedFrame,
    /// The picked field's name, e.g. `infiniband.bth.destqp`.
    pub picked: Option<String>,
}

impl Inspection {
    fn picked(&self, name: &str) -> bool {
        self.picked.as_deref() == Some(name)
    }
}

/// What the /roce view asks the learner to try, in order.
pub const EXERCISES: [Exercise<Inspection>; 3] = [
    Exercise {
        id: "find-dest-qp",
        task: "Find the destination QP number: pick it in the tree or in the hex bytes.",
        lesson: "The 24-bit DestQP in the BTH is how the receiving NIC finds the queue pair a \
                 packet belongs to. RoCE v2 gives no QP a UDP port of its own: every packet \
                 goes to port 4791, and the QP is named here.",
        done: |i| i.picked("infiniband.bth.destqp"),
    },
    Exercise {
        id: "break-icrc",
        task: "Break the ICRC: change a byte in the hex, apply it, and watch the check fail.",
        lesson: "The ICRC covers the IP, UDP and transport headers and the payload, except \
                 the fields a router may rewrite (IPv4 DSCP/ECN, TTL and header checksum, or \
                 IPv6 traffic class, flow label and hop limit; the UDP checksum; BTH byte 4), \
                 which it counts as ones. Change the TTL and it still holds; change a byte a \
                 router must leave alone and it fails.",
        done: |i| row_from(0, 0, &i.frame).icrc == IcrcStatus::Invalid,
    },
    Exercise {
        id: "find-priority",
        task: "Add a VLAN tag and find the priority bits (PCP) that PFC acts on.",
        lesson: "PFC pauses one priority at a time. On a tagged frame the switch reads the \
                 3-bit PCP of the 802.1Q tag; a switch set to trust DSCP maps the IP header's \
                 DSCP to a priority instead, and then no tag is needed.",
        done: |i| i.picked("vlan.priority"),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::spec::{build, PacketSpec};
    use crate::capture::{dissect, LinkType};
    use crate::exercise::Progress;

    fn inspect(frame: &[u8], picked: Option<&str>) -> Inspection {
        Inspection {
            frame: dissect(frame, LinkType::Ethernet),
            picked: picked.map(str::to_string),
        }
    }

    #[test]
    fn a_built_packet_fulfils_nothing_until_the_learner_acts() {
        let frame = build(&PacketSpec::default()).expect("the default packet builds");
        let p = Progress::default().observe(&EXERCISES, &inspect(&frame, None));
        assert_eq!(p.count(), 0);
        let p = p.observe(&EXERCISES, &inspect(&frame, Some("infiniband.bth.psn")));
        assert_eq!(p.count(), 0);
        let p = p.observe(&EXERCISES, &inspect(&frame, Some("infiniband.bth.destqp")));
        assert!(p.is_done(0));
    }

    #[test]
    fn a_changed_ttl_keeps_the_icrc_and_a_changed_qp_breaks_it() {
        let frame = build(&PacketSpec::default()).expect("builds");
        let d = dissect(&frame, LinkType::Ethernet);
        let at = |name: &str| d.field(name).unwrap_or_else(|| panic!("{name}")).offset;
        let mut ttl = frame.clone();
        ttl[at("ip.ttl")] ^= 0x01;
        assert!(
            !(EXERCISES[1].done)(&inspect(&ttl, None)),
            "TTL is a variant field"
        );
        let mut qp = frame.clone();
        qp[at("infiniband.bth.destqp")] ^= 0x01;
        assert!((EXERCISES[1].done)(&inspect(&qp, None)));
    }
}
