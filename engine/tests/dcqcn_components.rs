//! The DCQCN building blocks one at a time: RP increase stages and cuts, CP marking and
//! PFC, NP pacing, parameter validation.

use engine::dcqcn::*;

const G: f64 = 1e9;

fn rp(params: &DcqcnParams, line_gbps: f64) -> ReactionPoint {
    ReactionPoint::new(RpConfig::new(params, line_gbps * G))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn a_cnp_sets_target_to_current_and_cuts_by_alpha_over_two() {
    let p = DcqcnParams::paper();
    let mut r = rp(&p, 100.0);
    assert_eq!(r.on_cnp(0), CnpOutcome::CutNow);
    // alpha: (1 − g)·1 + g = 1, so the cut is 1/2.
    assert!(close(r.rc_bps(), 50.0 * G));
    assert!(close(r.rt_bps(), 100.0 * G));
    r.on_cnp(1_000);
    assert!(
        close(r.rt_bps(), 50.0 * G),
        "R_T ← R_C on every CNP (paper)"
    );
    assert!(close(r.rc_bps(), 25.0 * G));
}

#[test]
fn increase_stages_follow_fast_recovery_then_additive_then_hyper() {
    let p = DcqcnParams::paper(); // F = 5, R_AI = 40 Mb/s, R_HAI = 200 Mb/s
    let f = p.rp_threshold;
    let b = p.rp_byte_reset_bytes;
    let mut r = rp(&p, 100.0);
    r.on_cnp(0);
    r.on_cnp(1); // R_T = 50, R_C = 25 Gb/s
    let rt0 = r.rt_bps();
    // F timer events: fast recovery, R_T untouched, R_C halves its distance to R_T.
    for k in 1..=f {
        let gap = r.rt_bps() - r.rc_bps();
        assert_eq!(
            r.on_timer(),
            Some(IncreaseStage::FastRecovery),
            "timer event {k}"
        );
        assert!(close(r.rt_bps() - r.rc_bps(), gap / 2.0));
        assert!(close(r.rt_bps(), rt0));
    }
    // Timer past F, byte counter at 0: additive increase.
    let rc = r.rc_bps();
    assert_eq!(r.on_timer(), Some(IncreaseStage::AdditiveIncrease));
    assert!(close(r.rt_bps(), rt0 + 40e6));
    assert!(close(r.rc_bps(), (r.rt_bps() + rc) / 2.0));
    // Byte-counter events 1..=F: still additive (only one counter is past F).
    for _ in 1..=f {
        let rt = r.rt_bps();
        assert_eq!(r.on_bytes_sent(b), 1);
        assert!(close(r.rt_bps(), rt + 40e6));
    }
    assert_eq!(r.stages(), (f + 1, f));
    // Both past F: hyper increase with i = min(timer, bytes) − F.
    let rt = r.rt_bps();
    assert_eq!(r.on_bytes_sent(b), 1);
    assert!(close(r.rt_bps(), rt + 200e6), "i = 1");
    let rt = r.rt_bps();
    assert_eq!(r.on_timer(), Some(IncreaseStage::HyperIncrease));
    assert!(close(r.rt_bps(), rt + 200e6), "min(7, 6) − 5 = 1");
    let rt = r.rt_bps();
    r.on_bytes_sent(b);
    assert!(close(r.rt_bps(), rt + 2.0 * 200e6), "min(7, 7) − 5 = 2");
    // A CNP restarts both counters: the next event is fast recovery again.
    r.on_cnp(2_000_000);
    assert_eq!(r.stages(), (0, 0));
    assert_eq!(r.on_timer(), Some(IncreaseStage::FastRecovery));
}

#[test]
fn byte_counter_counts_partial_packets_and_increases_never_pass_the_line_rate() {
    let p = DcqcnParams::paper();
    let mut r = rp(&p, 40.0);
    assert_eq!(r.on_timer(), None, "no rate limiter before the first CNP");
    assert_eq!(r.on_bytes_sent(p.rp_byte_reset_bytes * 3), 0);
    r.on_cnp(0);
    assert_eq!(r.on_bytes_sent(p.rp_byte_reset_bytes - 1), 0);
    assert_eq!(r.on_bytes_sent(1), 1);
    assert_eq!(r.on_bytes_sent(3 * p.rp_byte_reset_bytes), 3);
    for _ in 0..1000 {
        r.on_timer();
        r.on_bytes_sent(p.rp_byte_reset_bytes);
    }
    assert!(r.rt_bps() <= 40.0 * G && r.rc_bps() <= 40.0 * G);
    assert!(close(r.rc_bps(), 40.0 * G));
}

#[test]
fn mlx5_target_clamp_options() {
    let mut p = DcqcnParams::mlx5_default();
    p.rp_rate_reduce_monitor_period_us = 0.0;
    p.rp_clamp_tgt_rate = false;
    p.rp_clamp_tgt_rate_ati = true;
    // Two CNPs with no increase between: R_T keeps the pre-cut rate.
    let mut r = rp(&p, 100.0);
    r.on_cnp(0);
    r.on_cnp(1);
    assert!(close(r.rt_bps(), 100.0 * G));
    // A byte-counter increase before the CNP: R_T ← R_C.
    r.on_bytes_sent(p.rp_byte_reset_bytes);
    let rc = r.rc_bps();
    r.on_cnp(2);
    assert!(close(r.rt_bps(), rc));
    // A timer increase clamps only with `rp_clamp_tgt_rate_ati`.
    for ati in [true, false] {
        p.rp_clamp_tgt_rate_ati = ati;
        let mut r = rp(&p, 100.0);
        r.on_cnp(0);
        r.on_timer();
        let rc = r.rc_bps();
        r.on_cnp(1);
        if ati {
            assert!(close(r.rt_bps(), rc));
        } else {
            assert!(close(r.rt_bps(), 100.0 * G));
        }
    }
}

#[test]
fn first_cnp_rate_min_decrease_factor_and_min_rate_bound_the_cut() {
    let mut p = DcqcnParams::mlx5_default();
    p.rp_rate_reduce_monitor_period_us = 0.0;
    p.rp_rate_to_set_on_first_cnp_mbps = 1000.0;
    let mut r = rp(&p, 100.0);
    r.on_cnp(0);
    assert!(close(r.rc_bps(), 1.0 * G));
    assert!(close(r.rt_bps(), 100.0 * G));

    // gd = 10 makes the cut alpha itself (all of R_C at alpha = 1); rp_min_dec_fac keeps
    // a share.
    p.rp_rate_to_set_on_first_cnp_mbps = 0.0;
    p.rp_gd = 10;
    for keep in [50.0, 80.0] {
        p.rp_min_dec_fac_pct = keep;
        let mut r = rp(&p, 100.0);
        r.on_cnp(0);
        assert!(close(r.rc_bps(), keep / 100.0 * 100.0 * G), "keep {keep} %");
    }
    let mut r = rp(&p, 100.0);
    for t in 0..200 {
        r.on_cnp(t);
    }
    assert!(close(r.rc_bps(), p.rp_min_rate_mbps * 1e6));
}

#[test]
fn alpha_decays_once_per_period_without_cnps() {
    let p = DcqcnParams::paper();
    let mut r = rp(&p, 40.0);
    assert!(
        close(r.alpha(123_456_789), p.rp_initial_alpha),
        "frozen before a CNP"
    );
    r.on_cnp(0);
    let k_ps = (p.rp_dce_tcp_rtt_us * 1e6) as u64;
    let a1 = r.alpha(0);
    assert!(close(r.alpha(k_ps - 1), a1));
    assert!(close(r.alpha(k_ps), a1 * (1.0 - p.g)));
    assert!(close(r.alpha(10 * k_ps + 5), a1 * (1.0 - p.g).powi(10)));
    // Then a CNP: alpha ← (1 − g)·alpha + g.
    let before = r.alpha(10 * k_ps + 5);
    r.on_cnp(10 * k_ps + 5);
    assert!(close(r.alpha(10 * k_ps + 5), (1.0 - p.g) * before + p.g));
}

#[test]
fn monitor_period_defers_and_merges_cuts() {
    let p = DcqcnParams::mlx5_default(); // 4 µs
    let period = 4_000_000;
    let mut r = rp(&p, 100.0);
    assert_eq!(r.on_cnp(0), CnpOutcome::CutNow);
    let rc = r.rc_bps();
    assert_eq!(r.on_cnp(1_000_000), CnpOutcome::CutAt(period));
    assert_eq!(r.on_cnp(2_000_000), CnpOutcome::AlreadyPending);
    assert!(
        close(r.rc_bps(), rc),
        "nothing happens before the period ends"
    );
    r.apply_pending_cut(period);
    assert!(r.rc_bps() < rc);
    assert_eq!(r.cuts(), 2);
    assert_eq!(r.cnps(), 3);
}

#[test]
fn red_marking_profile_matches_the_paper() {
    let (kmin, kmax, pmax) = (5_000.0, 200_000.0, 0.01);
    assert_eq!(red_probability(0.0, kmin, kmax, pmax), 0.0);
    assert_eq!(red_probability(kmin, kmin, kmax, pmax), 0.0);
    assert!(close(red_probability(kmax, kmin, kmax, pmax), pmax));
    assert!(close(
        red_probability((kmin + kmax) / 2.0, kmin, kmax, pmax),
        pmax / 2.0
    ));
    assert_eq!(red_probability(kmax + 1.0, kmin, kmax, pmax), 1.0);
    // K_min = K_max is a step, never a division by zero.
    assert_eq!(red_probability(10.0, 10.0, 10.0, 0.5), 0.0);
    assert_eq!(red_probability(11.0, 10.0, 10.0, 0.5), 1.0);
}

#[test]
fn congestion_point_marks_pauses_and_drops() {
    let pfc = PfcThresholds {
        xoff_bytes: 3000,
        xon_bytes: 1000,
    };
    let mut cp = CongestionPoint::new(CongestionPointParams {
        buffer_bytes: 10_000,
        kmin_bytes: 1000,
        kmax_bytes: 2000,
        pmax: 0.5,
        pfc: Some(pfc),
    });
    // Below K_min: never marked, the draw is not even consulted.
    let (a, s) = cp.enqueue(1000, 0, || panic!("no draw needed"));
    assert_eq!((a, s), (Admission::Queued { ce: false }, None));
    // At q = 1000 = K_min still 0; at q = 2000 = K_max, p = 0.5.
    cp.enqueue(1000, 1, || 0.0);
    assert!(matches!(
        cp.enqueue(1000, 2, || 0.4).0,
        Admission::Queued { ce: true }
    ));
    assert!(cp.paused_upstream(), "q = 3000 reached XOFF");
    assert_eq!(cp.pause_events, 1);
    // Lossless: beyond the buffer the packet is still taken, and counted as an overrun.
    for t in 3..13 {
        let (a, _) = cp.enqueue(1000, t, || 0.0);
        assert_eq!(a, Admission::Queued { ce: true });
    }
    assert_eq!(cp.drops, 0);
    assert!(cp.headroom_overruns > 0);
    let mut resumed_at = None;
    for t in 0..13 {
        if cp.dequeue(1000, 100 + t) == Some(PfcSignal::Resume) {
            resumed_at = Some(cp.queue_bytes());
        }
    }
    assert_eq!(resumed_at, Some(1000), "RESUME at XON");
    assert_eq!(cp.paused_ps_at(1_000), 100 + 11 - 2);

    // Without PFC a full buffer drops.
    let mut lossy = CongestionPoint::new(CongestionPointParams {
        buffer_bytes: 2000,
        kmin_bytes: 1000,
        kmax_bytes: 2000,
        pmax: 0.5,
        pfc: None,
    });
    lossy.enqueue(1000, 0, || 0.9);
    lossy.enqueue(1000, 0, || 0.9);
    assert_eq!(lossy.enqueue(1000, 0, || 0.9).0, Admission::Dropped);
    assert_eq!(lossy.drops, 1);
}

#[test]
fn notification_point_sends_at_most_one_cnp_per_interval() {
    let mut np = NotificationPoint::new(2, 50_000_000);
    assert!(!np.on_packet(0, false, 0), "no CE, no CNP");
    assert!(np.on_packet(0, true, 10));
    assert!(!np.on_packet(0, true, 10 + 49_999_999));
    assert!(np.on_packet(1, true, 20), "per flow");
    assert!(np.on_packet(0, true, 10 + 50_000_000));
    assert!(!np.on_packet(7, true, 0), "unknown flow");
}

fn rejected(s: &Scenario, name: &str) {
    match simulate_packets(s, &Limits::default()) {
        Err(SimError::InvalidParameter(e)) => {
            assert_eq!(e.field, name, "reason: {}", e.reason);
            assert!(!e.reason.is_empty());
        }
        other => panic!("{name}: expected rejection, got {other:?}"),
    }
    assert!(simulate_fluid(s, &Limits::default()).is_err());
}

#[test]
fn invalid_parameters_are_rejected_by_name() {
    let base = named_scenario("two-flow").unwrap();
    type Edit = fn(&mut Scenario);
    let cases: Vec<(&str, Edit)> = vec![
        ("bottleneck_gbps", |s| s.bottleneck_gbps = f64::NAN),
        ("bottleneck_gbps", |s| s.bottleneck_gbps = 0.0),
        ("bottleneck_gbps", |s| s.bottleneck_gbps = -40.0),
        ("flows[1].link_gbps", |s| s.flows[1].link_gbps = -1.0),
        ("flows[0].link_gbps", |s| s.flows[0].link_gbps = 0.0),
        ("flows[0].link_gbps", |s| {
            s.flows[0].link_gbps = f64::INFINITY
        }),
        ("flows[0].start_us", |s| s.flows[0].start_us = f64::NAN),
        ("flows[0].size_bytes", |s| s.flows[0].size_bytes = Some(0)),
        ("flows", |s| s.flows.clear()),
        ("cp.kmin_bytes", |s| s.cp.kmin_bytes = s.cp.kmax_bytes + 1),
        ("cp.pmax", |s| s.cp.pmax = 0.0),
        ("cp.pmax", |s| s.cp.pmax = 1.5),
        ("cp.pmax", |s| s.cp.pmax = f64::NAN),
        ("cp.buffer_bytes", |s| s.cp.buffer_bytes = 0),
        ("cp.pfc.xon_bytes", |s| {
            if let Some(p) = s.cp.pfc.as_mut() {
                p.xon_bytes = p.xoff_bytes;
            }
        }),
        ("duration_us", |s| s.duration_us = MAX_DURATION_US * 2.0),
        ("duration_us", |s| s.duration_us = 0.0),
        ("sample_interval_us", |s| s.sample_interval_us = 0.001),
        ("mtu_bytes", |s| s.mtu_bytes = 64),
        ("prop_delay_us", |s| s.prop_delay_us = -1.0),
        ("fluid_step_us", |s| s.fluid_step_us = 0.0),
        ("fluid_step_us", |s| s.fluid_step_us = 1e-9),
        ("fluid_step_us", |s| {
            s.prop_delay_us = 5_000.0;
            s.fluid_step_us = 0.01;
        }),
        ("sample_interval_us", |s| {
            s.duration_us = 1_000_000.0;
            s.sample_interval_us = 5.0;
            s.flows = vec![s.flows[0].clone(); 100];
        }),
        ("dcqcn.g", |s| s.dcqcn.g = 0.0),
        ("dcqcn.g", |s| s.dcqcn.g = 1.5),
        ("dcqcn.rp_threshold", |s| s.dcqcn.rp_threshold = 0),
        ("dcqcn.rp_time_reset_us", |s| {
            s.dcqcn.rp_time_reset_us = f64::NAN
        }),
        ("dcqcn.rp_byte_reset_bytes", |s| {
            s.dcqcn.rp_byte_reset_bytes = 0
        }),
        ("dcqcn.rp_ai_rate_mbps", |s| s.dcqcn.rp_ai_rate_mbps = -5.0),
        ("dcqcn.rp_min_rate_mbps", |s| s.dcqcn.rp_min_rate_mbps = 0.0),
        ("dcqcn.rp_min_rate_mbps", |s| {
            s.dcqcn.rp_min_rate_mbps = 50_000.0
        }),
        ("dcqcn.rp_min_dec_fac_pct", |s| {
            s.dcqcn.rp_min_dec_fac_pct = 0.0
        }),
        ("dcqcn.rp_gd", |s| s.dcqcn.rp_gd = 9),
        ("dcqcn.rp_initial_alpha", |s| s.dcqcn.rp_initial_alpha = 1.1),
        ("dcqcn.np_min_time_between_cnps_us", |s| {
            s.dcqcn.np_min_time_between_cnps_us = -1.0
        }),
        ("dcqcn.np_cnp_dscp", |s| s.dcqcn.np_cnp_dscp = 64),
        ("dcqcn.np_cnp_prio", |s| s.dcqcn.np_cnp_prio = 8),
    ];
    for (name, edit) in cases {
        let mut s = base.clone();
        edit(&mut s);
        rejected(&s, name);
    }
    for max_events in [0, MAX_EVENTS_CAP + 1] {
        let err = simulate_packets(&base, &Limits { max_events }).unwrap_err();
        assert!(matches!(err, SimError::InvalidParameter(ref e) if e.field == "limits.max_events"));
    }
    // Display names the parameter.
    let mut s = base.clone();
    s.cp.kmin_bytes = s.cp.kmax_bytes + 1;
    let msg = s.validate().unwrap_err().to_string();
    assert!(
        msg.contains("cp.kmin_bytes") && msg.contains("Kmax"),
        "{msg}"
    );
}

#[test]
fn both_presets_are_valid() {
    DcqcnParams::paper().validate("").unwrap();
    DcqcnParams::mlx5_default().validate("").unwrap();
    // The paper's cut α/2 is rp_gd = 11.
    assert!(close(DcqcnParams::paper().cut_fraction(1.0), 0.5));
    for name in scenario_names() {
        named_scenario(name).unwrap().validate().unwrap();
    }
}
