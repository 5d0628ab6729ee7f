//! The case picker, the parameters both sides share, and Run / Cancel.

use engine::netsim::{LabCase, CASES};
use yew::prelude::*;

use super::fields::FIELDS;
use super::state::{Action, LabPage, Phase};
use crate::views::form::{choice_described_by, ChoiceField, Refusal, TextField};

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub page: UseReducerHandle<LabPage>,
}

/// What an empty box means for this case: each side's own value.
fn own_value(case: &LabCase, key: &str) -> Option<String> {
    let sides = case.scenarios().ok()?;
    let values: Vec<String> = sides
        .iter()
        .map(|s| match key {
            "seed" => s.seed.to_string(),
            _ => s.duration_us.to_string(),
        })
        .collect();
    Some(if values[0] == values[1] {
        values[0].clone()
    } else {
        values.join(" / ")
    })
}

#[function_component]
pub fn LabControls(props: &ControlsProps) -> Html {
    let page = &props.page;
    let dispatch = page.dispatcher();
    let on_pick = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            dispatch.dispatch(Action::Pick(select.value()));
        })
    };
    let on_type = {
        let dispatch = dispatch.clone();
        Callback::from(move |(key, text)| dispatch.dispatch(Action::Type { key, text }))
    };
    let on_commit = {
        let dispatch = dispatch.clone();
        Callback::from(move |(key, text)| dispatch.dispatch(Action::Edit { key, text }))
    };
    let running = page.phase == Phase::Running;
    let send = |action: fn() -> Action| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(action()))
    };
    html! {
        <div class="fabric-controls">
            <ChoiceField key_name="case" id="fabric-case" label="Claim to test"
                help={AttrValue::Static("Each runs two scenarios, one on each side, in a background worker.")}>
                <select id="fabric-case" onchange={on_pick}
                    aria-describedby={choice_described_by("fabric-case", true, false)}>
                    { for CASES.iter().map(|c| html! {
                        <option value={c.id} selected={c.id == page.case.id}>{ c.title }</option>
                    }) }
                </select>
            </ChoiceField>
            { for FIELDS.iter().map(|def| html! {
                <TextField {def} id={format!("fabric-{}", def.key)}
                    text={page.form.text(def.key).to_string()}
                    placeholder={own_value(page.case, def.key).map(AttrValue::from)}
                    refusal={page.form.refusal(def.key).map(Refusal::plain)}
                    on_type={on_type.clone()} on_commit={on_commit.clone()} />
            }) }
            <div class="fabric-buttons">
                <button type="button" class="fabric-run" disabled={running}
                    onclick={send(|| Action::Run)}>{ "Run again" }</button>
                <button type="button" class="fabric-cancel" disabled={!running}
                    onclick={send(|| Action::Cancel)}>{ "Cancel" }</button>
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct StatusProps {
    pub phase: Phase,
    pub progress: [f64; 2],
}

/// The run's progress, or why nothing runs.
#[function_component]
pub fn RunStatus(props: &StatusProps) -> Html {
    let whole = (props.progress[0] + props.progress[1]) / 2.0;
    html! {
        <div class="fabric-status" aria-live="polite">
            { match &props.phase {
                Phase::Running => html! {
                    <p class="fabric-running">
                        <label for="fabric-progress">{ format!("Running both sides in a background worker: {:.0} %", whole * 100.0) }</label>
                        <progress id="fabric-progress" max="1" value={whole.to_string()}></progress>
                    </p>
                },
                Phase::Cancelled => html! {
                    <p class="fabric-cancelled">{ "Cancelled: the worker was stopped. Run again to start over." }</p>
                },
                Phase::Refused(why) => html! {
                    <p class="fabric-refusal" role="alert">{ format!("Not run in the browser: {why}") }</p>
                },
                Phase::Failed(why) => html! {
                    <p class="fabric-error" role="alert">{ format!("The run failed: {why}") }</p>
                },
                Phase::Invalid => html! {
                    <p class="fabric-invalid">{ "Not run: a box above holds a value the lab cannot use." }</p>
                },
                Phase::Done => html! {},
            } }
        </div>
    }
}
