//! The link model: per-direction data rate and a latency figure for each interconnect.
//!
//! Timing rule used by every transfer step in [`super`]:
//!
//! ```text
//! duration = latency + bytes × 8 / rate          (rate in Gb/s, bytes as carried on the link)
//! ```
//!
//! `rate` is the data rate in one direction after line encoding (128b/130b for PCIe Gen3–5,
//! 64b/66b or FEC-framed PAM4 for Ethernet and InfiniBand, where the standard rate already is
//! the data rate). For network links `bytes` includes every per-packet header, CRC, and for
//! Ethernet the preamble, SFD and inter-frame gap (`engine::capture::segment::packet_cost`).
//! PCIe TLP/DLLP overhead is not modelled: PCIe steps move payload bytes at the encoded rate,
//! which makes them slightly optimistic (a few per cent at 256-byte max payload).
//!
//! Rates come from primary specifications; no primary source gives a single latency for a
//! link, so every latency here is a named model assumption.

use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Serialize};

use super::FlowError;

/// Stable identifiers of the modelled links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LinkId {
    #[serde(rename = "pcie-gen4-x16")]
    PcieGen4X16,
    #[serde(rename = "pcie-gen5-x16")]
    PcieGen5X16,
    #[serde(rename = "nvlink3")]
    Nvlink3,
    #[serde(rename = "nvlink4")]
    Nvlink4,
    #[serde(rename = "nvlink5")]
    Nvlink5,
    #[serde(rename = "ib-hdr")]
    IbHdr,
    #[serde(rename = "ib-ndr")]
    IbNdr,
    #[serde(rename = "roce-100g")]
    Roce100g,
    #[serde(rename = "roce-200g")]
    Roce200g,
    #[serde(rename = "roce-400g")]
    Roce400g,
    #[serde(rename = "tcp-100g")]
    Tcp100g,
}

impl LinkId {
    /// Every link, in display order.
    pub const ALL: [LinkId; 11] = [
        LinkId::PcieGen4X16,
        LinkId::PcieGen5X16,
        LinkId::Nvlink3,
        LinkId::Nvlink4,
        LinkId::Nvlink5,
        LinkId::IbHdr,
        LinkId::IbNdr,
        LinkId::Roce100g,
        LinkId::Roce200g,
        LinkId::Roce400g,
        LinkId::Tcp100g,
    ];

    /// The stable id string (`"pcie-gen4-x16"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            LinkId::PcieGen4X16 => "pcie-gen4-x16",
            LinkId::PcieGen5X16 => "pcie-gen5-x16",
            LinkId::Nvlink3 => "nvlink3",
            LinkId::Nvlink4 => "nvlink4",
            LinkId::Nvlink5 => "nvlink5",
            LinkId::IbHdr => "ib-hdr",
            LinkId::IbNdr => "ib-ndr",
            LinkId::Roce100g => "roce-100g",
            LinkId::Roce200g => "roce-200g",
            LinkId::Roce400g => "roce-400g",
            LinkId::Tcp100g => "tcp-100g",
        }
    }

    /// The link's figures.
    pub fn link(self) -> Link {
        link(self)
    }

    /// Its kind.
    pub fn kind(self) -> LinkKind {
        match self {
            LinkId::PcieGen4X16 | LinkId::PcieGen5X16 => LinkKind::Pcie,
            LinkId::Nvlink3 | LinkId::Nvlink4 | LinkId::Nvlink5 => LinkKind::Nvlink,
            LinkId::IbHdr | LinkId::IbNdr => LinkKind::Infiniband,
            LinkId::Roce100g | LinkId::Roce200g | LinkId::Roce400g => LinkKind::Roce,
            LinkId::Tcp100g => LinkKind::Tcp,
        }
    }
}

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LinkId {
    type Err = FlowError;
    fn from_str(s: &str) -> Result<LinkId, FlowError> {
        LinkId::ALL
            .iter()
            .copied()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| FlowError::UnknownLink(s.to_string()))
    }
}

/// What sort of interconnect a link is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkKind {
    /// Host bus between CPU root complex, GPU and NIC.
    Pcie,
    /// GPU-to-GPU fabric inside a node (through NVSwitch).
    Nvlink,
    /// Native InfiniBand between hosts.
    Infiniband,
    /// RDMA over Converged Ethernet v2.
    Roce,
    /// Plain TCP/IP over Ethernet (kernel sockets).
    Tcp,
}

impl LinkKind {
    /// Whether the link joins hosts (as opposed to devices inside one host).
    pub fn is_network(self) -> bool {
        matches!(self, LinkKind::Infiniband | LinkKind::Roce | LinkKind::Tcp)
    }
    /// Whether RDMA transports run on it.
    pub fn is_rdma_network(self) -> bool {
        matches!(self, LinkKind::Infiniband | LinkKind::Roce)
    }
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Pcie => "PCIe",
            LinkKind::Nvlink => "NVLink",
            LinkKind::Infiniband => "InfiniBand",
            LinkKind::Roce => "RoCE v2",
            LinkKind::Tcp => "TCP/Ethernet",
        }
    }
}

/// The figures of one link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Link {
    pub id: LinkId,
    pub kind: LinkKind,
    /// Human name, e.g. "PCIe Gen4 x16".
    pub name: &'static str,
    /// Data rate per direction after line encoding, Gb/s (10^9 bit/s).
    pub gbps: f64,
    /// The same in GB/s (10^9 byte/s).
    pub gbytes_per_s: f64,
    /// Latency added once per transfer, ns.
    pub latency_ns: f64,
    /// What the latency covers.
    pub latency_scope: &'static str,
    /// True when the latency is a model assumption rather than a specified figure.
    pub latency_is_assumption: bool,
    /// Primary source of the rate.
    pub rate_source: &'static str,
}

impl Link {
    /// Time in ns to carry `bytes` one way: `latency + bytes × 8 / gbps`.
    pub fn transfer_ns(&self, bytes: u64) -> f64 {
        self.latency_ns + self.serialization_ns(bytes)
    }
    /// Time in ns to serialize `bytes` at the data rate alone.
    pub fn serialization_ns(&self, bytes: u64) -> f64 {
        bytes as f64 * 8.0 / self.gbps
    }
}

/// 128b/130b encoding efficiency of PCIe Gen3, Gen4 and Gen5 (PCI Express Base Specification
/// Rev. 5.0, §4.2.2 "Encoding for 8.0 GT/s and higher data rates").
pub const PCIE_128B130B: f64 = 128.0 / 130.0;

/// PCIe Gen4 raw signalling rate per lane, 16 GT/s (PCI Express Base Specification Rev. 4.0).
pub const PCIE_GEN4_GT_S: f64 = 16.0;
/// PCIe Gen5 raw signalling rate per lane, 32 GT/s (PCI Express Base Specification Rev. 5.0).
pub const PCIE_GEN5_GT_S: f64 = 32.0;

/// One-way latency of a PCIe transaction between a device and memory or a peer device
/// (through the root complex or a PCIe switch), ns.
///
/// Model assumption, not a measured or specified figure: published measurements of device
/// to memory round trips are in the high hundreds of ns to about 1 µs, so a few hundred ns one
/// way is the right order of magnitude.
pub const PCIE_LATENCY_NS: f64 = 300.0;

/// One-way latency of an NVLink transfer through NVSwitch, ns.
///
/// Model assumption, not a measured or specified figure: the order of magnitude (hundreds of
/// ns to about 1 µs) is what GPU-to-GPU microbenchmarks report.
pub const NVLINK_LATENCY_NS: f64 = 700.0;

/// Per-hop cable propagation plus PHY/FEC latency on an InfiniBand link, ns.
///
/// Model assumption, not a measured or specified figure: signals travel about 5 ns per metre,
/// so a few metres of copper or tens of metres of fibre plus the PAM4 FEC give ~100 ns.
pub const IB_HOP_LATENCY_NS: f64 = 100.0;

/// Per-hop cable propagation plus PHY/RS-FEC latency on an Ethernet link, ns.
///
/// Model assumption, not a measured or specified figure: like [`IB_HOP_LATENCY_NS`] with a
/// somewhat longer Reed–Solomon FEC pipeline.
pub const ETHERNET_HOP_LATENCY_NS: f64 = 150.0;

/// Port-to-port forwarding latency of a cut-through InfiniBand switch, ns.
///
/// Model assumption, not a measured or specified figure: vendor material for HDR/NDR switch
/// ASICs quotes the order of 100–200 ns.
pub const IB_SWITCH_LATENCY_NS: f64 = 150.0;

/// Port-to-port forwarding latency of a cut-through data-centre Ethernet switch, ns.
///
/// Model assumption, not a measured or specified figure: a few hundred ns is the usual order
/// of magnitude for cut-through Ethernet switch ASICs.
pub const ETHERNET_SWITCH_LATENCY_NS: f64 = 400.0;

const PCIE_SCOPE: &str = "one-way device↔memory or device↔device transaction";
const NVLINK_SCOPE: &str = "one-way GPU→GPU through NVSwitch";
const IB_SCOPE: &str = "one hop: cable propagation and PHY/FEC (switch forwarding separate)";
const ETH_SCOPE: &str = "one hop: cable propagation and PHY/RS-FEC (switch forwarding separate)";

fn pcie(id: LinkId, name: &'static str, gt_s: f64, source: &'static str) -> Link {
    // 16 lanes, each gt_s × 128/130 Gb/s of data.
    let gbps = gt_s * PCIE_128B130B * 16.0;
    Link {
        id,
        kind: LinkKind::Pcie,
        name,
        gbps,
        gbytes_per_s: gbps / 8.0,
        latency_ns: PCIE_LATENCY_NS,
        latency_scope: PCIE_SCOPE,
        latency_is_assumption: true,
        rate_source: source,
    }
}

fn fixed(id: LinkId, name: &'static str, gbps: f64, source: &'static str) -> Link {
    let kind = id.kind();
    let (latency_ns, latency_scope) = match kind {
        LinkKind::Pcie => (PCIE_LATENCY_NS, PCIE_SCOPE),
        LinkKind::Nvlink => (NVLINK_LATENCY_NS, NVLINK_SCOPE),
        LinkKind::Infiniband => (IB_HOP_LATENCY_NS, IB_SCOPE),
        LinkKind::Roce | LinkKind::Tcp => (ETHERNET_HOP_LATENCY_NS, ETH_SCOPE),
    };
    Link {
        id,
        kind,
        name,
        gbps,
        gbytes_per_s: gbps / 8.0,
        latency_ns,
        latency_scope,
        latency_is_assumption: true,
        rate_source: source,
    }
}

/// The figures of a link.
///
/// Rates and their primary sources:
/// - PCIe Gen4 x16: 16 GT/s × 128/130 × 16 lanes = 252.06 Gb/s = 31.51 GB/s per direction
///   (PCI Express Base Specification Rev. 4.0; 128b/130b encoding from Rev. 3.0 on).
/// - PCIe Gen5 x16: 32 GT/s × 128/130 × 16 = 504.12 Gb/s = 63.02 GB/s (Base Spec Rev. 5.0).
/// - NVLink 3 (A100): 12 links, 600 GB/s total both directions per GPU, so 300 GB/s per
///   direction (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020).
/// - NVLink 4 (H100): 18 links, 900 GB/s total both directions, 450 GB/s per direction
///   (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022).
/// - NVLink 5 (B200): 18 links × 100 GB/s = 1.8 TB/s total both directions, 900 GB/s per
///   direction (NVIDIA Blackwell architecture technical brief, 2024; nvidia.com NVLink page).
/// - InfiniBand HDR 4x: 200 Gb/s; NDR 4x: 400 Gb/s data rate (IBTA InfiniBand Architecture
///   Specification Vol. 2, physical layer; NVIDIA ConnectX-6 / ConnectX-7 datasheets).
/// - Ethernet 100/200/400 Gb/s MAC data rate (IEEE 802.3ba-2010 for 100GBASE-R; IEEE
///   802.3bs-2017 for 200GBASE-R and 400GBASE-R), used for RoCE v2 and TCP.
pub fn link(id: LinkId) -> Link {
    match id {
        LinkId::PcieGen4X16 => pcie(
            id,
            "PCIe Gen4 x16",
            PCIE_GEN4_GT_S,
            "PCI Express Base Specification Rev. 4.0: 16 GT/s per lane, 128b/130b",
        ),
        LinkId::PcieGen5X16 => pcie(
            id,
            "PCIe Gen5 x16",
            PCIE_GEN5_GT_S,
            "PCI Express Base Specification Rev. 5.0: 32 GT/s per lane, 128b/130b",
        ),
        LinkId::Nvlink3 => fixed(
            id,
            "NVLink 3 (A100, 12 links)",
            300.0 * 8.0,
            "NVIDIA A100 Tensor Core GPU Architecture whitepaper: 600 GB/s total per GPU",
        ),
        LinkId::Nvlink4 => fixed(
            id,
            "NVLink 4 (H100, 18 links)",
            450.0 * 8.0,
            "NVIDIA H100 Tensor Core GPU Architecture whitepaper: 900 GB/s total per GPU",
        ),
        LinkId::Nvlink5 => fixed(
            id,
            "NVLink 5 (B200, 18 links)",
            900.0 * 8.0,
            "NVIDIA Blackwell technical brief: 18 × 100 GB/s = 1.8 TB/s total per GPU",
        ),
        LinkId::IbHdr => fixed(
            id,
            "InfiniBand HDR 4x",
            200.0,
            "IBTA Architecture Specification Vol. 2 (HDR 4x); NVIDIA ConnectX-6 datasheet",
        ),
        LinkId::IbNdr => fixed(
            id,
            "InfiniBand NDR 4x",
            400.0,
            "IBTA Architecture Specification Vol. 2 (NDR 4x); NVIDIA ConnectX-7 datasheet",
        ),
        LinkId::Roce100g => fixed(
            id,
            "RoCE v2 over 100GbE",
            100.0,
            "IEEE 802.3ba-2010 (100GBASE-R)",
        ),
        LinkId::Roce200g => fixed(
            id,
            "RoCE v2 over 200GbE",
            200.0,
            "IEEE 802.3bs-2017 (200GBASE-R)",
        ),
        LinkId::Roce400g => fixed(
            id,
            "RoCE v2 over 400GbE",
            400.0,
            "IEEE 802.3bs-2017 (400GBASE-R)",
        ),
        LinkId::Tcp100g => fixed(
            id,
            "TCP over 100GbE",
            100.0,
            "IEEE 802.3ba-2010 (100GBASE-R)",
        ),
    }
}

/// Every link's figures, in [`LinkId::ALL`] order.
pub fn links() -> Vec<Link> {
    LinkId::ALL.iter().map(|&id| link(id)).collect()
}

/// Switch forwarding latency for a network link kind (0 for host links).
pub fn switch_latency_ns(kind: LinkKind) -> f64 {
    match kind {
        LinkKind::Infiniband => IB_SWITCH_LATENCY_NS,
        LinkKind::Roce | LinkKind::Tcp => ETHERNET_SWITCH_LATENCY_NS,
        LinkKind::Pcie | LinkKind::Nvlink => 0.0,
    }
}
