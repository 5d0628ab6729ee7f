//! What one probe said, drawn: where the data comes from, whether it is still live, the
//! inventory tables, and a panel of charts and counters for each RDMA port, then for each
//! interface. RDMA ports come first: they are what the lab is about.

use engine::probe::{PortSample, Source};
use yew::prelude::*;

use super::address::ProbeAddress;
use super::chart::{LineChart, Series};
use super::connection::{Freshness, Readings};
use super::doctor::HostChecks;
use super::history::History;
use super::inventory::{CounterTable, DeviceTables, GidTable, NetdevTable};
use super::watch::Watched;

/// Counters that show DCQCN at work, charted per port.
const CONGESTION: &[&str] = &[
    "np_ecn_marked_roce_packets",
    "np_cnp_sent",
    "rp_cnp_handled",
];
/// Counters that mean packets were lost or refused, charted per port.
const ERRORS: &[&str] = &[
    "out_of_sequence",
    "packet_seq_err",
    "local_ack_timeout_err",
    "rnr_nak_retry_err",
    "out_of_buffer",
    "req_remote_access_errors",
    "resp_remote_access_errors",
    "req_cqe_error",
    "resp_cqe_error",
    "rx_icrc_encapsulated",
];

/// The id of the note that says the readings are not live, which every panel points to.
const STALE_NOTE_ID: &str = "live-stale-note";

pub fn port_key(port: &PortSample) -> String {
    format!("{}:{}", port.device, port.port)
}

#[derive(Properties, PartialEq)]
pub struct ReadingsProps {
    pub readings: Readings,
    pub freshness: Freshness,
    /// Told when a port's congestion chart comes on screen (`(port, true)`) or leaves it.
    pub on_watch: Callback<(String, bool)>,
}

#[function_component]
pub fn ReadingsView(props: &ReadingsProps) -> Html {
    let readings = &props.readings;
    let live = props.freshness.is_live();
    let history = &readings.history;
    let ports = readings
        .latest
        .as_ref()
        .map(|s| s.ports.as_slice())
        .unwrap_or_default();
    let netdevs = readings
        .latest
        .as_ref()
        .map(|s| s.netdevs.as_slice())
        .unwrap_or_default();
    let described_by = (!live).then_some(STALE_NOTE_ID);
    let title = |text: String| {
        html! {
            <h2 class="live-panel-title">
                { text }
                if !live {
                    { " " }<span class="live-not-live">{ "not live" }</span>
                }
            </h2>
        }
    };

    html! {
        <div class={classes!("live-readings", (!live).then_some("stale"))}>
            <StaleNote freshness={props.freshness} url={readings.url.clone()} />
            <SourceNote source={readings.source} host={readings.host.clone()}
                interval_ms={readings.interval_ms} {live} />
            if readings.lagged > 0 {
                <p class="live-lagged" role="status">{ format!("This page fell behind and missed {} samples.", readings.lagged) }</p>
            }
            if let Some(report) = &readings.doctor {
                <HostChecks report={report.clone()} host={readings.host.clone()} source={readings.source} />
            }
            if let Some(inventory) = &readings.inventory {
                <DeviceTables inventory={inventory.clone()} />
                <GidTable inventory={inventory.clone()} />
                <NetdevTable inventory={inventory.clone()} />
            }
            // Each list of panels is one child of its own: Yew matches unkeyed siblings from the
            // end, so a port coming or going would otherwise rebuild the host checks above it
            // (closing their fold and dropping the focus in it).
            <>{ for ports.iter().map(|port| {
                let key = port_key(port);
                html! {
                    <article class="live-panel" key={key.clone()} aria-label={format!("RDMA port {key}")}
                        aria-describedby={described_by}>
                        { title(format!("RDMA port {} {}", port.device, port.port)) }
                        <LineChart title={format!("{key} throughput")} unit="bytes/s" series={traffic_series(history, &key)} />
                        if port.hw_counters.keys().any(|c| CONGESTION.contains(&c.as_str())) {
                            <Watched name={key.clone()} on_change={props.on_watch.clone()}>
                                <LineChart title={format!("{key} congestion (DCQCN)")} unit="per second"
                                    series={counter_series(history, &key, CONGESTION)} />
                            </Watched>
                        }
                        if port.hw_counters.keys().any(|c| ERRORS.contains(&c.as_str())) {
                            <LineChart title={format!("{key} loss and errors")} unit="per second"
                                series={counter_series(history, &key, ERRORS)} />
                        }
                        <CounterTable group="port" owner={key.clone()} counters={port.counters.clone()} {live} />
                        <CounterTable group="port_ext" owner={key.clone()} counters={port.counters_ext.clone()} {live} />
                        <CounterTable group="hw" owner={key.clone()} counters={port.hw_counters.clone()} {live} />
                    </article>
                }
            }) }</>
            <>{ for netdevs.iter().map(|dev| {
                let key = format!("netdev:{}", dev.interface);
                html! {
                    <article class="live-panel" key={key.clone()} aria-label={format!("Interface {}", dev.interface)}
                        aria-describedby={described_by}>
                        { title(format!("Interface {}", dev.interface)) }
                        <LineChart title={format!("{} throughput", dev.interface)} unit="bytes/s"
                            series={traffic_series(history, &key)} />
                        <CounterTable group="netdev" owner={dev.interface.clone()} counters={dev.statistics.clone()} {live} />
                    </article>
                }
            }) }</>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct StaleNoteProps {
    freshness: Freshness,
    /// The address the readings came from.
    url: String,
}

/// Says, as soon as the readings stop being live, since when and why; nothing while live.
#[function_component]
fn StaleNote(props: &StaleNoteProps) -> Html {
    let probe = ProbeAddress::of(&props.url).map_or_else(|| props.url.clone(), |a| a.authority);
    let (last_seen_ms, why) = match props.freshness {
        Freshness::Live => return html! {},
        Freshness::Disconnected { last_seen_ms } => (
            last_seen_ms,
            format!("the connection to the probe at {probe} ended. The tables and charts below are the last it sent; they come back to life when it reconnects."),
        ),
        Freshness::Silent { last_seen_ms } => (
            last_seen_ms,
            format!("the probe at {probe} has sent nothing since, though the connection is open. The tables and charts below are the last it sent."),
        ),
    };
    html! {
        <p id={STALE_NOTE_ID} class="live-stale" role="status">
            <strong>{ format!("Last seen at {}, not live", clock_time(last_seen_ms)) }</strong>
            { format!(": {why}") }
        </p>
    }
}

/// `HH:MM:SS` in the learner's own time zone.
fn clock_time(ms: f64) -> String {
    let date = js_sys::Date::new(&ms.into());
    format!(
        "{:02}:{:02}:{:02}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}

#[derive(Properties, PartialEq)]
struct SourceNoteProps {
    source: Source,
    host: String,
    interval_ms: u64,
    live: bool,
}

/// Whose counters these are: this machine's, or a recording that must not pass for them.
#[function_component]
fn SourceNote(props: &SourceNoteProps) -> Html {
    match props.source {
        Source::Demo => html! {
            <p class="live-source demo" role="note">
                { "Recorded demo data: the probe runs with --demo and replays a ConnectX/InfiniBand recording. These are not this machine's NICs." }
            </p>
        },
        Source::Recorded => html! {
            <p class="live-source recorded" role="note">
                { format!("Recorded data: the probe on {} reads a saved device tree (--sysfs-root), every {} ms. It changes only when those files do; these are not this machine's NICs.", props.host, props.interval_ms) }
            </p>
        },
        // Stale, the note above says what these are; "live counters" would contradict it.
        Source::Live if !props.live => html! {},
        Source::Live => html! {
            <p class="live-source">{ format!("Live counters from {}, read every {} ms.", props.host, props.interval_ms) }</p>
        },
    }
}

fn traffic_series(history: &History, key: &str) -> Vec<Series> {
    ["tx", "rx"]
        .iter()
        .map(|dir| Series {
            name: format!("{dir} bytes/s"),
            points: history.points(&format!("{key}/{dir}")),
            no_rate: history.no_rate(&format!("{key}/{dir}")),
        })
        .collect()
}

fn counter_series(history: &History, key: &str, counters: &[&str]) -> Vec<Series> {
    counters
        .iter()
        .map(|c| Series {
            name: (*c).to_string(),
            points: history.points(&format!("{key}/{c}")),
            no_rate: history.no_rate(&format!("{key}/{c}")),
        })
        .collect()
}
