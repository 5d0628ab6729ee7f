//! The fabric's parts as inputs: a preset picker, a box per number, and the choices (tiers,
//! rail optimization, planes). Each refusal is shown under the input it names.

use engine::fabric::{presets, Tiers};
use yew::prelude::*;

use super::fields::FIELDS;
use super::network::Network;
use super::query::tiers_name;
use super::state::{Action, TopologyPage};

#[derive(Properties, PartialEq)]
pub struct InputsProps {
    pub page: UseReducerHandle<TopologyPage>,
    pub dispatch: Callback<Action>,
}

/// The refusal under an input, tied to it by `aria-describedby`.
fn refusal(key: &str, message: Option<&str>) -> Html {
    match message {
        Some(m) => html! {
            <p class="topo-error" id={format!("topo-error-{key}")} role="alert">{ m.to_string() }</p>
        },
        None => html! {},
    }
}

#[function_component]
pub fn FabricInputs(props: &InputsProps) -> Html {
    let page = &props.page;
    let on_preset = props.dispatch.reform(|e: Event| {
        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
        Action::Preset(select.value())
    });
    let hand_built = !page.is_preset();
    let numbers = FIELDS.iter().map(|f| {
        let key = f.key;
        let error = page.error(key);
        let id = format!("topo-{key}");
        let oninput = props.dispatch.reform(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            Action::Type(key, input.value())
        });
        html! {
            <div class={classes!("topo-field", error.is_some().then_some("topo-field-invalid"))} data-key={key}>
                <label for={id.clone()} title={f.help}>{ f.label }</label>
                <span class="topo-input">
                    <input
                        id={id}
                        type="text"
                        inputmode={f.reads.inputmode()}
                        value={page.text(key).to_string()}
                        aria-invalid={error.is_some().to_string()}
                        aria-describedby={error.map(|_| format!("topo-error-{key}"))}
                        {oninput}
                    />
                    <span class="topo-unit">{ f.unit }</span>
                </span>
                { refusal(key, error) }
            </div>
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
    let choice_error = |key: &'static str| page.error(key);
    html! {
        <section class="topo-inputs" aria-labelledby="topo-inputs-h">
            <h2 id="topo-inputs-h">{ "Parts" }</h2>
            <div class="topo-field topo-preset">
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
                <div class={classes!("topo-field", choice_error("tiers").is_some().then_some("topo-field-invalid"))} data-key="tiers">
                    <label for="topo-tiers">{ "Switch tiers" }</label>
                    <select id="topo-tiers" onchange={on_tiers}
                        aria-invalid={choice_error("tiers").is_some().to_string()}
                        aria-describedby={choice_error("tiers").map(|_| "topo-error-tiers")}>
                        { for [Tiers::Auto, Tiers::Two, Tiers::Three].into_iter().map(|t| html! {
                            <option value={tiers_name(t)} selected={page.tiers == t}>
                                { match t { Tiers::Auto => "fewest that fit", Tiers::Two => "2 (leaf, spine)", Tiers::Three => "3 (leaf, spine, core)" } }
                            </option>
                        }) }
                    </select>
                    { refusal("tiers", choice_error("tiers")) }
                </div>
                <div class={classes!("topo-field", choice_error("planes").is_some().then_some("topo-field-invalid"))} data-key="planes">
                    <label for="topo-planes">{ "Planes" }</label>
                    <select id="topo-planes" onchange={on_planes}
                        aria-invalid={choice_error("planes").is_some().to_string()}
                        aria-describedby={choice_error("planes").map(|_| "topo-error-planes")}>
                        <option value="1" selected={page.planes == 1}>{ "1" }</option>
                        <option value="2" selected={page.planes == 2}>{ "2 (a NIC port in each)" }</option>
                    </select>
                    { refusal("planes", choice_error("planes")) }
                </div>
                <div class="topo-field" data-key="network">
                    <label for="topo-network" title="What the NICs and switches speak; with the NIC rate it names the NIC the NCCL calculator models.">{ "Network" }</label>
                    <select id="topo-network" onchange={on_network}>
                        { for Network::ALL.into_iter().map(|n| html! {
                            <option value={n.id()} selected={page.network == n}>{ n.label() }</option>
                        }) }
                    </select>
                </div>
                <div class={classes!("topo-field", "topo-check", choice_error("rail_optimized").is_some().then_some("topo-field-invalid"))} data-key="rail_optimized">
                    <input id="topo-rail" type="checkbox" checked={page.rail_optimized} onchange={on_rail}
                        aria-describedby={choice_error("rail_optimized").map(|_| "topo-error-rail_optimized")} />
                    <label for="topo-rail">{ "Rail-optimized (NIC port r of every node in a unit goes to that unit's rail-r leaf)" }</label>
                    { refusal("rail_optimized", choice_error("rail_optimized")) }
                </div>
            </div>
            if !page.errors.is_empty() {
                <p class="topo-kept" role="status">
                    { "The table and drawing below still show the last fabric that built." }
                </p>
            }
        </section>
    }
}
