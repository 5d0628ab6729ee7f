//! The scenario data model: actors on a grid, timed steps, and totals.

use core::fmt;
use serde::{Deserialize, Serialize};

use super::link::LinkId;
use crate::FieldError;

/// What an actor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActorKind {
    /// The application running on a CPU core (user space).
    Application,
    /// The operating-system kernel on the same CPU (syscalls, interrupts, TCP/IP).
    Kernel,
    HostMemory,
    GpuMemory,
    PcieSwitch,
    Nic,
    NvSwitch,
    LeafSwitch,
    SpineSwitch,
    /// The rest of a cluster, drawn as one box (e.g. the other nodes of a collective).
    RemoteCluster,
}

/// Which side of the stage an actor stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Local,
    Fabric,
    Remote,
}

/// Where to draw an actor: a cell on a grid, column 0 at the left, row 0 at the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Layout {
    pub column: u8,
    pub row: u8,
}

/// One participant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Actor {
    /// Unique within a scenario, e.g. `"nic"`, `"remote-gpu"`.
    pub id: String,
    pub kind: ActorKind,
    pub label: String,
    pub side: Side,
    pub layout: Layout,
}

/// What moves in a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepKind {
    /// Software runs on the CPU (a verbs call, a stack, a loop): nothing crosses a link.
    CpuWork,
    /// The CPU writes a work queue element into host memory.
    WqeWrite,
    /// An MMIO write into the NIC's doorbell register.
    Doorbell,
    /// WQE (and inline data) pushed into the NIC by MMIO: BlueFlame.
    BlueFlame,
    /// A device reads memory over PCIe (request, or the completion carrying data).
    DmaRead,
    /// A device writes memory over PCIe.
    DmaWrite,
    /// The NIC works on its own (parsing, scheduling, atomics, CNP generation).
    NicWork,
    /// Data packets on the network.
    Packet,
    /// A packet lost in the fabric.
    PacketDrop,
    Ack,
    Nak,
    /// A completion queue entry written to host memory.
    Cqe,
    /// An interrupt raised by a device.
    Interrupt,
    /// A congestion notification packet (RoCE v2 annex A17).
    Cnp,
    /// An IEEE 802.1Qbb PFC PAUSE frame.
    PauseFrame,
    /// The CPU copies data between buffers (user↔kernel socket copy, memcpy).
    SocketCopy,
    /// A copy by the GPU's copy engine between GPU and host memory (cudaMemcpy).
    GpuCopy,
    NvlinkTransfer,
    /// A system call into the kernel.
    Syscall,
    /// A timer runs out (ACK timeout, RNR timer, pause).
    Wait,
    /// A control message (out-of-band connection setup, state change).
    Control,
}

/// Where time goes, for the breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// User-space software on the CPU (verbs calls, NCCL, CUDA API overhead).
    HostSoftware,
    /// Kernel work: syscalls, the TCP/IP stack, interrupt handling.
    Kernel,
    /// CPU copies of the payload.
    Memcpy,
    Pcie,
    NicProcessing,
    /// Putting bits on the wire at the data rate.
    WireSerialization,
    /// Cable propagation and PHY latency.
    Propagation,
    /// Switch forwarding.
    Switch,
    Nvlink,
    /// Timers and protocol waits.
    Waiting,
}

impl Category {
    /// Every category, in breakdown order.
    pub const ALL: [Category; 10] = [
        Category::HostSoftware,
        Category::Kernel,
        Category::Memcpy,
        Category::Pcie,
        Category::NicProcessing,
        Category::WireSerialization,
        Category::Propagation,
        Category::Switch,
        Category::Nvlink,
        Category::Waiting,
    ];

    /// Whether the CPU is busy during time of this category.
    pub fn occupies_cpu(self) -> bool {
        matches!(
            self,
            Category::HostSoftware | Category::Kernel | Category::Memcpy
        )
    }
}

/// A share of a step's duration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimePart {
    pub category: Category,
    pub ns: f64,
}

/// How a step's duration was computed, so it can be checked against the link model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case")]
pub enum Timing {
    /// A fixed cost: a named model constant or a protocol timer.
    Fixed { ns: f64, basis: String },
    /// `latency + bytes × 8 / gbps` over one link.
    Transfer {
        link: LinkId,
        latency_ns: f64,
        gbps: f64,
        /// Bytes on the link, headers included for network links.
        bytes: u64,
    },
    /// A message crossing the fabric through cut-through switches:
    /// `bytes × 8 / gbps + cables × latency + switches × switch_ns`, where `bytes` are the
    /// bytes serialized in this step (headers included).
    Fabric {
        link: LinkId,
        bytes: u64,
        cables: u32,
        switches: u32,
        latency_ns: f64,
        switch_ns: f64,
        gbps: f64,
    },
    /// A ring collective phase over `ranks` ranks:
    /// `steps × per_step_latency + factor × bytes / bandwidth`.
    Ring {
        link: LinkId,
        ranks: u32,
        steps: u32,
        per_step_latency_ns: f64,
        /// (k−1)/k for reduce-scatter and all-gather, 2(k−1)/k for all-reduce.
        factor: f64,
        bytes: u64,
        gbps: f64,
    },
    /// A CPU copy at the memcpy rate: `fixed_ns + bytes × 8 / gbps`.
    Copy {
        fixed_ns: f64,
        bytes: u64,
        gbps: f64,
    },
}

/// One thing that happens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Position in the scenario's step list.
    pub index: usize,
    /// Actor that acts or sends.
    pub from: String,
    /// Actor that receives (equal to `from` for local work).
    pub to: String,
    /// Actors the step passes through on its way (for drawing the route).
    pub via: Vec<String>,
    pub kind: StepKind,
    pub title: String,
    /// Payload bytes that move (0 for pure work).
    pub bytes: u64,
    /// The link it crosses, if any.
    pub link: Option<LinkId>,
    pub start_ns: f64,
    pub duration_ns: f64,
    pub timing: Timing,
    /// Category split of `duration_ns` (sums to it).
    pub parts: Vec<TimePart>,
    /// The step this one waits for.
    pub after: Option<usize>,
    /// On the end-to-end critical path (counted in the latency breakdown).
    pub critical: bool,
    /// Copies of the payload made in this step.
    pub copies: u32,
    pub syscalls: u32,
    pub interrupts: u32,
    /// CPU time this step consumes.
    pub cpu_busy_ns: f64,
    pub explanation: String,
    /// Reference topic path, e.g. `"/verbs"`.
    pub topic: String,
}

impl Step {
    /// When the step ends.
    pub fn end_ns(&self) -> f64 {
        self.start_ns + self.duration_ns
    }
}

/// Time per category.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CategoryTime {
    pub category: Category,
    pub ns: f64,
}

/// Totals of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// End of the last critical step (the scenario starts at 0).
    pub end_to_end_ns: f64,
    /// Critical-path time by category, every category listed; sums to `end_to_end_ns`.
    pub breakdown: Vec<CategoryTime>,
    /// Copies of the payload made by a CPU or a GPU copy engine.
    pub data_copies: u32,
    pub syscalls: u32,
    pub interrupts: u32,
    /// CPU busy time, critical or not.
    pub cpu_busy_ns: f64,
}

impl Totals {
    /// Time of one category.
    pub fn category_ns(&self, category: Category) -> f64 {
        self.breakdown
            .iter()
            .find(|c| c.category == category)
            .map_or(0.0, |c| c.ns)
    }
}

/// A named figure the scenario computed (rates, phase times, bandwidths).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub unit: String,
}

/// One phase of a collective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectivePhase {
    pub name: String,
    pub link: LinkId,
    /// Ranks in the ring of this phase.
    pub ranks: u32,
    /// Bytes the phase operates on per rank (the buffer the ring divides).
    pub bytes: u64,
    pub time_ns: f64,
}

/// Collective results as nccl-tests reports them (NVIDIA/nccl-tests doc/PERFORMANCE.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectiveSummary {
    /// Total ranks n = nodes × GPUs per node.
    pub ranks: u32,
    /// Buffer size S in bytes.
    pub bytes: u64,
    pub phases: Vec<CollectivePhase>,
    pub time_ns: f64,
    /// algbw = S / t, GB/s.
    pub algbw_gbytes_per_s: f64,
    /// busbw = algbw × 2(n−1)/n, GB/s.
    pub busbw_gbytes_per_s: f64,
}

/// A complete scenario, ready to play.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub summary: String,
    /// Grid size for the layout hints.
    pub columns: u8,
    pub rows: u8,
    pub actors: Vec<Actor>,
    pub steps: Vec<Step>,
    pub totals: Totals,
    pub figures: Vec<Figure>,
    pub collective: Option<CollectiveSummary>,
}

impl Scenario {
    /// An actor by id.
    pub fn actor(&self, id: &str) -> Option<&Actor> {
        self.actors.iter().find(|a| a.id == id)
    }
}

/// Why a scenario could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FlowError {
    /// No scenario has this id.
    UnknownScenario(String),
    /// No link has this id.
    UnknownLink(String),
    /// A parameter is out of range or does not fit the scenario: the value given, and the
    /// field refused.
    Param { value: String, error: FieldError },
    /// A link parameter names a link of the wrong kind.
    WrongLinkKind {
        field: String,
        link: LinkId,
        expected: String,
    },
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::UnknownScenario(id) => write!(f, "no scenario named {id:?}"),
            FlowError::UnknownLink(id) => write!(f, "no link named {id:?}"),
            FlowError::Param { value, error } => {
                write!(f, "{} = {value}: {}", error.field, error.reason)
            }
            FlowError::WrongLinkKind {
                field,
                link,
                expected,
            } => write!(f, "{field} = {link}: expected {expected}"),
        }
    }
}

impl std::error::Error for FlowError {}
