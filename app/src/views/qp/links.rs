//! Links back to the reference text that explains what the view shows.

use yew::prelude::*;

use crate::base;

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
    html! {
        <nav class="qp-links" aria-label="Read more">
            <h2>{ "Read more" }</h2>
            <ul>
                { for LINKS.iter().map(|(href, text)| html! {
                    <li><a href={base::href(href)}>{ *text }</a></li>
                }) }
            </ul>
        </nav>
    }
}
