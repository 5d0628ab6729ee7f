//! The /flows view's tasks, checked on the kind of step the player is showing.

use super::StepKind;
use crate::exercise::Exercise;

/// What the /flows view asks the learner to try, in order.
pub const EXERCISES: [Exercise<StepKind>; 3] = [
    Exercise {
        id: "find-nak",
        task: "Step to a NAK and read why the responder sent it.",
        lesson: "An RC responder answers a PSN it did not expect with a sequence-error NAK \
                 naming the PSN it wants, and a SEND it has no receive buffer for with an RNR \
                 NAK. The requester resends from that PSN, or after the RNR timer.",
        done: |kind| *kind == StepKind::Nak,
    },
    Exercise {
        id: "find-pause",
        task: "Find a PFC PAUSE frame: which way does it travel?",
        lesson: "The congested switch sends PAUSE upstream, against the data, to the port \
                 that feeds it. The frame names the priorities to stop and for how long, in \
                 quanta of 512 bit times.",
        done: |kind| *kind == StepKind::PauseFrame,
    },
    Exercise {
        id: "find-cpu-copy",
        task: "Find where the CPU copies the payload, a step no RDMA scenario has.",
        lesson: "A TCP socket copies every byte in the CPU, into socket buffers on send and \
                 out of them on receive. An RDMA NIC reads and writes the application's memory \
                 by DMA, so the CPU copies nothing.",
        done: |kind| *kind == StepKind::SocketCopy,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::Progress;
    use crate::flows::{build_scenario, default_params, scenario_ids};

    /// Which exercises the steps of a scenario fulfil.
    fn fulfilled_by(id: &str) -> Progress {
        let params = default_params(id).expect("params");
        let scenario = build_scenario(id, &params).expect("builds");
        scenario
            .steps
            .iter()
            .fold(Progress::default(), |p, s| p.observe(&EXERCISES, &s.kind))
    }

    #[test]
    fn each_task_has_a_scenario_that_shows_it_and_rdma_never_copies() {
        assert!(fulfilled_by("go-back-n").is_done(0));
        assert!(fulfilled_by("rnr-retry").is_done(0));
        assert!(fulfilled_by("pfc-pause").is_done(1));
        assert!(fulfilled_by("tcp-socket").is_done(2));
        for id in scenario_ids().iter().filter(|id| !id.contains("tcp")) {
            assert!(!fulfilled_by(id).is_done(2), "{id} has a CPU copy");
        }
        // The page opens on the first scenario: it shows none of them.
        assert_eq!(fulfilled_by(scenario_ids()[0]).count(), 0);
    }
}
