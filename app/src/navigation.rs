//! In-app navigation to a page and, optionally, a heading on it: used by search results and
//! by the links inside the reference text, so neither reloads the page.

use gloo::utils::{document, window};
use wasm_bindgen::JsValue;
use web_sys::ScrollIntoViewOptions;
use yew_router::prelude::*;

use crate::route::Route;

/// Splits `/lossless#pfc` into its route and anchor; `None` for links that leave the app.
pub fn internal_target(href: &str) -> Option<(Route, Option<String>)> {
    if !href.starts_with('/') || href.starts_with("//") {
        return None;
    }
    let (path, anchor) = match href.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor.to_string()).filter(|a| !a.is_empty())),
        None => (href, None),
    };
    let route = Route::recognize(if path.is_empty() { "/" } else { path })?;
    Some((route, anchor))
}

/// Shows `route` and brings `anchor` into view, keeping both in the URL.
pub fn go_to(navigator: &Navigator, route: &Route, anchor: Option<&str>) {
    let here = window().location().pathname().unwrap_or_default();
    let target = route.to_path();
    if here != target {
        navigator.push(route);
    }
    let url = match anchor {
        Some(anchor) => format!("{target}#{anchor}"),
        None => target.clone(),
    };
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
    if here == target {
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
