//! The controls above the panel: the named scenario, the model, and the DCQCN presets.

use engine::dcqcn::{scenario_names, DcqcnParams, Model};
use yew::prelude::*;

use super::query::model_name;
use super::state::Action;

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub scenario: String,
    pub model: Model,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn ScenarioControls(props: &ControlsProps) -> Html {
    let on_scenario = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Scenario(select.value())
    });
    let model_radio = |model: Model, label: &'static str| {
        html! {
            <label class="dcqcn-radio">
                <input
                    type="radio"
                    name="dcqcn-model"
                    value={model_name(model)}
                    checked={props.model == model}
                    onchange={props.dispatch.reform(move |_| Action::Model(model))}
                />
                { label }
            </label>
        }
    };
    let preset = |label: &'static str, params: fn() -> DcqcnParams| {
        html! {
            <button type="button" class="dcqcn-button" onclick={props.dispatch.reform(move |_| Action::Preset(params()))}>
                { label }
            </button>
        }
    };
    html! {
        <div class="dcqcn-controls">
            <label class="dcqcn-control">
                { "Scenario " }
                <select onchange={on_scenario} aria-label="Scenario">
                    { for scenario_names().iter().map(|n| html! {
                        <option value={*n} selected={props.scenario == *n}>{ *n }</option>
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
    }
}
