//! The cluster view in real Chromium: /live attached to three real probes at once, each
//! reading its own copy of the recorded tree, shows one host × port table; when one probe is
//! killed the other two stay live (their figures keep moving) and the dead one is marked.
//! Then the same table read from Debian's Prometheus running the repository's configuration
//! over three probes, and the located error of a Prometheus that does not let the page in.

use std::{path::PathBuf, process::Command, time::Duration};

use tempfile::TempDir;

use lab_tests::{
    browser::{Browser, DESKTOP, PHONE},
    probe::{copy_tree, Traffic},
    prometheus::{Prometheus, Scrape},
    site::Site,
};

/// A private copy of the recorded sysfs/debugfs trees, for one probe.
struct Tree {
    dir: TempDir,
}

impl Tree {
    fn copy(name: &str) -> Tree {
        let dir = tempfile::Builder::new()
            .prefix(&format!("rdma-lab-fleet-{name}-"))
            .tempdir()
            .expect("a folder for the tree");
        copy_tree(
            &lab_tests::repo_root().join("native-probe/tests/fixtures"),
            dir.path(),
        )
        .expect("the fixture copies");
        Tree { dir }
    }

    fn arg(&self, sub: &str) -> String {
        self.dir
            .path()
            .join(sub)
            .to_str()
            .expect("a UTF-8 temp path")
            .to_string()
    }

    fn port_file(&self, group: &str, name: &str) -> PathBuf {
        self.dir.path().join(format!(
            "sysfs/class/infiniband/mlx5_0/ports/1/{group}/{name}"
        ))
    }
}

fn probe_on(tree: &Tree, allow: Option<&str>) -> Site {
    let (sysfs, debugfs) = (tree.arg("sysfs"), tree.arg("debugfs"));
    let mut options = vec![
        "--interval-ms",
        "200",
        "--sysfs-root",
        &sysfs,
        "--debugfs-root",
        &debugfs,
    ];
    if let Some(origin) = allow {
        options.extend(["--allow-origin", origin]);
    }
    Site::start_with(&options)
}

/// `host:port` of a probe's URL.
fn address(site: &Site) -> String {
    site.url("")
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string()
}

fn host(address: &str) -> String {
    format!(".fleet-host-rows[data-address='{address}']")
}

/// Whether the host's rows are live with every port of the recorded tree, and the busy port's
/// figures are rates.
async fn wait_live_with_rows(browser: &Browser, address: &str) {
    let tbody = host(address);
    browser
        .wait_until(
            &format!(
                "const t = document.querySelector(\"{tbody}\"); if (!t || t.dataset.state !== 'live') return false;\
                 const ports = [...t.querySelectorAll('tr.fleet-port')].map(r => r.dataset.port);\
                 const tx = t.querySelector(\"tr[data-port='mlx5_0/1'] [data-figure=tx] .fleet-value\")?.textContent ?? '';\
                 const cnp = t.querySelector(\"tr[data-port='mlx5_0/1'] [data-figure=cnp-sent] .fleet-value\")?.textContent ?? '';\
                 return ports.join() === 'mlx5_0/1,mlx5_1/1,mlx5_2/1' && /^[1-9][0-9.]* [kM]B\\/s$/.test(tx) && /^[1-9][0-9.]* ?k?\\/s$/.test(cnp)"
            ),
            &format!("{address}'s three ports live, with mlx5_0/1 sending"),
        )
        .await;
}

async fn sampled(browser: &Browser, address: &str) -> String {
    browser
        .eval(&format!(
            "return document.querySelector(\"{}\").dataset.sampled",
            host(address)
        ))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Nothing but the table's own box scrolls sideways on the phone, and that box keeps to the
/// screen.
async fn assert_fits(browser: &Browser, context: &str) {
    let fit = browser
        .eval(
            "const w = document.documentElement.clientWidth;\
             const box = document.querySelector('.fleet .table-scroll').getBoundingClientRect();\
             const head = [...document.querySelectorAll('.fleet-host-head')].map(h => h.getBoundingClientRect().right);\
             return { past: document.documentElement.scrollWidth - w, box: box.right, head: Math.max(...head), w }",
        )
        .await;
    let w = fit["w"].as_f64().unwrap_or(0.0);
    assert!(
        fit["past"].as_f64().is_some_and(|p| p <= 0.0)
            && fit["box"].as_f64().is_some_and(|r| r <= w + 0.5)
            && fit["head"].as_f64().is_some_and(|r| r <= w + 0.5),
        "{context}: the cluster view does not fit the phone: {fit}"
    );
}

#[tokio::test]
async fn three_probes_in_one_table_and_a_dead_one_does_not_stop_the_others() {
    let trees = [Tree::copy("a"), Tree::copy("b"), Tree::copy("c")];
    // The first probe serves the page; the other two let that page connect.
    let a = probe_on(&trees[0], None);
    let origin = a.url("").trim_end_matches('/').to_string();
    let b = probe_on(&trees[1], Some(&origin));
    let c = probe_on(&trees[2], Some(&origin));
    let _traffic = Traffic::start(
        trees
            .iter()
            .flat_map(|t| {
                [
                    t.port_file("counters", "port_xmit_data"),
                    t.port_file("hw_counters", "np_cnp_sent"),
                ]
            })
            .collect(),
    );
    let addresses = [address(&a), address(&b), address(&c)];
    let list = addresses.join(",");

    let browser = Browser::start().await;
    browser.resize(DESKTOP).await;
    browser.goto(&a.url(&format!("/live?probes={list}"))).await;
    for address in &addresses {
        wait_live_with_rows(&browser, address).await;
    }
    // Each row opens its host's full view.
    let href = browser
        .eval(&format!(
            "return document.querySelector(\"{} tr[data-port='mlx5_1/1'] th a\").getAttribute('href')",
            host(&addresses[1])
        ))
        .await;
    assert_eq!(
        href.as_str(),
        Some(format!("live/?probe={}", addresses[1]).as_str())
    );
    let head = browser
        .text(&format!("{} .fleet-host-head", host(&addresses[2])))
        .await;
    assert!(
        head.contains("Connected") && head.contains("a recorded tree"),
        "{head}"
    );
    // What the columns count comes from the counters' explanations.
    let legend = browser.text_content(".fleet-legend").await;
    assert!(
        legend.contains("out_of_sequence") && legend.contains("np_cnp_sent"),
        "{legend}"
    );
    browser.screenshot("live-fleet-desktop").await;
    browser.resize(PHONE).await;
    assert_fits(&browser, "three live probes").await;
    browser.screenshot("live-fleet-phone").await;
    browser.resize(DESKTOP).await;

    // The second probe dies as a crashed machine's would: no goodbye.
    let status = Command::new("kill")
        .args(["-KILL", &b.pid().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    browser
        .wait_until(
            &format!(
                "const t = document.querySelector(\"{}\"); return t.dataset.state === 'lost' && t.querySelector('.fleet-host-head').textContent.includes('Not connected')",
                host(&addresses[1])
            ),
            "the killed probe marked not connected",
        )
        .await;
    // Its last figures stay, marked as its last.
    let last = browser
        .text(&format!(
            "{} tr[data-port='mlx5_0/1'] [data-figure=tx]",
            host(&addresses[1])
        ))
        .await;
    assert!(last.contains("(last)"), "{last}");
    // The other two go on: live, and sampled again since.
    let before = [
        sampled(&browser, &addresses[0]).await,
        sampled(&browser, &addresses[2]).await,
    ];
    for (address, before) in [&addresses[0], &addresses[2]].into_iter().zip(before) {
        browser
            .wait_until(
                &format!(
                    "const t = document.querySelector(\"{}\"); return t.dataset.state === 'live' && t.dataset.sampled !== '{before}'",
                    host(address)
                ),
                &format!("{address} still live and updating after another probe died"),
            )
            .await;
        wait_live_with_rows(&browser, address).await;
    }
    browser.screenshot("live-fleet-one-dead").await;

    let mut found = Vec::new();
    for (size, theme) in [(DESKTOP, "light"), (DESKTOP, "dark"), (PHONE, "light")] {
        browser.resize(size).await;
        browser
            .eval(&format!(
                "localStorage.setItem('rdma-lab.theme', '{theme}'); return true"
            ))
            .await;
        browser.client.refresh().await.expect("page reloads");
        wait_live_with_rows(&browser, &addresses[2]).await;
        browser
            .wait_until(
                &format!(
                    "return document.querySelector(\"{}\")?.dataset.state === 'lost'",
                    host(&addresses[1])
                ),
                "the dead probe marked again after a reload",
            )
            .await;
        if size == PHONE {
            assert_fits(&browser, "one probe dead").await;
            browser.screenshot("live-fleet-one-dead-phone").await;
        } else if theme == "dark" {
            browser.screenshot("live-fleet-one-dead-dark").await;
        }
        for violation in browser.serious_axe_violations().await {
            found.push(format!("{theme}, {} px: {violation}", size.0));
        }
    }
    browser.eval("localStorage.clear(); return true").await;
    assert!(found.is_empty(), "axe-core found:\n{}", found.join("\n"));

    // The list is edited by keyboard alone, and kept in the page's address.
    browser.resize(DESKTOP).await;
    let kept = format!("{},{}", addresses[0], addresses[2]);
    browser
        .type_over("#fleet-probes", &format!("{kept}\n"))
        .await;
    browser
        .wait_until(
            &format!(
                "return location.search === '?probes={kept}' && document.querySelectorAll('.fleet-host-rows').length === 2"
            ),
            "the edited list in the address and the table",
        )
        .await;
    wait_live_with_rows(&browser, &addresses[2]).await;
    // A bad address is refused with its place in the list, and nothing is applied.
    browser
        .type_over("#fleet-probes", &format!("{kept},nowhere:0"))
        .await;
    browser
        .wait_for_text_containing("#fleet-probes-error", "Address 3 (nowhere:0)")
        .await;
    let disabled = browser
        .eval("return document.querySelector('.fleet-view button[type=submit]').disabled")
        .await;
    assert_eq!(disabled.as_bool(), Some(true));

    // A row's link opens that host's full view, connected to it.
    browser
        .eval(&format!(
            "document.querySelector(\"{} tr[data-port='mlx5_0/1'] th a\").click(); return true",
            host(&addresses[2])
        ))
        .await;
    browser.wait_for_text(".live-status", "Connected").await;
    let at = browser
        .eval("return location.pathname + location.search")
        .await;
    assert_eq!(
        at.as_str(),
        Some(format!("/live/?probe={}", addresses[2]).as_str())
    );
    let field = browser
        .eval("return document.querySelector('#probe-url').value")
        .await;
    assert_eq!(
        field.as_str(),
        Some(format!("ws://{}/ws", addresses[2]).as_str())
    );
    browser.close().await;
    drop((a, b, c));
}

/// `--web.cors.origin`'s value for exactly `origin`: a fully anchored regex.
fn only(origin: &str) -> String {
    origin.replace('.', "\\.")
}

#[tokio::test]
async fn the_same_table_from_prometheus_and_a_refusal_that_names_the_flag() {
    let trees = [
        Tree::copy("prom-a"),
        Tree::copy("prom-b"),
        Tree::copy("prom-c"),
    ];
    let probes: Vec<Site> = trees.iter().map(|t| probe_on(t, None)).collect();
    // Only the first tree's port moves, so only its row has a rate above zero.
    let _traffic = Traffic::start(vec![
        trees[0].port_file("counters", "port_xmit_data"),
        trees[0].port_file("hw_counters", "np_cnp_sent"),
    ]);
    let addresses: Vec<String> = probes.iter().map(address).collect();
    let page = probes[0].url("").trim_end_matches('/').to_string();
    let prometheus = Prometheus::start(&Scrape {
        probes: addresses
            .iter()
            .map(|a| a.parse().expect("a socket address"))
            .collect(),
        cors_origin: Some(only(&page)),
        ..Scrape::default()
    });
    prometheus.wait_for_scrapes(
        &addresses
            .iter()
            .map(|a| a.parse().expect("a socket address"))
            .collect::<Vec<_>>(),
        2,
    );

    let browser = Browser::start().await;
    browser.resize(DESKTOP).await;
    browser
        .goto(&probes[0].url(&format!("/live?prometheus={}", prometheus.url())))
        .await;
    // Every probe's three ports, from the recording rules; the busy port's rates above zero.
    browser.wait_until_for(
            &format!(
                "const hosts = [...document.querySelectorAll('.fleet-host-rows')];\
                 const rows = h => [...h.querySelectorAll('tr.fleet-port')].map(r => r.dataset.port).join();\
                 const want = {want:?};\
                 if (hosts.map(h => h.dataset.address).join() !== want.join()) return false;\
                 if (!hosts.every(h => h.dataset.state === 'live' && rows(h) === 'mlx5_0/1,mlx5_1/1,mlx5_2/1')) return false;\
                 const at = a => hosts.find(h => h.dataset.address === a);\
                 const fig = (a, f) => at(a).querySelector(`tr[data-port='mlx5_0/1'] [data-figure=${{f}}] .fleet-value`).textContent;\
                 return /^[1-9][0-9.]* [kM]B\\/s$/.test(fig({busy:?}, 'tx')) && /^[1-9][0-9.]* ?k?\\/s$/.test(fig({busy:?}, 'cnp-sent'))\
                   && [{idle:?}, {other:?}].every(a => fig(a, 'tx') === '0 B/s' && fig(a, 'cnp-sent') === '0/s' && fig(a, 'errors') === '0/s')",
                busy = addresses[0],
                idle = addresses[1],
                other = addresses[2],
                want = {
                    let mut sorted = addresses.clone();
                    sorted.sort();
                    sorted
                },
            ),
            "Prometheus' table of the three probes",
            Duration::from_secs(60),
        )
        .await;
    // Trends come from query_range: the busy port has a line to draw.
    let drawn = browser
        .eval(&format!(
            "return !!document.querySelector(\"{} tr[data-port='mlx5_0/1'] [data-figure=tx] polyline\")",
            host(&addresses[0])
        ))
        .await;
    assert_eq!(drawn.as_bool(), Some(true));
    let href = browser
        .eval(&format!(
            "return document.querySelector(\"{} tr[data-port='mlx5_2/1'] th a\").getAttribute('href')",
            host(&addresses[2])
        ))
        .await;
    assert_eq!(
        href.as_str(),
        Some(format!("live/?probe={}", addresses[2]).as_str())
    );
    browser.screenshot("live-fleet-prometheus").await;
    browser.resize(PHONE).await;
    assert_fits(&browser, "from Prometheus").await;
    browser.screenshot("live-fleet-prometheus-phone").await;
    let found = browser.serious_axe_violations().await;
    assert!(found.is_empty(), "axe-core found:\n{}", found.join("\n"));
    browser.resize(DESKTOP).await;

    // A probe that stops is what Prometheus says of it: its last scrape failed.
    let stopped = addresses[1].clone();
    let mut probes = probes;
    drop(probes.remove(1));
    browser.wait_until_for(
            &format!(
                "const t = document.querySelector(\"{}\"); return !!t && t.dataset.state === 'lost' && t.textContent.includes('Last scrape failed')",
                host(&stopped)
            ),
            "the stopped probe marked by its failed scrape",
            Duration::from_secs(30),
        )
        .await;

    // A Prometheus that lets only another site read its API: the page says which flag.
    let closed = Prometheus::start(&Scrape {
        cors_origin: Some("https://elsewhere\\.example".into()),
        ..Scrape::default()
    });
    browser
        .type_over("#fleet-prometheus", &format!("{}\n", closed.url()))
        .await;
    browser
        .wait_for_text_containing(
            ".fleet-view .live-error",
            "does not let this page read its API",
        )
        .await;
    let flag = browser.text(".fleet-view .live-error code").await;
    assert_eq!(
        flag,
        format!("prometheus --web.cors.origin='{}'", only(&page))
    );
    let at = browser.eval("return location.search").await;
    assert_eq!(
        at.as_str(),
        Some(
            format!("?prometheus={}", closed.url())
                .replace("//", "%2F%2F")
                .as_str()
        )
    );
    // Not Prometheus at all: the answer is refused with where it went wrong.
    browser
        .type_over("#fleet-prometheus", &format!("{page}/nothing-here\n"))
        .await;
    browser
        .wait_for_text_containing(".fleet-view .live-error", "not a Prometheus API answer")
        .await;
    browser.close().await;
}
