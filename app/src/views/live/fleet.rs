//! The cluster view: one host × port table of throughput, CNP and error rates with a short
//! trend for each, fed either by several probes at once (`/live?probes=a,b,c`, one WebSocket
//! each, through the same connection code as the single-probe view) or by a Prometheus server
//! that scrapes them (`/live?prometheus=URL`). Every row opens its host's full view
//! (`/live?probe=ADDR`). The engine builds the rows (`engine::probe::fleet`); this draws them.

use std::{cell::Cell, collections::BTreeMap, rc::Rc};

use engine::probe::fleet::{
    prometheus::{self, Answers, PrometheusError},
    Figure, Fleet, HostPorts, PortRow, Trend, Unit,
};
use engine::probe::Source;
use gloo::timers::callback::Interval;
use yew::prelude::*;

use crate::views::figures;
use crate::views::form::{FieldDef, Reads, Refusal, TextField};

use super::connection::{use_probe, ConnectionState, ProbeUrl};
use super::page_query;
use super::presence;
use crate::base;
use crate::topics::CounterNote;

/// How often the Prometheus view asks again: its recording rules change once per evaluation
/// interval, so asking much more often shows nothing new.
const POLL_MS: u32 = 5_000;
/// The span and step of the trends read from Prometheus: 30 points, as the probes' trends.
const TREND_SECONDS: f64 = 150.0;
const TREND_STEP_SECONDS: f64 = 5.0;

/// The addresses of `list` (comma-separated, as typed) with their WebSocket URLs; an address
/// that is not one is refused with its place in the list and why.
pub fn parse_list(list: &str) -> Result<Vec<(String, String)>, String> {
    let mut probes: Vec<(String, String)> = Vec::new();
    for (i, typed) in list.split(',').map(str::trim).enumerate() {
        if typed.is_empty() {
            continue;
        }
        let url =
            ProbeUrl::parse(typed).map_err(|why| format!("Address {} ({typed}): {why}", i + 1))?;
        if probes.iter().any(|(_, u)| *u == url.0) {
            return Err(format!("{typed} is in the list twice."));
        }
        probes.push((typed.to_string(), url.0));
    }
    if probes.is_empty() {
        return Err(
            "List one or more probes, separated by commas: 10.0.0.1:7878, 10.0.0.2:7878.".into(),
        );
    }
    Ok(probes)
}

/// A Prometheus server's base URL from what was typed: `host:port` means plain http; a path
/// (a server behind a proxy's prefix) is kept, without its trailing `/`.
pub fn parse_prometheus(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("Enter the Prometheus server's address, e.g. http://127.0.0.1:9090.".into());
    }
    if text.contains(char::is_whitespace) {
        return Err("An address has no spaces.".into());
    }
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme @ ("http" | "https"), rest)) => (scheme, rest),
        Some((other, _)) => {
            return Err(format!(
                "{other}:// is not how Prometheus is reached; use http:// or https://."
            ))
        }
        None => ("http", text),
    };
    if rest.contains(['?', '#']) {
        return Err(
            "The server's address has no query or #fragment: the view adds the API's.".into(),
        );
    }
    let rest = rest.trim_end_matches('/');
    let authority = rest.split('/').next().unwrap_or_default();
    // The same host:port rules as a probe's address.
    ProbeUrl::parse(authority)?;
    Ok(format!("{scheme}://{rest}"))
}

/// `--web.cors.origin`'s value that lets `origin` read the API: a fully anchored regular
/// expression, so the dots of the origin are escaped.
pub fn cors_flag(origin: &str) -> String {
    let mut regex = String::new();
    for c in origin.chars() {
        if ".+*?()[]{}|^$\\".contains(c) {
            regex.push('\\');
        }
        regex.push(c);
    }
    format!("--web.cors.origin='{regex}'")
}

/// The link to a host's full view, relative to the site root.
fn full_view(address: &str) -> String {
    format!(
        "{}{}",
        base::href("/live"),
        page_query::format(&[("probe", address)])
    )
}

fn rate_text(figure: Figure, value: Option<f64>) -> String {
    match (value, figure.unit()) {
        (None, _) => "—".into(),
        (Some(v), Unit::Bytes) => figures::rate(v, "B"),
        (Some(v), Unit::Events) => figures::rate(v, ""),
    }
}

fn figure_key(figure: Figure) -> &'static str {
    match figure {
        Figure::TxBytes => "tx",
        Figure::RxBytes => "rx",
        Figure::CnpSent => "cnp-sent",
        Figure::CnpHandled => "cnp-handled",
        Figure::Errors => "errors",
    }
}

#[derive(Properties, PartialEq)]
struct SparklineProps {
    trend: Trend,
}

/// A trend as a small line from zero to its highest point: light enough to draw for every
/// figure of every row. The value beside it says the number; the line only shows its shape.
#[function_component]
fn Sparkline(props: &SparklineProps) -> Html {
    const WIDTH: f64 = 64.0;
    const HEIGHT: f64 = 18.0;
    let points = &props.trend.points;
    let (Some(first), Some(last)) = (points.front(), points.back()) else {
        return html! { <svg class="sparkline" aria-hidden="true" width="64" height="18"></svg> };
    };
    let span = (last.0 - first.0).max(1e-9);
    let top = points.iter().map(|p| p.1).fold(0.0_f64, f64::max).max(1e-9);
    let line: Vec<String> = points
        .iter()
        .map(|&(t, v)| {
            let x = if points.len() == 1 {
                WIDTH
            } else {
                (t - first.0) / span * WIDTH
            };
            let y = HEIGHT - 1.0 - v.max(0.0) / top * (HEIGHT - 2.0);
            format!("{x:.1},{y:.1}")
        })
        .collect();
    html! {
        <svg class="sparkline" aria-hidden="true" width="64" height="18" viewBox="0 0 64 18">
            <polyline points={line.join(" ")} />
        </svg>
    }
}

#[derive(Properties, PartialEq)]
struct RowsProps {
    /// The host's address, for the links to its full view.
    address: AttrValue,
    ports: HostPorts,
    /// Whether the figures are current.
    live: bool,
    /// What to say in place of rows when there are none.
    empty: AttrValue,
}

#[function_component]
fn PortRows(props: &RowsProps) -> Html {
    if props.ports.rows.is_empty() {
        return html! {
            <tr><td colspan="7" class="muted">{ props.empty.clone() }</td></tr>
        };
    }
    let href = full_view(&props.address);
    html! {
        { for props.ports.rows.iter().map(|row: &PortRow| {
            let name = format!("{}/{}", row.device, row.port);
            let state = row.state.as_ref().map(|s| s.name.clone()).unwrap_or_else(|| "—".into());
            html! {
                <tr class="fleet-port" data-port={name.clone()}>
                    <th scope="row">
                        <a href={href.clone()} aria-label={format!("{name} on {}: full view", props.address)}>{ name }</a>
                    </th>
                    <td class={classes!("fleet-state", (!row.is_active()).then_some("inactive"))}>{ state }</td>
                    { for Figure::ALL.iter().map(|&figure| {
                        let trend = row.trend(figure);
                        html! {
                            <td class="num fleet-figure" data-figure={figure_key(figure)}>
                                <span class="fleet-value">
                                    { rate_text(figure, trend.latest) }
                                    if !props.live && trend.latest.is_some() {
                                        <span class="fleet-last">{ " (last)" }</span>
                                    }
                                </span>
                                <Sparkline trend={trend.clone()} />
                            </td>
                        }
                    }) }
                </tr>
            }
        }) }
    }
}

#[derive(Properties, PartialEq)]
struct FleetTableProps {
    children: Html,
}

/// The table's frame: its head, and a box that scrolls sideways on a narrow screen (and takes
/// keyboard focus, so it scrolls without a mouse). Each host is one `<tbody>`.
#[function_component]
fn FleetTable(props: &FleetTableProps) -> Html {
    html! {
        <div class="live-table fleet">
            <p class="live-table-title" id="fleet-title">{ "Ports by host" }</p>
            <div class="table-scroll" tabindex="0" role="region" aria-labelledby="fleet-title">
                <table class="data-table fleet-table" aria-labelledby="fleet-title">
                    <thead><tr>
                        <th scope="col">{ "Port" }</th>
                        <th scope="col">{ "State" }</th>
                        { for Figure::ALL.iter().map(|f| html! { <th scope="col" class="num">{ f.label() }</th> }) }
                    </tr></thead>
                    { props.children.clone() }
                </table>
            </div>
            <Legend />
        </div>
    }
}

/// What each column counts, from the counters' own explanations.
#[function_component]
fn Legend() -> Html {
    html! {
        <details class="fleet-legend">
            <summary>{ "What the columns count" }</summary>
            <dl>
            { for Figure::ALL.iter().map(|&figure| {
                let unit = match figure.unit() {
                    Unit::Bytes => "bytes per second",
                    Unit::Events => "per second",
                };
                let sum = if figure.counters().len() > 1 { ", added up" } else { "" };
                html! {
                    <>
                        <dt>{ format!("{} ({unit}{sum})", figure.label()) }</dt>
                        { for figure.counters().iter().map(|&file| {
                            let note = CounterNote::find("port", file).or_else(|| CounterNote::find("hw", file));
                            html! {
                                <dd>
                                    <code>{ file }</code>{ ": " }
                                    if let Some(note) = note {
                                        { note.meaning }{ " " }<a href={base::href(note.topic)}>{ "Why" }</a>
                                    } else {
                                        <span class="muted">{ "Not explained in the lab yet." }</span>
                                    }
                                </dd>
                            }
                        }) }
                    </>
                }
            }) }
            </dl>
        </details>
    }
}

#[derive(Properties, PartialEq)]
struct HostHeadProps {
    /// The host's name as it says it, when it has.
    name: Option<AttrValue>,
    address: AttrValue,
    status: Html,
    #[prop_or_default]
    note: Option<AttrValue>,
}

#[function_component]
fn HostHead(props: &HostHeadProps) -> Html {
    let title = match &props.name {
        Some(name) if name != &props.address => format!("{name} ({})", props.address),
        _ => props.address.to_string(),
    };
    html! {
        <tr class="fleet-host">
            <th colspan="7" scope="rowgroup">
                // Held at the box's left edge and as wide as the box, so on a phone the host's
                // name and state are in view however far the ports' figures are scrolled.
                <div class="fleet-host-head">
                    <span class="fleet-host-name">{ title }</span>
                    { " " }{ props.status.clone() }
                    if let Some(note) = &props.note {
                        { " " }<span class="fleet-host-note">{ note.clone() }</span>
                    }
                    { " " }<a href={full_view(&props.address)}>{ "Full view" }</a>
                </div>
            </th>
        </tr>
    }
}

#[derive(Properties, PartialEq)]
struct ProbeHostProps {
    /// As the learner typed it.
    address: AttrValue,
    /// Its WebSocket URL.
    url: AttrValue,
}

/// One probe of the list: its own connection, its rows.
#[function_component]
fn ProbeHost(props: &ProbeHostProps) -> Html {
    let probe = use_probe(Some(props.url.to_string()));
    let live = probe.freshness().is_some_and(|f| f.is_live());
    let state = match (&probe.state, live) {
        (_, true) => "live",
        (ConnectionState::Connecting, _) if probe.readings.is_none() => "connecting",
        _ => "lost",
    };
    let readings = probe.readings.as_ref();
    let name = readings
        .map(|r| r.host.clone())
        .filter(|h| !h.is_empty())
        .map(AttrValue::from);
    let note = readings.and_then(|r| match r.source {
        Source::Live => None,
        Source::Demo => Some(AttrValue::from("demo numbers")),
        Source::Recorded => Some(AttrValue::from("a recorded tree")),
    });
    let ports = readings.map(|r| r.ports.clone()).unwrap_or_default();
    // When the last sample was taken, by the probe's clock: a test (or a curious learner in
    // the inspector) sees the figures move on.
    let sampled = readings
        .and_then(|r| r.latest.as_ref())
        .map(|s| s.timestamp_ms.to_string());
    let empty = match (readings, live) {
        (None, _) => "No reading from this probe yet.",
        (Some(_), true) => "Waiting for the first sample (or this host has no RDMA port).",
        (Some(_), false) => "No ports were read before the connection ended.",
    };
    html! {
        <tbody class={classes!("fleet-host-rows", state)} data-address={props.address.clone()} data-state={state} data-sampled={sampled}>
            <HostHead {name} address={props.address.clone()} status={super::status(&probe)} {note} />
            <PortRows address={props.address.clone()} {ports} {live} empty={empty} />
        </tbody>
    }
}

#[derive(Properties, PartialEq)]
struct ListFormProps {
    def: &'static FieldDef,
    value: String,
    /// What is wrong with the draft, if anything.
    check: Callback<String, Result<String, String>>,
    /// The draft, once it passes the check, normalised.
    on_apply: Callback<String>,
}

/// The fleet's probes: host:port of each.
static PROBES_FIELD: FieldDef = FieldDef {
    key: "probes",
    label: "Probes",
    unit: "",
    help: "host:port of each probe, separated by commas; each probe must allow this page \
           (--allow-origin).",
    reads: Reads::Text,
};

/// The Prometheus server that scrapes them.
static PROMETHEUS_FIELD: FieldDef = FieldDef {
    key: "prometheus",
    label: "Prometheus",
    unit: "",
    help: "The server that scrapes the probes, e.g. http://127.0.0.1:9090; it reads the \
           repository's recording rules.",
    reads: Reads::Text,
};

/// A field with its check under it, applied on Enter or the button.
#[function_component]
fn AddressForm(props: &ListFormProps) -> Html {
    let draft = use_state(|| props.value.clone());
    let on_type = {
        let draft = draft.clone();
        Callback::from(move |(_, text): (&'static str, String)| draft.set(text))
    };
    let checked = props.check.emit((*draft).clone());
    let error = checked.as_ref().err().cloned();
    let on_submit = {
        let on_apply = props.on_apply.clone();
        let checked = checked.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Ok(value) = &checked {
                on_apply.emit(value.clone());
            }
        })
    };
    let disabled = error.is_some();
    html! {
        <form class="live-connect" onsubmit={on_submit}>
            <TextField def={props.def} id={format!("fleet-{}", props.def.key)} text={(*draft).clone()}
                refusal={error.map(Refusal::plain)} {on_type}
                trailing={html! { <button type="submit" {disabled}>{ "Show" }</button> }} />
        </form>
    }
}

#[derive(Properties, PartialEq)]
pub struct ProbeFleetProps {
    /// The list as the page's address gives it.
    pub list: String,
}

/// Several probes, each its own connection: one that fails is marked and the rest go on.
#[function_component]
pub fn ProbeFleet(props: &ProbeFleetProps) -> Html {
    let list = use_state(|| props.list.clone());
    let on_apply = {
        let list = list.clone();
        Callback::from(move |value: String| {
            page_query::replace(&[("probes", value.as_str())]);
            list.set(value);
        })
    };
    let check = Callback::from(|draft: String| {
        parse_list(&draft).map(|probes| {
            probes
                .iter()
                .map(|(typed, _)| typed.as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
    });
    let probes = parse_list(&list);
    html! {
        <section class="live-view fleet-view" aria-label="Probes">
            <AddressForm def={&PROBES_FIELD} value={(*list).clone()} {check} {on_apply} />
            { match probes {
                Ok(probes) => html! {
                    <FleetTable>
                        { for probes.into_iter().map(|(address, url)| {
                            let key = url.clone();
                            html! { <ProbeHost {key} {address} {url} /> }
                        }) }
                    </FleetTable>
                },
                Err(why) => html! { <p class="live-error" role="alert">{ format!("The list in this page's address: {why}") }</p> },
            } }
        </section>
    }
}

/// Why one round of questions to Prometheus gave no table, said where it happened.
#[derive(Debug, Clone, PartialEq)]
enum Trouble {
    /// The page may not read the API: Prometheus answered without letting this origin in.
    Cors { url: String, flag: String },
    /// Nothing answered at all.
    Unreachable { url: String },
    /// An answer the table cannot use.
    Answer { url: String, error: PrometheusError },
}

impl Trouble {
    fn view(&self) -> Html {
        match self {
            Trouble::Cors { url, flag } => html! {
                <div class="live-error" role="alert">
                    <p>{ format!("Prometheus answered at {url}, but does not let this page read its API: its --web.cors.origin does not match this page's origin. Prometheus lets every origin in unless told otherwise; start it with this one allowed:") }</p>
                    <pre><code>{ format!("prometheus {flag}") }</code></pre>
                </div>
            },
            Trouble::Unreachable { url } => html! {
                <p class="live-error" role="alert">{ format!("Nothing answered at {url}: is Prometheus running there, and reachable from this browser?") }</p>
            },
            Trouble::Answer { url, error } => html! {
                <p class="live-error" role="alert">{ format!("{url}: {error}") }</p>
            },
        }
    }
}

/// One query: the API's answer read into series, or why not.
async fn ask(url: String) -> Result<Vec<prometheus::Series>, Trouble> {
    match presence::request(&url, "cors").await {
        Ok(Some(body)) => prometheus::parse(&body).map_err(|error| Trouble::Answer { url, error }),
        // An answer the page may not read, or none: which one, a no-cors request tells.
        Ok(None) | Err(_) => match presence::request(&url, "no-cors").await {
            Ok(_) => Err(Trouble::Cors {
                url,
                flag: cors_flag(
                    &gloo::utils::window()
                        .location()
                        .origin()
                        .unwrap_or_default(),
                ),
            }),
            Err(_) => Err(Trouble::Unreachable { url }),
        },
    }
}

fn encoded(text: &str) -> String {
    String::from(js_sys::encode_uri_component(text))
}

/// Every question of one round, and the table they make, with Prometheus' view of each target.
async fn poll(base: String) -> Result<(Fleet, BTreeMap<String, bool>), Trouble> {
    let now = js_sys::Date::now() / 1000.0;
    let instant = |query: &str| format!("{base}/api/v1/query?query={}", encoded(query));
    let mut answers = Answers::default();
    for figure in Figure::ALL {
        let query = prometheus::query_of(figure);
        answers.now.insert(figure, ask(instant(query)).await?);
        let range = format!(
            "{base}/api/v1/query_range?query={}&start={:.3}&end={now:.3}&step={TREND_STEP_SECONDS}",
            encoded(query),
            now - TREND_SECONDS,
        );
        answers.trends.insert(figure, ask(range).await?);
    }
    answers.states = ask(instant(prometheus::STATE_METRIC)).await?;
    let up = ask(instant(prometheus::UP_METRIC)).await?;
    let fleet = answers.fleet().map_err(|error| Trouble::Answer {
        url: base.clone(),
        error,
    })?;
    Ok((fleet, prometheus::scrape_health(&up)))
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Polled {
    /// The last table read, kept while a later round fails.
    fleet: Option<Fleet>,
    up: BTreeMap<String, bool>,
    trouble: Option<Trouble>,
}

enum Round {
    /// One round of questions, answered.
    Done(Result<(Fleet, BTreeMap<String, bool>), Trouble>),
    /// Another server: nothing said so far is about it.
    Reset,
}

impl Reducible for Polled {
    type Action = Round;

    fn reduce(self: Rc<Self>, round: Round) -> Rc<Self> {
        let mut next = (*self).clone();
        match round {
            Round::Done(Ok((fleet, up))) => {
                next.fleet = Some(fleet);
                next.up = up;
                next.trouble = None;
            }
            Round::Done(Err(trouble)) => next.trouble = Some(trouble),
            Round::Reset => next = Polled::default(),
        }
        Rc::new(next)
    }
}

#[derive(Properties, PartialEq)]
pub struct PrometheusFleetProps {
    /// The server as the page's address names it.
    pub url: String,
}

/// The same table from a Prometheus server, asked again every few seconds.
#[function_component]
pub fn PrometheusFleet(props: &PrometheusFleetProps) -> Html {
    let server = use_state(|| props.url.clone());
    let polled = use_reducer(Polled::default);
    let base = parse_prometheus(&server);
    {
        let polled = polled.clone();
        use_effect_with(base.clone(), move |base| {
            let abandoned = Rc::new(Cell::new(false));
            let busy = Rc::new(Cell::new(false));
            let round = {
                let abandoned = abandoned.clone();
                let base = base.clone();
                move || {
                    let Ok(base) = base.clone() else { return };
                    if busy.replace(true) {
                        return;
                    }
                    let (abandoned, busy, polled) =
                        (abandoned.clone(), busy.clone(), polled.clone());
                    wasm_bindgen_futures::spawn_local(async move {
                        let result = poll(base).await;
                        busy.set(false);
                        if abandoned.get() {
                            return;
                        }
                        polled.dispatch(Round::Done(result));
                    });
                }
            };
            round();
            let timer = Interval::new(POLL_MS, round);
            move || {
                abandoned.set(true);
                drop(timer);
            }
        });
    }
    let on_apply = {
        let server = server.clone();
        let polled = polled.clone();
        Callback::from(move |value: String| {
            page_query::replace(&[("prometheus", value.as_str())]);
            polled.dispatch(Round::Reset);
            server.set(value);
        })
    };
    let check = Callback::from(|draft: String| parse_prometheus(&draft));
    let live = polled.trouble.is_none();
    html! {
        <section class="live-view fleet-view" aria-label="Prometheus">
            <AddressForm def={&PROMETHEUS_FIELD} value={(*server).clone()} {check} {on_apply} />
            if let Err(why) = &base {
                <p class="live-error" role="alert">{ format!("The server in this page's address: {why}") }</p>
            }
            if let Some(trouble) = &polled.trouble {
                { trouble.view() }
            }
            { match &polled.fleet {
                None if polled.trouble.is_none() && base.is_ok() => html! {
                    <p class="live-status connecting" role="status">{ "Asking Prometheus…" }</p>
                },
                None => html! {},
                Some(fleet) if fleet.hosts.is_empty() => html! {
                    <p class="live-error" role="status">{ "Prometheus has no port series of the recording rules: does it load deploy/prometheus/rules/recording.yml, and has it scraped a probe yet?" }</p>
                },
                Some(fleet) => html! {
                    <FleetTable>
                        { for fleet.hosts.iter().map(|(instance, ports)| {
                            let scraped = polled.up.get(instance).copied();
                            let (state, status) = match (live, scraped) {
                                (false, _) => ("lost", html! { <span class="live-status closed">{ "Prometheus not answering" }</span> }),
                                (true, Some(false)) => ("lost", html! { <span class="live-status closed">{ "Last scrape failed" }</span> }),
                                (true, _) => ("live", html! { <span class="live-status open">{ "Scraped" }</span> }),
                            };
                            html! {
                                <tbody key={instance.clone()} class={classes!("fleet-host-rows", state)} data-address={instance.clone()} data-state={state}>
                                    <HostHead name={None::<AttrValue>} address={instance.clone()} {status} />
                                    <PortRows address={instance.clone()} ports={ports.clone()} live={live} empty="No ports." />
                                </tbody>
                            }
                        }) }
                    </FleetTable>
                },
            } }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_of_probes_is_read_in_order_and_each_bad_one_is_named() {
        let probes = parse_list(" 127.0.0.1:4001, box:7878 ,,[::1]:9 ").unwrap();
        let urls: Vec<_> = probes
            .iter()
            .map(|(t, u)| (t.as_str(), u.as_str()))
            .collect();
        assert_eq!(
            urls,
            [
                ("127.0.0.1:4001", "ws://127.0.0.1:4001/ws"),
                ("box:7878", "ws://box:7878/ws"),
                ("[::1]:9", "ws://[::1]:9/ws"),
            ]
        );
        let refused = parse_list("127.0.0.1:4001,box:0").unwrap_err();
        assert!(
            refused.starts_with("Address 2 (box:0): The port must be"),
            "{refused}"
        );
        assert!(parse_list("a:1, ws://a:1/ws")
            .unwrap_err()
            .contains("twice"));
        assert!(parse_list(" , ")
            .unwrap_err()
            .starts_with("List one or more"));
    }

    #[test]
    fn a_prometheus_address_is_a_base_url() {
        assert_eq!(
            parse_prometheus("127.0.0.1:9090"),
            Ok("http://127.0.0.1:9090".into())
        );
        assert_eq!(
            parse_prometheus("https://metrics.example.org/prom/"),
            Ok("https://metrics.example.org/prom".into())
        );
        assert!(parse_prometheus("ws://h:1").unwrap_err().contains("ws://"));
        assert!(parse_prometheus("h:1/?x").unwrap_err().contains("no query"));
        assert!(parse_prometheus("h:0").unwrap_err().contains("1 to 65535"));
        assert!(parse_prometheus("").is_err());
    }

    #[test]
    fn the_cors_flag_names_this_origin_as_an_anchored_regex() {
        assert_eq!(
            cors_flag("http://127.0.0.1:7878"),
            r"--web.cors.origin='http://127\.0\.0\.1:7878'"
        );
    }

    #[test]
    fn every_column_is_explained_by_its_counters_own_notes() {
        for figure in Figure::ALL {
            for file in figure.counters() {
                assert!(
                    CounterNote::find("port", file)
                        .or_else(|| CounterNote::find("hw", file))
                        .is_some(),
                    "{file} has no entry in content/data/counters.toml"
                );
            }
        }
    }

    #[test]
    fn rates_read_with_their_units() {
        assert_eq!(rate_text(Figure::TxBytes, Some(1_500_000.0)), "1.5 MB/s");
        assert_eq!(rate_text(Figure::RxBytes, Some(12.0)), "12 B/s");
        assert_eq!(rate_text(Figure::Errors, Some(0.25)), "0.25/s");
        assert_eq!(rate_text(Figure::CnpSent, None), "—");
    }
}
