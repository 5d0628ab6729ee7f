//! What the reader makes of the fragments people paste: a few WARN lines, a dozen channel
//! lines, the tail of a run. Each fixture is the few lines that matter from a public log,
//! cited by its thread; the format string each line comes from is named with file and tag.

use super::*;

fn source<'a>(s: &'a Summary, fact: &str) -> &'a FactSource {
    s.sources
        .iter()
        .find(|f| f.fact == fact)
        .unwrap_or_else(|| panic!("no source for {fact}: {:?}", s.sources))
}

/// https://github.com/NVIDIA/nccl/issues/928 — only the WARN lines of a crash. The format is
/// `NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d`
/// (v2.18.3-1 `src/transport/net_ib.cc` line 1295, the call site the lines name).
#[test]
fn only_warn_lines_say_the_network_is_ib_verbs() {
    let text = "\
H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)
H100-2:19989:20082 [1] NCCL INFO transport/net.cc:1008 -> 6

H100-1:9821:9920 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:8b:df50%ib0<44413> with error 4, opcode 32613, len 32613, vendor err 81 (Send)
";
    let log = parse(text);
    let s = log.summary();
    assert_eq!(s.inter_node_network.as_deref(), Some("IB"));
    assert_eq!(source(&s, "inter_node_network").lines, [1, 4]);
    // IB verbs, but over which link layer the lines do not say: unknown, not "none".
    assert_eq!(s.link_layer, None);
    assert_eq!(s.inter_node_transport, None);
    assert!(!source(&s, "inter_node_transport").known);
    assert!(source(&s, "link_layer").reading.contains("/RoCE"));
    // Two hosts printed; nothing says whether GPUDirect RDMA was used.
    assert_eq!((s.nnodes, s.multi_node), (Some(2), Some(true)));
    assert_eq!(s.gdr_used, None);
    assert!(!source(&s, "gdr_used").known);
    assert_eq!(s.nranks, None);
    assert!(source(&s, "nranks").reading.contains("Init COMPLETE"));
    let f = diagnose(&log);
    assert!(f
        .iter()
        .any(|f| f.topic == "/troubleshooting#ib-completion-error"));
}

/// https://github.com/NVIDIA/nccl/issues/1814 — `NET/IB : Using [0]mlx5_bond_1:1/RoCE ...`
/// (v2.21.5-1 `src/transport/net_ib.cc` lines 532 and 538: ` [%d]%s:%d/%s` per device), an IB
/// plugin's `Using network IBext_v8` (v2.21.5-1 `src/init.cc` line 322) and `Init COMPLETE`
/// lines (v2.21.5-1 `src/init.cc` line 1573).
#[test]
fn roce_suffix_makes_an_ib_plugin_roce() {
    let text = "\
hostname-test:983:1261 [3] NCCL INFO NET/IB : Using [0]mlx5_bond_1:1/RoCE [1]mlx5_bond_2:1/RoCE [RO]; OOB bond0:172.36.134.184<0>
hostname-test:983:1261 [3] NCCL INFO Using network IBext_v8
hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE
hostname-test:982:1255 [2] NCCL INFO comm 0x560dfc7a10e0 rank 34 nranks 64 cudaDev 2 nvmlDev 2 busId 49000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE
";
    let s = parse(text).summary();
    assert_eq!(s.nranks, Some(64));
    assert_eq!(source(&s, "nranks").lines, [3, 4]);
    assert_eq!(s.inter_node_network.as_deref(), Some("IBext_v8"));
    assert_eq!(s.link_layer, Some(LinkLayer::RoCE));
    assert_eq!(source(&s, "link_layer").lines, [1]);
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::RoCE));
    // One host printed two of 64 ranks: how many hosts is not stated.
    assert_eq!(s.nnodes, None);
    assert!(!source(&s, "nnodes").known);
}

/// https://github.com/NVIDIA/nccl/issues/1232 — `srun -l` task numbers in front, channel
/// lines `Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s` (v2.18.3-1
/// `src/transport/net.cc` line 186) and `Channel %02d : %d[%d] -> %d[%d] via SHM/%s/%s`
/// (v2.18.3-1 `src/transport/shm.cc` line 95).
#[test]
fn only_channel_lines_over_sockets() {
    let text = "\
[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0
[2] node0:13572:13572 [1] NCCL INFO Channel 00 : 2[1] -> 0[0] via SHM/direct/direct
[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [send] via NET/Socket/0
";
    let log = parse(text);
    let s = log.summary();
    assert_eq!(s.inter_node_network.as_deref(), Some("Socket"));
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::Socket));
    assert_eq!(source(&s, "inter_node_transport").lines, [1, 2, 4]);
    // A NET channel without `/GDRDMA` says GPUDirect RDMA is not used: false, not unknown.
    assert_eq!(s.gdr_used, Some(false));
    assert_eq!((s.nnodes, s.multi_node), (Some(2), Some(true)));
    let f = diagnose(&log);
    assert!(f
        .iter()
        .any(|f| f.topic == "/troubleshooting#nccl-falls-back-to-sockets"));
}

/// The same channel lines without host names (as a user trims them): the NET channels alone
/// prove a second host, though not how many.
#[test]
fn net_channels_without_hosts_prove_a_second_host() {
    let text = "\
NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0
NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0
";
    let s = parse(text).summary();
    assert_eq!(s.multi_node, Some(true));
    assert_eq!(s.nnodes, None);
    assert_eq!(source(&s, "multi_node").lines, [1, 2]);
    // With P2P turned off, a NET channel may stay inside a host: no conclusion.
    let off = format!("NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n{text}");
    assert_eq!(parse(&off).summary().multi_node, None);
}

/// https://github.com/NVIDIA/nccl/issues/1412 — `comm %p rank %d nRanks %d nNodes %d
/// localRanks %d localRank %d MNNVL %d` (v2.21.5-1 `src/init.cc` line 1160) and rank 0's ring
/// line `Channel %02d/%02d : ` with every rank (v2.21.5-1 `src/graph/rings.cc` line 35).
#[test]
fn nnodes_line_and_ring_line() {
    let nodes = "swat1-04:2017630:2017675 [6] NCCL INFO comm 0x8ec0ac0 rank 6 nRanks 16 nNodes 2 localRanks 8 localRank 6 MNNVL 0\n";
    let s = parse(nodes).summary();
    assert_eq!(
        (s.nranks, s.nnodes, s.multi_node),
        (Some(16), Some(2), Some(true))
    );
    assert_eq!(source(&s, "nnodes").lines, [1]);
    let ring = "swat1-04:2017630:2017669 [0] NCCL INFO Channel 00/08 :    0   5   4   7   6   3   2   1   8  13  12  15  14  11  10   9\n";
    let s = parse(ring).summary();
    assert_eq!(s.nranks, Some(16));
    assert!(source(&s, "nranks").reading.contains("ring"));
    // A ring cut with `...` (past 128 characters) does not list every rank.
    let cut = "NCCL INFO Channel 00/08 :    0   5   4   7 ...\n";
    assert_eq!(parse(cut).summary().nranks, None);
}

/// https://github.com/Azure/aks-rdma-infiniband/issues/30 — the tail of an nccl-tests run:
/// `comm %p rank %d nranks %d cudaDev %d busId %lx - Destroy COMPLETE` (v2.18.3-1
/// `src/init.cc` line 1948).
#[test]
fn the_tail_of_a_run_gives_ranks_and_hosts() {
    let text = "\
nccl-tests-worker-1:70:224 [7] NCCL INFO comm 0x5556543bb320 rank 15 nranks 16 cudaDev 7 busId e00000 - Destroy COMPLETE
nccl-tests-worker-0:64:229 [1] NCCL INFO comm 0x55ab26dea5d0 rank 1 nranks 16 cudaDev 1 busId 200000 - Destroy COMPLETE
";
    let log = parse(text);
    assert!(log.unrecognised().next().is_none());
    let s = log.summary();
    assert_eq!((s.nranks, s.nnodes), (Some(16), Some(2)));
    assert_eq!(source(&s, "nranks").lines, [1, 2]);
    // Nothing about the network: unknown, each with the line that would tell.
    assert_eq!(s.inter_node_transport, None);
    assert!(source(&s, "inter_node_network")
        .reading
        .contains("Using network"));
}

/// https://github.com/NVIDIA/nccl/issues/1537 — RoCE NICs, `Using network IB`, an `Init
/// START` line (v2.21.5-1 `src/init.cc` line 1544) and the IB transport's `NET/IB : GPU
/// Direct RDMA Disabled for HCA %d '%s'` per NIC, which v2.12.12-1 `src/transport/net_ib.cc`
/// line 290 ended with `(no module)`.
#[test]
fn gdr_disabled_per_hca_without_channels() {
    let text = "\
hostname1:25668:27396 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB primaryip:10.10.10.10<0>
hostname1:25668:27396 [0] NCCL INFO Using network IB
hostname1:25668:27396 [0] NCCL INFO comm 0x55cc8aa86c70 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1c000 commId 0x65e0bd6ee7449db4 - Init START
hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
hostname1:25668:27396 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'
";
    let log = parse(text);
    let s = log.summary();
    assert_eq!(s.nranks, Some(16));
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::RoCE));
    assert_eq!(s.gdr_used, Some(false));
    assert_eq!(source(&s, "gdr_used").lines, [4, 5]);
    let names: Vec<&str> = s.gdr_hcas.iter().map(|h| h.hca.as_str()).collect();
    assert_eq!(names, ["mlx5_0", "mlx5_1"]);
    assert!(s
        .gdr_hcas
        .iter()
        .all(|h| h.disabled && h.no_module && !h.enabled));
    let f = diagnose(&log);
    let gdr = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#gpudirect-rdma-not-used")
        .expect("gdr finding");
    assert!(
        gdr.explanation.contains("peer-memory"),
        "{}",
        gdr.explanation
    );
    assert_eq!(gdr.lines, [4, 5]);
}

/// https://github.com/NVIDIA/nccl/issues/1676 — NCCL 2.22.3 with a driver whose
/// nvidia-peermem it does not see: the advice names that check, not only `modprobe`.
#[test]
fn gdr_off_before_2_23_names_the_peermem_check() {
    let text = "\
NCCL version 2.22.3+cuda12.6
learn01:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'
learn01:2228637:2230195 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'
learn02:1:2 [3] NCCL INFO Channel 00/0 : 3[3] -> 11[3] [send] via NET/IB/0
";
    let f = diagnose(&parse(text));
    let gdr = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#gpudirect-rdma-not-used")
        .expect("gdr finding");
    assert!(gdr.explanation.contains("2.23"), "{}", gdr.explanation);
    assert!(gdr.explanation.contains("/sys/module/nvidia_peermem"));
}

/// https://github.com/NVIDIA/nccl/issues/1528 — a `libnccl-net.so` without any interface
/// this NCCL knows: `NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.` then `... symbol
/// (>= v5). ncclNetPlugin symbols v4 and lower are not supported.` (v2.20.5-1 `src/net.cc`
/// lines 367 and 377). https://github.com/NVIDIA/nccl/issues/1000 — a v6 miss followed by
/// `Loaded net plugin NCCL RDMA Plugin (v5)` is a fallback that worked.
#[test]
fn net_plugin_that_does_not_match() {
    let broken = "\
c76d92cccb6e:72:72 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.
c76d92cccb6e:72:72 [0] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.
NCCL version 2.20.5+cuda12.3
";
    let f = diagnose(&parse(broken));
    let p = f
        .iter()
        .find(|f| f.title.contains("could not be used"))
        .expect("plugin finding");
    assert_eq!(p.lines, [1, 2]);
    assert_eq!(p.topic, "/troubleshooting#net-plugin-on-some-hosts-only");
    let fallback = "\
dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v6 symbol.
dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)
dso-s1-r1-a100-02:2295:2295 [2] NCCL INFO NET/Plugin: Failed to find ncclCollNetPlugin_v6 symbol.
";
    let f = diagnose(&parse(fallback));
    assert!(
        !f.iter().any(|f| f.title.contains("could not be used")),
        "{f:?}"
    );
    // No plugin installed is the usual case, not a finding
    // (https://github.com/NVIDIA/nccl/issues/1059, v2.18.3-1 `src/net.cc` line 179).
    let absent = "MLVM2:10792:10792 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory\n";
    assert!(!diagnose(&parse(absent))
        .iter()
        .any(|f| f.title.contains("could not be used")));
}

/// `NCCL_P2P_LEVEL set by environment to %s` (v2.29.3-1 `src/graph/paths.cc` line 247; the
/// variable's line as https://github.com/NVIDIA/nccl/issues/332 shows it) with SHM channel
/// lines as https://github.com/NVIDIA/nccl/issues/1232 prints them: the level sent GPUs of
/// one host through host memory.
#[test]
fn p2p_level_that_detours_through_shm() {
    let text = "\
node0:13572:13572 [1] NCCL INFO NCCL_P2P_LEVEL set by environment to LOC
node0:13572:13572 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct
";
    let f = diagnose(&parse(text));
    let p = f
        .iter()
        .find(|f| f.title.starts_with("NCCL_P2P_LEVEL=LOC"))
        .expect("p2p level finding");
    assert_eq!(p.lines, [1, 2]);
    assert_eq!(p.topic, "/troubleshooting#p2p-disabled");
    // P2P channels under the same level: nothing to say.
    let fine = "\
node0:13572:13572 [1] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL
node0:13572:13572 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC
";
    assert!(!diagnose(&parse(fine))
        .iter()
        .any(|f| f.title.starts_with("NCCL_P2P_LEVEL")));
}

/// P2P and SHM channels join the ranks of a host: with every rank in a channel line, the
/// groups they form count the hosts (channel forms as in
/// https://github.com/NVIDIA/nccl/issues/952: `via P2P/IPC/read`, `[send] via NET/Socket/3`).
#[test]
fn rank_groups_count_hosts_without_host_names() {
    let text = "\
NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE
NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read
NCCL INFO Channel 00/0 : 2[0] -> 3[1] via P2P/IPC/read
NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Socket/3
";
    let s = parse(text).summary();
    assert_eq!(
        (s.nranks, s.nnodes, s.multi_node),
        (Some(4), Some(2), Some(true))
    );
    // One group covering every rank: one host, so no network between hosts.
    let one = "\
NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE
NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read
";
    let s = parse(one).summary();
    assert_eq!((s.nnodes, s.multi_node), (Some(1), Some(false)));
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::None));
    assert_eq!(s.gdr_used, None);
}

/// v2.29.3-1 names the NIC in its GDR verdict as `NET/<system>-<local>` (`src/graph/paths.cc`
/// lines 428 and 483), and an Enabled verdict without channel lines counts as used.
#[test]
fn gdr_enabled_v2_29_form() {
    let text = "h:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU/0-1b000 (rank 0) - NET/0-2 (distance 3 <= 5, read 1, mode Default)\n";
    let s = parse(text).summary();
    assert_eq!(s.gdr_hcas[0].hca, "NET/0-2");
    assert_eq!(s.gdr_used, Some(true));
}

/// Sources never panic and never point past the text, whatever the text.
#[test]
fn sources_point_into_the_text() {
    for text in [
        "",
        "\n\n",
        "Channel 00/02 : ",
        "NCCL INFO Channel 00/02 : 3 2 1 0",
        "x NCCL INFO comm 0x1 rank 9 nranks 2 cudaDev 0 busId 1 - Init COMPLETE\nNCCL INFO Channel 00/0 : 9[0] -> 1[0] via P2P/IPC",
        "NCCL INFO comm 0x1 rank 0 nRanks 4294967295 nNodes 4294967295 localRanks 1 localRank 0 MNNVL 0",
    ] {
        let log = parse(text);
        let s = log.summary();
        let n = log.records.len();
        for f in &s.sources {
            assert!(f.lines.iter().all(|&l| l >= 1 && l <= n), "{text:?}: {f:?}");
        }
        let _ = diagnose(&log);
    }
}

/// Two device-list forms: the HPC-X IB plugin's capability after the link layer
/// (`[0]mlx5_0:1/IB/SHARP`, as https://github.com/NVIDIA/nccl/issues/988 prints it) and a
/// merged device, ` [%d]={[%d] %s:%d/%s, ...}` (v2.21.5-1 `src/transport/net_ib.cc` lines
/// 521-529), written here from that format.
#[test]
fn device_lists_with_sharp_and_merged_devices() {
    let sharp = "ad5b8ae33076:28331:28331 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP [1]mlx5_1:1/IB/SHARP ; OOB eth0:10.0.1.2<0>\n";
    let Event::NetIbUsing { devices, .. } = parse(sharp).records[0].event.clone() else {
        panic!("not a device list");
    };
    assert_eq!(devices.len(), 2);
    assert_eq!(
        (devices[1].name.as_str(), devices[1].port),
        ("mlx5_1", Some(1))
    );
    assert_eq!(parse(sharp).summary().link_layer, Some(LinkLayer::IB));
    let merged = "h:1:2 [0] NCCL INFO NET/IB : Using [0]={[0] mlx5_2:1/RoCE, [1] mlx5_3:1/RoCE} [1]mlx5_4:1/RoCE [2]={[5] mlx5_0:1/IB, [6] mlx5_1:1/RoCE} [RO]; OOB bond0:10.0.0.9<0>\n";
    let Event::NetIbUsing { devices, .. } = parse(merged).records[0].event.clone() else {
        panic!("not a device list");
    };
    let read: Vec<(u32, &str, Option<LinkLayer>)> = devices
        .iter()
        .map(|d| (d.index, d.name.as_str(), d.link))
        .collect();
    assert_eq!(
        read,
        [
            (0, "mlx5_2+mlx5_3", Some(LinkLayer::RoCE)),
            (1, "mlx5_4", Some(LinkLayer::RoCE)),
            // Members that disagree give no one link layer.
            (2, "mlx5_0+mlx5_1", None),
        ]
    );
}

/// NCCL 2.5 to 2.7 report a full /dev/shm as `Call to posix_fallocate failed : %s` (v2.7.8-1
/// `src/include/shm.h` line 28, through SYSCHECK); the line as
/// https://github.com/NVIDIA/nccl/issues/290's title gives it.
#[test]
fn posix_fallocate_is_a_shared_memory_failure() {
    let text = "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device\n";
    let f = diagnose(&parse(text));
    assert!(
        f.iter()
            .any(|f| f.topic == "/troubleshooting#dev-shm-too-small"),
        "{f:?}"
    );
}

/// A failed `ibv_modify_qp` happens only on a connection NCCL's IB transport sets up, so the
/// network is IB verbs even with no other line (`Call to " name " failed with error %s`,
/// v2.18.3-1 `src/misc/ibvwrap.cc` line 52, used by `wrap_ibv_modify_qp` at line 187; the
/// line as https://github.com/NVIDIA/nccl-tests/issues/185's title gives it).
#[test]
fn a_failed_qp_call_says_ib_verbs() {
    let text = "dgx:1:2 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable\n";
    let s = parse(text).summary();
    assert_eq!(s.inter_node_network.as_deref(), Some("IB"));
    // Opening a device comes before IB is chosen: no conclusion from it.
    let open = "dgx:1:2 [0] NCCL WARN Call to ibv_open_device failed\n";
    assert_eq!(parse(open).summary().inter_node_network, None);
}
