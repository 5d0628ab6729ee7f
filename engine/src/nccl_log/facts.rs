//! The summary's headline facts (version, ranks, hosts, the network between hosts and its
//! link layer, GPUDirect RDMA) from every line that states them, directly or not, each with
//! the lines it came from.
//!
//! People paste fragments: three WARN lines, a dozen channel lines, the tail of a run. So a
//! fact is read from whichever line states it, and a fact no line states stays unknown
//! (`null`) with a [`FactSource`] that says which line would tell: "unknown" is never
//! written as "no".

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::record::{Event, LinkLayer, Transport};
use super::summary::{ChannelLink, InterNodeTransport, Summary};
use super::NcclLog;

/// Where one fact of the [`Summary`] came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FactSource {
    /// The summary's key: `nccl_version`, `nranks`, `nnodes`, `multi_node`,
    /// `inter_node_network`, `link_layer`, `inter_node_transport` or `gdr_used`.
    pub fact: &'static str,
    /// Whether the log states it; when not, the summary's value is `null`.
    pub known: bool,
    /// The lines it was read from, at most twelve of them (`MAX_LINES`).
    pub lines: Vec<usize>,
    /// How it was read; for an unknown fact, which line would tell.
    pub reading: String,
}

/// Enough lines to find the evidence in the text, few enough to read.
const MAX_LINES: usize = 12;

impl FactSource {
    fn known(fact: &'static str, lines: Vec<usize>, reading: impl Into<String>) -> FactSource {
        let mut lines = lines;
        lines.sort_unstable();
        lines.dedup();
        lines.truncate(MAX_LINES);
        FactSource {
            fact,
            known: true,
            lines,
            reading: reading.into(),
        }
    }

    fn unknown(fact: &'static str, would_tell: impl Into<String>) -> FactSource {
        FactSource {
            fact,
            known: false,
            lines: Vec::new(),
            reading: would_tell.into(),
        }
    }
}

/// What a `GPU Direct RDMA Enabled/Disabled for` line says about one NIC.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GdrHca {
    /// The NIC as the line names it: a device name, `HCA` number or NET id.
    pub hca: String,
    /// Some line says `Enabled` for it (for some GPU).
    pub enabled: bool,
    /// Some line says `Disabled` for it.
    pub disabled: bool,
    /// A `Disabled` line says `(no module)`: no peer-memory module was found.
    pub no_module: bool,
    pub lines: Vec<usize>,
}

/// Fills the headline facts of `s` and their sources; the rest of the summary (channels,
/// hosts, ranks) is read first.
pub(super) fn complete(log: &NcclLog, s: &mut Summary) {
    let mut sources = vec![version(s), nranks(log, s)];
    let [count, multi] = nodes(log, s);
    let one_host_lines = multi.lines.clone();
    sources.extend([count, multi]);
    sources.extend(network(log, s, one_host_lines));
    s.gdr_hcas = gdr_hcas(log);
    sources.push(gdr(s));
    s.sources = sources;
}

fn version(s: &Summary) -> FactSource {
    match &s.nccl_version {
        Some(_) => FactSource::known(
            "nccl_version",
            s.version_lines.clone(),
            "the `NCCL version` banner",
        ),
        None => FactSource::unknown(
            "nccl_version",
            "the banner `NCCL version 2.x.y+cudaX.Y`, which rank 0 prints first, would tell",
        ),
    }
}

/// The largest communicator's size from its Init, Destroy and `nRanks … nNodes` lines, else
/// from rank 0's ring line, which lists every rank once.
fn nranks(log: &NcclLog, s: &mut Summary) -> FactSource {
    let sizes: Vec<(u32, usize)> = log
        .records
        .iter()
        .filter_map(|r| match r.event {
            Event::InitComplete { nranks, .. } | Event::CommSize { nranks, .. } => {
                Some((nranks, r.line))
            }
            _ => None,
        })
        .collect();
    if let Some(n) = sizes.iter().map(|x| x.0).max() {
        s.nranks = Some(n);
        let lines = sizes.iter().filter(|x| x.0 == n).map(|x| x.1).collect();
        return FactSource::known(
            "nranks",
            lines,
            "`nranks` of the largest communicator in its Init, Destroy or `nRanks … nNodes` lines",
        );
    }
    if let Some((n, line)) = ring_size(log) {
        s.nranks = Some(n);
        return FactSource::known(
            "nranks",
            vec![line],
            "rank 0's ring line, which lists every rank once",
        );
    }
    FactSource::unknown(
        "nranks",
        "an `Init COMPLETE` line (`comm 0x… rank R nranks N …`) or rank 0's ring line (`Channel 00/02 : 0 1 2 3`) would tell",
    )
}

/// `Channel %02d/%02d : 0 1 2 3`: rank 0 prints each ring whole, cut with `...` past 128
/// characters (v2.29.3-1 `src/graph/rings.cc` lines 9-25 and 46). The count of a whole ring
/// that names each rank once, and its line.
fn ring_size(log: &NcclLog) -> Option<(u32, usize)> {
    log.records
        .iter()
        .filter_map(|r| {
            let Event::Topology { text } = &r.event else {
                return None;
            };
            let list = text.strip_prefix("Channel ")?.split_once(" : ")?.1;
            if list.trim_end().ends_with("...") {
                return None;
            }
            let ranks: Vec<u32> = list
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .ok()?;
            let distinct: BTreeSet<u32> = ranks.iter().copied().collect();
            let whole = distinct.len() == ranks.len()
                && distinct
                    .iter()
                    .enumerate()
                    .all(|(i, &r)| i as u64 == u64::from(r));
            (whole && !ranks.is_empty())
                .then(|| (u32::try_from(ranks.len()).ok(), r.line))
                .and_then(|(n, l)| n.map(|n| (n, l)))
        })
        .max()
}

/// The environment keeps NCCL from P2P or SHM between some GPUs of a host, so a NET channel
/// may join two GPUs of one host (`ncclTopoCheckNet`, v2.29.3-1 `src/graph/paths.cc`).
fn net_may_stay_inside(s: &Summary) -> bool {
    s.env.iter().any(|e| {
        matches!(
            e.name.as_str(),
            "NCCL_P2P_DISABLE" | "NCCL_SHM_DISABLE" | "NCCL_P2P_LEVEL" | "NCCL_NET_DISABLE_INTRA"
        )
    })
}

/// `nnodes` and `multi_node`.
fn nodes(log: &NcclLog, s: &mut Summary) -> [FactSource; 2] {
    let count = node_count(log, s);
    // Evidence of a second host that does not count hosts: a NET channel.
    let net: Vec<&ChannelLink> = s
        .channels
        .iter()
        .filter(|c| c.transport == Transport::NET && c.inter_node != Some(false))
        .collect();
    let net_says_several = !net.is_empty() && !net_may_stay_inside(s);
    let (nnodes, count_source) = match count {
        // One host printed, yet a rank talks to another over the network: the count is of
        // the hosts whose lines were pasted, not of the job's.
        Some((1, _, _)) if net_says_several => (
            None,
            FactSource::unknown(
                "nnodes",
                "only one host's lines are here, but NET channels reach another; an `nRanks … nNodes …` line (NCCL 2.21 and later) or every host's lines would tell",
            ),
        ),
        Some((n, lines, reading)) => (Some(n), FactSource::known("nnodes", lines, reading)),
        None => (
            None,
            FactSource::unknown(
                "nnodes",
                "host names in the line prefixes, an `nRanks … nNodes …` line (NCCL 2.21 and later), or channel lines of every rank would tell",
            ),
        ),
    };
    s.nnodes = nnodes;
    let multi = match nnodes {
        Some(n) => {
            s.multi_node = Some(n > 1);
            FactSource::known(
                "multi_node",
                count_source.lines.clone(),
                count_source.reading.clone(),
            )
        }
        None if net_says_several => {
            s.multi_node = Some(true);
            FactSource::known(
                "multi_node",
                net.iter().flat_map(|c| c.lines.iter().copied()).collect(),
                "NET channels between ranks whose hosts the log does not give: NCCL joins GPUs of one host by P2P or SHM, so the network most likely means another host. A guess: NCCL also sends between two GPUs of one host over the NIC when neither P2P nor SHM suits them, which no line here rules out",
            )
        }
        None => {
            s.multi_node = None;
            FactSource::unknown(
                "multi_node",
                "a channel line over `NET/…`, or host names in the line prefixes, would tell",
            )
        }
    };
    [count_source, multi]
}

/// Hosts counted by the strongest evidence there is: NCCL's own `nNodes`, then the host
/// names in the line prefixes, then the groups of ranks that P2P and SHM channels join.
fn node_count(log: &NcclLog, s: &Summary) -> Option<(usize, Vec<usize>, String)> {
    let stated: Vec<(u32, usize)> = log
        .records
        .iter()
        .filter_map(|r| match r.event {
            Event::CommSize {
                nranks,
                nnodes: Some(n),
                ..
            } if s.nranks.is_none_or(|w| w == nranks) => Some((n, r.line)),
            _ => None,
        })
        .collect();
    if let Some(n) = stated.iter().map(|x| x.0).max() {
        let lines = stated.iter().filter(|x| x.0 == n).map(|x| x.1).collect();
        let n = usize::try_from(n).ok()?;
        return Some((
            n,
            lines,
            "`nNodes` in NCCL's `nRanks … nNodes …` line".into(),
        ));
    }
    let mut first_line: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &log.records {
        if let Some(h) = r.origin.host.as_deref() {
            first_line.entry(h).or_insert(r.line);
        }
    }
    if first_line.len() > 1 {
        let n = first_line.len();
        return Some((
            n,
            first_line.into_values().collect(),
            format!("{n} host names in the line prefixes"),
        ));
    }
    if let Some(groups) = rank_groups(s) {
        return Some(groups);
    }
    // One host printed: it is the whole job only if it ran every rank.
    let (host, line) = first_line.into_iter().next()?;
    let ranks = s.hosts.iter().find(|h| h.host == host)?.ranks.len();
    (s.nranks
        .is_some_and(|n| usize::try_from(n).is_ok_and(|n| n == ranks)))
    .then(|| {
        (
            1,
            vec![line],
            format!("one host name ({host}) in the line prefixes, and its ranks are all the ranks"),
        )
    })
}

/// With every rank in some channel line, the ranks that P2P or SHM join (each group one
/// host, since those transports stay inside a host) counted as hosts.
fn rank_groups(s: &Summary) -> Option<(usize, Vec<usize>, String)> {
    let n = s.nranks?;
    let mut group: Vec<u32> = (0..n).collect();
    fn root(group: &mut [u32], mut x: u32) -> u32 {
        while group[x as usize] != x {
            let up = group[group[x as usize] as usize];
            group[x as usize] = up;
            x = up;
        }
        x
    }
    let mut seen = BTreeSet::new();
    let mut lines = Vec::new();
    for c in &s.channels {
        let (a, b) = (c.from.rank, c.to.rank);
        if a >= n || b >= n {
            return None;
        }
        seen.extend([a, b]);
        lines.extend(c.lines.first().copied());
        if matches!(c.transport, Transport::P2P | Transport::SHM) {
            let (ra, rb) = (root(&mut group, a), root(&mut group, b));
            group[ra as usize] = rb;
        }
    }
    if seen.len() != n as usize {
        return None;
    }
    let hosts: BTreeSet<u32> = (0..n).map(|r| root(&mut group, r)).collect();
    Some((
        hosts.len(),
        lines,
        "the groups of ranks that P2P or SHM channels join, one per host (every rank's channels are in the log)".into(),
    ))
}

/// Channels between hosts, or not known to stay inside one, that use the network.
fn inter_node_net(channels: &[ChannelLink]) -> impl Iterator<Item = &ChannelLink> {
    channels
        .iter()
        .filter(|c| c.transport == Transport::NET && c.inter_node != Some(false))
}

/// `inter_node_network`, `link_layer` and `inter_node_transport`.
fn network(log: &NcclLog, s: &mut Summary, one_host_lines: Vec<usize>) -> [FactSource; 3] {
    let net = network_name(log, s, one_host_lines);
    let link = link_layer(log, s);
    s.link_layer = link.as_ref().map(|l| l.0);
    let (network_source, transport_source) = match net {
        NetworkName::OneHost(src) => {
            s.inter_node_network = Some("none".into());
            s.inter_node_transport = Some(InterNodeTransport::None);
            let mut t = src.clone();
            t.fact = "inter_node_transport";
            (src, t)
        }
        NetworkName::Named(name, src) => {
            let transport = transport_of(&name, link.as_ref().map(|l| l.0));
            s.inter_node_network = Some(name.clone());
            s.inter_node_transport = transport;
            let t = match (transport, &link) {
                (Some(_), Some((_, lines, _))) if name.starts_with("IB") => {
                    let mut all = src.lines.clone();
                    all.extend(lines);
                    FactSource::known("inter_node_transport", all, format!("{}; and the link layer of the NICs", src.reading))
                }
                (Some(_), _) => FactSource::known("inter_node_transport", src.lines.clone(), src.reading.clone()),
                (None, _) if name.starts_with("IB") => FactSource::unknown(
                    "inter_node_transport",
                    "NCCL's IB verbs transport, over a link layer the log does not state: `NET/IB : Using [0]mlx5_0:1/RoCE` (or `/IB`), or a QP line with `GID` (RoCE) or `LID` (InfiniBand), would tell",
                ),
                (None, _) => FactSource::unknown(
                    "inter_node_transport",
                    format!("the network is the plugin `{name}`, whose wire the log does not name"),
                ),
            };
            (src, t)
        }
        NetworkName::Unknown(src) => {
            s.inter_node_network = None;
            s.inter_node_transport = None;
            let mut t = src.clone();
            t.fact = "inter_node_transport";
            (src, t)
        }
    };
    let link_source = match link {
        Some((_, lines, reading)) => FactSource::known("link_layer", lines, reading),
        None => FactSource::unknown(
            "link_layer",
            "the device list `NET/IB : Using [0]mlx5_0:1/RoCE` (or `/IB`), or a QP line with `GID` (RoCE) or `LID` (InfiniBand), would tell",
        ),
    };
    [network_source, link_source, transport_source]
}

fn transport_of(name: &str, link: Option<LinkLayer>) -> Option<InterNodeTransport> {
    if name == "Socket" {
        return Some(InterNodeTransport::Socket);
    }
    // NCCL's IB transport and the IB-based plugins (`IBext`, `IBext_v8`) run over IB or RoCE.
    if name.starts_with("IB") {
        return match link? {
            LinkLayer::IB => Some(InterNodeTransport::IB),
            LinkLayer::RoCE => Some(InterNodeTransport::RoCE),
            LinkLayer::Unspecified => None,
        };
    }
    None
}

enum NetworkName {
    OneHost(FactSource),
    Named(String, FactSource),
    Unknown(FactSource),
}

const NETWORK: &str = "inter_node_network";

/// The network between hosts, by the strongest evidence: NET channels to other hosts, then
/// `Using network`, then lines only NCCL's IB transport prints once it carries traffic.
fn network_name(log: &NcclLog, s: &Summary, one_host_lines: Vec<usize>) -> NetworkName {
    let channels: Vec<&ChannelLink> = inter_node_net(&s.channels).collect();
    let names: BTreeSet<&str> = channels.iter().filter_map(|c| c.net.as_deref()).collect();
    let lines = |cs: &[&ChannelLink]| cs.iter().flat_map(|c| c.lines.iter().copied()).collect();
    if names.len() == 1 {
        let name = names.into_iter().next().unwrap_or_default().to_string();
        let reading = format!("channel lines `via NET/{name}/…` between ranks");
        return NetworkName::Named(name, FactSource::known(NETWORK, lines(&channels), reading));
    }
    if names.len() > 1 {
        let list: Vec<&str> = names.into_iter().collect();
        return NetworkName::Unknown(FactSource::unknown(
            NETWORK,
            format!("channel lines name several networks ({}); the lines of each host would tell which joins which", list.join(", ")),
        ));
    }
    if s.multi_node == Some(false) {
        return NetworkName::OneHost(FactSource::known(
            NETWORK,
            one_host_lines,
            "one host: no data crosses a network",
        ));
    }
    let mut using: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut ib_traffic = Vec::new();
    let mut ib_listed = Vec::new();
    for r in &log.records {
        match &r.event {
            Event::UsingNetwork { name } => using.entry(name.as_str()).or_default().push(r.line),
            Event::WorkCompletionError { .. } | Event::IbQp { .. } => ib_traffic.push(r.line),
            // Verbs calls NCCL's IB transport makes only on connections it sets up (opening
            // or querying a device happens before it is chosen, and may end in sockets).
            Event::ModifyQpFailed { .. } => ib_traffic.push(r.line),
            Event::VerbsCallFailed { call, .. }
                if call.starts_with("ibv_create_qp") || call.starts_with("ibv_reg_") =>
            {
                ib_traffic.push(r.line)
            }
            Event::NetIbUsing { .. } => ib_listed.push(r.line),
            _ => {}
        }
    }
    if using.len() == 1 {
        let (name, lines) = using.into_iter().next().unwrap_or_default();
        return NetworkName::Named(
            name.to_string(),
            FactSource::known(
                NETWORK,
                lines,
                "NCCL names the network it chose (`Using network`)",
            ),
        );
    }
    if !ib_traffic.is_empty() {
        return NetworkName::Named("IB".into(), FactSource::known(NETWORK, ib_traffic, "`NET/IB` completion or QP lines, or a failed verbs call on a connection, which only NCCL's IB verbs transport makes"));
    }
    if !ib_listed.is_empty() && !s.hosts.iter().any(|h| !h.net_plugins.is_empty()) {
        return NetworkName::Named("IB".into(), FactSource::known(NETWORK, ib_listed, "NCCL's IB transport found devices (`NET/IB : Using`) and no plugin was loaded: NCCL prefers IB to sockets"));
    }
    NetworkName::Unknown(FactSource::unknown(
        NETWORK,
        "a channel line between hosts (`… via NET/IB/0/GDRDMA`, `… via NET/Socket/0`) or `Using network …` would tell",
    ))
}

/// The link layer of the NICs between hosts: from the devices the NET channels name in
/// their host's `NET/IB : Using` list, else from every listed device when they agree, else
/// from the QP lines, which say `LID` on an InfiniBand port and `GID` on a RoCE one
/// (v2.12.12-1 `src/transport/net_ib.cc` lines 615 and 622).
fn link_layer(log: &NcclLog, s: &Summary) -> Option<(LinkLayer, Vec<usize>, String)> {
    let mut listed: BTreeMap<(Option<&str>, u32), (LinkLayer, usize)> = BTreeMap::new();
    let mut qp: BTreeMap<LinkLayer, Vec<usize>> = BTreeMap::new();
    for r in &log.records {
        match &r.event {
            Event::NetIbUsing { devices, .. } => {
                for d in devices {
                    if let Some(link) = d.link.filter(|l| *l != LinkLayer::Unspecified) {
                        listed.insert((r.origin.host.as_deref(), d.index), (link, r.line));
                    }
                }
            }
            Event::IbQp { lid_form, .. } => {
                let link = if *lid_form {
                    LinkLayer::IB
                } else {
                    LinkLayer::RoCE
                };
                qp.entry(link).or_default().push(r.line);
            }
            _ => {}
        }
    }
    let host_of = |line: usize| {
        log.records
            .get(line.wrapping_sub(1))
            .and_then(|r| r.origin.host.as_deref())
    };
    let mut in_use: BTreeMap<LinkLayer, Vec<usize>> = BTreeMap::new();
    for c in inter_node_net(&s.channels) {
        for &line in &c.lines {
            if let Some(&(link, at)) = c.net_dev.and_then(|d| listed.get(&(host_of(line), d))) {
                in_use.entry(link).or_default().extend([at, line]);
            }
        }
    }
    if in_use.len() == 1 {
        let (link, lines) = in_use.into_iter().next()?;
        return Some((
            link,
            lines,
            "the devices the NET channels use, as `NET/IB : Using` lists them".into(),
        ));
    }
    let links: BTreeSet<LinkLayer> = listed.values().map(|v| v.0).collect();
    if links.len() == 1 {
        let link = *links.first()?;
        let lines = listed.values().map(|v| v.1).collect();
        return Some((
            link,
            lines,
            "the suffix of every device in `NET/IB : Using` (`/IB` or `/RoCE`)".into(),
        ));
    }
    if links.is_empty() && qp.len() == 1 {
        let (link, lines) = qp.into_iter().next()?;
        return Some((
            link,
            lines,
            "QP lines: NCCL prints `LID` for an InfiniBand port and `GID` for a RoCE one".into(),
        ));
    }
    None
}

/// Each NIC's `GPU Direct RDMA Enabled/Disabled for` lines, in the order first named.
fn gdr_hcas(log: &NcclLog) -> Vec<GdrHca> {
    let mut out: Vec<GdrHca> = Vec::new();
    for r in &log.records {
        let (hca, enabled, no_module) = match &r.event {
            Event::GdrEnabled { hca, .. } => (hca, true, false),
            Event::GdrDisabled { hca, no_module, .. } => (hca, false, *no_module),
            _ => continue,
        };
        let name = hca.clone().unwrap_or_else(|| "?".into());
        let at = match out.iter().position(|h| h.hca == name) {
            Some(at) => at,
            None => {
                out.push(GdrHca {
                    hca: name,
                    enabled: false,
                    disabled: false,
                    no_module: false,
                    lines: Vec::new(),
                });
                out.len() - 1
            }
        };
        let h = &mut out[at];
        h.enabled |= enabled;
        h.disabled |= !enabled;
        h.no_module |= no_module;
        if h.lines.len() < MAX_LINES {
            h.lines.push(r.line);
        }
    }
    out
}

/// GPUDirect RDMA between hosts: every NET channel says whether it uses it (`/GDRDMA`, or
/// its absence); without such channels, NCCL's per-NIC verdict, which it prints when it sets
/// up a network connection (v2.29.3-1 `src/graph/paths.cc` lines 472 and 483, called from
/// `src/transport/net.cc`).
fn gdr(s: &mut Summary) -> FactSource {
    const FACT: &str = "gdr_used";
    let net: Vec<&ChannelLink> = inter_node_net(&s.channels).collect();
    if !net.is_empty() {
        let with: Vec<usize> = net
            .iter()
            .filter(|c| c.gdr)
            .flat_map(|c| c.lines.iter().copied())
            .collect();
        s.gdr_used = Some(!with.is_empty());
        return if with.is_empty() {
            FactSource::known(
                FACT,
                net.iter().flat_map(|c| c.lines.iter().copied()).collect(),
                "NET channel lines without `/GDRDMA`: data is staged through host memory",
            )
        } else {
            FactSource::known(FACT, with, "NET channel lines with `/GDRDMA`")
        };
    }
    if s.multi_node == Some(false) {
        s.gdr_used = None;
        return FactSource::unknown(
            FACT,
            "one host: no data crosses a network, so GPUDirect RDMA has nothing to do",
        );
    }
    let enabled: Vec<usize> = s
        .gdr_hcas
        .iter()
        .filter(|h| h.enabled)
        .flat_map(|h| h.lines.iter().copied())
        .collect();
    let disabled: Vec<usize> = s
        .gdr_hcas
        .iter()
        .filter(|h| h.disabled)
        .flat_map(|h| h.lines.iter().copied())
        .collect();
    if !enabled.is_empty() {
        s.gdr_used = Some(true);
        return FactSource::known(FACT, enabled, "`GPU Direct RDMA Enabled for` lines");
    }
    if !disabled.is_empty() {
        s.gdr_used = Some(false);
        return FactSource::known(
            FACT,
            disabled,
            "`GPU Direct RDMA Disabled for` lines and none `Enabled`",
        );
    }
    s.gdr_used = None;
    FactSource::unknown(FACT, "a channel line between hosts (`via NET/IB/0/GDRDMA`, or without `/GDRDMA`) or a `GPU Direct RDMA Enabled/Disabled for` line would tell")
}
