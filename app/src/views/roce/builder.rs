//! The builder form: one [`TextField`] per `PacketSpec` field the operation uses, each
//! with its own refusal, and the choices framed by [`ChoiceField`].

use engine::capture::spec::{SpecOperation, MAX_PACKET_PAYLOAD};
use yew::prelude::*;

use super::form::{Shown, SpecTexts, NAK_CODES, TEXT_FIELDS};
use crate::views::form::{choice_described_by, ChoiceField, Refusal, TextField};

#[derive(Properties, PartialEq)]
pub struct BuilderProps {
    pub form: SpecTexts,
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
    let payload_text = form.get("payload_kind") == "text";
    let fields = TEXT_FIELDS.iter().filter(|d| form.shows(d.shown)).map(|d| {
        let key = d.def.key;
        let help: AttrValue = match key {
            "payload" if payload_text => "sent as UTF-8".into(),
            // The rule the engine applies: one packet's payload at the largest path MTU.
            "payload" => format!("bytes, 0–{MAX_PACKET_PAYLOAD}").into(),
            _ => d.def.help.into(),
        };
        html! {
            <TextField def={&d.def} id={format!("roce-{key}")} text={form.get(key).to_string()} {help}
                refusal={error_for(&props.errors, key).map(Refusal::plain)}
                on_type={props.on_change.clone()} />
        }
    });
    html! {
        <form class="roce-builder" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <Choices form={form.clone()} op_error={error_for(&props.errors, "operation")} on_change={props.on_change.clone()} />
            <div class="builder-fields">{ for fields }</div>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct ChoicesProps {
    form: SpecTexts,
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
            <ChoiceField key_name="operation" id="roce-operation" label="Operation" refusal={op_error.clone().map(Refusal::plain)}>
                <select id="roce-operation" onchange={select("operation")}
                    aria-describedby={choice_described_by("roce-operation", false, op_error.is_some())}>
                    { for SpecOperation::ALL.iter().map(|op| html! {
                        <option value={op.key()} selected={form.operation() == *op}>{ op.label() }</option>
                    }) }
                </select>
            </ChoiceField>
            <ChoiceField key_name="ip" id="roce-ip" label="IP version">
                <select id="roce-ip" onchange={select("ip")}>
                    <option value="4" selected={form.get("ip") != "6"}>{ "IPv4" }</option>
                    <option value="6" selected={form.get("ip") == "6"}>{ "IPv6" }</option>
                </select>
            </ChoiceField>
            if form.operation().carries_payload() {
                <ChoiceField key_name="payload_kind" id="roce-payload_kind" label="Payload as">
                    <select id="roce-payload_kind" onchange={select("payload_kind")}>
                        <option value="size" selected={!payload_text}>{ "a size in bytes" }</option>
                        <option value="text" selected={payload_text}>{ "text" }</option>
                    </select>
                </ChoiceField>
            }
            if form.shows(Shown::Nak) {
                <ChoiceField key_name="nak_code" id="roce-nak_code" label="NAK code">
                    <select id="roce-nak_code" onchange={select("nak_code")}>
                        { for NAK_CODES.iter().map(|(v, l)| html! {
                            <option value={*v} selected={form.get("nak_code") == *v}>{ *l }</option>
                        }) }
                    </select>
                </ChoiceField>
            }
            <label class="check">
                <input type="checkbox" id="roce-vlan" checked={form.get("vlan") == "on"} onchange={vlan} />
                { " 802.1Q VLAN tag (PCP selects the PFC priority)" }
            </label>
        </div>
    }
}
