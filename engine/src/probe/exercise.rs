//! The /live view's tasks, checked on what the learner has brought about: a connection they
//! made, a port's congestion chart they scrolled to, a probe they stopped. What the page
//! shows as it opens (it joins the probe that served it by itself) ticks nothing.

use super::{PortSample, Sample};
use crate::exercise::Exercise;

/// What the /live view is showing the learner.
#[derive(Debug, Clone, PartialEq)]
pub enum Sight {
    /// A reading the probe has just sent, on a connection the learner made: by Connect, or
    /// by starting a probe while the page waited for one.
    Live(Sample),
    /// A port whose congestion chart the learner has on screen, as the latest live reading
    /// has it.
    Watched(PortSample),
    /// The last reading of a probe that is no longer connected (or has gone quiet).
    Lost,
}

/// The congestion counters that move when DCQCN acts: CNPs a NIC sent as the notification
/// point, and CNPs it acted on as the reaction point.
pub const DCQCN_COUNTERS: [&str; 2] = ["np_cnp_sent", "rp_cnp_handled"];

fn dcqcn_moving(port: &PortSample) -> bool {
    DCQCN_COUNTERS.iter().any(|name| {
        port.hw_counters
            .get(*name)
            .and_then(|c| c.per_second)
            .is_some_and(|rate| rate > 0.0)
    })
}

/// What the /live view asks the learner to try, in order.
pub const EXERCISES: [Exercise<Sight>; 3] = [
    Exercise {
        id: "connect",
        task: "Connect the page to a probe yourself: press Connect by its address (a page \
               a probe served joins it by itself), or start one while the page waits. \
               ./lab run starts one on recorded data, native-probe serve reads this machine.",
        lesson: "The probe reads the NIC's counters from /sys at every interval, works out \
                 each rate, and sends the reading to the page, which only draws it.",
        done: |s| matches!(s, Sight::Live(_)),
    },
    Exercise {
        id: "dcqcn-at-work",
        task: "Find DCQCN at work: scroll to the congestion chart of a port whose \
               np_cnp_sent or rp_cnp_handled is rising.",
        lesson: "np_cnp_sent counts CNPs a NIC sent back after receiving ECN-marked packets \
                 (it is the notification point); rp_cnp_handled counts CNPs it received as a \
                 sender and answered by cutting its rate (the reaction point). One NIC can \
                 be both, for different flows.",
        done: |s| matches!(s, Sight::Watched(port) if dcqcn_moving(port)),
    },
    Exercise {
        id: "stop-the-probe",
        task: "Stop the probe (Ctrl-C where it runs) and see what happens to its numbers.",
        lesson: "The last reading stays on screen, marked not live with the time it was seen: \
                 a number that has stopped changing must not pass for a current one.",
        done: |s| matches!(s, Sight::Lost),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exercise::Progress;
    use crate::probe::{CounterSample, CounterStatus, PortSample};

    fn port_with(name: &str, rate: Option<f64>) -> PortSample {
        let mut port = PortSample {
            device: "mlx5_0".into(),
            port: 1,
            state: None,
            counters: Default::default(),
            counters_ext: Default::default(),
            hw_counters: Default::default(),
            tx_bytes_per_second: None,
            rx_bytes_per_second: None,
        };
        port.hw_counters.insert(
            name.to_string(),
            CounterSample {
                value: Some(10),
                per_second: rate,
                status: CounterStatus::Ok,
            },
        );
        port
    }

    fn sample(ports: Vec<PortSample>) -> Sample {
        Sample {
            timestamp_ms: 1_000,
            elapsed_ms: 1_000,
            ports,
            netdevs: Vec::new(),
        }
    }

    /// UX check 2026-12: on the demo two of the three tasks were done on arrival. A
    /// reading connects; only a port the learner watches shows DCQCN, and only while its
    /// CNP counters move; a lost probe is the third.
    #[test]
    fn a_reading_connects_a_watched_busy_port_shows_dcqcn_and_a_lost_probe_is_the_third() {
        let busy = port_with("rp_cnp_handled", Some(120.0));
        let p = Progress::default().observe(&EXERCISES, &Sight::Live(sample(vec![busy.clone()])));
        assert!(
            p.is_done(0) && p.count() == 1,
            "a reading alone is not DCQCN found"
        );
        let idle = port_with("np_cnp_sent", Some(0.0));
        let p = p.observe(&EXERCISES, &Sight::Watched(idle));
        assert_eq!(p.count(), 1, "idle CNP counters are not DCQCN at work");
        let quiet = port_with("rx_write_requests", Some(9.0));
        let p = p.observe(&EXERCISES, &Sight::Watched(quiet));
        assert_eq!(p.count(), 1, "other counters moving are not DCQCN at work");
        let p = p.observe(&EXERCISES, &Sight::Watched(busy));
        assert!(p.is_done(1));
        let p = p.observe(&EXERCISES, &Sight::Lost);
        assert_eq!(p.count(), 3);
    }
}
