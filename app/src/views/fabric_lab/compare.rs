//! The comparison: the claim, the check's verdict on the two runs, each side's figures side
//! by side (stacked on a narrow screen), and the links that worked hardest on each side.

use engine::netsim::{
    headline, hottest_links, mean_utilisation, side_letter, LabCase, Report, Verdict,
};
use yew::prelude::*;

use super::state::SideRun;
use crate::views::figures::{bytes, duration, grouped, rate};

/// Rows of the hottest-links table per side.
const HOT_LINKS: usize = 6;

#[derive(Properties, PartialEq)]
pub struct VerdictProps {
    pub case: &'static LabCase,
    pub verdict: Option<Verdict>,
}

#[function_component]
pub fn ClaimAndVerdict(props: &VerdictProps) -> Html {
    html! {
        <div class="fabric-claim-box">
            <p class="fabric-claim"><strong>{ "The claim: " }</strong>{ props.case.claim }</p>
            if let Some(v) = &props.verdict {
                <p class={classes!("fabric-verdict", if v.holds { "holds" } else { "fails" })}
                    data-holds={v.holds.to_string()} role="status">
                    <strong>{ if v.holds { "The runs bear it out: " } else { "The runs do not bear it out: " } }</strong>
                    { v.shown.clone() }
                </p>
            }
        </div>
    }
}

/// One figure of a side: its name and value.
fn figures(run: &SideRun) -> Vec<(&'static str, String)> {
    let h = headline(&run.report);
    let mut rows = vec![
        ("Stopped", h.stop),
        ("Simulated time", duration(h.end_us * 1e-6)),
        (
            "Delivered, all flows, mean",
            h.delivered_gbps
                .map_or("none".into(), |g| format!("{:.0} Gb/s", g)),
        ),
    ];
    if let Some(b) = h.busbw_gbs {
        rows.push(("All-reduce bus bandwidth", format!("{b:.0} GB/s")));
    }
    rows.extend([
        ("PAUSE frames", grouped(h.pause_frames as f64)),
        ("Paused, all ports", duration(h.paused_us * 1e-6)),
        ("ECN marks", grouped(h.ecn_marks as f64)),
        ("CNPs", grouped(h.cnps as f64)),
        ("Drops", grouped(h.drops as f64)),
        ("Deepest queue", bytes(h.max_queue_bytes as f64)),
        ("Events", grouped(h.events as f64)),
    ]);
    if let Some(ms) = run.solve_ms.filter(|ms| *ms > 0.0) {
        rows.push(("Worker time", duration(ms * 1e-3)));
        rows.push(("Events per second", rate(h.events as f64 / (ms * 1e-3), "")));
    }
    rows
}

#[derive(Properties, PartialEq)]
pub struct SidesProps {
    pub case: &'static LabCase,
    pub done: [Option<SideRun>; 2],
}

#[function_component]
pub fn SideBySide(props: &SidesProps) -> Html {
    html! {
        <div class="fabric-sides">
            { for props.done.iter().enumerate().map(|(i, run)| {
                let letter = side_letter(i);
                let label = props.case.sides[i].label;
                // The bench reads the worker's events and time from here.
                let events = run.as_ref().map(|r| r.report.events.to_string());
                let solve_ms = run.as_ref().and_then(|r| r.solve_ms).map(|ms| ms.to_string());
                html! {
                    <section class="fabric-side" data-side={letter.to_string()}
                        data-done={run.is_some().to_string()} data-events={events} data-solve-ms={solve_ms}
                        aria-labelledby={format!("fabric-side-{letter}")}>
                        <h3 id={format!("fabric-side-{letter}")}>
                            <span class={classes!("fabric-swatch", format!("side-{letter}"))} aria-hidden="true"></span>
                            { format!("Side {letter}: {label}") }
                        </h3>
                        { match run {
                            Some(run) => side_table(run, letter),
                            None => html! { <p class="fabric-pending">{ "Not run yet." }</p> },
                        } }
                    </section>
                }
            }) }
        </div>
    }
}

fn side_table(run: &SideRun, letter: char) -> Html {
    html! {
        <>
            <table class="fabric-figures">
                <tbody>
                    { for figures(run).into_iter().map(|(name, value)| html! {
                        <tr><th scope="row">{ name }</th><td>{ value }</td></tr>
                    }) }
                </tbody>
            </table>
            { hot_links(&run.report, letter) }
        </>
    }
}

/// The text alternative to the charts: the links that worked hardest.
fn hot_links(r: &Report, letter: char) -> Html {
    let rows = hottest_links(r, HOT_LINKS);
    if rows.is_empty() {
        return html! { <p class="fabric-pending">{ "No link carried anything." }</p> };
    }
    html! {
        <div class="fabric-hot-box" tabindex="0" role="region"
            aria-label={format!("Side {letter}: links that worked hardest (scrolls sideways)")}>
            <table class="fabric-hot">
                <caption>{ "Links that worked hardest: paused longest, then queued deepest" }</caption>
                <thead><tr>
                    <th scope="col">{ "Link" }</th><th scope="col">{ "Use" }</th>
                    <th scope="col">{ "Deepest queue" }</th><th scope="col">{ "Paused" }</th>
                    <th scope="col">{ "PAUSEs" }</th><th scope="col">{ "ECN marks" }</th>
                </tr></thead>
                <tbody>
                    { for rows.into_iter().map(|i| {
                        let l = &r.links[i];
                        let used = mean_utilisation(l, r.end_us)
                            .map_or("–".into(), |u| format!("{:.0} %", u * 100.0));
                        html! { <tr>
                            <th scope="row">{ format!("{} → {}", l.from, l.to) }</th>
                            <td>{ used }</td>
                            <td>{ bytes(l.max_queue_bytes as f64) }</td>
                            <td>{ duration(l.paused_us * 1e-6) }</td>
                            <td>{ grouped(l.pause_frames as f64) }</td>
                            <td>{ grouped(l.ecn_marks as f64) }</td>
                        </tr> }
                    }) }
                </tbody>
            </table>
        </div>
    }
}
