//! The live probe view: connects to `native-probe serve` over a WebSocket and shows the
//! machine's RDMA devices, GIDs and counters as they change. The probe computes every rate;
//! this view keeps a short history to draw and explains each counter.

mod chart;
mod connection;
mod history;
mod inventory;

use engine::probe::{PortSample, Source};
use yew::prelude::*;

use chart::{LineChart, Series};
use connection::{default_probe_url, use_probe, ConnectionState, ProbeUrl};
use history::History;
use inventory::{CounterTable, DeviceTables, GidTable, NetdevTable};

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
];

fn port_key(port: &PortSample) -> String {
    format!("{}:{}", port.device, port.port)
}

#[function_component]
pub fn LiveView() -> Html {
    let url = use_state(default_probe_url);
    let draft = use_state(|| (*url).clone());
    let probe = use_probe((*url).clone());
    let history = &probe.history;

    let on_draft = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let field: web_sys::HtmlInputElement = e.target_unchecked_into();
            draft.set(field.value());
        })
    };
    let connect_error = ProbeUrl::parse(&draft).err();
    let on_connect = {
        let url = url.clone();
        let draft = draft.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Ok(parsed) = ProbeUrl::parse(&draft) {
                url.set(parsed.0);
            }
        })
    };

    let status = match &probe.state {
        ConnectionState::Connecting => {
            html! { <span class="live-status connecting">{ "Connecting…" }</span> }
        }
        ConnectionState::Open => html! { <span class="live-status open">{ "Connected" }</span> },
        ConnectionState::Retrying { in_ms, reason } => html! {
            <span class="live-status closed">
                { format!("Not connected ({reason}); retrying in {} s", in_ms.div_ceil(1000)) }
            </span>
        },
    };
    let source_note = match probe.source {
        Some(Source::Demo) => html! {
            <p class="live-source demo" role="note">
                { "Recorded demo data: the probe runs with --demo and replays a ConnectX/InfiniBand recording. These are not this machine's NICs." }
            </p>
        },
        Some(Source::Recorded) => html! {
            <p class="live-source recorded" role="note">
                { format!("Recorded data: the probe on {} reads a saved device tree (--sysfs-root), every {} ms. It changes only when those files do; these are not this machine's NICs.", probe.host, probe.interval_ms) }
            </p>
        },
        Some(Source::Live) => html! {
            <p class="live-source">{ format!("Live counters from {}, read every {} ms.", probe.host, probe.interval_ms) }</p>
        },
        None => html! {},
    };

    let ports = probe
        .latest
        .as_ref()
        .map(|s| s.ports.clone())
        .unwrap_or_default();
    let netdevs = probe
        .latest
        .as_ref()
        .map(|s| s.netdevs.clone())
        .unwrap_or_default();

    html! {
        <section class="live-view" aria-label="Live probe">
            <form class="live-connect" onsubmit={on_connect}>
                <label for="probe-url">{ "Probe" }</label>
                <input id="probe-url" type="text" value={(*draft).clone()} oninput={on_draft}
                    aria-invalid={connect_error.is_some().to_string()} aria-describedby="probe-url-help" spellcheck="false" />
                <button type="submit" disabled={connect_error.is_some()}>{ "Connect" }</button>
                { status }
                <p id="probe-url-help" class={classes!("field-help", connect_error.is_some().then_some("error"))}>
                    { connect_error.unwrap_or_else(|| "The probe that served this page, or another one: host:port or a ws:// URL.".to_string()) }
                </p>
            </form>
            { source_note }
            if probe.lagged > 0 {
                <p class="live-lagged" role="status">{ format!("This page fell behind and missed {} samples.", probe.lagged) }</p>
            }
            if let Some(error) = &probe.error {
                <p class="live-error" role="alert">{ error.clone() }</p>
            }
            if let Some(inventory) = &probe.inventory {
                <DeviceTables inventory={inventory.clone()} />
                <GidTable inventory={inventory.clone()} />
                <NetdevTable inventory={inventory.clone()} />
            }
            { netdevs.iter().map(|dev| {
                let key = format!("netdev:{}", dev.interface);
                html! {
                    <article class="live-panel" key={key.clone()} aria-label={format!("Interface {}", dev.interface)}>
                        <h2 class="live-panel-title">{ format!("Interface {}", dev.interface) }</h2>
                        <LineChart title={format!("{} throughput", dev.interface)} unit="bytes/s"
                            series={traffic_series(history, &key)} />
                        <CounterTable group="netdev" counters={dev.statistics.clone()} />
                    </article>
                }
            }).collect::<Html>() }
            { ports.iter().map(|port| {
                let key = port_key(port);
                html! {
                    <article class="live-panel" key={key.clone()} aria-label={format!("RDMA port {}", key)}>
                        <h2 class="live-panel-title">{ format!("RDMA port {} {}", port.device, port.port) }</h2>
                        <LineChart title={format!("{key} throughput")} unit="bytes/s" series={traffic_series(history, &key)} />
                        if port.hw_counters.keys().any(|c| CONGESTION.contains(&c.as_str())) {
                            <LineChart title={format!("{key} congestion (DCQCN)")} unit="per second"
                                series={counter_series(history, &key, CONGESTION)} />
                        }
                        if port.hw_counters.keys().any(|c| ERRORS.contains(&c.as_str())) {
                            <LineChart title={format!("{key} loss and errors")} unit="per second"
                                series={counter_series(history, &key, ERRORS)} />
                        }
                        <CounterTable group="port" counters={port.counters.clone()} />
                        <CounterTable group="hw" counters={port.hw_counters.clone()} />
                    </article>
                }
            }).collect::<Html>() }
        </section>
    }
}

fn traffic_series(history: &History, key: &str) -> Vec<Series> {
    ["tx", "rx"]
        .iter()
        .map(|dir| Series {
            name: format!("{dir} bytes/s"),
            points: history.points(&format!("{key}/{dir}")),
        })
        .collect()
}

fn counter_series(history: &History, key: &str, counters: &[&str]) -> Vec<Series> {
    counters
        .iter()
        .map(|c| Series {
            name: (*c).to_string(),
            points: history.points(&format!("{key}/{c}")),
        })
        .collect()
}
