//! System-level properties of the DCQCN packet and fluid models.

use engine::dcqcn::*;

fn packet(s: &Scenario) -> Series {
    simulate_packets(s, &Limits::default()).expect("valid scenario")
}

/// The flow indices' completion instants (start + FCT), µs.
fn completion_times(series: &Series) -> Vec<f64> {
    series
        .fct_us
        .iter()
        .zip(&series.flow_start_us)
        .filter_map(|(fct, start)| fct.map(|f| f + start))
        .collect()
}

#[test]
fn two_flow_converges_to_fair_share_with_high_utilization_and_bounded_queue() {
    let s = named_scenario("two-flow").unwrap();
    let series = packet(&s);
    assert!(!series.truncated);
    let d = s.duration_us;
    let last_quarter = series.summary_window(0.75 * d, d);
    assert!(
        last_quarter.jain_fairness >= 0.99,
        "Jain {:.4} over {:?}",
        last_quarter.jain_fairness,
        last_quarter.mean_goodput_gbps
    );
    assert!(
        last_quarter.utilization >= 0.90,
        "utilization {:.3}",
        last_quarter.utilization
    );
    // Above K_max every packet is marked, so in steady state the queue stays below it.
    assert!(
        last_quarter.max_queue_bytes <= s.cp.kmax_bytes as f64,
        "queue {} above Kmax {}",
        last_quarter.max_queue_bytes,
        s.cp.kmax_bytes
    );
    // Nothing is lost and PFC is never needed: XOFF sits far above K_max.
    assert_eq!(series.drops.last().copied(), Some(0));
    assert!(series.max_queue_bytes < s.cp.buffer_bytes as f64);
}

#[test]
fn incast_16_with_pfc_is_lossless_and_keeps_the_bottleneck_busy() {
    let s = named_scenario("incast-16").unwrap();
    assert!(s.cp.pfc.is_some());
    let series = packet(&s);
    assert_eq!(series.drops.last().copied(), Some(0), "no drop with PFC on");
    assert_eq!(
        series.headroom_overruns, 0,
        "the buffer's headroom sufficed"
    );
    assert!(
        series.pfc_pause_events > 0,
        "a line-rate 16:1 incast must trigger PFC"
    );
    // Every flow completes (nothing lost, nothing starved).
    let done = completion_times(&series);
    assert_eq!(done.len(), 16, "FCTs {:?}", series.fct_us);
    // From 1 ms until the first flow completes all 16 are backlogged.
    let first_done = done.iter().cloned().fold(f64::INFINITY, f64::min);
    let window_end = (first_done / s.sample_interval_us).floor() * s.sample_interval_us;
    assert!(window_end > 2_000.0, "first completion at {first_done} µs");
    let w = series.summary_window(1_000.0, window_end);
    assert!(
        w.utilization >= 0.90,
        "utilization {:.3} in [1 ms, {window_end} µs]",
        w.utilization
    );
    // 16 × 4 MiB cannot cross a 100 Gb/s link faster than the line rate allows.
    let ideal_us = 16.0 * 4.0 * 1024.0 * 1024.0 * 8.0 / (100.0e9) * 1e6;
    let last_done = done.iter().cloned().fold(0.0, f64::max);
    assert!(last_done >= ideal_us * 0.999, "{last_done} < {ideal_us}");
}

#[test]
fn cnps_for_a_flow_are_never_closer_than_np_min_time_between_cnps() {
    for (name, n_us) in [
        ("two-flow", 50.0),
        ("incast-16", 50.0),
        ("incast-16", 4.0),
        ("incast-16", 0.0),
    ] {
        let mut s = named_scenario(name).unwrap();
        s.dcqcn.np_min_time_between_cnps_us = n_us;
        s.duration_us = s.duration_us.min(4_000.0);
        let series = packet(&s);
        assert!(
            series.total_cnps() > 0,
            "{name}: congestion must produce CNPs"
        );
        for (i, gap) in series.min_cnp_gap_us.iter().enumerate() {
            if let Some(gap) = gap {
                assert!(
                    *gap >= n_us - 1e-6,
                    "{name} N={n_us}: flow {i} gap {gap} µs"
                );
            }
        }
    }
}

#[test]
fn raising_g_makes_the_first_rate_cut_deeper() {
    // Alpha is updated before the cut it causes, so with alpha below 1 a larger g moves
    // it further up and the first cut removes more.
    let cut_depth = |g: f64| {
        let mut s = named_scenario("two-flow").unwrap();
        s.duration_us = 3_000.0;
        s.dcqcn.rp_initial_alpha = 0.5;
        s.dcqcn.g = g;
        let series = packet(&s);
        let c = series.first_cut[0]
            .clone()
            .expect("flow 0 is cut after flow 1 starts");
        1.0 - c.rate_after_gbps / c.rate_before_gbps
    };
    let gentle = cut_depth(1.0 / 256.0);
    let aggressive = cut_depth(0.5);
    assert!(
        aggressive > gentle,
        "g=1/2 cut {aggressive}, g=1/256 cut {gentle}"
    );
    // α/2 with α ∈ [0.5, 1]: a cut between a quarter and a half.
    assert!((0.25..=0.5).contains(&gentle) && (0.25..=0.5).contains(&aggressive));
}

#[test]
fn fluid_and_packet_models_agree_on_two_flow_steady_state() {
    let s = named_scenario("two-flow").unwrap();
    let p = packet(&s);
    let f = simulate_fluid(&s, &Limits::default()).unwrap();
    let d = s.duration_us;
    let ps = p.summary_window(0.75 * d, d);
    let fs = f.summary_window(0.75 * d, d);
    for i in 0..2 {
        let (a, b) = (ps.mean_goodput_gbps[i], fs.mean_goodput_gbps[i]);
        assert!(
            (a - b).abs() <= 0.10 * b,
            "flow {i}: packet {a:.2} vs fluid {b:.2} Gb/s"
        );
    }
    assert_eq!(p.time_us.len(), f.time_us.len(), "same sampling grid");
    assert_eq!(p.flows.len(), f.flows.len());
}

#[test]
fn same_seed_gives_the_same_series_and_another_seed_other_marks() {
    let mut s = named_scenario("two-flow").unwrap();
    s.duration_us = 6_000.0;
    let a = packet(&s);
    let b = packet(&s);
    assert_eq!(a, b);
    s.seed = 2;
    let c = packet(&s);
    assert_ne!(a.ecn_marks, c.ecn_marks, "RED draws depend on the seed");
}

#[test]
fn the_work_cap_truncates_instead_of_hanging() {
    let s = named_scenario("incast-16").unwrap();
    let limits = Limits { max_events: 10_000 };
    let p = simulate_packets(&s, &limits).unwrap();
    assert!(p.truncated);
    assert_eq!(p.events, 10_000);
    assert!(p.end_us < s.duration_us);
    assert!(p
        .truncation_reason
        .as_deref()
        .unwrap_or("")
        .contains("10000"));
    // The fluid model integrates the 16 identical flows as one class: 1 unit per step.
    let small = Limits { max_events: 1_000 };
    let f = simulate_fluid(&s, &small).unwrap();
    assert!(f.truncated && f.events <= 1_000 && f.truncation_reason.is_some());
    assert!(f.end_us < s.duration_us);
    let full = simulate_fluid(&s, &Limits::default()).unwrap();
    assert!(!full.truncated);
}

#[test]
fn without_pfc_an_overflowing_buffer_drops() {
    let mut s = named_scenario("incast-16").unwrap();
    s.cp.pfc = None;
    s.cp.buffer_bytes = 256 * 1024;
    s.duration_us = 1_000.0;
    let series = packet(&s);
    assert!(series.drops.last().copied().unwrap_or(0) > 0);
    assert_eq!(series.pfc_pause_events, 0);
    assert!(series.max_queue_bytes <= s.cp.buffer_bytes as f64);
}

#[test]
fn ecn_above_xoff_lets_pfc_fire_first() {
    let s = named_scenario("ecn-above-xoff").unwrap();
    let series = packet(&s);
    let incast = packet(&named_scenario("incast-16").unwrap());
    assert!(series.pfc_pause_total_us > incast.pfc_pause_total_us);
    assert!(series.total_cnps() < incast.total_cnps());
    assert_eq!(series.drops.last().copied(), Some(0));
}

/// Whether flow `i` still had bytes to deliver at `t_us` (it had started and not completed).
fn still_sending(series: &Series, i: usize, t_us: f64) -> bool {
    let start = series.flow_start_us[i];
    start < t_us && series.fct_us[i].is_none_or(|fct| start + fct > t_us)
}

/// The audit's ecn-above-xoff: R_C stays at line rate while PFC holds the 16 senders, so
/// the rate chart needs what they actually sent. Through every sample interval in which
/// the senders were paused from end to end they sent nothing at all, though DCQCN still
/// let them send at (nearly) line rate.
#[test]
fn ecn_above_xoff_senders_send_nothing_while_paused_whatever_rc_allows() {
    let mut s = named_scenario("ecn-above-xoff").unwrap();
    // Samples far shorter than a pause (about 34 µs here), so some lie wholly inside one.
    s.sample_interval_us = 5.0;
    let series = packet(&s);
    // A PAUSE stops the senders one link delay after the switch sent it, once the packet
    // then on each link has left (82 ns for 1 KiB at 100 Gb/s); a RESUME frees them one
    // link delay after it was sent.
    let stop_after_us = s.prop_delay_us + 0.1;
    let mut checked = 0;
    for (k, &t) in series.time_us.iter().enumerate() {
        let from = t - s.sample_interval_us;
        let held = series
            .pause_intervals
            .iter()
            .any(|p| p.start_us + stop_after_us <= from && t <= p.end_us + s.prop_delay_us);
        if !held {
            continue;
        }
        for (i, f) in series.flows.iter().enumerate() {
            if !still_sending(&series, i, t) {
                continue;
            }
            checked += 1;
            assert_eq!(
                f.sent_gbps[k], 0.0,
                "flow {i} sent during a pause at {t} µs"
            );
            assert!(
                f.rc_gbps[k] >= 50.0,
                "flow {i}'s R_C at {t} µs is {} Gb/s: DCQCN had cut it after all",
                f.rc_gbps[k]
            );
        }
    }
    assert!(
        checked >= 1000,
        "only {checked} paused (sample, flow) pairs"
    );

    // At the scenario's own 50 µs samples, and in the fluid model, which averages PFC: a
    // sending flow's sent rate is its ~1/16 share of the bottleneck, far below R_C.
    let s = named_scenario("ecn-above-xoff").unwrap();
    let fluid = simulate_fluid(&s, &Limits::default()).unwrap();
    for (model, series) in [("packet", packet(&s)), ("fluid", fluid)] {
        let mut checked = 0;
        for (k, &t) in series.time_us.iter().enumerate() {
            for (i, f) in series.flows.iter().enumerate() {
                if !series.pfc_paused[k] || !still_sending(&series, i, t) {
                    continue;
                }
                checked += 1;
                assert!(
                    f.sent_gbps[k] < f.rc_gbps[k] / 4.0,
                    "{model}: flow {i} at {t} µs sent {} Gb/s with R_C {} Gb/s",
                    f.sent_gbps[k],
                    f.rc_gbps[k]
                );
            }
        }
        assert!(checked >= 16 * 80, "{model}: only {checked} paused samples");
    }
}

/// The sent rate is what left each sender: integrated over the run it is the flow's size,
/// and no sample shows more than the sender's line rate.
#[test]
fn the_sent_rate_adds_up_to_each_flows_bytes_and_never_exceeds_its_line_rate() {
    let s = named_scenario("incast-16").unwrap();
    let fluid = simulate_fluid(&s, &Limits::default()).unwrap();
    for (model, series) in [("packet", packet(&s)), ("fluid", fluid)] {
        for (i, (f, spec)) in series.flows.iter().zip(&s.flows).enumerate() {
            let size = spec.size_bytes.unwrap() as f64;
            let bytes: f64 = f.sent_gbps.iter().sum::<f64>() * s.sample_interval_us * 1e3 / 8.0;
            // The fluid model stops a flow at the end of the step that carried its last bit.
            let allowed = match series.model {
                Model::Packet => 1e-6 * size,
                Model::Fluid => spec.link_gbps * 1e3 * s.fluid_step_us / 8.0,
            };
            assert!(
                (bytes - size).abs() <= allowed,
                "{model}: flow {i} sent {bytes} bytes of {size}"
            );
            let fastest = f.sent_gbps.iter().fold(0.0_f64, |a, &b| a.max(b));
            assert!(
                fastest <= spec.link_gbps * (1.0 + 1e-9),
                "{model}: flow {i} sent at {fastest} Gb/s"
            );
        }
    }
}

#[test]
fn every_named_scenario_runs_in_both_models_and_round_trips_through_json() {
    for name in scenario_names() {
        let mut s = named_scenario(name).unwrap();
        s.duration_us = s.duration_us.min(2_000.0);
        let json = serde_json::to_string(&s).unwrap();
        let back: Scenario = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        let p = packet(&s);
        let f = simulate_fluid(&s, &Limits::default()).unwrap();
        assert_eq!(
            p.time_us.len() as f64,
            (s.duration_us / s.sample_interval_us).floor()
        );
        assert_eq!(f.time_us.len(), p.time_us.len(), "{name}");
        let csv = series_to_csv(&p);
        assert!(csv.starts_with(
            "time_us,flow,rc_gbps,rt_gbps,alpha,goodput_gbps,queue_bytes,cnps,pfc_paused,\
             ecn_marks,drops,sent_gbps\n"
        ));
        // The sent rate is the last cell of each row.
        let last = csv.lines().nth(1).and_then(|row| row.rsplit(',').next());
        let sent = p.flows[0].sent_gbps[0];
        assert_eq!(last, Some(format!("{sent:.6}").as_str()), "{name}");
        assert_eq!(csv.lines().count(), 1 + p.time_us.len() * s.flows.len());
    }
    assert!(matches!(
        named_scenario("nope"),
        Err(SimError::UnknownScenario { .. })
    ));
}

#[test]
fn fluid_model_treats_identical_flows_identically_and_distinct_ones_separately() {
    let mut s = named_scenario("incast-16").unwrap();
    s.duration_us = 2_000.0;
    let f = simulate_fluid(&s, &Limits::default()).unwrap();
    for col in &f.flows[1..] {
        assert_eq!(col, &f.flows[0]);
    }
    // Give one flow a later start: it must now differ from the rest.
    s.flows[3].start_us = 500.0;
    let g = simulate_fluid(&s, &Limits::default()).unwrap();
    assert_ne!(g.flows[3], g.flows[0]);
    assert_eq!(g.flows[2], g.flows[0]);
}

#[test]
fn the_timeline_cursor_finds_the_nearest_sample_and_clamps() {
    let scenario = engine::dcqcn::named_scenario("two-flow").expect("named");
    let series =
        engine::dcqcn::simulate_fluid(&scenario, &engine::dcqcn::Limits::default()).expect("runs");
    let n = series.time_us.len();
    assert!(n > 10);
    for probe in [0usize, 3, n / 2, n - 1] {
        let t = series.time_us[probe];
        assert_eq!(series.sample_index_at(t), Some(probe));
        // A little off the sample still lands on it.
        assert_eq!(
            series.sample_index_at(t + 0.3 * series.sample_interval_us),
            Some(probe)
        );
    }
    assert_eq!(series.sample_index_at(-5.0), Some(0));
    assert_eq!(series.sample_index_at(1e12), Some(n - 1));
    assert_eq!(series.sample_index_at(f64::NAN), Some(0));
}

#[test]
fn cnps_per_interval_add_up_to_the_cumulative_total() {
    let scenario = engine::dcqcn::named_scenario("incast-16").expect("named");
    let series = engine::dcqcn::simulate_packets(&scenario, &engine::dcqcn::Limits::default())
        .expect("runs");
    let sum: u64 = (0..series.time_us.len())
        .map(|k| series.cnps_in_interval(k))
        .sum();
    assert!(series.total_cnps() > 0, "incast must draw CNPs");
    assert_eq!(sum, series.total_cnps());
    assert_eq!(series.cnps_in_interval(series.time_us.len() + 5), 0);
}

/// The largest gaps between two fluid runs of one scenario: queue (bytes) and any flow's
/// R_C (Gb/s), sample by sample.
fn fluid_gaps(a: &Series, b: &Series) -> (f64, f64) {
    assert_eq!(a.time_us, b.time_us, "the runs sample the same instants");
    let queue = a
        .queue_bytes
        .iter()
        .zip(&b.queue_bytes)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    let rate = a
        .flows
        .iter()
        .zip(&b.flows)
        .flat_map(|(f, g)| f.rc_gbps.iter().zip(&g.rc_gbps).map(|(x, y)| (x - y).abs()))
        .fold(0.0, f64::max);
    (queue, rate)
}

#[test]
fn the_fluid_models_default_step_follows_a_fine_step_reference() {
    let s = named_scenario("two-flow").unwrap();
    let run = |step_us: f64| {
        let mut s = s.clone();
        s.fluid_step_us = step_us;
        simulate_fluid(&s, &Limits::default()).unwrap()
    };
    let reference = run(0.05);
    let default = run(s.fluid_step_us);
    let (queue_gap, rate_gap) = fluid_gaps(&default, &reference);
    // The marking band is Kmax − Kmin wide and the line rate 40 Gb/s: the default step
    // stays within 2 % of the one and 0.5 % of the other at every sample.
    let band = (s.cp.kmax_bytes - s.cp.kmin_bytes) as f64;
    assert!(queue_gap < 0.02 * band, "queue off by {queue_gap} B");
    assert!(
        rate_gap < 0.005 * s.bottleneck_gbps,
        "R_C off by {rate_gap} Gb/s"
    );
    // Finer steps close in on the reference (not evenly: the clamps and the kinks of
    // the marking curve cost accuracy wherever a step straddles them).
    let (fine_queue_gap, fine_rate_gap) = fluid_gaps(&run(s.fluid_step_us / 5.0), &reference);
    assert!(
        fine_rate_gap < rate_gap / 2.0,
        "{fine_rate_gap} vs {rate_gap}"
    );
    assert!(
        fine_queue_gap < queue_gap / 2.0,
        "{fine_queue_gap} vs {queue_gap}"
    );
}

#[test]
fn the_fluid_step_stays_within_the_feedback_delay_and_divides_the_sample_interval() {
    let mut s = named_scenario("two-flow").unwrap();
    s.duration_us = 1_000.0;
    s.sample_interval_us = 20.0;
    s.fluid_step_us = 50.0;
    let series = simulate_fluid(&s, &Limits::default()).unwrap();
    // τ* is about 3.2 µs: the longest step under it that divides 20 µs is 20/7 µs.
    let delay = s.feedback_delay_us();
    assert!((20.0 / 7.0..20.0 / 6.0).contains(&delay), "τ* = {delay} µs");
    let steps = (s.duration_us / (20.0 / 7.0)).round() as u64;
    // Two flows with different starts: two classes, one flow-step each per step.
    assert_eq!(series.events, 2 * steps);
    // Every sample sits on a whole multiple of the interval.
    for (k, t) in series.time_us.iter().enumerate() {
        assert!(
            (t - (k + 1) as f64 * 20.0).abs() < 1e-6,
            "sample {k} at {t} µs"
        );
    }
    assert_eq!(series.sample_index_at(500.0), Some(24));
}
