//! Two peers bringing up an RC connection, one step at a time: both QPs side by side, what
//! crosses between them in the middle. Steps come from `engine::qp::connection_walkthrough`.

use engine::qp::walkthrough::{Actor, StepOutcome};
use engine::qp::{connection_walkthrough, ConnectionStep, QpState, Walkthrough};
use web_sys::HtmlSelectElement;
use yew::prelude::*;

use super::events::Completions;
use super::query::{walk_from_slug, walk_slug};
use super::Action;

#[derive(Properties, PartialEq)]
pub struct ConnectionStepperProps {
    pub walk: Walkthrough,
    pub step: usize,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn ConnectionStepper(props: &ConnectionStepperProps) -> Html {
    let steps = use_memo(props.walk, |walk| connection_walkthrough(*walk));
    let count = steps.len();
    let index = props.step.min(count.saturating_sub(1));
    let (Some(step), previous) = (
        steps.get(index),
        index.checked_sub(1).and_then(|i| steps.get(i)),
    ) else {
        return html! { <p>{ "This walkthrough has no steps." }</p> };
    };
    let dispatch = &props.dispatch;
    let on_walk = dispatch.reform(|e: Event| {
        let select: HtmlSelectElement = e.target_unchecked_into();
        Action::SetWalk(walk_from_slug(&select.value()).unwrap_or(Walkthrough::TcpBootstrap))
    });
    let on_key = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            let action = match e.key().as_str() {
                "ArrowLeft" => Action::Step(-1),
                "ArrowRight" => Action::Step(1),
                "Home" => Action::Restart,
                _ => return,
            };
            e.prevent_default();
            dispatch.emit(action);
        })
    };
    let failed = matches!(step.outcome, StepOutcome::Failed { .. });

    html! {
        <section class="qp-walk" aria-labelledby="qp-walk-title">
            <h2 id="qp-walk-title">{ "Two peers connecting" }</h2>
            <label>{ "Story " }
                <select id="qp-walk-variant" onchange={on_walk}>
                    { for Walkthrough::ALL.into_iter().map(|w| html! {
                        <option value={walk_slug(w)} selected={w == props.walk}>{ w.title() }</option>
                    }) }
                </select>
            </label>
            <div class="qp-walk-stage" tabindex="0" onkeydown={on_key}
                aria-label="Connection walkthrough; use the left and right arrow keys to step">
                <Peer actor={Actor::A} step={step.clone()} previous={previous.cloned()} />
                <div class={classes!("qp-wire", (step.actor == Actor::Wire).then_some("active"))}>
                    <h3>{ "Between them" }</h3>
                    <p class="qp-wire-arrow" aria-hidden="true">{ if step.actor == Actor::Wire { "⇄" } else { "·" } }</p>
                    if step.actor == Actor::Wire {
                        <p class="qp-wire-title">{ &step.title }</p>
                        <Values step={step.clone()} />
                    } else {
                        <p class="qp-muted">{ "nothing crosses in this step" }</p>
                    }
                </div>
                <Peer actor={Actor::B} step={step.clone()} previous={previous.cloned()} />
            </div>
            <div class={classes!("qp-step", failed.then_some("failed"))} aria-live="polite">
                <p class="qp-step-count">{ format!("Step {} of {count}", index + 1) }</p>
                <h3 class="qp-step-title">{ &step.title }</h3>
                if let StepOutcome::Failed { message, .. } = &step.outcome {
                    <p class="qp-step-error"><code>{ message }</code></p>
                }
                <p>{ &step.explanation }</p>
                if !step.completions.is_empty() {
                    { for [Actor::A, Actor::B].into_iter().filter_map(|peer| {
                        let list: Vec<_> = step.completions.iter().filter(|c| c.peer == peer).map(|c| c.completion).collect();
                        (!list.is_empty()).then(|| html! {
                            <div class="qp-step-wc"><h4>{ format!("Peer {peer} polls its CQ") }</h4><Completions completions={list} /></div>
                        })
                    }) }
                }
                if !step.async_events.is_empty() {
                    <p class="qp-async">{ "Async events: " }
                        { for step.async_events.iter().map(|e| html! { <code>{ format!("{}: {}", e.peer, e.event.name()) }</code> }) }
                    </p>
                }
            </div>
            <div class="qp-walk-nav">
                <button type="button" class="qp-prev" disabled={index == 0} onclick={dispatch.reform(|_| Action::Step(-1))}>{ "← Previous" }</button>
                <button type="button" class="qp-restart" onclick={dispatch.reform(|_| Action::Restart)}>{ "Restart" }</button>
                <button type="button" class="qp-next" disabled={index + 1 >= count} onclick={dispatch.reform(|_| Action::Step(1))}>{ "Next →" }</button>
            </div>
            <ol class="qp-step-list">
                { for steps.iter().enumerate().map(|(i, s)| html! {
                    <li aria-current={(i == index).then_some("step")}
                        class={classes!((i == index).then_some("current"), (i > index).then_some("later"),
                            matches!(s.outcome, StepOutcome::Failed { .. }).then_some("failed"))}>
                        { &s.title }
                    </li>
                }) }
            </ol>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PeerProps {
    actor: Actor,
    step: ConnectionStep,
    previous: Option<ConnectionStep>,
}

fn state_of(step: &ConnectionStep, actor: Actor) -> Option<QpState> {
    match actor {
        Actor::A => step.state_a,
        _ => step.state_b,
    }
}

/// One peer's column: its QP state (marked when the step changed it) and, when it acts,
/// what it does.
#[function_component]
fn Peer(props: &PeerProps) -> Html {
    let actor = props.actor;
    let state = state_of(&props.step, actor);
    let changed = props.previous.as_ref().map(|p| state_of(p, actor)) != Some(state);
    let active = props.step.actor == actor;
    html! {
        <div class={classes!("qp-peer", active.then_some("active"))} data-peer={actor.to_string()}>
            <h3>{ format!("Peer {actor}") }</h3>
            <p class={classes!("qp-peer-state", changed.then_some("changed"))}>
                { match state { Some(s) => s.name().to_string(), None => "no QP yet".to_string() } }
                if changed && state.is_some() { <span class="qp-changed-note">{ " (changed)" }</span> }
            </p>
            if active {
                <p class="qp-peer-title">{ &props.step.title }</p>
                <Values step={props.step.clone()} />
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ValuesProps {
    step: ConnectionStep,
}

#[function_component]
fn Values(props: &ValuesProps) -> Html {
    if props.step.values.is_empty() {
        return html! {};
    }
    html! {
        <dl class="qp-values">
            { for props.step.values.iter().map(|v| html! {
                <>
                    <dt><code>{ format!("{} = {}", v.name, v.value) }</code></dt>
                    <dd>{ &v.meaning }</dd>
                </>
            }) }
        </dl>
    }
}
