use gloo::utils::document;
use wasm_bindgen::JsCast;
use yew::prelude::*;
use yew_router::prelude::*;

use crate::base;
use crate::navigation::{go_to, internal_target, reveal_anchor};
use crate::topics::Topic;
use crate::views;

#[derive(Properties, PartialEq)]
pub struct TopicPageProps {
    pub topic: &'static Topic,
}

/// A topic's page: heading, summary, and the reference text compiled from `content/`.
#[function_component]
pub fn TopicPage(props: &TopicPageProps) -> Html {
    let topic = props.topic;
    let navigator = use_navigator();
    // The text's links to other pages are route paths; under a sub-path they must carry it
    // for a middle-click or a copied link.
    let body = use_memo(topic.path, |_| match base::rebase_links(topic.body_html) {
        std::borrow::Cow::Borrowed(html) => AttrValue::Static(html),
        std::borrow::Cow::Owned(html) => AttrValue::from(html),
    });
    use_effect_with(topic.path, move |_| {
        document().set_title(&format!("{} · rdma-lab", topic.title));
        reveal_anchor();
    });

    // Links in the compiled text are plain anchors; keep in-app ones inside the app.
    let onclick = Callback::from(move |event: MouseEvent| {
        let plain_click = event.button() == 0
            && !(event.ctrl_key() || event.meta_key() || event.shift_key() || event.alt_key());
        let link = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("a[href]").ok().flatten());
        let (Some(link), Some(navigator), true) = (link, navigator.as_ref(), plain_click) else {
            return;
        };
        let href = link.get_attribute("href").unwrap_or_default();
        let target = if let Some(anchor) = href.strip_prefix('#') {
            Some((
                crate::route::Route::recognize(topic.path),
                Some(anchor.to_string()),
            ))
            .and_then(|(route, anchor)| route.map(|r| (r, anchor)))
        } else {
            internal_target(&href)
        };
        if let Some((route, anchor)) = target {
            event.prevent_default();
            go_to(navigator, &route, anchor.as_deref());
        }
    });

    html! {
        <article class="topic" aria-labelledby="topic-title">
            <h1 id="topic-title">{ topic.title }</h1>
            <p class="topic-summary">{ topic.summary }</p>
            { match (views::for_topic(topic), topic.view) {
                (Some(view), _) => view,
                (None, Some(name)) => html! {
                    <p class="view-pending" role="note">
                        { format!("The {name} for this topic is not built yet; the reference text below stands on its own.") }
                    </p>
                },
                (None, None) => html! {},
            } }
            <div class="prose" {onclick}>
                { Html::from_html_unchecked((*body).clone()) }
            </div>
        </article>
    }
}
