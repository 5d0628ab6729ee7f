//! The rules the reference text lives by, checked with the same compiler `build.rs` uses:
//! every file parses, every number cites a source, every internal link lands somewhere.

use std::{collections::BTreeSet, path::PathBuf};

use super::content_compiler::{anchor, compile, split_front_matter, states_a_number, Page};

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

/// The interactive views a reference page should lead to: the routes of the topics that have
/// one (`content/topics.toml`'s `view`).
fn views() -> Vec<&'static str> {
    crate::topics::TOPICS
        .iter()
        .filter(|t| t.view.is_some())
        .map(|t| t.path)
        .collect()
}

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
            let (path, query) = path.split_once('?').unwrap_or((path, ""));
            let target = if path.is_empty() {
                Some(page)
            } else {
                pages.iter().find(|p| p.topic.path == path)
            };
            let place = format!("content/topics ({}) line {line}: {href}", page.topic.path);
            if let (Some(target), false) = (target, query.is_empty()) {
                if let Err(e) = view_query_opens(target, query) {
                    broken.push(format!("{place}: {e}"));
                }
            }
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

/// A link may open a view in a given state, as its query: `/flows?scenario=go-back-n`. The
/// page must have a view, and a scenario it names must be one the engine has.
fn view_query_opens(target: &Page, query: &str) -> Result<(), String> {
    if target.topic.view.is_none() {
        return Err(format!(
            "{} has no view to take the query ?{query}",
            target.topic.path
        ));
    }
    for (key, value) in query.split('&').filter_map(|pair| pair.split_once('=')) {
        if key == "scenario"
            && target.topic.path == "/flows"
            && !engine::flows::scenario_ids().contains(&value)
        {
            return Err(format!("/flows has no scenario {value:?}"));
        }
    }
    Ok(())
}

#[test]
fn a_view_query_names_what_the_view_has() {
    let pages = pages();
    let page = |path: &str| pages.iter().find(|p| p.topic.path == path).unwrap();
    assert_eq!(
        view_query_opens(page("/flows"), "scenario=go-back-n"),
        Ok(())
    );
    assert!(view_query_opens(page("/flows"), "scenario=go-back-m").is_err());
    assert!(view_query_opens(page("/glossary"), "a=1").is_err());
}

#[test]
fn every_page_leads_to_an_interactive_view() {
    let views = views();
    assert!(!views.is_empty(), "content/topics.toml names no view");
    for page in pages() {
        let leads = page.links.iter().any(|(href, _)| {
            views
                .iter()
                .any(|v| href == v || href.starts_with(&format!("{v}#")))
        });
        assert!(
            leads,
            "{} links to none of the interactive views {views:?}",
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
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
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
    let pages = compile(dir).unwrap();
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
}

#[test]
fn search_lines_become_keywords_and_leave_the_html() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
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
    let pages = compile(dir).unwrap();
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

/// A value a page gives an NCCL variable: `NCCL_X=V` written out, or "default … V" in the
/// sentence that names it.
#[derive(Debug)]
struct StatedValue {
    page: String,
    line: usize,
    name: String,
    value: String,
    /// Stated as the default (else as a setting to use).
    default: bool,
}

/// The first value-like word of `text`: a number or a backticked literal.
fn first_value(text: &str) -> Option<String> {
    let text = text.trim_start_matches([' ', ':', '(', '=']);
    let text = text.strip_prefix("is ").unwrap_or(text);
    let text = text.strip_prefix("of ").unwrap_or(text);
    let token = if let Some(rest) = text.strip_prefix('`') {
        rest.split('`').next()?
    } else {
        text.split(|c: char| c.is_whitespace() || ",;)`".contains(c))
            .next()?
            .trim_end_matches('.')
    };
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '-')
        .then(|| token.to_string())
}

/// Every NCCL variable value stated in the prose of the topic pages (front matter, source
/// definitions and tables generated from data are left out).
fn stated_values(names: &[String]) -> Vec<StatedValue> {
    let mut found = Vec::new();
    let dir = content_dir().join("topics");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("content/topics reads")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    for file in files {
        let source = std::fs::read_to_string(&file).expect("a topic reads");
        let page = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let (_, body, body_line) =
            split_front_matter(&source).unwrap_or_else(|e| panic!("content/topics/{page}: {e}"));
        for (n, line) in body.lines().enumerate() {
            if line.starts_with("[^") || line.starts_with('|') {
                continue;
            }
            for name in names {
                for (at, _) in line.match_indices(name.as_str()) {
                    let after = &line[at + name.len()..];
                    // `NCCL_IB_TC` must not count as a mention of `NCCL_IB_T…`-prefixed names.
                    if after.starts_with(|c: char| c == '_' || c.is_ascii_alphanumeric()) {
                        continue;
                    }
                    if let Some(value) = after.strip_prefix('=').and_then(first_value) {
                        found.push(StatedValue {
                            page: page.clone(),
                            line: body_line + n,
                            name: name.clone(),
                            value,
                            default: false,
                        });
                    }
                    // "default" belongs to this variable up to the sentence's end or the next
                    // variable it names.
                    let sentence = after.split(". ").next().unwrap_or_default();
                    let sentence = sentence.split("NCCL_").next().unwrap_or_default();
                    if let Some((_, rest)) = sentence.split_once("default") {
                        let rest = rest
                            .trim_start_matches(['s', ' '])
                            .trim_start_matches("to ");
                        if let Some(value) = first_value(rest) {
                            found.push(StatedValue {
                                page: page.clone(),
                                line: body_line + n,
                                name: name.clone(),
                                value,
                                default: true,
                            });
                        }
                    }
                }
            }
        }
    }
    found
}

/// One fact, one entry: what a page says an NCCL variable's default is, or which value to set
/// it to, is what that variable's row in `content/data/nccl-env.toml` says, so the pages and
/// the /nccl-env table cannot drift apart.
#[test]
fn pages_give_nccl_variables_the_values_of_their_data_row() {
    let data: toml::Table =
        super::content_compiler::read_toml(&content_dir().join("data/nccl-env.toml"))
            .unwrap_or_else(|e| panic!("{e}"));
    let rows: Vec<&toml::Table> = data["variable"]
        .as_array()
        .expect("[[variable]] rows")
        .iter()
        .filter_map(toml::Value::as_table)
        .collect();
    let names: Vec<String> = rows
        .iter()
        .filter_map(|r| r.get("name")?.as_str().map(str::to_string))
        .collect();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.get("name").and_then(toml::Value::as_str) == Some(name))
            .copied()
    };
    let words = |text: &str, value: &str| {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
            .any(|w| w.trim_end_matches('.') == value)
    };
    let stated = stated_values(&names);
    let mut wrong = Vec::new();
    for s in &stated {
        let Some(row) = row(&s.name) else { continue };
        let default = row
            .get("default")
            .and_then(toml::Value::as_str)
            .unwrap_or("");
        let agrees = if s.default {
            words(default, &s.value)
        } else {
            row.values()
                .filter_map(toml::Value::as_str)
                .any(|text| words(text, &s.value))
        };
        if !agrees {
            wrong.push(format!(
                "content/topics/{} line {}: {} {} {}, which its row in data/nccl-env.toml does not say",
                s.page,
                s.line,
                s.name,
                if s.default { "defaults to" } else { "set to" },
                s.value
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "pages disagree with the data:\n{}",
        wrong.join("\n")
    );
    // The check sees what it checks: NCCL_IB_TC=104 on /lossless and the RoCE version's
    // default on /troubleshooting are among its findings.
    assert!(
        stated
            .iter()
            .any(|s| s.name == "NCCL_IB_TC" && s.value == "104" && !s.default),
        "{stated:?}"
    );
    assert!(
        stated
            .iter()
            .any(|s| s.name == "NCCL_IB_ROCE_VERSION_NUM" && s.value == "2" && s.default),
        "{stated:?}"
    );
}

/// The page and heading an engine-given `/path#anchor` link names, or why it lands nowhere.
fn lands(pages: &[Page], href: &str) -> Result<(), String> {
    let (path, fragment) = href.split_once('#').unwrap_or((href, ""));
    let target = pages
        .iter()
        .find(|p| p.topic.path == path)
        .ok_or_else(|| format!("{href}: no page at {path}"))?;
    if !fragment.is_empty() && !ids(target).contains(fragment) {
        return Err(format!("{href}: {path} has no heading #{fragment}"));
    }
    Ok(())
}

#[test]
fn lossless_findings_link_to_headings_that_exist() {
    use engine::lossless::{DscpPriority, QosPlan};
    let pages = pages();
    // Plans that between them raise every finding the checker has.
    let ex = QosPlan::example;
    let plans = [
        ex(),
        QosPlan {
            nccl_ib_tc: 97,
            ..ex()
        },
        QosPlan {
            ecn_priorities: vec![],
            pfc_priorities: vec![],
            ..ex()
        },
        QosPlan {
            cnp_dscp: 26,
            ecn_kmin_bytes: 1 << 30,
            ..ex()
        },
        QosPlan {
            cnp_dscp: 26,
            pfc_priorities: vec![],
            dscp_priority: vec![DscpPriority {
                dscp: 26,
                priority: 3,
            }],
            ..ex()
        },
    ];
    let mut broken = Vec::new();
    for plan in plans {
        for f in plan.check().unwrap().1 {
            if let Err(e) = lands(&pages, f.topic) {
                broken.push(e);
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn nccl_log_findings_link_to_headings_that_exist() {
    let pages = pages();
    let broken: Vec<String> = engine::nccl_log::TOPICS
        .iter()
        .filter_map(|t| lands(&pages, t).err())
        .collect();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

fn glossary() -> super::content_compiler::GlossaryFile {
    super::content_compiler::read_toml(&content_dir().join("data/glossary.toml"))
        .unwrap_or_else(|message| panic!("{message}"))
}

/// A glossary entry's "More on its page" link lands on the section that explains the term,
/// not on the top of a page the reader would then have to search (issue 32, item 10).
#[test]
fn glossary_entries_link_to_the_section_that_explains_them() {
    let tops: Vec<String> = glossary()
        .term
        .iter()
        .filter(|t| !t.topic.contains('#'))
        .map(|t| format!("{} → {}", t.term, t.topic))
        .collect();
    assert!(
        tops.is_empty(),
        "glossary entries that link to the top of a page:\n{}",
        tops.join("\n")
    );
}

/// The words a newcomer meets on the first pages have an entry (issue 32, item 10).
#[test]
fn the_glossary_has_the_words_a_beginner_meets_first() {
    let glossary = glossary();
    let missing: Vec<&str> = [
        "RDMA",
        "verbs",
        "HCA",
        "RC",
        "doorbell",
        "ETH",
        "RETH",
        "AETH",
        "GRH",
        "path MTU",
        "DSCP",
        "GPUDirect RDMA",
    ]
    .into_iter()
    .filter(|word| !glossary.term.iter().any(|t| t.term == *word))
    .collect();
    assert!(missing.is_empty(), "no glossary entry for {missing:?}");
}

#[test]
fn a_definition_is_the_first_sentence_of_its_entry() {
    use super::content_compiler::first_sentence;
    assert_eq!(
        first_sentence("A 128-bit address of a port. On RoCE v2 it holds an IP address."),
        "A 128-bit address of a port."
    );
    assert_eq!(
        first_sentence("A 24-bit counter, wrapping at 2^24; the responder uses it."),
        "A 24-bit counter, wrapping at 2^24."
    );
    assert_eq!(
        first_sentence("IEEE 802.1Qbb's PAUSE, e.g. on priority 3."),
        "IEEE 802.1Qbb's PAUSE, e.g. on priority 3."
    );
}

/// A term's first use on a page links to its entry and carries the entry's first sentence,
/// as the link's description and as the text shown on hover and focus (issue 32, item 10):
/// the definition is written once, in the glossary.
#[test]
fn a_term_link_carries_its_glossary_definition() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::create_dir_all(dir.join("topics")).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("topics.toml"),
        "[[topic]]\npath = \"/\"\ntitle = \"T\"\ngroup = \"G\"\nsummary = \"S\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("data/glossary.toml"),
        "[[term]]\nterm = \"QP\"\nname = \"queue pair\"\n\
         meaning = \"Two queues <and> an endpoint. A second sentence.\"\n\
         topic = \"/#h\"\nsources = [\"s\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("topics/overview.md"),
        "+++\n\n+++\n## H\n\n```text\nQP in a diagram\n```\n\nA QP here, and a QP again.\n",
    )
    .unwrap();
    let pages = compile(dir).unwrap();
    let html = &pages[0].html;
    assert!(html.contains(">QP in a diagram\n</code>"), "{html}");
    assert_eq!(html.matches("class=\"term\"").count(), 1, "{html}");
    assert!(
        html.contains(
            "<a class=\"term\" href=\"/glossary#term-qp\" aria-describedby=\"def-term-qp\">QP</a>\
             <span class=\"term-def\" role=\"tooltip\" id=\"def-term-qp\">\
             <b>queue pair</b>. Two queues &lt;and&gt; an endpoint.</span>"
        ),
        "{html}"
    );
}

/// Every term link on every page names a description the page holds.
#[test]
fn every_term_link_names_its_definition() {
    for page in pages() {
        let ids = ids(&page);
        for link in page.html.split("<a class=\"term\"").skip(1) {
            let def = link
                .split("aria-describedby=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default();
            assert!(
                !def.is_empty() && ids.contains(def),
                "{}: a term link without its definition: {}",
                page.topic.path,
                link.chars().take(120).collect::<String>()
            );
        }
    }
}
