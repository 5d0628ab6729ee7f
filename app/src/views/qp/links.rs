//! Links back to the reference text that explains what the view shows.

use yew::prelude::*;
use yew_router::prelude::*;

use crate::navigation::{go_to, internal_target};

/// (href, text). Anchors are the compiled heading ids of `content/topics/*.md`.
const LINKS: [(&str, &str); 7] = [
    ("/qp#the-state-machine", "The state machine"),
    (
        "/qp#the-attributes-each-transition-needs-rc",
        "The attributes each transition needs",
    ),
    (
        "/qp#connecting-two-qps-out-of-band",
        "Connecting two QPs out of band",
    ),
    (
        "/qp#common-mistakes-that-return-einval",
        "Common mistakes that return EINVAL",
    ),
    (
        "/verbs#posting-work-and-reaping-completions",
        "Verbs: posting work and reaping completions",
    ),
    (
        "/troubleshooting#qp-stuck-in-init-or-rtr-einval",
        "Troubleshooting: QP stuck in INIT or RTR",
    ),
    (
        "/troubleshooting#retry-exceeded",
        "Troubleshooting: retry exceeded",
    ),
];

#[function_component]
pub fn ReferenceLinks() -> Html {
    let navigator = use_navigator();
    let onclick = Callback::from(move |event: MouseEvent| {
        let plain = event.button() == 0
            && !(event.ctrl_key() || event.meta_key() || event.shift_key() || event.alt_key());
        let href = event
            .current_target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|e| e.get_attribute("href"));
        if let (true, Some(navigator), Some((route, anchor))) = (
            plain,
            navigator.as_ref(),
            href.as_deref().and_then(internal_target),
        ) {
            event.prevent_default();
            go_to(navigator, &route, anchor.as_deref());
        }
    });
    html! {
        <nav class="qp-links" aria-label="Read more">
            <h2>{ "Read more" }</h2>
            <ul>
                { for LINKS.iter().map(|(href, text)| html! {
                    <li><a href={*href} onclick={onclick.clone()}>{ *text }</a></li>
                }) }
            </ul>
        </nav>
    }
}
