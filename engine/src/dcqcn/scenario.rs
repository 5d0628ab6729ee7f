//! Scenarios (N senders → one switch egress port → one receiver), work limits, the
//! named teaching scenarios and validation.

use super::error::SimError;
use super::params::{non_negative, positive, CongestionPointParams, DcqcnParams, PfcThresholds};
use serde::{Deserialize, Serialize};

/// Longest simulated time accepted, µs (1 s).
pub const MAX_DURATION_US: f64 = 1_000_000.0;
/// Most samples a series may hold (duration / sample interval).
pub const MAX_SAMPLES: u64 = 200_000;
/// Most (sample, flow) cells a series may hold, bounding its memory.
pub const MAX_SERIES_CELLS: u64 = 2_000_000;
/// Smallest fluid-model step, µs.
pub const MIN_FLUID_STEP_US: f64 = 0.001;
/// Most fluid steps one feedback delay may span (the delay line's length).
pub const MAX_FLUID_DELAY_STEPS: u64 = 100_000;
/// Most flows in one scenario.
pub const MAX_FLOWS: usize = 1024;
/// Highest link rate accepted, Gb/s.
pub const MAX_LINK_GBPS: f64 = 1600.0;
/// Longest one-way link propagation delay accepted, µs.
pub const MAX_PROP_DELAY_US: f64 = 10_000.0;
/// Largest `Limits::max_events` accepted.
pub const MAX_EVENTS_CAP: u64 = 2_000_000_000;
/// Smallest and largest MTU accepted, bytes (256: the smallest IB/RoCE path MTU; 9216:
/// a common jumbo-frame limit).
pub const MTU_RANGE: (u32, u32) = (256, 9216);

/// One sender and its flow to the receiver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// The sender's link rate (its line rate), Gb/s.
    pub link_gbps: f64,
    /// When the flow starts, µs.
    pub start_us: f64,
    /// Bytes to send, or `None` for a flow that never ends.
    pub size_bytes: Option<u64>,
}

/// A dumbbell: every sender has its own link to the switch, the switch egress port (the
/// congestion point) feeds the receiver over the bottleneck link. All links have the same
/// one-way propagation delay.
///
/// In JSON every field is required but `fluid_step_us`, and unknown fields are refused
/// (here and in the parameter structs): a misspelt field fails rather than being ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// Bottleneck (switch → receiver) link rate, Gb/s.
    pub bottleneck_gbps: f64,
    /// One-way propagation delay of each link, µs.
    pub prop_delay_us: f64,
    /// Packet size on the wire, bytes (headers are not modelled separately).
    pub mtu_bytes: u32,
    /// Simulated time, µs.
    pub duration_us: f64,
    /// Sampling interval of the output series, µs.
    pub sample_interval_us: f64,
    /// Seed of the RED marking PRNG.
    pub seed: u64,
    pub cp: CongestionPointParams,
    pub dcqcn: DcqcnParams,
    pub flows: Vec<FlowSpec>,
    /// Longest step of the fluid model's integrator, µs. The model shortens it to the
    /// feedback delay τ* when it is longer, and so that it divides `sample_interval_us`.
    #[serde(default = "default_fluid_step_us")]
    pub fluid_step_us: f64,
}

fn default_fluid_step_us() -> f64 {
    2.5
}

/// Work caps: a run never hangs; it stops at the cap and says so in the series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Most events (packet model) or flow-steps (fluid model) to process.
    pub max_events: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_events: 100_000_000,
        }
    }
}

impl Limits {
    pub fn validate(&self) -> Result<(), SimError> {
        if self.max_events == 0 || self.max_events > MAX_EVENTS_CAP {
            return Err(SimError::invalid(
                "limits.max_events",
                format!("{} is outside [1, {MAX_EVENTS_CAP}]", self.max_events),
            ));
        }
        Ok(())
    }
}

impl Scenario {
    /// Checks every field and names the first bad one.
    pub fn validate(&self) -> Result<(), SimError> {
        positive("bottleneck_gbps", self.bottleneck_gbps, MAX_LINK_GBPS)?;
        non_negative("prop_delay_us", self.prop_delay_us, MAX_PROP_DELAY_US)?;
        if !(MTU_RANGE.0..=MTU_RANGE.1).contains(&self.mtu_bytes) {
            return Err(SimError::invalid(
                "mtu_bytes",
                format!(
                    "{} is outside [{}, {}]",
                    self.mtu_bytes, MTU_RANGE.0, MTU_RANGE.1
                ),
            ));
        }
        positive("duration_us", self.duration_us, MAX_DURATION_US)?;
        positive(
            "sample_interval_us",
            self.sample_interval_us,
            self.duration_us,
        )?;
        let samples = (self.duration_us / self.sample_interval_us).floor();
        if samples > MAX_SAMPLES as f64 {
            return Err(SimError::invalid(
                "sample_interval_us",
                format!("{samples} samples exceed the cap {MAX_SAMPLES}; use a longer interval"),
            ));
        }
        positive("fluid_step_us", self.fluid_step_us, 100.0)?;
        if self.fluid_step_us < MIN_FLUID_STEP_US {
            return Err(SimError::invalid(
                "fluid_step_us",
                format!(
                    "{} is below the floor {MIN_FLUID_STEP_US} µs",
                    self.fluid_step_us
                ),
            ));
        }
        self.cp.validate("cp.")?;
        if let Some(pfc) = &self.cp.pfc {
            // A PAUSE must stop senders before the buffer needs more than the MTU.
            if pfc.xoff_bytes < u64::from(self.mtu_bytes) {
                return Err(SimError::invalid(
                    "cp.pfc.xoff_bytes",
                    format!("{} is smaller than one MTU", pfc.xoff_bytes),
                ));
            }
        }
        if self.cp.buffer_bytes < u64::from(self.mtu_bytes) {
            return Err(SimError::invalid(
                "cp.buffer_bytes",
                format!("{} cannot hold one MTU", self.cp.buffer_bytes),
            ));
        }
        self.dcqcn.validate("dcqcn.")?;
        if self.flows.is_empty() {
            return Err(SimError::invalid(
                "flows",
                "there must be at least one flow",
            ));
        }
        if self.flows.len() > MAX_FLOWS {
            return Err(SimError::invalid(
                "flows",
                format!("{} flows exceed the cap {MAX_FLOWS}", self.flows.len()),
            ));
        }
        let cells = samples * self.flows.len() as f64;
        if cells > MAX_SERIES_CELLS as f64 {
            return Err(SimError::invalid(
                "sample_interval_us",
                format!(
                    "{samples} samples × {} flows exceed the cap {MAX_SERIES_CELLS}; \
                     use a longer interval",
                    self.flows.len()
                ),
            ));
        }
        let delay_steps = self.feedback_delay_us() / self.fluid_step_us;
        if delay_steps > MAX_FLUID_DELAY_STEPS as f64 {
            return Err(SimError::invalid(
                "fluid_step_us",
                format!(
                    "the feedback delay spans {delay_steps:.0} steps, over the cap \
                     {MAX_FLUID_DELAY_STEPS}; use a longer step"
                ),
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            positive(&format!("flows[{i}].link_gbps"), f.link_gbps, MAX_LINK_GBPS)?;
            non_negative(&format!("flows[{i}].start_us"), f.start_us, MAX_DURATION_US)?;
            if f.size_bytes == Some(0) {
                return Err(SimError::invalid(
                    format!("flows[{i}].size_bytes"),
                    "a flow must carry at least one byte (use null for an endless flow)",
                ));
            }
            if f.link_gbps * 1e3 < self.dcqcn.rp_min_rate_mbps {
                return Err(SimError::invalid(
                    "dcqcn.rp_min_rate_mbps",
                    format!(
                        "{} Mb/s is above flow {i}'s line rate of {} Gb/s",
                        self.dcqcn.rp_min_rate_mbps, f.link_gbps
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Delay from a mark at the switch to the sender's reaction, µs: the marked packet
    /// reaches the receiver (one link) and the CNP comes back (two links), the fluid
    /// model's feedback delay τ*.
    pub fn feedback_delay_us(&self) -> f64 {
        3.0 * self.prop_delay_us + f64::from(self.mtu_bytes) * 8.0 / (self.bottleneck_gbps * 1e3)
    }
}

/// Names accepted by [`named_scenario`].
pub fn scenario_names() -> &'static [&'static str] {
    &["two-flow", "incast-16", "ecn-above-xoff", "aggressive-g"]
}

/// Builds a named scenario.
///
/// - `two-flow`: the paper's convergence experiment in miniature (§6, two long flows
///   into one bottleneck, the second starting later) on 40 Gb/s links as in the paper's
///   testbed, with the paper's parameters and RED profile. PFC is on, with XOFF (1 MiB)
///   far above K_max so that ECN, not PFC, does the work.
/// - `incast-16`: 16 senders start together, 4 MiB each, into one receiver at 100 Gb/s;
///   the paper's DCQCN parameters and RED profile (K_min 5 KB, K_max 200 KB, P_max 1 %);
///   lossless, with XOFF (400 KB) above K_max as the paper requires (§4: ECN must act
///   before PFC) and a 1 MiB buffer, leaving more headroom than the 16 senders can put
///   on the wire during one PAUSE round trip (16 × (2 × 1 µs × 100 Gb/s + 2 MTU) ≈ 430 KB).
/// - `ecn-above-xoff`: `incast-16` with the ECN thresholds put above XOFF: the queue
///   never reaches K_min because PFC pauses the senders first, so DCQCN gets (almost)
///   no CNPs and PFC alone holds the queue — the misconfiguration the paper warns
///   about (§4: K_max must stay below the PFC threshold).
/// - `aggressive-g`: `two-flow` with g = 1/2 instead of 1/256: alpha jumps to ~1 after
///   a couple of CNPs, every cut nearly halves the rate and the flows oscillate.
pub fn named_scenario(name: &str) -> Result<Scenario, SimError> {
    match name {
        "two-flow" => Ok(two_flow()),
        "incast-16" => Ok(incast_16()),
        "ecn-above-xoff" => {
            let mut s = incast_16();
            s.name = "ecn-above-xoff".into();
            s.description = "16-to-1 incast with ECN thresholds above the PFC XOFF \
                             threshold: PFC fires first and DCQCN barely reacts."
                .into();
            s.cp.kmin_bytes = 500 * 1024;
            s.cp.kmax_bytes = 700 * 1024;
            s.cp.pfc = Some(PfcThresholds {
                xoff_bytes: 200 * 1024,
                xon_bytes: 184 * 1024,
            });
            Ok(s)
        }
        "aggressive-g" => {
            let mut s = two_flow();
            s.name = "aggressive-g".into();
            s.description = "two-flow with g = 1/2: alpha overreacts, cuts are deep and \
                             the rates oscillate."
                .into();
            s.dcqcn.g = 0.5;
            Ok(s)
        }
        other => Err(SimError::UnknownScenario { name: other.into() }),
    }
}

fn two_flow() -> Scenario {
    Scenario {
        name: "two-flow".into(),
        description: "Two long flows share a 40 Gb/s bottleneck; the second starts 2 ms \
                      later. Paper parameters (Zhu et al., SIGCOMM 2015)."
            .into(),
        bottleneck_gbps: 40.0,
        prop_delay_us: 1.0,
        mtu_bytes: 1024,
        duration_us: 40_000.0,
        sample_interval_us: 100.0,
        seed: 1,
        cp: CongestionPointParams::paper(
            2 * 1024 * 1024,
            Some(PfcThresholds {
                xoff_bytes: 1024 * 1024,
                xon_bytes: 1024 * 1024 - 64 * 1024,
            }),
        ),
        dcqcn: DcqcnParams::paper(),
        flows: vec![
            FlowSpec {
                link_gbps: 40.0,
                start_us: 0.0,
                size_bytes: None,
            },
            FlowSpec {
                link_gbps: 40.0,
                start_us: 2_000.0,
                size_bytes: None,
            },
        ],
        // 40 steps per 100 µs sample: the rates move over tens of µs, and against a 0.05 µs
        // reference these steps stay within about 1 KB of the queue. (3.125 µs steps, just
        // under the 3.2 µs feedback delay, came to 4.5 KB once K_min and K_max were the
        // decimal 5 KB and 200 KB: a step then straddles the marking curve's kinks.)
        fluid_step_us: 2.5,
    }
}

fn incast_16() -> Scenario {
    let flows = (0..16)
        .map(|_| FlowSpec {
            link_gbps: 100.0,
            start_us: 0.0,
            size_bytes: Some(4 * 1024 * 1024),
        })
        .collect();
    Scenario {
        name: "incast-16".into(),
        description: "16 senders (4 MiB each) into one receiver at 100 Gb/s, lossless \
                      (PFC on), paper parameters."
            .into(),
        bottleneck_gbps: 100.0,
        prop_delay_us: 1.0,
        mtu_bytes: 1024,
        duration_us: 8_000.0,
        sample_interval_us: 50.0,
        seed: 1,
        cp: CongestionPointParams::paper(
            1024 * 1024,
            Some(PfcThresholds {
                xoff_bytes: 400 * 1024,
                xon_bytes: 384 * 1024,
            }),
        ),
        dcqcn: DcqcnParams::paper(),
        flows,
        // The 16 senders start at line rate and the queue climbs 187 KB per µs, crossing
        // the whole marking band within a step of a few µs: short steps keep the peak
        // close (within 14 % of a 0.05 µs reference at 1 µs).
        fluid_step_us: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn scenario_json_refuses_unknown_fields_at_every_level_and_defaults_only_the_fluid_step() {
        let dump = serde_json::to_value(named_scenario("two-flow").unwrap()).unwrap();
        let parse = |v: Value| serde_json::from_value::<Scenario>(v);
        for at in ["", "/cp", "/cp/pfc", "/dcqcn", "/flows/0"] {
            let mut v = dump.clone();
            let object = v.pointer_mut(at).and_then(Value::as_object_mut).unwrap();
            object.insert("typo".into(), 1.into());
            let e = parse(v).unwrap_err().to_string();
            assert!(e.contains("unknown field `typo`"), "{at}: {e}");
        }
        let without = |field: &str| {
            let mut v = dump.clone();
            v.as_object_mut().unwrap().remove(field);
            parse(v)
        };
        let step = without("fluid_step_us").unwrap().fluid_step_us;
        assert_eq!(step, default_fluid_step_us());
        let e = without("seed").unwrap_err().to_string();
        assert!(e.contains("missing field `seed`"), "{e}");
    }
}
