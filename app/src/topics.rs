//! The lab's topics, compiled in from `content/topics.toml` by `build.rs`.

/// One topic of the reference: a route with its title, one-line summary and the page's text.
#[derive(Debug, PartialEq, Eq)]
pub struct Topic {
    pub path: &'static str,
    pub title: &'static str,
    pub group: &'static str,
    pub summary: &'static str,
    /// The interactive view this page has above its text, if any (see `crate::views`).
    pub view: Option<&'static str>,
}

/// What the live view says about one counter, from `content/data/counters.toml`.
#[derive(Debug, PartialEq, Eq)]
pub struct CounterNote {
    /// The sysfs file name.
    pub file: &'static str,
    /// `port`, `hw` or `netdev`.
    pub group: &'static str,
    pub meaning: &'static str,
    /// The page (and heading) that explains the mechanism behind it.
    pub topic: &'static str,
}

impl CounterNote {
    pub fn find(group: &str, file: &str) -> Option<&'static CounterNote> {
        COUNTER_NOTES
            .iter()
            .find(|n| n.group == group && n.file == file)
    }
}

include!(concat!(env!("OUT_DIR"), "/topics.rs"));

/// `content/topics/<slug>.md` as HTML, with numbered citations and its sources list:
/// `prerender` writes it into every page and into `crate::base::text_file`, which the shell
/// fetches when it follows a link (`crate::browser::navigation`).
#[cfg(not(target_arch = "wasm32"))]
pub fn text_of(path: &str) -> Option<&'static str> {
    TOPIC_TEXTS
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, html)| *html)
}

impl Topic {
    pub fn at_path(path: &str) -> Option<&'static Topic> {
        TOPICS.iter().find(|t| t.path == path)
    }
}

/// Topics grouped for the sidebar, in the order the content file lists them.
pub fn groups() -> Vec<(&'static str, Vec<&'static Topic>)> {
    let mut groups: Vec<(&'static str, Vec<&'static Topic>)> = Vec::new();
    for topic in TOPICS {
        match groups.iter_mut().find(|(name, _)| *name == topic.group) {
            Some((_, members)) => members.push(topic),
            None => groups.push((topic.group, vec![topic])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use super::*;

    static INDEX: LazyLock<engine::search::SearchIndex<'static>> =
        LazyLock::new(|| engine::search::SearchIndex::new(SEARCH_SECTIONS));

    /// Where the first result for `query` leads: its page and heading anchor.
    fn first(query: &str) -> Option<(&'static str, &'static str)> {
        INDEX
            .search(query, 8)
            .first()
            .map(|h| (h.section.path, h.section.anchor))
    }

    #[test]
    fn search_lands_on_the_heading_about_the_term() {
        let index = engine::search::SearchIndex::new(SEARCH_SECTIONS);
        let first = |query: &str| {
            let hit = &index.search(query, 1)[0];
            (hit.section.path, hit.section.anchor)
        };
        assert_eq!(first("DCQCN"), ("/dcqcn", ""), "the DCQCN page itself");
        assert_eq!(first("GID"), ("/troubleshooting", "roce-gid-index-wrong"));
        assert_eq!(first("PXN"), ("/nccl", "pxn-pci-nvlink"));
        assert_eq!(first("NCCL_IB_TIMEOUT").0, "/nccl-env");
    }

    /// Issue 18, item 8: what a learner types, and the section that answers it.
    #[test]
    fn natural_questions_land_on_the_section_that_answers_them() {
        let index = engine::search::SearchIndex::new(SEARCH_SECTIONS);
        let sockets = ("/troubleshooting", "nccl-falls-back-to-sockets");
        let still_low = (
            "/troubleshooting",
            "bandwidth-still-low-with-rdma-and-gpudirect-rdma",
        );
        for (query, want) in [
            ("nccl socket fallback", sockets),
            ("slow all-reduce", sockets),
            ("why is my allreduce slow", sockets),
            ("3 GB/s", sockets),
            ("dcqnc", ("/dcqcn", "")),
            ("sokcets fallback", sockets),
            ("retries exceeded", ("/troubleshooting", "retry-exceeded")),
            // Issue 32, item 6: RDMA and GPUDirect RDMA work, and it is still slow.
            ("still slow", still_low),
            ("slow all-reduce with RDMA", still_low),
            ("low busbw", still_low),
            ("bandwidth below line rate", still_low),
            // Issue 32, item 10: a newcomer's first questions.
            ("what is rdma", ("/", "what-is-rdma")),
            ("what is RDMA?", ("/", "what-is-rdma")),
            (
                "infiniband vs roce",
                ("/roce", "native-infiniband-framing-for-comparison"),
            ),
            (
                "roce versus infiniband",
                ("/roce", "native-infiniband-framing-for-comparison"),
            ),
        ] {
            let hits = index.search(query, 8);
            let first = hits.first().map(|h| (h.section.path, h.section.anchor));
            assert_eq!(first, Some(want), "{query:?}");
        }
    }

    /// Issue 39, part 2: the new reference sections are found by the words a learner types.
    #[test]
    fn new_reference_sections_are_found_by_their_words() {
        let rnr = "rnr-and-retry-how-long-a-queue-pair-waits-before-it-fails";
        for query in [
            "RNR",
            "receiver not ready",
            "rnr_retry",
            "min_rnr_timer",
            "RNR retry counter exceeded",
        ] {
            assert_eq!(first(query), Some(("/verbs", rnr)), "{query:?}");
        }
        for query in [
            "ib_write_bw",
            "perftest",
            "show_gids",
            "validate on hardware",
            "mlnx_qos",
            "rx_prio3_pause",
            "all_reduce_perf",
        ] {
            assert_eq!(
                first(query).map(|hit| hit.0),
                Some("/validating"),
                "{query:?}"
            );
        }
        for query in [
            "TIMELY",
            "Swift congestion control",
            "HPCC",
            "FECN",
            "BECN",
            "InfiniBand congestion control",
            "alternatives to DCQCN",
        ] {
            assert_eq!(
                first(query).map(|hit| hit.0),
                Some("/beyond-dcqcn"),
                "{query:?}"
            );
        }
        for query in [
            "incast",
            "all-to-all",
            "clear to send",
            "CTS",
            "mixture of experts",
            "receiver-driven traffic admission",
            "PFC only",
        ] {
            assert_eq!(
                first(query).map(|hit| hit.0),
                Some("/collective-congestion"),
                "{query:?}"
            );
        }
        let bring_up = "bringing-roce-up-mtu-neighbours-vlans-and-trust";
        for query in [
            "RoCE MTU",
            "ARP",
            "neighbor resolution",
            "VLAN",
            "VLAN GID",
            "RoCE bring-up",
        ] {
            assert_eq!(first(query), Some(("/roce", bring_up)), "{query:?}");
        }
        for (query, anchor) in [
            ("ODP", "on-demand-paging-registering-without-pinning"),
            (
                "on-demand paging",
                "on-demand-paging-registering-without-pinning",
            ),
            (
                "implicit ODP",
                "on-demand-paging-registering-without-pinning",
            ),
            ("MR cache", "registration-cost-and-registration-caches"),
            ("relaxed ordering", "relaxed-ordering"),
            (
                "ncclCommRegister",
                "nccls-user-buffers-ncclcommregister-and-ncclmemalloc",
            ),
            (
                "ncclMemAlloc",
                "nccls-user-buffers-ncclcommregister-and-ncclmemalloc",
            ),
        ] {
            assert_eq!(first(query), Some(("/verbs", anchor)), "{query:?}");
        }
        assert_eq!(
            first("memlock"),
            Some((
                "/troubleshooting",
                "memory-registration-fails-memlock-too-small"
            ))
        );
    }

    /// Issue 32, item 10: the "Next:" links follow the overview's path for a newcomer: the
    /// packet, then an RDMA WRITE travelling, then why the network must not drop it.
    #[test]
    fn next_links_follow_the_beginner_path() {
        let next = |path: &str| Topic::at_path(path).and_then(|t| t.next()).map(|t| t.path);
        assert_eq!(next("/roce"), Some("/flows"));
        assert_eq!(next("/flows"), Some("/lossless"));
    }

    /// Leo's UX check (2026-12): each page leads back as well as on, along the same order.
    #[test]
    fn previous_links_retrace_the_next_links() {
        for topic in TOPICS {
            if let Some(next) = topic.next() {
                assert_eq!(next.previous().map(|t| t.path), Some(topic.path));
            }
        }
        assert!(TOPICS[0].previous().is_none());
    }

    #[test]
    fn every_page_is_searchable_by_its_title() {
        let index = engine::search::SearchIndex::new(SEARCH_SECTIONS);
        for topic in TOPICS {
            let hits = index.search(topic.title, 20);
            assert!(
                hits.iter()
                    .any(|h| h.section.path == topic.path && h.section.anchor.is_empty()),
                "searching {:?} does not find its page",
                topic.title
            );
        }
    }

    #[test]
    fn topic_paths_are_unique_and_grouped_contiguously() {
        let mut seen = std::collections::HashSet::new();
        for topic in TOPICS {
            assert!(seen.insert(topic.path), "{} listed twice", topic.path);
        }
        // A group split in two would show twice in the sidebar.
        let order: Vec<_> = groups().into_iter().map(|(name, _)| name).collect();
        let mut appearances: Vec<&str> = TOPICS.iter().map(|t| t.group).collect();
        appearances.dedup();
        assert_eq!(order, appearances);
    }

    /// The fabric-operations page: the subnet manager, the fabric tools and counters, and
    /// what NCCL does when a link fails, each found by the words a learner types.
    #[test]
    fn fabric_operations_sections_are_found_by_their_words() {
        for (query, anchor) in [
            (
                "subnet manager",
                "the-subnet-manager-addresses-routes-and-one-master",
            ),
            ("opensm routing engine", "routing-engines-and-credit-loops"),
            ("ftree", "routing-engines-and-credit-loops"),
            ("ibdiagnet", "checking-a-fabric-the-tools"),
            ("link flap", "a-link-flap-step-by-step"),
            ("NCCL RAS", "nccl-ras-asking-a-running-job-what-is-wrong"),
            ("port recovery", "nccl-230-port-failover-and-port-recovery"),
            ("SymbolErrorCounter", "the-counters-that-matter"),
            ("LMC", "lmc-several-lids-per-port-several-paths"),
        ] {
            assert_eq!(first(query), Some(("/fabric-ops", anchor)), "{query:?}");
        }
    }

    /// Issue 39, part 2: Ultra Ethernet is found by the words a learner types.
    #[test]
    fn ultra_ethernet_is_found_by_its_words() {
        for (query, anchor) in [
            ("UEC", ""),
            ("Ultra Ethernet", ""),
            ("packet trimming", "packet-trimming"),
            ("RUD", "delivery-modes-rud-rod-rudi-and-uud"),
            ("UET header", "the-headers-on-the-wire"),
            ("Ultra Ethernet vs RoCE", "next-to-roce-v2-and-dcqcn"),
            ("NSCC", "congestion-control"),
        ] {
            assert_eq!(first(query), Some(("/ultra-ethernet", anchor)), "{query:?}");
        }
        // Every section names the transport; any of them answers.
        assert_eq!(first("UET").map(|hit| hit.0), Some("/ultra-ethernet"));
    }

    /// SHARP versions, the Aggregation Manager and CollNet, and NVLink across a rack (NVL72,
    /// multi-node NVLink, IMEX) on /sharp are found by the words a learner types.
    #[test]
    fn sharp_versions_and_rack_scale_nvlink_are_found_by_their_words() {
        let versions = "sharp-versions-and-what-they-need";
        let rack = "nvlink-across-a-rack-nvl72-and-multi-node-nvlink";
        let mnnvl = "multi-node-nvlink-mnnvl";
        for (query, anchor) in [
            ("SHARPv3", versions),
            ("SHARP versions", versions),
            ("sharp_am", "the-aggregation-manager-sharp_am"),
            ("CollNet", "nccls-collnet-path-and-the-sharp-plugin"),
            (
                "SAT vs LLT",
                "low-latency-and-streaming-aggregation-llt-and-sat",
            ),
            ("NVL72", rack),
            ("MNNVL", mnnvl),
            ("multi-node NVLink", rack),
            ("IMEX", mnnvl),
            (
                "scale-up vs scale-out",
                "scale-up-and-scale-out-which-parallelism-goes-where",
            ),
        ] {
            assert_eq!(first(query), Some(("/sharp", anchor)), "{query:?}");
        }
    }

    /// Atomics in depth and the other transports (UD, DC, SRD) on /verbs are found by the
    /// words a learner types.
    #[test]
    fn atomics_and_other_transports_are_found_by_their_words() {
        for (query, anchor) in [
            ("RDMA atomics", "atomics-compare-and-swap-and-fetch-and-add"),
            (
                "compare and swap",
                "atomics-compare-and-swap-and-fetch-and-add",
            ),
            (
                "fetch and add",
                "atomics-compare-and-swap-and-fetch-and-add",
            ),
            (
                "IBV_ATOMIC_GLOB",
                "ibv_atomic_hca-and-ibv_atomic_glob-atomic-against-whom",
            ),
            ("atomic_cap", "atomics-compare-and-swap-and-fetch-and-add"),
            ("SRD", "srd-reliable-delivery-without-order"),
            (
                "scalable reliable datagram",
                "srd-reliable-delivery-without-order",
            ),
            ("EFA", "srd-reliable-delivery-without-order"),
            ("AWS EFA", "srd-reliable-delivery-without-order"),
            (
                "dynamically connected",
                "dc-connections-the-adapter-makes-per-message",
            ),
            ("UD vs RC", "rc-ud-dc-and-srd-side-by-side"),
            ("address handle", "ud-one-queue-pair-for-every-peer"),
            ("DCI", "dc-connections-the-adapter-makes-per-message"),
        ] {
            assert_eq!(first(query), Some(("/verbs", anchor)), "{query:?}");
        }
    }
}
