//! The path between two GPUs, hop by hop, in plane 0.
//!
//! Where several equal-cost spines or cores could carry a flow (ECMP or adaptive routing
//! picks one at run time), the path shows one chosen by a fixed rule on the destination
//! leaf, so the same pair always draws the same path.

use super::error::FabricError;
use super::sizing::Fabric;
use serde::Serialize;

/// One element of a path. Two GPUs in a row are one NVLink (or in-node) hop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hop {
    Gpu {
        gpu: u64,
        node: u64,
    },
    /// `rail` is the NIC port's index among the node's ports in this plane.
    Nic {
        node: u64,
        nic: u32,
        rail: u32,
    },
    /// Switch indices count from 0 within their tier and plane.
    Leaf {
        plane: u32,
        leaf: u64,
    },
    Spine {
        plane: u32,
        spine: u64,
    },
    Core {
        plane: u32,
        core: u64,
    },
}

/// A path from one GPU to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Path {
    pub hops: Vec<Hop>,
    /// Leaves, spines and cores crossed.
    pub switches: u32,
    /// GPU-to-GPU hops inside a node.
    pub nvlink_hops: u32,
    /// The data went over NVLink to a GPU on the destination's rail first (PXN).
    pub pxn: bool,
}

impl Fabric {
    fn gpus_total(&self) -> u64 {
        u64::from(self.spec.gpus)
    }

    /// The NIC a GPU uses: GPUs are shared out evenly over the node's NICs in order.
    /// `local_gpu` counts within its node.
    pub fn nic_of(&self, local_gpu: u32) -> u32 {
        // The `max(1)`s here and below only keep a hand-edited `Fabric` from dividing by
        // zero; `build` never makes one with a zero count.
        let n = u64::from(local_gpu) * u64::from(self.spec.nics_per_node)
            / u64::from(self.spec.gpus_per_node.max(1));
        n as u32
    }

    /// The rail of a NIC's first port in plane 0 (each NIC has nic_ports / planes ports in
    /// every plane).
    pub fn rail_of(&self, nic: u32) -> u32 {
        nic * (self.spec.nic_ports / self.spec.planes.max(1))
    }

    /// The leaf of (node, rail) in one plane.
    pub fn leaf_of(&self, node: u64, rail: u32) -> u64 {
        let down = u64::from(self.leaf.down_ports.max(1));
        if self.spec.rail_optimized {
            // Leaves are numbered by scalable unit, then rail.
            (node / down) * u64::from(self.rails) + u64::from(rail)
        } else {
            node / (down / u64::from(self.rails.max(1))).max(1)
        }
    }

    /// The switches from leaf `a` to leaf `b` in plane 0.
    fn switches_between(&self, a: u64, b: u64) -> Vec<Hop> {
        let plane = 0;
        if a == b {
            return vec![Hop::Leaf { plane, leaf: a }];
        }
        let lpp = self.leaves_per_pod.max(1);
        let spp = self.spines_per_pod.max(1);
        let (pod_a, pod_b) = (a / lpp, b / lpp);
        if self.tiers == 2 || pod_a == pod_b {
            let spine = pod_a * spp + b % spp;
            return vec![
                Hop::Leaf { plane, leaf: a },
                Hop::Spine { plane, spine },
                Hop::Leaf { plane, leaf: b },
            ];
        }
        // Spine j of each pod reaches core group j; the core is picked within the group.
        let j = b % spp;
        let cpg = self.cores_per_group.max(1);
        vec![
            Hop::Leaf { plane, leaf: a },
            Hop::Spine {
                plane,
                spine: pod_a * spp + j,
            },
            Hop::Core {
                plane,
                core: j * cpg + b % cpg,
            },
            Hop::Spine {
                plane,
                spine: pod_b * spp + j,
            },
            Hop::Leaf { plane, leaf: b },
        ]
    }

    /// The path from GPU `from` to GPU `to` (indices 0..gpus, node-major) in plane 0.
    ///
    /// Within a node the path is the node's own interconnect (NVLink/NVSwitch or PCIe),
    /// not the fabric. Across nodes it is GPU → NIC → leaf … leaf → NIC → GPU. With `pxn`
    /// and a rail-optimized fabric, a GPU whose NIC is on another rail than the
    /// destination's first hands the data over NVLink to the GPU of its node whose NIC is
    /// on the destination's rail (NCCL's PXN), so the traffic stays on one rail.
    pub fn path(&self, from: u64, to: u64, pxn: bool) -> Result<Path, FabricError> {
        let gpus = self.gpus_total();
        for gpu in [from, to] {
            if gpu >= gpus {
                return Err(FabricError::NoSuchGpu { gpu, gpus });
            }
        }
        let gpn = u64::from(self.spec.gpus_per_node.max(1));
        let (node_a, node_b) = (from / gpn, to / gpn);
        let (local_a, local_b) = ((from % gpn) as u32, (to % gpn) as u32);
        let src = Hop::Gpu {
            gpu: from,
            node: node_a,
        };
        let dst = Hop::Gpu {
            gpu: to,
            node: node_b,
        };
        if from == to {
            return Ok(Path {
                hops: vec![src],
                switches: 0,
                nvlink_hops: 0,
                pxn: false,
            });
        }
        if node_a == node_b {
            return Ok(Path {
                hops: vec![src, dst],
                switches: 0,
                nvlink_hops: 1,
                pxn: false,
            });
        }
        let nic_b = self.nic_of(local_b);
        let rail_b = self.rail_of(nic_b);
        let mut nic_a = self.nic_of(local_a);
        let mut hops = vec![src];
        let mut used_pxn = false;
        if pxn && self.spec.rail_optimized && self.rail_of(nic_a) != rail_b {
            // The first GPU of the source node on the destination's NIC index; none when
            // the node has more NICs than GPUs and that NIC has no GPU of its own.
            if let Some(proxy) = (0..self.spec.gpus_per_node).find(|&g| self.nic_of(g) == nic_b) {
                hops.push(Hop::Gpu {
                    gpu: node_a * gpn + u64::from(proxy),
                    node: node_a,
                });
                nic_a = nic_b;
                used_pxn = true;
            }
        }
        let rail_a = self.rail_of(nic_a);
        hops.push(Hop::Nic {
            node: node_a,
            nic: nic_a,
            rail: rail_a,
        });
        let switches =
            self.switches_between(self.leaf_of(node_a, rail_a), self.leaf_of(node_b, rail_b));
        let n_switches = switches.len() as u32;
        hops.extend(switches);
        hops.push(Hop::Nic {
            node: node_b,
            nic: nic_b,
            rail: rail_b,
        });
        hops.push(dst);
        Ok(Path {
            hops,
            switches: n_switches,
            nvlink_hops: u32::from(used_pxn),
            pxn: used_pxn,
        })
    }
}
