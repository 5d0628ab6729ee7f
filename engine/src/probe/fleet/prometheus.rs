//! The fleet table from a Prometheus server's HTTP API (`/api/v1/query` for the figures now,
//! `/api/v1/query_range` for their trends), reading the recording rules the repository's
//! `deploy/prometheus/rules/recording.yml` defines over the probes' `/metrics`.
//!
//! Responses are read strictly: a field this code does not know is refused with its path, so
//! a change in the API shows up as a located error, not as a table of wrong numbers. The
//! format is Prometheus' "Format overview" and "Expression query result formats"
//! (prometheus.io/docs/prometheus/latest/querying/api/).

use std::{collections::BTreeMap, fmt};

use serde::Deserialize;

use super::{port_state, Figure, Fleet};

/// The recording rule each figure is read from: per-second rates over one minute, by
/// `instance`, `device` and `port`.
pub const TX_BYTES_RULE: &str =
    "instance_device_port:rdma_lab_infiniband_port_data_transmitted_bytes:rate1m";
pub const RX_BYTES_RULE: &str =
    "instance_device_port:rdma_lab_infiniband_port_data_received_bytes:rate1m";
pub const CNP_SENT_RULE: &str =
    "instance_device_port:rdma_lab_infiniband_np_cnp_packets_sent:rate1m";
pub const CNP_HANDLED_RULE: &str =
    "instance_device_port:rdma_lab_infiniband_rp_cnp_packets_handled:rate1m";
pub const ERRORS_RULE: &str = "instance_device_port:rdma_lab_infiniband_errors:rate1m";
/// The port's logical state code, scraped directly.
pub const STATE_METRIC: &str = "rdma_lab_infiniband_state_id";

/// The expression a figure is queried with.
pub fn query_of(figure: Figure) -> &'static str {
    match figure {
        Figure::TxBytes => TX_BYTES_RULE,
        Figure::RxBytes => RX_BYTES_RULE,
        Figure::CnpSent => CNP_SENT_RULE,
        Figure::CnpHandled => CNP_HANDLED_RULE,
        Figure::Errors => ERRORS_RULE,
    }
}

/// Why a Prometheus answer gives no table.
#[derive(Debug, Clone, PartialEq)]
pub enum PrometheusError {
    /// Not JSON, or JSON that is not an API response; `at` is where in the text (`line 1,
    /// column 57`), `.` for the whole of it. The message names the
    /// field or the type that does not fit (serde_json's, not a path: tracking paths cost the
    /// /live module 6 KB of gzip, past its budget).
    Unreadable { at: String, message: String },
    /// `"status": "error"`: the server refused the query, and said why.
    Refused { error_type: String, error: String },
    /// A well-formed answer of a kind this query cannot give (a matrix for an instant query).
    Unexpected {
        expected: &'static str,
        found: &'static str,
    },
    /// A series without a label the table is keyed by, or with one it cannot read.
    Label {
        series: String,
        label: &'static str,
        problem: String,
    },
    /// A sample value that is not a number (`data.result[i]`).
    Value { at: String, text: String },
}

impl fmt::Display for PrometheusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrometheusError::Unreadable { at, message } if at == "." => {
                write!(f, "not a Prometheus API answer: {message}")
            }
            PrometheusError::Unreadable { at, message } => {
                write!(f, "not a Prometheus API answer: at {at}: {message}")
            }
            PrometheusError::Refused { error_type, error } => {
                write!(f, "Prometheus refused the query ({error_type}): {error}")
            }
            PrometheusError::Unexpected { expected, found } => {
                write!(f, "Prometheus answered with a {found}, not a {expected}")
            }
            PrometheusError::Label {
                series,
                label,
                problem,
            } => write!(f, "series {series}: label {label} {problem}"),
            PrometheusError::Value { at, text } => {
                write!(f, "at {at}: {text:?} is not a sample value")
            }
        }
    }
}

impl std::error::Error for PrometheusError {}

/// The body of every API answer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Response {
    status: Status,
    #[serde(default)]
    data: Option<Data>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
    /// Read so that they are allowed; the table has nowhere to show them.
    #[serde(default)]
    #[allow(dead_code)]
    warnings: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    infos: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Status {
    Success,
    Error,
}

/// `data` of a query answer, by its `resultType`.
#[derive(Debug, Deserialize)]
#[serde(
    tag = "resultType",
    content = "result",
    rename_all = "lowercase",
    deny_unknown_fields
)]
enum Data {
    Vector(Vec<InstantSeries>),
    Matrix(Vec<RangeSeries>),
    /// Answers no table is made of, refused whatever they hold.
    Scalar(serde::de::IgnoredAny),
    String(serde::de::IgnoredAny),
}

/// A point as the API writes it: `[seconds since the epoch, "value"]`, the value a string so
/// that `NaN` and `±Inf` survive JSON.
type Point = (f64, String);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InstantSeries {
    metric: BTreeMap<String, String>,
    value: Point,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RangeSeries {
    metric: BTreeMap<String, String>,
    values: Vec<Point>,
}

/// One series of a query's answer: its labels and its points, oldest first (one point for an
/// instant query).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub labels: BTreeMap<String, String>,
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// `{device="mlx5_0", instance="h:1", port="1"}`, as Prometheus writes a label set.
    pub fn selector(&self) -> String {
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v:?}"))
            .collect();
        format!("{{{}}}", labels.join(", "))
    }

    fn label(&self, label: &'static str) -> Result<&str, PrometheusError> {
        self.labels
            .get(label)
            .map(String::as_str)
            .ok_or_else(|| PrometheusError::Label {
                series: self.selector(),
                label,
                problem: "is missing".into(),
            })
    }

    /// The (instance, device, port) the series belongs to.
    fn key(&self) -> Result<(&str, &str, u32), PrometheusError> {
        let port = self.label("port")?;
        let number = port.parse::<u32>().map_err(|_| PrometheusError::Label {
            series: self.selector(),
            label: "port",
            problem: format!("is {port:?}, not a port number"),
        })?;
        Ok((self.label("instance")?, self.label("device")?, number))
    }
}

/// Reads one answer of `/api/v1/query` (an instant vector) or `/api/v1/query_range` (a range
/// matrix) into its series.
pub fn parse(body: &str) -> Result<Vec<Series>, PrometheusError> {
    parse_as(body, "vector or matrix")
}

/// Reads an answer that must be an instant vector (`/api/v1/query` of an expression without a
/// range): each series has one point.
pub fn parse_instant(body: &str) -> Result<Vec<Series>, PrometheusError> {
    parse_as(body, "vector")
}

/// `expected` is what the caller takes: "vector or matrix", or only a "vector".
fn parse_as(body: &str, expected: &'static str) -> Result<Vec<Series>, PrometheusError> {
    let response: Response = serde_json::from_str(body).map_err(|e| {
        // serde_json's text ends with the position; it goes in `at` instead.
        let position = format!(" at line {} column {}", e.line(), e.column());
        let text = e.to_string();
        PrometheusError::Unreadable {
            at: format!("line {}, column {}", e.line(), e.column()),
            message: text.strip_suffix(&position).unwrap_or(&text).to_string(),
        }
    })?;
    match (response.status, response.data) {
        (Status::Error, _) => Err(PrometheusError::Refused {
            error_type: response.error_type.unwrap_or_else(|| "unnamed".into()),
            error: response.error.unwrap_or_else(|| "no reason given".into()),
        }),
        (Status::Success, None) => Err(PrometheusError::Unreadable {
            at: ".".into(),
            message: "a successful answer without data".into(),
        }),
        (Status::Success, Some(Data::Vector(result))) => result
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                Ok(Series {
                    points: vec![number(&s.value, || format!("data.result[{i}].value"))?],
                    labels: s.metric,
                })
            })
            .collect(),
        (Status::Success, Some(Data::Matrix(_))) if expected == "vector" => {
            Err(PrometheusError::Unexpected {
                expected,
                found: "matrix",
            })
        }
        (Status::Success, Some(Data::Matrix(result))) => result
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let points = s
                    .values
                    .iter()
                    .enumerate()
                    .map(|(j, p)| number(p, || format!("data.result[{i}].values[{j}]")))
                    .collect::<Result<_, _>>()?;
                Ok(Series {
                    labels: s.metric,
                    points,
                })
            })
            .collect(),
        (Status::Success, Some(Data::Scalar(_))) => Err(PrometheusError::Unexpected {
            expected,
            found: "scalar",
        }),
        (Status::Success, Some(Data::String(_))) => Err(PrometheusError::Unexpected {
            expected,
            found: "string",
        }),
    }
}

/// A point's value: Go's `strconv.FormatFloat` text, `NaN`, `+Inf` and `-Inf` included.
fn number((t, text): &Point, at: impl Fn() -> String) -> Result<(f64, f64), PrometheusError> {
    let value = match text.as_str() {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        text => text.parse::<f64>().map_err(|_| PrometheusError::Value {
            at: at(),
            text: text.to_string(),
        })?,
    };
    Ok((*t, value))
}

/// Prometheus' own `up` series, by `instance`: whether its last scrape of each target worked
/// (value 1). A series without an `instance` names no host, and is passed over.
pub const UP_METRIC: &str = "up";

pub fn scrape_health(up: &[Series]) -> BTreeMap<String, bool> {
    up.iter()
        .filter_map(|s| {
            let instance = s.labels.get("instance")?;
            Some((
                instance.clone(),
                s.points.last().is_some_and(|p| p.1 == 1.0),
            ))
        })
        .collect()
}

/// What the table is made of: for each figure its instant answer (the value now) and its
/// range answer (the trend), and the ports' states.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answers {
    pub now: BTreeMap<Figure, Vec<Series>>,
    pub trends: BTreeMap<Figure, Vec<Series>>,
    pub states: Vec<Series>,
}

impl Answers {
    /// The table: every (instance, device, port) any answer names is a row; a figure with no
    /// series for a row has no value there.
    pub fn fleet(&self) -> Result<Fleet, PrometheusError> {
        let mut fleet = Fleet::default();
        for series in &self.states {
            let (host, device, port) = series.key()?;
            let code = series.points.last().map(|p| p.1);
            let row = fleet.host_mut(host).row_mut(device, port);
            // A state id is a small whole number; anything else says nothing of the port.
            row.state = code
                .filter(|c| c.fract() == 0.0 && (0.0..=255.0).contains(c))
                .map(|c| port_state(c as u32));
        }
        for (figure, answer) in &self.trends {
            for series in answer {
                let (host, device, port) = series.key()?;
                let trend = &mut fleet.host_mut(host).row_mut(device, port).trends[figure.index()];
                for &(t, v) in &series.points {
                    trend.push(t, Some(v));
                }
            }
        }
        // The value now is the instant answer's alone: a row it has no series for has none,
        // whatever its trend ended with.
        for (_, host) in &mut fleet.hosts {
            for row in &mut host.rows {
                for trend in &mut row.trends {
                    trend.latest = None;
                }
            }
        }
        for (figure, answer) in &self.now {
            for series in answer {
                let (host, device, port) = series.key()?;
                let trend = &mut fleet.host_mut(host).row_mut(device, port).trends[figure.index()];
                trend.latest = series.points.last().map(|p| p.1).filter(|v| v.is_finite());
            }
        }
        Ok(fleet)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTOR: &str = r#"{"status":"success","data":{"resultType":"vector","result":[
        {"metric":{"device":"mlx5_0","instance":"127.0.0.1:4001","port":"1"},"value":[1764634000.5,"1250.5"]},
        {"metric":{"device":"mlx5_1","instance":"127.0.0.1:4002","port":"1"},"value":[1764634000.5,"NaN"]}]}}"#;

    const MATRIX: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"device":"mlx5_0","instance":"127.0.0.1:4001","port":"1"},
         "values":[[1764633990,"1000"],[1764634000,"+Inf"],[1764634010,"1200"]]}]}}"#;

    #[test]
    fn vectors_and_matrices_become_series() {
        let series = parse(VECTOR).unwrap();
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].points, [(1764634000.5, 1250.5)]);
        assert!(series[1].points[0].1.is_nan());
        assert_eq!(
            series[0].selector(),
            r#"{device="mlx5_0", instance="127.0.0.1:4001", port="1"}"#
        );
        let range = parse(MATRIX).unwrap();
        assert_eq!(range[0].points.len(), 3);
        assert_eq!(range[0].points[1].1, f64::INFINITY);
        // Warnings are allowed beside the data.
        let warned = VECTOR.replacen(
            r#""status":"success","#,
            r#""status":"success","warnings":["w"],"#,
            1,
        );
        assert_eq!(parse(&warned).unwrap().len(), 2);
    }

    #[test]
    fn an_error_status_is_reported_with_its_type_and_reason() {
        let refused = parse(
            r#"{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error"}"#,
        );
        assert_eq!(
            refused,
            Err(PrometheusError::Refused {
                error_type: "bad_data".into(),
                error: "invalid parameter \"query\": 1:5: parse error".into()
            })
        );
        assert!(refused
            .unwrap_err()
            .to_string()
            .starts_with("Prometheus refused the query (bad_data): invalid parameter"));
    }

    #[test]
    fn unknown_fields_and_wrong_types_are_refused_where_they_stand() {
        let at = |body: &str| match parse(body) {
            Err(PrometheusError::Unreadable { at, message }) => (at, message),
            other => panic!("{other:?}"),
        };
        // Where serde_json stops: the last character of `text`.
        let column = |body: &str, text: &str| {
            let (before, _) = body.split_once(text).unwrap();
            let line = before.matches('\n').count() + 1;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            format!("line {line}, column {}", before.len() - start + text.len())
        };
        let body = VECTOR.replacen(r#""value""#, r#""histogram":1,"value""#, 1);
        let (place, message) = at(&body);
        assert_eq!(place, column(&body, r#""histogram""#));
        assert_eq!(
            message,
            "unknown field `histogram`, expected `metric` or `value`"
        );
        let body = VECTOR.replacen("1764634000.5", "\"soon\"", 1);
        let (place, message) = at(&body);
        assert_eq!(place, column(&body, "\"soon\""));
        assert!(
            message.starts_with("invalid type: string \"soon\""),
            "{message}"
        );
        let (place, message) = at(r#"{"status":"fine"}"#);
        assert_eq!(place, "line 1, column 16");
        assert!(message.contains("unknown variant"), "{message}");
        let body = r#"{"status":"success","data":{"resultType":"vector","result":[],"extra":1}}"#;
        let (place, message) = at(body);
        assert_eq!(place, column(body, r#""extra""#));
        assert!(message.contains(r#""extra""#), "{message}");
        let (place, _) = at("<html>Prometheus Time Series Collection</html>");
        assert_eq!(place, "line 1, column 1");
        let (place, message) =
            at(r#"{"status":"success","data":{"resultType":"vector","result":[]}} {}"#);
        assert!(message.contains("trailing"), "{message} at {place}");
        assert_eq!(
            parse(r#"{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}"#),
            Err(PrometheusError::Unexpected {
                expected: "vector or matrix",
                found: "scalar"
            })
        );
        assert_eq!(
            parse(&VECTOR.replacen("1250.5", "lots", 1)),
            Err(PrometheusError::Value {
                at: "data.result[0].value".into(),
                text: "lots".into()
            })
        );
    }

    #[test]
    fn answers_make_one_row_per_instance_device_and_port() {
        let mut answers = Answers::default();
        answers.now.insert(Figure::TxBytes, parse(VECTOR).unwrap());
        answers
            .trends
            .insert(Figure::TxBytes, parse(MATRIX).unwrap());
        answers.states = parse(
            r#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"rdma_lab_infiniband_state_id","device":"mlx5_0","instance":"127.0.0.1:4001","job":"rdma-lab","port":"1"},"value":[1,"4"]},
            {"metric":{"device":"mlx5_0","instance":"127.0.0.1:4003","port":"1"},"value":[1,"1"]}]}}"#,
        )
        .unwrap();
        let fleet = answers.fleet().unwrap();
        let hosts: Vec<_> = fleet
            .hosts
            .iter()
            .map(|(h, p)| (h.as_str(), p.rows.len()))
            .collect();
        assert_eq!(
            hosts,
            [
                ("127.0.0.1:4001", 1),
                ("127.0.0.1:4002", 1),
                ("127.0.0.1:4003", 1)
            ]
        );
        let first = &fleet.hosts[0].1.rows[0];
        assert!(first.is_active());
        let tx = first.trend(Figure::TxBytes);
        assert_eq!(tx.latest, Some(1250.5));
        // +Inf is no point to draw.
        assert_eq!(tx.points, [(1764633990.0, 1000.0), (1764634010.0, 1200.0)]);
        assert_eq!(first.trend(Figure::Errors).latest, None);
        // NaN now is no value now.
        assert_eq!(fleet.hosts[1].1.rows[0].trend(Figure::TxBytes).latest, None);
        let down = &fleet.hosts[2].1.rows[0];
        assert_eq!(down.state.as_ref().map(|s| s.name.as_str()), Some("DOWN"));
        assert_eq!(down.trend(Figure::TxBytes).latest, None);
    }

    #[test]
    fn a_series_without_its_keys_is_named() {
        let mut answers = Answers {
            states: parse(
                r#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"device":"mlx5_0","instance":"h:1"},"value":[1,"4"]}]}}"#,
            )
            .unwrap(),
            ..Answers::default()
        };
        let error = answers.fleet().unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"series {device="mlx5_0", instance="h:1"}: label port is missing"#
        );
        answers.states[0].labels.insert("port".into(), "one".into());
        assert!(answers
            .fleet()
            .unwrap_err()
            .to_string()
            .contains(r#"is "one", not a port number"#));
    }

    #[test]
    fn up_says_which_targets_were_scraped() {
        let up = parse(
            r#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up","instance":"h:1","job":"rdma-lab"},"value":[1,"1"]},
            {"metric":{"__name__":"up","instance":"h:2","job":"rdma-lab"},"value":[1,"0"]},
            {"metric":{"__name__":"up","job":"odd"},"value":[1,"1"]}]}}"#,
        )
        .unwrap();
        assert_eq!(
            scrape_health(&up),
            BTreeMap::from([("h:1".to_string(), true), ("h:2".to_string(), false)])
        );
    }

    #[test]
    fn every_figure_has_its_own_rule() {
        let mut rules: Vec<_> = Figure::ALL.iter().map(|f| query_of(*f)).collect();
        rules.sort();
        rules.dedup();
        assert_eq!(rules.len(), Figure::ALL.len());
        assert!(rules
            .iter()
            .all(|r| r.starts_with("instance_device_port:") && r.ends_with(":rate1m")));
    }
}
