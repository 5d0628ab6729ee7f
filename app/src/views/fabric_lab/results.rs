//! Two finished runs side by side: the case's verdict in the runs' own numbers, a table of
//! each side's figures, the hottest links (the text alternative to a drawing), and each
//! run's series as CSV.

use engine::netsim::lab::{lab_case, LabCase, LabRuns, CASES};
use engine::netsim::{LinkReport, Report};
use yew::prelude::*;

use super::Finished;
use crate::views::{download, figures, Shared};

#[derive(Properties, PartialEq)]
pub struct ResultsProps {
    pub case: &'static str,
    pub finished: Shared<Finished>,
    /// The page's URL query (case and parameters), for the CSV's heading.
    pub query: String,
}

/// Links shown per side in the hottest-links table.
const HOTTEST: usize = 5;

#[function_component]
pub fn Results(props: &ResultsProps) -> Html {
    let case = lab_case(props.case).unwrap_or(&CASES[0]);
    let runs = &props.finished.runs;
    let verdict = LabRuns {
        case: case.id.to_string(),
        runs: runs.clone(),
    }
    .verdict();
    let download_error = use_state(|| None::<String>);
    let csv = |side: usize| {
        let (finished, query, error) = (
            props.finished.clone(),
            props.query.clone(),
            download_error.clone(),
        );
        Callback::from(move |_: MouseEvent| {
            let label = case.sides[side].label;
            let heading = [
                ("case", case.id.to_string()),
                ("side", label.to_string()),
                ("page", format!("/fabric-lab?{query}")),
            ];
            let text = finished.runs[side].series_csv(&heading);
            let name = format!("fabric-lab-{}-side-{}.csv", case.id, side + 1);
            error.set(download::save_bytes(text.as_bytes(), &name, "text/csv").err());
        })
    };
    html! {
        <section class="fabric-results" aria-labelledby="fab-results">
            <h3 id="fab-results">{ "What the runs showed" }</h3>
            if let Some(v) = verdict {
                <p class={classes!("fabric-verdict", if v.holds { "holds" } else { "fails" })} data-holds={v.holds.to_string()} role="status">
                    <strong>{ if v.holds { "The claim holds: " } else { "Not shown by these runs: " } }</strong>{ v.shown }
                </p>
            }
            <div class="table-scroll" tabindex="0" role="region" aria-label="Both runs, side by side">
                <Compare case={case.id} finished={props.finished.clone()} />
            </div>
            <Hottest case={case.id} finished={props.finished.clone()} />
            <div class="fabric-downloads">
                { for (0..2).map(|side| html! {
                    <button type="button" class="fabric-csv" onclick={csv(side)}>{ format!("CSV of every series: {}", case.sides[side].label) }</button>
                }) }
            </div>
            if let Some(e) = &*download_error { <p class="field-error" role="alert">{ e }</p> }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TableProps {
    case: &'static str,
    finished: Shared<Finished>,
}

impl TableProps {
    fn case(&self) -> &'static LabCase {
        lab_case(self.case).unwrap_or(&CASES[0])
    }
}

/// Received bytes over the run's simulated time, Gb/s: the fabric's delivered rate.
fn delivered_gbps(r: &Report) -> f64 {
    r.totals.received_bytes as f64 * 8.0 / (r.end_us.max(1e-9) * 1e3)
}

/// One row of the comparison: a label and how to read each report.
type Row = (&'static str, fn(&Report, Option<f64>) -> String);

const ROWS: [Row; 9] = [
    ("Stopped", |r, _| r.stop.reason(r.end_us)),
    ("Simulated time", |r, _| figures::duration(r.end_us * 1e-6)),
    ("Delivered", |r, _| {
        format!(
            "{} ({:.0} Gb/s)",
            figures::bytes(r.totals.received_bytes as f64),
            delivered_gbps(r)
        )
    }),
    ("Collective bus bandwidth", |r, _| {
        let bw: Vec<String> = r
            .collectives
            .iter()
            .filter_map(|c| c.busbw_gbs)
            .map(|b| format!("{b:.0} GB/s"))
            .collect();
        if bw.is_empty() {
            "no collective, or it did not finish".into()
        } else {
            bw.join(", ")
        }
    }),
    ("PAUSE frames", |r, _| {
        figures::grouped(r.totals.pause_frames as f64)
    }),
    ("Time paused, all ports", |r, _| {
        figures::duration(r.totals.paused_us * 1e-6)
    }),
    ("ECN marks · CNPs", |r, _| {
        format!(
            "{} · {}",
            figures::grouped(r.totals.ecn_marks as f64),
            figures::grouped(r.totals.cnps_sent as f64)
        )
    }),
    ("Drops", |r, _| figures::grouped(r.totals.drops as f64)),
    ("Events · worker time", |r, ms| match ms {
        Some(ms) if ms > 0.0 => format!(
            "{} · {} ({}/s)",
            figures::si(r.events as f64),
            figures::duration(ms / 1e3),
            figures::si(r.events as f64 / (ms / 1e3))
        ),
        _ => figures::si(r.events as f64),
    }),
];

#[function_component]
fn Compare(props: &TableProps) -> Html {
    let (f, case) = (&props.finished, props.case());
    html! {
        <table class="fabric-compare">
            <caption>{ format!("{} against {}", case.sides[0].label, case.sides[1].label) }</caption>
            <thead><tr>
                <th scope="col">{ "Figure" }</th>
                <th scope="col">{ case.sides[0].label }</th>
                <th scope="col">{ case.sides[1].label }</th>
            </tr></thead>
            <tbody>
                { for ROWS.iter().map(|(label, read)| html! {
                    <tr><th scope="row">{ *label }</th>
                        <td>{ read(&f.runs[0], f.solve_ms[0]) }</td><td>{ read(&f.runs[1], f.solve_ms[1]) }</td></tr>
                }) }
            </tbody>
        </table>
    }
}

/// A link's busiest sample, 0-1.
fn peak(l: &LinkReport) -> f32 {
    l.utilisation.iter().copied().fold(0.0, f32::max)
}

/// The links that carried most or were held longest, per side.
#[function_component]
fn Hottest(props: &TableProps) -> Html {
    let case = props.case();
    let side = |i: usize| {
        let r = &props.finished.runs[i];
        let mut links: Vec<&LinkReport> = r.links.iter().filter(|l| l.tx_bytes > 0).collect();
        links.sort_by(|a, b| {
            (b.paused_us, peak(b))
                .partial_cmp(&(a.paused_us, peak(a)))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let rows = links.into_iter().take(HOTTEST).map(|l| {
            html! {
                <tr><td>{ format!("{} → {}", l.from, l.to) }</td>
                    <td>{ format!("{:.0} %", peak(l) * 100.0) }</td>
                    <td>{ figures::bytes(l.max_queue_bytes as f64) }</td>
                    <td>{ figures::grouped(l.pause_frames as f64) }</td>
                    <td>{ figures::duration(l.paused_us * 1e-6) }</td></tr>
            }
        });
        html! {
            <div class="table-scroll" tabindex="0" role="region" aria-label={format!("Hottest links: {}", case.sides[i].label)}>
                <table class="fabric-links">
                    <caption>{ format!("Hottest links: {}", case.sides[i].label) }</caption>
                    <thead><tr><th scope="col">{ "Link" }</th><th scope="col">{ "Peak use" }</th>
                        <th scope="col">{ "Deepest queue" }</th><th scope="col">{ "PAUSEs received" }</th><th scope="col">{ "Time paused" }</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        }
    };
    html! { <div class="fabric-hottest">{ side(0) }{ side(1) }</div> }
}
