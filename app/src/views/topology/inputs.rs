//! The fabric's parts as inputs: a preset picker, a box per number, and the choices (tiers,
//! rail optimization, planes). Each refusal is shown under the input it names.

use engine::fabric::{presets, Tiers};
use yew::prelude::*;

use super::fields::FIELDS;
use super::network::Network;
use super::query::tiers_name;
use super::state::{Action, TopologyPage};
use crate::views::form::{choice_described_by, ChoiceField, Refusal, TextField};

#[derive(Properties, PartialEq)]
pub struct InputsProps {
    pub page: UseReducerHandle<TopologyPage>,
    pub dispatch: Callback<Action>,
}

#[function_component]
pub fn FabricInputs(props: &InputsProps) -> Html {
    let page = &props.page;
    let on_preset = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Preset(select.value())
    });
    let hand_built = !page.is_preset();
    let on_type = props
        .dispatch
        .reform(|(key, text): (&'static str, String)| Action::Type(key, text));
    let refusal = |key: &str| page.form.refusal(key).map(Refusal::plain);
    let numbers = FIELDS.iter().map(|f| {
        let key = f.key;
        html! {
            <TextField def={f} id={format!("topo-{key}")} text={page.form.text(key).to_string()}
                refusal={refusal(key)} on_type={on_type.clone()} />
        }
    });
    let on_tiers = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Tiers(super::query::tiers_from(&select.value()).unwrap_or_default())
    });
    let on_rail = props.dispatch.reform(|e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        Action::RailOptimized(input.checked())
    });
    let on_planes = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Planes(select.value().parse().unwrap_or(1))
    });
    let on_network = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Network(Network::from_id(&select.value()).unwrap_or(Network::InfiniBand))
    });
    let described =
        |key: &str| choice_described_by(&format!("topo-{key}"), false, refusal(key).is_some());
    html! {
        <section class="topo-inputs" aria-labelledby="topo-inputs-h">
            <h2 id="topo-inputs-h">{ "Parts" }</h2>
            <div class="form-field topo-preset">
                <label for="topo-preset">{ "Start from" }</label>
                <select id="topo-preset" onchange={on_preset}>
                    { for presets().into_iter().map(|p| html! {
                        <option value={p.id} selected={!hand_built && p.id == page.base.id}>{ p.name }</option>
                    }) }
                    if hand_built {
                        <option value="" selected=true disabled=true>
                            { format!("Hand-built, from {}", page.base.name) }
                        </option>
                    }
                </select>
                <details class="topo-source">
                    <summary>{ "What this preset follows" }</summary>
                    <p>{ page.base.source }</p>
                </details>
            </div>
            <div class="topo-fields">
                { for numbers }
                <ChoiceField key_name="tiers" id="topo-tiers" label="Switch tiers" refusal={refusal("tiers")}>
                    <select id="topo-tiers" onchange={on_tiers}
                        aria-invalid={refusal("tiers").is_some().to_string()}
                        aria-describedby={described("tiers")}>
                        { for [Tiers::Auto, Tiers::Two, Tiers::Three].into_iter().map(|t| html! {
                            <option value={tiers_name(t)} selected={page.tiers == t}>
                                { match t { Tiers::Auto => "fewest that fit", Tiers::Two => "2 (leaf, spine)", Tiers::Three => "3 (leaf, spine, core)" } }
                            </option>
                        }) }
                    </select>
                </ChoiceField>
                <ChoiceField key_name="planes" id="topo-planes" label="Planes" refusal={refusal("planes")}>
                    <select id="topo-planes" onchange={on_planes}
                        aria-invalid={refusal("planes").is_some().to_string()}
                        aria-describedby={described("planes")}>
                        <option value="1" selected={page.planes == 1}>{ "1" }</option>
                        <option value="2" selected={page.planes == 2}>{ "2 (a NIC port in each)" }</option>
                    </select>
                </ChoiceField>
                <ChoiceField key_name="network" id="topo-network" label="Network"
                    help="What the NICs and switches speak; with the NIC rate it names the NIC the NCCL calculator models.">
                    <select id="topo-network" onchange={on_network} aria-describedby="topo-network-help">
                        { for Network::ALL.into_iter().map(|n| html! {
                            <option value={n.id()} selected={page.network == n}>{ n.label() }</option>
                        }) }
                    </select>
                </ChoiceField>
                <ChoiceField key_name="rail_optimized" id="topo-rail" check=true refusal={refusal("rail_optimized")}
                    label="Rail-optimized (NIC port r of every node in a unit goes to that unit's rail-r leaf)">
                    <input id="topo-rail" type="checkbox" checked={page.rail_optimized} onchange={on_rail}
                        aria-describedby={choice_described_by("topo-rail", false, refusal("rail_optimized").is_some())} />
                </ChoiceField>
            </div>
            if page.form.is_refused() {
                <p class="topo-kept" role="status">
                    { "The table and drawing below still show the last fabric that built." }
                </p>
            }
        </section>
    }
}
