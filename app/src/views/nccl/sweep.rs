//! The size sweep, `all_reduce_perf -b 8 -e 8G -f 2` in shape: busbw against size on a log
//! axis, one line per algorithm (its best protocol at each size), and the same as a table
//! with nccl-tests' columns. The chart is plain SVG: a few polylines need no chart library.

use std::rc::Rc;

use engine::collective::{algorithm_name, Algorithm, CollectiveReport, Estimate};
use yew::prelude::*;

use crate::views::figures;

use super::format::{self, op_id};
use super::results::pair_name;
use super::state::{Action, Calc};

// A small canvas, so that its 12-unit labels stay readable when a phone shrinks it.
const WIDTH: f64 = 440.0;
const HEIGHT: f64 = 270.0;
const LEFT: f64 = 50.0;
const RIGHT: f64 = 22.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 44.0;

/// One algorithm's line: at each size, its fastest protocol the automatic choice may take
/// (any protocol, when it may take none).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub algorithm: Algorithm,
    /// (bytes, busbw GB/s)
    pub points: Vec<(f64, f64)>,
    /// The automatic choice may take none of its protocols.
    pub excluded: bool,
}

fn best<'a>(estimates: impl Iterator<Item = &'a Estimate>) -> Option<&'a Estimate> {
    estimates.min_by(|a, b| a.time_us.total_cmp(&b.time_us))
}

pub fn lines(reports: &[CollectiveReport]) -> Vec<Line> {
    Algorithm::ALL
        .into_iter()
        .filter_map(|a| {
            let mut excluded = true;
            let points: Vec<(f64, f64)> = reports
                .iter()
                .filter_map(|r| {
                    let of = || r.estimates.iter().filter(|e| e.algorithm == a);
                    let pick = best(of().filter(|e| e.enabled)).or_else(|| best(of()));
                    pick.map(|e| {
                        excluded &= !e.enabled;
                        (r.bytes, e.busbw_gbs)
                    })
                })
                .collect();
            (!points.is_empty()).then_some(Line {
                algorithm: a,
                points,
                excluded,
            })
        })
        .collect()
}

/// A round step for about five gridlines up to `max`.
fn step_for(max: f64) -> f64 {
    let rough = (max / 5.0).max(1e-9);
    let magnitude = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * magnitude)
}

fn x_of(bytes: f64, lo: f64, hi: f64) -> f64 {
    let t = (bytes.log2() - lo) / (hi - lo).max(1e-9);
    LEFT + t * (WIDTH - LEFT - RIGHT)
}

fn y_of(gbs: f64, top: f64) -> f64 {
    HEIGHT - BOTTOM - gbs / top * (HEIGHT - TOP - BOTTOM)
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub lines: Vec<Line>,
    pub current_bytes: f64,
    pub title: String,
}

#[function_component]
pub fn SweepChart(props: &ChartProps) -> Html {
    let all = props.lines.iter().flat_map(|l| l.points.iter());
    let (lo, hi) = all
        .clone()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (b, _)| {
            (lo.min(b.log2()), hi.max(b.log2()))
        });
    let max = all.map(|(_, g)| *g).fold(0.0, f64::max);
    let step = step_for(max);
    let top = (max / step).ceil().max(1.0) * step;
    let y_ticks: Vec<f64> = (0..=((top / step).round() as u32))
        .map(|i| f64::from(i) * step)
        .collect();
    // The first size and the powers of 1024, as the sizes read.
    let x_ticks: Vec<f64> = [3.0, 10.0, 20.0, 30.0]
        .into_iter()
        .filter(|k| *k >= lo && *k <= hi)
        .collect();
    let current = props.current_bytes;
    let show_current = current > 0.0 && current.log2() >= lo && current.log2() <= hi;
    html! {
        <figure class="nccl-chart">
            <svg
                viewBox={format!("0 0 {WIDTH} {HEIGHT}")}
                role="img"
                aria-labelledby="nccl-chart-title"
                data-lines={props.lines.len().to_string()}
            >
                <title id="nccl-chart-title">{ props.title.clone() }</title>
                { for y_ticks.iter().map(|g| {
                    let y = y_of(*g, top);
                    html! {
                        <g class="nccl-grid">
                            <line x1={LEFT.to_string()} x2={(WIDTH - RIGHT).to_string()} y1={y.to_string()} y2={y.to_string()} />
                            <text x={(LEFT - 6.0).to_string()} y={(y + 4.0).to_string()} text-anchor="end">{ format!("{g}") }</text>
                        </g>
                    }
                }) }
                { for x_ticks.iter().map(|k| {
                    let x = x_of(2f64.powf(*k), lo, hi);
                    html! {
                        <g class="nccl-grid">
                            <line x1={x.to_string()} x2={x.to_string()} y1={TOP.to_string()} y2={(HEIGHT - BOTTOM).to_string()} />
                            <text x={x.to_string()} y={(HEIGHT - BOTTOM + 16.0).to_string()} text-anchor="middle">{ figures::bytes(2f64.powf(*k)) }</text>
                        </g>
                    }
                }) }
                <text class="nccl-axis-title" x={((LEFT + WIDTH - RIGHT) / 2.0).to_string()} y={(HEIGHT - 6.0).to_string()} text-anchor="middle">{ "size (log scale)" }</text>
                <text class="nccl-axis-title" x="14" y={((TOP + HEIGHT - BOTTOM) / 2.0).to_string()} text-anchor="middle"
                    transform={format!("rotate(-90 14 {})", (TOP + HEIGHT - BOTTOM) / 2.0)}>{ "busbw (GB/s)" }</text>
                if show_current {
                    <line class="nccl-current" x1={x_of(current, lo, hi).to_string()} x2={x_of(current, lo, hi).to_string()}
                        y1={TOP.to_string()} y2={(HEIGHT - BOTTOM).to_string()} />
                }
                { for props.lines.iter().map(|l| {
                    let points = l.points.iter()
                        .map(|(b, g)| format!("{:.1},{:.1}", x_of(*b, lo, hi), y_of(*g, top)))
                        .collect::<Vec<_>>()
                        .join(" ");
                    html! {
                        <polyline
                            class={classes!("nccl-line", format!("nccl-algo-{}", algorithm_name(l.algorithm).to_ascii_lowercase()))}
                            data-algorithm={algorithm_name(l.algorithm)}
                            {points}
                        />
                    }
                }) }
            </svg>
            <figcaption>
                <ul class="nccl-legend">
                    { for props.lines.iter().map(|l| html! {
                        <li>
                            <svg class="nccl-swatch" viewBox="0 0 30 8" aria-hidden="true">
                                <line class={classes!("nccl-line", format!("nccl-algo-{}", algorithm_name(l.algorithm).to_ascii_lowercase()))} x1="0" x2="30" y1="4" y2="4" />
                            </svg>
                            { algorithm_name(l.algorithm) }
                            if l.excluded { { " (excluded from the automatic choice)" } }
                        </li>
                    }) }
                    if show_current { <li><span class="nccl-current-key" aria-hidden="true">{ "┆" }</span>{ " the size above" }</li> }
                </ul>
            </figcaption>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
pub struct SweepProps {
    pub calc: Rc<Calc>,
    pub shown: bool,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn Sweep(props: &SweepProps) -> Html {
    let calc = &props.calc;
    let perf = format!("{}_perf", op_id(calc.config.op));
    let toggle = {
        let (dispatch, shown) = (props.dispatch.clone(), props.shown);
        move |_| dispatch.emit(Action::Sweep(!shown))
    };
    let reports = calc.sweep.as_deref().filter(|_| props.shown);
    html! {
        <section class="nccl-sweep" aria-labelledby="nccl-sweep-title">
            <h3 id="nccl-sweep-title">{ format!("Size sweep, as {perf} -b 8 -e 8G -f 2 prints it") }</h3>
            <button type="button" class="nccl-button" aria-expanded={props.shown.to_string()} onclick={toggle}>
                { if props.shown { "Hide the sweep" } else { "Sweep 8 B to 8 GiB" } }
            </button>
            if let Some(reports) = reports {
                <SweepChart
                    lines={lines(reports)}
                    current_bytes={calc.config.bytes as f64}
                    title={format!("busbw against size for each algorithm, {perf}")}
                />
                <div class="nccl-scroll nccl-sweep-scroll" tabindex="0" role="region" aria-label={format!("{perf} table")}>
                    <table class="nccl-table nccl-sweep-table">
                        <thead>
                            <tr>
                                <th scope="col">{ "size (B)" }</th>
                                <th scope="col">{ "time (us)" }</th>
                                <th scope="col">{ "algbw (GB/s)" }</th>
                                <th scope="col">{ "busbw (GB/s)" }</th>
                                <th scope="col">{ "algorithm / protocol" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for reports.iter().map(|r| match r.chosen_estimate() {
                                Some(e) => html! {
                                    <tr data-bytes={r.bytes.to_string()}>
                                        <th scope="row" class="num">{ format!("{:.0}", r.bytes) }</th>
                                        <td class="num">{ format!("{:.2}", e.time_us) }</td>
                                        <td class="num">{ format::gbs(e.algbw_gbs) }</td>
                                        <td class="num">{ format::gbs(e.busbw_gbs) }</td>
                                        <td>{ pair_name(e.algorithm, e.protocol) }</td>
                                    </tr>
                                },
                                None => html! {
                                    <tr data-bytes={r.bytes.to_string()}>
                                        <th scope="row" class="num">{ format!("{:.0}", r.bytes) }</th>
                                        <td colspan="4">{ "no pair allowed" }</td>
                                    </tr>
                                },
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::collective::{sweep, Collective, CollectiveRequest, GpuModel, Machines, NicModel};

    #[test]
    fn one_line_per_algorithm_offered_and_round_steps() {
        let m = Machines {
            gpu: GpuModel::H100,
            gpus_per_node: 8,
            nodes: 2,
            nic: NicModel::Ndr400,
            nics_per_node: 8,
            gdr: true,
            sharp: false,
        };
        let req = CollectiveRequest {
            op: Collective::AllReduce,
            bytes: 0.0,
            cluster: m.cluster().unwrap(),
            algorithms: None,
            protocols: None,
        };
        let reports = sweep(&req).unwrap();
        let ls = lines(&reports);
        let mut offered: Vec<Algorithm> =
            reports[0].estimates.iter().map(|e| e.algorithm).collect();
        offered.dedup();
        assert_eq!(ls.iter().map(|l| l.algorithm).collect::<Vec<_>>(), offered);
        assert!(ls.iter().all(|l| l.points.len() == 31 && !l.excluded));
        assert_eq!(step_for(370.0), 100.0);
        assert_eq!(step_for(9.0), 2.0);
    }
}
