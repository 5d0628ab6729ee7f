//! Named GPUs and NICs, as `native-probe collective --gpu/--nic` and the /nccl calculator
//! offer them, and the [`Cluster`] a choice of them makes.
//!
//! Link rates are NCCL's own figures (see [`super::constants`]), so the model sees a GPU as
//! NCCL's topology code does. NVLink link counts: NVIDIA's V100, A100 and H100 architecture
//! whitepapers (6, 12 and 18 links), the H200 and HGX B200 product pages (18 links of
//! NVLink 4 and 5); the totals are also /bandwidth's NVLink rows. PCIe generations: the same
//! documents (V100 Gen3, A100 Gen4, H100/H200/B200 Gen5) and the Ada whitepaper for the
//! RTX 4090 (Gen4, no NVLink).

use super::constants::{ddr_channel_gbs, NVLINK_BW_PER_LINK, PCI_X16_BW_BY_GEN};
use super::error::CollectiveError;
use super::input::{Cluster, CpuVendor, IntraLink, Transport};
use serde::{Deserialize, Serialize};

/// A GPU model, as a node of that model is built (SXM boards on an NVSwitch where the model
/// has NVLink).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuModel {
    V100,
    A100,
    H100,
    H200,
    B200,
    #[serde(rename = "rtx4090")]
    Rtx4090,
}

impl GpuModel {
    pub const ALL: [GpuModel; 6] = [
        GpuModel::V100,
        GpuModel::A100,
        GpuModel::H100,
        GpuModel::H200,
        GpuModel::B200,
        GpuModel::Rtx4090,
    ];

    /// The short name the CLI and the page's URL use (`h100`).
    pub fn id(self) -> &'static str {
        match self {
            GpuModel::V100 => "v100",
            GpuModel::A100 => "a100",
            GpuModel::H100 => "h100",
            GpuModel::H200 => "h200",
            GpuModel::B200 => "b200",
            GpuModel::Rtx4090 => "rtx4090",
        }
    }

    pub fn from_id(id: &str) -> Option<GpuModel> {
        GpuModel::ALL.into_iter().find(|g| g.id() == id)
    }

    /// What a reader calls it.
    pub fn name(self) -> &'static str {
        match self {
            GpuModel::V100 => "V100 SXM2",
            GpuModel::A100 => "A100 SXM4",
            GpuModel::H100 => "H100 SXM5",
            GpuModel::H200 => "H200 SXM",
            GpuModel::B200 => "B200 (HGX B200)",
            GpuModel::Rtx4090 => "GeForce RTX 4090",
        }
    }

    /// CUDA compute capability × 10.
    pub fn compute_capability(self) -> u32 {
        match self {
            GpuModel::V100 => 70,
            GpuModel::A100 => 80,
            GpuModel::H100 | GpuModel::H200 => 90,
            GpuModel::B200 => 100,
            GpuModel::Rtx4090 => 89,
        }
    }

    /// NVLink links per GPU; 0 without NVLink.
    pub fn nvlink_links(self) -> u32 {
        match self {
            GpuModel::V100 => 6,
            GpuModel::A100 => 12,
            GpuModel::H100 | GpuModel::H200 | GpuModel::B200 => 18,
            GpuModel::Rtx4090 => 0,
        }
    }

    /// PCIe generation of the GPU's x16 host link.
    pub fn pcie_gen(self) -> u32 {
        match self {
            GpuModel::V100 => 3,
            GpuModel::A100 | GpuModel::Rtx4090 => 4,
            GpuModel::H100 | GpuModel::H200 | GpuModel::B200 => 5,
        }
    }

    /// The node's NVSwitches can multicast (NVLink SHARP, which NCCL's NVLS needs): third-
    /// generation NVSwitch and later, with Hopper and Blackwell.
    pub fn nvswitch_multicast(self) -> bool {
        matches!(self, GpuModel::H100 | GpuModel::H200 | GpuModel::B200)
    }

    /// GPUDirect RDMA is offered: NVIDIA's GPUDirect RDMA guide names data-center
    /// (formerly Tesla) and professional (Quadro) GPUs; GeForce cards are not among them.
    pub fn gpudirect_rdma(self) -> bool {
        self != GpuModel::Rtx4090
    }

    /// One GPU's NVLink bandwidth to the rest of its node, GB/s, one direction, as NCCL
    /// counts it: links × NCCL's per-link figure for the generation. 0 without NVLink.
    pub fn nvlink_gbs(self) -> f64 {
        let generation = match self.compute_capability() {
            cc if cc >= 100 => 3,
            cc if cc >= 90 => 2,
            cc if cc >= 80 => 1,
            _ => 0,
        };
        f64::from(self.nvlink_links()) * NVLINK_BW_PER_LINK[generation]
    }

    /// The GPU's x16 PCIe link, GB/s, one direction, as NCCL counts it.
    pub fn pcie_gbs(self) -> f64 {
        PCI_X16_BW_BY_GEN[(self.pcie_gen() - 3) as usize]
    }

    /// Host memory bandwidth of this GPU's reference node, GB/s, reads and writes together:
    /// sockets × channels × [`ddr_channel_gbs`], the peak, so the staging bound it sets is
    /// the best case. CPUs: DGX-1 user guide (2 × Xeon E5-2698 v4), DGX A100 user guide
    /// (2 × EPYC 7742), DGX BasePOD reference architecture, "Core Components" (DGX H100 and
    /// H200: 2 × Xeon Platinum 8480C), DGX B200 user guide (2 × Xeon Platinum 8570); their
    /// memory channels and speeds: Intel's product pages (E5-2698 v4: 4 × DDR4-2400;
    /// 8480+: 8 × DDR5-4800; 8570: 8 × DDR5-5600) and AMD's (7742: 8 × DDR4-3200). The
    /// RTX 4090 has no reference node: the DGX H100's figure is our assumption.
    pub fn host_memory_gbs(self) -> f64 {
        let (sockets, channels, speed) = match self {
            GpuModel::V100 => (2.0, 4.0, 2400),
            GpuModel::A100 => (2.0, 8.0, 3200),
            GpuModel::H100 | GpuModel::H200 | GpuModel::Rtx4090 => (2.0, 8.0, 4800),
            GpuModel::B200 => (2.0, 8.0, 5600),
        };
        sockets * channels * ddr_channel_gbs(speed)
    }

    /// The reference node [`GpuModel::host_memory_gbs`] reads, in words.
    pub fn host_system(self) -> &'static str {
        match self {
            GpuModel::V100 => "a DGX-1: 2 × Xeon E5-2698 v4, 4 channels of DDR4-2400 each",
            GpuModel::A100 => "a DGX A100: 2 × EPYC 7742, 8 channels of DDR4-3200 each",
            GpuModel::H100 | GpuModel::H200 => {
                "a DGX H100 or H200: 2 × Xeon Platinum 8480C, 8 channels of DDR5-4800 each"
            }
            GpuModel::B200 => "a DGX B200: 2 × Xeon Platinum 8570, 8 channels of DDR5-5600 each",
            GpuModel::Rtx4090 => {
                "assumed like a DGX H100's, 2 sockets × 8 channels of DDR5-4800: no reference \
                 node has RTX 4090s"
            }
        }
    }
}

/// A scale-out NIC: its transport and line rate. The names say the link layer and the rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NicModel {
    /// No network: one node only.
    #[serde(rename = "none")]
    None,
    #[serde(rename = "tcp-10")]
    Tcp10,
    #[serde(rename = "tcp-25")]
    Tcp25,
    #[serde(rename = "tcp-100")]
    Tcp100,
    #[serde(rename = "roce-100")]
    Roce100,
    #[serde(rename = "roce-200")]
    Roce200,
    #[serde(rename = "roce-400")]
    Roce400,
    #[serde(rename = "hdr-200")]
    Hdr200,
    #[serde(rename = "ndr-400")]
    Ndr400,
    #[serde(rename = "xdr-800")]
    Xdr800,
}

impl NicModel {
    pub const ALL: [NicModel; 10] = [
        NicModel::None,
        NicModel::Tcp10,
        NicModel::Tcp25,
        NicModel::Tcp100,
        NicModel::Roce100,
        NicModel::Roce200,
        NicModel::Roce400,
        NicModel::Hdr200,
        NicModel::Ndr400,
        NicModel::Xdr800,
    ];

    /// The short name the CLI and the page's URL use (`ndr-400`).
    pub fn id(self) -> &'static str {
        match self {
            NicModel::None => "none",
            NicModel::Tcp10 => "tcp-10",
            NicModel::Tcp25 => "tcp-25",
            NicModel::Tcp100 => "tcp-100",
            NicModel::Roce100 => "roce-100",
            NicModel::Roce200 => "roce-200",
            NicModel::Roce400 => "roce-400",
            NicModel::Hdr200 => "hdr-200",
            NicModel::Ndr400 => "ndr-400",
            NicModel::Xdr800 => "xdr-800",
        }
    }

    pub fn from_id(id: &str) -> Option<NicModel> {
        NicModel::ALL.into_iter().find(|n| n.id() == id)
    }

    /// The network without its rate, as a link that knows no rate names it (an NCCL log's
    /// explainer does): `roce`, `ib` (InfiniBand), `tcp` or `none`.
    pub fn family(self) -> &'static str {
        match self {
            NicModel::None => "none",
            NicModel::Tcp10 | NicModel::Tcp25 | NicModel::Tcp100 => "tcp",
            NicModel::Roce100 | NicModel::Roce200 | NicModel::Roce400 => "roce",
            NicModel::Hdr200 | NicModel::Ndr400 | NicModel::Xdr800 => "ib",
        }
    }

    /// The model of the network `family` (see [`NicModel::family`]) at `gbps`; when it has
    /// none at that rate, its fastest below it, else its slowest.
    pub fn of_family(family: &str, gbps: f64) -> Option<NicModel> {
        // ALL lists each network's models from the slowest.
        let models = NicModel::ALL.into_iter().filter(|n| n.family() == family);
        models
            .clone()
            .rfind(|n| n.gbps() <= gbps)
            .or_else(|| models.into_iter().next())
    }

    /// What a reader calls it.
    pub fn name(self) -> &'static str {
        match self {
            NicModel::None => "no network (one node)",
            NicModel::Tcp10 => "10 GbE, TCP sockets",
            NicModel::Tcp25 => "25 GbE, TCP sockets",
            NicModel::Tcp100 => "100 GbE, TCP sockets",
            NicModel::Roce100 => "100 GbE, RoCE v2",
            NicModel::Roce200 => "200 GbE, RoCE v2",
            NicModel::Roce400 => "400 GbE, RoCE v2",
            NicModel::Hdr200 => "InfiniBand HDR, 200 Gb/s",
            NicModel::Ndr400 => "InfiniBand NDR, 400 Gb/s",
            NicModel::Xdr800 => "InfiniBand XDR, 800 Gb/s",
        }
    }

    /// Line rate of one NIC, Gb/s, one direction (0 for none).
    pub fn gbps(self) -> f64 {
        match self {
            NicModel::None => 0.0,
            NicModel::Tcp10 => 10.0,
            NicModel::Tcp25 => 25.0,
            NicModel::Tcp100 | NicModel::Roce100 => 100.0,
            NicModel::Roce200 | NicModel::Hdr200 => 200.0,
            NicModel::Roce400 | NicModel::Ndr400 => 400.0,
            NicModel::Xdr800 => 800.0,
        }
    }

    /// NCCL's transport over it; `None` for no network.
    pub fn transport(self) -> Option<Transport> {
        match self {
            NicModel::None => None,
            NicModel::Tcp10 | NicModel::Tcp25 | NicModel::Tcp100 => Some(Transport::Socket),
            _ => Some(Transport::Verbs),
        }
    }

    /// InfiniBand, where switches can reduce in the network (SHARP).
    pub fn infiniband(self) -> bool {
        matches!(self, NicModel::Hdr200 | NicModel::Ndr400 | NicModel::Xdr800)
    }
}

/// Machines described by their model names: what `native-probe collective` and the /nccl
/// calculator ask for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machines {
    pub gpu: GpuModel,
    pub gpus_per_node: u32,
    pub nodes: u32,
    pub nic: NicModel,
    pub nics_per_node: u32,
    /// Use GPUDirect RDMA where the GPU and the transport allow it.
    pub gdr: bool,
    /// In-network reduction (SHARP through NCCL's CollNet plugin), InfiniBand only.
    pub sharp: bool,
}

impl Machines {
    /// GPUDirect RDMA is in use: asked for, the GPU offers it and the NIC speaks verbs.
    pub fn gdr_in_use(&self) -> bool {
        self.gdr && self.gpu.gpudirect_rdma() && self.nic.transport() == Some(Transport::Verbs)
    }

    /// The cluster the cost model reads, or the reason these machines make none (named by
    /// the field: `nic`, `sharp`, or a [`Cluster`] field).
    pub fn cluster(&self) -> Result<Cluster, CollectiveError> {
        let transport = match (self.nic.transport(), self.nodes) {
            (Some(t), _) => t,
            (None, 1) => Transport::Verbs,
            (None, _) => {
                return Err(CollectiveError::invalid(
                    "nic",
                    "more than one node needs a network: pick a NIC",
                ))
            }
        };
        if self.sharp && !self.nic.infiniband() {
            return Err(CollectiveError::invalid(
                "sharp",
                "in-network reduction (SHARP) runs in InfiniBand switches: pick an hdr, ndr \
                 or xdr NIC",
            ));
        }
        let nvlink = self.gpu.nvlink_links() > 0;
        let cluster = Cluster {
            nodes: self.nodes,
            gpus_per_node: self.gpus_per_node,
            compute_capability: self.gpu.compute_capability(),
            intra_link: if nvlink {
                IntraLink::NvLink
            } else {
                IntraLink::Pcie
            },
            intra_gbs: if nvlink {
                self.gpu.nvlink_gbs()
            } else {
                self.gpu.pcie_gbs()
            },
            pcie_gbs: self.gpu.pcie_gbs(),
            nvswitch: self.gpu.nvswitch_multicast(),
            nics_per_node: if self.nic == NicModel::None {
                0
            } else {
                self.nics_per_node
            },
            nic_gbps: self.nic.gbps(),
            transport,
            gdr: self.gdr_in_use(),
            sharp: self.sharp && self.nodes > 1,
            cpu_vendor: CpuVendor::Intel,
            host_memory_gbs: self.gpu.host_memory_gbs(),
            channels: None,
        };
        cluster.validate()?;
        Ok(cluster)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machines(gpu: GpuModel, nic: NicModel, nodes: u32) -> Machines {
        Machines {
            gpu,
            gpus_per_node: 8,
            nodes,
            nic,
            nics_per_node: 8,
            gdr: true,
            sharp: false,
        }
    }

    #[test]
    fn ids_round_trip_and_match_serde() {
        for g in GpuModel::ALL {
            assert_eq!(GpuModel::from_id(g.id()), Some(g));
            assert_eq!(
                serde_json::to_string(&g).unwrap(),
                format!("\"{}\"", g.id())
            );
        }
        for n in NicModel::ALL {
            assert_eq!(NicModel::from_id(n.id()), Some(n));
            assert_eq!(
                serde_json::to_string(&n).unwrap(),
                format!("\"{}\"", n.id())
            );
        }
        assert_eq!(GpuModel::from_id("H100"), None);
    }

    #[test]
    fn a_network_without_a_rate_takes_the_nearest_rate_it_has() {
        assert_eq!(NicModel::of_family("roce", 400.0), Some(NicModel::Roce400));
        assert_eq!(NicModel::of_family("ib", 400.0), Some(NicModel::Ndr400));
        assert_eq!(NicModel::of_family("ib", 800.0), Some(NicModel::Xdr800));
        assert_eq!(NicModel::of_family("tcp", 400.0), Some(NicModel::Tcp100));
        assert_eq!(NicModel::of_family("roce", 25.0), Some(NicModel::Roce100));
        assert_eq!(NicModel::of_family("none", 400.0), Some(NicModel::None));
        assert_eq!(NicModel::of_family("ethernet", 400.0), None);
        for n in NicModel::ALL {
            assert_eq!(NicModel::of_family(n.family(), n.gbps()), Some(n));
        }
    }

    #[test]
    fn h100_is_18_links_at_nccls_sm90_rate_on_gen5() {
        // topo.h: SM90_NVLINK_BW 20.6 per link; Gen5 x16 = 16 × 240 / 80 = 48.
        let c = machines(GpuModel::H100, NicModel::Ndr400, 2)
            .cluster()
            .unwrap();
        assert!((c.intra_gbs - 18.0 * 20.6).abs() < 1e-9);
        assert_eq!(c.pcie_gbs, 48.0);
        assert!(c.nvswitch && c.gdr);
        assert_eq!(c.transport, Transport::Verbs);
    }

    #[test]
    fn consumer_gpus_have_pcie_only_and_no_gdr() {
        let m = machines(GpuModel::Rtx4090, NicModel::Roce100, 2);
        let c = m.cluster().unwrap();
        assert_eq!(c.intra_link, IntraLink::Pcie);
        assert_eq!(c.intra_gbs, 24.0);
        assert!(!c.nvswitch && !c.gdr);
    }

    #[test]
    fn sockets_never_use_gdr_and_a_missing_network_is_named() {
        let c = machines(GpuModel::H100, NicModel::Tcp100, 2)
            .cluster()
            .unwrap();
        assert_eq!(c.transport, Transport::Socket);
        assert!(!c.gdr);
        let e = machines(GpuModel::H100, NicModel::None, 2)
            .cluster()
            .unwrap_err();
        assert!(e.to_string().contains("nic"), "{e}");
        assert!(machines(GpuModel::H100, NicModel::None, 1)
            .cluster()
            .is_ok());
        let mut sharp_on_roce = machines(GpuModel::H100, NicModel::Roce400, 2);
        sharp_on_roce.sharp = true;
        assert!(sharp_on_roce
            .cluster()
            .unwrap_err()
            .to_string()
            .contains("sharp"));
    }
}
