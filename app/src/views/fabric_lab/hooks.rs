//! The view's effects, one hook each, in the order they run after a render: the worker (a
//! fresh one whenever the state asks, which is how Cancel stops a run), posting each run's
//! two sides, the URL's query, redraws on theme changes and resizes, and the charts.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Interval;
use yew::prelude::*;

pub use crate::views::redraw::ChartRefs;

use super::chart::{self, ChartKind};
use super::state::{Action, LabPage, Phase};
use super::worker::{FabricWorker, Heard};
use crate::views::dcqcn::charts::Palette;
use crate::views::page_query;

/// The running worker, or why none runs.
pub type WorkerSlot = Rc<RefCell<Option<Result<FabricWorker, String>>>>;

/// A worker per value of `page.worker`; dropping the old one terminates it.
#[hook]
pub fn use_fabric_worker(page: &UseReducerHandle<LabPage>) -> WorkerSlot {
    let slot: WorkerSlot = use_mut_ref(|| None);
    let dispatch = page.dispatcher();
    let held = slot.clone();
    use_effect_with(page.worker, move |_| {
        let on_heard = Callback::from(move |heard: Heard| dispatch.dispatch(Action::Heard(heard)));
        *held.borrow_mut() = Some(FabricWorker::start(on_heard));
        move || {
            held.borrow_mut().take();
        }
    });
    slot
}

/// Posts both sides of each accepted run to the worker, side A first.
#[hook]
pub fn use_runs(page: &UseReducerHandle<LabPage>, worker: WorkerSlot) {
    let page = page.clone();
    use_effect_with(page.run, move |&run| {
        let (Phase::Running, Some(sides)) = (&page.phase, &page.sides) else {
            return;
        };
        let posted = match worker.borrow().as_ref() {
            Some(Ok(w)) => sides
                .iter()
                .enumerate()
                .try_for_each(|(i, s)| w.post(2 * run + i as u64, s)),
            Some(Err(e)) => Err(e.clone()),
            None => Err("the simulation worker is not running".to_string()),
        };
        if let Err(why) = posted {
            page.dispatch(Action::Heard(Heard::Failed(why)));
        }
    });
}

/// Keeps the case and the typed parameters in the URL's query.
#[hook]
pub fn use_query(page: &LabPage) {
    use_effect_with(page.query_pairs(), |pairs| page_query::replace(pairs));
}

/// Redraws on theme changes and resizes (see [`crate::views::redraw`]).
#[hook]
pub fn use_redraw_on_theme_and_resize(dispatch: UseReducerDispatcher<LabPage>) {
    crate::views::redraw::use_redraw_on_theme_and_resize(Callback::from(move |()| {
        dispatch.dispatch(Action::Redraw)
    }));
}

/// The chart box and one canvas per [`ChartKind::ALL`].
#[hook]
pub fn use_chart_refs() -> ChartRefs {
    crate::views::redraw::use_chart_refs(ChartKind::ALL.len())
}

/// Draws the charts whenever a run finishes, the theme changes or the page is resized,
/// and marks the box `data-drawn` with the run drawn.
#[hook]
pub fn use_chart_drawing(page: &LabPage, refs: &ChartRefs) {
    let refs = refs.clone();
    let reports = page.reports();
    let sides = page.sides.clone();
    let run = page.run;
    let cursor_ms = page
        .timeline()
        .and_then(|t| page.cursor.and_then(|c| t.get(c).copied()))
        .map(|us| us / 1000.0);
    let deps = (
        run,
        reports.is_some(),
        page.redraw,
        cursor_ms.map(f64::to_bits),
    );
    use_effect_with(deps, move |_| {
        let (Some([a, b]), Some(sides), Some(el)) =
            (reports, sides, refs.charts_box.cast::<web_sys::Element>())
        else {
            return;
        };
        let palette = Palette::from_css(&el);
        for (kind, canvas) in ChartKind::ALL.iter().zip(refs.canvases()) {
            if let Err(e) = chart::draw(&canvas, *kind, &[&a, &b], &sides, cursor_ms, &palette) {
                web_sys::console::warn_1(&format!("chart {}: {e}", kind.id()).into());
            }
        }
        let _ = el.set_attribute("data-drawn", &run.to_string());
    });
}

/// While the timeline plays, one sample on every [`PLAY_MS`].
#[hook]
pub fn use_player(page: &UseReducerHandle<LabPage>) {
    let dispatch = page.dispatcher();
    use_effect_with(page.playing, move |&playing| {
        let clock =
            playing.then(|| Interval::new(PLAY_MS, move || dispatch.dispatch(Action::Tick)));
        move || drop(clock)
    });
}

/// The player's step, ms.
const PLAY_MS: u32 = 80;
