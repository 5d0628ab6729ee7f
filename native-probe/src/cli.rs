//! The command line, defined once with clap so `--help` and the parser always agree.

use std::{net::SocketAddr, path::PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::serve::host::AllowedHost;

/// The rdma-lab companion: serves the lab to your browser from this machine.
///
/// Start with `native-probe serve`, then open the URL it prints.
#[derive(Debug, Parser)]
#[command(name = "native-probe", version)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the built lab site over HTTP, with live NIC counters on /ws and /metrics.
    ///
    /// The site is the `dist/` folder that `trunk build --release` writes; `./lab run`
    /// builds it and starts this command for you.
    Serve(ServeArgs),
    /// Read every RDMA and network counter once and print it.
    Snapshot(SnapshotArgs),
    /// Print the QP transition table: which ibv_modify_qp() calls the kernel accepts.
    ///
    /// One row per valid (from state, to state, QP type): the attr_mask bits the transition
    /// requires and the ones it also allows, as the kernel's ib_modify_qp_is_ok() checks them
    /// (drivers/infiniband/core/verbs.c). IBV_QP_STATE is never listed: it selects the
    /// transition and is always allowed. Any bit outside required + optional makes the call
    /// fail with EINVAL, and so does a missing required one.
    QpTable(QpTableArgs),
    /// Run a DCQCN scenario (engine model) and print its time series and summary.
    Dcqcn(DcqcnArgs),
    /// Simulate a whole fabric packet by packet and say what happened on it: the stop (a
    /// deadlock among them), the collectives' bandwidth, the busiest links, the slowest flows.
    ///
    /// Hosts are NICs with RoCE v2 queue pairs, DCQCN's reaction and notification points or
    /// no congestion control; switches have a shared buffer, ECN marking with RED, PFC per
    /// ingress port, and ECMP on the 5-tuple, adaptive routing or packet spraying. Topologies:
    /// a dumbbell, a ring of switches, or a leaf–spine GPU fabric (rail-optimized or not,
    /// NVLink inside a server). Traffic: incast, permutation, all-to-all, single flows and
    /// NCCL's ring and tree all-reduce (and a hierarchical one). A PFC deadlock is reported
    /// with its cycle of switches instead of a run that never ends; the same scenario and seed
    /// give the same report. Left out: three tiers, a second plane, NCCL's LL and LL128
    /// protocols and its software time per step, per-port buffer limits.
    /// The scenario file is documented in native-probe/NETSIM.md. Example, the ring of
    /// switches that deadlocks, then a variant of your own:
    ///
    ///   native-probe netsim --scenario ring-deadlock
    ///
    ///   native-probe netsim --scenario ring-deadlock --dump > ring.json
    ///
    ///   native-probe netsim --file ring.json --csv > links.csv
    Netsim(NetsimArgs),
    /// Decode a pcap/pcapng capture frame by frame with the lab's RoCE v2 dissector.
    Decode(DecodeArgs),
    /// Build the packets a JSON spec describes (see CRAFT.md) into a pcap file.
    Craft(CraftArgs),
    /// Size a GPU fabric from its parts: switches per tier, cables, optics, bisection.
    ///
    /// Two tiers are a leaf–spine, three a k-ary fat-tree (Al-Fares et al., SIGCOMM 2008);
    /// rail-optimized fabrics are built in scalable units as NVIDIA's DGX SuperPOD reference
    /// architectures do. Parts that cannot make a fabric are refused with the flag or the
    /// constraint that fails. Example, 1,024 GPUs in DGX-like nodes on 64 × 400G switches:
    ///
    ///   native-probe fabric --gpus 1024 --gpus-per-node 8 --nics-per-node 8 --nic-gbps 400
    ///     --switch-ports 64 --switch-gbps 400 --rail-optimized
    Fabric(FabricArgs),
    /// Time a collective with NCCL's own cost model: every algorithm and protocol NCCL
    /// offers, and the one it would pick.
    ///
    /// The constants are NCCL's (src/graph/tuning.cc at the tag printed as nccl_version);
    /// algbw and busbw are nccl-tests' (doc/PERFORMANCE.md). The socket transport's rate is a
    /// published measurement, not line rate. Example, the all-reduce of 8 GiB on 128 DGX H100
    /// with 8 NDR NICs each:
    ///
    ///   native-probe collective --op allreduce --bytes 8G --nodes 128 --gpus-per-node 8
    ///     --gpu h100 --nic ndr-400 --nics-per-node 8
    Collective(CollectiveArgs),
    /// Explain an NCCL_DEBUG=INFO log: the version, ranks and hosts, the transports NCCL
    /// chose, whether GPUDirect RDMA was used, and what went wrong, each finding with the
    /// log lines it rests on and the lab's page that explains it.
    ///
    /// Paste the whole output of every rank (a terminal, a Slurm or Kubernetes log, a
    /// GitHub issue); lines are kept in order and unknown ones are never dropped. Exit code
    /// 0 unless a finding is an error (then 1), so scripts can gate on it. Example:
    ///
    ///   NCCL_DEBUG=INFO all_reduce_perf -b 8 -e 8G 2>&1 | native-probe nccl-log -
    NcclLog(NcclLogArgs),
    /// Check this host for RDMA and GPUDirect RDMA: ports, transport errors counted, RoCE
    /// GIDs, MTU, nvidia_peermem, IOMMU, PCIe links, locked memory and ECN.
    ///
    /// Read only, from sysfs and procfs. Each check prints pass (✓), warn (!), fail (✗) or
    /// skip (-, with why), the files it read and what to do; among them the index to give
    /// NCCL_IB_GID_INDEX.
    ///
    /// Exit status: 0 when no check failed (warnings included), 1 when one did or the trees
    /// cannot be read, 2 for a bad command line.
    Doctor(DoctorArgs),
    /// Follow NCCL_IB_TC to the DSCP the NIC writes, the priority the switches give it, and
    /// whether PFC and ECN are on there, with the CNPs' own path; say where the chain breaks.
    ///
    /// Every flag defaults to the /lossless page's example (DSCP 26 lossless on priority 3,
    /// CNPs on DSCP 48 in priority 6). Exit status 1 when a finding is an error. Example:
    ///
    ///   native-probe qos --tc 106 --map 26:3,48:6 --pfc 3 --ecn 3 --cnp-dscp 48
    Qos(QosArgs),
    /// Add up the PFC headroom one port needs per lossless priority (IEEE 802.1Qbb Annex N's
    /// components): the bytes that still arrive after it decides to pause.
    ///
    /// Defaults are the /lossless page's worked example (100 Gb/s, 100 m at 5 ns/m, 9216-byte
    /// frames, 1 µs for the interfaces and the peer). Example:
    ///
    ///   native-probe headroom --gbps 400 --cable-m 300
    Headroom(HeadroomArgs),
}

/// `native-probe qos`: a RoCE QoS configuration (engine `QosPlan`).
#[derive(Debug, Args)]
pub struct QosArgs {
    /// NCCL_IB_TC, 0-255.
    #[arg(long, value_name = "TC", default_value_t = 104)]
    pub tc: u16,
    /// The DSCP-to-priority map the switches and NIC trust, DSCP:priority pairs.
    #[arg(long, value_name = "D:P,...", default_value = "26:3,48:6")]
    pub map: String,
    /// Priorities with PFC on (comma-separated; empty for none).
    #[arg(long, value_name = "P,...", default_value = "3")]
    pub pfc: String,
    /// Priorities with ECN marking and DCQCN on.
    #[arg(long, value_name = "P,...", default_value = "3")]
    pub ecn: String,
    /// The DSCP the NIC writes in CNPs (mlx5 np_cnp_dscp).
    #[arg(long, value_name = "DSCP", default_value_t = 48)]
    pub cnp_dscp: u8,
    /// The switch queue's ECN marking threshold (K_min), bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 150_000)]
    pub kmin: u64,
    /// The same queue's PFC XOFF threshold, bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 400_000)]
    pub xoff: u64,
    /// Print JSON ({"chain", "findings"}) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `native-probe headroom`: one link (engine `Headroom`).
#[derive(Debug, Args)]
pub struct HeadroomArgs {
    /// Link data rate, Gb/s.
    #[arg(long, value_name = "GBPS", default_value_t = 100.0)]
    pub gbps: f64,
    /// Cable length, metres.
    #[arg(long, value_name = "M", default_value_t = 100.0)]
    pub cable_m: f64,
    /// Propagation delay, ns per metre.
    #[arg(long, value_name = "NS", default_value_t = 5.0)]
    pub ns_per_m: f64,
    /// Largest frame on the link, bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 9216)]
    pub max_frame: u64,
    /// PHY and MAC delays of both interfaces plus the peer's reaction, ns.
    #[arg(long, value_name = "NS", default_value_t = 1000.0)]
    pub response_ns: f64,
    /// Print JSON (each component in bytes, and the total) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `native-probe nccl-log`: one log, from a file or stdin.
#[derive(Debug, Args)]
pub struct NcclLogArgs {
    /// The log file, or `-` for standard input.
    #[arg(value_name = "FILE|-")]
    pub file: PathBuf,
    /// Print JSON (the summary's keys and `findings`) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `native-probe doctor`: which trees to read.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Read a tree laid out like /sys (a recording, or a copy of another host's) instead.
    #[arg(long, value_name = "DIR", default_value = "/sys")]
    pub sysfs_root: PathBuf,

    /// Read a tree laid out like /proc (its cmdline and self/limits) instead.
    #[arg(long, value_name = "DIR", default_value = "/proc")]
    pub procfs_root: PathBuf,

    /// Where debugfs is mounted, for mlx5's DCQCN parameters (DIR/mlx5/<pci>/cc_params).
    /// Defaults to /sys/kernel/debug, or DIR/kernel/debug under --sysfs-root. Reading it
    /// needs root; without it that check is skipped.
    #[arg(long, value_name = "DIR")]
    pub debugfs_root: Option<PathBuf>,

    /// Print JSON: {"checks": [{"id", "status", "title", "evidence": [{"path", "value"}],
    /// "fix"}]}, status one of pass, warn, fail, skip; fix is null when there is nothing to do.
    #[arg(long)]
    pub json: bool,
}

/// `native-probe fabric`: the parts of a fabric (engine `FabricSpec`).
#[derive(Debug, Args)]
pub struct FabricArgs {
    /// GPUs in the cluster (a whole number of nodes).
    #[arg(long, value_name = "N")]
    pub gpus: u32,
    /// GPUs per node.
    #[arg(long, value_name = "G")]
    pub gpus_per_node: u32,
    /// Scale-out NICs per node.
    #[arg(long, value_name = "K")]
    pub nics_per_node: u32,
    /// Fabric ports per NIC.
    #[arg(long, value_name = "PORTS", default_value_t = 1)]
    pub nic_ports: u32,
    /// Speed of one NIC port, Gb/s.
    #[arg(long, value_name = "GBPS")]
    pub nic_gbps: f64,
    /// Physical ports per switch (64 for a QM9700 or SN5600).
    #[arg(long, value_name = "P")]
    pub switch_ports: u32,
    /// Speed of one physical switch port, Gb/s.
    #[arg(long, value_name = "GBPS")]
    pub switch_gbps: f64,
    /// Split each switch port into this many (64 × 400G split 2 is 128 × 200G).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub switch_split: u32,
    /// Switch tiers: 2 (leaf–spine), 3 (leaf–spine–core), or auto for the fewest that fit.
    #[arg(long, value_enum, default_value_t = TiersArg::Auto)]
    pub tiers: TiersArg,
    /// Down:up ports at the leaf (1 is non-blocking, 7 is 1:7).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub oversubscription: f64,
    /// NIC port r of every node in a scalable unit goes to that unit's leaf for rail r.
    #[arg(long)]
    pub rail_optimized: bool,
    /// Independent identical fabrics (1 or 2); each NIC has a port in every plane.
    #[arg(long, value_name = "1|2", default_value_t = 1)]
    pub planes: u32,
    /// Print JSON (the engine's whole sized fabric) instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TiersArg {
    #[value(name = "2")]
    Two,
    #[value(name = "3")]
    Three,
    Auto,
}

/// `native-probe collective`: one collective on named machines (engine `Machines`).
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("size").required(true).args(["bytes", "sweep"])))]
pub struct CollectiveArgs {
    /// The collective, as nccl-tests names its binaries without `_perf`.
    #[arg(long, value_name = "OP", value_parser = clap::builder::PossibleValuesParser::new(
        engine::collective::Collective::ALL.map(|c| c.id())))]
    pub op: String,
    /// Size as nccl-tests counts it (8, 64K, 8G: K, M, G are powers of 1024).
    #[arg(long, value_name = "S")]
    pub bytes: Option<String>,
    /// Every size of `-b 8 -e 8G -f 2` instead: one row per size, the pair NCCL would pick.
    #[arg(long, conflicts_with = "bytes")]
    pub sweep: bool,
    /// Nodes.
    #[arg(long, value_name = "N")]
    pub nodes: u32,
    /// GPUs (ranks) per node.
    #[arg(long, value_name = "G")]
    pub gpus_per_node: u32,
    /// The GPU model.
    #[arg(long, value_name = "GPU", value_parser = clap::builder::PossibleValuesParser::new(
        engine::collective::GpuModel::ALL.map(|g| g.id())))]
    pub gpu: String,
    /// The NIC: its link layer and rate (tcp-* use NCCL's socket transport).
    #[arg(long, value_name = "NIC", value_parser = clap::builder::PossibleValuesParser::new(
        engine::collective::NicModel::ALL.map(|n| n.id())))]
    pub nic: String,
    /// NICs per node [default: one per GPU].
    #[arg(long, value_name = "K")]
    pub nics_per_node: Option<u32>,
    /// GPUDirect RDMA off: the NIC reads and writes host memory only.
    #[arg(long)]
    pub no_gdr: bool,
    /// In-network reduction (SHARP, NCCL's CollNet plugin); InfiniBand NICs only.
    #[arg(long)]
    pub sharp: bool,
    /// Only this algorithm (like NCCL_ALGO).
    #[arg(long, value_name = "ALGO", default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(
        std::iter::once("auto").chain(engine::collective::Algorithm::ALL.map(|a| a.id())).collect::<Vec<_>>()))]
    pub algo: String,
    /// Only this protocol (like NCCL_PROTO).
    #[arg(long, value_name = "PROTO", default_value = "auto", value_parser = clap::builder::PossibleValuesParser::new(
        std::iter::once("auto").chain(engine::collective::Protocol::ALL.map(|p| p.id())).collect::<Vec<_>>()))]
    pub proto: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct QpTableArgs {
    /// Print JSON: an array of {"from", "to", "qp_type", "required", "optional"} objects,
    /// the same table the lab's /qp page uses.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The capture file (pcap or pcapng).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Print one JSON object per frame (JSON Lines) instead of a one-line summary.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CraftArgs {
    /// JSON file holding one packet spec, an array of them or {"packets": [...]} (CRAFT.md).
    #[arg(value_name = "SPEC.json")]
    pub spec: PathBuf,

    /// Where to write the pcap file.
    #[arg(short, long, value_name = "OUT.pcap")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address and port to listen on. The default serves only this machine; use
    /// 0.0.0.0:PORT to let other machines connect. Port 0 picks a free port.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:7878")]
    pub listen: SocketAddr,

    /// Folder holding the built site (its index.html, wasm and css).
    #[arg(long, value_name = "DIR", default_value = "dist")]
    pub ui: PathBuf,

    #[command(flatten)]
    pub trees: TreeArgs,

    /// Where the doctor's findings (in every `hello`, shown on /live) read procfs: its
    /// cmdline, self/limits and sys/kernel/osrelease. Defaults to /proc, except with
    /// --sysfs-root (another host's tree), where those checks are skipped unless given.
    #[arg(long, value_name = "DIR", conflicts_with = "demo")]
    pub procfs_root: Option<PathBuf>,

    /// Stream a recorded ConnectX/InfiniBand machine with moving counters instead of this
    /// machine's devices; every message is marked "source": "demo".
    #[arg(long, conflicts_with_all = ["sysfs_root", "debugfs_root"])]
    pub demo: bool,

    /// How often to read the counters, in milliseconds (at least 100).
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = interval_ms)]
    pub interval_ms: u64,

    /// Also accept WebSocket connections from pages at this origin: scheme://host[:port],
    /// matched exactly (e.g. https://name.github.io for a lab page hosted there, which then
    /// connects to ws://127.0.0.1:7878/ws). Repeatable. Pages on localhost and the probe's own
    /// pages are always accepted; any other site's page gets 403, so it cannot read your
    /// counters through your browser.
    #[arg(long, value_name = "ORIGIN", value_parser = origin)]
    pub allow_origin: Vec<String>,

    /// Also answer requests whose Host header is NAME (or NAME:PORT). Repeatable. Every route
    /// checks Host, against DNS rebinding: a page whose own name an attacker re-points at
    /// 127.0.0.1 still sends its name as Host. Always answered: localhost and loopback
    /// addresses; when --listen is not loopback, also any IP address and this machine's host
    /// name. Give the other names the probe is reached by (a DNS alias, a Prometheus target
    /// name). NAME matches the host exactly, on the listening port; NAME:PORT names another
    /// port, e.g. localhost:9000 for an `ssh -L 9000:localhost:7878` tunnel.
    #[arg(long, value_name = "NAME[:PORT]")]
    pub allow_host: Vec<AllowedHost>,

    /// Require this token: as `?token=` on /ws and as `Authorization: Bearer` on /metrics.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "NATIVE_PROBE_TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
}

#[derive(Debug, Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub trees: TreeArgs,

    /// Print JSON (the schema of PROTOCOL.md's snapshot) instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Where the device trees are read from.
#[derive(Debug, Args)]
pub struct TreeArgs {
    /// Read a recorded tree laid out like /sys (DIR/class/infiniband, DIR/class/net) instead;
    /// its data is marked "source": "recorded", not live.
    #[arg(long, value_name = "DIR")]
    pub sysfs_root: Option<PathBuf>,

    /// Where debugfs is mounted, for mlx5's DCQCN parameters (DIR/mlx5/<pci>/cc_params).
    /// Defaults to /sys/kernel/debug, or DIR/kernel/debug under --sysfs-root.
    #[arg(long, value_name = "DIR")]
    pub debugfs_root: Option<PathBuf>,
}

/// `native-probe dcqcn`: one DCQCN run from a named scenario or a scenario file.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["scenario", "file"])))]
pub struct DcqcnArgs {
    /// A named teaching scenario.
    #[arg(long, value_name = "NAME",
          value_parser = clap::builder::PossibleValuesParser::new(engine::dcqcn::scenario_names()))]
    pub scenario: Option<String>,

    /// A scenario as JSON (the engine's `Scenario`; `--scenario NAME --dump` prints one).
    #[arg(long, value_name = "SCENARIO.json")]
    pub file: Option<PathBuf>,

    /// Which model to run.
    #[arg(long, value_enum, default_value_t = DcqcnModel::Fluid)]
    pub model: DcqcnModel,

    /// Print the time series as CSV on stdout (one row per flow per sample).
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,

    /// Print the summary as JSON on stdout instead of text on stderr.
    #[arg(long)]
    pub json: bool,

    /// Print the scenario itself as JSON and exit (a starting point for --file).
    #[arg(long, conflicts_with_all = ["csv", "json"])]
    pub dump: bool,
}

/// `native-probe netsim`: one run of the fabric simulator, from a named scenario or a file.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["scenario", "file"])))]
pub struct NetsimArgs {
    /// A named scenario.
    #[arg(long, value_name = "NAME", value_parser = netsim_scenarios())]
    pub scenario: Option<String>,

    /// A scenario as JSON (native-probe/NETSIM.md; `--scenario NAME --dump` prints one).
    #[arg(long, value_name = "SCENARIO.json")]
    pub file: Option<PathBuf>,

    /// Print the links' series as CSV on stdout (one row per link per sample) and the
    /// summary on stderr.
    #[arg(long, conflicts_with = "json")]
    pub csv: bool,

    /// Print the whole report as JSON on stdout (one line) instead of the summary.
    #[arg(long)]
    pub json: bool,

    /// Print the scenario itself as JSON and exit (a starting point for --file).
    #[arg(long, conflicts_with_all = ["csv", "json"])]
    pub dump: bool,

    /// Stop the run after this many events, a guard against a run far longer than meant
    /// (rail-1024, the largest named scenario, takes about 150 million).
    #[arg(long, value_name = "N", default_value_t = NETSIM_MAX_EVENTS,
          value_parser = clap::value_parser!(u64).range(1..=engine::dcqcn::MAX_EVENTS_CAP))]
    pub max_events: u64,
}

/// `netsim`'s default event cap: ten times the engine's default for one bottleneck, so every
/// named scenario runs to its end (a few minutes at most on a laptop).
const NETSIM_MAX_EVENTS: u64 = 1_000_000_000;

/// The named scenarios, each with the engine's own description, which `--help` lists and
/// an unknown name is answered with.
fn netsim_scenarios() -> clap::builder::PossibleValuesParser {
    use engine::netsim::{named_scenario, scenario_names};
    clap::builder::PossibleValuesParser::new(scenario_names().iter().map(|&name| {
        let description = named_scenario(name).map_or_else(|e| e.to_string(), |s| s.description);
        clap::builder::PossibleValue::new(name).help(description)
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DcqcnModel {
    /// Discrete-event simulation, packet by packet.
    Packet,
    /// The paper's fluid model (fast).
    Fluid,
}

/// The shortest sampling interval: sysfs reads go to the driver (mlx5 queries firmware for
/// some counters), so sampling faster only loads the NIC.
pub const MIN_INTERVAL_MS: u64 = 100;

fn interval_ms(text: &str) -> Result<u64, String> {
    let value: u64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a whole number of milliseconds"))?;
    if value < MIN_INTERVAL_MS {
        return Err(format!(
            "{value} ms is too short; the interval must be at least {MIN_INTERVAL_MS} ms"
        ));
    }
    Ok(value)
}

/// An `--allow-origin` value, as browsers write an `Origin`: lowercase, no path, no slash.
fn origin(text: &str) -> Result<String, String> {
    let origin = text.trim_end_matches('/').to_ascii_lowercase();
    let Some(url) = engine::address::Url::split(&origin) else {
        return Err(format!(
            "{text:?} is not an origin; write it as the page's scheme://host[:port], e.g. https://lab.example.org"
        ));
    };
    let scheme = url.scheme;
    if scheme != "http" && scheme != "https" {
        return Err(format!(
            "{text:?} is not a web page's origin; only http:// and https:// pages can be allowed"
        ));
    }
    if url.authority.is_empty() || !url.rest.is_empty() {
        let site = url.authority;
        return Err(format!(
            "{text:?} has a path, which an origin never has; the page's origin is {scheme}://{site}"
        ));
    }
    Ok(origin)
}

impl DoctorArgs {
    pub fn debugfs(&self) -> PathBuf {
        self.debugfs_root
            .clone()
            .unwrap_or_else(|| self.sysfs_root.join("kernel/debug"))
    }
}

impl TreeArgs {
    /// What the counters are: this machine's own, or a tree given with `--sysfs-root` (a
    /// recording or another machine's copy), which must never be shown as this machine's.
    pub fn source(&self) -> engine::probe::Source {
        match self.sysfs_root {
            Some(_) => engine::probe::Source::Recorded,
            None => engine::probe::Source::Live,
        }
    }

    pub fn sysfs(&self) -> PathBuf {
        self.sysfs_root
            .clone()
            .unwrap_or_else(|| PathBuf::from("/sys"))
    }

    pub fn debugfs(&self) -> PathBuf {
        match (&self.debugfs_root, &self.sysfs_root) {
            (Some(dir), _) => dir.clone(),
            (None, Some(sysfs)) => sysfs.join("kernel/debug"),
            (None, None) => PathBuf::from("/sys/kernel/debug"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_below_the_minimum_are_refused_with_the_minimum() {
        assert_eq!(interval_ms("100"), Ok(100));
        let short = interval_ms("50").unwrap_err();
        assert!(short.contains("at least 100 ms"), "{short}");
        assert!(interval_ms("fast").is_err());
    }

    #[test]
    fn origins_are_written_as_browsers_send_them() {
        assert_eq!(
            origin("https://Name.GitHub.io/"),
            Ok("https://name.github.io".into())
        );
        let path = origin("https://name.github.io/rdma-lab/").unwrap_err();
        assert!(path.contains("origin is https://name.github.io"), "{path}");
        assert!(origin("name.github.io").is_err());
        assert!(origin("file:///tmp/lab").is_err());
    }
}
