//! Debian's real Prometheus as the tests run it: the repository's `deploy/prometheus`
//! configuration and rules in a private folder, scraping the probes a test names, on a free
//! loopback port; ready once `/-/ready` answers, asked through its HTTP API, stopped (and its
//! folder removed) when dropped, its stderr kept for the message of a failure.

use std::{
    collections::BTreeMap,
    net::SocketAddr,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use rustix::process::{kill_process, Pid, Signal};
use tempfile::TempDir;

use crate::{
    loopback::{free_port, get, Answer},
    probe::KeptStderr,
};
use serde::{Deserialize, Serialize};

/// Where Debian's package puts the server; `LAB_PROMETHEUS` names another.
const BINARY: &str = "/usr/bin/prometheus";
/// Where Debian's package puts the rule and configuration checker.
pub const PROMTOOL: &str = "/usr/bin/promtool";

/// The repository's configuration folder, as a reader copies it to `/etc/prometheus`.
pub fn deploy_dir() -> PathBuf {
    crate::repo_root().join("deploy/prometheus")
}

/// The two jobs of `prometheus.yml`: their names, and the file_sd glob and credentials file
/// each reads (relative to the configuration's folder, as Prometheus resolves them).
pub const OPEN_JOB: &str = "rdma-lab";
pub const TOKEN_JOB: &str = "rdma-lab-token";
const OPEN_TARGETS: &str = "targets/*.json";
const TOKEN_TARGETS: &str = "targets-token/*.json";
pub const TOKEN_FILE: &str = "rdma-lab.token";

/// The deployed intervals are 15 s (a node_exporter-like cost per host). A test cannot
/// wait minutes for two scrapes, so its copy scrapes and evaluates every second: what the
/// tests check (series, labels, values, rates) does not depend on the interval.
pub const TEST_INTERVAL: &str = "1s";
/// How long Prometheus may take to start, and a test's wait for scrapes.
const START: Duration = Duration::from_secs(30);
/// How long a stopped Prometheus may take to exit (it flushes its head block) before it is
/// killed.
const STOP: Duration = Duration::from_secs(5);

/// What to scrape, and how.
#[derive(Default)]
pub struct Scrape {
    /// Probes served without a token: the `rdma-lab` job.
    pub probes: Vec<SocketAddr>,
    /// Probes served with `--token TOKEN` (one token for the job, as one credentials file
    /// serves it): the `rdma-lab-token` job.
    pub token_probes: Option<(String, Vec<SocketAddr>)>,
    /// `--web.cors.origin`: a regex of the page origins that may read the API (a browser
    /// test's probe).
    pub cors_origin: Option<String>,
    /// Replaces every alert's `for:` in the test's copy of `rules/alerts.yml`, so a test can
    /// see an alert fire without waiting the deployed minutes. `None` keeps the file's.
    pub alert_for: Option<String>,
}

impl Scrape {
    /// Every probe address, open and token.
    pub fn all(&self) -> Vec<SocketAddr> {
        let mut all = self.probes.clone();
        if let Some((_, token)) = &self.token_probes {
            all.extend(token);
        }
        all
    }
}

/// A running Prometheus; stopped when dropped.
pub struct Prometheus {
    child: Child,
    addr: SocketAddr,
    dir: TempDir,
    stderr: KeptStderr,
}

/// One series of an instant vector: its labels (`__name__` among them when it has a name)
/// and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Series {
    /// The value of label `name`, which the series must have.
    pub fn label(&self, name: &str) -> &str {
        self.labels
            .get(name)
            .unwrap_or_else(|| panic!("series {:?} has no label {name:?}", self.labels))
    }
}

/// One alert of `/api/v1/alerts`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alert {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    /// `pending` (its expression holds, for less than `for:`) or `firing`.
    pub state: String,
    #[serde(rename = "activeAt")]
    pub active_at: Option<String>,
    /// The expression's value, as Prometheus formats it.
    pub value: String,
}

impl Prometheus {
    /// Starts Prometheus over a copy of `deploy/prometheus` scraping `scrape`'s probes, and
    /// waits until it is ready. Panics, with its stderr, when it cannot.
    pub fn start(scrape: &Scrape) -> Prometheus {
        let binary = std::env::var_os("LAB_PROMETHEUS")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(BINARY));
        assert!(
            binary.is_file(),
            "{} is missing: the Prometheus tests need Debian's `prometheus` package \
             (`./lab test` installs it; or `apt-get install prometheus`), or LAB_PROMETHEUS \
             naming a prometheus binary",
            binary.display()
        );
        // A free port, found by binding it and letting it go: another process may take it
        // in between, so a start that fails to listen is tried again on another, each try
        // in its own folder (removed with the try).
        let mut last = String::new();
        for _ in 0..3 {
            let dir = scratch_dir();
            write_config(dir.path(), scrape);
            let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
            let mut command = Command::new(&binary);
            command
                .arg(format!(
                    "--config.file={}",
                    dir.path().join("prometheus.yml").display()
                ))
                .arg(format!(
                    "--storage.tsdb.path={}",
                    dir.path().join("data").display()
                ))
                .arg(format!("--web.listen-address={addr}"))
                .arg("--log.level=warn");
            if let Some(origin) = &scrape.cors_origin {
                command.arg(format!("--web.cors.origin={origin}"));
            }
            let mut prometheus = Prometheus::spawn(command, addr, dir);
            match prometheus.wait_ready() {
                Ok(()) => return prometheus,
                Err(said) => last = said,
            }
        }
        panic!("prometheus did not start: {last}")
    }

    fn spawn(mut command: Command, addr: SocketAddr, dir: TempDir) -> Prometheus {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
        let stderr = KeptStderr::of(&mut child);
        Prometheus {
            child,
            addr,
            dir,
            stderr,
        }
    }

    /// Polls `/-/ready` until it answers 200; what went wrong otherwise, stderr included.
    fn wait_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + START;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.stderr.finish();
                return Err(format!("it exited ({status}); {}", self.said()));
            }
            if let Ok(Answer { status: 200, .. }) = get(self.addr, "/-/ready", &[]) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "/-/ready did not answer 200 within {} s; {}",
                    START.as_secs(),
                    self.said()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn said(&self) -> String {
        format!("its stderr:\n{}", self.stderr.text())
    }

    fn fail(&self, what: &str) -> ! {
        panic!("prometheus: {what}; {}", self.said())
    }

    /// `http://127.0.0.1:PORT`, without a trailing `/`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The folder holding the configuration Prometheus runs (`prometheus.yml`, `rules/`,
    /// the targets), for a test that wants to look at it.
    pub fn config_dir(&self) -> &Path {
        self.dir.path()
    }

    /// What it has written to stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.text()
    }

    /// Evaluates `expr` now (`/api/v1/query`): an instant vector, or the error Prometheus
    /// gives (a bad expression, a scalar or string result) as `Err`.
    pub fn try_query(&self, expr: &str) -> Result<Vec<Series>, String> {
        let path = format!("/api/v1/query?query={}", encode(expr));
        let body = self.api(&path)?;
        instant_vector(&body).map_err(|e| format!("{expr:?}: {e}"))
    }

    /// [`Prometheus::try_query`], panicking on an error.
    pub fn query(&self, expr: &str) -> Vec<Series> {
        self.try_query(expr)
            .unwrap_or_else(|e| self.fail(&format!("query {expr:?}: {e}")))
    }

    /// Queries `expr` until `done` holds for its result, within `limit`; the last result.
    pub fn wait_for(
        &self,
        expr: &str,
        limit: Duration,
        what: &str,
        done: impl Fn(&[Series]) -> bool,
    ) -> Vec<Series> {
        let deadline = Instant::now() + limit;
        loop {
            let series = self.query(expr);
            if done(&series) {
                return series;
            }
            if Instant::now() >= deadline {
                self.fail(&format!(
                    "{what}: not within {} s; {expr:?} last gave {series:#?}; targets: {}",
                    limit.as_secs(),
                    self.targets_health()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Polls the alerts until `done` holds for them, within `limit`, and returns them.
    pub fn wait_for_alerts(
        &self,
        limit: Duration,
        what: &str,
        done: impl Fn(&[Alert]) -> bool,
    ) -> Vec<Alert> {
        let deadline = Instant::now() + limit;
        loop {
            let alerts = self.alerts();
            if done(&alerts) {
                return alerts;
            }
            if Instant::now() >= deadline {
                self.fail(&format!(
                    "{what}: not within {} s; the alerts are {alerts:#?}",
                    limit.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Waits until every one of `instances` has been scraped at least `scrapes` times and
    /// its last scrape succeeded (`up` is 1).
    pub fn wait_for_scrapes(&self, instances: &[SocketAddr], scrapes: usize) {
        let expr = "count_over_time(up[1h]) and up == 1";
        self.wait_for(
            expr,
            START,
            &format!("{scrapes} good scrapes of each of {instances:?}"),
            |series| {
                instances.iter().all(|addr| {
                    let instance = addr.to_string();
                    series
                        .iter()
                        .any(|s| s.label("instance") == instance && s.value >= scrapes as f64)
                })
            },
        );
    }

    /// The `Access-Control-Allow-Origin` Prometheus answers a page at `origin` with on
    /// `/api/v1/query`: `Some(origin)` (or `*`) when the page may read the answer.
    pub fn cors_allows(&self, origin: &str) -> Option<String> {
        get(self.addr, "/api/v1/query?query=up", &[("Origin", origin)])
            .unwrap_or_else(|e| self.fail(&format!("/api/v1/query from {origin}: {e}")))
            .fields
            .into_iter()
            .find(|(name, _)| name == "access-control-allow-origin")
            .map(|(_, value)| value)
    }

    /// Every alert Prometheus holds, pending or firing (`/api/v1/alerts`).
    pub fn alerts(&self) -> Vec<Alert> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Alerts {
            alerts: Vec<Alert>,
        }
        let body = self
            .api("/api/v1/alerts")
            .unwrap_or_else(|e| self.fail(&format!("/api/v1/alerts: {e}")));
        let alerts: Alerts =
            parse_response(&body).unwrap_or_else(|e| self.fail(&format!("/api/v1/alerts: {e}")));
        alerts.alerts
    }

    /// Each target's job, address, health and last error, for a failure's message.
    fn targets_health(&self) -> String {
        match self.api("/api/v1/targets?state=active") {
            Ok(body) => serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| {
                    let targets = v["data"]["activeTargets"].as_array()?.iter().map(|t| {
                        format!(
                            "\n  {} {} {} {}",
                            t["labels"]["job"], t["scrapeUrl"], t["health"], t["lastError"]
                        )
                    });
                    Some(targets.collect::<String>())
                })
                .unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned()),
            Err(e) => e,
        }
    }

    /// The body of a 200 answer to `path`, or the status and body of another.
    fn api(&self, path: &str) -> Result<Vec<u8>, String> {
        let answer = get(self.addr, path, &[])?;
        match (answer.status, answer.body) {
            (200, body) => Ok(body),
            // The API's errors (400 bad_data, 422 execution) carry their JSON message.
            (400 | 422 | 503, body) => match parse_response::<serde_json::Value>(&body) {
                Err(e) => Err(e),
                Ok(_) => Err(format!("{path}: an error status with a success body")),
            },
            (status, body) => Err(format!(
                "{path} answered {status}: {}",
                String::from_utf8_lossy(&body)
            )),
        }
    }

    /// Sends SIGTERM, and kills it if it has not exited within [`STOP`].
    fn stop(&mut self) {
        // Never a signal to a process already reaped: its id may be another's by now.
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        let asked = kill_process(Pid::from_child(&self.child), Signal::TERM).is_ok();
        let deadline = Instant::now() + STOP;
        while asked && Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Prometheus {
    /// Stops it and removes its folder. A failing test is shown what it said.
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            self.stderr.finish();
            let said = self.stderr();
            if !said.is_empty() {
                eprintln!("prometheus's stderr:\n{said}");
            }
        }
    }
}

/// A fresh folder for one Prometheus, removed when dropped.
fn scratch_dir() -> TempDir {
    tempfile::Builder::new()
        .prefix("rdma-lab-prometheus-")
        .tempdir()
        .expect("a temporary folder for prometheus")
}

/// Writes into `dir` the repository's `prometheus.yml` with [`TEST_INTERVAL`], its rules
/// (alerts' `for:` as `scrape` says), the targets of both jobs and the token file.
fn write_config(dir: &Path, scrape: &Scrape) {
    let source = deploy_dir();
    let config = test_config(&read(&source.join("prometheus.yml")));
    write(&dir.join("prometheus.yml"), &config);

    std::fs::create_dir_all(dir.join("rules")).expect("a rules folder");
    for rules in ["recording.yml", "alerts.yml"] {
        let path = source.join("rules").join(rules);
        let mut file = RuleFile::read(&path);
        if let Some(every) = &scrape.alert_for {
            for rule in file.groups.iter_mut().flat_map(|g| g.rules.iter_mut()) {
                if rule.alert.is_some() {
                    rule.for_ = Some(every.clone());
                }
            }
        }
        let yaml = serde_yaml::to_string(&file).expect("a rule file serializes");
        write(&dir.join("rules").join(rules), &yaml);
    }

    let targets = |addrs: &[SocketAddr]| {
        let list: Vec<String> = addrs.iter().map(|a| a.to_string()).collect();
        serde_json::json!([{ "targets": list }]).to_string()
    };
    for (glob, addrs) in [
        (OPEN_TARGETS, scrape.probes.as_slice()),
        (
            TOKEN_TARGETS,
            scrape
                .token_probes
                .as_ref()
                .map_or(&[][..], |(_, a)| a.as_slice()),
        ),
    ] {
        let file = dir.join(glob.replace('*', "probes"));
        std::fs::create_dir_all(file.parent().unwrap()).expect("a targets folder");
        write(&file, &targets(addrs));
    }
    // The token job always has a credentials file, so the configuration loads as deployed;
    // with no token probes it scrapes nothing.
    let token = scrape.token_probes.as_ref().map_or("unused", |(t, _)| t);
    write(&dir.join(TOKEN_FILE), token);
}

/// The repository's `prometheus.yml` as the tests run it: global intervals set to
/// [`TEST_INTERVAL`] (and the timeout, which may not exceed the interval). Checks that the
/// file has the layout the harness writes targets for: panics, naming the key, otherwise.
pub fn test_config(yaml: &str) -> String {
    use serde_yaml::Value;
    let mut config: Value = serde_yaml::from_str(yaml)
        .unwrap_or_else(|e| panic!("deploy/prometheus/prometheus.yml: {e}"));
    let global = config
        .get_mut("global")
        .and_then(Value::as_mapping_mut)
        .expect("prometheus.yml has a `global` mapping");
    for key in ["scrape_interval", "evaluation_interval"] {
        assert!(
            global.contains_key(key),
            "prometheus.yml: global.{key} is the deployed interval the tests shorten; it is missing"
        );
    }
    for key in ["scrape_interval", "scrape_timeout", "evaluation_interval"] {
        global.insert(key.into(), TEST_INTERVAL.into());
    }
    let jobs = config
        .get("scrape_configs")
        .and_then(Value::as_sequence)
        .expect("prometheus.yml has a `scrape_configs` list");
    let job = |name: &str| {
        jobs.iter()
            .find(|j| j.get("job_name").and_then(Value::as_str) == Some(name))
            .unwrap_or_else(|| panic!("prometheus.yml has no job {name:?}"))
    };
    for (name, glob) in [(OPEN_JOB, OPEN_TARGETS), (TOKEN_JOB, TOKEN_TARGETS)] {
        let job = job(name);
        for key in ["scrape_interval", "scrape_timeout"] {
            assert!(
                job.get(key).is_none(),
                "prometheus.yml: job {name:?} sets {key}; the tests shorten only the global one"
            );
        }
        let files: Vec<&str> = job
            .get("file_sd_configs")
            .and_then(Value::as_sequence)
            .into_iter()
            .flatten()
            .filter_map(|sd| sd.get("files").and_then(Value::as_sequence))
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(
            files,
            [glob],
            "prometheus.yml: job {name:?} reads its targets from file_sd files"
        );
    }
    let credentials = job(TOKEN_JOB)
        .get("authorization")
        .and_then(|a| a.get("credentials_file"))
        .and_then(Value::as_str);
    assert_eq!(
        credentials,
        Some(TOKEN_FILE),
        "prometheus.yml: job {TOKEN_JOB:?} sends the token of authorization.credentials_file"
    );
    serde_yaml::to_string(&config).expect("a configuration serializes")
}

/// A Prometheus rule file (`rules/*.yml`), parsed strictly: a misspelt key is an error.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    pub groups: Vec<RuleGroup>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuleGroup {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    pub rules: Vec<Rule>,
}

/// A recording rule (`record`) or an alerting rule (`alert`, with `for`, `annotations`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
    pub expr: String,
    #[serde(rename = "for", default, skip_serializing_if = "Option::is_none")]
    pub for_: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Rule {
    /// The series it records or the alert it raises.
    pub fn name(&self) -> &str {
        self.record
            .as_deref()
            .or(self.alert.as_deref())
            .unwrap_or("")
    }
}

impl RuleFile {
    /// Reads and checks `path`: each rule is a `record` or an `alert`, never both, and
    /// only alerts have `for` and annotations.
    pub fn read(path: &Path) -> RuleFile {
        let file: RuleFile =
            serde_yaml::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for rule in file.groups.iter().flat_map(|g| &g.rules) {
            match (&rule.record, &rule.alert) {
                (Some(_), None) => assert!(
                    rule.for_.is_none() && rule.annotations.is_empty(),
                    "{}: recording rule {} has `for` or annotations",
                    path.display(),
                    rule.name()
                ),
                (None, Some(_)) => {}
                _ => panic!(
                    "{}: a rule must have exactly one of `record` and `alert` (expr {:?})",
                    path.display(),
                    rule.expr
                ),
            }
        }
        file
    }

    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.groups.iter().flat_map(|g| &g.rules)
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()))
}

/// `text` as a URL query value.
fn encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// An API answer: `{"status": "success", "data": …}` or `{"status": "error", …}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Response<T> {
    status: String,
    data: Option<T>,
    #[serde(rename = "errorType")]
    error_type: Option<String>,
    error: Option<String>,
    #[serde(default)]
    warnings: Vec<String>,
}

fn parse_response<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    let response: Response<T> = serde_json::from_slice(body).map_err(|e| {
        format!(
            "an answer that is not the API's JSON ({e}): {}",
            String::from_utf8_lossy(body)
        )
    })?;
    match (response.status.as_str(), response.data) {
        ("success", Some(data)) if response.warnings.is_empty() => Ok(data),
        ("success", Some(_)) => Err(format!("warnings: {:?}", response.warnings)),
        ("error", _) => Err(format!(
            "{}: {}",
            response.error_type.unwrap_or_default(),
            response.error.unwrap_or_default()
        )),
        (status, _) => Err(format!("status {status:?} without data")),
    }
}

/// The series of an instant-vector answer, read by the engine's parser (the one the /live
/// view reads Prometheus with), after the envelope's own checks: an error or a warning is
/// what the test is told.
fn instant_vector(body: &[u8]) -> Result<Vec<Series>, String> {
    parse_response::<serde::de::IgnoredAny>(body)?;
    let text = std::str::from_utf8(body).map_err(|e| format!("an answer not in UTF-8: {e}"))?;
    engine::probe::fleet::prometheus::parse_instant(text)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|s| match s.points.as_slice() {
            [(_, value)] => Ok(Series {
                labels: s.labels,
                value: *value,
            }),
            points => Err(format!("{} points in an instant vector", points.len())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_vector_and_refuses_other_results_and_errors() {
        let body = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up","instance":"127.0.0.1:9"},"value":[1700000000.5,"1"]},
            {"metric":{},"value":[1700000000.5,"+Inf"]}]}}"#;
        let samples = instant_vector(body).unwrap();
        assert_eq!(samples.len(), 2);
        assert_eq!(samples[0].labels["instance"], "127.0.0.1:9");
        assert_eq!(samples[1].value, f64::INFINITY);
        let value = |v: &str| {
            instant_vector(
                format!(r#"{{"status":"success","data":{{"resultType":"vector","result":[{{"metric":{{}},"value":[1,"{v}"]}}]}}}}"#)
                    .as_bytes(),
            )
            .map(|s| s[0].value)
        };
        assert!(value("NaN").unwrap().is_nan());
        assert!(value("one").is_err());

        let scalar = br#"{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}"#;
        assert!(instant_vector(scalar).unwrap_err().contains("scalar"));
        let matrix = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{},"values":[[1,"1"]]}]}}"#;
        assert!(instant_vector(matrix).unwrap_err().contains("matrix"));
        let error = br#"{"status":"error","errorType":"bad_data","error":"parse error"}"#;
        assert_eq!(
            instant_vector(error).err().unwrap(),
            "bad_data: parse error"
        );
        let unknown = br#"{"status":"success","data":{"resultType":"vector","result":[]},"x":1}"#;
        assert!(instant_vector(unknown).is_err());
        let extra = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{},"value":[1,"1"],"histogram":[]}]}}"#;
        assert!(instant_vector(extra).is_err());
    }

    #[test]
    fn the_test_config_shortens_the_global_intervals_only() {
        let deployed = read(&deploy_dir().join("prometheus.yml"));
        let test: serde_yaml::Value = serde_yaml::from_str(&test_config(&deployed)).unwrap();
        assert_eq!(
            test["global"]["scrape_interval"].as_str(),
            Some(TEST_INTERVAL)
        );
        assert_eq!(
            test["global"]["evaluation_interval"].as_str(),
            Some(TEST_INTERVAL)
        );
        let deployed: serde_yaml::Value = serde_yaml::from_str(&deployed).unwrap();
        assert_eq!(test["scrape_configs"], deployed["scrape_configs"]);
        assert_eq!(test["rule_files"], deployed["rule_files"]);
    }

    #[test]
    fn a_rule_with_a_misspelt_key_or_both_kinds_is_refused() {
        let dir = scratch_dir();
        let misspelt = dir.path().join("misspelt.yml");
        write(
            &misspelt,
            "groups:\n- name: g\n  rules:\n  - record: a\n    expresion: up\n",
        );
        let both = dir.path().join("both.yml");
        write(
            &both,
            "groups:\n- name: g\n  rules:\n  - record: a\n    alert: b\n    expr: up\n",
        );
        for path in [misspelt, both] {
            assert!(std::panic::catch_unwind(|| RuleFile::read(&path)).is_err());
        }
    }
}
