//! What the fabric lab's page shows of a run: its headline figures, the series its charts
//! draw (the rate every flow together delivered, the hottest queue), the links that worked
//! hardest, and the CSV of both sides' series headed by what was run. The page draws these;
//! every number comes from a [`Report`].

use std::fmt::Write as _;

use super::lab::LabCase;
use super::outputs::{CollectiveReport, LinkReport, Report, Stop};
use super::scenario::Scenario;
use super::topology::TopologySpec;
use super::traffic::TrafficSpec;
use super::SimError;
use crate::collective::{
    estimate, Algorithm, Cluster, Collective, CollectiveRequest, GpuModel, Machines, NicModel,
    Protocol,
};

/// What a learner may change on both sides of a case: `None` keeps the case's own value.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LabParams {
    /// Seeds ECMP's hashes, RED's draws and the permutation on both sides.
    pub seed: Option<u64>,
    /// The longest simulated time on both sides, µs (finite traffic may end sooner).
    pub duration_us: Option<f64>,
}

impl LabCase {
    /// Both sides' scenarios with `params` applied; the scenario's own checks run later
    /// ([`super::check_browser_budget`] validates before it estimates).
    pub fn scenarios_with(&self, params: &LabParams) -> Result<[Scenario; 2], SimError> {
        let mut sides = self.scenarios()?;
        for s in &mut sides {
            if let Some(seed) = params.seed {
                s.seed = seed;
            }
            if let Some(d) = params.duration_us {
                s.duration_us = d;
                // A shorter run keeps its sample interval only while it fits.
                if s.sample_interval_us > d && d > 0.0 {
                    s.sample_interval_us = d;
                }
            }
        }
        Ok(sides)
    }
}

/// A run's figures at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// Why it stopped, in words.
    pub stop: String,
    pub end_us: f64,
    pub events: u64,
    /// Bytes every flow received × 8 / the run's simulated time, Gb/s.
    pub delivered_gbps: Option<f64>,
    /// The first collective's bus bandwidth, if it finished.
    pub busbw_gbs: Option<f64>,
    pub pause_frames: u64,
    /// PAUSE time summed over every port.
    pub paused_us: f64,
    pub ecn_marks: u64,
    pub cnps: u64,
    pub drops: u64,
    /// The deepest any egress queue got, bytes.
    pub max_queue_bytes: u64,
}

/// Why a run stopped, in words.
pub fn stop_words(stop: &Stop) -> String {
    match stop {
        Stop::Finished => "every flow delivered".into(),
        Stop::Duration => "ran its whole duration".into(),
        Stop::EventCap { max_events } => format!("stopped at the cap of {max_events} events"),
        Stop::Cancelled => "cancelled".into(),
        Stop::Deadlock { at_us, cycle } => {
            format!("deadlocked at {at_us:.0} µs ({})", cycle.join(" → "))
        }
    }
}

/// The run's headline figures.
pub fn headline(r: &Report) -> Headline {
    Headline {
        stop: stop_words(&r.stop),
        end_us: r.end_us,
        events: r.events,
        delivered_gbps: (r.end_us > 0.0)
            .then(|| r.totals.received_bytes as f64 * 8.0 / (r.end_us * 1e3)),
        busbw_gbs: r.collectives.first().and_then(|c| c.busbw_gbs),
        pause_frames: r.totals.pause_frames,
        paused_us: r.totals.paused_us,
        ecn_marks: r.totals.ecn_marks,
        cnps: r.totals.cnps_sent,
        drops: r.totals.drops,
        max_queue_bytes: r.links.iter().map(|l| l.max_queue_bytes).max().unwrap_or(0),
    }
}

/// The rate every flow together delivered in each sample interval, Gb/s (empty when the
/// report left the per-flow series out).
pub fn delivered_series(r: &Report) -> Vec<f64> {
    (0..r.time_us.len())
        .map(|i| {
            r.flows
                .iter()
                .filter_map(|f| f.rate_gbps.get(i))
                .map(|g| f64::from(*g))
                .sum()
        })
        .collect()
}

/// Collective `c`'s progress as (µs, share of its bytes delivered) points: one per sample,
/// then its finish, which falls between samples.
pub fn collective_progress(r: &Report, c: &CollectiveReport) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = r
        .time_us
        .iter()
        .zip(&c.delivered)
        .map(|(t, d)| (*t, f64::from(*d)))
        .take_while(|(t, _)| c.time_us.is_none_or(|end| *t < end))
        .collect();
    if let Some(end) = c.time_us {
        points.push((end, 1.0));
    }
    points
}

/// What NCCL's cost model ([`crate::collective::estimate`]) says of a run's collective:
/// its time, split into NCCL's per-step latency and the bytes at its bandwidth. The chart
/// draws the bandwidth term as a line from nothing at 0 to everything at `bandwidth_us`:
/// the simulator has the wire's and the switches' delays but none of NCCL's software
/// start-up per step, so that term is what a run on an idle fabric should match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcclLine {
    pub algorithm: Algorithm,
    /// NCCL's whole estimate, µs.
    pub time_us: f64,
    /// Its latency term, µs.
    pub latency_us: f64,
    /// Its bandwidth term (`time_us` − `latency_us`), µs.
    pub bandwidth_us: f64,
}

/// NCCL's estimate for collective `c` of a GPU fabric's run of `s`, with the Simple
/// protocol and the traffic's own channels; `None` for other topologies and for the
/// hierarchical all-reduce, which NCCL does not run as one algorithm. The servers are taken
/// as DGX H100 (what the lab's fabrics model: 18 NVLinks per GPU, compute capability 9.0),
/// with the scenario's NVLink and NIC speeds.
pub fn nccl_line(s: &Scenario, c: &CollectiveReport) -> Option<NcclLine> {
    let TopologySpec::Fabric {
        fabric,
        nvlink_gbps,
        ..
    } = &s.topology
    else {
        return None;
    };
    let collective = s.traffic.get(c.traffic as usize)?;
    let (algorithm, bytes, channels) = match *collective {
        TrafficSpec::RingAllReduce {
            bytes_per_gpu,
            channels,
            ..
        } => (Algorithm::Ring, bytes_per_gpu, channels),
        TrafficSpec::TreeAllReduce {
            bytes_per_gpu,
            channels,
            ..
        } => (Algorithm::Tree, bytes_per_gpu, channels),
        _ => return None,
    };
    let machines = Machines {
        gpu: GpuModel::H100,
        gpus_per_node: fabric.gpus_per_node,
        nodes: fabric.gpus / fabric.gpus_per_node.max(1),
        nic: NicModel::Roce400,
        nics_per_node: fabric.nics_per_node,
        gdr: true,
        sharp: false,
    };
    let cluster = Cluster {
        intra_gbs: nvlink_gbps / 8.0,
        nic_gbps: fabric.nic_port_gbps * f64::from(fabric.nic_ports),
        channels: Some(channels),
        ..machines.cluster().ok()?
    };
    let report = estimate(&CollectiveRequest {
        op: Collective::AllReduce,
        bytes: bytes as f64,
        cluster,
        algorithms: Some(vec![algorithm]),
        protocols: Some(vec![Protocol::Simple]),
    })
    .ok()?;
    let e = report
        .estimates
        .iter()
        .find(|e| e.algorithm == algorithm && e.protocol == Protocol::Simple)?;
    Some(NcclLine {
        algorithm,
        time_us: e.time_us,
        latency_us: e.latency_us,
        bandwidth_us: e.time_us - e.latency_us,
    })
}

/// How many senders PFC held in each sample interval: each port counts the share of the
/// interval it was paused (empty in a run without PFC).
pub fn paused_series(r: &Report) -> Vec<f64> {
    if r.links.iter().all(|l| l.paused_share.is_empty()) {
        return Vec::new();
    }
    (0..r.time_us.len())
        .map(|i| {
            r.links
                .iter()
                .filter_map(|l| l.paused_share.get(i))
                .map(|x| f64::from(*x))
                .sum()
        })
        .collect()
}

/// The link whose queue got deepest (the first of equals), if any queued at all.
pub fn hottest_queue(r: &Report) -> Option<usize> {
    r.links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.max_queue_bytes > 0)
        .max_by(|(i, a), (j, b)| a.max_queue_bytes.cmp(&b.max_queue_bytes).then(j.cmp(i)))
        .map(|(i, _)| i)
}

/// The last sample taken at or before `t_us` (the first one for an earlier time), if the
/// run took any.
pub fn sample_at(r: &Report, t_us: f64) -> Option<usize> {
    let after = r.time_us.partition_point(|&t| t <= t_us);
    (!r.time_us.is_empty()).then(|| after.saturating_sub(1))
}

/// The share of its rate a link used over the whole run.
pub fn mean_utilisation(l: &LinkReport, end_us: f64) -> Option<f64> {
    let capacity = l.gbps * 1e9 / 8.0 * end_us * 1e-6;
    (capacity > 0.0).then(|| l.tx_bytes as f64 / capacity)
}

/// The `n` links that worked hardest: paused longest, then queued deepest, then carried
/// most; links that did none of these are left out.
pub fn hottest_links(r: &Report, n: usize) -> Vec<usize> {
    let mut busy: Vec<usize> = (0..r.links.len())
        .filter(|&i| {
            let l = &r.links[i];
            l.paused_us > 0.0 || l.max_queue_bytes > 0 || l.tx_bytes > 0
        })
        .collect();
    busy.sort_by(|&i, &j| {
        let (a, b) = (&r.links[i], &r.links[j]);
        b.paused_us
            .total_cmp(&a.paused_us)
            .then(b.max_queue_bytes.cmp(&a.max_queue_bytes))
            .then(b.tx_bytes.cmp(&a.tx_bytes))
            .then(i.cmp(&j))
    });
    busy.truncate(n);
    busy
}

/// Both sides' series as CSV: `#` lines naming the case, its claim and each side's
/// scenario and parameters, then one row per side and sample: the delivered rate and the
/// hottest queue (named in the header lines).
pub fn lab_csv(case: &LabCase, scenarios: &[Scenario; 2], runs: [&Report; 2]) -> String {
    let mut out = format!("# rdma-lab fabric lab: {} ({})\n", case.title, case.id);
    let _ = writeln!(out, "# claim: {}", case.claim);
    for (i, (s, r)) in scenarios.iter().zip(runs).enumerate() {
        let side = side_letter(i);
        let hot = hottest_queue(r).map_or_else(
            || "none queued".to_string(),
            |l| format!("{} → {}", r.links[l].from, r.links[l].to),
        );
        let _ = writeln!(
            out,
            "# side {side}: {}; scenario {:?}; seed {}; duration_us {}; sample_interval_us {}; \
             mtu_bytes {}; {}; hottest queue {hot}",
            case.sides[i].label,
            s.name,
            s.seed,
            s.duration_us,
            s.sample_interval_us,
            s.mtu_bytes,
            stop_words(&r.stop)
        );
        if let Some(line) = r.collectives.first().and_then(|c| nccl_line(s, c)) {
            let _ = writeln!(
                out,
                "# side {side}: NCCL's model ({:?}, Simple) {:.1} us = {:.1} us latency + \
                 {:.1} us at its bandwidth",
                line.algorithm, line.time_us, line.latency_us, line.bandwidth_us
            );
        }
    }
    out.push_str(
        "side,time_us,delivered_gbps,hottest_queue_bytes,senders_paused,collective_delivered_share\n",
    );
    let cell = |v: Option<String>| v.unwrap_or_default();
    for (i, r) in runs.iter().enumerate() {
        let rates = delivered_series(r);
        let paused = paused_series(r);
        let queue = hottest_queue(r).map(|l| &r.links[l].queue_bytes);
        let progress = r.collectives.first().map(|c| &c.delivered);
        for (k, t) in r.time_us.iter().enumerate() {
            let rate = cell(rates.get(k).map(|g| format!("{g:.3}")));
            let q = cell(queue.and_then(|q| q.get(k)).map(|b| format!("{b:.0}")));
            let held = cell(paused.get(k).map(|p| format!("{p:.3}")));
            let share = cell(progress.and_then(|d| d.get(k)).map(|d| format!("{d:.4}")));
            let _ = writeln!(out, "{},{t},{rate},{q},{held},{share}", side_letter(i));
        }
    }
    out
}

/// `A` for the side the claim warns about, `B` for the one it recommends.
pub fn side_letter(i: usize) -> char {
    if i == 0 {
        'A'
    } else {
        'B'
    }
}

#[cfg(test)]
mod tests {
    use super::super::{lab_case, simulate, Limits};
    use super::*;

    fn ecmp_runs() -> ([Scenario; 2], [Report; 2]) {
        let case = lab_case("ecmp-collision").unwrap();
        let params = LabParams {
            seed: None,
            duration_us: Some(400.0),
        };
        let sides = case.scenarios_with(&params).unwrap();
        let runs = [&sides[0], &sides[1]].map(|s| simulate(s, &Limits::default()).unwrap());
        (sides, runs)
    }

    /// The rail-alignment case's collective climbs to all of its bytes on both sides, and
    /// NCCL's line, the same on both (the model does not see the fabric's wiring), ends
    /// near the rail-optimized run and before the top-of-rack one.
    #[test]
    fn a_collectives_progress_climbs_to_one_beside_nccls_line() {
        let case = lab_case("rail-alignment").unwrap();
        let sides = case.scenarios().unwrap();
        let runs = [&sides[0], &sides[1]].map(|s| simulate(s, &Limits::default()).unwrap());
        let mut lines = Vec::new();
        for (s, r) in sides.iter().zip(&runs) {
            let c = &r.collectives[0];
            assert_eq!(c.delivered.len(), r.time_us.len());
            assert!(
                c.delivered.windows(2).all(|w| w[0] <= w[1]),
                "{:?}",
                c.delivered
            );
            let progress = collective_progress(r, c);
            assert_eq!(
                progress.last(),
                Some(&(c.time_us.unwrap(), 1.0)),
                "{}",
                s.name
            );
            assert!(progress
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
            let line = nccl_line(s, c).expect("a ring all-reduce on a GPU fabric");
            assert_eq!(line.algorithm, Algorithm::Ring);
            assert!(line.latency_us > 0.0 && line.latency_us < line.time_us);
            eprintln!(
                "{}: {:.0} µs here, NCCL {:.0} µs ({:.0} µs latency)",
                s.name,
                c.time_us.unwrap(),
                line.time_us,
                line.latency_us
            );
            lines.push((line, c.time_us.unwrap()));
        }
        assert_eq!(lines[0].0, lines[1].0);
        let (line, rail) = lines[0];
        let tor = lines[1].1;
        // Bound by NVLink (18 × 20.6 GB/s per GPU), which both the simulator and NCCL's
        // model read from the scenario; the spines' collisions cost the top-of-rack run.
        let near = rail / line.bandwidth_us;
        assert!((near - 1.0).abs() < 0.15, "{rail} µs vs {line:?}");
        assert!(tor > 2.0 * line.bandwidth_us, "{tor} µs vs {line:?}");
        let csv = lab_csv(case, &sides, [&runs[0], &runs[1]]);
        assert!(
            csv.contains("# side A: NCCL's model (Ring, Simple) "),
            "{csv:.600}"
        );
        let last_of_a = csv.lines().rfind(|l| l.starts_with("A,")).unwrap();
        let share: f64 = last_of_a.rsplit(',').next().unwrap().parse().unwrap();
        assert!(share > 0.5 && share <= 1.0, "{last_of_a}");
        // A dumbbell has no servers for NCCL's model to read.
        let dumbbell = super::super::named_scenario("two-flow").unwrap();
        assert_eq!(nccl_line(&dumbbell, &runs[0].collectives[0]), None);
    }

    #[test]
    fn parameters_reach_both_sides_and_leave_the_rest() {
        let case = lab_case("deadlock").unwrap();
        let own = case.scenarios().unwrap();
        let same = case.scenarios_with(&LabParams::default()).unwrap();
        assert_eq!(own, same);
        let p = LabParams {
            seed: Some(42),
            duration_us: Some(0.5),
        };
        let changed = case.scenarios_with(&p).unwrap();
        for s in &changed {
            assert_eq!(
                (s.seed, s.duration_us, s.sample_interval_us),
                (42, 0.5, 0.5)
            );
        }
        assert_eq!(changed[0].traffic, own[0].traffic);
    }

    #[test]
    fn the_headline_and_series_add_up_to_the_report() {
        let (sides, runs) = ecmp_runs();
        for r in &runs {
            let h = headline(r);
            assert_eq!(h.stop, stop_words(&r.stop));
            assert_eq!(h.events, r.events);
            let g = h.delivered_gbps.unwrap();
            assert!(g > 0.0 && g <= 8.0 * 400.0, "{g}");
            let series = delivered_series(r);
            assert_eq!(series.len(), r.time_us.len());
            assert!(series.iter().any(|&x| x > 0.0));
            let hot = hottest_links(r, 5);
            assert!(!hot.is_empty() && hot.len() <= 5);
            let first = &r.links[hot[0]];
            assert!(r.links.iter().all(|l| l.paused_us <= first.paused_us));
            let u = mean_utilisation(first, r.end_us).unwrap();
            assert!((0.0..=1.01).contains(&u), "{u}");
            if let Some(q) = hottest_queue(r) {
                assert_eq!(h.max_queue_bytes, r.links[q].max_queue_bytes);
            }
        }
        let csv = lab_csv(
            lab_case("ecmp-collision").unwrap(),
            &sides,
            [&runs[0], &runs[1]],
        );
        let mut lines = csv.lines();
        assert!(lines
            .next()
            .unwrap()
            .starts_with("# rdma-lab fabric lab: ECMP collision"));
        assert!(csv.contains("# side A: ECMP, 1 QP per connection; scenario"));
        assert!(csv.contains("seed 7; duration_us 400"));
        let rows = csv.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(rows, 1 + runs[0].time_us.len() + runs[1].time_us.len());
        assert!(csv.contains("\nB,"));
    }

    #[test]
    fn a_time_finds_its_sample() {
        let (_, runs) = ecmp_runs();
        let r = &runs[0];
        let (first, last) = (r.time_us[0], *r.time_us.last().unwrap());
        assert_eq!(sample_at(r, first - 1.0), Some(0));
        assert_eq!(sample_at(r, first), Some(0));
        assert_eq!(sample_at(r, last + 1e6), Some(r.time_us.len() - 1));
        let mid = r.time_us.len() / 2;
        assert_eq!(sample_at(r, r.time_us[mid] + 1e-3), Some(mid));
    }

    #[test]
    fn stops_read_as_words() {
        let d = Stop::Deadlock {
            at_us: 812.4,
            cycle: vec!["s0".into(), "s1".into()],
        };
        assert_eq!(stop_words(&d), "deadlocked at 812 µs (s0 → s1)");
        assert_eq!(stop_words(&Stop::Cancelled), "cancelled");
        assert_eq!(side_letter(0), 'A');
        assert_eq!(side_letter(1), 'B');
    }
}
