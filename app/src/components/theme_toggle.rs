use yew::prelude::*;

use crate::theme::Theme;

/// The button that switches between the light and dark theme (see `crate::browser::theme`,
/// which also relabels it for the theme the page shows).
#[function_component]
pub fn ThemeToggle() -> Html {
    let next = Theme::Light.other();
    html! {
        <button
            type="button"
            class="theme-toggle"
            aria-label={next.switch_label()}
            title={next.switch_label()}
        >
            <span aria-hidden="true">{ next.symbol() }</span>
            <span class="theme-toggle-text">{ next.name() }</span>
        </button>
    }
}
