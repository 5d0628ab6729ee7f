//! The /topology page's fabric builder: a fabric's parts in, its parts list, a drawing of
//! one unit with the path between two GPUs, and a link to what NCCL's all-reduce gets on
//! it. Every count and path comes from `engine::fabric`.

mod drawing;
mod fields;
mod inputs;
mod network;
mod parts;
mod query;
mod route;
mod state;

use yew::prelude::*;

use crate::base;
use drawing::{scope, FabricDrawing};
use inputs::FabricInputs;
use parts::PartsTable;
use query::Query;
use route::RouteList;
use state::{nccl_query, Action, TopologyPage};

use super::page_query;

#[derive(Properties, PartialEq)]
struct NcclLinkProps {
    link: Result<String, String>,
}

/// The way on to the all-reduce calculator, or why this fabric has no NIC model there.
#[function_component]
fn NcclLink(props: &NcclLinkProps) -> Html {
    html! {
        <p class="topo-nccl">
            { match &props.link {
                Ok(href) => html! { <a class="topo-nccl-link" href={href.clone()}>{ "What NCCL's all-reduce gets on this fabric" }</a> },
                Err(why) => html! { <span class="topo-nccl-none">{ why.clone() }</span> },
            } }
            { " · " }
            <a class="topo-fabric-lab-link" href={base::href("/fabric-lab")}>{ "Run traffic on fabrics like this in the fabric lab" }</a>
        </p>
    }
}

/// The whole interactive part of `/topology`.
#[function_component]
pub fn TopologyView() -> Html {
    let page = use_reducer(|| TopologyPage::from_query(&Query::from_pairs(&page_query::read())));
    let dispatch = {
        let page = page.clone();
        Callback::from(move |action: Action| page.dispatch(action))
    };
    {
        let pairs = page.query_pairs();
        use_effect_with(pairs, |pairs| page_query::replace(pairs));
    }
    let path = page.path();
    let link = page
        .machines()
        .map(|m| format!("{}{}", base::href("/nccl"), nccl_query(&m)));
    html! {
        <div class="topo-view">
            if let Some(note) = &page.note {
                <p class="topo-note" role="note">{ note }</p>
            }
            <FabricInputs page={page.clone()} dispatch={dispatch.clone()} />
            <PartsTable fabric={page.fabric.clone()} />
            <NcclLink {link} />
            <FabricDrawing
                fabric={page.fabric.clone()}
                selected={page.selected.clone()}
                path={path.clone()}
                on_pick={dispatch.reform(Action::Pick)}
            />
            <RouteList
                fabric={page.fabric.clone()}
                scope={scope(&page.fabric)}
                selected={page.selected.clone()}
                {path}
                pxn={page.pxn}
                on_pxn={dispatch.reform(Action::Pxn)}
            />
        </div>
    }
}
