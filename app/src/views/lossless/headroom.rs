//! The headroom calculator: the form and the bytes, component by component.

use engine::lossless::HeadroomBreakdown;
use engine::FieldError;
use yew::prelude::*;

use super::form::Texts;
use super::qos::TextBox;
use crate::views::figures;

fn label(key: &str) -> (&'static str, &'static str) {
    match key {
        "link_gbps" => ("Link speed, Gb/s", "the data rate of the port"),
        "cable_m" => ("Cable length, m", "to the peer that must stop sending"),
        "ns_per_m" => (
            "Propagation, ns/m",
            "the page's example assumes 5 for fibre",
        ),
        "max_frame_bytes" => ("Largest frame, bytes", "9216 for jumbo frames"),
        "response_ns" => (
            "Interfaces and peer response, ns",
            "PHY and MAC delays of both ends plus the peer's reaction",
        ),
        _ => ("", ""),
    }
}

#[derive(Properties, PartialEq)]
pub struct HeadroomPanelProps {
    pub texts: Texts,
    pub error: Option<FieldError>,
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
            <div class="lossless-fields">
                { for props.texts.fields().iter().map(|(key, text)| html! {
                    <TextBox id={format!("headroom-{key}")} key_name={*key} text={text.clone()}
                        label={label(key).0} help={label(key).1}
                        error={props.error.as_ref().filter(|e| e.field == *key).map(|e| e.to_string())}
                        on_input={props.on_input.clone()} />
                }) }
            </div>
            if let Some(b) = &props.result {
                <div class="lossless-table-box">
                    <table class={classes!("lossless-table", props.error.is_some().then_some("lossless-stale"))}>
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
