//! The /fabric-lab page: seven claims the reference makes about GPU fabrics, each tested by
//! running two scenarios of `engine::netsim` packet by packet in a Web Worker (this view's
//! own module started again, see `worker.rs`) and reading the engine's check on the two
//! reports. The page shows the claim, the verdict, both sides' figures and hottest links,
//! and charts of both; every number comes from the runs.

mod chart;
mod compare;
mod controls;
mod drawing;
mod export;
mod fields;
mod hooks;
mod state;
mod timeline;
pub mod worker;

use engine::netsim::EXERCISES;
use yew::prelude::*;

use chart::ChartKind;
use compare::{ClaimAndVerdict, SideBySide};
use controls::{LabControls, RunStatus};
use drawing::FabricDrawings;
use hooks::{
    use_chart_drawing, use_chart_refs, use_fabric_worker, use_player, use_query,
    use_redraw_on_theme_and_resize, use_runs, ChartRefs,
};
use state::LabPage;
use timeline::Timeline;

use super::page_query;
use super::try_this::{attempts, TryThis};

#[derive(Properties, PartialEq)]
struct ChartsProps {
    page: UseReducerHandle<LabPage>,
    refs: ChartRefs,
}

/// The charts of both sides, their legend and the downloads; drawn once both sides are in.
#[function_component]
fn LabCharts(props: &ChartsProps) -> Html {
    let page = &props.page;
    let ready = page.reports().is_some();
    let reports = page.reports();
    let shown = move |kind: ChartKind| {
        reports
            .as_ref()
            .is_some_and(|[a, b]| kind.shows(&[&**a, &**b]))
    };
    let on_csv = {
        let page = page.clone();
        Callback::from(move |_: MouseEvent| {
            if let (Some(sides), Some([a, b])) = (&page.sides, page.reports()) {
                let _ = export::csv(page.case, sides, &[&a, &b]);
            }
        })
    };
    let on_png = {
        let (page, refs, shown) = (page.clone(), props.refs.clone(), shown.clone());
        Callback::from(move |_: MouseEvent| {
            let (Some(sides), Some(el)) = (&page.sides, refs.charts_box.cast::<web_sys::Element>())
            else {
                return;
            };
            let palette = crate::views::dcqcn::charts::Palette::from_css(&el);
            let shown: Vec<_> = ChartKind::ALL
                .iter()
                .zip(refs.canvases())
                .filter(|(kind, _)| shown(**kind))
                .map(|(_, canvas)| canvas)
                .collect();
            let _ = export::png(page.case, sides, &shown, &palette);
        })
    };
    html! {
        <div class="fabric-results" hidden={!ready}>
            <ul class="fabric-legend">
                { for page.case.sides.iter().enumerate().map(|(i, s)| {
                    let letter = engine::netsim::side_letter(i);
                    html! { <li><span class={classes!("fabric-swatch", format!("side-{letter}"))} aria-hidden="true"></span>
                        { format!("Side {letter}: {}", s.label) }</li> }
                }) }
            </ul>
            <div class="fabric-charts" ref={props.refs.charts_box.clone()}>
                { for ChartKind::ALL.iter().zip(props.refs.canvases.iter()).map(|(kind, node)| html! {
                    <figure class="fabric-chart" key={kind.id()} hidden={!shown(*kind)}>
                        <figcaption>{ kind.title() }</figcaption>
                        <canvas ref={node.clone()} id={format!("fabric-chart-{}", kind.id())}
                            height={chart::HEIGHT.to_string()} role="img"
                            aria-label={format!("{}; the tables above list each side's hottest links", kind.title())}></canvas>
                    </figure>
                }) }
            </div>
            <Timeline page={page.clone()} />
            <FabricDrawings page={page.clone()} />
            <div class="fabric-buttons">
                <button type="button" class="fabric-csv" disabled={!ready} onclick={on_csv}>{ "Download CSV" }</button>
                <button type="button" class="fabric-png" disabled={!ready} onclick={on_png}>{ "Download PNG" }</button>
            </div>
        </div>
    }
}

/// The whole interactive part of `/fabric-lab`.
#[function_component]
pub fn FabricLabView() -> Html {
    let page = use_reducer(|| LabPage::from_query(&page_query::read()));
    let worker = use_fabric_worker(&page);
    use_runs(&page, worker);
    use_query(&page);
    use_redraw_on_theme_and_resize(page.dispatcher());
    let refs = use_chart_refs();
    use_chart_drawing(&page, &refs);
    use_player(&page);
    html! {
        <div class="fabric-view" data-case={page.case.id} data-run={page.phase.name()}
            data-run-number={page.run.to_string()}>
            <TryThis view="fabric" attempts={attempts(&EXERCISES, page.tried)} />
            <LabControls page={page.clone()} />
            <ClaimAndVerdict case={page.case} verdict={page.verdict.clone()} />
            <RunStatus phase={page.phase.clone()} progress={page.progress} />
            <SideBySide case={page.case} done={page.done.clone()} />
            <LabCharts page={page.clone()} {refs} />
        </div>
    }
}
