//! The form: a preset or the machines part by part, the collective and its size. Every
//! control shows the refusal of its own value under it; nothing typed is ever replaced.

use engine::collective::{Collective, GpuModel, NicModel};
use engine::fabric::presets;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use super::format::{op_id, op_name};
use super::state::{error_at, Action, Draft, Field};

fn control_id(field: Field) -> String {
    format!("nccl-{}", field.key())
}

fn error_id(field: Field) -> String {
    format!("nccl-{}-error", field.key())
}

#[derive(Properties, PartialEq)]
struct ErrorProps {
    field: Field,
    error: Option<String>,
}

/// The refusal under a control, announced when it appears.
#[function_component]
fn FieldError(props: &ErrorProps) -> Html {
    match &props.error {
        Some(message) => html! {
            <p class="nccl-error" id={error_id(props.field)} role="alert">{ message.clone() }</p>
        },
        None => html! {},
    }
}

#[derive(Properties, PartialEq)]
pub struct NumberBoxProps {
    pub field: Field,
    pub text: String,
    pub error: Option<String>,
    pub hint: &'static str,
    pub numeric: bool,
    pub on_text: Callback<(Field, String)>,
}

/// A text box read at every keystroke: `1`, `12`, `128` each give results as typed.
#[function_component]
pub fn NumberBox(props: &NumberBoxProps) -> Html {
    let field = props.field;
    let oninput = {
        let on_text = props.on_text.clone();
        move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on_text.emit((field, input.value()));
        }
    };
    let invalid = props.error.is_some();
    let hint_id = format!("nccl-{}-hint", field.key());
    let described = if invalid {
        format!("{hint_id} {}", error_id(field))
    } else {
        hint_id.clone()
    };
    html! {
        <div class={classes!("nccl-field", invalid.then_some("nccl-invalid"))} data-field={field.key()}>
            <label for={control_id(field)}>{ field.label() }</label>
            <input
                id={control_id(field)}
                type="text"
                inputmode={if props.numeric { "numeric" } else { "text" }}
                autocomplete="off"
                spellcheck="false"
                value={props.text.clone()}
                aria-invalid={invalid.to_string()}
                aria-describedby={described}
                {oninput}
            />
            <p class="nccl-hint" id={hint_id}>{ props.hint }</p>
            <FieldError {field} error={props.error.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct ChoiceProps {
    pub field: Field,
    /// (value, label), in order.
    pub options: Vec<(String, String)>,
    pub selected: String,
    pub error: Option<String>,
    pub on_choose: Callback<String>,
}

/// A select; what it offers comes from the engine's lists.
#[function_component]
pub fn Choice(props: &ChoiceProps) -> Html {
    let field = props.field;
    let onchange = {
        let on_choose = props.on_choose.clone();
        move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            on_choose.emit(select.value());
        }
    };
    let invalid = props.error.is_some();
    html! {
        <div class={classes!("nccl-field", invalid.then_some("nccl-invalid"))} data-field={field.key()}>
            <label for={control_id(field)}>{ field.label() }</label>
            <select
                id={control_id(field)}
                aria-invalid={invalid.to_string()}
                aria-describedby={invalid.then(|| error_id(field))}
                {onchange}
            >
                { for props.options.iter().map(|(value, label)| html! {
                    <option value={value.clone()} selected={*value == props.selected}>{ label.clone() }</option>
                }) }
            </select>
            <FieldError {field} error={props.error.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct SwitchProps {
    pub field: Field,
    pub on: bool,
    pub error: Option<String>,
    pub hint: &'static str,
    pub on_toggle: Callback<bool>,
}

#[function_component]
pub fn Switch(props: &SwitchProps) -> Html {
    let field = props.field;
    let onchange = {
        let on_toggle = props.on_toggle.clone();
        move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            on_toggle.emit(input.checked());
        }
    };
    let invalid = props.error.is_some();
    html! {
        <div class={classes!("nccl-field", "nccl-switch", invalid.then_some("nccl-invalid"))} data-field={field.key()}>
            <label>
                <input
                    id={control_id(field)}
                    type="checkbox"
                    checked={props.on}
                    aria-invalid={invalid.to_string()}
                    aria-describedby={invalid.then(|| error_id(field))}
                    {onchange}
                />
                { " " }{ field.label() }
            </label>
            <p class="nccl-hint">{ props.hint }</p>
            <FieldError {field} error={props.error.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FormProps {
    pub draft: Draft,
    pub errors: Vec<(Field, String)>,
    pub dispatch: Callback<Action>,
}

/// The whole form, in two groups: the machines, then the operation.
#[function_component]
pub fn CalculatorForm(props: &FormProps) -> Html {
    let d = &props.draft;
    let error = |field: Field| error_at(&props.errors, field);
    let dispatch = props.dispatch.clone();
    let on_text = dispatch.reform(|(field, text)| Action::Text(field, text));
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
                <Choice
                    field={Field::Preset}
                    options={preset_options}
                    selected={d.preset.unwrap_or_default().to_string()}
                    error={error(Field::Preset)}
                    on_choose={dispatch.reform(|id: String| Action::Preset((!id.is_empty()).then_some(id)))}
                />
                <Choice
                    field={Field::Gpu}
                    options={gpu_options}
                    selected={d.gpu.id().to_string()}
                    error={error(Field::Gpu)}
                    on_choose={dispatch.reform(|id: String| Action::Gpu(GpuModel::from_id(&id).unwrap_or(GpuModel::H100)))}
                />
                <NumberBox field={Field::GpusPerNode} text={d.gpus_per_node.clone()} error={error(Field::GpusPerNode)}
                    hint="ranks on each node" numeric=true on_text={on_text.clone()} />
                <NumberBox field={Field::Nodes} text={d.nodes.clone()} error={error(Field::Nodes)}
                    hint="hosts in the job" numeric=true on_text={on_text.clone()} />
                <Choice
                    field={Field::Nic}
                    options={nic_options}
                    selected={d.nic.id().to_string()}
                    error={error(Field::Nic)}
                    on_choose={dispatch.reform(|id: String| Action::Nic(NicModel::from_id(&id).unwrap_or(NicModel::None)))}
                />
                <NumberBox field={Field::Nics} text={d.nics.clone()} error={error(Field::Nics)}
                    hint="scale-out NICs on each node" numeric=true on_text={on_text.clone()} />
                <Switch field={Field::Gdr} on={d.gdr} error={error(Field::Gdr)}
                    hint="the NIC reads and writes GPU memory (verbs only)"
                    on_toggle={dispatch.reform(Action::Gdr)} />
                <Switch field={Field::Sharp} on={d.sharp} error={error(Field::Sharp)}
                    hint="InfiniBand switches reduce (NCCL's CollNet plugin)"
                    on_toggle={dispatch.reform(Action::Sharp)} />
            </fieldset>
            <fieldset class="nccl-group">
                <legend>{ "Operation" }</legend>
                <Choice
                    field={Field::Op}
                    options={op_options}
                    selected={op_id(d.op)}
                    error={error(Field::Op)}
                    on_choose={dispatch.reform(|id: String| match super::format::op_from_id(&id) {
                        Some(op) => Action::Op(op),
                        None => Action::Text(Field::Op, id),
                    })}
                />
                <NumberBox field={Field::Size} text={d.size.clone()} error={error(Field::Size)}
                    hint="bytes; K, M, G, T are powers of 1024, as nccl-tests' -b and -e read them (8G = 8 GiB)"
                    numeric=false on_text={on_text} />
            </fieldset>
        </div>
    }
}
