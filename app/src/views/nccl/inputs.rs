//! The form: a preset or the machines part by part, the collective and its size. Every
//! control shows the refusal of its own value under it; nothing typed is ever replaced. The
//! boxes are read at every keystroke: `1`, `12`, `128` each give results as typed.

use engine::collective::{Collective, GpuModel, NicModel};
use engine::fabric::presets;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::fields::{GDR, GPU, GPUS_PER_NODE, NIC, NICS, NODES, OP, PRESET, SHARP, SIZE};
use super::format::{op_id, op_name};
use super::state::{Action, Inputs};
use crate::views::form::{choice_described_by, ChoiceField, FieldDef, Refusal, TextField};

/// A control's element id, `nccl-<key>`.
fn control_id(field: &FieldDef) -> String {
    format!("nccl-{}", field.key)
}

/// The field's help, where it has one.
fn help(field: &FieldDef) -> Option<AttrValue> {
    (!field.help.is_empty()).then_some(AttrValue::Static(field.help))
}

#[derive(Properties, PartialEq)]
pub struct PickerProps {
    pub field: &'static FieldDef,
    /// (value, label), in order.
    pub options: Vec<(String, String)>,
    pub selected: String,
    #[prop_or_default]
    pub refusal: Option<Refusal>,
    pub on_choose: Callback<String>,
}

/// A select; what it offers comes from the engine's lists.
#[function_component]
pub fn Picker(props: &PickerProps) -> Html {
    let field = props.field;
    let id = control_id(field);
    let onchange = {
        let on_choose = props.on_choose.clone();
        move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            on_choose.emit(select.value());
        }
    };
    let refused = props.refusal.is_some();
    html! {
        <ChoiceField key_name={field.key} id={id.clone()} label={field.label} help={help(field)}
            refusal={props.refusal.clone()}>
            <select
                id={id.clone()}
                aria-invalid={refused.to_string()}
                aria-describedby={choice_described_by(&id, help(field).is_some(), refused)}
                {onchange}
            >
                { for props.options.iter().map(|(value, label)| html! {
                    <option value={value.clone()} selected={*value == props.selected}>{ label.clone() }</option>
                }) }
            </select>
        </ChoiceField>
    }
}

#[derive(Properties, PartialEq)]
pub struct SwitchProps {
    pub field: &'static FieldDef,
    pub on: bool,
    #[prop_or_default]
    pub refusal: Option<Refusal>,
    pub on_toggle: Callback<bool>,
}

/// A checkbox, its label after it.
#[function_component]
pub fn Switch(props: &SwitchProps) -> Html {
    let field = props.field;
    let id = control_id(field);
    let onchange = {
        let on_toggle = props.on_toggle.clone();
        move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on_toggle.emit(input.checked());
        }
    };
    let refused = props.refusal.is_some();
    html! {
        <ChoiceField key_name={field.key} id={id.clone()} label={field.label} help={help(field)}
            refusal={props.refusal.clone()} check=true>
            <input
                id={id.clone()}
                type="checkbox"
                checked={props.on}
                aria-invalid={refused.to_string()}
                aria-describedby={choice_described_by(&id, help(field).is_some(), refused)}
                {onchange}
            />
        </ChoiceField>
    }
}

#[derive(Properties, PartialEq)]
pub struct FormProps {
    pub inputs: Inputs,
    pub dispatch: Callback<Action>,
}

/// The whole form, in two groups: the machines, then the operation.
#[function_component]
pub fn CalculatorForm(props: &FormProps) -> Html {
    let d = &props.inputs;
    let refusal = |field: &FieldDef| d.form.refusal(field.key).map(Refusal::plain);
    let dispatch = props.dispatch.clone();
    let on_type = dispatch.reform(|(key, text)| Action::Text(key, text));
    let text_field = |field: &'static FieldDef| {
        html! {
            <TextField def={field} id={control_id(field)} text={d.form.text(field.key).to_string()}
                refusal={refusal(field)} on_type={on_type.clone()} />
        }
    };
    let preset_options: Vec<(String, String)> =
        std::iter::once((String::new(), "Custom machines".to_string()))
            .chain(
                presets()
                    .into_iter()
                    .map(|p| (p.id.to_string(), p.name.to_string())),
            )
            .collect();
    let gpu_options = GpuModel::ALL
        .iter()
        .map(|g| (g.id().to_string(), g.name().to_string()))
        .collect::<Vec<_>>();
    let nic_options = NicModel::ALL
        .iter()
        .map(|n| (n.id().to_string(), n.name().to_string()))
        .collect::<Vec<_>>();
    let op_options = Collective::ALL
        .iter()
        .map(|op| (op_id(*op), op_name(*op)))
        .collect::<Vec<_>>();
    html! {
        <div class="nccl-form">
            <fieldset class="nccl-group">
                <legend>{ "Machines" }</legend>
                <Picker
                    field={&PRESET}
                    options={preset_options}
                    selected={d.preset.unwrap_or_default().to_string()}
                    refusal={refusal(&PRESET)}
                    on_choose={dispatch.reform(|id: String| Action::Preset((!id.is_empty()).then_some(id)))}
                />
                <Picker
                    field={&GPU}
                    options={gpu_options}
                    selected={d.gpu.id().to_string()}
                    refusal={refusal(&GPU)}
                    on_choose={dispatch.reform(|id: String| Action::Gpu(GpuModel::from_id(&id).unwrap_or(GpuModel::H100)))}
                />
                { text_field(&GPUS_PER_NODE) }
                { text_field(&NODES) }
                <Picker
                    field={&NIC}
                    options={nic_options}
                    selected={d.nic.id().to_string()}
                    refusal={refusal(&NIC)}
                    on_choose={dispatch.reform(|id: String| Action::Nic(NicModel::from_id(&id).unwrap_or(NicModel::None)))}
                />
                { text_field(&NICS) }
                <Switch field={&GDR} on={d.gdr} refusal={refusal(&GDR)}
                    on_toggle={dispatch.reform(Action::Gdr)} />
                <Switch field={&SHARP} on={d.sharp} refusal={refusal(&SHARP)}
                    on_toggle={dispatch.reform(Action::Sharp)} />
            </fieldset>
            <fieldset class="nccl-group">
                <legend>{ "Operation" }</legend>
                <Picker
                    field={&OP}
                    options={op_options}
                    selected={op_id(d.op)}
                    refusal={refusal(&OP)}
                    on_choose={dispatch.reform(|id: String| match super::format::op_from_id(&id) {
                        Some(op) => Action::Op(op),
                        None => Action::Text(OP.key, id),
                    })}
                />
                { text_field(&SIZE) }
            </fieldset>
        </div>
    }
}
