//! The path between the two GPUs picked, hop by hop in words, with the PXN toggle.

use engine::fabric::{Fabric, Hop, Path};
use yew::prelude::*;

use super::drawing::Scope;

/// One hop in words; `drawn` says whether the drawing shows it.
fn hop_text(h: &Hop, gpn: u64) -> String {
    match h {
        Hop::Gpu { gpu, node } => format!("GPU {gpu} (node {node}, GPU {})", gpu % gpn.max(1)),
        Hop::Nic { node, nic, rail } => format!("NIC {nic} of node {node}, rail {rail}"),
        Hop::Leaf { plane, leaf } => format!("leaf L{leaf} (plane {plane})"),
        Hop::Spine { plane, spine } => format!("spine S{spine} (plane {plane})"),
        Hop::Core { plane, core } => format!("core {core} (plane {plane})"),
    }
}

fn drawn(h: &Hop, s: &Scope, gpn: u64) -> bool {
    match h {
        Hop::Gpu { gpu, node } => *node < s.nodes && gpu % gpn.max(1) < u64::from(s.gpus_per_node),
        Hop::Nic { node, .. } => *node < s.nodes,
        Hop::Leaf { leaf, .. } => *leaf < s.leaves,
        Hop::Spine { spine, .. } => *spine < s.spines,
        Hop::Core { .. } => true,
    }
}

/// The path as a list: each hop, and what joins it to the next.
pub fn steps(f: &Fabric, p: &Path, s: &Scope) -> Vec<String> {
    let gpn = u64::from(f.spec.gpus_per_node);
    let mut out = Vec::new();
    for (i, h) in p.hops.iter().enumerate() {
        let via = match (i.checked_sub(1).and_then(|j| p.hops.get(j)), h) {
            (None, _) => "",
            (Some(Hop::Gpu { .. }), Hop::Gpu { .. }) => "over NVLink (inside the node) to ",
            (Some(Hop::Gpu { .. }), Hop::Nic { .. }) => "over PCIe to ",
            (Some(Hop::Nic { .. }), Hop::Gpu { .. }) => "over PCIe to ",
            _ => "cable to ",
        };
        let note = if drawn(h, s, gpn) { "" } else { " (not drawn)" };
        out.push(format!("{via}{}{note}", hop_text(h, gpn)));
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct RouteProps {
    pub fabric: std::rc::Rc<Fabric>,
    pub scope: Scope,
    pub selected: Vec<u64>,
    pub path: Option<Path>,
    pub pxn: bool,
    pub on_pxn: Callback<bool>,
}

#[function_component]
pub fn RouteList(props: &RouteProps) -> Html {
    let f = &*props.fabric;
    let on_pxn = props.on_pxn.reform(|e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        input.checked()
    });
    let body = match (&props.path, props.selected.as_slice()) {
        (Some(p), _) => {
            let mut summary = format!(
                "{} switch{} crossed",
                p.switches,
                if p.switches == 1 { "" } else { "es" }
            );
            if p.nvlink_hops > 0 {
                summary.push_str(&format!(", {} NVLink hop", p.nvlink_hops));
            }
            if p.pxn {
                summary.push_str(": PXN moved the data to the GPU on the destination's rail first");
            }
            html! {
                <>
                    <p class="topo-route-summary" data-switches={p.switches.to_string()} data-pxn={p.pxn.to_string()}>{ summary }</p>
                    <ol class="topo-route">
                        { for steps(f, p, &props.scope).into_iter().map(|s| html! { <li>{ s }</li> }) }
                    </ol>
                </>
            }
        }
        (None, [a]) => html! { <p>{ format!("GPU {a} picked: pick a second GPU.") }</p> },
        _ => html! { <p>{ "Pick two GPUs in the drawing to see the path between them." }</p> },
    };
    let pxn_note = (props.pxn && !f.spec.rail_optimized).then(|| {
        html! { <p class="topo-note">{ "PXN changes nothing here: without rail optimization a node's NIC ports all share one leaf." }</p> }
    });
    html! {
        <section class="topo-path" aria-labelledby="topo-path-h" aria-live="polite">
            <h2 id="topo-path-h">{ "Path" }</h2>
            <div class="form-field form-check">
                <input id="topo-pxn" type="checkbox" checked={props.pxn} onchange={on_pxn} />
                <label for="topo-pxn">{ "PXN: send over NVLink to the GPU on the destination's rail first (NCCL's PCI × NVLink)" }</label>
            </div>
            { for pxn_note }
            { body }
        </section>
    }
}
