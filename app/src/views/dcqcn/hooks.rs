//! The view's effects, one hook each: the packet model's worker, redraws on theme changes and
//! resizes, one run per change of scenario or model, the URL's query once the values rest,
//! and drawing the charts. Declared in that order, they run in that order after a render.

use std::cell::RefCell;
use std::rc::Rc;

use engine::dcqcn::{Model, Series};
use gloo::timers::callback::Timeout;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

pub use crate::views::redraw::ChartRefs;

use super::charts::{self, ChartKind, Frame, Palette};
use super::query;
use super::state::{Action, DcqcnState};
use super::worker::PacketWorker;
use super::{DRAW_MEASURE, FLUID_MEASURE, PACKET_MEASURE, SETTLE_MS};
use crate::views::page_query;
use crate::views::timing::{lap, mark_start, measure, take_laps, Parts};

/// The worker, started once so a packet run does not wait for it to load; `None` until then.
pub type WorkerSlot = Rc<RefCell<Option<Result<PacketWorker, String>>>>;

/// The timing to close once the next run is drawn (fluid or packet).
pub type PendingMeasure = Rc<RefCell<Option<&'static str>>>;

/// The chart box and one canvas per `ChartKind::ALL`, for drawing and the PNG.
#[hook]
pub fn use_chart_refs() -> ChartRefs {
    crate::views::redraw::use_chart_refs(ChartKind::ALL.len())
}

#[hook]
pub fn use_packet_worker(dispatch: UseReducerDispatcher<DcqcnState>) -> WorkerSlot {
    let worker: WorkerSlot = use_mut_ref(|| None);
    {
        let worker = worker.clone();
        use_effect_with((), move |_| {
            let on_reply = Callback::from(move |(run, result): (u64, Result<Series, String>)| {
                dispatch.dispatch(Action::Finished {
                    run,
                    result: result.map(Box::new),
                })
            });
            *worker.borrow_mut() = Some(PacketWorker::start(on_reply));
            move || {
                worker.borrow_mut().take();
            }
        });
    }
    worker
}

/// Redraws on theme changes and resizes (see [`crate::views::redraw`]).
#[hook]
pub fn use_redraw_on_theme_and_resize(dispatch: UseReducerDispatcher<DcqcnState>) {
    crate::views::redraw::use_redraw_on_theme_and_resize(Callback::from(move |()| {
        dispatch.dispatch(Action::Redraw)
    }));
}

/// One run per change of scenario or model: the fluid model has run in the reducer
/// (`run_fluid`), the packet model is posted to the worker. Returns the timing the drawing
/// closes.
#[hook]
pub fn use_runs(state: &UseReducerHandle<DcqcnState>, worker: WorkerSlot) -> PendingMeasure {
    let pending: PendingMeasure = use_mut_ref(|| None);
    {
        let state = state.clone();
        let pending = pending.clone();
        use_effect_with(state.run, move |&run| {
            lap("patch");
            match state.model {
                Model::Fluid => *pending.borrow_mut() = Some(FLUID_MEASURE),
                Model::Packet => {
                    let dispatch = state.dispatcher();
                    mark_start(PACKET_MEASURE);
                    *pending.borrow_mut() = Some(PACKET_MEASURE);
                    dispatch.dispatch(Action::Started);
                    let posted = match worker.borrow().as_ref() {
                        Some(Ok(w)) => w.post(run, &state.current),
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
    pending
}

/// Writes the run's scenario to the URL's query once the values have rested:
/// history.replaceState costs milliseconds in Chromium, which a drag would pay at every step.
/// Replacing the timer cancels the write it held, and so does leaving the page.
#[hook]
pub fn use_settled_query(state: &UseReducerHandle<DcqcnState>) {
    let write = use_mut_ref(|| None::<Timeout>);
    let state = state.clone();
    use_effect_with(state.run, move |_| {
        let (name, model) = (state.scenario_name.clone(), state.model);
        let (base, current) = (state.base.clone(), state.current.clone());
        *write.borrow_mut() = Some(Timeout::new(SETTLE_MS, move || {
            page_query::replace(&query::pairs(&name, model, &base, &current))
        }));
    });
}

/// Draws the charts whenever the run, the pin, the cursor, the theme or the size changes,
/// closes the pending run timing, and leaves the bench its figures on the charts' box
/// (`data-ms`, `data-draw-parts`) and the run's time in `timing_out` once the values rest.
#[hook]
pub fn use_chart_drawing(
    state: &UseReducerHandle<DcqcnState>,
    refs: &ChartRefs,
    pending: PendingMeasure,
    timing_out: NodeRef,
) {
    let timing_write = use_mut_ref(|| None::<Timeout>);
    let deps = (
        state.shown_run,
        state
            .pinned
            .as_ref()
            .map(|p| Rc::as_ptr(&p.drawn.series) as usize),
        state.cursor_us.map(f64::to_bits),
        state.redraw,
    );
    let refs = refs.clone();
    let shown = state.shown.clone();
    let pinned = state.pinned.as_ref().map(|p| p.drawn.clone());
    let cursor_us = state.cursor_us;
    let (dark, dispatch) = (state.dark, state.dispatcher());
    use_effect_with(deps, move |_| {
        let (Some(run), Some(el)) = (&shown, refs.charts_box.cast::<web_sys::Element>()) else {
            return;
        };
        // Where a redraw's time goes, for the bench: the stretches of the run this effect
        // closes, if any, then each part of the drawing.
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
        // The charts size themselves to their box; reading one width brings the page's
        // layout up to date after the render, which would otherwise be counted against the
        // first chart.
        if let Some(el) = el.dyn_ref::<web_sys::HtmlElement>() {
            let _ = el.client_width();
        }
        parts.split("layout");
        for (kind, node) in ChartKind::ALL.iter().zip(refs.canvases.iter()) {
            if let Some(canvas) = node.cast::<HtmlCanvasElement>() {
                if let Err(e) = charts::draw(&canvas, *kind, &frame) {
                    web_sys::console::warn_1(&format!("chart {}: {e}", kind.id()).into());
                }
            }
            parts.split(kind.id());
        }
        let _ = el.set_attribute("data-draw-parts", &parts.joined());
        let _ = measure(DRAW_MEASURE);
        // The run's time goes straight into the page, not through the state, which would
        // render the whole view again after every drag; and its text once the values rest,
        // since new text costs the page another layout.
        let name = pending.borrow_mut().take();
        if let Some(ms) = name.and_then(measure) {
            let _ = el.set_attribute("data-ms", &format!("{ms:.2}"));
            *timing_write.borrow_mut() = Some(Timeout::new(SETTLE_MS, move || {
                if let Some(out) = timing_out.cast::<web_sys::Element>() {
                    out.set_text_content(Some(&format!("{ms:.1} ms")));
                }
            }));
        }
    });
}
