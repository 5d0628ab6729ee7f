//! The shell's behaviour in the browser, over the markup `prerender` wrote from
//! `crate::components`: links followed without reloading, the search box, the theme button,
//! the narrow-screen menu, Escape for a term's definition, and each view's own module mounted
//! in its page. It draws with the DOM directly rather than with Yew, so the code every page
//! downloads stays small; the views are Yew apps in their own modules.

pub mod navigation;
mod search;
mod terms;
mod theme;
mod views;

pub(crate) use views::module_url;

use gloo::utils::window;
use wasm_bindgen::JsCast;

/// The mark the bench reads: the shell has started and the page answers input.
const FIRST_ROUTE_MARK: &str = "lab-first-route";

/// Wires every part of the page. Each part finds its own elements; a page without one (the
/// 404 page has no view) simply skips it.
pub fn start() {
    pin_site_root();
    theme::start();
    navigation::start();
    search::start();
    terms::start();
    views::mount_in_page();
    if let Some(performance) = window().performance() {
        let _ = performance.mark(FIRST_ROUTE_MARK);
    }
}

/// Makes the page's `<base>` name the site root absolutely (adding one on the root page,
/// which needs none to load). Every relative URL the page uses later (links, the topic
/// texts, the view modules, samples, the DCQCN worker) then keeps naming the site root
/// after the address bar moves to another page, at another depth.
fn pin_site_root() {
    let document = gloo::utils::document();
    let Ok(origin) = window().location().origin() else {
        return;
    };
    let root = format!("{origin}{}", crate::base::site_root());
    let base = match document.query_selector("base").ok().flatten() {
        Some(base) => base,
        None => {
            let Ok(base) = document.create_element("base") else {
                return;
            };
            if let Some(head) = document.head() {
                let _ = head.prepend_with_node_1(&base);
            }
            base
        }
    };
    let _ = base.set_attribute("href", &root);
}

/// The first element matching `selector`, as `T`.
fn find<T: JsCast>(selector: &str) -> Option<T> {
    gloo::utils::document()
        .query_selector(selector)
        .ok()
        .flatten()?
        .dyn_into::<T>()
        .ok()
}

/// A JavaScript error in words for the page.
fn describe(error: wasm_bindgen::JsValue) -> String {
    error
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "the browser gave no reason".to_string())
}

/// Fetches `file`, a path relative to the site root (`text/qp.html`, `search.txt`), as text.
async fn fetch_text(file: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;

    let response = JsFuture::from(window().fetch_with_str(file))
        .await
        .map_err(describe)?
        .unchecked_into::<web_sys::Response>();
    if !response.ok() {
        return Err(format!("{file} answered HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(describe)?)
        .await
        .map_err(describe)?;
    Ok(text.as_string().unwrap_or_default())
}
