//! What one NCCL message says, read from its format string.
//!
//! Each arm of [`classify`] names the format strings it reads (file and line at a tag of
//! NVIDIA/nccl). Reading is by fixed words and whitespace-separated fields, so a line costs
//! time linear in its length and a line of any shape gives some [`Event`], never a panic.

use serde::Serialize;

use super::prefix::Level;
use super::wc_status;

/// The link layer NCCL printed for an IB device (`NCCL_IB_LLSTR`, `src/transport/net_ib/common.h`
/// line 106 at v2.29.3-1; `IB` or `RoCE` at v2.4.8-1 `src/transport/net_ib.cc` line 163).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum LinkLayer {
    IB,
    RoCE,
    #[serde(rename = "UNSPECIFIED")]
    Unspecified,
}

/// One device in a `NET/IB : Using` or `NET/Socket : Using` list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NetDevice {
    pub index: u32,
    pub name: String,
    /// IB devices: the port number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkLayer>,
    /// Socket devices: the address NCCL printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
}

/// The transport family of a channel's connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Transport {
    P2P,
    SHM,
    NET,
    COLLNET,
    Other,
}

/// Which side of a NET connection logged the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Send,
    Receive,
}

/// One end of a channel connection: `rank[dev]`, where `dev` is the NVML device (v2.18+),
/// the CUDA device (v2.4 SHM) or the bus id in hex (v2.12).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Peer {
    pub rank: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

/// `Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA` and its older forms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChannelConnection {
    pub channel: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conn_index: Option<u32>,
    pub from: Peer,
    pub to: Peer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
    pub transport: Transport,
    /// The network's name for NET connections: `IB`, `Socket`, or a plugin's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net: Option<String>,
    /// The network device of NET connections, `n` in `NET/IB/n`: the `[n]` of the host's
    /// `NET/IB : Using` list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_dev: Option<u32>,
    /// Everything after `via`, as printed.
    pub via: String,
    pub gdr: bool,
}

/// The library call or kind of an NCCL error string (`ncclGetErrorString`, `src/init.cc`
/// lines 3008-3020 at v2.29.3-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NcclResult {
    UnhandledSystemError,
    UnhandledCudaError,
    InternalError,
    RemoteError,
}

/// What a line says.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// `NCCL version 2.18.3+cuda12.2` (`VERSION_STRING`, `src/init.cc` line 632 at v2.29.3-1,
    /// line 299 at v2.4.8-1).
    Version {
        nccl: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cuda: Option<String>,
    },
    /// `... comm 0x.. rank R nranks N cudaDev D [nvmlDev M] [busId B] ... - Init COMPLETE`.
    InitComplete {
        rank: u32,
        nranks: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        cuda_dev: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        nvml_dev: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        bus_id: Option<String>,
    },
    /// `NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>`.
    NetIbUsing {
        devices: Vec<NetDevice>,
        #[serde(skip_serializing_if = "Option::is_none")]
        oob: Option<String>,
    },
    /// `NET/Socket : Using [0]eth0:10.0.0.1<0>`.
    NetSocketUsing { devices: Vec<NetDevice> },
    /// `Bootstrap : Using eth0:10.0.0.1<0>` (and `Bootstrap: Using` at v2.29).
    Bootstrap { interfaces: Vec<String> },
    /// `Using network IB` (`src/init.cc` line 451 at v2.29.3-1, line 78 at v2.12.12-1).
    UsingNetwork { name: String },
    /// `NET/Plugin: Loaded net plugin NAME (vN)`.
    NetPluginLoaded { name: String },
    /// Any other `NET/Plugin` line: no plugin found, failed to load, symbol missing.
    NetPluginNotLoaded {
        /// A plugin library was there but could not be used: `dlopen` failed for another
        /// reason than a missing file, or it lacks the `ncclNetPlugin_vN` symbol this NCCL
        /// looks for (which NCCL may then find in an older version: see the diagnosis).
        broken: bool,
        message: String,
    },
    /// A line that gives a communicator's size without being its `Init COMPLETE`: `... -
    /// Init START`, `... - Destroy COMPLETE`, `... - Abort COMPLETE`, and `comm %p rank %d
    /// nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d` (which alone gives the
    /// node count).
    CommSize {
        #[serde(skip_serializing_if = "Option::is_none")]
        rank: Option<u32>,
        nranks: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        nnodes: Option<u32>,
    },
    /// `NET/IB : No device found.`
    NoIbDevice,
    /// `Failed to open libibverbs.so[.1]`.
    NoLibibverbs,
    /// `Call to ibv_xxx failed ...` (`src/misc/ibvwrap.cc` lines 40-86 at v2.29.3-1).
    VerbsCallFailed {
        call: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        errno: Option<i64>,
        message: String,
    },
    /// `Call to ibv_modify_qp failed with 22 Invalid argument, on dev ..., local GID index 3,
    /// local GID ..., remote GID ...` (`src/misc/ibvwrap.cc` lines 282 and 307 at v2.29.3-1).
    ModifyQpFailed {
        #[serde(skip_serializing_if = "Option::is_none")]
        errno: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gid_index: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        local_gid: Option<String>,
        message: String,
    },
    /// `GPU Direct RDMA Disabled for ...`.
    GdrDisabled {
        /// The message says `(no module)`: the peer-memory module was not found.
        no_module: bool,
        /// The NIC as the line names it (see `gdr_hca` in this file).
        #[serde(skip_serializing_if = "Option::is_none")]
        hca: Option<String>,
        message: String,
    },
    /// `GPU Direct RDMA Enabled for ...`.
    GdrEnabled {
        #[serde(skip_serializing_if = "Option::is_none")]
        hca: Option<String>,
        message: String,
    },
    /// `NCCL_XXX set by environment to VALUE`.
    EnvSet { name: String, value: String },
    /// A connection of one channel between two ranks.
    Channel(ChannelConnection),
    /// `Channel 00/02 : 0 1 2 3` (`src/graph/rings.cc` line 47 at v2.29.3-1), `Ring 00 : 3 -> 0
    /// -> 1` (`src/init.cc` line 1274), `Trees [0] ...` (line 1277), `Tree 0 : ...`
    /// (`src/graph/connect.cc` line 168).
    Topology { text: String },
    /// The QP line NCCL prints once connected: `NET/IB: Dev 0 Port 1 qpn 123 mtu 5 GID 3
    /// (0/B0A000AFFFF0000)` (v2.12.12-1 `src/transport/net_ib.cc` line 622) or `NET/IB: NCCL Dev
    /// 0 IbDev 0 Port 1 qpn 123 mtu 5 GID 3 (...)` (v2.29.3-1 `connect.cc` line 649; RoCE only,
    /// IB prints LID at line 644).
    IbQp {
        /// `mtu %d`: the sending port's active MTU as `enum ibv_mtu` (1 = 256 … 5 = 4096
        /// bytes). The QP's path MTU is the smaller of it and the peer's (v2.29.3-1
        /// `src/transport/net_ib/connect.cc` lines 622, 523 and 838), so at most this.
        #[serde(skip_serializing_if = "Option::is_none")]
        mtu: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gid_index: Option<i64>,
        /// The GID's subnet prefix and interface id as NCCL printed them: `%lX` of the
        /// big-endian fields read as host integers, so byte-swapped on x86.
        #[serde(skip_serializing_if = "Option::is_none")]
        gid_prefix_hex: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gid_interface_hex: Option<String>,
        /// v2.29 prints `LID` for IB ports and `GID` for RoCE ports.
        lid_form: bool,
    },
    /// `NET/IB : Got completion ... error N` / `status=NAME(N)`.
    WorkCompletionError {
        status: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        status_name: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        status_text: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        peer: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        vendor_err: Option<u64>,
    },
    /// `Cuda failure 'out of memory'` (`src/include/checks.h` line 17 at v2.29.3-1).
    CudaFailure { message: String },
    /// One of NCCL's error strings, usually printed by the application around NCCL.
    NcclError { result: NcclResult },
    /// A shared-memory segment under `/dev/shm` could not be created, extended or mapped.
    ShmError {
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        message: String,
    },
    /// A WARN that a socket connection between processes failed, timed out or was closed.
    SocketFailure {
        /// The connect timed out (`Connection timed out`, `exceeded timeouts`).
        timed_out: bool,
        /// The peer closed the connection.
        closed_by_peer: bool,
        message: String,
    },
    /// `NVLS multicast support is [not ]available on dev D`.
    NvlsSupport { available: bool },
    /// NVLS set up and used: `Connected NVLS tree`, `NVLS comm ...`.
    NvlsConnected,
    /// A WARN about NVLS, such as `Failed to bind NVLink SHARP (NVLS) Multicast memory`.
    NvlsFailure { message: String },
    /// Any other line about NVLS.
    NvlsMention,
    /// A line about CollNet: `CollNet 00/0 : 0 [send] via COLLNET/...`, plugin lines.
    CollNetMention,
    /// Any other WARN.
    Warning { message: String },
    /// A line NCCL prints on every start-up that says nothing the explainer uses, such as
    /// `Connected all rings` or `threadThresholds ...`: read, and left out of the summary.
    /// `what` is the fixed words that identify it (the table `ROUTINE` in this file).
    Routine { what: &'static str },
    /// An empty line (NCCL puts one before each WARN).
    Blank,
    /// A line none of the above reads; kept so no line of the log is lost.
    Unrecognised { text: String },
}

/// Read what `body` (the message after the prefix) says.
pub fn classify(level: Level, body: &str) -> Event {
    if body.is_empty() {
        return Event::Blank;
    }
    if let Some(e) = version(body) {
        return e;
    }
    if body.ends_with("Init COMPLETE") {
        if let Some(e) = init_complete(body) {
            return e;
        }
    }
    if let Some(e) = comm_size(body) {
        return e;
    }
    if let Some(rest) = body.strip_prefix("NET/IB : Using") {
        return net_ib_using(rest);
    }
    if let Some(rest) = body.strip_prefix("NET/Socket : Using") {
        return Event::NetSocketUsing {
            devices: device_list(rest).map(socket_device).collect(),
        };
    }
    if let Some(rest) = body
        .strip_prefix("Bootstrap : Using")
        .or_else(|| body.strip_prefix("Bootstrap: Using"))
    {
        return Event::Bootstrap {
            interfaces: rest
                .split_whitespace()
                .map(|t| strip_index(t).1.to_string())
                .collect(),
        };
    }
    if let Some(name) = body.strip_prefix("Using network ") {
        return Event::UsingNetwork {
            name: name.trim().to_string(),
        };
    }
    if body.starts_with("NET/Plugin") {
        return net_plugin(body);
    }
    if body.starts_with("NET/IB : No device found") {
        return Event::NoIbDevice;
    }
    if body.starts_with("Failed to open libibverbs") {
        return Event::NoLibibverbs;
    }
    if let Some(rest) = body.strip_prefix("Call to ") {
        return verbs_call(rest, body);
    }
    if let Some(e) = gdr_verdict(body) {
        return e;
    }
    if let Some(e) = env_set(body) {
        return e;
    }
    if body.contains(" via ") {
        if let Some(c) = channel(body) {
            return Event::Channel(c);
        }
    }
    if body.starts_with("Channel ")
        || body.starts_with("Ring ")
        || body.starts_with("Trees")
        || body.starts_with("Tree ")
    {
        return Event::Topology {
            text: body.to_string(),
        };
    }
    // v2.30.7-1 names the function and says `qp_num` (`src/transport/net_ib/connect.cc`
    // lines 958 and 968: `NET/IB: %s: %s %d IbDev %d Port %d qp_num %d mtu %d ...`). The ECE
    // lines that also name a qpn carry no MTU and are routine.
    if body.starts_with("NET/IB: ")
        && (body.contains(" qpn ") || body.contains(" qp_num "))
        && body.contains(" mtu ")
    {
        return ib_qp(body);
    }
    if body.contains("Got completion") {
        if let Some(e) = completion_error(body) {
            return e;
        }
    }
    if let Some(rest) = body.strip_prefix("Cuda failure") {
        return Event::CudaFailure {
            message: rest.trim().trim_matches('\'').to_string(),
        };
    }
    if let Some(result) = nccl_error(body) {
        return Event::NcclError { result };
    }
    if level == Level::Warn && is_shm_error(body) {
        return Event::ShmError {
            path: word_starting(body, "/dev/shm/")
                .map(|p| p.trim_end_matches([',', '.']).to_string()),
            message: body.to_string(),
        };
    }
    if level == Level::Warn {
        if let Some(e) = socket_failure(body) {
            return e;
        }
    }
    if let Some(rest) = body.strip_prefix("NVLS multicast support is ") {
        return Event::NvlsSupport {
            available: !rest.starts_with("not "),
        };
    }
    if body.contains("NVLS") {
        if level == Level::Warn {
            return Event::NvlsFailure {
                message: body.to_string(),
            };
        }
        if body.starts_with("Connected NVLS") || body.starts_with("NVLS comm ") {
            return Event::NvlsConnected;
        }
        return Event::NvlsMention;
    }
    if body.contains("CollNet") || body.contains("COLLNET") {
        return Event::CollNetMention;
    }
    if level == Level::Warn {
        return Event::Warning {
            message: body.to_string(),
        };
    }
    if let Some(what) = routine(body) {
        return Event::Routine { what };
    }
    Event::Unrecognised {
        text: body.to_string(),
    }
}

/// Where a routine line's fixed words stand in it.
#[derive(Clone, Copy)]
enum At {
    Start,
    End,
    Within,
}

/// The lines of an INFO log's start-up that the explainer reads as routine, by their fixed
/// words: the formats of NVIDIA/nccl v2.29.3-1 unless another tag is named.
///
/// - `cudaDriverVersion %d`: `src/misc/cudawrap.cc` line 273.
/// - Init START, Destroy COMPLETE and Abort COMPLETE lines without a readable `rank` and
///   `nranks` (those with them are [`Event::CommSize`], read by `comm_size`).
/// - `Connected all rings, use ring PXN %d GDR %d`, `Connected all trees`, `Connected
///   binomial trees`: `src/transport/generic.cc` lines 39, 58, 81; `Connected all rings` at
///   v2.12.12-1 `src/init.cc` line 732.
/// - `threadThresholds %ld/%ld/%ld | ...`: `src/graph/tuning.cc` line 566; v2.12.12-1 line 252.
/// - `%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p
///   channels per peer`: `src/init.cc` line 1419; `%d coll channels, %d p2p channels, ...`
///   at v2.12.12-1 `src/graph/paths.cc` line 678.
/// - `CC %s, workFifoBytes %d`: `src/init.cc` line 575; `CC %s, Multi-GPU CC %s,
///   workFifoBytes %d` at v2.23.4-1 line 476.
/// - `P2P Chunksize set to %d`: `src/init.cc` line 769.
/// - `Check P2P Type isAllDirectP2p %d directMode %d isAllCudaP2p %d`: `src/transport.cc`
///   line 112.
/// - `DMA-BUF is available on GPU device %d`: `src/init.cc` line 390.
/// - `Comm config %s set to %d`: `src/init.cc` line 1721.
/// - `Init timings - %s: rank %d ...`: `src/init.cc` line 1698; `Bootstrap timings total %f
///   ...`: `src/bootstrap.cc` line 867.
/// - `Setting affinity for GPU %d to %s`: v2.23.4-1 `src/graph/topo.cc` line 1017, v2.4.8-1
///   `src/init.cc` line 931. `Launch mode %s%s%s`: v2.12.12-1 `src/enqueue.cc` line 326.
/// - `[Proxy Service] ...`, `[Proxy Progress] ...`, `[Proxy Service UDS] ...`:
///   `src/proxy.cc` lines 1621, 947, 1815.
/// - `RAS client listening socket at %s`: `src/ras/client_support.cc` line 183.
/// - `Assigned NET plugin %s to comm`, `Initialized NET plugin %s`: `src/plugin/net.cc`
///   lines 260, 189; `Using non-device net plugin version %d`: v2.21.5-1 `src/net.cc` line 518.
/// - `TUNER/Plugin: ...`, `PROFILER/Plugin: ...`, `ENV/Plugin: ...` (no such plugin, so the
///   built-in one): `src/plugin/plugin_open.cc` line 107.
/// - `Symmetric VA size=%ldGB`: `src/dev_runtime.cc` line 110.
/// - `NET/IB: IbDev %d Port %d qpn %d query_ece={...}` and `... set_ece={...}`:
///   `src/transport/net_ib/connect.cc` lines 657, 518.
const ROUTINE: [(At, &str); 28] = [
    (At::Start, "cudaDriverVersion"),
    (At::End, "Init START"),
    (At::End, "Destroy COMPLETE"),
    (At::End, "Abort COMPLETE"),
    (At::Start, "Connected all rings"),
    (At::Start, "Connected all trees"),
    (At::Start, "Connected binomial trees"),
    (At::Start, "threadThresholds"),
    (At::Within, " coll channels, "),
    (At::Within, "workFifoBytes"),
    (At::Start, "P2P Chunksize set to"),
    (At::Start, "Check P2P Type"),
    (At::Start, "DMA-BUF is available on GPU device"),
    (At::Start, "Comm config "),
    (At::Start, "Init timings"),
    (At::Start, "Bootstrap timings"),
    (At::Start, "Setting affinity for GPU"),
    (At::Start, "Launch mode"),
    (At::Start, "[Proxy "),
    (At::Start, "RAS client listening socket"),
    (At::Start, "Assigned NET plugin"),
    (At::Start, "Initialized NET plugin"),
    (At::Start, "Using non-device net plugin"),
    (At::Start, "TUNER/Plugin"),
    (At::Start, "PROFILER/Plugin"),
    (At::Start, "ENV/Plugin"),
    (At::Start, "Symmetric VA size"),
    (At::Within, "_ece={"),
];

/// The fixed words of the routine line `body` is, if it is one.
fn routine(body: &str) -> Option<&'static str> {
    ROUTINE
        .iter()
        .find(|(at, words)| match at {
            At::Start => body.starts_with(words),
            At::End => body.ends_with(words),
            At::Within => body.contains(words),
        })
        .map(|(_, words)| words.trim())
}

fn version(body: &str) -> Option<Event> {
    let at = body.find("NCCL version ")?;
    let word = body[at + "NCCL version ".len()..]
        .split_whitespace()
        .next()?;
    // `NCCL version 21803, but is running ...` (a mismatch WARN) is not the banner.
    if !word.starts_with(|c: char| c.is_ascii_digit()) || !word.contains('.') {
        return None;
    }
    let (nccl, cuda) = match word.split_once("+cuda") {
        Some((n, c)) => (n, Some(c.to_string())),
        None => (word, None),
    };
    Some(Event::Version {
        nccl: nccl.to_string(),
        cuda,
    })
}

/// The communicator lines that give its size, read before the routine ones (see
/// [`Event::CommSize`]): `%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx
/// parent %p childCount %d color %d key %d- Init START` and `[Rank %d] %s comm %p rank %d
/// nranks %d ... - Init START` (v2.29.3-1 `src/init.cc` lines 1640, 1664), `ncclCommInitRank
/// comm %p rank %d nranks %d ... - Init START` (v2.21.5-1 `src/init.cc` line 1544), `comm %p
/// rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START` (v2.18.3-1
/// line 1356), `comm %p rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE` (v2.12.12-1
/// line 1047, v2.21.5-1 line 2154), and `comm %p rank %d nRanks %d nNodes %d localRanks %d
/// localRank %d MNNVL %d` (v2.21.5-1 line 1160, v2.29.3-1 line 1220). Also the lines that
/// name a rank and the size alone: `bootstrapSplit: comm %p parent %p rank %d nranks %d color
/// %d key %d prev %d next %d - DONE` (an INFO line in v2.20.5-1 and v2.21.5-1
/// `src/bootstrap.cc`, line 395 in the latter), `comm %p rank %d nranks %d` and its ending `-
/// COMPLETE` (v2.3.7-1 `src/init.cu` lines 174 and 599), `comm %p rank %d nranks %d cudaDev
/// %d nvmlDev %d` (v2.4.2-1 line 245) and `rank %d nranks %d` (v2.3.7-1 line 618).
fn comm_size(body: &str) -> Option<Event> {
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let ends = [
        "Init START",
        "Destroy COMPLETE",
        "Abort COMPLETE",
        "- COMPLETE",
    ];
    let sized = ends.iter().any(|e| body.ends_with(e))
        || body.contains(" nNodes ")
        || body.starts_with("bootstrapSplit: comm ")
        // The old INIT lines: nothing after the sizes but the devices.
        || (body.starts_with("comm ")
            && matches!(tokens.get(2..6), Some(["rank", _, "nranks", _]))
            && matches!(tokens.len(), 6 | 10))
        || matches!(tokens[..], ["rank", _, "nranks", _]);
    if !sized || !(body.contains("comm ") || tokens.first() == Some(&"rank")) {
        return None;
    }
    let nranks = field(&tokens, "nranks")
        .or_else(|| field(&tokens, "nRanks"))?
        .parse()
        .ok()?;
    Some(Event::CommSize {
        rank: field(&tokens, "rank").and_then(|v| v.parse().ok()),
        nranks,
        nnodes: field(&tokens, "nNodes").and_then(|v| v.parse().ok()),
    })
}

/// `GPU Direct RDMA Disabled for ...` and `... Enabled for ...`. The IB transport's own
/// verdict on a NIC names it in quotes and gives no distance: `... for HCA %d '%s' (no
/// module)` up to v2.12.12-1 (`src/transport/net_ib.cc` line 290), without the parenthesis in
/// the IB plugins of later years; the topology's verdict gives a PCIe distance
/// (`src/graph/paths.cc`).
fn gdr_verdict(body: &str) -> Option<Event> {
    if let Some(at) = body.find("GPU Direct RDMA Disabled for") {
        let rest = &body[at..];
        return Some(Event::GdrDisabled {
            no_module: rest.contains("(no module")
                || (rest.contains('\'') && !rest.contains("distance")),
            hca: gdr_hca(body),
            message: body.to_string(),
        });
    }
    body.contains("GPU Direct RDMA Enabled for")
        .then(|| Event::GdrEnabled {
            hca: gdr_hca(body),
            message: body.to_string(),
        })
}

/// The NIC a `GPU Direct RDMA Enabled/Disabled for` line names: `HCA 0 'mlx5_0'` and `HCA 3`
/// (v2.4.8-1 `src/transport/net.cc` lines 271, 280 and `src/transport/net_ib.cc` line 226;
/// v2.12.12-1 `src/graph/paths.cc` lines 393, 398 and `src/transport/net_ib.cc` line 290),
/// `HCA 40000` (a NET id in hex, v2.21.5-1 `src/graph/paths.cc` lines 414, 419), or `NET/0-2`
/// (v2.29.3-1 `src/graph/paths.cc` line 428). The quoted device name wins when there is one.
fn gdr_hca(body: &str) -> Option<String> {
    if let Some((_, rest)) = body.split_once('\'') {
        if let Some((name, _)) = rest.split_once('\'') {
            return Some(name.to_string());
        }
    }
    let key = if body.contains("HCA ") {
        "HCA "
    } else {
        "- NET/"
    };
    let at = body.find(key)?;
    let word = body[at + key.len()..].split_whitespace().next()?;
    let word = word.trim_end_matches([',', ')', '(']);
    (!word.is_empty()).then(|| {
        if key == "HCA " {
            word.to_string()
        } else {
            format!("NET/{word}")
        }
    })
}

/// The word after `key` among `tokens`.
fn field<'a>(tokens: &[&'a str], key: &str) -> Option<&'a str> {
    let i = tokens.iter().position(|t| *t == key)?;
    tokens.get(i + 1).copied()
}

/// `comm %p rank %d nranks %d cudaDev %d nvmlDev %d - Init COMPLETE` (v2.4.8-1 `src/init.cc`
/// line 957); `... cudaDev %d busId %lx - Init COMPLETE` (v2.12.12-1 `src/init.cc` line 917);
/// `... nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE` (v2.18.3-1 `src/init.cc` line
/// 1375); `%s comm %p rank ... busId %lx commId 0x%llx - Init COMPLETE` or `... parent %p
/// childCount %d color %d key %d - Init COMPLETE` (v2.29.3-1 `src/init.cc` lines 1687, 1692).
fn init_complete(body: &str) -> Option<Event> {
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let rank = field(&tokens, "rank")?.parse().ok()?;
    let nranks = field(&tokens, "nranks")?.parse().ok()?;
    Some(Event::InitComplete {
        rank,
        nranks,
        cuda_dev: field(&tokens, "cudaDev").and_then(|v| v.parse().ok()),
        nvml_dev: field(&tokens, "nvmlDev").and_then(|v| v.parse().ok()),
        bus_id: field(&tokens, "busId").map(str::to_string),
    })
}

/// The `[n]name...` words of a device list.
fn device_list(rest: &str) -> impl Iterator<Item = (u32, &str)> {
    rest.split_whitespace().filter_map(|t| {
        let (index, name) = strip_index(t);
        index.map(|i| (i, name))
    })
}

/// `[3]eth0:...` → (Some(3), `eth0:...`); anything else is returned whole.
fn strip_index(t: &str) -> (Option<u32>, &str) {
    if let Some(rest) = t.strip_prefix('[') {
        if let Some((n, name)) = rest.split_once(']') {
            if let Ok(i) = n.parse() {
                return (Some(i), name);
            }
        }
    }
    (None, t)
}

/// ` [0]mlx5_0:1/RoCE [1]mlx5_1:1/IB [RO]; OOB eth0:10.0.0.1<0>` (v2.29.3-1
/// `src/transport/net_ib/init.cc` lines 351-357; v2.4.8-1 `src/transport/net_ib.cc` lines
/// 162-168 with ` ; OOB`). A merged (virtual) device lists its members: ` [0]={[0]
/// mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE}` (v2.21.5-1 `src/transport/net_ib.cc` lines 521-529),
/// read as one device named after its members.
fn net_ib_using(rest: &str) -> Event {
    let (list, oob) = match rest.split_once("OOB ") {
        Some((l, o)) => (l, Some(o.trim().to_string())),
        None => (rest, None),
    };
    let mut devices = Vec::new();
    let mut rest = list;
    while let Some(open) = rest.find("={") {
        // `... [3]={`: the words before `[3]` are plain devices, `3` is the merged one's index.
        let head = &rest[..open];
        let bracket = head.rfind('[').unwrap_or(head.len());
        devices.extend(device_list(&head[..bracket]).map(ib_device));
        let index = head[bracket..]
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok();
        let after = &rest[open + 2..];
        let (members, tail) = after.split_once('}').unwrap_or((after, ""));
        let members: Vec<NetDevice> = members
            .split(',')
            .filter_map(|m| m.trim().split_once(' ').map(|(_, d)| ib_device((0, d))))
            .collect();
        if let (Some(index), Some(first)) = (index, members.first()) {
            let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
            let links: Vec<Option<LinkLayer>> = members.iter().map(|m| m.link).collect();
            devices.push(NetDevice {
                index,
                name: names.join("+"),
                port: first.port,
                // One link layer for the device only when its members agree.
                link: links
                    .iter()
                    .all(|l| *l == links[0])
                    .then_some(links[0])
                    .flatten(),
                address: None,
            });
        }
        rest = tail;
    }
    devices.extend(device_list(rest).map(ib_device));
    Event::NetIbUsing { devices, oob }
}

/// `mlx5_0:1/RoCE` at index `index`. The IB plugin of HPC-X appends a capability after the
/// link layer (`mlx5_1:1/IB/SHARP`, as <https://github.com/NVIDIA/nccl/issues/988> shows), so
/// the link layer is the first word after the port that names one.
fn ib_device((index, t): (u32, &str)) -> NetDevice {
    let t = t.trim_end_matches([';', ',']);
    let mut parts = t.split('/');
    let name_port = parts.next().unwrap_or(t);
    let link = parts.find_map(|p| match p {
        "IB" => Some(LinkLayer::IB),
        "RoCE" => Some(LinkLayer::RoCE),
        "UNSPECIFIED" => Some(LinkLayer::Unspecified),
        _ => None,
    });
    let (name, port) = match name_port.rsplit_once(':') {
        Some((n, p)) => (n, p.parse().ok()),
        None => (name_port, None),
    };
    NetDevice {
        index,
        name: name.to_string(),
        port,
        link,
        address: None,
    }
}

/// `[0]eth0:10.0.0.1<0>` (v2.29.3-1 `src/transport/net_socket.cc` lines 73-77).
fn socket_device((index, t): (u32, &str)) -> NetDevice {
    let (name, address) = match t.split_once(':') {
        Some((n, a)) => (n, Some(a.to_string())),
        None => (t, None),
    };
    NetDevice {
        index,
        name: name.to_string(),
        port: None,
        link: None,
        address,
    }
}

/// `NET/Plugin: Loaded net plugin %s (v10)` (v2.29.3-1 `src/plugin/net/net_v10.cc` line
/// 110; v2.18.3-1 `src/net.cc` lines 200-206). Other `NET/Plugin` lines say no plugin was
/// loaded: `No plugin found (libnccl-net.so).` (v2.4.8-1 `src/init.cc` line 106), `No plugin
/// found (%s), using internal implementation` (v2.12.12-1 `src/net.cc` line 125), `Plugin load
/// (%s) returned ...` (v2.18.3-1 `src/net.cc` line 179), `Could not find:%s` (v2.29.3-1
/// `src/plugin/plugin_open.cc` line 107). Loaded collnet plugins are CollNet, not the network.
fn net_plugin(body: &str) -> Event {
    if let Some(at) = body.find("Loaded net plugin ") {
        let rest = &body[at + "Loaded net plugin ".len()..];
        // The name may hold spaces (`AWS Libfabric`); the version in parentheses ends it.
        let name = match rest.rfind(" (v") {
            Some(end) => &rest[..end],
            None => rest,
        };
        return Event::NetPluginLoaded {
            name: name.trim().to_string(),
        };
    }
    if body.contains("collnet") || body.contains("coll plugin") || body.contains("CollNet") {
        return Event::CollNetMention;
    }
    // A missing library is the usual case (no plugin installed: NCCL uses its own IB and
    // socket transports). `dlopen`'s other errors (`undefined symbol`, a wrong ELF class) and
    // a missing `ncclNetPlugin_vN` symbol mean a plugin is there and cannot be used: v2.4.8-1
    // `src/init.cc` lines 108, 114; v2.19.3-1 `src/net.cc` lines 234, 241, 248; v2.29.3-1
    // `src/plugin/plugin_open.cc` line 78 (`NET/Plugin: %s: %s`, printed only when the
    // file exists).
    const ABSENT: [&str; 6] = [
        "No such file",
        "No plugin found",
        "Could not find",
        "internal",
        "set by env",
        "Using ",
    ];
    let broken = body.contains("Failed to find ncclNetPlugin")
        || body.contains("not supported")
        || !ABSENT.iter().any(|w| body.contains(w));
    Event::NetPluginNotLoaded {
        broken,
        message: body.to_string(),
    }
}

/// `Call to ibv_modify_qp failed with %d %s, %s` (v2.29.3-1 `src/misc/ibvwrap.cc` line 307),
/// `Call to ibv_xxx failed with error %s` / `... failed with error %s errno %d` / `... failed`
/// (same file, lines 40-86).
fn verbs_call(rest: &str, body: &str) -> Event {
    let call = rest.split_whitespace().next().unwrap_or("").to_string();
    // NCCL 2.5 to 2.7 size a /dev/shm segment with `SYSCHECK(shm_allocate(...),
    // "posix_fallocate")`, which prints `Call to posix_fallocate failed : %s` (v2.7.8-1
    // `src/include/shm.h` line 28): a shared-memory failure, not a verbs one.
    if call == "posix_fallocate" {
        return Event::ShmError {
            path: None,
            message: body.to_string(),
        };
    }
    let errno = number_after(body, "errno ").or_else(|| number_after(body, "failed with "));
    if call == "ibv_modify_qp" {
        let gid_index = number_after(body, "local GID index ");
        // `local GID index 3, local GID ::ffff:...`: the first `local GID ` starts the index.
        let local_gid = body
            .match_indices("local GID ")
            .map(|(at, _)| &body[at + "local GID ".len()..])
            .find(|s| !s.starts_with("index"))
            .and_then(|s| s.split([',', ' ']).next())
            .filter(|g| !g.is_empty() && *g != "N/A")
            .map(str::to_string);
        return Event::ModifyQpFailed {
            errno,
            gid_index,
            local_gid,
            message: body.to_string(),
        };
    }
    Event::VerbsCallFailed {
        call,
        errno,
        message: body.to_string(),
    }
}

/// The signed integer right after `key`.
fn number_after(body: &str, key: &str) -> Option<i64> {
    let at = body.find(key)?;
    leading_int(&body[at + key.len()..])
}

fn leading_int(s: &str) -> Option<i64> {
    let end = s
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(s.len(), |(i, _)| i);
    s[..end].parse().ok()
}

/// `%s set by environment to %lld.` (v2.29.3-1 `src/misc/param.cc` line 90; v2.4.8-1
/// `src/include/param.h` line 72 with `%lu.`), `%s set by environment to %s` (v2.29.3-1
/// `src/misc/socket.cc` line 173 and others), `%s set by environment to %d` (v2.29.3-1
/// `src/graph/paths.cc` line 225, for `NCCL_P2P_DISABLE` and the like), and the shorter
/// `NCCL_IB_HCA set to %s` (v2.12.12-1 `src/transport/net_ib.cc` line 169; v2.29.3-1
/// `src/transport/net_ib/init.cc` line 220) and `NCCL_SOCKET_IFNAME set to %s` (v2.29.3-1
/// `src/misc/socket.cc` line 175).
fn env_set(body: &str) -> Option<Event> {
    let (name, value) = body
        .split_once(" set by environment to ")
        .or_else(|| body.split_once(" set to "))?;
    let name = name.trim();
    if !name.starts_with("NCCL_") || name.contains(' ') {
        return None;
    }
    let value = value.trim();
    // param.cc ends integers with a full stop; a path or word keeps its own.
    let value = match value.strip_suffix('.') {
        Some(v) if leading_int(v).is_some_and(|n| n.to_string() == v) => v,
        _ => value,
    };
    Some(Event::EnvSet {
        name: name.to_string(),
        value: value.to_string(),
    })
}

/// `Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s` (v2.29.3-1
/// `src/transport/net.cc` lines 316, 320, 362), `Channel %02d/%01d : %d[%d] -> %d[%d] via
/// P2P/...` (v2.29.3-1 `src/transport/p2p.cc` lines 389-409), `Channel %02d : %d[%d] -> %d[%d]
/// via SHM/%s/%s` (v2.29.3-1 `src/transport/shm.cc` line 129), `Channel %02d : %d[%lx] ->
/// %d[%lx] via P2P/IPC%s` (v2.12.12-1 `src/transport/p2p.cc` line 194), `Ring %02d : %d -> %d
/// [send] via NET/%s/%d%s` (v2.4.8-1 `src/transport/net.cc` line 306), `Ring %02d : %d[%d] ->
/// %d[%d] via P2P/IPC` (v2.4.8-1 `src/transport/p2p.cc` line 504) and `... via direct shared
/// memory` (v2.4.8-1 `src/transport/shm.cc` line 152).
fn channel(body: &str) -> Option<ChannelConnection> {
    let (head, via) = body.split_once(" via ")?;
    let mut t = head.split_whitespace();
    let kw = t.next()?;
    if kw != "Channel" && kw != "Ring" {
        return None;
    }
    let (channel, conn_index) = match t.next()?.split_once('/') {
        Some((c, i)) => (c.parse().ok()?, Some(i.parse().ok()?)),
        None => (head.split_whitespace().nth(1)?.parse().ok()?, None),
    };
    if t.next()? != ":" {
        return None;
    }
    let from = peer(t.next()?)?;
    if t.next()? != "->" {
        return None;
    }
    let to = peer(t.next()?)?;
    let side = match t.next() {
        Some("[send]") => Some(Side::Send),
        Some("[receive]") => Some(Side::Receive),
        None => None,
        Some(_) => return None,
    };
    let via = via.trim();
    let (transport, net, net_dev) = if let Some(rest) = via.strip_prefix("NET/") {
        let mut parts = rest.split('/');
        let name = parts.next().unwrap_or("");
        // `NET/IB/1(0)/GDRDMA`: device 1, through the proxy rank 0 (PXN).
        let dev = parts
            .next()
            .and_then(leading_int)
            .and_then(|d| u32::try_from(d).ok());
        (Transport::NET, Some(name.to_string()), dev)
    } else if via.starts_with("P2P") {
        (Transport::P2P, None, None)
    } else if via.starts_with("SHM") || via.starts_with("direct shared memory") {
        (Transport::SHM, None, None)
    } else if via.starts_with("COLLNET") {
        (Transport::COLLNET, None, None)
    } else {
        (Transport::Other, None, None)
    };
    Some(ChannelConnection {
        channel,
        conn_index,
        from,
        to,
        side,
        transport,
        net,
        net_dev,
        gdr: via.contains("/GDRDMA"),
        via: via.to_string(),
    })
}

/// `3[1]`, `3[1a000]` or `3`.
fn peer(t: &str) -> Option<Peer> {
    match t.split_once('[') {
        Some((rank, dev)) => Some(Peer {
            rank: rank.parse().ok()?,
            device: Some(dev.strip_suffix(']')?.to_string()),
        }),
        None => Some(Peer {
            rank: t.parse().ok()?,
            device: None,
        }),
    }
}

/// `NET/IB: Dev %d Port %d qpn %d mtu %d GID %ld (%lX/%lX)` (v2.12.12-1
/// `src/transport/net_ib.cc` line 622; v2.18.3-1 line 674), `... mtu %d query_ece={...} GID
/// %ld (%lX/%lX) ...` (v2.21.5-1 line 1065), v2.29.3-1 `src/transport/net_ib/connect.cc`
/// lines 644 (IB: `LID %d subnet-prefix %lu`) and 649 (RoCE: `GID %ld (%lX/%lX)`), and
/// v2.30.7-1 lines 958 and 968 (`NET/IB: %s: ... qp_num %d mtu %d ...`). Every version prints
/// the LID form for an InfiniBand port and the GID form for a RoCE one.
fn ib_qp(body: &str) -> Event {
    let gid_index = number_after(body, " GID ");
    let (prefix, interface) = match body.find(" GID ") {
        Some(at) => {
            let rest = &body[at..];
            let inner = rest
                .split_once('(')
                .and_then(|(_, r)| r.split_once(')'))
                .map(|(inner, _)| inner);
            match inner.and_then(|i| i.split_once('/')) {
                Some((p, i)) => (Some(p.to_string()), Some(i.to_string())),
                None => (None, None),
            }
        }
        None => (None, None),
    };
    Event::IbQp {
        mtu: number_after(body, " mtu ").and_then(|m| u32::try_from(m).ok()),
        gid_index,
        gid_prefix_hex: prefix,
        gid_interface_hex: interface,
        lid_form: body.contains(" LID "),
    }
}

/// `NET/IB : Got completion with error %d, opcode %d, len %d, vendor err %d` (v2.4.8-1
/// `src/transport/net_ib.cc` line 789); `NET/IB : Got completion from peer %s with error %d,
/// opcode %d, len %d, vendor err %d` (v2.12.12-1 line 1198, v2.18.3-1 line 1295);
/// `NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) vendor_err=%u ...`
/// (v2.29.3-1 `src/transport/net_ib/p2p.cc` line 550) and `NET/IB/GIN: ... status=%d ...`
/// (v2.29.3-1 `src/transport/net_ib/gin.cc` line 522).
fn completion_error(body: &str) -> Option<Event> {
    let status = if let Some(n) = number_after(body, "with error ") {
        Some(n)
    } else if let Some(at) = body.find("status=") {
        let rest = &body[at + "status=".len()..];
        leading_int(rest).or_else(|| {
            // `status=IBV_WC_RETRY_EXC_ERR(12)`: the number in parentheses, else the name.
            let (name, after) = rest.split_once('(')?;
            leading_int(after).or_else(|| wc_status::number_of(name).map(i64::from))
        })
    } else {
        None
    }?;
    let status = u32::try_from(status).ok()?;
    let described = wc_status::describe(status);
    let peer = body
        .find("from peer ")
        .and_then(|at| body[at + "from peer ".len()..].split_whitespace().next())
        .map(str::to_string);
    let vendor_err = number_after(body, "vendor err ")
        .or_else(|| number_after(body, "vendor_err="))
        .and_then(|n| u64::try_from(n).ok());
    Some(Event::WorkCompletionError {
        status,
        status_name: described.map(|d| d.0),
        status_text: described.map(|d| d.1),
        peer,
        vendor_err,
    })
}

/// The strings of `ncclGetErrorString` (v2.29.3-1 `src/init.cc` lines 3011-3016; older
/// versions print the same words without the parenthesis), matched without regard to case
/// because applications re-word their first letter.
fn nccl_error(body: &str) -> Option<NcclResult> {
    const ERRORS: [(&str, NcclResult); 4] = [
        ("unhandled system error", NcclResult::UnhandledSystemError),
        ("unhandled cuda error", NcclResult::UnhandledCudaError),
        ("internal error - please report", NcclResult::InternalError),
        (
            "remote process exited or there was a network error",
            NcclResult::RemoteError,
        ),
    ];
    ERRORS
        .iter()
        .find(|(s, _)| contains_ignore_case(body, s))
        .map(|&(_, r)| r)
}

fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.len() <= h.len() && h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// The shared-memory WARNs: `Error: failed to extend %s to %ld bytes, error: %s (%d)`,
/// `Error: failed to create shared memory file %s`, `Error: Could not map %s size %zu`
/// (v2.29.3-1 `src/misc/shmutils.cc` lines 73, 87, 98), `Error while %s shared memory
/// segment %s (size %ld)` (v2.18.3-1 `src/misc/shmutils.cc` line 112; v2.4.8-1
/// `src/include/shm.h` line 48), `Could not map %s` (v2.12.12-1 `src/misc/shmutils.cc` line 46).
fn is_shm_error(body: &str) -> bool {
    body.contains("/dev/shm/")
        || body.contains("shared memory segment")
        || body.contains("shared memory file")
}

/// `Connect to %s failed : %s` and `Net : Connection closed by remote peer` (v2.4.8-1
/// `src/include/socket.h` lines 390, 403); `Net : Connect to %s failed : %s` and `Net :
/// Connection closed by remote peer %s` (v2.12.12-1 `src/misc/socket.cc` lines 450, 523);
/// `socketStartConnect: exceeded timeouts (%d)`, `socketPollConnect: exceeded timeouts (%d)`,
/// `socketStartConnect: Connect to %s failed : %s` (v2.18.3-1 `src/misc/socket.cc` lines 475,
/// 524, 483); `%s: connect to %s failed : %s` (v2.29.3-1 `src/os/linux.cc` line 213) and
/// `socketProgress: Connection closed by remote peer %s` (v2.29.3-1 `src/misc/socket.cc` line 34);
/// `%s: connect to %s returned %s, exceeded error retry count after %d attempts` and
/// `ncclOsSocketTryAccept: exceeded error retry count after %d attempts, %s` (v2.29.3-1
/// `src/os/linux.cc` lines 199, 114).
fn socket_failure(body: &str) -> Option<Event> {
    let connect = ((body.contains("Connect to ") || body.contains("connect to "))
        && body.contains(" failed"))
        || body.contains("exceeded error retry count");
    let timeouts = body.contains("exceeded timeouts");
    let closed = body.contains("Connection closed by remote peer");
    if !(connect || timeouts || closed) {
        return None;
    }
    Some(Event::SocketFailure {
        timed_out: timeouts || contains_ignore_case(body, "timed out"),
        closed_by_peer: closed,
        message: body.to_string(),
    })
}

fn word_starting<'a>(body: &'a str, start: &str) -> Option<&'a str> {
    let at = body.find(start)?;
    body[at..].split_whitespace().next()
}
