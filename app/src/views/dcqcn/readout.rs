//! The numbers under the charts: every flow's values at the cursor, the run's summary and
//! each flow's first cut and completion. The engine works them out (`Series::summary`);
//! this only formats them.

use engine::dcqcn::{FirstCut, Model};
use yew::prelude::*;

use super::charts::{flow_colour_name, flow_css, Drawn};

#[derive(Properties, PartialEq)]
pub struct CursorProps {
    pub run: Drawn,
    pub time_us: f64,
    /// The theme's colour set, matching the charts.
    pub dark: bool,
}

/// Flow `i`'s swatch and number, for a table's row header.
fn flow_label(i: usize, dark: bool) -> Html {
    html! {
        <>
            <span class="dcqcn-swatch" aria-hidden="true"
                style={format!("background: {}", flow_css(dark, i))}></span>
            { i }
            <span class="dcqcn-colour-name">{ format!(" {}", flow_colour_name(i)) }</span>
        </>
    }
}

#[function_component]
pub fn CursorReadout(props: &CursorProps) -> Html {
    let s = &props.run.series;
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
            <div class="dcqcn-table-wrap" tabindex="0">
                <table class="dcqcn-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Flow" }</th>
                            <th scope="col">{ "Rc Gb/s" }</th>
                            <th scope="col">{ "Rt Gb/s" }</th>
                            <th scope="col">{ "alpha" }</th>
                            <th scope="col">{ "sent Gb/s" }</th>
                            <th scope="col">{ "goodput Gb/s" }</th>
                            <th scope="col">{ "CNPs so far" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for s.flows.iter().enumerate().map(|(i, f)| html! {
                            <tr>
                                <th scope="row">{ flow_label(i, props.dark) }</th>
                                <td>{ format!("{:.2}", at(&f.rc_gbps)) }</td>
                                <td>{ format!("{:.2}", at(&f.rt_gbps)) }</td>
                                <td>{ format!("{:.3}", at(&f.alpha)) }</td>
                                <td>{ format!("{:.2}", at(&f.sent_gbps)) }</td>
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
    pub run: Drawn,
}

fn ms(us: f64) -> String {
    format!("{:.3} ms", us / 1000.0)
}

/// "40.0 → 20.6 Gb/s at 2.026 ms": the packet model's cut is an instant; the fluid model's
/// is first seen at a sample, so "by" that sample.
fn cut_text(cut: &FirstCut, model: Model) -> String {
    let when = match model {
        Model::Packet => "at",
        Model::Fluid => "by",
    };
    format!(
        "{:.1} → {:.1} Gb/s {when} {}",
        cut.rate_before_gbps,
        cut.rate_after_gbps,
        ms(cut.time_us)
    )
}

/// When a flow finished, or why it has no end: still sending at the end of the run, or
/// never started because it was due to start after the run ended.
fn completion(start_us: f64, done_us: Option<f64>, end_us: f64) -> String {
    match done_us {
        Some(done) => ms(done),
        None if start_us >= end_us => {
            format!("never started: due at {}, after the run", ms(start_us))
        }
        None => "still sending".to_string(),
    }
}

#[function_component]
pub fn RunSummary(props: &SummaryProps) -> Html {
    let s = &props.run.series;
    let sum = &props.run.summary;
    let first_cut = sum.first_cut.first().cloned().flatten();
    let cut_flows = sum.first_cut.iter().filter(|c| c.is_some()).count();
    let done: Vec<f64> = sum.completed_at_us.iter().filter_map(|c| *c).collect();
    let never = s.flow_start_us.iter().filter(|&&t| t >= s.end_us).count();
    let mut completed = if done.is_empty() {
        "none: the flows were still sending when the run ended".to_string()
    } else {
        format!(
            "{} of {} flows, the last at {}",
            done.len(),
            sum.completed_at_us.len(),
            ms(done.iter().fold(0.0_f64, |a, &b| a.max(b)))
        )
    };
    if never > 0 {
        completed.push_str(&format!(
            "; {} never started: due after the run ended at {}",
            engine::prose::count(never as u64, "flow", "flows"),
            ms(s.end_us)
        ));
    }
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
            data-active-utilization={format!("{:.6}", sum.active_utilization)}
            data-first-cut-us={first_cut.as_ref().map(|c| format!("{}", c.time_us))}
            data-first-cut-gbps={first_cut.as_ref().map(|c| format!("{:.6}", c.rate_after_gbps))}
        >
            { row("Utilization while flows were active", format!(
                "{:.1} % ({} to {})", sum.active_utilization * 100.0,
                ms(sum.active_from_us), ms(sum.active_to_us))) }
            { row("Jain's fairness", format!("{:.3}", sum.jain_fairness)) }
            { row("Max queue", format!("{:.1} KiB", s.max_queue_bytes / 1024.0)) }
            { row("CNPs", sum.total_cnps.to_string()) }
            { row("PFC paused", format!("{:.1} µs", sum.pfc_pause_us)) }
            { row("Drops", sum.drops.to_string()) }
            { row("Flow 0 first cut", match &first_cut {
                Some(c) => cut_text(c, s.model),
                None => "none: its rate never fell".into(),
            }) }
            { row("Flows cut", format!("{cut_flows} of {}", sum.first_cut.len())) }
            { row("Completed", completed) }
            if let Some(solve) = s.solve_ms {
                { row("Model solve", solve_text(solve, s.events, s.model)) }
            }
            if s.truncated {
                { row("Stopped early", s.truncation_reason.clone().unwrap_or_default()) }
            }
        </dl>
    }
}

#[derive(Properties, PartialEq)]
pub struct FlowTableProps {
    pub run: Drawn,
    pub dark: bool,
}

/// Each flow's start, first cut and completion: the run-level numbers per flow.
#[function_component]
pub fn FlowTable(props: &FlowTableProps) -> Html {
    let run = &props.run;
    let sum = &run.summary;
    let model = run.series.model;
    html! {
        <details class="dcqcn-flow-details" open=true>
            <summary>{ format!("Each flow's first cut and completion ({} flows)", sum.first_cut.len()) }</summary>
            <div class="dcqcn-table-wrap" tabindex="0">
                <table class="dcqcn-table dcqcn-flow-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Flow" }</th>
                            <th scope="col">{ "Starts" }</th>
                            <th scope="col">{ "First cut" }</th>
                            <th scope="col">{ "Completed at" }</th>
                            <th scope="col">{ "FCT" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for sum.first_cut.iter().enumerate().map(|(i, cut)| {
                            let start = run.series.flow_start_us.get(i).copied().unwrap_or(0.0);
                            let done = sum.completed_at_us.get(i).copied().flatten();
                            let fct = sum.fct_us.get(i).copied().flatten();
                            html! {
                                <tr data-flow={i.to_string()}>
                                    <th scope="row">{ flow_label(i, props.dark) }</th>
                                    <td>{ ms(start) }</td>
                                    <td>{ cut.as_ref().map_or("none".to_string(), |c| cut_text(c, model)) }</td>
                                    <td>{ completion(start, done, run.series.end_us) }</td>
                                    <td>{ fct.map_or("—".to_string(), |f| format!("{f:.0} µs")) }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </details>
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

#[cfg(test)]
mod tests {
    use super::completion;

    #[test]
    fn a_flow_due_after_the_run_never_started() {
        assert_eq!(completion(0.0, Some(2500.0), 10_000.0), "2.500 ms");
        assert_eq!(completion(0.0, None, 10_000.0), "still sending");
        assert_eq!(
            completion(12_000.0, None, 10_000.0),
            "never started: due at 12.000 ms, after the run"
        );
    }
}
