use yew::prelude::*;
use yew_router::prelude::*;

use crate::base;
use crate::route::Route;
use crate::topics::{groups, Topic};

#[derive(Properties, PartialEq)]
pub struct SidebarProps {
    /// Shown on narrow screens only when the learner opens the menu.
    pub open: bool,
    /// Called after a link is followed, so a narrow screen can close the menu.
    pub on_navigate: Callback<()>,
}

/// The list of topics, one link (and one URL) each.
#[function_component]
pub fn Sidebar(props: &SidebarProps) -> Html {
    let current = use_route::<Route>();
    let class = classes!("sidebar", props.open.then_some("open"));
    html! {
        <nav id="topics" {class} aria-label="Topics">
            // Group names are labels, not headings: the page's own h1 stays its first heading.
            { for groups().into_iter().enumerate().map(|(index, (group, topics))| html! {
                <div class="topic-group">
                    <p class="topic-group-title" id={format!("topic-group-{index}")}>{ group }</p>
                    <ul aria-labelledby={format!("topic-group-{index}")}>
                        { for topics.into_iter().map(|topic| html! {
                            <li>
                                <TopicLink
                                    {topic}
                                    current={current.as_ref() == Some(&topic.route())}
                                    on_navigate={props.on_navigate.clone()}
                                />
                            </li>
                        }) }
                    </ul>
                </div>
            }) }
        </nav>
    }
}

#[derive(Properties, PartialEq)]
struct TopicLinkProps {
    topic: &'static Topic,
    current: bool,
    on_navigate: Callback<()>,
}

/// A plain `<a href>` (so middle-click and copy-link work) that navigates in-app.
#[function_component]
fn TopicLink(props: &TopicLinkProps) -> Html {
    let navigator = use_navigator();
    let route = props.topic.route();
    let onclick = {
        let on_navigate = props.on_navigate.clone();
        Callback::from(move |event: MouseEvent| {
            let plain_click = event.button() == 0
                && !(event.ctrl_key() || event.meta_key() || event.shift_key() || event.alt_key());
            if let (true, Some(navigator)) = (plain_click, navigator.as_ref()) {
                event.prevent_default();
                navigator.push(&route);
                on_navigate.emit(());
            }
        })
    };
    html! {
        <a
            href={base::href(props.topic.path)}
            aria-current={props.current.then_some("page")}
            class={classes!(props.current.then_some("current"))}
            {onclick}
        >
            { props.topic.title }
        </a>
    }
}
