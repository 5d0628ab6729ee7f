//! Invariants every flow scenario must satisfy, for several parameter sets.

use engine::flows::{
    build_scenario, link, scenario_ids, Category, LinkId, Scenario, ScenarioParams, Timing,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn param_sets() -> Vec<ScenarioParams> {
    let base = ScenarioParams::default();
    vec![
        base.clone(),
        ScenarioParams {
            message_bytes: 1 << 20,
            pcie: LinkId::PcieGen4X16,
            network: LinkId::Roce100g,
            nvlink: LinkId::Nvlink3,
            mtu: 1024,
            nodes: 2,
            ..base.clone()
        },
        ScenarioParams {
            message_bytes: 64,
            network: LinkId::Roce400g,
            nvlink: LinkId::Nvlink5,
            mtu: 256,
            nodes: 16,
            ..base.clone()
        },
    ]
}

/// Builds every scenario that accepts `p` (some refuse by design, e.g. InfiniBand for
/// ecn-cnp or a one-packet message for go-back-n).
fn all(p: &ScenarioParams) -> Vec<Scenario> {
    scenario_ids()
        .iter()
        .filter_map(|id| build_scenario(id, p).ok())
        .collect()
}

#[test]
fn every_scenario_builds_with_defaults_on_roce() {
    let p = ScenarioParams {
        network: LinkId::Roce200g,
        message_bytes: 64 * 1024,
        ..ScenarioParams::default()
    };
    for id in scenario_ids() {
        let p = if *id == "post-send-inline" {
            ScenarioParams {
                message_bytes: 64,
                ..p.clone()
            }
        } else {
            p.clone()
        };
        let s = build_scenario(id, &p).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(s.id, *id);
        assert!(!s.steps.is_empty(), "{id} has steps");
    }
}

#[test]
fn time_never_runs_backwards() {
    for p in param_sets() {
        for s in all(&p) {
            for w in s.steps.windows(2) {
                assert!(w[0].start_ns <= w[1].start_ns, "{}: unsorted", s.id);
            }
            for (i, step) in s.steps.iter().enumerate() {
                assert_eq!(step.index, i);
                assert!(step.start_ns >= 0.0 && step.duration_ns >= 0.0);
                assert!(step.duration_ns.is_finite());
                if let Some(dep) = step.after {
                    let d = &s.steps[dep];
                    assert!(dep != i);
                    assert!(
                        step.start_ns + 1e-9 >= d.end_ns(),
                        "{}: step {i} starts before step {dep} ends",
                        s.id
                    );
                }
            }
        }
    }
}

#[test]
fn every_step_names_existing_actors_and_a_topic() {
    let topics = [
        "/verbs",
        "/roce",
        "/gpudirect",
        "/nccl",
        "/dcqcn",
        "/lossless",
        "/qp",
        "/bandwidth",
        "/topology",
        "/troubleshooting",
    ];
    for p in param_sets() {
        for s in all(&p) {
            let mut ids: Vec<&str> = s.actors.iter().map(|a| a.id.as_str()).collect();
            ids.sort_unstable();
            let before = ids.len();
            ids.dedup();
            assert_eq!(before, ids.len(), "{}: duplicate actor ids", s.id);
            for a in &s.actors {
                assert!(a.layout.column < s.columns && a.layout.row < s.rows);
            }
            for step in &s.steps {
                for who in [&step.from, &step.to].into_iter().chain(step.via.iter()) {
                    assert!(s.actor(who).is_some(), "{}: unknown actor {who}", s.id);
                }
                assert!(topics.contains(&step.topic.as_str()), "{}", step.topic);
                assert!(!step.explanation.is_empty() && !step.title.is_empty());
            }
        }
    }
}

/// A count agrees with its noun: "1 TCP segment crosses", never "1 TCP segment(s)" (UX
/// check 2026-12). The 64-byte set sends one packet and one segment.
#[test]
fn step_titles_count_in_words_not_with_a_plural_in_brackets() {
    for p in param_sets() {
        for s in all(&p) {
            for step in &s.steps {
                assert!(!step.title.contains("(s)"), "{}: {}", s.id, step.title);
                assert!(
                    !step.title.starts_with("1 ") || !step.title.contains("s cross"),
                    "{}: {}",
                    s.id,
                    step.title
                );
            }
        }
    }
}

/// Recomputes each step's duration from its timing model and the link table.
#[test]
fn durations_match_the_link_model() {
    for p in param_sets() {
        for s in all(&p) {
            for step in &s.steps {
                let expected = match &step.timing {
                    Timing::Fixed { ns, .. } => *ns,
                    Timing::Transfer {
                        link: id,
                        latency_ns,
                        gbps,
                        bytes,
                    } => {
                        let l = link(*id);
                        assert_eq!(*latency_ns, l.latency_ns);
                        assert_eq!(*gbps, l.gbps);
                        assert_eq!(step.link, Some(*id));
                        l.latency_ns + *bytes as f64 * 8.0 / l.gbps
                    }
                    Timing::Fabric {
                        link: id,
                        bytes,
                        cables,
                        switches,
                        latency_ns,
                        switch_ns,
                        gbps,
                    } => {
                        let l = link(*id);
                        assert_eq!(*latency_ns, l.latency_ns);
                        assert_eq!(*gbps, l.gbps);
                        assert!(*switch_ns > 0.0);
                        f64::from(*cables) * l.latency_ns
                            + f64::from(*switches) * switch_ns
                            + *bytes as f64 * 8.0 / l.gbps
                    }
                    Timing::Ring {
                        steps,
                        per_step_latency_ns,
                        factor,
                        bytes,
                        gbps,
                        ranks,
                        ..
                    } => {
                        assert!(*ranks >= 2);
                        f64::from(*steps) * per_step_latency_ns
                            + factor * *bytes as f64 * 8.0 / gbps
                    }
                    Timing::Copy {
                        fixed_ns,
                        bytes,
                        gbps,
                    } => fixed_ns + *bytes as f64 * 8.0 / gbps,
                };
                assert!(
                    close(step.duration_ns, expected),
                    "{} step {}: {} vs {}",
                    s.id,
                    step.index,
                    step.duration_ns,
                    expected
                );
                let parts: f64 = step.parts.iter().map(|p| p.ns).sum();
                assert!(close(parts, step.duration_ns));
            }
        }
    }
}

#[test]
fn totals_are_the_sum_of_the_steps() {
    for p in param_sets() {
        for s in all(&p) {
            let t = &s.totals;
            assert_eq!(t.data_copies, s.steps.iter().map(|x| x.copies).sum::<u32>());
            assert_eq!(t.syscalls, s.steps.iter().map(|x| x.syscalls).sum::<u32>());
            assert_eq!(
                t.interrupts,
                s.steps.iter().map(|x| x.interrupts).sum::<u32>()
            );
            let cpu: f64 = s.steps.iter().map(|x| x.cpu_busy_ns).sum();
            assert!(close(t.cpu_busy_ns, cpu));
            for c in Category::ALL {
                let sum: f64 = s
                    .steps
                    .iter()
                    .filter(|x| x.critical)
                    .flat_map(|x| x.parts.iter())
                    .filter(|p| p.category == c)
                    .map(|p| p.ns)
                    .sum();
                assert!(close(t.category_ns(c), sum), "{} {c:?}", s.id);
            }
            // The critical path is gap-free from 0, so the breakdown adds up to the latency.
            let total: f64 = t.breakdown.iter().map(|c| c.ns).sum();
            assert!(
                close(total, t.end_to_end_ns),
                "{}: {total} vs {}",
                s.id,
                t.end_to_end_ns
            );
            let last = s
                .steps
                .iter()
                .filter(|x| !x.critical)
                .map(|x| x.end_ns())
                .fold(0.0, f64::max);
            assert!(last.is_finite());
        }
    }
}

#[test]
fn scenarios_serialize_to_json() {
    let s = build_scenario("post-send", &ScenarioParams::default()).unwrap();
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"ib-ndr\""));
    let back: Scenario = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s);
}

#[test]
fn deterministic() {
    for p in param_sets() {
        assert_eq!(all(&p), all(&p));
    }
}
