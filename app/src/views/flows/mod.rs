//! Packet flows: a scenario from `engine::flows` played step by step on a stage, with its
//! explanation, latency breakdown and totals beside it; or two scenarios on one time axis.
//!
//! The scenario, its parameters and the step live in the URL query, so a link opens at the
//! step it was copied at.

mod controls;
mod fields;
mod form;
mod keys;
mod layout;
mod panel;
mod player;
mod stage;
mod url;

use std::cell::RefCell;
use std::rc::Rc;

use engine::flows::exercise::EXERCISES;
use engine::flows::{build_scenario, default_params, scenario_ids, Scenario, StepKind};
use gloo::render::{request_animation_frame, AnimationFrame};
use gloo::utils::window;
use yew::prelude::*;

use super::figures;
use controls::Controls;
use fields::{Fields, Picker};
use panel::{Breakdown, FlowTopics, StepPanel, TotalsList};
use player::{Action, Player, Show};
use stage::Stage;

use super::try_this::{attempts, use_tried, TryThis};
use super::{page_query, timing};

/// The measure a bench reads: the work of one animation frame.
pub const FRAME_MEASURE: &str = "lab-flows-frame";

fn prefers_reduced_motion() -> bool {
    window()
        .match_media("(prefers-reduced-motion: reduce)")
        .ok()
        .flatten()
        .is_some_and(|q| q.matches())
}

/// Scenario titles for the menus, built once.
fn titles() -> Vec<(String, String)> {
    scenario_ids()
        .iter()
        .map(|id| {
            let title = default_params(id)
                .and_then(|p| build_scenario(id, &p))
                .map_or_else(|_| id.to_string(), |s| s.title);
            (id.to_string(), title)
        })
        .collect()
}

/// Runs the clock while the player plays: one `Tick` per animation frame, each frame's
/// work (the tick and the render it causes) measured as [`FRAME_MEASURE`].
#[hook]
fn use_frame_clock(running: bool, dispatch: UseReducerDispatcher<Player>) {
    use_effect_with(running, move |&running| {
        let frame: Rc<RefCell<Option<AnimationFrame>>> = Rc::new(RefCell::new(None));
        if running {
            schedule(frame.clone(), dispatch, None);
        }
        move || {
            frame.borrow_mut().take();
        }
    });
}

fn schedule(
    slot: Rc<RefCell<Option<AnimationFrame>>>,
    dispatch: UseReducerDispatcher<Player>,
    last: Option<f64>,
) {
    let next_slot = slot.clone();
    let handle = request_animation_frame(move |now| {
        let frame = timing::measure_span(FRAME_MEASURE);
        let ms = last.map_or(0.0, |last| now - last);
        dispatch.dispatch(Action::Tick(ms));
        // Yew renders in a microtask queued by the dispatch; this one runs after it.
        yew::platform::spawn_local(async move { frame.end() });
        // A slot emptied by the effect's cleanup means the clock was stopped.
        if next_slot.borrow().is_some() {
            schedule(next_slot.clone(), dispatch, Some(now));
        }
    });
    slot.borrow_mut().replace(handle);
}

#[function_component]
pub fn FlowsView() -> Html {
    let player = use_reducer(|| url::from_pairs(&page_query::read(), prefers_reduced_motion()));
    let titles = use_memo((), |_| titles());
    let (tried, observe) = use_tried(&EXERCISES);
    let dispatch = {
        let player = player.clone();
        Callback::from(move |action: Action| player.dispatch(action))
    };
    use_frame_clock(player.playing || player.to_segment_end, player.dispatcher());

    let query = url::pairs(&player);
    use_effect_with(query, |query| page_query::replace(query));

    // Yew delegates events to the app's root, so the player is found by its ref, not as
    // the event's current target.
    let section = use_node_ref();
    let onkeydown = {
        let dispatch = dispatch.clone();
        let section = section.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            let (Some(target), Some(player)) = (
                e.target_dyn_into::<web_sys::Element>(),
                section.cast::<web_sys::Element>(),
            ) else {
                return;
            };
            if let Some(key) = keys::player_key(&e.key(), keys::focus_of(&target, &player)) {
                // Space would otherwise scroll the page as well.
                e.prevent_default();
                dispatch.emit(key.action());
            }
        })
    };

    let segments = player.show.segments();
    let progress = player.shown_progress();
    let (unit, position) = match &player.show {
        Show::One(_) => ("Step", player.step_position()),
        Show::Pair { .. } => (
            "Moment",
            format!(
                "t = {}",
                figures::duration_ns(player.show.time_at(player.index, progress))
            ),
        ),
    };

    // A pair is shown at one moment; before the first step, at none.
    let pair_time = if player.index == 0 && progress == 0.0 {
        -1.0
    } else {
        player.show.time_at(player.index, progress)
    };
    let shown_kinds: Vec<StepKind> = match &player.show {
        Show::One(scenario) => (player.index > 0 || progress > 0.0)
            .then(|| scenario.steps.get(player.index))
            .flatten()
            .map(|s| s.kind)
            .into_iter()
            .collect(),
        Show::Pair { left, right, .. } => [left, right]
            .iter()
            .filter_map(|s| s.step_at(pair_time).and_then(|i| s.steps.get(i)))
            .map(|s| s.kind)
            .collect(),
    };
    use_effect_with(shown_kinds, move |kinds| {
        for kind in kinds {
            observe.emit(*kind);
        }
    });

    let body = match &player.show {
        Show::One(scenario) => {
            let started = player.index > 0 || progress > 0.0;
            let step = started.then_some(player.index);
            let accrued =
                scenario.breakdown_through(player.index, if started { progress } else { 0.0 });
            html! {
                <div class="flow-single">
                    <p class="flow-summary">{ scenario.summary.clone() }</p>
                    <Stage scenario={scenario.clone()} {step} {progress} label={scenario.title.clone()} />
                    <div class="flow-side">
                        <StepPanel scenario={scenario.clone()} {step} />
                        <Breakdown {accrued} scale_ns={scenario.totals.end_to_end_ns} total_ns={scenario.totals.end_to_end_ns} />
                        <TotalsList scenario={scenario.clone()} />
                    </div>
                    <FlowTopics scenario={scenario.clone()} />
                </div>
            }
        }
        Show::Pair {
            comparison,
            left,
            right,
            ..
        } => {
            let t = pair_time;
            let scale = left.totals.end_to_end_ns.max(right.totals.end_to_end_ns);
            let side = |scenario: &Rc<Scenario>, name: &str| {
                let step = scenario.step_at(t);
                let fraction = step.and_then(|i| scenario.steps.get(i)).map_or(0.0, |s| {
                    if s.duration_ns > 0.0 {
                        ((t - s.start_ns) / s.duration_ns).clamp(0.0, 1.0)
                    } else {
                        1.0
                    }
                });
                html! {
                    <section class="flow-side-by-side" aria-label={format!("{name}: {}", scenario.title)}>
                        <h3>{ format!("{name}: {}", scenario.title) }</h3>
                        <Stage scenario={scenario.clone()} {step} progress={fraction} label={format!("{name}: {}", scenario.title)} />
                        <StepPanel scenario={scenario.clone()} {step} />
                        <Breakdown accrued={scenario.breakdown_at(t)} scale_ns={scale} total_ns={scenario.totals.end_to_end_ns} />
                        <TotalsList scenario={scenario.clone()} />
                        <FlowTopics scenario={scenario.clone()} />
                    </section>
                }
            };
            html! {
                <div class="flow-compare-pair">
                    <p class="flow-summary">{ comparison.point.clone() }</p>
                    { side(left, "A") }
                    { side(right, "B") }
                </div>
            }
        }
    };

    html! { <>
        <TryThis view="flows" attempts={attempts(&EXERCISES, tried)} />
        <section class="flows" aria-label="Packet flows player" tabindex="0" ref={section} {onkeydown}
                 data-index={player.index.to_string()} data-segments={segments.to_string()}
                 data-playing={player.playing.to_string()} data-done={player.done().to_string()}>
            <Picker scenario={player.scenario.clone()} compare={player.compare}
                    titles={(*titles).clone()} dispatch={dispatch.clone()} />
            <Fields form={player.form.clone()} fields={player.fields()} error={player.error.clone()}
                    dispatch={dispatch.clone()} />
            <Controls playing={player.playing} done={player.done()} index={player.index} {segments}
                      speed={player.speed} unit={unit} position={position} dispatch={dispatch.clone()} />
            { body }
            <p class="flow-keys">{ "Keys in the player, outside its fields and menus: ← back, → forward, space play/pause. \
                  On a button space presses it; on a stage that scrolls sideways the arrows scroll it." }</p>
        </section>
    </> }
}
