//! A term's definition beside its first use on a page (`.term-def`, written by the content
//! compiler and shown by the stylesheet on hover and keyboard focus) can be dismissed:
//! Escape hides it until the pointer and focus have left the term (WCAG 2.1, 1.4.13).

use gloo::events::EventListener;
use gloo::utils::document;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};

/// The class that keeps a definition hidden while its term is still pointed at or focused.
const QUIET: &str = "quiet";

/// Calls `each` on every element matching `selector`.
fn for_each(selector: &str, mut each: impl FnMut(&Element)) {
    let Ok(found) = document().query_selector_all(selector) else {
        return;
    };
    for index in 0..found.length() {
        if let Some(element) = found.item(index).and_then(|n| n.dyn_into::<Element>().ok()) {
            each(&element);
        }
    }
}

pub fn start() {
    EventListener::new(&document(), "keydown", |event| {
        if event
            .dyn_ref::<KeyboardEvent>()
            .is_some_and(|e| e.key() == "Escape")
        {
            for_each(".term-wrap:hover, .term-wrap:focus-within", |wrap| {
                let _ = wrap.class_list().add_1(QUIET);
            });
        }
    })
    .forget();
    // Once the pointer or focus is elsewhere, the term shows its definition again next time.
    for moved in ["mouseover", "focusin"] {
        EventListener::new(&document(), moved, |_| {
            for_each(".term-wrap.quiet", |wrap| {
                if !wrap.matches(":hover, :focus-within").unwrap_or(true) {
                    let _ = wrap.class_list().remove_1(QUIET);
                }
            });
        })
        .forget();
    }
}
