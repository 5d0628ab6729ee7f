use yew::prelude::*;

use crate::base;

/// Shown for any URL the lab does not know, with a way back. A static host serves it as
/// 404.html for every unknown path, so it cannot name the path itself.
#[function_component]
pub fn NotFound() -> Html {
    html! {
        <article class="topic not-found" aria-labelledby="topic-title">
            <h1 id="topic-title">{ "Page not found" }</h1>
            <p class="topic-summary">
                { "There is no page at this address. It may have moved, or the link has a typo. Pick a topic from the list, or start at the " }
                <a href={base::href("/")}>{ "overview" }</a>{ "." }
            </p>
        </article>
    }
}
