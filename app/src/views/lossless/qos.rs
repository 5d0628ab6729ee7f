//! The traffic-class chain: the form, the path the data and the CNPs take, and the verdicts.

use engine::lossless::{Ecn, QosChain, QosFinding, Severity};
use yew::prelude::*;

use super::Fields;
use crate::base;
use crate::views::form::{FieldDef, Form, Reads};

/// The boxes, by the engine's field names, in form order.
pub static FIELDS: &[FieldDef] = &[
    FieldDef {
        key: "nccl_ib_tc",
        label: "NCCL_IB_TC",
        unit: "",
        help: "the traffic class of NCCL's QPs, 0–255",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "dscp_priority",
        label: "DSCP → priority map",
        unit: "",
        help: "as the switches and the NIC trust DSCP, e.g. 26:3, 48:6; unlisted DSCPs go to \
               priority 0",
        reads: Reads::Text,
    },
    FieldDef {
        key: "pfc_priorities",
        label: "PFC on priorities",
        unit: "",
        help: "e.g. 3, or 3, 4; empty for none",
        reads: Reads::Text,
    },
    FieldDef {
        key: "ecn_priorities",
        label: "ECN on priorities",
        unit: "",
        help: "for DCQCN: switch marking and the NIC's roce_np / roce_rp enable",
        reads: Reads::Text,
    },
    FieldDef {
        key: "cnp_dscp",
        label: "CNP DSCP",
        unit: "",
        help: "mlx5 np_cnp_dscp: the DSCP the receiver writes in CNPs",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "ecn_kmin_bytes",
        label: "ECN marking from, bytes",
        unit: "",
        help: "the queue's K_min",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "pfc_xoff_bytes",
        label: "PFC XOFF at, bytes",
        unit: "",
        help: "the same queue's pause threshold",
        reads: Reads::Whole,
    },
];

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
    pub form: Form,
    pub result: Option<(QosChain, Vec<QosFinding>)>,
    pub on_input: Callback<(&'static str, String)>,
}

#[function_component]
pub fn QosPanel(props: &QosPanelProps) -> Html {
    html! {
        <div class="lossless-panel">
            <h3>{ "From NCCL_IB_TC to a lossless priority" }</h3>
            <Fields defs={FIELDS} prefix="qos" form={props.form.clone()} on_input={props.on_input.clone()} />
            if let Some((chain, findings)) = &props.result {
                <Chain chain={chain.clone()} stale={props.form.is_refused()} />
                <ul class="lossless-findings" aria-label="Verdicts">
                    { for findings.iter().map(|f| html! { <Verdict finding={f.clone()} /> }) }
                </ul>
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
