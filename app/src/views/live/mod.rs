//! The live probe view: connects to `native-probe serve` over a WebSocket and shows the
//! machine's RDMA devices, GIDs and counters as they change. The probe computes every rate;
//! this view keeps a short history to draw and explains each counter.
//!
//! Served by a probe (`./lab run`), the page connects to it. A copy hosted elsewhere (a
//! static host has no probe) explains the probe, gives the command that lets this site
//! connect, and tries this machine's default address; any failure is named for what it is.
//!
//! The page's address can name the probe (`/live?probe=ADDR`), or ask for a cluster: several
//! probes at once (`/live?probes=ADDR,ADDR`) or a Prometheus server that scrapes them
//! (`/live?prometheus=URL`), shown as one host × port table (see [`fleet`]).

mod address;
mod chart;
mod connection;
mod doctor;
mod failure;
mod fleet;
mod history;
mod hosted;
mod inventory;
mod presence;
mod readings;
mod watch;

use std::collections::BTreeSet;
use std::rc::Rc;

use engine::probe::exercise::{Sight, EXERCISES};
use yew::prelude::*;

use super::form::{FieldDef, Reads, Refusal, TextField};
use super::page_query;
use super::try_this::{attempts, use_tried, TryThis};
use connection::{use_probe, ConnectionState, Freshness, Home, ProbeAction, ProbeUrl, ProbeView};
use failure::Advice;
use hosted::{ConnectProblem, HostedIntro};
use readings::{port_key, ReadingsView};

/// What the page's address asks the view to show.
#[derive(Debug, Clone, PartialEq)]
enum Ask {
    /// One probe: the one named (a WebSocket URL), or the one beside the page.
    One(Option<String>),
    /// Several probes, as the address lists them.
    Probes(String),
    /// A Prometheus server, as the address names it.
    Prometheus(String),
    /// A `probe=` that names no probe, and why.
    Unreadable(String),
}

impl Ask {
    fn of(pairs: &[(String, String)]) -> Ask {
        if let Some(list) = page_query::value(pairs, "probes") {
            return Ask::Probes(list.to_string());
        }
        if let Some(url) = page_query::value(pairs, "prometheus") {
            return Ask::Prometheus(url.to_string());
        }
        match page_query::value(pairs, "probe").map(ProbeUrl::parse) {
            None => Ask::One(None),
            Some(Ok(url)) => Ask::One(Some(url.0)),
            Some(Err(why)) => Ask::Unreadable(why),
        }
    }
}

#[function_component]
pub fn LiveView() -> Html {
    let ask = use_state(|| Ask::of(&page_query::read()));
    match (*ask).clone() {
        Ask::One(named) => html! { <ProbeLive {named} /> },
        Ask::Probes(list) => html! { <fleet::ProbeFleet {list} /> },
        Ask::Prometheus(url) => html! { <fleet::PrometheusFleet {url} /> },
        Ask::Unreadable(why) => html! {
            <>
                <p class="live-error" role="alert">{ format!("This page's address names a probe that cannot be: {why} The view connects as it would without it.") }</p>
                <ProbeLive named={None::<String>} />
            </>
        },
    }
}

/// How the connection stands, in a few words.
/// The probe's address box.
static PROBE_FIELD: FieldDef = FieldDef {
    key: "probe",
    label: "Probe",
    unit: "",
    help: "host:port or a ws:// URL.",
    reads: Reads::Text,
};

fn status(probe: &ProbeView) -> Html {
    match &probe.state {
        ConnectionState::Connecting => {
            html! { <span class="live-status connecting">{ "Connecting…" }</span> }
        }
        ConnectionState::Open => match probe.freshness() {
            Some(Freshness::Silent { .. }) => html! {
                <span class="live-status connecting">{ "Connected, but the probe has gone quiet" }</span>
            },
            _ => html! { <span class="live-status open">{ "Connected" }</span> },
        },
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
    }
}

/// The ports whose congestion chart is on the learner's screen.
#[derive(Debug, Default, PartialEq)]
struct OnScreen(BTreeSet<String>);

impl Reducible for OnScreen {
    /// A port's chart came on screen (`true`) or left it.
    type Action = (String, bool);

    fn reduce(self: Rc<Self>, (port, shown): (String, bool)) -> Rc<Self> {
        if self.0.contains(&port) == shown {
            return self;
        }
        let mut ports = self.0.clone();
        if shown {
            ports.insert(port);
        } else {
            ports.remove(&port);
        }
        Rc::new(OnScreen(ports))
    }
}

#[derive(Properties, PartialEq)]
struct ProbeLiveProps {
    /// The probe the page's address names, as a WebSocket URL.
    named: Option<String>,
}

/// One probe's full view.
#[function_component]
fn ProbeLive(props: &ProbeLiveProps) -> Html {
    let probe = use_probe(props.named.clone());
    let (tried, observe) = use_tried(&EXERCISES);
    let on_screen = use_reducer_eq(OnScreen::default);
    let on_watch = {
        let on_screen = on_screen.dispatcher();
        Callback::from(move |change| on_screen.dispatch(change))
    };
    let draft = use_state(|| probe.url.clone());
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
        Callback::from(move |(_, text): (&'static str, String)| draft.set(text))
    };
    let connect_error = ProbeUrl::parse(&draft).err();
    let disabled = connect_error.is_some();
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

    let status = status(&probe);
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
    let readings = probe.readings.clone().zip(probe.freshness());

    // The "try this" tasks are checked on what the learner brought about (what the page
    // shows as it opens ticks nothing, UX check 2026-12): a live reading on a connection they
    // made, the congestion charts they have scrolled to, readings that are no longer live.
    let sights = sights(&probe, &on_screen.0);
    use_effect_with(sights, move |sights| {
        for sight in sights {
            observe.emit(sight.clone());
        }
    });

    html! {
        <section class="live-view" aria-label="Live probe">
            if probe.needs_a_probe() {
                <HostedIntro {allow} trying={probe.url.clone()} />
            }
            <form class="live-connect" onsubmit={on_connect}>
                <TextField def={&PROBE_FIELD} id="probe-url" text={(*draft).clone()} {help}
                    refusal={connect_error.map(Refusal::plain)} on_type={on_draft}
                    trailing={html! {
                        <>
                            <button type="submit" disabled={disabled}>{ "Connect" }</button>
                            { status }
                        </>
                    }} />
            </form>
            // After the form: on a hosted page the probe's command comes first.
            <TryThis view="live" attempts={attempts(&EXERCISES, tried)} />
            if let Some(advice) = advice {
                <ConnectProblem {advice} />
            }
            if let Some(error) = &probe.error {
                <p class="live-error" role="alert">{ error.clone() }</p>
            }
            if let Some((readings, freshness)) = readings {
                <ReadingsView {readings} {freshness} {on_watch} />
            }
        </section>
    }
}

/// What the view shows the learner, for the "try this" tasks: a reading on a connection
/// they made, the ports whose congestion chart is `on_screen`, or the readings of a probe
/// that has failed or gone quiet (not those of one being connected again).
fn sights(probe: &ProbeView, on_screen: &BTreeSet<String>) -> Vec<Sight> {
    let (Some(readings), Some(freshness)) = (&probe.readings, probe.freshness()) else {
        return Vec::new();
    };
    match freshness {
        Freshness::Live => {}
        Freshness::Silent { .. } => return vec![Sight::Lost],
        Freshness::Disconnected { .. } if probe.last_failure.is_some() => return vec![Sight::Lost],
        Freshness::Disconnected { .. } => return Vec::new(),
    }
    let Some(latest) = &readings.latest else {
        return Vec::new();
    };
    let watched = latest
        .ports
        .iter()
        .filter(|port| on_screen.contains(&port_key(port)))
        .map(|port| Sight::Watched(port.clone()));
    probe
        .by_learner
        .then(|| Sight::Live(latest.clone()))
        .into_iter()
        .chain(watched)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(search: &str) -> Ask {
        Ask::of(&page_query::parse(search))
    }

    #[test]
    fn the_address_names_one_probe_a_list_or_a_prometheus_server() {
        assert_eq!(ask(""), Ask::One(None));
        assert_eq!(
            ask("?probe=127.0.0.1:4001"),
            Ask::One(Some("ws://127.0.0.1:4001/ws".into()))
        );
        assert_eq!(ask("?probes=a:1,b:2"), Ask::Probes("a:1,b:2".into()));
        assert_eq!(
            ask("?prometheus=http:%2F%2F127.0.0.1:9090"),
            Ask::Prometheus("http://127.0.0.1:9090".into())
        );
        assert!(matches!(ask("?probe=box:0"), Ask::Unreadable(why) if why.contains("65535")));
    }
}
