//! Known bad signs in a log, each as a [`Finding`] that points at the troubleshooting page,
//! or, for what slows RDMA without an error, at the lab section that explains the cost.

use std::collections::BTreeSet;

use serde::Serialize;

use super::record::{Event, NcclResult, Transport};
use super::summary::{InterNodeTransport, IntraNodeTransport, Summary};
use super::wc_status;
use super::NcclLog;
use crate::capture::segment::{packet_cost, Framing};
use crate::probe::doctor::ROCE_HEADER_BYTES;
use crate::qp::values::PathMtu;

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// One thing the log shows, with the lines that show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub title: String,
    pub explanation: String,
    /// 1-based line numbers in the log.
    pub lines: Vec<usize>,
    /// A link into the lab's troubleshooting page.
    pub topic: &'static str,
}

// Sections of content/topics/troubleshooting.md.
const SOCKETS: &str = "/troubleshooting#nccl-falls-back-to-sockets";
const GDR: &str = "/troubleshooting#gpudirect-rdma-not-used";
const GID: &str = "/troubleshooting#roce-gid-index-wrong";
const MEMLOCK: &str = "/troubleshooting#memory-registration-fails-memlock-too-small";
const QP_EINVAL: &str = "/troubleshooting#qp-stuck-in-init-or-rtr-einval";
const RETRY: &str = "/troubleshooting#retry-exceeded";
const FLUSH: &str = "/troubleshooting#work-requests-flushed";
const WC_OTHER: &str = "/troubleshooting#ib-completion-error";
const NVLS: &str = "/troubleshooting#nvls-setup-fails";
const SHM: &str = "/troubleshooting#dev-shm-too-small";
const PLUGIN: &str = "/troubleshooting#net-plugin-on-some-hosts-only";
const P2P_OFF: &str = "/troubleshooting#p2p-disabled";
const CUDA: &str = "/troubleshooting#cuda-failure";
const NCCL_ERROR: &str = "/troubleshooting#nccl-error-results";
const SOCKET_FAIL: &str = "/troubleshooting#socket-connection-fails";
const PAGE: &str = "/troubleshooting";
// RDMA and GPUDirect RDMA work but bandwidth is low: its steps cover the NICs a job uses
// (`NCCL_IB_HCA`) and the path MTU, with what to check and change for each.
const STILL_SLOW: &str = "/troubleshooting#bandwidth-still-low-with-rdma-and-gpudirect-rdma";

/// Every page and section a finding may link to (the app's content rules check each lands
/// on a heading that exists).
pub const TOPICS: [&str; 17] = [
    SOCKETS,
    GDR,
    GID,
    MEMLOCK,
    QP_EINVAL,
    RETRY,
    FLUSH,
    WC_OTHER,
    NVLS,
    SHM,
    PLUGIN,
    P2P_OFF,
    CUDA,
    NCCL_ERROR,
    SOCKET_FAIL,
    PAGE,
    STILL_SLOW,
];

/// At most this many example lines per finding, so a 100k-line log gives readable findings.
const MAX_LINES: usize = 32;

/// Run every rule over the log.
pub fn diagnose(log: &NcclLog) -> Vec<Finding> {
    let s = log.summary();
    let mut out = Vec::new();
    sockets(log, &s, &mut out);
    gdr(log, &s, &mut out);
    gid(log, &s, &mut out);
    path_mtu(log, &mut out);
    one_nic(log, &s, &mut out);
    completions(log, &mut out);
    verbs_calls(log, &mut out);
    nvls(log, &mut out);
    shm(log, &mut out);
    plugin(&s, &mut out);
    plugin_unusable(log, &mut out);
    p2p_disabled(&s, &mut out);
    p2p_level(&s, &mut out);
    socket_failures(log, &mut out);
    errors(log, &s, &mut out);
    other_warnings(log, &mut out);
    healthy(&s, &mut out);
    out
}

fn capped(mut lines: Vec<usize>) -> Vec<usize> {
    lines.sort_unstable();
    lines.dedup();
    lines.truncate(MAX_LINES);
    lines
}

/// Lines whose event matches `f`.
fn lines_where(log: &NcclLog, f: impl Fn(&Event) -> bool) -> Vec<usize> {
    log.records
        .iter()
        .filter(|r| f(&r.event))
        .map(|r| r.line)
        .collect()
}

fn env_is(s: &Summary, name: &str, value: &str) -> Option<Vec<usize>> {
    s.env
        .iter()
        .find(|e| e.name == name && e.value == value)
        .map(|e| e.lines.clone())
}

fn sockets(log: &NcclLog, s: &Summary, out: &mut Vec<Finding>) {
    let mut reasons = Vec::new();
    let mut lines = Vec::new();
    let no_dev = lines_where(log, |e| matches!(e, Event::NoIbDevice));
    if !no_dev.is_empty() {
        reasons.push("NCCL's IB transport found no usable device (`NET/IB : No device found.`): no RDMA device is visible, or none has an active port".to_string());
        lines.extend(no_dev);
    }
    let no_lib = lines_where(log, |e| matches!(e, Event::NoLibibverbs));
    if !no_lib.is_empty() {
        reasons.push("libibverbs could not be loaded (`Failed to open libibverbs.so[.1]`): rdma-core's user-space library is not installed in this environment, or not on the library path".to_string());
        lines.extend(no_lib);
    }
    let open = lines_where(log, |e| {
        matches!(e, Event::VerbsCallFailed { call, .. }
            if call == "ibv_open_device" || call == "ibv_get_device_list" || call == "ibv_query_device" || call == "ibv_query_port")
    });
    if !open.is_empty() {
        reasons.push("a verbs call that opens or queries the device failed, so the device cannot be used (inside a container: the /dev/infiniband device files are not passed in)".to_string());
        lines.extend(open);
    }
    if let Some(l) = env_is(s, "NCCL_IB_DISABLE", "1") {
        reasons.push("`NCCL_IB_DISABLE=1` is set, which turns the IB transport off".to_string());
        lines.extend(l);
    }
    let socket_used = s.inter_node_transport == Some(InterNodeTransport::Socket);
    let socket_listed = s.hosts.iter().any(|h| !h.socket_devices.is_empty());
    let several_hosts = s.nnodes.is_none_or(|n| n > 1);
    if !(socket_used || (!reasons.is_empty() && socket_listed && several_hosts)) {
        return;
    }
    lines.extend(
        s.channels
            .iter()
            .filter(|c| c.net.as_deref() == Some("Socket"))
            .flat_map(|c| c.lines.iter().copied()),
    );
    lines.extend(lines_where(log, |e| {
        matches!(e, Event::NetSocketUsing { .. })
    }));
    let why = if reasons.is_empty() {
        "The log does not say why; look for IB lines missing from it (run with NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,ENV,NET) and check that the RDMA devices are visible.".to_string()
    } else {
        format!("The log gives the reason: {}.", reasons.join("; "))
    };
    // `Using network Socket` is printed by single-host jobs too, where it costs nothing:
    // without a second host in sight, say so instead of warning.
    let socket_between_hosts = s
        .channels
        .iter()
        .any(|c| c.net.as_deref() == Some("Socket") && c.inter_node != Some(false));
    let (severity, title, lead) = if s.multi_node == Some(true) || socket_between_hosts {
        (
            Severity::Warning,
            "NCCL uses TCP sockets between hosts",
            "Traffic between hosts goes over NET/Socket (kernel TCP through the CPU) instead of RDMA, typically an order of magnitude slower.",
        )
    } else {
        (
            Severity::Info,
            "NCCL chose TCP sockets as its network",
            "The log shows no second host. On one host this costs nothing: its GPUs talk over P2P or SHM, never the network. If the job spans hosts, traffic between them goes over NET/Socket (kernel TCP through the CPU) instead of RDMA, typically an order of magnitude slower.",
        )
    };
    out.push(Finding {
        severity,
        title: title.into(),
        explanation: format!("{lead} {why}"),
        lines: capped(lines),
        topic: SOCKETS,
    });
}

/// `2.9.6` → (2, 9, 6).
fn version_tuple(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// Which files NCCL's IB transport checks for a peer-memory module, by version.
///
/// v2.4.8-1 to v2.9.6-1 check `/sys/kernel/mm/memory_peers/nv_mem/version` only (the
/// `nv_peer_mem` module; v2.9.6-1 `src/transport/net_ib.cc` line 223); v2.9.8-1 adds
/// `/sys/kernel/mm/memory_peers/nvidia-peermem/version` (line 226); v2.23.4-1 checks
/// `nv_mem`, `nv_mem_nc` and `/sys/module/nvidia_peermem/version` (`src/transport/net_ib.cc`
/// lines 694-696; v2.29.3-1 `src/transport/net_ib/gdr.cc` lines 17-19).
fn peermem_check(version: (u32, u32, u32)) -> &'static str {
    if version < (2, 9, 8) {
        "this NCCL version looks only for /sys/kernel/mm/memory_peers/nv_mem/version, the old nv_peer_mem module; it does not see the nvidia-peermem module that ships with current GPU drivers, so it reports no module even when nvidia-peermem is loaded — use NCCL 2.9.8 or later, or load nv_peer_mem"
    } else if version < (2, 23, 0) {
        "this NCCL version looks only under /sys/kernel/mm/memory_peers (nv_mem, or nvidia-peermem's own entry) and not at /sys/module/nvidia_peermem/version, which NCCL 2.23 added; recent drivers' nvidia-peermem does not register there, so a loaded module can go unseen. Check `lsmod | grep nvidia_peermem`: if it is not loaded, `modprobe nvidia-peermem`; if it is, use NCCL 2.23 or later, or the DMA-BUF path"
    } else {
        "this NCCL version looks for the nv_peer_mem files under /sys/kernel/mm/memory_peers or /sys/module/nvidia_peermem/version; none was found, and DMA-BUF was not usable either. Load nvidia-peermem (`modprobe nvidia-peermem`), or use DMA-BUF, which needs the open GPU kernel modules, Linux 5.12 or later and a NIC driver that supports it"
    }
}

fn gdr(log: &NcclLog, s: &Summary, out: &mut Vec<Finding>) {
    if s.inter_node_transport == Some(InterNodeTransport::Socket) || s.gdr_used == Some(true) {
        return;
    }
    let disabled: Vec<(usize, bool)> = log
        .records
        .iter()
        .filter_map(|r| match &r.event {
            Event::GdrDisabled { no_module, .. } => Some((r.line, *no_module)),
            _ => None,
        })
        .collect();
    // Without network channels, a `Disabled` line matters unless the job is known to stay on
    // one host: NCCL checks GDR at init even there, where no data crosses the network.
    let spans_hosts = s.multi_node != Some(false);
    if s.gdr_used != Some(false) && (disabled.is_empty() || !spans_hosts) {
        return;
    }
    let mut lines: Vec<usize> = disabled.iter().map(|d| d.0).collect();
    lines.extend(
        s.channels
            .iter()
            .filter(|c| c.transport == Transport::NET && c.inter_node != Some(false))
            .flat_map(|c| c.lines.iter().copied()),
    );
    let mut why = String::new();
    if disabled.iter().any(|d| d.1) {
        why.push_str(" NCCL says `(no module)`: it did not find a peer-memory kernel module");
        match s.nccl_version.as_deref().and_then(version_tuple) {
            Some(v) => {
                why.push_str("; ");
                why.push_str(peermem_check(v));
                why.push('.');
            }
            None => why.push('.'),
        }
    } else if !disabled.is_empty() {
        why.push_str(" NCCL says why in its `GPU Direct RDMA Disabled` lines: the GPU and the NIC are too far apart on PCIe (distance greater than NCCL_NET_GDR_LEVEL), or the NIC or GPU does not support it.");
    }
    out.push(Finding {
        severity: Severity::Warning,
        title: "GPUDirect RDMA is not used".into(),
        explanation: format!(
            "The network channels between hosts do not say GDRDMA, so every transfer is staged through host memory, costing bandwidth and CPU memory traffic.{why}"
        ),
        lines: capped(lines),
        topic: GDR,
    });
}

/// A GID's subnet prefix as NCCL prints it is fe80:: (link-local) — `%lX` of a big-endian
/// field reads `80FE` on little-endian hosts and `FE80000000000000` on big-endian ones.
fn link_local_prefix(hex: &str) -> bool {
    hex.eq_ignore_ascii_case("80FE") || hex.to_ascii_uppercase().starts_with("FE80")
}

/// A RoCE port's GID at NCCL's index is link-local (QP lines, failed `ibv_modify_qp`), or
/// `NCCL_IB_GID_INDEX=0` points at it. The kernel reserves the first entries of a RoCE port's
/// GID table for the port's default GID, one per RoCE type it supports
/// (`gid_table_reserve_default()` in `drivers/infiniband/core/cache.c`): the fe80:: address
/// made from the netdev's MAC (`make_default_gid()` in `roce_gid_mgmt.c`), as RoCE v1 at
/// index 0 and, on NICs that also speak RoCE v2 such as ConnectX, as RoCE v2 at index 1.
/// NCCL takes index 0 when the variable is unset up to v2.20.5-1 (`NCCL_PARAM(IbGidIndex,
/// "IB_GID_INDEX", 0)`, `src/transport/net_ib.cc` line 80); from v2.21.5-1 the default is -1
/// and `ncclIbGetGidIndex` (same file, lines 292-310; v2.29.3-1 `src/transport/net_ib/
/// connect.cc` line 313) scans the table for a GID of the wanted RoCE version and family.
fn gid(log: &NcclLog, s: &Summary, out: &mut Vec<Finding>) {
    let roce_hosts: Vec<&str> = s
        .hosts
        .iter()
        .filter(|h| {
            h.ib_devices
                .iter()
                .any(|d| d.link == Some(super::LinkLayer::RoCE))
        })
        .map(|h| h.host.as_str())
        .collect();
    let roce_everywhere = s.inter_node_transport == Some(InterNodeTransport::RoCE);
    let mut lines = Vec::new();
    // A QP line shows a routable GID at index 0: this port's table is laid out otherwise.
    let mut routable_at_0 = false;
    for r in &log.records {
        match &r.event {
            Event::IbQp {
                gid_index,
                gid_prefix_hex: Some(p),
                lid_form: false,
                ..
            } => {
                // On IB fe80:: is the default subnet prefix and fine; only RoCE minds.
                let on_roce = roce_everywhere
                    || r.origin
                        .host
                        .as_deref()
                        .is_some_and(|h| roce_hosts.contains(&h));
                if !on_roce {
                    continue;
                }
                if link_local_prefix(p) {
                    lines.push(r.line);
                } else if *gid_index == Some(0) {
                    routable_at_0 = true;
                }
            }
            Event::ModifyQpFailed {
                local_gid: Some(g), ..
            } if g.to_ascii_lowercase().starts_with("fe80:") => lines.push(r.line),
            _ => {}
        }
    }
    let on_roce = roce_everywhere || !roce_hosts.is_empty();
    let zero = env_is(s, "NCCL_IB_GID_INDEX", "0").filter(|_| on_roce && !routable_at_0);
    let link_local = !lines.is_empty();
    if !link_local && zero.is_none() {
        return;
    }
    let mut explanation = String::new();
    if link_local {
        explanation.push_str("The GID index NCCL uses on a RoCE port holds a link-local fe80:: address. Such a GID is not routable and, at the low indexes, is usually the RoCE v1 entry; RoCE v2 across an IP network needs the GID of the interface's IPv4 (::ffff:a.b.c.d) or global IPv6 address.");
    }
    match zero {
        Some(env) => {
            lines.extend(env);
            if !explanation.is_empty() {
                explanation.push(' ');
            }
            explanation.push_str("NCCL_IB_GID_INDEX is set to 0: the kernel fills the first entries of a RoCE port's GID table with the port's link-local fe80:: address made from its MAC address, once per RoCE version, so index 0 is that address as RoCE v1 (and index 1 the same address as RoCE v2 on NICs that speak both, such as ConnectX); the GIDs of the interface's IP addresses come after them.");
            let version = s.nccl_version.as_deref();
            match version.and_then(version_tuple) {
                Some(v) if v < (2, 21, 0) => explanation.push_str(&format!(
                    " Set NCCL_IB_GID_INDEX to the index show_gids gives for the RoCE v2 GID of the interface's IP address: this NCCL ({}) takes index 0 when the variable is not set, and only NCCL 2.21 and later look for the RoCE v2 GID themselves.",
                    version.unwrap_or_default()
                )),
                _ => explanation.push_str(" Set NCCL_IB_GID_INDEX to the index show_gids gives for the RoCE v2 GID of the interface's IP address, or unset it: NCCL 2.21 and later pick that GID themselves (RoCE version from NCCL_IB_ROCE_VERSION_NUM, default 2; address family from NCCL_IB_ADDR_FAMILY)."),
            }
        }
        None => {
            explanation.push_str(" Pick that index (show_gids) and set NCCL_IB_GID_INDEX, or let a newer NCCL choose it.");
            if let Some(e) = s.env.iter().find(|e| e.name == "NCCL_IB_GID_INDEX") {
                lines.extend(e.lines.iter().copied());
                explanation.push_str(&format!(" NCCL_IB_GID_INDEX is set to {}.", e.value));
            }
        }
    }
    out.push(Finding {
        severity: Severity::Warning,
        title: if link_local {
            "RoCE uses a link-local GID".into()
        } else {
            "NCCL_IB_GID_INDEX=0 picks the link-local RoCE v1 GID".into()
        },
        explanation,
        lines: capped(lines),
        topic: GID,
    });
}

/// `a`, `a and b`, `a, b and c`.
fn and_list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<&str> = items.into_iter().collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// QP lines whose `mtu` is below 4096 bytes: each RDMA packet carries less, so a transfer
/// takes more packets and more of the wire goes to headers. The header shares are
/// `capture::segment`'s, the numbers of /roce's overhead table; the netdev MTU RoCE needs
/// for 4096 is the doctor's (the kernel's `iboe_get_mtu()`).
fn path_mtu(log: &NcclLog, out: &mut Vec<Finding>) {
    let mut lines = Vec::new();
    let mut hosts = BTreeSet::new();
    let mut least: Option<PathMtu> = None;
    let mut all_ib = true;
    for r in &log.records {
        let Event::IbQp {
            mtu: Some(value),
            lid_form,
            ..
        } = r.event
        else {
            continue;
        };
        let Ok(mtu) = PathMtu::from_ibv(value) else {
            continue;
        };
        if mtu == PathMtu::Mtu4096 {
            continue;
        }
        lines.push(r.line);
        hosts.extend(r.origin.host.as_deref());
        least = Some(least.map_or(mtu, |l| l.min(mtu)));
        all_ib &= lid_form;
    }
    let Some(least) = least else {
        return;
    };
    let (value, bytes) = (least.value(), least.bytes());
    let on = if hosts.is_empty() {
        String::new()
    } else {
        format!(" of {}", and_list(hosts))
    };
    let framing = if all_ib {
        Framing::Infiniband { grh: false }
    } else {
        Framing::RoceV2 {
            ipv6: false,
            vlan: false,
        }
    };
    let header_share = |payload: u32| {
        let c = packet_cost(framing, 0, payload);
        100.0 * f64::from(c.overhead()) / f64::from(c.wire)
    };
    let (now, best) = (header_share(bytes), header_share(4096));
    let times = 4096 / bytes;
    let explanation = if all_ib {
        format!(
            "The QP lines{on} say `mtu {value}`: the sending InfiniBand port's MTU is {bytes} bytes, so each packet carries at most {bytes} bytes of payload where InfiniBand allows 4096. A bulk transfer takes {times} times as many packets, and headers take {now:.1} % of the link instead of {best:.1} %. The active MTU is the largest both ends of the link support, as the subnet manager sets it: compare active_mtu with max_mtu in `ibv_devinfo` on each host, and check the MTU the subnet manager and the switch ports allow."
        )
    } else {
        format!(
            "The QP lines{on} say `mtu {value}`: the sending port's MTU is {bytes} bytes, so each RDMA packet carries at most {bytes} bytes of payload where RoCE allows 4096. A bulk transfer takes {times} times as many packets, each costing the NICs and the switches the same work, and headers take {now:.1} % of the wire instead of {best:.1} % (RoCE v2 over IPv4, no VLAN). A RoCE port's active MTU follows its Ethernet interface's MTU: 4096 needs at least {} bytes (9000 is usual) on the hosts and on every switch port of the path, and 1500 gives 1024. Check active_mtu in `ibv_devinfo` on each host, the interface's MTU (`ip link show`), and the switch ports' MTU.",
            4096 + ROCE_HEADER_BYTES
        )
    };
    out.push(Finding {
        severity: Severity::Warning,
        title: format!("Path MTU is {bytes} bytes, not 4096"),
        explanation,
        lines: capped(lines),
        topic: STILL_SLOW,
    });
}

/// Hosts of several GPUs where NCCL lists one RDMA device (`NET/IB : Using`) and sends
/// every channel to another host through it: the GPUs share one NIC's bandwidth. Two or
/// three GPUs on one NIC is a common build (a workstation, a PCIe server), so such hosts are
/// named only when `NCCL_IB_HCA` is set, the usual way NCCL is narrowed to one device; four
/// or more always are.
fn one_nic(log: &NcclLog, s: &Summary, out: &mut Vec<Finding>) {
    if s.inter_node_transport == Some(InterNodeTransport::Socket) {
        return;
    }
    let hca = s.env.iter().find(|e| e.name == "NCCL_IB_HCA");
    let least = if hca.is_some() { 2 } else { 4 };
    let shared: Vec<&super::HostSummary> = s
        .hosts
        .iter()
        .filter(|h| h.ranks.len() >= least && h.ib_devices.len() == 1 && h.nics_in_use.len() == 1)
        .collect();
    if shared.is_empty() {
        return;
    }
    let names: BTreeSet<&str> = shared.iter().map(|h| h.host.as_str()).collect();
    let devices: BTreeSet<String> = shared
        .iter()
        .map(|h| {
            let d = &h.ib_devices[0];
            format!("NET/IB/{} ({})", h.nics_in_use[0], d.name)
        })
        .collect();
    let gpus: BTreeSet<usize> = shared.iter().map(|h| h.ranks.len()).collect();
    let (title, share) = match gpus.iter().collect::<Vec<_>>()[..] {
        [n] => (
            format!("All {n} GPUs of a host share one NIC"),
            format!("the {n} GPUs of each host share one NIC"),
        ),
        _ => (
            "All the GPUs of a host share one NIC".to_string(),
            "the GPUs of each host share one NIC".to_string(),
        ),
    };
    // The evidence: the device list and the variable as each host printed them first, then
    // the NET channels.
    let (mut listed, mut narrowed) = (BTreeSet::new(), BTreeSet::new());
    let mut lines = Vec::new();
    for r in &log.records {
        let Some(host) = r.origin.host.as_deref().filter(|h| names.contains(h)) else {
            continue;
        };
        let evidence = match &r.event {
            Event::NetIbUsing { .. } => listed.insert(host),
            Event::EnvSet { name, .. } if name == "NCCL_IB_HCA" => narrowed.insert(host),
            Event::Channel(c) => c.transport == Transport::NET,
            _ => false,
        };
        if evidence {
            lines.push(r.line);
        }
    }
    let advice = match hca {
        Some(hca) => {
            format!(
                " NCCL_IB_HCA={} limits NCCL to the devices it names: list one HCA per GPU in it (the NIC nearest each GPU, such as NCCL_IB_HCA=mlx5_0,mlx5_1,…), or leave NCCL_IB_HCA unset so that NCCL takes every active port.",
                hca.value
            )
        }
        None => " If the hosts have a NIC per GPU, NCCL does not see the others: check that nothing narrows NCCL_IB_HCA (the log may not show it), that their ports are ACTIVE in `ibv_devinfo`, and in a container that every /dev/infiniband device is passed in.".to_string(),
    };
    out.push(Finding {
        severity: Severity::Warning,
        title,
        explanation: format!(
            "On {}, every channel to another host goes through {}, the one RDMA device NCCL lists there (`NET/IB : Using`): {share}, so the host's bandwidth to the network is that of one NIC, where a NIC per GPU gives each GPU its own.{advice}",
            and_list(names.iter().copied()),
            and_list(devices.iter().map(String::as_str)),
        ),
        lines: capped(lines),
        topic: STILL_SLOW,
    });
}

fn completions(log: &NcclLog, out: &mut Vec<Finding>) {
    let mut by_status: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for r in &log.records {
        if let Event::WorkCompletionError { status, .. } = r.event {
            by_status.entry(status).or_default().push(r.line);
        }
    }
    let others = by_status.keys().any(|&k| k != wc_status::WR_FLUSH_ERR);
    for (status, lines) in by_status {
        let (name, text) = wc_status::describe(status).unwrap_or(("unknown status", "unknown"));
        let (title, explanation, topic) = match status {
            wc_status::RETRY_EXC_ERR => (
                format!("Transport retry counter exceeded ({name}, status {status})"),
                "The NIC sent a packet, got no acknowledgement, retried NCCL_IB_RETRY_CNT times with NCCL_IB_TIMEOUT between tries, and gave up. The peer is gone, the path drops packets (a link down, a wrong GID or route on RoCE, a congested or misconfigured lossless fabric), or the timeout is too short for the fabric.".to_string(),
                RETRY,
            ),
            wc_status::WR_FLUSH_ERR => (
                format!("Work requests flushed ({name}, status {status})"),
                if others {
                    "Flushed work requests follow from another error: once a QP enters the error state every outstanding request completes with this status. The first non-flush error in the log is the cause.".to_string()
                } else {
                    "The QP entered the error state and its outstanding requests were flushed, but the log shows no other completion error: look at the peer's log for the first failure, or for a process that exited.".to_string()
                },
                if others { RETRY } else { FLUSH },
            ),
            _ => (
                format!("IB completion error {name} (status {status})"),
                format!("A work request completed with status {status}, which libibverbs describes as \"{text}\"; NCCL aborts the connection on any error status."),
                WC_OTHER,
            ),
        };
        out.push(Finding {
            severity: Severity::Error,
            title,
            explanation,
            lines: capped(lines),
            topic,
        });
    }
}

fn verbs_calls(log: &NcclLog, out: &mut Vec<Finding>) {
    let qp = lines_where(log, |e| matches!(e, Event::ModifyQpFailed { .. }));
    if !qp.is_empty() {
        out.push(Finding {
            severity: Severity::Error,
            title: "A QP could not be moved to its next state".into(),
            explanation: "ibv_modify_qp failed while NCCL connected a queue pair, so the QP stays in INIT or RTR. Error 22 (EINVAL) usually means an attribute the port refuses: a GID index that does not exist or has the wrong type, an MTU above the port's, or a bad remote address.".into(),
            lines: capped(qp),
            topic: QP_EINVAL,
        });
    }
    let reg = lines_where(
        log,
        |e| matches!(e, Event::VerbsCallFailed { call, .. } if call.starts_with("ibv_reg_")),
    );
    if !reg.is_empty() {
        out.push(Finding {
            severity: Severity::Error,
            title: "Memory registration failed".into(),
            explanation: "ibv_reg_mr (or its DMA-BUF form) failed, so NCCL cannot register its buffers with the NIC. \"Cannot allocate memory\" is the usual sign of a locked-memory limit (ulimit -l, or a container's) too small for the pinned buffers.".into(),
            lines: capped(reg),
            topic: MEMLOCK,
        });
    }
}

fn nvls(log: &NcclLog, out: &mut Vec<Finding>) {
    let lines = lines_where(log, |e| matches!(e, Event::NvlsFailure { .. }));
    if lines.is_empty() {
        return;
    }
    out.push(Finding {
        severity: Severity::Error,
        title: "NVLink SHARP (NVLS) set-up failed".into(),
        explanation: "NCCL could not set up NVLS multicast memory on the NVSwitches. NCCL's own message blames the Fabric Manager or the NVSwitch configuration; NCCL_NVLS_ENABLE=0 avoids NVLS while that is fixed.".into(),
        lines: capped(lines),
        topic: NVLS,
    });
}

fn shm(log: &NcclLog, out: &mut Vec<Finding>) {
    let lines = lines_where(log, |e| matches!(e, Event::ShmError { .. }));
    if lines.is_empty() {
        return;
    }
    out.push(Finding {
        severity: Severity::Error,
        title: "Shared memory under /dev/shm could not be set up".into(),
        explanation: "NCCL keeps its SHM transport buffers and proxy state in files under /dev/shm. Creating, extending or mapping one failed; in a container the cause is nearly always a /dev/shm too small (Docker's default is 64 MB): raise --shm-size, or mount a larger tmpfs.".into(),
        lines: capped(lines),
        topic: SHM,
    });
}

fn plugin(s: &Summary, out: &mut Vec<Finding>) {
    let with: Vec<_> = s
        .hosts
        .iter()
        .filter(|h| !h.net_plugins.is_empty())
        .collect();
    let without: Vec<_> = s
        .hosts
        .iter()
        .filter(|h| h.net_plugins.is_empty() && !h.net_lines.is_empty())
        .collect();
    if with.is_empty() || without.is_empty() {
        return;
    }
    let names = |hs: &[&super::HostSummary]| {
        hs.iter()
            .map(|h| h.host.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let lines = with
        .iter()
        .chain(without.iter())
        .flat_map(|h| h.net_lines.iter().copied())
        .collect();
    out.push(Finding {
        severity: Severity::Warning,
        title: "A network plugin is loaded on some hosts only".into(),
        explanation: format!(
            "Hosts {} load a network plugin and hosts {} do not, so the ranks do not agree on the network; connections between the two groups fail or fall back. Install the same plugin (libnccl-net.so) on every host, or set NCCL_NET_PLUGIN the same everywhere.",
            names(&with),
            names(&without)
        ),
        lines: capped(lines),
        topic: PLUGIN,
    });
}

/// A plugin library is there and NCCL could not use it: `dlopen` failed for a reason other
/// than a missing file, or none of the `ncclNetPlugin_vN` symbols this NCCL knows is in it
/// (it tries the newest first and logs each miss, so a miss followed by `Loaded net plugin`
/// on the same host is a version fallback that worked). `Failed to initialize any NET plugin`
/// (v2.29.3-1 `src/plugin/net.cc` line 402) means no network at all.
fn plugin_unusable(log: &NcclLog, out: &mut Vec<Finding>) {
    let loaded: BTreeSet<Option<&str>> = log
        .records
        .iter()
        .filter(|r| matches!(r.event, Event::NetPluginLoaded { .. }))
        .map(|r| r.origin.host.as_deref())
        .collect();
    let mut lines = Vec::new();
    let mut none_at_all = false;
    for r in &log.records {
        match &r.event {
            Event::NetPluginNotLoaded { broken: true, .. }
                if !loaded.contains(&r.origin.host.as_deref()) =>
            {
                lines.push(r.line)
            }
            Event::Warning { message }
                if message.contains("Failed to initialize any NET plugin") =>
            {
                none_at_all = true;
                lines.push(r.line);
            }
            _ => {}
        }
    }
    if lines.is_empty() {
        return;
    }
    let tail = if none_at_all {
        " No network initialized at all (`Failed to initialize any NET plugin`), so NCCL cannot reach other hosts."
    } else {
        " NCCL then uses its built-in IB or socket transport, which may not be what the hosts were set up for (an EFA or other plugin-only fabric falls back to TCP sockets)."
    };
    out.push(Finding {
        severity: if none_at_all { Severity::Error } else { Severity::Warning },
        title: "A network plugin was found but could not be used".into(),
        explanation: format!(
            "A `libnccl-net` library is on the library path, but NCCL could not use it: `dlopen` failed (the line gives its error: a missing dependency, an undefined symbol), or the plugin exports no `ncclNetPlugin_vN` interface this NCCL understands, so plugin and NCCL versions do not match.{tail} Install the plugin build made for this NCCL version (or remove the stale library from LD_LIBRARY_PATH), and set NCCL_NET to the plugin's network name so a failure stops the job instead of changing its network."
        ),
        lines: capped(lines),
        topic: PLUGIN,
    });
}

/// `NCCL_P2P_LEVEL` caps how far apart two GPUs may be for P2P (`ncclGetLevel`, v2.29.3-1
/// `src/graph/paths.cc` lines 217-263); GPUs further apart than the level talk through SHM
/// or, when SHM is off too, the network. Shown when the channels prove that happened.
fn p2p_level(s: &Summary, out: &mut Vec<Finding>) {
    let Some(level) = s.env.iter().find(|e| e.name == "NCCL_P2P_LEVEL") else {
        return;
    };
    let mut lines = level.lines.clone();
    let detour: Vec<usize> = s
        .channels
        .iter()
        .filter(|c| {
            c.transport == Transport::SHM
                || (c.transport == Transport::NET && c.inter_node == Some(false))
        })
        .flat_map(|c| c.lines.iter().copied())
        .collect();
    if detour.is_empty() {
        return;
    }
    lines.extend(detour);
    out.push(Finding {
        severity: Severity::Warning,
        title: format!("NCCL_P2P_LEVEL={} keeps some GPUs of a host off P2P", level.value),
        explanation: format!(
            "NCCL_P2P_LEVEL={} allows P2P only between GPUs whose PCIe or NVLink path is no longer than that level (LOC, NVL, PIX, PXB, PHB, SYS from nearest to farthest); pairs further apart connect via SHM (through host memory) or, with SHM off too, via the network, as the channel lines show. If the variable was set to work around a fault (ACS, IOMMU), fix that instead; otherwise unset it or raise it (nvidia-smi topo -m shows each pair's path).",
            level.value
        ),
        lines: capped(lines),
        topic: P2P_OFF,
    });
}

fn p2p_disabled(s: &Summary, out: &mut Vec<Finding>) {
    let Some(mut lines) = env_is(s, "NCCL_P2P_DISABLE", "1") else {
        return;
    };
    // Without P2P, GPUs of a host connect via SHM, or via the network when SHM is off too.
    if !s.intra_node.contains(&IntraNodeTransport::SHM)
        && !s.intra_node.contains(&IntraNodeTransport::NET)
    {
        return;
    }
    lines.extend(
        s.channels
            .iter()
            .filter(|c| {
                c.transport == Transport::SHM
                    || (c.transport == Transport::NET && c.inter_node == Some(false))
            })
            .flat_map(|c| c.lines.iter().copied()),
    );
    out.push(Finding {
        severity: Severity::Warning,
        title: "P2P is disabled, so GPUs of one host talk through shared memory".into(),
        explanation: "NCCL_P2P_DISABLE=1 is set and the ranks of a host are connected via SHM, copying through host memory instead of NVLink or PCIe peer-to-peer. Unless P2P was turned off to work around a known fault (such as broken PCIe ACS or IOMMU settings), unset it.".into(),
        lines: capped(lines),
        topic: P2P_OFF,
    });
}

fn socket_failures(log: &NcclLog, out: &mut Vec<Finding>) {
    let mut timed_out = Vec::new();
    let mut closed = Vec::new();
    let mut failed = Vec::new();
    for r in &log.records {
        if let Event::SocketFailure {
            timed_out: t,
            closed_by_peer: c,
            ..
        } = r.event
        {
            match (t, c) {
                (true, _) => timed_out.push(r.line),
                (false, true) => closed.push(r.line),
                (false, false) => failed.push(r.line),
            }
        }
    }
    for (lines, title, text) in [
        (timed_out, "A TCP connection between ranks timed out", "NCCL's bootstrap and proxy connections are TCP, even when data moves over RDMA. A connect that times out means the address is unreachable from here: a firewall, the wrong interface chosen (compare the `Bootstrap : Using` lines; set NCCL_SOCKET_IFNAME), or a peer that never started."),
        (failed, "A TCP connection between ranks failed", "A connect to another rank's socket failed with the error shown: connection refused means nothing listened at that address (the peer exited or has not started); other errors point at the interface or the network."),
        (closed, "A peer closed its TCP connection", "Another rank closed its connection: it exited, usually because it failed first. Its own log holds the cause."),
    ] {
        if lines.is_empty() {
            continue;
        }
        out.push(Finding {
            severity: Severity::Error,
            title: title.into(),
            explanation: text.into(),
            lines: capped(lines),
            topic: SOCKET_FAIL,
        });
    }
}

fn errors(log: &NcclLog, s: &Summary, out: &mut Vec<Finding>) {
    let cuda = lines_where(log, |e| matches!(e, Event::CudaFailure { .. }));
    if !cuda.is_empty() {
        out.push(Finding {
            severity: Severity::Error,
            title: "A CUDA call failed inside NCCL".into(),
            explanation: "NCCL printed `Cuda failure` with CUDA's error string: the GPU, its driver or the CUDA runtime refused a call (out of memory, a device lost, a mismatch between driver and runtime).".into(),
            lines: capped(cuda),
            topic: CUDA,
        });
    }
    for (result, title, text) in [
        (NcclResult::UnhandledSystemError, "NCCL returned \"unhandled system error\"", "A system call or library NCCL relies on (sockets, verbs, shared memory) failed. The error string is only the summary: the WARN lines before it name the failing call."),
        (NcclResult::UnhandledCudaError, "NCCL returned \"unhandled cuda error\"", "A CUDA call failed; the `Cuda failure` WARN before it names CUDA's error."),
        (NcclResult::InternalError, "NCCL returned \"internal error\"", "NCCL hit a state it does not expect; the WARN lines before it say where."),
        (NcclResult::RemoteError, "NCCL returned \"remote process exited or there was a network error\"", "A peer went away or the network between the ranks failed; look at the other ranks' logs and for completion errors."),
    ] {
        let mut lines = lines_where(log, |e| matches!(e, Event::NcclError { result: r } if *r == result));
        if lines.is_empty() {
            continue;
        }
        lines.extend(s.warn_lines.iter().copied());
        out.push(Finding {
            severity: Severity::Error,
            title: title.into(),
            explanation: text.into(),
            lines: capped(lines),
            topic: NCCL_ERROR,
        });
    }
}

fn other_warnings(log: &NcclLog, out: &mut Vec<Finding>) {
    let lines = lines_where(log, |e| matches!(e, Event::Warning { .. }));
    if lines.is_empty() {
        return;
    }
    out.push(Finding {
        severity: Severity::Warning,
        title: "NCCL printed warnings no rule explains".into(),
        explanation: format!(
            "{} WARN line(s) match none of the known problems; read them, the first one first.",
            lines.len()
        ),
        lines: capped(lines),
        topic: PAGE,
    });
}

fn healthy(s: &Summary, out: &mut Vec<Finding>) {
    if out.iter().any(|f| f.severity > Severity::Info) {
        return;
    }
    let rdma = matches!(
        s.inter_node_transport,
        Some(InterNodeTransport::IB | InterNodeTransport::RoCE)
    ) && s.gdr_used == Some(true);
    let one_node_p2p = s.inter_node_transport == Some(InterNodeTransport::None)
        && (s.intra_node.contains(&IntraNodeTransport::P2P)
            || s.intra_node.contains(&IntraNodeTransport::NVLS))
        && !s.intra_node.contains(&IntraNodeTransport::SHM)
        && !s.intra_node.contains(&IntraNodeTransport::NET);
    if !(rdma || one_node_p2p) {
        return;
    }
    let explanation = if rdma {
        format!(
            "Hosts talk over {} with GPUDirect RDMA, and no warning or error was found.",
            if s.inter_node_transport == Some(InterNodeTransport::RoCE) {
                "RoCE"
            } else {
                "InfiniBand"
            }
        )
    } else {
        "All ranks share one host and connect GPU to GPU (P2P or NVLS), and no warning or error was found.".to_string()
    };
    out.push(Finding {
        severity: Severity::Info,
        title: "No problem found".into(),
        explanation,
        lines: Vec::new(),
        topic: PAGE,
    });
}
