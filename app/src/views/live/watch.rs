//! Whether a part of the view is on the learner's screen: what the "try this" task that asks
//! them to find DCQCN at work checks, since a chart far down the page is found by scrolling
//! to it.

use gloo::events::EventListener;
use gloo::utils::window;
use yew::prelude::*;

/// Whether at least half of an element `top`..`bottom` (CSS pixels from the top of a
/// viewport `height` high) is in the viewport, or the viewport is filled by it.
pub fn on_screen(top: f64, bottom: f64, height: f64) -> bool {
    let shown = bottom.min(height) - top.max(0.0);
    let size = bottom - top;
    size > 0.0 && (shown >= size / 2.0 || shown >= height / 2.0)
}

#[derive(Properties, PartialEq)]
pub struct WatchedProps {
    /// What the element shows, as its owner names it (a port, `mlx5_0:1`).
    pub name: AttrValue,
    /// Told `(name, true)` when the element comes on screen and `(name, false)` when it
    /// leaves.
    pub on_change: Callback<(String, bool)>,
    pub children: Html,
}

/// Its children, in a box that says when it comes on screen and when it leaves: measured
/// when it appears and whenever the page scrolls or the window changes size.
#[function_component]
pub fn Watched(props: &WatchedProps) -> Html {
    let node = use_node_ref();
    let shown = use_state_eq(|| false);
    {
        let (node, shown) = (node.clone(), shown.clone());
        use_effect_with((), move |_| {
            let measure = move || {
                let Some(el) = node.cast::<web_sys::Element>() else {
                    return;
                };
                let rect = el.get_bounding_client_rect();
                let height = window()
                    .inner_height()
                    .ok()
                    .and_then(|h| h.as_f64())
                    .unwrap_or_default();
                shown.set(on_screen(rect.top(), rect.bottom(), height));
            };
            measure();
            let listeners = ["scroll", "resize"].map(|event| {
                let measure = measure.clone();
                EventListener::new(&window(), event, move |_| measure())
            });
            move || drop(listeners)
        });
    }
    {
        let (on_change, name) = (props.on_change.clone(), props.name.to_string());
        use_effect_with(*shown, move |shown| on_change.emit((name, *shown)));
    }
    html! {
        <div class="live-watched" ref={node}>{ props.children.clone() }</div>
    }
}

#[cfg(test)]
mod tests {
    use super::on_screen;

    #[test]
    fn half_in_view_is_on_screen() {
        assert!(on_screen(100.0, 280.0, 800.0));
        assert!(on_screen(700.0, 880.0, 800.0), "100 of 180 px shown");
        assert!(!on_screen(750.0, 930.0, 800.0), "50 of 180 px shown");
        assert!(!on_screen(-200.0, -20.0, 800.0), "scrolled past");
        assert!(on_screen(-500.0, 2000.0, 800.0), "filling the screen");
        assert!(!on_screen(10.0, 10.0, 800.0), "not laid out");
    }
}
