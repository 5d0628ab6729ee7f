//! Debian's Prometheus with the repository's `deploy/prometheus` configuration, scraping three
//! real probes on ephemeral ports, each over its own copy of the recorded tree (one with
//! `--token`): every expression of the recording rules, the alerts and the Grafana dashboard
//! is asked of its HTTP API and checked against the trees; a counter changed in one tree moves
//! that host's rates only; a port taken down fires its alert. Also `promtool check` and the
//! dashboard's structure (Grafana itself is not installed here).

use std::{
    collections::{BTreeMap, BTreeSet},
    net::SocketAddr,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use tempfile::TempDir;

use lab_tests::{
    probe::{copy_tree, release_binary, FixtureSite, Probe},
    prometheus::{self, Alert, Prometheus, RuleFile, Scrape, Series, PROMTOOL, TOKEN_FILE},
};
use serde_json::Value;

const TOKEN: &str = "fleet-test-token";
/// Long enough for a few scrapes and rule evaluations at the test's 1 s interval.
const SETTLE: Duration = Duration::from_secs(20);

/// The lab's error set (`engine::probe::fleet::ERROR_COUNTERS`): the counter file,
/// and the metric the probe serves it as.
const ERROR_SET: [(&str, &str); 13] = [
    (
        "port_rcv_errors",
        "rdma_lab_infiniband_port_errors_received_total",
    ),
    (
        "port_xmit_discards",
        "rdma_lab_infiniband_port_discards_transmitted_total",
    ),
    ("symbol_error", "rdma_lab_infiniband_symbol_error_total"),
    ("link_downed", "rdma_lab_infiniband_link_downed_total"),
    (
        "out_of_sequence",
        "rdma_lab_infiniband_out_of_sequence_packets_received_total",
    ),
    (
        "local_ack_timeout_err",
        "rdma_lab_infiniband_local_ack_timeout_errors_total",
    ),
    (
        "packet_seq_err",
        "rdma_lab_infiniband_packet_sequence_errors_total",
    ),
    (
        "req_remote_access_errors",
        "rdma_lab_infiniband_req_remote_access_errors_total",
    ),
    (
        "resp_remote_access_errors",
        "rdma_lab_infiniband_resp_remote_access_errors_total",
    ),
    (
        "rnr_nak_retry_err",
        "rdma_lab_infiniband_rnr_nak_retry_packets_received_total",
    ),
    ("req_cqe_error", "rdma_lab_infiniband_req_cqes_errors_total"),
    (
        "resp_cqe_error",
        "rdma_lab_infiniband_resp_cqes_errors_total",
    ),
    (
        "rx_icrc_encapsulated",
        "rdma_lab_infiniband_rx_icrc_encapsulated_errors_total",
    ),
];

/// A probe over its own copy of the recorded fixture.
struct Host {
    tree: FixtureSite,
    probe: Probe,
}

impl Host {
    fn serve(tree: FixtureSite, extra: &[&str]) -> Host {
        let procfs = tree.procfs();
        let mut args = vec![
            "--interval-ms",
            "200",
            "--procfs-root",
            procfs.to_str().expect("a UTF-8 temporary path"),
        ];
        args.extend(extra);
        let probe = Probe::spawn(tree.serve(&release_binary(), "127.0.0.1:0", &args));
        Host { tree, probe }
    }

    fn instance(&self) -> String {
        self.probe.addr().to_string()
    }

    fn port_file(&self, device: &str, file: &str) -> PathBuf {
        self.tree
            .sysfs()
            .join("class/infiniband")
            .join(device)
            .join("ports/1")
            .join(file)
    }

    fn read(&self, device: &str, file: &str) -> String {
        let path = self.port_file(device, file);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
            .trim()
            .to_string()
    }

    fn counter(&self, device: &str, file: &str) -> u64 {
        let text = self.read(device, file);
        text.parse()
            .unwrap_or_else(|_| panic!("{device} {file}: {text:?} is not a counter"))
    }

    /// Writes `value` into the port's `file` (`counters/port_xmit_data`, `state`), as the
    /// kernel would show a change.
    fn write(&self, device: &str, file: &str, value: &str) {
        let path = self.port_file(device, file);
        std::fs::write(&path, format!("{value}\n"))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }

    fn add(&self, device: &str, file: &str, by: u64) {
        lab_tests::probe::add_to_counter(&self.port_file(device, file), by);
    }
}

/// The RDMA devices of the fixture (each has port 1).
fn devices() -> Vec<String> {
    let dir = lab_tests::repo_root().join("native-probe/tests/fixtures/sysfs/class/infiniband");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn rule_file(name: &str) -> RuleFile {
    RuleFile::read(&prometheus::deploy_dir().join("rules").join(name))
}

fn dashboard() -> Value {
    let path = lab_tests::repo_root().join("deploy/grafana/rdma-lab.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every panel of the dashboard, rows' own panels included.
fn panels(dashboard: &Value) -> Vec<&Value> {
    let mut all = Vec::new();
    for panel in dashboard["panels"]
        .as_array()
        .expect("the dashboard has panels")
    {
        all.push(panel);
        if let Some(inner) = panel["panels"].as_array() {
            all.extend(inner);
        }
    }
    all
}

/// A panel's (title, expr) pairs.
fn dashboard_queries(dashboard: &Value) -> Vec<(String, String)> {
    panels(dashboard)
        .into_iter()
        .filter(|p| p["type"] != "row")
        .flat_map(|p| {
            let title = p["title"].as_str().unwrap_or("?").to_string();
            p["targets"]
                .as_array()
                .unwrap_or_else(|| panic!("panel {title:?} has no targets"))
                .iter()
                .map(move |t| {
                    let expr = t["expr"]
                        .as_str()
                        .unwrap_or_else(|| panic!("a target of {title:?} has no expr"));
                    (title.clone(), expr.to_string())
                })
        })
        .collect()
}

/// `expr` as Grafana sends it with `host` set to every one of `instances` (a multi-value
/// regex, its dots escaped as Grafana's Prometheus source escapes them inside a PromQL
/// string), `device` to All, and `$__rate_interval` to a minute.
fn as_grafana_sends(expr: &str, instances: &[String]) -> String {
    let hosts: Vec<String> = instances.iter().map(|i| i.replace('.', "\\\\.")).collect();
    expr.replace("$host", &format!("({})", hosts.join("|")))
        .replace("$device", ".+")
        .replace("$__rate_interval", "1m")
}

/// `label_values(METRIC, LABEL)` → (METRIC, LABEL): Grafana's template query, answered by
/// asking for METRIC's series.
fn label_values(query: &str) -> (String, String) {
    let inner = query
        .strip_prefix("label_values(")
        .and_then(|q| q.strip_suffix(')'))
        .unwrap_or_else(|| panic!("template query {query:?} is not label_values(METRIC, LABEL)"));
    let (metric, label) = inner
        .rsplit_once(',')
        .unwrap_or_else(|| panic!("template query {query:?} has no label"));
    (metric.trim().to_string(), label.trim().to_string())
}

/// The instances `series` covers.
fn instances_of(series: &[Series]) -> BTreeSet<String> {
    series
        .iter()
        .map(|s| s.label("instance").to_string())
        .collect()
}

/// The value of the series of `instance` and `device` (port 1) in `series`.
fn value_of(series: &[Series], instance: &str, device: &str) -> f64 {
    let found: Vec<&Series> = series
        .iter()
        .filter(|s| s.label("instance") == instance && s.label("device") == device)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one series of {instance} {device}: {series:#?}"
    );
    assert_eq!(found[0].label("port"), "1");
    found[0].value
}

#[test]
fn a_fleet_of_three_probes_in_prometheus_matches_its_trees() {
    let devices = devices();
    // Three hosts whose data counters differ, so a value shown under the wrong instance is
    // caught.
    let hosts: Vec<Host> = (0..3u64)
        .map(|n| {
            let tree = FixtureSite::copied(&format!("prom-fleet-{n}"));
            for device in &devices {
                let path = tree
                    .sysfs()
                    .join("class/infiniband")
                    .join(device)
                    .join("ports/1/counters/port_xmit_data");
                lab_tests::probe::add_to_counter(&path, 1000 * (n + 1));
            }
            let extra: &[&str] = if n == 2 { &["--token", TOKEN] } else { &[] };
            Host::serve(tree, extra)
        })
        .collect();
    let instances: Vec<String> = hosts.iter().map(Host::instance).collect();
    let all: BTreeSet<String> = instances.iter().cloned().collect();
    let addrs: Vec<SocketAddr> = hosts.iter().map(|h| h.probe.addr()).collect();

    // Every alert's `for:` (minutes, deployed) is 1 s in the test's copy, so one driven below
    // fires within seconds; the expressions are the repository's.
    let prometheus = Prometheus::start(&Scrape {
        probes: addrs[..2].to_vec(),
        token_probes: Some((TOKEN.into(), vec![addrs[2]])),
        alert_for: Some("1s".into()),
        ..Scrape::default()
    });
    prometheus.wait_for_scrapes(&addrs, 2);

    // Each host under its job, the token one scraped with its bearer token.
    let up = prometheus.query("up == 1");
    for (instance, job) in instances
        .iter()
        .zip(["rdma-lab", "rdma-lab", "rdma-lab-token"])
    {
        assert!(
            up.iter()
                .any(|s| s.label("instance") == instance && s.label("job") == job),
            "{instance} up under {job}: {up:#?}"
        );
    }
    let info = prometheus.query("rdma_lab_probe_info");
    assert_eq!(instances_of(&info), all, "{info:#?}");
    assert!(info
        .iter()
        .all(|s| s.label("source") == "recorded" && s.value == 1.0));

    // Values as the trees hold them: the data counter in bytes (×4), each host its own.
    let sent = prometheus.query("rdma_lab_infiniband_port_data_transmitted_bytes_total");
    let state = prometheus.query("rdma_lab_infiniband_state_id");
    for host in &hosts {
        for device in &devices {
            let words = host.counter(device, "counters/port_xmit_data");
            assert_eq!(
                value_of(&sent, &host.instance(), device),
                (words * 4) as f64,
                "{} {device}",
                host.instance()
            );
            let code: f64 = host
                .read(device, "state")
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(value_of(&state, &host.instance(), device), code);
        }
    }

    // Every recording rule, as written and by the name it records; every dashboard query and
    // template query: a series for each probe, once two scrapes are in.
    let recording = rule_file("recording.yml");
    let mut exprs: Vec<(String, String)> = Vec::new();
    for rule in recording.rules() {
        exprs.push((format!("rule {}", rule.name()), rule.expr.clone()));
        exprs.push((format!("recorded {}", rule.name()), rule.name().to_string()));
    }
    let dashboard = dashboard();
    for (title, expr) in dashboard_queries(&dashboard) {
        exprs.push((
            format!("panel {title:?}"),
            as_grafana_sends(&expr, &instances),
        ));
    }
    for variable in dashboard["templating"]["list"].as_array().unwrap() {
        if variable["type"] == "query" {
            let (metric, label) = label_values(variable["query"]["query"].as_str().unwrap());
            let expr = as_grafana_sends(&metric, &instances);
            let series = prometheus.wait_for(&expr, SETTLE, "a template query's series", |s| {
                instances_of(s) == all
            });
            assert!(
                series.iter().all(|s| s.labels.contains_key(&label)),
                "{expr}: every series has {label}: {series:#?}"
            );
        }
    }
    for (what, expr) in &exprs {
        let series = prometheus.wait_for(expr, SETTLE, &format!("{what}: every host"), |s| {
            instances_of(s) == all
        });
        assert!(
            series.iter().all(|s| s.value.is_finite()),
            "{what}: {series:#?}"
        );
    }
    // The trees stand still: every rate is zero, everywhere.
    for rule in recording.rules() {
        let series = prometheus.query(rule.name());
        assert!(
            series.iter().all(|s| s.value == 0.0),
            "{}: {series:#?}",
            rule.name()
        );
    }

    // A healthy fleet raises nothing: each alert's expression is empty.
    let alerts = rule_file("alerts.yml");
    for rule in alerts.rules() {
        let series = prometheus.query(&rule.expr);
        assert!(
            series.is_empty(),
            "{} on healthy trees: {series:#?}",
            rule.name()
        );
    }

    // Host 1 sends a gigaword on mlx5_0 and sees a lost packet and an ACK timeout, and one of
    // its RDMA WRITEs is refused (a remote access error, its error completion and the work
    // requests flushed after it); host 2's mlx5_1 port goes DOWN. Host 0 does nothing.
    let (busy, down) = (&hosts[1], &hosts[2]);
    busy.add("mlx5_0", "counters/port_xmit_data", 1_000_000_000);
    busy.add("mlx5_0", "hw_counters/out_of_sequence", 5);
    busy.add("mlx5_0", "hw_counters/local_ack_timeout_err", 3);
    busy.add("mlx5_0", "hw_counters/req_remote_access_errors", 1);
    busy.add("mlx5_0", "hw_counters/req_cqe_error", 1);
    busy.add("mlx5_0", "hw_counters/req_cqe_flush_error", 30);
    down.write("mlx5_1", "state", "1: DOWN");

    let tx = "instance_device_port:rdma_lab_infiniband_port_data_transmitted_bytes:rate1m";
    let rates = prometheus.wait_for(tx, SETTLE, "host 1's transmit rate moves", |s| {
        value_of(s, &busy.instance(), "mlx5_0") > 0.0
    });
    for host in &hosts {
        for device in &devices {
            if host.instance() != busy.instance() || device != "mlx5_0" {
                assert_eq!(
                    value_of(&rates, &host.instance(), device),
                    0.0,
                    "{} {device} did not send: {rates:#?}",
                    host.instance()
                );
            }
        }
    }
    // The step in bytes is exactly the words written, ×4.
    let step = prometheus.query(&format!(
        "max_over_time(rdma_lab_infiniband_port_data_transmitted_bytes_total{{instance=\"{}\",device=\"mlx5_0\"}}[1m]) \
         - min_over_time(rdma_lab_infiniband_port_data_transmitted_bytes_total{{instance=\"{}\",device=\"mlx5_0\"}}[1m])",
        busy.instance(),
        busy.instance()
    ));
    assert_eq!(step.len(), 1, "{step:#?}");
    assert_eq!(step[0].value, 4e9);

    let errors = "instance_device_port:rdma_lab_infiniband_errors:rate1m";
    let rates = prometheus.wait_for(errors, SETTLE, "host 1's error rate moves", |s| {
        value_of(s, &busy.instance(), "mlx5_0") > 0.0
    });
    let moved: Vec<&Series> = rates.iter().filter(|s| s.value != 0.0).collect();
    assert_eq!(
        moved.len(),
        1,
        "only host 1's mlx5_0 has errors: {rates:#?}"
    );

    // The alerts: the two loss alerts and the failed-operations alert on host 1's mlx5_0, the
    // state alert on host 2's mlx5_1, all firing; nothing on host 0, and no congestion alert
    // (no history to compare with).
    let expected: BTreeSet<(String, String, String)> = [
        ("RdmaLabOutOfSequence", busy, "mlx5_0"),
        ("RdmaLabLocalAckTimeout", busy, "mlx5_0"),
        ("RdmaLabFailedOperations", busy, "mlx5_0"),
        ("RdmaLabPortNotActive", down, "mlx5_1"),
    ]
    .into_iter()
    .map(|(name, host, device)| (name.to_string(), host.instance(), device.to_string()))
    .collect();
    let firing_of = |alerts: &[Alert]| -> BTreeSet<(String, String, String)> {
        alerts
            .iter()
            .filter(|a| a.state == "firing")
            .map(|a| {
                (
                    a.labels["alertname"].clone(),
                    a.labels["instance"].clone(),
                    a.labels["device"].clone(),
                )
            })
            .collect()
    };
    let firing = prometheus.wait_for_alerts(
        SETTLE,
        &format!("exactly these alerts firing: {expected:#?}"),
        |alerts| firing_of(alerts) == expected,
    );
    let failed = firing
        .iter()
        .find(|a| a.labels["alertname"] == "RdmaLabFailedOperations")
        .unwrap();
    assert!(
        failed.annotations["description"].contains(&format!(
            "http://{}/troubleshooting#ib-completion-error",
            busy.instance()
        )),
        "{failed:#?}"
    );
    let port_down = firing
        .iter()
        .find(|a| a.labels["alertname"] == "RdmaLabPortNotActive")
        .unwrap();
    assert_eq!(port_down.labels["severity"], "critical");
    assert_eq!(port_down.value, "1e+00");
    assert!(
        port_down.annotations["description"].contains(&format!("http://{}/live", down.instance())),
        "{port_down:#?}"
    );
    assert!(
        port_down.annotations["summary"].contains("mlx5_1"),
        "{port_down:#?}"
    );
}

/// `promtool check config` on the deployed folder as a reader lays it out (the token file
/// beside it), and `promtool check rules` on both rule files.
#[test]
fn promtool_accepts_the_configuration_and_the_rules() {
    let scratch = scratch("promtool");
    let dir = scratch.path();
    copy_tree(&prometheus::deploy_dir(), dir).expect("deploy/prometheus copies");
    std::fs::write(dir.join(TOKEN_FILE), TOKEN).unwrap();
    let config = dir.join("prometheus.yml");
    promtool(&["check", "config"], &[&config]);
    let rules = dir.join("rules");
    promtool(
        &["check", "rules"],
        &[&rules.join("recording.yml"), &rules.join("alerts.yml")],
    );
}

/// A folder of its own for one check, removed when dropped (a failed check included).
fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("rdma-lab-{name}-"))
        .tempdir()
        .expect("a scratch folder")
}

fn promtool(args: &[&str], files: &[&Path]) {
    assert!(
        Path::new(PROMTOOL).is_file(),
        "{PROMTOOL} is missing: it comes with Debian's `prometheus` package (`./lab test` installs it)"
    );
    let output = Command::new(PROMTOOL)
        .args(args)
        .args(files)
        .output()
        .expect("promtool runs");
    assert!(
        output.status.success(),
        "promtool {args:?} {files:?}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The recording rule for errors sums exactly the lab's error set.
#[test]
fn the_error_rule_sums_the_error_set() {
    let recording = rule_file("recording.yml");
    let rule = recording
        .rules()
        .find(|r| r.name() == "instance_device_port:rdma_lab_infiniband_errors:rate1m")
        .expect("recording.yml records the error rate");
    // Each term: label_replace(rate(METRIC[1m]), "counter", "FILE", "", "").
    let terms: BTreeSet<(String, String)> = rule
        .expr
        .split("label_replace(rate(")
        .skip(1)
        .map(|term| {
            let (metric, rest) = term
                .split_once("[1m]), \"counter\", \"")
                .unwrap_or_else(|| panic!("a term of the error rule: {term}"));
            let file = rest.split('"').next().unwrap();
            (file.to_string(), metric.to_string())
        })
        .collect();
    let set: BTreeSet<(String, String)> = ERROR_SET
        .iter()
        .map(|(f, m)| (f.to_string(), m.to_string()))
        .collect();
    assert_eq!(terms, set);
    // The page's own error figure (from the probes' samples) adds the same counters.
    assert_eq!(
        ERROR_SET.map(|(file, _)| file),
        engine::probe::fleet::ERROR_COUNTERS
    );
    for (file, _) in ERROR_SET {
        assert!(
            rule_comment_names(file),
            "recording.yml's comment names {file}"
        );
    }
}

fn rule_comment_names(file: &str) -> bool {
    let path = prometheus::deploy_dir().join("rules/recording.yml");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.trim_start().starts_with('#'))
        .any(|l| l.contains(file))
}

/// Alerts and panels each link to a lab page that exists, at a heading it has.
#[test]
fn every_alert_and_panel_explains_itself_and_links_to_the_lab() {
    for rule in rule_file("alerts.yml").rules() {
        let name = rule.name();
        assert!(rule.for_.is_some(), "{name} has a `for:`");
        assert!(
            ["warning", "critical"]
                .contains(&rule.labels.get("severity").map_or("", String::as_str)),
            "{name} has severity warning or critical"
        );
        let summary = rule.annotations.get("summary").map_or("", String::as_str);
        assert!(
            summary.contains("{{ $labels.instance }}"),
            "{name}: summary names the host"
        );
        let description = rule
            .annotations
            .get("description")
            .map_or("", String::as_str);
        assert!(description.len() > 200, "{name}: the description explains");
        assert_lab_link(name, description, "http://{{ $labels.instance }}");
    }

    let dashboard = dashboard();
    assert!(dashboard["schemaVersion"].as_u64().is_some_and(|v| v >= 36));
    let variables = dashboard["templating"]["list"].as_array().unwrap();
    let variable = |name: &str| {
        variables
            .iter()
            .find(|v| v["name"] == name)
            .unwrap_or_else(|| panic!("the dashboard has a {name} variable"))
    };
    assert_eq!(variable("datasource")["type"], "datasource");
    assert_eq!(variable("datasource")["query"], "prometheus");
    assert_eq!(
        variable("host")["query"]["query"],
        "label_values(rdma_lab_probe_info, instance)"
    );
    let by_variable = serde_json::json!({"type": "prometheus", "uid": "${datasource}"});
    for v in variables.iter().filter(|v| v["type"] == "query") {
        assert_eq!(v["datasource"], by_variable, "variable {}", v["name"]);
    }
    let mut kinds = BTreeSet::new();
    for panel in panels(&dashboard) {
        let title = panel["title"].as_str().unwrap_or("?");
        if panel["type"] == "row" {
            assert_eq!(
                panel["repeat"], "device",
                "row {title:?} repeats per device"
            );
            continue;
        }
        kinds.insert(title.to_string());
        assert_eq!(panel["datasource"], by_variable, "panel {title:?}");
        let description = panel["description"].as_str().unwrap_or("");
        assert!(
            description.len() > 200,
            "panel {title:?} explains what it shows"
        );
        assert_lab_link(title, description, "http://${host}");
        for target in panel["targets"].as_array().unwrap() {
            assert_eq!(target["datasource"], by_variable, "a target of {title:?}");
            let expr = target["expr"].as_str().unwrap();
            assert!(
                expr.contains("instance=~\"$host\"") && expr.contains("device=~\"$device\""),
                "{title:?}: {expr} selects $host and $device"
            );
        }
    }
    for needed in ["Throughput", "Congestion (DCQCN)", "Errors"] {
        assert!(kinds.contains(needed), "a {needed:?} panel: {kinds:?}");
    }
    let ids: Vec<u64> = panels(&dashboard)
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect();
    assert_eq!(
        ids.iter().collect::<BTreeSet<_>>().len(),
        ids.len(),
        "panel ids are unique"
    );
}

/// `text` holds `BASE/PATH#ANCHOR`, PATH a topic of content/topics.toml and ANCHOR one of its
/// headings (as the site's content compiler names them).
fn assert_lab_link(what: &str, text: &str, base: &str) {
    let at = text
        .find(&format!("{base}/"))
        .unwrap_or_else(|| panic!("{what}: links to the lab ({base}/...): {text}"));
    let link = text[at + base.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(['.', ',', ')']);
    let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
    let topic = lab_tests::topics::all()
        .into_iter()
        .find(|t| t.path == path)
        .unwrap_or_else(|| panic!("{what}: {path} is not a lab topic"));
    if anchor.is_empty() {
        return;
    }
    let page = lab_tests::repo_root()
        .join("content/topics")
        .join(format!("{}.md", topic.slug()));
    let headings: BTreeMap<String, String> = std::fs::read_to_string(&page)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| h.trim_start_matches('#').trim().to_string())
        .map(|h| (heading_anchor(&h), h))
        .collect();
    assert!(
        headings.contains_key(anchor),
        "{what}: {page:?} has no heading #{anchor}; it has {:?}",
        headings.keys()
    );
}

/// A heading's id as app/build/content.rs makes it: lowercase letters, digits and `_`, runs of
/// spaces and hyphens as one `-`.
fn heading_anchor(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
        } else if (c.is_whitespace() || c == '-') && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// The congestion alert compares a port with itself ten minutes earlier, which no live test
/// can wait for: `promtool test rules` plays an hour of synthetic counters through both rule
/// files and evaluates the alert's own expression (read from alerts.yml). Port mlx5_0 runs
/// freely, then from minute 15 handles a hundred times the CNPs and sends 30% of the bytes;
/// mlx5_1 is congested and slow throughout, which is its normal and raises nothing.
#[test]
fn the_congestion_alert_fires_on_a_change_not_on_a_steady_state() {
    let alert = rule_file("alerts.yml")
        .rules()
        .find(|r| r.name() == "RdmaLabCongestionThrottling")
        .expect("alerts.yml has RdmaLabCongestionThrottling")
        .clone();
    let labels = |device: &str| {
        format!("{{instance=\"h:7878\",job=\"rdma-lab\",device=\"{device}\",port=\"1\"}}")
    };
    let cnp = "rdma_lab_infiniband_rp_cnp_packets_handled_total";
    let tx = "rdma_lab_infiniband_port_data_transmitted_bytes_total";
    // Per minute: 600 CNPs (10/s) then 60000 (1000/s); 1 GB then 0.3 GB. mlx5_1: 60000 and
    // 0.3 GB from the start.
    let series = serde_json::json!([
        {"series": format!("{cnp}{}", labels("mlx5_0")), "values": "0+600x15 69000+60000x44"},
        {"series": format!("{tx}{}", labels("mlx5_0")),
         "values": "0+1000000000x15 15300000000+300000000x44"},
        {"series": format!("{cnp}{}", labels("mlx5_1")), "values": "0+60000x60"},
        {"series": format!("{tx}{}", labels("mlx5_1")), "values": "0+300000000x60"},
    ]);
    let fired = "instance_device_port:rdma_lab_infiniband_rp_cnp_packets_handled:rate1m\
                 {device=\"mlx5_0\",instance=\"h:7878\",port=\"1\"}";
    let at = |minute: u32, samples: Value| serde_json::json!({"expr": alert.expr, "eval_time": format!("{minute}m"), "exp_samples": samples});
    let tests = serde_json::json!({
        "rule_files": ["recording.yml", "alerts.yml"],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": series,
            "promql_expr_test": [
                // Before the change: nothing.
                at(14, serde_json::json!([])),
                // Five minutes in, CNPs at 1000/s against 10/s then: mlx5_0 alone.
                at(20, serde_json::json!([{"labels": fired, "value": 1000}])),
                // Ten minutes on, the congested state is the one it is compared with: quiet.
                at(30, serde_json::json!([])),
            ],
        }],
    });
    let scratch = scratch("promtool-test");
    let dir = scratch.path();
    copy_tree(&prometheus::deploy_dir().join("rules"), dir).expect("the rules copy");
    let file = dir.join("congestion_test.yml");
    std::fs::write(&file, serde_yaml::to_string(&tests).unwrap()).unwrap();
    promtool(&["test", "rules"], &[&file]);
}

/// Prometheus 2.42 answers every origin by default (`--web.cors.origin=".*"`); with the
/// option only the page at that origin may read the API, as the lab's cluster view does.
#[test]
fn the_cors_origin_option_lets_only_that_page_read_the_api() {
    let page = "http://127.0.0.1:7878";
    let prometheus = Prometheus::start(&Scrape {
        cors_origin: Some(r"http://127\.0\.0\.1:7878".into()),
        ..Scrape::default()
    });
    assert_eq!(prometheus.cors_allows(page).as_deref(), Some(page));
    assert_eq!(prometheus.cors_allows("http://elsewhere.example"), None);
}
