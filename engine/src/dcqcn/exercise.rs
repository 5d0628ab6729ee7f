//! The /dcqcn view's tasks, checked on each run's [`Series`].

use super::{Model, Series};
use crate::exercise::Exercise;

/// Least fraction of its rate every cut flow must keep for the "gentle cut" task.
pub const GENTLE_CUT_KEEPS: f64 = 0.7;

/// When PFC first paused the senders, µs: the first pause interval, or (a model that keeps
/// none) the first sample taken while paused.
pub fn first_pause_us(s: &Series) -> Option<f64> {
    s.pause_intervals.first().map(|p| p.start_us).or_else(|| {
        s.pfc_paused
            .iter()
            .zip(&s.time_us)
            .find(|(paused, _)| **paused)
            .map(|(_, t)| *t)
    })
}

/// When DCQCN first cut any flow's rate, µs, as the charts show it.
pub fn first_cut_us(s: &Series) -> Option<f64> {
    s.first_cuts()
        .into_iter()
        .flatten()
        .map(|c| c.time_us)
        .reduce(f64::min)
}

/// What the /dcqcn view asks the learner to try, in order.
pub const EXERCISES: [Exercise<Series>; 3] = [
    Exercise {
        id: "pfc-first",
        task: "Make PFC pause the senders before DCQCN has cut a single rate.",
        lesson: "A PAUSE needs only the queue to reach XOFF. A rate cut needs a marked \
                 packet, a CNP from the receiver and that CNP's way back to the sender. \
                 When many senders start at line rate, or K_min sits above XOFF, the queue \
                 reaches XOFF first and PFC stops the whole link, flows that caused nothing \
                 included.",
        done: |s| match (first_pause_us(s), first_cut_us(s)) {
            (Some(pause), Some(cut)) => pause < cut,
            (Some(_), None) => true,
            (None, _) => false,
        },
    },
    Exercise {
        id: "headroom-overrun",
        task: "In the packet model, make the lossless queue overflow: leave PFC too little \
               headroom between XOFF and the buffer's end.",
        lesson: "A PAUSE takes effect only after it reaches the sender, and what is already \
                 on the wire still arrives: about a round trip of line-rate data plus a \
                 packet or two per sender. Without that much room above XOFF, a lossless \
                 class loses packets.",
        done: |s| {
            s.model == Model::Packet
                && (s.headroom_overruns > 0 || s.drops.last().is_some_and(|d| *d > 0))
        },
    },
    Exercise {
        id: "gentle-cut",
        task: "Make every flow's first cut keep at least 70 % of its rate.",
        lesson: "A CNP sets R_C ← R_C × (1 − α/2). α starts at 1, so by default the first \
                 cut halves the rate. mlx5's rp_min_dec_fac bounds a cut (the rate keeps at \
                 least that percentage), and g decides how fast α follows the marks.",
        done: |s| {
            let cuts: Vec<_> = s.first_cuts().into_iter().flatten().collect();
            !cuts.is_empty()
                && cuts
                    .iter()
                    .all(|c| c.rate_after_gbps >= GENTLE_CUT_KEEPS * c.rate_before_gbps)
        },
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dcqcn::{
        named_scenario, scenario_names, simulate_fluid, simulate_packets, Limits, Scenario,
    };
    use crate::exercise::Progress;

    fn runs(s: &Scenario) -> [Series; 2] {
        let limits = Limits::default();
        [
            simulate_fluid(s, &limits).expect("fluid runs"),
            simulate_packets(s, &limits).expect("packet model runs"),
        ]
    }

    fn done(id: &str, s: &Series) -> bool {
        let i = EXERCISES
            .iter()
            .position(|e| e.id == id)
            .expect("an exercise");
        Progress::default().observe(&EXERCISES, s).is_done(i)
    }

    #[test]
    fn the_page_opening_run_fulfils_nothing() {
        // The page opens on the first named scenario in the fluid model.
        let s = named_scenario(scenario_names()[0]).expect("named");
        let fluid = simulate_fluid(&s, &Limits::default()).expect("runs");
        assert_eq!(Progress::default().observe(&EXERCISES, &fluid).count(), 0);
    }

    #[test]
    fn pfc_comes_first_in_an_incast_at_line_rate_and_with_ecn_above_xoff() {
        let [fluid, packet] = runs(&named_scenario("two-flow").expect("named"));
        assert!(!done("pfc-first", &fluid) && !done("pfc-first", &packet));
        let [_, packet] = runs(&named_scenario("incast-16").expect("named"));
        assert!(
            done("pfc-first", &packet),
            "16 senders reach XOFF within the first RTT"
        );
        for s in runs(&named_scenario("ecn-above-xoff").expect("named")) {
            assert!(
                done("pfc-first", &s),
                "{:?}: PFC pauses, marks come late or never",
                s.model
            );
        }
    }

    #[test]
    fn xoff_too_close_to_the_buffer_end_overflows_in_the_packet_model() {
        let mut s = named_scenario("incast-16").expect("named");
        for series in runs(&s) {
            assert!(
                !done("headroom-overrun", &series),
                "the named incast has headroom"
            );
        }
        // XOFF 1 024 000 B of a 1 MiB buffer: 24 KB of headroom for 16 senders.
        if let Some(pfc) = s.cp.pfc.as_mut() {
            pfc.xoff_bytes = 1_024_000;
        }
        let [fluid, packet] = runs(&s);
        assert!(done("headroom-overrun", &packet));
        assert!(
            !done("headroom-overrun", &fluid),
            "the task names the packet model"
        );
    }

    #[test]
    fn a_minimum_decrease_factor_makes_the_first_cut_gentle() {
        for name in scenario_names() {
            for series in runs(&named_scenario(name).expect("named")) {
                assert!(!done("gentle-cut", &series), "{name} {:?}", series.model);
            }
        }
        let mut s = named_scenario("two-flow").expect("named");
        s.dcqcn.rp_min_dec_fac_pct = 80.0;
        for series in runs(&s) {
            assert!(done("gentle-cut", &series), "{:?}", series.model);
        }
    }
}
