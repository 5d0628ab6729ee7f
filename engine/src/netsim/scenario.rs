//! A scenario: the topology, the switches' rules, DCQCN (or none), the traffic, and how long
//! and how finely to run. Named scenarios are the lab's worked cases; any DCQCN scenario of
//! `engine::dcqcn` becomes the same dumbbell here ([`Scenario::from_dcqcn`]), so the two
//! models can be checked against each other.

use super::switch::{EcnSpec, MarkAt, Routing, SwitchSpec};
use super::topology::{Topology, TopologySpec};
use super::traffic::TrafficSpec;
use super::SimError;
use crate::dcqcn::{self, DcqcnParams, PfcThresholds, MAX_DURATION_US, MAX_SAMPLES, MTU_RANGE};
use crate::fabric::{superpod_h100, FabricSpec, Tiers};
use serde::{Deserialize, Serialize};

/// A run's inputs. In JSON every field is required but `description`; unknown fields are
/// refused at every level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub topology: TopologySpec,
    pub switch: SwitchSpec,
    /// DCQCN on every QP, or `null`: no congestion control, PFC alone.
    pub dcqcn: Option<DcqcnParams>,
    pub traffic: Vec<TrafficSpec>,
    /// Packet size on the wire, bytes.
    pub mtu_bytes: u32,
    /// Longest simulated time, µs; a run whose traffic is all delivered stops sooner.
    pub duration_us: f64,
    pub sample_interval_us: f64,
    /// Seeds ECMP's per-switch hashes, RED's draws and the permutation.
    pub seed: u64,
}

impl Scenario {
    /// Checks what needs no topology, then what does.
    pub fn validate(&self, _topo: &Topology) -> Result<(), SimError> {
        if !(MTU_RANGE.0..=MTU_RANGE.1).contains(&self.mtu_bytes) {
            return Err(SimError::invalid(
                "mtu_bytes",
                format!(
                    "{} is outside [{}, {}]",
                    self.mtu_bytes, MTU_RANGE.0, MTU_RANGE.1
                ),
            ));
        }
        if !self.duration_us.is_finite()
            || self.duration_us <= 0.0
            || self.duration_us > MAX_DURATION_US
        {
            return Err(SimError::invalid(
                "duration_us",
                format!("{} is outside (0, {MAX_DURATION_US}]", self.duration_us),
            ));
        }
        if !self.sample_interval_us.is_finite()
            || self.sample_interval_us <= 0.0
            || self.sample_interval_us > self.duration_us
        {
            return Err(SimError::invalid(
                "sample_interval_us",
                format!(
                    "{} is outside (0, duration_us = {}]",
                    self.sample_interval_us, self.duration_us
                ),
            ));
        }
        let samples = (self.duration_us / self.sample_interval_us).floor();
        if samples > MAX_SAMPLES as f64 {
            return Err(SimError::invalid(
                "sample_interval_us",
                format!("{samples} samples exceed the cap {MAX_SAMPLES}; use a longer interval"),
            ));
        }
        self.switch.validate(self.mtu_bytes)?;
        if let Some(d) = &self.dcqcn {
            d.validate("dcqcn.")?;
        }
        Ok(())
    }

    /// The dumbbell of a DCQCN scenario: the same senders, bottleneck, delays, RED profile
    /// and DCQCN parameters. One difference stays: here PFC counts each ingress port's
    /// bytes (IEEE 802.1Qbb), there the one shared egress queue pauses every sender.
    pub fn from_dcqcn(s: &dcqcn::Scenario) -> Result<Scenario, SimError> {
        let rate = s.flows.first().map_or(0.0, |f| f.link_gbps);
        if s.flows.iter().any(|f| f.link_gbps != rate) {
            return Err(SimError::invalid(
                "flows",
                "the dumbbell gives every sender the same link rate",
            ));
        }
        let n = s.flows.len() as u32;
        Ok(Scenario {
            name: s.name.clone(),
            description: s.description.clone(),
            topology: TopologySpec::Dumbbell {
                senders: n,
                sender_gbps: rate,
                bottleneck_gbps: s.bottleneck_gbps,
                delay_us: s.prop_delay_us,
            },
            switch: SwitchSpec {
                buffer_bytes: s.cp.buffer_bytes,
                ecn: Some(EcnSpec {
                    kmin_bytes: s.cp.kmin_bytes,
                    kmax_bytes: s.cp.kmax_bytes,
                    pmax: s.cp.pmax,
                    at: MarkAt::Enqueue,
                }),
                pfc: s.cp.pfc,
                routing: Routing::Ecmp,
            },
            dcqcn: Some(s.dcqcn.clone()),
            traffic: s
                .flows
                .iter()
                .enumerate()
                .map(|(i, f)| TrafficSpec::Flow {
                    from: i as u32,
                    to: n,
                    bytes: f.size_bytes,
                    start_us: f.start_us,
                    qps: 1,
                })
                .collect(),
            mtu_bytes: s.mtu_bytes,
            duration_us: s.duration_us,
            sample_interval_us: s.sample_interval_us,
            seed: s.seed,
        })
    }
}

/// The named scenarios, in the order a learner meets them.
pub fn scenario_names() -> &'static [&'static str] {
    &[
        "two-flow",
        "ecmp-collision",
        "ring-deadlock",
        "fat-tree-no-deadlock",
        "ring-allreduce-16",
        "rail-1024",
    ]
}

/// A non-blocking two-tier leaf–spine of `hosts` single-GPU servers on `switch_ports`-port
/// switches, every link at `gbps` and 1 µs (no NVLink: one GPU per server).
pub(super) fn leaf_spine(hosts: u32, switch_ports: u32, gbps: f64) -> TopologySpec {
    TopologySpec::Fabric {
        fabric: FabricSpec {
            gpus: hosts,
            gpus_per_node: 1,
            nics_per_node: 1,
            nic_ports: 1,
            nic_port_gbps: gbps,
            switch_ports,
            switch_port_gbps: gbps,
            switch_port_split: 1,
            tiers: Tiers::Two,
            oversubscription: 1.0,
            rail_optimized: false,
            planes: 1,
        },
        nvlink_gbps: gbps,
        delay_us: 1.0,
    }
}

/// Shared-buffer switch with the DCQCN paper's RED profile (K_min 5 KB, K_max 200 KB,
/// P_max 1 %, §5) and PFC thresholds well inside the buffer.
pub(super) fn lossless_switch(buffer_bytes: u64) -> SwitchSpec {
    SwitchSpec {
        buffer_bytes,
        ecn: Some(EcnSpec {
            kmin_bytes: 5_000,
            kmax_bytes: 200_000,
            pmax: 0.01,
            at: MarkAt::Enqueue,
        }),
        pfc: Some(PfcThresholds {
            xoff_bytes: 256 * 1024,
            xon_bytes: 224 * 1024,
        }),
        routing: Routing::Ecmp,
    }
}

/// NVLink per GPU, one direction, Gb/s: 18 links × NCCL's 20.6 GB/s for compute
/// capability 9.0 (src/graph/topo.h) = 370.8 GB/s.
const H100_NVLINK_GBPS: f64 = 18.0 * 20.6 * 8.0;

pub fn named_scenario(name: &str) -> Result<Scenario, SimError> {
    let s = match name {
        "two-flow" => Scenario::from_dcqcn(&dcqcn::named_scenario("two-flow")?)?,
        "ecmp-collision" => Scenario {
            name: name.into(),
            description: "Eight 400G flows from one leaf's GPUs to the other leaf's, hashed by \
                          ECMP over eight uplinks: some uplinks carry two or three flows, others \
                          none, and the flows sharing one finish late."
                .into(),
            topology: leaf_spine(16, 16, 400.0),
            switch: lossless_switch(16 * 1024 * 1024),
            dcqcn: Some(DcqcnParams::mlx5_default()),
            traffic: (0..8)
                .map(|i| TrafficSpec::Flow {
                    from: i,
                    to: 8 + i,
                    bytes: Some(16 * 1024 * 1024),
                    start_us: 0.0,
                    qps: 1,
                })
                .collect(),
            mtu_bytes: 4096,
            duration_us: 10_000.0,
            sample_interval_us: 10.0,
            seed: 7,
        },
        "ring-deadlock" | "fat-tree-no-deadlock" => deadlock_case(name),
        "ring-allreduce-16" | "rail-1024" => {
            let servers = if name == "rail-1024" { 128 } else { 2 };
            let bytes = if name == "rail-1024" {
                64 << 20
            } else {
                256 << 20
            };
            Scenario {
                name: name.into(),
                description: format!(
                    "A ring all-reduce of {} MiB per GPU over {servers} DGX H100 on their \
                     SuperPOD fabric (rail-optimized, 400G, 64-port switches): NVLink inside \
                     each server, one rail per channel between them.",
                    bytes >> 20
                ),
                topology: TopologySpec::Fabric {
                    fabric: superpod_h100(servers),
                    nvlink_gbps: H100_NVLINK_GBPS,
                    delay_us: 1.0,
                },
                switch: lossless_switch(32 * 1024 * 1024),
                dcqcn: Some(DcqcnParams::mlx5_default()),
                traffic: vec![TrafficSpec::RingAllReduce {
                    bytes_per_gpu: bytes,
                    channels: 8,
                    qps_per_connection: 1,
                    pxn: true,
                }],
                mtu_bytes: 4096,
                duration_us: 1_000_000.0,
                sample_interval_us: if name == "rail-1024" { 1000.0 } else { 50.0 },
                seed: 1,
            }
        }
        other => {
            // Not `SimError::UnknownScenario`, whose message lists the DCQCN scenarios.
            return Err(SimError::invalid(
                "scenario",
                format!(
                    "no scenario is named {other:?}; the named scenarios are {}",
                    scenario_names().join(", ")
                ),
            ));
        }
    };
    Ok(s)
}

/// Four switches, two hosts each; every host sends to the host two switches clockwise,
/// with PFC and small buffers. In a ring with clockwise routes each switch's buffer waits on
/// the next one's: a cyclic buffer dependency. The same hosts on a leaf–spine, where
/// up/down routes cannot form a cycle, finish.
fn deadlock_case(name: &str) -> Scenario {
    let ring = name == "ring-deadlock";
    let topology = if ring {
        TopologySpec::SwitchRing {
            switches: 4,
            hosts_per_switch: 2,
            gbps: 100.0,
            delay_us: 1.0,
        }
    } else {
        leaf_spine(8, 4, 100.0)
    };
    // Host h sends to the host two switches on (4 hosts further in order), twice over.
    let traffic = (0..8u32)
        .flat_map(|h| {
            [
                TrafficSpec::Flow {
                    from: h,
                    to: (h + 4) % 8,
                    bytes: Some(8 * 1024 * 1024),
                    start_us: 0.0,
                    qps: 1,
                },
                TrafficSpec::Flow {
                    from: h,
                    to: (h + 5) % 8,
                    bytes: Some(8 * 1024 * 1024),
                    start_us: 0.0,
                    qps: 1,
                },
            ]
        })
        .collect();
    Scenario {
        name: name.into(),
        description: if ring {
            "Four switches in a ring, every route clockwise, PFC with small buffers and no \
             DCQCN: each switch's buffer fills waiting on the next, and the ring deadlocks."
        } else {
            "The same hosts and traffic on a leaf–spine with up/down routing: the pauses \
             come and go, nothing waits in a cycle, every flow finishes."
        }
        .into(),
        topology,
        switch: SwitchSpec {
            buffer_bytes: 256 * 1024,
            ecn: None,
            pfc: Some(PfcThresholds {
                xoff_bytes: 24 * 1024,
                xon_bytes: 16 * 1024,
            }),
            routing: Routing::Ecmp,
        },
        dcqcn: None,
        traffic,
        mtu_bytes: 4096,
        duration_us: 50_000.0,
        sample_interval_us: 20.0,
        seed: 3,
    }
}
