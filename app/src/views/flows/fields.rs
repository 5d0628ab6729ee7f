//! The scenario picker and the parameter fields, each with its own error beside it.

use engine::flows::{comparisons, scenario_ids, FlowError, ParamField};
use yew::prelude::*;

use super::form::{field_def, unit, UNITS, UNIT_KEY};
use super::player::Action;
use crate::views::form::{choice_described_by, ChoiceField, Form, Refusal, TextField};

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub scenario: AttrValue,
    pub compare: Option<usize>,
    /// Titles of the scenarios, by id, for the menu.
    pub titles: Vec<(String, String)>,
    pub dispatch: Callback<Action>,
}

/// Which scenario, or which pair side by side.
#[function_component]
pub fn Picker(props: &PickerProps) -> Html {
    let on_scenario = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                dispatch.emit(Action::PickScenario(select.value()));
            }
        })
    };
    let on_compare = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                dispatch.emit(Action::PickComparison(select.value().parse().ok()));
            }
        })
    };
    let title = |id: &str| {
        props
            .titles
            .iter()
            .find(|(i, _)| i == id)
            .map_or(id.to_string(), |(_, t)| t.clone())
    };
    html! {
        <div class="flow-picker">
            <label>
                <span>{ "Scenario" }</span>
                <select class="flow-scenario" onchange={on_scenario} disabled={props.compare.is_some()}>
                    { for scenario_ids().iter().map(|id| html! {
                        <option value={*id} selected={*id == props.scenario.as_str()}>{ title(id) }</option>
                    }) }
                </select>
            </label>
            <label>
                <span>{ "Compare" }</span>
                <select class="flow-compare" onchange={on_compare}>
                    <option value="" selected={props.compare.is_none()}>{ "One scenario" }</option>
                    { for comparisons().iter().enumerate().map(|(i, c)| html! {
                        <option value={i.to_string()} selected={props.compare == Some(i)}>
                            { format!("{} vs {}", title(&c.left), title(&c.right)) }
                        </option>
                    }) }
                </select>
            </label>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FieldsProps {
    pub form: Form,
    pub fields: Vec<ParamField>,
    pub error: Option<FlowError>,
    pub dispatch: Callback<Action>,
}

/// The parameters the scenario on stage reads: a box for a number, a menu for a link.
#[function_component]
pub fn Fields(props: &FieldsProps) -> Html {
    let on_type = props.dispatch.reform(|(key, text)| Action::Type(key, text));
    let on_edit = props.dispatch.reform(|(key, text)| Action::Edit(key, text));
    let on_unit = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Edit(UNIT_KEY, select.value())
    });
    // An engine error that names no field shown here still has to be seen.
    let stray = props
        .error
        .as_ref()
        .filter(|e| !props.fields.iter().any(|f| f.is_about(e)));
    let unit_picker = html! {
        <select class="flow-unit" aria-label="Message size unit" onchange={on_unit}>
            { for UNITS.iter().map(|(name, _)| html! {
                <option value={*name} selected={*name == unit(&props.form).0}>{ *name }</option>
            }) }
        </select>
    };
    html! {
        <div class="flow-fields">
            { for props.fields.iter().map(|&field| {
                let def = field_def(field);
                let id = format!("flow-field-{}", def.key);
                let refusal = (props.form.refusal(def.key).map(str::to_string))
                    .or_else(|| props.error.as_ref().filter(|e| field.is_about(e)).map(ToString::to_string))
                    .map(Refusal::plain);
                let text = props.form.text(def.key).to_string();
                match field.link_kinds() {
                    Some(_) => {
                        let key = def.key;
                        let onchange = props.dispatch.reform(move |e: Event| {
                            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                            Action::Edit(key, select.value())
                        });
                        html! {
                            <ChoiceField key_name={key} id={id.clone()} label={def.label} refusal={refusal.clone()}>
                                <select id={id.clone()} {onchange} aria-invalid={refusal.is_some().to_string()}
                                        aria-describedby={choice_described_by(&id, false, refusal.is_some())}>
                                    { for field.link_choices().into_iter().map(|l| html! {
                                        <option value={l.as_str()} selected={l.as_str() == text}>{ l.link().name }</option>
                                    }) }
                                </select>
                            </ChoiceField>
                        }
                    }
                    None => html! {
                        <TextField {def} {id} {text} {refusal} on_type={on_type.clone()} on_commit={on_edit.clone()}
                            trailing={if field == ParamField::MessageBytes { unit_picker.clone() } else { Html::default() }} />
                    },
                }
            }) }
            if let Some(error) = stray {
                <div class="form-error" role="alert"><p>{ error.to_string() }</p></div>
            }
        </div>
    }
}
