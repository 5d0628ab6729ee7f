//! The numbers under the charts: every flow's values at the cursor, and the run's summary.

use std::rc::Rc;

use engine::dcqcn::{Model, Series};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CursorProps {
    pub series: Rc<Series>,
    pub time_us: f64,
    /// CSS colour per flow, matching the charts.
    pub colours: Vec<String>,
}

#[function_component]
pub fn CursorReadout(props: &CursorProps) -> Html {
    let s = &props.series;
    let Some(k) = s.sample_index_at(props.time_us) else {
        return html! {};
    };
    let t = s.time_us.get(k).copied().unwrap_or(0.0);
    let queue = s.queue_bytes.get(k).copied().unwrap_or(0.0);
    let paused = s.pfc_paused.get(k).copied().unwrap_or(false);
    let at = |v: &Vec<f64>| v.get(k).copied().unwrap_or(0.0);
    html! {
        <div class="dcqcn-readout" data-sample={k.to_string()}>
            <p class="dcqcn-readout-head">
                { format!("At {:.3} ms: queue {:.1} KiB, upstream {}, {} CNPs in this interval",
                    t / 1000.0, queue / 1024.0, if paused { "PAUSED" } else { "not paused" },
                    s.cnps_in_interval(k)) }
            </p>
            <div class="dcqcn-table-wrap">
                <table class="dcqcn-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Flow" }</th>
                            <th scope="col">{ "Rc Gb/s" }</th>
                            <th scope="col">{ "Rt Gb/s" }</th>
                            <th scope="col">{ "alpha" }</th>
                            <th scope="col">{ "goodput Gb/s" }</th>
                            <th scope="col">{ "CNPs so far" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for s.flows.iter().enumerate().map(|(i, f)| html! {
                            <tr>
                                <th scope="row">
                                    <span class="dcqcn-swatch" aria-hidden="true"
                                        style={format!("background: {}", props.colours.get(i).cloned().unwrap_or_default())}></span>
                                    { i }
                                </th>
                                <td>{ format!("{:.2}", at(&f.rc_gbps)) }</td>
                                <td>{ format!("{:.2}", at(&f.rt_gbps)) }</td>
                                <td>{ format!("{:.3}", at(&f.alpha)) }</td>
                                <td>{ format!("{:.2}", at(&f.goodput_gbps)) }</td>
                                <td>{ f.cnps.get(k).copied().unwrap_or(0) }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct SummaryProps {
    pub series: Rc<Series>,
}

#[function_component]
pub fn RunSummary(props: &SummaryProps) -> Html {
    let s = &props.series;
    let sum = s.summary();
    let first_cut = s.first_cut.first().cloned().flatten();
    let finished: Vec<f64> = sum.fct_us.iter().filter_map(|f| *f).collect();
    let fct = if finished.is_empty() {
        "none finished".to_string()
    } else {
        let max = finished.iter().fold(0.0_f64, |a, &b| a.max(b));
        format!(
            "{} of {} flows, slowest {:.0} µs",
            finished.len(),
            sum.fct_us.len(),
            max
        )
    };
    let row = |term: &'static str, value: String| {
        html! {
            <div class="dcqcn-stat"><dt>{ term }</dt><dd>{ value }</dd></div>
        }
    };
    html! {
        <dl
            class="dcqcn-summary"
            data-max-queue={format!("{:.0}", s.max_queue_bytes)}
            data-events={s.events.to_string()}
            data-solve-ms={s.solve_ms.map(|ms| format!("{ms:.3}"))}
            data-jain={format!("{:.6}", sum.jain_fairness)}
            data-first-cut-gbps={first_cut.as_ref().map(|c| format!("{:.6}", c.rate_after_gbps))}
        >
            { row("Utilization", format!("{:.1} %", sum.utilization * 100.0)) }
            { row("Jain's fairness", format!("{:.3}", sum.jain_fairness)) }
            { row("Max queue", format!("{:.1} KiB", s.max_queue_bytes / 1024.0)) }
            { row("CNPs", sum.total_cnps.to_string()) }
            { row("PFC paused", format!("{:.1} µs", sum.pfc_pause_us)) }
            { row("Drops", sum.drops.to_string()) }
            { row("Flow 0 first cut", match &first_cut {
                Some(c) => format!("{:.1} → {:.1} Gb/s at {:.1} µs", c.rate_before_gbps, c.rate_after_gbps, c.time_us),
                None => "no cut".into(),
            }) }
            { row("Completed", fct) }
            if let Some(solve) = s.solve_ms {
                { row("Model solve", solve_text(solve, s.events, s.model)) }
            }
            if s.truncated {
                { row("Stopped early", s.truncation_reason.clone().unwrap_or_default()) }
            }
        </dl>
    }
}

/// "3.2 ms for 100000 flow-steps (31.2 M/s)": how much work the model did and how fast.
fn solve_text(ms: f64, events: u64, model: Model) -> String {
    let unit = match model {
        Model::Packet => "events",
        Model::Fluid => "flow-steps",
    };
    let rate = if ms > 0.0 {
        format!(" ({:.1} M/s)", events as f64 / ms / 1e3)
    } else {
        String::new()
    };
    format!("{ms:.1} ms for {events} {unit}{rate}")
}
