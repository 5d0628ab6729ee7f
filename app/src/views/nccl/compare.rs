//! Two configurations side by side: the current one and a variant with its own network (at
//! the same rate), GPUDirect RDMA, NVLS and node count.

use std::rc::Rc;

use engine::collective::{staged_in_host_memory, CollectiveReport, Machines, NicModel, Transport};
use yew::prelude::*;

use super::fields::{CMP_GDR, CMP_NIC, CMP_NODES, CMP_NVLS};
use super::format;
use super::inputs::{Picker, Switch};
use super::results::{pair_name, Notes};
use super::state::{same_rate_nics, variant_nic, Action, Calc, Variant};

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub calc: Rc<Calc>,
    pub variant: Variant,
    pub dispatch: Callback<Action>,
}

fn yes_no(on: bool) -> &'static str {
    if on {
        "on"
    } else {
        "off"
    }
}

/// One column of the comparison: (chosen pair, time, busbw) or nothing.
fn outcome(report: &CollectiveReport) -> Option<(String, f64, f64)> {
    report
        .chosen_estimate()
        .map(|e| (pair_name(e.algorithm, e.protocol), e.time_us, e.busbw_gbs))
}

#[function_component]
pub fn Compare(props: &CompareProps) -> Html {
    let calc = &props.calc;
    let current = calc.config.machines;
    let v = &props.variant;
    let nic_now = variant_nic(v, current.nic);
    let dispatch = &props.dispatch;
    let on_nic = dispatch
        .reform(|id: String| Action::VariantNic(NicModel::from_id(&id).unwrap_or(NicModel::None)));
    let nic_options = same_rate_nics(current.nic)
        .into_iter()
        .map(|n| (n.id().to_string(), n.name().to_string()))
        .collect::<Vec<_>>();
    let here = outcome(&calc.report);
    let variant = calc.variant.as_ref();
    let there = variant.ok().and_then(|vc| outcome(&vc.report));
    let variant_machines: Option<Machines> = variant.ok().map(|vc| vc.machines);
    let row = |label: &'static str, a: String, b: String| {
        html! {
            <tr><th scope="row">{ label }</th><td>{ a }</td><td>{ b }</td></tr>
        }
    };
    let dash = || "—".to_string();
    // The notes under the results speak of the current configuration; a variant that
    // brings sockets or host staging in gets its own.
    let variant_notes = variant.ok().filter(|vc| {
        let (v, c) = (&vc.request.cluster, &calc.request.cluster);
        (v.transport == Transport::Socket && c.transport != Transport::Socket)
            || (staged_in_host_memory(v) && !staged_in_host_memory(c))
    });
    html! {
        <section class="nccl-compare" aria-labelledby="nccl-compare-title">
            <h3 id="nccl-compare-title">{ "Compare with a variant" }</h3>
            <p class="nccl-variant-lead">{ "The variant keeps everything above except what you change here." }</p>
            <div class="nccl-variant" role="group" aria-label="The variant">
                <Picker field={&CMP_NIC} options={nic_options} selected={nic_now.id().to_string()} on_choose={on_nic} />
                <Switch field={&CMP_GDR} on={v.gdr} on_toggle={dispatch.reform(Action::VariantGdr)} />
                <Switch field={&CMP_NVLS} on={v.nvls} on_toggle={dispatch.reform(Action::VariantNvls)} />
                <Switch field={&CMP_NODES} on={v.one_node} on_toggle={dispatch.reform(Action::VariantOneNode)} />
            </div>
            // What the variant cannot run is said once for it, not under one of its controls.
            if let Err(message) = variant {
                <div class="form-error" role="alert" data-key="cmp">
                    <p>{ format!("The variant cannot run: {message}") }</p>
                </div>
            }
            <div class="nccl-scroll" tabindex="0" role="region" aria-labelledby="nccl-compare-title">
                <table class="nccl-table nccl-compare-table">
                    <thead>
                        <tr><th scope="col">{ "Setting" }</th><th scope="col">{ "This configuration" }</th><th scope="col">{ "Variant" }</th></tr>
                    </thead>
                    <tbody>
                        { row("Network", current.nic.name().to_string(), variant_machines.map(|m| m.nic.name().to_string()).unwrap_or_else(dash)) }
                        { row("GPUDirect RDMA", yes_no(current.gdr_in_use()).to_string(), variant_machines.map(|m| yes_no(m.gdr_in_use()).to_string()).unwrap_or_else(dash)) }
                        { row("NVLS allowed", "yes".to_string(), if v.nvls { "yes" } else { "no" }.to_string()) }
                        { row("Nodes", current.nodes.to_string(), variant_machines.map(|m| m.nodes.to_string()).unwrap_or_else(dash)) }
                        { row("Chosen pair", here.as_ref().map(|h| h.0.clone()).unwrap_or_else(dash), there.as_ref().map(|t| t.0.clone()).unwrap_or_else(dash)) }
                        { row("Time", here.as_ref().map(|h| format::time(h.1)).unwrap_or_else(dash), there.as_ref().map(|t| format::time(t.1)).unwrap_or_else(dash)) }
                        { row("busbw (GB/s)", here.as_ref().map(|h| format::gbs(h.2)).unwrap_or_else(dash), there.as_ref().map(|t| format::gbs(t.2)).unwrap_or_else(dash)) }
                    </tbody>
                </table>
            </div>
            if let (Some(h), Some(t)) = (&here, &there) {
                <p class="nccl-ratio" data-ratio={(t.1 / h.1).to_string()}>
                    { format!("The variant takes {} the time of this configuration", format::ratio(t.1 / h.1)) }
                    { format!(" (busbw {} GB/s against {} GB/s).", format::gbs(t.2), format::gbs(h.2)) }
                </p>
            }
            if let Some(vc) = variant_notes {
                <Notes report={vc.report.clone()} machines={vc.machines} transport={vc.request.cluster.transport} staged={staged_in_host_memory(&vc.request.cluster)} host_memory_gbs={vc.request.cluster.host_memory_gbs} />
            }
        </section>
    }
}
