//! The DCQCN view: run the engine's fluid or packet model on a scenario, see rates, alpha,
//! the queue, CNPs and PFC pauses on one time axis, change parameters and compare runs.
//!
//! The fluid model runs on the main thread (a run plus redraw fits in a frame; the time is
//! recorded as the performance measure `lab-dcqcn-fluid`). The packet model runs in a Web
//! Worker (`src/bin/dcqcn_worker.rs`) so the page stays responsive; measure `lab-dcqcn-packet`.

mod charts;
mod export;
mod fields;
mod legend;
mod panel;
mod protocol;
mod query;
mod readout;
mod state;
mod worker;

use std::cell::RefCell;
use std::rc::Rc;

use engine::dcqcn::{scenario_names, DcqcnParams, Model};
use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use gloo::utils::{document, window};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use charts::{ChartKind, Frame, Palette};
use fields::{Group, FIELDS};
use legend::FlowLegend;
use panel::{ParamGroup, Refusal, RowView};
use readout::{CursorReadout, FlowTable, RunSummary};
use state::{Action, DcqcnState};
use worker::PacketWorker;

use query::Requested;

use super::page_query;
use super::timing::{lap, mark_start, measure, take_laps, Parts};

pub(crate) const FLUID_MEASURE: &str = "lab-dcqcn-fluid";
const PACKET_MEASURE: &str = "lab-dcqcn-packet";
/// The drawing part of a redraw, for a bench that wants to know where the time goes.
const DRAW_MEASURE: &str = "lab-dcqcn-draw";
/// How long the parameters must rest before the URL's query and the shown run time follow
/// them, ms.
const SETTLE_MS: u32 = 300;

#[function_component]
pub fn DcqcnView() -> Html {
    lap("queued");
    let state = use_reducer(|| DcqcnState::from_query(Requested::from_pairs(page_query::read())));
    let canvases: Vec<NodeRef> = ChartKind::ALL.iter().map(|_| NodeRef::default()).collect();
    let canvases = use_memo((), move |_| canvases);
    let charts_box = use_node_ref();
    let timing = use_node_ref();
    let worker = use_mut_ref(|| None::<Result<PacketWorker, String>>);
    // The pending rewrite of the page's URL (see the run effect).
    let url_write = use_mut_ref(|| None::<Timeout>);
    // The pending write of the last run's time (see the drawing effect).
    let timing_write = use_mut_ref(|| None::<Timeout>);
    // The timing to close once the next run is drawn.
    let pending_measure: Rc<RefCell<Option<&'static str>>> = use_mut_ref(|| None);

    // The worker, started once so a packet run does not wait for it to load.
    {
        let worker = worker.clone();
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let on_reply = Callback::from(
                move |(run, result): (u64, Result<engine::dcqcn::Series, String>)| {
                    dispatch.dispatch(Action::Finished {
                        run,
                        result: result.map(Box::new),
                    })
                },
            );
            *worker.borrow_mut() = Some(PacketWorker::start(on_reply));
            move || {
                worker.borrow_mut().take();
            }
        });
    }

    // Redraw on theme changes (data-theme on <html>, or the system's scheme) and resizes.
    {
        let dispatch = state.dispatcher();
        use_effect_with((), move |_| {
            let on_change = {
                let dispatch = dispatch.clone();
                Closure::<dyn FnMut()>::new(move || dispatch.dispatch(Action::Redraw))
            };
            let observer = web_sys::MutationObserver::new(on_change.as_ref().unchecked_ref()).ok();
            if let (Some(observer), Some(root)) = (&observer, document().document_element()) {
                let options = web_sys::MutationObserverInit::new();
                options.set_attributes(true);
                options.set_attribute_filter(&js_sys::Array::of1(&JsValue::from_str("data-theme")));
                let _ = observer.observe_with_options(&root, &options);
            }
            let resize = {
                let dispatch = dispatch.clone();
                EventListener::new(&window(), "resize", move |_| {
                    dispatch.dispatch(Action::Redraw)
                })
            };
            let scheme = window()
                .match_media("(prefers-color-scheme: dark)")
                .ok()
                .flatten()
                .map(|mq| {
                    EventListener::new(&mq, "change", move |_| dispatch.dispatch(Action::Redraw))
                });
            move || {
                if let Some(observer) = observer {
                    observer.disconnect();
                }
                drop(on_change);
                drop(resize);
                drop(scheme);
            }
        });
    }

    // One run per change of scenario or model.
    {
        let state_now = state.clone();
        let worker = worker.clone();
        let pending = pending_measure.clone();
        let url_write = url_write.clone();
        use_effect_with(state.run, move |&run| {
            let dispatch = state_now.dispatcher();
            lap("patch");
            // history.replaceState costs milliseconds in Chromium, which a drag would pay
            // at every step: the query is written once the values have rested. Replacing
            // the timer cancels the write it held, and so does leaving the page.
            let (name, model) = (state_now.scenario_name.clone(), state_now.model);
            let (base, current) = (state_now.base.clone(), state_now.current.clone());
            *url_write.borrow_mut() = Some(Timeout::new(SETTLE_MS, move || {
                page_query::replace(&query::pairs(&name, model, &base, &current))
            }));
            match state_now.model {
                // The reducer already ran it (state.rs, `run_fluid`); close its timing
                // once the charts are drawn.
                Model::Fluid => *pending.borrow_mut() = Some(FLUID_MEASURE),
                Model::Packet => {
                    mark_start(PACKET_MEASURE);
                    *pending.borrow_mut() = Some(PACKET_MEASURE);
                    dispatch.dispatch(Action::Started);
                    let posted = match worker.borrow().as_ref() {
                        Some(Ok(w)) => w.post(run, &state_now.current),
                        Some(Err(e)) => Err(e.clone()),
                        None => Err("the simulation worker is not running".to_string()),
                    };
                    if let Err(message) = posted {
                        dispatch.dispatch(Action::Finished {
                            run,
                            result: Err(format!("packet model unavailable: {message}")),
                        });
                    }
                }
            }
        });
    }

    // Draw whenever the run, the pin, the cursor, the theme or the size changes.
    {
        let canvases = canvases.clone();
        let charts_box = charts_box.clone();
        let timing = timing.clone();
        let timing_write = timing_write.clone();
        let pending = pending_measure.clone();
        let deps = (
            state.shown_run,
            state
                .pinned
                .as_ref()
                .map(|p| Rc::as_ptr(&p.drawn.series) as usize),
            state.cursor_us.map(f64::to_bits),
            state.redraw,
        );
        let shown = state.shown.clone();
        let pinned = state.pinned.as_ref().map(|p| p.drawn.clone());
        let cursor_us = state.cursor_us;
        let (dark, dispatch) = (state.dark, state.dispatcher());
        use_effect_with(deps, move |_| {
            if let (Some(run), Some(el)) = (&shown, charts_box.cast::<web_sys::Element>()) {
                // Where a redraw's time goes, for the bench: the stretches of the run this
                // effect closes, if any, then each part of the drawing, as
                // `data-draw-parts` on the charts' box.
                lap("effects");
                let mut parts = Parts::after(take_laps());
                mark_start(DRAW_MEASURE);
                let frame = Frame {
                    run,
                    pinned: pinned.as_ref(),
                    cursor_us,
                    palette: Palette::from_css(&el),
                };
                parts.split("palette");
                // The legend's swatches follow the colour set the charts use.
                if frame.palette.dark != dark {
                    dispatch.dispatch(Action::Theme {
                        dark: frame.palette.dark,
                    });
                }
                // The charts size themselves to their box; reading one width brings the
                // page's layout up to date after the render, which would otherwise be
                // counted against the first chart.
                if let Some(el) = el.dyn_ref::<web_sys::HtmlElement>() {
                    let _ = el.client_width();
                }
                parts.split("layout");
                for (kind, node) in ChartKind::ALL.iter().zip(canvases.iter()) {
                    if let Some(canvas) = node.cast::<HtmlCanvasElement>() {
                        if let Err(e) = charts::draw(&canvas, *kind, &frame) {
                            web_sys::console::warn_1(&format!("chart {}: {e}", kind.id()).into());
                        }
                    }
                    parts.split(kind.id());
                }
                let _ = el.set_attribute("data-draw-parts", &parts.joined());
                let _ = measure(DRAW_MEASURE);
                // The run's time goes straight into the page, not through the state, which
                // would render the whole view again after every drag; and its text once the
                // values rest, since new text costs the page another layout.
                let name = pending.borrow_mut().take();
                if let Some(ms) = name.and_then(measure) {
                    let _ = el.set_attribute("data-ms", &format!("{ms:.2}"));
                    let timing = timing.clone();
                    *timing_write.borrow_mut() = Some(Timeout::new(SETTLE_MS, move || {
                        if let Some(out) = timing.cast::<web_sys::Element>() {
                            out.set_text_content(Some(&format!("{ms:.1} ms")));
                        }
                    }));
                }
            }
        });
    }

    // Callbacks for the page's lifetime: the parameter groups compare their props, so
    // a drag or a keystroke re-renders only the group whose field changed.
    let on_edit = {
        let dispatch = state.dispatcher();
        use_callback((), move |(key, text), _| {
            dispatch.dispatch(Action::Edit { key, text })
        })
    };
    let on_type = {
        let dispatch = state.dispatcher();
        use_callback((), move |(key, text), _| {
            dispatch.dispatch(Action::Type { key, text })
        })
    };
    let on_toggle = {
        let dispatch = state.dispatcher();
        use_callback((), move |(group, open), _| {
            dispatch.dispatch(Action::Toggle { group, open })
        })
    };
    let groups: Html = Group::ALL
        .iter()
        .map(|&group| {
            let rows: Vec<RowView> = FIELDS
                .iter()
                .filter(|f| f.group == group)
                .map(|f| RowView {
                    key: f.key,
                    text: state.text(f.key),
                    refusal: state.errors.get(f.key).map(|message| Refusal {
                        message: message.clone(),
                        allowed: f.allowed(&state.current),
                        kept: f
                            .value(&state.current)
                            .map(|v| format!("{} {}", f.format(v), f.unit)),
                    }),
                })
                .collect();
            html! {
                <ParamGroup
                    key={group.title()}
                    {group}
                    {rows}
                    open={state.is_open(group)}
                    on_toggle={on_toggle.clone()}
                    on_type={on_type.clone()}
                    on_edit={on_edit.clone()}
                />
            }
        })
        .collect();

    let on_scenario = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            dispatch.dispatch(Action::Scenario(select.value()));
        })
    };
    let model_radio = |model: Model, label: &'static str| {
        let dispatch = state.dispatcher();
        let name = query::model_name(model);
        html! {
            <label class="dcqcn-radio">
                <input
                    type="radio"
                    name="dcqcn-model"
                    value={name}
                    checked={state.model == model}
                    onchange={move |_| dispatch.dispatch(Action::Model(model))}
                />
                { label }
            </label>
        }
    };
    let preset = |label: &'static str, params: fn() -> DcqcnParams| {
        let dispatch = state.dispatcher();
        html! {
            <button type="button" class="dcqcn-button" onclick={move |_| dispatch.dispatch(Action::Preset(params()))}>
                { label }
            </button>
        }
    };

    let end_us = state
        .shown
        .as_ref()
        .and_then(|d| d.series.time_us.last().copied())
        .unwrap_or(0.0);
    let step_us = state
        .shown
        .as_ref()
        .map(|d| d.series.sample_interval_us)
        .unwrap_or(1.0);
    let cursor_us = state.cursor_us.unwrap_or(end_us).min(end_us);
    let on_cursor = {
        let dispatch = state.dispatcher();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(t) = input.value().parse::<f64>() {
                dispatch.dispatch(Action::Cursor(t));
            }
        })
    };
    let on_csv = {
        let shown = state.shown.clone();
        let name = state.scenario_name.clone();
        Callback::from(move |_| {
            if let Some(run) = &shown {
                export::csv(&name, run);
            }
        })
    };
    let on_png = {
        let canvases = canvases.clone();
        let charts_box = charts_box.clone();
        let shown = state.shown.clone();
        let name = state.scenario_name.clone();
        let base = state.base.clone();
        Callback::from(move |_| {
            let list: Vec<HtmlCanvasElement> = canvases
                .iter()
                .filter_map(|n| n.cast::<HtmlCanvasElement>())
                .collect();
            if let (Some(run), Some(el)) = (&shown, charts_box.cast::<web_sys::Element>()) {
                export::png(&list, &Palette::from_css(&el), &name, run, &base);
            }
        })
    };
    let pin_button = {
        let dispatch = state.dispatcher();
        if state.pinned.is_some() {
            html! { <button type="button" class="dcqcn-button" onclick={move |_| dispatch.dispatch(Action::Unpin)}>{ "Clear pinned run" }</button> }
        } else {
            html! { <button type="button" class="dcqcn-button" disabled={state.shown.is_none()} onclick={move |_| dispatch.dispatch(Action::Pin)}>{ "Pin this run to compare" }</button> }
        }
    };
    let changes = state.changes_since_pin();
    let link = |href: &'static str, text: &'static str| {
        html! { <a href={crate::base::href(href)}>{ text }</a> }
    };

    let view = html! {
        <section class="dcqcn-view" aria-labelledby="dcqcn-view-title">
            <h2 id="dcqcn-view-title" class="dcqcn-title">{ "DCQCN simulator" }</h2>
            <p class="dcqcn-description">{ state.current.description.clone() }</p>
            <div class="dcqcn-controls">
                <label class="dcqcn-control">
                    { "Scenario " }
                    <select onchange={on_scenario} aria-label="Scenario">
                        { for scenario_names().iter().map(|n| html! {
                            <option value={*n} selected={state.scenario_name == *n}>{ *n }</option>
                        }) }
                    </select>
                </label>
                <fieldset class="dcqcn-control dcqcn-model">
                    <legend>{ "Model" }</legend>
                    { model_radio(Model::Fluid, "Fluid (fast)") }
                    { model_radio(Model::Packet, "Packet (detailed)") }
                </fieldset>
                <div class="dcqcn-control">
                    <span class="dcqcn-control-label">{ "DCQCN presets" }</span>
                    { preset("Paper", DcqcnParams::paper) }
                    { preset("mlx5 defaults", DcqcnParams::mlx5_default) }
                </div>
            </div>
            <div class="dcqcn-layout">
                <div class="dcqcn-panel" role="group" aria-label="Parameters">
                    { groups }
                </div>
                <div class="dcqcn-results">
                    <div class="dcqcn-status" aria-live="polite">
                        if state.running {
                            <p class="dcqcn-running" role="status">
                                <span class="dcqcn-spinner" aria-hidden="true"></span>
                                { "Running the packet simulation in a background worker…" }
                            </p>
                        }
                        if let Some(e) = &state.run_error {
                            <p class="dcqcn-error" role="alert">{ format!("The last run failed: {e}. The charts show the last good run.") }</p>
                        }
                    </div>
                    if let Some(d) = &state.shown {
                        <FlowLegend flows={d.series.flows.len()} dark={state.dark} pinned={state.pinned.is_some()} />
                    }
                    <div
                        class="dcqcn-charts"
                        ref={charts_box.clone()}
                        data-run={state.shown_run.to_string()}
                        data-model={state.shown.as_ref().map(|d| query::model_name(d.series.model))}
                    >
                        { for ChartKind::ALL.iter().zip(canvases.iter()).map(|(kind, node)| html! {
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
                    if let Some(d) = &state.shown {
                        <div class="dcqcn-scrubber">
                            <label for="dcqcn-cursor">{ "Time cursor" }</label>
                            <input
                                id="dcqcn-cursor"
                                type="range"
                                min="0"
                                max={end_us.to_string()}
                                step={step_us.to_string()}
                                value={cursor_us.to_string()}
                                oninput={on_cursor}
                            />
                            <output for="dcqcn-cursor">{ format!("{:.3} ms", cursor_us / 1000.0) }</output>
                        </div>
                        <CursorReadout run={d.clone()} time_us={cursor_us} dark={state.dark} />
                        <RunSummary run={d.clone()} />
                        <FlowTable run={d.clone()} dark={state.dark} />
                        // Filled in by the drawing effect (see there).
                        <p class="dcqcn-timing">{ "Run + draw: " }<output ref={timing.clone()}></output></p>
                    }
                    <div class="dcqcn-actions">
                        { pin_button }
                        <button type="button" class="dcqcn-button" disabled={state.shown.is_none()} onclick={on_csv}>{ "Export CSV" }</button>
                        <button type="button" class="dcqcn-button" disabled={state.shown.is_none()} onclick={on_png}>{ "Export PNG" }</button>
                    </div>
                    if state.pinned.is_some() {
                        <div class="dcqcn-changes">
                            <p>{ "Pinned run drawn faint grey. What changed since:" }</p>
                            if changes.is_empty() {
                                <p class="dcqcn-muted">{ "nothing yet: change a parameter." }</p>
                            } else {
                                <ul>
                                    { for changes.iter().map(|(label, then, now)| html! {
                                        <li>{ format!("{label}: {then} → {now}") }</li>
                                    }) }
                                </ul>
                            }
                        </div>
                    }
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
                </div>
            </div>
        </section>
    };
    lap("view");
    view
}
