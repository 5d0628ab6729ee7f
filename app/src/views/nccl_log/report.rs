//! One log explained: the summary, the findings with the lines they rest on, the channels.

use std::rc::Rc;

use engine::nccl_log::{
    ChannelLink, FactSource, Finding, InterNodeTransport, IntraNodeTransport, Severity, Summary,
    Transport,
};
use engine::prose::count;
use yew::prelude::*;

use super::Explained;
use crate::base;

/// Channels listed before the table says how many more there are.
const CHANNEL_ROWS: usize = 64;

/// The transport between hosts; when only the network is known (NCCL's IB verbs over a link
/// layer the log does not give, or a plugin), that is said instead of nothing.
fn inter_node(t: Option<InterNodeTransport>, network: Option<&str>) -> String {
    match (t, network) {
        (Some(InterNodeTransport::IB), _) => "InfiniBand (NET/IB)".into(),
        (Some(InterNodeTransport::RoCE), _) => "RoCE (NET/IB over Ethernet)".into(),
        (Some(InterNodeTransport::Socket), _) => "TCP sockets (NET/Socket)".into(),
        (Some(InterNodeTransport::None), _) => "none: one host".into(),
        (None, Some(net)) if net.starts_with("IB") => {
            format!("NCCL's IB verbs transport ({net}); InfiniBand or RoCE is not in the log")
        }
        (None, Some(net)) => format!("the network plugin {net}"),
        (None, None) => "not in the log".into(),
    }
}

fn intra_node(t: IntraNodeTransport) -> &'static str {
    match t {
        IntraNodeTransport::P2P => "P2P (NVLink or PCIe)",
        IntraNodeTransport::SHM => "SHM (host memory)",
        IntraNodeTransport::NVLS => "NVLS",
        IntraNodeTransport::NET => "NET (through the NIC)",
    }
}

fn gdr(g: Option<bool>) -> &'static str {
    match g {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not in the log",
    }
}

fn transport(t: Transport) -> &'static str {
    match t {
        Transport::P2P => "P2P",
        Transport::SHM => "SHM",
        Transport::NET => "NET",
        Transport::COLLNET => "CollNet",
        Transport::Other => "other",
    }
}

/// GPUDirect RDMA on a channel: a network transport's question only (a P2P or SHM channel
/// never uses a NIC).
fn channel_gdr(t: Transport, gdr: bool) -> &'static str {
    match (t, gdr) {
        (Transport::NET | Transport::COLLNET, true) => "yes",
        (Transport::NET | Transport::COLLNET, false) => "no",
        _ => "—",
    }
}

/// "16 ranks on 2 hosts", "1 rank on 1 host", and what the log leaves out said plainly.
fn ranks_on_hosts(nranks: Option<u32>, nnodes: Option<usize>) -> String {
    let ranks = nranks.map(|n| count(u64::from(n), "rank", "ranks"));
    let hosts = nnodes.map(|n| count(n as u64, "host", "hosts"));
    match (ranks, hosts) {
        (Some(ranks), Some(hosts)) => format!("{ranks} on {hosts}"),
        (Some(ranks), None) => format!("{ranks}; the hosts are not in the log"),
        (None, Some(hosts)) => format!("{hosts}; the rank count is not in the log"),
        (None, None) => "not in the log".to_string(),
    }
}

fn known<T: ToString>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "not in the log".to_string(), T::to_string)
}

#[derive(Properties, PartialEq)]
pub struct ReportProps {
    pub explained: Rc<Explained>,
    /// A newer text is being read; this is the last one's answer.
    pub stale: bool,
}

/// "Show the 3 lines not read", "Show the line not read".
fn unread_label(n: usize) -> String {
    if n == 1 {
        "Show the line not read".to_string()
    } else {
        format!("Show the {n} lines not read")
    }
}

#[function_component]
pub fn Report(props: &ReportProps) -> Html {
    let e = &props.explained;
    let more_unread = e.unrecognised.saturating_sub(e.unread.len());
    html! {
        <div class={classes!("ncclog-report", props.stale.then_some("ncclog-stale"))}>
            <SummaryList summary={Rc::new(e.summary.clone())} quoted={e.quoted.clone()} />
            if let Some((href, words)) = &e.calculator {
                <p class="ncclog-calc">
                    <a href={href.clone()}>{ "Open this job in the calculator" }</a>
                    { format!(" with what the log gives: {words}. The GPU model, the NIC's rate and the message size are yours to set there.") }
                </p>
            }
            <h3>{ "Findings" }</h3>
            if e.findings.is_empty() {
                <p>{ "Nothing NCCL wrote about its set-up is in this text. Run with NCCL_DEBUG=INFO and paste the output of every rank." }</p>
            }
            <ul class="ncclog-findings">
                { for e.findings.iter().map(|f| html! {
                    <FindingItem finding={f.clone()} quoted={e.quoted.clone()} />
                }) }
            </ul>
            <Channels channels={Rc::new(e.summary.channels.clone())} />
            if e.unrecognised > 0 {
                <details class="ncclog-unread">
                    <summary>{ unread_label(e.unrecognised) }</summary>
                    <p>{ "These lines match no NCCL message the explainer knows: output of the application, or of an NCCL version or subsystem it does not read. They are kept, and no finding uses them." }</p>
                    <div class="ncclog-lines" tabindex="0" role="region" aria-label="Lines not read">
                        { for e.unread.iter().map(|(n, text)| html! {
                            <div class="ncclog-line"><span class="ncclog-line-no">{ n }</span>{ text.clone() }</div>
                        }) }
                    </div>
                    if more_unread > 0 {
                        <p class="ncclog-more">{ format!("and {more_unread} more") }</p>
                    }
                </details>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct SummaryProps {
    summary: Rc<Summary>,
    quoted: Vec<(usize, String)>,
}

/// "line 4", "lines 4, 9 and 12".
fn lines_label(lines: &[usize]) -> String {
    let words: Vec<String> = lines.iter().map(usize::to_string).collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => format!("line {last}"),
        Some((last, rest)) => format!("lines {} and {last}", rest.join(", ")),
    }
}

#[derive(Properties, PartialEq)]
struct SourcesProps {
    /// The facts a row of the summary shows, in the order named.
    sources: Vec<FactSource>,
    quoted: Vec<(usize, String)>,
}

/// Under a fact: the pasted lines it was read from, marked as the findings' lines are, or,
/// for a fact the log does not state, which line would tell.
#[function_component]
fn Sources(props: &SourcesProps) -> Html {
    let mut lines: Vec<usize> = props
        .sources
        .iter()
        .filter(|f| f.known)
        .flat_map(|f| f.lines.iter().copied())
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let readings: Vec<&str> = props
        .sources
        .iter()
        .filter(|f| f.known)
        .map(|f| f.reading.as_str())
        .collect();
    let unknown = props.sources.iter().find(|f| !f.known);
    html! {
        <>
            if !lines.is_empty() {
                <details class="ncclog-source">
                    <summary>{ format!("From {}", lines_label(&lines)) }</summary>
                    <p class="ncclog-more">{ readings.join("; ") }</p>
                    <div class="ncclog-source-lines" tabindex="0" role="region" aria-label={format!("Log {}", lines_label(&lines))}>
                        { for props.quoted.iter().filter(|(n, _)| lines.contains(n)).map(|(n, text)| html! {
                            <div class="ncclog-line"><span class="ncclog-line-no">{ n }</span><mark>{ text.clone() }</mark></div>
                        }) }
                    </div>
                </details>
            }
            if let Some(u) = unknown {
                <p class="ncclog-more">{ format!("Not in the log: {}.", u.reading.trim_end_matches('.')) }</p>
            }
        </>
    }
}

#[function_component]
fn SummaryList(props: &SummaryProps) -> Html {
    let s = &props.summary;
    let intra = if s.intra_node.is_empty() {
        "not in the log".to_string()
    } else {
        s.intra_node
            .iter()
            .map(|t| intra_node(*t))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let of = |facts: &[&str]| -> Vec<FactSource> {
        facts
            .iter()
            .filter_map(|name| s.sources.iter().find(|f| f.fact == *name).cloned())
            .collect()
    };
    let quoted = &props.quoted;
    html! {
        <dl class="ncclog-summary">
            <dt>{ "NCCL" }</dt><dd>{ known(&s.nccl_version) }
                <Sources sources={of(&["nccl_version"])} quoted={quoted.clone()} /></dd>
            <dt>{ "CUDA" }</dt><dd>{ known(&s.cuda_version) }</dd>
            <dt>{ "Ranks × hosts" }</dt><dd>{ ranks_on_hosts(s.nranks, s.nnodes) }
                if s.nnodes.is_none() && s.multi_node == Some(true) {
                    { "; more than one host" }
                }
                <Sources sources={of(&["nranks", "nnodes", "multi_node"])} quoted={quoted.clone()} /></dd>
            <dt>{ "Between hosts" }</dt><dd><span class="ncclog-inter">{ inter_node(s.inter_node_transport, s.inter_node_network.as_deref()) }</span>
                <Sources sources={of(&["inter_node_network", "link_layer", "inter_node_transport"])} quoted={quoted.clone()} /></dd>
            <dt>{ "GPUDirect RDMA" }</dt><dd><span class="ncclog-gdr">{ gdr(s.gdr_used) }</span>
                <Sources sources={of(&["gdr_used"])} quoted={quoted.clone()} /></dd>
            <dt>{ "Inside a host" }</dt><dd>{ intra }</dd>
            if !s.env.is_empty() {
                <dt>{ "Set in the environment" }</dt>
                <dd>{ for s.env.iter().map(|v| html! { <code class="ncclog-env">{ format!("{}={}", v.name, v.value) }</code> }) }</dd>
            }
        </dl>
    }
}

#[derive(Properties, PartialEq)]
struct FindingProps {
    finding: Finding,
    quoted: Vec<(usize, String)>,
}

#[function_component]
fn FindingItem(props: &FindingProps) -> Html {
    let f = &props.finding;
    let (class, word) = match f.severity {
        Severity::Info => ("ncclog-info", "Note"),
        Severity::Warning => ("ncclog-warn", "Warning"),
        Severity::Error => ("ncclog-error", "Problem"),
    };
    let lines: Vec<&(usize, String)> = props
        .quoted
        .iter()
        .filter(|(n, _)| f.lines.contains(n))
        .collect();
    html! {
        <li class={classes!("ncclog-finding", class)}>
            <p class="ncclog-finding-title"><strong>{ format!("{word}: {}", f.title) }</strong></p>
            <p>{ f.explanation.clone() }{ " " }<a href={base::href(f.topic)}>{ "What to do" }</a></p>
            if !lines.is_empty() {
                <div class="ncclog-lines" tabindex="0" role="region" aria-label={format!("Log lines for: {}", f.title)}>
                    { for lines.into_iter().map(|(n, text)| html! {
                        <div class="ncclog-line"><span class="ncclog-line-no">{ n }</span><mark>{ text.clone() }</mark></div>
                    }) }
                </div>
            }
        </li>
    }
}

#[derive(Properties, PartialEq)]
struct ChannelsProps {
    channels: Rc<Vec<ChannelLink>>,
}

/// Whether a channel goes through a NIC (NET, CollNet): the ones that cross hosts, and the
/// only ones GPUDirect RDMA applies to.
fn through_a_nic(c: &ChannelLink) -> bool {
    matches!(c.transport, Transport::NET | Transport::COLLNET)
}

/// The channels in two tables: through a NIC first (the few that cross hosts, which a
/// network problem is about), then inside a host. Each leads with the columns read first,
/// which a phone shows before its box scrolls.
#[function_component]
fn Channels(props: &ChannelsProps) -> Html {
    if props.channels.is_empty() {
        return html! {};
    }
    let (network, host): (Vec<&ChannelLink>, Vec<&ChannelLink>) =
        props.channels.iter().partition(|c| through_a_nic(c));
    html! {
        <>
            <h3>{ "Channels" }</h3>
            <p class="ncclog-channels-note">{ "Each row is one connection of a channel, its ends written rank[CUDA device] as NCCL logs them." }</p>
            <ChannelTable id="ncclog-channels-net" network={true}
                title={format!("Through a NIC ({})", count(network.len() as u64, "connection", "connections"))}
                rows={Rc::new(network.into_iter().cloned().collect::<Vec<_>>())} />
            <ChannelTable id="ncclog-channels-host" network={false}
                title={format!("Inside a host: P2P and SHM ({})", count(host.len() as u64, "connection", "connections"))}
                rows={Rc::new(host.into_iter().cloned().collect::<Vec<_>>())} />
        </>
    }
}

#[derive(Properties, PartialEq)]
struct ChannelTableProps {
    /// The id of the title, which names the table and its scrolling box.
    id: AttrValue,
    title: String,
    rows: Rc<Vec<ChannelLink>>,
    /// Channels through a NIC: with GPUDirect RDMA and whether the ends are on two hosts.
    network: bool,
}

/// "0[0]": a rank, with its CUDA device when the log gives it.
fn peer(p: &engine::nccl_log::Peer) -> String {
    match &p.device {
        Some(d) => format!("{}[{d}]", p.rank),
        None => p.rank.to_string(),
    }
}

fn between_hosts(c: &ChannelLink) -> &'static str {
    match c.inter_node {
        Some(true) => "yes",
        Some(false) => "no",
        None => "?",
    }
}

#[function_component]
fn ChannelTable(props: &ChannelTableProps) -> Html {
    if props.rows.is_empty() {
        return html! {};
    }
    let more = props.rows.len().saturating_sub(CHANNEL_ROWS);
    let network = props.network;
    html! {
        <>
            <p class="ncclog-table-title" id={props.id.clone()}>{ props.title.clone() }</p>
            <div class="ncclog-table-box" tabindex="0" role="region" aria-labelledby={props.id.clone()}>
                <table class={classes!("ncclog-table", network.then_some("ncclog-net"))} aria-labelledby={props.id.clone()}>
                    <thead><tr>
                        if network {
                            <th scope="col">{ "Via" }</th><th scope="col">{ "GDR" }</th>
                            <th scope="col">{ "From → to" }</th><th scope="col">{ "Between hosts" }</th>
                        } else {
                            <th scope="col">{ "From → to" }</th><th scope="col">{ "Via" }</th>
                        }
                        <th scope="col">{ "Channel" }</th><th scope="col">{ "Lines" }</th>
                    </tr></thead>
                    <tbody>
                        { for props.rows.iter().take(CHANNEL_ROWS).map(|c| html! {
                            <tr data-transport={transport(c.transport)}>
                                if network {
                                    <td><code>{ c.via.clone() }</code></td>
                                    <td>{ channel_gdr(c.transport, c.gdr) }</td>
                                    <td>{ format!("{} → {}", peer(&c.from), peer(&c.to)) }</td>
                                    <td>{ between_hosts(c) }</td>
                                } else {
                                    <td>{ format!("{} → {}", peer(&c.from), peer(&c.to)) }</td>
                                    <td><code>{ c.via.clone() }</code></td>
                                }
                                <td>{ c.channel }</td>
                                <td>{ c.lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ") }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
            if more > 0 {
                <p class="ncclog-more">{ format!("and {} more (the CLI's --json lists them all)", count(more as u64, "connection", "connections")) }</p>
            }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::{channel_gdr, inter_node, lines_label, ranks_on_hosts, unread_label, Transport};

    #[test]
    fn source_lines_read_as_english() {
        assert_eq!(lines_label(&[4]), "line 4");
        assert_eq!(lines_label(&[4, 9, 12]), "lines 4, 9 and 12");
        assert_eq!(lines_label(&[]), "");
    }

    /// Issue #36: IB verbs from a completion error, with no device list, is not "not in the log".
    #[test]
    fn a_known_network_of_unknown_link_layer_is_named() {
        assert_eq!(
            inter_node(None, Some("IB")),
            "NCCL's IB verbs transport (IB); InfiniBand or RoCE is not in the log"
        );
        assert_eq!(inter_node(None, None), "not in the log");
    }

    #[test]
    fn the_unread_lines_are_offered_by_their_count() {
        assert_eq!(unread_label(1), "Show the line not read");
        assert_eq!(unread_label(115), "Show the 115 lines not read");
    }

    #[test]
    fn ranks_and_hosts_read_as_english() {
        assert_eq!(ranks_on_hosts(Some(16), Some(1)), "16 ranks on 1 host");
        assert_eq!(ranks_on_hosts(Some(1), Some(1)), "1 rank on 1 host");
        assert_eq!(
            ranks_on_hosts(None, Some(2)),
            "2 hosts; the rank count is not in the log"
        );
        assert_eq!(
            ranks_on_hosts(Some(8), None),
            "8 ranks; the hosts are not in the log"
        );
        assert_eq!(ranks_on_hosts(None, None), "not in the log");
    }

    /// UX check 2026-12: P2P rows said "GDR: no", where GPUDirect RDMA does not apply.
    #[test]
    fn gpudirect_rdma_is_a_network_channels_question() {
        assert_eq!(channel_gdr(Transport::NET, true), "yes");
        assert_eq!(channel_gdr(Transport::NET, false), "no");
        assert_eq!(channel_gdr(Transport::P2P, false), "—");
        assert_eq!(channel_gdr(Transport::SHM, false), "—");
    }
}
