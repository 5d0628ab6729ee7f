//! Scenario-specific facts, recomputed from primary figures rather than from the model.

use engine::flows::{
    build_scenario, comparisons, link, links, scenario_ids, Category, FlowError, LinkId, LinkKind,
    Scenario, ScenarioParams, StepKind,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn build(id: &str, p: &ScenarioParams) -> Scenario {
    build_scenario(id, p).unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn roce(bytes: u64) -> ScenarioParams {
    ScenarioParams {
        message_bytes: bytes,
        network: LinkId::Roce400g,
        ..ScenarioParams::default()
    }
}

#[test]
fn link_rates_match_the_specifications() {
    // PCIe: GT/s per lane × 128/130 × 16 lanes, per direction.
    let gen4 = link(LinkId::PcieGen4X16);
    assert!(close(gen4.gbps, 16.0 * 128.0 / 130.0 * 16.0));
    assert!((gen4.gbytes_per_s - 31.5).abs() < 0.01);
    let gen5 = link(LinkId::PcieGen5X16);
    assert!((gen5.gbytes_per_s - 63.0).abs() < 0.02);
    // NVLink per direction: half the whitepapers' bidirectional totals 600/900/1800 GB/s.
    assert!(close(link(LinkId::Nvlink3).gbytes_per_s, 600.0 / 2.0));
    assert!(close(link(LinkId::Nvlink4).gbytes_per_s, 900.0 / 2.0));
    assert!(close(link(LinkId::Nvlink5).gbytes_per_s, 1800.0 / 2.0));
    assert!(close(link(LinkId::IbHdr).gbps, 200.0));
    assert!(close(link(LinkId::IbNdr).gbps, 400.0));
    assert!(close(link(LinkId::Roce100g).gbps, 100.0));
    assert!(close(link(LinkId::Roce200g).gbps, 200.0));
    assert!(close(link(LinkId::Roce400g).gbps, 400.0));
    assert!(close(link(LinkId::Tcp100g).gbps, 100.0));
    for l in links() {
        assert!(close(l.gbytes_per_s * 8.0, l.gbps));
        // No primary source gives these latencies: all must be flagged.
        assert!(l.latency_is_assumption, "{}", l.id);
        assert!(l.latency_ns > 0.0 && l.latency_ns < 10_000.0);
        assert!(!l.rate_source.is_empty() && !l.latency_scope.is_empty());
    }
}

#[test]
fn link_ids_are_stable_strings() {
    let expected = [
        "pcie-gen4-x16",
        "pcie-gen5-x16",
        "nvlink3",
        "nvlink4",
        "nvlink5",
        "ib-hdr",
        "ib-ndr",
        "roce-100g",
        "roce-200g",
        "roce-400g",
        "tcp-100g",
    ];
    for (id, name) in LinkId::ALL.iter().zip(expected) {
        assert_eq!(id.as_str(), name);
        assert_eq!(name.parse::<LinkId>().unwrap(), *id);
        assert_eq!(serde_json::to_string(id).unwrap(), format!("\"{name}\""));
    }
    assert_eq!(
        "pcie-gen7".parse::<LinkId>(),
        Err(FlowError::UnknownLink("pcie-gen7".into()))
    );
}

#[test]
fn a_4k_dma_over_gen4_takes_latency_plus_size_over_rate() {
    let p = ScenarioParams {
        pcie: LinkId::PcieGen4X16,
        message_bytes: 4096,
        ..ScenarioParams::default()
    };
    let s = build("post-send", &p);
    let dma = s
        .steps
        .iter()
        .find(|x| x.kind == StepKind::DmaRead && x.bytes == 4096)
        .expect("payload DMA read");
    let l = link(LinkId::PcieGen4X16);
    // 31.51 GB/s = 31.51 bytes per ns.
    let expected = l.latency_ns + 4096.0 / (16.0 * 128.0 / 130.0 * 16.0 / 8.0);
    assert!(close(dma.duration_ns, expected));
    assert_eq!(dma.link, Some(LinkId::PcieGen4X16));
}

#[test]
fn rdma_bypasses_the_kernel_and_tcp_does_not() {
    let p = roce(64 * 1024);
    let rdma = build("post-send", &p);
    assert_eq!(rdma.totals.syscalls, 0);
    assert_eq!(rdma.totals.interrupts, 0);
    assert_eq!(rdma.totals.data_copies, 0);
    let tcp = build("tcp-socket", &p);
    assert!(tcp.totals.data_copies >= 4);
    assert_eq!(tcp.totals.syscalls, 2);
    assert!(tcp.totals.interrupts >= 1);
    assert!(tcp.totals.cpu_busy_ns > rdma.totals.cpu_busy_ns);
    assert!(tcp.totals.end_to_end_ns > rdma.totals.end_to_end_ns);
}

#[test]
fn gpudirect_makes_no_host_copies_and_staging_makes_two() {
    for bytes in [4096u64, 1 << 20, 1 << 28] {
        let p = roce(bytes);
        let direct = build("gpudirect-write", &p);
        let staged = build("staged-write", &p);
        assert_eq!(direct.totals.data_copies, 0);
        assert_eq!(staged.totals.data_copies, 2);
        assert!(!direct.steps.iter().any(|s| s.kind == StepKind::GpuCopy));
        // GPUDirect reads from the GPU and writes into the remote GPU.
        assert!(direct
            .steps
            .iter()
            .any(|s| s.kind == StepKind::DmaRead && s.from == "gpu" && s.to == "nic"));
        assert!(direct
            .steps
            .iter()
            .any(|s| s.kind == StepKind::DmaWrite && s.to == "remote-gpu"));
        assert!(direct.totals.end_to_end_ns < staged.totals.end_to_end_ns);
    }
}

#[test]
fn inline_send_makes_no_dma_reads() {
    let p = ScenarioParams {
        message_bytes: 64,
        ..ScenarioParams::default()
    };
    let inline = build("post-send-inline", &p);
    assert!(!inline.steps.iter().any(|s| s.kind == StepKind::DmaRead));
    assert!(inline.steps.iter().any(|s| s.kind == StepKind::BlueFlame));
    let dma = build("post-send", &p);
    assert!(
        dma.steps
            .iter()
            .filter(|s| s.kind == StepKind::DmaRead)
            .count()
            >= 4
    );
    assert!(inline.totals.end_to_end_ns < dma.totals.end_to_end_ns);
    let big = ScenarioParams {
        message_bytes: 4096,
        ..p
    };
    match build_scenario("post-send-inline", &big) {
        Err(FlowError::Param { error, .. }) => assert_eq!(error.field, "message_bytes"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn go_back_n_naks_and_resends_from_the_lost_psn() {
    let p = ScenarioParams {
        message_bytes: 16 * 4096,
        ..ScenarioParams::default()
    };
    let s = build("go-back-n", &p);
    assert!(s.steps.iter().any(|x| x.kind == StepKind::PacketDrop));
    assert_eq!(
        s.steps.iter().filter(|x| x.kind == StepKind::Nak).count(),
        1
    );
    // Retransmission covers PSN 1 to the end: all but the first MTU.
    assert!(s
        .steps
        .iter()
        .any(|x| x.kind == StepKind::Packet && x.bytes == 15 * 4096 && x.critical));
    let one_packet = ScenarioParams {
        message_bytes: 4096,
        ..p
    };
    assert!(matches!(
        build_scenario("go-back-n", &one_packet),
        Err(FlowError::Param { ref error, .. }) if error.field == "message_bytes"
    ));
}

#[test]
fn ack_timeout_is_4096ns_times_two_to_the_timeout() {
    for t in [8u8, 14, 20] {
        let p = ScenarioParams {
            ack_timeout: t,
            ..ScenarioParams::default()
        };
        let s = build("timeout-retransmit", &p);
        let wait = s.steps.iter().find(|x| x.kind == StepKind::Wait).unwrap();
        assert!(close(wait.duration_ns, 4096.0 * 2f64.powi(i32::from(t))));
        assert!(s.totals.end_to_end_ns > wait.duration_ns);
    }
}

#[test]
fn rnr_timer_follows_the_ibta_table() {
    // IBTA Vol. 1 §9.7.5.2.8: code 12 = 0.64 ms, code 1 = 0.01 ms, code 0 = 655.36 ms.
    for (code, ms) in [(12u8, 0.64), (1, 0.01), (0, 655.36)] {
        let p = ScenarioParams {
            min_rnr_timer: code,
            ..ScenarioParams::default()
        };
        let s = build("rnr-retry", &p);
        let wait = s.steps.iter().find(|x| x.kind == StepKind::Wait).unwrap();
        assert!(close(wait.duration_ns, ms * 1e6));
        assert!(s.steps.iter().any(|x| x.kind == StepKind::Nak));
    }
}

#[test]
fn read_and_atomic_are_round_trips() {
    let p = ScenarioParams::default();
    for id in ["rdma-read", "atomic-cas"] {
        let s = build(id, &p);
        let out = s
            .steps
            .iter()
            .position(|x| x.from == "nic" && x.to == "remote-nic");
        let back = s
            .steps
            .iter()
            .position(|x| x.from == "remote-nic" && x.to == "nic");
        assert!(out.unwrap() < back.unwrap(), "{id}");
        assert_eq!(s.totals.syscalls, 0);
    }
    let cas = build("atomic-cas", &p);
    assert!(cas
        .steps
        .iter()
        .any(|x| x.kind == StepKind::Ack && x.bytes == 8));
}

#[test]
fn ecn_cnp_halves_the_rate_on_a_first_cnp() {
    let s = build("ecn-cnp", &roce(1 << 20));
    let fig = |n: &str| s.figures.iter().find(|f| f.name == n).unwrap().value;
    assert!(close(fig("rate before"), 400.0));
    // First CNP: alpha = 1, cut by alpha/2 (Zhu et al. §3.1).
    assert!(close(fig("rate after"), 200.0));
    assert!(s
        .steps
        .iter()
        .any(|x| x.kind == StepKind::Cnp && x.to == "nic"));
    let ib = ScenarioParams::default();
    assert!(matches!(
        build_scenario("ecn-cnp", &ib),
        Err(FlowError::WrongLinkKind { ref field, .. }) if field == "network"
    ));
}

#[test]
fn pfc_pause_walks_hop_by_hop_to_the_sender() {
    let s = build("pfc-pause", &roce(4096));
    let hops: Vec<(&str, &str)> = s
        .steps
        .iter()
        .filter(|x| x.kind == StepKind::PauseFrame)
        .map(|x| (x.from.as_str(), x.to.as_str()))
        .collect();
    assert_eq!(
        hops,
        [
            ("remote-nic", "remote-leaf"),
            ("remote-leaf", "spine"),
            ("spine", "leaf"),
            ("leaf", "nic")
        ]
    );
    // IEEE 802.1Qbb: quanta × 512 bit times; 65535 quanta at 400 Gb/s.
    let last = s.steps.last().unwrap();
    assert_eq!(last.kind, StepKind::Wait);
    assert!(close(last.duration_ns, 65535.0 * 512.0 / 400.0));
}

#[test]
fn rc_connect_walks_both_sides_to_rts() {
    let s = build("rc-connect", &ScenarioParams::default());
    // Two creates and three modifies per side, plus the out-of-band exchange.
    assert!(s.totals.syscalls >= 8);
    assert!(s.steps.iter().any(|x| x.kind == StepKind::Control));
    assert!(s.steps.iter().any(|x| x.title.contains("RTS")));
}

#[test]
fn allreduce_bandwidths_follow_nccl_tests() {
    for (nodes, bytes) in [(2u32, 1u64 << 30), (4, 1 << 28), (32, 1 << 30)] {
        let p = ScenarioParams {
            nodes,
            message_bytes: bytes,
            ..ScenarioParams::default()
        };
        for id in ["nccl-allreduce", "nccl-allreduce-tcp"] {
            let s = build(id, &p);
            let c = s.collective.as_ref().unwrap();
            let n = f64::from(nodes * 8);
            assert_eq!(c.ranks, nodes * 8);
            assert_eq!(c.phases.len(), 2, "reduce-scatter and all-gather");
            let t: f64 = c.phases.iter().map(|ph| ph.time_ns).sum();
            assert!(close(c.time_ns, t));
            assert!(close(c.time_ns, s.totals.end_to_end_ns));
            assert!(close(c.algbw_gbytes_per_s, bytes as f64 / c.time_ns));
            assert!(close(
                c.busbw_gbytes_per_s,
                c.algbw_gbytes_per_s * 2.0 * (n - 1.0) / n
            ));
        }
        let rdma = build("nccl-allreduce", &p);
        let tcp = build("nccl-allreduce-tcp", &p);
        let bw = |s: &Scenario| s.collective.as_ref().unwrap().busbw_gbytes_per_s;
        assert!(bw(&rdma) > bw(&tcp));
        assert_eq!(rdma.totals.data_copies, 0);
        assert!(tcp.totals.data_copies > 0 && tcp.totals.syscalls > 0);
        // Large buffers: busbw can not beat the NVLink or per-GPU network bound by much;
        // it must stay below the NVLink per-direction rate.
        assert!(bw(&rdma) < link(LinkId::Nvlink4).gbytes_per_s);
    }
}

#[test]
fn allreduce_is_the_collective_models_ring_row() {
    use engine::collective::{
        estimate, Algorithm, Cluster, Collective, CollectiveRequest, CpuVendor, IntraLink,
        Transport, DEFAULT_HOST_MEMORY_GBS, NVLINK_BW_PER_LINK, PCI_X16_BW_BY_GEN,
    };
    // The defaults: 8 H100 (NVLink 4) per node, PCIe Gen5, one NIC per GPU.
    for (id, transport, nic_gbps) in [
        (
            "nccl-allreduce",
            Transport::Verbs,
            link(ScenarioParams::default().network).gbps,
        ),
        (
            "nccl-allreduce-tcp",
            Transport::Socket,
            link(LinkId::Tcp100g).gbps,
        ),
    ] {
        for nodes in [2u32, 4, 32] {
            let p = ScenarioParams {
                nodes,
                message_bytes: 1 << 30,
                ..ScenarioParams::default()
            };
            let c = build(id, &p).collective.unwrap();
            let cluster = Cluster {
                nodes,
                gpus_per_node: p.gpus_per_node,
                compute_capability: 90,
                intra_link: IntraLink::NvLink,
                intra_gbs: 18.0 * NVLINK_BW_PER_LINK[2],
                pcie_gbs: PCI_X16_BW_BY_GEN[2],
                nvswitch: true,
                nics_per_node: p.nics_per_node,
                nic_gbps,
                transport,
                gdr: transport == Transport::Verbs,
                sharp: false,
                cpu_vendor: CpuVendor::Intel,
                host_memory_gbs: DEFAULT_HOST_MEMORY_GBS,
                channels: None,
            };
            let ring = estimate(&CollectiveRequest {
                op: Collective::AllReduce,
                bytes: (1u64 << 30) as f64,
                cluster,
                algorithms: Some(vec![Algorithm::Ring]),
                protocols: None,
            })
            .unwrap();
            let chosen = ring.chosen.unwrap();
            let row = ring
                .estimates
                .iter()
                .find(|e| e.algorithm == chosen.algorithm && e.protocol == chosen.protocol)
                .unwrap();
            assert!(close(c.time_ns, row.time_us * 1000.0), "{id} {nodes}");
            assert!(close(c.busbw_gbytes_per_s, row.busbw_gbs), "{id} {nodes}");
        }
    }
}

#[test]
fn allreduce_over_tcp_is_single_digit_busbw() {
    // NVIDIA/nccl#450: NCCL's socket transport on 100 Gb/s TCP reached 4–6 GB/s busbw;
    // one 100 GbE NIC per node here, as in that report.
    let p = ScenarioParams {
        nodes: 2,
        nics_per_node: 1,
        message_bytes: 1 << 30,
        ..ScenarioParams::default()
    };
    let c = build("nccl-allreduce-tcp", &p).collective.unwrap();
    assert!(c.busbw_gbytes_per_s < 10.0, "{}", c.busbw_gbytes_per_s);
}

#[test]
fn validation_errors_name_the_field() {
    let ok = ScenarioParams::default();
    let field_of = |p: ScenarioParams| match build_scenario("post-send", &p) {
        Err(FlowError::Param { error, .. }) => error.field,
        Err(FlowError::WrongLinkKind { field, .. }) => field,
        other => panic!("expected an error, got {other:?}"),
    };
    let cases = [
        (
            ScenarioParams {
                message_bytes: 0,
                ..ok.clone()
            },
            "message_bytes",
        ),
        (
            ScenarioParams {
                message_bytes: u64::MAX,
                ..ok.clone()
            },
            "message_bytes",
        ),
        (
            ScenarioParams {
                message_bytes: (1 << 31) + 1,
                ..ok.clone()
            },
            "message_bytes",
        ),
        (
            ScenarioParams {
                pcie: LinkId::Nvlink4,
                ..ok.clone()
            },
            "pcie",
        ),
        (
            ScenarioParams {
                network: LinkId::Tcp100g,
                ..ok.clone()
            },
            "network",
        ),
        (
            ScenarioParams {
                network: LinkId::PcieGen5X16,
                ..ok.clone()
            },
            "network",
        ),
        (
            ScenarioParams {
                nvlink: LinkId::IbNdr,
                ..ok.clone()
            },
            "nvlink",
        ),
        (
            ScenarioParams {
                tcp: LinkId::Roce100g,
                ..ok.clone()
            },
            "tcp",
        ),
        (
            ScenarioParams {
                mtu: 1500,
                ..ok.clone()
            },
            "mtu",
        ),
        (
            ScenarioParams {
                ip_mtu: 100,
                ..ok.clone()
            },
            "ip_mtu",
        ),
        (
            ScenarioParams {
                nodes: 1,
                ..ok.clone()
            },
            "nodes",
        ),
        (
            ScenarioParams {
                gpus_per_node: 0,
                ..ok.clone()
            },
            "gpus_per_node",
        ),
        (
            ScenarioParams {
                nics_per_node: 9,
                ..ok.clone()
            },
            "nics_per_node",
        ),
        (
            ScenarioParams {
                ack_timeout: 32,
                ..ok.clone()
            },
            "ack_timeout",
        ),
        (
            ScenarioParams {
                min_rnr_timer: 40,
                ..ok.clone()
            },
            "min_rnr_timer",
        ),
        (
            ScenarioParams {
                pause_quanta: 0,
                ..ok.clone()
            },
            "pause_quanta",
        ),
    ];
    for (p, field) in cases {
        assert_eq!(field_of(p), field);
    }
    assert_eq!(
        build_scenario("warp-drive", &ok),
        Err(FlowError::UnknownScenario("warp-drive".into()))
    );
    let e = build_scenario("post-send", &ScenarioParams { mtu: 1500, ..ok }).unwrap_err();
    assert!(e.to_string().starts_with("mtu = 1500"));
}

#[test]
fn comparisons_name_real_scenarios() {
    let ids = scenario_ids();
    let pairs = comparisons();
    assert!(pairs
        .iter()
        .any(|c| c.left == "gpudirect-write" && c.right == "staged-write"));
    assert!(pairs
        .iter()
        .any(|c| c.left == "post-send" && c.right == "tcp-socket"));
    for c in pairs {
        assert!(ids.contains(&c.left.as_str()) && ids.contains(&c.right.as_str()));
    }
    assert!(LinkId::IbNdr.kind().is_rdma_network());
    assert_eq!(LinkId::Tcp100g.kind(), LinkKind::Tcp);
}

/// A long WRITE moves as a pipeline (UX check 2026-12: 1 GiB took PCIe read + wire +
/// remote write, 56 ms at 400 GbE): its time is the slowest stage's, and the breakdown of
/// the critical path still adds up to the end-to-end time.
#[test]
fn a_long_write_is_a_pipeline_limited_by_its_slowest_stage() {
    let gib = 1u64 << 30;
    for id in ["gpudirect-write", "post-send", "rdma-read"] {
        // PCIe Gen5 x16 (63 GB/s) feeds a 400 Gb/s link (50 GB/s): the wire is slowest.
        let p = ScenarioParams {
            pcie: LinkId::PcieGen5X16,
            ..roce(gib)
        };
        let s = build(id, &p);
        let wire_ns = s.totals.category_ns(Category::WireSerialization);
        let packets = gib.div_ceil(u64::from(p.mtu));
        // The bytes on the wire: payload plus at least one header per packet.
        assert!(wire_ns >= gib as f64 * 8.0 / 400.0, "{id}");
        assert!(
            wire_ns <= (gib + packets * 200) as f64 * 8.0 / 400.0,
            "{id}"
        );
        let end = s.totals.end_to_end_ns;
        assert!(
            end <= 1.2 * wire_ns,
            "{id}: {end} ns against {wire_ns} ns on the wire"
        );
        let parts: f64 = s.totals.breakdown.iter().map(|c| c.ns).sum();
        assert!(close(parts, end), "{id}: breakdown {parts} vs {end}");
        // The whole DMA read and write are still shown, beside the packets.
        let whole_pcie = s
            .steps
            .iter()
            .filter(|st| !st.critical && st.bytes == gib && st.link == Some(LinkId::PcieGen5X16))
            .count();
        assert!(whole_pcie >= 1, "{id}: the streaming DMA steps are drawn");

        // PCIe Gen4 x16 (31.5 GB/s) is slower than the link: PCIe sets the time.
        let slow = build(
            id,
            &ScenarioParams {
                pcie: LinkId::PcieGen4X16,
                ..roce(gib)
            },
        );
        let pcie_ns = gib as f64 * 8.0 / link(LinkId::PcieGen4X16).gbps;
        let end = slow.totals.end_to_end_ns;
        assert!(
            end >= pcie_ns && end <= 1.2 * pcie_ns,
            "{id}: {end} vs PCIe {pcie_ns}"
        );
        let parts: f64 = slow.totals.breakdown.iter().map(|c| c.ns).sum();
        assert!(close(parts, end), "{id}: breakdown {parts} vs {end}");
        assert!(
            slow.totals.category_ns(Category::Pcie)
                > slow.totals.category_ns(Category::WireSerialization),
            "{id}: the breakdown names PCIe as the bottleneck"
        );
    }
}
