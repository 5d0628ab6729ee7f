//! Every log here is written for these tests from NCCL's format strings; each test names
//! the file and line of the format strings it fills in (NVIDIA/nccl, at the tag given).

use super::*;
use proptest::prelude::*;

/// The one record of a one-line log.
fn one(line: &str) -> Record {
    let log = parse(line);
    assert_eq!(log.records.len(), 1, "{line:?}");
    log.records.into_iter().next().expect("one record")
}

fn event(line: &str) -> Event {
    one(line).event
}

fn titles(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.title.as_str()).collect()
}

fn has_topic(findings: &[Finding], topic: &str) -> bool {
    findings.iter().any(|f| f.topic == topic)
}

// ---- prefixes -------------------------------------------------------------------------

#[test]
fn info_prefix_v2_4() {
    // v2.4.8-1 src/misc/utils.cc:63: "%s:%d:%d [%d] NCCL INFO ".
    let r = one("gpu-a:4242:4300 [3] NCCL INFO NET/IB : No device found.");
    assert_eq!(r.level, Level::Info);
    assert_eq!(r.origin.host.as_deref(), Some("gpu-a"));
    assert_eq!(r.origin.pid, Some(4242));
    assert_eq!(r.origin.tid, Some(4300));
    assert_eq!(r.origin.cuda_dev, Some(3));
    assert_eq!(r.event, Event::NoIbDevice);
}

#[test]
fn warn_prefix_has_call_site() {
    // v2.12.12-1 src/debug.cc:147-148: "\n%s:%d:%d [%d] %s:%d NCCL WARN ".
    let log = parse("\ngpu-b:77:78 [1] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.1.0.2<51234> with error 12, opcode 0, len 0, vendor err 129\n");
    assert_eq!(log.records.len(), 2);
    assert_eq!(log.records[0].event, Event::Blank);
    let r = &log.records[1];
    assert_eq!(r.line, 2);
    assert_eq!(r.level, Level::Warn);
    assert_eq!(r.origin.site.as_deref(), Some("transport/net_ib.cc:1198"));
    assert_eq!(r.origin.host.as_deref(), Some("gpu-b"));
    assert_eq!(r.origin.cuda_dev, Some(1));
}

#[test]
fn trace_prefix() {
    // v2.18.3-1 src/debug.cc:181: "%s:%d:%d [%d] %f %s:%d NCCL TRACE ".
    let r = one("gpu-a:10:11 [0] 1532.118207 proxy.cc:812 NCCL TRACE Received new connection");
    assert_eq!(r.level, Level::Trace);
    assert_eq!(r.origin.host.as_deref(), Some("gpu-a"));
    assert_eq!(r.origin.site.as_deref(), Some("proxy.cc:812"));
    assert!(matches!(r.event, Event::Unrecognised { .. }));
}

#[test]
fn call_prefix_v2_29() {
    // v2.29.3-1 src/debug.cc:368 then 384: "%s:%d:%d " then "NCCL CALL %s\n".
    let r = one("gpu-a:10:11 NCCL CALL ncclCommInitRank(0x55d0, 8, 0x1f2e, 0, 0)");
    assert_eq!(r.level, Level::Call);
    assert_eq!(r.origin.host.as_deref(), Some("gpu-a"));
    assert_eq!(r.origin.cuda_dev, None);
}

#[test]
fn timestamped_warn_v2_29() {
    // v2.29.3-1 src/debug.cc:156 and 191 (timestamps on WARN by default, "[%F %T] "), 368, 379.
    let r = one("[2026-12-01 18:02:03] gpu-a:10:11 [2] misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-Ab12Cd to 9637892 bytes, error: No space left on device (28)");
    assert_eq!(r.level, Level::Warn);
    assert_eq!(r.origin.host.as_deref(), Some("gpu-a"));
    assert_eq!(r.origin.cuda_dev, Some(2));
    match r.event {
        Event::ShmError { path, .. } => assert_eq!(path.as_deref(), Some("/dev/shm/nccl-Ab12Cd")),
        e => panic!("{e:?}"),
    }
}

#[test]
fn rank_only_prefix() {
    // The "[rank] NCCL INFO" shape: v2.29.3-1 src/debug.cc:382 without the host part.
    let r = one("[5] NCCL INFO Using network IB");
    assert_eq!(r.level, Level::Info);
    assert_eq!(r.origin.host, None);
    assert_eq!(r.origin.cuda_dev, Some(5));
    assert_eq!(r.event, Event::UsingNetwork { name: "IB".into() });
}

#[test]
fn decorations_in_front_are_skipped() {
    // v2.12.12-1 src/init.cc:78 "Using network %s", behind a Slurm task number, a
    // Kubernetes timestamp, and an issue's indentation with CRLF.
    let text = "0: gpu-a:1:2 [0] NCCL INFO Using network IB\r\n\
                2026-12-01T18:00:00.123456789Z gpu-b:3:4 [1] NCCL INFO Using network IB\r\n    gpu-c:5:6 [2] NCCL INFO Using network IB\r\n";
    let log = parse(text);
    assert_eq!(log.records.len(), 3);
    let hosts: Vec<_> = log
        .records
        .iter()
        .map(|r| r.origin.host.as_deref().unwrap_or("-"))
        .collect();
    assert_eq!(hosts, ["gpu-a", "gpu-b", "gpu-c"]);
    for r in &log.records {
        assert_eq!(r.event, Event::UsingNetwork { name: "IB".into() });
    }
}

#[test]
fn open_mpi_output_tags_are_not_host_names() {
    // mpirun --tag-output puts "[jobid,rank]<stdout>:" in front of every line (Open MPI's
    // mpirun(1)); with no space after it the tag is glued to NCCL's host:pid:tid.
    let text = "[1,26]<stdout>:node-7.cluster:4242:4300 [2] NCCL INFO Using network IB\n\
                [1,3]<stdout>:node-7.cluster:4243:4301 [3] NCCL INFO Using network IB\n\
                [1,40]<stdout>: node-8:99:100 [0] NCCL INFO Using network IB\n";
    let log = parse(text);
    let hosts: Vec<_> = log
        .records
        .iter()
        .map(|r| r.origin.host.as_deref().unwrap_or("-"))
        .collect();
    assert_eq!(hosts, ["node-7.cluster", "node-7.cluster", "node-8"]);
    assert_eq!(log.records[0].origin.pid, Some(4242));
    assert_eq!(log.records[0].origin.cuda_dev, Some(2));
}

#[test]
fn version_banner_bare_and_prefixed() {
    // v2.4.8-1 src/init.cc:299, 303 (printf of VERSION_STRING) and 306 (INFO of it).
    assert_eq!(
        event("NCCL version 2.4.8+cuda10.1"),
        Event::Version {
            nccl: "2.4.8".into(),
            cuda: Some("10.1".into())
        }
    );
    // v2.29.3-1 src/init.cc:632, 638.
    let log = parse("gpu-a:1:2 [0] NCCL INFO NCCL version 2.29.3+cuda13.0\n");
    let s = log.summary();
    assert_eq!(s.nccl_version.as_deref(), Some("2.29.3"));
    assert_eq!(s.cuda_version.as_deref(), Some("13.0"));
    assert_eq!(s.version_lines, [1]);
    // v2.29.3-1 src/dev_runtime.cc:1035: a number, not the banner.
    assert!(matches!(
        event("gpu-a:1:2 [0] dev_runtime.cc:1035 NCCL WARN NCCL library version is too old. This application was compiled with NCCL version 22903, but is running with NCCL library version 21803."),
        Event::Warning { .. }
    ));
}

// ---- Init COMPLETE --------------------------------------------------------------------

#[test]
fn init_complete_v2_4() {
    // v2.4.8-1 src/init.cc:957.
    assert_eq!(
        event("h:1:2 [1] NCCL INFO comm 0x7f3c58001f00 rank 1 nranks 2 cudaDev 1 nvmlDev 1 - Init COMPLETE"),
        Event::InitComplete {
            rank: 1,
            nranks: 2,
            cuda_dev: Some(1),
            nvml_dev: Some(1),
            bus_id: None
        }
    );
}

#[test]
fn init_complete_v2_12() {
    // v2.12.12-1 src/init.cc:917.
    assert_eq!(
        event(
            "h:1:2 [0] NCCL INFO comm 0x55e1 rank 3 nranks 8 cudaDev 3 busId 4f000 - Init COMPLETE"
        ),
        Event::InitComplete {
            rank: 3,
            nranks: 8,
            cuda_dev: Some(3),
            nvml_dev: None,
            bus_id: Some("4f000".into())
        }
    );
}

#[test]
fn init_complete_v2_18_and_v2_29() {
    // v2.18.3-1 src/init.cc:1375.
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO comm 0x55e1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9a8b7c6d5e4f3a2b - Init COMPLETE"),
        Event::InitComplete { rank: 0, nranks: 16, bus_id: Some(ref b), .. } if b == "18000"
    ));
    // v2.29.3-1 src/init.cc:1692 and 1687 (split communicators).
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO ncclCommInitRankConfig comm 0x55e1 rank 7 nranks 16 cudaDev 7 nvmlDev 7 busId db000 commId 0x1122 - Init COMPLETE"),
        Event::InitComplete { rank: 7, nranks: 16, nvml_dev: Some(7), .. }
    ));
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO ncclCommSplit comm 0x55e1 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 2a000 parent 0x44 childCount 1 color 0 key 1 - Init COMPLETE"),
        Event::InitComplete { rank: 1, nranks: 4, .. }
    ));
}

#[test]
fn lines_with_a_rank_and_its_size_place_ranks_on_hosts() {
    // v2.21.5-1 src/bootstrap.cc:395: every rank of a split communicator on one host, and no
    // `Init COMPLETE` in what was pasted: the host ran every rank, so the job is one host.
    let split = |rank: u32| {
        format!("h1:53{rank}:17{rank}0 [{rank}] NCCL INFO bootstrapSplit: comm 0x7f{rank} parent 0x56{rank} rank {rank} nranks 4 color 116666945 key {rank} prev 3 next 1 - DONE\n")
    };
    let text: String = (0..4).map(split).collect();
    assert!(matches!(
        event(&split(2)),
        Event::CommSize {
            rank: Some(2),
            nranks: 4,
            nnodes: None
        }
    ));
    let s = parse(&text).summary();
    assert_eq!(
        (s.nranks, s.nnodes, s.multi_node),
        (Some(4), Some(1), Some(false))
    );
    // v2.3.7-1 src/init.cu:618 and 174, v2.4.2-1 src/init.cu:245: the old INIT lines.
    assert!(matches!(
        event("ta1-0:2668:2780 [0] NCCL INFO rank 0 nranks 2"),
        Event::CommSize {
            rank: Some(0),
            nranks: 2,
            ..
        }
    ));
    assert!(matches!(
        event("h:1:2 [1] NCCL INFO comm 0x7f3c58001f00 rank 1 nranks 2 cudaDev 1 nvmlDev 1"),
        Event::CommSize {
            rank: Some(1),
            nranks: 2,
            ..
        }
    ));
    let text = "ta1-0:2668:2780 [0] NCCL INFO comm 0x7f0a8834b870 rank 0 nranks 2\n\
                ta1-1:2712:2824 [0] NCCL INFO comm 0x7fa94834c010 rank 1 nranks 2\n";
    let s = parse(text).summary();
    assert_eq!(
        (s.nranks, s.nnodes, s.multi_node),
        (Some(2), Some(2), Some(true))
    );
    // A line that only mentions ranks in passing is not one of them.
    assert!(!matches!(
        event("h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1 fell over"),
        Event::CommSize { .. }
    ));
}

// ---- networks -------------------------------------------------------------------------

#[test]
fn net_ib_using_v2_4() {
    // v2.4.8-1 src/transport/net_ib.cc:162-168.
    match event(
        "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB ib0:10.2.0.1<0>",
    ) {
        Event::NetIbUsing { devices, oob } => {
            assert_eq!(devices.len(), 2);
            assert_eq!(devices[0].name, "mlx5_0");
            assert_eq!(devices[0].port, Some(1));
            assert_eq!(devices[0].link, Some(LinkLayer::IB));
            assert_eq!(devices[1].link, Some(LinkLayer::RoCE));
            assert_eq!(oob.as_deref(), Some("ib0:10.2.0.1<0>"));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn net_ib_using_v2_29() {
    // v2.29.3-1 src/transport/net_ib/init.cc:351-357, with and without "[RO]".
    for line in [
        "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_3:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
        "h:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_3:1/RoCE ; OOB eth0:10.0.0.1<0>",
    ] {
        match event(line) {
            Event::NetIbUsing { devices, oob } => {
                assert_eq!(devices.len(), 2, "{line}");
                assert_eq!(devices[1].name, "mlx5_3");
                assert_eq!(devices[1].index, 1);
                assert_eq!(oob.as_deref(), Some("eth0:10.0.0.1<0>"));
            }
            e => panic!("{e:?}"),
        }
    }
}

#[test]
fn net_socket_and_bootstrap() {
    // v2.29.3-1 src/transport/net_socket.cc:73-77.
    match event("h:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:10.9.0.1<0>") {
        Event::NetSocketUsing { devices } => {
            assert_eq!(devices.len(), 2);
            assert_eq!(devices[1].name, "eth1");
            assert_eq!(devices[1].address.as_deref(), Some("10.9.0.1<0>"));
        }
        e => panic!("{e:?}"),
    }
    // v2.4.8-1 src/bootstrap.cc:44-48 (indexed list), v2.12.12-1 src/bootstrap.cc:44-46
    // (one interface), v2.29.3-1 src/bootstrap.cc:135 ("Bootstrap: Using").
    for line in [
        "h:1:2 [0] NCCL INFO Bootstrap : Using [0]eth0:10.0.0.1<0>",
        "h:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
        "h:1:2 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>",
    ] {
        assert_eq!(
            event(line),
            Event::Bootstrap {
                interfaces: vec!["eth0:10.0.0.1<0>".into()]
            },
            "{line}"
        );
    }
}

#[test]
fn net_plugin_lines() {
    // v2.29.3-1 src/plugin/net/net_v10.cc:110; v2.18.3-1 src/net.cc:206.
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v10)"),
        Event::NetPluginLoaded {
            name: "AWS Libfabric".into()
        }
    );
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NET/Plugin: Loaded net plugin IBext_v8 (v5)"),
        Event::NetPluginLoaded {
            name: "IBext_v8".into()
        }
    );
    // v2.4.8-1 src/init.cc:106; v2.12.12-1 src/net.cc:125; v2.18.3-1 src/net.cc:180;
    // v2.29.3-1 src/plugin/plugin_open.cc:107.
    for line in [
        "h:1:2 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
        "h:1:2 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
        "h:1:2 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation",
        "h:1:2 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.",
    ] {
        assert!(
            matches!(event(line), Event::NetPluginNotLoaded { .. }),
            "{line}"
        );
    }
    // v2.29.3-1 src/plugin/net/net_v10.cc:204: CollNet, not the network.
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NET/Plugin: Loaded collnet plugin SHARP (v10)"),
        Event::CollNetMention
    );
}

#[test]
fn libibverbs_missing() {
    // v2.12.12-1 src/misc/ibvwrap.cc:64 (INFO); v2.4.8-1 src/misc/ibvwrap.cc:63 (WARN).
    assert_eq!(
        event("h:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]"),
        Event::NoLibibverbs
    );
    assert_eq!(
        event("h:1:2 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]"),
        Event::NoLibibverbs
    );
}

#[test]
fn gdr_disabled_forms() {
    // v2.4.8-1 src/transport/net_ib.cc:226.
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)"),
        Event::GdrDisabled { no_module: true, .. }
    ));
    // v2.12.12-1 src/transport/net_ib.cc:290 (also v2.5.6-1 line 211).
    assert!(matches!(
        event(
            "h:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)"
        ),
        Event::GdrDisabled {
            no_module: true,
            ..
        }
    ));
    // v2.18.3-1 src/graph/paths.cc:393; v2.29.3-1 src/graph/paths.cc:427-428, 471-472.
    assert!(matches!(
        event(
            "h:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 5 > 3)"
        ),
        Event::GdrDisabled {
            no_module: false,
            ..
        }
    ));
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO GPU Direct RDMA Disabled for GPU/0-1b000 (rank 0) - NET/0-0 (distance 5 > 3)"),
        Event::GdrDisabled { no_module: false, .. }
    ));
    // v2.29.3-1 src/graph/paths.cc:482-483.
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO GPU Direct RDMA Enabled for GPU/0-1b000 (rank 0) - NET/0-0 (distance 3 <= 3, read 1, mode Default)"),
        Event::GdrEnabled { .. }
    ));
}

#[test]
fn env_lines() {
    // v2.29.3-1 src/misc/param.cc:90 ("%s set by environment to %lld.").
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3."),
        Event::EnvSet {
            name: "NCCL_IB_GID_INDEX".into(),
            value: "3".into()
        }
    );
    // v2.4.8-1 src/include/param.h:72 ("%s set by environment to %lu.").
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_IB_TIMEOUT set by environment to 22."),
        Event::EnvSet {
            name: "NCCL_IB_TIMEOUT".into(),
            value: "22".into()
        }
    );
    // v2.29.3-1 src/misc/socket.cc:173 ("%s") and src/graph/paths.cc:225 ("%d").
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0"),
        Event::EnvSet {
            name: "NCCL_SOCKET_IFNAME".into(),
            value: "eth0".into()
        }
    );
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1"),
        Event::EnvSet {
            name: "NCCL_P2P_DISABLE".into(),
            value: "1".into()
        }
    );
}

// ---- channels -------------------------------------------------------------------------

fn chan(line: &str) -> ChannelConnection {
    match event(line) {
        Event::Channel(c) => c,
        e => panic!("{line}: {e:?}"),
    }
}

#[test]
fn channel_net_v2_29() {
    // v2.29.3-1 src/transport/net.cc:316 (send), 320 (send through a proxy rank), 362 (receive).
    let c = chan("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA");
    assert_eq!((c.channel, c.conn_index), (0, Some(0)));
    assert_eq!((c.from.rank, c.to.rank), (0, 8));
    assert_eq!(c.side, Some(Side::Send));
    assert_eq!(c.transport, Transport::NET);
    assert_eq!(c.net.as_deref(), Some("IB"));
    assert!(c.gdr);
    let c = chan(
        "h:1:2 [0] NCCL INFO Channel 03/1 : 1[1] -> 9[1] [send] via NET/IB/1(0)/GDRDMA(PCI)/Shared",
    );
    assert!(c.gdr);
    assert_eq!(c.channel, 3);
    let c = chan("h:1:2 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/Socket/0");
    assert_eq!(c.side, Some(Side::Receive));
    assert_eq!(c.net.as_deref(), Some("Socket"));
    assert!(!c.gdr);
}

#[test]
fn channel_p2p_and_shm_v2_29() {
    // v2.29.3-1 src/transport/p2p.cc:389, 396, 401, 409 and src/transport/shm.cc:129.
    for (line, via) in [
        (
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer/read",
            "P2P/direct pointer/read",
        ),
        (
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
            "P2P/CUMEM/read",
        ),
        (
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
            "P2P/IPC",
        ),
        (
            "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[2] via P2P/indirect/1[1]",
            "P2P/indirect/1[1]",
        ),
    ] {
        let c = chan(line);
        assert_eq!(c.transport, Transport::P2P);
        assert_eq!(c.via, via);
    }
    let c = chan("h:1:2 [0] NCCL INFO Channel 02 : 0[0] -> 1[1] via SHM/direct/direct");
    assert_eq!(c.transport, Transport::SHM);
    assert_eq!((c.channel, c.conn_index), (2, None));
}

#[test]
fn channel_v2_12_bus_ids() {
    // v2.12.12-1 src/transport/p2p.cc:194 and src/transport/net.cc:184.
    let c = chan("h:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via P2P/IPC/read");
    assert_eq!(c.from.device.as_deref(), Some("1a000"));
    assert_eq!(c.transport, Transport::P2P);
    let c = chan("h:1:2 [0] NCCL INFO Channel 00/0 : 3[1a000] -> 4[1a000] [send] via NET/IB/0");
    assert!(!c.gdr);
    assert_eq!(c.to.rank, 4);
}

#[test]
fn channel_v2_4_ring_forms() {
    // v2.4.8-1 src/transport/net.cc:306, 331; src/transport/p2p.cc:479, 504;
    // src/transport/shm.cc:152.
    let c = chan("h:1:2 [0] NCCL INFO Ring 00 : 3 -> 4 [send] via NET/IB/0/GDRDMA");
    assert_eq!(
        (c.from.rank, c.to.rank, c.from.device.clone()),
        (3, 4, None)
    );
    assert!(c.gdr);
    assert_eq!(
        chan("h:1:2 [0] NCCL INFO Ring 01 : 0 -> 1 via P2P/common device").transport,
        Transport::P2P
    );
    assert_eq!(
        chan("h:1:2 [0] NCCL INFO Ring 01 : 0[0] -> 1[1] via P2P/IPC").transport,
        Transport::P2P
    );
    assert_eq!(
        chan("h:1:2 [0] NCCL INFO Ring 00 : 1[1] -> 2[2] via direct shared memory").transport,
        Transport::SHM
    );
}

#[test]
fn topology_lines() {
    // v2.29.3-1 src/graph/rings.cc:47 with dumpLine (lines 9-18); src/init.cc:1274, 1277;
    // src/graph/connect.cc:168; v2.4.8-1 src/init.cc:541.
    for line in [
        "h:1:2 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5 6 7",
        "h:1:2 [0] NCCL INFO Ring 00 : 7 -> 0 -> 1",
        "h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1",
        "h:1:2 [0] NCCL INFO Tree 0 : -1 -> 0 -> 1/-1/-1",
        "h:1:2 [0] NCCL INFO Channel 00 :    0   1",
    ] {
        assert!(matches!(event(line), Event::Topology { .. }), "{line}");
    }
}

#[test]
fn nvls_and_collnet_lines() {
    // v2.29.3-1 src/transport/nvls.cc:201-202, 215, 333; 284 (WARN, first line).
    assert_eq!(
        event(
            "h:1:2 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)"
        ),
        Event::NvlsSupport { available: true }
    );
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NVLS multicast support is not available on dev 0 (NVLS_NCHANNELS 0)"),
        Event::NvlsSupport { available: false }
    );
    assert_eq!(
        event("h:1:2 [0] NCCL INFO Connected NVLS tree"),
        Event::NvlsConnected
    );
    assert!(matches!(
        event("h:1:2 [0] transport/nvls.cc:284 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 801 'operation not supported'."),
        Event::NvlsFailure { .. }
    ));
    // v2.18.3-1 src/transport/coll_net.cc:165.
    assert_eq!(
        event("h:1:2 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA"),
        Event::CollNetMention
    );
}

// ---- IB QPs and errors ----------------------------------------------------------------

#[test]
fn ib_qp_lines() {
    // v2.12.12-1 src/transport/net_ib.cc:622.
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 4711 mtu 5 GID 3 (0/1400000AFFFF0000)"),
        Event::IbQp {
            mtu: Some(5),
            gid_index: Some(3),
            gid_prefix_hex: Some("0".into()),
            gid_interface_hex: Some("1400000AFFFF0000".into()),
            lid_form: false
        }
    );
    // v2.29.3-1 src/transport/net_ib/connect.cc:649 (RoCE) and 644 (IB).
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 4711 mtu 5 GID 0 (80FE/2A3B4CFFFE5D6E7F) ctsFifoRkey=0x1a ctsFifoLkey=0x1b"),
        Event::IbQp { gid_index: Some(0), gid_prefix_hex: Some(ref p), lid_form: false, .. } if p == "80FE"
    ));
    assert!(matches!(
        event("h:1:2 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 4711 mtu 5 LID 12 subnet-prefix 33022  FLID 0 ctsFifoRkey=0x1a ctsFifoLkey=0x1b"),
        Event::IbQp { lid_form: true, .. }
    ));
}

fn wc(line: &str) -> (u32, Option<&'static str>, Option<String>) {
    match event(line) {
        Event::WorkCompletionError {
            status,
            status_name,
            peer,
            ..
        } => (status, status_name, peer),
        e => panic!("{line}: {e:?}"),
    }
}

#[test]
fn completion_error_forms() {
    // v2.4.8-1 src/transport/net_ib.cc:789.
    assert_eq!(
        wc("h:1:2 [0] transport/net_ib.cc:789 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129"),
        (12, Some("IBV_WC_RETRY_EXC_ERR"), None)
    );
    // v2.18.3-1 src/transport/net_ib.cc:1295.
    assert_eq!(
        wc("h:1:2 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40123> with error 5, opcode 0, len 0, vendor err 249 (Recv) localGid ::ffff:10.0.0.1 remoteGid ::ffff:10.0.0.2"),
        (5, Some("IBV_WC_WR_FLUSH_ERR"), Some("10.0.0.2<40123>".into()))
    );
    // v2.29.3-1 src/transport/net_ib/p2p.cc:550.
    assert_eq!(
        wc("h:1:2 [0] transport/net_ib/p2p.cc:550 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<40123> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129  localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0"),
        (12, Some("IBV_WC_RETRY_EXC_ERR"), Some("10.0.0.2<40123>".into()))
    );
    // v2.29.3-1 src/transport/net_ib/gin.cc:522.
    assert_eq!(
        wc("h:1:2 [0] transport/net_ib/gin.cc:522 NCCL WARN NET/IB/GIN: Got completion from peer 10.0.0.2<40123> with status=10 opcode=1 len=0 vendor err 136 (Send) hca mlx5_0").1,
        Some("IBV_WC_REM_ACCESS_ERR")
    );
}

#[test]
fn wc_status_table_matches_verbs_h() {
    // rdma-core v64.0 libibverbs/verbs.h:489-514.
    assert_eq!(wc_status::describe(0).map(|d| d.0), Some("IBV_WC_SUCCESS"));
    assert_eq!(
        wc_status::describe(12),
        Some(("IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"))
    );
    assert_eq!(
        wc_status::describe(23).map(|d| d.0),
        Some("IBV_WC_TM_RNDV_INCOMPLETE")
    );
    assert_eq!(wc_status::describe(24), None);
    assert_eq!(wc_status::number_of("IBV_WC_RNR_RETRY_EXC_ERR"), Some(13));
}

#[test]
fn verbs_call_failures() {
    // v2.29.3-1 src/misc/ibvwrap.cc:307 with the message of line 282.
    match event("h:1:2 [0] misc/ibvwrap.cc:307 NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 0, local GID fe80::2a3b:4cff:fe5d:6e7f, remote GID fe80::2a3b:4cff:fe5d:6e80") {
        Event::ModifyQpFailed { errno, gid_index, local_gid, .. } => {
            assert_eq!(errno, Some(22));
            assert_eq!(gid_index, Some(0));
            assert_eq!(local_gid.as_deref(), Some("fe80::2a3b:4cff:fe5d:6e7f"));
        }
        e => panic!("{e:?}"),
    }
    // v2.29.3-1 src/misc/ibvwrap.cc:40 with the name of line 178.
    assert!(matches!(
        event("h:1:2 [0] misc/ibvwrap.cc:178 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"),
        Event::VerbsCallFailed { ref call, .. } if call == "ibv_reg_mr"
    ));
}

#[test]
fn cuda_and_nccl_errors() {
    // v2.29.3-1 src/include/checks.h:17.
    assert_eq!(
        event("h:1:2 [0] init.cc:411 NCCL WARN Cuda failure 'out of memory'"),
        Event::CudaFailure {
            message: "out of memory".into()
        }
    );
    // v2.29.3-1 src/init.cc:3012, 3015, as an application prints them.
    assert_eq!(
        event("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1207, unhandled system error (run with NCCL_DEBUG=INFO for details)"),
        Event::NcclError {
            result: NcclResult::UnhandledSystemError
        }
    );
    assert_eq!(
        event("ncclRemoteError: remote process exited or there was a network error"),
        Event::NcclError {
            result: NcclResult::RemoteError
        }
    );
}

#[test]
fn shm_error_forms() {
    // v2.18.3-1 src/misc/shmutils.cc:112; v2.4.8-1 src/include/shm.h:48;
    // v2.29.3-1 src/misc/shmutils.cc:73, 98.
    for line in [
        "h:1:2 [0] misc/shmutils.cc:112 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-Qx81Zp (size 9637888)",
        "h:1:2 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-send-1a2b-0-1-0 (size 4460544)",
        "h:1:2 [0] misc/shmutils.cc:73 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-XXXXXX, error Read-only file system (30)",
        "h:1:2 [0] misc/shmutils.cc:98 NCCL WARN Error: Could not map /dev/shm/nccl-Qx81Zp size 9637888, error: Bus error (7)",
    ] {
        assert!(matches!(event(line), Event::ShmError { .. }), "{line}");
    }
}

#[test]
fn unknown_lines_are_kept_with_their_numbers() {
    let text = "hello\n\ngpu-a:1:2 [0] NCCL INFO something NCCL never printed\n[rank0]: Traceback (most recent call last):\n";
    let log = parse(text);
    assert_eq!(log.records.len(), 4);
    assert_eq!(
        log.records.iter().map(|r| r.line).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert!(matches!(log.records[0].event, Event::Unrecognised { ref text } if text == "hello"));
    assert_eq!(log.records[1].event, Event::Blank);
    assert!(
        matches!(log.records[2].event, Event::Unrecognised { ref text } if text == "something NCCL never printed")
    );
    assert_eq!(log.records[2].origin.host.as_deref(), Some("gpu-a"));
    assert!(matches!(log.records[3].event, Event::Unrecognised { .. }));
}

// ---- whole logs -----------------------------------------------------------------------

/// Two hosts, two ranks each, RoCE with GPUDirect RDMA, in v2.29.3-1's formats:
/// src/init.cc:638 (version), src/bootstrap.cc:135, src/plugin/plugin_open.cc:107,
/// src/transport/net_ib/init.cc:357, src/init.cc:451, src/transport/p2p.cc:396,
/// src/transport/net.cc:316 and 362, src/transport/net_ib/connect.cc:649, src/init.cc:1692.
/// The hosts' lines are interleaved as they are when every rank writes to one terminal.
fn roce_two_hosts(gdr: bool) -> String {
    let g = if gdr { "/GDRDMA" } else { "" };
    let a = |pid: u32, dev: u32, msg: &str| {
        format!("node-a:{pid}:{} [{dev}] NCCL INFO {msg}\n", pid + 7)
    };
    let b = |pid: u32, dev: u32, msg: &str| {
        format!("node-b:{pid}:{} [{dev}] NCCL INFO {msg}\n", pid + 7)
    };
    let mut t = String::new();
    t += &a(100, 0, "NCCL version 2.29.3+cuda13.0");
    t += &b(200, 0, "Bootstrap: Using eth0:10.0.0.2<0>");
    t += &a(100, 0, "Bootstrap: Using eth0:10.0.0.1<0>");
    t += &a(101, 1, "NET/Plugin: Could not find: libnccl-net.so.");
    t += &b(200, 0, "NET/Plugin: Could not find: libnccl-net.so.");
    t += &a(
        100,
        0,
        "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
    );
    t += &b(
        200,
        0,
        "NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.2<0>",
    );
    t += &a(100, 0, "Using network IB");
    t += &b(201, 1, "Using network IB");
    t += &a(100, 0, "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read");
    t += &b(200, 0, "Channel 00/0 : 2[0] -> 3[1] via P2P/CUMEM/read");
    t += &a(
        101,
        1,
        &format!("Channel 00/0 : 1[1] -> 2[0] [send] via NET/IB/0{g}"),
    );
    t += &b(
        200,
        0,
        &format!("Channel 00/0 : 1[1] -> 2[0] [receive] via NET/IB/0{g}"),
    );
    t += &b(
        201,
        1,
        &format!("Channel 00/0 : 3[1] -> 0[0] [send] via NET/IB/0{g}"),
    );
    t += &a(
        100,
        0,
        &format!("Channel 00/0 : 3[1] -> 0[0] [receive] via NET/IB/0{g}"),
    );
    t += &a(101, 1, "NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 301 mtu 5 GID 3 (0/100000AFFFF0000) ctsFifoRkey=0x1 ctsFifoLkey=0x2");
    for (rank, host, pid, dev, bus) in [
        (0, "a", 100, 0, "18000"),
        (1, "a", 101, 1, "2a000"),
        (2, "b", 200, 0, "18000"),
        (3, "b", 201, 1, "2a000"),
    ] {
        let line = format!("ncclCommInitRankConfig comm 0x55e1 rank {rank} nranks 4 cudaDev {dev} nvmlDev {dev} busId {bus} commId 0x77 - Init COMPLETE");
        t += &if host == "a" {
            a(pid, dev, &line)
        } else {
            b(pid, dev, &line)
        };
    }
    t
}

#[test]
fn summary_of_interleaved_two_host_log() {
    let s = parse(&roce_two_hosts(true)).summary();
    assert_eq!(s.nccl_version.as_deref(), Some("2.29.3"));
    assert_eq!(s.nranks, Some(4));
    assert_eq!(s.nnodes, Some(2));
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::RoCE));
    assert_eq!(s.gdr_used, Some(true));
    assert_eq!(
        s.intra_node.iter().copied().collect::<Vec<_>>(),
        [IntraNodeTransport::P2P]
    );
    let hosts: Vec<_> = s
        .ranks
        .iter()
        .map(|r| r.host.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(hosts, ["node-a", "node-a", "node-b", "node-b"]);
    let local: Vec<_> = s.ranks.iter().map(|r| r.local_rank).collect();
    assert_eq!(local, [Some(0), Some(1), Some(0), Some(1)]);
    assert_eq!(s.ranks[1].bus_id.as_deref(), Some("2a000"));
    assert_eq!(s.ranks[3].cuda_dev, Some(1));
    // Send and receive lines of one connection: 2 P2P + 2 NET (the send and receive lines
    // differ only in what each side logged, so they merge when the `via` text agrees).
    assert_eq!(s.channels.len(), 4);
    let net: Vec<_> = s
        .channels
        .iter()
        .filter(|c| c.transport == Transport::NET)
        .collect();
    assert!(net
        .iter()
        .all(|c| c.inter_node == Some(true) && c.lines.len() == 2));
    assert_eq!(s.hosts.len(), 2);
    assert_eq!(s.hosts[0].bootstrap, ["eth0:10.0.0.1<0>"]);
    assert_eq!(s.hosts[1].ib_devices[0].link, Some(LinkLayer::RoCE));
    assert_eq!(s.hosts[0].gid_indexes, [3]);
    assert!(s.hosts[1].gid_indexes.is_empty());
    let f = diagnose(&parse(&roce_two_hosts(true)));
    assert_eq!(titles(&f), ["No problem found"]);
    assert_eq!(f[0].severity, Severity::Info);
}

#[test]
fn summary_json_names() {
    let s = parse(&roce_two_hosts(true)).summary();
    let v = serde_json::to_value(&s).expect("serialize");
    for key in [
        "nccl_version",
        "cuda_version",
        "nranks",
        "nnodes",
        "inter_node_transport",
        "gdr_used",
        "intra_node",
        "env",
        "channels",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["inter_node_transport"], "RoCE");
    assert_eq!(v["intra_node"], serde_json::json!(["P2P"]));
    let f = serde_json::to_value(diagnose(&parse(&roce_two_hosts(false)))).expect("serialize");
    let first = &f[0];
    for key in ["severity", "title", "explanation", "lines", "topic"] {
        assert!(first.get(key).is_some(), "{key}");
    }
    assert_eq!(first["severity"], "warning");
    // One host that ran every rank: "none". A lone P2P line from one host says nothing of
    // other hosts: null, not "none".
    let one = parse(
        "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n\
         h:1:3 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 2000 - Init COMPLETE\n\
         h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n",
    )
    .summary();
    assert_eq!(
        serde_json::to_value(one).expect("json")["inter_node_transport"],
        "none"
    );
    let fragment = parse("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n").summary();
    assert!(serde_json::to_value(&fragment).expect("json")["inter_node_transport"].is_null());
    assert_eq!((fragment.nnodes, fragment.multi_node), (None, None));
    let empty = serde_json::to_value(parse("").summary()).expect("json");
    assert!(empty["inter_node_transport"].is_null());
    assert!(serde_json::to_value(parse(&roce_two_hosts(true))).is_ok());
}

#[test]
fn gdr_not_used_fires_and_does_not() {
    let f = diagnose(&parse(&roce_two_hosts(false)));
    assert!(
        has_topic(&f, "/troubleshooting#gpudirect-rdma-not-used"),
        "{f:?}"
    );
    assert!(!titles(&f).contains(&"No problem found"));
    let s = parse(&roce_two_hosts(false)).summary();
    assert_eq!(s.gdr_used, Some(false));
    let f = diagnose(&parse(&roce_two_hosts(true)));
    assert!(!has_topic(&f, "/troubleshooting#gpudirect-rdma-not-used"));
}

#[test]
fn gdr_no_module_on_old_nccl_names_nvidia_peermem() {
    // v2.9.6-1: banner (src/init.cc VERSION_STRING), src/transport/net_ib.cc:240
    // ("(no module)"), src/transport/net.cc Channel format as at v2.12.12-1 line 184.
    let text = "a:1:2 [0] NCCL INFO NCCL version 2.9.6+cuda11.3\n\
                a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n\
                a:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1a000] [send] via NET/IB/0\n\
                b:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1a000] [receive] via NET/IB/0\n";
    let f = diagnose(&parse(text));
    let g = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#gpudirect-rdma-not-used")
        .expect("GDR finding");
    assert!(
        g.explanation.contains("nvidia-peermem"),
        "{}",
        g.explanation
    );
    assert!(g.explanation.contains("2.9.8"));
    assert!(g.lines.contains(&2));
    // Newer NCCL: the advice is to load the module, not to upgrade.
    let newer = text.replace("2.9.6", "2.12.12");
    let f = diagnose(&parse(&newer));
    let g = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#gpudirect-rdma-not-used")
        .expect("GDR finding");
    assert!(g.explanation.contains("modprobe nvidia-peermem"));
    assert!(!g.explanation.contains("2.9.8 or later"));
    // One host: the init-time check is printed, but no data crosses a network.
    let one_host = "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n\
                    a:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via P2P/IPC\n\
                    a:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n\
                    a:1:3 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 busId 1b000 - Init COMPLETE\n";
    assert_eq!(titles(&diagnose(&parse(one_host))), ["No problem found"]);
}

#[test]
fn sockets_fallback_with_reason() {
    // v2.18.3-1 src/misc/ibvsymbols.cc:78, src/transport/net_ib.cc:252,
    // src/transport/net_socket.cc:62, src/init.cc:310, src/transport/net.cc:186 and 227.
    let text = "n1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]\n\
                n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
                n1:1:2 [0] NCCL INFO Using network Socket\n\
                n1:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
                n2:3:4 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
                n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n";
    let log = parse(text);
    let s = log.summary();
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::Socket));
    assert_eq!(s.gdr_used, Some(false));
    let f = diagnose(&log);
    let sock = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#nccl-falls-back-to-sockets")
        .expect("socket finding");
    assert!(sock.explanation.contains("libibverbs"));
    assert!(sock.lines.contains(&1) && sock.lines.contains(&6));
    // Sockets imply no GDR; the GDR rule stays quiet rather than repeat it.
    assert!(!has_topic(&f, "/troubleshooting#gpudirect-rdma-not-used"));

    // v2.4.8-1 src/transport/net_ib.cc:158: no device.
    let text = "n1:1:2 [0] NCCL INFO NET/IB : No device found.\n\
                n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
                n1:1:2 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0\n";
    let f = diagnose(&parse(text));
    let sock = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#nccl-falls-back-to-sockets")
        .expect("socket finding");
    assert!(sock.explanation.contains("No device found"));
    // Not fired for IB.
    assert!(!has_topic(
        &diagnose(&parse(&roce_two_hosts(true))),
        "/troubleshooting#nccl-falls-back-to-sockets"
    ));
    // One host that finds no IB device does not need it.
    let text = "n1:1:2 [0] NCCL INFO NET/IB : No device found.\n\
                n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
                n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n\
                n1:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1 commId 0x5 - Init COMPLETE\n\
                n1:1:3 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 2 commId 0x5 - Init COMPLETE\n";
    let f = diagnose(&parse(text));
    assert_eq!(titles(&f), ["No problem found"]);
    // Only `Using network Socket` from one host, no second host in sight (v2.19 formats, as
    // single-host jobs print it): said, not warned.
    let text = "h1:531:1762 [0] NCCL INFO Using network Socket\n\
                h1:532:1764 [1] NCCL INFO Using network Socket\n";
    let f = diagnose(&parse(text));
    let sock = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#nccl-falls-back-to-sockets")
        .expect("socket finding");
    assert_eq!(sock.severity, Severity::Info);
    assert!(
        sock.explanation.contains("no second host"),
        "{}",
        sock.explanation
    );
}

#[test]
fn roce_link_local_gid() {
    // v2.29.3-1 src/transport/net_ib/connect.cc:649 with a fe80:: GID (subnet prefix printed
    // byte-swapped on x86, see IbQp) and src/misc/param.cc:90.
    let text = roce_two_hosts(true)
        .replace("GID 3 (0/100000AFFFF0000)", "GID 0 (80FE/2A3B4CFFFE5D6E7F)")
        + "node-a:101:108 [1] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.\n";
    let f = diagnose(&parse(&text));
    let g = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#roce-gid-index-wrong")
        .expect("gid finding");
    assert!(g.explanation.contains("NCCL_IB_GID_INDEX is set to 0"));
    // An IPv4-mapped GID is fine.
    assert!(!has_topic(
        &diagnose(&parse(&roce_two_hosts(true))),
        "/troubleshooting#roce-gid-index-wrong"
    ));
    // On InfiniBand fe80:: is the normal subnet prefix (v2.12.12-1 net_ib.cc:622 prints GID
    // for IB too).
    let ib = "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.2.0.1<0>\n\
              a:1:2 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 4711 mtu 5 GID 0 (80FE/2A3B4CFFFE5D6E7F)\n";
    assert!(!has_topic(
        &diagnose(&parse(ib)),
        "/troubleshooting#roce-gid-index-wrong"
    ));
    // A modify_qp failure naming a link-local GID fires both rules.
    let text = "a:1:2 [0] misc/ibvwrap.cc:307 NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 0, local GID fe80::2a3b:4cff:fe5d:6e7f, remote GID fe80::2a3b:4cff:fe5d:6e80\n";
    let f = diagnose(&parse(text));
    assert!(has_topic(&f, "/troubleshooting#roce-gid-index-wrong"));
    assert!(has_topic(
        &f,
        "/troubleshooting#qp-stuck-in-init-or-rtr-einval"
    ));
}

#[test]
fn retry_exceeded_and_flush() {
    // v2.29.3-1 src/transport/net_ib/p2p.cc:550, statuses 12 then 5.
    let text = roce_two_hosts(true)
        + "\nnode-a:101:108 [1] transport/net_ib/p2p.cc:550 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<40123> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=129  localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n\
           \nnode-a:101:108 [1] transport/net_ib/p2p.cc:550 NCCL WARN NET/IB: Got completion from peer 10.0.0.2<40123> with status=IBV_WC_WR_FLUSH_ERR(5) opcode=IBV_WC_RDMA_WRITE(1) vendor_err=249  localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n";
    let log = parse(&text);
    let f = diagnose(&log);
    let retry = f
        .iter()
        .find(|f| f.title.contains("IBV_WC_RETRY_EXC_ERR"))
        .expect("retry");
    assert_eq!(retry.severity, Severity::Error);
    assert_eq!(retry.topic, "/troubleshooting#retry-exceeded");
    let retry_line = log
        .records
        .iter()
        .find(|r| matches!(r.event, Event::WorkCompletionError { status: 12, .. }))
        .map(|r| r.line)
        .expect("line");
    assert_eq!(retry.lines, [retry_line]);
    let flush = f
        .iter()
        .find(|f| f.title.contains("IBV_WC_WR_FLUSH_ERR"))
        .expect("flush");
    assert!(flush.explanation.contains("first non-flush error"));
    assert!(!titles(&f).contains(&"No problem found"));
    // A flush alone points elsewhere.
    let only_flush = "a:1:2 [0] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 5, opcode 0, len 0, vendor err 249\n";
    let f = diagnose(&parse(only_flush));
    assert_eq!(f[0].topic, "/troubleshooting#work-requests-flushed");
    // Another status gets its libibverbs name.
    let other = "a:1:2 [0] transport/net_ib.cc:1198 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 10, opcode 0, len 0, vendor err 136\n";
    let f = diagnose(&parse(other));
    assert!(f[0].title.contains("IBV_WC_REM_ACCESS_ERR"));
    assert!(f[0].explanation.contains("remote access error"));
}

#[test]
fn memory_registration_failure() {
    // v2.29.3-1 src/misc/ibvwrap.cc:40 and 178.
    let f = diagnose(&parse("a:1:2 [0] misc/ibvwrap.cc:178 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"));
    assert!(has_topic(
        &f,
        "/troubleshooting#memory-registration-fails-memlock-too-small"
    ));
    assert!(!has_topic(
        &diagnose(&parse(&roce_two_hosts(true))),
        "/troubleshooting#memory-registration-fails-memlock-too-small"
    ));
}

#[test]
fn nvls_failure_rule() {
    // v2.29.3-1 src/transport/nvls.cc:284; the message's own "\n"s make three lines.
    let text = "\na:1:2 [0] transport/nvls.cc:284 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 801 'operation not supported'.\n\
                This is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\n\
                Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future.\n";
    let log = parse(text);
    assert_eq!(log.records.len(), 4);
    let f = diagnose(&log);
    let n = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#nvls-setup-fails")
        .expect("nvls");
    assert_eq!(n.lines, [2]);
    // NVLS that connected is not a failure, and counts as intra-node NVLS.
    let ok =
        "a:1:2 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)\n\
              a:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n\
              a:1:2 [0] NCCL INFO Connected NVLS tree\n\
              a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
    let log = parse(ok);
    assert!(log.summary().intra_node.contains(&IntraNodeTransport::NVLS));
    assert_eq!(titles(&diagnose(&log)), ["No problem found"]);
}

#[test]
fn dev_shm_rule() {
    // v2.29.3-1 src/misc/shmutils.cc:87.
    let text = "\na:1:2 [0] misc/shmutils.cc:87 NCCL WARN Error: failed to extend /dev/shm/nccl-Ab12Cd to 9637892 bytes, error: No space left on device (28)\n";
    let f = diagnose(&parse(text));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].topic, "/troubleshooting#dev-shm-too-small");
    assert_eq!(f[0].lines, [2]);
    assert!(!has_topic(
        &diagnose(&parse(&roce_two_hosts(true))),
        "/troubleshooting#dev-shm-too-small"
    ));
}

#[test]
fn plugin_on_some_hosts_only() {
    // v2.29.3-1 src/plugin/net/net_v10.cc:110 on node-a; node-b keeps plugin_open.cc:107.
    let text = roce_two_hosts(true).replacen(
        "node-a:101:108 [1] NCCL INFO NET/Plugin: Could not find: libnccl-net.so.",
        "node-a:101:108 [1] NCCL INFO NET/Plugin: Loaded net plugin IBext_v10 (v10)",
        1,
    );
    let f = diagnose(&parse(&text));
    let p = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#net-plugin-on-some-hosts-only")
        .expect("plugin");
    assert!(p.explanation.contains("node-a") && p.explanation.contains("node-b"));
    assert!(!has_topic(
        &diagnose(&parse(&roce_two_hosts(true))),
        "/troubleshooting#net-plugin-on-some-hosts-only"
    ));
}

#[test]
fn p2p_disabled_rule() {
    // v2.29.3-1 src/graph/paths.cc:225 and src/transport/shm.cc:129.
    let text = "a:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n\
                a:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n";
    let f = diagnose(&parse(text));
    assert!(has_topic(&f, "/troubleshooting#p2p-disabled"));
    assert!(!titles(&f).contains(&"No problem found"));
    // SHM without the variable (e.g. GPUs that cannot reach each other) is not this rule.
    let f = diagnose(&parse(
        "a:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n",
    ));
    assert!(!has_topic(&f, "/troubleshooting#p2p-disabled"));
}

#[test]
fn error_results_and_cuda_failure() {
    // v2.12.12-1 src/misc/socket.cc:450, then an application printing v2.29.3-1 src/init.cc:3012.
    let text = "\na:1:2 [0] misc/socket.cc:450 NCCL WARN Net : Connect to 10.0.0.2<43551> failed : Connection refused\n\
                RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n";
    let f = diagnose(&parse(text));
    let e = f
        .iter()
        .find(|f| f.topic == "/troubleshooting#nccl-error-results")
        .expect("error result");
    // The earlier WARN is named too: that is where the cause is.
    assert_eq!(e.lines, [2, 3]);
    assert!(has_topic(&f, "/troubleshooting#socket-connection-fails"));
    let f = diagnose(&parse(
        "a:1:2 [0] init.cc:411 NCCL WARN Cuda failure 'out of memory'\n",
    ));
    assert!(has_topic(&f, "/troubleshooting#cuda-failure"));
}

#[test]
fn socket_failure_forms() {
    // v2.29.3-1 src/os/linux.cc:213 with strerror(ETIMEDOUT); v2.18.3-1
    // src/misc/socket.cc:475; v2.29.3-1 src/misc/socket.cc:34; v2.4.8-1 src/include/socket.h:390.
    let text = "\na:1:2 [0] os/linux.cc:213 NCCL WARN ncclSocketConnect: connect to 10.0.0.2<43551> failed : Connection timed out\n\
                \na:1:2 [0] misc/socket.cc:475 NCCL WARN socketStartConnect: exceeded timeouts (20)\n\
                \na:1:2 [0] misc/socket.cc:34 NCCL WARN socketProgress: Connection closed by remote peer node-b<51122>\n\
                \na:1:2 [0] include/socket.h:390 NCCL WARN Connect to 10.0.0.2<43551> failed : No route to host\n";
    let log = parse(text);
    let kinds: Vec<(bool, bool)> = log
        .records
        .iter()
        .filter_map(|r| match r.event {
            Event::SocketFailure {
                timed_out,
                closed_by_peer,
                ..
            } => Some((timed_out, closed_by_peer)),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [(true, false), (true, false), (false, true), (false, false)]
    );
    let f = diagnose(&log);
    assert_eq!(f.len(), 3, "{f:?}");
    assert_eq!(f[0].lines, [2, 4]);
    assert!(f
        .iter()
        .all(|f| f.topic == "/troubleshooting#socket-connection-fails"));
    // The INFO retry line (v2.29.3-1 src/os/linux.cc:204) is not a failure.
    let retry = "a:1:2 [0] NCCL INFO ncclSocketConnect: connect to 10.0.0.2<43551> returned Connection refused, retrying (1/34) after sleep for 100 msec\n";
    assert!(diagnose(&parse(retry)).is_empty());
}

#[test]
fn healthy_needs_evidence() {
    // Nothing to judge: no finding at all, and in particular no "no problem found".
    assert!(diagnose(&parse("")).is_empty());
    assert!(diagnose(&parse("some unrelated text\n")).is_empty());
    // Two hosts over IB without channel lines: not enough to call healthy.
    let f = diagnose(&parse(
        "a:1:2 [0] NCCL INFO Using network IB\nb:1:2 [0] NCCL INFO Using network IB\n",
    ));
    assert!(f.is_empty(), "{f:?}");
}

// ---- size and robustness ----------------------------------------------------------------

#[test]
fn hundred_thousand_lines_parse_in_one_pass() {
    // 100 000 lines, a tenth of them each of ten formats above; the count of each kind
    // shows every line was read once, and the summary merges the repeated channels.
    let kinds = [
        "NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "NCCL INFO Channel 01/0 : 1[1] -> 2[0] [send] via NET/IB/0/GDRDMA",
        "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>",
        "NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>",
        "NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
        "NCCL INFO Trees [0] 1/-1/-1->0->-1",
        "NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE",
        "NCCL INFO NCCL version 2.29.3+cuda13.0",
        "NCCL INFO something else",
        "",
    ];
    let mut text = String::new();
    for i in 0..100_000 {
        let host = if i % 3 == 0 { "node-a" } else { "node-b" };
        let k = kinds[i % kinds.len()];
        if k.is_empty() {
            text.push_str("\r\n");
        } else {
            text.push_str(&format!(
                "{host}:{}:{} [{}] {k}\r\n",
                100 + i % 4,
                200 + i % 4,
                i % 4
            ));
        }
    }
    let log = parse(&text);
    assert_eq!(log.records.len(), 100_000);
    assert_eq!(log.summary().topology_lines.len(), 10_000);
    let count = |f: fn(&Event) -> bool| log.records.iter().filter(|r| f(&r.event)).count();
    assert_eq!(count(|e| matches!(e, Event::Channel(_))), 20_000);
    assert_eq!(count(|e| matches!(e, Event::NetIbUsing { .. })), 10_000);
    assert_eq!(count(|e| matches!(e, Event::InitComplete { .. })), 10_000);
    assert_eq!(count(|e| matches!(e, Event::Unrecognised { .. })), 10_000);
    assert_eq!(count(|e| matches!(e, Event::Blank)), 10_000);
    let s = log.summary();
    assert_eq!(s.channels.len(), 2);
    assert_eq!(
        s.channels.iter().map(|c| c.lines.len()).sum::<usize>(),
        20_000
    );
    assert_eq!(s.env.len(), 1);
    let f = diagnose(&log);
    assert!(f.iter().all(|f| f.lines.len() <= 32));
}

/// Pieces of NCCL lines, to reach the readers more often than random text does.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("NCCL INFO ".to_string()),
        Just("NCCL WARN ".to_string()),
        Just("NCCL TRACE ".to_string()),
        Just("h:1:2 [0] ".to_string()),
        Just("Channel 00/0 : ".to_string()),
        Just("0[0] -> 1[1] ".to_string()),
        Just("[send] via NET/".to_string()),
        Just(" via ".to_string()),
        Just("NET/IB : Using [0]".to_string()),
        Just("mlx5_0:1/RoCE ; OOB ".to_string()),
        Just("Got completion from peer ".to_string()),
        Just("with error ".to_string()),
        Just("status=".to_string()),
        Just("IBV_WC_RETRY_EXC_ERR(".to_string()),
        Just("NCCL version ".to_string()),
        Just("+cuda".to_string()),
        Just(" set by environment to ".to_string()),
        Just("NCCL_P2P_DISABLE".to_string()),
        Just(" rank ".to_string()),
        Just(" nranks ".to_string()),
        Just(" - Init COMPLETE".to_string()),
        Just("Call to ibv_modify_qp failed with ".to_string()),
        Just("local GID ".to_string()),
        Just(" GID ".to_string()),
        Just(" qpn ".to_string()),
        Just("NET/IB: ".to_string()),
        Just("(80FE/".to_string()),
        Just("/dev/shm/".to_string()),
        Just("NVLS".to_string()),
        Just("NET/Plugin: Loaded net plugin ".to_string()),
        Just(" (v".to_string()),
        Just("Bootstrap : Using".to_string()),
        Just("\r\n".to_string()),
        Just("\n".to_string()),
        "[0-9]{1,22}",
        "[ -~]{0,12}",
        ".{0,6}",
    ]
}

proptest! {
    #[test]
    fn any_text_never_panics(text in ".{0,400}") {
        let log = parse(&text);
        prop_assert_eq!(log.records.len(), text.lines().count());
        let _ = diagnose(&log);
        let _ = serde_json::to_string(&log.summary());
    }

    #[test]
    fn nccl_like_text_never_panics(parts in prop::collection::vec(fragment(), 0..60)) {
        let text: String = parts.concat();
        let log = parse(&text);
        prop_assert_eq!(log.records.len(), text.lines().count());
        for (i, r) in log.records.iter().enumerate() {
            prop_assert_eq!(r.line, i + 1);
        }
        let _ = diagnose(&log);
        let _ = serde_json::to_string(&log);
    }
}

#[test]
fn socket_retries_exhausted_is_a_socket_failure() {
    // v2.29.3-1 src/os/linux.cc:199.
    let text = "n1:1:2 [0] misc/socket.cc:50 NCCL WARN socketStartConnect: connect to \
                10.0.0.2<43127> returned Connection refused, exceeded error retry count after 35 attempts\n";
    let log = parse(text);
    assert!(matches!(
        log.records[0].event,
        Event::SocketFailure {
            timed_out: false,
            ..
        }
    ));
    assert!(has_topic(
        &diagnose(&log),
        "/troubleshooting#socket-connection-fails"
    ));
}

#[test]
fn every_topic_link_in_the_rules_is_listed() {
    // TOPICS is what the app's content rules check; a link written into a rule but left out
    // of it would escape that check.
    let source = include_str!("diagnose.rs");
    for literal in source
        .split('"')
        .filter(|s| s.starts_with("/troubleshooting"))
    {
        assert!(
            super::diagnose::TOPICS.contains(&literal),
            "{literal} is not in TOPICS"
        );
    }
}

proptest! {
    #[test]
    fn reading_in_slices_is_parsing_the_whole(
        text in "([a-z0-9:\\[\\] ]{0,20}(NCCL INFO|NCCL WARN)?[ a-zA-Z/]{0,20}(\r?\n)?){0,40}",
        slice in 1usize..7,
    ) {
        let mut reader = LogReader::new();
        let mut steps = 0;
        while !reader.step(&text, slice) {
            steps += 1;
            prop_assert!(steps <= text.len() + 1, "the reader makes progress");
        }
        prop_assert_eq!(reader.finish(), parse(&text));
    }
}

// ---- a whole job: NICs per host, path MTU, GID index, routine lines ---------------------

/// What [`roce_job`] varies.
struct Job {
    /// Ranks (GPUs) on each of the two hosts.
    gpn: u32,
    /// RDMA devices in each host's `NET/IB : Using` list; local rank `l` sends and receives
    /// through device `l % nics`, as NCCL pairs each GPU with its nearest NIC.
    nics: u32,
    /// The `mtu %d` of the QP lines: `enum ibv_mtu`, 3 = 1024 bytes, 5 = 4096.
    mtu: u32,
    /// The `GID %ld (%lX/%lX)` of the QP lines: index and subnet prefix as printed.
    gid: (u32, &'static str),
    /// Extra lines every rank prints after `Bootstrap: Using`, such as the environment's.
    env: &'static [&'static str],
}

/// Two DGX-like hosts of 8 GPUs and 8 RoCE NICs, GPUDirect RDMA, path MTU 4096 and the
/// RoCE v2 IPv4 GID at index 3.
const HEALTHY: Job = Job {
    gpn: 8,
    nics: 8,
    mtu: 5,
    gid: (3, "0"),
    env: &[],
};

/// A whole `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV` log of a job on two hosts, in
/// NVIDIA/nccl v2.29.3-1's formats, every rank in turn: src/misc/cudawrap.cc:273
/// (`cudaDriverVersion`), src/bootstrap.cc:135, src/init.cc:638 (version, rank 0 only),
/// src/plugin/plugin_open.cc:107 (the `NET`, `TUNER` and `PROFILER` plugins not found),
/// src/transport/net_ib/init.cc:357 (`NET/IB : Using`), src/init.cc:451 (`Using network`),
/// src/init.cc:1664 (`Init START`), src/init.cc:1220 (`nNodes`), src/init.cc:390 (DMA-BUF),
/// src/transport.cc:112 (`Check P2P Type`), src/init.cc:769 (`P2P Chunksize`),
/// src/init.cc:1277 (`Trees`), src/transport/p2p.cc:396 (P2P channels, channel 0),
/// src/transport/net.cc:316 and 362 (one NET channel each way per local rank, as rings
/// that cross between the hosts at that rank), src/transport/net_ib/connect.cc:649 (the
/// QP line of each send), src/transport/generic.cc:39 and 58 (`Connected all ...`),
/// src/graph/tuning.cc:566 (`threadThresholds`), src/init.cc:1419 (channel counts),
/// src/init.cc:575 (`CC Off`), src/proxy.cc:1621 and 947 (proxy threads), src/init.cc:1692
/// (`Init COMPLETE`) and 1698 (`Init timings`). Host names, pids, bus ids and addresses
/// are made up.
fn roce_job(job: &Job) -> String {
    let hosts = ["node-a", "node-b"];
    let n = 2 * job.gpn;
    let line = |h: usize, l: u32, msg: &str| {
        let pid = 100 * (h as u32 + 1) + l;
        format!("{}:{pid}:{} [{l}] NCCL INFO {msg}\n", hosts[h], pid + 7)
    };
    let rank = |h: usize, l: u32| h as u32 * job.gpn + l;
    let nic = |l: u32| l % job.nics;
    let using: String = (0..job.nics)
        .map(|d| format!("[{d}]mlx5_{d}:1/RoCE "))
        .collect();
    let mut t = String::new();
    for h in 0..2 {
        for l in 0..job.gpn {
            let r = rank(h, l);
            t += &line(h, l, "cudaDriverVersion 13000");
            t += &line(h, l, &format!("Bootstrap: Using eth0:10.0.0.{}<0>", h + 1));
            if r == 0 {
                t += &line(h, l, "NCCL version 2.29.3+cuda13.0");
            }
            for e in job.env {
                t += &line(h, l, e);
            }
            t += &line(h, l, "NET/Plugin: Could not find: libnccl-net.so.");
            t += &line(
                h,
                l,
                &format!("NET/IB : Using {using}[RO]; OOB eth0:10.0.0.{}<0>", h + 1),
            );
            t += &line(h, l, "Using network IB");
            t += &line(h, l, "TUNER/Plugin: Could not find: libnccl-tuner.so.");
            t += &line(
                h,
                l,
                "PROFILER/Plugin: Could not find: libnccl-profiler.so.",
            );
            t += &line(h, l, &format!("[Rank {r}] ncclCommInitRankConfig comm 0x55e1{r:02x} rank {r} nranks {n} cudaDev {l} nvmlDev {l} busId {}000 commId 0x77 - Init START", 18 + l));
            t += &line(h, l, &format!("comm 0x55e1{r:02x} rank {r} nRanks {n} nNodes 2 localRanks {} localRank {l} MNNVL 0", job.gpn));
            t += &line(h, l, &format!("DMA-BUF is available on GPU device {l}"));
            t += &line(
                h,
                l,
                "Check P2P Type isAllDirectP2p 1 directMode 0 isAllCudaP2p 1",
            );
            t += &line(h, l, "P2P Chunksize set to 524288");
            t += &line(h, l, &format!("Trees [0] {}/-1/-1->{r}->-1", (r + 1) % n));
            if l + 1 < job.gpn {
                t += &line(
                    h,
                    l,
                    &format!(
                        "Channel 00/0 : {r}[{l}] -> {}[{}] via P2P/CUMEM/read",
                        r + 1,
                        l + 1
                    ),
                );
            }
        }
    }
    for l in 0..job.gpn {
        let (a, b) = (rank(0, l), rank(1, l));
        let d = nic(l);
        for (h, from, to) in [(0, a, b), (1, b, a)] {
            let other = 1 - h;
            t += &line(
                h,
                l,
                &format!(
                    "Channel {l:02}/0 : {from}[{l}] -> {to}[{l}] [send] via NET/IB/{d}/GDRDMA"
                ),
            );
            t += &line(
                other,
                l,
                &format!(
                    "Channel {l:02}/0 : {from}[{l}] -> {to}[{l}] [receive] via NET/IB/{d}/GDRDMA"
                ),
            );
            t += &line(h, l, &format!(
                "NET/IB: NCCL Dev {d} IbDev {d} Port 1 qpn {} mtu {} GID {} ({}/{}00000AFFFF0000) ctsFifoRkey=0x1a ctsFifoLkey=0x1b",
                4660 + from, job.mtu, job.gid.0, job.gid.1, h + 1
            ));
        }
    }
    for h in 0..2 {
        for l in 0..job.gpn {
            let r = rank(h, l);
            t += &line(h, l, "Connected all rings, use ring PXN 0 GDR 1");
            t += &line(h, l, "Connected all trees");
            t += &line(h, l, "threadThresholds 8/8/64 | 128/8/64 | 512 | 512");
            t += &line(h, l, &format!("{} coll channels, {} collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer", job.gpn, job.gpn));
            t += &line(h, l, "CC Off, workFifoBytes 1048576");
            t += &line(
                h,
                l,
                &format!("[Proxy Service] Device {l} CPU core {}", 10 + l),
            );
            t += &line(
                h,
                l,
                &format!("[Proxy Progress] Device {l} CPU core {}", 20 + l),
            );
            t += &line(h, l, &format!("ncclCommInitRankConfig comm 0x55e1{r:02x} rank {r} nranks {n} cudaDev {l} nvmlDev {l} busId {}000 commId 0x77 - Init COMPLETE", 18 + l));
            t += &line(h, l, &format!("Init timings - ncclCommInitRankConfig: rank {r} nranks {n} total 0.95 (kernels 0.12, alloc 0.05, bootstrap 0.02, allgathers 0.01, topo 0.31, graphs 0.02, connections 0.37, rest 0.05)"));
        }
    }
    t
}

/// The finding that links to `topic`.
fn finding<'a>(findings: &'a [Finding], topic: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.topic == topic)
        .unwrap_or_else(|| panic!("no finding at {topic}: {:?}", titles(findings)))
}

#[test]
fn a_healthy_job_is_healthy_and_every_line_is_read() {
    let text = roce_job(&HEALTHY);
    let log = parse(&text);
    let s = log.summary();
    assert_eq!((s.nranks, s.nnodes), (Some(16), Some(2)));
    assert_eq!(s.inter_node_transport, Some(InterNodeTransport::RoCE));
    assert_eq!(s.gdr_used, Some(true));
    // Each rank's channels to the other host go through its own NIC.
    for (h, ranks) in s.hosts.iter().zip([0..8, 8..16]) {
        assert_eq!(h.nics_in_use, (0..8).collect::<Vec<u32>>(), "{}", h.host);
        assert_eq!(h.ranks_on_net, ranks.collect::<Vec<u32>>(), "{}", h.host);
    }
    assert_eq!(titles(&diagnose(&log)), ["No problem found"]);
    let unread: Vec<&Record> = log
        .records
        .iter()
        .filter(|r| matches!(r.event, Event::Unrecognised { .. }))
        .collect();
    assert!(unread.is_empty(), "lines not read: {unread:#?}");
}

#[test]
fn routine_lines_are_read_and_the_rest_listed() {
    // The formats of `ROUTINE` in record.rs, at the tags its comment names.
    for line in [
        "h:1:2 [0] NCCL INFO cudaDriverVersion 12040",
        "h:1:2 [0] NCCL INFO [Rank 3] ncclCommInitRankConfig comm 0x55e1 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 4f000 commId 0x77 - Init START",
        "h:1:2 [0] NCCL INFO ncclCommSplit comm 0x55e1 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 2a000 parent 0x44 childCount 1 color 0 key 1- Init START",
        "h:1:2 [0] NCCL INFO comm 0x55e1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x77 - Init START",
        "h:1:2 [0] NCCL INFO comm 0x55e1 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
        "h:1:2 [0] NCCL INFO comm 0x55e1 rank 0 nranks 16 cudaDev 0 busId 18000 - Destroy COMPLETE",
        "h:1:2 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 1",
        "h:1:2 [0] NCCL INFO Connected all rings",
        "h:1:2 [0] NCCL INFO Connected all trees",
        "h:1:2 [0] NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 512 | 512",
        "h:1:2 [0] NCCL INFO threadThresholds 8/8/64 | 128/8/64 | 8/8/512",
        "h:1:2 [0] NCCL INFO 32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer",
        "h:1:2 [0] NCCL INFO 16 coll channels, 16 p2p channels, 2 p2p channels per peer",
        "h:1:2 [0] NCCL INFO CC Off, workFifoBytes 1048576",
        "h:1:2 [0] NCCL INFO CC Off, Multi-GPU CC Off, workFifoBytes 1048576",
        "h:1:2 [0] NCCL INFO P2P Chunksize set to 524288",
        "h:1:2 [0] NCCL INFO Check P2P Type isAllDirectP2p 1 directMode 0 isAllCudaP2p 1",
        "h:1:2 [0] NCCL INFO DMA-BUF is available on GPU device 0",
        "h:1:2 [0] NCCL INFO Comm config Blocking set to 1",
        "h:1:2 [0] NCCL INFO Init timings - ncclCommInitRankConfig: rank 0 nranks 16 total 0.95 (kernels 0.12, alloc 0.05, bootstrap 0.02, allgathers 0.01, topo 0.31, graphs 0.02, connections 0.37, rest 0.05)",
        "h:1:2 [0] NCCL INFO Bootstrap timings total 0.001213 (create 0.000031, send 0.000139, recv 0.000391, ring 0.000297, delay 0.000000)",
        "h:1:2 [0] NCCL INFO Setting affinity for GPU 0 to ffff,ffffffff",
        "h:1:2 [0] NCCL INFO Launch mode Parallel",
        "h:1:2 [0] NCCL INFO [Proxy Service] Device 0 CPU core 12",
        "h:1:2 [0] NCCL INFO [Proxy Progress] Device 0 CPU core 40",
        "h:1:2 [0] NCCL INFO [Proxy Service UDS] Device 0 CPU core 13",
        "h:1:2 [0] NCCL INFO RAS client listening socket at ::1<28028>",
        "h:1:2 [0] NCCL INFO Assigned NET plugin IB to comm",
        "h:1:2 [0] NCCL INFO Initialized NET plugin IB",
        "h:1:2 [0] NCCL INFO Using non-device net plugin version 0",
        "h:1:2 [0] NCCL INFO TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so.",
        "h:1:2 [0] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.",
        "h:1:2 [0] NCCL INFO ENV/Plugin: Could not find: libnccl-env.so.",
        "h:1:2 [0] NCCL INFO Symmetric VA size=128GB",
        "h:1:2 [0] NCCL INFO NET/IB: IbDev 0 Port 1 qpn 4711 query_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0}",
        "h:1:2 [0] NCCL INFO NET/IB: IbDev 0 Port 1 qpn 4711 set_ece={supported=1, vendor_id=0x15b3, options=0x30000002, comp_mask=0x0}",
    ] {
        assert!(
            !matches!(event(line), Event::Unrecognised { .. }),
            "{line}"
        );
    }
    // A job of 16 ranks, read whole: the one line nobody's NCCL prints is listed, with its
    // number, and nothing else.
    let text = roce_job(&HEALTHY) + "Epoch 1: loss 2.31\n";
    let log = parse(&text);
    let last = text.lines().count();
    assert_eq!(
        log.unrecognised().collect::<Vec<_>>(),
        [(last, "Epoch 1: loss 2.31")]
    );
    // An NCCL line of no known format stays unread, its prefix stripped.
    let log = parse("gpu-a:1:2 [0] NCCL INFO something NCCL never printed\n\nhello\n");
    assert_eq!(
        log.unrecognised().collect::<Vec<_>>(),
        [(1, "something NCCL never printed"), (3, "hello")]
    );
}

const MTU: &str = "/troubleshooting#bandwidth-still-low-with-rdma-and-gpudirect-rdma";

#[test]
fn a_path_mtu_below_4096_is_a_finding() {
    // v2.29.3-1 src/transport/net_ib/connect.cc:649 with `mtu 3` (IBV_MTU_1024), what a RoCE
    // port gets from a 1500-byte Ethernet MTU.
    let text = roce_job(&Job { mtu: 3, ..HEALTHY });
    let log = parse(&text);
    let f = diagnose(&log);
    let m = finding(&f, MTU);
    assert_eq!(m.severity, Severity::Warning);
    assert!(m.title.contains("1024"), "{}", m.title);
    for words in [
        "ibv_devinfo",
        "active_mtu",
        "4 times",
        "switch",
        "node-a",
        "node-b",
    ] {
        assert!(m.explanation.contains(words), "{words}: {}", m.explanation);
    }
    let qp: Vec<usize> = log
        .records
        .iter()
        .filter(|r| matches!(r.event, Event::IbQp { .. }))
        .map(|r| r.line)
        .collect();
    assert_eq!(qp.len(), 16);
    assert_eq!(m.lines, qp);
    assert!(!titles(&f).contains(&"No problem found"));
    // 4096 is the largest there is.
    assert!(!has_topic(&diagnose(&parse(&roce_job(&HEALTHY))), MTU));
    // An InfiniBand port at 2048 (connect.cc:644, the LID form), and v2.30.7-1's form of the
    // RoCE line (connect.cc:968).
    let ib = "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.2.0.1<0>\n\
              a:1:2 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 4711 mtu 4 LID 12 subnet-prefix 33022  FLID 0 ctsFifoRkey=0x1a ctsFifoLkey=0x1b\n";
    let m = finding(&diagnose(&parse(ib)), MTU).clone();
    assert!(m.title.contains("2048"), "{}", m.title);
    assert!(m.explanation.contains("InfiniBand"), "{}", m.explanation);
    assert_eq!(m.lines, [2]);
    let v230 = "a:1:2 [0] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 4711 mtu 2 GID 3 (0/100000AFFFF0000) ctsFifoRkey=0x1a ctsFifoLkey=0x1b\n";
    assert!(finding(&diagnose(&parse(v230)), MTU).title.contains("512"));
}

const NIC: &str = "/troubleshooting#bandwidth-still-low-with-rdma-and-gpudirect-rdma";

#[test]
fn nccl_ib_hca_is_read_as_nccl_prints_it() {
    // v2.12.12-1 src/transport/net_ib.cc:169 and v2.29.3-1 src/transport/net_ib/init.cc:220
    // (`NCCL_IB_HCA set to %s`), v2.29.3-1 src/misc/socket.cc:175 (`NCCL_SOCKET_IFNAME set
    // to %s`).
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0"),
        Event::EnvSet {
            name: "NCCL_IB_HCA".into(),
            value: "mlx5_0".into()
        }
    );
    assert_eq!(
        event("h:1:2 [0] NCCL INFO NCCL_SOCKET_IFNAME set to =eth0"),
        Event::EnvSet {
            name: "NCCL_SOCKET_IFNAME".into(),
            value: "=eth0".into()
        }
    );
    // Not a variable: src/init.cc:769 and 1721.
    assert!(!matches!(
        event("h:1:2 [0] NCCL INFO P2P Chunksize set to 524288"),
        Event::EnvSet { .. }
    ));
    assert!(!matches!(
        event("h:1:2 [0] NCCL INFO Comm config Blocking set to 1"),
        Event::EnvSet { .. }
    ));
}

#[test]
fn all_gpus_of_a_host_on_one_nic_is_a_finding() {
    // NCCL_IB_HCA names one device, so `NET/IB : Using` lists one and every channel between
    // the hosts goes through NET/IB/0.
    let text = roce_job(&Job {
        nics: 1,
        env: &["NCCL_IB_HCA set to mlx5_0"],
        ..HEALTHY
    });
    let log = parse(&text);
    let f = diagnose(&log);
    let n = finding(&f, NIC);
    assert_eq!(n.severity, Severity::Warning);
    assert!(n.title.contains("8 GPUs"), "{}", n.title);
    for words in [
        "NCCL_IB_HCA=mlx5_0",
        "NET/IB/0 (mlx5_0)",
        "one HCA per GPU",
        "unset",
        "node-a and node-b",
    ] {
        assert!(n.explanation.contains(words), "{words}: {}", n.explanation);
    }
    let env = log
        .records
        .iter()
        .find(|r| matches!(&r.event, Event::EnvSet { name, .. } if name == "NCCL_IB_HCA"))
        .map(|r| r.line)
        .expect("the NCCL_IB_HCA line");
    assert!(n.lines.contains(&env), "{:?}", n.lines);
    assert!(!titles(&f).contains(&"No problem found"));
    // Without NCCL_IB_HCA NCCL found one device: the advice is about the others.
    let f = diagnose(&parse(&roce_job(&Job { nics: 1, ..HEALTHY })));
    let n = finding(&f, NIC);
    assert!(
        n.explanation.contains("/dev/infiniband"),
        "{}",
        n.explanation
    );
    assert!(!n.explanation.contains("NCCL_IB_HCA="), "{}", n.explanation);
    // Two GPUs on one NIC: named when NCCL_IB_HCA narrowed NCCL to it, else taken as the
    // host's build.
    let two = |env| Job {
        gpn: 2,
        nics: 1,
        env,
        ..HEALTHY
    };
    let f = diagnose(&parse(&roce_job(&two(&["NCCL_IB_HCA set to mlx5_0"]))));
    assert!(finding(&f, NIC).title.contains("2 GPUs"));
    assert!(!has_topic(&diagnose(&parse(&roce_job(&two(&[])))), NIC));
    // A NIC per GPU, or per two GPUs, or one GPU per host: no finding.
    for job in [
        HEALTHY,
        Job { nics: 4, ..HEALTHY },
        Job {
            gpn: 1,
            nics: 1,
            env: &["NCCL_IB_HCA set to mlx5_0"],
            ..HEALTHY
        },
    ] {
        assert!(!has_topic(&diagnose(&parse(&roce_job(&job))), NIC));
    }
}

const GID: &str = "/troubleshooting#roce-gid-index-wrong";

#[test]
fn gid_index_0_on_roce_is_a_finding() {
    // v2.29.3-1 src/misc/param.cc:90, in a log without the QP lines (NCCL_DEBUG_SUBSYS
    // without NET): the variable alone says which GID.
    let env0: &[&str] = &["NCCL_IB_GID_INDEX set by environment to 0."];
    let without_qp = |text: String| -> String {
        text.lines()
            .filter(|l| !l.contains(" qpn "))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let text = without_qp(roce_job(&Job {
        env: env0,
        ..HEALTHY
    }));
    let log = parse(&text);
    let f = diagnose(&log);
    let g = finding(&f, GID);
    assert_eq!(g.severity, Severity::Warning);
    for words in [
        "NCCL_IB_GID_INDEX is set to 0",
        "RoCE v1",
        "fe80::",
        "MAC",
        "show_gids",
        "unset",
        "2.21",
    ] {
        assert!(g.explanation.contains(words), "{words}: {}", g.explanation);
    }
    let env = log
        .records
        .iter()
        .find(|r| matches!(&r.event, Event::EnvSet { name, .. } if name == "NCCL_IB_GID_INDEX"))
        .map(|r| r.line)
        .expect("the variable's line");
    assert!(g.lines.contains(&env));
    assert!(!titles(&f).contains(&"No problem found"));
    // With the QP lines (connect.cc:649, GID 0 printed fe80:: byte-swapped): one finding
    // that quotes both.
    let text = roce_job(&Job {
        env: env0,
        gid: (0, "80FE"),
        ..HEALTHY
    });
    let f = diagnose(&parse(&text));
    assert_eq!(f.iter().filter(|f| f.topic == GID).count(), 1, "{f:?}");
    assert!(finding(&f, GID)
        .explanation
        .contains("index 0 is that address"));
    // NCCL before 2.21 has 0 as its default (v2.20.5-1 src/transport/net_ib.cc:80), so
    // unsetting it is no fix there.
    let old = without_qp(
        roce_job(&Job {
            env: env0,
            ..HEALTHY
        })
        .replace("2.29.3+cuda13.0", "2.18.3+cuda12.2"),
    );
    let g = finding(&diagnose(&parse(&old)), GID).clone();
    assert!(g.explanation.contains("2.18.3"), "{}", g.explanation);
    assert!(!g.explanation.contains("unset"), "{}", g.explanation);
    // QP lines that show a routable GID at index 0 (a table laid out otherwise): not this.
    let routable = roce_job(&Job {
        env: env0,
        gid: (0, "0"),
        ..HEALTHY
    });
    assert!(!has_topic(&diagnose(&parse(&routable)), GID));
    // On InfiniBand index 0 is the port's GID, as it should be.
    let ib = "a:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.2.0.1<0>\n\
              a:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 0.\n";
    assert!(!has_topic(&diagnose(&parse(ib)), GID));
}

#[test]
fn the_calculator_is_given_what_the_log_knows() {
    let query = |text: &str| {
        parse(text)
            .summary()
            .calculator_query()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    assert_eq!(
        query(&roce_job(&HEALTHY)),
        "gpn=8&nodes=2&nic=roce&nics=8&gdr=1"
    );
    let one_nic = roce_job(&Job {
        nics: 1,
        env: &["NCCL_IB_HCA set to mlx5_0"],
        ..HEALTHY
    });
    assert_eq!(query(&one_nic), "gpn=8&nodes=2&nic=roce&nics=1&gdr=1");
    // InfiniBand, and without GPUDirect RDMA.
    let ib = roce_job(&HEALTHY)
        .replace("/RoCE", "/IB")
        .replace("/GDRDMA", "");
    assert_eq!(query(&ib), "gpn=8&nodes=2&nic=ib&nics=8&gdr=0");
    // Two hosts over TCP sockets (the explainer's own example, v2.18.3-1 formats): no GDR to
    // speak of.
    let sockets = "n1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n\
                   n2:3:4 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n\
                   n1:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
                   n2:3:4 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x5 - Init COMPLETE\n\
                   n1:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n\
                   n2:3:4 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/Socket/0\n";
    assert_eq!(query(sockets), "gpn=1&nodes=2&nic=tcp&nics=1");
    // One host: no network.
    let one_host = "a:1:2 [0] NCCL INFO Channel 00 : 0[1a000] -> 1[1b000] via P2P/IPC\n\
                    a:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1a000 - Init COMPLETE\n\
                    a:1:3 [1] NCCL INFO comm 0x1 rank 1 nranks 2 cudaDev 1 busId 1b000 - Init COMPLETE\n";
    assert_eq!(query(one_host), "gpn=2&nodes=1&nic=none");
    // Hosts of different sizes give no GPUs per node; nothing known gives nothing.
    let uneven = one_host.replace("nranks 2", "nranks 3")
        + "b:1:2 [0] NCCL INFO comm 0x1 rank 2 nranks 3 cudaDev 0 busId 1a000 - Init COMPLETE\n";
    assert!(!query(&uneven).contains("gpn="), "{}", query(&uneven));
    assert_eq!(query(""), "");
    assert_eq!(query("hello\n"), "");
}
