use gloo::events::EventListener;
use yew::prelude::*;

use crate::theme::Theme;

/// A button that switches between the light and dark theme and remembers the choice.
#[function_component]
pub fn ThemeToggle() -> Html {
    let theme = use_state(Theme::current);

    // Until the learner picks a theme, the page follows the system; keep the label honest.
    {
        let theme = theme.clone();
        use_effect_with((), move |_| {
            let listener = Theme::system_query().map(|query| {
                EventListener::new(&query, "change", move |_| theme.set(Theme::current()))
            });
            move || drop(listener)
        });
    }

    let onclick = {
        let theme = theme.clone();
        Callback::from(move |_| {
            let next = theme.other();
            next.choose();
            theme.set(next);
        })
    };

    let next = theme.other();
    html! {
        <button
            type="button"
            class="theme-toggle"
            aria-label={format!("Switch to the {} theme", next.name())}
            title={format!("Switch to the {} theme", next.name())}
            {onclick}
        >
            <span aria-hidden="true">{ if next == Theme::Dark { "☾" } else { "☀" } }</span>
            <span class="theme-toggle-text">{ next.name() }</span>
        </button>
    }
}
