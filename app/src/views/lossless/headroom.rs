//! The headroom calculator: the form and the bytes, component by component.

use engine::lossless::HeadroomBreakdown;
use yew::prelude::*;

use super::Fields;
use crate::views::figures;
use crate::views::form::{FieldDef, Form, Reads};

/// The boxes, by the engine's field names, in form order.
pub static FIELDS: &[FieldDef] = &[
    FieldDef {
        key: "link_gbps",
        label: "Link speed, Gb/s",
        unit: "",
        help: "the data rate of the port",
        reads: Reads::Decimal,
    },
    FieldDef {
        key: "cable_m",
        label: "Cable length, m",
        unit: "",
        help: "to the peer that must stop sending",
        reads: Reads::Decimal,
    },
    FieldDef {
        key: "ns_per_m",
        label: "Propagation, ns/m",
        unit: "",
        help: "the page's example assumes 5 for fibre",
        reads: Reads::Decimal,
    },
    FieldDef {
        key: "max_frame_bytes",
        label: "Largest frame, bytes",
        unit: "",
        help: "9216 for jumbo frames",
        reads: Reads::Whole,
    },
    FieldDef {
        key: "response_ns",
        label: "Interfaces and peer response, ns",
        unit: "",
        help: "PHY and MAC delays of both ends plus the peer's reaction",
        reads: Reads::Decimal,
    },
];

#[derive(Properties, PartialEq)]
pub struct HeadroomPanelProps {
    pub form: Form,
    pub result: Option<HeadroomBreakdown>,
    pub on_input: Callback<(&'static str, String)>,
}

/// Bytes as the reference page writes them.
fn grouped(n: u64) -> String {
    figures::grouped(n as f64)
}

#[function_component]
pub fn HeadroomPanel(props: &HeadroomPanelProps) -> Html {
    html! {
        <div class="lossless-panel">
            <h3>{ "PFC headroom per port and lossless priority" }</h3>
            <Fields defs={FIELDS} prefix="headroom" form={props.form.clone()} on_input={props.on_input.clone()} />
            if let Some(b) = &props.result {
                <div class="lossless-table-box">
                    <table class={classes!("lossless-table", props.form.is_refused().then_some("lossless-stale"))}>
                        <caption>{ "What still arrives after XOFF (IEEE 802.1Qbb Annex N's components)" }</caption>
                        <thead><tr><th scope="col">{ "Component" }</th><th scope="col">{ "Bytes" }</th></tr></thead>
                        <tbody>
                            <tr><th scope="row">{ "Frame in progress when XOFF is decided" }</th><td>{ grouped(b.frame_in_progress) }</td></tr>
                            <tr><th scope="row">{ "The PFC frame" }</th><td>{ grouped(b.pfc_frame) }</td></tr>
                            <tr><th scope="row">{ "Cable, both ways" }</th><td>{ grouped(b.cable_both_ways) }</td></tr>
                            <tr><th scope="row">{ "Interfaces and peer response" }</th><td>{ grouped(b.response) }</td></tr>
                            <tr><th scope="row">{ "Frame the peer had just started" }</th><td>{ grouped(b.peer_frame) }</td></tr>
                            <tr class="lossless-total"><th scope="row">{ "Total" }</th><td>{ format!("{} ({:.1} KiB)", grouped(b.total), b.total as f64 / 1024.0) }</td></tr>
                        </tbody>
                    </table>
                </div>
            }
        </div>
    }
}
