//! The DCQCN view: run the engine's fluid or packet model on a scenario, see rates, alpha,
//! the queue, CNPs and PFC pauses on one time axis, change parameters and compare runs.
//!
//! The fluid model runs on the main thread (a run plus redraw fits in a frame; the time is
//! recorded as the performance measure `lab-dcqcn-fluid`). The packet model runs in a Web
//! Worker (this view's own module started again, see `worker.rs`) so the page stays
//! responsive; measure `lab-dcqcn-packet`.

pub(crate) mod charts;
mod controls;
mod export;
mod fields;
mod hooks;
mod legend;
mod panel;
mod protocol;
mod query;
mod readout;
mod results;
mod state;
pub mod worker;

use engine::dcqcn::exercise::EXERCISES;
use yew::prelude::*;

use controls::ScenarioControls;
use hooks::{
    use_chart_drawing, use_chart_refs, use_packet_worker, use_redraw_on_theme_and_resize, use_runs,
    use_settled_query,
};
use legend::FlowLegend;
use panel::{group_views, ParamPanel};
use query::{model_name, Requested};
use readout::{CursorReadout, FlowTable, RunSummary};
use results::{ChartStack, PinnedChanges, ReadMore, RunActions, RunStatus, TimeCursor};
use state::{Action, DcqcnState};

use super::page_query;
use super::timing::lap;
use super::try_this::{attempts, TryThis};

pub(crate) const FLUID_MEASURE: &str = "lab-dcqcn-fluid";
const PACKET_MEASURE: &str = "lab-dcqcn-packet";
/// The drawing part of a redraw, for a bench that wants to know where the time goes.
const DRAW_MEASURE: &str = "lab-dcqcn-draw";
/// How long the parameters must rest before the URL's query and the shown run time follow
/// them, ms.
const SETTLE_MS: u32 = 300;

#[function_component]
pub fn DcqcnView() -> Html {
    // The laps time a run's way to the screen (`timing::lap`, read by the bench).
    lap("queued");
    let state = use_reducer(|| DcqcnState::from_query(Requested::from_pairs(page_query::read())));
    // One callback for the page's lifetime, so the children's props compare equal.
    let dispatch = {
        let dispatcher = state.dispatcher();
        use_callback((), move |action: Action, _| dispatcher.dispatch(action))
    };
    let charts = use_chart_refs();
    let timing_out = use_node_ref();
    let worker = use_packet_worker(state.dispatcher());
    use_redraw_on_theme_and_resize(state.dispatcher());
    let pending = use_runs(&state, worker);
    use_settled_query(&state);
    use_chart_drawing(&state, &charts, pending, timing_out.clone());

    let cursor_us = state.cursor_at_us();
    let view = html! {
        <section class="dcqcn-view" aria-labelledby="dcqcn-view-title">
            <h2 id="dcqcn-view-title" class="dcqcn-title">{ "DCQCN simulator" }</h2>
            <p class="dcqcn-description">{ state.current.description.clone() }</p>
            <TryThis view="dcqcn" attempts={attempts(&EXERCISES, state.tried)} />
            <ScenarioControls scenario={state.scenario_name.clone()} model={state.model} dispatch={dispatch.clone()} />
            // The charts come first in the page's order, so a narrow screen shows them right
            // under the scenario and model; a wide one puts the parameters beside them
            // (the layout's grid areas in style.css).
            <div class="dcqcn-layout">
                <div class="dcqcn-figures">
                    <RunStatus running={state.running} error={state.run_error.clone()} />
                    if let Some(d) = &state.shown {
                        <FlowLegend
                            flows={d.series.flows.len()}
                            dark={state.dark}
                            pinned={state.pinned.is_some()}
                            model={d.series.model}
                            sample_interval_us={d.series.sample_interval_us}
                        />
                    }
                    <ChartStack
                        refs={charts.clone()}
                        run={state.shown_run}
                        requested={state.run}
                        model={state.shown.as_ref().map(|d| model_name(d.series.model))}
                    />
                    if let Some(d) = &state.shown {
                        <TimeCursor run={d.clone()} time_us={cursor_us} dispatch={dispatch.clone()} />
                    }
                </div>
                <ParamPanel groups={group_views(&state)} dispatch={dispatch.clone()} />
                <div class="dcqcn-results">
                    if let Some(d) = &state.shown {
                        <CursorReadout run={d.clone()} time_us={cursor_us} dark={state.dark} />
                        <RunSummary run={d.clone()} />
                        <FlowTable run={d.clone()} dark={state.dark} />
                        // Filled in by the drawing effect (`hooks::use_chart_drawing`).
                        <p class="dcqcn-timing">{ "Run + draw: " }<output ref={timing_out}></output></p>
                    }
                    <RunActions
                        run={state.shown.clone()}
                        pinned={state.pinned.is_some()}
                        scenario={state.scenario_name.clone()}
                        base={state.base.clone()}
                        {charts}
                        {dispatch}
                    />
                    if state.pinned.is_some() {
                        <PinnedChanges changes={state.changes_since_pin()} />
                    }
                    <ReadMore />
                </div>
            </div>
        </section>
    };
    lap("view");
    view
}
