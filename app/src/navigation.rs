//! In-app navigation to a page and, optionally, a heading on it: used by search results and
//! by the links inside the reference text, so neither reloads the page.

use gloo::utils::{document, window};
use wasm_bindgen::JsValue;
use web_sys::ScrollIntoViewOptions;
use yew_router::prelude::*;

use crate::base;
use crate::route::Route;

/// Splits an in-app href (`/lossless#pfc`, or under the site root `/rdma-lab/lossless#pfc`)
/// into its route and anchor; `None` for links that leave the app.
pub fn internal_target(href: &str) -> Option<(Route, Option<String>)> {
    let path = base::route_path(href)?;
    let (path, anchor) = match path.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor.to_string()).filter(|a| !a.is_empty())),
        None => (path.as_str(), None),
    };
    let path = path.split('?').next().unwrap_or_default();
    let route = Route::recognize(if path.is_empty() { "/" } else { path })?;
    Some((route, anchor))
}

/// The route the address bar shows now.
fn current_route() -> Option<Route> {
    let here = window().location().pathname().ok()?;
    Route::recognize(&base::route_path(&here)?)
}

/// Shows `route` and brings `anchor` into view, keeping both in the URL.
pub fn go_to(navigator: &Navigator, route: &Route, anchor: Option<&str>) {
    let same_page = current_route().as_ref() == Some(route);
    if !same_page {
        navigator.push(route);
    }
    // The path as the router (or the host, `/qp/` after a reload) wrote it, under the site
    // root; a link within the page keeps the page's query.
    let location = window().location();
    let mut url = location.pathname().unwrap_or_default();
    if same_page {
        url.push_str(&location.search().unwrap_or_default());
    }
    if let Some(anchor) = anchor {
        url = format!("{url}#{anchor}");
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
    if same_page {
        reveal_anchor();
    }
    // A new page scrolls itself once it has rendered: see `reveal_anchor` in TopicPage.
}

/// Scrolls to the element the URL's `#anchor` names, or to the top when there is none.
pub fn reveal_anchor() {
    let hash = window().location().hash().unwrap_or_default();
    let anchor = hash.trim_start_matches('#');
    let element = (!anchor.is_empty())
        .then(|| document().get_element_by_id(anchor))
        .flatten();
    match element {
        Some(element) => {
            let options = ScrollIntoViewOptions::new();
            element.scroll_into_view_with_scroll_into_view_options(&options);
        }
        None => window().scroll_to_with_x_and_y(0.0, 0.0),
    }
}
