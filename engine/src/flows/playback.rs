//! What a player of a scenario needs beyond the scenario itself: the parameters a scenario
//! opens with, which parameters it reads, the wires to draw, each step's route, and the
//! state of the flow at a moment in time (which step is showing, how much of the latency
//! breakdown has accrued).

use serde::{Deserialize, Serialize};

use super::link::{LinkId, LinkKind};
use super::model::{Category, CategoryTime, FlowError, Scenario, Step};
use super::params::ScenarioParams;
use super::{build_scenario, Comparison, SCENARIO_IDS};

/// A parameter the player can offer for editing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamField {
    MessageBytes,
    Mtu,
    Pcie,
    Network,
    Tcp,
    Nvlink,
    Nodes,
    GpusPerNode,
}

impl ParamField {
    /// The name [`FlowError`]s use for the field (`ScenarioParams` field names); `const` so
    /// a view's field table can name its boxes by it.
    pub const fn name(self) -> &'static str {
        match self {
            ParamField::MessageBytes => "message_bytes",
            ParamField::Mtu => "mtu",
            ParamField::Pcie => "pcie",
            ParamField::Network => "network",
            ParamField::Tcp => "tcp",
            ParamField::Nvlink => "nvlink",
            ParamField::Nodes => "nodes",
            ParamField::GpusPerNode => "gpus_per_node",
        }
    }

    /// For a link field, the kind of link it takes; `None` for numeric fields.
    pub fn link_kinds(self) -> Option<&'static [LinkKind]> {
        match self {
            ParamField::Pcie => Some(&[LinkKind::Pcie]),
            ParamField::Network => Some(&[LinkKind::Infiniband, LinkKind::Roce]),
            ParamField::Tcp => Some(&[LinkKind::Tcp]),
            ParamField::Nvlink => Some(&[LinkKind::Nvlink]),
            _ => None,
        }
    }

    /// The links a link field accepts, in [`LinkId::ALL`] order (empty for numeric fields).
    pub fn link_choices(self) -> Vec<LinkId> {
        let kinds = self.link_kinds().unwrap_or(&[]);
        LinkId::ALL
            .iter()
            .copied()
            .filter(|id| kinds.contains(&id.kind()))
            .collect()
    }

    /// Whether an error is about this field.
    pub fn is_about(self, error: &FlowError) -> bool {
        match error {
            FlowError::Param { error, .. } => error.field == self.name(),
            FlowError::WrongLinkKind { field, .. } => field == self.name(),
            FlowError::UnknownScenario(_) | FlowError::UnknownLink(_) => false,
        }
    }
}

/// The parameters a scenario reads, of those in [`ParamField`] (what its builder looks at).
pub fn param_fields(id: &str) -> Result<&'static [ParamField], FlowError> {
    use ParamField::*;
    const RDMA: &[ParamField] = &[MessageBytes, Mtu, Pcie, Network];
    Ok(match id {
        "post-send" | "post-send-inline" | "gpudirect-write" | "staged-write" | "go-back-n"
        | "timeout-retransmit" | "rnr-retry" | "rdma-read" | "atomic-cas" | "ecn-cnp"
        | "pfc-pause" => RDMA,
        "tcp-socket" => &[MessageBytes, Pcie, Tcp],
        // Connection setup moves no payload: its timing depends on no parameter here.
        "rc-connect" => &[],
        "nccl-allreduce" => &[MessageBytes, Mtu, Pcie, Network, Nvlink, Nodes, GpusPerNode],
        "nccl-allreduce-tcp" => &[MessageBytes, Pcie, Tcp, Nvlink, Nodes, GpusPerNode],
        other => return Err(FlowError::UnknownScenario(other.to_string())),
    })
}

/// The parameters a scenario opens with: [`ScenarioParams::default`] adjusted where the
/// scenario refuses the defaults by design.
pub fn default_params(id: &str) -> Result<ScenarioParams, FlowError> {
    let base = ScenarioParams::default();
    let params = match id {
        // Inline data must fit max_inline_data (128 by default).
        "post-send-inline" => ScenarioParams {
            message_bytes: 64,
            ..base
        },
        // Go-back-N needs a packet after the lost one: at least three MTUs of data.
        "go-back-n" => ScenarioParams {
            message_bytes: 16 * 1024,
            ..base
        },
        // ECN marking, CNPs and PFC are Ethernet mechanisms: RoCE, not InfiniBand.
        "ecn-cnp" | "pfc-pause" => ScenarioParams {
            network: LinkId::Roce400g,
            message_bytes: 16 * 1024,
            ..base
        },
        // A collective is measured on buffers large enough to reach bandwidth.
        "nccl-allreduce" => ScenarioParams {
            message_bytes: 256 << 20,
            ..base
        },
        // Nodes joined by TCP only, as in the socket measurement the model's rate comes
        // from (NVIDIA/nccl#450): one 100 Gb/s Ethernet NIC per node.
        "nccl-allreduce-tcp" => ScenarioParams {
            message_bytes: 256 << 20,
            nodes: 2,
            nics_per_node: 1,
            ..base
        },
        _ if SCENARIO_IDS.contains(&id) => base,
        other => return Err(FlowError::UnknownScenario(other.to_string())),
    };
    Ok(params)
}

impl Comparison {
    /// Parameters both sides accept: the left side's defaults, with the message size shrunk
    /// to the smaller of the two sides' defaults (an inline send caps it).
    pub fn params(&self) -> Result<ScenarioParams, FlowError> {
        let left = default_params(&self.left)?;
        let right = default_params(&self.right)?;
        Ok(ScenarioParams {
            message_bytes: left.message_bytes.min(right.message_bytes),
            ..left
        })
    }

    /// Builds both sides with the same parameters.
    pub fn build(&self, params: &ScenarioParams) -> Result<(Scenario, Scenario), FlowError> {
        Ok((
            build_scenario(&self.left, params)?,
            build_scenario(&self.right, params)?,
        ))
    }
}

/// A wire on the stage between two actors, drawn once however many steps use it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wire {
    /// Actor ids; `a` comes before `b` in the scenario's actor list.
    pub a: String,
    pub b: String,
    /// The link of the first step that crosses the wire; `None` for on-host hand-offs
    /// (a CPU writing its own memory, a syscall).
    pub link: Option<LinkId>,
}

impl Step {
    /// The actors the step passes, in order: `from`, every `via`, `to`. A step that stays
    /// on one actor has a route of one.
    pub fn route(&self) -> Vec<&str> {
        let mut route = Vec::with_capacity(self.via.len() + 2);
        route.push(self.from.as_str());
        route.extend(self.via.iter().map(String::as_str));
        if self.to != self.from || !self.via.is_empty() {
            route.push(self.to.as_str());
        }
        route
    }

    /// Critical-path time by category once `fraction` (0–1) of the step has passed.
    fn accrued(&self, fraction: f64) -> impl Iterator<Item = (Category, f64)> + '_ {
        let fraction = fraction.clamp(0.0, 1.0);
        self.parts
            .iter()
            .filter(move |_| self.critical)
            .map(move |p| (p.category, p.ns * fraction))
    }

    /// The fraction of the step passed at `t_ns`.
    fn fraction_at(&self, t_ns: f64) -> f64 {
        if self.duration_ns > 0.0 {
            (t_ns - self.start_ns) / self.duration_ns
        } else if t_ns >= self.start_ns {
            1.0
        } else {
            0.0
        }
    }
}

impl Scenario {
    /// Every pair of actors some step's route joins, once each, in order of first use.
    pub fn wires(&self) -> Vec<Wire> {
        let position = |id: &str| self.actors.iter().position(|a| a.id == id);
        let mut wires: Vec<Wire> = Vec::new();
        for step in &self.steps {
            let route = step.route();
            for pair in route.windows(2) {
                let (Some(x), Some(y)) = (position(pair[0]), position(pair[1])) else {
                    continue;
                };
                if x == y {
                    continue;
                }
                let (a, b) = if x < y { (x, y) } else { (y, x) };
                let (a, b) = (&self.actors[a].id, &self.actors[b].id);
                if !wires.iter().any(|w| &w.a == a && &w.b == b) {
                    wires.push(Wire {
                        a: a.clone(),
                        b: b.clone(),
                        link: step.link,
                    });
                }
            }
        }
        wires
    }

    /// When the last step ends (critical or not); 0 for a scenario without steps.
    pub fn end_ns(&self) -> f64 {
        self.steps.iter().map(Step::end_ns).fold(0.0, f64::max)
    }

    /// The step showing at `t_ns`: of the steps already started, the one that started last
    /// (the higher index on a tie). `None` before the first step.
    pub fn step_at(&self, t_ns: f64) -> Option<usize> {
        self.steps
            .iter()
            .filter(|s| s.start_ns <= t_ns)
            .max_by(|a, b| {
                a.start_ns
                    .total_cmp(&b.start_ns)
                    .then(a.index.cmp(&b.index))
            })
            .map(|s| s.index)
    }

    /// Every moment a step starts or ends, sorted, without repeats: the stops of a player
    /// that steps both sides of a comparison on one time axis.
    pub fn moments(&self) -> Vec<f64> {
        let mut times: Vec<f64> = self
            .steps
            .iter()
            .flat_map(|s| [s.start_ns, s.end_ns()])
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        times
    }

    /// The latency breakdown accrued by `t_ns`: the critical steps' category parts, whole
    /// for steps that ended, pro rata for a step under way. Every category listed, in
    /// [`Category::ALL`] order; at or after the end it equals `totals.breakdown`.
    pub fn breakdown_at(&self, t_ns: f64) -> Vec<CategoryTime> {
        let mut sums = Category::ALL.map(|category| CategoryTime { category, ns: 0.0 });
        for step in self.steps.iter().filter(|s| s.start_ns <= t_ns) {
            for (category, ns) in step.accrued(step.fraction_at(t_ns)) {
                if let Some(sum) = sums.iter_mut().find(|c| c.category == category) {
                    sum.ns += ns;
                }
            }
        }
        sums.to_vec()
    }

    /// The breakdown accrued once steps `0..index` are done and `progress` (0–1) of step
    /// `index` has passed: the player's view when it walks the steps in list order.
    pub fn breakdown_through(&self, index: usize, progress: f64) -> Vec<CategoryTime> {
        let mut sums = Category::ALL.map(|category| CategoryTime { category, ns: 0.0 });
        for step in self.steps.iter().take(index.saturating_add(1)) {
            let fraction = if step.index < index { 1.0 } else { progress };
            for (category, ns) in step.accrued(fraction) {
                if let Some(sum) = sums.iter_mut().find(|c| c.category == category) {
                    sum.ns += ns;
                }
            }
        }
        sums.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flows::{comparisons, scenario_ids};

    fn every_scenario() -> Vec<Scenario> {
        scenario_ids()
            .iter()
            .map(|id| {
                let params = default_params(id).unwrap_or_else(|e| panic!("{id}: {e}"));
                build_scenario(id, &params).unwrap_or_else(|e| panic!("{id}: {e}"))
            })
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn every_scenario_opens_with_its_defaults() {
        assert_eq!(every_scenario().len(), scenario_ids().len());
        assert!(default_params("warp-drive").is_err());
        assert!(param_fields("warp-drive").is_err());
    }

    #[test]
    fn every_comparison_builds_both_sides_with_shared_params() {
        for pair in comparisons() {
            let params = pair.params().unwrap_or_else(|e| panic!("{pair:?}: {e}"));
            let (left, right) = pair
                .build(&params)
                .unwrap_or_else(|e| panic!("{pair:?}: {e}"));
            assert_eq!((left.id, right.id), (pair.left, pair.right));
        }
    }

    #[test]
    fn link_fields_offer_only_links_the_validation_accepts() {
        for field in [
            ParamField::Pcie,
            ParamField::Network,
            ParamField::Tcp,
            ParamField::Nvlink,
        ] {
            let choices = field.link_choices();
            assert!(!choices.is_empty(), "{field:?}");
            for link in choices {
                let mut p = ScenarioParams::default();
                match field {
                    ParamField::Pcie => p.pcie = link,
                    ParamField::Network => p.network = link,
                    ParamField::Tcp => p.tcp = link,
                    _ => p.nvlink = link,
                }
                assert_eq!(p.validate(), Ok(()), "{field:?} = {link}");
            }
        }
        assert!(ParamField::Nodes.link_choices().is_empty());
    }

    #[test]
    fn errors_name_the_field_they_are_about() {
        let p = ScenarioParams {
            nodes: 1,
            ..ScenarioParams::default()
        };
        let e = build_scenario("nccl-allreduce", &p).unwrap_err();
        assert!(ParamField::Nodes.is_about(&e));
        assert!(!ParamField::MessageBytes.is_about(&e));
        let p = ScenarioParams {
            network: LinkId::Tcp100g,
            ..ScenarioParams::default()
        };
        let e = build_scenario("post-send", &p).unwrap_err();
        assert!(ParamField::Network.is_about(&e));
    }

    #[test]
    fn fields_listed_for_a_scenario_change_it_and_others_do_not_matter() {
        // Changing a listed field changes the timeline; rc-connect lists none.
        let p = default_params("tcp-socket").unwrap_or_default();
        let base = build_scenario("tcp-socket", &p).unwrap_or_else(|e| panic!("{e}"));
        let bigger = ScenarioParams {
            message_bytes: p.message_bytes * 4,
            ..p.clone()
        };
        let bigger = build_scenario("tcp-socket", &bigger).unwrap_or_else(|e| panic!("{e}"));
        assert!(bigger.totals.end_to_end_ns > base.totals.end_to_end_ns);
        // tcp-socket does not list the RDMA network: switching it changes nothing.
        assert!(!param_fields("tcp-socket")
            .unwrap_or(&[])
            .contains(&ParamField::Network));
        let other_net = ScenarioParams {
            network: LinkId::Roce100g,
            ..p
        };
        let same = build_scenario("tcp-socket", &other_net).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(same, base);
    }

    #[test]
    fn routes_run_from_sender_through_vias_to_receiver() {
        for s in every_scenario() {
            for step in &s.steps {
                let route = step.route();
                assert_eq!(route.first(), Some(&step.from.as_str()));
                assert_eq!(route.last(), Some(&step.to.as_str()));
                assert_eq!(
                    route.len() >= 2,
                    step.from != step.to || !step.via.is_empty()
                );
            }
        }
    }

    #[test]
    fn wires_join_actors_of_the_scenario_once_each() {
        for s in every_scenario() {
            let wires = s.wires();
            for (i, w) in wires.iter().enumerate() {
                assert!(s.actor(&w.a).is_some() && s.actor(&w.b).is_some());
                assert_ne!(w.a, w.b);
                assert!(!wires[i + 1..]
                    .iter()
                    .any(|o| (&o.a, &o.b) == (&w.a, &w.b) || (&o.a, &o.b) == (&w.b, &w.a)));
            }
            // Every hop of every route is drawn.
            for step in &s.steps {
                for pair in step.route().windows(2) {
                    assert!(
                        wires.iter().any(|w| (w.a == pair[0] && w.b == pair[1])
                            || (w.a == pair[1] && w.b == pair[0])),
                        "{}: hop {pair:?} has no wire",
                        s.id
                    );
                }
            }
        }
    }

    #[test]
    fn breakdown_fills_from_nothing_to_the_totals() {
        for s in every_scenario() {
            let zero = s.breakdown_at(-1.0);
            assert!(zero.iter().all(|c| c.ns == 0.0), "{}", s.id);
            let end = s.breakdown_at(s.end_ns());
            assert_eq!(end.len(), Category::ALL.len());
            for c in &end {
                assert!(
                    close(c.ns, s.totals.category_ns(c.category)),
                    "{} {:?}",
                    s.id,
                    c.category
                );
            }
            let through = s.breakdown_through(s.steps.len().saturating_sub(1), 1.0);
            for c in &through {
                assert!(close(c.ns, s.totals.category_ns(c.category)), "{}", s.id);
            }
            // Never decreasing along the moments.
            let mut last = 0.0;
            for t in s.moments() {
                let sum: f64 = s.breakdown_at(t).iter().map(|c| c.ns).sum();
                assert!(sum + 1e-6 >= last, "{} at {t}", s.id);
                last = sum;
            }
            // Half-way through the first critical step, half its critical time has accrued.
            if let Some(first) = s.steps.iter().find(|st| st.critical && st.start_ns == 0.0) {
                let half: f64 = s
                    .breakdown_at(first.duration_ns / 2.0)
                    .iter()
                    .map(|c| c.ns)
                    .sum();
                let others: f64 = s
                    .steps
                    .iter()
                    .filter(|st| st.critical && st.start_ns == 0.0 && st.index != first.index)
                    .map(|st| st.duration_ns / 2.0)
                    .sum();
                assert!(close(half, first.duration_ns / 2.0 + others), "{}", s.id);
            }
        }
    }

    #[test]
    fn step_at_follows_the_starts() {
        for s in every_scenario() {
            assert_eq!(s.step_at(-1.0), None);
            assert!(s.step_at(s.end_ns()).is_some());
            for step in &s.steps {
                let shown = s.step_at(step.start_ns).and_then(|i| s.steps.get(i));
                assert!(
                    shown.is_some_and(|x| x.start_ns == step.start_ns),
                    "{}",
                    s.id
                );
            }
            let moments = s.moments();
            assert!(moments.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(moments.last().copied(), Some(s.end_ns()));
        }
    }
}
