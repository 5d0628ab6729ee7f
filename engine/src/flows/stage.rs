//! Building scenarios: the actor catalogue with layout hints, and a timeline that places
//! steps one after another and adds up the totals.

use super::link::{switch_latency_ns, Link, LinkId, LinkKind};
use super::model::{
    Actor, ActorKind, Category, CategoryTime, CollectiveSummary, Figure, Layout, Scenario, Side,
    Step, StepKind, TimePart, Timing, Totals,
};
use crate::capture::segment::{packet_cost, Framing, IFG, MIN_ETHERNET_FRAME, PREAMBLE_SFD};

/// Every actor a scenario can use. The grid: the local host on the left (columns 0–2), the
/// fabric in the middle (3–5), the remote host on the right (6–8); rows go from software
/// (0) down to memories (2–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Who {
    App,
    Kernel,
    HostMem,
    Gpu,
    PcieSw,
    NvSwitch,
    Nic,
    Leaf,
    Spine,
    RemoteLeaf,
    RemoteNic,
    RemotePcieSw,
    RemoteApp,
    RemoteKernel,
    RemoteHostMem,
    RemoteGpu,
    Cluster,
}

/// Grid size.
pub(crate) const COLUMNS: u8 = 9;
pub(crate) const ROWS: u8 = 4;

impl Who {
    fn spec(self) -> (&'static str, ActorKind, &'static str, Side, u8, u8) {
        use ActorKind as K;
        use Side::*;
        match self {
            Who::App => ("app", K::Application, "Application (CPU)", Local, 0, 0),
            Who::Kernel => ("kernel", K::Kernel, "Kernel (CPU)", Local, 0, 1),
            Who::HostMem => ("host-mem", K::HostMemory, "Host memory", Local, 0, 2),
            Who::Gpu => ("gpu", K::GpuMemory, "GPU memory", Local, 1, 3),
            Who::PcieSw => ("pcie-sw", K::PcieSwitch, "PCIe switch", Local, 1, 2),
            Who::NvSwitch => ("nvswitch", K::NvSwitch, "NVSwitch", Local, 0, 3),
            Who::Nic => ("nic", K::Nic, "NIC", Local, 2, 2),
            Who::Leaf => ("leaf", K::LeafSwitch, "Leaf switch", Fabric, 3, 1),
            Who::Spine => ("spine", K::SpineSwitch, "Spine switch", Fabric, 4, 0),
            Who::RemoteLeaf => ("remote-leaf", K::LeafSwitch, "Leaf switch", Fabric, 5, 1),
            Who::RemoteNic => ("remote-nic", K::Nic, "Remote NIC", Remote, 6, 2),
            Who::RemotePcieSw => (
                "remote-pcie-sw",
                K::PcieSwitch,
                "Remote PCIe switch",
                Remote,
                7,
                2,
            ),
            Who::RemoteApp => (
                "remote-app",
                K::Application,
                "Remote application (CPU)",
                Remote,
                8,
                0,
            ),
            Who::RemoteKernel => (
                "remote-kernel",
                K::Kernel,
                "Remote kernel (CPU)",
                Remote,
                8,
                1,
            ),
            Who::RemoteHostMem => (
                "remote-host-mem",
                K::HostMemory,
                "Remote host memory",
                Remote,
                8,
                2,
            ),
            Who::RemoteGpu => (
                "remote-gpu",
                K::GpuMemory,
                "Remote GPU memory",
                Remote,
                7,
                3,
            ),
            Who::Cluster => (
                "cluster",
                K::RemoteCluster,
                "The other nodes (same rail)",
                Remote,
                6,
                1,
            ),
        }
    }

    pub(crate) fn id(self) -> &'static str {
        self.spec().0
    }

    fn actor(self) -> Actor {
        let (id, kind, label, side, column, row) = self.spec();
        Actor {
            id: id.to_string(),
            kind,
            label: label.to_string(),
            side,
            layout: Layout { column, row },
        }
    }
}

/// A step before it is placed in time.
pub(crate) struct StepSpec {
    pub from: Who,
    pub to: Who,
    pub via: Vec<Who>,
    pub kind: StepKind,
    pub title: String,
    pub bytes: u64,
    pub link: Option<LinkId>,
    pub timing: Timing,
    pub parts: Vec<TimePart>,
    pub copies: u32,
    pub syscalls: u32,
    pub interrupts: u32,
    pub explanation: String,
    pub topic: &'static str,
}

impl StepSpec {
    /// A step whose duration and split are `cost`.
    pub(crate) fn new(
        from: Who,
        to: Who,
        kind: StepKind,
        title: impl Into<String>,
        cost: Cost,
        topic: &'static str,
        explanation: impl Into<String>,
    ) -> StepSpec {
        StepSpec {
            from,
            to,
            via: Vec::new(),
            kind,
            title: title.into(),
            bytes: 0,
            link: cost.link,
            timing: cost.timing,
            parts: cost.parts,
            copies: 0,
            syscalls: 0,
            interrupts: 0,
            explanation: explanation.into(),
            topic,
        }
    }
    pub(crate) fn via(mut self, via: &[Who]) -> StepSpec {
        self.via = via.to_vec();
        self
    }
    pub(crate) fn bytes(mut self, bytes: u64) -> StepSpec {
        self.bytes = bytes;
        self
    }
    pub(crate) fn copies(mut self, n: u32) -> StepSpec {
        self.copies = n;
        self
    }
    pub(crate) fn syscalls(mut self, n: u32) -> StepSpec {
        self.syscalls = n;
        self
    }
    pub(crate) fn interrupts(mut self, n: u32) -> StepSpec {
        self.interrupts = n;
        self
    }
}

/// A duration with its model and category split.
pub(crate) struct Cost {
    pub link: Option<LinkId>,
    pub timing: Timing,
    pub parts: Vec<TimePart>,
}

fn part(category: Category, ns: f64) -> TimePart {
    TimePart { category, ns }
}

/// A fixed cost of one category.
pub(crate) fn fixed(ns: f64, category: Category, basis: &str) -> Cost {
    Cost {
        link: None,
        timing: Timing::Fixed {
            ns,
            basis: basis.to_string(),
        },
        parts: vec![part(category, ns)],
    }
}

/// `latency + bytes × 8 / rate` over one link (bytes as carried, headers included).
pub(crate) fn transfer(link: &Link, bytes: u64) -> Cost {
    let ser = link.serialization_ns(bytes);
    let parts = match link.kind {
        LinkKind::Pcie => vec![part(Category::Pcie, link.latency_ns + ser)],
        LinkKind::Nvlink => vec![part(Category::Nvlink, link.latency_ns + ser)],
        _ => vec![
            part(Category::WireSerialization, ser),
            part(Category::Propagation, link.latency_ns),
        ],
    };
    Cost {
        link: Some(link.id),
        timing: Timing::Transfer {
            link: link.id,
            latency_ns: link.latency_ns,
            gbps: link.gbps,
            bytes,
        },
        parts,
    }
}

/// The tail of a message crossing `cables` cables and `switches` cut-through switches after
/// it has been serialized: `switches × switch + cables × latency + bytes × 8 / rate` with
/// `bytes` the bytes serialized in this step (0 when an earlier step serialized them).
pub(crate) fn fabric(link: &Link, bytes: u64, cables: u32, switches: u32) -> Cost {
    let switch_ns = switch_latency_ns(link.kind);
    let ser = link.serialization_ns(bytes);
    Cost {
        link: Some(link.id),
        timing: Timing::Fabric {
            link: link.id,
            bytes,
            cables,
            switches,
            latency_ns: link.latency_ns,
            switch_ns,
            gbps: link.gbps,
        },
        parts: vec![
            part(Category::WireSerialization, ser),
            part(Category::Propagation, f64::from(cables) * link.latency_ns),
            part(Category::Switch, f64::from(switches) * switch_ns),
        ],
    }
}

/// A CPU copy of `bytes` at the memcpy rate.
pub(crate) fn cpu_copy(bytes: u64, fixed_ns: f64, gbps: f64) -> Cost {
    let ns = fixed_ns + bytes as f64 * 8.0 / gbps;
    Cost {
        link: None,
        timing: Timing::Copy {
            fixed_ns,
            bytes,
            gbps,
        },
        parts: vec![part(Category::Memcpy, ns)],
    }
}

/// Cables between two hosts on different leaves: NIC → leaf → spine → leaf → NIC.
pub const PATH_CABLES: u32 = 4;
/// Cut-through switches on that path.
pub const PATH_SWITCHES: u32 = 3;
/// Switches along the path, for drawing.
pub(crate) const FORWARD_VIA: [Who; 3] = [Who::Leaf, Who::Spine, Who::RemoteLeaf];
pub(crate) const BACKWARD_VIA: [Who; 3] = [Who::RemoteLeaf, Who::Spine, Who::Leaf];

/// Framing of the RDMA link: RoCE v2 over IPv4 without VLAN tag, or InfiniBand inside one
/// subnet (no GRH).
pub(crate) fn rdma_framing(link: &Link) -> Framing {
    match link.kind {
        LinkKind::Infiniband => Framing::Infiniband { grh: false },
        _ => Framing::RoceV2 {
            ipv6: false,
            vlan: false,
        },
    }
}

/// `len` payload bytes split at `mtu`: the packets (at least one, for an empty message) and
/// the payload bytes of the last.
pub(crate) fn split_at_mtu(len: u64, mtu: u32) -> (u64, u64) {
    let mtu64 = u64::from(mtu.max(1));
    let packets = len.div_ceil(mtu64).max(1);
    (packets, len - (packets - 1) * mtu64)
}

/// Packets and wire bytes of `len` payload bytes split at `mtu`, with `first_ext` extended
/// header bytes on the first packet only (RETH of a WRITE, 16) — O(1) however long.
pub(crate) fn rdma_wire(link: &Link, len: u64, mtu: u32, first_ext: u32) -> (u64, u64) {
    let framing = rdma_framing(link);
    let (packets, last) = split_at_mtu(len, mtu);
    let last = u32::try_from(last).unwrap_or(mtu);
    if packets == 1 {
        let wire = packet_cost(framing, first_ext, last).wire;
        return (1, u64::from(wire));
    }
    let first = u64::from(packet_cost(framing, first_ext, mtu).wire);
    let middle = u64::from(packet_cost(framing, 0, mtu).wire);
    let tail = u64::from(packet_cost(framing, 0, last).wire);
    (packets, first + (packets - 2) * middle + tail)
}

/// Wire bytes of the first and of the last packet of `len` payload bytes split at `mtu`
/// (the first carries `first_ext` extended-header bytes; one packet is both).
pub(crate) fn rdma_end_packets(link: &Link, len: u64, mtu: u32, first_ext: u32) -> (u64, u64) {
    let framing = rdma_framing(link);
    let (packets, last) = split_at_mtu(len, mtu);
    let last = u32::try_from(last).unwrap_or(mtu);
    if packets == 1 {
        let one = u64::from(packet_cost(framing, first_ext, last).wire);
        return (one, one);
    }
    (
        u64::from(packet_cost(framing, first_ext, mtu).wire),
        u64::from(packet_cost(framing, 0, last).wire),
    )
}

/// How long a cost takes.
pub(crate) fn duration(cost: &Cost) -> f64 {
    cost.parts.iter().map(|p| p.ns).sum()
}

/// Wire bytes of one payload-less packet with `ext` extended-header bytes (ACK, NAK, CNP,
/// READ request).
pub(crate) fn control_wire(link: &Link, ext: u32) -> u64 {
    u64::from(packet_cost(rdma_framing(link), ext, 0).wire)
}

/// Bytes of TCP and IPv4 headers per segment: IPv4 20 (RFC 791) + TCP 20 (RFC 9293) + the
/// timestamp option padded to 12 (RFC 7323; Linux enables it by default).
pub(crate) const TCP_IP_HEADERS: u32 = 20 + 20 + 12;
/// Ethernet header (14) and FCS (4), IEEE 802.3 §3.1.1.
pub(crate) const ETHERNET_HEADER_FCS: u32 = 14 + 4;

/// Segments and wire bytes of `len` bytes over TCP/IPv4/Ethernet at `ip_mtu`.
pub(crate) fn tcp_wire(len: u64, ip_mtu: u32) -> (u64, u64) {
    let mss = u64::from(ip_mtu.saturating_sub(TCP_IP_HEADERS).max(1));
    let segments = len.div_ceil(mss).max(1);
    let per_segment = |payload: u64| {
        let frame = (payload + u64::from(TCP_IP_HEADERS + ETHERNET_HEADER_FCS))
            .max(u64::from(MIN_ETHERNET_FRAME));
        frame + u64::from(PREAMBLE_SFD + IFG)
    };
    let last = len - (segments - 1) * mss;
    (
        segments,
        (segments - 1) * per_segment(mss) + per_segment(last),
    )
}

/// A scenario being built.
pub(crate) struct Flow {
    id: &'static str,
    title: String,
    summary: String,
    actors: Vec<Actor>,
    steps: Vec<Step>,
    last_critical: Option<usize>,
    pub figures: Vec<Figure>,
    pub collective: Option<CollectiveSummary>,
}

impl Flow {
    pub(crate) fn new(id: &'static str, title: &str, summary: &str) -> Flow {
        Flow {
            id,
            title: title.to_string(),
            summary: summary.to_string(),
            actors: Vec::new(),
            steps: Vec::new(),
            last_critical: None,
            figures: Vec::new(),
            collective: None,
        }
    }

    fn ensure(&mut self, who: Who) {
        if !self.actors.iter().any(|a| a.id == who.id()) {
            self.actors.push(who.actor());
        }
    }

    /// End of a step (0 before any).
    pub(crate) fn end_of(&self, index: Option<usize>) -> f64 {
        index
            .and_then(|i| self.steps.get(i))
            .map_or(0.0, Step::end_ns)
    }

    /// Index of the last critical step.
    pub(crate) fn last(&self) -> Option<usize> {
        self.last_critical
    }

    /// Start of a step (0 before any).
    pub(crate) fn start_of(&self, index: usize) -> f64 {
        self.steps.get(index).map_or(0.0, |s| s.start_ns)
    }

    /// Adds a step off the critical path at `start` (no earlier than step `after` ends):
    /// for work that overlaps the critical path, such as a long DMA read streaming into the
    /// NIC while packets leave.
    pub(crate) fn alongside(&mut self, after: Option<usize>, start: f64, spec: StepSpec) -> usize {
        self.place(spec, after, start, false)
    }

    fn place(&mut self, spec: StepSpec, after: Option<usize>, start: f64, critical: bool) -> usize {
        self.ensure(spec.from);
        self.ensure(spec.to);
        for &w in &spec.via {
            self.ensure(w);
        }
        let duration: f64 = spec.parts.iter().map(|p| p.ns).sum();
        let cpu_busy: f64 = spec
            .parts
            .iter()
            .filter(|p| p.category.occupies_cpu())
            .map(|p| p.ns)
            .sum::<f64>()
            // An empty f64 sum is -0.0; report +0.
            + 0.0;
        let index = self.steps.len();
        self.steps.push(Step {
            index,
            from: spec.from.id().to_string(),
            to: spec.to.id().to_string(),
            via: spec.via.iter().map(|w| w.id().to_string()).collect(),
            kind: spec.kind,
            title: spec.title,
            bytes: spec.bytes,
            link: spec.link,
            start_ns: start.max(self.end_of(after)),
            duration_ns: duration,
            timing: spec.timing,
            parts: spec.parts,
            after,
            critical,
            copies: spec.copies,
            syscalls: spec.syscalls,
            interrupts: spec.interrupts,
            cpu_busy_ns: cpu_busy,
            explanation: spec.explanation,
            topic: spec.topic.to_string(),
        });
        if critical {
            self.last_critical = Some(index);
        }
        index
    }

    /// Appends a step to the critical path, starting when the previous critical step ends.
    pub(crate) fn then(&mut self, spec: StepSpec) -> usize {
        let after = self.last_critical;
        let start = self.end_of(after);
        self.place(spec, after, start, true)
    }

    /// Adds a step off the critical path that starts when step `after` ends, plus `delay`.
    pub(crate) fn beside(&mut self, after: Option<usize>, delay: f64, spec: StepSpec) -> usize {
        let start = self.end_of(after) + delay.max(0.0);
        self.place(spec, after, start, false)
    }

    pub(crate) fn figure(&mut self, name: &str, value: f64, unit: &str) {
        self.figures.push(Figure {
            name: name.to_string(),
            value,
            unit: unit.to_string(),
        });
    }

    /// Sorts steps by start time (stable), renumbers them and computes the totals.
    pub(crate) fn finish(self) -> Scenario {
        let Flow {
            id,
            title,
            summary,
            actors,
            mut steps,
            figures,
            collective,
            ..
        } = self;
        let mut order: Vec<usize> = (0..steps.len()).collect();
        order.sort_by(|&a, &b| {
            let (sa, sb) = (steps.get(a), steps.get(b));
            let key = |s: Option<&Step>| s.map_or(0.0, |s| s.start_ns);
            key(sa).total_cmp(&key(sb)).then(a.cmp(&b))
        });
        let mut new_index = vec![0usize; steps.len()];
        for (new, &old) in order.iter().enumerate() {
            if let Some(slot) = new_index.get_mut(old) {
                *slot = new;
            }
        }
        let mut taken: Vec<Option<Step>> = steps.drain(..).map(Some).collect();
        let mut sorted = Vec::with_capacity(taken.len());
        for &old in &order {
            if let Some(mut step) = taken.get_mut(old).and_then(Option::take) {
                step.index = new_index.get(old).copied().unwrap_or(0);
                step.after = step.after.and_then(|a| new_index.get(a).copied());
                sorted.push(step);
            }
        }
        let totals = totals(&sorted);
        Scenario {
            id: id.to_string(),
            title,
            summary,
            columns: COLUMNS,
            rows: ROWS,
            actors,
            steps: sorted,
            totals,
            figures,
            collective,
        }
    }
}

fn totals(steps: &[Step]) -> Totals {
    let breakdown = Category::ALL
        .iter()
        .map(|&category| CategoryTime {
            category,
            ns: steps
                .iter()
                .filter(|s| s.critical)
                .flat_map(|s| s.parts.iter())
                .filter(|p| p.category == category)
                .map(|p| p.ns)
                .sum::<f64>()
                + 0.0,
        })
        .collect();
    Totals {
        end_to_end_ns: steps
            .iter()
            .filter(|s| s.critical)
            .map(Step::end_ns)
            .fold(0.0, f64::max),
        breakdown,
        data_copies: steps.iter().map(|s| s.copies).sum(),
        syscalls: steps.iter().map(|s| s.syscalls).sum(),
        interrupts: steps.iter().map(|s| s.interrupts).sum(),
        cpu_busy_ns: steps.iter().map(|s| s.cpu_busy_ns).sum::<f64>() + 0.0,
    }
}
