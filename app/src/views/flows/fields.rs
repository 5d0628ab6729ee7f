//! The scenario picker and the parameter fields, each with its own error beside it.

use engine::flows::{comparisons, scenario_ids, FlowError, ParamField};
use yew::prelude::*;

use super::form::{FieldText, Form, UNITS};
use super::player::Action;

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

fn field_label(field: ParamField) -> &'static str {
    match field {
        ParamField::MessageBytes => "Message size",
        ParamField::Mtu => "Path MTU (bytes)",
        ParamField::Pcie => "PCIe link",
        ParamField::Network => "RDMA network",
        ParamField::Tcp => "TCP network",
        ParamField::Nvlink => "NVLink",
        ParamField::Nodes => "Nodes",
        ParamField::GpusPerNode => "GPUs per node",
    }
}

/// The parameters the scenario on stage reads.
#[function_component]
pub fn Fields(props: &FieldsProps) -> Html {
    let edit = |field: ParamField| {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .map(|i| i.value())
                .or_else(|| {
                    e.target_dyn_into::<web_sys::HtmlSelectElement>()
                        .map(|s| s.value())
                });
            if let Some(value) = value {
                dispatch.emit(Action::Edit(field, FieldText::Typed(value)));
            }
        })
    };
    let on_unit = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                if let Ok(unit) = select.value().parse() {
                    dispatch.emit(Action::Edit(
                        ParamField::MessageBytes,
                        FieldText::Unit(unit),
                    ));
                }
            }
        })
    };
    // An engine error that names no field shown here still has to be seen.
    let stray = props
        .error
        .as_ref()
        .filter(|e| !props.fields.iter().any(|f| f.is_about(e)));

    html! {
        <div class="flow-fields">
            { for props.fields.iter().map(|&field| {
                let id = format!("flow-field-{}", field.name());
                let error_id = format!("{id}-error");
                let message = props
                    .form
                    .error(field)
                    .map(str::to_string)
                    .or_else(|| props.error.as_ref().filter(|e| field.is_about(e)).map(ToString::to_string));
                let invalid = message.is_some();
                let text = props.form.text(field).unwrap_or_default();
                let control = match field.link_kinds() {
                    Some(_) => html! {
                        <select id={id.clone()} onchange={edit(field)} aria-invalid={invalid.to_string()}
                                aria-describedby={invalid.then(|| error_id.clone())}>
                            { for field.link_choices().into_iter().map(|l| html! {
                                <option value={l.as_str()} selected={l.as_str() == text}>{ l.link().name }</option>
                            }) }
                        </select>
                    },
                    None => html! {
                        <input id={id.clone()} type="text" inputmode="decimal" value={text}
                               onchange={edit(field)} aria-invalid={invalid.to_string()}
                               aria-describedby={invalid.then(|| error_id.clone())} />
                    },
                };
                html! {
                    <div class={classes!("flow-field", invalid.then_some("invalid"))} data-field={field.name()}>
                        <label for={id.clone()}>{ field_label(field) }</label>
                        <div class="flow-field-control">
                            { control }
                            if field == ParamField::MessageBytes {
                                <select class="flow-unit" aria-label="Message size unit" onchange={on_unit.clone()}>
                                    { for UNITS.iter().enumerate().map(|(i, (name, _))| html! {
                                        <option value={i.to_string()} selected={i == props.form.unit}>{ *name }</option>
                                    }) }
                                </select>
                            }
                        </div>
                        if let Some(message) = message {
                            <p class="flow-field-error" id={error_id} role="alert">{ message }</p>
                        }
                    </div>
                }
            }) }
            if let Some(error) = stray {
                <p class="flow-field-error" role="alert">{ error.to_string() }</p>
            }
        </div>
    }
}
