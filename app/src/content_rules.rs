//! The rules the reference text lives by, checked with the same compiler `build.rs` uses:
//! every file parses, every number cites a source, every internal link lands somewhere.

use std::{collections::BTreeSet, path::PathBuf};

use super::content_compiler::{anchor, compile, states_a_number, Page};

fn content_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content")
}

fn pages() -> Vec<Page> {
    compile(&content_dir()).unwrap_or_else(|message| panic!("{message}"))
}

/// Every `id="…"` on a compiled page: heading anchors, table rows, sources.
fn ids(page: &Page) -> BTreeSet<String> {
    page.html
        .split("id=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The interactive views a reference page should lead to.
const VIEWS: &[&str] = &["/qp", "/roce", "/dcqcn", "/flows", "/live"];

#[test]
fn every_topic_has_text_with_headings() {
    for page in pages() {
        let words: usize = page
            .sections
            .iter()
            .map(|s| s.text.split_whitespace().count())
            .sum();
        assert!(
            words >= 150,
            "{} has only {words} words of text",
            page.topic.path
        );
        assert!(
            page.html.contains("<h2 id="),
            "{} has no sections",
            page.topic.path
        );
    }
}

#[test]
fn numbers_cite_sources_and_sources_are_cited() {
    let problems: Vec<String> = pages()
        .iter()
        .flat_map(|p| p.problems.iter().map(ToString::to_string))
        .collect();
    assert!(
        problems.is_empty(),
        "content breaks its rules:\n{}",
        problems.join("\n")
    );
}

#[test]
fn internal_links_resolve_to_a_page_and_heading() {
    let pages = pages();
    let mut broken = Vec::new();
    for page in &pages {
        for (href, line) in &page.links {
            if href.starts_with("http://")
                || href.starts_with("https://")
                || href.starts_with("mailto:")
            {
                continue;
            }
            let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
            let target = if path.is_empty() {
                Some(page)
            } else {
                pages.iter().find(|p| p.topic.path == path)
            };
            let place = format!("content/topics ({}) line {line}: {href}", page.topic.path);
            match target {
                None => broken.push(format!("{place}: no page at {path}")),
                Some(target) if !fragment.is_empty() && !ids(target).contains(fragment) => broken
                    .push(format!(
                        "{place}: {} has no heading #{fragment}",
                        target.topic.path
                    )),
                Some(_) => {}
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn every_page_leads_to_an_interactive_view() {
    for page in pages() {
        let leads = page.links.iter().any(|(href, _)| {
            VIEWS
                .iter()
                .any(|v| href == v || href.starts_with(&format!("{v}#")))
        });
        assert!(
            leads,
            "{} links to none of the interactive views {VIEWS:?}",
            page.topic.path
        );
    }
}

#[test]
fn numbers_are_told_from_names() {
    for stated in [
        "port 4791",
        "100 Gb/s",
        "2^24 PSNs",
        "1.5 µs",
        "(26)",
        "26·4 + 2",
        "NVLink 4",
    ] {
        assert!(states_a_number(stated), "{stated:?} states a number");
    }
    for name in [
        "RoCE v2",
        "IPv4 and IPv6",
        "mlx5",
        "802.1Qbb",
        "PCIe Gen5 x16",
        "UTF-8",
        "ConnectX-7",
    ] {
        assert!(!states_a_number(name), "{name:?} is a name, not a number");
    }
}

#[test]
fn anchors_are_lowercase_words_joined_by_dashes() {
    assert_eq!(anchor("RoCE GID index wrong"), "roce-gid-index-wrong");
    assert_eq!(anchor("PFC (802.1Qbb) — headroom"), "pfc-8021qbb-headroom");
    assert_eq!(anchor("NCCL_IB_HCA"), "nccl_ib_hca");
}

/// The rules catch what they are meant to: a page is written to a scratch content folder.
#[test]
fn the_checker_reports_each_kind_of_mistake() {
    let dir = std::env::temp_dir().join(format!("rdma-lab-content-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("topics")).unwrap();
    std::fs::write(
        dir.join("topics.toml"),
        "[[topic]]\npath = \"/\"\ntitle = \"T\"\ngroup = \"G\"\nsummary = \"S\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("topics/overview.md"),
        "+++\n[sources.used]\ntitle = \"Used\"\n[sources.unused]\ntitle = \"Unused\"\n+++\n\
         ## Heading\n\nRoCE v2 uses port 4791.\n\nIt really is 4791.[^used]\n\n- a list item of 12 things\n\n\
         | a | b |\n|---|---|\n| row | 7 |\n\nAnd a typo.[^nosuch]\n",
    )
    .unwrap();
    let pages = compile(&dir).unwrap();
    let messages: Vec<String> = pages[0].problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str, line: usize| {
        messages
            .iter()
            .any(|m| m.contains(needle) && m.contains(&format!("overview.md:{line}:")))
    };
    assert!(has("states a number", 9), "{messages:#?}");
    assert!(has("states a number", 13), "{messages:#?}");
    assert!(has("states a number", 17), "{messages:#?}");
    assert!(has("`[^nosuch]` names no source", 19), "{messages:#?}");
    assert!(
        has("`unused` is listed but never cited", 1),
        "{messages:#?}"
    );
    assert_eq!(
        messages.len(),
        5,
        "the cited paragraph passes: {messages:#?}"
    );
    assert!(pages[0]
        .html
        .contains("<sup class=\"cite\"><a href=\"#source-used\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn search_lines_become_keywords_and_leave_the_html() {
    let dir = std::env::temp_dir().join(format!("rdma-lab-search-line-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("topics")).unwrap();
    std::fs::write(
        dir.join("topics.toml"),
        "[[topic]]\npath = \"/\"\ntitle = \"T\"\ngroup = \"G\"\nsummary = \"S\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("topics/overview.md"),
        "+++\n\n+++\n<!-- search: start, map of the lab -->\n\nTop text.\n\n\
         ## Sockets\n<!-- search: socket fallback,  TCP , -->\n\nText.\n\n\
         ## Late\n\nText first.\n\n<!-- search: late -->\n\n\
         ## Figures\n<!-- search: 3 GB/s, mlx5 -->\n\n\
         ## Broken\n<!-- search: never closed\n",
    )
    .unwrap();
    let pages = compile(&dir).unwrap();
    let page = &pages[0];
    let keywords = |anchor: &str| {
        page.sections
            .iter()
            .find(|s| s.anchor == anchor)
            .map(|s| s.keywords.as_str())
    };
    assert_eq!(keywords(""), Some("start, map of the lab"));
    assert_eq!(keywords("sockets"), Some("socket fallback, TCP"));
    assert!(!page.html.contains("search:"), "{}", page.html);
    let messages: Vec<String> = page.problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str, line: usize| {
        messages
            .iter()
            .any(|m| m.contains(needle) && m.contains(&format!("overview.md:{line}:")))
    };
    assert!(has("right under its heading", 17), "{messages:#?}");
    assert!(has("states a number", 20), "{messages:#?}");
    assert!(has("is one line", 23), "{messages:#?}");
    assert_eq!(messages.len(), 3, "{messages:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bar chart and the engine's link model state the same rates: every link the engine
/// models has a row in `content/data/bandwidth.toml` with the same per-direction rate.
#[test]
fn the_engine_link_model_matches_the_bandwidth_table() {
    use super::content_compiler::{read_toml, BandwidthFile};
    let table: BandwidthFile = read_toml(&content_dir().join("data/bandwidth.toml"))
        .unwrap_or_else(|message| panic!("{message}"));
    for link in engine::flows::links() {
        let id = link.id.as_str();
        let row = table
            .link
            .iter()
            .find(|row| row.id == id)
            .unwrap_or_else(|| panic!("bandwidth.toml has no row `{id}`"));
        assert!(
            (row.per_direction_gbit_s - link.gbps).abs() < 0.01,
            "{id}: bandwidth.toml says {} Gb/s per direction, the engine {} Gb/s",
            row.per_direction_gbit_s,
            link.gbps
        );
    }
}

/// A row whose sources state no latency says so in the latency column instead of showing a
/// number.
#[test]
fn rows_without_a_sourced_latency_say_so() {
    use super::content_compiler::{read_toml, BandwidthFile, NO_PRIMARY_LATENCY};
    let table: BandwidthFile = read_toml(&content_dir().join("data/bandwidth.toml"))
        .unwrap_or_else(|message| panic!("{message}"));
    let unsourced = table.link.iter().filter(|l| l.latency_ns.is_none()).count();
    let pages = pages();
    let page = pages
        .iter()
        .find(|p| p.topic.path == "/bandwidth")
        .expect("a /bandwidth page");
    assert_eq!(
        page.html
            .matches(&format!("<td>{NO_PRIMARY_LATENCY}</td>"))
            .count(),
        unsourced
    );
}
