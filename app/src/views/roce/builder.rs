//! The builder form: one labelled input per `PacketSpec` field the operation uses, each
//! with its own error line.

use engine::capture::spec::{SpecOperation, MAX_PACKET_PAYLOAD};
use yew::prelude::*;

use super::form::{Form, Shown, NAK_CODES, TEXT_FIELDS};

#[derive(Properties, PartialEq)]
pub struct BuilderProps {
    pub form: Form,
    pub errors: Vec<(&'static str, String)>,
    pub on_change: Callback<(&'static str, String)>,
}

fn error_for(errors: &[(&'static str, String)], key: &str) -> Option<String> {
    let found: Vec<&str> = errors
        .iter()
        .filter(|(k, _)| *k == key)
        .map(|(_, e)| e.as_str())
        .collect();
    (!found.is_empty()).then(|| found.join("; "))
}

#[function_component]
pub fn Builder(props: &BuilderProps) -> Html {
    let form = &props.form;
    let on_change = &props.on_change;
    let payload_text = form.get("payload_kind") == "text";
    let fields = TEXT_FIELDS.iter().filter(|d| form.shows(d.shown)).map(|d| {
        let id = format!("roce-{}", d.key);
        let err = error_for(&props.errors, d.key);
        let hint = match d.key {
            "payload" if payload_text => "sent as UTF-8".to_string(),
            // The rule the engine applies: one packet's payload at the largest path MTU.
            "payload" => format!("bytes, 0–{MAX_PACKET_PAYLOAD}"),
            _ => d.hint.to_string(),
        };
        let key = d.key;
        let oninput = on_change.reform(move |e: InputEvent| {
            (key, e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
        });
        html! {
            <div class={classes!("form-field", err.is_some().then_some("invalid"))}>
                <label for={id.clone()}>{ d.label }
                    if !hint.is_empty() { <span class="field-hint">{ format!(" ({hint})") }</span> }
                </label>
                <input id={id.clone()} name={d.key} type="text" spellcheck="false" value={form.get(d.key).to_string()}
                    {oninput} aria-invalid={err.is_some().to_string()}
                    aria-describedby={format!("{id}-err")} />
                <p class="field-error" id={format!("{id}-err")} aria-live="polite">{ err.unwrap_or_default() }</p>
            </div>
        }
    });
    html! {
        <form class="roce-builder" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <Choices form={form.clone()} op_error={error_for(&props.errors, "operation")} on_change={on_change.clone()} />
            <div class="builder-fields">{ for fields }</div>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct ChoicesProps {
    form: Form,
    op_error: Option<String>,
    on_change: Callback<(&'static str, String)>,
}

/// The selects and the checkbox: operation, IP version, payload kind, NAK code, VLAN tag.
#[function_component]
fn Choices(props: &ChoicesProps) -> Html {
    let form = &props.form;
    let select = |key: &'static str| {
        props.on_change.reform(move |e: Event| {
            (
                key,
                e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value(),
            )
        })
    };
    let vlan = props.on_change.reform(|e: Event| {
        let on = e
            .target_unchecked_into::<web_sys::HtmlInputElement>()
            .checked();
        ("vlan", if on { "on" } else { "off" }.to_string())
    });
    let op_error = props.op_error.clone();
    let payload_text = form.get("payload_kind") == "text";
    html! {
        <div class="builder-choices">
            <div class={classes!("form-field", op_error.is_some().then_some("invalid"))}>
                <label for="roce-operation">{ "Operation" }</label>
                <select id="roce-operation" onchange={select("operation")} aria-describedby="roce-operation-err">
                    { for SpecOperation::ALL.iter().map(|op| html! {
                        <option value={op.key()} selected={form.operation() == *op}>{ op.label() }</option>
                    }) }
                </select>
                <p class="field-error" id="roce-operation-err" aria-live="polite">{ op_error.unwrap_or_default() }</p>
            </div>
            <div class="form-field">
                <label for="roce-ip">{ "IP version" }</label>
                <select id="roce-ip" onchange={select("ip")}>
                    <option value="4" selected={form.get("ip") != "6"}>{ "IPv4" }</option>
                    <option value="6" selected={form.get("ip") == "6"}>{ "IPv6" }</option>
                </select>
            </div>
            if form.shows(Shown::Payload) {
                <div class="form-field">
                    <label for="roce-payload_kind">{ "Payload as" }</label>
                    <select id="roce-payload_kind" onchange={select("payload_kind")}>
                        <option value="size" selected={!payload_text}>{ "a size in bytes" }</option>
                        <option value="text" selected={payload_text}>{ "text" }</option>
                    </select>
                </div>
            }
            if form.shows(Shown::Nak) {
                <div class="form-field">
                    <label for="roce-nak_code">{ "NAK code" }</label>
                    <select id="roce-nak_code" onchange={select("nak_code")}>
                        { for NAK_CODES.iter().map(|(v, l)| html! {
                            <option value={*v} selected={form.get("nak_code") == *v}>{ *l }</option>
                        }) }
                    </select>
                </div>
            }
            <label class="check">
                <input type="checkbox" id="roce-vlan" checked={form.get("vlan") == "on"} onchange={vlan} />
                { " 802.1Q VLAN tag (PCP selects the PFC priority)" }
            </label>
        </div>
    }
}
