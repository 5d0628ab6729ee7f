//! The results column around the charts: the run's status, the chart stack, the time cursor,
//! the pin and export buttons, what changed since the pinned run, and further reading.

use engine::dcqcn::Scenario;
use yew::prelude::*;

use super::charts::{ChartKind, Drawn, Palette};
use super::export;
use super::hooks::ChartRefs;
use super::state::Action;

#[derive(Properties, PartialEq)]
pub struct StatusProps {
    pub running: bool,
    pub error: Option<String>,
}

/// Says a packet run is under way, or that the last run failed.
#[function_component]
pub fn RunStatus(props: &StatusProps) -> Html {
    html! {
        <div class="dcqcn-status" aria-live="polite">
            if props.running {
                <p class="dcqcn-running" role="status">
                    <span class="dcqcn-spinner" aria-hidden="true"></span>
                    { "Running the packet simulation in a background worker…" }
                </p>
            }
            if let Some(e) = &props.error {
                <p class="dcqcn-error" role="alert">{ format!("The last run failed: {e}. The charts show the last good run.") }</p>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartStackProps {
    pub refs: ChartRefs,
    /// The shown run's number and model, for the tests and the bench.
    pub run: u64,
    /// The newest run asked for: one more than `run` while it is computed, equal at rest,
    /// so a test can tell "nothing was asked" from "not drawn yet".
    pub requested: u64,
    pub model: Option<&'static str>,
}

/// The canvases the drawing effect fills (`hooks::use_chart_drawing`).
#[function_component]
pub fn ChartStack(props: &ChartStackProps) -> Html {
    html! {
        <div
            class="dcqcn-charts"
            ref={props.refs.charts_box.clone()}
            data-run={props.run.to_string()}
            data-requested={props.requested.to_string()}
            data-model={props.model}
        >
            { for ChartKind::ALL.iter().zip(props.refs.canvases.iter()).map(|(kind, node)| html! {
                <figure class="dcqcn-chart" key={kind.id()}>
                    <figcaption>{ kind.title() }</figcaption>
                    <canvas
                        ref={node.clone()}
                        id={format!("dcqcn-chart-{}", kind.id())}
                        height={kind.height().to_string()}
                        role="img"
                        aria-label={kind.title()}
                    ></canvas>
                </figure>
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct CursorProps {
    pub run: Drawn,
    /// Where the cursor stands, µs (within the run).
    pub time_us: f64,
    pub dispatch: Callback<Action>,
}

/// The slider that moves the time cursor over the run.
#[function_component]
pub fn TimeCursor(props: &CursorProps) -> Html {
    let series = &props.run.series;
    let end_us = series.time_us.last().copied().unwrap_or(0.0);
    let oninput = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(t) = input.value().parse::<f64>() {
                dispatch.emit(Action::Cursor(t));
            }
        })
    };
    html! {
        <div class="dcqcn-scrubber">
            <label for="dcqcn-cursor">{ "Time cursor" }</label>
            <input
                id="dcqcn-cursor"
                type="range"
                min="0"
                max={end_us.to_string()}
                step={series.sample_interval_us.to_string()}
                value={props.time_us.to_string()}
                {oninput}
            />
            <output for="dcqcn-cursor">{ format!("{:.3} ms", props.time_us / 1000.0) }</output>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ActionsProps {
    pub run: Option<Drawn>,
    pub pinned: bool,
    /// The named scenario and its definition, for the exports' names and captions.
    pub scenario: String,
    pub base: Scenario,
    pub charts: ChartRefs,
    pub dispatch: Callback<Action>,
}

/// Pinning a run to compare, and exporting the shown one as CSV or PNG.
#[function_component]
pub fn RunActions(props: &ActionsProps) -> Html {
    let on_csv = {
        let (run, name) = (props.run.clone(), props.scenario.clone());
        Callback::from(move |_| {
            if let Some(run) = &run {
                export::csv(&name, run);
            }
        })
    };
    let on_png = {
        let (run, name) = (props.run.clone(), props.scenario.clone());
        let (base, charts) = (props.base.clone(), props.charts.clone());
        Callback::from(move |_| {
            if let (Some(run), Some(el)) = (&run, charts.charts_box.cast::<web_sys::Element>()) {
                export::png(
                    &charts.canvases(),
                    &Palette::from_css(&el),
                    &name,
                    run,
                    &base,
                );
            }
        })
    };
    let none = props.run.is_none();
    html! {
        <div class="dcqcn-actions">
            if props.pinned {
                <button type="button" class="dcqcn-button" onclick={props.dispatch.reform(|_| Action::Unpin)}>{ "Clear pinned run" }</button>
            } else {
                <button type="button" class="dcqcn-button" disabled={none} onclick={props.dispatch.reform(|_| Action::Pin)}>{ "Pin this run to compare" }</button>
            }
            <button type="button" class="dcqcn-button" disabled={none} onclick={on_csv}>{ "Export CSV" }</button>
            <button type="button" class="dcqcn-button" disabled={none} onclick={on_png}>{ "Export PNG" }</button>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ChangesProps {
    /// (parameter, pinned value, current value).
    pub changes: Vec<(&'static str, String, String)>,
}

/// What changed since the pinned run.
#[function_component]
pub fn PinnedChanges(props: &ChangesProps) -> Html {
    html! {
        <div class="dcqcn-changes">
            <p>{ "Pinned run drawn faint grey. What changed since:" }</p>
            if props.changes.is_empty() {
                <p class="dcqcn-muted">{ "nothing yet: change a parameter." }</p>
            } else {
                <ul>
                    { for props.changes.iter().map(|(label, then, now)| html! {
                        <li>{ format!("{label}: {then} → {now}") }</li>
                    }) }
                </ul>
            }
        </div>
    }
}

/// Links into the reference text (the shell follows them without reloading).
#[function_component]
pub fn ReadMore() -> Html {
    let link = |href: &'static str, text: &'static str| {
        html! { <a href={crate::base::href(href)}>{ text }</a> }
    };
    html! {
        <p class="dcqcn-links">
            { "Read more: " }
            { link("/dcqcn#the-reaction-point", "the reaction point") }
            { " · " }
            { link("/dcqcn#the-mlx5-knobs", "the mlx5 knobs") }
            { " · " }
            { link("/lossless#ecn-must-act-before-pfc", "ECN must act before PFC") }
            { " · " }
            { link("/lossless", "lossless networks") }
        </p>
    }
}
