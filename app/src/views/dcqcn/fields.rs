//! The parameters the page lets a learner change: each names the engine's parameter path
//! (also its URL query key), its unit, the mlx5 `cc_params` name and what it does. Checking
//! a value is the engine's job (`Scenario::validate`); this table only reads and writes,
//! and says in words which values the engine takes and why, for the message under a box.

use crate::views::figures::grouped;
use crate::views::form::{decimal, FieldDef, Reads};
use engine::dcqcn::{
    FlowSpec, Scenario, MAX_BUFFER_BYTES, MAX_DURATION_US, MAX_FLOWS, MAX_LINK_GBPS,
    MAX_PROP_DELAY_US, MAX_SAMPLES,
};

/// A panel section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    Workload,
    Reaction,
    Notification,
    Switch,
}

impl Group {
    pub const ALL: [Group; 4] = [
        Group::Workload,
        Group::Switch,
        Group::Reaction,
        Group::Notification,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Group::Workload => "Workload",
            Group::Reaction => "Reaction point (sender NIC)",
            Group::Notification => "Notification point (receiver NIC)",
            Group::Switch => "Congestion point (switch port)",
        }
    }
}

/// One adjustable number: its box, and how it reads and writes a scenario.
pub struct Field {
    /// The box; its key is the engine's parameter path, as `SimError::InvalidParameter`
    /// names it. Counts and byte sizes read as [`Reads::Whole`].
    pub def: FieldDef,
    /// The mlx5 `cc_params` file (or the switch/workload term) shown beside the label.
    pub mlx5: &'static str,
    pub group: Group,
    /// Slider range; the number box accepts anything and the engine judges it.
    pub min: f64,
    max: SliderMax,
    pub step: f64,
    /// The largest value the page builds a scenario for at all (the engine judges the
    /// rest): a flow count is turned into that many flows before the engine sees it, so a
    /// typo such as `1e9` must stop here.
    cap: Option<f64>,
    get: fn(&Scenario) -> Option<f64>,
    set: fn(&mut Scenario, f64),
    /// Which values the engine accepts here, and why, given the rest of the scenario.
    allowed: fn(&Scenario) -> String,
    /// What the rest of the scenario means for this value, said beside the control (the
    /// buffer an XOFF leaves headroom in), where no field of its own shows it.
    context: Option<fn(&Scenario) -> String>,
}

/// Where a slider's range ends.
#[derive(Debug, Clone, Copy)]
enum SliderMax {
    /// A fixed top, past the values worth trying.
    Fixed(f64),
    /// The switch port's buffer: a queue threshold past it is one the queue never reaches.
    Buffer,
}

impl Field {
    /// The value in `scenario`, or `None` where the field does not apply (PFC off).
    pub fn value(&self, scenario: &Scenario) -> Option<f64> {
        (self.get)(scenario)
    }

    /// Reads what the learner typed and writes it into a copy of `scenario`. A malformed
    /// number is refused here, naming the field; range checks are left to the engine.
    pub fn apply(&self, scenario: &Scenario, text: &str) -> Result<Scenario, String> {
        let key = self.def.key;
        let value =
            decimal(text).map_err(|why| format!("invalid parameter `{key}`: {text:?} {why}"))?;
        if self.whole() && (value.fract() != 0.0 || !(0.0..=1e15).contains(&value)) {
            return Err(format!(
                "invalid parameter `{key}`: {value} is not a whole number of {}",
                self.def.unit
            ));
        }
        if let Some(cap) = self.cap.filter(|cap| value > *cap) {
            return Err(format!(
                "invalid parameter `{key}`: {value} exceeds the cap {cap}"
            ));
        }
        let mut next = scenario.clone();
        (self.set)(&mut next, value);
        Ok(next)
    }

    /// Which values the engine accepts for this field in `scenario`, and why.
    pub fn allowed(&self, scenario: &Scenario) -> String {
        (self.allowed)(scenario)
    }

    /// The top of the slider's range in `scenario`.
    pub fn slider_max(&self, scenario: &Scenario) -> f64 {
        match self.max {
            SliderMax::Fixed(max) => max,
            SliderMax::Buffer => scenario.cp.buffer_bytes as f64,
        }
    }

    /// What the rest of `scenario` means for this field, if the row should say it.
    pub fn context(&self, scenario: &Scenario) -> Option<String> {
        self.context.map(|context| context(scenario))
    }

    /// Counts and byte sizes take whole numbers only.
    fn whole(&self) -> bool {
        self.def.reads == Reads::Whole
    }

    /// The value as the number box shows it.
    pub fn format(&self, value: f64) -> String {
        if self.whole() {
            format!("{value:.0}")
        } else {
            // Shortest form that reads back as the same number.
            format!("{value}")
        }
    }
}

/// Writes `count` flows starting `stagger_us` apart, copying the first flow's line rate
/// and size (a named scenario's flows are all alike).
fn reshape_flows(s: &mut Scenario, count: usize, stagger_us: f64) {
    let template = s.flows.first().cloned().unwrap_or(FlowSpec {
        link_gbps: s.bottleneck_gbps,
        start_us: 0.0,
        size_bytes: None,
    });
    s.flows = (0..count)
        .map(|i| FlowSpec {
            start_us: stagger_us * i as f64,
            ..template.clone()
        })
        .collect();
}

/// Writes `count` flows starting `stagger_us` apart (see [`reshape_flows`]).
pub fn with_flows(s: &Scenario, count: usize, stagger_us: f64) -> Scenario {
    let mut next = s.clone();
    reshape_flows(&mut next, count, stagger_us);
    next
}

/// The gap between successive flows' starts; `None` with a single flow, which has none.
pub fn stagger_us(s: &Scenario) -> Option<f64> {
    match (s.flows.first(), s.flows.get(1)) {
        (Some(a), Some(b)) => Some(b.start_us - a.start_us),
        _ => None,
    }
}

/// "more than 0 and at most 1 000 000 µs" and friends, for the engine's usual checks.
fn up_to(max: f64, unit: &str) -> String {
    format!("more than 0 and at most {} {unit}", grouped(max))
}

fn zero_to(max: f64, unit: &str) -> String {
    format!("0 to {} {unit}", grouped(max))
}

/// A byte count as the panel writes it, with its binary size where that is round:
/// "1 048 576 bytes (1 MiB)".
fn bytes(b: u64) -> String {
    let exact = grouped(b as f64);
    match b {
        0 => format!("{exact} bytes"),
        b if b % (1 << 20) == 0 => format!("{exact} bytes ({} MiB)", b >> 20),
        b if b % (1 << 10) == 0 => format!("{exact} bytes ({} KiB)", b >> 10),
        _ => format!("{exact} bytes"),
    }
}

/// The switch port's buffer and what of it XOFF leaves for the bytes still arriving once
/// PAUSE is sent: nothing else on the page shows the buffer, and the headroom is what
/// decides whether a lossless queue overflows.
fn headroom_above_xoff(s: &Scenario) -> String {
    let buffer = s.cp.buffer_bytes;
    match &s.cp.pfc {
        Some(pfc) => format!(
            "This port's buffer holds {}; above XOFF, {} are left for what is still on the \
             wire when PAUSE goes out.",
            bytes(buffer),
            bytes(buffer.saturating_sub(pfc.xoff_bytes))
        ),
        None => format!("This port's buffer holds {}.", bytes(buffer)),
    }
}

fn u(v: f64) -> u64 {
    // `apply` has checked that whole-number fields hold a whole, non-negative value.
    v as u64
}

/// Every field, in panel order.
pub static FIELDS: &[Field] = &[
    Field {
        def: FieldDef {
            key: "flows",
            label: "Flows",
            unit: "flows",
            help: "How many senders share the bottleneck; each has its own line-rate link.",
            reads: Reads::Whole,
        },
        mlx5: "senders",
        group: Group::Workload,
        min: 1.0,
        max: SliderMax::Fixed(32.0),
        step: 1.0,
        cap: Some(MAX_FLOWS as f64),
        get: |s| Some(s.flows.len() as f64),
        set: |s, v| {
            let gap = stagger_us(s).unwrap_or(0.0);
            reshape_flows(s, v as usize, gap)
        },
        allowed: |_| {
            format!(
                "a whole number from 1 to {MAX_FLOWS}: at least one sender, and at most \
                 the {MAX_FLOWS} the engine simulates"
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "flow_stagger_us",
            label: "Start stagger",
            unit: "µs",
            help: "Flow i starts at i times this delay; 0 starts all together (incast).",
            reads: Reads::Decimal,
        },
        mlx5: "flow i starts at i × this",
        group: Group::Workload,
        min: 0.0,
        max: SliderMax::Fixed(10_000.0),
        step: 100.0,
        cap: None,
        get: stagger_us,
        set: |s, v| {
            let n = s.flows.len();
            reshape_flows(s, n, v)
        },
        allowed: |s| {
            let last = s.flows.len().saturating_sub(1).max(1) as f64;
            format!(
                "{}: with {} flows the last one starts at {} × this, and a flow must \
                 start within the longest run the engine simulates ({} µs)",
                zero_to(MAX_DURATION_US / last, "µs"),
                s.flows.len(),
                last,
                grouped(MAX_DURATION_US)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "sender_gbps",
            label: "Sender line rate",
            unit: "Gb/s",
            help: "Every sender's own link rate: the rate a flow starts at and may climb back to.",
            reads: Reads::Decimal,
        },
        mlx5: "NIC port speed",
        group: Group::Workload,
        min: 10.0,
        max: SliderMax::Fixed(800.0),
        step: 10.0,
        cap: None,
        get: |s| s.flows.first().map(|f| f.link_gbps),
        set: |s, v| s.flows.iter_mut().for_each(|f| f.link_gbps = v),
        allowed: |s| {
            format!(
                "{}, and at least the reaction point's minimum rate ({} Mb/s): a flow is never \
                 cut below it",
                up_to(MAX_LINK_GBPS, "Gb/s"),
                grouped(s.dcqcn.rp_min_rate_mbps)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "bottleneck_gbps",
            label: "Bottleneck rate",
            unit: "Gb/s",
            help: "Rate of the switch port towards the receiver: the shared link.",
            reads: Reads::Decimal,
        },
        mlx5: "link speed",
        group: Group::Workload,
        min: 10.0,
        max: SliderMax::Fixed(400.0),
        step: 10.0,
        cap: None,
        get: |s| Some(s.bottleneck_gbps),
        set: |s, v| s.bottleneck_gbps = v,
        allowed: |_| {
            format!(
                "{}: the fastest link the engine models",
                up_to(MAX_LINK_GBPS, "Gb/s")
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "prop_delay_us",
            label: "Link delay",
            unit: "µs",
            help: "One-way propagation delay of every link; CNPs take three links to act.",
            reads: Reads::Decimal,
        },
        mlx5: "one-way propagation",
        group: Group::Workload,
        min: 0.0,
        max: SliderMax::Fixed(50.0),
        step: 0.5,
        cap: None,
        get: |s| Some(s.prop_delay_us),
        set: |s, v| s.prop_delay_us = v,
        allowed: |_| {
            format!(
                "{}: the longest link delay the engine models",
                zero_to(MAX_PROP_DELAY_US, "µs")
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "duration_us",
            label: "Duration",
            unit: "µs",
            help: "How much time to simulate.",
            reads: Reads::Decimal,
        },
        mlx5: "simulated time",
        group: Group::Workload,
        min: 1_000.0,
        max: SliderMax::Fixed(100_000.0),
        step: 1_000.0,
        cap: None,
        get: |s| Some(s.duration_us),
        set: |s, v| s.duration_us = v,
        allowed: |s| {
            format!(
                "{}, at least one sample interval ({} µs) and at most {} samples: the \
                 longest run the engine simulates",
                up_to(MAX_DURATION_US, "µs"),
                s.sample_interval_us,
                grouped(MAX_SAMPLES as f64)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "cp.kmin_bytes",
            label: "Kmin",
            unit: "bytes",
            help: "Below this queue depth the switch marks nothing (paper Kmin, 5 KB).",
            reads: Reads::Whole,
        },
        mlx5: "switch ECN min threshold",
        group: Group::Switch,
        min: 0.0,
        max: SliderMax::Buffer,
        step: 1024.0,
        cap: None,
        get: |s| Some(s.cp.kmin_bytes as f64),
        set: |s, v| s.cp.kmin_bytes = u(v),
        allowed: |s| {
            format!(
                "0 to Kmax ({} bytes): marking starts at Kmin and is certain at Kmax, so \
                 Kmin cannot lie above it",
                grouped(s.cp.kmax_bytes as f64)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "cp.kmax_bytes",
            label: "Kmax",
            unit: "bytes",
            help: "Above this queue depth every packet is marked (paper Kmax, 200 KB). \
                   Between Kmin and Kmax the probability rises linearly to Pmax.",
            reads: Reads::Whole,
        },
        mlx5: "switch ECN max threshold",
        group: Group::Switch,
        min: 0.0,
        max: SliderMax::Buffer,
        step: 1024.0,
        cap: None,
        get: |s| Some(s.cp.kmax_bytes as f64),
        set: |s, v| s.cp.kmax_bytes = u(v),
        allowed: |s| {
            format!(
                "Kmin ({} bytes) to the buffer ({} bytes): the queue cannot grow past the \
                 buffer, and Kmax cannot lie below Kmin",
                grouped(s.cp.kmin_bytes as f64),
                grouped(s.cp.buffer_bytes as f64)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "cp.pmax",
            label: "Pmax",
            unit: "fraction",
            help: "Marking probability at Kmax (paper 1 %).",
            reads: Reads::Decimal,
        },
        mlx5: "switch ECN max probability",
        group: Group::Switch,
        min: 0.001,
        max: SliderMax::Fixed(1.0),
        step: 0.001,
        cap: None,
        get: |s| Some(s.cp.pmax),
        set: |s, v| s.cp.pmax = v,
        allowed: |_| "more than 0 and at most 1: a probability".to_string(),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "cp.pfc.xoff_bytes",
            label: "PFC XOFF",
            unit: "bytes",
            help: "At this queue depth the switch sends PAUSE upstream (IEEE 802.1Qbb). \
                   It must stay above Kmax so ECN acts first.",
            reads: Reads::Whole,
        },
        mlx5: "switch pause threshold",
        group: Group::Switch,
        min: 1024.0,
        max: SliderMax::Buffer,
        step: 1024.0,
        cap: None,
        get: |s| s.cp.pfc.as_ref().map(|p| p.xoff_bytes as f64),
        set: |s, v| {
            if let Some(p) = s.cp.pfc.as_mut() {
                p.xoff_bytes = u(v)
            }
        },
        allowed: |s| {
            format!(
                "one MTU ({} bytes) to the buffer ({} bytes), above XON: the switch pauses \
                 before its buffer is full",
                s.mtu_bytes,
                grouped(s.cp.buffer_bytes.min(MAX_BUFFER_BYTES) as f64)
            )
        },
        context: Some(headroom_above_xoff),
    },
    Field {
        def: FieldDef {
            key: "cp.pfc.xon_bytes",
            label: "PFC XON",
            unit: "bytes",
            help: "When the queue falls to this depth the switch sends RESUME.",
            reads: Reads::Whole,
        },
        mlx5: "switch resume threshold",
        group: Group::Switch,
        min: 0.0,
        max: SliderMax::Buffer,
        step: 1024.0,
        cap: None,
        get: |s| s.cp.pfc.as_ref().map(|p| p.xon_bytes as f64),
        set: |s, v| {
            if let Some(p) = s.cp.pfc.as_mut() {
                p.xon_bytes = u(v)
            }
        },
        allowed: |s| {
            let xoff = s.cp.pfc.as_ref().map_or(0, |p| p.xoff_bytes);
            format!(
                "0 to below XOFF ({} bytes): the switch resumes once the queue has drained \
                 under the depth that paused it",
                grouped(xoff as f64)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.g",
            label: "g (alpha gain)",
            unit: "fraction",
            help: "EWMA gain of alpha: on a CNP α ← (1−g)α + g, otherwise α decays by (1−g) \
                   each alpha period. Large g reacts harder and oscillates (paper 1/256).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_dce_tcp_g",
        group: Group::Reaction,
        min: 0.001,
        max: SliderMax::Fixed(0.5),
        step: 0.001,
        cap: None,
        get: |s| Some(s.dcqcn.g),
        set: |s, v| s.dcqcn.g = v,
        allowed: |_| {
            "more than 0 and at most 1: the weight of the newest sample in alpha's average"
                .to_string()
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_dce_tcp_rtt_us",
            label: "K (alpha period)",
            unit: "µs",
            help: "How often alpha decays without CNPs (paper K = 55 µs).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_dce_tcp_rtt",
        group: Group::Reaction,
        min: 1.0,
        max: SliderMax::Fixed(500.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_dce_tcp_rtt_us),
        set: |s, v| s.dcqcn.rp_dce_tcp_rtt_us = v,
        allowed: |_| format!("{}: a period", up_to(1e6, "µs")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_time_reset_us",
            label: "T (increase timer)",
            unit: "µs",
            help: "Period of the rate-increase timer (paper T = 55 µs).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_time_reset",
        group: Group::Reaction,
        min: 1.0,
        max: SliderMax::Fixed(1_000.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_time_reset_us),
        set: |s, v| s.dcqcn.rp_time_reset_us = v,
        allowed: |_| format!("{}: a period", up_to(1e6, "µs")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_byte_reset_bytes",
            label: "B (byte counter)",
            unit: "bytes",
            help: "Bytes sent between byte-counter increase events (paper B = 10 MB).",
            reads: Reads::Whole,
        },
        mlx5: "rp_byte_reset",
        group: Group::Reaction,
        min: 1024.0,
        max: SliderMax::Fixed(20_971_520.0),
        step: 1024.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_byte_reset_bytes as f64),
        set: |s, v| s.dcqcn.rp_byte_reset_bytes = u(v),
        allowed: |_| "a whole number from 1 to 10¹² bytes: a count of bytes sent".to_string(),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_threshold",
            label: "F (fast recovery steps)",
            unit: "events",
            help: "Increase events spent in fast recovery before additive, then hyper increase \
                   (paper F = 5).",
            reads: Reads::Whole,
        },
        mlx5: "rp_threshold",
        group: Group::Reaction,
        min: 1.0,
        max: SliderMax::Fixed(20.0),
        step: 1.0,
        cap: None,
        get: |s| Some(f64::from(s.dcqcn.rp_threshold)),
        set: |s, v| s.dcqcn.rp_threshold = v as u32,
        allowed: |_| "a whole number from 1 to 1000: a count of increase events".to_string(),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_ai_rate_mbps",
            label: "R_AI (additive step)",
            unit: "Mb/s",
            help: "Additive-increase step of the target rate (paper 40 Mb/s).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_ai_rate",
        group: Group::Reaction,
        min: 0.0,
        max: SliderMax::Fixed(1_000.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_ai_rate_mbps),
        set: |s, v| s.dcqcn.rp_ai_rate_mbps = v,
        allowed: |_| format!("{}: a rate step", zero_to(1e6, "Mb/s")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_hai_rate_mbps",
            label: "R_HAI (hyper step)",
            unit: "Mb/s",
            help: "Hyper-increase step, used once both timer and byte counter passed F.",
            reads: Reads::Decimal,
        },
        mlx5: "rp_hai_rate",
        group: Group::Reaction,
        min: 0.0,
        max: SliderMax::Fixed(5_000.0),
        step: 10.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_hai_rate_mbps),
        set: |s, v| s.dcqcn.rp_hai_rate_mbps = v,
        allowed: |_| format!("{}: a rate step", zero_to(1e6, "Mb/s")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_min_dec_fac_pct",
            label: "Min decrease factor",
            unit: "%",
            help: "A cut keeps at least this share of the current rate (50: at most halve).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_min_dec_fac",
        group: Group::Reaction,
        min: 1.0,
        max: SliderMax::Fixed(100.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_min_dec_fac_pct),
        set: |s, v| s.dcqcn.rp_min_dec_fac_pct = v,
        allowed: |_| "1 to 100 %: a share of the current rate that a cut keeps".to_string(),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_rate_reduce_monitor_period_us",
            label: "Cut monitor period",
            unit: "µs",
            help: "At most one rate cut per period; 0 cuts on every CNP (the paper).",
            reads: Reads::Decimal,
        },
        mlx5: "rp_rate_reduce_monitor_period",
        group: Group::Reaction,
        min: 0.0,
        max: SliderMax::Fixed(200.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_rate_reduce_monitor_period_us),
        set: |s, v| s.dcqcn.rp_rate_reduce_monitor_period_us = v,
        allowed: |_| format!("{}: a period (0 cuts on every CNP)", zero_to(1e6, "µs")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_rate_to_set_on_first_cnp_mbps",
            label: "Rate on first CNP",
            unit: "Mb/s",
            help: "Rate set on a flow's first CNP; 0 cuts from line rate like any other CNP.",
            reads: Reads::Decimal,
        },
        mlx5: "rp_rate_to_set_on_first_cnp",
        group: Group::Reaction,
        min: 0.0,
        max: SliderMax::Fixed(100_000.0),
        step: 100.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_rate_to_set_on_first_cnp_mbps),
        set: |s, v| s.dcqcn.rp_rate_to_set_on_first_cnp_mbps = v,
        allowed: |_| format!("{}: a rate (0 turns it off)", zero_to(1e7, "Mb/s")),
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.rp_min_rate_mbps",
            label: "Minimum rate",
            unit: "Mb/s",
            help: "Floor of the current rate: cuts never go below it.",
            reads: Reads::Decimal,
        },
        mlx5: "rp_min_rate",
        group: Group::Reaction,
        min: 1.0,
        max: SliderMax::Fixed(10_000.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.rp_min_rate_mbps),
        set: |s, v| s.dcqcn.rp_min_rate_mbps = v,
        allowed: |s| {
            let slowest = s
                .flows
                .iter()
                .map(|f| f.link_gbps)
                .fold(f64::INFINITY, f64::min);
            format!(
                "more than 0 and at most the slowest sender's line rate ({} Mb/s): a floor \
                 no flow could reach is no floor",
                grouped(slowest * 1e3)
            )
        },
        context: None,
    },
    Field {
        def: FieldDef {
            key: "dcqcn.np_min_time_between_cnps_us",
            label: "N (CNP interval)",
            unit: "µs",
            help:
                "The receiver sends at most one CNP per flow per this interval (paper N = 50 µs).",
            reads: Reads::Decimal,
        },
        mlx5: "np_min_time_between_cnps",
        group: Group::Notification,
        min: 0.0,
        max: SliderMax::Fixed(500.0),
        step: 1.0,
        cap: None,
        get: |s| Some(s.dcqcn.np_min_time_between_cnps_us),
        set: |s, v| s.dcqcn.np_min_time_between_cnps_us = v,
        allowed: |_| {
            format!(
                "{}: an interval (0 lets every mark send a CNP)",
                zero_to(1e6, "µs")
            )
        },
        context: None,
    },
];

/// The field an engine error names. Per-flow errors land on the workload fields that
/// shape the flows.
pub fn field_for_error(name: &str) -> Option<&'static Field> {
    let key = if name.starts_with("flows[") && name.ends_with("start_us") {
        "flow_stagger_us"
    } else if name.starts_with("flows[") && name.ends_with("link_gbps") {
        "sender_gbps"
    } else if name.starts_with("flows[") {
        "flows"
    } else {
        name
    };
    FIELDS.iter().find(|f| f.def.key == key)
}

pub fn field(key: &str) -> Option<&'static Field> {
    FIELDS.iter().find(|f| f.def.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::dcqcn::{named_scenario, scenario_names};

    #[test]
    fn every_field_reads_back_what_it_writes() {
        let base = named_scenario("two-flow").expect("named");
        for f in FIELDS {
            let Some(v) = f.value(&base) else { continue };
            let text = f.format(v);
            let next = f.apply(&base, &text).expect("own value applies");
            assert_eq!(f.value(&next), Some(v), "{}", f.def.key);
        }
    }

    #[test]
    fn every_key_but_the_workload_shape_is_a_parameter_the_engine_names() {
        // Writing an absurd value makes the engine name exactly this field.
        let base = named_scenario("incast-16").expect("named");
        for f in FIELDS.iter().filter(|f| f.group != Group::Workload) {
            let bad = f.apply(&base, "1e13").expect("a number");
            let err = bad.validate().expect_err(f.def.key);
            let Some(refused) = err.field_error() else {
                panic!("{}: not a parameter error", f.def.key)
            };
            let landed = field_for_error(&refused.field).map(|g| g.def.key);
            assert!(
                landed == Some(f.def.key),
                "{}: engine named {}",
                f.def.key,
                refused.field
            );
        }
        assert!(!scenario_names().is_empty());
    }

    #[test]
    fn malformed_text_names_the_field() {
        let base = named_scenario("two-flow").expect("named");
        let f = field("dcqcn.g").expect("g");
        let err = f.apply(&base, "abc").expect_err("not a number");
        assert!(err.contains("dcqcn.g"), "{err}");
        let f = field("dcqcn.rp_threshold").expect("F");
        assert!(f.apply(&base, "2.5").is_err());
        assert!(f.apply(&base, "-1").is_err());
    }

    #[test]
    fn flow_count_and_stagger_reshape_the_flows() {
        let base = named_scenario("two-flow").expect("named");
        let four = field("flows").expect("flows").apply(&base, "4").expect("4");
        assert_eq!(four.flows.len(), 4);
        assert_eq!(
            four.flows[3].start_us,
            3.0 * stagger_us(&base).expect("two")
        );
        let together = field("flow_stagger_us")
            .expect("stagger")
            .apply(&four, "0")
            .expect("0");
        assert!(together.flows.iter().all(|f| f.start_us == 0.0));
        let one = field("flows").expect("flows").apply(&base, "1").expect("1");
        assert_eq!(stagger_us(&one), None, "one flow has no stagger");
    }

    #[test]
    fn an_absurd_flow_count_is_refused_before_any_flow_is_built() {
        let base = named_scenario("two-flow").expect("named");
        let flows = field("flows").expect("flows");
        let err = flows.apply(&base, "1e9").expect_err("a billion flows");
        assert!(err.contains("`flows`") && err.contains("cap"), "{err}");
        assert!(flows.allowed(&base).contains(&MAX_FLOWS.to_string()));
    }

    #[test]
    fn every_field_says_what_the_engine_accepts() {
        let base = named_scenario("two-flow").expect("named");
        for f in FIELDS {
            assert!(f.allowed(&base).len() > 10, "{}", f.def.key);
        }
        assert_eq!(grouped(512.0), "512");
    }

    /// UX audit 2026-12, item 11: the XOFF slider ran to 2 MiB past a 1 MiB buffer, and
    /// nothing but an error message gave the buffer's size.
    #[test]
    fn queue_thresholds_slide_as_far_as_the_buffer_and_xoff_says_what_is_left_above_it() {
        let thresholds = [
            "cp.kmin_bytes",
            "cp.kmax_bytes",
            "cp.pfc.xoff_bytes",
            "cp.pfc.xon_bytes",
        ];
        for name in scenario_names() {
            let s = named_scenario(name).expect("named");
            for key in thresholds {
                let f = field(key).expect(key);
                assert_eq!(f.slider_max(&s), s.cp.buffer_bytes as f64, "{name}: {key}");
            }
            // Every value a named scenario ships lies on its slider.
            for f in FIELDS {
                let Some(v) = f.value(&s) else { continue };
                assert!(
                    (f.min..=f.slider_max(&s)).contains(&v),
                    "{name}: {} = {v} is off its slider",
                    f.def.key
                );
            }
        }
        let xoff = field("cp.pfc.xoff_bytes").expect("XOFF");
        let incast = named_scenario("incast-16").expect("named");
        let note = xoff.context(&incast).expect("XOFF says it");
        let (buffer, left) = (
            "1\u{202f}048\u{202f}576 bytes (1 MiB)",
            "638\u{202f}976 bytes (624 KiB)",
        );
        assert!(note.contains(buffer) && note.contains(left), "{note}");
        // Moving XOFF moves the headroom with it.
        let higher = xoff.apply(&incast, "819200").expect("800 KiB");
        let note = xoff.context(&higher).expect("XOFF says it");
        assert!(note.contains("229\u{202f}376 bytes (224 KiB)"), "{note}");
        assert_eq!(field("dcqcn.g").expect("g").context(&incast), None);
    }

    #[test]
    fn the_sender_line_rate_sets_every_flow_and_the_engine_names_it() {
        let base = named_scenario("incast-16").expect("named");
        let rate = field("sender_gbps").expect("sender_gbps");
        let fast = rate.apply(&base, "400").expect("400");
        assert!(fast.flows.iter().all(|f| f.link_gbps == 400.0));
        assert_eq!(fast.flows.len(), base.flows.len());
        fast.validate().expect("400 Gb/s senders are a scenario");
        // More flows copy the rate the first one has.
        let more = field("flows")
            .expect("flows")
            .apply(&fast, "20")
            .expect("20");
        assert!(more.flows.iter().all(|f| f.link_gbps == 400.0));
        // Beyond the engine's range: the refusal lands on this box.
        let err = rate
            .apply(&base, "1e6")
            .expect("a number")
            .validate()
            .expect_err("too fast");
        let Some(refused) = err.field_error() else {
            panic!("not a parameter error")
        };
        assert_eq!(
            field_for_error(&refused.field).map(|f| f.def.key),
            Some("sender_gbps")
        );
    }
}
