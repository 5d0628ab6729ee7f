//! Canvas charts draw with the theme's colours at the canvas's size, so they are drawn again
//! when either changes: the site's theme switch (`data-theme` on `<html>`), the system's
//! colour scheme, or the window's size.

use gloo::events::EventListener;
use gloo::utils::{document, window};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use yew::prelude::*;

/// Redraws on theme changes (data-theme on <html>, or the system's scheme) and resizes.
#[hook]
pub fn use_redraw_on_theme_and_resize(redraw: Callback<()>) {
    use_effect_with((), move |_| {
        let on_change = {
            let redraw = redraw.clone();
            Closure::<dyn FnMut()>::new(move || redraw.emit(()))
        };
        let observer = web_sys::MutationObserver::new(on_change.as_ref().unchecked_ref()).ok();
        if let (Some(observer), Some(root)) = (&observer, document().document_element()) {
            let options = web_sys::MutationObserverInit::new();
            options.set_attributes(true);
            options.set_attribute_filter(&js_sys::Array::of1(&JsValue::from_str("data-theme")));
            let _ = observer.observe_with_options(&root, &options);
        }
        let resize = {
            let redraw = redraw.clone();
            EventListener::new(&window(), "resize", move |_| redraw.emit(()))
        };
        let scheme = window()
            .match_media("(prefers-color-scheme: dark)")
            .ok()
            .flatten()
            .map(|mq| EventListener::new(&mq, "change", move |_| redraw.emit(())));
        move || {
            if let Some(observer) = observer {
                observer.disconnect();
            }
            drop(on_change);
            drop(resize);
            drop(scheme);
        }
    });
}
