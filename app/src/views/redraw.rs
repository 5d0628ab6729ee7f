//! A view's canvas charts: the box and canvases they draw in, and the redraw they need when
//! the theme's colours or the canvas's size change (the site's theme switch, `data-theme` on
//! `<html>`; the system's colour scheme; the window's size).

use std::rc::Rc;

use gloo::events::EventListener;
use gloo::utils::{document, window};
use wasm_bindgen::{prelude::Closure, JsCast, JsValue};
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

/// The chart box and its canvases, for drawing and the PNG.
#[derive(Clone, PartialEq)]
pub struct ChartRefs {
    pub charts_box: NodeRef,
    pub canvases: Rc<Vec<NodeRef>>,
}

impl ChartRefs {
    pub fn canvases(&self) -> Vec<HtmlCanvasElement> {
        self.canvases
            .iter()
            .filter_map(|n| n.cast::<HtmlCanvasElement>())
            .collect()
    }
}

/// A chart box and `count` canvases.
#[hook]
pub fn use_chart_refs(count: usize) -> ChartRefs {
    let charts_box = use_node_ref();
    // One NodeRef each: a cloned NodeRef is the same ref.
    let canvases = use_memo(count, |&count| {
        (0..count).map(|_| NodeRef::default()).collect::<Vec<_>>()
    });
    ChartRefs {
        charts_box,
        canvases,
    }
}

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
