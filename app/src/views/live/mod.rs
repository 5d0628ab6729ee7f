//! The live probe view: connects to `native-probe serve` over a WebSocket and shows the
//! machine's RDMA devices, GIDs and counters as they change. The probe computes every rate;
//! this view keeps a short history to draw and explains each counter.
//!
//! Served by a probe (`./lab run`), the page connects to it. A copy hosted elsewhere (a
//! static host has no probe) explains the probe, gives the command that lets this site
//! connect, and tries this machine's default address; any failure is named for what it is.

mod address;
mod chart;
mod connection;
mod failure;
mod history;
mod hosted;
mod inventory;
mod presence;

use engine::probe::{PortSample, Source};
use yew::prelude::*;

use chart::{LineChart, Series};
use connection::{use_probe, ConnectionState, Home, ProbeAction, ProbeUrl};
use failure::Advice;
use history::History;
use hosted::{ConnectProblem, HostedIntro};
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
    let probe = use_probe();
    let draft = use_state(|| probe.url.clone());
    let history = &probe.history;
    // A hosted page moves on to this machine's probe by itself; the field follows it there.
    {
        let draft = draft.clone();
        let url = probe.url.clone();
        use_effect_with(probe.home, move |home| {
            if *home == Home::Hosted {
                draft.set(url);
            }
        });
    }

    let on_draft = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let field: web_sys::HtmlInputElement = e.target_unchecked_into();
            draft.set(field.value());
        })
    };
    let connect_error = ProbeUrl::parse(&draft).err();
    let on_connect = {
        let probe = probe.clone();
        let draft = draft.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Ok(parsed) = ProbeUrl::parse(&draft) {
                probe.dispatch(ProbeAction::Connect(parsed.0));
            }
        })
    };

    let status = match &probe.state {
        ConnectionState::Connecting => {
            html! { <span class="live-status connecting">{ "Connecting…" }</span> }
        }
        ConnectionState::Open => html! { <span class="live-status open">{ "Connected" }</span> },
        ConnectionState::Checking => html! {
            <span class="live-status connecting">{ "Not connected; asking what is at that address…" }</span>
        },
        ConnectionState::Retrying { in_ms, failure } => html! {
            <span class="live-status closed">
                { format!("Not connected ({}); retrying in {} s", failure.summary(), in_ms.div_ceil(1000)) }
            </span>
        },
        ConnectionState::Stopped(failure) => html! {
            <span class="live-status closed">{ format!("Not connected ({})", failure.summary()) }</span>
        },
    };
    let help = if probe.home == Home::Hosted {
        "This machine's probe by default, or another one: host:port or a ws:// URL."
    } else {
        "The probe that served this page, or another one: host:port or a ws:// URL."
    };
    let advice = probe
        .last_failure
        .as_ref()
        .and_then(|failure| Advice::for_failure(failure, &probe.page, &probe.url));
    let allow = probe.page.allow_flag();
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
            if probe.needs_a_probe() {
                <HostedIntro {allow} trying={probe.url.clone()} />
            }
            <form class="live-connect" onsubmit={on_connect}>
                <label for="probe-url">{ "Probe" }</label>
                <input id="probe-url" type="text" value={(*draft).clone()} oninput={on_draft}
                    aria-invalid={connect_error.is_some().to_string()} aria-describedby="probe-url-help" spellcheck="false" />
                <button type="submit" disabled={connect_error.is_some()}>{ "Connect" }</button>
                { status }
                <p id="probe-url-help" class={classes!("field-help", connect_error.is_some().then_some("error"))}>
                    { connect_error.unwrap_or_else(|| help.to_string()) }
                </p>
            </form>
            if let Some(advice) = advice {
                <ConnectProblem {advice} />
            }
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
