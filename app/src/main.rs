//! The rdma-lab single-page app. It draws what the engine computes and holds no model logic.

mod base;
mod components;
// The tests use the build script's compiler, not every part of it.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../build/content.rs"]
mod content_compiler;
#[cfg(test)]
mod content_rules;
mod navigation;
mod route;
mod theme;
mod topics;
mod views;

use yew::prelude::*;
use yew_router::prelude::*;

use components::{NotFound, Shell, TopicPage};
use route::Route;
use theme::Theme;
use topics::Topic;

/// The mark the bench reads to time the first rendered route from navigation start.
const FIRST_ROUTE_MARK: &str = "lab-first-route";

fn switch(route: Route) -> Html {
    match Topic::at(&route) {
        Some(topic) => html! { <TopicPage {topic} /> },
        None => html! { <NotFound /> },
    }
}

#[function_component]
fn App() -> Html {
    use_effect_with((), |_| {
        if let Some(performance) = gloo::utils::window().performance() {
            let _ = performance.mark(FIRST_ROUTE_MARK);
        }
    });
    html! {
        // Routes are matched below the site root, wherever the site is served from.
        <BrowserRouter basename={base::basename().map(AttrValue::from)}>
            <Shell>
                <Switch<Route> render={switch} />
            </Shell>
        </BrowserRouter>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    if let Some(theme) = Theme::remembered() {
        theme.apply();
    }
    yew::Renderer::<App>::new().render();
}
