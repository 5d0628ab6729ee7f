//! The traffic-class chain: the form, the path the data and the CNPs take, and the verdicts.

use engine::lossless::{Ecn, QosChain, QosFinding, Severity};
use engine::FieldError;
use yew::prelude::*;

use super::form::Texts;
use crate::base;

/// What each box is, by the engine's field name.
fn label(key: &str) -> (&'static str, &'static str) {
    match key {
        "nccl_ib_tc" => ("NCCL_IB_TC", "the traffic class of NCCL's QPs, 0–255"),
        "dscp_priority" => (
            "DSCP → priority map",
            "as the switches and the NIC trust DSCP, e.g. 26:3, 48:6; unlisted DSCPs go to priority 0",
        ),
        "pfc_priorities" => ("PFC on priorities", "e.g. 3, or 3, 4; empty for none"),
        "ecn_priorities" => (
            "ECN on priorities",
            "for DCQCN: switch marking and the NIC's roce_np / roce_rp enable",
        ),
        "cnp_dscp" => ("CNP DSCP", "mlx5 np_cnp_dscp: the DSCP the receiver writes in CNPs"),
        "ecn_kmin_bytes" => ("ECN marking from, bytes", "the queue's K_min"),
        "pfc_xoff_bytes" => ("PFC XOFF at, bytes", "the same queue's pause threshold"),
        _ => ("", ""),
    }
}

fn ecn_name(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "00 (Not-ECT)",
        Ecn::Ect1 => "01 (ECT(1))",
        Ecn::Ect0 => "10 (ECT(0))",
        Ecn::Ce => "11 (CE)",
    }
}

fn on_off(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

#[derive(Properties, PartialEq)]
pub struct QosPanelProps {
    pub texts: Texts,
    pub error: Option<FieldError>,
    pub result: Option<(QosChain, Vec<QosFinding>)>,
    pub on_input: Callback<(&'static str, String)>,
}

#[function_component]
pub fn QosPanel(props: &QosPanelProps) -> Html {
    html! {
        <div class="lossless-panel">
            <h3>{ "From NCCL_IB_TC to a lossless priority" }</h3>
            <div class="lossless-fields">
                { for props.texts.fields().iter().map(|(key, text)| html! {
                    <TextBox id={format!("qos-{key}")} key_name={*key} text={text.clone()}
                        label={label(key).0} help={label(key).1}
                        error={props.error.as_ref().filter(|e| e.field.starts_with(*key)).map(|e| e.to_string())}
                        on_input={props.on_input.clone()} />
                }) }
            </div>
            if let Some((chain, findings)) = &props.result {
                <Chain chain={chain.clone()} stale={props.error.is_some()} />
                <ul class="lossless-findings" aria-label="Verdicts">
                    { for findings.iter().map(|f| html! { <Verdict finding={f.clone()} /> }) }
                </ul>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct TextBoxProps {
    pub id: String,
    pub key_name: &'static str,
    pub text: String,
    pub label: &'static str,
    pub help: &'static str,
    pub error: Option<String>,
    pub on_input: Callback<(&'static str, String)>,
}

/// One labelled box, its help and, when the engine refused it, why.
#[function_component]
pub fn TextBox(props: &TextBoxProps) -> Html {
    let key = props.key_name;
    let oninput = props.on_input.reform(move |e: InputEvent| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        (key, input.value())
    });
    let help_id = format!("{}-help", props.id);
    let error_id = format!("{}-error", props.id);
    let described = if props.error.is_some() {
        format!("{help_id} {error_id}")
    } else {
        help_id.clone()
    };
    html! {
        <div class="lossless-field">
            <label for={props.id.clone()}>{ props.label }</label>
            <input id={props.id.clone()} type="text" spellcheck="false" autocomplete="off"
                value={props.text.clone()} {oninput}
                aria-invalid={props.error.is_some().to_string()} aria-describedby={described} />
            <span id={help_id} class="lossless-help">{ props.help }</span>
            if let Some(e) = &props.error {
                <span id={error_id} class="lossless-error" role="alert">{ e.clone() }</span>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ChainProps {
    chain: QosChain,
    stale: bool,
}

/// The path, one hop per line.
#[function_component]
fn Chain(props: &ChainProps) -> Html {
    let c = &props.chain;
    html! {
        <ol class={classes!("lossless-chain", props.stale.then_some("lossless-stale"))}
            aria-label="Where RoCE data and CNPs land">
            <li>{ format!("Traffic class {} = {:08b}: DSCP {} in the upper six bits, ECN bits {} ignored by mlx5", c.traffic_class, c.traffic_class, c.dscp, ecn_name(c.ignored_ecn_bits)) }</li>
            <li>{ format!("DSCP {} → priority {}{}", c.dscp, c.priority, if c.priority_mapped { "" } else { " (not in the map: default)" }) }</li>
            <li>{ format!("Priority {}: PFC {}, ECN {}", c.priority, on_off(c.pfc), on_off(c.ecn)) }</li>
            <li>{ format!("CNPs → priority {}{}, PFC {}", c.cnp_priority, if c.cnp_priority_mapped { "" } else { " (not in the map: default)" }, on_off(c.cnp_pfc)) }</li>
            if props.stale {
                <li class="lossless-note">{ "Showing the last values that read; fix the field above to update." }</li>
            }
        </ol>
    }
}

#[derive(Properties, PartialEq)]
struct VerdictProps {
    finding: QosFinding,
}

#[function_component]
fn Verdict(props: &VerdictProps) -> Html {
    let f = &props.finding;
    let (mark, class, word) = match f.severity {
        Severity::Ok => ("✓", "lossless-ok", "OK"),
        Severity::Warning => ("!", "lossless-warn", "Warning"),
        Severity::Error => ("✗", "lossless-bad", "Problem"),
    };
    html! {
        <li class={class}>
            <span class="lossless-mark" aria-hidden="true">{ mark }</span>
            <span class="visually-hidden">{ format!("{word}: ") }</span>
            { f.text.clone() }{ " " }
            <a href={base::href(f.topic)}>{ "Why" }</a>
        </li>
    }
}
