use gloo::utils::{document, window};
use yew::prelude::*;

use crate::base;

/// Shown for any URL the lab does not know, with a way back.
#[function_component]
pub fn NotFound() -> Html {
    use_effect_with((), |_| document().set_title("Page not found · rdma-lab"));
    let path = window().location().pathname().unwrap_or_default();
    html! {
        <article class="topic not-found" aria-labelledby="topic-title">
            <h1 id="topic-title">{ "Page not found" }</h1>
            <p class="topic-summary">
                { "There is no page at " }<code>{ path }</code>
                { ". It may have moved, or the link has a typo. Pick a topic from the list, or start at the " }
                <a href={base::href("/")}>{ "overview" }</a>{ "." }
            </p>
        </article>
    }
}
