//! The run summary says what the charts show: each flow's first cut where its rate first
//! falls, utilization while flows are on the link, completion per flow; and the CSV export
//! names its scenario, model and parameters ahead of the unchanged table.

use engine::dcqcn::*;

fn fluid(s: &Scenario) -> Series {
    simulate_fluid(s, &Limits::default()).expect("valid scenario")
}

fn packet(s: &Scenario) -> Series {
    simulate_packets(s, &Limits::default()).expect("valid scenario")
}

fn every_scenario() -> impl Iterator<Item = Scenario> {
    scenario_names()
        .iter()
        .map(|n| named_scenario(n).expect("named"))
}

/// The instant of the first sample at which flow `i`'s R_C differs from the rate it
/// started at: before its first cut a flow sends at that rate exactly (the increase terms
/// are nil at the cap), so this is the chart's first visible drop, found without the
/// engine's definition.
fn first_departure(series: &Series, i: usize) -> Option<(f64, f64)> {
    let start_rate = series.flow_start_gbps[i];
    series
        .time_us
        .iter()
        .zip(&series.flows[i].rc_gbps)
        .filter(|(&t, _)| t > series.flow_start_us[i])
        .find(|(_, &rc)| rc != start_rate)
        .map(|(&t, &rc)| (t, rc))
}

#[test]
fn a_fluid_flow_that_received_cnps_has_a_first_cut_where_its_rate_first_drops() {
    for s in every_scenario() {
        let series = fluid(&s);
        let summary = series.summary();
        assert_eq!(summary.first_cut.len(), s.flows.len());
        for (i, cut) in summary.first_cut.iter().enumerate() {
            let cnps = series.flows[i].cnps.last().copied().unwrap_or(0);
            let Some(cut) = cut else {
                assert_eq!(cnps, 0, "{} flow {i}: {cnps} CNPs and no cut", s.name);
                continue;
            };
            let (t, rc) = first_departure(&series, i).expect("a cut flow left its start rate");
            assert_eq!(cut.time_us, t, "{} flow {i}", s.name);
            assert_eq!(cut.rate_after_gbps, rc, "{} flow {i}", s.name);
            assert_eq!(cut.rate_before_gbps, series.flow_start_gbps[i]);
            assert!(
                rc < cut.rate_before_gbps,
                "{} flow {i}: a cut lowers",
                s.name
            );
            // The CNP count is the integral's floor, so the cut shows no later than the
            // first counted CNP.
            let first_cnp = series
                .time_us
                .iter()
                .zip(&series.flows[i].cnps)
                .find(|(_, &c)| c > 0)
                .map(|(&t, _)| t);
            if let Some(first_cnp) = first_cnp {
                assert!(cut.time_us <= first_cnp, "{} flow {i}", s.name);
            }
        }
    }
}

#[test]
fn two_flow_fluid_reports_the_cut_that_its_90_cnps_caused() {
    let s = named_scenario("two-flow").expect("named");
    let series = fluid(&s);
    let summary = series.summary();
    assert!(summary.total_cnps > 0);
    let cut = summary.first_cut[0].clone().expect("flow 0 is cut");
    // Flow 0 runs alone at line rate until flow 1 joins; the cut comes after that.
    assert!(cut.time_us > s.flows[1].start_us, "{cut:?}");
    assert!(cut.rate_after_gbps < 0.9 * cut.rate_before_gbps, "{cut:?}");
}

#[test]
fn a_flow_that_finishes_uncut_has_no_first_cut() {
    // One finite flow at the bottleneck's rate: no queue, no marks; its rate drops to 0
    // when it has sent everything, which is not a cut.
    let mut s = named_scenario("incast-16").expect("named");
    s.flows.truncate(1);
    s.duration_us = 1_000.0;
    s.flows[0].size_bytes = Some(1 << 20);
    for series in [fluid(&s), packet(&s)] {
        let summary = series.summary();
        assert_eq!(summary.total_cnps, 0, "{:?}", series.model);
        assert!(summary.completed_at_us[0].is_some(), "{:?}", series.model);
        assert_eq!(summary.first_cut, vec![None], "{:?}", series.model);
    }
}

#[test]
fn the_packet_models_first_cut_is_the_one_it_recorded() {
    for s in every_scenario() {
        let mut s = s;
        s.duration_us = s.duration_us.min(5_000.0);
        let series = packet(&s);
        assert_eq!(series.summary().first_cut, series.first_cut, "{}", s.name);
    }
}

/// Bits delivered over the run / what the bottleneck carries from the first start to the
/// last completion, straight from the series.
fn utilization_while_active(series: &Series) -> f64 {
    let delivered_gbit_us: f64 = series
        .flows
        .iter()
        .flat_map(|f| f.goodput_gbps.iter())
        .map(|g| g * series.sample_interval_us)
        .sum();
    let first_start = series
        .flow_start_us
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let last_completion = series
        .fct_us
        .iter()
        .zip(&series.flow_start_us)
        .map(|(fct, start)| start + fct.expect("every incast flow completes"))
        .fold(0.0, f64::max);
    delivered_gbit_us / (series.bottleneck_gbps * (last_completion - first_start))
}

#[test]
fn incast_utilization_counts_the_time_flows_are_active() {
    let s = named_scenario("incast-16").expect("named");
    for series in [fluid(&s), packet(&s)] {
        let summary = series.summary();
        let model = series.model;
        let expected = utilization_while_active(&series);
        assert!(
            (summary.active_utilization - expected).abs() < 1e-9,
            "{model:?}: {} vs {expected}",
            summary.active_utilization
        );
        let last = summary
            .completed_at_us
            .iter()
            .map(|c| c.expect("completes"))
            .fold(0.0, f64::max);
        assert_eq!(summary.active_from_us, 0.0);
        assert!((summary.active_to_us - last).abs() < 1e-9, "{model:?}");
        assert!(summary.active_to_us < s.duration_us, "{model:?}");
        // Idle time after the last completion only lowers the whole-run average.
        assert!(
            summary.active_utilization > summary.utilization,
            "{model:?}"
        );
        assert!(summary.active_utilization <= 1.0 + 1e-6, "{model:?}");
    }
    // The fluid model keeps the link full until the flows end: near 100 % while active.
    let f = fluid(&s).summary();
    assert!(f.active_utilization > 0.95, "{}", f.active_utilization);
}

#[test]
fn completion_instants_are_start_plus_fct() {
    let s = named_scenario("two-flow").expect("named");
    let mut s = s;
    s.flows[1].size_bytes = Some(1 << 20);
    let series = fluid(&s);
    let summary = series.summary();
    assert_eq!(summary.completed_at_us[0], None);
    let fct = summary.fct_us[1].expect("flow 1 completes");
    assert_eq!(summary.completed_at_us[1], Some(s.flows[1].start_us + fct));
    // Flow 0 never ends: the run is active to its end.
    assert_eq!(summary.active_to_us, series.end_us);
}

#[test]
fn the_csv_opens_with_comments_naming_the_run_then_the_unchanged_table() {
    for s in every_scenario() {
        let mut s = s;
        s.duration_us = s.duration_us.min(1_000.0);
        s.dcqcn.g = 0.125;
        for series in [fluid(&s), packet(&s)] {
            let csv = run_csv(&s, &series);
            let (comments, table): (Vec<&str>, Vec<&str>) =
                csv.lines().partition(|l| l.starts_with('#'));
            // Every comment comes before the table.
            assert!(csv.lines().take(comments.len()).all(|l| l.starts_with('#')));
            let mut rest = table.join("\n");
            rest.push('\n');
            assert_eq!(rest, series_to_csv(&series), "{}", s.name);
            assert!(table[0].starts_with("time_us,flow,"));
            assert!(comments.contains(&format!("# scenario: {}", s.name).as_str()));
            assert!(comments.contains(&format!("# model: {}", series.model.name()).as_str()));
            assert!(comments.contains(&"# dcqcn.g = 0.125"), "{comments:?}");
            assert!(comments
                .iter()
                .any(|c| c.starts_with("# bottleneck_gbps = ") && c.ends_with(" Gb/s")));
            for p in parameters(&s) {
                assert!(comments.contains(&format!("# {p}").as_str()), "{p}");
            }
        }
    }
}

#[test]
fn every_parameter_carries_the_unit_its_name_promises() {
    let s = named_scenario("two-flow").expect("named");
    let units = [
        ("_us", "µs"),
        ("_bytes", "bytes"),
        ("_gbps", "Gb/s"),
        ("_mbps", "Mb/s"),
        ("_pct", "%"),
    ];
    let list = parameters(&s);
    assert!(list.len() > 30, "{}", list.len());
    for p in list {
        // An endless flow's size is a word, not a number of bytes.
        let want = units
            .iter()
            .find(|(suffix, _)| p.name.ends_with(suffix) && p.value != "endless")
            .map_or("", |(_, unit)| unit);
        assert_eq!(p.unit, want, "{}", p.name);
    }
}
